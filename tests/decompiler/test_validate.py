"""The translation validator (pellucid.decompiler.validate) on hand-made pairs of functions.

Equivalent pairs differ the way a decompiled and tidied file differs from Dynamo's bytecode
(temporaries, list dances, method calls, inverted branches); each mutation changes what the
program does (argument order, a call dropped or moved, a constant, a branch, one list where
there were two, a try covering other operations) and must be caught.  What the validator does
not model must come back not-verified with a reason, never equivalent.  On 3.11, every Dynamo
fixture is validated against its own decompiled and tidied file.
"""

from __future__ import annotations

import collections
import glob
import marshal
import os
import sys
import textwrap

import pytest

from pellucid.decompiler.validate import EQUIVALENT, validate

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(HERE, "..", "fixtures", "dynamo", "*.marshal")))
PAIRS = os.path.join(HERE, "..", "fixtures", "dynamo_pairs")
EXCEPTION_TABLES = sys.version_info >= (3, 11)


def code_of(src: str, name: str = "f"):
    ns: dict = {}
    exec(compile(textwrap.dedent(src), "<pair>", "exec"), ns)
    return ns[name].__code__


EQUIVALENT_PAIRS = {
    "temporaries": (
        "def f(x):\n t = g(x)\n u = t\n return u.m(t)",
        "def f(x):\n return (t := g(x)).m(t)",
    ),
    "list_dance_is_a_call": (
        "def f(x, y):\n a = [x]\n b = a[0:1]\n b.extend([y])\n return g(*b)",
        "def f(x, y):\n return g(x, y)",
    ),
    "slice_assignment_and_delete": (
        "def f(x, y):\n a = []\n a[0:0] = [x, y]\n del a[-1]\n return g(*a)",
        "def f(x, y):\n return g(x)",
    ),
    "lists_of_lists": (
        "def f(x):\n a = [[], [x]]\n b = a[1]\n b.append(x)\n return g(*a)",
        "def f(x):\n return g([], [x, x])",
    ),
    "constant_tuple_is_a_built_tuple": (
        "def f(x):\n return g((1, 2), x)",
        "def f(x):\n t = 1\n return g((t, 2), x)",
    ),
    "method_call_is_an_attribute_call": (
        "def f(x):\n return x.m(1)",
        "def f(x):\n m = x.m\n return m(1)",
    ),
    "not_and_inverted_branch": (
        "def f(x):\n if not x:\n  return g(1)\n return g(2)",
        "def f(x):\n if x:\n  return g(2)\n return g(1)",
    ),
    "is_none_either_way": (
        "def f(x):\n if x is None:\n  return 1\n return g(x)",
        "def f(x):\n if x is not None:\n  return g(x)\n return 1",
    ),
    "keywords_spelled_two_ways": (
        "def f(x):\n return g(x, k=1, j=x)",
        "def f(x):\n return g(x, **{'j': x, 'k': 1})",
    ),
    "loop_over_an_iterable": (
        "def f(d, o):\n for k, v in d.items():\n  o.s(k, v)\n return o",
        "def f(d, o):\n it = d.items()\n for a, b in it:\n  o.s(a, b)\n return o",
    ),
    "loop_over_a_built_list": (
        "def f(x, y):\n for v in [x, y]:\n  g(v)\n return 0",
        "def f(x, y):\n g(x)\n g(y)\n return 0",
    ),
    "a_value_carried_around_a_loop": (
        "def f(d):\n n = 0\n for k in d:\n  n = n + k\n return n",
        "def f(d):\n n = 0\n for k in d:\n  t = n + k\n  n = t\n return n",
    ),
    "while_loop": (
        "def f(x):\n while x.m():\n  g()\n return 1",
        "def f(x):\n while x.m():\n  t = g()\n return 1",
    ),
    "stores_and_deletes": (
        "def f(x):\n x.a = 1\n x[0] = x.a\n del x.b\n return None",
        "def f(x):\n v = 1\n x.a = v\n t = x.a\n x[0] = t\n del x.b",
    ),
    "folded_constants": (
        "def f(x):\n return g(x, 2 * 3, -1)",
        "def f(x):\n return g(x, 6, -1)",
    ),
    "a_while_loop_in_a_loop_over_a_built_list": (
        "def f(x, y):\n for v in [x, y]:\n  i = 0\n  while c(i):\n   if i:\n    g(v)\n   i = 1\n"
        " return 0",
        "def f(x, y):\n for v in [x, y]:\n  i = 0\n  while c(i):\n   if i:\n    t = g\n    t(v)\n"
        "   i = 1\n return 0",
    ),
    "a_loop_over_an_iterable_in_a_loop_over_a_built_list": (
        "def f(x, y, d):\n for v in [x, y]:\n  for k in d:\n   g(v, k)\n return 0",
        "def f(x, y, d):\n for v in [x, y]:\n  for k in d:\n   t = g\n   t(v, k)\n return 0",
    ),
}

