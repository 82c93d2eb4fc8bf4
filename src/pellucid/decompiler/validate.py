"""Translation validation: does a code object do what another one does?

The files ``prepare_debug`` writes run in place of the code Dynamo generated, and that code is
not what any compiler makes from source: it is irregular, and pellucid's tidy rewrites its
graph-break lists on purpose.  Comparing recompiled bytecode with Dynamo's therefore proves
nothing either way.  This module proves equivalence on the *effects* instead.

Both code objects are executed symbolically, path by path.  Values are terms over the inputs
(arguments, constants, Dynamo's own globals, the results of earlier operations); local
variables, temporaries and stack shuffles disappear.  Every operation that can run code or
raise (a call, an attribute or subscript access, an operator, a comparison, the truth test of
a branch, a store to an attribute, a subscript, a global or a cell, an import) is an *event*,
recorded in order with its operand terms, and its result is the term ``("res", k)`` for the
k-th step of the path.  A branch records the outcome it takes, a path ends with the term it
returns or the exception it raises.  The two programs are equivalent when their sets of paths
are equal: every input takes the same path in both, so both do the same operations, on the
same values, in the same order, and end the same way.  The two sets are compared as tries,
walked together (:mod:`pellucid.decompiler.lockstep`): where the paths of a branch join again
in states that are the same up to the names of results, the rest is compared once, so
sequential ``if`` statements cost a sum of paths, not a product.

Lists and dicts the code itself builds are followed concretely (a heap of fresh objects),
so Dynamo's dance of lists and slices and the tidy's one call with list displays become the
same argument terms.  A fresh object is shown by its contents the first time it reaches an
event (it escapes: from then on it is an opaque object named by the order in which it
escaped, so one list passed twice differs from two equal lists).

Exceptions: with an exception table (3.11+) in either program, every event may raise, and
the path where it does goes to the handler (or out of the function), so a try body that
covers a different set of operations is a difference.  The exception being handled (what
``sys.exception()`` and a bare ``raise`` see, the context a new exception takes, what a frame
leaves set when it ends) is part of the state: a handler's ``PUSH_EXC_INFO`` saves it on the
stack and sets its own, ``POP_EXCEPT`` restores whatever value the stack holds, and a path
records it where it changed since it last did before each event, raise, return and loop head
or end, so a handler that leaves its exception set, or restores another, is a difference.

Globals Dynamo binds for its own use (``__compiled_fn_*``, ``__import_*``, ``__resume_at_*``,
...) are taken as bound for the frame's whole run: Dynamo sets them before the code runs and
nothing else binds them.  Other globals are read as events (they may be rebound by any call,
or missing).

A frame's own cell variables (no function it makes writes them) read as the value the frame
put there; free variables, whose cells others share, are read as events.  A loop over an
iterable the code built runs concretely; a loop over any other iterable is one iteration that
stands for all of them (an induction: values the body binds are unknown at its head and after
it, objects built before it cannot change in it, and the stack is the same at its end), and so
is any other loop (a ``while`` loop).  A loop is the code on its cycles (an except clause laid
out after it and jumping back into it included), and a path that leaves it forgets it: reached
again (an enclosing loop went round), it is entered again from the values of that moment, as
the proof of its first entry assumed those of its own.  A loop entered in its body (a resume
function's prologue jumps there) runs the rest of that iteration as straight code, then is
entered at its head.

What is not modelled gives ``not-verified`` with the reason, never ``equivalent``: a stack
or an exception being handled that changes around a loop, generators, 3.9/3.10 exception
blocks, opcodes not listed here, too many paths.  Nor does code the executor cannot follow (a
stack shallower than an instruction reads, a value of a kind it does not take): the validator
answers ``not-verified`` for it, never with an exception.  When objects are freed is no part
of a path (locals and temporaries disappear): a finalizer (``__del__``, a weakref callback) may
run at another point, with another exception being handled, in one program than in the other.

This module decides the verdict; the symbolic executor is :mod:`pellucid.decompiler.validation`
(the state of a path, the terms, and the effects of each kind of instruction, one module each).
"""

from __future__ import annotations

import gc
import types
from dataclasses import dataclass

