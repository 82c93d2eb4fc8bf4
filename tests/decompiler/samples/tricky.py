"""Shapes that trip decompilers: jumps shared between constructs, loops ending in ifs, etc.

All issue-2 constructs (no try/with/yield): a DecompilationError here is a failure.
"""

from . import cases, lazy
from ._helpers import Obj

CONSTRUCT = "control"

TOTAL = 0


class Parser:
    def __init__(self, actions):
        self._actions = actions


@cases(
    lazy(lambda: (Parser([Obj(option_strings=["-a"]), Obj(option_strings=[])]),)),
    lazy(lambda: (Parser([]),)),
)
def tr_argparse_filter(self):
    """The reference tool's cautionary example (argparse, CPython 3.11)."""
    return [action for action in self._actions if action.option_strings]


@cases(([1, -2, 3, 0, -5],), ([],))
def tr_loop_ends_in_if(items):
    out = []
    for x in items:
        if x > 0:
            out.append(x)
    return out


@cases(
    ([1, -2, 3, 0, -5],),
)
def tr_loop_ends_in_if_else(items):
    out = []
    for x in items:
        if x > 0:
            out.append("pos")
        elif x < 0:
            out.append("neg")
        else:
            out.append("zero")
    return out


@cases(
    ([1, -2, 3, 0, -5],),
)
def tr_loop_if_not_continue_at_end(items):
    out = []
    for x in items:
        out.append(x)
        if not x:
            continue
    return out


@cases(
    ([1, -2, 3, 0, -5],),
)
def tr_both_branches_continue(items):
    n = 0
    for x in items:
        if x > 0:
            n += 1
            continue
        else:
            n -= 1
            continue
    return n


@cases((5,), (0,))
def tr_while_ends_in_if(n):
    out = []
    while n:
        n -= 1
        if n % 2:
            out.append(n)
    return out


@cases((5,), (0,))
def tr_while_with_else_and_nested_if(n):
    out = []
    while n > 0:
        if n == 3:
            if out:
                break
        n -= 1
        out.append(n)
    else:
        out.append("done")
    return out


@cases((3,), (10,))
def tr_ternary_in_while_condition(n):
    i = 0
    while i < n if n < 5 else i < 2:
        i += 1
    return i


@cases((1, 2, 3), (3, 2, 1), (2, 2, 2))
def tr_chain_as_statement_with_effects(a, b, c):
    log = []

    def f(x):
        log.append(x)
        return x

    f(a) < f(b) < f(c)
    return log


@cases((3,), state={"TOTAL": 0})
def tr_global_augassign_in_loop(n):
    global TOTAL
    for i in range(n):
        TOTAL += i
    return TOTAL


@cases(
    (),
)
def tr_shared_object_chain():
    x = y = []
    x.append(1)
    return y, x is y


@cases(([3, 0, 2],), ([],))
def tr_walrus_in_while_boolop(items):
    it = iter(items)
    out = []
    while (v := next(it, None)) is not None and (w := v * 2) >= 0:
        out.append((v, w))
    return out


@cases(
    (2, 3),
)
def tr_default_refers_to_closure(a, b):
    def inner(x=a, y=lambda: b):
        return x + y()

    return inner(), inner(10)


@cases(
    ([[1, 2], [3, 4], [5]],),
)
def tr_for_else_with_nested_loop_break(rows):
    out = []
    for row in rows:
        for v in row:
            if v == 4:
                break
        else:
            out.append(("complete", row))
            continue
        out.append(("broken", row))
    else:
        out.append("all rows")
    return out


@cases((0,), (1,), (2,))
def tr_if_return_else_fallthrough(k):
    if k == 0:
        return "zero"
    else:
        k += 10
    if k == 11:
        pass
    else:
        return "other"
    return "eleven"


@cases(([1, 2, 3],), ([],))
def tr_return_in_for_else(items):
    for x in items:
        if x == 2:
            break
    else:
        return "no two"
    return "two"


