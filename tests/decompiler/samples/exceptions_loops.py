"""try/except/else/finally inside loops: break, continue and return in every part."""

from . import cases
from ._helpers import CM, Err
from .exceptions import risky

CONSTRUCT = "exceptions"

SEQS = (
    ([0, 1, 2, 3],),
    ([1, 1],),
    ([0, 4, 5, 0],),
    ([],),
    ([2, 0, 3],),
    ([0, -1, 6, 2],),
    ([0, 3, 1],),
)


@cases(*SEQS)
def exl_else_if_ending_for_body(ks):
    # 3.13: the if's false exit reaches the loop's back edge, not the head
    log = []
    for k in ks:
        try:
            ok = risky(k)
        except ValueError as e:
            raise KeyError(k) from e
        else:
            if not ok:
                log.append(k)
    return log


@cases(*SEQS)
def exl_else_if_return_ending_for_body(ks):
    log = []
    for k in ks:
        log.append(k)
        try:
            v = risky(k)
        except (ValueError, KeyError):
            pass
        else:
            if v:
                return v, log
    return log


@cases(*SEQS)
def exl_except_continue_then_if_ending_body(ks):
    # 3.13: not an else (that would end in a second jump back)
    first = None
    for k in ks:
        try:
            v = risky(k)
        except ValueError:
            continue
        if first is None:
            first = v
    return first


@cases(*SEQS)
def exl_except_continue_in_if(ks):
    # the clause's jump back is a `continue`: the code after the if runs otherwise
    log = []
    for k in ks:
        if k % 2:
            try:
                v = risky(k)
            except ValueError:
                continue
            log.append(v)
        log.append("m")
    return log


@cases(*SEQS, ([0, 0, 0],), ([0, 0],))
def exl_while_true_try_then_if_raise(ks):
    log = []
    i = 0
    while True:
        try:
            v = risky(ks[i])
        except IndexError as e:
            raise KeyError(i) from e
        log.append(v)
        i += 1
        if len(log) > 2:
            break
        if v < 0:
            raise ValueError(log)
    return log



@cases(*SEQS)
def exl_break_in_try(ks):
    log = []
    for k in ks:
        try:
            if k == 2:
                break
            log.append(risky(k))
        except ValueError:
            log.append("v")
    return log


@cases(*SEQS)
def exl_continue_in_try(ks):
    log = []
    for k in ks:
        try:
            if k == 0:
                continue
            log.append(risky(k))
        except Exception as e:
            log.append(type(e).__name__)
    return log


@cases(*SEQS)
def exl_break_in_except(ks):
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        except KeyError:
            log.append("break")
            break
        except Exception:
            log.append("continue")
            continue
        log.append("end of body")
    else:
        log.append("loop else")
    return log


@cases(*SEQS)
def exl_break_in_finally(ks):
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        finally:
            log.append("finally")
            if k == 3:
                break  # noqa: B012 - swallows the exception
    return log


@cases(*SEQS)
def exl_continue_in_finally(ks):
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        except ValueError:
            log.append("v")
        finally:
            if k:
                continue  # noqa: B012
            log.append("fin k=0")
    return log


@cases(*SEQS)
def exl_break_continue_in_else(ks):
    log = []
    for k in ks:
        try:
            r = risky(k)
        except Exception:
            log.append("exc")
        else:
            if r == 0:
                continue
            if r > 20:
                break
            log.append(r)
    return log


@cases(*SEQS)
def exl_return_in_loop_try(ks):
    for k in ks:
        try:
            if risky(k) > 15:
                return "big", k
        except (ValueError, Err):
            return "error", k
        except Exception:
            continue
        finally:
            print("finally", k)
    return "done"


@cases(*SEQS)
def exl_while_try(ks):
    i = 0
    out = []
    while i < len(ks):
        try:
            out.append(risky(ks[i]))
        except ZeroDivisionError:
            break
        except Exception:
            pass
        finally:
            i += 1
    else:
        out.append("while else")
    return out, i


@cases(*SEQS)
def exl_try_around_loop(ks):
    out = []
    try:
        for k in ks:
            out.append(risky(k))
    except Exception as e:
        out.append(("stopped", type(e).__name__))
    else:
        out.append("all ok")
    finally:
        out.append("end")
    return out


@cases(*SEQS)
def exl_nested_loops_with_try(ks):
    out = []
    for k in ks:
        for j in range(2):
            try:
                if j == 1 and k == 0:
                    break
                out.append(risky((k + j) % 6))
            except ValueError:
                continue
            except Exception:
                break
            finally:
                out.append("f")
    return out


@cases(*SEQS)
def exl_retry_loop(ks):
    attempts = list(ks)
    tries = 0
    while True:
        tries += 1
        try:
            k = attempts.pop(0)
            value = risky(k)
        except IndexError:
            return "exhausted", tries
        except Exception:
            continue
        else:
            return value, tries


@cases(*SEQS)
def exl_finally_with_return_in_loop(ks):
    log = []
    for k in ks:
        try:
            if k == 3:
                return log
        finally:
            log.append(k)
    return log


@cases(*SEQS)
def exl_except_continue_ends_body(ks):
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        except (ValueError, KeyError):
            continue
    return log


@cases(*SEQS)
def exl_try_else_ends_body(ks):
    log = []
    for k in ks:
        try:
            v = risky(k)
        except (ValueError, KeyError):
            pass
        else:
            log.append(v)
    return log


@cases(*SEQS)
def exl_except_continue_then_code(ks):
    log = []
    for k in ks:
        try:
            v = risky(k)
        except (ValueError, KeyError):
            continue
        log.append(v)
    return log


@cases(*SEQS)
def exl_loop_starts_with_try_else_break(ks):
    i = 0
    while True:
        try:
            v = risky(ks[i])
        except (ValueError, KeyError):
            i += 1
            if i >= 2:
                raise
        else:
            break  # unreachable as a line on 3.9, which threads the else's jump past it
    print("done")
    return v, i


@cases(*SEQS)
def exl_break_in_except_copied_return(ks):
    log = []
    for k in ks:
        if k < 0:
            break
        try:
            v = risky(k)
        except (KeyError, ValueError):
            break
        log.append(v)
    return tuple(log)


@cases(*SEQS)
def exl_while_try_bare_except_ends_body(ks):
    items = list(ks)
    log = []
    while items:
        k = items.pop()
        try:
            if risky(k):
                log.append(k)
        except:  # noqa: E722
            log.append("err")
    return log


@cases(*SEQS)
def exl_return_from_clause_in_for(ks):
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        except KeyError:
            return log[:1]
    return log


@cases(*SEQS)
def exl_break_from_nested_clause(ks):
    log = []
    for k in ks:
        try:
            risky(k)
        except KeyError:
            try:
                risky(k - 1)
            except ValueError:
                break
        log.append(k)
    return log


@cases(*SEQS)
def exl_break_inner_loop_from_clauses(ks):
    # tempfile._get_default_tempdir: a break in a clause leaves the inner loop,
    # whose exit goes round the outer one; 3.12+ move the clause (and its jump,
    # threaded to the outer loop's head) to the end of the function
    log = []
    for d in ks:
        for seq in range(2):
            try:
                log.append(risky(d + seq))
            except KeyError:
                pass
            except ValueError:
                if d == 0:
                    continue
                break
            except ZeroDivisionError:
                break
            log.append("next")
    return log


@cases(*SEQS)
def exl_if_try_except_finally_ends_body(ks):
    # the finally's normal-path copy is followed by the loop's back edge, which
    # the if also jumps to: the back edge is not the try's (logging.shutdown)
    log = []
    for k in ks:
        try:
            if k:
                try:
                    log.append(risky(k))
                except (ValueError, KeyError):
                    pass
                finally:
                    log.append("f")
        except:  # noqa: E722
            if k > 3:
                log.append("err")
            else:
                raise
    return log


@cases(*SEQS)
def exl_if_raise_ends_branch_then_elif(ks):
    # 3.12+: the inner if's false path jumps to the loop head through a jump the
    # compiler adds outside the try's range (gettext.c2py)
    depth = 0
    try:
        for k in ks:
            if k > 1:
                depth += k
                if depth > 8:
                    raise Err("deep")
            elif k == 1:
                depth -= 1
    except Err:
        return "err", depth
    return depth


