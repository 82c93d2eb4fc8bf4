"""with statements: one or several items, `as` targets incl. tuples, nested, in loops."""

import contextlib

from . import cases, lazy
from ._helpers import CM, Err, Obj
from .exceptions import risky

CONSTRUCT = "with"

KINDS = tuple((k,) for k in (0, 1, 2, -1))


@cases(*KINDS)
def with_simple(k):
    log = []
    with CM(log):
        log.append(risky(k))
    return log


@cases(*KINDS)
def with_as(k):
    log = []
    with CM(log, value=k) as v:
        log.append(("body", v))
        risky(k)
    return log, v


@cases(*KINDS)
def with_as_tuple_target(k):
    log = []
    with CM(log, value=(k, k + 1)) as (a, b):
        log.append(a + b)
    return log, a, b


@cases(lazy(lambda: (Obj(), [0])))
def with_as_attr_and_subscript(o, lst):
    log = []
    with CM(log, value="x") as o.attr, CM(log, value="y") as lst[0]:
        pass
    return log, o, lst


@cases(*KINDS)
def with_several_items(k):
    log = []
    with CM(log, "a") as a, CM(log, "b") as b, CM(log, "c"):
        log.append((a, b))
        risky(k)
    return log


@cases(*KINDS)
def with_nested(k):
    log = []
    with CM(log, "outer"):
        with CM(log, "inner") as inner:
            log.append(inner)
            risky(k)
        log.append("between")
    return log


@cases(*KINDS)
def with_swallowing(k):
    log = []
    with CM(log, swallow=True):
        risky(k)
        log.append("not reached on error")
    log.append("after")
    return log


@cases(*KINDS)
def with_return_inside(k):
    log = []
    with CM(log):
        if k == 0:
            return "returned", log
        risky(k)
    return "end", log


@cases(([0, 1, 0, 2],), ([],))
def with_in_loop_break_continue(ks):
    log = []
    for k in ks:
        with CM(log, str(k), swallow=True):
            if k == 2:
                break
            if k == 0:
                continue
            risky(k)
        log.append("tail")
    return log


@cases(([0, 0, 2],), ([1],), ([0, 0],))
def with_loop_inside_with(ks):
    log = []
    with CM(log):
        for k in ks:
            if k == 2:
                break
            log.append(risky(k))
        else:
            log.append("for else")
    return log


@cases(*KINDS)
def with_and_try(k):
    log = []
    try:
        with CM(log):
            risky(k)
    except ValueError:
        log.append("caught outside")
    finally:
        log.append("finally")
    return log


@cases(*KINDS)
def with_try_inside(k):
    log = []
    with CM(log) as v:
        try:
            risky(k)
        except Exception as e:
            log.append(type(e).__name__)
            return v, log
    return "normal", log


@cases((0,), (1,))
def with_open_file(k):
    import io

    buf = io.StringIO("line1\nline2\n")
    with buf as fh:
        lines = fh.readlines()
    return lines, buf.closed


@cases(*KINDS)
def with_return_value_of_with(k):
    log = []
    with CM(log, value=[k]) as v:
        v.append("mutated")
    return v


@cases(*KINDS)
def with_in_while_with_return(k):
    log = []
    n = 0
    while n < 3:
        n += 1
        with CM(log, str(n)):
            if n == 2 and k == 1:
                return "ret", log
            if n == 2:
                continue
            log.append(n)
    return "end", log


@cases(*KINDS)
def with_multiple_nested_swallow(k):
    log = []
    with CM(log, "outer", swallow=True):
        with CM(log, "inner"):
            risky(k)
    return log


@cases(*KINDS)
def with_no_as_expression_target(k):
    log = []
    managers = [CM(log, "x")]
    with managers[0]:
        log.append(k)
    return log


@cases(*KINDS)
def with_in_handler_then_bare_raise(k):
    log = []
    try:
        log.append(risky(k))
    except Exception:
        with CM(log, "cleanup"):
            log.append("undo")
        raise
    return log


@cases(lazy(lambda: (0, [])), lazy(lambda: (1, [])), lazy(lambda: (2, [])))
def with_if_ends_function(k, log):
    with CM(log):
        log.append("enter")
        if k:
            log.append(risky(k))


@cases(*KINDS)
def with_in_else_arm_of_try(k):
    # 3.11: the if-arm jumps to the try's jump over the with's inline handler
    log = []
    try:
        if k > 0:
            log.append(risky(k))
        else:
            with CM(log):
                log.append(risky(-k))
    except (ValueError, KeyError):
        log.append("caught")
    log.append("end")
    return log


