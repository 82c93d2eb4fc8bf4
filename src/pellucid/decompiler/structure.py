"""Control-flow structuring: jumps become if/while/for/break/continue, and/or, ternaries.

The walker processes an instruction range with a symbolic stack.  Every jump
it meets must fit a source construct whose extent is derived from jump
targets (the loop header of a back edge, the false exit of a condition, the
else-jump ending a then-branch); anything else raises DecompilationError.
"""

from __future__ import annotations

import ast
import bisect
import dis
from dataclasses import dataclass, field
from itertools import chain, repeat
from types import CodeType
from typing import Any, Callable

from pellucid.decompiler import values as V
from pellucid.decompiler.cfg import build as build_cfg
from pellucid.decompiler.classes import ClassOps
from pellucid.decompiler.errors import DecompilationError
from pellucid.decompiler.evaluate import (
    Evaluator,
    InPlace,
    augmented_target,
    const,
    name,
    store_ctx,
)
from pellucid.decompiler.exceptions import (
    Copy,
    ExceptionStructure,
    ExcInfo,
    _ends_in_jump,
)
from pellucid.decompiler.generators import GeneratorOps, fold_suspensions
from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    JUMPS_FOLD_NOT_INTO_COMPARE,
    MAX_COPY_SIZE,
    TABLE,
    TERMINAL,
    VALUE_JUMPS,
    Instr,
    exception_entries,
    has_jump_chains,
    normalize,
    same_positions,
    thread_jump_chains,
)
from pellucid.decompiler.patterns import PatternOps
from pellucid.decompiler.reentry import splice_reentries
from pellucid.decompiler.regions.chains import _NONE_JUMPS, ChainOps, _is_chain_link

# where try_at() can be true without an exception-table entry or a copy
_TRY_START_OPS = frozenset({"BEFORE_WITH"} if TABLE.has_exception_table else {"SETUP_FINALLY", "SETUP_WITH"})
# instructions that fall into the next one and leave their result on top of the stack: a
# POP_TOP right after one pops that result (an expression statement), never a loop's iterator
_PUSHES_ON_TOP_PREFIXES = (
    "LOAD_", "CALL", "BINARY_", "UNARY_", "BUILD_", "FORMAT_", "YIELD_", "GET_", "MATCH_",
    "SEND", "BEFORE_", "UNPACK_",
)
_PUSHES_ON_TOP = frozenset({
    "COMPARE_OP", "IS_OP", "CONTAINS_OP", "CONVERT_VALUE", "IMPORT_NAME", "IMPORT_FROM", "DUP_TOP",
    "COPY", "LIST_TO_TUPLE", "TO_BOOL", "END_SEND", "STORE_FAST_LOAD_FAST",
})


def _pushes_on_top(op: str) -> bool:
    """Does instruction ``op`` leave a value it computed on top of the stack?"""
    return op in _PUSHES_ON_TOP or op.startswith(_PUSHES_ON_TOP_PREFIXES)


# the ops walk() looks at before running their handler
_WALK_CONTROL = CONDITIONAL_JUMPS | VALUE_JUMPS | {"JUMP", "FOR_ITER", "COPY", "POP_TOP"}
EMPTY_IF = -1  # the false exit of `if <test>: pass`, which is where the true exit goes


@dataclass(eq=False)
class Loop:
    header: int
    follow: int
    continue_targets: set[int]
    break_targets: set[int]
    item: V.ForItem | None = None
    target: ast.expr | None = None
    # 3.10+ repeat a while test at the bottom: a plain jump back is a `continue`
    tested: bool = False
    forever: bool = False  # `while True:`
    # (start, size) of a `break` compiled as the only copy of the code after the loop
    break_copy: tuple[int, int] | None = None
    # (start, size, statements) of the code after a `while True:` that only its breaks'
    # copies hold (3.10+ copy it into each break through a finally): written after the loop
    copied_follow: tuple[int, int, list] | None = None
    # where the block holding the loop goes on when the loop ends it (a `while True:` that
    # ends an if arm: the if's follow)
    outer_exits: frozenset = frozenset()


@dataclass(eq=False)
class Block:
    """One block of a condition chain: evaluate ``expr``, jump if it is ``when``."""

    expr: ast.expr
    when: bool
    target: int
    start: int
    jump: int
    # where falling through leads when a forward jump follows the test (the
    # first arm of `x if c else y` used as a test jumps over the second)
    fall: int | None = None


# operands a call pops besides its arguments (the callable, NULL/self, a kwnames tuple)
_CALL_OPERANDS = {
    "CALL": 2,  # 3.11+
    "CALL_KW": 3,  # 3.13
    "CALL_FUNCTION": 1,  # 3.9/3.10
    "CALL_METHOD": 2,
    "CALL_FUNCTION_KW": 2,
}
# displays: items popped per unit of their argument
_BUILDS = {"BUILD_TUPLE": 1, "BUILD_LIST": 1, "BUILD_SET": 1, "BUILD_MAP": 2, "BUILD_SLICE": 1}
# operators: operands popped for the one value pushed
_POPS_TO_ONE = {
    "BINARY_OP": 2, "COMPARE_OP": 2, "IS_OP": 2, "CONTAINS_OP": 2, "BINARY_SLICE": 3,
    "UNARY_NEGATIVE": 1, "UNARY_NOT": 1, "UNARY_INVERT": 1, "UNARY_POSITIVE": 1,
}


@dataclass
class Region:
    """Where a walk ends, and which jump targets mean 'fall off the end'."""

    stop: int
    exits: frozenset = field(default_factory=frozenset)


# (see Walker._check_all_placed: exits and plumbing the readings write once or not at all)
_NOT_CHECKED_PLACED = frozenset({
    "POP_TOP", "LOAD_FAST", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "NOP", "SWAP", "COPY",
    "POP_EXCEPT", "PUSH_NULL", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_DEREF",
    "LOAD_CLOSURE", "RESUME", "CACHE", "EXTENDED_ARG",
})


# (name stored, body mode) -> the Walker attribute that keeps a body's __annotate__ code
_ANNOTATE_SLOTS = {
    ("__annotate_func__", "class"): "class_annotate",
    ("__annotate__", "module"): "module_annotate",
}

