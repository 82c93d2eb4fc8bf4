"""BUILD_STRING of parts that are not spelled as strings.

Dynamo's resume functions get an f-string's parts that were formatted before the graph break on
their stack, as arguments: BUILD_STRING then joins plain values, which no f-string source makes.
Such code is made here from an f-string by dropping its FORMAT instructions, and the decompiled
function runs side by side with it.
"""

from __future__ import annotations

import dis
import sys
import types

import pytest

import pellucid

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11+ bytecode layout")

_FORMAT_PLAIN = {"FORMAT_VALUE": 0, "FORMAT_SIMPLE": None}  # opname -> arg of a bare format


def _without_formats(fn: types.FunctionType) -> types.FunctionType:
    """``fn`` with its argument-free FORMAT instructions made NOPs: the f-string's parts reach
    BUILD_STRING as they are (the instructions keep their size, so no jump moves)."""
    raw = bytearray(fn.__code__.co_code)
    nop = dis.opmap["NOP"]
    dropped = 0
    for ins in dis.get_instructions(fn.__code__):
        if ins.opname in _FORMAT_PLAIN and (ins.opname == "FORMAT_SIMPLE" or ins.arg == 0):
            raw[ins.offset] = nop
            raw[ins.offset + 1] = 0
            dropped += 1
    assert dropped, dis.dis(fn)
    code = fn.__code__.replace(co_code=bytes(raw))
    return types.FunctionType(code, fn.__globals__, fn.__name__)


def _joined_two(a, b):
    return f"{a}{b}"


def _mixed(a, b, x):
    return f"<{a}|{x:.2f}|{b}>"


def _three(a, b, c):
    return f"{a}-{b}{c}"


class Tagged(str):
    def __format__(self, spec):  # an f-string would call this; BUILD_STRING does not
        return "FORMATTED"


CASES = [
    (_joined_two, [("ab", "cd"), (Tagged("t"), "u"), (1, "x"), ("x", None)]),
    (_mixed, [("a", "b", 3.14159), (Tagged("t"), "b", 1), ("a", 2, 1.0)]),
    (_three, [("s", "t", "u"), ("s", Tagged("t"), "u"), ("s", "t", 3)]),
]


def _outcome(fn, args):
    try:
        value = fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return ("raises", type(e))
    return ("returns", value, type(value))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_build_string_of_plain_values_runs_like_the_bytecode(fn, inputs):
    original = _without_formats(fn)
    source = pellucid.decompile(original.__code__)
    assert "join" in source, source
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    decompiled = scope[fn.__name__]
    for args in inputs:
        assert _outcome(decompiled, args) == _outcome(original, args), (args, source)
