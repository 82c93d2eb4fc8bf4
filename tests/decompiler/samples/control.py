"""if/elif/else chains, nested ifs, early returns, conditions of every shape."""

from . import cases

CONSTRUCT = "control"


@cases((-5,), (0,), (3,), (10,), (100,))
def ctl_if_elif_else(x):
    if x < 0:
        r = "neg"
    elif x == 0:
        r = "zero"
    elif x < 10:
        r = "small"
    elif x < 50:
        r = "medium"
    else:
        r = "large"
    return r


@cases((-5,), (0,), (3,), (100,))
def ctl_if_elif_no_else(x):
    r = "none"
    if x < 0:
        r = "neg"
    elif x == 0:
        r = "zero"
    elif x > 50:
        r = "big"
    return r


@cases((-5,), (0,), (3,))
def ctl_early_returns(x):
    if x < 0:
        return "neg"
    if x == 0:
        return "zero"
    return "pos"


@cases((-5,), (0,), (3,))
def ctl_return_in_every_branch(x):
    if x < 0:
        return -1
    elif x == 0:
        return 0
    else:
        return 1


@cases((0, 0), (0, 1), (1, 0), (1, 1))
def ctl_nested_if(a, b):
    if a:
        if b:
            r = "ab"
        else:
            r = "a"
    else:
        if b:
            r = "b"
        else:
            r = "-"
    return r


@cases((0, 0, 0), (1, 0, 1), (1, 1, 0), (0, 1, 1), (1, 1, 1))
def ctl_nested_if_partial_returns(a, b, c):
    if a:
        if b:
            return 1
        x = 2
    else:
        if c:
            return 3
        x = 4
    if c:
        x += 10
    return x


@cases((1,), (0,))
def ctl_if_no_else_then_code(x):
    y = 1
    if x:
        y = 2
    y *= 3
    return y


@cases((1,), (0,))
def ctl_if_with_only_else_effect(x):
    if not x:
        print("not x")
    else:
        print("x")
    return None


@cases((5,), (15,), (25,))
def ctl_elif_inside_else_block(x):
    if x < 10:
        return "a"
    else:
        if x < 20:
            return "b"
        print("after inner if")
    return "c"


@cases((1,), (2,), (3,), (4,))
def ctl_dispatch_chain(k):
    if k == 1:
        return "one"
    elif k == 2:
        pass
    elif k == 3:
        k = 30
    else:
        return "other"
    return k


@cases((None,), (0,), ([],), ("x",))
def ctl_truthiness_conditions(x):
    if x is None:
        return "none"
    if not x:
        return "falsy"
    return "truthy"


@cases((1, 2), (2, 1), (1, 1))
def ctl_if_expression_statement(a, b):
    r = []
    r.append(a) if a > b else r.append(b)
    return r


@cases((True,), (False,))
def ctl_constant_conditions(flag):
    if True:
        r = 1
    if False:
        r = 2
    if 0:
        print("dead")
    while 0:
        print("dead loop")
    if flag:
        r = 3
    return r


@cases((3,), (0,))
def ctl_return_expression_forms(n):
    if n:
        return n, n + 1
    return [n] * 2


@cases((1, 2, 3), (3, 2, 1), (2, 3, 1), (2, 1, 3))
def ctl_max_of_three(a, b, c):
    if a >= b:
        if a >= c:
            m = a
        else:
            m = c
    elif b >= c:
        m = b
    else:
        m = c
    return m


@cases((0,), (1,), (2,))
def ctl_unreachable_after_return(x):
    if x == 0:
        return "zero"
        print("unreachable")  # noqa
    return "nonzero"


@cases((1,), (-1,), (10,), (-10,))
def ctl_if_inside_else_inside_if(x):
    if x > 0:
        if x > 5:
            pass
        else:
            x = -x
    else:
        if x < -5:
            pass
        else:
            x = x * 100
    return x


@cases(*[(i,) for i in range(12)])
def ctl_long_elif_chain(n):
    if n == 0:
        return "a"
    elif n == 1:
        return "b"
    elif n == 2:
        return "c"
    elif n == 3:
        return "d"
    elif n == 4:
        return "e"
    elif n == 5:
        return "f"
    elif n == 6:
        return "g"
    elif n == 7:
        return "h"
    elif n == 8:
        return "i"
    elif n == 9:
        return "j"
    return "z"