class Walker(ChainOps, PatternOps, ClassOps, GeneratorOps, ExceptionStructure, Evaluator):
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

    # ------------------------------------------------------------ plumbing
    def fail(self, reason: str, ins: Instr | None = None) -> DecompilationError:
        return DecompilationError(
            reason,
            code_name=getattr(self.code, "co_qualname", self.code.co_name),
            opname=ins.raw or ins.op if ins is not None else None,
            offset=ins.offset if ins is not None else None,
        )

    def misplaced(self, reason: str, ins: Instr) -> DecompilationError:
        """A failure of a check that code ended up where the reading put it: final (see body)."""
        e = self.fail(reason, ins)
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

    _COPY_IDIOM_NEXT = frozenset(
        {"COPY", "LOAD_ATTR", "COMPARE_OP", "ROT_THREE", "BINARY_SUBSCR", "BINARY_SLICE",
         "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
         "LOAD_METHOD"}
    )

    def copy_is_idiom(self, ins: Instr, value: Any) -> bool:
        """COPY shapes CPython uses for one source construct: chained and
        augmented assignment, walrus, chained comparison, and/or."""
        if not isinstance(value, ast.expr) or isinstance(value, (ast.Name, ast.Constant)):
            return True
        if isinstance(value, _MUTABLE_DISPLAYS):
            # one list used twice must not become two lists; `a = b = []`,
            # `(a := [])` and `x < [] < y` keep one object by construction
            return self._store_follows(ins.index + 1) or self._chain_link_copy(ins)
        nxt = self.ins[ins.index + 1].op if ins.index + 1 < self.n else ""
        if nxt in self._COPY_IDIOM_NEXT:
            return True
        return self._store_follows(ins.index + 1)

    def _chain_link_copy(self, ins: Instr) -> bool:
        """The middle operand of a chained comparison: `SWAP 2; COPY 2; COMPARE_OP` (3.11+),
        `DUP_TOP; ROT_THREE; COMPARE_OP` (3.9/3.10)."""
        i = ins.index
        if i + 2 >= self.n:
            return False
        if ins.argval == 2:
            shape = i >= 1 and self.ins[i - 1].op == "SWAP" and self.ins[i - 1].argval == 2
            after = self.ins[i + 1]
        else:
            shape = self.ins[i + 1].op == "ROT_THREE"
            after = self.ins[i + 2]
        return shape and after.op in ("COMPARE_OP", "IS_OP", "CONTAINS_OP")

    def _store_follows(self, j: int) -> bool:
        """Is the value a COPY leaves stored next, once a store target (names, attributes,
        subscripts, calls: `globals()[k] = v = x`) is built above it?"""
        extra = 0
        for k in range(j, self.n):
            ins = self.ins[k]
            op = ins.op
            if op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CONST", "PUSH_NULL"):
                extra += 1
            elif op == "LOAD_ATTR" and extra >= 1:
                pass
            elif op == "LOAD_METHOD" and extra >= 1:
                extra += 1
            elif op == "BINARY_SUBSCR" and extra >= 2:
                extra -= 1
            elif op == "KW_NAMES":
                pass
            elif op in _CALL_OPERANDS or op in _BUILDS or op in _POPS_TO_ONE:
                # an expression inside the target: pops what lies above the value, pushes one
                if op in _POPS_TO_ONE:
                    pops = _POPS_TO_ONE[op]
                elif not isinstance(ins.argval, int):
                    return False
                elif op in _BUILDS:
                    pops = ins.argval * _BUILDS[op]
                else:
                    pops = ins.argval + _CALL_OPERANDS[op]
                if extra < pops:
                    return False
                extra -= pops - 1
            elif op in ("STORE_FAST", "STORE_GLOBAL", "STORE_NAME", "STORE_DEREF", "UNPACK_SEQUENCE", "UNPACK_EX"):
                return extra == 0  # (an unpacking: `a, b = c = x`)
            elif op == "STORE_ATTR":
                return extra == 1
            elif op == "STORE_SUBSCR":
                return extra == 2
            else:
                return False
        return False

    def _stamp(self, stack: list) -> None:
        """Number a value a structured step left on the stack in evaluation order, as the
        plain opcodes' values are (spill writes temporaries in that order)."""
        if stack and isinstance(stack[-1], ast.AST) and not hasattr(stack[-1], "_seq"):
            self.seq += 1
            stack[-1]._seq = self.seq

    def spill(self, stmt: ast.stmt | None, stack: list | None = None) -> None:
        """A statement in the middle of an expression (Dynamo emits these):
        values already on the stack were evaluated before it, so they are
        saved to temporaries first.  Fast locals the statement does not
        assign cannot change and stay as they are; with no statement (a
        whole block of code follows) every local may change.  The values of a parallel
        assignment already popped and waiting for their stores (`a, b = b, a`) were evaluated
        before it too."""
        stack = self.cur_stack if stack is None else stack
        base = self._own_base(stack)
        waiting = [v for v, _ in self.parallel] if self.parallel else []
        if len(stack) <= base and not waiting:
            return  # (most statements: nothing is on the stack)
        assigned: set[str] | None = None  # names the statement binds: found once, if needed
        local = self.varnames
        chosen: dict[int, Any] = {}  # id -> value to save, each once
        sliced: list[int] = []  # stack positions holding slices whose parts are saved
        for k, v in enumerate(chain(stack[base:], waiting), base):
            t = type(v)  # (exact types: no subclass of these is ever made)
            if t is _CONSTANT:
                continue
            if t is _NAME:  # (most of a deep Dynamo stack: earlier spills, locals)
                if getattr(v, "is_spill", False):
                    continue
                if assigned is None:
                    assigned = _stored_names(stmt) if stmt is not None else self._all_locals()
                if (
                    v.id not in assigned
                    and (v.id in local or v.id.startswith(_DYNAMO_OWNED))
                    and v.id not in self.code.co_freevars
                    and not getattr(v, "may_be_unbound", False)
                ):
                    # a local the statement leaves alone; a global only Dynamo writes (a free
                    # variable's cell is shared: code the statement calls may rebind it; a
                    # local that may be unbound raises when loaded: the statement comes after)
                    continue
            elif t is _TUPLE or t is _SLICE:
                if assigned is None:
                    assigned = _stored_names(stmt) if stmt is not None else self._all_locals()
                if _has_slice(v) and k < len(stack):
                    # a slice has no spelling outside a subscript: its parts are saved instead
                    for part in _slice_parts(v):
                        if not _pure(part, local - assigned):
                            chosen.setdefault(id(part), part)
                    sliced.append(k)
                    continue
                if _pure(v, local - assigned):  # (other values are never _pure)
                    continue
            elif not isinstance(v, ast.expr):
                continue  # NULLs, iterators and the like: nothing a statement can change
            # (the same value twice on the stack: one temporary)
            chosen.setdefault(id(v), v)
        if chosen and self.assign_chains:
            # a value stored to names when it was made (`(w := e)`: COPY then STORE), then
            # kept on the stack: its stores came before the values saved here that were made
            # after it, so it is saved in its turn, as the assignment expression it was
            latest = max(getattr(v, "_seq", -1) for v in chosen.values())
            on_stack = {id(v) for v in stack[base:]}
            for v, targets in list(self.assign_chains.values()):
                if (
                    targets
                    and id(v) in on_stack
                    and getattr(v, "_seq", latest) < latest
                    and all(isinstance(t, ast.Name) for t in targets)
                ):
                    chosen.setdefault(id(v), v)
        if not chosen:
            return  # nothing to save
        own = stmt.value if isinstance(stmt, ast.Assign) else None
        if (
            own is not None
            and hasattr(own, "_seq")
            and not _pure(own, set())
            and any(getattr(v, "_seq", -1) > own._seq for v in chosen.values())
        ):
            # the statement's own value was evaluated before values saved here (`v = z = e`
            # from `(v := e)` stored again after later values): it is saved in its turn too
            chosen[id(own)] = own
        # saved in the order they were evaluated, which SWAPs may have changed on the stack
        values = list(chosen.values())
        seqs = [getattr(v, "_seq", None) for v in values]
        if None not in seqs:
            values.sort(key=lambda v: v._seq)
        elif [q for q in seqs if q is not None] != sorted(q for q in seqs if q is not None):
            raise self.fail("values on the stack in an evaluation order that cannot be recovered")
        done: dict[int, ast.Name] = {}
        for v in values:
            tmp = f"__pellucid_tmp{self.spilled}"
            self.spilled += 1
            self.block.append(ast.Assign([name(tmp, _STORE)], self.as_expr(v, None), lineno=0))
            ref = name(tmp)
            ref.is_spill = True
            ref._seq = getattr(v, "_seq", 0)
            done[id(v)] = ref
            if v is own and len(stmt.targets) > 1:
                # the targets before the last were stored when the value was made (`(v := e)`,
                # COPY then STORE), before the values saved after it: assigned here
                self.block.append(ast.Assign(stmt.targets[:-1], name(tmp), lineno=0))
                stmt.targets = stmt.targets[-1:]
        for k in range(base, len(stack)):
            if id(stack[k]) in done:
                stack[k] = done[id(stack[k])]
        for k in sliced:
            stack[k] = _with_parts(stack[k], done)
        if self.parallel:
            self.parallel = [(done.get(id(v), v), t) for v, t in self.parallel]
        if own is not None and id(own) in done:
            stmt.value = done[id(own)]

    def _own_base(self, stack: list) -> int:
        """Where the values this block pushed begin: the block's base, or lower where it popped
        values it started with and pushed its own in their place (Dynamo's code does, after a
        branch); a value there made twice would be two objects."""
        base = self.cur_base
        snapshot = self.cur_snapshot
        for k in range(min(base, len(stack), len(snapshot))):
            if stack[k] is not snapshot[k]:
                return k
        return min(base, len(stack)) if len(stack) < base else base

    def _all_locals(self) -> set[str]:
        """What a whole block of code may assign (see spill)."""
        return set(self.code.co_varnames) | set(self.code.co_cellvars) | set(self.code.co_freevars)

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
            raise self.fail(f"{len(stack)} values left on the stack at the end")
        if self.assign_chains:
            # targets of `a = b = x` stored while x stayed on the stack, whose statement
            # never came: refuse rather than lose the stores
            raise self.fail("a chained assignment's targets were never written")
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
        walked, reachable, ins = self.walked, self.reachable, self.ins
        missed = [
            k for k in range(self.n)
            if reachable[k] and not walked[k] and home[k] is not None and home[k] >= 0
            and ins[k].op not in _NOT_CHECKED_PLACED and ins[k].op in self._op_handlers
        ]
        if not missed:
            return
        copied = self._copied()
        for k in missed:
            # (an `as` name's clean-up, `name = None; del name`, is written by its clause)
            arg = ins[k].argval
            if k not in copied and not any(j >= 0 and self._name_cleanup_at(j, arg) for j in (k - 1, k - 2)):
                raise self.misplaced("code the function reaches is left out", ins[k])

    def check_supported(self) -> None:
        if self.runs_off_end:
            raise self.fail("the bytecode runs off its end (a path with no return or raise)")
        for i in self.ins:
            if i.op in _UNSUPPORTED:
                raise self.fail(_UNSUPPORTED[i.op], i)
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
                if until is not None and until(stack):
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
                        raise self.fail("try inside a condition", ins)
                    # a try is "started" only while it is being structured: a
                    # later walk of the same code (a trial, then the real one)
                    # must structure it again, not read it as plain code
                    started = set(getattr(self, "_started", ()))
                    try:
                        i = self.do_try(i, stack, stop, exits)
                    finally:
                        if hasattr(self, "_started"):
                            self._started &= started
                    if self.block and getattr(self.block[-1], "overridden_exit", False):
                        stack[:] = snapshot  # (the path ended, as after a return)
                    continue
                cands = self._match_candidates
                if not until_cond and (cands is None or i in cands) and self.match_at(i, stack):
                    i = self.do_match(i, stack, stop, exits)
                    continue
                if i in self.latch and (not self._in_loop(i) or i == self._inner_while_head):
                    if until_cond:
                        if i != start:
                            raise self.fail("loop inside a condition", ins)
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
                            raise self.fail("FOR_ITER outside a loop", ins)
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
                    raise self.fail("unsupported opcode", ins)
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
            if until_cond:
                raise self.fail("condition does not end in a jump", self.ins[min(i, self.n - 1)])
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

    def _exits_at(self, follow: int, stop: int, exits: frozenset) -> frozenset:
        """Exits of a block that ends at ``follow``: the enclosing block's exits
        only when ``follow`` is where the enclosing block ends too."""
        if follow == stop or follow in exits:
            return frozenset({follow}) | exits
        return frozenset({follow})

    def _in_loop(self, header: int) -> bool:
        return any(header == lp.header or header in lp.continue_targets for lp in self.loops)

    # ------------------------------------------------------------ jumps
    def do_jump(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[i]
        t = ins.target
        loop = self.loops[-1] if self.loops else None
        if (
            loop is not None
            and t not in loop.continue_targets
            and t != stop
            and t not in exits
            and self._is_back_edge(t, loop)
        ):
            t = self.ins[t].target  # a jump to the loop's closing jump back: where it goes
        if loop is not None and t in loop.continue_targets:
            if t in exits and (i + 1 == stop or self._dead_between(i + 1, stop)):
                if self._explicit_continue(i, loop):
                    self.emit(_explicit(ast.Continue()))
                return stop  # the loop's own back edge: implicit
            self.emit(ast.Continue())
            return i + 1
        if loop is not None and t in loop.break_targets:
            self._check_break_not_block_end(t, loop, exits, ins)
            self.emit(ast.Break())
            return i + 1
        if t == stop or t in exits:
            if i + 1 == stop or self._dead_between(i + 1, stop):
                return stop
            raise self.fail("jump to the end of a block from its middle", ins)
        if i < t < stop and self._dead_between(i + 1, t):
            return t  # over handler code only (3.12+ keeps some of it inline)
        raise self.fail(f"unstructured jump to instruction {t}", ins)

    def _check_break_not_block_end(self, t: int, loop: Loop, exits: frozenset, ins: Instr) -> None:
        """A loop's follow found in handler code (3.11+: a `while True:` ending the function
        has no code after it, so what its last jump back precedes is a handler's) is no
        `break` target where it is also the end of the block being walked: a finally body's
        jump to its own end (its re-raise) would be read as a `break`."""
        home = getattr(self, "home", None)
        if (
            TABLE.has_exception_table
            and home is not None
            and t in exits
            and t < self.n
            and home[t] != home[loop.header]
        ):
            raise self.fail("a loop's follow is the end of the handler code being read", ins)

    def _is_back_edge(self, t: int, loop: Loop) -> bool:
        """Is ``t`` the loop's own closing jump back to its head (the last one)?"""
        target = self.ins[t].target if t < self.n and self.ins[t].op == "JUMP" else None
        return target in loop.continue_targets and self.latch.get(target) == t

    def _last_goes_round(self, T: int, stop: int, loop: Loop) -> bool:
        """Does the code of [T, stop) end by going round the loop or leaving
        the function (never by falling into what follows the body)?"""
        k = stop - 1
        while k >= T and not self.reachable[k]:
            k -= 1
        if k < T:
            return False
        last = self.ins[k]
        if self._conditional_jump_to_end(T, stop):
            return False  # (an if ending the code joins at stop: that path falls into it)
        return last.op in TERMINAL or (last.op == "JUMP" and last.target in loop.continue_targets)

    def _explicit_continue(self, i: int, loop: Loop) -> bool:
        """Is the jump back at ``i``, which ends the loop body, a written `continue`?"""
        if not TABLE.keeps_dead_jumps:
            # a tested loop whose test is copied to its bottom closes with that copy: a jump
            # back there is written; without the copy (3.14+) it is the loop's own end
            return TABLE.duplicates_loop_tests and loop.tested and i == self.latch.get(loop.header)
        # 3.9 keeps the body's own (dead) jump back after it
        nxt = self.ins[i + 1] if i + 1 < self.n else None
        return (
            nxt is not None
            and nxt.op == "JUMP"
            and nxt.target == self.ins[i].target
            and not self.initially_reachable[i + 1]
        )

    # ------------------------------------------------------------ loops
    def do_loop(self, h: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[h]
        latch = self.latch[h]
        if ins.op == "FOR_ITER":
            return self.do_for(h, stack, stop, exits)
        if h == self._inner_while_head:
            # the first statement of the `while True:` body walked below
            self._inner_while_head = None
            inverted = self.try_inverted_while(h, stack, stop, exits)
            if inverted is None:
                raise self.fail("loop at the start of a loop body not recognized", ins)
            return inverted
        if any(h < t <= latch for lp in self.loops for t in lp.break_targets):
            # a jump back over where an enclosing loop's breaks go is no loop of its body
            # (3.12+ lay the code after a loop whose back edge comes last inside its range,
            # where clauses of a try in its body jump back to the code after the try)
            raise self.fail("jump back over the end of an enclosing loop", ins)
        around = self._forever_around_while(h, stack)
        if not around:
            inverted = self.try_inverted_while(h, stack, stop, exits)
            if inverted is not None:
                return inverted
        body_end = latch + 1
        tail_end = body_end  # (past body_end when the body goes on after its last jump back)
        rest_leaves = False  # (the rest past the last jump back reaches the loop's exit)
        placed_from = None  # (where the code left for the enclosing block starts, if not tail_end)
        breaks = self._jumps_out(h, body_end)
        follow = max(breaks) if breaks else body_end
        loop = Loop(h, follow, {h}, set(breaks) | {follow} | self._breaks_leaving_clause(h, body_end, stop, exits))
        if follow < self.n and self.ins[follow].op == "JUMP":
            # 3.9 threads a `break` to where the loop's follow jumps: the back edge of the
            # enclosing loop (a `continue` of that loop cannot be written in this one)
            t = self.ins[follow].target
            if any(t in lp.continue_targets for lp in self.loops):
                loop.break_targets.add(t)
        # a leading condition whose false exit leaves the loop is the while test
        test = None
        body_start = h
        outside: list[int] = []
        cond = self.try_condition_at(h, stack)
        orelse: list[ast.stmt] = []
        if cond is not None:
            expr, T, F = cond
            if F < h and F in exits and T <= latch and not breaks:
                # the loop ends its block: its exit was threaded to an
                # enclosing loop's head
                test = expr
                body_start = T
                follow = stop
                loop.follow = stop
                loop.break_targets = {stop, F}
                if body_end < stop and self.ins[body_end].op == "JUMP" and self.ins[body_end].target == F:
                    # the enclosing loop's jump back after the latch: the compiler threads
                    # a conditional `break` (`else: break`) to it, never to the latch
                    loop.break_targets.add(body_end)
                    placed_from = body_end + 1  # (that jump back is the enclosing loop's)
                elif body_end < stop and self._body_goes_on(h, body_end, stop):
                    # the body's arms that raise or return, laid out past its jump back
                    tail_end = stop
            elif F >= body_end and T <= latch:
                test = expr
                body_start = T
                loop.tested = self.ins[latch].op == "JUMP"
                if not breaks and F == body_end < stop:
                    # a break whose jump the compiler replaced by copies (a finally, the
                    # return after the else): where it goes ends the else
                    p = self.finally_copied_break(T, body_end, body_end, stop)
                    breaks = [p] if p is not None else []
                    if p is not None:
                        follow = loop.follow = p
                        loop.break_targets = {p}
                if not breaks:
                    follow = F
                    loop.follow = F
                    loop.break_targets = {F}
                if F > body_end and self._body_goes_on(h, body_end, F):
                    # (the jumps that seemed to leave the body may be to its rest: only
                    # jumps to F leave it)
                    tail_end = follow = loop.follow = F
                    loop.break_targets = {F} | self._breaks_leaving_clause(h, body_end, stop, exits)
                    rest_leaves = self._conditional_jump_to_end(body_end, F)
                if F < follow and F not in exits:
                    orelse, st = self.walk(F, follow, list(stack), self._exits_at(follow, stop, exits))
                    if len(st) != len(stack):
                        raise self.fail("while-else leaves values on the stack", ins)
                elif F > follow:
                    raise self.fail("while condition exits past the loop", ins)
            elif not breaks and latch < stop:
                # the code after the loop laid out inside its range: skipped by the body's walk
                outside = self._exit_inside_tested_loop(h, T, F, latch) or []
                if outside:
                    test = expr
                    body_start = T
                    follow = loop.follow = F
                    loop.break_targets = {F}
        loop.forever = test is None
        for k in outside:
            self.reachable[k] = False
        conditional_latch = self.ins[latch].op in CONDITIONAL_JUMPS
        if test is not None and conditional_latch:
            self._mark_test_copy(h, body_start, latch)
        if test is None and not breaks and conditional_latch:
            rest = self.try_body_past_latch(h, body_end)
            if rest is not None:
                tail_end = follow = loop.follow = rest
                loop.break_targets = {rest}
        if test is None and not breaks and not conditional_latch:
            rest = self.clause_rest_past_latch(h, body_end)
            if rest is not None:
                tail_end = follow = loop.follow = rest
                loop.break_targets = {rest}
            else:
                rest = self.try_body_past_latch(h, body_end, after_continue=True)
                if rest is not None:
                    # (nothing breaks out: the handler code laid out at rest is no loop target)
                    tail_end = follow = loop.follow = rest
                    loop.break_targets = set()
        if test is None and not breaks and tail_end == body_end:
            rest = self._forever_rest_past_latch(h, body_end, stop, conditional_latch)
            if rest is not None:
                tail_end = follow = loop.follow = rest
                loop.break_targets = {rest}
        leaves_at_end = rest_leaves or (test is None and self._forever_body_goes_on(h, body_end, breaks))
        if leaves_at_end:
            tail_end = follow
        if follow == body_end and body_end == stop:
            loop.outer_exits = exits
        if around:
            if test is not None:
                raise self.fail("loop at the start of a loop body not recognized", ins)
            self._inner_while_head = h
        self.loops.append(loop)
        try:
            # (through a conditional back edge, the body's end leaves the loop: a jump to
            # the head is then a `continue`, not the end)
            ends_going_round = (not conditional_latch or tail_end != body_end) and not leaves_at_end
            body, st = self.walk(body_start, tail_end, list(stack), frozenset({h}) if ends_going_round else frozenset())
        finally:
            self.loops.pop()
            self._inner_while_head = None
            for k in outside:
                self.reachable[k] = True  # (the walk goes on at the loop's exit, in there)
        if len(st) != len(stack):
            raise self.fail("loop body changes the stack", ins)
        body = _trim_continue(body)
        if leaves_at_end and (_falls_off(body) if rest_leaves else not _ends_in_jump(body)):
            body = body + [ast.Break()]  # (the end of the body is where the loop's breaks go)
        # (a while-else's code is [F, follow))
        self._check_placed(
            placed_from or tail_end, min(follow, stop, F if test is not None and F > h else follow), ins
        )
        if conditional_latch and tail_end == body_end and not _ends_in_jump(body):
            # the back edge is conditional: falling through it leaves the loop
            if latch + 1 != follow:
                raise self.fail("loop left through its conditional back edge into an else", ins)
            body = body + [ast.Break()]
        self.emit(ast.While(test=test if test is not None else const(True), body=body, orelse=orelse))
        if outside:
            # the code after the loop, inside its range, ends in a return or raise: it ends
            # the block, the walk goes on past the loop's jump back (code reached elsewhere)
            after, _ = self.walk(F, outside[-1] + 1, list(stack), exits)
            for stmt in after:
                self.emit(stmt)
            return latch + 1
        if loop.copied_follow is not None:
            for stmt in loop.copied_follow[2]:
                self.emit(stmt)
            return stop  # the copied code ends the function (a return)
        if follow > stop and follow not in exits:
            if loop.forever and not breaks and loop.break_targets <= {follow}:
                # nothing leaves it but returns and raises (a retry loop in a with, 3.11+:
                # its clause's path laid out past the with's body): nothing follows it, and
                # the code up to its jump back is its own
                for k in range(stop, body_end):
                    self.reachable[k] = False
                return stop
            raise self.fail("loop exits past its enclosing block", ins)
        return min(follow, stop) if follow in exits or follow == stop else follow

    def _mark_test_copy(self, h: int, T: int, latch: int) -> None:
        """3.11+ copy a while loop's test [h, T) before its conditional back edge: the
        copy is read as the loop's test, never walked (see _check_all_placed)."""
        n = T - h
        a = latch + 1 - n
        if a > T and all(self.ins[a + d].op == self.ins[h + d].op for d in range(n)):
            for q in range(a, latch + 1):
                self.walked[q] = 1

    def _forever_body_goes_on(self, h: int, a: int, breaks: list[int]) -> bool:
        """3.9/3.10: is [a, b), between a `while True`'s last jump back and b, where all its
        breaks go, the rest of its body?  The rest of an except clause whose other arm goes
        round is laid out after that jump back.  It is when nothing outside [h, b) jumps or
        hands an exception into it: then only the loop reaches it, and reaching b from it
        leaves the loop."""
        if TABLE.has_exception_table or not breaks or len(set(breaks)) != 1:
            return False
        b = breaks[0]
        if not a < b <= self.n or not self.reachable[a]:
            return False
        return not any(
            j.target is not None and a <= j.target < b and not h <= j.index < b for j in self.ins
        )

    def _forever_rest_past_latch(self, h: int, a: int, stop: int, falls_in: bool) -> int | None:
        """Where the body of a `while True` that nothing breaks out of goes on past its last
        jump back, at a (3.14+ lay that jump where the body's path goes round, the arms that
        return or raise after it).  The rest is the code the loop's conditional jumps reach
        past a, up to a return or raise: reached only from the loop, jumping nowhere past
        its end, in the loop's own handler level (and, through a conditional jump back, the
        code it falls into).  None when a is not such code."""
        if not TABLE.lays_forever_back_edge_inline or a >= min(stop, self.n):
            return None
        ins = self.ins
        b = a
        if falls_in:
            b = self._first_terminal(b) + 1
            if b > min(stop, self.n):
                return None
        while True:
            far = max(
                (j.target for j in ins[h:b] if j.target is not None and j.target >= b and self.reachable[j.index]),
                default=None,
            )
            if far is None:
                break
            b = far
            b = self._first_terminal(b) + 1
            if b > min(stop, self.n):
                return None
        if b == a or not self.reachable[a] or ins[b - 1].op not in TERMINAL:
            return None
        if any(self.home[k] != self.home[h] for k in range(a, b) if self.reachable[k]):
            return None
        if any(j.target is not None and a <= j.target < b and not h <= j.index < b for j in ins):
            return None  # (reached from outside the loop: not the loop's code)
        return b

    def _conditional_jump_to_end(self, a: int, b: int) -> bool:
        """Does a reachable conditional jump in [a, b) go to b?  In a while body's rest laid out
        past its last jump back, which ends in a return or raise, such a jump is a `break`,
        even where it looks like the join of an if ending the rest (3.14: a `break` through
        finally bodies, merged into the jump past the last copy's `if c: return`): falling off
        the body there leaves the loop, not going round.  (An unconditional jump to b is read
        as a `break` where it is.)"""
        return any(j.target == b and j.op in CONDITIONAL_JUMPS and self.reachable[j.index] for j in self.ins[a:b])

    def _body_goes_on(self, h: int, a: int, b: int) -> bool:
        """Is [a, b), between a while loop's last jump back and its exit b, the rest of its
        body?  The compiler lays out `if c: continue` as the jump back, with the code after
        it behind: reached only from the loop (and from handlers of its try statements,
        laid out after the code on 3.12+), ending in a return or raise, and no jump from
        the loop goes past it but to b."""
        ins = self.ins
        if not self.reachable[a] or not self.reachable[b - 1] or ins[b - 1].op not in TERMINAL:
            return False
        if any(t != b for t in self._jumps_out(h, b)):
            return False
        return not any(
            j.target is not None and a < j.target < b and j.index < h for j in ins
        )

    def _check_placed(self, a: int, b: int, at: Instr) -> None:
        """Refuse when reachable code in [a, b), between a loop's back edge and where its
        breaks go, was never walked: the structure found leaves it out of the source."""
        if not self._dead_between(a, b):
            k = next(k for k in range(a, b) if self.reachable[k])
            raise self.fail("code between the loop's back edge and its follow is not placed", self.ins[k])

    def _ends_block(self, h: int, body_end: int, stop: int) -> bool:
        """Does the loop [h, body_end) end its block [.., stop)?  The code between may only be
        handler code of tries in the loop (3.14+ leave a clause's jump back at the clause's end,
        before its no-match re-raise and clean-up)."""
        if body_end == stop:
            return True
        if body_end > stop:
            return False
        home = self.home
        return all(
            home[k] is None or (home[k] >= 0 and h <= self._outer_try_start(home[k], home[h]) < body_end)
            for k in range(body_end, stop)
        )

    def _breaks_leaving_clause(self, h: int, body_end: int, stop: int, exits: frozenset) -> set[int]:
        """3.12+: a loop ending an except clause (moved past the function's code) whose
        `break` the compiler merged with the clause's end, ``POP_EXCEPT; [name clean-up;]
        JUMP t`` back to the try's follow t: t is a break target, the clause's end before
        the jump is skipped."""
        if not TABLE.merges_clause_end_jumps or not exits or not self._ends_block(h, body_end, stop):
            return set()
        ins = self.ins
        out = set()
        for k in range(h + 1, body_end):
            j = ins[k]
            if j.op != "JUMP" or j.target is None or j.target >= h or j.target not in exits:
                continue
            p = next((q for q in (k - 1, k - 4) if q >= 0 and self._clause_end_jump(q) == k), None)
            if p is None or self.home[p] != self.home[h] or p in self._copies:
                continue
            self._copies[p] = Copy(k - p, "skip")
            out.add(j.target)
        return out

    def _leaves_at_end(self, last: Instr | None, T: int, then_stop: int, loop: Loop | None) -> bool:
        """Does the branch [T, then_stop) end in a jump out of the loop or back to its head,
        or in a return/raise?"""
        if last is None or last.index != then_stop - 1 or last.index < T:
            return False
        if last.op in TERMINAL:
            return True
        return (
            last.op == "JUMP"
            and loop is not None
            and (last.target in loop.break_targets or last.target in loop.continue_targets)
        )

    def _jump_over_else_inside(
        self, T: int, then_stop: int, F: int, stop: int, exits: frozenset, loop: Loop | None
    ) -> int | None:
        """The one place E in (F, stop] that jumps inside the branch [T, then_stop) go to,
        other than the loop's break and continue targets: where the else starting at F ends
        (``stop`` for a jump to where the enclosing block goes on).  A conditional jump to
        the loop's closing jump back is the false exit of an if ending the branch (3.12).
        None without such jumps, or with several places."""
        places = set()
        for k in range(T, then_stop):
            j = self.ins[k]
            if j.target is None or not self.reachable[k] or j.target <= F:
                continue
            if j.op != "JUMP" and not (
                TABLE.forward_only_conditional_jumps
                and j.op in CONDITIONAL_JUMPS
                and loop is not None
                and self._is_back_edge(j.target, loop)
            ):
                continue
            if loop is not None and (j.target in loop.break_targets or j.target in loop.continue_targets):
                continue
            if j.target <= stop:
                places.add(j.target)
            elif j.target in exits:
                places.add(stop)
        if self._goes_on_at(T, then_stop, F):
            return None  # (no else starts where the branch goes on)
        return places.pop() if len(places) == 1 else None

    def _goes_on_at(self, T: int, end: int, F: int) -> bool:
        """Does a jump inside the branch [T, end) go to F (a try's normal exit, say)?  Then
        the branch goes on at F, which no else can start at: the then-branch never reaches
        the else."""
        return any(self.reachable[j] for j in self._jumps_to(F, T, end))

    def _forever_around_while(self, h: int, stack: list) -> bool:
        """3.10+ `while True:` whose body starts with `while c:`: both loops' heads are the
        test at ``h``.  Jumps to ``h`` after the inner loop's bottom test (which jumps to
        its own body) belong to the outer loop."""
        if not TABLE.duplicates_loop_tests:
            return False
        cond = self.try_condition_at(h, stack)
        if cond is None:
            return False
        T = cond[1]
        if T <= h or T not in self.latch:
            return False
        inner_end = self.latch[T]
        lj = self.ins[inner_end]
        return (
            lj.op in CONDITIONAL_JUMPS
            and self.latch[h] > inner_end
            and any(self.ins[k].target == h for k in range(inner_end + 1, self.latch[h] + 1))
        )

    def _copied_break_follow(self, h: int, exit_: int, stop: int) -> list[int]:
        """[p] when a `break` in the for body at h was compiled as a copy of the
        small block at p, past the loop's else (3.10+): POP_TOP (the iterator)
        then the same code, which a `return` in the body cannot be."""
        candidates = []
        copies = getattr(self, "_copies", {})
        in_copy = {q for c, cp in copies.items() if h < c < exit_ for q in range(c + 1, c + cp.length)}
        for k in range(h + 1, exit_):
            if self.ins[k].op != "POP_TOP" or not self.reachable[k] or self._pops_matched_exception(k):
                continue
            if k in in_copy:
                continue  # (a statement's pop inside a finally body's copy: no iterator's)
            if _pushes_on_top(self.ins[k - 1].op):
                continue  # (an expression statement's pop of the value computed right before)
            size = self._clause_end_len(k + 1)
            if size is not None:
                # 3.13: the loop ends an except clause, whose end (pop the exception, leave
                # the statement) was copied into the `break`: the break leaves the block,
                # or goes where the loop's exhaustion goes (the copy is the loop's exit)
                self._pending_break_copy = (k + 1, size)
                return [] if self._same_code(k + 1, exit_, size) else [stop]
            size = self._terminal_len(k + 1)
            if (
                size is None
                or size < 2
                or self.ins[k + 1].op in ("POP_TOP", "SWAP", "ROT_TWO", "POP_EXCEPT", "POP_BLOCK")
                or (size == 2 and self.ins[k + 1].op == "LOAD_CONST")
                or self.ins[k - 1].op in ("SWAP", "ROT_THREE")
            ):
                # `return <value>` keeps its value above the iterator (and pops the iterator
                # from under it after a finally body's copy ends in POP_TOP); a handler's
                # exception is popped before the iterator
                continue
            if self._same_code(k + 1, exit_, size):
                return []  # a copy of the code right after the loop: a plain break
            candidates.append((k, size))
        # no copy of the loop's own follow: one of code further on (another POP_TOP, such as
        # a match subject's, may come first)
        for k, size in candidates:
            for p in range(exit_ + 1, min(stop, self.n)):
                starts = self._is_target(p) or self.ins[p - 1].op.startswith(("STORE_", "POP_TOP"))
                if starts and self._same_code(k + 1, p, size):
                    return [p]
            if self._ends_in_terminal(exit_, stop):
                # the else ends the function: the copy is the only code after the loop
                self._pending_break_copy = (k + 1, size)
                return [stop]
        return []

    def _pops_matched_exception(self, k: int) -> bool:
        """Is the POP_TOP at k an except clause's pop of the exception it caught, not of an
        iterator?  3.11+: ``CHECK_EXC_MATCH; POP_JUMP_IF_FALSE; POP_TOP``; 3.9/3.10: the last
        of the three values the clause pops (or stores, ``as name``) where it starts, after
        ``JUMP_IF_NOT_EXC_MATCH`` or at the handler (a bare ``except:``)."""
        ins = self.ins
        if k < 2:
            return False
        if TABLE.exc_match_pushes_bool:
            return ins[k - 1].op in CONDITIONAL_JUMPS and ins[k - 2].op == "CHECK_EXC_MATCH"
        return (
            (ins[k - 1].op == "POP_TOP" or ins[k - 1].op.startswith("STORE_"))
            and ins[k - 2].op == "POP_TOP"
            and (self._is_target(k - 2) or (k >= 3 and ins[k - 3].op == "JUMP_IF_NOT_EXC_MATCH"))
        )

    def _clause_end_len(self, k: int) -> int | None:
        """Length of an except clause's end at k, ``POP_EXCEPT; [name clean-up;] JUMP``, when
        3.13 copied it into a `break` (right after the iterator's POP_TOP), else None."""
        j = self._clause_end_jump(k) if TABLE.copies_clause_ends else None
        if j is not None and not any(self._is_target(q) for q in range(k, j + 1)):
            return j - k + 1
        return None

    def _ends_in_terminal(self, lo: int, hi: int) -> bool:
        """Does [lo, hi) end in return/raise, with no jump leaving it?"""
        k = hi - 1
        while k >= lo and not self.reachable[k]:
            k -= 1
        if k < lo or self.ins[k].op not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return False
        return all(
            self.ins[j].target is None or lo <= self.ins[j].target < hi for j in range(lo, hi)
        )

    def _break_into_exit_copy(self, i: int, stack: list) -> int | None:
        """``break`` whose small terminal exit block was copied in place of the
        jump (3.12+): pop the iterator, then the same code as at the loop's
        follow.  Returns where the copy ends."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.item is None or not stack or not isinstance(stack[-1], V.Iterator):
            return None
        if loop.break_copy is not None:
            start, size = loop.break_copy
            if i + 1 == start or self._same_code(i + 1, start, size):
                return i + 1 + size
            return None
        f = loop.follow
        for k in range(f, min(f + 6, self.n)):
            if self.ins[k].target is not None:
                return None
            if self.ins[k].op in TERMINAL:
                size = k - f + 1
                break
        else:
            return None
        if (self.ins[f].op == "LOAD_CONST" and size == 2) or size < 2 or self.ins[i - 1].op == "SWAP":
            return None  # `return <constant>` pops the iterator first: the same code
        if not self._same_code(i + 1, f, size) or any(self._is_target(k) for k in range(i + 1, i + 1 + size)):
            return None
        for k in range(i + 1, i + 1 + size):
            self.reachable[k] = False
        return i + 1 + size

    def _jumps_out(self, lo: int, hi: int) -> list[int]:
        """Forward targets >= hi of unconditional jumps in [lo, hi): the break targets."""
        out = []
        for j in range(lo, hi):
            t = self.ins[j].target
            if self.ins[j].op == "JUMP" and t is not None and t >= hi and self.reachable[j]:
                out.append(t)
        return out

    def do_for(self, h: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[h]
        if not stack or not isinstance(stack[-1], V.Iterator):
            raise self.fail("for loop without an iterator", ins)
        iterator = stack[-1]
        exit_ = ins.target
        body_end = exit_
        exit_copy = None
        if exit_ > stop and exit_ not in exits and self.latch.get(h, exit_) < stop:
            # the loop ends its block and the function: its exit is a copied
            # `return` laid out past the block (3.10+)
            exit_copy = self._exit_copy_len(exit_, {h} | self._jumps_to(exit_, h, stop))
            if exit_copy is not None and not [t for t in self._jumps_out(h + 1, stop) if t != exit_]:
                body_end = stop
            else:
                exit_copy = None
        breaks = [t for t in self._jumps_out(h + 1, body_end) if t != exit_]
        self._pending_break_copy = None
        if not breaks:
            breaks = self._copied_break_follow(h, exit_, stop)
        break_copy, self._pending_break_copy = self._pending_break_copy, None
        # (a terminal copy never starts with POP_EXCEPT: _copied_break_follow skips those)
        clause_end_copy = break_copy is not None and self._clause_end_len(break_copy[0]) == break_copy[1]
        follow = max(breaks) if breaks else exit_
        if breaks and any(b != follow for b in breaks):
            allowed = {follow} | set(exits)
            if not set(breaks) <= allowed:
                raise self.fail("for loop with several break targets", ins)
        # `break` whose target is the end of an enclosing loop body arrives
        # threaded to that loop's head: pop our iterator, jump back there
        outer = self.loops[-1] if self.loops else None
        to_outer = set()
        threaded_breaks = set()
        if (
            outer is not None
            and breaks
            and set(breaks) == {follow}
            and follow in outer.break_targets
            and follow not in outer.continue_targets
        ):
            # 3.9 threads a `break` followed by the enclosing loop's `break` to where that one
            # goes: the code after the loop jumps there too.  Otherwise, where the block's
            # end goes round the enclosing loop, that loop's follow is no place this
            # statement goes on at.
            threaded = exit_ < stop and self.ins[exit_].op == "JUMP" and self.ins[exit_].target == follow
            if not threaded and (follow > stop or exits & outer.continue_targets):
                raise self.fail("for loop's breaks leave the enclosing loop", ins)
            threaded_breaks = set(breaks) if threaded else set()
        if threaded_breaks:
            breaks = []
            follow = exit_
        elif outer is not None and not breaks and exits & outer.continue_targets:
            to_outer = {
                self.ins[j].target
                for j in sorted(set(range(h + 1, body_end)) | self.moved_handler_code(h + 1, body_end))
                if self.ins[j].op == "JUMP"
                and self.ins[j].target in outer.continue_targets
                and self.reachable[j]
                and self.ins[j - 1].op == "POP_TOP"
            }
        self.loop_counter += 1
        item = V.ForItem(self.loop_counter)
        loop = Loop(h, follow, {h}, set(breaks) | {follow} | to_outer | threaded_breaks, item=item)
        loop.break_copy = break_copy
        accumulator = stack[-2] if len(stack) >= 2 and isinstance(stack[-2], V.Accumulator) else None
        self.loops.append(loop)
        try:
            body, st = self.walk(
                h + 1, body_end, list(stack) + [item], frozenset({h}), base_stack=list(stack)
            )
        finally:
            self.loops.pop()
        if (
            len(st) == len(stack) - 1
            and self.ins[body_end - 1].op == "POP_TOP"
            and not any(v is iterator for v in st)
            and not _ends_in_jump(body)
        ):
            # `break` as the body's last statement: pop the iterator and fall
            # into the loop's exit, which directly follows
            body = body + [ast.Break()]
            st = st + [iterator]
        if len(st) != len(stack) or st[-1] is not iterator:
            raise self.fail("for body changes the stack", ins)
        if loop.target is None:
            raise self.fail("for loop target not found", ins)
        stack.pop()
        orelse: list[ast.stmt] = []
        nxt = exit_
        if to_outer and exit_ < stop:
            # the rest of the enclosing body runs only when the loop did not break
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            if len(st2) != len(stack):
                raise self.fail("for-else changes the stack", ins)
            nxt = stop
        elif follow != exit_ and (follow == stop or follow in exits) and exit_ < stop:
            # the breaks leave the enclosing block: what the loop's exhaustion
            # reaches before the block ends is the loop's else
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            leaves_clause = (
                clause_end_copy
                and len(st2) == len(stack) - 1
                and _ends_in_jump(orelse)
                and isinstance(stack[-1], ExcInfo)
            )  # (the else leaves the clause it ends: it pops the exception)
            if len(st2) != len(stack) and not leaves_clause:
                raise self.fail("for-else changes the stack", ins)
            nxt = stop
        elif follow != exit_ and follow not in exits:
            if follow < exit_:
                raise self.fail("break jumps backwards", ins)
            orelse, st2 = self.walk(exit_, follow, list(stack), self._exits_at(follow, stop, exits))
            if len(st2) != len(stack):
                raise self.fail("for-else changes the stack", ins)
            nxt = follow
        node = (ast.AsyncFor if ins.extra.get("async") else ast.For)(
            target=loop.target,
            iter=iterator.iterable,
            body=_trim_continue(body),
            orelse=orelse,
            type_comment=None,
        )
        if accumulator is not None:
            stack[-1] = self.build_comprehension(accumulator, node, ins)
            return nxt
        self.emit(node)
        if break_copy is not None:
            start, size = break_copy
            if clause_end_copy:  # the clause's end: said by the clause itself
                for k in range(start, start + size):
                    self.reachable[k] = False
            else:
                self._emit_exit_copy(start, size, stack)
            return nxt
        if exit_copy is not None and not orelse:
            self._emit_exit_copy(exit_, exit_copy, stack)
            return stop
        return nxt

    def _jumps_to(self, target: int, lo: int, hi: int) -> set[int]:
        """Indices in [lo, hi) of the jumps that reach ``target``."""
        return {k for k in range(lo, hi) if self.ins[k].target == target}

    def try_inverted_while(self, h: int, stack: list, stop: int, exits: frozenset) -> int | None:
        """3.10+ test-at-both-ends loops: ``test; jump exit; body: ...; test; jump body``."""
        cond = self.try_condition_at(h, stack)
        if cond is None:
            return None
        expr, T, F = cond
        if T not in self.latch or self._in_loop(T) or T == h:
            return None
        return self._inverted_while(h, T, F, expr, stack, stop, exits, extra_continue={h})

    def _inverted_while(
        self, cs: int, T: int, F: int, expr: ast.expr, stack: list, stop: int, exits: frozenset,
        extra_continue: set[int],
    ) -> int | None:
        latch = self.latch[T]
        lj = self.ins[latch]
        if lj.op not in CONDITIONAL_JUMPS or lj.target != T:
            return None
        # the test at the bottom is a copy of the test at the top (of the test itself: a
        # chained comparison's test may end in a jump to the body, its clean-up laid out after)
        to_body = [k for k in range(cs, T) if self.ins[k].op == "JUMP" and self.ins[k].target == T]
        pre = self.ins[cs : to_body[0]] if to_body else self.ins[cs:T]
        n = len(pre)
        post = self.ins[latch - n + 1 : latch + 1]
        if len(post) != n or any(
            (a.op not in CONDITIONAL_JUMPS or b.op not in CONDITIONAL_JUMPS)
            and (a.op, _key(a.argval)) != (b.op, _key(b.argval))
            for a, b in zip(pre, post)
        ):
            return None
        body_end = latch - n + 1
        exit_ = latch + 1
        for q in range(body_end, exit_):
            self.walked[q] = 1  # (the copy is read as the test: see _check_all_placed)
        outside = self._exit_inside_loop(T, F, body_end, exit_)
        if outside is not None:
            # the code after the loop (and more), laid out inside the loop's range: not body
            for k in outside:
                self.reachable[k] = False
        breaks = [t for t in self._jumps_out(T, body_end) if t >= exit_]
        if not breaks and F == exit_ < stop:
            # a break whose jump the compiler replaced by copies (a finally, the return after)
            p = self.finally_copied_break(T, body_end, exit_, stop)
            breaks = [p] if p is not None else []
        follow = max(breaks) if breaks else F
        # `while c: while True: ...`: plain jumps back to the body's start are the back edges
        # of an inner loop headed there (the NOP that told the two heads apart is dropped);
        # this loop's own `continue`s go to the test at the top
        inner = [
            k for k in range(T, body_end)
            if self.ins[k].op == "JUMP" and self.ins[k].target == T and self.reachable[k]
        ]
        if inner:
            loop = Loop(cs, follow, {cs} | extra_continue, set(breaks) | {follow})
            saved_latch = self.latch[T]
            self.latch[T] = max(inner)
        else:
            loop = Loop(T, follow, {T, cs} | extra_continue, set(breaks) | {follow})
        self.loops.append(loop)
        try:
            body, st = self.walk(T, body_end, list(stack), frozenset({T}))
        finally:
            self.loops.pop()
            if inner:
                self.latch[T] = saved_latch
        if len(st) != len(stack):
            raise self.fail("loop body changes the stack", self.ins[T])
        orelse: list[ast.stmt] = []
        if follow != F and (follow == stop or follow in exits) and F == exit_ < stop:
            # the breaks leave the enclosing block: the rest of it is the else
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            if len(st2) != len(stack):
                raise self.fail("while-else changes the stack", self.ins[T])
        elif follow != F and follow not in exits:
            if F != exit_ and F > exit_:
                return None
            orelse, st2 = self.walk(exit_, follow, list(stack), self._exits_at(follow, stop, exits))
            if len(st2) != len(stack):
                raise self.fail("while-else changes the stack", self.ins[T])
        self._retire_bottom_exit_copies(body_end, latch, F)
        self.emit(ast.While(test=expr, body=_trim_continue(body), orelse=orelse))
        if outside is not None:
            # the walk goes on at the exit block; the bottom test and its jump to the exit
            # are this loop's
            for k in outside:
                self.reachable[k] = True
            for k in range(body_end, exit_ + 1):
                self.reachable[k] = False
        if follow in exits:
            return stop
        return follow

    def _exit_inside_loop(self, T: int, F: int, body_end: int, exit_: int) -> list[int] | None:
        """3.12+ lay a `while` loop's bottom test out after the handlers of a try in its body
        when only an except clause reaches it (the body's other paths leave): the code after
        the loop, which the top test and the bottom test's exit jump reach, and any code laid
        out after that, then lie inside the loop's range.  The instructions in [T, body_end)
        the loop body does not reach (from T, through its handlers, never past F), which
        the body's walk must skip; None when the loop is not laid out so."""
        ins = self.ins
        if (
            not TABLE.cold_blocks_at_end
            or not T < F < body_end
            or exit_ >= self.n
            or ins[exit_].op != "JUMP"
            or ins[exit_].target != F
            or ins[F - 1].op not in TERMINAL | {"JUMP"}
        ):
            return None
        return self._unreached_by_body(T, F, body_end)

    def _unreached_by_body(self, T: int, F: int, body_end: int) -> list[int] | None:
        """The instructions in [T, body_end) a loop body starting at T does not reach (through
        its handlers too, never past the loop's exit F): the code after the loop laid out
        inside its range.  None when the body never reaches F's neighbourhood (F - 1, or a
        jump to F): another layout."""
        ins = self.ins
        cover = getattr(self, "_cover", None) or [None] * self.n
        seen: set[int] = set()
        work = [T]
        while work:
            k = work.pop()
            if k in seen or k == F or not T <= k < body_end:
                continue
            seen.add(k)
            work.extend(self._succ(k))
            if cover[k] is not None:
                work.append(cover[k])
        if F - 1 not in seen and not any(ins[k].target == F for k in seen):
            return None  # the body never reaches the exit's neighbourhood: another layout
        return [k for k in range(T, body_end) if k not in seen and self.reachable[k]]

    def _exit_inside_tested_loop(self, h: int, T: int, F: int, latch: int) -> list[int] | None:
        """3.14+ (no copy of a `while` test at the bottom): when only an except clause goes
        round (the body's other paths leave), the loop's one jump back, to its test at h, is
        laid out after the try's handlers, and the code after the loop, which the test's exit F
        reaches, right after the body's code: inside the loop's range.  That code (one run
        ending in a return or raise, reached only from the test: a loop with breaks is not
        read so), which the body's walk must skip; None when the loop is not laid out so."""
        ins = self.ins
        if (
            not TABLE.cold_blocks_at_end
            or TABLE.duplicates_loop_tests
            or not h < T < F <= latch
            or ins[latch].op != "JUMP"
            or ins[latch].target != h
            or ins[F - 1].op not in TERMINAL | {"JUMP"}
            or any(i.target == F and not h <= i.index < T for i in ins)
            or any(i.target == h and i.index != latch for i in ins)
            or self.home[latch] in (None, self.home[h])
        ):
            return None  # (a jump back the loop's own code reaches: no such layout)
        outside = self._unreached_by_body(T, F, latch + 1)
        if (
            not outside
            or outside != list(range(F, outside[-1] + 1))
            or ins[outside[-1]].op not in TERMINAL
        ):
            return None  # (the code after the loop must be one run that returns or raises)
        size = len(outside)
        if any(self._same_code(k, F, size) for k in range(T, latch + 2 - size) if not F - size < k < F + size):
            return None  # (a copy of it in the loop: a `break`, which this reading does not place)
        return outside

    def _retire_bottom_exit_copies(self, lo: int, latch: int, F: int) -> None:
        """The loop's exit F is a small `return` block copied per jump (3.10+): the
        copies the bottom test's early exits reach (`while a and b:`) are the same
        exit; only the loop's test reaches them."""
        key = self._exit_key(F)
        if key is None or F <= latch:
            return
        copies = {self.ins[j].target for j in range(lo, latch) if self.ins[j].op in CONDITIONAL_JUMPS}
        copies = {t for t in copies if t > latch and t != F}
        if not copies or any(self._exit_key(t) != key for t in copies):
            return
        for t in copies:
            if any(i.target == t and not lo <= i.index < latch for i in self.ins) or (
                self.ins[t - 1].op not in TERMINAL and self.ins[t - 1].op != "JUMP"
            ):
                return
        for t in copies:
            for k in range(t, t + len(key)):
                self.reachable[k] = False

    # ------------------------------------------------------------ conditions
    def try_condition_at(self, start: int, stack: list) -> tuple[ast.expr, int, int] | None:
        """Parse a condition chain beginning at ``start``; None if there is none."""
        try:
            stmts, st = self.walk(start, self.n, list(stack), frozenset(), until_cond=True)
        except DecompilationError:
            return None
        if stmts:
            return None
        j = st.pop()
        first = self.as_expr(st.pop(), self.ins[j])
        if len(st) != len(stack):
            return None
        return self.condition_chain(j, first, stack, start)

    def _copies_of(
        self, T: int, size: int, falls: dict[int, int], copies: dict[int, int]
    ) -> list[tuple[int, int]] | None:
        """The copied arm bodies of a chain of ``size`` tests, as (start, size), each a copy of
        the code at ``T``; None when one is not.  Copies are recorded in order, so a size
        whose first copy differs fails at its first comparison."""
        used = []
        for n, length in copies.items():
            if n >= size - 1:
                break
            if n in falls:
                if not self._same_code(falls[n], T, length):
                    return None
                used.append((falls[n], length))
        return used

    def condition_chain(
        self, j: int, first: ast.expr, stack: list, start: int
    ) -> tuple[ast.expr, int, int] | None:
        """Collect the and/or chain whose first test is ``first`` jumping at ``j``.

        Returns (expression, T, F): the whole test is true exactly when control
        reaches T (the fallthrough after the chain) and false when it reaches F.
        """
        blocks = [self._block(first, j, start)]
        k = self._next(j)
        falls: dict[int, int] = {}
        copies: dict[int, int] = {}
        arm_jumps: dict[int, int] = {}  # where an arm's closing jump is -> where it goes
        while k < self.n and self.reachable[k]:
            over = self._arm_jump(k)
            if over is not None:
                falls[len(blocks) - 1] = over
                arm_jumps[k] = over
                k += 1
            elif (size := self._arm_copy(k)) is not None:
                # 3.10+ copy a small `return` body onto the end of the first arm
                if copies and not self._same_copy(falls, copies, k, size):
                    # every copied body of a chain is a copy of the code after it, and this
                    # one differs from the first: no longer chain can hold both (an elif
                    # chain of different returns), so the scan stops here, keeping it linear
                    break
                falls[len(blocks) - 1] = k
                copies[len(blocks) - 1] = size
                k += size
            if k in self.latch:
                # a loop's head (3.9's `while` tests at its top): the loop starts here, not
                # another test of this chain (`if c: while d:` jumps where the loop exits)
                break
            try:
                stmts, st = self.walk(k, self.n, list(stack), frozenset(), until_cond=True)
            except DecompilationError:
                break
            if stmts:
                break
            jj = st.pop()
            e = self.as_expr(st.pop(), self.ins[jj])
            if len(st) != len(stack) or any(a is not b for a, b in zip(st, stack)):
                break
            blocks.append(self._block(e, jj, k))
            k = self._next(jj)
        for size in range(len(blocks), 0, -1):
            # the arms' copied bodies must be copies of what follows this chain: checked before
            # the chain is built, so that a long elif chain of returns stays quadratic, not cubic
            T = self._next(blocks[size - 1].jump)
            used = self._copies_of(T, size, falls, copies)
            if used is None:
                continue
            chain = [
                Block(
                    b.expr,
                    b.when,
                    # a test of an arm jumping to the arm's closing jump goes where it goes
                    arm_jumps.get(b.target, b.target) if b.target < blocks[size - 1].start else b.target,
                    b.start,
                    b.jump,
                    falls.get(n) if n < size - 1 else None,
                )
                for n, b in enumerate(blocks[:size])
            ]
            for n, b in enumerate(chain):
                if n in copies and b.fall is not None:
                    b.fall = T
            starts = [b.start for b in chain]
            outside = {t for b in chain for t in _exits(b) if t not in starts[1:] and t != T}
            if len(outside) > 1:
                merged = self._merge_exit_copies(outside, T)
                if merged is not None:
                    for b in chain:
                        if b.target in outside:
                            b.target = merged
                        if b.fall in outside:
                            b.fall = merged
                    outside = {merged}
            cleanup_copy = self._chain_cleanup_copy(outside, T, starts[0]) if len(outside) == 2 else None
            if cleanup_copy is not None:
                # 3.10+: a chained comparison's clean-up falls into a copy of the block at T
                # (its last link's jump was inverted over T): that copy is T
                t, n = cleanup_copy
                for b in chain:
                    if b.target == t:
                        b.target = T
                    if b.fall == t:
                        b.fall = T
                outside = outside - {t}
            if not outside and chain[-1].target == T and not used:
                # `if a or b: pass`: every exit is T; the last test's jump is
                # the (empty) false exit
                chain = list(chain)
                last = chain[-1]
                chain[-1] = Block(last.expr, last.when, EMPTY_IF, last.start, last.jump, last.fall)
                expr = _build_test(chain, size, T, EMPTY_IF, starts + [T])
                if expr is not None:
                    self.last_chain = (chain, starts + [T])
                    return expr, T, EMPTY_IF
                continue
            if len(outside) != 1:
                continue
            (F,) = outside
            expr = _build_test(chain, size, T, F, starts + [T])
            if expr is not None and any(b.fall is not None for b in chain) and not _has_ifexp(expr):
                # an arm's jump or copied body read as an and/or: two `if`s
                # sharing a body, not one test
                expr = None
            if expr is not None:
                for c, size_ in used:
                    for i in range(c, c + size_):
                        self.reachable[i] = False
                if cleanup_copy is not None:
                    t, n = cleanup_copy
                    for i in range(t - 1, t + n):
                        self.reachable[i] = False
                self.last_chain = (chain, starts + [T])
                return expr, T, F
        return None

    def _same_copy(self, falls: dict[int, int], copies: dict[int, int], k: int, size: int) -> bool:
        """Whether the copied body of ``size`` at ``k`` is the same code as the chain's first."""
        n, first_size = next(iter(copies.items()))
        return size == first_size and self._same_code(falls[n], k, size)

    def _chain_cleanup_copy(self, outside: set[int], T: int, start: int) -> tuple[int, int] | None:
        """(t, n): an exit t of a test [start, T) holding a copy, n long, of the terminal
        block at T, entered from a chained comparison's clean-up POP_TOP right before it,
        which only jumps from inside the test reach (3.10+), else None."""
        if not TABLE.copies_exit_blocks:
            return None
        n = self._terminal_len(T)
        if n is None:
            return None
        for t in outside:
            if t <= T or not self._same_code(T, t, n):
                continue
            c = t - 1
            if self.ins[c].op != "POP_TOP" or self.ins[c - 1].op not in TERMINAL:
                continue
            if all(start <= i.index < T for i in self.ins if i.target == c):
                return t, n
        return None

    def _arm_jump(self, k: int) -> int | None:
        """Target of a forward jump at ``k`` that ends a ternary arm inside a test.

        The code after it must be another arm: something jumps there."""
        ins = self.ins[k]
        if ins.op != "JUMP" or ins.target <= k or k + 1 >= ins.target:
            return None
        if not (self.reachable[k + 1] and self._is_target(k + 1)):
            return None
        return ins.target

    def _arm_copy(self, k: int) -> int | None:
        """Size of a copied small body (a return or raise) at ``k`` ending a ternary arm
        (3.10+): the code after it must be another arm (something jumps there)."""
        size = self._terminal_len(k) if TABLE.copies_exit_blocks else None
        if size is None or k + size >= self.n:
            return None
        after = k + size
        if not (self.reachable[after] and self._is_target(after)):
            return None
        return size

    def _exit_key(self, i: int) -> tuple | None:
        """Key of a small `return <load>` block: 3.11+ copies these per predecessor."""
        ops = []
        for k in range(i, min(i + 3, self.n)):
            ins = self.ins[k]
            if k > i and self._is_target(k):
                return None
            ops.append((ins.op, _key(ins.argval)))
            if ins.op == "RETURN_VALUE":
                return tuple(ops)
            if ins.op not in ("LOAD_CONST", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF"):
                return None
        return None

    def _same_place(self, t: int) -> set[int]:
        """``t`` and, if it holds an unconditional jump, where that leads."""
        if t < self.n and self.ins[t].op == "JUMP":
            return {t, self.ins[t].target}
        return {t}

    def _terminal_len(self, X: int) -> int | None:
        """Length of the straight block at X ending in return/raise, if small."""
        for k in range(X, min(X + 8, self.n)):
            ins = self.ins[k]
            if ins.target is not None or (k > X and self._is_target(k)):
                return None
            if ins.op in TERMINAL:
                return k - X + 1
        return None

    def _is_target(self, k: int) -> bool:
        if not hasattr(self, "_targets"):
            self._targets = {i.target for i in self.ins if i.target is not None}
            self._sorted_targets = sorted(self._targets)
        return k in self._targets

    def _merge_exit_copies(self, targets: set[int], T: int) -> int | None:
        if not TABLE.copies_exit_blocks:
            return None
        keys = {self._exit_key(t) for t in targets}
        if len(keys) != 1 or None in keys or min(targets) < T:
            return None
        first = min(targets)
        for t in targets - {first}:
            for k in range(t, t + len(next(iter(keys)))):
                self.reachable[k] = False
        return first

    def _block(self, expr: ast.expr, j: int, start: int) -> Block:
        ins = self.ins[j]
        op = ins.op
        if op in _NONE_JUMPS and hasattr(expr, "fused_none"):
            when = expr.fused_none  # a chained comparison whose last link is this jump's test
        elif op == "POP_JUMP_IF_NONE":
            expr, when = ast.Compare(left=expr, ops=[ast.Is()], comparators=[const(None)]), True
        elif op == "POP_JUMP_IF_NOT_NONE":
            expr, when = ast.Compare(left=expr, ops=[ast.Is()], comparators=[const(None)]), False
        else:
            when = op == "POP_JUMP_IF_TRUE"
        return Block(expr, when, ins.target, start, j)

    def do_condition(self, j: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[j]
        first = stack.pop()
        first = self.as_expr(first, ins)
        start = self.stmt_start if self.stmt_start <= j else j
        res = self.condition_chain(j, first, stack, start)
        if res is None:
            raise self.fail("unrecognized conditional jump", ins)
        expr, T, F = res
        if F == EMPTY_IF:
            self.emit(ast.If(test=expr, body=[ast.Pass()], orelse=[]))
            return T
        chain, starts = self.last_chain
        loop = self.loops[-1] if self.loops else None
        if (
            TABLE.shares_continue_jumps
            and loop is not None
            and F in loop.continue_targets
            and j < T < stop
            and T in self.latch
            and not self._in_loop(T)
            and self.latch[T] < stop
        ):
            # `while test:` ending an enclosing loop's body: its false exit was threaded to
            # that loop's head, and its copy at the bottom jumps back to T
            r = self._inverted_while(start, T, F, expr, stack, stop, exits, extra_continue=set())
            if r is not None:
                return r
        if loop is not None and (F in loop.break_targets or F in loop.continue_targets):
            self._check_break_not_block_end(F, loop, exits, self.ins[start])
            k = stop - 1
            if (
                TABLE.keeps_dead_jumps
                and T < k - 1 < self.n
                and self.ins[k].op == "JUMP"
                and self.ins[k].target == F
                and not self.initially_reachable[k]
                and self.ins[k - 1].op == "JUMP"
                and self.ins[k - 1].target == stop
                and stop not in loop.break_targets  # (a `break` ending the body, not a jump over)
            ):
                # 3.9: `if t: <body> else: continue` (or break): the test jumps straight
                # to the loop's head, and the else's own jump stays, dead, after the
                # body's jump over it
                body, st = self.walk(T, k - 1, list(stack), exits)
                if len(st) == len(stack):
                    leave_stmt = ast.Continue() if F in loop.continue_targets else ast.Break()
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[leave_stmt]))
                    return stop
            # `if <test>: break/continue` jumps away when its test holds: say the
            # test the way the jumps do (built for "reaches F"), not negated
            leave = _build_test(chain, len(chain), F, T, starts) or _negate(expr)
            # 3.11+ compile `if t: continue` into one jump to the loop head;
            # before, such a jump only ends an `if` that closes the loop body
            jumps_when_true = TABLE.jumps_to_loop_head_from_test and chain[-1].when and chain[-1].target == F
            if TABLE.shares_continue_jumps and sum(b.target == F for b in chain) >= 2:
                # 3.12+ lay a `continue` out once, reached by jumps; several
                # jumps straight to the head are copies of the implicit back edge
                jumps_when_true = False
            if F in loop.break_targets and F not in loop.continue_targets:
                if (
                    loop.item is None
                    and F == loop.follow
                    and loop.header in exits
                    and T < stop
                    and self._last_goes_round(T, stop, loop)
                ):
                    # a conditional jump straight out of a while body is an else
                    # `break` that falls into the exit: `if t: <rest> else: break`
                    # (`if not t: break` jumps over a jump)
                    body, st = self.walk(T, stop, list(stack), exits)
                    if len(st) == len(stack):
                        if loop.forever and not _ends_in_jump(body):
                            # `while True:` goes round by a jump either way: say it
                            self.emit(ast.If(test=expr, body=body + [_explicit(ast.Continue())], orelse=[]))
                            self.emit(ast.Break())
                        else:
                            self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[ast.Break()]))
                        return stop
                self.emit(ast.If(test=leave, body=[ast.Break()], orelse=[]))
                return T
            if (
                F in exits
                and T < stop
                and self.ins[T].op == "JUMP"
                and self.ins[T].target == F
                and self._dead_between(T + 1, stop)
            ):
                # `if t: continue` ending the body (3.9, 3.12+): the jump to the
                # head is the implicit back edge, the one after it the continue
                self.emit(ast.If(test=expr, body=[_explicit(ast.Continue())], orelse=[]))
                return stop
            if (
                F in loop.continue_targets
                and T < stop
                and F in exits
                and self._compiler_made_continue(chain[-1].jump) is True
            ):
                # `if test: <rest>` whose false path falls off the loop body: the
                # jump to the head is the compiler's, not a written continue
                body, st = self.walk(T, stop, list(stack), exits)
                body, st = self._break_into_for_exit(body, st, stack, stop, loop)
                if len(st) == len(stack):
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                    return stop
            if F in exits and T < stop and not jumps_when_true and self._compiler_made_continue(chain[-1].jump) is not False:
                # the rest of this block ends the loop body: `if test: <rest>`
                body, st = self.walk(T, stop, list(stack), exits)
                body, st = self._break_into_for_exit(body, st, stack, stop, loop)
                if len(st) != len(stack):
                    raise self.fail("if branch changes the stack", ins)
                self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                return stop
            if (
                TABLE.forward_only_conditional_jumps
                and F in loop.continue_targets
                and T < stop
                and not jumps_when_true
                and self._compiler_made_continue(chain[-1].jump) is not False
                and self._last_goes_round(T, stop, loop)
            ):
                # 3.12+: `if test: <rest>` whose false exit goes round the loop as the rest's
                # end does (an arm before an else: its jump over the else threaded to the
                # head): `if test: <rest>` then `continue`, the test as written (the same as
                # `if not test: continue` then the rest)
                body, st = self.walk(T, stop, list(stack), exits)
                if len(st) == len(stack):
                    if body and type(body[-1]) is ast.Continue:
                        body.pop()
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                    self.emit(ast.Continue())
                    return stop
            self.emit(ast.If(test=leave, body=[ast.Continue()], orelse=[]))
            return T
        if F < T:
            raise self.fail("condition jumps backwards", ins)
        if T in self.latch and not self._in_loop(T):
            r = self._inverted_while(start, T, F, expr, stack, stop, exits, extra_continue=set())
            if r is not None:
                return r
        return self.do_if(j, expr, T, F, stack, stop, exits)

    def _break_into_for_exit(self, body: list, st: list, stack: list, stop: int, loop: Loop) -> tuple[list, list]:
        """A branch ending a for body that pops the iterator and falls into the loop's exit
        (3.12+ drop the jump when the exit follows): a `break` (see do_for)."""
        if (
            loop.item is not None
            and len(st) == len(stack) - 1
            and stop == loop.follow
            and self.ins[stop - 1].op == "POP_TOP"
            and not _ends_in_jump(body)
        ):
            return body + [ast.Break()], st + [stack[-1]]
        return body, st

    def _threaded_follow39(self, T: int, end: int, F: int, stop: int, head: int) -> int | None:
        """Where an if/else whose then-branch [T, end) ends by a jump to ``head`` ends: the
        one place in (F, stop] a jump of the branch reaches that is itself a jump to ``head``."""
        found = {
            t
            for k in range(T, end)
            if (t := self.ins[k].target) is not None
            and F < t <= stop
            and t < self.n
            and self.ins[t].op == "JUMP"
            and self.ins[t].target == head
        }
        return found.pop() if len(found) == 1 else None

    def _compiler_made_continue(self, j: int) -> bool | None:
        """3.12+: is the conditional jump at j to the head of a loop inside a try
        one the compiler made backward (a test whose false path falls off the loop
        body: True) or a written ``if test: continue`` (False)?  Both are spelled
        as a jump over a ``JUMP_BACKWARD``; the exception table protects a written
        one like the test, the compiler's one not (3.15+ protect both: the compiler's
        jump carries the test's source positions).  None: nothing tells."""
        off = self.ins[j].extra.get("folded_jump")
        if off is None:  # (3.12+ only fold)
            return None
        if not hasattr(self, "_exc_ranges"):
            self._exc_ranges = [(e.start, e.end, e.target) for e in dis._parse_exception_table(self.code)]

        def handler(o: int) -> int | None:
            return next((t for a, b, t in self._exc_ranges if a <= o < b), None)

        # (3.13 leave the compiler's jump's test unprotected too: ask the test's operand)
        h = handler(self.ins[j - 1].offset) if j > 0 else None
        if h is None or handler(self.ins[self.ins[j].target].offset) != h:
            return None  # (a continue leaving the try is unprotected too)
        if TABLE.tells_compiler_back_jumps_by_positions:
            return same_positions(self.code, self.ins[j].offset, off)
        return handler(off) is None

    def _falls_off_loop_body(self, T: int, end: int, F: int, exits: frozenset, loop: Loop | None) -> bool:
        """Does a test in the then-branch [T, end) of an if whose else starts at F
        go round the loop whose body the walk ends, by a compiler-made jump to its
        head (see :meth:`_compiler_made_continue`) or by a jump past F to the
        body's last jump back (3.9)?"""
        if loop is None or not any(t in exits for t in loop.continue_targets):
            return False
        for k in range(T, end):
            ins = self.ins[k]
            if ins.op not in CONDITIONAL_JUMPS:
                continue
            t = ins.target
            if t in loop.continue_targets and self._compiler_made_continue(k) is True:
                return True
            if t > F and self.ins[t].op == "JUMP" and self.ins[t].target in loop.continue_targets:
                return True
        return False

    def do_if(
        self, j: int, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset
    ) -> int:
        ins = self.ins[j]
        if F > stop and F not in exits and self.ins[F].op == "JUMP" and self.ins[F].target in exits:
            # 3.9: the false path jumps to a jump to where this block ends (a loop's
            # back edge after an else): it falls off the block
            F = stop
        if F > stop and F not in exits:
            r = self._if_into_exit_copy(expr, T, F, stack, stop, exits)
            if r is not None:
                return r
            raise self.fail("condition jumps past its block", ins)
        then_stop = min(F, stop)
        else_range = None
        last = self.branch_last_jump(T, then_stop)
        loop = self.loops[-1] if self.loops else None
        if (
            last is not None
            and last.op == "JUMP"
            and last.target is not None
            and last.target > then_stop
            and F <= stop
            and not (loop is not None and (last.target in loop.break_targets or last.target in loop.continue_targets))
        ):
            E = last.target
            if E <= stop:
                else_range = (F, E)
            elif E in exits:
                else_range = (F, stop)
            if else_range is not None:
                then_stop = then_stop - 1
        elif (
            last is not None
            and last.op == "JUMP"
            and loop is not None
            and last.target in loop.continue_targets
            and last.target in exits
            and last.index == then_stop - 1
            and T <= last.index
            and F < stop
            and self.reachable[last.index]
            and (self._has_inner_loop(T, last.index) or self._falls_off_loop_body(T, last.index, F, exits, loop))
        ):
            # an if/else ending the loop body: its jump over the else goes to
            # the loop head (the same code as `continue`); say the else, so a
            # loop inside the branch can leave by that jump too
            else_range = (F, stop)
            then_stop = then_stop - 1
        elif self._leaves_handler(last, T, F, stop, exits):
            # 3.12+ handlers sit after the code: `POP_EXCEPT; JUMP <try follow>`
            # ends each arm of an if/else in an except clause
            else_range = (F, stop)
            then_stop = last.index
        if (
            else_range is None
            and TABLE.keeps_dead_jumps
            and last is not None
            and last.op == "JUMP"
            and loop is not None
            and last.target in loop.continue_targets
            and last.index == then_stop - 1
            and self.reachable[last.index]
            and F < stop
        ):
            # 3.9 threads the jump over the else to the loop's head when a `continue`
            # follows the if/else; a test in the branch that jumps to that continue
            # (a jump to the same head) says where the else ends
            E = self._threaded_follow39(T, then_stop, F, stop, last.target)
            if E is not None:
                else_range = (F, E)
                then_stop = then_stop - 1
        if else_range is None and F < stop and self._leaves_at_end(last, T, then_stop, loop):
            # the branch ends by leaving (break, continue, return), so the jump over the else
            # is in a nested statement ending the branch another way (3.11: `elif` arms)
            E = self._jump_over_else_inside(T, then_stop, F, stop, exits, loop)
            if E is not None:
                else_range = (F, E)
        dead_else = (
            last is not None
            and last.op == "JUMP"
            and last.index == min(F, stop) - 1
            and not self.initially_reachable[last.index]
            # (not when the code before it jumps to F: then it ends an inner if/else, whose
            # then-branch jumps over it to where this if ends)
            and not (self.ins[last.index - 1].op == "JUMP" and self.ins[last.index - 1].target == F)
        )
        if else_range is None and dead_else and last.target in exits and F < stop:
            # 3.9 keep the jump over the else after a break/continue/raise: an
            # if/else ending a loop body, its jump threaded to the loop head
            else_range = (F, stop)
            then_stop = then_stop - 1
        # `else: pass` is a jump over a NOP: both land on F once NOPs are dropped
        empty_else = else_range is None and F <= stop and self._jumps_over_empty_else(last, F)
        if else_range is None and F <= stop and last is not None and last.op in TERMINAL:
            copy = self._copied_follow(T, then_stop, stop)
            if copy is not None:
                # the then-branch falls into a copy of the block after the else
                # (3.12+ copy small exit blocks into each path that reaches them)
                X, size = copy
                if size == 2 and self.ins[X].op == "LOAD_CONST" and self.ins[X].argval is None:
                    # a `return None` copied for a jump from inside the branch as well:
                    # only the function's implicit return (no line) is copied so
                    self.implicit_returns.add(X + 1)
                else_range = (F, X)
                then_stop = then_stop - size
                for k in range(then_stop, then_stop + size):
                    self.reachable[k] = False
        if (
            else_range is None
            and F < stop
            and last is not None
            and last.op in TERMINAL
            and self._falls_off_loop_body(T, then_stop, F, exits, loop)
        ):
            # the branch ends in a return/raise, but an if inside it falls off the
            # loop body (3.12+ jump to the head): an if/else ending the body
            else_range = (F, stop)
        if else_range is None and F < stop and last is not None and last.op in TERMINAL:
            E = self._inner_else_jump(T, then_stop, stop, loop)
            if E is not None:
                # the branch ends in a statement that returns, but an arm inside
                # it jumps over the else (3.10+ thread the jumps)
                else_range = (F, E)
        if (
            else_range is None
            and F < stop
            and last is not None
            and last.op == "JUMP"
            and T <= last.target < last.index
            and self.ins[last.target].op != "FOR_ITER"
        ):
            # the branch ends in a loop that never falls off its end: where its breaks go
            # past the else says where the else ends (no jump over the else is left);
            # 3.10+ copy the code there behind a break through a finally
            outs = {
                self.ins[k].target
                for k in range(last.target, then_stop)
                if self.reachable[k] and self.ins[k].target is not None and F < self.ins[k].target <= stop
            }
            # (the last such place: copies of it in the else come before it)
            p = self.finally_copied_break(last.target, then_stop, F, stop, last=True) if not outs else None
            if p is not None:
                outs = {p}
            if len(outs) == 1:
                else_range = (F, outs.pop())
        # what falling off the end of each branch means: reaching the if's follow
        follow = else_range[1] if else_range else then_stop
        if else_range:
            follow_targets = {else_range[1]}
            if then_stop < self.n and self.ins[then_stop].op == "JUMP" and then_stop < else_range[0]:
                follow_targets.add(self.ins[then_stop].target)
        else:
            follow_targets = {F, then_stop}
        inherited = exits if (follow == stop or follow_targets & exits) else frozenset()
        branch_exits = frozenset(follow_targets) | inherited
        last_in_then = self.ins[F - 1] if T <= F - 1 < self.n else None
        if last_in_then is not None and last_in_then.op in VALUE_JUMPS and last_in_then.target > F:
            return self._mixed_boolop(expr, T, F, last_in_then, stack)
        if (
            TABLE.copies_exit_tails_into_both_arms
            and else_range is None
            and then_stop == F
            and F - 1 >= T
            and self.ins[F - 1].op in TERMINAL
            and not self._protected(T, stop)
        ):
            r = self._tail_ternary(expr, T, F, stack, stop, exits)
            if r is not None:
                return r
        if (
            TABLE.copies_exits_without_line
            and else_range is not None
            and F - 1 >= T
            and self._is_finally_end_jump(F - 1)
            and else_range[1] == self.ins[F - 1].target
        ):
            # the same in a finally body's exception-path copy, where the copied re-raise
            # ending the first arm was turned back into a jump to the body's end
            r = self._tail_ternary(expr, T, F, stack, stop, exits, end=else_range[1])
            if r is not None:
                return r
        if self._pending(stack) and (else_range is None or self._protected(T, else_range[1])):
            # no conditional expression is possible: name the values first, and
            # walk the branches once (try structuring must not run twice)
            self.materialize(stack)
        then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
        if (
            else_range is None
            and len(then_body) == 1
            and isinstance(then_body[0], ast.Assert)
            and isinstance(then_body[0].test, ast.Constant)
        ):
            self.emit(ast.Assert(test=_negate_test(expr), msg=then_body[0].msg))
            return then_stop if F > stop else F
        if dead_else and else_range is not None and self.ins[last.index - 1].op == "RETURN_VALUE":
            # 3.9 drop code after a return only up to the next label: the branch
            # ended in a compound statement, an if whose arms all return
            restore_final_else(then_body)
        if else_range is not None:
            else_body, st2 = self.walk(else_range[0], else_range[1], list(stack), branch_exits)
            # a conditional expression leaves one value and says nothing
            if (
                not then_body
                and not else_body
                and len(st1) == len(stack) + 1
                and len(st2) == len(stack) + 1
                and _is_arm_value(st1[-1])
                and _is_arm_value(st2[-1])
            ):
                stack.append(
                    ast.IfExp(test=expr, body=self.as_expr(st1[-1], ins), orelse=self.as_expr(st2[-1], ins))
                )
                return else_range[1]
            left_handler = else_range[1] == stop and self._both_left_handler(stack, st1, st2)
            # (each arm ends the except clause: nothing continues after the if)
            if not left_handler and not self._arms_meet([(then_body, st1), (else_body, st2)]):
                raise self.fail("if/else branches leave different stacks", ins)
            if self._pending(stack):
                # values computed before the test must not be recomputed in the branches
                # (locals the branches assign are saved as the if statement is emitted)
                self.materialize(stack)
                then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
                else_body, st2 = self.walk(else_range[0], else_range[1], list(stack), branch_exits)
            if not left_handler:
                stack[:] = self._join_arms(stack, [(then_body, st1), (else_body, st2)], ins)
            self.emit(ast.If(test=expr, body=then_body or [ast.Pass()], orelse=else_body))
            return else_range[1]
        fall: tuple[list[ast.stmt], list] = ([], stack)  # the false exit: the stack as it was
        if not self._arms_meet([(then_body, st1), fall]):
            raise self.fail("if branch changes the stack", ins)
        if self._pending(stack):
            self.materialize(stack)
            then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
        orelse = [ast.Pass()] if empty_else and not _ends_in_jump(then_body) else []
        fall = ([], list(stack))
        stack[:] = self._join_arms(stack, [(then_body, st1), fall], ins)
        # (the false exit assigns the temporaries of slots the then-branch changed)
        self.emit(ast.If(test=expr, body=then_body or [ast.Pass()], orelse=fall[0] or orelse))
        return then_stop if F > stop else F

    @staticmethod
    def _arms_meet(arms: list[tuple[list[ast.stmt], list]]) -> bool:
        """Do the arms that reach the join (those not ending by return/raise/break/continue)
        leave stacks of one depth?  (see _join_arms)"""
        depths = {len(st) for body, st in arms if not _ends_in_jump(body)}
        return len(depths) <= 1

    def _join_arms(self, stack: list, arms: list[tuple[list[ast.stmt], list]], ins: Instr) -> list:
        """The stack where the arms of an if statement meet again.

        Each arm is walked from a copy of ``stack`` and may leave other values than it found.
        Source never leaves a value on the stack across an if statement, but generated code
        does: Dynamo runs its profiler markers while a call's callable and arguments wait on
        the stack, each arm leaving its own ``None`` behind.  A slot where the arms that reach
        the join hold the same value (the same object, or equal constants) keeps it; any other
        slot becomes a fresh temporary, assigned at the end of each arm, which is where the arm
        computed it (a statement after a value in an arm saves the value first: see spill).
        An arm that leaves by return/raise/break/continue has no say; ``_arms_meet`` has
        checked that the others agree on the depth."""
        live = [(body, st) for body, st in arms if not _ends_in_jump(body)]
        if not live:
            return list(stack)
        if len(live) == 1:
            # the other arms leave; a value the one arm made is made inside it (3.10 lays out
            # a discarded conditional expression's arm as a jump to the pop): assigned there,
            # or saving it before the if statement would run it before the test
            body, st = live[0]
            joined = list(st)
            for k, v in enumerate(st):
                if (k < len(stack) and v is stack[k]) or not _is_value(v) or type(v) is _CONSTANT:
                    continue
                joined[k] = self._assigned_at_end([(body, v)], ins)
            return joined
        joined = []
        for k in range(len(live[0][1])):
            values = [st[k] for _, st in live]
            first = values[0]
            if all(v is first for v in values) or _same_constants(values):
                joined.append(first)
                continue
            if not all(_is_value(v) for v in values):
                raise self.fail("if arms leave different markers on the stack", ins)
            joined.append(self._assigned_at_end([(body, v) for (body, _), v in zip(live, values)], ins))
        return joined

    def _assigned_at_end(self, arms: list[tuple[list[ast.stmt], Any]], ins: Instr) -> ast.Name:
        """A fresh temporary, assigned each arm's value at the end of that arm."""
        tmp = f"__pellucid_tmp{self.spilled}"
        self.spilled += 1
        for body, v in arms:
            body.append(ast.Assign([name(tmp, _STORE)], self.as_expr(v, ins), lineno=0))
        ref = name(tmp)
        ref.is_spill = True
        self.seq += 1
        ref._seq = self.seq
        return ref

    def _exit_copy_len(self, target: int, jumps: set[int] | None = None) -> int | None:
        """Length of the small `return <load>` block at ``target`` when only
        ``jumps`` (None: any jumps) reach it, nothing falling into it: 3.10+ copy such
        exits into each path that ends the function, and lay some copies out after the
        enclosing block."""
        key = self._exit_key(target)
        if key is None or not self._reached_only_by(target, jumps):
            return None
        return len(key)

    def _reached_only_by(self, target: int, jumps: set[int] | None) -> bool:
        """Nothing falls into ``target``, and only ``jumps`` (None: any jumps) reach it."""
        if target > 0 and self.ins[target - 1].op not in TERMINAL | {"JUMP"}:
            return False
        return jumps is None or not any(i.target == target and i.index not in jumps for i in self.ins)

    def _exit_copy_stmts(self, target: int, size: int, stack: list) -> list[ast.stmt]:
        """The statements of the copied exit block [target, target + size)."""
        body, _ = self.walk(target, target + size, list(stack), frozenset())
        return body

    def _emit_exit_copy(self, target: int, size: int, stack: list) -> None:
        """Say the copied exit block where control leaves for it, and retire the copy."""
        body = self._exit_copy_stmts(target, size, stack)
        for stmt in body:
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                stmt.implicit_copy = True  # copied per path: the function's implicit return
            self.emit(stmt)
        for k in range(target, target + size):
            self.reachable[k] = False

    def _if_into_exit_copy(
        self, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset
    ) -> int | None:
        """``if t: <body ending the function>`` as the last statement of a block
        whose false exit is a copied `return` laid out past the block (3.10+)."""
        chain, _ = self.last_chain
        jumps = {b.jump for b in chain}
        size = self._exit_copy_len(F, jumps)
        if size is None:
            # (the copy of a try's normal exit, its finally body then the return: the
            # return is said here, the finally body runs on the way out)
            size = self._finally_exit_copy_len(F, jumps)
        if size is None:
            return None
        then_body, st = self.walk(T, stop, list(stack), exits)
        if not _ends_in_jump(then_body) or isinstance(then_body[-1], (ast.Break, ast.Continue)):
            return None
        self.emit(ast.If(test=expr, body=then_body, orelse=[]))
        self._emit_exit_copy(F, size, stack)
        return stop

    def _finally_exit_copy_len(self, F: int, jumps: set[int]) -> int | None:
        """3.12+: the length of a finally body's copy at F followed by a copied `return`,
        reached only by ``jumps``: the copy of a try statement's normal exit that ends the
        function, laid out past the block of the `if` whose false exit it is."""
        c = getattr(self, "_copies", {}).get(F)
        if not TABLE.copies_exits_without_line or c is None or c.kind != "finally" or not self._reached_only_by(F, jumps):
            return None
        key = self._exit_key(F + c.length)
        if key is None or len(key) != 2 or key[0][0] != "LOAD_CONST":
            return None  # (a constant: said before the finally body runs, the same value)
        return c.length + len(key)

    def _jumps_over_empty_else(self, last: Instr | None, F: int) -> bool:
        """Does the then-branch end in a jump to F that skips code the test's
        false exit lands on (only NOPs: an else of `pass`)?"""
        if last is None or last.op != "JUMP" or last.target != F or last.index != F - 1:
            return False
        if not isinstance(last.argval, int):
            return False  # (a jump the decompiler made of a clause's end: no compiler's offset)
        chain, _ = self.last_chain
        offsets = [self.ins[b.jump].argval for b in chain if b.target == F]
        if TABLE.keeps_dead_jumps:  # 3.9 drops the NOP and keeps the jump: `JUMP_FORWARD 0`
            return bool(offsets) and all(o == last.argval for o in offsets)
        return bool(offsets) and all(isinstance(o, int) and o < last.argval for o in offsets)

    def _has_inner_loop(self, lo: int, hi: int) -> bool:
        return any(self.ins[k].op == "FOR_ITER" or k in self.latch for k in range(lo, hi))

    def _inner_else_jump(self, T: int, end: int, stop: int, loop: Loop | None) -> int | None:
        """The one place past ``end`` (and within the block) that jumps inside
        [T, end) reach (the clauses of its tries too): the end of an else that follows."""
        moved = self.moved_handler_code(T, end)
        outs = {
            self.ins[j].target
            for j in sorted(set(range(T, end)) | moved)
            if self.reachable[j] and self.ins[j].target not in moved and self.ins[j].target is not None and self.ins[j].op != "FOR_ITER"
            and end < self.ins[j].target <= stop
        }
        if len(outs) != 1:
            return None
        (E,) = outs
        if loop is not None and (E in loop.break_targets or E in loop.continue_targets):
            return None
        if self._goes_on_at(T, end, end):
            return None
        return E

    def _copied_follow(self, T: int, end: int, stop: int) -> tuple[int, int] | None:
        """(X, size) when [T, end) ends in a copy of the small terminal block at
        a merge point X in (end, stop], reached here only by falling through."""
        if not TABLE.copies_exits_without_line:
            return None
        # only where a jump inside the branch reaches X past the branch's end
        for X in sorted({self.ins[j].target for j in range(T, end) if self.ins[j].target is not None}):
            if not end < X <= stop or X >= self.n:
                continue
            k = X
            while k < self.n and self.ins[k].target is None and self.ins[k].op not in TERMINAL:
                k += 1
            if k >= self.n or self.ins[k].op not in TERMINAL or self.ins[k].target is not None:
                continue
            size = k - X + 1
            start = end - size
            if (
                start <= T
                or self._copy_size(X, X + size) > MAX_COPY_SIZE
                or any(self._is_target(j) for j in range(start, end))
                or not self._same_code(start, X, size)
            ):
                continue
            return X, size
        return None

    def _protected(self, lo: int, hi: int) -> bool:
        """Does an exception-table region (a try/with) overlap [lo, hi) without holding all
        of it?  (A try around the whole range, its body holding a conditional expression,
        puts no statement inside it.)"""
        return any(
            start < hi and end > lo and not (start <= lo and end >= hi)
            for start, end, *_ in self.exc_entries
        )

    def _pending(self, stack: list) -> bool:
        local = set(self.code.co_varnames)
        return any(
            isinstance(v, ast.expr) and not _pure(v, local) for v in stack[self.cur_base :]
        )

    def _first_terminal(self, k: int) -> int:
        """Index of the first reachable return or raise at or after ``k`` (``n`` if none)."""
        while k < self.n and not (self.reachable[k] and self.ins[k].op in TERMINAL):
            k += 1
        return k

    def _is_finally_end_jump(self, k: int) -> bool:
        """Is k a re-raise ending a finally body's exception-path copy that
        ``_merge_finally_exits`` turned into a jump to the copy's last re-raise?"""
        i = self.ins[k]
        return i.op == "JUMP" and i.raw == "JUMP (finally end)" and i.target is not None and i.target > k

    def _tail_ternary(
        self, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset,
        end: int | None = None,
    ) -> int | None:
        """3.10 and 3.12+ copy a small tail (`return (b, <here>)`) into both arms of a
        conditional expression: A+S at [T, F) and B+S after F.  Find the
        longest shared tail S for which A and B each compute one value.  With
        ``end`` (a finally body's re-raise), the first arm's copy ends in a jump
        to ``end`` where the second's reaches the re-raise at ``end`` itself."""
        # a tail of just the return is `if t: return a` / `return b`: same code
        limit = min(stop, self.n)
        if self.ins[F - 1].op in TERMINAL:
            # the tail ends the block, so its second copy ends at the first return or raise
            # the second arm reaches: the search for it stops there (an elif chain of returns
            # stays linear)
            limit = min(limit, self._first_terminal(F) + 1)
        for n_s in range(F - T, 1, -1):
            tail_start = F - n_s
            if self._copy_size(tail_start, F) > MAX_COPY_SIZE:
                continue  # the compiler copies only small blocks
            if self.ins[tail_start].op == "POP_TOP":
                continue  # a tail that drops the value: `if t: a()` / `else: b()`, statements
            if end is not None:
                p = end - (n_s - 1)
                if p <= F or not self._same_code(tail_start, p, n_s - 1):
                    continue
            else:
                p = F
                while p + n_s <= limit and not self._same_code(tail_start, p, n_s):
                    p += 1
                if p + n_s > limit or p == F:
                    continue
            if self.ins[tail_start].line != self.ins[p].line:
                continue  # each copy on its own line: the arms' own statements (`x = a` / `x = b`)
            if any(self.ins[k].op == "POP_BLOCK" for k in [*range(T, tail_start), *range(F, p)]):
                continue  # an arm that leaves a try block is a statement (`if t: return a` in a try)
            if self._jumps_into(T, tail_start, tail_start + 1, F) or self._jumps_into(F, p, p + 1, p + n_s):
                continue  # an arm's and/or ends inside the tail: the tail is part of its value
            # a trial: walking code may retire exit copies it structures
            reachable = list(self.reachable)
            try:
                a_stmts, a_st = self.walk(T, tail_start, list(stack), frozenset())
                b_stmts, b_st = self.walk(F, p, list(stack), frozenset())
            except DecompilationError:
                self.reachable[:] = reachable
                continue
            if (
                a_stmts
                or b_stmts
                or len(a_st) != len(stack) + 1
                or len(b_st) != len(stack) + 1
                or any(x is not y for x, y in zip(a_st, stack))
                or any(x is not y for x, y in zip(b_st, stack))
                or not all(_is_value(v[-1]) for v in (a_st, b_st))  # `x += 1` halves are statements
            ):
                self.reachable[:] = reachable
                continue
            value = ast.IfExp(test=expr, body=self.as_expr(a_st[-1], None), orelse=self.as_expr(b_st[-1], None))
            stack.append(value)
            if end is not None:
                # the shared tail goes on to the finally body's end: the code at p is what
                # runs, the first arm's copy of it is not
                for k in range(tail_start, F):
                    self.reachable[k] = False
                return p
            for k in range(p, p + n_s):
                self.reachable[k] = False
            body, _ = self.walk(tail_start, F, list(stack), exits)
            for stmt in body:
                self.block.append(stmt)
            del stack[self.cur_base :]  # the shared tail ends the block (return/raise)
            return p + n_s
        return None

    def _jumps_into(self, lo: int, hi: int, a: int, b: int) -> bool:
        """Does an instruction in [lo, hi) jump into [a, b]?"""
        return any(
            (t := self.ins[k].target) is not None and a <= t <= b for k in range(lo, hi)
        )

    def _copy_size(self, lo: int, hi: int) -> int:
        """Size of [lo, hi) as the compiler counts it when it copies blocks:
        3.12 has formed RETURN_CONST by then, 3.13 has not formed its
        super-instructions yet."""
        n = 0
        seen = set()
        for k in range(lo, hi):
            ins = self.ins[k]
            if ins.offset in seen and not (TABLE.forms_superinstructions_after_copies and ins.raw in _FORMED_AFTER_COPIES):
                continue  # one instruction split in two (LOAD_GLOBAL's NULL)
            seen.add(ins.offset)
            n += 1
        return n

    def _mixed_boolop(self, cond: ast.expr, T: int, F: int, vj: Instr, stack: list) -> int:
        """``(a and b) or c`` / ``(a or b) and c`` on 3.9-3.11: a pop-jump into the last operand."""
        stmts, st = self.walk(T, F - 1, list(stack), frozenset())
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", vj)
        middle = self.as_expr(st[-1], vj)
        M = vj.target
        stmts, st = self.walk(F, M, list(stack), frozenset({M}))
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", vj)
        last = self.as_expr(st[-1], vj)
        if vj.op == "JUMP_IF_TRUE_OR_POP":
            inner = _boolop(ast.And(), cond, middle)
            stack.append(_boolop(ast.Or(), inner, last))
        else:
            inner = _boolop(ast.Or(), _negate(cond), middle)
            stack.append(_boolop(ast.And(), inner, last))
        return M

    # ------------------------------------------------------------ value-level and/or
    def do_value_jump(self, j: int, stack: list) -> int:
        """3.9-3.11 JUMP_IF_FALSE_OR_POP / JUMP_IF_TRUE_OR_POP: ``a and b`` / ``a or b``."""
        ins = self.ins[j]
        left = self.as_expr(stack.pop(), ins)
        L = ins.target
        if L <= j:
            raise self.fail("backward and/or jump", ins)
        if _is_chain_link(left, stack) and ins.op == "JUMP_IF_FALSE_OR_POP":
            return self.do_chain(left, stack, j + 1, L, ins)
        stmts, st, resume = self._boolop_operand(j + 1, L, stack)
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", ins)
        right = self.as_expr(st[-1], ins)
        op = ast.And() if ins.op == "JUMP_IF_FALSE_OR_POP" else ast.Or()
        chain = _chained_compare(left, right, stack)
        if chain is not None:
            stack.pop()  # the shared middle operand
            stack.append(chain)
            return self._after_chain_cleanup(L, stack, ins)
        stack.append(_boolop(op, left, right))
        return resume

    def _boolop_operand(self, lo: int, L: int, stack: list) -> tuple[list[ast.stmt], list, int]:
        """Walk the right operand of an and/or from ``lo`` to its join ``L``; return what the
        walk made and where to go on (``L``, or the jump that ends a conditional expression's
        arm when the and/or is that arm's value: 3.9 threads its jump to the arm's target).

        ``x or a < b < c`` followed by a small exit block (``return``, a store and a return):
        the compiler copies the block at the join into the chained comparison's true path,
        just before the comparison's clean-up (``SWAP 2; POP_TOP``), which falls into the
        join.  The operand then ends where that copy starts; the copy and the clean-up are
        dead here, and the block at the join is the one that stays."""
        p = self._chain_tail_copy(lo, L)
        if p is not None:
            stmts, st = self.walk(lo, p, list(stack), frozenset({p}))
            n = L - 2 - p
            for k in range(p, L):
                self.reachable[k] = False
            for k in range(L, L + n):  # the chain took the join's block for its own copy
                self.reachable[k] = True
            return stmts, st, L
        copies = self._arm_tail_copies(lo, L)
        if copies:
            # each copy behaves as the jump to L it replaced: walk the operand with that jump
            n = self._terminal_len(L)
            saved = {p + n - 1: self.ins[p + n - 1] for p in copies}
            for p in copies:
                for k in range(p, p + n):
                    self.reachable[k] = False
                c = self.ins[p + n - 1]
                self.ins[c.index] = Instr("JUMP", None, None, c.offset, c.line, L, c.index, "JUMP_FORWARD")
                self.reachable[c.index] = True
            scanned = self._no_arm_end.pop(L, None)  # (the copies are jumps to L for now)
            try:
                stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
            finally:
                for p, c in saved.items():
                    self.ins[p] = c
                if scanned is not None:
                    self._no_arm_end[L] = scanned
            for p in copies:
                for k in range(p, p + n):
                    self.reachable[k] = False
            return stmts, st, L
        if self._jumps_to_or_past(lo, L):
            # (an arm's end is a jump to L: only then can there be one)
            arm_end = self._arm_end_before(lo, L)
            if arm_end is not None:
                stmts, st = self.walk(lo, arm_end, list(stack), frozenset({arm_end}))
                return stmts, st, arm_end
        else:
            # no jump in [lo, L) leaves for L or past it: an operand nested in this one with
            # the same join (the rest of a long `and` chain) need not scan its part again
            outer = self._no_arm_end.get(L)
            self._no_arm_end[L] = lo
            try:
                stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
            finally:
                if outer is None:
                    del self._no_arm_end[L]
                else:
                    self._no_arm_end[L] = outer
            return stmts, st, L
        stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
        return stmts, st, L

    def _jumps_to_or_past(self, lo: int, L: int) -> bool:
        """Whether an unconditional jump in [lo, L - 1) goes to ``L``, or any jump past it."""
        scanned = self._no_arm_end.get(L)
        if scanned is not None and scanned <= lo:
            return False
        for k in range(lo, L - 1):
            ins = self.ins[k]
            if ins.target is not None and (ins.target > L or (ins.target == L and ins.op == "JUMP")):
                return True
        return False

    def _arm_tail_copies(self, lo: int, L: int) -> list[int]:
        """`x = a or (b if c else d)` before a small exit block at ``L``: the compiler
        replaced the first arm's jump to ``L`` by a copy of that block (3.10+; 3.9's peephole
        does so for a jump to a lone RETURN_VALUE).  Starts of such copies in [lo, L) (each
        followed by the next arm, which something jumps to)."""
        n = self._terminal_len(L)
        if n is None:
            return []
        # a copy is followed by a jump target: look only there, not at every index (a long
        # `and` chain asks this once per operand)
        self._is_target(lo)
        ends = self._sorted_targets
        return [
            t - n
            for t in ends[bisect.bisect_left(ends, lo + n):bisect.bisect_left(ends, L)]
            if self.reachable[t - n] and self._same_code(t - n, L, n)
        ]

    def _arm_end_before(self, lo: int, L: int) -> int | None:
        """The jump to ``L`` that ends a conditional expression's arm inside [lo, L): the
        next arm starts right after it (something jumps there)."""
        for k in range(lo, L - 1):
            ins = self.ins[k]
            if ins.target is not None and ins.target > L:
                return None  # a jump past the join: not an arm of one expression
            if ins.op == "JUMP" and ins.target == L:
                nxt = k + 1
                if self.reachable[nxt] and self._is_target(nxt) and not self._jumps_into(lo, k, nxt, L - 1):
                    return k
                return None
        return None

    def _chain_tail_copy(self, lo: int, L: int) -> int | None:
        """Start of a copy of the small exit block at ``L`` that ends a chained comparison
        whose clean-up (``SWAP 2; POP_TOP``) sits just before ``L`` (see _boolop_operand)."""
        if not (
            L - 2 > lo
            and self.ins[L - 2].op == "SWAP"
            and self.ins[L - 2].argval == 2
            and self.ins[L - 1].op == "POP_TOP"
            and not self._is_target(L - 1)
        ):
            return None
        n = self._terminal_len(L)
        if n is None:
            return None
        p = L - 2 - n
        if p <= lo or not self._same_code(p, L, n):
            return None
        if not any(self.ins[k].target == L - 2 for k in range(lo, p)):
            return None  # no link of a chained comparison jumps to the clean-up
        return p

    def _is_value_boolop(self, i: int, stack: list) -> bool:
        # 3.12+: COPY 1; POP_JUMP_IF_X L; POP_TOP; <right>; L:
        ins = self.ins[i]
        if ins.argval != 1 or i + 2 >= self.n:
            return False
        nxt = self.ins[i + 1]
        return (
            nxt.op in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
            and nxt.target is not None
            and nxt.target > i + 2
            and self.ins[i + 2].op == "POP_TOP"
        )

    def do_copy_boolop(self, i: int, stack: list) -> int:
        jump = self.ins[i + 1]
        left = self.as_expr(stack.pop(), jump)
        L = jump.target
        if _is_chain_link(left, stack) and jump.op == "POP_JUMP_IF_FALSE":
            return self.do_chain(left, stack, i + 3, L, jump)
        stmts, st, resume = self._boolop_operand(i + 3, L, stack)
        op = ast.And() if jump.op == "POP_JUMP_IF_FALSE" else ast.Or()
        chain = _chained_compare(left, None, stack) if op.__class__ is ast.And else None
        if chain is not None and not stmts and len(st) == len(stack) and isinstance(st[-1], ast.expr):
            pass
        if stmts or len(st) != len(stack) + 1:
            # chained comparison whose true branch ends in a duplicated tail
            r = self._chain_with_tail(i, left, stack, L)
            if r is not None:
                return r
            raise self.fail("and/or operand is not an expression", jump)
        right = self.as_expr(st[-1], jump)
        chain = _chained_compare(left, right, stack)
        if chain is not None:
            stack.pop()
            stack.append(chain)
            return self._after_chain_cleanup(L, stack, jump)
        stack.append(_boolop(op, left, right))
        return resume

    def _next(self, j: int) -> int:
        """Where control continues when the jump at ``j`` is not taken."""
        return self.fallthrough.get(j, j + 1)

    def apply(self, ins: Instr, stack: list) -> None:
        """Run the opcode handler of ``ins`` on ``stack`` (no control flow)."""
        handler = self._op_handlers.get(ins.op)
        if handler is None:
            raise self.fail("unsupported opcode", ins)
        handler(self, ins, stack)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._op_handlers = _op_handlers(cls)

    def _same_code(self, a: int, b: int, n: int) -> bool:
        if b + n > self.n:
            return False
        for k in range(n):
            x, y = self.ins[a + k], self.ins[b + k]
            if (x.op, _key(x.argval)) != (y.op, _key(y.argval)):
                return False
            if (x.target is None) != (y.target is None) or (
                x.target is not None and x.target - a != y.target - b and x.target != y.target
            ):
                return False
        return True

    # ------------------------------------------------------------ stores
    def store(self, target: ast.expr, stack: list, ins: Instr) -> None:
        if not stack:
            raise self.fail("store with an empty stack", ins)
        value = stack.pop()
        if isinstance(value, V.UnpackSlot):
            self._store_slot(value, target, stack, ins)
            return
        if isinstance(value, V.ForItem):
            for lp in reversed(self.loops):
                if lp.item is value:
                    lp.target = target
                    return
            raise self.fail("loop item stored outside its loop", ins)
        if isinstance(value, V.SavedLocal):
            return  # 3.12+ comprehension restoring a shadowed local
        if isinstance(target, ast.Name) and (
            (target.id == "__classdict__" and isinstance(value, V.ClassNamespace))
            or (
                target.id == "__classdictcell__"
                and isinstance(value, ast.Name)
                and value.id == "__classdict__"
            )
        ):
            return  # 3.12+: a class body keeps its namespace for its annotation scopes
        # 3.14+: a class or module body's compiler-made __annotate__ function is kept for
        # class_body / module_body, which write its annotations where they ran
        slot = _ANNOTATE_SLOTS.get((getattr(target, "id", None), getattr(self, "mode", None)))
        if (
            slot is not None
            and isinstance(value, V.FunctionValue)
            and value.code.co_name == "__annotate__"
        ):
            setattr(self, slot, value.code)
            return
        if (
            isinstance(target, ast.Name)
            and target.id == "__conditional_annotations__"
            and isinstance(value, ast.Set)
            and not value.elts
            and getattr(self, "mode", None) in ("module", "class")
        ):
            # 3.14+: the set in which the scope records which annotations ran
            self.module_records_annotations = True
            return
        if isinstance(value, V.TypeAliasValue):
            if not (isinstance(target, ast.Name) and target.id == value.name):
                raise self.fail(f"type alias {value.name} stored as another name", ins)
            node = ast.TypeAlias(  # type: ignore[attr-defined] - 3.12+, where it is made
                name=ast.Name(id=value.name, ctx=ast.Store()),
                type_params=value.type_params,
                value=value.value,
            )
            self.emit(node)
            return
        if isinstance(value, V.ImportedModule):
            self._store_import(value, target, ins)
            return
        if isinstance(value, V.ImportedName):
            mod = value.module
            if mod.fromlist in (None, ()) or "." in value.name:
                # import a.b.c as d
                if mod.level or not isinstance(target, ast.Name):
                    raise self.fail("unrecognized import", ins)
                self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=target.id)])))
                mod.done = True
                return
            value.module.names.append(
                ast.alias(name=value.name, asname=None if target.id == value.name else target.id)
            )
            return
        if isinstance(value, V.FunctionValue):
            if self._store_function(value, target, ins):
                return
        if isinstance(value, InPlace):
            place = augmented_target(value, store_ctx(target))
            self.emit(ast.AugAssign(target=place, op=value.op, value=value.value))
            return
        # `a = b = value`: the same object is still on the stack
        if V.holds(stack, value):
            self.assign_chains.setdefault(id(value), (value, []))[1].append(target)
            return
        targets = self.assign_chains.pop(id(value), (None, []))[1] + [target]
        if len(targets) == 1 and (
            self.parallel or (self._more_values_pending(stack) and self._parallel_ahead(ins, stack))
        ):
            # `a, b = b, a`: several values pushed, then stored one by one
            self.parallel = (self.parallel or []) + [(value, target)]
            if self._more_values_pending(stack):
                return
            pairs = sorted(self.parallel, key=lambda p: getattr(p[0], "_seq", 0))
            self.parallel = None
            self.emit(
                ast.Assign(
                    targets=[ast.Tuple(elts=[store_ctx(t) for _, t in pairs], ctx=ast.Store())],
                    value=ast.Tuple(elts=[self.as_expr(v, ins) for v, _ in pairs], ctx=ast.Load()),
                    lineno=0,
                )
            )
            return
        self.emit(ast.Assign(targets, self.as_expr(value, ins), lineno=0))

    def _parallel_ahead(self, ins: Instr, stack: list) -> bool:
        """Are the values left on the stack stored by the instructions that follow
        (`a, b = b, a`), with nothing but store targets built in between?"""
        need = sum(map(isinstance, stack[self.cur_base :], repeat(ast.expr)))  # (values, no frame each)
        extra = 0
        for j in range(ins.index + 1, self.n):
            op = self.ins[j].op
            if op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CONST"):
                extra += 1
            elif op == "LOAD_ATTR" and extra >= 1:
                pass
            elif op == "BINARY_SUBSCR" and extra >= 2:
                extra -= 1
            elif op in ("SWAP", "ROT_THREE", "ROT_FOUR") and extra == 0:
                pass
            elif op in ("STORE_FAST", "STORE_GLOBAL", "STORE_NAME", "STORE_DEREF") and extra == 0:
                need -= 1
            elif op == "STORE_ATTR" and extra == 1:
                extra, need = 0, need - 1
            elif op == "STORE_SUBSCR" and extra == 2:
                extra, need = 0, need - 1
            elif op == "UNPACK_SEQUENCE" and extra == 0:
                need += self.ins[j].arg - 1  # `(a, b), c = x, y`: one value, several stores
            elif op == "UNPACK_EX" and extra == 0:
                need += (self.ins[j].arg & 0xFF) + (self.ins[j].arg >> 8)
            else:
                return False
            if need == 0:
                return extra == 0
        return False

    def _more_values_pending(self, stack: list) -> bool:
        return len(stack) > self.cur_base and isinstance(stack[-1], ast.expr)

    def _store_import(self, mod: V.ImportedModule, target: ast.expr, ins: Instr) -> None:
        if mod.fromlist not in (None, ()):
            raise self.fail("store of a from-import module", ins)
        top = mod.name.split(".")[0]
        if not isinstance(target, ast.Name):
            raise self.fail("import stored to a non-name", ins)
        if target.id == top and mod.level == 0:
            self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=None)])))
        else:
            if mod.level:
                raise self.fail("relative plain import", ins)
            self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=target.id)])))

    def note_unpack(self, group: V.UnpackGroup) -> None:
        group.block = self.block
        group.after = self.block[-1] if self.block else None

    def unpacked_value(self, slot: V.UnpackSlot, ins: Instr | None) -> ast.expr:
        """An unpacked value used as an expression, not stored (Dynamo does this: `(x,) = f()`
        kept on the stack): the unpacking is written where it ran, into temporaries for the
        values not stored yet, and the value is its temporary."""
        group = slot.group
        if group.names is None:
            if group.parent is not None or group.block is not self.block:
                raise self.fail("cannot use UnpackSlot as an expression", ins)
            at = 0
            if group.after is not None:
                at = next((k + 1 for k, st in enumerate(self.block) if st is group.after), None)
                if at is None:
                    raise self.fail("cannot use UnpackSlot as an expression", ins)
            group.names = []
            elts = []
            for k, t in enumerate(group.targets):
                if t is not None:  # stored already: written in place, as the unpacking would
                    group.names.append(None)
                    elts.append(store_ctx(t))
                    continue
                tmp = f"__pellucid_tmp{self.spilled}"
                self.spilled += 1
                group.names.append(tmp)
                t = name(tmp, ast.Store())
                elts.append(ast.Starred(value=t, ctx=ast.Store()) if group.star_index == k else t)
            value = self.as_expr(group.source, ins)
            target = ast.Tuple(elts=elts, ctx=ast.Store())
            self.block.insert(at, ast.Assign(targets=[target], value=value, lineno=0))
        if group.names[slot.index] is None:
            raise self.fail("unpacked value used after it was stored", ins)
        ref = name(group.names[slot.index])
        ref.is_spill = True
        return ref

    def _store_slot(self, slot: V.UnpackSlot, target: ast.expr, stack: list, ins: Instr) -> None:
        group = slot.group
        if group.names is not None:  # unpacked into temporaries already
            if group.targets[slot.index] is not None:
                raise self.fail("unpacked value stored twice", ins)
            group.targets[slot.index] = target
            self.emit(ast.Assign(targets=[store_ctx(target)], value=self.unpacked_value(slot, ins), lineno=0))
            return
        if group.star_index == slot.index:
            target = ast.Starred(value=target, ctx=ast.Store())
        group.targets[slot.index] = target
        if not group.complete():
            return
        tup = ast.Tuple(elts=[store_ctx(t) for t in group.targets], ctx=ast.Store())
        if group.parent is not None:
            self._store_slot(group.parent, tup, stack, ins)
            return
        src = group.source
        if isinstance(src, V.ForItem):
            stack.append(src)
            self.store(tup, stack, ins)
            return
        stack.append(src)
        self.store(tup, stack, ins)

    def _store_function(self, fv: V.FunctionValue, target: ast.expr, ins: Instr) -> bool:
        raise NotImplementedError

    def build_comprehension(self, acc: V.Accumulator, node: ast.For, ins: Instr) -> ast.expr:
        raise NotImplementedError