if EXCEPTION_TABLES:
    EQUIVALENT_PAIRS["try_finally_with_temporaries"] = (
        "def f(x):\n c = g(x)\n c.e()\n try:\n  r = h(x)\n finally:\n  c.q(None)\n return r",
        "def f(x):\n c = g(x)\n m = c.e\n m()\n try:\n  t = h(x)\n finally:\n  c.q(None)\n"
        " r = t\n return r",
    )
    # (which exception each clause handles, and restores, is followed: the bare raise raises
    # the outer one, ``x.d`` and ``g`` run with the one of their moment)
    EQUIVALENT_PAIRS["nested_except_clauses_and_a_bare_raise"] = (
        "def f(x):\n for k in x:\n  try:\n   x.a(k)\n  except E:\n   try:\n    x.b()\n"
        "   except F as e:\n    x.d(e)\n   x.c()\n   raise\n  except G:\n   continue\n"
        " with x.w():\n  x.q()\n return g()",
        "def f(x):\n for k in x:\n  try:\n   m = x.a\n   m(k)\n  except E:\n   try:\n"
        "    t = x.b\n    t()\n   except F as e:\n    x.d(e)\n   u = x.c\n   u()\n   raise\n"
        "  except G:\n   continue\n with x.w():\n  x.q()\n return g()",
    )
    EQUIVALENT_PAIRS["with_statement"] = (
        "def f(x):\n with g(x) as c:\n  h(c)\n return 1",
        "def f(x):\n with g(x) as d:\n  t = d\n  h(t)\n return 1",
    )


MUTATIONS = {
    "swapped_arguments": (
        "def f(x, y):\n return g(x, y)",
        "def f(x, y):\n return g(y, x)",
    ),
    "dropped_call": (
        "def f(x):\n h(x)\n return g(x)",
        "def f(x):\n return g(x)",
    ),
    "changed_constant": (
        "def f(x):\n return g(x, 1)",
        "def f(x):\n return g(x, 2)",
    ),
    "reordered_calls": (
        "def f(x):\n a = h(x)\n b = g(x)\n return k(a, b)",
        "def f(x):\n b = g(x)\n a = h(x)\n return k(a, b)",
    ),
    "wrong_branch": (
        "def f(x):\n if x:\n  return g(1)\n return g(2)",
        "def f(x):\n if x:\n  return g(2)\n return g(1)",
    ),
    "one_list_passed_twice_is_not_two_lists": (
        "def f(x):\n a = [x]\n return g(a, a)",
        "def f(x):\n return g([x], [x])",
    ),
    "one_function_passed_twice_is_not_two_functions": (
        "def f(x):\n h = lambda: x\n return g(h, h)",
        "def f(x):\n return g(lambda: x, lambda: x)",
    ),
    "a_list_changed_after_it_was_shared": (
        "def f(x):\n a = [x]\n b = a\n del b[-1]\n return g(a)",
        "def f(x):\n return g([x])",
    ),
    "dropped_attribute_store": (
        "def f(x):\n x.a = 1\n return g(x)",
        "def f(x):\n return g(x)",
    ),
    "a_global_read_after_a_call": (
        "def f(x):\n v = G\n h(x)\n return v",
        "def f(x):\n h(x)\n return G",
    ),
    "a_carried_value_computed_otherwise": (
        "def f(d):\n n = 0\n for k in d:\n  n = n + k\n return n",
        "def f(d):\n n = 0\n for k in d:\n  n = k + n\n return n",
    ),
    "a_carried_value_starting_elsewhere": (
        "def f(d):\n n = 0\n for k in d:\n  n = n + k\n return n",
        "def f(d):\n n = 1\n for k in d:\n  n = n + k\n return n",
    ),
    "a_while_body_changed": (
        "def f(x):\n while x.m():\n  g()\n return 1",
        "def f(x):\n while x.m():\n  g()\n  g()\n return 1",
    ),
    "keyword_renamed": (
        "def f(x):\n return g(k=x)",
        "def f(x):\n return g(j=x)",
    ),
    "different_return_value": (
        "def f(x):\n g(x)\n return x",
        "def f(x):\n return g(x)",
    ),
    "operator_changed": (
        "def f(x, y):\n return g(x + y)",
        "def f(x, y):\n return g(x - y)",
    ),
    "a_loop_body_changed": (
        "def f(d, o):\n for k in d:\n  o.s(k)\n return o",
        "def f(d, o):\n for k in d:\n  o.s(k)\n  o.t(k)\n return o",
    ),
    # (the inner loop's second iteration in the outer loop's second pass: g(y) against g(x);
    # a loop reached again after the path left it is entered again, not assumed proven)
    "a_while_loop_in_a_loop_over_a_built_list": (
        "def f(x, y):\n for v in [x, y]:\n  i = 0\n  while c(i):\n   if i:\n    g(v)\n   i = 1\n"
        " return 0",
        "def f(x, y):\n for v in [x, y]:\n  i = 0\n  while c(i):\n   if i:\n    g(x)\n   i = 1\n"
        " return 0",
    ),
    "a_loop_over_an_iterable_in_a_loop_over_a_built_list": (
        "def f(x, y, d):\n for v in [x, y]:\n  for k in d:\n   g(v, k)\n return 0",
        "def f(x, y, d):\n for v in [x, y]:\n  for k in d:\n   g(x, k)\n return 0",
    ),
    # (a local the body deletes, then binds: the delete succeeds, x.b(v) against x.b(x))
    "a_local_deleted_then_bound_in_a_loop": (
        "def f(x, v):\n while x.m():\n  del v\n  v = x.a()\n  x.b(v)\n return 0",
        "def f(x, v):\n while x.m():\n  del v\n  v = x.a()\n  x.b(x)\n return 0",
    ),
    # (a cell the loop binds is read in its next iteration: x.a(c) is not x.a(c0) from then)
    "a_cell_bound_in_a_loop_read_in_its_next_iteration": (
        "def f(x):\n c = 0\n h = lambda: c\n c0 = c\n while x.m():\n  x.a(c)\n  c = x.b()\n"
        " return h, c0",
        "def f(x):\n c = 0\n h = lambda: c\n c0 = c\n while x.m():\n  x.a(c0)\n  c = x.b()\n"
        " return h, c0",
    ),
}

