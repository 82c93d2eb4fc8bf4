"""Jumps whose argument needs an ``EXTENDED_ARG`` prefix: a loop longer than 255 code units.

A jump back to such a loop's ``FOR_ITER`` names the offset of its prefix, which the decoder
folds into the instruction; every pass that maps jump targets to instructions must map that
offset to the instruction it prefixes (3.14's ``with`` reading did not, and refused the
function).  Each function runs beside its decompiled source."""

from __future__ import annotations

import pytest

import pellucid

_STEPS = 60  # statements in the loop body: well past 255 code units


def _long_loop(head: str) -> str:
    body = "\n".join(f"            out.append(x * {k} + len(out))" for k in range(_STEPS))
    return (
        "def f(xs, log):\n"
        "    out = []\n"
        f"    {head}\n"
        "        for x in xs:\n"
        f"{body}\n"
        "            if log is not None:\n"
        "                log.append(x)\n"
        "    return out\n"
    )


class _Manager:
    def __init__(self, seen):
        self.seen = seen

    def __enter__(self):
        self.seen.append("enter")
        return self

    def __exit__(self, *exc):
        self.seen.append("exit")
        return False


@pytest.mark.parametrize("head", ["with manager as m:", "if xs:"])
def test_a_loop_longer_than_one_byte_of_jump_comes_back_the_same(head):
    source = _long_loop(head)
    original: dict = {}
    exec(compile(source, "<long>", "exec"), original)
    back = pellucid.decompile(original["f"], strict=True)
    decompiled: dict = {}
    exec(compile(back, "<decompiled>", "exec"), decompiled)
    for ns in (original, decompiled):
        ns["manager"] = _Manager(ns.setdefault("seen", []))
    for args in (([1, 2], []), ([], None), ([3], None)):
        assert decompiled["f"](*args) == original["f"](*args)
    assert decompiled["seen"] == original["seen"]
