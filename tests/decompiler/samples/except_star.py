"""except* (PEP 654), Python 3.11+ only: this module is imported only on 3.11+."""

from . import cases
from ._helpers import Err, OtherErr

CONSTRUCT = "exceptions"


def _group(k):
    if k == 0:
        return None
    if k == 1:
        return ExceptionGroup("one", [ValueError("v")])
    if k == 2:
        return ExceptionGroup("two", [ValueError("v"), KeyError("k")])
    if k == 3:
        return ExceptionGroup("nested", [Err("e"), ExceptionGroup("inner", [OtherErr("o")])])
    if k == 5:
        return ExceptionGroup("five", [KeyError("k")])
    return TypeError("plain")


KINDS = tuple((k,) for k in range(5))


@cases(*KINDS)
def exstar_simple(k):
    log = []
    try:
        g = _group(k)
        if g is not None:
            raise g
    except* ValueError as eg:
        log.append(("value", len(eg.exceptions)))
    except* KeyError:
        log.append("key")
    return log


@cases(*KINDS)
def exstar_tuple_and_rest(k):
    log = []
    try:
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* (Err, OtherErr) as eg:
            log.append(sorted(type(e).__name__ for e in eg.exceptions))
    except Exception as rest:
        log.append(("rest", type(rest).__name__))
    return log


@cases(*KINDS)
def exstar_else_finally(k):
    log = []
    try:
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* ValueError:
            log.append("v")
        else:
            log.append("else")
        finally:
            log.append("finally")
    except BaseException as e:
        log.append(type(e).__name__)
    return log


@cases(*KINDS)
def exstar_raise_in_handler(k):
    try:
        g = _group(k)
        if g is not None:
            raise g
    except* ValueError:
        raise RuntimeError("from handler")
    return "clean"


@cases(*KINDS)
def exstar_in_loop(k):
    log = []
    for i in range(k + 1):
        try:
            g = _group(i)
            if g is not None:
                raise g
        except* ValueError:
            log.append(("v", i))
        except* Exception:
            log.append(("other", i))
    return log


@cases(*KINDS, (5,))
def exstar_if_ending_clauses(k):
    log = []
    try:
        g = _group(k)
        if g is not None:
            raise g
    except* ValueError as eg:
        if k > 1:
            log.append(len(eg.exceptions))
    except* KeyError:
        if k == 2:
            log.append("k2")
        else:
            log.append("k1")
    return log


@cases(*KINDS)
def exstar_bare_raise_and_pass(k):
    log = []

    def inner():
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* ValueError:
            log.append("v")
            raise
        except* Err:
            pass

    try:
        inner()
    except Exception as e:
        log.append(type(e).__name__)
    return log


@cases(*KINDS)
def exstar_nested_in_clause(k):
    log = []

    def inner():
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* Exception as outer:
            try:
                raise outer
            except* ValueError as inner:
                log.append(("inner", len(inner.exceptions)))
            log.append("after")

    try:
        inner()
    except Exception as e:
        log.append(type(e).__name__)
    return log


@cases(*KINDS)
def exstar_else_ends_function(k):
    log = []

    def inner():
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* ValueError:
            log.append("v")
        else:
            log.append("else")

    try:
        inner()
    except Exception as e:
        log.append(type(e).__name__)
    return log


@cases(*KINDS)
def exstar_in_with_and_loop_clause(k):
    import contextlib

    log = []
    with contextlib.suppress(Exception):
        try:
            g = _group(k)
            if g is not None:
                raise g
        except* ValueError as eg:
            for e in eg.exceptions:
                log.append(str(e))
        except* (KeyError, Err):
            try:
                log.append(1 // (k - 3))
            except ZeroDivisionError:
                log.append("zero")
    return log


@cases(*KINDS)
def exstar_clause_loops_until_raise(k):
    log = []
    try:
        g = _group(k)
        if g is not None:
            raise g
    except* ValueError:
        n = 0
        while True:
            n += 1
            log.append(n)
            if n > 2:
                raise KeyError(n)
    except* KeyError:
        pass
    return log
