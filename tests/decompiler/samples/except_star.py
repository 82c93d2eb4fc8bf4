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