@cases(*SEQS)
def exl_if_in_branch_falls_off_body_else(ks):
    log = []
    try:
        for k in ks:
            if k:
                log.append(k)
                if k > 2:
                    log.append(risky(k - 2))
            else:
                log.append("zero")
    except ValueError:
        log.append("v")
    return log


@cases(*SEQS)
def exl_try_ends_elif_before_else(ks):
    # the try ends an elif branch: its jumps to the loop head skip the else
    # (ipaddress.collapse_addresses; once read as falling into the else)
    log = []
    for k in ks:
        if k > 4:
            log.append("big")
        elif k > 0:
            try:
                log.append(risky(k))
            except (ValueError, KeyError):
                log.append("caught")
        else:
            log.append("else")
    return log


@cases(*SEQS)
def exl_written_continue_in_loop_in_try(ks):
    # 3.12+: a written `if not t: continue` in a loop inside a try is protected
    # like its test; the last if's false path, made by the compiler, is not
    # (shutil._unpack_zipfile)
    log = []
    try:
        for k in ks:
            v = risky(k)
            if not v:
                continue
            log.append(v)
            if v > 20:
                log.append("big")
    except ValueError:
        log.append("v")
    return log


@cases((1, 1, 1), (1, 1, 0), (0, 1, 0), (1, 0, 0))
def exl_retry_loop_in_if_arm(k, first, retries):
    # zipfile.ZipFile.__init__: the loop goes round only from a clause's continue
    # (3.12+ move the clause to the end); its break jumps past the if's else
    log = []
    if first:
        while True:
            try:
                log.append(risky(k))
            except ValueError:
                if retries:
                    retries -= 1
                    k = 0
                    continue
                raise
            break
    else:
        log.append("else")
    log.append("after")
    return log


@cases(*SEQS)
def exl_break_through_finally_before_return(ks):
    # subprocess.Popen._wait: a break through a finally copy continues with a
    # copy of the return after the loop (3.10+ copy small exit blocks)
    log = []
    n = 0
    while n < len(ks):
        try:
            if ks[n] == 3:
                break
            log.append(risky(ks[n]))
        finally:
            n += 1
        log.append(n)
    return n, log


@cases(*SEQS)
def exl_continues_then_if_with_in_try_finally(ks):
    # 3.13 leave the compiler's jump to the head and its test (after a call:
    # TO_BOOL) unprotected (shutil._unpack_zipfile)
    log = []
    try:
        for k in ks:
            if k == 3:
                continue
            v = k * 2
            if not v:
                continue
            log.append(v)
            if not str(v).endswith("4"):
                with CM(log):
                    log.append("big")
    finally:
        log.append("done")
    return log


@cases(*SEQS)
def exl_while_test_try_else_return(ks):
    # 3.12+: the while test is copied after the handlers, reached only from the clause
    items = list(ks)
    while items:
        try:
            v = risky(items.pop())
        except Exception:
            pass
        else:
            return v
    return "none"


@cases(([[1, 4], [2, 3], []], None), ([[5], [1, -2]], abs), ([], None), ([[7]], None))
def exl_while_ranges_hold_the_rest(lists, key):
    # heapq.merge (3.12+): each while test is copied after its try's handlers (only the clause
    # reaches it), so the code after the first loop, and the whole second half, lie inside
    # that loop's range
    its = [iter(x) for x in lists]
    out = []
    if key is None:
        while len(its) > 1:
            try:
                while True:
                    v, w = s = next(its[0]), len(its)
                    out.append((v, w, s))
            except StopIteration:
                its.pop(0)
        if its:
            out.extend(its[0])
        return out
    while len(its) > 1:
        try:
            while True:
                out.append(key(next(its[-1])))
        except StopIteration:
            its.pop()
    return out


@cases((0, []), (2, []))
def exl_retry_return_except_finally(fails, log):
    # a retry loop (asyncio style): the body returns, so 3.11+ lay the copy of the finally
    # body on the normal exit with the clause's code, and 3.12+ the loop's jump back after it
    n = 0
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


@cases(*SEQS)
def exl_while_true_try_except_continue(ks):
    items = list(ks)
    while True:
        try:
            return risky(items.pop())
        except IndexError:
            return "empty"
        except Exception:
            continue


@cases(([1, 0, 1, 1],), ([0, 0, 1, 0, 1, 1],), ([1, 1],))
def exl_forever_break_through_finally_only_exit(flags):
    # subprocess.Popen._wait's shape: the loop's only exits are breaks through a finally, so
    # 3.10+ keep no code after the loop but the copies of it behind each break
    log = []
    it = iter(flags)
    while True:
        if next(it):
            try:
                if len(log) > 3:
                    break
                log.append("try")
            finally:
                log.append("finally")
        log.append("sleep")
    return log


@cases(([1, 0, 1, 1, 1],), ([0, 1, 1, 0, 1, 1, 1],), ([1, 1, 1, 1, 1],))
def exl_forever_two_breaks_through_finally(flags):
    log = []
    it = iter(flags)
    while True:
        try:
            if not next(it):
                break
            if len(log) > 4:
                log.append("full")
                break
            log.append("try")
        finally:
            log.append("finally")
    return log


@cases(([0, 0, 1],), ([1],), ([0, 1, 1],))
def exl_forever_try_ends_in_break_if(flags):
    # subprocess.Popen._wait's loop: the try body ends `if c: break`, whose false exit 3.12+
    # lay out after the break's copies (the finally body's, then the return's)
    log = []
    it = iter(flags)
    while True:
        try:
            if next(it):
                break
        finally:
            log.append("finally")
        log.append("sleep")
    return log


@cases((None, [1]), (1, [0, 1]), (2, [0, 0, 1]))
def exl_forever_break_through_finally_in_if_arm(timeout, flags):
    log = []
    it = iter(flags)
    if timeout is not None:
        while True:
            try:
                if next(it):
                    break
            finally:
                log.append("finally")
            log.append("sleep")
    return log


@cases((None, [1]), (1, [0, 1]), (None, [0, 0, 1]))
def exl_forever_break_through_finally_in_if_else(timeout, flags):
    # Popen._wait whole: the arm's loop never falls off its end, so no jump over the else is
    # left; where the breaks go (3.9, 3.11) or the copies behind them (3.10, 3.12+) end the else
    log = []
    it = iter(flags)
    if timeout is not None:
        while True:
            try:
                if next(it):
                    break
            finally:
                log.append("finally")
            log.append("sleep")
    else:
        while not log or log[-1] != "done":
            with CM(log):
                if next(it):
                    log.append("done")
                    break
    return log


@cases(([3],), ([2, 3],), ([2, 2, 0],))
def exl_forever_return_from_try_falls_back(ks):
    # the loop's head is a try body that returns: only the handler comes back to it (no jump
    # back to a copied return; see test_exceptions.py::test_retry_loop_returning_from_try)
    it = iter(ks)
    while True:
        try:
            return risky(next(it))
        except KeyError:
            ks.append("again")


@cases(([0, 2, 0], [{}, {20: "base"}]), ([0, 2], [{}]), ([], []))
def exl_for_else_continue_ends_clause(keys, bases):
    # inspect._getmembers (3.13): the clause ends in a for-else; 3.13 copies the clause's end
    # (POP_EXCEPT; jump) into the inner loop's break
    out = []
    for key in keys:
        try:
            value = risky(key)
        except KeyError:
            for base in bases:
                if key * 10 in base:
                    value = base[key * 10]
                    break
            else:
                continue
        out.append(value)
    return out


@cases(([0, 2, 0], [{}, {20: "base"}]), ([2, 2], [{}]), ([], []))
def exl_for_else_return_ends_named_clause(keys, bases):
    # the same with a named clause (its name cleanup is part of the copied end) and an else
    # that returns
    out = []
    for key in keys:
        try:
            value = risky(key)
        except KeyError as e:
            for base in bases:
                if key * 10 in base:
                    value = (base[key * 10], str(e))
                    break
            else:
                return None
        out.append(value)
    return out


