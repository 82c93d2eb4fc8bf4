"""global, nonlocal, pass, assert (with/without message), raise, print side effects."""

from . import cases, lazy
from ._helpers import Err

CONSTRUCT = "statements"

COUNTER = 0
REGISTRY = []


@cases((1,), (5,), state={"COUNTER": 0})
def st_global_write(n):
    global COUNTER
    COUNTER += n
    COUNTER = COUNTER * 2
    return COUNTER


@cases((1,), (2,), state={"REGISTRY": [], "NEW_GLOBAL": None})
def st_global_create_and_mutate(x):
    global NEW_GLOBAL
    NEW_GLOBAL = x * 10
    REGISTRY.append(x)
    return NEW_GLOBAL, len(REGISTRY)


@cases((1,), state={"COUNTER": 3})
def st_global_del(x):
    global COUNTER
    value = COUNTER
    del COUNTER
    return value + x


@cases((1,), (2,), state={"COUNTER": 0})
def st_global_read_only(x):
    return COUNTER + x


@cases((1,), (2,), state={"COUNTER": 0})
def st_global_in_nested(x):
    def inner():
        global COUNTER
        COUNTER = x
        return COUNTER

    return inner(), COUNTER


@cases(
    (3,),
)
def st_nonlocal_counter(n):
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    for _ in range(n):
        bump()
    return count


@cases(
    (2,),
)
def st_nonlocal_two_levels(n):
    total = 0

    def middle():
        def inner():
            nonlocal total
            total += n

        inner()
        inner()

    middle()
    return total


@cases((1,), (0,))
def st_pass_everywhere(x):
    if x:
        pass
    else:
        pass
    for _ in range(2):
        pass
    while False:
        pass
    pass
    return x


@cases((1,), (0,), (-1,))
def st_assert_plain(x):
    assert x >= 0
    return x


@cases((1,), (0,), (-1,))
def st_assert_message(x):
    assert x >= 0, "negative: %d" % x
    assert x != 0, f"zero {x!r}"
    return x


@cases((1,), (0,))
def st_assert_complex_condition(x):
    assert x is not None and (x > 0 or x == -1), ("msg", x)
    return x


@cases((0,), (1,), (2,), (3,), (4,))
def st_raise_forms(k):
    if k == 0:
        raise ValueError
    if k == 1:
        raise ValueError("with message", k)
    if k == 2:
        raise Err(k)
    if k == 3:
        raise KeyError("x") from None
    return k


@cases((0,), (1,))
def st_raise_from(k):
    cause = TypeError("cause")
    if k:
        raise ValueError("effect") from cause
    return "ok"


@cases((1,), (2,))
def st_print_side_effects(n):
    print("hello", n)
    print("a", "b", sep="-", end="!\n")
    print()
    return n


@cases(([],), ([1],))
def st_mutate_argument(lst):
    lst.append(len(lst))
    lst.insert(0, "head")
    lst.sort(key=str)
    return None


@cases(lazy(lambda: ({"a": 1},)))
def st_mutate_dict_argument(d):
    d["b"] = 2
    d.pop("a")
    d.setdefault("c", []).append(3)


@cases((1,), (0,))
def st_early_return_none(x):
    if x:
        return
    print("fell through")


@cases(
    (1,),
)
def st_exec_like_builtins(x):
    return eval("x + 1", {"x": x}), repr(x), type(x).__name__, isinstance(x, int)
