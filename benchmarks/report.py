"""How long the report takes, next to PyTorch's tlparse, and what `pellucid run` adds to a run.

1. Dumps the torch.compile test workloads (tests/report/make_dumps.py, one process each) with
   TORCH_TRACE on, then times ``build_report`` per dump (default graph drawing, built-in layout
   only, and without Pygments), and ``tlparse`` on the same run's trace (the peer: PyTorch's own
   HTML report).
2. Times ``python examples/toy.py`` against ``pellucid run examples/toy.py`` and
   ``pellucid run --report examples/toy.py`` in fresh processes (median of N).

Usage: ``python benchmarks/report.py [--repeat N] [--workloads a,b:backend,...]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial

from page import about_from_doc, markdown_page
from page import add_option as add_markdown_option

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
sys.path.insert(0, SRC)

DEFAULT_WORKLOADS = (
    "readme,graph_breaks,dynamic_auto,mlp_backward:aot_eager,method:inductor,bert:aot_eager,gpt2"
)


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("TORCH_TRACE", None)
    e.update(extra)
    return e


def tlparse() -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), "tlparse")
    return here if os.path.isfile(here) else shutil.which("tlparse")


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def report_table(work: str, workloads: list[str], repeat: int) -> None:
    from pellucid.report import build_report
    from pellucid.report.svg import dot_path

    # one process per workload, so each has its own TORCH_TRACE log
    for spec in workloads:
        name = spec.split(":")[0]
        subprocess.run(
            [sys.executable, os.path.join(ROOT, "tests", "report", "make_dumps.py"), work, spec],
            env=env(TORCH_TRACE=os.path.join(work, "trace-" + name)),
            check=True,
            capture_output=True,
        )
    tl = tlparse()
    print(
        f"report build time per dump (median of {repeat}); tlparse on the same run's TORCH_TRACE log"
    )
    print(
        "auto: graphviz dot for pictures up to 120 nodes"
        + (" (dot installed)" if dot_path() else " (dot NOT installed: built-in)")
        + ", built-in layout above; builtin: built-in layout only; no pygments: and plain text"
    )
    print(
        f"{'workload':<14} {'pages':>5} {'files':>5} {'graph nodes':>11} "
        f"{'auto':>9} {'builtin':>9} {'no pygments':>11} {'tlparse':>9}"
    )
    for spec in workloads:
        name = spec.split(":")[0]
        dump = os.path.join(work, name)
        if not os.path.isfile(os.path.join(dump, "index.json")):
            print(f"{name:<14} (no dump)")
            continue
        out = os.path.join(work, name + "-out")
        t_auto = timed(partial(build_report, dump, out, "auto"), repeat)
        t_builtin = timed(partial(build_report, dump, out, "builtin"), repeat)
        t_plain = timed(partial(build_report, dump, out, "builtin", False), repeat)
        pages = len(glob.glob(os.path.join(out, "*.html")))
        files = len([f for f in os.listdir(dump) if f.endswith(".py")])
        from pellucid.report.fxgraph import parse_fx_graph

        nodes = 0
        for f in glob.glob(os.path.join(dump, "__compiled_fn_*.py")):
            with open(f, encoding="utf-8") as fh:
                g = parse_fx_graph(fh.read())
            nodes += len(g.nodes) if g else 0
        t_tl = None
        logs = glob.glob(os.path.join(work, "trace-" + name, "*.log"))
        if tl and logs:
            tl_out = os.path.join(work, name + "-tlparse")
            cmd = [tl, logs[0], "-o", tl_out, "--overwrite", "--no-browser"]
            t_tl = timed(partial(subprocess.run, cmd, check=True, capture_output=True), repeat)

        def fmt(t: float | None) -> str:
            return "—" if t is None else f"{t * 1000:.0f} ms"

        print(
            f"{name:<14} {pages:>5} {files:>5} {nodes:>11} {fmt(t_auto):>9} {fmt(t_builtin):>9} "
            f"{fmt(t_plain):>11} {fmt(t_tl):>9}"
        )


def run_table(work: str, repeat: int) -> None:
    toy = os.path.join(ROOT, "examples", "toy.py")
    cmds = {
        "python examples/toy.py": [sys.executable, toy, os.path.join(work, "plain")],
        "pellucid run examples/toy.py": [sys.executable, "-m", "pellucid", "run", toy],
        "pellucid run --report examples/toy.py": [
            sys.executable,
            "-m",
            "pellucid",
            "run",
            "--report",
            toy,
        ],
    }
    print(f"\nwall time of a whole run, fresh processes (median of {repeat})")
    base = None
    for label, cmd in cmds.items():
        t = timed(
            lambda cmd=cmd: subprocess.run(
                cmd, cwd=work, env=env(), check=True, capture_output=True
            ),
            repeat,
        )
        base = base or t
        print(f"{label:<40} {t:6.2f} s  x{t / base:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    add_markdown_option(ap)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pellucid-report-bench-")
    try:
        with markdown_page(args.markdown, "Report build time", about_from_doc(__doc__)):
            report_table(work, args.workloads.split(","), args.repeat)
            run_table(work, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
