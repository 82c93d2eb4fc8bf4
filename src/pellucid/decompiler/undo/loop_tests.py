"""While-test duplication: the test of a ``while`` loop compiled again before its back edge.

CPython 3.10-3.13 (``compiler_while``) compile a loop's test twice: at the top, jumping past
the loop when false, and at the bottom, jumping back to the body when true
(``test; jump exit; body: ...; test; jump body``).  Served where the table says so
(``TABLE.duplicates_loop_tests``).  The pass records, on each conditional jump back, how
many instructions ending there repeat the ones ending before the body (the test at the top,
or, for a chained comparison whose test jumps to the body, before that jump): the walk asks
the record to tell a loop tested at the bottom, and reads the copy as the test, never as code.
"""

from __future__ import annotations

from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, TABLE, Instr, arg_key

# Instr.extra key on a conditional jump back: {end of the original: length of the copy}
TEST_COPY = "test_copy"

SERVES = TABLE.duplicates_loop_tests


def mark_loop_test_copies(ins: list[Instr]) -> None:
    """Record on each conditional jump back to T the copies of the test before T it ends."""
    if not SERVES:
        return
    jumps_to: dict[int, list[int]] = {}  # target -> the plain jumps forward to it
    for i in ins:
        if i.op == "JUMP" and i.target is not None and i.target > i.index:
            jumps_to.setdefault(i.target, []).append(i.index)
    for latch in ins:
        T = latch.target
        if latch.op not in CONDITIONAL_JUMPS or T is None or T >= latch.index:
            continue
        ends = {T - 1} | {k - 1 for k in jumps_to.get(T, ())}
        copies = {e: _copy_length(ins, e, latch.index) for e in ends if e >= 0}
        if any(copies.values()):
            latch.extra[TEST_COPY] = copies


def _copy_length(ins: list[Instr], e: int, last: int) -> int:
    """How many instructions ending at ``last`` repeat the ones ending at ``e``: the same
    operations on the same arguments, any conditional jump standing for any other."""
    m = 0
    while e - m >= 0 and last - m >= 0 and _same(ins[e - m], ins[last - m]):
        m += 1
    return m


def _same(a: Instr, b: Instr) -> bool:
    if a.op in CONDITIONAL_JUMPS and b.op in CONDITIONAL_JUMPS:
        return True
    if a.op == b.op and a.target is not None and b.target is not None and a.target != b.target:
        # a jump inside the test (over a chained comparison's clean-up): the same distance
        return a.target - a.index == b.target - b.index
    return a.op == b.op and arg_key(a.argval) == arg_key(b.argval)
