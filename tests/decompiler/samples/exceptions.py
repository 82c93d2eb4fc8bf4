"""try/except/else/finally in all combinations, nested; raise, raise from, bare re-raise."""

from . import cases
from ._helpers import Err, OtherErr

CONSTRUCT = "exceptions"


def risky(k):
    """0: fine, 1: ValueError, 2: KeyError, 3: Err, 4: ZeroDivisionError, 5: OtherErr."""
    if k == 1:
        raise ValueError("v", k)
    if k == 2:
        raise KeyError("missing")
    if k == 3:
        raise Err("custom")
    if k == 4:
        return 1 // 0
    if k == 5:
        raise OtherErr("other")
    return k * 10


KINDS = tuple((k,) for k in range(6))


@cases(*KINDS)
def exc_try_except_bare(k):
    try:
        r = risky(k)
    except:  # noqa: E722
        r = "caught"
    return r


@cases(*KINDS)
def exc_try_except_typed(k):
    try:
        r = risky(k)
    except ValueError:
        r = "value"
    return r


@cases(*KINDS)
def exc_try_several_handlers(k):
    try:
        r = risky(k)
    except ValueError:
        r = "value"
    except KeyError as e:
        r = ("key", e.args)
    except (Err, ZeroDivisionError) as e:
        r = ("tuple", type(e).__name__)
    return r


@cases(*KINDS)
def exc_named_handler_del(k):
    e = "before"
    try:
        risky(k)
    except Exception as e:  # noqa: F841
        pass
    return "e" in locals()


@cases(*KINDS)
def exc_named_handler_unbound_after(k):
    try:
        risky(k)
    except Exception as e:
        msg = str(e)
    else:
        msg = "none"
    return msg, e if k == 0 else "unbound"  # noqa: F821


@cases(*KINDS)
def exc_try_except_else(k):
    log = []
    try:
        r = risky(k)
    except (ValueError, KeyError):
        log.append("except")
        r = None
    else:
        log.append("else")
        r = r + 1
    return r, log


@cases(*KINDS)
def exc_try_finally(k):
    log = []
    try:
        r = risky(k)
        log.append("body")
    finally:
        log.append("finally")
        print("finally ran", log)
    return r, log


@cases(*KINDS)
def exc_try_except_else_finally(k):
    log = []
    try:
        log.append("try")
        r = risky(k)
    except ValueError as e:
        log.append(("value", e.args))
        r = -1
    except Err:
        log.append("err")
        raise
    else:
        log.append("else")
    finally:
        log.append("finally")
        print(log)
    return r, log


@cases(*KINDS)
def exc_try_except_finally(k):
    log = []
    try:
        risky(k)
    except KeyError:
        log.append("key")
    finally:
        log.append("fin")
    return log


@cases(*KINDS)
def exc_reraise_bare(k):
    try:
        return risky(k)
    except ValueError:
        print("re-raising")
        raise


@cases(*KINDS)
def exc_raise_from(k):
    try:
        return risky(k)
    except (ValueError, KeyError) as e:
        raise RuntimeError("wrapped") from e
    except Err:
        raise RuntimeError("suppressed") from None


@cases(*KINDS)
def exc_raise_new_in_handler(k):
    try:
        risky(k)
    except ValueError:
        raise TypeError("implicit context")
    return "ok"


@cases(*KINDS)
def exc_return_in_try(k):
    try:
        return risky(k)
    except ValueError:
        return "value"
    except KeyError:
        pass
    return "after"


@cases(*KINDS)
def exc_return_in_finally_overrides(k):
    try:
        return risky(k)
    finally:
        if k in (1, 2):
            return "finally wins"  # noqa: B012


@cases(*KINDS)
def exc_finally_after_return(k):
    log = []
    try:
        if k == 5:
            return "early", log
        risky(k)
    except Exception:
        log.append("handled")
        return "handled", log
    finally:
        log.append("finally")
    return "end", log


@cases(*KINDS)
def exc_return_in_else(k):
    try:
        r = risky(k)
    except Exception:
        r = "exc"
    else:
        return ("else", r)
    return r


@cases(*KINDS)
def exc_nested_try(k):
    log = []
    try:
        try:
            risky(k)
        except ValueError:
            log.append("inner value")
            raise KeyError("from inner")
        finally:
            log.append("inner finally")
    except KeyError as e:
        log.append(("outer key", e.args))
    finally:
        log.append("outer finally")
    return log