# 3.13 forms these after copying blocks: they count as the two they were
_FORMED_AFTER_COPIES = frozenset(
    {"RETURN_CONST", "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"}
)


def _key(v: Any) -> Any:
    return (type(v).__name__, repr(v))


_UNSUPPORTED = {
    "SETUP_ASYNC_WITH": "async with is not supported yet",
    "BEFORE_ASYNC_WITH": "async with is not supported yet",
}


# Globals that torch.compile (Dynamo) installs for its generated code and no user code writes.
_DYNAMO_OWNED = ("__compiled_fn_", "__resume_at_", "__import_")
_NAME, _CONSTANT, _TUPLE, _SLICE = ast.Name, ast.Constant, ast.Tuple, ast.Slice  # (spill)
_STORE = ast.Store()  # (one for every temporary: contexts carry nothing)

_MUTABLE_DISPLAYS = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


def _op_handlers(cls: type) -> dict[str, Any]:
    """Opcode name -> the ``op_<name>`` method of ``cls`` (looked up once per class, not
    once per instruction)."""
    return {attr[3:]: getattr(cls, attr) for attr in dir(cls) if attr.startswith("op_")}


Walker._op_handlers = _op_handlers(Walker)


def _stored_names(node: ast.AST) -> set[str]:
    """Names bound anywhere in ``node`` (targets, walrus, comprehension variables):
    what ``ast.walk`` finds, without its generators (spill asks at most statements)."""
    out = set()
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        t = type(n)
        if t is _NAME:
            if type(n.ctx) is not _LOAD_CTX:
                out.add(n.id)
            continue
        fields = _FIELDS_BELOW.get(t)
        if fields is None:
            if not isinstance(n, ast.AST):
                continue  # (a list's str, None or number)
            fields = _FIELDS_BELOW[t] = tuple(f for f in t._fields if f != "ctx")
        for f in fields:
            v = getattr(n, f, None)
            if type(v) is list:
                extend(v)
            elif v is not None:
                push(v)
    return out