if EXCEPTION_TABLES:
    MUTATIONS["try_covering_other_operations"] = (
        "def f(x):\n try:\n  a = h(x)\n  b = g(x)\n finally:\n  k()\n return b",
        "def f(x):\n a = h(x)\n try:\n  b = g(x)\n finally:\n  k()\n return b",
    )
    MUTATIONS["finally_dropped"] = (
        "def f(x):\n try:\n  return h(x)\n finally:\n  k()",
        "def f(x):\n r = h(x)\n k()\n return r",
    )
    # 3.12+ lay the except clause after the loop and jump back into its body: the value it
    # sets is carried to the next iteration (x.a(1) against x.a(0) after an exception)
    MUTATIONS["a_value_an_except_clause_sets_for_the_next_iteration"] = (
        "def f(x):\n v = 0\n while x.m():\n  try:\n   x.a(v)\n  except E:\n   v = 1\n  x.b()\n"
        " return v",
        "def f(x):\n v = 0\n while x.m():\n  try:\n   x.a(0)\n  except E:\n   v = 1\n  x.b()\n"
        " return v",
    )


NOT_MODELLED = {
    "generator": (
        "def f(x):\n yield x",
        "generator",
    ),
    "a_list_built_before_a_loop_changed_in_it": (
        "def f(x, d):\n a = [x]\n for k in d:\n  a.append(k)\n return g(a)",
        "loop",
    ),
}


@pytest.mark.parametrize("name", sorted(EQUIVALENT_PAIRS))
def test_equivalent_pairs_are_proven(name):
    a, b = EQUIVALENT_PAIRS[name]
    verdict = validate(code_of(a), code_of(b))
    assert str(verdict) == EQUIVALENT, verdict
    assert str(validate(code_of(b), code_of(a))) == EQUIVALENT


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutations_are_caught(name):
    a, b = MUTATIONS[name]
    verdict = validate(code_of(a), code_of(b))
    assert not verdict.equivalent
    assert str(verdict).startswith("not-verified: differs"), verdict
    assert str(validate(code_of(b), code_of(a))).startswith("not-verified: differs")


@pytest.mark.parametrize("name", sorted(NOT_MODELLED))
def test_what_is_not_modelled_is_not_verified_with_a_reason(name):
    src, word = NOT_MODELLED[name]
    verdict = validate(code_of(src), code_of(src))
    assert not verdict.equivalent
    assert word in verdict.reason, verdict


def test_a_code_object_is_equivalent_to_itself():
    code = code_of(EQUIVALENT_PAIRS["list_dance_is_a_call"][0])
    assert validate(code, code).equivalent


def test_a_tuple_subclass_constant_is_not_a_tuple():
    """A named tuple (torch.Size, in Dynamo's code) written as a tuple display is another
    value: the decompiler once did that, and the validator says so."""
    point = collections.namedtuple("point", "x y")
    code = code_of("def f(x):\n return g(x, (1, 2))")
    consts = tuple(point(1, 2) if c == (1, 2) else c for c in code.co_consts)
    assert not validate(code.replace(co_consts=consts), code).equivalent


def test_renamed_globals_and_named_constants_are_the_originals():
    """The file reads Dynamo's uuid-named globals by stable names, and live constants by names
    bound in the frame's globals: both stand for what the original reads."""
    marker = object()
    original = code_of("def f(x):\n return __compiled_fn_1_uuid(x, 1.5)")
    original = original.replace(co_consts=tuple(marker if c == 1.5 else c for c in original.co_consts))
    candidate = code_of("def f(x):\n return __compiled_fn_1(x, __c0)")
    aliases = {"__compiled_fn_1": "__compiled_fn_1_uuid"}
    assert validate(original, candidate, aliases, {"__c0": marker}).equivalent
    assert not validate(original, candidate, aliases, {"__c0": object()}).equivalent
    assert not validate(original, candidate, {}, {"__c0": marker}).equivalent


pytestmark_311 = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="fixtures are CPython 3.11 marshal data"
)


def _file_code(code):
    """Dynamo's code decompiled, tidied and compiled as prepare_debug does it."""
    from pellucid.dynamo import recompile

    return recompile.transformed_template(code, code, {}, "__c", "0/0", "__f", validate=False)


@pytestmark_311
@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.basename(p) for p in FIXTURES])
def test_dynamo_fixture_is_equivalent_to_its_file(path):
    with open(path, "rb") as f:
        code = marshal.load(f)
    made = _file_code(code)
    verdict = validate(code, made.checked, {}, made.consts)
    assert verdict.equivalent, verdict


