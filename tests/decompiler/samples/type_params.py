"""PEP 695 type parameters and `type` aliases (3.12+): imported only on 3.12+."""

import typing  # noqa: F401 - read by a string annotation

from . import cases

CONSTRUCT = "type_params"


@cases((1,), ("s",))
def tp_generic_function[T](x: T) -> T:
    return x


@cases(
    (1, 2),
)
def tp_bounded_and_constrained[T: int, S: (str, bytes), *Ts, **P](a, b):
    return a, b


@cases(
    (1,),
)
def tp_generic_class_inside(x):
    class Box[T]:
        def __init__(self, v: T):
            self.v = v

        def get(self) -> T:
            return self.v

    return Box(x).get(), [p.__name__ for p in Box.__type_params__]


@cases(
    (1,),
)
def tp_type_alias_inside(x):
    type Pair[K] = tuple[K, K]
    type Simple = list[int]
    return Pair.__name__, Simple.__value__, Pair[int].__args__


@cases(
    (1,),
)
def tp_type_alias_bounds_inside(x):
    type B[T: int, S: (str, bytes), *Ts, **P] = dict[T, S]
    type Nested[U] = B[U, str] | None
    return [p.__name__ for p in B.__type_params__], B.__type_params__[1].__constraints__, Nested.__value__


def _tag(cls):
    cls.tag = "tagged"
    return cls


@cases(
    (1,),
)
def tp_decorated_generic_class_inside(x):
    @_tag
    class Cell[T: (int, str)]:
        def __init__(self, v: T) -> None:
            self.v = v

    return Cell(x).v, Cell.tag, Cell.__type_params__[0].__constraints__


@cases(
    (1,),
)
def tp_generic_class_with_base_inside(x):
    class Items[T](list):
        def first(self) -> T:
            return self[0]

    return Items([x]).first()


@cases(
    (1,),
)
def tp_generic_function_inside(x):
    def ident[T](a: T, b: int = 2) -> T:
        return a

    return ident(x), [p.__name__ for p in ident.__type_params__]


class _Meta(type):
    pass


@cases(
    (3,),
)
def tp_generic_class_keywords_and_methods_inside(x):
    class Registry[K, V](dict, metaclass=_Meta):
        type Entry = tuple[K, V]

        def put[W](self, key: K, value: V, extra: list[W] | None = None) -> "Registry[K, V]":
            self[key] = value
            return self

        def call[R](self, fn: "typing.Callable[[V], R]", key: K) -> R:
            return fn(self[key])

    reg = Registry().put("a", x)
    return dict(reg), type(reg).__name__, reg.call(lambda v: v * 2, "a"), Registry.Entry.__value__
