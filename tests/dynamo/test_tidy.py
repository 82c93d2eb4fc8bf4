"""The graph-break tidy (pellucid.dynamo.tidy): what it rewrites reads plainly and runs the same
(the same calls with the same arguments, lists alike down to which of them are one object);
what it cannot follow is left exactly as decompiled."""

from __future__ import annotations

import ast
import copy
import textwrap

from pellucid.decompiler.emit import unparse
from pellucid.dynamo.tidy import tidy

# What pellucid decompiled from Dynamo's bytecode for the README example's first frame
# (torch 2.13): the frame-value lists built for the resume call at the graph break.
README_FRAME = """
def f(a, b):
    tmp_2 = (tmp_1 := U.record_pregraph_bytecode_enter)()
    (tmp_3 := U.record_pregraph_bytecode_exit)(tmp_2)
    __pellucid_tmp0 = __compiled_fn_1(a, b)
    del tmp_1
    del tmp_3
    graph_out_0 = __pellucid_tmp0
    __pellucid_tmp1 = [()]
    __pellucid_tmp2 = graph_out_0[0]
    __pellucid_tmp3 = [graph_out_0[1]]
    __pellucid_tmp4 = __pellucid_tmp3[0:1]
    __pellucid_tmp4.extend([b])
    __pellucid_tmp5 = [__pellucid_tmp4]
    del graph_out_0
    if __pellucid_tmp2:
        __pellucid_tmp5[0][0:0] = []
        __pellucid_tmp6 = [__pellucid_tmp5[0]][0]
        __pellucid_tmp6[0:] = [__pellucid_tmp6[1], __pellucid_tmp6[0]]
        [__pellucid_tmp1[0]]
        __pellucid_tmp7 = [__pellucid_tmp5[0]]
        __pellucid_tmp8 = __pellucid_tmp7[-1]
        del __pellucid_tmp7[-1]
        return __resume_at_102_2([], __pellucid_tmp7, *__pellucid_tmp8)
    __pellucid_tmp5[0][0:0] = []
    __pellucid_tmp9 = [__pellucid_tmp5[0]]
    __pellucid_tmp10 = [__pellucid_tmp1[0]]
    __pellucid_tmp11 = __pellucid_tmp9[0]
    __pellucid_tmp11[0:] = [__pellucid_tmp11[1], __pellucid_tmp11[0]]
    __pellucid_tmp12 = []
    __pellucid_tmp13 = __pellucid_tmp9[-1]
    del __pellucid_tmp9[-1]
    return __resume_at_112_3(__pellucid_tmp12, __pellucid_tmp9, *__pellucid_tmp13)
"""

README_TIDY = """
def f(a, b):
    tmp_1 = U.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    tmp_3 = U.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    graph_out_0 = __compiled_fn_1(a, b)
    del tmp_1
    del tmp_3
    __pellucid_tmp0 = graph_out_0[0]
    __pellucid_tmp1 = graph_out_0[1]
    del graph_out_0
    if __pellucid_tmp0:
        return __resume_at_102_2([], [], b, __pellucid_tmp1)
    return __resume_at_112_3([], [], b, __pellucid_tmp1)
"""


