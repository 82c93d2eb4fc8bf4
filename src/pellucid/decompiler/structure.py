"""Control-flow structuring: jumps become if/while/for/break/continue, and/or, ternaries.

The walker processes an instruction range with a symbolic stack.  Every jump
it meets must fit a source construct whose extent is derived from jump
targets (the loop header of a back edge, the false exit of a condition, the
else-jump ending a then-branch); anything else raises DecompilationError.
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, Callable

from pellucid.decompiler import values as V
from pellucid.decompiler.assignments import AssignmentOps
from pellucid.decompiler.cfg import build as build_cfg
from pellucid.decompiler.classes import ClassOps
from pellucid.decompiler.errors import DecompilationError, Refusal
from pellucid.decompiler.evaluate import Evaluator
from pellucid.decompiler.exceptions import ExceptionStructure
from pellucid.decompiler.generators import GeneratorOps, fold_suspensions
from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    TABLE,
    TERMINAL,
    VALUE_JUMPS,
    Instr,
    arg_key,
    exception_entries,
    has_jump_chains,
    normalize,
    thread_jump_chains,
)
from pellucid.decompiler.patterns import PatternOps
from pellucid.decompiler.reentry import splice_reentries
from pellucid.decompiler.regions.boolops import BoolOpOps
from pellucid.decompiler.regions.chain_ternaries import ChainTernaryOps
from pellucid.decompiler.regions.chains import ChainOps, _is_chain_link
from pellucid.decompiler.regions.conditionals import IfOps
from pellucid.decompiler.regions.conditions import ConditionOps
from pellucid.decompiler.regions.else_ranges import ElseOps
from pellucid.decompiler.regions.exit_blocks import ExitBlockOps
from pellucid.decompiler.regions.for_loops import ForOps
from pellucid.decompiler.regions.jumps import JumpOps
from pellucid.decompiler.regions.loops import Loop, LoopOps
from pellucid.decompiler.undo import mark_loop_test_copies

# where try_at() can be true without an exception-table entry or a copy
_TRY_START_OPS = frozenset({"BEFORE_WITH"} if TABLE.has_exception_table else {"SETUP_FINALLY", "SETUP_WITH"})
# the ops walk() looks at before running their handler
_WALK_CONTROL = CONDITIONAL_JUMPS | VALUE_JUMPS | {"JUMP", "FOR_ITER", "COPY", "POP_TOP"}


# (see Walker._check_all_placed: exits and plumbing the readings write once or not at all)
_NOT_CHECKED_PLACED = frozenset({
    "POP_TOP", "LOAD_FAST", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "NOP", "SWAP", "COPY",
    "POP_EXCEPT", "PUSH_NULL", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_DEREF",
    "LOAD_CLOSURE", "RESUME", "CACHE", "EXTENDED_ARG",
})


def _fills_accumulator(ins: Instr, stack: list) -> bool:
    """A for loop filling an accumulator: a 3.12+ inlined comprehension, not a statement."""
    return ins.op == "FOR_ITER" and len(stack) >= 2 and isinstance(stack[-2], V.Accumulator)


class Walker(
    AssignmentOps, JumpOps, LoopOps, ForOps, ConditionOps, IfOps, ElseOps, ExitBlockOps, BoolOpOps,
    ChainOps, ChainTernaryOps, PatternOps, ClassOps, GeneratorOps, ExceptionStructure, Evaluator,
):
    def __init__(self, code: CodeType, thread_jumps: bool = False) -> None:
        self.code = code
        self.varnames = frozenset(code.co_varnames)
        self._match_candidates: set[int] | None = None  # (PatternOps, found when first needed)
        self._no_arm_end: dict[int, int] = {}  # join -> start of an operand walked to it
        self.ins = normalize(code)
        if thread_jumps:
            thread_jump_chains(self.ins)
        self.exc_entries = exception_entries(code, self.ins)
        self.ins, self.exc_entries = fold_suspensions(self.ins, self.exc_entries)
        self.ins, self.exc_entries = splice_reentries(self.ins, self.exc_entries)
        mark_loop_test_copies(self.ins)
        self.n = len(self.ins)
        self.walked = bytearray(self.n)  # instructions the walk evaluated (see _check_all_placed)
        self.block: list[ast.stmt] = []
        self.loops: list[Loop] = []
        self.pending_kwnames: tuple | None = None
        # id(value) -> (value, targets); the value is kept so its id stays unique
        self.assign_chains: dict[int, tuple[Any, list[ast.expr]]] = {}
        self.parallel: list[tuple[Any, ast.expr]] | None = None
        self.globals_declared: set[str] = set()
        self.latch: dict[int, int] = {}
        self.runs_off_end = False
        for i in self.ins:
            if i.target is not None and i.target <= i.index and i.op != "FOR_ITER":
                self.latch[i.target] = max(self.latch.get(i.target, -1), i.index)
        self.reachable = self._reachability()
        self.initially_reachable = list(self.reachable)
        self.loop_counter = 0
        # head of a `while True:` whose body starts with a `while c:` at the same place
        self._inner_while_head: int | None = None
        self.stmt_start = 0
        self.fallthrough: dict[int, int] = {}
        self.seq = 0
        self.cur_base = 0
        self.cur_stack: list = []
        self.cur_snapshot: list = []  # the stack the current block started from
        self.spilled = 0
        # RETURN_VALUE indices known to be copies of the function's implicit `return None`
        self.implicit_returns: set[int] = set()
        self._written_elsewhere: set[int] = set()  # (see written_elsewhere)

    # ------------------------------------------------------------ plumbing
    def fail(self, reason: str, ins: Instr | None = None, *, kind: Refusal) -> DecompilationError:
        return DecompilationError(
            reason,
            kind=kind,
            code_name=getattr(self.code, "co_qualname", self.code.co_name),
            opname=ins.raw or ins.op if ins is not None else None,
            offset=ins.offset if ins is not None else None,
        )

    def misplaced(self, reason: str, ins: Instr) -> DecompilationError:
        """A failure of a check that code ended up where the reading put it: final (see body).
        Its kind is always UNPLACED, the structuring's own invariant."""
        e = self.fail(reason, ins, kind=Refusal.UNPLACED)
        e.misplaced = True  # type: ignore[attr-defined]
        return e

    def emit(self, stmt: ast.stmt) -> None:
        self.spill(stmt)
        self.block.append(stmt)

    def materialize(self, stack: list) -> None:
        saved, self.cur_stack = self.cur_stack, stack
        try:
            self.spill(ast.Pass())
        finally:
            self.cur_stack = saved

    def _stamp(self, stack: list) -> None:
        """Number a value a structured step left on the stack in evaluation order, as the
        plain opcodes' values are (spill writes temporaries in that order)."""
        if stack and isinstance(stack[-1], ast.AST) and not hasattr(stack[-1], "_seq"):
            self.seq += 1
            stack[-1]._seq = self.seq

    def _reachability(self) -> list[bool]:
        """Instructions reached from the entry along the CFG's normal-flow edges (3.9/3.10's
        SETUP_* targets included)."""
        seen, off_end = build_cfg(self.ins).reach([0, *self._handler_starts()])
        if off_end:
            # past the last instruction: no interpreter runs that (it would read beyond
            # the bytecode), so no source means it; check_supported refuses such code
            self.runs_off_end = True
        return seen

    def _handler_starts(self) -> list[int]:
        return []

    # ------------------------------------------------------------ entry
    def body(self) -> list[ast.stmt]:
        """The code's statements.  Refused as compiled, they are tried once more with jumps to
        jumps threaded (3.9 leaves some a branch's jump to a ``continue``'s jump), which
        means the same but may have a structure: this walker then becomes that walk."""
        try:
            return self._body()
        except DecompilationError as first:
            if not has_jump_chains(self.ins) or getattr(first, "misplaced", False):
                # (none are left once threaded; code found out of place is a reading gone
                # wrong, which threading would only hide by making that code dead)
                raise
            again = self.threaded_walker()
            try:
                stmts = again._body()
            except DecompilationError:
                raise first from None
            self.__dict__.update(again.__dict__)
            return stmts

    def threaded_walker(self) -> Walker:
        """A fresh walker of the same code with jump chains threaded (subclasses add state)."""
        return Walker(self.code, thread_jumps=True)

    def _body(self) -> list[ast.stmt]:
        self.check_supported()
        stmts, stack = self.walk(0, self.n, [], frozenset())
        if stack:
            raise self.fail(f"{len(stack)} values left on the stack at the end", kind=Refusal.STACK)
        if self.assign_chains:
            # targets of `a = b = x` stored while x stayed on the stack, whose statement
            # never came: refuse rather than lose the stores
            raise self.fail("a chained assignment's targets were never written", kind=Refusal.EXPRESSION)
        self._check_all_placed()
        return stmts

    def _check_all_placed(self) -> None:
        """Refuse when code that does something (calls, stores, operators, loads of globals
        and attributes) was never evaluated although the function reaches it: the structure
        found left it out of the source (code that only a clause of an inner try reaches,
        laid out where no statement's walk looks).  Loads of locals and constants, pops and
        returns are left out: compilers copy exits, and the readings write those once."""
        home = getattr(self, "home", None)
        if not TABLE.has_exception_table or home is None or any(i.op == "CHECK_EG_MATCH" for i in self.ins):
            return  # (except* handlers hold plumbing of their own)
        missed = self._never_written(k for k in range(self.n) if self.reachable[k] and home[k] is not None and home[k] >= 0)
        if missed:
            raise self.misplaced("code the function reaches is left out", self.ins[missed[0]])

    def _never_written(self, ks) -> list[int]:
        """Those of the instructions ``ks`` that do something and were never evaluated, nor
        are a registered copy or an `as` name's clean-up (which their statement writes)."""
        walked, ins = self.walked, self.ins
        missed = [k for k in ks if not walked[k] and ins[k].op not in _NOT_CHECKED_PLACED and ins[k].op in self._op_handlers]
        if not missed:
            return []
        copied = self._copied()
        # (an `as` name's clean-up, `name = None; del name`, is written by its clause)
        return [
            k for k in missed
            if k not in copied and not any(j >= 0 and self._name_cleanup_at(j, ins[k].argval) for j in (k - 1, k - 2))
        ]

    def written_elsewhere(self, ks) -> None:
        """Record that a reading has written the instructions ``ks`` (code laid out past an
        exit block and read as the rest of a loop body, say): a walk that meets them after a
        return still reads them, so that whatever it refuses is still refused, but does not
        write them a second time as dead code (see walk)."""
        self._written_elsewhere.update(ks)

    def _only_written_elsewhere(self, a: int, b: int) -> bool:
        """Is every instruction in [a, b) left to walk code a reading has written already?"""
        done = self._written_elsewhere
        return bool(done) and all(not self.reachable[k] or k in done for k in range(a, b))

    def check_supported(self) -> None:
        if self.runs_off_end:
            raise self.fail("the bytecode runs off its end (a path with no return or raise)", kind=Refusal.NO_SOURCE)
        for i in self.ins:
            if i.op in _UNSUPPORTED:
                raise self.fail(_UNSUPPORTED[i.op], i, kind=Refusal.UNSUPPORTED)
        self.check_exception_support()

    def _only_comprehension_handlers(self) -> bool:
        # 3.12+ inlined comprehensions restore their shadowed locals in a handler:
        # SWAP 2; POP_TOP; SWAP 2*; STORE_FAST*; RERAISE.  Nothing source-level.
        for _, _, target, _, _ in self.exc_entries:
            j = target
            ops = []
            while j < self.n and self.ins[j].op != "RERAISE":
                ops.append(self.ins[j].op)
                j += 1
            if not ops or ops[0] != "SWAP" or ops[1:2] != ["POP_TOP"]:
                return False
            if any(o not in ("SWAP", "STORE_FAST", "POP_TOP") for o in ops):
                return False
        return True

    # ------------------------------------------------------------ the walk
    def walk(
        self,
        start: int,
        stop: int,
        stack: list,
        exits: frozenset,
        until_cond: bool = False,
        base_stack: list | None = None,
        until: Callable[[list], bool] | None = None,
    ) -> tuple[list[ast.stmt], list]:
        """Structure [start, stop) on ``stack``: the statements, and the stack left.

        ``until``: stop early, before the first instruction at which it holds of the stack,
        recording that instruction in ``self.stopped_at`` (an operand evaluated up to the
        instruction that consumed a value)."""
        saved = self.block
        self.block = []
        # after return/raise/break/continue the stack is dead; structured code
        # that follows (reached by another jump) starts from the block's base
        snapshot = list(stack) if base_stack is None else base_stack
        base = len(snapshot)
        saved_base, self.cur_base = self.cur_base, base
        saved_stack, self.cur_stack = self.cur_stack, stack
        saved_snapshot, self.cur_snapshot = self.cur_snapshot, snapshot
        i = start
        stmt_start = start  # where the statement being evaluated began
        if until_cond:
            trial_state = (dict(self.assign_chains), self.parallel, self.pending_kwnames)
        reachable, instrs, walked = self.reachable, self.ins, self.walked  # (never rebound after __init__)
        handlers = self._op_handlers
        # try_at() and match_at() are false at most instructions: these tables (bound once
        # they exist) rule them out without the calls
        copies, cover = getattr(self, "_copies", None), getattr(self, "_cover", None)
        try:
            while i < stop:
                if until is not None and self._until_at(i, until, stack):
                    self.stopped_at = i
                    return self.block, stack
                if until_cond and self.block:
                    # a statement: not a condition chain, which its callers then give up on
                    return self.block, stack
                if not reachable[i]:
                    i += 1
                    continue
                if len(stack) == base:
                    stmt_start = i
                ins = instrs[i]
                if (
                    (copies is None or i in copies or cover[i] is not None or ins.op in _TRY_START_OPS)
                    and self.try_at(i)
                    and not self.loop_encloses_try(i)
                ):
                    if until_cond:
                        raise self.fail("try inside a condition", ins, kind=Refusal.CONDITION)
                    i = self._walk_try(i, stack, stop, exits, snapshot)
                    continue
                cands = self._match_candidates
                if not until_cond and (cands is None or i in cands) and self.match_at(i, stack):
                    i = self.do_match(i, stack, stop, exits)
                    continue
                if i in self.latch and (not self._in_loop(i) or i == self._inner_while_head):
                    if until_cond and not _fills_accumulator(ins, stack):
                        if i != start:
                            raise self.fail("loop inside a condition", ins, kind=Refusal.CONDITION)
                    else:
                        i = self.do_loop(i, stack, stop, exits)
                        continue
                op = ins.op
                if op in _WALK_CONTROL:  # jumps, and the COPY and POP_TOP idioms
                    if (
                        op in CONDITIONAL_JUMPS
                        and len(stack) >= 2
                        and _is_chain_link(stack[-1], stack[:-1])
                        and i not in self.fallthrough
                    ):
                        i = self.fold_chain_condition(i, stack)
                        continue
                    if op in CONDITIONAL_JUMPS:
                        if until_cond and len(stack) == base + 1:
                            return self.block, stack + [i]
                        self.stmt_start = stmt_start  # nested walks may have moved it
                        i = self.do_condition(i, stack, stop, exits)
                        self._stamp(stack)  # (a conditional expression's value)
                        continue
                    if op in VALUE_JUMPS:
                        i = self.do_value_jump(i, stack)
                        self._stamp(stack)
                        continue
                    if op == "JUMP":
                        i = self.do_jump(i, stack, stop, exits)
                        if self.block and isinstance(self.block[-1], (ast.Break, ast.Continue)):
                            stack[:] = snapshot
                        continue
                    if op == "FOR_ITER":
                        if until_cond or i in self.latch:
                            raise self.fail("FOR_ITER outside a loop", ins, kind=Refusal.LOOP)
                        # a for loop whose body never goes round (it returns or raises):
                        # nothing jumps back to its head
                        i = self.do_for(i, stack, stop, exits)
                        continue
                    if op == "COPY" and self._is_value_boolop(i, stack):
                        i = self.do_copy_boolop(i, stack)
                        self._stamp(stack)  # (an and/or value, 3.12+)
                        continue
                    if op == "POP_TOP" and not until_cond:
                        after = self._break_into_exit_copy(i, stack)
                        if after is not None:
                            self.emit(ast.Break())
                            stack[:] = snapshot
                            i = after
                            continue
                handler = handlers.get(op)  # (self.apply, inline: once per instruction)
                if handler is None:
                    raise self.fail("unsupported opcode", ins, kind=Refusal.UNSUPPORTED)
                walked[i] = 1
                handler(self, ins, stack)
                # (self._stamp(stack), inline: once per instruction)
                if stack and isinstance(stack[-1], ast.AST) and not hasattr(stack[-1], "_seq"):
                    self.seq += 1
                    stack[-1]._seq = self.seq
                i += 1
                if op in TERMINAL:
                    stack[:] = snapshot
                    # code after a return is either another region's target or dead
                    if i < stop and self._dead_between(i, stop):
                        i = stop
                    elif i < stop and self._only_written_elsewhere(i, stop):
                        # written already: walked (its refusals stand), not written again
                        _, stack[:] = self.walk(i, stop, list(snapshot), exits)
                        i = stop
            if until_cond:
                raise self.fail("condition does not end in a jump", self.ins[min(i, self.n - 1)], kind=Refusal.CONDITION)
            return self.block, stack
        except DecompilationError:
            if until_cond:  # a failed trial leaves no pending state behind
                self.assign_chains, self.parallel, self.pending_kwnames = trial_state
            raise
        finally:
            self.block = saved
            self.cur_base = saved_base
            self.cur_stack = saved_stack
            self.cur_snapshot = saved_snapshot

    def _walk_try(self, i: int, stack: list, stop: int, exits: frozenset, snapshot: list) -> int:
        """The try statement at i, structured; where the walk goes on.  (A try is "started"
        only while it is being structured: a later walk of the same code, a trial then the
        real one, must structure it again, not read it as plain code.)"""
        started = set(getattr(self, "_started", ()))
        try:
            i = self.do_try(i, stack, stop, exits)
        finally:
            if hasattr(self, "_started"):
                self._started &= started
        if self.block and getattr(self.block[-1], "overridden_exit", False):
            stack[:] = snapshot  # (the path ended, as after a return)
        return i

    def _until_at(self, i: int, until, stack: list) -> bool:
        self.walk_at = i  # (where the walk is, for ``until``)
        return until(stack)

    def _in_loop(self, header: int) -> bool:
        return any(header == lp.header or header in lp.continue_targets for lp in self.loops)

    # ------------------------------------------------------------ instruction scans
    def _is_target(self, k: int) -> bool:
        if not hasattr(self, "_targets"):
            self._targets = {i.target for i in self.ins if i.target is not None}
            self._sorted_targets = sorted(self._targets)
        return k in self._targets

    def _next(self, j: int) -> int:
        """Where control continues when the jump at ``j`` is not taken."""
        return self.fallthrough.get(j, j + 1)

    def apply(self, ins: Instr, stack: list) -> None:
        """Run the opcode handler of ``ins`` on ``stack`` (no control flow).  The instruction
        is evaluated as the walk's are (see _check_all_placed): the links of a chained
        comparison, a with's target, read outside the walk."""
        handler = self._op_handlers.get(ins.op)
        if handler is None:
            raise self.fail("unsupported opcode", ins, kind=Refusal.UNSUPPORTED)
        self.walked[ins.index] = 1
        handler(self, ins, stack)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._op_handlers = _op_handlers(cls)

    def _same_code(self, a: int, b: int, n: int) -> bool:
        if b + n > self.n:
            return False
        for k in range(n):
            x, y = self.ins[a + k], self.ins[b + k]
            if (x.op, arg_key(x.argval)) != (y.op, arg_key(y.argval)):
                return False
            if (x.target is None) != (y.target is None) or (
                x.target is not None and x.target - a != y.target - b and x.target != y.target
            ):
                return False
        return True

    # ------------------------------------------------------------ hooks a subclass provides
    def _store_function(self, fv: V.FunctionValue, target: ast.expr, ins: Instr) -> bool:
        raise NotImplementedError

    def build_comprehension(self, acc: V.Accumulator, node: ast.For, ins: Instr) -> ast.expr:
        raise NotImplementedError


_UNSUPPORTED = {
    "SETUP_ASYNC_WITH": "async with is not supported yet",
    "BEFORE_ASYNC_WITH": "async with is not supported yet",
}


def _op_handlers(cls: type) -> dict[str, Any]:
    """Opcode name -> the ``op_<name>`` method of ``cls`` (looked up once per class, not
    once per instruction)."""
    return {attr[3:]: getattr(cls, attr) for attr in dir(cls) if attr.startswith("op_")}


Walker._op_handlers = _op_handlers(Walker)
