"""Tests of the normalizer/comparator that verification and the benchmarks share."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from pellucid.decompiler import verify
from pellucid.decompiler.instructions import Instr


def module_code(source: str) -> types.CodeType:
    return compile(textwrap.dedent(source), "<test>", "exec")


def code_named(source: str, qualname: str) -> types.CodeType:
    """The code object with this dotted qualname (3.9/3.10: the same path built by hand)."""
    found = {}

    def walk(code: types.CodeType, prefix: str) -> None:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                path = f"{prefix}{const.co_name}"
                found.setdefault(path, const)
                walk(const, f"{path}.<locals>." if const.co_flags & 1 else f"{path}.")

    walk(module_code(source), "")
    return found[qualname]


def func(source: str, name: str = "f") -> types.CodeType:
    return code_named(source, name)


def test_line_numbers_and_layout_are_ignored():
    a = func("def f(a, b):\n    return a + b\n")
    b = func("\n\n\n\ndef f(a,\n      b):\n\n    return (a\n      +\n   b)\n")
    assert a.co_firstlineno != b.co_firstlineno
    assert verify.compare_code(a, b) == []


def test_operand_order_differs():
    a = func("def f(a, b):\n    return a + b\n")
    b = func("def f(a, b):\n    return b + a\n")
    diffs = verify.compare_code(a, b)
    assert len(diffs) == 1
    assert diffs[0].startswith("f: instruction 0: LOAD_FAST a != LOAD_FAST b"), diffs


def test_nested_lambda_difference_reports_path():
    a = func("def f():\n    return lambda x: x + 1\n")
    b = func("def f():\n    return lambda x: x + 2\n")
    diffs = verify.differences(a, b)
    assert len(diffs) == 1
    assert diffs[0].path == "f.<locals>.<lambda>"
    assert str(diffs[0]).startswith(
        "f.<locals>.<lambda>: instruction 1: LOAD_CONST 1 != LOAD_CONST 2"
    )


def test_nested_function_difference_reports_path_and_category():
    a = func("def f(x):\n    def g(y):\n        return x * y\n    return g\n")
    b = func("def f(x):\n    def g(y):\n        return x / y\n    return g\n")
    (diff,) = verify.differences(a, b)
    assert diff.path == "f.<locals>.g"
    assert diff.kind == "instruction"
    assert diff.category in ("BINARY_MULTIPLY/BINARY_TRUE_DIVIDE", "BINARY_OP: argument")


@pytest.mark.parametrize(
    "left, right, category",
    [
        ("def f(a):\n    return a", "def f(a):\n    return b", "LOAD_FAST/LOAD_GLOBAL"),
        (
            "def f(a):\n    return a is None",
            "def f(a):\n    return a is not None",
            "IS_OP: argument",
        ),
        (
            "def f(a):\n    while a:\n        a -= 1\n    return a",
            "def f(a):\n    while a:\n        a -= 1\n        a -= 1\n    return a",
            None,
        ),
    ],
)
def test_difference_categories(left, right, category):
    diffs = verify.differences(func(left), func(right))
    assert diffs
    if category is not None:
        assert diffs[0].category == category
    else:
        assert diffs[0].category


@pytest.mark.parametrize(
    "left, right, equal",
    [
        ("0.0", "-0.0", False),
        ("1", "1.0", False),
        ("1", "True", False),
        ("float('nan')", "float('nan')", True),
        ("1e400 - 1e400", "1e400 - 1e400", True),
        ("(1, 2.0, 'x')", "(1, 2.0, 'x')", True),
        ("(1, 2.0)", "(1, 2)", False),
        ("0j", "-0j", False),
        ("b'x'", "'x'", False),
        ("x in {1, 2}", "x in {2, 1}", True),
    ],
)
def test_constants_compare_by_type_and_value(left, right, equal):
    a = func(f"def f(x):\n    return {left}\n")
    b = func(f"def f(x):\n    return {right}\n")
    assert (verify.compare_code(a, b) == []) is equal


def test_nan_constant_folded_compares_equal():
    # NaN != NaN, but the same constant must normalize to the same key
    assert verify.const_key(float("nan")) == verify.const_key(float("nan"))
    assert verify.const_key(0.0) != verify.const_key(-0.0)


def test_control_flow_difference():
    a = func("def f(a):\n    if a:\n        return 1\n    return 2\n")
    b = func("def f(a):\n    if not a:\n        return 1\n    return 2\n")
    assert verify.compare_code(a, b)


def test_loops_compare_equal_with_different_layout():
    src1 = """
    def f(xs):
        total = 0
        for x in xs:
            if x > 3:
                break
            while x:
                x -= 1
                if x == 2: continue
                total += x
        else:
            total = -1
        return total
    """
    src2 = """


    def f(xs):
        total = 0
        for x in xs:
            if x > 3: break
            while x:
                x -= 1
                if x == 2:

                    continue
                total += x
        else:
            total = -1
        return total
    """
    assert verify.compare_code(func(src1), func(src2)) == []


def test_filter_on_its_own_line_compares_equal():
    # 3.12+ jumps from a filter on its own line to the loop's back edge (another line), and
    # straight back to the loop head from a filter on the `for` line: threaded alike.
    one_line = func("def f(xs):\n    return [x for x in xs if x.ok]\n")
    own_line = func("def f(xs):\n    return [x for x in xs\n            if x.ok]\n")
    assert verify.compare_code(one_line, own_line) == []
    negated = func("def f(xs):\n    return [x for x in xs\n            if not x.ok]\n")
    assert verify.compare_code(one_line, negated)


def _listing(rows):
    """Instructions as verify's normalization holds them: (opname, argval, target index)."""
    return [
        Instr(op, None, argval, 2 * k, None, target, k)
        for k, (op, argval, target) in enumerate(rows)
    ]


