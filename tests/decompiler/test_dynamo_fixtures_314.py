"""Resume functions torch 2.15 makes on CPython 3.14 at a graph break inside ``with`` blocks.

The prologue enters each ``with`` again and jumps into the original body (decompiler/reentry.py).
On 3.14 torch 2.15 counts one value too many in the depth of every exception-table entry it
writes for the prologue.  Over code that cannot raise that depth is never used; but it is also
the depth of each with handler's clean-up (``COPY 3; POP_EXCEPT; RERAISE 1``), which then
restores the exception being handled instead of the one handled before it when ``__exit__``
raises: after the function raises, ``sys.exception()`` still names it.  No source does that,
so the decompiler refuses these functions (a nested prologue also keeps a value under a
manager lacking ``__exit__``, and the wrong ``__exit__`` is called).

With the depths the compiler would write, the same code is read as on 3.11 (3.14 lays the
clean-up after the path of a suppressed exception, and copies the code after the statement
into its normal exit), run side by side with the source, and proven equivalent to it by the
translation validator.  The fixtures are CPython 3.14 marshal data and only load there.
"""

from __future__ import annotations

import dis
import glob
import marshal
import os
import sys
import threading
import types

import pytest

import pellucid
from pellucid.decompiler.errors import DecompilationError
from pellucid.decompiler.validate import validate

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(HERE, "..", "fixtures", "dynamo_314", "*.marshal")))
IDS = [os.path.basename(p) for p in FIXTURES]

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 14), reason="fixtures are CPython 3.14 marshal data"
)


def _load(path: str) -> types.CodeType:
    with open(path, "rb") as f:
        return marshal.load(f)


def _varint(value: int, first: bool) -> list[int]:
    """One number of an exception table (6-bit groups, most significant first)."""
    groups = [value & 63]
    value >>= 6
    while value:
        groups.append(value & 63)
        value >>= 6
    groups.reverse()
    out = [g | 64 for g in groups[:-1]] + [groups[-1]]
    if first:
        out[0] |= 128  # (the start of an entry)
    return out


def _with_compiler_depths(code: types.CodeType) -> types.CodeType:
    """``code`` with the depths the compiler writes: each handler reached at the least depth
    any entry gives it, each handler's own clean-up two deeper than the handler."""
    entries = dis._parse_exception_table(code)  # type: ignore[attr-defined]
    least: dict[int, int] = {}
    for e in entries:
        least[e.target] = min(least.get(e.target, e.depth), e.depth)
    table: list[int] = []
    for e in entries:
        depth = least[e.start] + 2 if e.start in least else least[e.target]
        table += _varint(e.start // 2, True) + _varint((e.end - e.start) // 2, False)
        table += _varint(e.target // 2, False) + _varint(depth << 1 | e.lasti, False)
    return code.replace(co_exceptiontable=bytes(table))


def test_there_are_fixtures():
    assert len(FIXTURES) == 5


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_torch215_with_resume_functions_are_refused(path):
    with pytest.raises(DecompilationError) as caught:
        pellucid.decompile(_load(path), verify=False)
    if "nested" not in path:
        assert "clean-up" in str(caught.value)


def test_the_refusal_is_a_real_difference():
    """__exit__ raising while the body's exception is handled: Dynamo's code leaves that
    exception set as the one being handled; the same code with the compiler's depths (what a
    with statement does) does not."""
    path = next(p for p in FIXTURES if "with_graph_break_at_110" in p)
    code = _load(path)

    class Manager:
        def __init__(self, flag: object) -> None:
            pass

        def __enter__(self) -> None:
            pass

        def __exit__(self, *exc: object) -> bool:
            raise RuntimeError("from __exit__")

    def handled_after(c: types.CodeType) -> object:
        seen: list = []

        def run() -> None:  # (a thread of its own: what is left set stays there)
            try:
                types.FunctionType(c, {})([], [], Manager, "v", 1, object())
            except RuntimeError:
                pass
            seen.append(sys.exception())

        t = threading.Thread(target=run)
        t.start()
        t.join()
        return seen[0]

    assert isinstance(handled_after(code), TypeError)
    assert handled_after(_with_compiler_depths(code)) is None


class _Log(list):
    """What happened, in order: context-manager calls and operations on the values."""


class _Value:
    def __init__(self, log: _Log, name: str, fail: bool = False) -> None:
        self.log, self.name, self.fail = log, name, fail

    def _op(self, op: str) -> _Value:
        self.log.append(f"{self.name} {op}")
        if self.fail:
            raise ValueError(self.name)
        return _Value(self.log, f"({self.name} {op})")

    def __add__(self, other: object) -> _Value:
        return self._op("+")

    def __sub__(self, other: object) -> _Value:
        return self._op("-")

    def __mul__(self, other: object) -> _Value:
        return self._op("*")

    def __matmul__(self, other: object) -> _Value:
        return self._op("@")

    @property
    def T(self) -> _Value:  # noqa: N802 - the tensor attribute the workload reads
        return self


def _context(log: _Log, suppress: bool, label: str):
    class Context:
        def __init__(self, *args: object) -> None:
            log.append(f"made {label} with {args!r}")

        def __enter__(self) -> None:
            log.append(f"enter {label}")

        def __exit__(self, *exc: object) -> bool:
            log.append(f"exit {label} {exc[0].__name__ if exc[0] else None}")
            return suppress

    return Context


def _outcome(fn: types.FunctionType, managers: int, suppressing: set, failing: str | None) -> tuple:
    log = _Log()
    fn.__globals__["torch"] = types.SimpleNamespace(
        autocast=_context(log, "torch" in suppressing, "torch.autocast")
    )
    args: list = []
    code = fn.__code__
    for p in code.co_varnames[: code.co_argcount]:
        if p.startswith("___stack") and int(p[8:]) < managers:
            args.append(_context(log, p in suppressing, p))
        elif p.startswith("_"):
            args.append([] if p.startswith("__nested") else "stack value")
        else:
            args.append(_Value(log, p, p == failing))
    try:
        result = fn(*args).name
    except Exception as e:  # noqa: BLE001
        result = type(e).__name__
    return result, list(log)


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_with_the_compilers_depths_they_read_run_the_same_and_are_proven(path, capsys):
    code = _with_compiler_depths(_load(path))
    source = pellucid.decompile(code, verify=False)  # (Dynamo's code: run side by side)
    managers = source.count("with ___stack")
    assert managers >= 1 and "if not __pellucid_with_done0:\n        raise None" in source, source
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    ours = scope[code.co_name]
    verdict = validate(code, ours.__code__)
    assert verdict.equivalent, verdict
    params = code.co_varnames[: code.co_argcount]
    values = [p for p in params if not p.startswith("_")]
    stacks = [f"___stack{k}" for k in range(managers)] + ["torch"]
    seen = set()
    for mask in range(2 ** len(stacks)):
        suppressing = {m for b, m in enumerate(stacks) if mask >> b & 1}
        for failing in [None, *values]:
            expected = _outcome(types.FunctionType(code, scope), managers, suppressing, failing)
            got = _outcome(ours, managers, suppressing, failing)
            assert got == expected, (suppressing, failing, source)
            seen.add(expected[0] if expected[0] in ("ValueError", "TypeError") else "result")
    # a result, an error passed on, and (a suppressed error) Dynamo's `raise None`; nothing
    # can fail in the body of the one that resumes at the end of a with
    assert seen == ({"result"} if "at_180" in path else {"result", "ValueError", "TypeError"})
    capsys.readouterr()  # (the workloads' prints)
