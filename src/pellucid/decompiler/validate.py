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
answers ``not-verified`` for it, never with an exception.
"""

from __future__ import annotations

import ast
import gc
import operator
import types
from dataclasses import dataclass, field
from typing import Any

from pellucid.decompiler import lockstep
from pellucid.decompiler.instructions import TABLE, Instr, exception_entries, normalize

EQUIVALENT = "equivalent"
NOT_VERIFIED = "not-verified"

MAX_PATHS = 1000
MAX_STEPS = 200_000
MAX_VISITS = 256  # backward jumps one path may take (loops over lists the code built)

# Globals that Dynamo binds in the frame's globals for its transformed code (compiled graphs,
# imported modules, resume functions, builtins dicts, guard helpers).
DYNAMO_GLOBAL_PREFIXES = (
    "__compiled_fn_",
    "__import_",
    "__resume_at_",
    "__builtins_dict",
    "___",
    "__nested_",
)

_NULL = ("null",)
# the exception the caller is handling when the frame starts (or none): the same in both programs
_CALLER_HANDLING = ("caller-handling",)
_GEN_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen


class NotModelled(Exception):
    """The code does something this validator does not model (the message says what)."""


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
        a = _Executor(original, {}, {}, exceptions, {})
        code_alias = _nested_code_aliases(original, candidate)
        b = _Executor(
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


_SIMPLE_CONSTS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))


def const_term(value: object, code_alias: dict[int, int] | None = None) -> tuple:
    """A constant as a term: by type and value for immutable data, tuples element-wise (a
    constant tuple is the same value as one built element by element), other objects by
    identity."""
    t = type(value)
    if t in _SIMPLE_CONSTS:
        return ("const", t.__name__, repr(value))
    if t is tuple:
        return ("tuple",) + tuple(const_term(v, code_alias) for v in value)  # type: ignore[union-attr]
    if t is frozenset:
        return ("frozenset",) + tuple(sorted((const_term(v) for v in value), key=repr))  # type: ignore[union-attr]
    if t is slice:
        return ("slice", const_term(value.start), const_term(value.stop), const_term(value.step))  # type: ignore[union-attr]
    if isinstance(value, types.CodeType):
        i = id(value)
        return ("code", (code_alias or {}).get(i, i))
    return ("object", id(value))


def _const_value(term: Any) -> tuple[bool, Any]:
    """(True, value) for a term that is a plain constant (not a float's nan or infinity)."""
    if type(term) is tuple and term and term[0] == "const":
        if term[1] == "ellipsis":
            return True, ...
        try:
            return True, ast.literal_eval(term[2])
        except (ValueError, SyntaxError):
            return False, None
    return False, None


def _cells_written(code: types.CodeType) -> set[str]:
    """Names the functions nested in ``code`` (at any depth) store or delete as free
    variables (``nonlocal``)."""
    out: set[str] = set()
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            for i in normalize(c):
                if i.op in ("STORE_DEREF", "DELETE_DEREF") and i.argval in c.co_freevars:
                    out.add(i.argval)
            out |= _cells_written(c)
    return out


# ----------------------------------------------------------------------------- the heap


@dataclass
class _Obj:
    kind: str  # "list" or "dict"
    items: list  # list: terms; dict: [key term, value term] pairs
    escaped: int | None = None  # its number among escaped objects, once escaped


@dataclass
class _State:
    pc: int
    stack: list
    local: dict
    heap: dict
    path: list
    truths: dict = field(default_factory=dict)
    # the exception being handled (what ``sys.exception()``, a bare ``raise`` and the context of
    # a new exception see), and the one the path last recorded as seen
    handling: Any = _CALLER_HANDLING
    handling_seen: Any = _CALLER_HANDLING
    kwnames: tuple | None = None
    escapes: int = 0
    loops: frozenset = frozenset()  # heads of the loops this path runs one iteration of
    floor: int = 0  # fresh objects below this number were made before the loop (read-only)
    visits: int = 0  # backward jumps taken (a bound on loops run concretely)
    heads: dict = field(default_factory=dict)  # loop head -> the stack there
    functions: int = 0  # functions made on this path
    shown_functions: dict = field(default_factory=dict)  # made function -> its name once seen
    cells: dict = field(default_factory=dict)  # bound cells only this frame writes -> version
    loop_count: int = 0  # loops entered on this path
    holders: dict = field(default_factory=dict)  # object made before a loop -> who held it
    # (head, floor before it, holders before it) of the loops whose iteration the path is in,
    # outermost first
    inside: tuple = ()
    ended: bool = False  # the path has ended (returned, raised out, or looped back)
    joined: bool = False  # passed a join point since its node was last keyed (lockstep)
    jumped_back: bool = False  # forked onto a backward jump, not yet taken

    def fork(self) -> _State:
        heap = {k: _Obj(o.kind, list(o.items), o.escaped) for k, o in self.heap.items()}
        st = _State(self.pc, list(self.stack), dict(self.local), heap, list(self.path),
                    dict(self.truths), self.handling, self.handling_seen, self.kwnames,
                    self.escapes)
        st.loops, st.floor, st.visits, st.heads = self.loops, self.floor, self.visits, self.heads
        st.functions, st.cells, st.loop_count = self.functions, self.cells, self.loop_count
        st.shown_functions = self.shown_functions
        st.holders, st.inside, st.joined = self.holders, self.inside, self.joined
        return st


class _Live:
    """The live locals at each instruction, as sets made when first asked for."""

    def __init__(self, masks: list[int], names: list[str]) -> None:
        self.masks, self.names = masks, names
        self.sets: dict[int, frozenset] = {}

    def __getitem__(self, index: int) -> frozenset:
        got = self.sets.get(index)
        if got is None:
            m = self.masks[index]
            got = self.sets[index] = frozenset(
                name for k, name in enumerate(self.names) if m >> k & 1
            )
        return got


class _PathEnd(Exception):
    pass


# What a symbolic step raises when the code has a shape the executor does not expect (a stack
# shallower than an instruction reads, a value of another kind than it takes): the step is
# not followed, and the code is not verified.
_FOLLOW_ERRORS = (LookupError, TypeError, ValueError, AttributeError, AssertionError)


_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
    ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
}


def _fold(op: str, a: Any, b: Any) -> tuple[bool, Any]:
    """A binary operator on two constants, as the compiler folds it (small results only)."""
    f = _BINARY.get(op.rstrip("=") if op.endswith("=") and op not in ("==",) else op)
    if f is None or not all(type(v) in (int, float, bool, str) for v in (a, b)):
        return False, None
    try:
        if op.rstrip("=") in ("**", "<<") and abs(b) > 64:
            return False, None
        r = f(a, b)
    except Exception:  # noqa: BLE001
        return False, None
    if isinstance(r, (str, int)) and len(repr(r)) > 100:
        return False, None
    return True, r


