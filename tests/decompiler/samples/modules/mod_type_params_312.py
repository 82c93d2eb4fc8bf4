# min-version: 3.12
"""PEP 695 at module level: `type` statements (plain, generic, bounded, constrained, variadic)
and a generic class."""

type Number = int | float
type Pair[T] = tuple[T, T]
type Bounded[T: (int, str), S: int, *Ts, **P] = dict[T, S]


class Stack[T, *Rest]:
    items: list[T]

    def __init__(self) -> None:
        self.items = []

    def push(self, item: T) -> "Stack[T, *Rest]":
        self.items.append(item)
        return self


def first[T, *Ts](items: list[T], *rest: *Ts) -> T | None:
    return items[0] if items else None


class Pool[T]:
    def get[D](self, default: D = None) -> T | D:
        return default


def make():
    type Inner[K] = list[K]
    return Inner


def _check():
    assert Number.__value__ == int | float
    assert Pair.__type_params__[0].__name__ == "T"
    t, s, ts, p = Bounded.__type_params__
    assert t.__constraints__ == (int, str) and s.__bound__ is int
    assert type(ts).__name__ == "TypeVarTuple" and type(p).__name__ == "ParamSpec"
    inner = make()
    stack = Stack().push(1).push(2)
    names = [p.__name__ for p in Stack.__type_params__]
    fp = [p.__name__ for p in first.__type_params__]
    got = Pool[int]().get(5)
    return (Number.__name__, Pair[int].__args__, inner.__name__, inner.__value__, stack.items, names, fp, got)