def _shape(ins):
    return [(i.op, i.target) for i in ins]


def test_jump_to_a_jump_is_threaded():
    ins = _listing(
        [
            ("LOAD_FAST", "x", None),
            ("POP_JUMP_IF_TRUE", None, 3),  # over the next jump: folded with it
            ("JUMP", None, 5),
            ("LOAD_FAST", "y", None),  # (not a target: the fold's landing is index 3)
            ("JUMP", None, 6),
            ("RETURN_VALUE", None, None),
            ("RETURN_VALUE", None, None),
        ]
    )
    assert _shape(verify._threaded(ins, [])) == [
        ("LOAD_FAST", None),
        ("POP_JUMP_IF_FALSE", 4),
        ("LOAD_FAST", None),
        ("JUMP", 5),
        ("RETURN_VALUE", None),
        ("RETURN_VALUE", None),
    ]


def test_folded_jump_that_other_jumps_land_on():
    # `if not (a and b): continue` jumps to the continue's jump from `a` and falls into it
    # from `b`; `if a: if b: <rest>` jumps straight to the loop from both: the same
    ins = _listing(
        [
            ("POP_JUMP_IF_FALSE", None, 2),  # a false: to the continue's jump
            ("POP_JUMP_IF_TRUE", None, 3),  # b true: over it
            ("JUMP", None, 0),  # continue
            ("RETURN_VALUE", None, None),
        ]
    )
    assert _shape(verify._threaded(ins, [])) == [
        ("POP_JUMP_IF_FALSE", 0),
        ("POP_JUMP_IF_FALSE", 0),
        ("RETURN_VALUE", None),
    ]


def test_dead_code_is_left_out():
    # (the jump of an `else: pass` ending a loop body, that 3.12+ keep for its line)
    ins = _listing(
        [
            ("FOR_ITER", None, 6),
            ("POP_JUMP_IF_FALSE", None, 4),
            ("LOAD_FAST", "x", None),
            ("JUMP", None, 0),
            ("JUMP", None, 0),  # dead once the jump to it is threaded past it
            ("RETURN_CONST", None, None),  # dead from the start
            ("RETURN_CONST", None, None),
        ]
    )
    assert _shape(verify._threaded(ins, [])) == [
        ("FOR_ITER", 4),
        ("POP_JUMP_IF_FALSE", 0),
        ("LOAD_FAST", None),
        ("JUMP", 0),
        ("RETURN_CONST", None),
    ]


def test_jump_into_a_circle_of_jumps_goes_where_it_enters_it():
    # a jump to a jump to `while True: pass` (a jump to itself) goes to the loop's jump
    ins = _listing(
        [
            ("POP_JUMP_IF_TRUE", None, 2),
            ("RETURN_VALUE", None, None),
            ("JUMP", None, 3),  # dead once the jump to it is threaded past it
            ("JUMP", None, 3),
        ]
    )
    assert _shape(verify._threaded(ins, [])) == [
        ("POP_JUMP_IF_TRUE", 2),
        ("RETURN_VALUE", None),
        ("JUMP", 2),
    ]


