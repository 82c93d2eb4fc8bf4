"""What every supported torch release must give: each frame of each test workload runs from its
decompiled file, and the program's outputs equal eager's.

It runs ``benchmarks/dynamo_coverage.py`` (a fresh process per workload, as a user's program)
on all of its workloads with the installed torch; ``scripts/test.sh`` runs this file in the
venv of every release of the support matrix.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(1800)
def test_every_frame_runs_from_its_file_with_eager_outputs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "dynamo_coverage.py"), "--no-depyf"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    rows = [ln for ln in out.splitlines() if re.match(r"^[a-z0-9_]+\s+\d+\s+\|", ln)]
    assert len(rows) >= 20, out  # every workload of the benchmark printed a row
    different = [row for row in rows if not row.rstrip().endswith("same")]
    assert not different, f"torch {torch.__version__}:\n" + "\n".join(different)
    total = re.search(r"pellucid: (\d+) of (\d+) transformed frames ran from a dumped file", out)
    assert total is not None, out
    ran, frames = map(int, total.groups())
    assert frames > 0 and ran == frames, f"torch {torch.__version__}: {total.group(0)}\n{out}"
