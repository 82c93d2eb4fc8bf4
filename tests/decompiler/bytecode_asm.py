"""A small assembler for hand-built bytecode on CPython 3.9-3.13.

Generated code (Dynamo's) holds shapes no source compiles to.  Tests of the decompiler's
handling of such shapes write the program once, in a few version-neutral operations, and get
the code object this interpreter runs:

- ``"name:"`` defines a label; only forward jumps are supported (what the tests need);
- ``("load_callable", g)``: the global ``g`` as a callable, with the NULL each version puts
  beside it (3.11+); ``("call", n)``: call it with the ``n`` values above it;
- ``("jump_if_false", label)``, ``("jump_if_true", label)``: pop and test (3.13: ``TO_BOOL``
  first), ``("jump", label)``: forward jump;
- ``("attr_callable", a)``: attribute ``a`` of the value on top as a callable, with its NULL
  pushed after it (and swapped under it on 3.11/3.12);
- ``("load_global", g)``, ``("load_attr", a)``, ``("swap", 2)``, ``("copy", 1)``: the plain
  forms;
- anything else is the opcode itself: ``("LOAD_FAST", "x")``, ``("STORE_FAST", "x")``,
  ``("LOAD_CONST", value)``, ``("IS_OP", 1)``, ``("POP_TOP",)``, ``("NOP",)``,
  ``("RETURN_VALUE",)``, ``("BUILD_LIST", n)``, ``("LIST_EXTEND", 1)``.

The code has no line table and no exception table.  :func:`same_behaviour` runs a program
beside its decompiled source.
"""

from __future__ import annotations

import dis
import itertools
import sys
import types
from typing import Any

import pellucid

PY = sys.version_info[:2]


def _caches(opname: str) -> int:
    table = getattr(dis, "_inline_cache_entries", None)
    if table is None:
        return 0
    if hasattr(table, "get"):  # by name: a dict (3.13-3.14) or a frozendict (3.15)
        return table.get(opname, 0)
    return table[dis.opmap[opname]]


def _expand(item: tuple) -> list[tuple]:
    """A version-neutral operation as this version's (opname, argval, kind) instructions;
    kind says how the argument is encoded."""
    op, *rest = item
    arg = rest[0] if rest else None
    if op == "load_callable":
        if PY < (3, 11):
            return [("LOAD_GLOBAL", arg, "name")]
        return [("LOAD_GLOBAL", arg, "name_null")]
    if op == "load_global":
        return [("LOAD_GLOBAL", arg, "name" if PY < (3, 11) else "name_shifted")]
    if op == "load_attr":
        return [("LOAD_ATTR", arg, "name" if PY < (3, 12) else "name_shifted")]
    if op == "call":
        if PY < (3, 11):
            return [("CALL_FUNCTION", arg, "int")]
        if PY == (3, 11):
            return [("PRECALL", arg, "int"), ("CALL", arg, "int")]
        return [("CALL", arg, "int")]
    if op in ("jump_if_false", "jump_if_true"):
        sense = op[len("jump_if_"):].upper()
        if PY < (3, 11):
            return [(f"POP_JUMP_IF_{sense}", arg, "absolute")]
        if PY == (3, 11):
            return [(f"POP_JUMP_FORWARD_IF_{sense}", arg, "relative")]
        pre = [("TO_BOOL", None, "none")] if PY >= (3, 13) else []
        return pre + [(f"POP_JUMP_IF_{sense}", arg, "relative")]
    if op == "jump":
        return [("JUMP_FORWARD", arg, "relative")]
    if op == "attr_callable":
        # an attribute as a callable, with its NULL where each version wants it (how Dynamo
        # 2.15 splits a method load: plain LOAD_ATTR, PUSH_NULL, and 3.11/3.12 swap it under)
        load = _expand(("load_attr", arg))
        if PY < (3, 11):
            return load
        return load + [("PUSH_NULL", None, "none")] + ([("SWAP", 2, "int")] if PY < (3, 13) else [])
    if op == "copy":
        if PY < (3, 11):
            assert arg == 1, "3.9/3.10: only `copy 1` (DUP_TOP)"
            return [("DUP_TOP", None, "none")]
        return [("COPY", arg, "int")]
    if op == "swap":
        if PY < (3, 11):
            assert arg == 2, "3.9/3.10: only `swap 2` (ROT_TWO)"
            return [("ROT_TWO", None, "none")]
        return [("SWAP", arg, "int")]
    kind = {
        "LOAD_FAST": "local", "STORE_FAST": "local", "LOAD_CONST": "const",
    }.get(op, "int" if rest else "none")
    return [(op, arg, kind)]