# node type -> its fields but ``ctx`` (a context holds no names): _stored_names' walk
_FIELDS_BELOW: dict[type, tuple[str, ...]] = {}
_LOAD_CTX = ast.Load


def _same_constants(values: list[Any]) -> bool:
    """Are all ``values`` constants of one type and value (``0`` is not ``False`` or ``0.0``,
    ``0.0`` is not ``-0.0``)?"""
    if not all(type(v) is _CONSTANT for v in values):
        return False
    key = (type(values[0].value), repr(values[0].value))
    return all((type(v.value), repr(v.value)) == key for v in values)


def _pure(e: ast.expr, stable: set[str]) -> bool:
    """An expression whose value cannot depend on when it is evaluated
    (mutable displays are excluded: their identity matters)."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return getattr(e, "is_spill", False) or (
            e.id in stable and not getattr(e, "may_be_unbound", False)
        )
    if isinstance(e, ast.Tuple):
        return all(_pure(x, stable) for x in e.elts)
    return False


def _has_slice(e: ast.expr) -> bool:
    return isinstance(e, ast.Slice) or (
        isinstance(e, ast.Tuple) and any(isinstance(x, ast.Slice) for x in e.elts)
    )


def _slice_parts(e: ast.expr) -> list[ast.expr]:
    """The values a slice (or a tuple of subscripts holding slices) is made of."""
    if isinstance(e, ast.Slice):
        return [x for x in (e.lower, e.upper, e.step) if x is not None]
    if isinstance(e, ast.Tuple):
        return [p for x in e.elts for p in _slice_parts(x)]
    return [e]


def _with_parts(e: ast.expr, done: dict[int, ast.Name]) -> ast.expr:
    """``e`` with the parts saved to temporaries replaced by them (see _slice_parts)."""
    if isinstance(e, ast.Slice):
        new = ast.Slice(*(None if x is None else _with_parts(x, done) for x in (e.lower, e.upper, e.step)))
    elif isinstance(e, ast.Tuple):
        new = ast.Tuple(elts=[_with_parts(x, done) for x in e.elts], ctx=e.ctx)
    else:
        return done.get(id(e), e)
    if hasattr(e, "_seq"):
        new._seq = e._seq
    return new


def _is_value(v: Any) -> bool:
    """A real expression (not a marker, not half of an augmented assignment)."""
    return isinstance(v, ast.expr) and not isinstance(v, InPlace)


def _is_arm_value(v: Any) -> bool:
    """An arm of a conditional expression: an expression, or a function MAKE_FUNCTION made
    (a lambda, which only a store would turn into a def)."""
    return _is_value(v) or type(v) is V.FunctionValue


_INVERSE_CMP = (
    {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
    if JUMPS_FOLD_NOT_INTO_COMPARE
    else {}
)


def _negate(e: ast.expr) -> ast.expr:
    """Logical negation as CPython folds it (`not a is b` is `a is not b`)."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _INVERSE_CMP:
        flipped = ast.Compare(
            left=e.left, ops=[_INVERSE_CMP[type(e.ops[0])]()], comparators=e.comparators
        )
        flipped.flipped = not getattr(e, "flipped", False)
        return flipped
    return ast.UnaryOp(op=ast.Not(), operand=e)