@cases(
    (5,),
)
def tr_nested_while_shared_exit(n):
    i = 0
    out = []
    while i < n:
        j = 0
        while j < i:
            if j == 2:
                break
            j += 1
        out.append((i, j))
        i += 1
    return out


@cases((0, 0), (0, 1), (1, 0), (1, 1))
def tr_if_with_empty_then(a, b):
    r = 0
    if a:
        pass
    elif b:
        r = 1
    else:
        r = 2
    return r


@cases((1, 0), (0, 1), (0, 0))
def tr_not_and_or_condition_in_loop(a, b):
    n = 0
    for _ in range(3):
        if not a and not b:
            continue
        if a or not b:
            n += 1
        else:
            n -= 1
    return n


@cases((None,), (0,), (5,))
def tr_is_none_checks(x):
    if x is None:
        x = "default"
    elif x is not None and not x:
        x = "falsy"
    return x


@cases(
    (3,),
)
def tr_loop_variable_after_loop(n):
    for i in range(n):
        pass
    j = None
    for j in []:
        pass  # unreachable
    return i, j


@cases(
    ([1, 2, 3],),
)
def tr_comprehension_then_loop_same_name(xs):
    ys = [x * 2 for x in xs]
    for x in ys:
        xs.append(x)
    return x, xs


@cases((1,), (0,))
def tr_conditional_import_and_del(flag):
    if flag:
        import math

        r = math.floor(2.5)
        del math
    else:
        r = None
    return r


@cases(
    (4,),
)
def tr_while_true_with_continue_and_break(n):
    i = 0
    out = []
    while True:
        i += 1
        if i % 2:
            continue
        if i > n:
            break
        out.append(i)
    return out


@cases(("abc",), ("",))
def tr_return_boolop_of_calls(s):
    return s.startswith("a") and s.endswith("c") or len(s) == 0 and "empty"


@cases((1, 2), (2, 1))
def tr_assert_in_loop(a, b):
    for i in range(2):
        assert a < b, (i, a, b)
    return "ok"


@cases(
    (3,),
)
def tr_lambda_default_from_loop(n):
    fs = []
    for i in range(n):
        fs.append(lambda k=i * 2: k)
    return [f() for f in fs]


@cases((1,), (0,))
def tr_debug_constant(x):
    if __debug__:
        r = "debug"
    else:
        r = "optimized"  # unreachable
    return r, x


@cases(
    (2,),
)
def tr_global_declared_unused(x):
    global UNUSED_GLOBAL  # noqa: F824
    return x


@cases(
    (3,),
)
def tr_nonlocal_read_only(n):
    total = n

    def get():
        nonlocal total
        return total * 2

    return get()


@cases(
    (3,),
)
def tr_delete_and_reassign_cell(n):
    v = n

    def get():
        return v

    first = get()
    del v
    try_ = "gap"
    v = n * 10
    return first, try_, get()


@cases(
    (4,),
)
def tr_closure_over_reassigned_param(n):
    fs = []
    while n > 0:
        fs.append(lambda: n)
        n -= 1
    return [f() for f in fs], n


@cases(
    ("a", 2),
)
def tr_keywords_named_like_builtins(s, n):
    def f(list=None, dict=None, str=None, **kw):
        return list, dict, str, sorted(kw)

    return f(list=s, dict=n, str=[s], type=1, id=2)


@cases(
    (3,),
)
def tr_walrus_into_cell_from_comprehension(n):
    def reader():
        return last

    last = None
    values = [last := i * 2 for i in range(n)]
    return values, reader()


@cases(
    (1,),
)
def tr_dead_code_keeps_local(x):
    """`if 0:` code is dropped by the compiler, but `y` stays a local: UnboundLocalError."""
    if 0:
        y = x  # unreachable
    return y  # noqa: F821


@cases(
    (1,),
)
def tr_dead_code_keeps_cell(x):
    if 0:
        z = x  # unreachable

    def inner():
        return z  # noqa: F821

    return inner()
