"""Assignment chains, tuple targets with starred names, walrus, annotated assignment, del."""

from . import cases, lazy
from ._helpers import Obj

CONSTRUCT = "statements"


@cases((1,), ([1],))
def asg_chain(x):
    a = b = c = x
    return a, b, c, a is b is c


@cases(lazy(lambda: (Obj(), [0, 0], {})))
def asg_chain_mixed_targets(o, lst, d):
    o.attr = lst[0] = d["k"] = name = len(d) + 7
    return o, lst, d, name


@cases(lazy(lambda: ({}, [0, 0])))
def asg_chain_targets_built_by_calls(d, lst):
    # ast.__getattr__: `globals()[name] = value = x`, a call inside a target of the chain
    get = d.setdefault
    get("k", {})["a"] = v = len(lst) + 1
    d.setdefault("m", {})["b"] = w = max(lst, key=abs)
    return d, v, w


@cases(
    ((1, 2, 3),),
)
def asg_chain_with_unpack(seq):
    a, *b = c = x, y, z = seq
    return a, b, c, x, y, z


@cases(([(1, 2), (3, 4, 5)],), ([(0, 0), (9,)],))
def asg_chain_unpack_first_of_subscript(rows):
    # heapq.merge: `value, order, next = s = h[0]`, an unpacking first and a value that is
    # no name (evaluated once, no temporary)
    a, b = s = rows[0]
    x, *y = t = rows[-1]
    return a, b, s, x, y, t


@cases(((1, 2, 3, 4, 5),), ("ab",))
def asg_starred_targets(seq):
    *a, b = seq
    c, *d = seq
    e, *f, g = seq
    [h, *i] = seq
    (j, *k), l = seq, seq[0]
    return a, b, c, d, e, f, g, h, i, j, k, l


@cases(lazy(lambda: (Obj(), [0, 0, 0])))
def asg_starred_into_attrs(o, lst):
    o.first, *o.rest = range(4)
    lst[0], *lst[1:] = "abc"
    return o, lst


@cases(((1, 2), (3, 4)), ("ab", "cd"))
def asg_parallel_nested_targets(pair_a, pair_b):
    # both values are pushed, then each is unpacked (difflib.HtmlDiff._line_wrapper)
    (a, b), (c, d) = pair_a, pair_b
    return a, b, c, d


@cases((1, (2, 3, 4), 5), (0, "xyz", None))
def asg_parallel_starred_middle(x, seq, w):
    p, (q, *r), s = x, seq, w
    return p, q, r, s


@cases(
    ((1, 2),),
)
def asg_nested_parens(seq):
    ((a, b),) = [seq]
    [[c], d] = [[1], 2]
    return a, b, c, d


@cases((5,), (0,), (-3,))
def asg_walrus_if(n):
    if (m := n * 2) > 4:
        return m
    return -m


@cases(([1, 2, 3, 0, 4],), ([],))
def asg_walrus_while(items):
    it = iter(items)
    out = []
    while (v := next(it, None)) is not None and v:
        out.append(v)
    return out, v


@cases(
    ([1, 2, 3, 4, 5],),
)
def asg_walrus_comprehension(xs):
    ys = [y for x in xs if (y := x * x) > 4]
    total = 0
    zs = [(total := total + x) for x in xs]
    return ys, zs, total, y


@cases((3,), (0,))
def asg_walrus_value(n):
    a = (b := n + 1) * 2
    c = [d := 5, d * 2]
    print(e := "printed")
    return a, b, c, d, e


@cases((1,), (-2,))
def asg_walrus_nested(n):
    # one value bound to two names inside an expression (Dynamo writes these)
    print((c := (b := (a := n + 1))))
    return (b := (a := abs(n))) + a + b + c


@cases((1, 2), (0, 5))
def asg_walrus_in_boolop(a, b):
    if (x := a) and (y := b):
        return x, y
    return x


@cases(
    (1,),
)
def asg_annotated_locals(x):
    y: int = x + 1
    z: "forward" = y * 2  # noqa: F821
    w: list
    return y, z


@cases((1,), (2,))
def asg_del_name(x):
    y = x * 2
    del y
    z = x
    del x, z
    try_again = 5
    return try_again


@cases(
    (1,),
)
def asg_del_then_use(x):
    y = x
    del y
    return y  # noqa: F821  (UnboundLocalError is the behaviour)


@cases(lazy(lambda: (Obj(a=1, b=2), [1, 2, 3, 4], {"k": 1})))
def asg_del_mixed(o, lst, d):
    del o.a, lst[0], d["k"], lst[1:2]
    return o, lst, d


@cases(
    (1, 2),
)
def asg_reassign_param(a, b):
    a = a + b
    b = a - b
    a = a - b
    return a, b


@cases(
    (1,),
)
def asg_unused_values(x):
    x + 1
    x.bit_length()
    [x]
    x
    return None


@cases(
    (3,),
)
def asg_loop_targets(n):
    d = {}
    lst = [0] * n
    o = Obj()
    for d["k"] in range(n):
        pass
    for lst[0], o.v in [(1, 2), (3, 4)]:
        pass
    for i, *rest in [(1, 2, 3)]:
        pass
    return d, lst, o, i, rest


@cases(
    ((1, 2, 3),),
)
def asg_unpack_iterator_exhaustion(seq):
    it = iter(seq)
    a, b = next(it), next(it)
    (c,) = it
    return a, b, c


@cases(
    (7,),
)
def asg_many_locals(x):
    a0 = x
    a1 = a0 + 1
    a2 = a1 + 1
    a3 = a2 + 1
    a4 = a3 + 1
    a5 = a4 + 1
    a6 = a5 + 1
    a7 = a6 + 1
    a8 = a7 + 1
    a9 = a8 + 1
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9


@cases(([(1, 2, 3, 4, 5), (6, 7, 8, 9, 10)],))
def asg_unpack_repeated_underscore(rows):
    # 3.13 drops the stores a later one to the same name overwrites
    out = []
    for a, _, _, _, b in rows:
        out.append((a, b))
    c, _, _ = rows[0][:3]
    return out, c, _


@cases((0,), (3,))
def asg_walrus_chain_of_constant(n):
    # a constant's walrus chain: the statement discards the value, not the names
    (v := (x := 1))
    (w := (y := None))
    (f := (lambda: n))
    return n + v + x, w, y, f()


class _LoggedDict(dict):
    """A mapping that logs each read: a place read twice shows in the log."""

    def __getitem__(self, key):
        self.log.append(("get", key))
        return dict.__getitem__(self, key)


@cases(([], True), ([], False))
def asg_augmented_place_read_once(log, t):
    # 3.12+ inline the comprehension, whose clean-up makes a branch inside the value: the key
    # and the place read before it are saved, and each is evaluated once
    d = _LoggedDict({1: [0]})
    d.log = log

    def key(n):
        log.append(("key", n))
        return n

    d[key(1)] += [9] if t else [q for q in range(2)]
    return dict(d)


@cases((1, 1), (0, 1), (1, 0), ([], "k"))
def asg_chained_ternary_with_and_arm(a, kw):
    # 3.12+ copy the stores and the return onto the end of the first arm: its and/or still
    # jumps to the second arm's copy
    y = x = a and True if kw else 1
    return x, y  # noqa: RET504