from pellucid.decompiler import lockstep
from pellucid.decompiler.instructions import TABLE
from pellucid.decompiler.validation.executor import MAX_STEPS, Executor
from pellucid.decompiler.validation.loops import MAX_VISITS
from pellucid.decompiler.validation.state import NotModelled
from pellucid.decompiler.validation.terms import DYNAMO_GLOBAL_PREFIXES, const_term

EQUIVALENT = "equivalent"
NOT_VERIFIED = "not-verified"

MAX_PATHS = 1000

_Executor = Executor  # (the name the tests reach it by)


@dataclass
class Verdict:
    """``equivalent``, or ``not-verified: <reason>``: ``differs...`` for a difference found,
    else what the validator does not model."""

    equivalent: bool
    reason: str = ""
    paths: int = 0

    def __str__(self) -> str:
        return EQUIVALENT if self.equivalent else f"{NOT_VERIFIED}: {self.reason}"


def validate(
    original: types.CodeType,
    candidate: types.CodeType,
    global_aliases: dict[str, str] | None = None,
    constant_names: dict[str, object] | None = None,
) -> Verdict:
    """Is ``candidate`` equivalent to ``original``?

    ``global_aliases`` maps global names ``candidate`` reads to the names ``original`` reads
    for the same object (Dynamo's uuid-named globals by their stable names);
    ``constant_names`` maps the globals ``candidate`` reads for constants without a source
    form to those constants (they stand for ``original``'s ``co_consts`` entries).
    """
    # (no cycles are made here: the collector, which in a program holding a model walks a
    # large heap, is left for the program's own allocations)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _validate(original, candidate, global_aliases, constant_names)
    finally:
        if collecting:
            gc.enable()


def _validate(
    original: types.CodeType,
    candidate: types.CodeType,
    global_aliases: dict[str, str] | None,
    constant_names: dict[str, object] | None,
) -> Verdict:
    try:
        exceptions = _has_handlers(original) or _has_handlers(candidate)
        a = Executor(original, {}, {}, exceptions, {})
        code_alias = _nested_code_aliases(original, candidate)
        b = Executor(
            candidate, dict(global_aliases or {}), dict(constant_names or {}), exceptions,
            code_alias,
        )
        ends = lockstep.compare(
            a, b, MAX_PATHS, lambda: NotModelled(f"more than {MAX_PATHS} paths")
        )
    except lockstep.Differs as e:
        return Verdict(False, str(e))
    except NotModelled as e:
        return Verdict(False, str(e))
    except RecursionError:
        return Verdict(False, "terms nested too deeply to compare")
    except Exception as e:  # noqa: BLE001 - a validator that fails proves nothing
        return Verdict(False, f"the validator could not follow the code ({type(e).__name__}: {e})")
    return Verdict(True, paths=ends)


# ----------------------------------------------------------------------------- preparation


def _has_handlers(code: types.CodeType) -> bool:
    if TABLE.has_exception_table:
        return bool(code.co_exceptiontable)  # type: ignore[attr-defined]
    return False


def _nested_code_aliases(original: types.CodeType, candidate: types.CodeType) -> dict[int, int]:
    """id of each code object ``candidate`` creates functions from -> id of ``original``'s
    equal one (by identity, or recompiled from a decompile and equal bytecode)."""
    from pellucid.decompiler.verify import compare_code

    out: dict[int, int] = {}
    mine = [c for c in original.co_consts if isinstance(c, types.CodeType)]
    for c in candidate.co_consts:
        if not isinstance(c, types.CodeType) or any(c is m for m in mine):
            continue
        for m in mine:
            if m.co_name == c.co_name and m.co_freevars == c.co_freevars:
                try:
                    same = not compare_code(m, c)
                except Exception:  # noqa: BLE001 - an uncomparable pair is simply not equal
                    same = False
                if same:
                    out[id(c)] = id(m)
                    break
    return out


__all__ = [
    "EQUIVALENT", "NOT_VERIFIED", "Verdict", "validate", "const_term", "NotModelled",
    "DYNAMO_GLOBAL_PREFIXES", "MAX_PATHS", "MAX_STEPS", "MAX_VISITS",
]
