"""Dynamo's spelling of ``f(*args)`` on 3.14+, where ``CALL_FUNCTION_EX`` always takes a
keyword mapping (NULL when there is none): Dynamo pushes both NULLs after the arguments and
swaps them into place::

    LOAD f; LOAD args; PUSH_NULL; PUSH_NULL; SWAP 3; SWAP 2; CALL_FUNCTION_EX

which leaves f, NULL, args, NULL: the call ``f(*args)``.  Hand-built here (no source compiles
to it), run beside its decompiled source."""

from __future__ import annotations

import dis
import sys
import types

import pytest

from pellucid.decompiler import decode, decompile

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 14) or decode.unsupported_version() is not None,
    reason="the shape of 3.14+ CALL_FUNCTION_EX (and this Python's bytecode must be supported)",
)


def _code(template: types.CodeType, ops: list[tuple[str, int]]) -> types.CodeType:
    out = bytearray()
    for name, arg in ops:
        out += bytes([dis.opmap[name], arg])
        out += bytes(2 * dis._inline_cache_entries.get(name, 0))  # type: ignore[attr-defined]
    return template.replace(co_code=bytes(out), co_stacksize=6, co_linetable=b"", co_exceptiontable=b"")


def test_dynamo_nulls_swapped_under_the_arguments_are_a_plain_starred_call():
    def template(fn, args):
        return None

    code = _code(
        template.__code__,
        [
            ("RESUME", 0), ("LOAD_FAST", 0), ("LOAD_FAST", 1), ("PUSH_NULL", 0), ("PUSH_NULL", 0),
            ("SWAP", 3), ("SWAP", 2), ("CALL_FUNCTION_EX", 0), ("RETURN_VALUE", 0),
        ],
    )
    original = types.FunctionType(code, {})
    # (not the bytecode source compiles to, so verified by running it, not by recompiling)
    source = decompile(original, verify=False)
    assert "return fn(*args)" in source, source
    ns: dict = {}
    exec(compile(source, "<decompiled>", "exec"), ns)
    decompiled = ns["template"]
    for args in ((1, 2), (), ("a",)):
        assert decompiled(max if args else list, args) == original(max if args else list, args)