@cases(*KINDS)
def exc_try_in_handler(k):
    try:
        risky(k)
    except Exception as e:
        try:
            risky(k - len(e.args))
        except ValueError:
            return "handler's try caught"
        return "handler ok"
    return "body ok"


@cases(*KINDS)
def exc_try_in_finally(k):
    log = []
    try:
        risky(k)
    finally:
        try:
            log.append("in finally")
            risky(1)
        except ValueError:
            log.append("finally's handler")
    return log


@cases(*KINDS, (-1,))
def exc_try_in_else(k):
    try:
        r = risky(k)
    except ZeroDivisionError:
        r = "zero"
    else:
        try:
            r = risky(r // 10 + 1)
        except ValueError:
            r = "else caught"
    return r


@cases((0,), (1,), (2,))
def exc_handler_type_from_expression(k):
    kinds = (ValueError, KeyError)
    try:
        risky(k)
    except kinds[0]:
        return "first"
    except kinds:
        return "second"
    return "none"


@cases(*KINDS)
def exc_exception_attributes(k):
    try:
        risky(k)
    except Exception as exc:
        return type(exc).__name__, exc.args, exc.__context__ is None
    return None


@cases(*KINDS)
def exc_raise_instance_or_class(k):
    if k == 1:
        raise ValueError
    if k == 2:
        raise ValueError()
    if k == 3:
        err = Err("prepared")
        raise err
    return "none"


@cases((0,), (1,))
def exc_reraise_saved(k):
    saved = None
    try:
        risky(k)
    except ValueError as e:
        saved = e
    if saved is not None:
        raise saved
    return "clean"


@cases(*KINDS)
def exc_sys_exc_info(k):
    import sys

    try:
        risky(k)
    except Exception:
        return sys.exc_info()[0].__name__
    return sys.exc_info()


@cases(*KINDS)
def exc_handler_falls_through_to_code(k):
    r = []
    try:
        r.append(risky(k))
    except ValueError:
        r.append("v")
    except Exception:
        r.append("other")
    r.append("after")
    return r


@cases(*KINDS)
def exc_try_only_pass(k):
    try:
        pass
    except Exception:  # unreachable
        return "impossible"  # unreachable
    try:
        risky(k)
    except Exception:
        pass
    return "done"


@cases(*KINDS)
def exc_finally_reraises(k):
    log = []
    try:
        try:
            risky(k)
        finally:
            log.append("inner finally")
    except Exception as e:
        log.append(type(e).__name__)
    return log


@cases(*KINDS)
def exc_exception_in_else_not_caught(k):
    try:
        r = risky(0)
    except ValueError:  # unreachable
        return "never"  # unreachable
    else:
        if k:
            raise ValueError("from else")
    return r


@cases((1,), (2,))
def exc_assert_caught(k):
    try:
        assert k == 1, "k must be 1"
    except AssertionError as e:
        return "assertion", str(e)
    return "passed"


@cases((0,), (1,), (3,))
def exc_base_exception_types(k):
    try:
        if k == 1:
            raise SystemExit(3)
        if k == 3:
            raise GeneratorExit
    except SystemExit as e:
        return "exit", e.code
    except BaseException as e:
        return "base", type(e).__name__
    return "none"


@cases(*KINDS)
def exc_conditional_in_handler(k):
    try:
        risky(k)
    except Exception as e:
        if isinstance(e, ValueError):
            return "v"
        elif isinstance(e, KeyError):
            raise
        r = "other"
    else:
        r = "fine"
    return r


@cases(*KINDS)
def exc_handler_name_captured_by_closure(k):
    try:
        risky(k)
    except Exception as e:
        describe = lambda: type(e).__name__  # noqa: E731
        return describe()
    return "none"


@cases(*KINDS)
def exc_nonlocal_written_in_handler(k):
    state = "start"

    def attempt():
        nonlocal state
        try:
            risky(k)
            state = "ok"
        except ValueError:
            state = "value"
        finally:
            state += "!"

    attempt()
    return state


@cases(*KINDS)
def exc_try_in_comprehension_function(k):
    def safe(i):
        try:
            return risky(i)
        except Exception as e:
            return type(e).__name__

    return [safe(i) for i in range(k + 1)]


@cases(*KINDS)
def exc_raise_in_finally_replaces(k):
    try:
        risky(k)
    finally:
        if k == 2:
            raise RuntimeError("from finally")  # noqa: B012
    return "end"


@cases(*KINDS)
def exc_handler_with_walrus_and_ternary(k):
    try:
        r = risky(k)
    except (ValueError, KeyError) as e:
        r = (n := len(e.args)) if e.args else -1
        return r, n
    return r


@cases(*KINDS)
def exc_finally_if_ends_if_branch(k):
    log = []
    if k != 4:
        log.append("start")
        try:
            log.append(risky(k))
        finally:
            if k > 1:
                log.append("cleanup")
    return log


@cases(*KINDS)
def exc_finally_if_ends_function(k, log=None):
    log = [] if log is None else log
    try:
        log.append(risky(k))
    finally:
        if k > 1:
            log.append("cleanup")


@cases(*KINDS)
def exc_if_try_raising_handler_else(k):
    if k != 4:
        try:
            r = risky(k)
        except KeyError:
            raise TypeError("key") from None
    else:
        r = "four"
    return r


@cases(*KINDS)
def exc_handler_returns_body_falls_on(k):
    if k == 5:
        return "five"
    try:
        r = risky(k)
    except (ValueError, KeyError):
        return False
    return r + 1


@cases(*KINDS)
def exc_finally_if_copied_exit(k):
    log = []
    if k != 5:
        log.append("lock")
        try:
            if k < 3:
                log.append(risky(k))
        finally:
            log.append("unlock")
    return log


@cases(*KINDS)
def exc_finally_and_condition_ends_function(k):
    try:
        if k and k != 3:
            print(risky(k))
    finally:
        print("release")


@cases(*KINDS)
def exc_clause_pass_then_return(k):
    # 3.12+ copy `return r` into the clause after its POP_EXCEPT
    r = k
    try:
        risky(k)
    except (ValueError, KeyError):
        pass
    return r


@cases(*KINDS)
def exc_else_then_return_copied(k):
    try:
        r = risky(k)
    except ValueError:
        r = "value"
    else:
        r = r + 1
    return r


@cases(*KINDS)
def exc_clause_if_else_then_return(k):
    try:
        r = risky(k)
    except (ValueError, KeyError):
        if k == 1:
            r = "one"
        else:
            r = "other"
    return r


@cases(*KINDS)
def exc_clause_if_else_then_code(k):
    # 3.13 copy `POP_EXCEPT; JUMP` into both arms of the if
    try:
        r = risky(k)
    except (ValueError, KeyError):
        if k == 1:
            r = "one"
        else:
            r = "other"
    print(r)
    return r


@cases(*KINDS)
def exc_return_in_body_and_after(k):
    try:
        if risky(k) == 0:
            return True
    except (ValueError, KeyError):
        pass
    return False


@cases(*KINDS)
def exc_clause_returns_constant_like_the_end(k):
    # the clause's own `return None`, not a copy of the last line
    try:
        r = risky(k)
    except (ValueError, KeyError):
        return None
    except (Err, ZeroDivisionError, OtherErr):
        r = -1
    try:
        r = r + risky(k + 3)
    except Err:
        r = None
    if r is not None:
        return r
    return None


@cases(*KINDS)
def exc_finally_ends_in_if(k):
    # the exception-path copy ends in two RERAISEs (the if's two ends)
    out = []
    try:
        out.append(risky(k))
    finally:
        if k % 2:
            out.append("odd")
    return out


@cases(*KINDS)
def exc_finally_if_else_then_return(k):
    out = []
    try:
        out.append(risky(k))
        return out
    finally:
        if k % 2:
            out.append("odd")
        else:
            out.append("even")


@cases(*KINDS)
def exc_finally_if_in_loop(k):
    out = []
    for i in range(k):
        try:
            out.append(risky(i))
        except Exception:
            out.append("err")
        finally:
            if i % 2:
                out.append(i)
    return out


@cases(*KINDS)
def exc_finally_nested_if_at_end(k):
    out = []
    try:
        out.append(risky(k))
    finally:
        if k:
            if k > 2:
                out.append(k)
        out.append("done")
    return out


@cases(*KINDS)
def exc_while_true_try_else_break(k):
    # the loop's header is the try's first instruction
    i = 0
    while True:
        try:
            r = risky(k + i)
        except (ValueError, KeyError, Err):
            i += 1
            if i >= 3:
                raise
        else:
            break
    return r, i


@cases(*KINDS)
def exc_while_true_starts_with_try(k):
    out = []
    while True:
        try:
            out.append(risky(k))
        except (ValueError, KeyError) as e:
            raise TypeError("bad") from e
        k -= 3
        if k < 0:
            break
    return out


@cases(*KINDS)
def exc_try_in_clause_then_code(k):
    # 3.13 copies the outer clause's `POP_EXCEPT; JUMP` into the inner clause
    r = None
    if k != 4:
        try:
            r = risky(k)
        except (ValueError, KeyError):
            try:
                r = risky(k + 1)
            except (KeyError, Err):
                pass
    if r is not None:
        r = ("got", r)
    return r


@cases(*KINDS)
def exc_try_in_named_clause_at_end(k, log=None):
    # both ends of the inner try reach a copy of the outer clause's end
    log = [] if log is None else log
    try:
        log.append(risky(k))
    except (ValueError, KeyError, Err) as exc:
        try:
            log.append(risky(len(exc.args)))
        except (ValueError, KeyError):
            log.append("inner")


@cases(*KINDS)
def exc_finally_and_test_at_end(k, log=None):
    # 3.12+ copy the implicit return into each exit of the finally's normal copy
    log = [] if log is None else log
    if k != 5:
        log.append("start")
        try:
            log.append(risky(k))
        finally:
            if k > 1 and k != 3:
                log.append("cleanup")


@cases(*KINDS)
def exc_return_value_finally_if_try(k):
    # the finally's copies exit through a nested clause too
    got = False
    log = []
    try:
        got = risky(k)
        return got
    finally:
        log.append("restore")
        if not got:
            try:
                log.remove(k)
            except ValueError:
                pass


@cases(*KINDS)
def exc_named_clause_if_pass_else_raise(k):
    # 3.13 copies `POP_EXCEPT; <clear name>; JUMP` into the arm that passes
    log = []
    if k != 5:
        try:
            log.append(risky(k))
        except KeyError:
            pass
        except (ValueError, Err) as exc:
            if len(exc.args) > 1:
                pass
            else:
                raise
    log.append("end")
    return log


@cases(*KINDS)
def exc_nested_try_in_clause_returns(k):
    try:
        try:
            return risky(k)
        except ValueError:
            try:
                return risky(k + 1)
            except KeyError:
                pass
    except (OverflowError, ZeroDivisionError):
        return "zero"
    msg = "end {}"
    raise TypeError(msg.format(k))


@cases(*KINDS)
def exc_clause_if_else_both_return(k):
    try:
        r = risky(k)
    except (ValueError, KeyError):
        if k == 1:
            return "one"
        else:
            return "other"
    return r


@cases(*KINDS)
def exc_else_return_ends_function(k):
    try:
        r = risky(k)
    except (ValueError, KeyError):
        return "caught"
    else:
        r += 1
        return r


@cases(*KINDS)
def exc_return_through_finally_with_nested_try(k):
    got = False
    try:
        got = risky(k) > 0
        return got
    finally:
        if not got:
            try:
                risky(k + 1)
            except (ValueError, KeyError):
                pass


@cases(*KINDS)
def exc_clause_conditional_return_then_raise(k):
    try:
        risky(k)
    except:  # noqa: E722
        if k == 1:
            return
        raise


@cases(*KINDS)
def exc_else_ends_in_try_finally_raise(k):
    # no clause falls through and the else never ends: only the order of the
    # handlers (3.12+) tells that the try/finally was in the else
    log = []
    if k % 2:
        try:
            log.append(risky(k - 1))
        except (KeyError, Err):
            return False
        else:
            try:
                raise RuntimeError("no stop")
            finally:
                log.append("close")
    else:
        if k == 2:
            k = 3
        return log, k


@cases(*KINDS)
def exc_else_raises_what_is_caught(k):
    try:
        risky(k)
    except ValueError:
        return False
    else:
        raise ValueError("from else")


@cases(*KINDS)
def exc_else_returns_call_that_may_raise(k):
    try:
        risky(k)
    except (ValueError, KeyError):
        pass
    else:
        return int("x" * (k == 0) + "1")
    return "caught"


@cases(*KINDS)
def exc_and_test_leaves_try_by_copied_exit(k):
    try:
        n = risky(k * (k == 1)) + k
        if n > 1 and n < 5 and n != 3:
            return True
    except (ValueError, KeyError):
        pass
    return False


@cases(*KINDS)
def exc_raising_clause_else_if_then_code(k):
    log = []
    try:
        v = risky(k)
    except (ValueError, KeyError):
        raise TypeError("bad") from None
    else:
        if v == 0:
            log.append("zero")
    log.append("end")


@cases(*KINDS)
def exc_bare_raise_after_inner_try(k):
    # 3.12+ copy the `raise` into the inner clause after its POP_EXCEPT: it
    # re-raises the outer exception, not the inner one
    log = []
    try:
        log.append(risky(k))
    except (ValueError, KeyError, Err):
        log.append("outer")
        try:
            log.append(risky(k + 1))
        except (KeyError, Err):
            pass
        raise
    return log


@cases(*KINDS)
def exc_try_except_in_finally(k):
    # 3.12+: the finally body's nested clause ends in a copy of the `return`
    # after the statement (normal path) or of the re-raise (exception path),
    # so it runs past the copy's end to its own re-raise
    log = []
    try:
        log.append(risky(k))
    finally:
        try:
            log.append(risky(k + 1))
        except (ValueError, KeyError, Err):
            log.append("inner")
    return log


@cases(*KINDS)
def exc_try_except_in_finally_at_end(k):
    log = []
    try:
        log.append(risky(k))
    finally:
        try:
            log.append(risky(k + 1))
        except ValueError:
            pass


@cases(*KINDS)
def exc_finally_if_try_then_more(k):
    # 3.12+ put the nested handler of the finally body's normal-path copy out of
    # line: the copies are compared as flow graphs
    log = []
    try:
        log.append(risky(k))
    finally:
        if k != 2:
            try:
                log.append(risky(k + 1))
            except ValueError:
                pass
        log.append("after")
    return log


@cases(*((k, []) for k in range(6)))
def exc_finally_if_try_at_end(k, log):
    # tempfile's cleanup: each end of the normal copy is a copy of the return
    if k != 5:
        log.append("start")
        try:
            if k != 4:
                log.append(risky(k))
        finally:
            if k and (k > 2 or not k % 2):
                try:
                    log.append(risky(k - 1))
                except (ValueError, ZeroDivisionError):
                    pass


@cases(*KINDS)
def exc_return_in_finally_after_try(k):
    # subprocess.Popen.__exit__: a return leaving the finally body (its exception
    # path copy drops the exception first) after a try nested in the body
    log = []
    try:
        if k != 4:
            log.append(risky(k))
    finally:
        if k in (1, 2, 3):
            if k > 1:
                try:
                    log.append(risky(k - 1))
                except ValueError:
                    pass
            log.append("swallowed")
            return log  # noqa: B012
        log.append("waited")


@cases(*((k, []) for k in range(6)))
def exc_finally_raise_in_clause(k, log):
    # asyncio's Server.serve_forever: a finally body that only re-raises (no
    # re-raise after its exception-path copy: the body never ends)
    try:
        log.append(risky(k))
    except ValueError:
        try:
            log.append(risky(k + 1))
        finally:
            raise
    finally:
        log.append("cleared")


@cases(*KINDS)
def exc_finally_body_raises(k):
    log = []
    try:
        log.append(risky(k))
    finally:
        if k < 3:
            raise KeyError(log)  # noqa: B012
        raise Err(len(log))  # noqa: B012


@cases(*((a, b) for a in (0, 1, 2, 6) for b in (0, 1)))
def exc_try_ends_then_arm_of_elif(a, b):
    # shutil.copyfile: a try ending the then-arm of an if/elif returns from its
    # body; only its clause (3.12+ move it to the end) jumps past the elif
    log = []
    if a:
        try:
            log.append(risky(a))
            return log
        except ValueError:
            pass
    elif b:
        log.append("elif")
    log.append("after")
    return log


class _Proc:
    """A stand-in for a subprocess: ``wait(timeout)`` times out when it has no output."""

    def __init__(self, args, close, stdin, stdout, stderr):
        self.out = stdout

    def wait(self, timeout=None):
        if timeout is not None and self.out is None:
            raise TimeoutError("slow")
        return self.out


# construct "control": the defect was in reading the and/or (a refusal must fail, not xfail)
@cases((1, 1, True), (1, 0, True), (0, 1, False), construct="control")
def exc_after_boolop_keyword(flag, rc, remote):
    # webbrowser.UnixBrowser._invoke: a value and/or in a keyword argument, then a try; the
    # and/or's trial parse once left the call's keyword names pending for the except clause
    p = _Proc([1], close=True, stdin=rc, stdout=flag and rc or None, stderr=rc)
    if remote:
        try:
            r = p.wait(5)
            return not r
        except TimeoutError:
            return True
    return not p.wait()


@cases((0, 0), (1, 0), (0, 3), (3, 1), (2, 2))
def exc_try_finally_in_finally(a, b):
    # asyncio.Task.__eager_start's shape: 3.11+ lay the inner try's handler out apart from
    # the finally body's normal-path copy
    log = []
    try:
        log.append(risky(a))
    finally:
        try:
            log.append(risky(b))
        finally:
            log.append("inner")
    return log


@cases((0, 0, 1), (1, 0, 0), (0, 3, 1), (0, 0, 0))
def exc_try_finally_in_finally_if_else(a, b, flag):
    log = []
    try:
        log.append(risky(a))
    finally:
        try:
            log.append(risky(b))
        finally:
            if flag:
                log.append("yes")
            else:
                log.append("no")
    log.append("after")
    return log


@cases((0, 0), (1, 0), (1, 1), (1, 2), (1, 3))
def exc_nested_try_ends_if_arm_with_else(p, k):
    # tempfile.TemporaryDirectory._rmtree's onerror: the function's end is copied into every
    # path, and 3.11 lays out the inner try's way on (a `return None`) past the outer try
    log = []
    if p:
        try:
            try:
                log.append(risky(k))
            except KeyError:
                log.append("inner")
        except ValueError:
            log.append("outer")
    else:
        log.append("else")


@cases((0, 0), (1, 0), (1, 2), (1, 1), (2, 0))
def exc_named_clause_ends_in_try_long_return(a, b):
    # inspect.getblock (3.13): the inner clause's end and the named outer clause's (its name
    # cleanup included) merged into one jump back to a return too long to be copied
    log = []
    try:
        log.append(risky(a))
    except ValueError as e:
        log.append(str(e))
        try:
            log.append(risky(b))
        except KeyError:
            pass
    return log[: len(log)]


@cases((0, 0), (1, 0), (0, 2), (1, 2), (2, 0))
def exc_finally_retry_loop_break(a, b):
    # asyncio.locks.Condition.wait: a finally body that retries until it succeeds; each copy's
    # `break` is compiled as the code after the loop (the return, or the re-raise)
    log = []
    try:
        log.append(risky(a))
    finally:
        tries = 0
        while True:
            try:
                log.append(risky(b if tries == 0 else 0))
                break
            except KeyError:
                tries += 1
    return log


@cases((0, 0), (1, 0), (0, 2), (1, 2), (2, 2))
def exc_finally_retry_loop_named_return(a, b):
    # the same, returning from the try body (the value waits under the finally body's copy)
    # and with a named clause (3.12+ thread its end's jump to the loop's head)
    log = []
    try:
        return risky(a), log
    finally:
        tries = 0
        while True:
            try:
                log.append(risky(b if tries == 0 else 0))
                break
            except KeyError as e:
                log.append(str(e))
                tries += 1


@cases((0, 0, True), (1, 0, False), (0, 2, False), (1, 2, True))
def exc_ternary_argument_in_finally(a, b, flag):
    # a conditional expression as an argument in a finally body: 3.12+ copy the rest of the
    # statement and the re-raise into both arms of the exception path's copy (3.13 only there)
    log = []
    try:
        log.append(risky(a))
    finally:
        log.append(risky(b) if flag else "no")
    return log


@cases(*((k, b, c, []) for k in (0, 1, 7) for b in (0, 1) for c in (0, 1)), (9, 0, 1, []))
def exc_else_if_arm_ending_in_if_with_finally(k, b, c, log):
    # asyncio.tasks.Task.__step_run_and_handle_result (3.12): the inner if's false exit is a
    # copy of the try's normal exit (the finally body, then the return) laid out past the
    # if/elif/else
    try:
        r = risky(k) if k < 8 else None
    except ValueError:
        log.append("v")
    else:
        if r is not None:
            if b:
                log.append("b")
            elif c:
                log.append("c")
                if r:
                    log.append("r")
            else:
                log.append("neither")
        else:
            log.append("none")
    finally:
        k = None  # (a store: the copies of the normal exit are not merged)


@cases((0, []), (2, []))
def exc_finally_pass(k, log):
    # an empty finally body (3.11+: its copies are empty, the body falls into what follows)
    try:
        log.append(risky(k))
    finally:
        pass
    log.append("after")


@cases((0, []), (2, []), (1, []))
def exc_except_and_finally_pass(k, log):
    try:
        log.append(risky(k))
    except KeyError:
        log.append("key")
    finally:
        pass


@cases(([0, 1, 0, 2], []), ([], []))
def exc_finally_pass_in_loop_continue(ks, log):
    for k in ks:
        try:
            if k:
                continue
            log.append(k)
        finally:
            pass
    return log


@cases(*((k, []) for k in range(6)))
def exc_try_except_then_raise_ending_function(k, log):
    # 3.12+ copy the small final block, `raise exc`, to the end of the except clause
    exc = Err(log)
    try:
        log.append(risky(k))
    except ValueError:
        log.append("caught")
    raise exc


@cases(*((k, []) for k in range(6)))
def exc_try_finally_then_raise_ending_function(k, log):
    # 3.10+ copy the small final block into the finally's normal exit
    exc = Err(log)
    try:
        log.append(risky(k))
    finally:
        log.append("finally")
    raise exc


@cases(*((k, []) for k in range(6)))
def exc_try_except_else_then_raise_ending_function(k, log):
    exc = Err(log)
    try:
        v = risky(k)
    except ValueError:
        v = 0
    else:
        v += 1
    log.append(v)
    raise exc


@cases(*((k, []) for k in range(6)))
def exc_try_in_try_then_raise_ending_function(k, log):
    # 3.12+ copy the final block to the end of both except clauses; the outer try's own
    # ranges all lie in the inner try's handler code
    exc = Err(log)
    try:
        try:
            log.append(risky(k))
        except KeyError:
            log.append("key")
    except ValueError:
        log.append("value")
    raise exc


@cases(*((k, {}) for k in range(6)))
def exc_try_in_try_then_return_ending_function(k, seen):
    try:
        try:
            seen["value"] = risky(k)
        except (KeyError, Err) as e:
            seen["inner"] = type(e).__name__
    except Exception as e:
        seen["outer"] = type(e).__name__
    return seen


@cases((0, 0), (1, 0), (0, 3), (0, 4), (0, 5), (0, 6))
def exc_written_return_none_after_clause_and_ifs(k, n):
    # a written `return None` at the end that several ifs' false exits share (3.12+ copy a
    # return without a line into each path; this one, laid out before the handler code, has
    # a line) (torch._dynamo.utils._extract_anchors_from_expr)
    tree = None
    try:
        tree = risky(k)
    except ValueError:
        return None
    if n > 3:
        v = n * 2
        if v == 8:
            return ("eight", tree)
        if v == 10:
            return ("ten", tree)
    return None


@cases((0, 0), (1, 0), (1, 1), (4, 0), (4, 1), (2, 0))
def exc_written_return_none_after_nested_clauses(k, flag):
    # the written `return None` after a try whose clause holds a try whose clause ends in an
    # if/else: both arms leave through it (torch._dynamo.utils.torchscript)
    log = []
    try:
        return risky(k)
    except ValueError:
        try:
            return risky(k * 4)
        except ZeroDivisionError:
            if flag:
                log.append("a")
            else:
                log.append("b")
    return None


@cases((0, 0), (1, 0), (2, 0), (1, 3))
def exc_else_after_body_ending_in_try(k, j):
    # 3.11 lays the inner try's clauses inline after the body: code the outer try protects,
    # so the body ends after them and the else starts where they go on
    log = []
    try:
        try:
            log.append(risky(k))
        except ValueError:
            log.append("v")
    except KeyError:
        log.append("k")
    else:
        log.append(risky(j))


@cases(([0],), ([1],), ([],), ([2],))
def exc_try_ends_clause_of_raising_try(ks):
    # 3.13+: the body never falls through, so the clause's end (its POP_EXCEPT and jump)
    # comes right before the inner try's handler: the inner try goes on there, with no else
    log = []
    try:
        raise KeyError("k")
    except KeyError:
        try:
            log.append(risky(ks[0]))
        except (IndexError, ValueError) as e:
            log.append(type(e).__name__)
    log.append("end")
    return log


@cases((0, 0), (1, 0), (2, 0), (1, 1), (1, 2))
def exc_else_reached_only_from_inner_clause(k, j):
    # the inner try's body always returns: only its clause reaches the outer else (3.11 lays
    # it after the clause's code, before the jump over the outer handler)
    log = []
    try:
        try:
            return risky(k)
        except ValueError:
            log.append("v")
    except KeyError:
        log.append("k")
    else:
        log.append(risky(j))


@cases(([0],), ([],))
def exc_try_ends_clause_of_raising_try_unnamed(ks):
    log = []
    try:
        raise KeyError("k")
    except KeyError:
        try:
            log.append(risky(ks[0]))
        except IndexError:
            log.append("i")
    log.append("end")
    return log


@cases(([0],), ([],), ([1],))
def exc_try_else_ends_named_clause(ks):
    # 3.13+: the inner try's else falls into the enclosing clause's end, which the inner
    # clauses' ends copy
    log = []
    try:
        raise KeyError("k")
    except KeyError as e:
        try:
            log.append(risky(ks[0]))
        except IndexError:
            log.append("i")
        except ValueError:
            log.append("v")
        else:
            log.append(str(e))
    log.append("end")
    return log


@cases(([1, 0, 2], [5, 6]), ([], [5]), ([0], [5]), ([1], []))
def exc_filtered_comprehension_in_finally(a, c):
    # 3.13+ leave the filter's jump back unprotected in both copies of the finally body
    try:
        a.append(len(c))
    finally:
        x = [q for q in a if q for r in c]
    return x


@cases((0,), (1,), (2,), (3,))
def exc_clause_return_through_returning_finally(k):
    # 3.9/3.10: the first clause's return runs the finally's copy, which returns instead; the
    # next clause's type test follows that copy
    n = k
    try:
        risky(k)
    except ValueError:
        return n
    except KeyError:
        n += 1
    finally:
        return -n  # noqa: B012


@cases((0,), (1,))
def exc_inner_finally_exit_into_returning_finally(k):
    # 3.10: the inner finally's copy on the normal exit is followed by the outer one's copy,
    # which returns: the path ends there
    try:
        try:
            risky(k)
        finally:
            print("inner")
    finally:
        return -k  # noqa: B012


@cases((0, [1]), (1, [1]), (2, [1]), (1, []))
def exc_finally_exit_at_clause_end(k, c):
    # the body returns: the try/finally's normal exit (3.10: its finally copy and the jump
    # past its handler) lies at the end of the inner try's last except clause
    try:
        try:
            return risky(k)
        except ValueError:
            c.append("v")
        except KeyError:
            pass
    finally:
        c.append("fin")
    if c[0]:
        c.append("after")
    return c


@cases((0, True), (1, True), (1, False), (2, False))
def exc_empty_display_return_after_try(k, b):
    # 3.10 copies the small `return {}` after the statement into the body's exit and the
    # clause's end
    if b:
        k += 0
    try:
        risky(k)
    except ValueError:
        pass
    return {}


@cases(*KINDS)
def exc_clause_ends_in_try_that_raises(k):
    # 3.13+: the inner try's body never falls off, so each of its clauses ends in its own
    # copy of the enclosing clause's end (no copy of the body's to share)
    n = 0
    try:
        n = risky(k)
    except (ValueError, KeyError):
        try:
            raise (IndexError if k == 1 else TypeError)(k)
        except IndexError as e:
            n = ("index", e.args)
        except TypeError:
            n = "type"
    n = (n, k)
    return n


@cases(*KINDS)
def exc_named_clause_ends_in_try_that_returns(k):
    n = 0
    try:
        n = risky(k)
    except Exception as err:
        try:
            if k == 1:
                raise IndexError(k)
            if k == 2:
                raise TypeError(k)
            return err.args
        except IndexError as e:
            n = ("index", e.args)
        except TypeError:
            n = "type"
    n = (n, k)
    return n


@cases((1, 1), (1, 2), (8, 8))
def exc_raise_caught_then_chained_compare(k, b):
    # the code after the statement is reached only from the clause (3.11+: handler code);
    # the chained comparison's links are read outside the walk, and still count as placed
    try:
        raise ValueError(k)
    except ValueError:
        pass
    return k == b < 7