def test_keyword_names_are_compared():
    # 3.11 names a call's keywords in KW_NAMES, whose constant dis leaves unresolved there:
    # the decoder's reading is compared, on every version
    a = func("def f(g):\n    return g(a=1)\n")
    b = func("def f(g):\n    return g(b=1)\n")
    assert verify.compare_code(a, b) != []
    assert verify.compare_code(a, func("def f(g):\n    return g(a=2)\n")) != []
    assert verify.compare_code(a, func("def f(g):\n    return g(a=1)\n")) == []


@pytest.mark.parametrize(
    "left, right",
    [
        (
            # 3.12+ keep the dead jump of the `pass`
            """
            def f(xs):
                for e in xs:
                    if e.a:
                        g(e)
                    elif e.b:
                        h(e)
                    else:
                        pass
                return 1
            """,
            """
            def f(xs):
                for e in xs:
                    if e.a:
                        g(e)
                        continue
                    if e.b:
                        h(e)
                        continue
                return 1
            """,
        ),
        (
            """
            def f(xs):
                for x in xs:
                    if x.m:
                        if x.t():
                            if x is g(x):
                                return 1
                    else:
                        h(x)
            """,
            """
            def f(xs):
                for x in xs:
                    if x.m:
                        if not (x.t() and x is g(x)):
                            continue
                        return 1
                    h(x)
            """,
        ),
        (
            """
            def f(xs):
                for d in xs:
                    if d.a:
                        g(d)
                    elif d.t == 'm':
                        continue
                    elif d.t == 'n':
                        continue
                    h(d)
            """,
            """
            def f(xs):
                for d in xs:
                    if d.a:
                        g(d)
                    elif d.t == 'm' or d.t == 'n':
                        continue
                    h(d)
            """,
        ),
    ],
    ids=["else_pass_ending_a_loop_body", "negated_and_continue", "elif_continues_or"],
)
def test_same_behaviour_other_jumps_compare_equal(left, right):
    assert verify.compare_code(func(textwrap.dedent(left)), func(textwrap.dedent(right))) == []


def test_store_overwritten_at_once_is_a_pop():
    # 3.13+ pop the first of two stores to one local on one line, not across lines
    left = func("def f(t):\n    (\n        _,\n        _,\n        x,\n    ) = t\n    return x\n")
    right = func("def f(t):\n    _, _, x = t\n    return x\n")
    assert verify.compare_code(left, right) == []
    assert verify.compare_code(right, func("def f(t):\n    _, y, x = t\n    return x\n")) != []


def test_jump_variants_unified_and_bookkeeping_dropped():
    code = func("def f(a):\n    while a:\n        a = a - 1\n    return a\n")
    norm = verify.normalize(code)
    opnames = {i.opname for i in norm.instructions}
    assert not opnames & set(verify.JUMP_ALIASES)
    assert not opnames & verify._DROPPED
    for ins in norm.instructions:
        if isinstance(ins.arg, verify.JumpTarget):
            assert 0 <= ins.arg.index <= len(norm.instructions)


def test_superinstructions_split_into_halves():
    norm = verify.normalize(func("def f(a, b):\n    return a + b\n"))
    ops = [(i.opname, i.arg) for i in norm.instructions]
    assert ops[:2] == [("LOAD_FAST", "a"), ("LOAD_FAST", "b")]
    norm = verify.normalize(func("def f(a, b):\n    x = a\n    y = b\n    return x\n"))
    ops = [(i.opname, i.arg) for i in norm.instructions]
    assert ops[:4] == [
        ("LOAD_FAST", "a"),
        ("STORE_FAST", "x"),
        ("LOAD_FAST", "b"),
        ("STORE_FAST", "y"),
    ]


def test_names_not_slots():
    # same instructions, but locals numbered differently
    code = func("def f(a):\n    x = 1\n    y = 2\n    return a\n")
    names = code.co_varnames
    assert names == ("a", "x", "y")
    swapped = code.replace(
        co_varnames=("a", "y", "x"),
        co_code=code.co_code,
    )
    # the swap renames the stored variables, which must be seen as a difference
    assert verify.compare_code(code, swapped)