def _negate_test(e: ast.expr) -> ast.expr:
    """Negation of a test whose value only steers a jump (an assert's): `not (not a or not
    b)` is `a and b` there, and compiles to the same jumps."""
    if isinstance(e, ast.BoolOp) and all(isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not) for v in e.values):
        op = ast.And() if isinstance(e.op, ast.Or) else ast.Or()
        return ast.BoolOp(op=op, values=[v.operand for v in e.values])
    return _negate(e)


def _flips(e: ast.expr) -> int:
    """`is`/`in` tests whose operator the jumps' polarity inverted."""
    return sum(1 for n in ast.walk(e) if getattr(n, "flipped", False))


def _build_test(chain: list[Block], hi: int, t_true: int, t_false: int, starts: list[int]):
    """The chain's test, as `not (...)` when that keeps the `is`/`in` operators
    the bytecode has (`not (a is b and c is d)`, not De Morgan's form)."""
    expr = _build(chain, 0, hi, t_true, t_false, starts)
    if expr is None or hi < 2 or not _flips(expr):
        return expr
    alt = _build(chain, 0, hi, t_false, t_true, starts)
    if alt is not None and isinstance(alt, ast.BoolOp) and _flips(alt) < _flips(expr):
        return ast.UnaryOp(op=ast.Not(), operand=alt)
    return expr


