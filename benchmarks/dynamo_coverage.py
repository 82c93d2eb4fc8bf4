"""How much of what torch.compile did can a user read and debug: pellucid vs depyf.

Usage::

    python benchmarks/dynamo_coverage.py [--workloads readme,bert,...] [--backend eager]
                                         [--depyf-python PATH]

Each workload of ``tests/dynamo/workloads.py`` runs in a fresh process under
``pellucid.prepare_debug`` and, with the peer's interpreter, under ``depyf.prepare_debug``
(depyf 0.20.0 in its own venv with torch).  Columns:

* *frames*: frames whose bytecode Dynamo transformed (pellucid's index: one bytecode-hook call
  each; the same program gives the same frames under either tool);
* *files*: transformed-code files written (pellucid writes identical text once);
* *run from file*: frames whose code the program actually executed from a dumped file
  (pellucid's index; depyf runs every file it writes, so for it this is its file count). A
  frame whose file pellucid's translation validator could not prove equivalent to Dynamo's
  bytecode runs Dynamo's bytecode; the frames are listed after the table;
* *stmts*: Python statements in those files (``ast`` nodes, the ``def`` lines included): how
  much there is to read.  For pellucid, *untidied* is the same count had the graph-break tidy
  (``pellucid.dynamo.tidy``: Dynamo's frame-value lists followed away) been off, and *tidied*
  the frames it rewrote;
* *resume src* (pellucid): resume functions whose own code (what Dynamo made at the graph
  break, shown in their ``full_code`` file) decompiled, of the resume functions compiled;
* *result*: ``same`` when the program's outputs equal the eager outputs, ``DIFFERENT``
  when they do not, or the exception that stopped the user's program.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from child import run_child
from page import about_from_doc, markdown_page
from page import add_option as add_markdown_option
from peers import depyf_torch_python
from torch_venvs import MAIN_PYTHON, parse_torch_option

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS_DIR = os.path.join(ROOT, "tests", "dynamo")
DEFAULT_WORKLOADS = (
    "readme,mlp_backward,dynamic_true,dynamic_auto,graph_breaks,closure,method,"
    "with_graph_break,comprehension_graph_break,autocast_graph_break,with_branch_graph_break,"
    "nested_with_graph_break,side_effects_graph_break,"
    "lambda_graph_break,classes_and_super,optimizer_step,match_graph_break,"
    "autograd_function_graph_break,pytree_graph_break,higher_order_ops,bert,gpt2,"
    "llama_generate"
)

CHILD = r"""
import ast, contextlib, glob, io, json, os, sys, warnings
sys.path.insert(0, {workloads_dir!r})
warnings.simplefilter("ignore")
import torch
import workloads
tool, name, backend, dump = sys.argv[1:5]
def statement_count(tree):
    return sum(isinstance(n, ast.stmt) for n in ast.walk(tree))
w = workloads.WORKLOADS[name]
fn, run = w.make()
expected = run(fn)
compiled = torch.compile(fn, backend=backend, **w.compile_kwargs)
if tool == "depyf":
    import depyf
    ctx = depyf.prepare_debug(dump)
else:
    import pellucid
    import pellucid.dynamo.tidy as tidy_module
    ctx = pellucid.prepare_debug(dump)
    real_tidy = tidy_module.tidy
    def counting_tidy(tree, name):
        before = statement_count(tree)
        changed = real_tidy(tree, name)
        result["tidied"] = result.get("tidied", 0) + changed
        result["removed"] = result.get("removed", 0) + before - statement_count(tree)
        return changed
    tidy_module.tidy = counting_tidy
result = {{}}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        with ctx:
            got = run(compiled)
    try:
        workloads.assert_same(got, expected, atol=1e-4)
        result["result"] = "same"
    except AssertionError:
        result["result"] = "DIFFERENT"
except Exception as e:
    result["result"] = f"{{type(e).__name__}}: {{e}}".splitlines()[0][:70]