@pytestmark_311
def test_a_fixture_against_a_mutated_file_is_caught():
    """The readme's resume frame against its own file with the graph's arguments swapped."""
    import ast

    from pellucid.dynamo import recompile

    path = [p for p in FIXTURES if "readme__torch_dynamo_resume" in p][0]
    with open(path, "rb") as f:
        code = marshal.load(f)
    made = _file_code(code)
    tree = ast.parse(made.source)
    call = next(
        n for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "").startswith("__compiled_fn_")
    )
    call.args.reverse()
    mutated = recompile.compile_checked(ast.unparse(tree), "<m>", "__f", code, code)
    assert not validate(code, mutated, {}, made.consts).equivalent


def _run_with_stubs(code, made_globals=()):
    """Run a with_branch_graph_break frame with stand-ins for Dynamo's globals, once per truth
    of the graph's branch value: the arguments each resume function received."""
    import types

    calls = []

    class Module:
        record_pregraph_bytecode_enter = staticmethod(lambda: 1)
        record_pregraph_bytecode_exit = staticmethod(lambda token: None)
        set_grad_enabled = "set_grad_enabled"

    for flag in (True, False):
        g = {"__import_torch_dot__dynamo_dot_utils": Module, "__import_torch": Module}
        g.update(made_globals)
        for n in code.co_names:
            if n.startswith("__compiled_fn"):
                g[n] = lambda x, flag=flag: (flag, "graph output")
            if n.startswith("__resume_at"):
                g[n] = lambda *a, n=n: calls.append((n, a))
        types.FunctionType(code, g)("x")
    return calls


@pytestmark_311
def test_a_shared_list_is_validated_as_it_behaves():
    """Dynamo's code for a graph break in an `if` inside `with` passes one list to the resume
    function after deleting its last item; a decompile that writes that list as a new display
    in the call passes another list.  The verdict says equivalent exactly when the file,
    run, passes what Dynamo's code passes."""
    with open(os.path.join(PAIRS, "with_branch_graph_break__shared_list_copied.marshal"), "rb") as f:
        code = marshal.load(f)
    made = _file_code(code)
    verdict = validate(code, made.checked, {}, made.consts)
    same = _run_with_stubs(code) == _run_with_stubs(made.checked, made.consts)
    assert verdict.equivalent == same, verdict


@pytestmark_311
def test_a_list_pushed_in_place_of_a_branchs_inputs_stays_one_list():
    """The decompiler once wrote that shared list as a display twice (the values a branch
    pushed below the stack it started from were never saved to temporaries): the file now
    passes what Dynamo's code passes, and is proven equivalent."""
    with open(os.path.join(PAIRS, "with_branch_graph_break__shared_list_copied.marshal"), "rb") as f:
        code = marshal.load(f)
    made = _file_code(code)
    assert _run_with_stubs(made.checked, made.consts) == _run_with_stubs(code)
    assert validate(code, made.checked, {}, made.consts).equivalent


PAIR_FIXTURES = sorted(glob.glob(os.path.join(PAIRS, "*.marshal")))


@pytestmark_311
@pytest.mark.parametrize("path", PAIR_FIXTURES, ids=[os.path.basename(p) for p in PAIR_FIXTURES])
def test_dynamo_code_the_decompiler_once_got_wrong_is_equivalent_to_its_file(path):
    """Frames whose files the validator once refused for a real difference: a list shared on
    the stack written as two displays; a free variable (whose cell code called in between may
    rebind) read after a call where Dynamo's code read it before."""
    with open(path, "rb") as f:
        code = marshal.load(f)
    made = _file_code(code)
    verdict = validate(code, made.checked, {}, made.consts)
    assert verdict.equivalent, verdict


# --------------------------------------------------------------- paths merged where they join


def _ifs_in_a_loop(n=20, body=None, cond=None, head="def f(xs, o, k):", before=(), after=" return o",
                   indent="  "):
    """A loop whose body is ``n`` sequential ifs (2**n paths through one iteration)."""
    body = body or (lambda j: f"o.g{j}(x, k)")
    cond = cond or (lambda j: f"x.a{j}")
    lines = [head, *before, indent[:-1] + "for x in xs:"]
    for j in range(n):
        lines += [f"{indent}if {cond(j)}:", f"{indent} {body(j)}"]
    lines.append(after)
    return code_of("\n".join(lines))


def _caught(a, b):
    verdict = validate(a, b)
    assert str(verdict).startswith("not-verified: differs"), verdict
    assert str(validate(b, a)).startswith("not-verified: differs")


def test_twenty_sequential_ifs_in_a_loop_are_proven_by_merging_paths():
    """Where the arms of an if join again, both programs' states are the same up to the names
    of results: the rest is compared once, so twenty ifs cost twenty, not a million paths."""
    import time

    a = _ifs_in_a_loop()
    b = _ifs_in_a_loop(body=lambda j: f"t = o.g{j}\n   t(x, k)")
    t0 = time.perf_counter()
    verdict = validate(a, b)
    assert verdict.equivalent, verdict
    assert verdict.paths <= 10  # (the loop's end, one iteration back to its head)
    assert time.perf_counter() - t0 < 10
    assert validate(b, a).equivalent