@cases(([0, 2, 2], [20, 30], {2}), ([2], [5], {2}), ([2], [5], set()), ([], [], set()))
def exl_for_break_ends_clause_in_if(keys, candidates, known):
    # enum._simple_enum (3.13): a for loop ending an if that ends a clause; 3.13 copies the
    # clause's end into the loop's break
    out = []
    for key in keys:
        try:
            found = risky(key)
        except KeyError:
            found = None
            if key in known:
                for c in candidates:
                    if c == key * 10:
                        found = c
                        break
        if found is not None:
            out.append(found)
        else:
            out.append("none")
    return out


@cases((0, 0), (1, 0), (1, 2), (1, 1))
def exl_retry_loop_in_clause(a, b):
    # a retry loop as an except clause's body: 3.11 lays the loop's back edge out after the
    # inner try's handlers
    log = []
    try:
        log.append(risky(a))
    except ValueError:
        tries = 0
        while True:
            try:
                log.append(risky(b if tries == 0 else 0))
                break
            except KeyError:
                tries += 1
    return log


@cases((0, 0), (1, 0), (1, 2), (1, 1), (0, 2))
def exl_retry_loop_if_else_in_clause(a, b):
    # exl_retry_loop_in_clause with an if/else statement in the loop's try: 3.14+ leave the
    # loop's one jump back at the inner clause's end; the jump over the else is no break
    log = []
    try:
        log.append(risky(a))
    except ValueError:
        tries = 0
        while True:
            try:
                if tries == 0:
                    v = risky(b)
                else:
                    v = risky(0)
                log.append(v)
                break
            except KeyError:
                tries += 1
    return log


@cases(*SEQS)
def exl_while_test_clause_continue_then_raise(ks):
    # only the clause goes round: 3.14+ (no copy of the test at the bottom) lay the code after
    # the loop, a raise, inside the loop's range, right after the try body's return
    items = list(ks)
    while items:
        try:
            v = risky(items.pop())
        except KeyError:
            continue
        return v
    raise LookupError("none")


@cases(*SEQS)
def exl_for_first_try_break_or_raise(ks):
    # enum.Flag._generate_next_value_'s shape: the loop never goes round (the try breaks, the
    # clause raises); the clause's raise read as a copy of a `break` until the fifteenth
    # session (refused on 3.9 and 3.11)
    high = None
    for k in reversed(ks):
        try:
            high = risky(k)
            break
        except ValueError:
            raise TypeError("bad value %r" % k) from None
    return high


@cases(*SEQS)
def exl_for_try_then_break(ks):
    # the break after the try (3.9 refused it: the clause's pops read as the iterator's)
    got = None
    for k in ks:
        try:
            got = risky(k)
        except ValueError:
            raise KeyError(k) from None
        break
    return got


@cases(([1, 1, 1],), ([0, 1],), ([],), ([1, 1, 1, 1],), ([2],), ([3, 1],))
def exl_forever_clause_continues_then_raises(ks):
    # tarfile.TarFile.next: a clause goes round with `continue` in one arm and raises in the
    # other; 3.9/3.10 lay the rest of the clause after that jump back, the loop's last
    items = list(ks)
    skipped = []
    got = None
    while True:
        try:
            got = risky(items.pop())
        except IndexError:
            got = None
        except ValueError as e:
            if len(skipped) < 2:
                skipped.append(str(e))
                continue
            elif not items:
                raise KeyError("no more") from None
        break
    if got is not None:
        skipped.append(got)
    return skipped


@cases(*SEQS)
def exl_forever_clause_breaks_to_the_return(ks):
    # 3.11: only the clause's `break` reaches the code after the `while True`, which the
    # handler's clean-up once took for its own code: the return was dropped (wrong code)
    items = list(ks)
    seen = []
    while True:
        try:
            k = items.pop()
        except IndexError:
            break
        seen.append(risky(k))
    return seen, len(items)


@cases(*[(seq, []) for (seq,) in SEQS], ([2, 0, 1], []), ([5], []), ([0], []), ([3, 3, 2, 1, 0, 0], []))
def exl_else_try_breaks_ending_function(ks, log):
    # 3.11: the loop ends the function, so the else's `break` is a copied `return None`, and
    # only the clauses reach the loop's test: the else (a try in a try, then a statement)
    # was dropped unread, and its try taken for one ending the try body
    items = list(ks)
    while items:
        if len(items) > 4:
            log.append("long")
        try:
            if risky(items.pop()) > 15:
                try:  # unreachable
                    pass  # unreachable (compiled to nothing: the if's both ways meet at the else)
                except KeyError:  # unreachable
                    log.append("never")  # unreachable
        except ValueError:
            log.append("v")
        else:
            try:
                try:
                    log.append(risky(items.pop()))
                    break
                except IndexError:
                    log.append("empty")
            except KeyError:
                log.append("k")
            log.append("after")


@cases(*SEQS)
def exl_continue_in_with_in_try_with_else(ks):
    # 3.9: the `continue` ending a with inside a try body with an else was taken for the loop
    # body's own jump back, and dropped: the else then ran for every item (wrong code)
    log = []
    for k in ks:
        try:
            with CM(log):
                log.append(risky(k))
                continue
        except ValueError:
            break
        else:
            log.append("else")  # unreachable (what the wrong reading ran)
    return log


@cases(([1, 1, 0],), ([1, 2],), ([],), ([3, 1],), ([0],))
def exl_clause_continue_before_return(ks):
    # 3.12+: the loop body ends in a return after the try, but the outer try ended the walk
    # of the body, so the inner clause's `continue` read as the body's end and was dropped
    # (wrong code: the return ran instead of going round)
    log = []
    items = list(ks)
    while True:
        try:
            try:
                with CM(log):
                    pass
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    continue
            except IndexError:
                return "r", log
        except KeyError:
            log.append("k")
        return log


@cases(*SEQS)
def exl_except_continue_then_return_in_while(ks):
    # the clause's `continue` is the loop's last jump back and the return after the try comes
    # after it; the try's normal exit to that return read as a break
    log = []
    items = list(ks)
    while items:
        try:
            with CM(log):
                log.append(risky(items.pop()))
        except (ValueError, KeyError):
            continue
        return "r", log
    return log


@cases(([0],), ([0, 0],), ([],), ([1] * 15,), ([0, 1],), ([2],), ([0, 0, 1],))
def exl_clause_continue_then_conditional_back_edge(ks):
    # 3.12+: the if's `continue` is folded into a conditional jump back, the loop's last jump
    # outside the handler code; its fall-through leaves the loop.  The clause's `continue`
    # was read as falling off the clause, and the code after the try as its else followed
    # by a break (wrong code)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            log.append(risky(items.pop()))
        except (IndexError, ValueError):
            if not items:
                return "empty", log
            continue
        if len(items) % 2:
            continue
        return "r", log
    return log


@cases(([1, 2],), ([],), ([0],))
def exl_try_finally_break_ending_while_body(ks):
    # 3.9: the break's path (POP_BLOCK, the finally copy, a jump out) read as the try's
    # normal exit, whose own copy is dead code, and the jump out as falling off the body: the
    # loop went round (wrong code)
    log = []
    items = list(ks)
    while items:
        try:
            log.append(items.pop())
            break
        finally:
            log.append("f")
    return log, items