paths = glob.glob(os.path.join(dump, "__transformed_code_*.py"))
result["files"] = len(paths)
def statements(path):
    try:
        with open(path) as f:
            return statement_count(ast.parse(f.read()))
    except (OSError, SyntaxError, ValueError):
        return 0
result["stmts"] = sum(statements(p) for p in paths if not p.endswith(".readonly.py"))
resumes = glob.glob(os.path.join(dump, "full_code_for_torch_dynamo_resume_in_*.py"))
result["resumes"] = len(resumes)
def own_code_decompiled(path):
    with open(path) as f:
        lines = f.read().splitlines()
    k = next((i for i, ln in enumerate(lines) if ln.startswith("# ---- made by Dynamo")), None)
    return k is not None and k + 1 < len(lines) and lines[k + 1].startswith("def ")
result["resumes_decompiled"] = sum(map(own_code_decompiled, resumes))
if tool == "pellucid" and os.path.exists(os.path.join(dump, "index.json")):
    with open(os.path.join(dump, "index.json")) as f:
        index = json.load(f)
    compiles = [c for s in index["sessions"] for c in s["compiles"]]
    result["frames"] = len(compiles)
    result["from_file"] = sum(1 for c in compiles if c.get("executed_from_file"))
    result["unproven"] = sorted(
        c["function"].split("@")[0] for c in compiles
        if c.get("verification") not in (None, "equivalent")
    )
    result["files"] = len({{c["transformed_code_file"] for c in compiles if c.get("executed_from_file")}})
else:
    result["from_file"] = result["files"]