@cases((0, 0), (1, 0), (1, 1))
def ctl_nested_if_else_pass(a, b):
    # `if a: if b: ... else: pass`: the inner test's false exit is the NOP of that else,
    # one offset before the outer test's (3.10+): two ifs, not `if a and b`
    log = []
    if a:
        if b:
            log.append("b")
        else:
            pass
    log.append("end")
    return log


@cases((0,), (1,))
def ctl_empty_return_vs_none(x):
    if x:
        return None
    return


@cases(([None],), ([1],), ([2],))
def ctl_nested_if_ends_function(box):
    # 3.10/3.11 lay the inner if's copied `return None` out after the outer one's
    waiter = box[0]
    if waiter is not None:
        box[0] = None
        if waiter != 2:
            box.append(waiter)


@cases((b"aB",), ("aB",))
def ctl_if_else_assign_before_small_return(s):
    # 3.12+ copy the small `return` into both arms: not a conditional expression
    head = len(s)
    if isinstance(s, bytes):
        s = s.upper()
    else:
        s = s.lower()
    return (head, s)


@cases((0, 1), (1, 1), (2, 0), (0, 0))
def ctl_nested_if_else_returns_in_elif(a, b):
    # 3.9 keeps the dead jump after the elif branch: its inner if had an else
    if a == 2:
        return "two"
    elif b:
        if a:
            return "a"
        else:
            return "not a"
    else:
        return "neither"


@cases((None, None), (1, None), (None, 1), (1, 1))
def ctl_not_of_is_and_is(a, b):
    # the outer `not` stays: `a is not None or ...` compiles to other operators
    if not (a is None and b is None):
        return 1
    return 0


@cases((0, 1, 5), (5, 1, 0), (1, 0, 5), (0, 0, 0))
def ctl_chained_test_body_before_cleanup(a, b, c):
    # 3.12+ put the test's body before the chained comparison's clean-up
    if a < b < c:
        return "inc"
    elif a > b > c:
        return "dec"
    return "mixed"


@cases((True, 1), (False, 1), (False, 2), (True, 0))
def ctl_then_branch_falls_into_copied_return(typed, n):
    # 3.12+ copy the small tail into the then-branch; its inner if jumps to the original
    key = [n]
    if typed:
        key.append(1)
        if n:
            key.append(2)
    elif len(key) == 1 and n in (1, 3):
        return key[0]
    return tuple(key)


@cases((0,), (5,), (20,))
def ctl_chained_test_raise_copy(n):
    # the chained comparison's clean-up falls into a copy of the raise
    if n != 0:
        o = n + 1
        if 0 < o <= 10:
            return o * 2
        raise OverflowError("result out of range")
    return None


@cases((False, 1, 1), (False, 1, 0), (True, 1, 1), (False, 0, 0), (True, 0, 1))
def ctl_if_branch_returns_inner_arm_jumps_over_else(follow, src, lch):
    # the then-branch ends in a return, but its other arm jumps over the else (3.10+)
    if not follow and src:
        if lch:
            a = 1
        else:
            return None
    else:
        a = 2
        if src:
            a += 1
        else:
            a -= 1
    return a * 10


@cases(("a/b;c",), ("a/b",), ("ab;c",), ("abc",))
def ctl_if_branch_inner_test_jumps_over_else(url):
    # 3.12+: the inner test's false exit jumps over the else to the shared tail
    if "/" in url:
        i = url.find(";", url.rfind("/"))
        if i < 0:
            return url, ""
    else:
        i = url.find(";")
    return url[:i], url[i + 1 :]


@cases((1, 5, 10), (-1, 5, 10), (-20, 5, 10), (9, 5, 10))
def ctl_if_else_both_end_in_raise_or_return(n, network, broadcast):
    # 3.9: the if without an else ends in a raise (its else would leave a dead jump)
    if n >= 0:
        if network + n > broadcast:
            raise IndexError("address out of range")
        return network + n
    else:
        n += 1
        if broadcast + n < network:
            raise IndexError("address out of range")
        return broadcast + n


