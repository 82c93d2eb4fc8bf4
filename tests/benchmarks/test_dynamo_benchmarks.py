"""The torch.compile benchmarks run end to end on a small selection (numbers are not checked:
the machine is shared; docs/benchmarks/ has the generated pages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_dynamo_coverage_table():
    out = _run("dynamo_coverage.py", "--workloads", "readme,with_graph_break", "--no-depyf")
    rows = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith(("readme", "with_graph"))}
    assert set(rows) == {"readme", "with_graph_break"}
    for row in rows.values():
        assert "same" in row, row
        frames = int(row.split()[1])
        assert frames >= 2, row
    assert "pellucid: 5 of 5 transformed frames ran from a dumped file" in out


def test_overhead_table():
    out = _run(
        "overhead.py", "--repeat", "1", "--workloads", "readme", "--backends", "eager",
        "--inductor-workloads", "", "--modes", "plain,pellucid",
    )  # fmt: skip
    row = next(ln for ln in out.splitlines() if ln.startswith("readme"))
    assert "error" not in row, out
    assert "pellucid cpu x" in out
    assert "pellucid own ms" in out and float(row.split()[-4]) > 0  # own time measured


def test_steady_state_table():
    out = _run(
        "steady_state.py", "--rounds", "1", "--workloads", "readme,graph_breaks", "--backends",
        "eager",
    )  # fmt: skip
    rows = [ln.split() for ln in out.splitlines() if ln.startswith(("readme", "graph_breaks"))]
    assert [r[0] for r in rows] == ["readme", "graph_breaks"], out
    for r in rows:
        plain, ours, ratio = map(float, r[2:5])
        assert plain > 0 and ours > 0 and abs(ratio - ours / plain) < 0.01
