"""Overhead of pellucid.prepare_debug vs plain torch.compile vs depyf.prepare_debug.

Usage::

    python benchmarks/overhead.py [--repeat 3] [--workloads readme,mlp_backward,...]
                                  [--backends eager,aot_eager,inductor] [--depyf-python PATH]

Each measurement is a fresh process with Inductor's FX-graph and AOT caches disabled (and a
fresh Inductor cache dir).  In the child, *wall* is the time from ``torch.compile`` to the end
of the workload's calls (compilation, the calls, and for the dumping modes the dump and index
written on exit); *cpu* is the process CPU time over the same span (what the run itself consumed: far less
disturbed than wall time when other work shares the machine); *steady* is the per-call CPU time
of the compiled function afterwards (best of 15 batches of 20 calls).  For pellucid, *own* is the
time spent in pellucid's own code within *wall* (``DumpSession.own_time_s``: its hooks, dumps and
exit work, without the torch work they wrap), and *own x* = wall / (wall - own): the overhead
measured inside one process, so other load on the machine cancels out.  Modes:

* ``plain``     torch.compile alone
* ``pellucid``  inside ``pellucid.prepare_debug`` (decompiled code runs from the dumped files)
* ``nodecomp``  pellucid with the decompiler disabled: hooks, graph/guard dumps and index only
* ``depyf``     inside ``depyf.prepare_debug`` (depyf 0.20.0, run with ``--depyf-python``)

*A/B x* is the in-process A/B (``--ab-rounds``, see ``CHILD_AB``): in one more fresh process per
cell, plain and pellucid compiles alternate, and the median of the paired wall ratios is shown,
with *A/B own* = 1 + median(own / plain wall) beside it.  Fresh processes differ in speed by
10-20 % from one to the next on a shared machine; neighbouring compiles in one process do not, so
this is the steadiest measure of the overhead once first uses are paid (the columns before it
include them).

Ratios are to ``plain`` of the same workload and backend, medians over ``--repeat`` runs
interleaved in the same benchmark run.  A mode whose run raised prints ``error``.  Before the
clock starts every child imports torch.compile's stack and the tool, and compiles and calls an
unrelated function the way its mode runs code (inside the tool's ``prepare_debug`` for the tool
modes), so that first-use costs are outside the clock for torch and for the tools alike;
``--cold-tool`` leaves the tool's first use inside the clock (torch's stays outside).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from child import run_child
from page import about_from_doc, markdown_page
from page import add_option as add_markdown_option
from peers import depyf_torch_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS_DIR = os.path.join(ROOT, "tests", "dynamo")

CHILD = r"""
import json, os, sys, time, warnings
sys.path.insert(0, {workloads_dir!r})
warnings.simplefilter("ignore")
import torch
torch.set_num_threads(1)  # one intra-op thread: stable timings on a shared 2-core machine
import workloads
mode, name, backend, dump = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
w = workloads.WORKLOADS[name]
import contextlib
import torch._dynamo, torch._inductor.compile_fx  # noqa: E401
if mode == "depyf":
    import depyf
    def make_ctx(path):
        return depyf.prepare_debug(path)
elif mode in ("pellucid", "nodecomp"):
    import pellucid, pellucid.dynamo  # noqa: E401
    try:  # load the decompiler's modules, as `import depyf` does for depyf's
        pellucid.decompile(lambda: 0)
    except Exception:
        pass
    if mode == "nodecomp":
        import pellucid.decompiler as pd
        def _off(code, verify=False):
            raise pd.DecompilationError("disabled for the benchmark")
        pd.decompile = _off
    def make_ctx(path):
        return pellucid.prepare_debug(path)
else:
    def make_ctx(path):
        return contextlib.nullcontext()
# Warm-up outside the measurement, the same in every mode: one unrelated function with a
# graph break, compiled and called the way the mode runs it (plainly, or inside the tool's
# prepare_debug with a throwaway dump dir), so that one-time costs are paid before the clock
# starts: torch.compile's lazy imports and first uses (Dynamo, AOT, Inductor, graph breaks)
# and the tool's.
def warm_up(t):
    t = t.cos() + 1
    if t.sum() > 0:  # a data-dependent branch: a graph break
        t = t * 2
    return t
if {cold_tool!r}:  # --cold-tool: the tool's first use is measured
    torch.compile(warm_up, backend=backend)(torch.randn(3))
else:
    with make_ctx(dump + "-warmup"):
        torch.compile(warm_up, backend=backend)(torch.randn(3))
