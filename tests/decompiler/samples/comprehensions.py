"""List/set/dict comprehensions and generator expressions: nested, several for/if, closures."""

from . import cases

CONSTRUCT = "comprehensions"

FACTOR = 3


@cases((5,), (0,))
def comp_list(n):
    return [i * 2 for i in range(n)]


@cases(
    (5,),
)
def comp_set(n):
    return sorted({i % 3 for i in range(n)})


@cases(
    (5,),
)
def comp_dict(n):
    return {i: i * i for i in range(n)}, {str(k): v for k, v in zip("abc", range(n))}


@cases(
    (5,),
)
def comp_genexp(n):
    g = (i + 1 for i in range(n))
    return list(g), sum(x for x in range(n)), tuple(x for x in "ab")


@cases(
    (4,),
)
def comp_conditions(n):
    return (
        [i for i in range(n) if i % 2],
        [i for i in range(n) if i if i != 3],
        [i if i % 2 else -i for i in range(n)],
        [i for i in range(n) if i > 0 and i < 3 or i == n - 1],
        [i for i in range(n) if not i],
    )


@cases(
    (3,),
)
def comp_several_fors(n):
    return (
        [(i, j) for i in range(n) for j in range(i)],
        [(i, j, k) for i in range(n) if i for j in range(n) if j != i for k in "ab"],
        {(i, j): i * j for i in range(n) for j in range(n) if i < j},
    )


@cases(
    (3,),
)
def comp_nested(n):
    return (
        [[j for j in range(i)] for i in range(n)],
        [[(i, j) for j in range(n) if j > i] for i in range(n)],
        {i: {j for j in range(i)} for i in range(n)},
        [x for row in [[i] * i for i in range(n)] for x in row],
    )


@cases(
    (3,),
)
def comp_closure_over_local(n):
    k = n * 10
    return [i + k for i in range(n)], {i: k for i in range(n)}, list(i * k for i in range(n))


@cases(
    (3,),
)
def comp_closure_over_global(n):
    return [i * FACTOR for i in range(n)]


@cases(
    (3,),
)
def comp_lambda_in_comprehension(n):
    fs = [lambda x, i=i: x + i for i in range(n)]
    gs = [lambda: i for i in range(n)]
    return [f(10) for f in fs], [g() for g in gs]


@cases(
    (3,),
)
def comp_cell_from_comprehension_var(n):
    out = [(lambda: i) for i in range(n)]
    k = 5
    inner = [(lambda: k + j)() for j in range(n)]
    return [f() for f in out], inner


@cases(
    (4,),
)
def comp_walrus_leak(n):
    found = [y for i in range(n) if (y := i * 2) > 2]
    return found, y


@cases(
    (3,),
)
def comp_variable_does_not_leak(n):
    i = "outer"
    lst = [i for i in range(n)]
    return i, lst


@cases(
    (3,),
)
def comp_iterable_evaluated_outside(n):
    calls = []

    def src():
        calls.append("src")
        return range(n)

    lst = [x for x in src() for _ in [0]]
    return lst, calls


@cases(
    ([1, 0, 3],),
    ([],),
)
def comp_one_element_clauses(xs):
    # 3.14+ compile `for t in [v]` / `for t in (v,)` as an assignment inside the loop
    return (
        [(x, y, z) for x in xs for y, z in [(x, x + 1)] if y for w in (x,)],
        {k: v for k in xs for v in [k * 2] if v},
        list(a + b for a in xs for b in [a]),
        {s for s in xs for _ in [0] for t in [s, s]},
    )


@cases(
    ([1, 2, 3],),
)
def comp_tuple_targets(xs):
    pairs = list(zip(xs, xs[1:]))
    return [a + b for a, b in pairs], [a for a, *rest in [(1, 2, 3)]], {a: b for (a, b) in pairs}


@cases(
    (3,),
)
def comp_genexp_lazy(n):
    log = []
    g = (log.append(i) or i for i in range(n))
    first = next(g)
    return first, log, list(g), log


@cases(
    (3,),
)
def comp_genexp_as_sole_argument(n):
    return sum(i for i in range(n)), "".join(str(i) for i in range(n)), any(i > 1 for i in range(n))


@cases(
    (3,),
)
def comp_in_default_argument(n):
    def f(x=[i for i in range(n)]):
        return x

    return f()


@cases(
    (2,),
)
def comp_nested_genexp(n):
    return [list(x for x in range(i)) for i in range(n + 1)], sum(
        sum(j for j in range(i)) for i in range(n + 2)
    )


@cases(
    (3,),
)
def comp_uses_outer_argument_in_condition(n):
    return [i for i in range(10) if i % n == 0], {i for i in range(10) if i > n}


