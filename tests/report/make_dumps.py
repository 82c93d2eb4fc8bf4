"""Make prepare_debug dumps of the torch.compile test workloads, for the report tests.

Run as a script (one process for all workloads, so torch is imported once):
``python make_dumps.py OUT name[:backend] ...``.  Each workload goes to ``OUT/<name>``; a
workload whose run raised (e.g. a decompiler bug) writes ``OUT/<name>.error`` and keeps its dump:
the report must explain a broken run too.  ``hostile`` is a workload of this file whose file
name, function name and string constants are HTML/JS injection attempts.
"""

from __future__ import annotations

import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dynamo"))

HOSTILE = '</script><img src=x onerror="window.__pwned=1">'
HOSTILE_FILE = "hostile_<img src=x onerror=window.__pwned=1>.py"
HOSTILE_SOURCE = f"""\
import torch

HOSTILE = {HOSTILE!r}


def f(x, tag):
    y = x.sin()
    print("pellucid test:", len(tag))  # a graph break
    if tag == HOSTILE:  # a guard on the string's value
        y = y + 1
    return y.cos()


f.__code__ = f.__code__.replace(co_name=HOSTILE, co_qualname=HOSTILE)


def run():
    c = torch.compile(f, backend="eager")
    c(torch.randn(3), HOSTILE)
    c(torch.randn(3), HOSTILE + "<b>")  # recompilation: the guard on tag fails
"""


def run_hostile(out: str) -> None:
    import importlib.util

    import pellucid

    src_dir = os.path.join(os.path.dirname(out), "hostile_src")
    os.makedirs(src_dir, exist_ok=True)
    path = os.path.join(src_dir, HOSTILE_FILE)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(HOSTILE_SOURCE)
    spec = importlib.util.spec_from_file_location("hostile_workload", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pellucid.prepare_debug(out):
        module.run()


def main(argv: list[str]) -> int:
    import torch._dynamo
    import torch._dynamo.utils
    from workloads import run_workload

    root = argv[0]
    os.makedirs(root, exist_ok=True)
    for spec in argv[1:]:
        name, _, backend = spec.partition(":")
        out = os.path.join(root, name)
        torch._dynamo.reset()
        torch._dynamo.utils.clear_compilation_metrics()
        try:
            if name == "hostile":
                run_hostile(out)
            else:
                run_workload(name, backend or "eager", out)
        except Exception:  # noqa: BLE001 - keep the dump, record the error
            with open(out + ".error", "w", encoding="utf-8") as fh:
                fh.write(traceback.format_exc())
        print(f"made {name}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