# inspect's file->module map is filled by the first inspect.getmodule that misses it, a scan
# of every loaded module (~15 ms here): whoever comes first pays, torch (registering a custom
# op's fake kernel on a lazy import) or a tool (looking up a function's source).  Filled here
# in every mode, so no mode pays it for another.
import inspect
inspect.getmodule(warm_up.__code__)  # a code object: no __module__ shortcut
torch._dynamo.reset()
fn, run = w.make()
run(fn)  # eager warm-up (also builds lazy modules)
ctx = make_ctx(dump)
result = {{}}
try:
    t0, c0 = time.perf_counter(), time.process_time()
    compiled = torch.compile(fn, backend=backend, **w.compile_kwargs)
    with ctx as session:
        run(compiled)
        run(compiled)
    result["wall"] = time.perf_counter() - t0
    result["cpu"] = time.process_time() - c0
    if mode in ("pellucid", "nodecomp"):
        result["own"] = session.own_time_s  # pellucid's own code, measured inside this process
    # steady state: CPU time per call (time spent descheduled does not count), best of 15
    # batches: what the compiled code costs, not what the shared machine was doing meanwhile
    batch = []
    for _ in range(15):
        t = time.process_time()
        for _ in range(20):
            run(compiled)
        batch.append((time.process_time() - t) / 20)
    result["steady"] = min(batch)
except Exception as e:
    result["error"] = f"{{type(e).__name__}}: {{e}}"[:200]
print("RESULT " + json.dumps(result))
"""


# In-process A/B: one fresh process per cell alternates plain compiles with pellucid ones
# (torch._dynamo.reset() before each; the order flips every round).  Fresh processes here differ
# in speed by 10-20 % from one to the next (same work, same hash seed), far more than the
# overhead being measured; two compiles next to each other in one process do not.  What this
# measures is the warm cost: both the tool's and torch's first uses are behind it.
CHILD_AB = r"""
import json, os, statistics, sys, time, warnings, contextlib, gc
sys.path.insert(0, {workloads_dir!r})
warnings.simplefilter("ignore")
import torch
torch.set_num_threads(1)
import workloads
import torch._dynamo, torch._inductor.compile_fx  # noqa: E401
import pellucid, pellucid.dynamo  # noqa: E401
name, backend, rounds, dump = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
w = workloads.WORKLOADS[name]
def one(mode, tag):
    torch._dynamo.reset()
    fn, run = w.make()
    run(fn)
    gc.collect()
    ctx = pellucid.prepare_debug(f"{{dump}}-{{tag}}") if mode == "pellucid" else contextlib.nullcontext()
    t0 = time.perf_counter()
    compiled = torch.compile(fn, backend=backend, **w.compile_kwargs)
    with ctx as session:
        run(compiled)
        run(compiled)
    return time.perf_counter() - t0, (session.own_time_s if session is not None else 0.0)
result = {{}}
try:
    for k in range(2):  # warm-up: first uses of torch.compile's stack and of the tool
        one("plain", f"w{{k}}")
        one("pellucid", f"w{{k}}")
    ratios, owns = [], []
    for k in range(rounds):
        order = ("plain", "pellucid") if k % 2 == 0 else ("pellucid", "plain")
        got = {{m: one(m, k) for m in order}}
        ratios.append(got["pellucid"][0] / got["plain"][0])
        owns.append(got["pellucid"][1] / got["plain"][0])
    result["ratio"] = statistics.median(ratios)
    result["own_frac"] = statistics.median(owns)
except Exception as e:
    result["error"] = f"{{type(e).__name__}}: {{e}}"[:200]
print("RESULT " + json.dumps(result))
"""


def _child_env(cache_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TORCHINDUCTOR_FX_GRAPH_CACHE="0",
        TORCHINDUCTOR_AUTOGRAD_CACHE="0",
        TORCHINDUCTOR_CACHE_DIR=cache_dir,
        TORCH_COMPILE_DISABLE_CACHES="1",
        PYTHONWARNINGS="ignore",
        OMP_NUM_THREADS="1",
    )
    return env


def _run_fresh(python: str, code: str, args: list[str]) -> dict:
    """Run ``code`` in a fresh interpreter with ``args`` and a dump path under a temporary
    directory (its own Inductor cache beside it); the child's RESULT dict."""
    with tempfile.TemporaryDirectory(prefix="pellucid-bench-") as tmp:
        argv = [python, "-c", code, *args, os.path.join(tmp, "dump")]
        return run_child(argv, _child_env(os.path.join(tmp, "inductor-cache")), "error")


def measure(python: str, mode: str, name: str, backend: str, cold_tool: bool = False) -> dict:
    code = CHILD.format(workloads_dir=WORKLOADS_DIR, cold_tool=cold_tool)
    return _run_fresh(python, code, [mode, name, backend])