@cases(
    (3,),
)
def comp_exception_inside(n):
    return [10 // (i - 1) for i in range(n)]


@cases((3,), construct="classes")  # needs class bodies (issue 4)
def comp_in_class_body_via_function(n):
    def build():
        class Holder:
            size = n
            values = [i * 2 for i in range(3)]

        return Holder.values, Holder.size

    return build()


@cases(
    (3,),
)
def comp_conditional_result(n):
    return ["even" if i % 2 == 0 else "odd" for i in range(n)], {i: (i or None) for i in range(n)}


@cases(
    (2,),
)
def comp_dict_with_unpacking(n):
    base = {"a": 1}
    return [{**base, "i": i} for i in range(n)], [[*range(i), -1] for i in range(n)]


@cases(
    (3,),
)
def comp_nonlocal_inside(n):
    total = 0

    def add(x):
        nonlocal total
        total += x
        return total

    return [add(i) for i in range(n)], total


@cases(
    (4,),
)
def comp_shadowing_parameter(n):
    return [n for n in range(n)], n


@cases(
    (3,),
)
def comp_comprehension_in_loop(n):
    out = []
    for i in range(n):
        out.append([j for j in range(i) if j != i - 1])
        if i == 1:
            continue
        out.append({j: i for j in range(2)})
    return out


@cases((3,), (1,))
def comp_result_used_in_condition(n):
    if [i for i in range(n) if i > 1]:
        return "some"
    return "none"


@cases(
    (3,),
)
def comp_multiple_in_one_expression(n):
    return [i for i in range(n)] + [j * 2 for j in range(n)], len({i for i in range(n)} | {9})


@cases(
    (3,),
)
def comp_inlined_shadows_cell(n):
    x = "outer"
    get = lambda: x  # noqa: E731
    r = [x for x in range(n)]
    return r, get(), x


@cases(
    (3,),
)
def comp_inlined_loop_var_is_cell(n):
    fs = [lambda: i * 2 for i in range(n)]
    i = "after"
    return [f() for f in fs], i


@cases(
    (2,),
)
def comp_nested_closure_chain(n):
    return [[(lambda: (i, j))() for j in range(i)] for i in range(n + 1)]


@cases(
    (4,),
)
def comp_in_lambda_in_comprehension(n):
    fs = [lambda k=k: [k * m for m in range(k)] for k in range(n)]
    return [f() for f in fs]


@cases(([1, 2, 3],), ([],), ([0, 2],))
def comp_builtin_reductions_of_generators(xs):
    # 3.14+ inline all/any/tuple of a generator expression behind a check that the name is the
    # builtin
    return all(x > 0 for x in xs), any(x > 1 for x in xs), tuple(x * 2 for x in xs)


@cases(([1, 2, 3],), ([],))
def comp_shadowed_reduction_of_generator(xs):
    def all(it):  # noqa: A001 - the inlined form must not run for this one
        return sorted(it)

    return all(-x for x in xs)


@cases(([1, 2], "ab"), ([], "xyz"))
def comp_false_constant_filter(xs, ys):
    # a filter that is a false constant: 3.10+ drop the element, which is dead code
    return (
        [x * 2 for x in xs if 0],
        {x: y for x in xs for y in ys if ""},
        {x for x in xs if None},
        list(x for x in xs if False),
        [y for x in xs if x for y in ys if 0],
    )


@cases(([1, 0, 2], 5), ([], 0))
def comp_filter_true_after_its_test(xs, n):
    # `q or 2` is true once `q` ran: 3.9 keeps the test, jumping where it falls through
    seen = []
    return [x * n for x in xs if seen.append(x) or 2], {x for x in xs if not x or 1 if x != n}, seen


@cases(([[1, 2], [3]], 2), ([], 0))
def comp_inside_nested_loops(rows, k):
    # a comprehension's append reaches its result under every loop it runs in (3.15: each
    # iterator takes two stack values)
    out = []
    for row in rows:
        for x in row:
            out.append([x * y for y in row for _ in range(k)])
            out.append({y: x for y in row})
            out.append({x + y for y in row if y})
    return out


@cases(([1, 2, 3], True), ([4], False))
def comp_iterable_is_a_conditional(xs, flag):
    # the iterable's arms both jump to where the iterator is made
    return [x * 2 for x in (xs if flag else xs[::-1])], list(x for x in (xs if flag else ()))


@cases(([1, 2, 3], 2), ([], 5))
def comp_generator_closures(xs, n):
    # generator expressions over closures and conditional iterables, passed among arguments
    scale = n + 1
    return (
        sum(x * scale for x in xs),
        max((x - n for x in xs), default=None),
        sorted((x for x in (xs if n else xs[:1])), reverse=True),
    )


@cases(([[1, 2], [3, 4]], 3), ([[5, 1], [2]], 3), ([], 1))
def comp_return_and_break_from_nested_loops(rows, stop):
    # a return or a break leaves each iterator it is inside behind
    for row in rows:
        for x in row:
            if x == stop:
                return [x, row]
            if x > stop:
                break
    return None


@cases(([0, 1, 2, "", "a"], 1), ([3, 0], 0))
def comp_conditional_filters(c, k):
    # a filter laid out as jumps to the next element: conditional expressions and and/or
    a = [q for q in c if (q if q else "")]
    b = [q for q in c if (1 if k else 0)]
    d = {q: k for q in c if (q if k else False)}
    e = list(q for q in c if (True if q else k))
    g = [q for q in c if (q if k else q == 0)]
    return a, b, d, e, g