@pytest.mark.parametrize("mutation", ["swapped_arguments", "dropped_call", "wrong_branch"])
def test_a_mutation_in_the_fifteenth_of_twenty_ifs_is_caught(mutation):
    a = _ifs_in_a_loop()
    if mutation == "swapped_arguments":
        b = _ifs_in_a_loop(body=lambda j: f"o.g{j}(k, x)" if j == 14 else f"o.g{j}(x, k)")
    elif mutation == "dropped_call":
        b = _ifs_in_a_loop(body=lambda j: "pass" if j == 14 else f"o.g{j}(x, k)")
    else:
        b = _ifs_in_a_loop(cond=lambda j: f"not x.a{j}" if j == 14 else f"x.a{j}")
    _caught(a, b)


def test_values_set_in_the_arms_of_twenty_ifs_are_proven_and_a_wrong_one_caught():
    """Arms that rebind a local leave states that differ in its value: still merged (the value
    is a result either way), and a value computed otherwise in one arm is still a difference."""
    kw = dict(body=lambda j: f"y = y.g{j}(x)", head="def f(xs, o):", before=(" y = o",),
              after=" return y")
    a = _ifs_in_a_loop(**kw)
    b = _ifs_in_a_loop(**{**kw, "body": lambda j: f"t = y.g{j}\n   y = t(x)"})
    verdict = validate(a, b)
    assert verdict.equivalent and verdict.paths <= 10, verdict
    c = _ifs_in_a_loop(**{**kw, "body": lambda j: f"y = x.g{j}(y)" if j == 14 else f"y = y.g{j}(x)"})
    _caught(a, c)


def test_flags_tested_again_and_again_are_proven_and_a_flipped_test_caught():
    """Ten flags, each tested twice in a loop: the second test is decided by the first on each
    path, so states differ in what they know; merged with that forgotten, both outcomes of the
    second test are compared (a superset of the paths, in both programs)."""
    head = "def f(xs, o, " + ", ".join(f"c{j}" for j in range(10)) + "):"
    kw = dict(head=head, cond=lambda j: f"c{j % 10}")
    a = _ifs_in_a_loop(**kw)
    verdict = validate(a, _ifs_in_a_loop(**kw, body=lambda j: f"m = o.g{j}\n   m(x, k)"))
    assert verdict.equivalent and verdict.paths <= 10, verdict
    b = _ifs_in_a_loop(**{**kw, "cond": lambda j: "not c4" if j == 14 else f"c{j % 10}"})
    _caught(a, b)


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_twenty_ifs_in_a_loop_in_a_with_block_are_proven_and_a_mutation_caught():
    """In a with block every operation may raise into the exit handler, and a suppressed
    exception goes on after the block with the state of the moment it was raised."""
    kw = dict(before=(" with o.ctx():",), indent="   ", after=" return o")
    a = _ifs_in_a_loop(**kw)
    verdict = validate(a, _ifs_in_a_loop(**kw, body=lambda j: f"t = o.g{j}\n    t(x, k)"))
    assert verdict.equivalent, verdict
    _caught(a, _ifs_in_a_loop(**kw, body=lambda j: f"o.g{j}(k, x)" if j == 14 else f"o.g{j}(x, k)"))


def test_a_function_made_in_a_loop_is_not_the_one_made_before_it():
    """One function passed in every iteration is not a new one made in each."""
    _caught(
        code_of("def f(xs, o):\n h = lambda: o\n for x in xs:\n  o.s(h)\n return o"),
        code_of("def f(xs, o):\n for x in xs:\n  o.s(lambda: o)\n return o"),
    )


def test_a_function_made_only_to_read_its_closure_is_not_seen():
    """pellucid writes a cell object as ``(lambda: x).__closure__[0]``: that function is never
    seen by anything, so where it is made does not tell the functions the program does pass."""
    a = code_of("def f(x):\n c = (lambda: x).__closure__[0]\n h = lambda y: x + y\n return g(c, h)")
    b = code_of("def f(x):\n h = lambda y: x + y\n c = (lambda: x).__closure__[0]\n return g(c, h)")
    assert validate(a, b).equivalent
    assert validate(b, a).equivalent


# --------------------------------------------------------------- a loop entered in its body


_LOOP_ENTERED_IN_ITS_BODY = """\
def f(x, y):
    if x.p():
        y = x.c(y)
    while x.m():
        y = x.a(y)
        x.b(y)
    return y
"""


def _entered_in_its_body(src: str = _LOOP_ENTERED_IN_ITS_BODY, at: str = "        x.b(y)"):
    """``src`` with the ``if``'s jump past its arm retargeted into the loop body, at the line
    ``at``: the shape of a resume function, whose prologue jumps into the middle of a loop
    it then runs.  No source compiles to it: the else path runs the rest of a first iteration,
    then jumps back to a head it never passed (3.14's test block, older versions' body start)."""
    import dis

    code = code_of(src)
    ins = list(dis.get_instructions(code))
    jump = next(i for i in ins if i.opname.startswith("POP_JUMP") and "FALSE" in i.opname)
    line = code.co_firstlineno + src.splitlines().index(at)
    mid = next(i for i in ins if i.offset == min(o for o, n in dis.findlinestarts(code) if n == line))
    unit = 1 if sys.version_info < (3, 10) else 2  # (3.9 counts jumps in bytes)
    arg = jump.arg + (mid.offset - jump.argval) // unit
    assert jump.argval < mid.offset and arg < 256 and code.co_code[jump.offset] == jump.opcode
    raw = bytearray(code.co_code)
    raw[jump.offset + 1] = arg
    return code.replace(co_code=bytes(raw))


