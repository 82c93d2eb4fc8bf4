"""The symbolic executor: runs one code object path by path, for
:mod:`pellucid.decompiler.lockstep` to compare, recording every operation that may run code or
raise as an event.  The effects of each kind of instruction are mixed in from this package's
``*Ops`` classes, one module each.
"""

from __future__ import annotations

import types
from typing import Any

from pellucid.decompiler.instructions import TABLE, exception_entries, normalize
from pellucid.decompiler.validation.access import AccessOps
from pellucid.decompiler.validation.branches import BranchOps
from pellucid.decompiler.validation.building import BuildingOps
from pellucid.decompiler.validation.calls import CallOps
from pellucid.decompiler.validation.exception_state import ExceptionStateOps
from pellucid.decompiler.validation.loops import LoopOps
from pellucid.decompiler.validation.operators import OperatorOps
from pellucid.decompiler.validation.stack import StackOps
from pellucid.decompiler.validation.state import (
    FOLLOW_ERRORS,
    Live,
    NotModelled,
    Obj,
    PathEnd,
    State,
)

MAX_STEPS = 200_000
GEN_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen


def cells_written(code: types.CodeType) -> set[str]:
    """Names the functions nested in ``code`` (at any depth) store or delete as free
    variables (``nonlocal``)."""
    out: set[str] = set()
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            for i in normalize(c):
                if i.op in ("STORE_DEREF", "DELETE_DEREF") and i.argval in c.co_freevars:
                    out.add(i.argval)
            out |= cells_written(c)
    return out


class Executor(
    StackOps, BuildingOps, AccessOps, OperatorOps, CallOps, BranchOps, LoopOps, ExceptionStateOps
):
    """One code object's paths, run symbolically: ``start`` and ``advance`` for lockstep, and
    the events, terms and fresh objects the instructions' effects use."""

    def __init__(
        self,
        code: types.CodeType,
        global_aliases: dict[str, str],
        constant_names: dict[str, object],
        exceptions: bool,
        code_alias: dict[int, int],
    ) -> None:
        if code.co_flags & GEN_FLAGS:
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
        self.own_cells = set(code.co_cellvars) - cells_written(code)
        # instructions more than one way leads to (where lockstep looks for paths to merge)
        self.joins = {b.target for b in self.ins if b.target is not None}
        self.joins |= {h[2] for h in self.handlers}
        self._key_live: Live | None = None

    def start(self) -> State:
        """The state on entry: the arguments bound, nothing done."""
        code = self.code
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        local = {name: ("arg", name) for name in code.co_varnames[:n]}
        first = State(0, [], local, {}, [])
        first.cells = {name: -1 for name in code.co_varnames[:n] if name in self.own_cells}
        return first

    def advance(self, st: State) -> list[State]:
        """Run ``st`` until its path grows by a step or ends: it, and the paths it forked
        on the way (each a step or more longer)."""
        work: list = []
        try:
            self._run_path(st, work, len(st.path))
        except PathEnd:
            st.ended = True
        except FOLLOW_ERRORS as e:
            i = getattr(self, "cur", None)  # (the instruction being run, if any has been)
            where = f"{i.op} at offset {i.offset}" if i is not None else "the code"
            raise NotModelled(
                f"the validator could not follow {where} ({type(e).__name__}: {e})"
            ) from e
        for alt in work:
            alt.joined = alt.joined or alt.pc in self.joins
        return [st] + work

    def _run_path(self, st: State, work: list, until: int) -> None:
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

    def event(self, st: State, ev: tuple) -> tuple:
        """Record an operation that may run code or raise; its result term."""
        self.observe(st)
        k = len(st.path)
        st.path.append(ev)
        if self.exceptions:
            self._raise_fork(st, ("exc", k))
        return ("res", k)

    def show(self, st: State, term: Any) -> Any:
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

    def fresh(self, st: State, term: Any) -> Obj | None:
        """The fresh, not yet escaped object ``term`` refers to, if any."""
        if type(term) is tuple and term and term[0] == "ref" and term[1] >= st.floor:
            obj = st.heap[term[1]]
            if obj.escaped is None:
                return obj
        return None

    def new(self, st: State, kind: str, items: list) -> tuple:
        oid = len(st.heap)
        st.heap[oid] = Obj(kind, items)
        return ("ref", oid)

    def items_of(self, st: State, term: Any) -> list | None:
        """The elements of a fresh list, a built tuple or a constant tuple; None if unknown."""
        obj = self.fresh(st, term)
        if obj is not None:
            return list(obj.items) if obj.kind == "list" else None
        if type(term) is tuple and term and term[0] == "tuple":
            return list(term[1:])
        return None

    def ev_show(self, st: State, tag: str, *operands: Any) -> tuple:
        self.observe(st)
        return self.event(st, (tag,) + tuple(self.show(st, o) for o in operands))
