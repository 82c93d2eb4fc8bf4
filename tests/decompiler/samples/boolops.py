"""`and` / `or` / `not` as values and in conditions, every nesting; conditional expressions."""

from . import cases, lazy

CONSTRUCT = "expressions"

TRUTH3 = tuple((a, b, c) for a in (0, 1) for b in ("", "b") for c in (None, [3]))
TRUTH4 = tuple((a, b, c, d) for a in (0, 1) for b in (0, 2) for c in (0, 3) for d in (0, 4))


@cases(*TRUTH3)
def bool_and_value(a, b, c):
    return a and b, a and b and c, (a and b) and c


@cases(*TRUTH3)
def bool_or_value(a, b, c):
    return a or b, a or b or c, a or (b or c)


@cases(*TRUTH4)
def bool_mixed_values(a, b, c, d):
    return (
        a and b or c,
        a or b and c,
        (a or b) and c,
        a and (b or c),
        (a or b) and (c or d),
        (a and b) or (c and d),
        a and (b or c) and d,
        a or (b and c) or d,
        ((a or b) and c) or d,
        a and (b and (c or d)),
    )


@cases(*TRUTH4)
def bool_not_values(a, b, c, d):
    return (
        not a,
        not (a and b),
        not (a or b),
        not a and b,
        not a or not b,
        not (not a or b) and c,
        (not a) == (not b),
        not (a and b or c and d),
    )


@cases(*TRUTH4)
def bool_in_if(a, b, c, d):
    out = []
    if a and b:
        out.append(1)
    if a or b:
        out.append(2)
    if a and b or c:
        out.append(3)
    if a or b and c:
        out.append(4)
    if (a or b) and (c or d):
        out.append(5)
    if not (a and b) or d:
        out.append(6)
    if not a and not b:
        out.append(7)
    if a and (b or c) and d:
        out.append(8)
    return out


@cases(*TRUTH4)
def bool_in_if_else(a, b, c, d):
    if (a and b) or (c and d):
        r = "x"
    else:
        r = "y"
    if a or (b and (c or d)):
        r += "1"
    elif not c:
        r += "2"
    else:
        r += "3"
    return r


@cases(*TRUTH4)
def bool_in_while(a, b, c, d):
    n = 0
    while (a or b) and n < 3 and (c or not d):
        n += 1
    m = 0
    while not (a and b) and m < 2:
        m += 1
    return n, m


@cases(*TRUTH3)
def bool_as_argument(a, b, c):
    return list((a or b, a and c)), str(a and b or c), len([a or c])


@cases(*TRUTH3)
def bool_assigned_then_used(a, b, c):
    x = a and b
    y = b or c
    z = not (x or y)
    return x, y, z


@cases(*TRUTH4)
def bool_return_directly(a, b, c, d):
    return a and b or c and d


@cases(*TRUTH4)
def bool_ternary_nested(a, b, c, d):
    return (
        (1 if a else 2),
        (1 if a else 2 if b else 3),
        ((1 if a else 2) if b else 3),
        (1 if a and b else 2 if c or d else 3),
        (a if not b else c if not d else (a or d)),
    )


@cases(*TRUTH4)
def bool_ternary_in_condition(a, b, c, d):
    if b if a else c:
        return "t"
    if not (c if b else d):
        return "f"
    return "?"


@cases(*TRUTH4)
def bool_ternary_test_in_chain(a, b, c, d):
    if a and (b if c else d):
        return 1
    if (a if b else c) or d:
        return 2
    if not (b if a else c) and not d:
        return 3
    return 4


@cases(*TRUTH4)
def bool_ternary_test_else(a, b, c, d):
    if (a if b else c) and d:
        x = 1
    else:
        x = 2
    return x


@cases(*TRUTH3)
def bool_ternary_with_boolop(a, b, c):
    x = (a or b) if c else (a and b)
    y = a or (b if c else a)
    z = (a and b if c else c) or "default"
    return x, y, z


@cases((0,), (1,), (5,), (-2,))
def bool_short_circuit_effects(n):
    calls = []

    def t(x):
        calls.append(x)
        return x

    r1 = t(n > 0) and t(n > 2) or t(n < -1)
    r2 = t(n) or t(0) and t(1)
    if t(n == 1) or t(n == 5) and t(True):
        r3 = "yes"
    else:
        r3 = "no"
    return r1, r2, r3, calls


@cases((0, 0), (1, 0), (0, 1), (1, 1))
def bool_if_body_only_pass(a, b):
    if a and b:
        pass
    else:
        a = 9
    if a or b:
        pass
    return a