@cases(*KINDS)
def with_suppress_returns_in_body(k):
    # the code after the with is reached only when the exception is suppressed
    with contextlib.suppress(ValueError, KeyError):
        return risky(k)
    log = ["suppressed", k]
    return log


@cases(*KINDS)
def with_try_return_inside(k):
    log = []
    with CM(log):
        try:
            return risky(k), log
        except ValueError:
            log.append("value")
            raise


@cases(*KINDS)
def with_in_try_else_arm_copied_exit(k):
    log = []
    result = False
    try:
        if k % 2:
            result = risky(k)
        else:
            with CM(log):
                result = risky(k)
    except (ValueError, KeyError):
        pass
    return result, log


@cases(*KINDS)
def with_try_finally_return_inside(k):
    log = []
    with CM(log):
        try:
            if k > 1:
                log.append("big")
            else:
                log.append(risky(k))
            return len(log)
        finally:
            log.append("finally")


@cases(*KINDS)
def with_try_in_finally_at_end(k, log=None):
    log = [] if log is None else log
    try:
        log.append(risky(k))
    finally:
        with CM(log):
            try:
                risky(k + 1)
            except:  # noqa: E722
                pass


@cases(*((k, []) for k in (0, 1, 2, -1)))
def with_in_if_else_ending_function(k, log):
    # 3.11 copies the implicit `return None` into the with's normal and suppressed exits
    if k:
        with CM(log, swallow=k > 1):
            log.append(risky(k))
    else:
        log.append("no")


@cases(*((k, [k]) for k in (0, 1, 2, 3)), (1, []))
def with_in_elif_chain_ending_function(k, log):
    if k == 0:
        log.append("zero")
    elif k == 1:
        if log:
            with CM(log, swallow=True):
                log.append(risky(k))
        else:
            log.append("empty")
    elif k == 2:
        log.append("two")
    else:
        log.append("other")


@cases(*((a, b, c, []) for a in (0, 1) for b in (0, 1) for c in (0, 1)))
def with_then_if_in_if_elif_ending_function(a, b, c, log):
    if a:
        if b:
            with CM(log):
                log.append(1)
            if c:
                log.append(2)
        else:
            log.append(3)
    elif c:
        log.append(4)


@cases(*(lazy(lambda k=k: (k, Obj(suppress=contextlib.suppress))) for k in (0, 1, 2)))
def with_param_named_like_imported_module(k, contextlib):
    # 3.11+: the module imports `contextlib`, so calls on that name skip the method form
    log = []
    with contextlib.suppress(ValueError):
        log.append(risky(k))
    return log


@cases((0, [1], []), (1, [1, 2], []), (1, [], []), (2, [], []))
def with_then_elif_for_ending_function(k, items, log):
    # tarfile.TarFile.add: 3.10/3.11 copy the implicit return to the for's exit
    if k == 0:
        with CM(log):
            log.append("reg")
    elif k == 1:
        log.append("dir")
        if items:
            for x in items:
                log.append(x)
    else:
        log.append("other")


@cases(([1, 2, 3, 4],), ([2],), ([],))
def with_break_in_for_before_return(ks):
    # the break's with exit is followed by a copy of the return after the loop
    log = []
    n = 0
    for k in ks:
        with CM(log):
            if k == 3:
                break
            n += k
        log.append(n)
    return n, log


@cases((0, []), (2, []))
def with_retry_loop_return_except_finally(fails, log):
    # a retry loop in a with (3.11+): the clause's path through the finally's copy and the
    # loop's jump back are laid out past the with's body
    n = 0
    with CM(log):
        while True:
            try:
                n += 1
                if n <= fails:
                    raise TimeoutError(n)
                return n
            except TimeoutError as e:
                log.append(("retry", e.args))
            finally:
                log.append(("release", n))


@cases((0, False, []), (1, False, []), (1, True, []), (-1, True, []))
def with_then_raise_ending_function(k, suppress, log):
    # 3.10 copies a small final block, `raise exc`, into the with's normal exit and into its
    # suppressed path
    exc = Err(log)
    with CM(log, swallow=suppress):
        log.append(risky(k))
    raise exc


