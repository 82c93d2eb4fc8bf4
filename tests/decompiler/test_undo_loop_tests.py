"""undo/loop_tests.py: the copy of a while test before its jump back, recorded on the jump."""

from __future__ import annotations

import pytest

from pellucid.decompiler.instructions import TABLE, Instr
from pellucid.decompiler.undo import TEST_COPY, mark_loop_test_copies

pytestmark = pytest.mark.skipif(
    not TABLE.duplicates_loop_tests, reason="this compiler does not copy loop tests"
)


def _program(*ops: tuple) -> list[Instr]:
    """Instructions from (op, argval[, target]) tuples, indexed in order."""
    out = []
    for k, (op, argval, *target) in enumerate(ops):
        out.append(Instr(op, None, argval, 2 * k, target=target[0] if target else None, index=k))
    return out


def test_inverted_while_records_the_test_copy() -> None:
    # while a and n > 0: x()
    ins = _program(
        ("LOAD_FAST", "a"),  # 0-5: the test at the top
        ("POP_JUMP_IF_FALSE", None, 17),
        ("LOAD_FAST", "n"),
        ("LOAD_CONST", 0),
        ("COMPARE_OP", ">"),
        ("POP_JUMP_IF_FALSE", None, 17),
        ("LOAD_GLOBAL", "x"),  # 6-8: the body
        ("CALL", 0),
        ("POP_TOP", None),
        ("LOAD_FAST", "a"),  # 9-14: the copy, jumping back
        ("POP_JUMP_IF_FALSE", None, 17),
        ("LOAD_FAST", "n"),
        ("LOAD_CONST", 0),
        ("COMPARE_OP", ">"),
        ("POP_JUMP_IF_TRUE", None, 6),
        ("LOAD_CONST", None),
        ("RETURN_VALUE", None),
        ("LOAD_CONST", None),
        ("RETURN_VALUE", None),
    )
    before = [(i.op, i.argval, i.target) for i in ins]
    mark_loop_test_copies(ins)
    assert [(i.op, i.argval, i.target) for i in ins] == before  # (a record, nothing moved)
    latch = ins[14]
    assert latch.extra[TEST_COPY] == {5: 6}  # the six instructions of the test, [0, 6)
    assert all(i._extra is None for i in ins[:14])


def test_a_jump_back_after_other_code_records_no_copy() -> None:
    # while True: if c(): continue ... : the code before the jump back is no copy of a test
    ins = _program(
        ("LOAD_GLOBAL", "c"),
        ("CALL", 0),
        ("LOAD_GLOBAL", "d"),
        ("CALL", 0),
        ("POP_JUMP_IF_TRUE", None, 0),
        ("LOAD_CONST", None),
        ("RETURN_VALUE", None),
    )
    mark_loop_test_copies(ins)
    assert TEST_COPY not in ins[4].extra  # (the jump back to 0: nothing before 0 to copy)


def test_chained_comparison_test_is_aligned_on_its_jump_to_the_body() -> None:
    # a chained comparison's test jumps to the body (its clean-up laid out before the body)
    ins = _program(
        ("LOAD_FAST", "a"),  # 0-2: the test, then its jump to the body
        ("POP_JUMP_IF_FALSE", None, 9),
        ("JUMP", None, 5),
        ("POP_TOP", None),  # 3, 4: the clean-up
        ("JUMP", None, 9),
        ("LOAD_GLOBAL", "x"),  # 5, 6: the body
        ("POP_TOP", None),
        ("LOAD_FAST", "a"),  # 7, 8: the copy and the jump back
        ("POP_JUMP_IF_TRUE", None, 5),
        ("LOAD_CONST", None),
        ("RETURN_VALUE", None),
    )
    mark_loop_test_copies(ins)
    assert ins[8].extra[TEST_COPY][1] == 2  # the test [0, 2) before the jump to the body