class Recorder:
    """Stands in for Dynamo's globals: every call is recorded with the shape of its arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def __getattr__(self, name: str):
        def call(*args):
            self.calls.append((name, shape(args)))
            return (name, len(self.calls))

        return call


def shape(value, seen=None):
    """``value`` with every list replaced by (its position among the distinct lists, items):
    equal shapes mean equal contents and the same sharing of list objects."""
    seen = {} if seen is None else seen
    if isinstance(value, list):
        first = id(value) not in seen
        k = seen.setdefault(id(value), len(seen))
        return ("list", k, [shape(v, seen) for v in value] if first else "again")
    if isinstance(value, tuple):
        return tuple(shape(v, seen) for v in value)
    return value


def run(src: str, *args, **globals_):
    rec = Recorder()
    scope = {"U": rec, **globals_}
    for name in ("__compiled_fn_1", "__resume_at_102_2", "__resume_at_112_3", "g", "h", "k"):
        scope.setdefault(name, getattr(rec, name))
    exec(compile(src, "<test>", "exec"), scope)
    try:
        result = ("returned", shape(scope["f"](*args)))
    except Exception as e:  # noqa: BLE001
        result = ("raised", type(e).__name__)
    return result, rec.calls


def tidied(src: str) -> tuple[str, bool]:
    tree = ast.parse(textwrap.dedent(src))
    changed = tidy(tree, "f")
    return unparse(tree), changed


def check_same_behaviour(src: str, *arg_sets) -> str:
    out, _ = tidied(src)
    for args in arg_sets:  # (a copy each: the functions may change their arguments)
        assert run(textwrap.dedent(src), *copy.deepcopy(args)) == run(out, *copy.deepcopy(args)), (
            out
        )
    return out


def test_the_readme_graph_break_reads_as_the_resume_call_it_makes():
    out, changed = tidied(README_FRAME)
    assert changed
    assert out.strip() == README_TIDY.strip()
    graph_results = [(True, "x"), (False, "x")]  # the branch each way

    for result in graph_results:

        def graph(a, b, result=result):
            return result

        assert run(textwrap.dedent(README_FRAME), 1, 2, __compiled_fn_1=graph) == run(
            out, 1, 2, __compiled_fn_1=graph
        )


def test_lists_only_built_are_dropped_and_a_value_read_once_is_stored_where_made():
    src = """
    def f(b, x):
        __pellucid_tmp0 = __compiled_fn_1(b, x)
        del b
        graph_out_0 = __pellucid_tmp0
        __pellucid_tmp1 = []
        __pellucid_tmp2 = graph_out_0[0]
        __pellucid_tmp3 = [[]]
        del graph_out_0
        return __pellucid_tmp2
    """
    out = check_same_behaviour(src, ([1, 2], 3))
    assert (
        out.strip()
        == textwrap.dedent(
            """
        def f(b, x):
            graph_out_0 = __compiled_fn_1(b, x)
            del b
            __pellucid_tmp0 = graph_out_0[0]
            del graph_out_0
            return __pellucid_tmp0
        """
        ).strip()
    )


def test_a_value_that_changes_before_the_call_is_read_where_the_list_was_built():
    src = """
    def f(a, b):
        __pellucid_tmp0 = [a, b]
        a = 5
        return g(*__pellucid_tmp0)
    """
    out = check_same_behaviour(src, (1, 2))
    assert "g(__pellucid_tmp0, b)" in out and "__pellucid_tmp0 = a" in out, out


def test_values_with_effects_keep_their_order():
    src = """
    def f(a):
        __pellucid_tmp0 = [h(1), a, k(2)]
        __pellucid_tmp0.append(h(3))
        return g(__pellucid_tmp0)
    """
    out = check_same_behaviour(src, (7,))
    assert out.index("h(1)") < out.index("k(2)") < out.index("h(3)"), out
    assert "g([" in out


def test_one_list_passed_twice_is_left_alone():
    src = """
    def f(a):
        __pellucid_tmp0 = [a]
        __pellucid_tmp1 = [__pellucid_tmp0, __pellucid_tmp0]
        return g(*__pellucid_tmp1)
    """
    out, changed = tidied(src)
    assert not changed
    assert run(textwrap.dedent(src), 1) == run(out, 1)


def test_a_list_given_away_before_the_call_is_left_alone():
    src = """
    def f(a):
        __pellucid_tmp0 = [a]
        h(__pellucid_tmp0)
        __pellucid_tmp0.append(a)
        return g(__pellucid_tmp0)
    """
    assert tidied(src) == (ast.unparse(ast.parse(textwrap.dedent(src))), False)


def test_an_index_out_of_range_still_raises_where_it_did():
    src = """
    def f(a):
        __pellucid_tmp0 = [a]
        __pellucid_tmp1 = __pellucid_tmp0[3]
        return g(__pellucid_tmp1)
    """
    out, changed = tidied(src)
    assert not changed
    assert run(out, 1)[0] == ("raised", "IndexError")


def test_lists_changed_on_a_path_that_goes_on_are_left_alone():
    src = """
    def f(a, c):
        __pellucid_tmp0 = [a]
        if c:
            __pellucid_tmp0.append(a)
        return g(__pellucid_tmp0)
    """
    out, changed = tidied(src)
    assert not changed
    for c in (0, 1):
        assert run(textwrap.dedent(src), 1, c) == run(out, 1, c)


def test_slices_item_stores_and_deletes_are_followed():
    src = """
    def f(a, b, c):
        __pellucid_tmp0 = [a, b, c]
        __pellucid_tmp1 = __pellucid_tmp0[1:]
        __pellucid_tmp1[0] = c
        __pellucid_tmp0[0:2] = [__pellucid_tmp1[-1]]
        del __pellucid_tmp0[-1]
        __pellucid_tmp2 = [*__pellucid_tmp0, *__pellucid_tmp1]
        del __pellucid_tmp0
        return g(__pellucid_tmp2, [__pellucid_tmp1])
    """
    out = check_same_behaviour(src, (1, 2, 3))
    assert "__pellucid_tmp" not in out, out
    assert "return g([c, c, c], [[c, c]])" in out, out


def test_a_temporary_read_twice_is_not_moved():
    src = """
    def f(a):
        __pellucid_tmp0 = g(a)
        del a
        x = __pellucid_tmp0
        return h(x, __pellucid_tmp0)
    """
    out, changed = tidied(src)
    assert not changed
    assert run(textwrap.dedent(src), 1) == run(out, 1)


def test_an_element_read_into_any_statement_is_written_in_place():
    src = """
    def f(a, b):
        __pellucid_tmp0 = [(a,), b]
        __pellucid_tmp1 = g(__pellucid_tmp0[0], key=__pellucid_tmp0[-1])
        return __pellucid_tmp1(__pellucid_tmp0)
    """
    out = check_same_behaviour(src, (1, 2))
    assert "g((a,), key=b)" in out and "([(a,), b])" in out, out


def test_a_list_whose_items_are_only_copied_out_is_written_as_a_display():
    src = """
    def f(a, items):
        __pellucid_tmp0 = [a, items[0]]
        h(items)
        items[:] = __pellucid_tmp0
        k(*__pellucid_tmp0)
        return g(items)
    """
    out = check_same_behaviour(src, (1, [5, 6]))
    assert "items[:] = [a, __pellucid_tmp0]" in out and "k(a, __pellucid_tmp0)" in out, out


def test_a_copied_out_list_holding_a_list_is_left_alone():
    src = """
    def f(a, items):
        __pellucid_tmp0 = [[a]]
        items[:] = __pellucid_tmp0
        __pellucid_tmp0[0].append(a)
        return g(items)
    """
    out, changed = tidied(src)
    assert not changed
    assert run(textwrap.dedent(src), 1, [0]) == run(out, 1, [0])  # (fresh lists each)


def test_an_element_read_inside_a_lambda_is_left_alone():
    src = """
    def f(a):
        __pellucid_tmp0 = [a]
        __pellucid_tmp1 = g(lambda: __pellucid_tmp0[0])
        return __pellucid_tmp1
    """
    assert not tidied(src)[1]


def test_a_temporary_deleted_before_the_call_is_read_where_the_list_was_built():
    src = """
    def f(a):
        __pellucid_tmp0 = h(a)
        __pellucid_tmp1 = [__pellucid_tmp0]
        del __pellucid_tmp0
        return g(__pellucid_tmp1)
    """
    out = check_same_behaviour(src, (1,))
    assert "return g([__pellucid_tmp1])" in out, out


def test_statements_of_every_kind_pass_through():
    src = """
    def f(a, *rest, key=None, **kw):
        __pellucid_tmp0 = [a]
        match a:
            case None:
                pass
            case True:
                pass
            case {"k": 1, **more}:
                pass
            case [x, *others]:
                pass
        try:
            import os.path as p
        except ValueError as err:
            del err
        import contextlib
        with contextlib.nullcontext((1, 2)) as (c, d):
            pass
        for i in range(2):
            a2 = f"{i!r:>{a}}"
        return g(__pellucid_tmp0, {**kw}, *rest, key=key)
    """
    out = check_same_behaviour(src, (1,), (None, 2, 3))
    assert "return g([a], {**kw}, *rest, key=key)" in out, out


def test_a_defect_in_the_tidy_leaves_the_code_as_decompiled(monkeypatch):
    import pellucid.dynamo.tidy as tidy_module

    def broken(self, st, state, out):
        raise RuntimeError("a defect")

    monkeypatch.setattr(tidy_module._Tidier, "statement", broken)
    before = ast.unparse(ast.parse(textwrap.dedent(README_FRAME)))
    assert tidied(README_FRAME) == (before, False)


def test_a_temporary_bound_by_a_called_walrus_is_renumbered_with_the_others():
    src = """
    def f(a):
        __pellucid_tmp3 = (__pellucid_tmp7 := g)(a)
        __pellucid_tmp5 = [a]
        return h(__pellucid_tmp5, __pellucid_tmp3, __pellucid_tmp7 is g)
    """
    out = check_same_behaviour(src, (1,))
    assert "__pellucid_tmp7" not in out, out