@cases((0, True, False, []), (1, True, True, []), (0, False, False, []), (-1, True, True, []))
def with_in_if_then_raise_ending_function(k, c, suppress, log):
    exc = Err(log)
    if c:
        with CM(log, swallow=suppress):
            log.append(risky(k))
    raise exc


@cases((0, False, []), (1, False, []), (1, True, []), (-1, True, []))
def with_nested_then_raise_ending_function(k, suppress, log):
    exc = Err(log)
    with CM(log, "outer"):
        with CM(log, "inner", swallow=suppress):
            log.append(risky(k))
    raise exc


@cases((0, []), (1, []), (2, []))
def with_in_try_then_raise_ending_function(k, log):
    exc = Err(log)
    try:
        with CM(log):
            log.append(risky(k))
    except KeyError:
        log.append("key")
    raise exc


@cases(([1, 2, 3],), ([2, 4, 6],), ([],), ([3, 3],))
def with_ending_if_arm_before_else_in_loop(ks):
    # 3.11: the with's exit paths meet at the arm's jump back to the loop head, which was
    # read as the end of the with's handler: the `continue` was lost and the else ran after
    # the with (wrong code)
    log = []
    for k in ks:
        if k % 2:
            with CM(log):
                log.append(k)
        else:
            log.append(-k)
    return log


@cases(([1, 2, 3],), ([2, 4, 6],), ([],), ([3, 3],), ([1, 1, 4],))
def with_continue_arm_then_code_after_back_edge(ks):
    # 3.11+: the elif arm's `continue` is the loop's last reachable jump back; the else arm
    # and the break after the if come after it (refused: that code is not placed; it was
    # dropped before, wrong code)
    log = []
    items = list(ks)
    while True:
        if not items:
            log.append("empty")
        elif items.pop() % 2:
            with CM(log):
                log.append("odd")
            try:
                continue
            except IndexError:  # unreachable (a `continue` cannot raise)
                pass  # unreachable
        else:
            if len(items) > 1:
                log.append("more")
        try:
            break
        except IndexError:  # unreachable (a `break` cannot raise)
            pass  # unreachable
    return log


@cases(([1, 2],), ([],), ([0, 3],))
def with_then_break_ending_while_body(ks):
    # 3.9 threads both exits of the with to where the `break` goes: the with's end was read
    # as the loop body's end, and the loop went round (wrong code)
    log = []
    items = list(ks)
    while items:
        with CM(log):
            log.append(items.pop())
        break
    return log, items


@cases((0, False), (1, False), (1, True), (2, True))
def with_two_items_return(k, swallow):
    # the body returns; an exception the inner manager suppresses ends both withs and the
    # function, that path (the outer exit, `return None`) laid out past the handler code
    # (torch.fx's GraphPickler.dumps)
    log = []
    with CM(log, "outer"), CM(log, "inner", swallow=swallow) as v:
        log.append(v)
        return risky(k), log


@cases((0, False), (1, False), (1, True))
def with_in_with_return(k, swallow):
    log = []
    with CM(log, "outer"):
        with CM(log, "inner", swallow=swallow):
            return risky(k)


@cases((0, False, False), (1, False, True), (1, True, False), (2, True, True))
def with_two_items_then_with_return(k, swallow_mid, swallow_in):
    # three levels: what an exception the innermost suppresses goes on to, both other
    # withs' exits (jumping past the middle one's handler) and `return None`
    # (torch.fx's GraphPickler.loads)
    log = []
    with CM(log, "outer"), CM(log, "mid", swallow=swallow_mid):
        log.append("state")
        with CM(log, "inner", swallow=swallow_in) as v:
            log.append(v)
            return risky(k)


@cases(([1, 3, 4, 7], {1, 3, 7}, True, True), ([1, 3, 4], {1, 3}, True, False), ([3, 5], set(), False, False))
def with_suppressing_in_try_in_if_arm_of_loop(items, seen, strict, swallow):
    # an exception the manager suppresses goes round the loop (the arm's end), not on to
    # the code after the if (3.13+ jump there straight from the handler code)
    # (torch.nn.Module._load_from_state_dict)
    log = []
    for key in items:
        if key in seen:
            try:
                with CM(log, swallow=swallow):
                    if key > 2:
                        raise ValueError(key)
                    log.append(key)
            except Exception as ex:
                log.append(("ex", ex.args))
        elif strict:
            log.append(("missing", key))
    return log


