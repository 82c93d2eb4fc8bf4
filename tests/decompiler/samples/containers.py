"""Container displays, unpacking, `*`/`**` in calls and literals, keyword arguments."""

from . import call, cases, lazy

CONSTRUCT = "expressions"


def show(*args, **kwargs):
    return args, kwargs


def kw_only_target(a, b=2, *, c, d=4):
    return a, b, c, d


@cases((1, 2), ("x", None))
def cont_displays(a, b):
    return [a, b], (a, b), {a, b} if a != b else {a}, {a: b, "k": a}, [[a], (b,)]


@cases((1, 2), (3, 4))
def cont_variable_displays(a, b):
    t = (a, b, a + b)
    lst = [a, [b, [a + b]]]
    st = {a, b, 99}
    dct = {"a": a, "b": b, a: [b], (a, b): {b: a}}
    return t, lst, sorted(st), dct


@cases(
    ([1, 2], (3,), "ab"),
)
def cont_star_in_list(a, b, c):
    return [*a, *b], [0, *a, 9, *c], [*a], (*a, *b), (*c,), {*a, *c} == set(a) | set(c)


@cases(
    ({"a": 1}, {"b": 2, "a": 3}),
)
def cont_star_star_in_dict(d1, d2):
    return {**d1, **d2}, {"z": 0, **d1, "y": 1, **d2}, {**d1}, {**d1, "a": 9}


@cases(
    ([1, 2, 3], {"x": 1}),
)
def cont_star_in_call(args, kwargs):
    return (
        show(*args),
        show(0, *args),
        show(*args, 4),
        show(*args, *args),
        show(**kwargs),
        show(a=1, **kwargs),
        show(*args, **kwargs),
        show(0, *args, k=2, **kwargs),
        show(*args, k=2, *args),
        show(**kwargs, **{"y": 2}),
    )


@cases(
    (1, 2),
)
def cont_keyword_args(a, b):
    return (
        show(a=a),
        show(a, b=b),
        show(a, b, c=1, d=2),
        kw_only_target(a, c=b),
        kw_only_target(a=1, c=2, d=3),
        dict(x=1, y=a),
        sorted([3, 1, 2], key=None, reverse=True),
    )


@cases(
    (1, 2, 3),
)
def cont_method_calls(a, b, c):
    s = "a,b,c"
    lst = [a, b]
    lst.append(c)
    lst.extend([a, b])
    return s.split(","), s.upper().lower(), lst, lst.count(a), "-".join(map(str, lst))


@cases(((1, 2),), ([3, 4],), ("ab",), lazy(lambda: (iter([5, 6]),)))
def cont_unpack_pair(seq):
    a, b = seq
    return a, b


@cases(((1, 2, 3, 4),), ([1, 2],), ("abcdef",))
def cont_unpack_star(seq):
    first, *rest = seq
    *init, last = seq
    a, *mid, z = seq
    return first, rest, init, last, a, mid, z


@cases(((1, (2, 3), [4, 5, 6]),))
def cont_unpack_nested(seq):
    a, (b, c), [d, *e] = seq
    return a, b, c, d, e


@cases(((1, 2),), ((1, 2, 3),), ((1,),))
def cont_unpack_errors(seq):
    a, b = seq
    return a + b


@cases(
    (1, 2),
)
def cont_swap(a, b):
    a, b = b, a
    a, b, c = b, a, a + b
    x, y, z, w = a, b, c, a
    return a, b, c, x, y, z, w


@cases(
    ([1, 2, 3],),
)
def cont_unpack_in_for(pairs):
    out = []
    for i, (x, y) in enumerate(zip(pairs, pairs[1:])):
        out.append((i, x, y))
    for a, *b in [(1, 2, 3), (4,)]:
        out.append((a, b))
    return out


@cases(
    (3,),
)
def cont_builtin_constructors(n):
    return list(range(n)), tuple("abc"), set([1, 1, 2]), dict([(1, 2)]), frozenset({n})


@cases(
    ({"a": 1, "b": 2},),
)
def cont_dict_methods(d):
    d = dict(d)
    d.setdefault("c", 3)
    d.update(a=10)
    return sorted(d.items()), d.get("zz", "default"), d.pop("b"), list(d.keys())


@cases((1,), (2,))
def cont_many_elements(x):
    return [
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
        x,
    ]


@cases(
    (1,),
)
def cont_big_dict(x):
    return {
        "a": x, "b": x + 1, "c": x + 2, "d": x + 3, "e": x + 4, "f": x + 5, "g": x + 6, "h": x + 7,
        "i": x + 8, "j": x + 9, "k": x + 10, "l": x + 11, "m": x + 12, "n": x + 13, "o": x + 14,
        "p": x + 15, "q": x + 16, "r": x + 17,
    }  # fmt: skip


@cases(
    (1,),
)
def cont_big_const_dict(x):
    return {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10,
            "k": 11, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 17, "r": 18, "s": x}  # fmt: skip


@cases(
    (1, 2),
)
def cont_list_with_star_tail(a, b):
    rest = [b, b]
    return [a, *rest, a], (a, *rest), {a: b, **{b: a}}


@cases(
    ((1, 2, 3),),
)
def cont_call_with_generator_arg(seq):
    return sum(x * 2 for x in seq), max(seq, default=0), min(x for x in seq if x > 1)


@cases(
    (1,),
)
def cont_nested_calls(x):
    return str(int(float(str(x)))), show(show(x), k=show(y=x))


STAR_ARGS = (3, 1, 2)


@cases(
    (0,),
)
def cont_star_of_a_global_in_call(n):
    # 3.15 pushes the call's missing mapping with the global's NULL bit
    return max(*STAR_ARGS), show(*STAR_ARGS), min(n, *STAR_ARGS)