@cases((0, 0, 0), (1, 1, 0), (0, 1, 1), (1, 1, 1), (0, 1, 0))
def bool_nested_ifs_vs_and(a, b, c):
    r = 0
    if a:
        if b:
            r += 1
        if c:
            r += 2
    elif b:
        if not c:
            r += 4
    return r


@cases((0, 0), (1, 0), (0, 2), (3, 4))
def bool_or_default_idiom(a, b):
    x = a or []
    y = b or {}
    x = x or "empty"
    return x, y


@cases((None,), ([],), ([1, 2],), ("s",))
def bool_guard_idiom(x):
    return x is not None and len(x) > 0 and x[0]


@cases((1, 2, 3), (0, 2, 3), (1, 0, 0))
def bool_ternary_side_effects(a, b, c):
    log = []
    r = (log.append("b") or b) if a else (log.append("c") or c)
    return r, log


@cases(*TRUTH4)
def bool_not_of_compare_in_condition(a, b, c, d):
    if not a < b:
        return 1
    if not (c == d or a):
        return 2
    return 3


@cases(([1, 0, 2], 2), ([], 1), ([3], 0))
def bool_and_statement_ends_inner_loop(items, n):
    # 3.14+: the join's pop and jump back are copied onto the end of the right operand
    out = []
    while n > 0:
        n -= 1
        while items:
            v = items.pop()
            v and out.append(v)
        continue
    return out


@cases((0,), (1,), ("",))
def bool_and_or_statement_ends_function(x):
    # 3.10/3.11: the return after the statement is copied onto the last operand
    x and x or x


@cases((0, 1), (1, 2), (2, 0))
def bool_ternary_walrus_arm_copied_tail(x, f4):
    # 3.10, 3.12+: the store and return copied into each arm; a trial reading of the
    # arms must not leave the walrus's store behind as a chained assignment's
    z = (x if x > 1 else (w := f4)) if x else x


@cases((0, 0), (1, 0), (2, 1), (None, 1))
def bool_and_ternary_return_after_assert(x, kw):
    # the ternary's first arm ends in a copy of the return; the assert's test chain looks
    # at the and/or first (a trial that must not keep the copy for itself)
    assert x != 2
    return x and ("b" if kw else x)


@cases(*TRUTH4)
def bool_deep_nesting(a, b, c, d):
    return ((a and (b or (c and (d or a)))) or (not a and (b and not c))) and (d or c or b or a)


@cases(*TRUTH4)
def bool_group_end_test_skipped(a, b, c, d):
    # 3.14+ point a false `b` straight past the `and d` test the group's end lands on (a
    # false value takes it); `a and (b or c) and d` jumps there itself
    return ((a or b and c) and d, a and (b or c) and d, (a and (b or c)) or d and a)


@cases(*TRUTH4)
def bool_group_end_test_skipped_in_if(a, b, c, d):
    if (a or b and not c) and d:
        return 1
    if not (a and (b or c)) or d:
        return 2
    return 3


@cases(*TRUTH3)
def bool_or_then_elif_not_augassign(a, b, c):
    r = ""
    if a or b:
        r += "1"
    elif not c:
        r += "2"
    else:
        r += "3"
    return r


CHAIN4 = tuple((x, a, b, c) for x in (0, 5) for a in (1, 3) for b in (2,) for c in (1, 4))


@cases(*CHAIN4)
def bool_or_chain_returned(x, a, b, c):
    return x or a < b < c


@cases(*CHAIN4)
def bool_and_chain_returned(x, a, b, c):
    return x and a < b < c


@cases(*CHAIN4)
def bool_or_chain_stored_then_returned(x, a, b, c):
    y = x or a < b < c
    return y


@cases((0,), (100,), (56000,), (60000,), (2000000,), (-1,))
def bool_chain_or_chain_returned(codepoint):
    return (0 <= codepoint <= 55295) or (57344 <= codepoint <= 1114111)


@cases(((0.5, 2.0, 0.25, 0.75, 0.9),), ((3.0, -1.0),))
def bool_not_chain_continue(values):
    out = []
    for u in values:
        if not 0.0 < u < 1.0:
            continue
        out.append(u)
    return out


@cases(lazy(lambda: (iter([2.0, 0.3, 0.8]),)), lazy(lambda: (iter([0.6]),)))
def bool_not_chain_continue_while_true(it):
    while 1:
        u = next(it)
        if not 0.0 < u < 1.0:
            continue
        v = 1.0 - u
        if v < 0.5:
            return u, v


CHAIN_ARM = tuple((a, b, c, t, y) for a in (1, 3) for b in (2,) for c in (1, 4) for t in (0, 1) for y in (0, 1))


@cases(*CHAIN_ARM)
def bool_chain_arm_of_ternary_test_returns(a, b, c, t, y):
    if a != b > c if t else y:
        return 1
    return 2