@cases((0, False, "r"), (1, False, "r"), (1, True, "r"), (0, True, None))
def with_return_in_if_arm_then_return(k, swallow, r):
    # the with ends the if's arm by returning: an exception it suppresses goes on where
    # the if does, at a copy of the return after it (torch._dynamo.eval_frame's
    # guard_collectives_hook)
    log = []
    if r:
        with CM(log, swallow=swallow):
            log.append(k)
            return risky(k), log
    return r, log


@cases((0, False, "r"), (1, True, "r"), (0, True, None))
def with_return_in_if_arm_then_raise(k, swallow, r):
    log = []
    if r:
        with CM(log, swallow=swallow):
            return risky(k), log
    raise KeyError(r, tuple(log))


@cases((0, True, True), (1, True, True), (1, False, True), (0, True, False))
def with_return_then_rest_in_if_arm(k, swallow, go):
    # the body never ends normally: the rest of the arm runs only when the with swallows an
    # exception (3.11 lays it out after the handler, 3.12+ past the function's code)
    log = []
    if go:
        with CM(log, swallow=swallow):
            return risky(k), log
        log.append("rest")
    log.append("after")
    return log


@cases(([0, 1, 3],), ([1, 1],), ([],), ([3, 0],))
def with_return_then_rest_in_loop(ks):
    log = []
    for k in ks:
        if k:
            with CM(log, swallow=True):
                return risky(k), log
            log.append(("rest", k))
            if k > 2:
                log.append("big")
                continue
        log.append(("end", k))
    return log


@cases(([0, 1, 1],), ([1] * 12,), ([],), ([0, 2],))
def with_return_then_withs_in_while(ks):
    # the rest after the with holds withs of its own, an if/else of them (3.12+: its code and
    # their handlers all laid out past the loop, going back to the code after the if)
    log = []
    items = list(ks)
    n = 0
    while n < 9:
        n += 1
        if items:
            with CM(log, swallow=True):
                return risky(items.pop()), log
            if n % 2:
                with CM(log, "a"):
                    log.append(n)
            else:
                with CM(log, "b"):
                    log.append(-n)
        log.append("tail")
    return log