def _boolop(op: ast.boolop, left: ast.expr, right: ast.expr) -> ast.BoolOp:
    values = []
    for v in (left, right):
        if isinstance(v, ast.BoolOp) and type(v.op) is type(op) and v is right:
            values.extend(v.values)
        else:
            values.append(v)
    return ast.BoolOp(op=op, values=values)


def _chained_compare(left: ast.expr, right: ast.expr | None, stack: list) -> ast.Compare | None:
    """``a < b < c``: left is Compare(a, b) whose last operand is also on the stack."""
    if not (isinstance(left, ast.Compare) and stack):
        return None
    shared = stack[-1]
    if left.comparators[-1] is not shared:
        return None
    if right is None or not isinstance(right, ast.Compare) or right.left is not shared:
        return None
    return ast.Compare(
        left=left.left, ops=left.ops + right.ops, comparators=left.comparators + right.comparators
    )


def _has_ifexp(e: ast.expr) -> bool:
    return any(isinstance(n, ast.IfExp) for n in ast.walk(e))


def _exits(b: Block) -> tuple[int, ...]:
    return (b.target,) if b.fall is None else (b.target, b.fall)


def _build(chain: list[Block], lo: int, hi: int, t_true: int, t_false: int, starts: list[int]):
    """Rebuild the boolean expression of chain[lo:hi] whose exits are t_true/t_false."""
    if hi - lo == 1:
        b = chain[lo]
        fall = starts[hi] if b.fall is None else b.fall
        if b.when:
            exits = (b.target, fall)
        else:
            exits = (fall, b.target)
        if exits == (t_true, t_false):
            return b.expr
        if exits == (t_false, t_true):
            return _negate(b.expr)
        return None
    for k in range(lo + 1, hi):
        inner = set(starts[lo + 1 : k])
        sk = starts[k]
        outs = {t for m in range(lo, k) for t in _exits(chain[m]) if t not in inner and t != sk}
        if len(outs) != 1:
            continue
        (x,) = outs
        if x == t_false:
            left = _build(chain, lo, k, sk, t_false, starts)
            if left is None:
                continue
            right = _build(chain, k, hi, t_true, t_false, starts)
            if right is None:
                continue
            return _boolop(ast.And(), left, right)
        if x == t_true:
            left = _build(chain, lo, k, t_true, sk, starts)
            if left is None:
                continue
            right = _build(chain, k, hi, t_true, t_false, starts)
            if right is None:
                continue
            return _boolop(ast.Or(), left, right)
    return _build_ternary(chain, lo, hi, t_true, t_false, starts)


