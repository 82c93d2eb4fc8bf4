"""Collect Dynamo-generated code that pellucid cannot decompile (or decompiles wrongly).

Run: ``python tests/dynamo/save_failures.py [--backend eager] [workload ...]``.  For each
workload it compiles under ``prepare_debug`` and saves, as ``marshal`` fixtures in
``tests/fixtures/dynamo/<workload>__<function>__<n>.marshal``, every transformed code object that

* the decompiler refused (``DecompilationError``) or whose source broke Dynamo's code contract, or
* ran from its dumped file and raised, or made the outputs differ from eager (a wrong decompile),

and appends one line per case to ``tests/fixtures/dynamo/failures.md``.  Load a fixture with
``marshal.loads(open(path, 'rb').read())`` on the same Python version (3.11).
"""

from __future__ import annotations

import argparse
import marshal
import os
import shutil
import sys
import tempfile
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "dynamo")
NOTES = os.path.join(FIXTURES, "failures.md")

sys.path.insert(0, HERE)


def _marshallable(code):
    """``code`` with constants marshal cannot write replaced by a descriptive string."""
    import types

    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            consts.append(_marshallable(c))
            continue
        try:
            marshal.dumps(c)
            consts.append(c)
        except ValueError:
            consts.append(f"<unmarshallable {type(c).__name__}: {c!r:.60}>")
    return code.replace(co_consts=tuple(consts))


def _save(workload: str, fn_name: str, code, reason: str, backend: str) -> str:
    os.makedirs(FIXTURES, exist_ok=True)
    base = f"{workload}__{fn_name}"
    n = 0
    data = marshal.dumps(_marshallable(code))
    while True:
        path = os.path.join(FIXTURES, f"{base}__{n}.marshal")
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            break
        with open(path, "rb") as f:
            if f.read() == data:
                return os.path.relpath(path, ROOT)  # already recorded
        n += 1
    rel = os.path.relpath(path, ROOT)
    os.makedirs(os.path.dirname(NOTES), exist_ok=True)
    new = not os.path.exists(NOTES)
    with open(NOTES, "a", encoding="utf-8") as f:
        if new:
            f.write(
                "# Dynamo-generated code pellucid fails on\n\n"
                "Written by `tests/dynamo/save_failures.py` (torch 2.13, Python 3.11). "
                "One line per case: function | workload/backend | error | fixture.\n\n"
            )
        one_line = " ".join(reason.split())[:400]
        f.write(f"- `{fn_name}` | {workload}/{backend} | {one_line} | `{rel}`\n")
    return rel


def collect(workload: str, backend: str) -> list[str]:
    import torch
    import torch._dynamo
    import workloads

    import pellucid

    saved: list[str] = []
    torch._dynamo.reset()
    w = workloads.WORKLOADS[workload]
    fn, run = w.make()
    expected = run(fn)
    compiled = torch.compile(fn, backend=backend, **w.compile_kwargs)
    d = tempfile.mkdtemp(prefix="pellucid-failures-")
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pellucid.prepare_debug(d) as session:
            try:
                got = run(compiled)
                workloads.assert_same(got, expected)
            except Exception as e:  # noqa: BLE001
                error = e
    for name, code, reason in session.failed_codes:
        saved.append(_save(workload, name, code, reason, backend))
    if error is not None:
        files = set()
        for fs in traceback.extract_tb(error.__traceback__):
            if fs.filename.startswith(d):
                files.add(os.path.relpath(fs.filename, d))
        culprits = [f for f in files if f in session.dynamo_codes] or list(session.dynamo_codes)
        reason = f"runs wrongly from the decompiled file: {type(error).__name__}: {error}"
        for rel in culprits:
            code = session.dynamo_codes[rel]
            saved.append(_save(workload, code.co_name, code, reason, backend))
    shutil.rmtree(d, ignore_errors=True)
    return saved


def main() -> None:
    import workloads

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="eager")
    ap.add_argument("workloads", nargs="*")
    args = ap.parse_args()
    for name in args.workloads or list(workloads.WORKLOADS):
        for path in collect(name, args.backend):
            print(f"{name}: {path}")


if __name__ == "__main__":
    main()