@cases(([1, 1, 0],), ([0],), ([],), ([1, 0, 1],))
def with_continue_then_rest_in_while(ks):
    # `continue` ends the with's body: the code after the statement, reached only when an
    # exception is swallowed, is the loop body's end (it was read as the with's follow)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 5 or not items:
            break
        n += 1
        with CM(log, swallow=True):
            log.append(10 // items.pop())
            continue
        log.append(("swallowed", n))
    return log


@cases((0,), (1,), (2,))
def with_ending_except_clause(k):
    # 3.13+ copy the clause's end (`POP_EXCEPT; JUMP`) after the with's normal exit and into
    # the path of a swallowed exception
    log = []
    try:
        risky(k)
    except (ValueError, KeyError):
        with CM(log, swallow=True):
            log.append(risky(k - 1))
    log.append("after")
    return log


@cases(([1, 1, 0],), ([1, 1],), ([0],))
def with_break_ending_except_clause_in_loop(ks):
    # the with's body breaks: the clause's end runs only when the with swallows an exception
    log = []
    for k in ks:
        try:
            risky(k)
        except ValueError:
            with CM(log, swallow=True):
                log.append(risky(ks[-1]))
                break
        log.append(k)
    return log


@cases(([1, 0, 1],), ([0],), ([],))
def with_raising_in_with_ending_loop_body(ks):
    # the inner with's body never ends normally: a swallowed exception goes on to the outer
    # with's exit (3.12+ lay that copy past the handlers), the end of the outer body
    log = []
    items = list(ks)
    while True:
        if not items:
            break
        if items.pop():
            with CM(log, "a"):
                with CM(log, "b", swallow=True):
                    raise KeyError("k")
    return log


@cases(([1, 0, 2],), ([0, 0],), ([],))
def with_return_then_rest_in_while_true(ks):
    # the body returns: the rest of the loop body runs only when the with swallows an
    # exception, and only from there does the loop go round (3.12+: code past the function's)
    log = []
    items = list(ks)
    while True:
        with CM(log, swallow=True):
            return 10 // (items.pop() if items else 5), log
        log.append(("swallowed", len(items)))


@cases(([1, 0, 2],), ([0],), ([1, 1, 1, 1, 1, 1, 1, 0],), ([],))
def with_return_then_rest_in_try_in_while_true(ks):
    # as above inside a try: the rest's jump to the try's follow is left unprotected
    log = []
    items = list(ks)
    while True:
        try:
            with CM(log, swallow=True):
                return 10 // (items.pop() if items else 5), log
            log.append(items[5])
        except IndexError:
            log.append("index")


@cases(([1, 0, 2],), ([0, 0],), ([],))
def with_return_then_rest_in_for(ks):
    # as with_return_then_rest_in_while_true in a for loop (its break pops the iterator)
    log = []
    for k in ks:
        with CM(log, swallow=True):
            return 10 // k, log
        log.append(("swallowed", k))


@cases((0, 0), (1, 0), (3, 0), (2, 1))
def with_break_ending_body_in_while(n, k):
    # 3.9: the break's exit is the with's last one (its normal exit is dead code), and a
    # suppressed exception goes round the loop
    log = []
    while n:
        n -= 1
        with CM(log, swallow=True):
            log.append(risky(k))
            break
    return log, n


@cases((0, 0), (1, 0), (3, 0), (2, 1), (3, 1))
def with_break_ending_body_in_if_then_rest(n, k):
    # 3.10: the with's normal exit is the break (a jump to the loop's follow), a suppressed
    # exception goes on to the code after the with
    log = []
    while n:
        n -= 1
        if n % 2:
            with CM(log, swallow=True):
                log.append(risky(k))
                break
            log.append(("swallowed", n))
    log.append("after")
    return log, n


@cases((0, 0), (1, 0), (3, 0), (2, 1), (3, 1))
def with_break_into_copied_follow(n, k):
    # 3.10: the break's jump is replaced by a copy of the small block after the loop
    log = []
    while n:
        n -= 1
        if n % 2:
            with CM(log, swallow=True):
                log.append(risky(k))
                break
            log.append(("swallowed", n))
    return log, n


@cases((0, 0), (1, 0), (2, 1), (3, 1))
def with_break_through_nested_withs_forever(n, k):
    # 3.10: the break leaves two withs, each exit copied, then a copy of the code after a
    # `while True:` that no jump reaches
    log = []
    while True:
        if n <= 0:
            break
        n -= 1
        with CM(log, "outer"):
            with CM(log, "inner", swallow=True):
                log.append(risky(k))
                break
            log.append(("swallowed", n))
    return log, n


@cases((0, 0), (1, 0), (2, 1))
def with_return_constant_in_while_true(n, k):
    # 3.10: `return 5` after the exit call looks like a copied follow; a suppressed
    # exception goes round the loop
    log = []
    while True:
        if n <= 0:
            break
        n -= 1
        with CM(log, swallow=True):
            log.append(risky(k))
            return 5
    log.append("after")
    return log, n


@cases((0, 0), (1, 0), (1, 1))
def with_return_constant_then_rest(a, k):
    log = []
    if a:
        with CM(log, swallow=True):
            log.append(risky(k))
            return 5
        log.append("swallowed")
    return log


@cases((0, 0), (1, 0), (3, 0), (3, 1))
def with_ending_try_whose_finally_returns(n, k):
    # 3.10: both exits of the with go on to a copy of the try's normal exit (its finally
    # body, which returns)
    log = []
    for i in range(n):
        if i % 2:
            try:
                with CM(log, swallow=True):
                    log.append(risky(k))
            finally:
                log.append("f")
                return -i, log  # noqa: B012
        log.append(i)
    return log


@cases(([1], 0, 0, []), ([1], 0, 1, []), ([1], 1, 1, []), ([], 0, 0, []))
def with_return_through_finally_holding_if(ks, k, c, log):
    # 3.10: the return's path (the inner finally body's copy, which holds an if, then the
    # outer one's, then the return) is copied into both arms of that if
    for i in ks:
        try:
            try:
                with CM(log):
                    log.append(risky(k))
                    return 1
            finally:
                if c:
                    log.append("c")
        finally:
            log.append("f")
    return 2


@cases(([1, 2, 0],), ([],), ([1, 1],))
def with_try_else_return_then_rest_in_for(ks):
    # 3.12+: the body ends normally only through its except clause; the code after the
    # statement is laid out past the with's handler and reached first from that clause
    log = []
    for k in ks:
        with CM(log, swallow=k == 2):
            try:
                risky(k)
            except ValueError:
                log.append("caught")
            else:
                return "returned", log
        log.append(("after", k))


@cases((0, 0, True), (1, 0, True), (1, 2, True), (1, 2, False))
def with_return_then_rest_in_except_clause(k, j, swallow):
    # the with's body never ends normally: the rest of the clause runs only when the with
    # swallows an exception (3.11 runs on from the handler into the clause's end,
    # POP_EXCEPT; JUMP, which its clean-up no longer covers)
    log = []
    try:
        log.append(risky(k))
    except ValueError:
        with CM(log, swallow=swallow):
            return risky(j), log
        log.append("rest")
    log.append("after")
    return log


@cases((0, 0, True), (1, 0, True), (1, 2, True), (1, 2, False))
def with_return_then_rest_in_named_except_clause(k, j, swallow):
    # as with_return_then_rest_in_except_clause, the clause's end clearing its name
    log = []
    try:
        log.append(risky(k))
    except ValueError as e:
        log.append(e.args)
        with CM(log, swallow=swallow):
            return risky(j), log
        log.append("rest")
    log.append("after")
    return log


@cases((0, 0, True), (1, 0, True), (0, 1, True), (0, 1, False), (0, 0, False))
def with_ending_finally_body_then_rest(k, j, swallow):
    # the finally body ends in a with: 3.10 copies the body's re-raise into the with's
    # normal exit in the exception-path copy, where the inlined copy jumps to its end
    log = []
    try:
        log.append(risky(k))
    finally:
        with CM(log, swallow=swallow):
            log.append(risky(j))
    if swallow:
        log.append("rest")
    return log


@cases((0, 0, True), (1, 0, True), (2, 0, True), (1, 1, False), (1, 1, True))
def with_exit_at_clause_end(k, j, swallow):
    # the with's body returns but for its except clause: the with's normal exit (3.10: its
    # exit call and the jump past its handler) lies at the clause's end
    log = []
    with CM(log, swallow=swallow):
        try:
            return risky(k), log
        except ValueError:
            log.append(risky(j))
        except KeyError:
            pass
    if swallow:
        log.append("after")
    return log


@cases((1, 1, True), (1, 2, True), (8, 8, True), (1, 1, False))
def with_raises_then_chained_compare(a, b, swallow):
    # as exc_raise_caught_then_chained_compare: only a suppressed exception reaches the rest
    log = []
    with CM(log, swallow=swallow):
        raise ValueError(a)
    return a == b < 7, log


@cases((0, True, []), (1, True, []), (1, False, []))
def with_nested_return_then_rest_of_outer(k, swallow, log):
    # the inner with never ends normally: the rest of the outer body runs only when it
    # swallows an exception, laid out past its handler (3.12+) and running on into the
    # outer with's exit and the function's end
    with CM(log, "outer"):
        with CM(log, "inner", swallow=swallow):
            return risky(k)
        log.append("rest")


@cases(([0, 1],), ([1, 0],), ([],))
def with_break_in_for_then_rest(ks):
    # the with's body only breaks: the rest of the loop body runs when it swallows, and
    # the break goes on into a copy of the code after the loop
    log = []
    for k in ks:
        with CM(log, swallow=True):
            log.append(risky(k))
            break
        log.append(k)
    return log


@cases(([0, 1], True), ([1, 0], True), ([1], False), ([], True))
def with_nested_continue_or_return_in_for(ks, swallow):
    # nested withs whose inner body continues, then returns from the outer one: the
    # return is reached only when the inner with swallows an exception
    log = []
    for k in ks:
        with CM(log, "outer", swallow=swallow):
            with CM(log, "inner", swallow=swallow):
                log.append(risky(k))
                continue
            return ("r", log)


@cases((0, True), (1, True), (1, False))
def with_return_ending_try_body_then_finally(k, swallow):
    # the with's body never ends normally: a swallowed exception runs on into the normal
    # exit's copy of the finally body (3.11 lays the with's handler out inline before it)
    log = []
    try:
        with CM(log, swallow=swallow):
            return risky(k), log
    finally:
        log.append("f")
    log.append("after")
    return log


@cases(([1, 2], 0, True), ([1, 2], 1, True), ([1, 2], 1, False), ([], 0, True))
def with_return_ending_try_body_in_loop(ks, k, swallow):
    # as with_return_ending_try_body_then_finally, the finally body holding an if, in a loop
    log = []
    for i in ks:
        try:
            with CM(log, swallow=swallow):
                return risky(k), log
        finally:
            log.append("f")
            if i > 1:
                log.append("g")
        log.append(i)
    return log