@pytest.mark.parametrize(
    "left, right, kind",
    [
        ("def f(a, b): pass", "def f(a, *, b): pass", "argcount"),
        ("def f(a, b, /): pass", "def f(a, b): pass", "posonlyargcount"),
        ("def f(a, b): pass", "def f(a, c): pass", "argnames"),
        ("def f(*a): pass", "def f(a): pass", "argcount"),
        ("def f(**k): pass", "def f(*k): pass", "flags"),
        ("def f():\n    yield 1", "def f():\n    return 1", "flags"),
        ("def f():\n    'doc'\n    return 1", "def f():\n    return 1", "docstring"),
    ],
)
def test_signature_and_flags(left, right, kind):
    kinds = {d.kind for d in verify.differences(func(left), func(right))}
    assert kind in kinds


def test_identical_is_empty_for_same_code():
    code = func("def f(a, *args, k=1, **kw):\n    return [a for a in args if a]\n")
    assert verify.compare_code(code, code) == []


def test_recompile_plain_function():
    original = func("def f(a, b=2):\n    return a + b\n")
    code = verify.recompile("def f(a, b=2):\n    return a + b\n", original)
    assert code.co_name == "f"
    assert verify.compare_code(original, code) == []


def test_recompile_closure_wraps_free_variables():
    src = """
    def outer():
        n = 0
        m = 5
        def inner(k):
            nonlocal n
            n += k
            return n + m
        return inner
    """
    original = code_named(src, "outer.<locals>.inner")
    assert set(original.co_freevars) == {"n", "m"}
    source = "def inner(k):\n    nonlocal n\n    n += k\n    return n + m\n"
    code = verify.recompile(source, original)
    assert set(code.co_freevars) == {"n", "m"}
    assert verify.compare_code(original, code) == []
    # without the nonlocal the code differs (n becomes local)
    wrong = "def inner(k):\n    n = k\n    return n + m\n"
    assert verify.verify_source(wrong, original)


def test_recompile_nested_function_without_free_variables_keeps_nested_flag():
    original = code_named(
        "def outer():\n    def g(x):\n        return len(x)\n    return g\n", "outer.<locals>.g"
    )
    code = verify.recompile("def g(x):\n    return len(x)\n", original)
    assert verify.compare_code(original, code) == []


def test_recompile_method_with_class_cell():
    src = """
    class A(Base):
        def m(self, x):
            return super().m(x) + __class__.k
    """
    original = code_named(src, "A.m")
    assert "__class__" in original.co_freevars
    code = verify.recompile("def m(self, x):\n    return super().m(x) + __class__.k\n", original)
    assert verify.compare_code(original, code) == []


@pytest.mark.skipif(sys.version_info < (3, 11), reason="co_qualname exists on 3.11+")
def test_recompile_prefers_matching_qualname():
    src = """
    def g():
        return 1
    def f():
        def g():
            return 2
        return g
    """
    original = code_named(src, "f.<locals>.g")
    code = verify.recompile(textwrap.dedent(src), original)
    assert verify.compare_code(original, code) == []


def test_recompile_prefers_same_kind_of_code():
    src = """
    def f():
        def g(a):
            return a
        def g(a):
            yield a
        return g
    """
    original = code_named(src, "f.<locals>.g")  # the first one (a plain function)
    gen = [c for c in module_code(src).co_consts[0].co_consts if getattr(c, "co_name", "") == "g"][
        1
    ]
    code = verify.recompile("def g(a):\n    yield a\n", gen)
    assert verify.compare_code(gen, code) == []
    code = verify.recompile("def g(a):\n    return a\n\ndef g(a):\n    yield a\n", gen)
    assert verify.compare_code(gen, code) == []
    assert verify.compare_code(original, code)


def test_recompile_module_code():
    src = "import os\nX = [1, 2]\ndef f(a):\n    return os.path.join(a, *X)\n"
    original = module_code(src)
    code = verify.recompile(
        "\n\nimport os\nX = [1,\n     2]\n\ndef f(a):\n    return os.path.join(a, *X)\n", original
    )
    assert code.co_name == "<module>"
    assert verify.compare_code(original, code) == []
    other = verify.recompile(src.replace("*X", "X"), original)
    diffs = verify.compare_code(original, other)
    assert diffs and diffs[0].startswith("f: ")