@cases(([1, 2, 3],), ([2, 4, 6, 8],), ([],), ([2] * 20,), ([3],))
def exl_if_try_break_ending_for_body(ks):
    # 3.12+: the break's jump falls into the loop's exit once END_FOR is dropped, so the arm
    # is just the iterator's pop; the if was written without it (wrong code: the loop went on)
    log = []
    n = 0
    for k in ks:
        if n > 12:
            break
        n += 1
        if k % 2:
            try:
                break
            except IndexError:  # unreachable (a `break` cannot raise)
                try:  # unreachable
                    pass  # unreachable
                except IndexError:  # unreachable
                    pass  # unreachable
    return "end", log, n  # (too long for 3.12+ to copy into the break)


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],))
def exl_if_break_ending_try_body_in_loop(ks):
    # 3.12: the if's `break`, copied as the return after the loop (which cannot raise), lies
    # past the try's protected range; it was read as the try's else and the if left empty
    # (wrong code: an even item returned instead of going round)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                break
        except IndexError:
            continue
    return "end", n


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],))
def exl_if_break_ending_try_body_then_code(ks):
    # 3.12/3.13: as above, with code after the try (its follow, where the if's test jumps):
    # the break's copy was read as the try's else and the if left empty (wrong code: the
    # else ran whenever nothing was raised, the return after the loop with it)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                break
        except IndexError:
            log.append(1)
        log.append(n)
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],))
def exl_if_break_ending_try_body_in_for(ks):
    # 3.12/3.13: the same in a for loop, where the break is a jump to the loop's exit
    log = []
    items = list(ks)[1:]  # (one item short: the last pop raises)
    for k in ks:
        try:
            if items.pop() % 2:
                break
        except IndexError:
            log.append(1)
        log.append(k)
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([2] * 20,))
def exl_if_break_ending_try_body_in_tested_while(ks):
    # 3.12/3.13: the same in a `while <test>` loop whose exit is the code after it
    log = []
    items = list(ks)
    n = 0
    while n <= len(ks):
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                break
        except IndexError:
            log.append(1)
        log.append(n)
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([2] * 20,))
def exl_if_else_break_ending_try_body(ks):
    # 3.12: the else arm's break (copied as the return after the loop) lies past the protected
    # range, the if arm jumping over it; it was read as the try's else and the if's else
    # dropped (wrong code: the loop returned after every item)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                log.append(n)
            else:
                break
        except IndexError:
            log.append(1)
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([2] * 20,))
def exl_else_continue_ending_try_body_with_else_code(ks):
    # 3.12: the else arm's `continue` lies past the protected range, and the code after the
    # try is reached only from the if arm (the clause goes round too): a try/else.  The jump to
    # the loop's head was read as falling off the body, the `continue` dropped (wrong code:
    # the else's code ran for even items)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                log.append(n)
            else:
                continue
        except IndexError:
            continue
        log.append("a")
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([2] * 20,))
def exl_inner_clause_continue_with_else_code(ks):
    # 3.12: the same with a try in the try, whose clause goes round: its `continue` was
    # dropped and the code after the outer try ran after it
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            try:
                log.append(6 // (items.pop() - 3))
            except IndexError:
                continue
        except ZeroDivisionError:
            continue
        log.append("a")
    return "end", log


@cases(([1],), ([2],), ([3, 1],), ([],), ([3, 3],), ([3, 3, 1],), ([3] * 30,))
def exl_only_back_edge_in_clause_of_clause(ks):
    # 3.12+: the loop's one jump back is a `continue` in a clause of a try in a clause, laid out
    # after the function's code; it was read as a jump to the outer try's follow and the loop
    # dropped (3.13: wrong code, the continue lost; 3.12: refused)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            log.append(6 // (items.pop() - 3))
        except (IndexError, ZeroDivisionError):
            try:
                log.append(items.pop())
            except IndexError:
                continue
        else:
            break
        return "x", log
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([1] * 30,))
def exl_try_body_goes_on_past_conditional_back_edge(ks):
    # 3.12+: the if's `continue` is the loop's last jump back (conditional), and the try's body
    # goes on after it, then the return: that code was placed twice, in the try and after the
    # loop with a break invented (wrong code)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        try:
            if items.pop() % 2:
                continue
            else:
                log.append(items.pop())
        except IndexError:
            continue
        return "x", log
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],))
def exl_if_else_break_try_body_then_return(ks):
    # 3.13: a loop that never goes round (every path breaks or returns); the if's `else:
    # break`, copied as the return after the loop, lies past the return after the try, and
    # that return was read as the try's else (wrong code: the loop's result for odd items)
    log = []
    items = list(ks)
    n = 0
    while True:
        n += 1
        try:
            if items.pop() % 2:
                log.append(n)
            else:
                break
        except IndexError:
            break
        return "x", log
    return "end", log


@cases(([1],), ([2],), ([1, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([1] * 30,))
def exl_clause_break_in_if_arm_try(ks):
    # 3.10: the clause's `break` is a copy of the return after the loop, and the try's body
    # jumps back to the loop's head: that copy was taken for a copy of the code after the try
    # and dropped (wrong code: the loop went round instead of returning)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        if items and items[-1] % 2:
            try:
                log.append(items.pop() + items.pop())
            except IndexError:
                break
        else:
            log.append(items.pop() if items else None)
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([2, 2, 2],), ([3, 2, 4],), ([2] * 30,))
def exl_try_finally_break_in_if_arm(ks):
    # 3.9: a try/finally whose body is a `break`, in an if arm ending the loop body (before an
    # else): the jump out was read as falling off the arm, which the if named an exit (the
    # body's end, which is also the loop's exit), and the loop went round (wrong code)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        if items and items.pop() % 2:
            try:
                break
            finally:
                log.append("f")
        else:
            log.append(n)
    return "end", log


@cases(([1],), ([2],), ([1, 1],), ([],), ([2, 1],), ([3, 2, 4],))
def exl_clause_break_skips_return_after_if(ks):
    # 3.9: a loop that never goes round; the clause's `break` jumps past the return after the
    # if, which the try's normal exit reaches: the break was taken for an arm's jump over an
    # else, and that return for the else (wrong code: no exception came back as the return
    # after the loop)
    log = []
    items = list(ks)
    n = 0
    while True:
        n += 1
        if items and items[-1] % 2:
            try:
                log.append(items.pop() + items.pop())
            except IndexError:
                break
        return "x", log
    return "end", log


@cases(([1],), ([0],), ([2, 0],), ([],), ([0, 0, 5],), ([1] * 20,))
def exl_with_break_then_try_clause_continue(ks):
    # 3.12+: the try after `with: break` runs only when the with swallows an exception; its
    # clause's `continue` is the loop's one jump back, from a clause laid out past the code.
    # It was read as a jump to the try's follow: the loop dropped, the continue a `pass`
    # (wrong code once the with swallows). Now refused: the loop is found, the with's
    # structure in it is not
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 12:
            break
        n += 1
        with CM(log, swallow=True):
            log.append(10 // items.pop())
            break
        try:
            return "r", log, items.pop()
        except IndexError:
            continue
    return "end", log


@cases(([1],), ([2],), ([2, 1],), ([],), ([1, 2, 2],), ([3, 2, 4],), ([2] * 20,))
def exl_code_after_try_finally_break_in_if_in_try(ks):
    # 3.11: the code after a try/finally whose body breaks (reached only from its clause) sits
    # behind that clause's inline code; the outer try's body seemed to end before it, and it
    # came back as the outer try's else, run whenever the if's test was false (wrong code)
    log = []
    items = list(ks)
    n = 0
    while n <= len(ks):
        n += 1
        try:
            if items.pop() % 2:
                try:
                    n += 1
                    break
                except IndexError as e:  # unreachable (`n += 1` cannot raise IndexError)
                    log.append(e)  # unreachable
                finally:
                    log.append("f")
                n += 1  # unreachable
        except IndexError:
            log.append("i")
    return "end", log, n


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([2, 1],), ([0, 2],))
def exl_else_behind_clause_of_inner_try(ks):
    # 3.11+: the inner try's body always returns, so the middle try's else (the with) is
    # reached only through the inner clause, and flows as code of that clause; it came back
    # after the outer try/finally, run after the outer finally (3.11: wrong code, now refused)
    log = []
    items = list(ks)
    try:
        try:
            try:
                log.append(risky(items.pop()))
            except ValueError:
                log.append("v")
            else:
                return "r", log
            finally:
                log.append("f")
        except KeyError:
            log.append("k")
        else:
            with CM(log):
                return "w", log
    except IndexError:
        log.append("i")
    finally:
        log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],))
def exl_else_behind_clause_of_inner_try_in_loop(ks):
    # exl_else_behind_clause_of_inner_try in a loop: 3.12/3.13 still put the with after the
    # outer try/finally inside the loop (wrong code); 3.11 refuses it
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
                finally:
                    log.append("f")
            except KeyError:
                log.append("k")
            else:
                with CM(log):
                    return "w", log
        except ZeroDivisionError:
            log.append("z")
        finally:
            log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],))
