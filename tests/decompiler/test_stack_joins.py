"""Values left on the stack across an if statement, in hand-built bytecode.

No source leaves a value on the stack while an if statement runs, but generated code does:
Dynamo 2.15 runs its profiler markers (``if profiling: cm = record_enter()``, each arm of the
template leaving its own ``None`` behind, popped after the join) while the graph call's callable
and arguments wait on the stack.  The decompiler meets such arms at the join (the same value
stays; a slot where the arms differ becomes a temporary assigned in each arm).  Each program runs beside its decompiled source, with every
combination of the values it tests, and both must call the same functions in the same order
and return the same.
"""

from __future__ import annotations

import pytest
from bytecode_asm import assemble, same_behaviour

import pellucid

# Dynamo 2.15's make_call_generated_code: the graph's callable is loaded, the profiler flag and
# a marker are saved, then the enter template (`cm = None; if flag: cm = enter()`, returns made
# jumps, each arm leaving the template's `None`), the arguments, the exit template
# (`if cm is not None: leave(cm)`), the call.
PREGRAPH_MARKERS = [
    ("load_callable", "__compiled_fn_1"),
    ("load_global", "profiler"), ("load_attr", "enabled"), ("STORE_FAST", "tmp_3"),
    ("LOAD_CONST", None), ("STORE_FAST", "tmp_1"),
    ("LOAD_FAST", "tmp_3"), ("jump_if_false", "enter_else"),
    ("load_callable", "enter"), ("call", 0), ("STORE_FAST", "tmp_1"),
    ("LOAD_CONST", None), ("jump", "enter_end"),
    "enter_else:", ("LOAD_CONST", None),
    "enter_end:", ("NOP",), ("POP_TOP",),
    ("LOAD_FAST", "x"), ("LOAD_FAST", "y"),
    ("LOAD_FAST", "tmp_1"), ("LOAD_CONST", None), ("IS_OP", 0), ("jump_if_true", "exit_else"),
    ("load_callable", "leave"), ("LOAD_FAST", "tmp_1"), ("call", 1), ("POP_TOP",),
    ("LOAD_CONST", None), ("jump", "exit_end"),
    "exit_else:", ("LOAD_CONST", None),
    "exit_end:", ("NOP",), ("POP_TOP",),
    ("call", 2),
    ("RETURN_VALUE",),
]


def test_dynamo_pregraph_markers_around_a_waiting_call():
    code = assemble("f", ("x", "y"), PREGRAPH_MARKERS)
    source = same_behaviour(code, [[1], [2]])
    # the arms agree on the value they leave (None): nothing to name
    assert "__pellucid_tmp" not in source, source
    assert source.count("if ") == 2 and "return __compiled_fn_1(x, y)" in source, source


def test_arms_leaving_different_values_above_and_below_get_temporaries():
    """The then-arm replaces the waiting argument and pushes a value without a statement; the
    else-arm says something and pushes another value: both slots differ at the join."""
    code = assemble("f", ("a", "b", "d", "c"), [
        ("load_callable", "combine"),
        ("LOAD_FAST", "a"),
        ("LOAD_FAST", "c"), ("jump_if_false", "else"),
        ("POP_TOP",), ("load_callable", "note"), ("LOAD_CONST", "then"), ("call", 1),
        ("LOAD_FAST", "b"),
        ("jump", "end"),
        "else:",
        ("load_callable", "note"), ("LOAD_CONST", "else"), ("call", 1), ("POP_TOP",),
        ("LOAD_FAST", "d"),
        "end:",
        ("call", 2),
        ("RETURN_VALUE",),
    ])
    source = same_behaviour(code, [["a"], ["b"], ["d"], [0, 1]])
    assert "__pellucid_tmp" in source, source


def test_a_value_pushed_in_an_arm_before_a_statement_keeps_its_order():
    code = assemble("f", ("c",), [
        ("load_callable", "combine"),
        ("LOAD_FAST", "c"), ("jump_if_false", "else"),
        ("load_callable", "note"), ("LOAD_CONST", "value"), ("call", 1),
        ("load_callable", "note"), ("LOAD_CONST", "statement"), ("call", 1), ("POP_TOP",),
        ("jump", "end"),
        "else:",
        ("LOAD_CONST", "plain"),
        "end:",
        ("LOAD_CONST", "last"),
        ("call", 2),
        ("RETURN_VALUE",),
    ])
    same_behaviour(code, [[0, 1]])


def test_an_arm_assigning_a_local_that_waits_on_the_stack():
    """`x` is loaded, then the if assigns it: the call gets the old value and the new one
    (the waiting value is saved as the if statement is said)."""
    code = assemble("f", ("x", "c"), [
        ("load_callable", "pair"),
        ("LOAD_FAST", "x"),
        ("LOAD_FAST", "c"), ("jump_if_false", "end"),
        ("LOAD_CONST", 0), ("STORE_FAST", "x"),
        "end:",
        ("LOAD_FAST", "x"),
        ("call", 2),
        ("RETURN_VALUE",),
    ])
    same_behaviour(code, [[5], [0, 1]])


def test_an_arm_assigning_a_local_that_waits_on_the_stack_with_an_else():
    code = assemble("f", ("x", "c"), [
        ("load_callable", "pair"),
        ("LOAD_FAST", "x"),
        ("LOAD_FAST", "c"), ("jump_if_false", "else"),
        ("LOAD_CONST", 0), ("STORE_FAST", "x"),
        ("jump", "end"),
        "else:",
        ("load_callable", "note"), ("LOAD_CONST", "else"), ("call", 1), ("POP_TOP",),
        "end:",
        ("LOAD_FAST", "x"),
        ("call", 2),
        ("RETURN_VALUE",),
    ])
    same_behaviour(code, [[5], [0, 1]])


@pytest.mark.parametrize("with_statement", [False, True])
def test_an_if_without_else_replacing_the_waiting_value(with_statement):
    """The false exit keeps the value; the then-arm pops it and pushes another."""
    statement = [("load_callable", "note"), ("LOAD_CONST", "said"), ("call", 1), ("POP_TOP",)]
    code = assemble("f", ("a", "c"), [
        ("LOAD_FAST", "a"),
        ("LOAD_FAST", "c"), ("jump_if_false", "end"),
        ("POP_TOP",),
        *(statement if with_statement else []),
        ("load_callable", "note"), ("LOAD_CONST", "replaced"), ("call", 1),
        "end:",
        ("RETURN_VALUE",),
    ])
    same_behaviour(code, [["a"], [0, 1]])


def test_arms_leaving_different_depths_are_refused():
    code = assemble("f", ("c",), [
        ("LOAD_CONST", 1),
        ("LOAD_FAST", "c"), ("jump_if_false", "else"),
        ("load_callable", "note"), ("LOAD_CONST", "then"), ("call", 1), ("POP_TOP",),
        ("LOAD_CONST", 2),
        ("jump", "end"),
        "else:",
        ("load_callable", "note"), ("LOAD_CONST", "else"), ("call", 1), ("POP_TOP",),
        "end:",
        ("RETURN_VALUE",),
    ])
    with pytest.raises(pellucid.DecompilationError, match="different stacks"):
        pellucid.decompile(code)