@cases(((1, 3),), ((2, 5, 0),))
def bool_chain_arm_of_ternary_test_continue(xs):
    out = []
    for v in xs:
        if 0 < v < 3 if v % 2 else v:
            continue
        out.append(v)
    return out


@cases(((1, 2, 3),), ((3, 2, 1),), ((),))
def bool_chain_returned_from_for(xs):
    for v in xs:
        return 0 < v < 2


@cases((0,), (1,), (3,))
def bool_chain_value_in_while_test(n):
    out = []
    while [0 < n < 3] != [False]:
        n += 1
        if n == 2:
            continue
        out.append(n)
    return out


class _Ref:
    def __init__(self, e, a, v, m):
        self.e, self.a, self.v, self.m = e, a, v, m


@cases(*[(_Ref(e, 1, v, 3), _Ref(1, a, 2, m)) for e in (0, 1) for a in (1, 9) for v in (2, 5) for m in (3, 7)])
def bool_if_returns_and_of_compares(self, other):
    # typing.ForwardRef.__eq__: 3.12+ copy the return into both arms; the and's join is the return
    if self.e and other.e:
        return self.a == other.a and self.v == other.v
    return self.a == other.a and self.m == other.m


@cases(*[(r, d, n, a, b) for r in ("", "/") for d in ("", "c:") for n in (0, 2) for a, b in ((1, 1), (1, 2))])
def bool_ternary_test_raising(root, drv, n, a, b):
    # pathlib.PurePath.relative_to: 3.10+ copy the raise into both arms of the test
    if (root or drv) if n == 0 else a != b:
        raise ValueError("not a subpath")
    return "ok"


@cases(*TRUTH4)
def bool_or_ternary_stored_then_returned(a, b, c, d):
    x = a or (b if c else d)
    return x


@cases(*[(a, b, c, d, n) for a, b, c, d in TRUTH4 for n in (0, 1)])
def bool_ternary_of_boolops_stored(a, b, c, d, n):
    x = (a or b) if n else (c and d)
    return x


@cases((1,), (2,), (-1,), (0,))
def bool_and_or_after_value(n):
    # timedelta.__str__'s plural: 3.14+ let a false first operand skip the second's test
    return n, abs(n) != 1 and "s" or ""


@cases(*TRUTH3)
def bool_and_or_in_condition(a, b, c):
    if (a and b) or c:
        return "yes"
    return "no"


@cases((1, 2, 0, 3), (0, 2, 1, 3), (0, 0, 0, 5), (1, 0, 1, 0))
def bo_returned_with_conditional_operand(a, b, c, d):
    # 3.9's peephole returns straight from the first arm (a jump to a return is a return)
    return a and (b if c else d)


@cases((1, 2, 0, 3), (0, 2, 1, 3), (0, 0, 0, 5), (0, 0, 1, 0))
def bo_returned_with_nested_conditional_operand(a, b, c, d):
    return a or b or (c if d else d if c else 7)


@cases(*TRUTH3)
def bool_test_ternary_constant_first_arm(a, b, c):
    # the constant arm is folded away: the test's true path jumps straight to the body
    if 1 if a else b:
        c = 5
    return c


@cases(*TRUTH3)
def bool_test_ternary_constant_second_arm(a, b, c):
    # the jump over the folded constant arm goes to the next instruction
    if a if b else 7:
        c = 5
    return c


@cases(*TRUTH3)
def bool_ternary_test_constant_arm_value(a, b, c):
    x = c if (1 if a else b) else a
    return x


@cases(*TRUTH3)
def bool_test_ternary_comprehension_arm(a, b, c):
    # 3.12+ inline the comprehension into the arm of the test
    if b if a else [c for _ in "xy"]:
        c = 5
    return c


@cases(*TRUTH3)
def bool_test_constant_arm_copied_body(a, b, c):
    # 3.10-3.12 copy the return for the constant arm's jump to it; a's jump goes past that copy
    if a or (1 if b else c):
        return 3
    return 4


@cases(*TRUTH3)
def bool_test_ternary_falsy_constant_arm(a, b, c):
    # the falsy arm is a jump to the false exit (3.10+: a copy of the small block there)
    if a if b else None:
        c = 1
    return c


@cases(*TRUTH3)
def bool_test_ternary_falsy_constant_arm_else(a, b, c):
    if a if b else None:
        c = 1
    else:
        b = 2
    return a, b, c


@cases((4, 1), (4, 0), (0, 1))
def bool_and_chain_ending_loop_body(n, b):
    # 3.14: each operand's false exit gets its own copy of the loop's jump back
    out = []
    for v in range(n):
        v and b and out.append(v)
    return out
