"""What every supported torch release must give: each frame of each test workload runs from its
decompiled file, proven equivalent to Dynamo's bytecode, and the program's outputs equal eager's.

It runs ``benchmarks/dynamo_coverage.py`` (a fresh process per workload, as a user's program)
on all of its workloads with the installed torch; ``scripts/test.sh`` runs this file in the
venv of every release of the support matrix.

A frame the translation validator cannot prove equivalent runs Dynamo's bytecode instead of its
file. Those known are listed in ``KNOWN_UNPROVEN`` (none: every frame is proven); any other
one fails the test, and so does a listed one that is proven again (the list must shrink with
the validator).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

# workload -> functions whose frames the validator does not prove equivalent (none).
KNOWN_UNPROVEN: dict[str, set[str]] = {}


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
    where = f"torch {torch.__version__}:\n{out}"
    rows = [ln for ln in out.splitlines() if re.match(r"^[a-z0-9_]+\s+\d+\s+\|", ln)]
    assert len(rows) >= 20, where  # every workload of the benchmark printed a row
    different = [row for row in rows if not row.rstrip().endswith("same")]
    assert not different, where
    unproven = {}
    for m in re.finditer(r"^not proven equivalent: (\w+): (.+)$", out, re.M):
        unproven[m.group(1)] = set(m.group(2).split(", "))
    assert unproven == KNOWN_UNPROVEN, where
    total = re.search(r"pellucid: (\d+) of (\d+) transformed frames ran from a dumped file", out)
    assert total is not None, where
    ran, frames = map(int, total.groups())
    # every frame runs from its file but the known unproven ones (one frame each)
    expected = frames - sum(len(fns) for fns in KNOWN_UNPROVEN.values())
    assert frames > 0 and ran == expected, where