def _run_recorded(code):
    """What ``code`` does to an object whose ``m`` is true twice: the calls, in order."""
    import types

    seen = []

    class X:
        def __init__(self):
            self.left = 2

        def __getattr__(self, name):
            def call(*args):
                seen.append((name, args))
                if name == "m":
                    self.left -= 1
                    return self.left >= 0
                return len(seen) if name != "p" else False
            return call

    result = types.FunctionType(code, {})(X(), 0)
    return seen, result


def test_a_while_loop_entered_in_its_body_is_proven_and_a_mutation_caught():
    """The rest of a first iteration, then the loop from its head by induction: the same as
    source that writes that rest before the loop (3.14 tests a while loop at its top only,
    older versions test it at the bottom too and loop back to the body's start)."""
    a = _entered_in_its_body()
    b = code_of(
        "def f(x, y):\n if x.p():\n  y = x.c(y)\n else:\n  x.b(y)\n"
        " while x.m():\n  y = x.a(y)\n  x.b(y)\n return y"
    )
    assert _run_recorded(a) == _run_recorded(b)  # (the shape is what the source says)
    verdict = validate(a, b)
    assert verdict.equivalent, verdict
    assert validate(b, a).equivalent
    _caught(a, code_of(
        "def f(x, y):\n if x.p():\n  y = x.c(y)\n else:\n  x.b(y)\n"
        " while x.m():\n  y = x.a(y)\n  x.b(x)\n return y"
    ))
    _caught(a, code_of(
        "def f(x, y):\n if x.p():\n  y = x.c(y)\n"
        " while x.m():\n  y = x.a(y)\n  x.b(y)\n return y"
    ))


_NESTED_LOOP_ENTERED_IN_ITS_BODY = """\
def f(x, z):
    w = z
    if x.p():
        return x.c()
    while x.n():
        i = 0
        while x.m():
            if i:
                x.b(z)
            i = 1
        z = x.d(z)
    return z
"""


def _run_nested(code):
    """What ``code`` does to an object whose ``n`` is true twice and whose ``m`` is true twice
    after each call of ``n`` (and once before the first): the calls, in order."""
    import types

    seen = []

    class X:
        def __init__(self):
            self.n_left, self.m_left, self.made = 2, 2, 0

        def __getattr__(self, name):
            def call(*args):
                seen.append((name, args))
                if name == "p":
                    return False
                if name == "n":
                    self.n_left, self.m_left = self.n_left - 1, 2
                    return self.n_left >= 0
                if name == "m":
                    self.m_left -= 1
                    return self.m_left >= 0
                self.made += 1
                return ("made", self.made)
            return call

    result = types.FunctionType(code, {})(X(), "z")
    return seen, result


def test_an_inner_loop_entered_in_its_body_is_entered_again_when_the_outer_one_goes_round():
    """A resume function enters an inner while loop in its body, leaves it, and goes round
    the outer loop: the inner loop is reached again with other values (``z`` is the outer
    loop's now).  Its first proof assumed ``z`` was ``w``; reusing it there would miss
    ``x.b(z)`` against ``x.b(w)`` in the inner loop's second iteration of a later pass (it
    once did on 3.9 and 3.14+, whose paths reach the inner head before the outer one)."""
    src = _NESTED_LOOP_ENTERED_IN_ITS_BODY
    a = _entered_in_its_body(src, "            i = 1")
    b = _entered_in_its_body(src.replace("x.b(z)", "x.b(w)"), "            i = 1")
    assert _run_nested(a) != _run_nested(b)  # (they do differ when run)
    _caught(a, b)
    assert validate(a, _entered_in_its_body(src, "            i = 1")).equivalent


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_a_loop_is_the_code_on_its_cycles():
    """The locals a loop carries round are those bound on a cycle through its head, not in the
    range from its head to its last jump back: the except clause 3.12+ lay after the loops
    (``v = 1``) is in the inner loop, the code the outer loop runs after it (``u = ...``) is
    not."""
    from pellucid.decompiler.validate import _Executor

    code = code_of(
        "def f(x):\n v = 0\n while x.n():\n  while x.m():\n   try:\n    x.a(v)\n"
        "   except E:\n    v = 1\n  u = x.d()\n return v"
    )
    ex = _Executor(code, {}, {}, EXCEPTION_TABLES, {})
    store_u = next(i.index for i in ex.ins if i.op == "STORE_FAST" and i.argval == "u")
    store_v = [i.index for i in ex.ins if i.op == "STORE_FAST" and i.argval == "v"][-1]
    inner = [h for h in ex.loop_ends if store_u not in ex.region(h)]
    assert inner and any(store_u in ex.region(h) for h in ex.loop_ends)
    assert all(store_v in ex.region(h) for h in inner)


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_a_jump_back_that_closes_no_cycle_is_no_loop():
    """3.14 lays a with statement's suppressed path after the code that follows the statement
    and jumps back to that code: no loop (nothing there leads back to the jump), so no induction
    and no loop step in the path, whatever the other program's layout.  A while loop's head
    is one (and so is that code inside a loop: a cycle runs through it)."""
    from pellucid.decompiler.validate import _Executor

    def heads(src):
        return set(_Executor(code_of(src), {}, {}, EXCEPTION_TABLES, {}).loop_ends)

    assert heads("def f(x):\n with g(x):\n  h()\n k()\n return 1") == set()
    assert heads("def f(x):\n while x.m():\n  h()\n k()\n return 1")