@cases((1, []), (0, []))
def ctl_else_pass_then_loop(x, log):
    if x:
        log.append(1)
    else:
        pass  # a NOP the then-branch jumps over
    while log:
        log.pop()
    return log


@cases(*((a, b, c, []) for a in (0, 1) for b in (0, 1) for c in (0, 1)))
def ctl_nested_if_else_in_if_elif_ending_function(a, b, c, log):
    # 3.12 copies the implicit `return None` for the jump of `if c` and for its fall-through
    if a:
        if b:
            log.append(1)
            if c:
                log.append(2)
        else:
            log.append(3)
    elif c:
        log.append(4)


@cases(*((p, o, []) for p in (1, 2, 3) for o in (0, 1)))
def ctl_if_else_of_ternary_calls_ending_function(proto, obj, log):
    # pickle._Pickler.save_bool: the implicit `return None` copied into the first arm (3.10+)
    if proto >= 2:
        log.append("T2" if obj else "F2")
    else:
        log.append("T" if obj else "F")


@cases(({"dest": None}, ["--foo-bar"], ["-f"]), ({"dest": None}, [], ["-f"]), ({"dest": "x"}, ["--a"], []))
def ctl_if_else_assignments_ending_function(state, long_opts, short_opts):
    # optparse.Option._check_dest: both arms assign the same target at the function's end;
    # 3.10 and 3.12+ copy the store and the return into each arm, each on its arm's line
    if state["dest"] is None:
        if long_opts:
            state["dest"] = long_opts[0][2:].replace("-", "_")
        else:
            state["dest"] = short_opts[0][1]


@cases((1, [1, 2]), (3, [1, 2]), (None, [None]))
def ctl_if_not_of_membership_and_identity(x, xs):
    # 3.14+ keep `in`/`is` and invert the jump for `not (...)`; `not in`/`is not` as written
    out = []
    if not (x in xs):
        out.append("absent")
    if x not in xs:
        out.append("not in")
    if not (x is None):
        out.append("some")
    if x is not None and not isinstance(x, str):
        out.append("non-str")
    return out


@cases(([1], 0), ([], 0), ([], 1), ([2, 3], 1))
def ctl_if_not_and_truthy_constant_else(x, g):
    # `not (x and 'ab')`: the folded constant is a jump to the else, the test's true exit,
    # after which the then-branch is laid out; it jumps past the else (3.10+)
    out = []
    if not (x and "ab"):
        if g:
            return "early"
        out.append("then")
    else:
        del x[0]
        out.append("else")
    return out, x


@cases((1, 1, 1, 0), (0, 1, 1, 0), (1, 0, 1, 1), (1, 0, 0, 1), (0, 0, 0, 0), (1, 0, 0, 0))
def ctl_if_ternary_with_constant_false_arm_in_test(a, c, s, v):
    # `c if s else False` inside the test: the folded False is a jump to the outer else arm,
    # which the first arm's jump goes over (3.10+), and the chain goes on past it
    out = [a]
    if a if (c if s else False) else v:
        out.append("then")
    else:
        out.append("else")
    return out


@cases((1, 1, 1, 0, 0), (1, 0, 1, 0, 0), (1, 0, 0, 1, 0), (0, 0, 0, 0, 1), (1, 0, 0, 0, 0), (0, 1, 1, 1, 1))
def ctl_ternary_with_truthy_or_in_test_arm(p, l, v, g, b):
    # `g or 10`: the truthy constant is folded, g's jump and its fall both reach the true exit
    y = p if (l if v else g or 10) else b
    if p if (l if v else g or 10) else b:
        y = [y]
    return y


@cases((1, 0, 0, 0, 5), (0, 1, 0, 0, 5), (0, 0, 1, 0, 5), (0, 0, 0, 1, 5), (0, 1, 1, 0, 0), (1, 0, 0, 0, 0))
def ctl_if_ternary_with_or_of_constant_as_inner_test(l, a, c, b, x):
    # `c or 7` picks the first arm always: c's jump and fall both reach `a`'s test
    if x if l else a if c or 7 or c else b:
        x = (x,)
    return x
