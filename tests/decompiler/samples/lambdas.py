"""Lambdas: defaults, kw-only, closures, nested lambdas, lambdas as arguments."""

from . import cases

CONSTRUCT = "lambdas"


@cases((1,), (5,))
def lam_simple(x):
    f = lambda y: y + x  # noqa: E731
    g = lambda: x  # noqa: E731
    return f(1), g()


@cases(
    (2,),
)
def lam_defaults(x):
    f = lambda a, b=2, *args, c=3, d, **kw: (a, b, args, c, d, kw)  # noqa: E731
    g = lambda a=x, b=[1]: (a, b)  # noqa: E731
    return f(1, d=4), f(1, 2, 3, 4, c=0, d=5, e=6), g(), g(b=0)


@cases(
    (2,),
)
def lam_posonly(x):
    f = lambda a, /, b, *, c=x: (a, b, c)  # noqa: E731
    return f(1, 2), f(1, b=3, c=4)


@cases(
    (3,),
)
def lam_closure_capture_late(n):
    fs = [lambda: i for i in range(n)]
    gs = [lambda i=i: i for i in range(n)]
    return [f() for f in fs], [g() for g in gs]


@cases(
    (3,),
)
def lam_nested(n):
    add = lambda a: lambda b: lambda c: a + b + c  # noqa: E731
    return add(1)(2)(n)


@cases(([3, 1, 2],), (["b", "A", "c"],))
def lam_as_key(items):
    return sorted(items, key=lambda v: str(v).lower()), max(items, key=lambda v: (str(v), v))


@cases(
    (4,),
)
def lam_with_conditional(n):
    f = lambda v: "even" if v % 2 == 0 else "odd"  # noqa: E731
    g = lambda v: v and v - 1 or "zero"  # noqa: E731
    return [f(i) for i in range(n)], [g(i) for i in range(n)]


@cases(
    (5,),
)
def lam_mutating_closure(n):
    acc = []
    push = lambda v: acc.append(v) or len(acc)  # noqa: E731
    for i in range(n):
        push(i)
    return acc


@cases(
    (2,),
)
def lam_immediately_called(x):
    return (lambda a, b: a * b)(x, 3), (lambda *a: a)(1, 2), (lambda **k: k)(z=x)


@cases(
    (1,),
)
def lam_star_args(x):
    f = lambda *args, **kwargs: (args, sorted(kwargs.items()))  # noqa: E731
    return f(x, 2, k=3)


@cases(
    (10,),
)
def lam_in_default_of_lambda(x):
    f = lambda g=lambda: x: g()  # noqa: E731
    return f(), f(lambda: 0)


@cases(
    (3,),
)
def lam_recursive_via_name(n):
    fact = lambda k: 1 if k <= 1 else k * fact(k - 1)  # noqa: E731
    return fact(n)


lam_toplevel = cases((1, 2), (3, 4))(lambda a, b=5: a * b + 1)

lam_toplevel_kwonly = cases((1,), (2,))(lambda a, *, k=3: (a, k))


@cases((1, 2), (0, 5))
def lam_conditional_arms(a, b):
    # a lambda as an arm of a conditional expression
    g = (lambda x, y=b: x + y) if a else (lambda x: -x)
    h = (lambda: a) if b > 3 else None
    return g(3), h() if h else h


@cases((1,), ("s",))
def lam_default_is_assignment_expression(g):
    # the defaults tuple is a tuple of names before a code without free variables: not
    # the cells of a closure
    f = lambda a=(y := g): a  # noqa: E731
    def h(b=(z := g)):
        return b
    return f(), h(), y, z