# --------------------------------------------------------------- the exception being handled

# Run in a child interpreter: code that leaves an exception set (or an int in its place) would
# leave it set in the test process.  Prints what the function returned or raised, what ``g``
# saw as the exception being handled, and what is handled after the call.
_HANDLED_CHILD = r"""
import marshal, sys, types
handled = getattr(sys, "exception", None) or (lambda: sys.exc_info()[1])
class E(Exception): pass
class F(Exception): pass
class X:
    def a(self): raise E("a")
    def b(self): raise F("b")
    def c(self): return ValueError("c")
seen = []
g = lambda: seen.append(repr(handled()))
code = marshal.loads(sys.stdin.buffer.read())
try:
    out = repr(types.FunctionType(code, {"E": E, "F": F, "g": g})(X()))
except BaseException as e:
    out = "raised " + repr(e)
print(out, seen, repr(handled()))
"""


def _run_handled(code):
    """What ``code`` does in a child interpreter (exit status and output)."""
    import marshal
    import subprocess

    p = subprocess.run([sys.executable, "-c", _HANDLED_CHILD], input=marshal.dumps(code),
                       capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode()


def _with_opcodes(code, pick):
    """``code`` with instructions replaced in place: ``pick`` maps its instructions to
    {offset: (opname, arg)} (opcodes without inline caches, so the layout stays)."""
    import dis

    raw = bytearray(code.co_code)
    for offset, (op, arg) in pick(list(dis.get_instructions(code))).items():
        raw[offset], raw[offset + 1] = dis.opmap[op], arg
    return code.replace(co_code=bytes(raw))


def _with_exception_table(code, change):
    """``code`` with its exception table's entries, as [start, end, target, depth, lasti]
    lists in byte offsets, changed in place by ``change`` and encoded again."""
    import dis

    entries = [[e.start, e.end, e.target, e.depth, int(e.lasti)]
               for e in dis._parse_exception_table(code)]
    change(entries)

    def varint(value, first):
        chunks = [value & 63]
        while value >> 6:
            value >>= 6
            chunks.insert(0, value & 63)
        out = [c | 64 for c in chunks[:-1]] + [chunks[-1]]
        return [out[0] | 128] + out[1:] if first else out

    raw = []
    for start, end, target, depth, lasti in entries:
        raw += varint(start // 2, True) + varint((end - start) // 2, False)
        raw += varint(target // 2, False) + varint(depth << 1 | lasti, False)
    return code.replace(co_exceptiontable=bytes(raw))


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_an_except_clause_that_leaves_its_exception_set_is_caught():
    """``POP_TOP`` in place of the clause's ``POP_EXCEPT`` (the same stack effect): ``g`` runs,
    and the caller goes on, with the caught exception still being handled."""
    a = code_of("def f(x):\n try:\n  x.a()\n except E:\n  pass\n return g()")
    b = _with_opcodes(a, lambda ins: {
        next(i for i in ins if i.opname == "POP_EXCEPT").offset: ("POP_TOP", 0)})
    assert _run_handled(a) == (0, "None ['None'] None\n")
    assert _run_handled(b) == (0, "None [\"E('a')\"] E('a')\n")
    _caught(a, b)


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_a_bare_raise_after_an_inner_handler_restored_another_exception_is_caught():
    """The inner clause's ``POP_TOP; POP_EXCEPT`` swapped: ``POP_EXCEPT`` restores the inner
    exception instead of the outer one, and the bare ``raise`` raises it."""
    a = code_of(
        "def f(x):\n try:\n  x.a()\n except E:\n  try:\n   x.b()\n  except F:\n   pass\n  raise"
    )

    def swap(ins):
        k = next(k for k, i in enumerate(ins)
                 if i.opname == "POP_EXCEPT" and ins[k - 1].opname == "POP_TOP")
        return {ins[k - 1].offset: ("POP_EXCEPT", 0), ins[k].offset: ("POP_TOP", 0)}

    b = _with_opcodes(a, swap)
    assert _run_handled(a)[1].startswith("raised E('a')")
    assert _run_handled(b)[1].startswith("raised F('b')")
    _caught(a, b)


def test_a_pop_except_outside_any_handler_is_caught():
    """``POP_EXCEPT`` in place of a ``POP_TOP``: on 3.11+ the popped value (an exception
    ``x.c()`` returned) becomes the one being handled, and ``g`` sees it; on 3.9/3.10 it pops
    a block that is not there, and the interpreter aborts (refused: the block stack is not
    modelled)."""
    a = code_of("def f(x):\n x.c()\n return g()")
    b = _with_opcodes(a, lambda ins: {
        next(i for i in ins if i.opname == "POP_TOP").offset: ("POP_EXCEPT", 0)})
    assert _run_handled(a) != _run_handled(b)
    if EXCEPTION_TABLES:
        _caught(a, b)
    else:
        for verdict in (validate(a, b), validate(b, a)):
            assert "exception blocks" in verdict.reason, verdict


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_a_moved_lasti_flag_is_caught():
    """The try body's entry of a ``try``/``finally`` made to push the offset too: the cleanup
    handler's ``COPY 3`` then copies that offset, and ``POP_EXCEPT`` leaves an int as the
    exception being handled when the exception leaves the frame (3.14 crashes on it).  The
    offset is the raising instruction's, not a value two programs share: refused."""
    a = code_of("def f(x):\n try:\n  x.a()\n finally:\n  g()")

    def push_lasti(entries):
        entries[0][4] = 1

    b = _with_exception_table(a, push_lasti)
    assert _with_exception_table(a, lambda entries: None).co_exceptiontable == a.co_exceptiontable
    assert _run_handled(a) != _run_handled(b)
    # (the same moved flag in code with a local bound first: the offset left set is another)
    c = _with_exception_table(code_of("def f(x):\n try:\n  y = 1\n  x.a()\n finally:\n  g()"),
                              push_lasti)
    if sys.version_info < (3, 14):
        assert _run_handled(b) != _run_handled(c)
    for verdict in (validate(a, b), validate(b, a), validate(b, c)):
        assert "offset an exception table pushed" in verdict.reason, verdict


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_a_reraise_that_reads_no_offset_is_not_verified():
    """``RERAISE 1`` in place of the finally handler's ``RERAISE 0``: it reads the saved
    exception as the offset, which CPython 3.11-3.13 answer with a SystemError."""
    a = code_of("def f(x):\n try:\n  x.a()\n finally:\n  g()")
    b = _with_opcodes(a, lambda ins: {
        next(i for i in ins if i.opname == "RERAISE" and i.arg == 0).offset: ("RERAISE", 1)})
    if sys.version_info < (3, 14):
        assert _run_handled(b)[1].startswith("raised SystemError('lasti is not an int')")
    for verdict in (validate(a, b), validate(b, a)):
        assert "RERAISE" in verdict.reason, verdict


@pytest.mark.skipif(not EXCEPTION_TABLES, reason="exception tables (3.11+)")
def test_an_except_clause_in_a_loop_that_leaves_its_exception_set_is_not_verified():
    """The next iteration would run with the exception still being handled: not the state
    the induction assumed at the loop's head (or a difference found first)."""
    a = code_of("def f(x):\n while x.m():\n  try:\n   x.a()\n  except E:\n   pass\n return 1")
    b = _with_opcodes(a, lambda ins: {
        next(i for i in ins if i.opname == "POP_EXCEPT").offset: ("POP_TOP", 0)})
    for verdict in (validate(a, b), validate(b, a)):
        assert not verdict.equivalent
        assert "differs" in verdict.reason or "being handled" in verdict.reason, verdict


# --------------------------------------------------------------- malformed stacks

def _malformed_stack_pairs():
    """(well-formed, malformed) code pairs whose malformed side reads deeper than its stack:
    a copy or rotation on an empty stack, a tuple built of more values than the stack holds,
    and (3.11+) an except clause's cleanup ``COPY 3`` entered with only the exception there."""
    shuffle = ("COPY", 3) if EXCEPTION_TABLES else ("ROT_THREE", 0)
    plain = code_of("def f(x):\n return x")
    yield plain, _with_opcodes(plain, lambda ins: {
        next(i for i in ins if i.opname.startswith("LOAD_FAST")).offset: shuffle})
    pair = code_of("def f(x):\n return (x, x)")
    yield code_of("def f(x):\n return (x,)"), _with_opcodes(pair, lambda ins: {
        next(i for i in ins if i.opname == "BUILD_TUPLE").offset: ("BUILD_TUPLE", 3)})
    if EXCEPTION_TABLES:
        handled = code_of("def f(x):\n try:\n  x.a()\n except E:\n  g()")
        import dis

        copy = next(i.offset for i in dis.get_instructions(handled)
                    if i.opname == "COPY" and i.arg == 3)

        def shallow_cleanup(entries):
            for e in entries:
                if e[2] == copy:
                    e[3], e[4] = 0, 0

        yield handled, _with_exception_table(handled, shallow_cleanup)


@pytest.mark.parametrize("k", range(3 if EXCEPTION_TABLES else 2))
def test_a_stack_too_shallow_for_an_instruction_is_not_verified(k):
    """An instruction that reads deeper than the stack (code no compiler makes) is code the
    validator cannot follow: not-verified with the instruction named, never an exception, and
    never a quietly shorter read (the tuple of three built over two values is no ``(x,)``)."""
    good, bad = list(_malformed_stack_pairs())[k]
    for verdict in (validate(good, bad), validate(bad, good), validate(bad, bad)):
        assert not verdict.equivalent
        assert verdict.reason.startswith("the validator could not follow"), verdict