def assemble(name: str, params: tuple[str, ...], program: list, local_names: tuple[str, ...] = ()) -> types.CodeType:
    """The code object of a function ``name(*params)`` running ``program`` (see the module doc)."""
    varnames = list(params) + [v for v in local_names if v not in params]
    consts: list[Any] = []
    names: list[str] = []
    ins: list[tuple] = [("RESUME", 0, "int")] if PY >= (3, 11) else []
    labels: dict[str, int] = {}  # label -> index into ins
    for item in program:
        if isinstance(item, str):
            labels[item.rstrip(":")] = len(ins)
            continue
        for opname, argval, kind in _expand(item):
            if kind == "local" and argval not in varnames:
                varnames.append(argval)
            ins.append((opname, argval, kind))
    # offsets (no EXTENDED_ARG: every argument fits a byte)
    offsets, pos = [], 0
    for opname, _, _ in ins:
        offsets.append(pos)
        pos += 2 + 2 * _caches(opname)
    offsets.append(pos)

    def index_of(seq: list, value: Any) -> int:
        for k, v in enumerate(seq):
            if type(v) is type(value) and v == value:
                return k
        seq.append(value)
        return len(seq) - 1

    code = bytearray()
    for k, (opname, argval, kind) in enumerate(ins):
        end = offsets[k] + 2 + 2 * _caches(opname)
        if kind == "none":
            arg = 0
        elif kind == "int":
            arg = argval
        elif kind == "local":
            arg = varnames.index(argval)
        elif kind == "const":
            arg = index_of(consts, argval)
        elif kind == "name":
            arg = index_of(names, argval)
        elif kind == "name_shifted":
            arg = index_of(names, argval) << 1
        elif kind == "name_null":
            arg = index_of(names, argval) << 1 | 1
        else:
            target = offsets[labels[argval]]
            if kind == "absolute":
                arg = target if PY < (3, 10) else target // 2
            else:  # relative to the next instruction, in bytes before 3.10
                assert target >= end, "only forward jumps"
                arg = (target - end) if PY < (3, 10) else (target - end) // 2
        assert 0 <= arg < 256, (opname, arg)
        code += bytes([dis.opmap[opname], arg]) + bytes(2 * _caches(opname))
    template = _template(len(params))
    fields: dict[str, Any] = dict(
        co_code=bytes(code),
        co_consts=tuple(consts) or (None,),
        co_names=tuple(names),
        co_varnames=tuple(varnames),
        co_nlocals=len(varnames),
        co_stacksize=32,
        co_name=name,
    )
    fields["co_lnotab" if PY < (3, 10) else "co_linetable"] = b""
    if PY >= (3, 11):
        fields.update(co_qualname=name, co_exceptiontable=b"")
    return template.replace(**fields)


def _template(nparams: int) -> types.CodeType:
    params = ", ".join(f"p{k}" for k in range(nparams))
    scope: dict[str, Any] = {}
    exec(f"def f({params}):\n    pass\n", scope)
    return scope["f"].__code__


def function(code: types.CodeType, globals_: dict[str, Any]) -> types.FunctionType:
    """``code`` as a function over ``globals_``."""
    return types.FunctionType(code, dict(globals_))


# ------------------------------------------------------------- running side by side


def world(log: list) -> dict:
    """Globals of the programs: calls that say they happened."""

    def note(tag):
        log.append(tag)
        return f"<{tag}>"

    def graph(*args):
        log.append(("graph", args))
        return args

    def enter():
        log.append("enter")
        return "cm"

    def leave(cm):
        log.append(("exit", cm))

    class Profiler:
        enabled = False

    return {"note": note, "__compiled_fn_1": graph, "combine": graph, "pair": graph, "enter": enter,
            "leave": leave, "profiler": Profiler}


def _run(fn_of, args, enabled=False):
    log: list = []
    globals_ = world(log)
    globals_["profiler"].enabled = enabled
    try:
        result = fn_of(globals_)(*args)
    except Exception as e:  # noqa: BLE001
        result = type(e).__name__
    return result, log


def same_behaviour(code, arg_values, name="f"):
    """Decompile ``code`` and run both on every combination of ``arg_values`` (one list per
    parameter) with the profiler off and on; returns the source."""
    source = pellucid.decompile(code, verify=False)  # (not compiler output: run side by side)
    compiled = compile(source, "<decompiled>", "exec")

    def ours(globals_):
        scope = dict(globals_)
        exec(compiled, scope)
        return scope[name]

    for args in itertools.product(*arg_values):
        for enabled in (False, True):
            expected = _run(lambda w: function(code, w), args, enabled)
            assert _run(ours, args, enabled) == expected, (args, enabled, source)
    return source
