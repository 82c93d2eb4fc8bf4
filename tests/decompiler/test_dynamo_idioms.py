"""Bytecode idioms Dynamo 2.15 writes that 2.13 did not, in hand-built bytecode.

Each program is the idiom as Dynamo emits it (``torch/_dynamo/codegen.py``,
``bytecode_transformation.py``), run beside its decompiled source.  The profiler markers around
the graph call are in test_stack_joins.py.
"""

from __future__ import annotations

import operator

import pytest
from bytecode_asm import PY, assemble, function, same_behaviour

import pellucid


def _side_by_side(code, scope):
    """(Dynamo's function, the decompiled one, the source), over the same globals."""
    source = pellucid.decompile(code, verify=False)  # (not compiler output: run side by side)
    exec(compile(source, "<decompiled>", "exec"), scope)
    return function(code, scope), scope[code.co_name], source


def test_list_append_as_a_one_item_extend():
    """``codegen.create_list_append``: ``BUILD_LIST 1; LIST_EXTEND 1`` appends the value on top
    to the list under it, which stays on the stack (at a nested graph break the leaf frame's
    result goes onto its parent's stack list: ``SWAP 2`` first)."""
    code = assemble("f", ("lst",), [
        ("load_callable", "note"), ("LOAD_CONST", "leaf"), ("call", 1),
        ("LOAD_FAST", "lst"),
        ("swap", 2),
        ("BUILD_LIST", 1), ("LIST_EXTEND", 1),
        ("LOAD_CONST", "more"), ("BUILD_LIST", 1), ("LIST_EXTEND", 1),
        ("RETURN_VALUE",),
    ])
    log: list = []
    dynamos, ours, source = _side_by_side(code, {"note": lambda tag: log.append(tag) or f"<{tag}>"})
    for fn in (dynamos, ours):
        lst = ["first"]
        assert fn(lst) is lst, source  # the same list, extended in place
        assert lst == ["first", "<leaf>", "more"], source
    assert log == ["leaf", "leaf"]


@pytest.mark.skipif(PY < (3, 11), reason="no NULL beside a callable before 3.11: no such idiom")
def test_method_load_split_into_attribute_and_null():
    """``remove_load_attr_method_variant`` (3.12+, in the code Dynamo traces and copies into
    resume functions): a method load becomes a plain ``LOAD_ATTR`` then ``PUSH_NULL``, swapped
    under the callable where the NULL goes below it (3.12; 3.11 has the same layout)."""
    code = assemble("f", ("obj", "x"), [
        ("LOAD_FAST", "obj"), ("attr_callable", "scaled"),
        ("LOAD_FAST", "x"),
        ("call", 1),
        ("RETURN_VALUE",),
    ])

    class Obj:
        def __init__(self, k):
            self.k = k

        def scaled(self, x):
            return self.k * x

    source = same_behaviour(code, [[Obj(3), Obj(-1)], [2, 5]])
    assert "return obj.scaled(x)" in source, source


def test_a_recomputed_constant_kept_and_stored_while_it_waits():
    """A recomputed lazy constant (``ComputedLazyConstantVariable.reconstruct``):
    ``operator.add(a, b)`` called through Dynamo's imported module, duplicated and stored to a
    temporary (its cache) while it waits on the stack for the graph call."""
    code = assemble("f", ("a", "b"), [
        ("load_callable", "__compiled_fn_1"),
        ("load_global", "__import_operator"), ("attr_callable", "add"),
        ("LOAD_FAST", "a"), ("LOAD_FAST", "b"), ("call", 2),
        ("copy", 1), ("STORE_FAST", "tmp_1"),
        ("LOAD_FAST", "tmp_1"),
        ("call", 2),
        ("RETURN_VALUE",),
    ])
    scope = {"__import_operator": operator, "__compiled_fn_1": lambda *a: a}
    dynamos, ours, source = _side_by_side(code, scope)
    for a, b in [(1, 2), ("x", "y"), ([1], [2])]:
        assert ours(a, b) == dynamos(a, b) == (a + b, a + b), source
    assert "tmp_1" in source, source  # (Dynamo's cache, said as a walrus)