print("RESULT " + json.dumps(result))
"""


def measure(python: str, tool: str, name: str, backend: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="pellucid-coverage-") as tmp:
        env = dict(os.environ, PYTHONWARNINGS="ignore", TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "c"))
        if tool == "pellucid":
            env["PYTHONPATH"] = os.path.join(ROOT, "src") + os.pathsep + env.get("PYTHONPATH", "")
        argv = [python, "-c", CHILD.format(workloads_dir=WORKLOADS_DIR), tool, name, backend,
                os.path.join(tmp, "dump")]  # fmt: skip
        out = run_child(argv, env, "result")
        out["result"] = str(out["result"])[:70]
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    ap.add_argument("--backend", default="eager")
    ap.add_argument("--depyf-python", default=None)
    ap.add_argument("--no-depyf", action="store_true", help="skip the peer")
    ap.add_argument(
        "--torch",
        metavar="VERSIONS",
        help="'all' or e.g. 2.13.0,2.15.0@3.14: pellucid alone, one column per torch release "
        "and CPython (the venvs scripts/setup.sh makes; Python 3.11 unless @ says)",
    )
    add_markdown_option(ap)
    args = ap.parse_args()
    if args.torch:
        title = f"torch.compile coverage per torch release ({args.backend} backend)"
        with markdown_page(args.markdown, title, about_from_doc(__doc__)):
            torch_matrix(args.workloads.split(","), args.backend, parse_torch_option(args.torch))
        return
    title = f"torch.compile coverage ({args.backend} backend)"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        run(args)


def run(args: argparse.Namespace) -> None:
    """Every workload under each tool, one fresh process each, then the totals."""
    depyf_py = None if args.no_depyf else (args.depyf_python or depyf_torch_python())
    tools = [("pellucid", sys.executable)] + ([("depyf", depyf_py)] if depyf_py else [])
    print(f"backend {args.backend}; depyf from {depyf_py or 'n/a (not installed)'}\n")
    names = args.workloads.split(",")
    width = max(len(n) for n in names + ["workload"])
    header = f"{'workload':{width}s} {'frames':>6s}"
    for tool, _ in tools:
        header += f" | {tool + ' files':>15s} {'run from file':>13s} {'stmts':>5s}"
        if tool == "pellucid":
            header += f" {'untidied':>8s} {'tidied':>6s} {'resume src':>10s}"
        header += f" {'result':<24s}"
    print(header)
    print("-" * len(header))
    totals = {tool: [0, 0, 0] for tool, _ in tools}  # frames, files, from_file
    stmts = {tool: 0 for tool, _ in tools}
    untidied, tidied, resumes, resumes_decompiled = 0, 0, 0, 0
    failed_programs = {tool: 0 for tool, _ in tools}
    unproven: dict[str, list[str]] = {}
    for name in names:
        rows = {tool: measure(py, tool, name, args.backend) for tool, py in tools}
        frames = rows["pellucid"].get("frames", 0)
        line = f"{name:{width}s} {frames:6d}"
        for tool, _ in tools:
            r = rows[tool]
            files, from_file = r.get("files", 0), r.get("from_file", 0)
            totals[tool][0] += frames
            failed_programs[tool] += r["result"] != "same"
            totals[tool][1] += files
            totals[tool][2] += from_file
            stmts[tool] += r.get("stmts", 0)
            line += f" | {files:15d} {from_file:13d} {r.get('stmts', 0):5d}"
            if tool == "pellucid":
                untidied += r.get("stmts", 0) + r.get("removed", 0)
                tidied += r.get("tidied", 0)
                line += f" {r.get('stmts', 0) + r.get('removed', 0):8d} {r.get('tidied', 0):6d}"
                resumes += r.get("resumes", 0)
                resumes_decompiled += r.get("resumes_decompiled", 0)
                line += f" {r.get('resumes_decompiled', 0):>4d} of {r.get('resumes', 0):<2d}"
            line += f" {r['result']:<24s}"
        print(line, flush=True)
        unproven[name] = rows["pellucid"].get("unproven", [])
    print("-" * len(header))
    for name, functions in unproven.items():
        if functions:  # these run Dynamo's bytecode; their files are for reading
            print(f"not proven equivalent: {name}: {', '.join(functions)}")
    for tool, (frames, files, from_file) in totals.items():
        print(
            f"{tool}: {from_file} of {frames} transformed frames ran from a dumped file "
            f"({files} files, {stmts[tool]} statements); {failed_programs[tool]} workloads "
            "did not give the eager result"
        )
    print(
        f"pellucid's graph-break tidy rewrote {tidied} frames: {untidied} statements to read "
        f"without it, {stmts['pellucid']} with it"
    )
    print(
        f"pellucid decompiled the own code of {resumes_decompiled} of {resumes} compiled resume "
        "functions (their full_code files)"
    )


def torch_matrix(names: list[str], backend: str, releases: list[tuple[str, str]]) -> None:
    """One row per workload, one column per torch release: frames run from their file of the
    frames Dynamo transformed, and the program's result against eager."""
    width = max(len(n) for n in names + ["workload"])
    header = f"{'workload':{width}s}" + "".join(f" | {'torch ' + v:>24s}" for v, _ in releases)
    print(f"backend {backend}; cell: frames run from file / frames transformed, result; "
          f"Python {MAIN_PYTHON} unless the column says\n")
    print(header)
    print("-" * len(header))
    totals = {v: [0, 0, 0] for v, _ in releases}  # from_file, frames, workloads not same
    unproven: list[str] = []
    for name in names:
        line = f"{name:{width}s}"
        for version, python in releases:
            r = measure(python, "pellucid", name, backend)
            frames, from_file = r.get("frames", 0), r.get("from_file", 0)
            totals[version][0] += from_file
            totals[version][1] += frames
            totals[version][2] += r["result"] != "same"
            line += f" | {f'{from_file}/{frames}':>7s} {r['result'][:16]:>16s}"
            if r.get("unproven"):
                unproven.append(f"torch {version}: {name}: {', '.join(r['unproven'])}")
        print(line, flush=True)
    print("-" * len(header))
    for line in unproven:  # these run Dynamo's bytecode; their files are for reading
        print(f"not proven equivalent: {line}")
    for version, (from_file, frames, bad) in totals.items():
        print(
            f"torch {version}: {from_file} of {frames} transformed frames ran from a dumped "
            f"file; {bad} workloads did not give the eager result"
        )


if __name__ == "__main__":
    main()