def _build_ternary(chain: list[Block], lo: int, hi: int, t_true: int, t_false: int, starts: list[int]):
    """`x if c else y` as a test: c picks an arm, and each arm jumps to the
    test's own exits; the first arm ends in a jump over the second."""
    for m in range(lo + 2, hi):
        if chain[m - 1].fall not in (t_true, t_false):
            continue
        for k in range(lo + 1, m):
            test = _build(chain, lo, k, starts[k], starts[m], starts)
            if test is None:
                continue
            body = _build(chain, k, m, t_true, t_false, starts)
            orelse = _build(chain, m, hi, t_true, t_false, starts) if body is not None else None
            if orelse is not None:
                return ast.IfExp(test=test, body=body, orelse=orelse)
    return None


def restore_final_else(body: list[ast.stmt]) -> None:
    """The code ended in `if ...: <terminal> else: <rest>`; put the else back.

    3.9 keeps the (dead) jump over an else after a raise, so an if ending in a
    raise that came back without an else had none."""
    terminal = (ast.Return,) if TABLE.keeps_dead_jumps else (ast.Return, ast.Raise)
    for k in range(len(body) - 2, -1, -1):
        node = body[k]
        if isinstance(node, ast.If) and not node.orelse and isinstance(node.body[-1], terminal):
            node.orelse = body[k + 1 :]
            del body[k + 1 :]
            return


def _explicit(node: ast.stmt) -> ast.stmt:
    node.explicit = True
    return node


def _falls_off(body: list[ast.stmt]) -> bool:
    """Can control fall off the end of the block?  Conservative: True unless its last
    statement leaves on every path (a jump, or an if/try all of whose ways out jump), so
    that a statement appended for the fall-through is at worst dead."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return False
    if isinstance(last, ast.If):
        return _falls_off(last.body) or _falls_off(last.orelse)
    if isinstance(last, ast.Try):
        if last.finalbody and not _falls_off(last.finalbody):
            return False
        body_goes_on = _falls_off(last.body) and _falls_off(last.orelse)
        return body_goes_on or any(_falls_off(hd.body) for hd in last.handlers)
    return True


def _trim_continue(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[-1], ast.Continue) and not getattr(body[-1], "explicit", False):
        body = body[:-1]
    return body or [ast.Pass()]