class _Executor:
    def __init__(
        self,
        code: types.CodeType,
        global_aliases: dict[str, str],
        constant_names: dict[str, object],
        exceptions: bool,
        code_alias: dict[int, int],
    ) -> None:
        if code.co_flags & _GEN_FLAGS:
            raise NotModelled("generator or coroutine code")
        self.code = code
        self.ins = normalize(code)
        self.global_aliases = global_aliases
        self.constant_names = constant_names
        self.exceptions = exceptions
        self.code_alias = code_alias
        self.handlers = exception_entries(code, self.ins) if TABLE.has_exception_table else []
        # (3.9/3.10 handlers run on the block stack: POP_EXCEPT pops a block and three values
        # there, and which exception is being handled lives in those blocks)
        block_ops = ("POP_BLOCK", "BEGIN_FINALLY") if TABLE.has_exception_table else (
            "POP_BLOCK", "BEGIN_FINALLY", "POP_EXCEPT", "RERAISE", "WITH_EXCEPT_START")
        for i in self.ins:
            if i.op.startswith("SETUP_") or i.op in block_ops:
                raise NotModelled(f"exception blocks of Python {TABLE.version[0]}.{TABLE.version[1]} ({i.op})")
        self.steps = 0
        self.looping_back = False
        # loop heads (targets of backward jumps that close a cycle) -> the last jump back to each
        self.loop_ends: dict[int, int] = self._loop_ends()
        self._regions: dict[int, frozenset] = {}  # loop head -> the instructions of its loop
        self._succ: list[list[int]] | None = None
        # cell variables no function this code makes writes (a frame's own cells: its free
        # variables' cells belong to others, who may write them whenever code runs)
        self.own_cells = set(code.co_cellvars) - _cells_written(code)
        # instructions more than one way leads to (where lockstep looks for paths to merge)
        self.joins = {b.target for b in self.ins if b.target is not None}
        self.joins |= {h[2] for h in self.handlers}
        self._key_live: _Live | None = None

    def _loop_ends(self) -> dict[int, int]:
        """Loop heads -> the last jump back to each: the targets of backward jumps that the
        head leads to again (over jumps, fall-through and exception edges).

        A backward jump nothing after its target leads to is no loop, only a layout: 3.14
        lays a with statement's suppressed path after the code that follows the statement,
        and jumps from it back to that code.  Run as the plain jump it is, it needs no
        induction (it is taken once), and the two programs need not lay it out alike."""
        ends: dict[int, int] = {}
        succ: list[list[int]] | None = None
        for b in self.ins:
            if b.target is None or b.target > b.index:
                continue
            if succ is None:
                succ = self._successors()
            if self._leads_to(succ, b.target, b.index):
                ends[b.target] = max(ends.get(b.target, 0), b.index)
        return ends

    def _successors(self) -> list[list[int]]:
        """Each instruction's successors: its jump's target, the next one, its handler."""
        ins, n = self.ins, len(self.ins)
        succ: list[list[int]] = [[] for _ in range(n)]
        for b in ins:
            if b.target is not None:
                succ[b.index].append(b.target)
            if b.op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"):
                succ[b.index].append(b.index + 1)
            h = self._handler(b.index)
            if h is not None:
                succ[b.index].append(h[0])
        return succ

    def region(self, head: int) -> frozenset:
        """The instructions of the loop at ``head``: those on a cycle through it, that is,
        reached from the head and leading to a jump back to it without passing the head
        again (its natural loop, over jumps, fall-through and exception edges).

        Not the range from the head to its last jump back: 3.12+ lay an except clause after
        the loop and jump from it back into the body, and a loop's locals and objects are
        changed there too; and the code an enclosing loop runs after this one (up to its
        own head) is no part of it, however it is laid out."""
        got = self._regions.get(head)
        if got is None:
            succ = self._succ = self._succ or self._successors()
            preds: list[list[int]] = [[] for _ in range(len(self.ins) + 1)]
            for k, out in enumerate(succ):
                for j in out:
                    if j < len(preds):
                        preds[j].append(k)
            ahead = self._reached(succ, head)
            back = [b.index for b in self.ins
                    if b.target == head and b.index >= head and b.index in ahead]
            # (backwards from the jumps back, stopping at the head)
            seen = {head}
            work = list(back)
            while work:
                k = work.pop()
                if k in seen:
                    continue
                seen.add(k)
                work.extend(preds[k])
            got = self._regions[head] = frozenset(seen & (ahead | {head}))
        return got

    @staticmethod
    def _reached(succ: list[list[int]], start: int) -> set[int]:
        """The instructions reached from ``start`` (itself included)."""
        seen = {start}
        work = [start]
        while work:
            k = work.pop()
            for j in succ[k] if k < len(succ) else ():
                if j not in seen:
                    seen.add(j)
                    work.append(j)
        return seen

    @staticmethod
    def _leads_to(succ: list[list[int]], start: int, goal: int) -> bool:
        seen = {start}
        work = [start]
        while work:
            k = work.pop()
            if k == goal:
                return True
            for j in succ[k] if k < len(succ) else ():
                if j not in seen:
                    seen.add(j)
                    work.append(j)
        return False

    # --------------------------------------------------------------- driving

    def start(self) -> _State:
        """The state on entry: the arguments bound, nothing done."""
        code = self.code
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        local = {name: ("arg", name) for name in code.co_varnames[:n]}
        first = _State(0, [], local, {}, [])
        first.cells = {name: -1 for name in code.co_varnames[:n] if name in self.own_cells}
        return first

    def advance(self, st: _State) -> list[_State]:
        """Run ``st`` until its path grows by a step or ends: it, and the paths it forked
        on the way (each a step or more longer)."""
        work: list = []
        try:
            self._run_path(st, work, len(st.path))
        except _PathEnd:
            st.ended = True
        except _FOLLOW_ERRORS as e:
            i = self.cur
            raise NotModelled(
                f"the validator could not follow {i.op} at offset {i.offset} "
                f"({type(e).__name__}: {e})"
            ) from e
        for alt in work:
            alt.joined = alt.joined or alt.pc in self.joins
        return [st] + work

    def _run_path(self, st: _State, work: list, until: int) -> None:
        ins = self.ins
        self.work = work
        if st.jumped_back:
            # (forked onto a backward jump: the jump is taken here, as for a path that runs it)
            st.jumped_back = False
            self._jumped_back(st)
            if len(st.path) > until:
                return
        while True:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise NotModelled(f"more than {MAX_STEPS} steps")
            if st.pc >= len(ins):
                raise NotModelled("execution runs off the end of the code")
            if st.inside:
                self._leave_loops(st)
            if st.pc in self.loop_ends and st.pc not in st.loops and ins[st.pc].op != "FOR_ITER":
                self._enter_loop(st, st.pc)
            i = ins[st.pc]
            self.before = list(st.stack)
            self.cur = i
            st.pc += 1
            handler = getattr(self, "op_" + i.op, None)
            if handler is None:
                raise NotModelled(f"opcode {i.op} not modelled")
            handler(st, i)
            if st.pc <= i.index:
                self._jumped_back(st)
            if st.pc in self.joins:
                st.joined = True
            if len(st.path) > until:
                return

    def _leave_loops(self, st: _State) -> None:
        """The loops whose instructions do not include the path's next one, and those it
        entered inside them, are left: forgotten, as if never entered.

        What was made before a loop is followed again, and the loop is no longer one the
        path runs an iteration of: reached again (an enclosing loop went round, a list the
        code built gave its next item), it is entered again by induction, from the values
        of that moment.  The proof made at the earlier entry assumed the values of the
        locals it does not bind, and the objects made before it, as they were then."""
        for k, (head, floor, holders) in enumerate(st.inside):
            if st.pc not in self.region(head):
                gone = {h for h, _, _ in st.inside[k:]}
                st.floor, st.holders = floor, dict(holders)
                st.inside = st.inside[:k]
                st.loops = st.loops - gone
                st.heads = {h: v for h, v in st.heads.items() if h not in gone}
                return

    def _jumped_back(self, st: _State) -> None:
        """A backward jump: the end of an iteration of a loop run by induction, or of one
        run concretely (over a list the code built), or the way into a loop whose body the
        path entered without passing its head.

        A resume function's prologue jumps into the middle of a loop's body: the rest of that
        first iteration runs as straight code, and the jump back reaches the head for the
        first time (a loop entered by induction is in ``st.loops`` from its head until the
        path leaves it).  That is the state in which any path arrives at the head, so the loop
        is entered there as for a path falling into it: at a ``FOR_ITER`` by its iterator, at
        any other head (a ``while`` test, which 3.14 no longer copies to the bottom, or the
        body's start) by :meth:`_run_path`, which enters every loop head not yet entered."""
        if st.pc in st.loops:
            self._loop_back(st, st.pc)
        if self.ins[st.pc].op != "FOR_ITER":
            return
        st.visits += 1
        if st.visits > MAX_VISITS:
            raise NotModelled("a loop that is not over an iterable")

    def key_live(self) -> _Live:
        """The locals each instruction may read before they are bound again, a delete
        counting as a read (it raises when the local is unbound): what of the locals the
        rest of a path can depend on."""
        if self._key_live is None:
            self._key_live = self._liveness(("LOAD_FAST", "DELETE_FAST"))
        return self._key_live

    # --------------------------------------------------------------- events

    def event(self, st: _State, ev: tuple) -> tuple:
        """Record an operation that may run code or raise; its result term."""
        self.observe(st)
        k = len(st.path)
        st.path.append(ev)
        if self.exceptions:
            self._raise_fork(st, ("exc", k))
        return ("res", k)

    def _raise_fork(self, st: _State, exc: tuple) -> None:
        """The path where the current instruction raises ``exc``."""
        h = self._handler(self.cur.index)
        if h is None:
            # (out of the function: the same in both programs when their paths to here are;
            # an operation one program covers by a handler and the other does not gives the
            # first a path the second has not)
            return
        alt = st.fork()
        alt.stack = list(self.before)
        alt.path.append(("raised",))
        self._to_handler(alt, h, exc)
        self.work.append(alt)

    def _handler(self, index: int) -> tuple | None:
        for start, end, target, depth, lasti in self.handlers:
            if start <= index < end:
                return target, depth, lasti
        return None

    @staticmethod
    def _to_handler(st: _State, h: tuple, exc: tuple) -> None:
        target, depth, lasti = h
        if depth > len(st.stack):
            raise NotModelled("an exception handler deeper than the stack")
        st.stack = st.stack[:depth]
        if lasti:
            st.stack.append(("lasti",))
        st.stack.append(exc)
        st.pc = target

    def raise_(self, st: _State, exc: tuple) -> None:
        """The current instruction raises ``exc`` (a raise or re-raise)."""
        self.observe(st)
        h = self._handler(self.cur.index) if self.exceptions else None
        if h is None:
            st.path.append(("raise", self.show(st, exc)))
            raise _PathEnd
        st.stack = list(self.before)
        st.path.append(("raised-to-handler", self.show(st, exc)))
        self._to_handler(st, h, exc)

    # --------------------------------------------------------------- terms

    def show(self, st: _State, term: Any) -> Any:
        """``term`` as it is seen outside: fresh objects escape here (shown by their contents
        the first time, then by the order in which they escaped)."""
        if type(term) is not tuple or not term:
            return term
        tag = term[0]
        if tag == "ref":
            obj = st.heap[term[1]]
            if obj.escaped is not None:
                return ("escaped", obj.escaped)
            if term[1] < st.floor:
                holder = st.holders.get(term[1])
                if holder is None or not self.looping_back:
                    raise NotModelled("a list built before a loop escapes inside it")
                return ("pre-loop", holder)  # (left for the next iteration as it was)
            obj.escaped = st.escapes
            st.escapes += 1
            if obj.kind == "list":
                items = tuple(self.show(st, t) for t in obj.items)
            elif obj.kind == "set":
                items = tuple(sorted(obj.items, key=repr))
            else:
                items = tuple(tuple(self.show(st, t) for t in p) for p in obj.items)
            return ("new" + obj.kind, obj.escaped, items)
        if tag == "listmeth":
            raise NotModelled("a method of a list the code built used as a value")
        if tag == "fn-made":
            # (named by the step where it is first seen, like a result: j tells apart those
            # first seen at the same step)
            shown = st.shown_functions.get(term)
            if shown is None:
                k = len(st.path)
                j = sum(1 for d in st.shown_functions.values() if d[1] == k)
                shown = ("made", k, j, term[2])
                st.shown_functions = {**st.shown_functions, term: shown}
            return shown
        if tag == "lasti":
            # (the offset an exception-table entry pushes is the raising instruction's, which
            # two programs do not share: one term for all would make different ints equal)
            raise NotModelled("an offset an exception table pushed used as a value")
        if tag in ("const", "arg", "res", "exc", "global", "code", "object", "cell", "null"):
            return term
        return tuple(self.show(st, t) if type(t) is tuple else t for t in term)

    def fresh(self, st: _State, term: Any) -> _Obj | None:
        """The fresh, not yet escaped object ``term`` refers to, if any."""
        if type(term) is tuple and term and term[0] == "ref" and term[1] >= st.floor:
            obj = st.heap[term[1]]
            if obj.escaped is None:
                return obj
        return None

    def new(self, st: _State, kind: str, items: list) -> tuple:
        oid = len(st.heap)
        st.heap[oid] = _Obj(kind, items)
        return ("ref", oid)

    def items_of(self, st: _State, term: Any) -> list | None:
        """The elements of a fresh list, a built tuple or a constant tuple; None if unknown."""
        obj = self.fresh(st, term)
        if obj is not None:
            return list(obj.items) if obj.kind == "list" else None
        if type(term) is tuple and term and term[0] == "tuple":
            return list(term[1:])
        return None

    def ev_show(self, st: _State, tag: str, *operands: Any) -> tuple:
        self.observe(st)
        return self.event(st, (tag,) + tuple(self.show(st, o) for o in operands))

    # --------------------------------------------------------------- stack and locals

    @staticmethod
    def take(st: _State, n: int) -> list:
        """The top ``n`` values of the stack, popped (the deepest first).  A stack shallower
        than that is code the executor cannot follow (a slice would quietly take fewer)."""
        s = st.stack
        if not 0 <= n <= len(s):
            raise IndexError(f"{n} values taken from a stack of {len(s)}")
        items = s[len(s) - n:]
        del s[len(s) - n:]
        return items

    @staticmethod
    def peek(st: _State, n: int) -> Any:
        """The value ``n`` deep on the stack (1 is the top), checked like :meth:`take`."""
        if not 1 <= n <= len(st.stack):
            raise IndexError(f"value {n} deep read from a stack of {len(st.stack)}")
        return st.stack[-n]

    def op_NOP(self, st: _State, i: Instr) -> None:
        pass

    def op_POP_TOP(self, st: _State, i: Instr) -> None:
        st.stack.pop()

    def op_PUSH_NULL(self, st: _State, i: Instr) -> None:
        st.stack.append(_NULL)

    def op_COPY(self, st: _State, i: Instr) -> None:
        st.stack.append(self.peek(st, i.argval))

    def op_SWAP(self, st: _State, i: Instr) -> None:
        s, n = st.stack, i.argval
        self.peek(st, n)
        s[-1], s[-n] = s[-n], s[-1]

    def op_ROT_THREE(self, st: _State, i: Instr) -> None:
        s = st.stack
        s[-3:] = [s[-1], s[-3], s[-2]]

    def op_ROT_FOUR(self, st: _State, i: Instr) -> None:
        s = st.stack
        s[-4:] = [s[-1], s[-4], s[-3], s[-2]]

    def op_ROT_N(self, st: _State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.extend(items[-1:] + items[:-1])

    def op_DUP_TOP_TWO(self, st: _State, i: Instr) -> None:
        items = self.take(st, 2)
        st.stack.extend(items + items)

    def op_LOAD_CONST(self, st: _State, i: Instr) -> None:
        st.stack.append(const_term(i.argval, self.code_alias))

    def op_LOAD_FAST(self, st: _State, i: Instr) -> None:
        name = i.argval
        if name not in st.local:
            self.raise_(st, ("unbound-local", name))
            return
        st.stack.append(st.local[name])

    op_LOAD_FAST_CHECK = op_LOAD_FAST

    def op_STORE_FAST(self, st: _State, i: Instr) -> None:
        st.local[i.argval] = st.stack.pop()

    def op_DELETE_FAST(self, st: _State, i: Instr) -> None:
        if st.local.pop(i.argval, None) is None:
            self.raise_(st, ("unbound-local", i.argval))

    def op_LOAD_CLOSURE(self, st: _State, i: Instr) -> None:
        st.stack.append(("cell", i.argval))

    def op_LOAD_DEREF(self, st: _State, i: Instr) -> None:
        name = i.argval
        if name in self.own_cells and name in st.cells:
            # a cell only this frame writes, bound: its value is what the frame put there
            st.stack.append(("cell-value", name, st.cells[name]))
            return
        st.stack.append(self.event(st, ("deref", name)))

    op_LOAD_CLASSDEREF = op_LOAD_DEREF

    def op_STORE_DEREF(self, st: _State, i: Instr) -> None:
        self.ev_show(st, "store-cell", ("name", i.argval), st.stack.pop())
        st.cells = {**st.cells, i.argval: len(st.path)}

    def op_DELETE_DEREF(self, st: _State, i: Instr) -> None:
        self.event(st, ("delete-cell", i.argval))
        st.cells = {k: v for k, v in st.cells.items() if k != i.argval}

    def op_LOAD_GLOBAL(self, st: _State, i: Instr) -> None:
        name = i.argval
        if name in self.constant_names:
            st.stack.append(const_term(self.constant_names[name], self.code_alias))
            return
        name = self.global_aliases.get(name, name)
        if name.startswith(DYNAMO_GLOBAL_PREFIXES):
            st.stack.append(("global", name))
        else:
            st.stack.append(self.event(st, ("load-global", name)))

    op_LOAD_NAME = op_LOAD_GLOBAL

    def op_STORE_GLOBAL(self, st: _State, i: Instr) -> None:
        self.ev_show(st, "store-global", ("name", i.argval), st.stack.pop())

    op_STORE_NAME = op_STORE_GLOBAL

    def op_DELETE_GLOBAL(self, st: _State, i: Instr) -> None:
        self.event(st, ("delete-global", i.argval))

    op_DELETE_NAME = op_DELETE_GLOBAL

    # --------------------------------------------------------------- attributes

    def op_LOAD_ATTR(self, st: _State, i: Instr) -> None:
        obj = st.stack.pop()
        fresh = self.fresh(st, obj)
        if type(obj) is tuple and obj[0] == "function" and i.argval == "__closure__":
            # (a function this code made: its closure, as pellucid writes a cell object)
            closure = dict(p[:2] for p in obj[2:]).get("closure", const_term(None))
            st.stack.append(closure)
            return
        if fresh is not None and fresh.kind == "list" and i.argval in ("extend", "append"):
            st.stack.append(("listmeth", obj[1], i.argval))
            return
        st.stack.append(self.ev_show(st, "getattr", obj, ("name", i.argval)))

    def op_LOAD_METHOD(self, st: _State, i: Instr) -> None:
        self.op_LOAD_ATTR(st, i)
        # (a method call is the attribute's call: pushed as an attribute with a NULL)
        value = st.stack.pop()
        st.stack.extend([value, _NULL] if TABLE.null_after_callable else [_NULL, value])

    def op_STORE_ATTR(self, st: _State, i: Instr) -> None:
        obj = st.stack.pop()
        value = st.stack.pop()
        self.ev_show(st, "setattr", obj, ("name", i.argval), value)

    def op_DELETE_ATTR(self, st: _State, i: Instr) -> None:
        self.ev_show(st, "delattr", st.stack.pop(), ("name", i.argval))

    # --------------------------------------------------------------- building

    def op_BUILD_TUPLE(self, st: _State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(("tuple",) + tuple(items))

    def op_BUILD_LIST(self, st: _State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(self.new(st, "list", items))

    def op_BUILD_SLICE(self, st: _State, i: Instr) -> None:
        if i.argval == 3:
            step = st.stack.pop()
        else:
            step = const_term(None)
        stop = st.stack.pop()
        start = st.stack.pop()
        st.stack.append(("slice", start, stop, step))

    def op_BUILD_SET(self, st: _State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(self.new(st, "set", []))
        self._set_add(st, st.heap[st.stack[-1][1]], items)

    def _set_add(self, st: _State, obj: _Obj, items: list) -> None:
        # (hashing runs no code only for constants)
        for v in items:
            if not (type(v) is tuple and v[0] == "const"):
                raise NotModelled("a set of values that are not constants")
            if v not in obj.items:
                obj.items.append(v)

    def op_SET_ADD(self, st: _State, i: Instr) -> None:
        value = st.stack.pop()
        obj = self.fresh(st, self.peek(st, i.argval))
        if obj is None or obj.kind != "set":
            raise NotModelled("SET_ADD to an unknown set")
        self._set_add(st, obj, [value])

    def op_SET_UPDATE(self, st: _State, i: Instr) -> None:
        value = st.stack.pop()
        obj = self.fresh(st, self.peek(st, i.argval))
        if type(value) is tuple and value[0] == "frozenset":
            items = list(value[1:])
        else:
            items = self.items_of(st, value)
        if obj is None or obj.kind != "set" or items is None:
            raise NotModelled("a set updated from an unknown iterable")
        self._set_add(st, obj, items)

    def op_BUILD_MAP(self, st: _State, i: Instr) -> None:
        n = i.argval
        flat = self.take(st, 2 * n)
        pairs = [[flat[2 * k], flat[2 * k + 1]] for k in range(n)]
        self._check_keys(st, [k for k, _ in pairs])
        st.stack.append(self.new(st, "dict", pairs))

    def op_BUILD_CONST_KEY_MAP(self, st: _State, i: Instr) -> None:
        keys = st.stack.pop()
        values = self.take(st, i.argval)
        if type(keys) is not tuple or keys[0] != "tuple":
            raise NotModelled("BUILD_CONST_KEY_MAP without constant keys")
        pairs = [[k, v] for k, v in zip(keys[1:], values)]
        self._check_keys(st, [k for k, _ in pairs])
        st.stack.append(self.new(st, "dict", pairs))

    def _check_keys(self, st: _State, keys: list) -> None:
        """Dict keys must be plain distinct constants (hashing anything else runs code)."""
        for k in keys:
            if not (type(k) is tuple and k[0] == "const"):
                raise NotModelled("a dict key that is not a constant")
        if len(set(keys)) != len(keys):
            raise NotModelled("a dict display with a repeated key")

    def op_DICT_UPDATE(self, st: _State, i: Instr, tag: str = "dict-update") -> None:
        other = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        if target is None or target.kind != "dict":
            raise NotModelled("a dict merge into an object the code did not build")
        src = self.fresh(st, other)
        if src is None or src.kind != "dict" or any(type(p) is tuple for p in src.items):
            # (an unknown mapping: its keys are read, and a merge checks them, running code)
            target.items.append(("spread", self.ev_show(st, tag, other)))
            return
        keys = {repr(p[0]) for p in target.items if type(p) is list}
        for k, v in src.items:
            if repr(k) in keys:
                raise NotModelled("a dict merge with a repeated key")
            target.items.append([k, v])

    def op_DICT_MERGE(self, st: _State, i: Instr) -> None:
        self.op_DICT_UPDATE(st, i, "dict-merge")

    def op_LIST_APPEND(self, st: _State, i: Instr) -> None:
        value = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        if target is None or target.kind != "list":
            raise NotModelled("LIST_APPEND to an unknown list")
        target.items.append(value)

    def op_LIST_EXTEND(self, st: _State, i: Instr) -> None:
        value = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        items = self.items_of(st, value)
        if target is None or target.kind != "list":
            raise NotModelled("LIST_EXTEND of an unknown list")
        if items is None:
            raise NotModelled("a list extended by an iterable of unknown length")
        target.items.extend(items)

    def op_LIST_TO_TUPLE(self, st: _State, i: Instr) -> None:
        items = self.items_of(st, st.stack.pop())
        if items is None:
            raise NotModelled("a tuple made of an unknown list")
        st.stack.append(("tuple",) + tuple(items))

    def op_CALL_INTRINSIC_1(self, st: _State, i: Instr) -> None:
        if i.argval == "INTRINSIC_LIST_TO_TUPLE":
            self.op_LIST_TO_TUPLE(st, i)
        elif i.argval == "INTRINSIC_UNARY_POSITIVE":
            st.stack.append(self.ev_show(st, "unary", ("name", "+"), st.stack.pop()))
        else:
            raise NotModelled(f"CALL_INTRINSIC_1 {i.argval}")

    def op_UNPACK_SEQUENCE(self, st: _State, i: Instr) -> None:
        seq = st.stack.pop()
        items = self.items_of(st, seq)
        if items is None:
            r = self.ev_show(st, "unpack", seq, ("count", i.argval))
            items = [("item", r, k) for k in range(i.argval)]
        elif len(items) != i.argval:
            raise NotModelled("unpacking a sequence of the wrong length")
        st.stack.extend(reversed(items))

    def op_MAKE_FUNCTION(self, st: _State, i: Instr) -> None:
        if TABLE.make_function_pops_qualname:
            st.stack.pop()  # (the qualified name)
        code = st.stack.pop()
        flags = i.argval or 0
        parts = []
        for bit, what in ((8, "closure"), (4, "annotations"), (2, "kwdefaults"), (1, "defaults")):
            if flags & bit:
                parts.append((what, st.stack.pop()))
        st.stack.append(self._function(st, code, parts))

    def _function(self, st: _State, code: Any, parts: list) -> tuple:
        # building a function runs no code; what it closes over and its defaults escape.  Each
        # function made is another object: named by the step where it is first seen outside
        # (one made only to read its closure is never seen), with the loop it was made in (one
        # made before a loop is the same object in every iteration, one made in it is not).
        st.functions += 1
        return ("function", code, ("fn-made", st.functions, st.loop_count)) + tuple(
            (what, self.show(st, v)) for what, v in sorted(parts, key=lambda p: p[0])
        )

    def op_SET_FUNCTION_ATTRIBUTE(self, st: _State, i: Instr) -> None:
        fn = st.stack.pop()
        value = st.stack.pop()
        what = {8: "closure", 4: "annotations", 2: "kwdefaults", 1: "defaults"}.get(i.argval)
        if type(fn) is not tuple or fn[0] != "function" or what is None:
            raise NotModelled("SET_FUNCTION_ATTRIBUTE on an unknown function")
        parts = [p for p in fn[2:] if p[0] != what] + [(what, self.show(st, value))]
        st.stack.append(("function", fn[1]) + tuple(sorted(parts, key=lambda p: p[0])))
        # (("fn-made", n, loop) sorts among the parts: it stays)

    # --------------------------------------------------------------- operators

    def op_BINARY_OP(self, st: _State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        ok_l, lv = _const_value(left)
        ok_r, rv = _const_value(right)
        if ok_l and ok_r:
            ok, r = _fold(i.argval, lv, rv)
            if ok:
                st.stack.append(const_term(r))
                return
        op = i.argval
        st.stack.append(self.ev_show(st, "binary", ("name", op), left, right))

    def _unary(self, st: _State, name: str, f: Any) -> None:
        v = st.stack.pop()
        ok, value = _const_value(v)
        if ok and type(value) in (int, float, bool, complex):
            try:
                st.stack.append(const_term(f(value)))
                return
            except Exception:  # noqa: BLE001
                pass
        st.stack.append(self.ev_show(st, "unary", ("name", name), v))

    def op_UNARY_NEGATIVE(self, st: _State, i: Instr) -> None:
        self._unary(st, "-", operator.neg)

    def op_UNARY_INVERT(self, st: _State, i: Instr) -> None:
        self._unary(st, "~", operator.invert)

    def op_UNARY_POSITIVE(self, st: _State, i: Instr) -> None:
        self._unary(st, "+", operator.pos)

    def op_UNARY_NOT(self, st: _State, i: Instr) -> None:
        st.stack.append(("not", self.truth(st, st.stack.pop())))

    def op_TO_BOOL_VALUE(self, st: _State, i: Instr) -> None:
        st.stack.append(self.truth(st, st.stack.pop()))

    def op_COMPARE_OP(self, st: _State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        st.stack.append(self.ev_show(st, "compare", ("name", i.argval), left, right))

    def op_CONTAINS_OP(self, st: _State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        r = self.ev_show(st, "contains", left, right)
        st.stack.append(("not", ("truth", r)) if i.argval else ("truth", r))

    def op_IS_OP(self, st: _State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        t = self._is(st, left, right)
        st.stack.append(("not", t) if i.argval else t)

    def _is(self, st: _State, left: Any, right: Any) -> Any:
        """``left is right`` as a truth term (decided when both sides say)."""
        singletons = ("NoneType", "bool", "ellipsis")
        lc = type(left) is tuple and left[0] == "const" and left[1] in singletons
        rc = type(right) is tuple and right[0] == "const" and right[1] in singletons
        if lc and rc:
            return ("known", left == right)
        fresh_l = self.fresh(st, left) is not None
        fresh_r = self.fresh(st, right) is not None
        if (fresh_l and (rc or fresh_r)) or (fresh_r and lc):
            return ("known", left == right)
        a, b = self.show(st, left), self.show(st, right)
        return ("is", a, b) if repr(a) <= repr(b) else ("is", b, a)

    # --------------------------------------------------------------- subscripts

    def _index(self, term: Any) -> Any:
        """A constant int or slice of constant ints/None as a Python index; None if not."""
        ok, v = _const_value(term)
        if ok and type(v) is int:
            return v
        if type(term) is tuple and term[0] == "slice":
            parts = []
            for p in term[1:]:
                ok, v = _const_value(p)
                if not ok or not (v is None or type(v) is int):
                    return None
                parts.append(v)
            return slice(*parts)
        return None

    def op_BINARY_SUBSCR(self, st: _State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        self._subscr(st, container, key)

    def op_BINARY_SLICE(self, st: _State, i: Instr) -> None:
        stop = st.stack.pop()
        start = st.stack.pop()
        container = st.stack.pop()
        self._subscr(st, container, ("slice", start, stop, const_term(None)))

    def _subscr(self, st: _State, container: Any, key: Any) -> None:
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, slice):
                st.stack.append(self.new(st, "list", obj.items[idx]))
                return
            if -len(obj.items) <= idx < len(obj.items):
                st.stack.append(obj.items[idx])
                return
            raise NotModelled("an index out of range of a list the code built")
        items = None if obj is not None else self.items_of(st, container)
        if items is not None and idx is not None:
            if isinstance(idx, slice):
                st.stack.append(("tuple",) + tuple(items[idx]))
                return
            if -len(items) <= idx < len(items):
                st.stack.append(items[idx])
                return
        st.stack.append(self.ev_show(st, "getitem", container, key))

    def op_STORE_SUBSCR(self, st: _State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        value = st.stack.pop()
        self._store_subscr(st, container, key, value)

    def op_STORE_SLICE(self, st: _State, i: Instr) -> None:
        stop = st.stack.pop()
        start = st.stack.pop()
        container = st.stack.pop()
        value = st.stack.pop()
        self._store_subscr(st, container, ("slice", start, stop, const_term(None)), value)

    def _store_subscr(self, st: _State, container: Any, key: Any, value: Any) -> None:
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, slice):
                items = self.items_of(st, value)
                if items is None or idx.step not in (None, 1):
                    raise NotModelled("a slice assignment of unknown items")
                obj.items[idx] = items
                return
            if -len(obj.items) <= idx < len(obj.items):
                obj.items[idx] = value
                return
            raise NotModelled("an index out of range of a list the code built")
        if obj is not None:
            raise NotModelled("a store into a fresh object not modelled")
        self.ev_show(st, "setitem", container, key, value)

    def op_DELETE_SUBSCR(self, st: _State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, int) and not -len(obj.items) <= idx < len(obj.items):
                raise NotModelled("an index out of range of a list the code built")
            del obj.items[idx]
            return
        if obj is not None:
            raise NotModelled("a delete from a fresh object not modelled")
        self.ev_show(st, "delitem", container, key)

    # --------------------------------------------------------------- calls

    def op_KW_NAMES(self, st: _State, i: Instr) -> None:
        st.kwnames = tuple(i.argval)

    def op_CALL(self, st: _State, i: Instr) -> None:
        args = self.take(st, i.argval)
        b = st.stack.pop()
        a = st.stack.pop()
        kwnames, st.kwnames = st.kwnames or (), None
        # 3.9-3.12: [NULL, callable] or [method, self]; 3.13: [callable, NULL or self]
        if TABLE.null_after_callable:
            fn, self_arg = a, b
        else:
            fn, self_arg = (b, _NULL) if a == _NULL else (a, b)
        if fn == _NULL:
            raise NotModelled("a call of NULL")
        if self_arg != _NULL:
            args = [self_arg] + args
        self._call(st, fn, args, kwnames)

    op_CALL_METHOD = op_CALL

    def op_CALL_KW(self, st: _State, i: Instr) -> None:
        names = st.stack.pop()
        if type(names) is not tuple or names[0] != "tuple":
            raise NotModelled("CALL_KW without constant names")
        st.kwnames = tuple(_const_value(t)[1] for t in names[1:])
        self.op_CALL(st, i)

    def op_CALL_FUNCTION(self, st: _State, i: Instr) -> None:
        args = self.take(st, i.argval)
        self._call(st, st.stack.pop(), args, ())

    def op_CALL_FUNCTION_KW(self, st: _State, i: Instr) -> None:
        names = st.stack.pop()
        if type(names) is not tuple or names[0] != "tuple":
            raise NotModelled("CALL_FUNCTION_KW without constant names")
        args = self.take(st, i.argval)
        self._call(st, st.stack.pop(), args, tuple(_const_value(t)[1] for t in names[1:]))

    def op_CALL_FUNCTION_EX(self, st: _State, i: Instr) -> None:
        kwargs = st.stack.pop() if i.argval & 1 else None
        callargs = st.stack.pop()
        if TABLE.calls_push_null:
            b = st.stack.pop()
            a = st.stack.pop()
            fn = b if a == _NULL else a if b == _NULL else None
            if fn is None:
                raise NotModelled("CALL_FUNCTION_EX without NULL")
        else:
            fn = st.stack.pop()
        items = self.items_of(st, callargs)
        args = items if items is not None else [("star", callargs)]
        kwnames: tuple = ()
        stars: list = []
        if kwargs is not None:
            obj = self.fresh(st, kwargs)
            if obj is None or obj.kind != "dict":
                args.append(("starstar", kwargs))
            else:
                for pair in obj.items:
                    if type(pair) is tuple:  # ("spread", the merged mapping)
                        stars.append(pair[1])
                        continue
                    k, v = pair
                    ok, name = _const_value(k)
                    if not ok or type(name) is not str:
                        raise NotModelled("a ** keyword that is not a constant string")
                    args.append(v)
                    kwnames += (name,)
        self._call(st, fn, args, kwnames, stars)

    def _call(
        self, st: _State, fn: Any, args: list, kwnames: tuple, stars: list | None = None
    ) -> None:
        if type(fn) is tuple and fn and fn[0] == "listmeth":
            self._list_method(st, fn, args, kwnames)
            return
        npos = len(args) - len(kwnames)
        pos = tuple(self.show(st, a) for a in args[:npos])
        kws = tuple(sorted(zip(kwnames, (self.show(st, a) for a in args[npos:]))))
        ev = ("call", self.show(st, fn), pos, kws)
        if stars:
            ev += (("**", tuple(stars)),)
        st.stack.append(self.event(st, ev))

    def _list_method(self, st: _State, fn: tuple, args: list, kwnames: tuple) -> None:
        obj = st.heap[fn[1]]
        if obj.escaped is not None or kwnames or len(args) != 1:
            raise NotModelled("a list method call not modelled")
        if fn[2] == "append":
            obj.items.append(args[0])
        else:
            items = self.items_of(st, args[0])
            if items is None:
                raise NotModelled("a list extended by an iterable of unknown length")
            obj.items.extend(items)
        st.stack.append(const_term(None))

    def op_IMPORT_NAME(self, st: _State, i: Instr) -> None:
        fromlist = st.stack.pop()
        level = st.stack.pop()
        st.stack.append(self.ev_show(st, "import", ("name", i.argval), fromlist, level))

    def op_IMPORT_FROM(self, st: _State, i: Instr) -> None:
        st.stack.append(self.ev_show(st, "import-from", st.stack[-1], ("name", i.argval)))

    # --------------------------------------------------------------- control flow

    def truth(self, st: _State, term: Any) -> Any:
        """The truth value of ``term`` as a term: decided for constants and fresh objects,
        otherwise one ``bool`` event (its result read as a truth)."""
        if type(term) is tuple:
            tag = term[0]
            if tag in ("truth", "known", "is"):
                return term
            if tag == "not":
                return ("not", self.truth(st, term[1]))
            ok, v = _const_value(term)
            if ok:
                return ("known", bool(v))
            if tag == "tuple":
                return ("known", len(term) > 1)
            obj = self.fresh(st, term)
            if obj is not None:
                return ("known", bool(obj.items))
        r = self.ev_show(st, "bool", term)
        return ("truth", r)

    def _decide(self, st: _State, t: Any) -> bool | None:
        """The outcome of truth term ``t`` if known on this path."""
        neg = False
        while t[0] == "not":
            t, neg = t[1], not neg
        if t[0] == "known":
            return t[1] != neg
        if t in st.truths:
            return st.truths[t] != neg
        return None

    def _branch(self, st: _State, cond: Any, jump_if: bool, target: int) -> _State | None:
        """Go on at ``target`` where the truth of ``cond`` is ``jump_if``; a path for the other
        outcome (returned) when this path does not decide it."""
        t = self.truth(st, cond)
        outcome = self._decide(st, t)
        alt = None
        if outcome is None:
            base = t
            while base[0] == "not":
                base = base[1]
            alt = st.fork()
            alt.truths[base] = False
            alt.path.append(("branch", base, False))
            st.truths[base] = True
            st.path.append(("branch", base, True))
            if self._decide(alt, t) == jump_if:
                alt.pc = target
                if target <= self.cur.index:
                    alt.jumped_back = True
            self.work.append(alt)
            outcome = self._decide(st, t)
        if outcome == jump_if:
            st.pc = target
        return alt

    def op_POP_JUMP_IF_FALSE(self, st: _State, i: Instr) -> None:
        self._branch(st, st.stack.pop(), False, i.target)

    def op_POP_JUMP_IF_TRUE(self, st: _State, i: Instr) -> None:
        self._branch(st, st.stack.pop(), True, i.target)

    def op_POP_JUMP_IF_NONE(self, st: _State, i: Instr) -> None:
        self._branch(st, self._is(st, st.stack.pop(), const_term(None)), True, i.target)

    def op_POP_JUMP_IF_NOT_NONE(self, st: _State, i: Instr) -> None:
        self._branch(st, self._is(st, st.stack.pop(), const_term(None)), False, i.target)

    def op_JUMP_IF_FALSE_OR_POP(self, st: _State, i: Instr) -> None:
        self._value_jump(st, i, False)

    def op_JUMP_IF_TRUE_OR_POP(self, st: _State, i: Instr) -> None:
        self._value_jump(st, i, True)

    def _value_jump(self, st: _State, i: Instr, jump_if: bool) -> None:
        """The value stays on the stack where the jump is taken, and is popped where not."""
        value = st.stack.pop()
        alt = self._branch(st, value, jump_if, i.target)
        for path in (st, alt):
            if path is not None and path.pc == i.target:
                path.stack.append(value)

    def op_JUMP(self, st: _State, i: Instr) -> None:
        st.pc = i.target

    op_JUMP_BACKWARD_NO_INTERRUPT = op_JUMP

    # --------------------------------------------------------------- loops

    def op_GET_ITER(self, st: _State, i: Instr) -> None:
        x = st.stack.pop()
        if self.fresh(st, x) is not None and self.fresh(st, x).kind == "list":
            st.stack.append(("list-iter", x[1], 0))  # (reads the list live, as CPython does)
            return
        if type(x) is tuple and x[0] == "tuple":
            st.stack.append(("tuple-iter", x[1:]))
            return
        st.stack.append(("iterator", self.ev_show(st, "iter", x)))

    def op_FOR_ITER(self, st: _State, i: Instr) -> None:
        it = st.stack[-1]
        if it[0] == "tuple-iter":
            if it[1]:
                st.stack[-1] = ("tuple-iter", it[1][1:])
                st.stack.append(it[1][0])
            else:
                st.stack.pop()
                st.pc = i.target
            return
        if it[0] == "list-iter":
            items = st.heap[it[1]].items
            if it[2] < len(items):
                st.stack[-1] = ("list-iter", it[1], it[2] + 1)
                st.stack.append(items[it[2]])
            else:
                st.stack.pop()
                st.pc = i.target
            return
        if it[0] != "iterator" or i.index in st.loops:
            raise NotModelled("a loop over an iterator not modelled")
        # An unknown iterable: one iteration standing for all, and the path where it is
        # exhausted (at the head of any iteration)
        self._enter_loop(st, i.index)
        done = st.fork()
        done.stack.pop()
        done.path.append(("loop-exhausted", it[1]))
        done.pc = i.target
        self.work.append(done)
        st.stack.append(self.event(st, ("next", it[1])))

    def _enter_loop(self, st: _State, head: int) -> None:
        """Run the loop at ``head`` by induction: the locals its body binds become one term
        each (their value at the head of any iteration), recorded with their values on entry;
        the path goes on through one iteration, and ends back at the head with the values
        they have for the next one (:meth:`_loop_back`).  Two programs whose loops enter with
        the same values, do the same in an iteration and leave the same values for the next
        one do the same in every iteration."""
        ins = self.ins
        stored = {
            ins[k].argval for k in self.region(head) if ins[k].op in ("STORE_FAST", "DELETE_FAST")
        }
        # (a cell the loop binds holds at the head what an earlier iteration put there: read
        # as an event in it and after it, like a cell others share)
        rebound = {
            ins[k].argval for k in self.region(head) if ins[k].op in ("STORE_DEREF", "DELETE_DEREF")
        }
        if rebound & st.cells.keys():
            st.cells = {name: v for name, v in st.cells.items() if name not in rebound}
        # (a delete reads too: it raises where the local is unbound, so a local the body
        # deletes before it binds it again is carried, not dropped)
        live = self.key_live()[head]
        carried = sorted(stored & live)  # (the others are bound again before any read)
        for name in stored - live:
            st.local.pop(name, None)
        st.loop_count += 1
        n = st.loop_count
        self.observe(st)
        st.path.append(("loop-enter", n, tuple(
            (name, self.show(st, st.local[name]) if name in st.local else ("unbound",))
            for name in carried
        )))
        for name in carried:
            st.local[name] = ("loop-var", n, name)
        st.loops = st.loops | {head}
        st.heads = {**st.heads, head: (tuple(st.stack), n, tuple(carried), st.handling)}
        st.inside = st.inside + ((head, st.floor, tuple(sorted(st.holders.items()))),)
        st.floor = len(st.heap)
        # objects made before the loop, by a local or stack slot holding them at its head
        holders = dict(st.holders)
        for k, t in enumerate(st.stack):
            if type(t) is tuple and t and t[0] == "ref":
                holders.setdefault(t[1], ("stack", k))
        for name in sorted(st.local):
            t = st.local[name]
            if type(t) is tuple and t and t[0] == "ref":
                holders.setdefault(t[1], ("local", name))
        st.holders = holders

    def _liveness(self, uses: tuple) -> _Live:
        """The locals each instruction may read (an instruction in ``uses``) before they are
        bound again, over jumps, fall-through and exception edges: a backward dataflow to a
        fixed point."""
        ins, n = self.ins, len(self.ins)
        succ = self._successors()
        # (sets of locals as bits of an int: the fixed point takes a few passes over the code)
        bits: dict[str, int] = {}
        gen, kill = [0] * n, [0] * n
        for b in ins:
            if b.op in uses or b.op in ("STORE_FAST", "DELETE_FAST"):
                one = bits.setdefault(b.argval, 1 << len(bits))
                if b.op in uses:
                    gen[b.index] = one
                else:
                    kill[b.index] = one
        live = [0] * (n + 1)
        changed = True
        while changed:
            changed = False
            for k in range(n - 1, -1, -1):
                out = 0
                for j in succ[k]:
                    if j <= n:
                        out |= live[j]
                out = (out & ~kill[k]) | gen[k]
                if out != live[k]:
                    live[k] = out
                    changed = True
        return _Live(live, list(bits))

    def _loop_back(self, st: _State, head: int) -> None:
        stack, n, carried, handling = st.heads[head]
        if tuple(st.stack) != stack:
            raise NotModelled("the stack changes around a loop")
        if st.handling != handling:
            # (the next iteration would run with another exception being handled than the
            # one the induction assumed at the head)
            raise NotModelled("the exception being handled changes around a loop")
        self.observe(st)  # (recorded at the head too: the next iteration starts as this one did)
        self.looping_back = True
        try:
            st.path.append(("loop-back", n, tuple(
                (name, self.show(st, st.local[name]) if name in st.local else ("unbound",))
                for name in carried
            )))
        finally:
            self.looping_back = False
        raise _PathEnd

    def op_RETURN_VALUE(self, st: _State, i: Instr) -> None:
        # (the exception being handled stays set for the caller: a frame returning from an
        # except clause it did not leave leaves it set)
        self.observe(st)
        st.path.append(("return", self.show(st, st.stack.pop())))
        raise _PathEnd

    def op_RAISE_VARARGS(self, st: _State, i: Instr) -> None:
        n = i.argval
        if n == 0:
            # (a bare raise raises the exception being handled, whatever put it there)
            self.raise_(st, ("reraise", st.handling))
            return
        cause = st.stack.pop() if n == 2 else None
        exc = st.stack.pop()
        # (the new exception's context is the one being handled)
        self.observe(st)
        k = len(st.path)
        st.path.append(("make-exception", self.show(st, exc), self.show(st, cause)))
        self.raise_(st, ("raised-exc", k))

    def op_RERAISE(self, st: _State, i: Instr) -> None:
        """Raise the exception on the stack again; with an argument, first read the offset an
        exception-table entry pushed that far down (it only places the traceback there), which
        CPython requires to be an int: anything else raises SystemError instead."""
        n = i.arg or 0
        if n and (len(st.stack) <= n or st.stack[-1 - n] != ("lasti",)):
            raise NotModelled("a RERAISE that reads no offset an exception table pushed")
        self.raise_(st, ("reraise", st.stack.pop()))

    def op_PUSH_EXC_INFO(self, st: _State, i: Instr) -> None:
        """The exception a handler catches becomes the one being handled; the one handled
        before is saved on the stack, for the ``POP_EXCEPT`` that ends the handler."""
        exc = st.stack.pop()
        st.stack.append(st.handling)
        st.handling = exc
        st.stack.append(exc)

    def op_POP_EXCEPT(self, st: _State, i: Instr) -> None:
        """The value on the stack becomes the exception being handled, as in CPython: the one
        ``PUSH_EXC_INFO`` saved where the code is what a compiler makes, whatever else is there
        where it is not (None is none)."""
        st.handling = st.stack.pop()

    def observe(self, st: _State) -> None:
        """Record the exception being handled where code that may run next can see it (an
        event, a raise, a return, a loop's head or its end), if it changed since the path last
        recorded it: called code reads it (``sys.exception()``, a bare ``raise``), a new
        exception takes it as its context, and a frame that ends leaves it set."""
        if st.handling != st.handling_seen:
            st.handling_seen = st.handling
            st.path.append(("handling", self.show(st, st.handling)))

    def op_CHECK_EXC_MATCH(self, st: _State, i: Instr) -> None:
        match = st.stack.pop()
        r = self.ev_show(st, "exception-matches", st.stack[-1], match)
        st.stack.append(("truth", r))

    def op_BEFORE_WITH(self, st: _State, i: Instr) -> None:
        r = self.ev_show(st, "enter-with", st.stack.pop())
        st.stack.append(("exit-of", r))
        st.stack.append(("entered", r))

    def op_WITH_EXCEPT_START(self, st: _State, i: Instr) -> None:
        # exit function, (lasti,) previous exception, exception: exit(type, value, tb)
        exc = st.stack[-1]
        fn = st.stack[-4]
        st.stack.append(self.ev_show(st, "call-exit", fn, exc))


__all__ = ["EQUIVALENT", "NOT_VERIFIED", "Verdict", "validate", "const_term", "NotModelled"]
