"""Closures (cell and free variables, nonlocal writes), nested functions, decorators.

Some samples are the *inner* functions themselves (built by a factory, so each test gets fresh
cells): the decompiler sees free variables it must keep free.
"""

import functools

from . import cases

CONSTRUCT = "closures"


def log_calls(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__, args)
        return fn(*args, **kwargs)

    return wrapper


def tag(label):
    def deco(fn):
        fn.tag = label
        return fn

    return deco


@cases((1,), (5,))
def clo_cell_read(x):
    def inner():
        return x * 2

    return inner()


@cases(
    (3,),
)
def clo_cell_write_after_def(x):
    def inner():
        return x

    x = x + 10
    return inner()


@cases(
    (4,),
)
def clo_nonlocal_write(n):
    total = 0

    def add(k):
        nonlocal total
        total += k
        return total

    results = [add(i) for i in range(n)]
    return total, results


@cases(
    (2,),
)
def clo_nonlocal_rebind_and_delete(n):
    value = n

    def change():
        nonlocal value
        value = value * 3

    change()
    before = value
    del value
    try_ = 1
    return before, try_


@cases(
    (2, 3),
)
def clo_cell_parameter(a, b):
    def f():
        return a + b

    a = 100
    return f()


@cases(
    (1,),
)
def clo_three_levels(x):
    def mid(y):
        def inner(z):
            return x + y + z

        return inner

    return mid(10)(100), mid(20)(200)


@cases(
    (3,),
)
def clo_counter_factory(n):
    def make():
        count = 0

        def inc():
            nonlocal count
            count += 1
            return count

        return inc

    a, b = make(), make()
    return [a() for _ in range(n)], b()


@cases(
    (2,),
)
def clo_decorated_inner(x):
    @tag("t")
    @log_calls
    def inner(y):
        return x + y

    return inner(3), inner.tag, inner.__name__, inner.__wrapped__(1)


@cases(
    (1,),
)
def clo_decorator_with_closure(x):
    calls = []

    def record(fn):
        def wrapper(*a):
            calls.append(a)
            return fn(*a)

        return wrapper

    @record
    def f(y):
        return y + x

    return f(1), f(2), calls


@cases(
    (5,),
)
def clo_inner_defaults(x):
    def inner(a, b=x, *args, c=x * 2, **kw):
        return a, b, args, c, kw

    x = 0
    return inner(1), inner(1, 2, 3, c=4, d=5)


@cases(
    (2,),
)
def clo_inner_annotations(x):
    def inner(a: int, b: "str" = "s") -> list:
        return [a, b]

    return inner(x), inner.__annotations__


@cases(
    (3,),
)
def clo_recursive_inner(n):
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    return [fib(i) for i in range(n + 5)]


@cases(
    (3,),
)
def clo_mutual_recursion(n):
    def is_even(k):
        return True if k == 0 else is_odd(k - 1)

    def is_odd(k):
        return False if k == 0 else is_even(k - 1)

    return is_even(n), is_odd(n)


@cases(
    (2,),
)
def clo_shadowing(x):
    y = "outer"

    def inner():
        y = "inner"
        return x, y

    return inner(), y


@cases(
    (1,),
)
def clo_global_vs_closure(x):
    def inner():
        return len([x])

    return inner()


@cases(
    (3,),
)
def clo_cell_in_loop(n):
    fs = []
    for i in range(n):

        def f(i=i):
            return i * 10

        fs.append(f)
    gs = []
    for j in range(n):
        gs.append(lambda: j)
    return [f() for f in fs], [g() for g in gs]


@cases(
    (2,),
)
def clo_class_free_var_via_function(x):
    def get():
        return x

    x += 1
    return get(), get.__code__.co_freevars


@cases(
    (1,),
)
def clo_unbound_free_variable(x):
    def inner():
        return later

    r = []
    try_value = x
    r.append(try_value)
    later = 5
    return inner(), r


@cases(
    (1,),
)
def clo_unbound_free_raises(x):
    def inner():
        return later  # noqa: F821

    value = inner()
    later = x  # noqa: F841  # unreachable
    return value  # unreachable


# --- inner functions decompiled on their own (free variables stay free)


def _make_adder(k):
    def adder(v):
        return v + k

    return adder


clo_free_adder = cases((1,), (10,), factory=lambda: _make_adder(5))(_make_adder(5))


def _make_accumulator():
    total = 0
    history = []

    def accumulate(v):
        nonlocal total
        total += v
        history.append(total)
        return total, list(history)

    return accumulate


clo_free_nonlocal_writer = cases((1,), (2,), (3,), factory=_make_accumulator)(_make_accumulator())


def _make_nested_closure(a):
    b = a * 2

    def outer_free(c):
        def deepest():
            return a + b + c

        return deepest()

    return outer_free


clo_free_and_cell = cases((1,), (7,), factory=lambda: _make_nested_closure(3))(
    _make_nested_closure(3)
)


def _make_with_defaults(base):
    def scaled(x, factor=2, *, offset=base):
        return x * factor + offset + base

    return scaled


clo_free_with_defaults = cases((1,), (1, 3), (2,), factory=lambda: _make_with_defaults(100))(
    _make_with_defaults(100)
)


@cases(
    (4,),
)
@tag("kept")
def clo_tagged(x):
    return x - 1


@cases((2,), (3,))
def clo_decorator_factory_inside(n):
    def repeat(times):
        def deco(fn):
            def run(*a):
                return [fn(*a) for _ in range(times)]

            return run

        return deco

    @repeat(n)
    def hello(v):
        return v * 2

    return hello(5)