def test_recompile_keeps_future_flags():
    src = "from __future__ import annotations\ndef outer():\n    x = 1\n    def f(a: int) -> x:\n        return x\n    return f\n"
    original = code_named(src, "outer")
    code = verify.recompile(
        "def outer():\n    x = 1\n    def f(a: int) -> x:\n        return x\n    return f\n",
        original,
    )
    assert verify.compare_code(original, code) == []


def test_verify_source_reports_syntax_and_lookup_errors():
    original = func("def f():\n    return 1\n")
    assert "SyntaxError" in verify.verify_source("def f(:\n", original)[0]
    assert "LookupError" in verify.verify_source("def g():\n    return 1\n", original)[0]
    assert verify.verify_source("def f():\n    return 1\n", original) == []


def test_exception_handling_compared():
    body_try = "def f(a):\n    try:\n        return a()\n    except ValueError:\n        return 0\n"
    body_try2 = (
        "def f(a):\n\n    try:\n        return a()\n\n    except ValueError:\n\n        return 0\n"
    )
    body_fin = "def f(a):\n    try:\n        return a()\n    finally:\n        print(0)\n"
    assert verify.compare_code(func(body_try), func(body_try2)) == []
    assert verify.compare_code(func(body_try), func(body_fin))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception tables exist on 3.11+")
def test_exception_table_normalized():
    code = func(
        "def f(a):\n    try:\n        return a()\n    except ValueError:\n        return 0\n"
    )
    norm = verify.normalize(code)
    assert norm.exception_table
    n = len(norm.instructions)
    for entry in norm.exception_table:
        assert 0 <= entry.start < entry.end <= n
        assert 0 <= entry.target < n
    # a handler depth difference is seen
    other = func(
        "def f(a):\n    try:\n        return a()\n    except (ValueError, TypeError):\n        return 0\n"
    )
    assert verify.compare_code(code, other)


def test_comprehensions_compared_recursively():
    a = func("def f(xs):\n    return [x for x in xs if x]\n")
    b = func("def f(xs):\n    return [x for x in xs if not x]\n")
    diffs = verify.compare_code(a, b)
    assert len(diffs) == 1
    if sys.version_info < (3, 12):
        assert diffs[0].startswith("f.<locals>.<listcomp>:")
    else:
        assert diffs[0].startswith("f:")


def test_method_flags_in_load_attr_and_load_global():
    a = func("def f(o):\n    return o.m()\n")
    b = func("def f(o):\n    return (o.m)()\n")
    c = func("def f(o):\n    g = o.m\n    return g()\n")
    assert verify.compare_code(a, c)
    assert verify.compare_code(b, c)


def test_class_body_line_number_ignored():
    src = "class A:\n    x = 1\n    def m(self):\n        return self.x\n"
    a = code_named(src, "A")
    b = code_named("\n\n" + src, "A")
    assert verify.compare_code(a, b) == []
    assert verify.compare_code(module_code(src), module_code("\n\n" + src)) == []


def test_qualnames_of_nested_definitions_follow_the_wrapper():
    src = """
    def outer():
        x = 1
        def inner():
            def g():
                return x
            class K:
                y = x
            return g, K
        return inner
    """
    original = code_named(src, "outer.<locals>.inner")
    source = (
        "def inner():\n    def g():\n        return x\n"
        "    class K:\n        y = x\n    return g, K\n"
    )
    assert verify.verify_source(source, original) == []
    renamed = source.replace("def g", "def h").replace("return g", "return h")
    assert verify.verify_source(renamed, original)


def test_method_nested_function_recompiled_at_top_level():
    src = "class A:\n    def m(self):\n        def g():\n            return 1\n        return g\n"
    original = code_named(src, "A.m")
    source = "def m(self):\n    def g():\n        return 1\n    return g\n"
    assert verify.verify_source(source, original) == []


def test_import_originated_globals_with_future_import_and_module():
    src = "from __future__ import annotations\nimport os\ndef f(a):\n    return os.getcwd(a)\n"
    original = code_named(src, "f")
    source = "from __future__ import annotations\ndef f(a):\n    return os.getcwd(a)\n"
    assert verify.verify_source(source, original) == []
    assert verify.verify_source(src, module_code(src)) == []
