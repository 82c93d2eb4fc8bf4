"""The report's recompilation and graph-break counts are what ``TORCH_LOGS=recompiles,
graph_breaks`` prints for the same run, on every workload of the coverage benchmark
(``benchmarks/dynamo_coverage.py``).  One child process runs them all, each in its own dump and
after ``torch._dynamo.reset()``, marking in its stderr where each one's logs begin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
from workloads import WORKLOADS

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")
COVERAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks", "dynamo_coverage.py")
MARK = "=== pellucid workload "
_GRAPH_BREAK_LOG = re.compile(
    r"Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at"
)

CHILD = textwrap.dedent(
    """\
    import contextlib, io, sys, warnings
    sys.path.insert(0, {here!r})
    warnings.simplefilter("ignore")
    import torch
    import pellucid
    import workloads
    dump = sys.argv[1]
    for name in sys.argv[2:]:
        w = workloads.WORKLOADS[name]
        torch._dynamo.reset()
        fn, run = w.make()
        compiled = torch.compile(fn, backend="eager", **w.compile_kwargs)
        print({mark!r} + name, file=sys.stderr, flush=True)
        with contextlib.redirect_stdout(io.StringIO()), pellucid.prepare_debug(dump + "/" + name):
            run(compiled)
        sys.stderr.flush()
    print({mark!r} + "end", file=sys.stderr, flush=True)
    """
)


def coverage_workloads() -> list[str]:
    """The workloads ``benchmarks/dynamo_coverage.py`` runs by default."""
    text = open(COVERAGE, encoding="utf-8").read()
    block = re.search(r"DEFAULT_WORKLOADS = \((.*?)\n\)", text, re.S).group(1)
    return "".join(re.findall(r'"([^"]*)"', block)).split(",")


def test_the_coverage_workloads_are_known():
    assert set(coverage_workloads()) <= set(WORKLOADS)


def test_report_counts_equal_torch_logs_on_every_coverage_workload(tmp_path):
    pytest.importorskip("transformers")
    from pellucid.report import build_report

    names = coverage_workloads()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SRC, env.get("PYTHONPATH", "")])
    env["TORCH_LOGS"] = "recompiles,graph_breaks"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(here=HERE, mark=MARK), str(tmp_path), *names],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    parts = proc.stderr.split(MARK)[1:]
    logs = {p.split("\n", 1)[0].strip(): p for p in parts}
    assert set(logs) == {*names, "end"}
    mismatches = []
    totals = [0, 0]
    for name in names:
        want_recompiles = logs[name].count("Recompiling function")
        want_breaks = len(_GRAPH_BREAK_LOG.findall(logs[name]))
        html = open(build_report(str(tmp_path / name)), encoding="utf-8").read()
        got_recompiles = int(re.search(r"Recompilations \((\d+)\)", html).group(1))
        got_breaks = int(re.search(r"Graph breaks \((\d+)\)", html).group(1))
        totals[0] += want_recompiles
        totals[1] += want_breaks
        if (got_recompiles, got_breaks) != (want_recompiles, want_breaks):
            mismatches.append((name, (got_recompiles, got_breaks), (want_recompiles, want_breaks)))
    assert not mismatches, mismatches
    assert totals[0] >= 2 and totals[1] >= 10, totals