def measure_ab(name: str, backend: str, rounds: int) -> dict:
    code = CHILD_AB.format(workloads_dir=WORKLOADS_DIR)
    return _run_fresh(sys.executable, code, [name, backend, str(rounds)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workloads", default="readme,mlp_backward,graph_breaks,dynamic_auto,bert")
    ap.add_argument("--backends", default="eager,aot_eager")
    ap.add_argument("--inductor-workloads", default="readme,mlp_backward")
    ap.add_argument("--modes", default="plain,pellucid,nodecomp,depyf")
    ap.add_argument("--depyf-python", default=None)
    ap.add_argument(
        "--cold-tool", action="store_true",
        help="no warm-up inside the tool's prepare_debug: its first use is measured",
    )
    ap.add_argument(
        "--ab-rounds", type=int, default=10,
        help="plain/pellucid session pairs per cell in the in-process A/B (0: skip it)",
    )
    add_markdown_option(ap)
    args = ap.parse_args()
    title = "Overhead of prepare_debug against plain torch.compile"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        run(args)


def run(args: argparse.Namespace) -> None:
    """Every cell (workload x backend): fresh processes per mode, then the in-process A/B."""

    depyf_py = args.depyf_python or depyf_torch_python()
    modes = [m for m in args.modes.split(",") if m != "depyf" or depyf_py]
    cases = [(w, b) for b in args.backends.split(",") for w in args.workloads.split(",")]
    cases += [(w, "inductor") for w in args.inductor_workloads.split(",") if w]
    print(f"python {sys.version.split()[0]}; depyf from {depyf_py or 'n/a (not installed)'}")
    print(
        f"{args.repeat} fresh processes per cell, medians; Inductor caches disabled; "
        f"1 torch thread; tool warm-up: {'none (--cold-tool)' if args.cold_tool else 'one function'}; "
        f"load average at start {os.getloadavg()[0]:.1f}\n"
    )

    header = f"{'workload':14s} {'backend':9s} {'plain s':>8s}"
    for m in modes[1:]:
        header += f" {m + ' x':>12s}"
    for m in modes[1:]:
        header += f" {m + ' cpu x':>14s}"
    own_modes = [m for m in modes if m in ("pellucid", "nodecomp")]
    for m in own_modes:
        header += f" {m + ' own ms':>16s} {'own x':>7s}"
    if args.ab_rounds:
        header += f" {'A/B x':>7s} {'A/B own':>8s}"
    header += f" {'plain us/call':>14s}"
    for m in modes[1:]:
        header += f" {m + ' x':>12s}"
    print(header)
    print("-" * len(header))
    for name, backend in cases:
        samples: dict[str, list[dict]] = {m: [] for m in modes}
        for _ in range(args.repeat):
            for m in modes:
                py = depyf_py if m == "depyf" else sys.executable
                sample = measure(py, m, name, backend, args.cold_tool)
                if "own" in sample and "wall" in sample:
                    sample["own_x"] = sample["wall"] / (sample["wall"] - sample["own"])
                samples[m].append(sample)

        def med(m: str, key: str, samples: dict[str, list[dict]] = samples) -> float | None:
            vals = [s[key] for s in samples[m] if key in s]
            return statistics.median(vals) if vals and len(vals) == len(samples[m]) else None

        base_w, base_s = med("plain", "wall"), med("plain", "steady")
        row = f"{name:14s} {backend:9s} {base_w if base_w else float('nan'):8.2f}"
        for m in modes[1:]:
            w = med(m, "wall")
            row += f" {w / base_w:12.3f}" if (w and base_w) else f" {'error':>12s}"
        base_c = med("plain", "cpu")
        for m in modes[1:]:
            c = med(m, "cpu")
            row += f" {c / base_c:14.3f}" if (c and base_c) else f" {'error':>14s}"
        for m in own_modes:
            own, own_x = med(m, "own"), med(m, "own_x")
            row += f" {own * 1e3:16.1f} {own_x:7.3f}" if (own and own_x) else f" {'error':>16s} {'':>7s}"
        ab: dict = {}
        if args.ab_rounds:
            ab = measure_ab(name, backend, args.ab_rounds)
            if "ratio" in ab:
                row += f" {ab['ratio']:7.3f} {1 + ab['own_frac']:8.3f}"
            else:
                row += f" {'error':>7s} {'':>8s}"
        row += f" {base_s * 1e6 if base_s else float('nan'):14.1f}"
        for m in modes[1:]:
            s = med(m, "steady")
            row += f" {s / base_s:12.3f}" if (s and base_s) else f" {'error':>12s}"
        print(row, flush=True)
        if "error" in ab:
            print(f"    A/B: {ab['error']}")
        for m in modes:
            errs = {s["error"] for s in samples[m] if "error" in s}
            for e in errs:
                print(f"    {m}: {e}")


if __name__ == "__main__":
    main()
