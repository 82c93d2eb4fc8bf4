"""Attribute, subscript and slice load/store/delete, extended slices, augmented assignment."""

from . import cases, lazy
from ._helpers import Obj, Recorder

CONSTRUCT = "expressions"


@cases(lazy(lambda: (Obj(a=1, b=Obj(c=2)),)))
def acc_attr_load(o):
    return o.a, o.b.c, o.b, getattr(o, "a")


@cases(lazy(lambda: (Obj(a=1, b=Obj(c=2)),)))
def acc_attr_store(o):
    o.a = 10
    o.b.c = 20
    o.new = o.a + o.b.c
    o.b.d = o.a
    return o.new


@cases(lazy(lambda: (Obj(a=1, b=Obj(c=2)),)), lazy(lambda: (Obj(),)))
def acc_attr_delete(o):
    del o.a
    del o.b.c
    return vars(o)


@cases(lazy(lambda: (Obj(a=1, b=Obj(c=2)),)))
def acc_attr_augassign(o):
    o.a += 5
    o.b.c *= 3
    o.a -= 1
    o.b.c //= 2
    o.a **= 2
    o.a %= 7
    o.a <<= 2
    o.a >>= 1
    o.a |= 8
    o.a &= 12
    o.a ^= 5
    return o.a, o.b.c


@cases(
    ([1, 2, 3], {"k": 1}),
)
def acc_subscript_load(lst, d):
    return lst[0], lst[-1], d["k"], lst[len(lst) - 1], [lst][0][1], d.get("k")


@cases(
    ([1, 2, 3], {"k": 1}),
)
def acc_subscript_store(lst, d):
    lst[0] = 9
    lst[-1] = lst[0] + 1
    d["k"] = d["k"] * 10
    d["new"] = lst
    d[1, 2] = "tuple key"
    return lst, d


@cases(
    ([1, 2, 3, 4], {"k": 1, "j": 2}),
)
def acc_subscript_delete(lst, d):
    del lst[0]
    del d["k"]
    del lst[-1], d["j"]
    return lst, d


@cases(
    ([1, 2, 3], {"k": 1}),
)
def acc_subscript_augassign(lst, d):
    lst[0] += 10
    lst[-1] *= 2
    d["k"] -= 5
    d["k"] **= 2
    lst[lst[0] % 3] += 100
    return lst, d


@cases((list(range(10)),), ("abcdefgh",), ((1, 2, 3),))
def acc_slice_load(s):
    return s[1:3], s[:2], s[3:], s[:], s[::2], s[1::3], s[:5:2], s[::-1], s[-3:-1], s[1:-1:2]


@cases(
    (list(range(10)), 2, 5),
)
def acc_slice_variable(s, i, j):
    return s[i:j], s[i:], s[:j], s[i:j:i], s[j:i:-1], s[i : j + 1], s[-i:]


@cases(
    (list(range(10)),),
)
def acc_slice_store(s):
    s[1:3] = ["a", "b", "c"]
    s[:1] = []
    s[::2] = [0] * len(s[::2])
    s[-2:] = "xy"
    return s


@cases(
    (list(range(10)),),
)
def acc_slice_delete(s):
    del s[1:3]
    del s[::3]
    del s[-1:]
    del s[:]
    return s


@cases(
    (list(range(10)),),
)
def acc_slice_augassign(s):
    s[1:3] += [99]
    s[:2] *= 2
    return s


@cases(lazy(lambda: (Recorder(),)))
def acc_extended_slices(r):
    a = r[1:2, 3]
    b = r[::2, ...]
    c = r[..., 1]
    d = r[1:2, ::3, ...]
    r[1:2, 3:4] = 5
    r[:, None] = 6
    del r[::1, 2]
    e = r[()]
    f = r[1,]
    r[0:1, 1:2] += 3
    return a, b, c, d, e, f


@cases(lazy(lambda: (Recorder(), 1, 2)))
def acc_slice_objects(r, i, j):
    r[slice(i, j)] = 1
    a = r[i:j:None]
    b = r[i:j]
    return a, b


@cases(lazy(lambda: (Obj(items=[1, 2, 3], d={"x": Obj(v=1)}),)))
def acc_chained_access(o):
    o.items[0] = o.d["x"].v
    o.d["x"].v += 1
    o.items[1:] = [o.d["x"].v] * 2
    del o.d["x"].v
    return o


@cases(
    ([[1, 2], [3, 4]],),
)
def acc_nested_subscripts(m):
    m[0][1] = m[1][0]
    m[1][1] += m[0][0]
    del m[0][0]
    return m, m[-1][-1]


@cases((1,), (5,))
def acc_augassign_names(x):
    y = x
    y += 1
    y -= 2
    y *= 3
    y /= 2
    y //= 1
    y %= 100
    y **= 2
    z = int(y)
    z <<= 3
    z >>= 1
    z &= 0xFF
    z |= 1
    z ^= 3
    s = "a"
    s += "b"
    s *= 2
    lst = [1]
    lst += [2]
    lst *= 2
    return y, z, s, lst


@cases(
    ([1],),
)
def acc_augassign_aliasing(lst):
    alias = lst
    lst += [2]
    t = (1,)
    t2 = t
    t += (2,)
    return alias, lst is alias, t, t2


@cases(lazy(lambda: (Recorder(), 3)))
def acc_augassign_evaluation_order(r, k):
    r[k] += 1
    r[k, k] += 2
    r[k:k] += 3
    return r.log


@cases(lazy(lambda: (Obj(a=1),)))
def acc_attr_on_call_result(o):
    def get():
        return o

    get().a = 5
    get().a += 1
    return o.a, get().a


@cases(
    ({"a": {"b": {"c": 1}}},),
)
def acc_deep_dict(d):
    d["a"]["b"]["c"] += 1
    d["a"]["b"]["d"] = d["a"]["b"]["c"] * 2
    return d


@cases(([1, 2, 3], 1), ([1, 2, 3], 10))
def acc_index_errors(lst, i):
    return lst[i]


@cases(([0, 1, 2, 3, 4, 5],), (list(range(9)),))
def acc_constant_slices(s):
    # 3.14+ fold a subscript's constant slice into one constant
    head, tail, every = s[:2], s[1:], s[::2]
    s[::3] = [9] * len(s[::3])
    del s[1:2]
    return head, tail, every, s, {(1, 2): "k"}.get((s[0], s[1]))