def exl_plain_else_behind_clause_of_inner_try(ks):
    # exl_else_behind_clause_of_inner_try_in_loop with plain statements in the else: 3.11-3.13
    # put them after the outer try/finally (wrong code), now refused
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
                finally:
                    log.append("f")
            except KeyError:
                log.append("k")
            else:
                log.append("e")
                return "w", log
        except ZeroDivisionError:
            log.append("z")
        finally:
            log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_const_return_else_behind_clause(ks):
    # exl_else_behind_clause_of_inner_try with `return <constant>` as the else: 3.11+ run the
    # outer finally's copy, then the return, outside every handler; 3.11 wrote the return
    # after the outer try/finally (wrong code until the twenty-second session; now refused)
    log = []
    items = list(ks)
    try:
        try:
            try:
                log.append(risky(items.pop()))
            except ValueError:
                log.append("v")
            else:
                return "r", log
            finally:
                log.append("f")
        except KeyError:
            log.append("k")
        else:
            return 5
    except IndexError:
        log.append("i")
    finally:
        log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_const_return_else_behind_clause_in_loop(ks):
    # exl_const_return_else_behind_clause in a loop: the return came back after the outer
    # try/finally inside the loop (3.11-3.13: wrong code until the twenty-second session)
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
                finally:
                    log.append("f")
            except KeyError:
                log.append("k")
            else:
                return 5
        except ZeroDivisionError:
            log.append("z")
        finally:
            log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_none_return_else_behind_clause(ks):
    # exl_const_return_else_behind_clause with `return None`, through a finally only (3.11:
    # wrong code until the twenty-second session)
    log = []
    items = list(ks)
    try:
        try:
            try:
                log.append(risky(items.pop()))
            except ValueError:
                log.append("v")
            else:
                return "r", log
        except KeyError:
            log.append("k")
        else:
            return None
    finally:
        log.append("g")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_break_else_behind_clause(ks):
    # a `break` as the else behind the clause, through a finally: 3.11 wrote the break after
    # the try/finally, unconditionally (wrong code until the twenty-second session)
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
            except KeyError:
                log.append("k")
            else:
                break
        finally:
            log.append("g")
        log.append("n")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_continue_else_behind_clause(ks):
    # exl_break_else_behind_clause with `continue` (3.11: wrong code until the twenty-second
    # session)
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
            except KeyError:
                log.append("k")
            else:
                continue
        finally:
            log.append("g")
        log.append("n")
    return "end", log


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([4],))
def exl_no_else_behind_clause_through_finally(ks):
    # exl_break_else_behind_clause without the else: the inner clause's path goes on after the
    # statements, through the finally's normal copy (read exactly; the check for an else
    # behind a clause must not refuse it)
    log = []
    items = list(ks)
    while items:
        try:
            try:
                try:
                    log.append(risky(items.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return "r", log
            except KeyError:
                log.append("k")
        finally:
            log.append("g")
        log.append("n")
    return "end", log


@cases(([1], [5]), ([1, 2], []), ([], [3]), ([1, 2, 3], [4]))
def exl_code_after_try_past_exit_return(xs, log):
    # 3.12/3.13 lay the code after the try out past the handler, beyond the loop's exit
    # block (`return 2`): it must come back once, in the loop, not again after the return
    while xs:
        try:
            return log.pop()
        except IndexError:
            pass
        log.append(2)
        xs = xs[1:]
    return 2


@cases(([1], [5]), ([1, 2], []), ([], [3]), ([0, 2, 3], []))
def exl_code_after_try_past_exit_return_if(xs, log):
    # exl_code_after_try_past_exit_return with an if after the try
    while xs:
        try:
            return log.pop()
        except IndexError:
            pass
        if xs[0]:
            log.append(xs[0])
        xs = xs[1:]
    return len(log)


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([0, 1, 2, 0, 1],), ([1, 1, 1],))
def exl_code_after_inner_try_only_from_clause(ks):
    # the inner try's normal exit always breaks (its else), so the code after it in the outer
    # try's body is reached only from its clause; 3.11 left that code out (wrong code until
    # the twenty-second session; now refused: code the function reaches is never read)
    log = []
    items = list(ks)
    n = 0
    while True:
        if n > 5:
            break
        n += 1
        try:
            try:
                log.append(risky(items.pop()))
            except ValueError:
                log.append("v")
            else:
                with CM(log):
                    break
            finally:
                log.append("f")
            n += 1
            with CM(log):
                if len(items) % 2:
                    continue
        except IndexError:
            log.append("i")
        log.append("a")
    return log, n


@cases(([0],), ([1],), ([2],), ([],), ([1, 0],), ([1, 4],), ([2, 1],), ([0, 1, 2, 0, 1],), ([1, 1, 1],))
def exl_code_after_try_finally_only_from_clause(ks):
    # the code after the inner try/finally is reached only from the clause of the try in its
    # clause; 3.11 wrote it after the outer try, unprotected and past its finally (wrong code
    # until the twenty-second session; now refused: code a try protects comes after it)
    log = []
    items = list(ks)
    for k in ks:
        try:
            try:
                with CM(log):
                    log.append(risky(items.pop()))
                    break
            except ValueError:
                try:
                    log.append(risky(items.pop()))
                    break
                except KeyError:
                    log.append("k")
            finally:
                log.append("f")
            log.append(len(items))
        except IndexError:
            log.append("i")
        finally:
            log.append("g")
        break
    log.append("after")
    return log



@cases(([1, 2, 3, 4, 5, 6, 7, 9],), ([3, 9, 15],), ([],), ([2, 4],), ([1],))
def exl_with_continue_ending_if_branch(ks):
    # an if/else ending a for body, whose branch ends in an inner if and `with: continue`: the
    # inner if's test jumps to the loop's jump back, which the with's suppressed exception takes
    # too; 3.11 took that jump for the with's own and dropped it, so the branch fell into the
    # else (wrong code until the twenty-third session)
    log = []
    n = 0
    for k in ks:
        n += 1
        if k % 2:
            if k % 3:
                with CM(log, "a", swallow=True):
                    log.append(k)
                with CM(log, "b", swallow=True):
                    continue
        else:
            log.append("else")
    return n, log


@cases((0,), (1,), (2,), (3,), (5,))
def exl_retry_reraise_after_clause_continue(n):
    # 3.11 lays the clause's `continue` before its bare raise, past the loop's last jump
    # back: the raise is still the clause's (after the loop: "No active exception")
    tries = []
    while True:
        try:
            tries.append(n)
            return 10 // (n - len(tries)), tries
        except ZeroDivisionError:
            if len(tries) < 3:
                n += 1
                continue
            raise


@cases((0,), (1,), (2,), (3,), (5,))
def exl_retry_code_then_reraise_after_clause_continue(n):
    tries = []
    while True:
        try:
            tries.append(n)
            return 10 // (n - len(tries)), tries
        except ZeroDivisionError as e:
            tries.append(str(e))
            if len(tries) < 3:
                n += 2
                continue
            tries.append("giving up")
            raise KeyError(tuple(tries)) from e


FIN_SEQS = (([], []), ([0, 1, 2], []), ([0, 0], []), ([3], []), ([0, 2, 0], []))


@cases(*FIN_SEQS)
def exl_for_return_under_returning_finally(xs, log):
    # the finally returns: the return in the loop is dropped from the bytecode, its copy of
    # the finally body ends the path (read as `pass`, the loop went on); `log` records the path
    try:
        for x in xs:
            log.append(x)
            if x:
                return x
    finally:
        log.append("f")
        return "fin"


@cases(*FIN_SEQS)
def exl_while_return_under_returning_finally(xs, log):
    i = 0
    try:
        while i < len(xs):
            log.append(i)
            if xs[i] == 2:
                return i
            i += 1
    finally:
        log.append("f")
        return "fin"


@cases(*FIN_SEQS)
def exl_continue_under_returning_finally_in_for(xs, log):
    for x in xs:
        try:
            log.append(x)
            if x:
                continue
            log.append("a")
        finally:
            log.append("f")
            return "fin"
    return "end"


@cases(*FIN_SEQS)
def exl_break_under_returning_finally_in_for(xs, log):
    for x in xs:
        try:
            log.append(x)
            if x:
                break
            log.append("a")
        finally:
            log.append("f")
            return "fin"
    return "end"


@cases(*FIN_SEQS)
def exl_for_return_under_raising_finally(xs, log):
    try:
        for x in xs:
            log.append(x)
            if x:
                return x
    finally:
        log.append("f")
        raise KeyError(tuple(log))


@cases(([1, 0, 2],), ([3, 4],), ([],), ([0, 5],))
def exl_loop_body_ends_in_test_that_raises(xs):
    # the last test's false path falls off the loop body: the compiler jumps back from the
    # test (3.15 protects that jump like a written `continue`, but gives it the test's
    # source positions)
    seen = []
    try:
        for x in xs:
            if x == 1: continue
            seen.append(x)
            if x and x > 3:
                raise ValueError(x)
    except ValueError as e:
        seen.append(("caught", e.args))
    return seen


@cases(*FIN_SEQS)
def exl_return_overridden_by_returning_finally(xs, log):
    # the body's `return` computes its value, then the finally body's copy returns instead:
    # laid out last in the body, that copy looks like the normal exit
    for x in xs:
        try:
            log.append(x)
            return x
        finally:
            log.append("f")
            return -len(log)  # noqa: B012
    return ("end", len(log))


@cases(*FIN_SEQS)
def exl_return_through_finally_into_returning_finally(xs, log):
    # the inner finally's copy on the return's path is followed by the outer's, which
    # returns instead
    for x in xs:
        try:
            try:
                log.append(x)
                return x
            finally:
                log.append("f")
        finally:
            log.append("g")
            return len(log)  # noqa: B012
    return ("end", len(log))


@cases(([], []), ([1, 3], []), ([0], []), ([1], []), ([1, 5, 0], []))
def exl_finally_if_return_ends_if_arm_before_else(xs, log):
    # the finally body's normal-path copy ends the if arm: its if's jump goes on past the
    # else arm (the jump after the copy, threaded), the copy itself ending in the return
    n = 0
    for x in xs:
        if x % 2:
            try:
                log.append(x)
            finally:
                log.append("f")
                if x > 2:
                    return ("f", log)  # noqa: B012
        else:
            return None
        n += 1
    return ("end", n)


@cases(*FIN_SEQS)
def exl_return_overridden_by_finally_then_break(xs, log):
    # the inner finally's return is overridden by the outer finally's break: each copy
    # drops the value the one before it was returning
    n = 0
    while True:
        if n >= len(xs):
            break
        n += 1
        try:
            log.append(n)
            try:
                return n
            finally:
                log.append("f")
                return -n  # noqa: B012
        finally:
            log.append("g")
            break  # noqa: B012


@cases(([], []), ([1], []), ([0, 2], []), ([1, 1], [5]))
def exl_return_in_if_under_breaking_finally(xs, log):
    # the return's copy of the finally body ends in its break: the normal exit's copy
    # follows it, where the if's false jump goes
    n = 0
    for x in xs:
        n += 1
        try:
            if x:
                return n
        finally:
            log.append("f")
            break  # noqa: B012
    log.append("after")
    return log, n


def exl_continuing_finally_in_for(xs, log):
    # the finally always continues: it has no re-raise, and its copies end in the jump back
    for x in xs:
        try:
            log.append(x)
            risky(x)
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(*FIN_SEQS)
def exl_break_under_continuing_finally(xs, log):
    # the break is dropped from the bytecode: its copy of the finally body ends the path
    for x in xs:
        try:
            if x == 2:
                break  # noqa: B012
            log.append(x)
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(([], []), ([1, 2, 3], []), ([4], []), ([5, 6], [0, 0, 0]), ([5, 0], [0, 0]))
def exl_return_under_leaving_finally(xs, log):
    # the finally breaks or continues: the return is dropped, its copy ends the path
    while xs:
        try:
            while len(log) < 2:
                return None
            log.append(10 // xs.pop())
        finally:
            log.append("f")
            if len(log) > 5:
                break  # noqa: B012
            continue  # noqa: B012
    log.append("end")
    return log


@cases(([], [], 0), ([1], [], 0), ([2], [], 5))
def exl_continuing_finally_under_returning_finally(xs, log, n):
    # the inner finally's continue goes through the outer finally's copy, which returns
    while True:
        try:
            try:
                try:
                    if xs:
                        return None
                except IndexError:  # unreachable
                    n += 1  # unreachable
            finally:
                log.append("f")
                continue  # noqa: B012
        finally:
            log.append("g")
            return ("f", log, n)  # noqa: B012


@cases((0, []), (1, []), (2, []), (4, []))
def exl_return_from_nested_clauses(k, log):
    # a return two except clauses deep: its value kept above each clause's exception
    try:
        risky(k)
    except ValueError:
        try:
            risky(k + 1)
        except KeyError:
            log.append("k")
            return log
    except KeyError:
        try:
            risky(k - 1)
        except ValueError:
            try:
                risky(k + 1)
            except Err:
                return log
        finally:
            log.append("f")
    return None


@cases(([0, 1, 2], []), ([], []))
def exl_finally_loop_with_continue(xs, log):
    # a for loop inside a finally body: 3.9 keeps its dead jump back before the follow
    try:
        log.append(len(xs))
    finally:
        for x in xs:
            log.append(x)
            continue
    return log


def nxt(ks):
    """Pop the last item; a negative one raises IndexError."""
    k = ks.pop()
    if k < 0:
        raise IndexError(k)
    return k


NXT_SEQS = (([1], [], 0), ([2, -1], [], 0), ([-1], [], 0), ([], [], 0), ([3, -1, -2], [], 0))


@cases(*NXT_SEQS)
def exl_while_else_break_through_finally(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append(1)
        else:
            break
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_while_else_continue_through_finally(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append(1)
        else:
            continue
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_while_else_return_through_finally(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append(1)
        else:
            return log
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_for_else_break_through_finally(ks, log, n):
    for k in ks:
        try:
            log.append(nxt([k]))
        except IndexError:
            log.append(1)
        else:
            break
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_nested_else_break_through_finally(ks, log, n):
    for j in (1, 2):
        while ks:
            try:
                log.append(nxt(ks))
            except IndexError:
                log.append(1)
            else:
                break
            finally:
                log.append(j)
            n += 1
        log.append(n)
    return n


@cases(*NXT_SEQS)
def exl_while_else_break_no_code_after(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
        except IndexError:
            n += 1
        else:
            break
        finally:
            log.append('f')
    return n


@cases(*NXT_SEQS)
def exl_while_body_break_through_finally(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
            break
        except IndexError:
            log.append(1)
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_while_else_return_value_through_finally(ks, log, n):
    while ks:
        try:
            k = nxt(ks)
        except IndexError:
            log.append(1)
        else:
            return k
        finally:
            log.append('f')
        n += 1
    return n


@cases(*NXT_SEQS)
def exl_while_else_return_const_through_finally(ks, log, n):
    while ks:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append(1)
        else:
            return 7
        finally:
            log.append('f')
        n += 1
    return n


@cases(([1], [], 0), ([2, 1, 3], [], 0), ([1] * 15, [], 0), ([], [], 0))
def exl_forever_break_through_two_finallys(ks, log, n):
    # the break runs both finally bodies' copies, then a copy of the return after the loop
    while True:
        if n > 12:
            break
        try:
            try:
                if nxt(ks) % 2:
                    n += 1
                else:
                    break
            finally:
                log.append("f")
        finally:
            log.append("g")
    return n


@cases(([1, -1, 2], [], 0), ([1], [], 13), ([], [], 0))
def exl_while_break_clause_continue_then_code(ks, log, n):
    # 3.12/3.13: the clause's `continue` goes to the test at the top, the body's own jump
    # back to the body after the test (the test copied at the bottom)
    while ks:
        if n > 12:
            break
        try:
            log.append(nxt(ks))
        except IndexError:
            continue
        log.append(n)
    log.append("end")
    return n


@cases(([-1, 2], [], 0), ([-1], [], 0), ([1], [], 13))
def exl_while_break_clause_continue_only_back_edge(ks, log, n):
    # the clause's `continue` is the loop's only jump back: the body ends before the code
    # after the loop, where the test's exit and the break go
    while ks:
        if n > 12:
            break
        try:
            v = nxt(ks)
        except IndexError:
            continue
        else:
            return v, log
    log.append("end")
    return n


@cases(([-1, 2], [], 0), ([-1], [], 0), ([1], [], 13))
def exl_while_break_with_return_clause_continue(ks, log, n):
    while ks:
        if n > 12:
            break
        try:
            with CM(log):
                log.append(nxt(ks))
            return log
        except IndexError:
            continue
    log.append("end")
    return n


@cases(([2, 1, 3, 3], [], 0), ([2, 1, 4, 3], [], 0), ([-1, 1, 1], [], 0), ([], [], 0))
def exl_break_in_nested_finally_through_finally_with_if(ks, log, n):
    # the inner finally's normal-path copy holds the break's path through the outer
    # finally body's copy, whose if joins before the jump out of the loop
    for k in ks:
        try:
            try:
                log.append(nxt(ks))
            finally:
                log.append("f")
                break  # noqa: B012
        finally:
            if nxt(ks) % 2:
                log.append("g")
    return log, n


@cases(([], [], 0), ([1], [], 0), ([2, 3], [], 1))
def exl_return_under_finally_under_breaking_finally(ks, log, n):
    # the return's value is computed in the inner finally's exception-path copy, then the
    # outer finally's copy breaks: the return is dropped, the copy ends the path
    for k in ks:
        try:
            try:
                n += k
            finally:
                return -n  # noqa: B012
        finally:
            log.append("f")
            break  # noqa: B012
    return log, n


@cases(([], []), ([1, 2], []), ([0, 1], []), ([5, 0], []))
def exl_except_break_under_continuing_finally(xs, log):
    # the except clause's break goes through the finally body's copy, which continues
    for x in xs:
        try:
            log.append(10 // x)
        except ZeroDivisionError:
            break  # noqa: B012
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(([], []), ([1, 2], []))
def exl_swallowed_raise_under_continuing_finally(xs, log):
    # the try body's only normal exit is the with swallowing the exception, laid out with
    # the with's handler: its copy of the finally body continues
    for x in xs:
        try:
            with CM(log, swallow=True):
                raise KeyError(x)
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(([], []), ([1, 20, 0], []), ([0], []))
def exl_except_falls_into_continuing_finally(ks, log):
    # the except clause falls off into the normal exit's copy, which a test of the body
    # jumps to as well
    for k in ks:
        try:
            if 10 // k:
                pass
            else:
                return None  # noqa: B012
        except ZeroDivisionError:
            pass
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(([], []), ([1, 2], []), ([0, 1], []))
def exl_with_break_under_continuing_finally(xs, log):
    # the break leaves the with (its exit's copy), then runs the finally body's copy, which
    # continues: the break is dropped
    for x in xs:
        try:
            with CM(log):
                try:
                    log.append(10 // x)
                except ZeroDivisionError:
                    break  # noqa: B012
        finally:
            log.append("f")
            continue  # noqa: B012
    return log


@cases(([], [], 1), ([1, 2], [], 1), ([0], [], 1))
def exl_clause_falls_into_returning_finally(xs, log, n):
    # the except clause falls off the try into the normal exit's copy of a finally body that
    # returns, laid out after the handler code: no code after the loop reads it again
    for x in xs:
        try:
            try:
                log.append(10 // x)
            finally:
                return -n  # noqa: B012
        except ZeroDivisionError:  # unreachable
            pass  # unreachable
        finally:
            log.append("f")
            break  # noqa: B012


@cases(([(0, 0), (1, 0), (1, 2), (1, 3)],), ([],))
def exl_try_else_after_try_in_clause(ks):
    # 3.12+ lay handler code inside a clause inline: the middle try's body ends after the
    # inner try's clauses, and its else starts where they go on
    log = []
    for a, b in ks:
        try:
            log.append(risky(a))
        except ValueError:
            try:
                try:
                    log.append(risky(b))
                except KeyError:
                    log.append("k")
            except Err:
                log.append("e")
            else:
                log.append("else")
            log.append("after")
    return log


@cases(([0, 1, 5, 2],), ([],))
def exl_rest_after_raising_try_in_if_arm(ks):
    # 3.12+: only the inner clause reaches the rest of the arm, laid out cold past the
    # handlers; it goes back to the loop's jump after the if
    log = []
    for k in ks:
        try:
            if k % 2:
                log.append([0, 1, 2][k])
            else:
                try:
                    raise KeyError(k)
                except KeyError:
                    log.append("c")
                log.append("rest")
        except IndexError:
            log.append("i")
    return log


@cases(([0, 5],), ([],))
def exl_rest_after_raising_try_ends_for_body(ks):
    # 3.12+: the for body's only jumps back are in cold code (the rest, the clause)
    log = []
    for k in ks:
        try:
            try:
                raise KeyError(k)
            except KeyError:
                log.append("c")
            log.append([0, 1][k])
        except IndexError:
            log.append("i")
    return log


@cases(([1, 2, -1], [], 0), ([3, 3], [], 0), ([], [], 0))
def exl_clause_break_past_falling_body(ks, log, n):
    # the inner clause's break goes past the loop while the body falls off its end: the
    # try goes on after the body (3.12+ refused it as continuing past its block)
    while ks:
        try:
            if nxt(ks) % 2:
                try:
                    n += nxt(ks)
                except IndexError:
                    break
        except IndexError:
            log.append("i")
    log.append("end")
    return n, log


@cases(([0, 2, 3, 1],), ([1, 0, 0],), ([],))
def exl_else_after_try_whose_clause_returns(ks):
    # 3.11: the inner clause's return (its pops and the return itself are unprotected) lies
    # among the handler code the outer try protects: the outer body ends after all of it
    log = []
    for k in ks:
        if k < 3:
            try:
                try:
                    log.append(risky(k))
                except ValueError:
                    return log
            except KeyError:
                pass
            else:
                log.append(k)
    return log


@cases(([0, 1, 3], [], 0), ([0, 0, 2, 2, 2], [], 0), ([0, 2, 4, 1, 2], [], 0), ([], [], 0))
def exl_break_overridden_by_continuing_finally_under_breaking_finally(ks, log, n):
    # the break's copy of the inner finally body holds the outer finally body's copy, whose
    # if leaves by jumps of its own: the break never runs (the continue overrides it)
    for k in ks:
        n += 1
        try:
            try:
                if nxt(ks) % 2:
                    break
                log.append(nxt(ks))
            finally:
                log.append("f")
                continue  # noqa: B012
        finally:
            log.append("g")
            if nxt(ks) % 2:
                break  # noqa: B012
    return log, n


@cases(([1], [], 0), ([3, -1, -1], [], 0), ([2, 5, -1], [], 0), ([2, -1, -1], [], 0))
def exl_returning_finally_ends_except_clause(ks, log, n):
    # 3.12+ lay the inner try's handlers out between its normal exit's copy and the end of
    # the clause that holds it: the copy's fall-through path jumps over them
    try:
        log.append(nxt(ks))
    except IndexError:
        try:
            n += nxt(ks)
        except IndexError:
            log.append("e")
        finally:
            if nxt(ks) % 2:
                return -n  # noqa: B012
    return log, n


@cases(([], []), ([1, 2, 3], []), ([2, 4], []))
def exl_if_ending_finally_in_if_arm(xs, log):
    # 3.14+: each arm of the if ending the finally body's normal-path copy goes back to the
    # loop by a jump of its own (one copy of the jump that follows the copy)
    for x in xs:
        if x % 2:
            try:
                log.append(x)
            finally:
                if x > 1:
                    log.append("f")
        else:
            pass


@cases(([1], [], 0), ([-1], [], 0), ([1], [], 2), ([], [], 0))
def exl_break_then_try_finally_returning(ks, log, n):
    # 3.9/3.10: the finally handler's return keeps its value above the exception (ROT_FOUR),
    # then pops the iterator: no copy of the code after the loop standing for a break
    for k in list(ks):
        if n > 1:
            break
        n += 1
        try:
            log.append(nxt(ks))
        finally:
            return -n  # noqa: B012
    return n


@cases(*NXT_SEQS)
def exl_finally_break_falls_into_for_exit(ks, log, n):
    # 3.9/3.10: the finally handler's break falls into the loop's follow, laid right after it
    for _ in list(ks):
        try:
            log.append(nxt(ks))
        finally:
            log.append("f")
            break
    log.append("after")
    return log


@cases(([0, 2, 0],), ([3, 1],), ([2, 2],), ([],), ([0],))
def exl_with_suppressing_return_in_try_finally(ks):
    # 3.12/3.13: only the with's swallowing goes round the loop: that path's finally copy,
    # laid out with the with's handler, jumps on to the loop's test copied after the handlers
    log = []
    items = list(ks)
    while items:
        k = items.pop()
        try:
            with CM(log, swallow=k > 1):
                log.append(risky(k))
                return log
        finally:
            log.append("f")
    return log


@cases(*[(seq, []) for (seq,) in SEQS])
def exl_finally_if_in_except_clause_in_for(ks, log):
    # 3.13+: the finally body's copy on the swallowing with's path ends in an if whose arms
    # each end the except clause (`POP_EXCEPT` and the jump back, copied per arm)
    for k in ks:
        try:
            log.append(risky(k))
        except ValueError:
            try:
                with CM(log, swallow=True):
                    raise KeyError(k)
            finally:
                if k % 2:
                    pass


@cases(*SEQS)
def exl_return_in_try_finally_pass_in_while(ks):
    # 3.11+: `finally: pass` has no copy on the return's path: the returned value is left
    # on the stack at the end of the protected range, the return right after it
    log = []
    while True:
        log.append(len(ks))
        try:
            return log
        finally:
            pass


@cases(([1, 0, 1],), ([],), ([0],))
def exl_try_finally_ending_if_arm_then_continue(ks):
    # 3.11: the try's normal exit jumps over its handler code to the loop's closing jump
    # back, the `continue`: read once, where it is
    log = []
    while ks:
        if ks.pop():
            try:
                log.append(len(ks))
            finally:
                log.append("f")
            continue
    return log


@cases(([0],), ([1],), ([0, 1],), ([1, 1],), ([0, 0],), ([],))
def exl_try_else_return_in_finally_in_with(ks):
    # 3.11: the else's return runs the finally body's copy, then the with's exit, laid out
    # right after the body; the clause's path goes on after the statement
    log = []
    while ks:
        with CM(log):
            try:
                try:
                    log.append(risky(ks.pop()))
                except ValueError:
                    log.append("v")
                else:
                    return None
            finally:
                if ks:
                    log.append("g")
            return log
    return len(log)


@cases(([0],), ([1],), ([0, 1],), ([1, 1],), ([0, 0],), ([],), ([1, 0, 1],))
def exl_try_else_after_finally_if_continue(ks):
    # 3.12+: the inner finally body's copy ends the try body, its `continue` arm (through
    # the outer finally's copy) laid out after the protected code: no code of the else
    log = []
    while ks:
        try:
            try:
                try:
                    k = risky(ks.pop())
                finally:
                    if len(ks) % 2:
                        continue
            except ValueError:
                return log
            else:
                log.append(k)
        finally:
            log.append("f")
            continue
    return log


@cases(([0, 1],), ([1, 1],), ([0, 1, 1],), ([1, 0, 1],), ([0, 0, 1, 1],))
def exl_break_through_finally_in_clause_then_return(ks):
    # 3.12+: the body's break runs the finally body's copy and the copied return after the
    # loop; the clause's path goes on at the code after the statement
    log = []
    while True:
        try:
            with CM(log):
                risky(ks.pop())
        except ValueError:
            try:
                log.append(risky(ks.pop()))
                break
            except ValueError:
                log.append("v")
            finally:
                log.append("f")
            return 5, log
    return log


@cases(([0, 0, 1],), ([1, 0, 1, 1],), ([1, 1, 1],), ([0, 1, 1, 0, 0, 1],), ([0, 0, 0, 1, 0],))
def exl_break_in_if_arm_through_finally_in_clause(ks):
    # an if arm's break runs the finally body's copy (an if whose arm returns) and the copied
    # return after the loop; the clause's path goes on at the code after the statement
    log = []
    n = 0
    while True:
        try:
            n += risky(ks.pop())
        except ValueError:
            try:
                if ks.pop():
                    raise KeyError("k")
                else:
                    break
            except KeyError:
                log.append("k")
            finally:
                if ks.pop():
                    return 1, log
            log.append(2)
    return n, log


@cases(*NXT_SEQS)
def exl_finally_rest_only_after_clause(ks, log, n):
    # 3.12+: the try body returns, so only the except clause reaches the code after the
    # statement, laid out past the handlers: the rest of the loop body
    for _ in list(ks):
        try:
            return (nxt(ks), log)
        except IndexError:
            n += 1
        finally:
            log.append("f")
        log.append(n)
    return log


@cases(([1, 0, -1], [], 0), ([-1, 0], [], 0), ([-1, -2], [], 0), ([3], [], 0), ([], [], 0))
def exl_finally_continue_before_clause_rest(ks, log, n):
    # 3.12+: as above, with an arm of the body going round the loop through the finally:
    # with the rest written after the statement, that jump is a `continue`
    for _ in list(ks):
        try:
            if nxt(ks) > 0:
                return log
            continue
        except IndexError:
            n += 1
        finally:
            log.append("f")
        log.append(n)
    return log


@cases(([1], [], 0), ([2, -1], [], 1), ([-1], [], 0))
def exl_finally_else_returns_through_outer_finally(ks, log, n):
    # 3.12+: the inner else's return runs the outer finally body's copy, laid out at the
    # inner statement's end; only the except clause goes on, through both normal-exit
    # copies, to where the outer block ends
    if n:
        log.append(n)
    try:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append("e")
        else:
            return 1
        finally:
            if ks:
                log.append("g")
    finally:
        log.append("f")


@cases(([1], [], 0), ([2, -1], [], 1), ([-1], [], 0))
def exl_finally_else_returns_clause_rest(ks, log, n):
    # 3.12+: as above, with code after the inner statement that only the clause reaches,
    # laid out past the handlers
    if n:
        log.append(n)
    try:
        try:
            log.append(nxt(ks))
        except IndexError:
            log.append("e")
        else:
            return 1
        finally:
            if ks:
                log.append("g")
        log.append(n)
    finally:
        log.append("f")


@cases(([1, 1], [], 0), ([2, -1], [], 0), ([-1, -2], [], 0), ([], [], 0))
def exl_for_clause_falls_through_outer_finally(ks, log, n):
    # 3.12+: the try's else returns, so only its except clause goes round the loop: through
    # the finally body's copy and the jump back laid out with the clause's code
    for _ in list(ks):
        try:
            try:
                log.append(nxt(ks))
            except IndexError:
                log.append("e")
            else:
                return 1
        finally:
            log.append("f")
    return log


@cases(([1, 1], [], 0), ([2, -1], [], 0), ([-1, -2], [], 0), ([-1, 3], [], 0), ([], [], 0))
def exl_for_clause_falls_through_two_finallys(ks, log, n):
    # 3.12+: as above, the inner statement with its own finally body holding an if
    for _ in list(ks):
        try:
            try:
                log.append(nxt(ks))
            except IndexError:
                log.append("e")
            else:
                return 1
            finally:
                if ks:
                    log.append("g")
        finally:
            log.append("f")


@cases(([1, 0], 2, True), ([0], 0, True), ([0], 2, False), ([], 0, True))
def loop_try_else_with_return_then_rest(ks, j, swallow):
    # 3.12+: the rest of the loop body is reached only from the clause and from the with's
    # suppressed exception in the else: laid out past the handlers, it follows the try
    log = []
    for k in ks:
        try:
            log.append(risky(k))
        except ValueError:
            log.append("value")
        else:
            with CM(log, swallow=swallow):
                return risky(j), log
        log.append(("rest", k))
    return log
