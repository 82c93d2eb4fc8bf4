"""Dynamo-generated code objects (saved by tests/dynamo) decompile to source that compiles
back into a function with the same signature, free and cell variables.

Running them for real needs torch and lives in tests/dynamo; this checks the decompiler alone
on every fixture, so a regression shows up without torch.  The fixtures are marshalled by
CPython 3.11 (the version torch 2.13 runs on here) and only load there.
"""

from __future__ import annotations

import glob
import marshal
import os
import sys
import types

import pytest

import pellucid
from pellucid.decompiler import verify

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(HERE, "..", "fixtures", "dynamo", "*.marshal")))

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="fixtures are CPython 3.11 marshal data"
)


@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.basename(p) for p in FIXTURES])
def test_dynamo_fixture_decompiles_to_same_interface(path):
    with open(path, "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code, verify=False)  # Dynamo code: run side by side instead
    recompiled = verify.recompile(source, code)
    assert recompiled.co_argcount == code.co_argcount
    assert recompiled.co_kwonlyargcount == code.co_kwonlyargcount
    n = code.co_argcount + code.co_kwonlyargcount
    assert recompiled.co_varnames[:n] == code.co_varnames[:n]
    assert set(recompiled.co_freevars) == set(code.co_freevars)
    assert set(code.co_cellvars) <= set(recompiled.co_cellvars)


def test_there_are_fixtures():
    assert len(FIXTURES) >= 10


class _Log(list):
    """What happened, in order: context-manager calls and operations on the values."""


class _Value:
    def __init__(self, log: _Log, name: str, fail: bool = False) -> None:
        self.log, self.name, self.fail = log, name, fail

    def _op(self, op: str, other: object) -> _Value:
        self.log.append(f"{self.name} {op}")
        if self.fail:
            raise ValueError(self.name)
        return _Value(self.log, f"({self.name} {op})")

    def __add__(self, other: object) -> _Value:
        return self._op("+", other)

    def __mul__(self, other: object) -> _Value:
        return self._op("*", other)

    def __sub__(self, other: object) -> _Value:
        return self._op("-", other)


def _context(log: _Log, suppress: bool, label: str = ""):
    class Context:
        def __init__(self, flag: object) -> None:
            log.append(f"made with {flag!r}{label}")

        def __enter__(self) -> None:
            log.append(f"enter{label}")

        def __exit__(self, *exc: object) -> bool:
            log.append(f"exit {exc[0].__name__ if exc[0] else None}{label}")
            return suppress

    return Context


def _outcome(fn, suppress: bool, fail: bool) -> tuple:
    log = _Log()
    args = []
    for v in fn.__code__.co_varnames[: fn.__code__.co_argcount]:
        if v == "___stack0":
            args.append(_context(log, suppress))  # (Dynamo passes the manager's class)
        elif v.startswith("___stack"):
            args.append(f"stack value {v}")
        elif v.startswith("__nested_"):
            args.append([])
        else:
            args.append(_Value(log, v, fail))
    try:
        result = fn(*args).name
    except Exception as e:  # noqa: BLE001
        result = type(e).__name__
    return result, list(log)


@pytest.mark.parametrize(
    "name, results, calls",
    [
        (
            # `with no_grad(): z = y * 2; print(...); z = z + 1` then `return z * y`
            "with_graph_break__resume_original_reentering_with__0.marshal",
            ["((z +) *)", "ValueError", "((z +) *)", "TypeError"],
            ["made with False", "enter", "z +", "exit None", "(z +) *"],
        ),
        (
            # `with no_grad(): if x.sum() > 0: x = x + 1 else: x = x - 1` then `return x * 2`,
            # resumed in the if's first branch (the other one is dead code here)
            "cond_in_with__resume_original_reentering_with__0.marshal",
            ["((x +) *)", "ValueError", "((x +) *)", "TypeError"],
            ["made with False", "enter", "x +", "exit None", "(x +) *"],
        ),
    ],
)
def test_resume_function_reentering_a_with_block_runs_like_dynamos_code(name, results, calls):
    """A graph break inside `with`: Dynamo's resume function enters the context manager again
    and jumps into the middle of the original body (decompiler/reentry.py), and an exception
    the manager suppresses raises there instead of going on.  The source behaves the same:
    the calls on the manager and the values in the same order, the same result or error."""
    with open(os.path.join(HERE, "..", "fixtures", "dynamo", name), "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code, verify=False)  # Dynamo code: run side by side instead
    assert "with ___stack0(False):" in source, source
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    ours = scope[code.co_name]
    dynamos = types.FunctionType(code, {})
    outcomes = []
    for suppress in (False, True):
        for fail in (False, True):
            expected = _outcome(dynamos, suppress, fail)
            assert _outcome(ours, suppress, fail) == expected, (suppress, fail, source)
            outcomes.append(expected[0])
    # a result, an error passed on, a result, the suppressed error's TypeError
    assert outcomes == results
    # the manager is left before the return's operation (a `return` inside the with would
    # leave it after)
    assert _outcome(ours, False, False)[1] == calls


def test_resume_function_jumping_over_a_dead_with_reads_as_its_live_code():
    """A break right after a with block: the resume function's prologue jumps over the
    original head, with statement and handler included; what never runs goes, and the rest
    behaves as Dynamo's code."""
    name = "break_after_with__resume_original_over_dead_with__0.marshal"
    with open(os.path.join(HERE, "..", "fixtures", "dynamo", name), "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code, verify=False)  # Dynamo code: run side by side instead
    assert "with " not in source and source.rstrip().endswith("return y * 2"), source
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    for fail in (False, True):
        expected = _outcome(types.FunctionType(code, {}), False, fail)
        assert _outcome(scope[code.co_name], False, fail) == expected
        assert expected[0] == ("ValueError" if fail else "(y *)")


@pytest.mark.parametrize(
    "name, managers",
    [
        ("nested_withs__resume_original_reentering_two_withs__0.marshal", 2),
        ("triple_withs__resume_original_reentering_three_withs__0.marshal", 3),
    ],
)
def test_resume_function_reentering_nested_withs_runs_like_dynamos_code(name, managers):
    """A break inside nested withs: an exception an inner manager suppresses leaves the withs
    around it normally, one after the other, then raises; the source says it with one flag
    per statement, the rest of each body under the flag of the with inside it.  Every
    combination of managers that suppress and of a value that fails runs the same, call by
    call."""
    with open(os.path.join(HERE, "..", "fixtures", "dynamo", name), "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code, verify=False)  # Dynamo code: run side by side instead
    assert f"if __pellucid_with_done{managers - 1}:" in source, source
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    params = code.co_varnames[: code.co_argcount]
    values = [p for p in params if not p.startswith("_")]

    def outcome(fn, suppressing, failing):
        log = _Log()
        args = []
        for p in params:
            if p.startswith("___stack") and int(p[8:]) < managers:
                args.append(_context(log, p in suppressing, f" {p}"))
            elif p.startswith("_"):
                args.append([] if p.startswith("__nested") else "v")
            else:
                args.append(_Value(log, p, p == failing))
        try:
            result = fn(*args).name
        except Exception as e:  # noqa: BLE001
            result = type(e).__name__
        return result, list(log)

    stacks = [f"___stack{k}" for k in range(managers)]
    subsets = [[m for b, m in enumerate(stacks) if mask >> b & 1] for mask in range(2**managers)]
    seen = set()
    for suppressing in subsets:
        for failing in [None, *values]:
            expected = outcome(types.FunctionType(code, {}), suppressing, failing)
            assert outcome(scope[code.co_name], suppressing, failing) == expected, (suppressing, failing)
            seen.add(expected[0] if expected[0] in ("ValueError", "TypeError") else "result")
    assert seen == {"result", "ValueError", "TypeError"}


@pytest.mark.parametrize(
    "name",
    [
        "torch215_readme__toy_example__0.marshal",
        "torch215_with_graph_break__torch_dynamo_resume_in_with_graph_break_at_110__0.marshal",
    ],
)
def test_torch215_graph_call_between_profiler_markers_runs_like_dynamos_code(name):
    """torch 2.15 runs its pregraph profiler markers (`if profiling: cm = enter()`, then
    `if cm is not None: exit(cm)`) while the graph's callable waits on the stack, each arm of
    its templates leaving a `None` behind.  With the profiler off and on, and the graph's
    result taking each branch after it, the source makes the same calls, in the same order, with
    the same values, and returns the same."""
    with open(os.path.join(HERE, "..", "fixtures", "dynamo", name), "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code, verify=False)  # (Dynamo's code: run side by side)
    compiled = compile(source, "<decompiled>", "exec")

    def outcome(make, profiling, branch):
        log = _Log()

        def graph(*args):
            log.append(("graph", args))
            return [branch, "out1", "out2"]

        def recorder(tag):
            return lambda *args: log.append((tag, args)) or f"<{tag}>"

        scope = {
            "__import_torch_dot_autograd_dot_profiler": types.SimpleNamespace(_is_profiler_enabled=profiling),
            "__import_torch_dot__dynamo_dot_utils": types.SimpleNamespace(
                record_pregraph_bytecode_enter=recorder("enter"),
                record_pregraph_bytecode_exit=recorder("exit"),
            ),
        }
        for n in code.co_names:
            if n.startswith("__compiled_fn_"):
                scope[n] = graph
            elif n.startswith("__resume_at_"):
                scope[n] = recorder(n)
        fn = make(scope)
        params = code.co_varnames[: code.co_argcount]
        args = [[] if p.startswith("__nested") else f"arg {p}" for p in params]
        return fn(*args), list(log)

    def ours(scope):
        exec(compiled, scope)
        return scope[code.co_name]

    for profiling in (False, True):
        for branch in (False, True):
            expected = outcome(lambda s: types.FunctionType(code, s), profiling, branch)
            assert outcome(ours, profiling, branch) == expected, (profiling, branch, source)
            assert ("enter", ()) in expected[1] if profiling else ("enter", ()) not in expected[1]
