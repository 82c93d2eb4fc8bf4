"""Condition chains: the conditional jumps of one test, and where its true and false exits are.

``a and (b or c)`` compiles to one jump per operand.  :meth:`ConditionOps.condition_chain`
collects the tests that follow one another (an arm of a conditional expression used as a
test ends in a jump over the next arm, or, 3.10+, in a copy of a small return block) and
finds the longest prefix whose jumps leave for exactly two places: T, the fall-through, and
F, the false exit.  The expression itself is rebuilt by :mod:`.build`.
"""

from __future__ import annotations

import ast
import bisect

from pellucid.decompiler.decode import decode
from pellucid.decompiler.errors import DecompilationError
from pellucid.decompiler.evaluate import const
from pellucid.decompiler.instructions import TABLE, TERMINAL
from pellucid.decompiler.regions.build import Block, _build_test, _exits, _has_ifexp
from pellucid.decompiler.regions.chains import _NONE_JUMPS

EMPTY_IF = -1  # the false exit of `if <test>: pass`, which is where the true exit goes


def _retarget(chain: list, old: set[int], new: int) -> None:
    """Point the chain's jumps and falls into ``old`` (copies of one block) at ``new``."""
    for b in chain:
        if b.target in old:
            b.target = new
        if b.fall in old:
            b.fall = new


class ConditionOps:
    """Walker mixin: condition chains, read into one test with a true and a false exit."""

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
        blocks, falls, copies, arm_jumps, folded, entered, jump_arms = self._scan_chain(j, first, stack, start)
        for size in range(len(blocks), 0, -1):
            if size - 1 in jump_arms:
                # (a chain ending before a jump arm: read as one with a falsy arm, see below)
                del folded[size - 1]
            # the arms' copied bodies must be copies of what follows this chain: checked before
            # the chain is built, so that a long elif chain of returns stays quadratic, not cubic
            T = folded.get(size - 1, self._next(blocks[size - 1].jump))
            falsy = self._falsy_arm_copy(blocks[:size], falls, copies, folded)
            if falsy is not None:
                T = falsy[2]
            used = self._copies_of(T, size, falls, copies)
            if used is None:
                continue
            # (a test that jumps back is a loop's, copied to its bottom: no arm of a test)
            forward = all(b.target > b.jump for b in blocks[:size])
            # a test before a copy that jumps straight to T, past it: no two ifs share one body
            # (the copy stands for a jump to T, the end of a conditional expression's constant arm)
            to_T = min((b.jump for b in blocks[: size - 1] if b.target == T), default=self.n)
            # whether each block's fall is the jump that ends a conditional expression's arm
            arm_ends = [
                forward
                and (n in folded or (n < size - 1 and (n in entered if n not in copies else to_T < b.jump)))
                for n, b in enumerate(blocks[:size])
            ]
            chain = [
                Block(
                    b.expr,
                    b.when,
                    # a test of an arm jumping to the arm's closing jump goes where it goes
                    arm_jumps.get(b.target, b.target) if b.target < blocks[size - 1].start else b.target,
                    b.start,
                    b.jump,
                    falls.get(n, folded.get(n)) if n < size - 1 else folded.get(n),
                    arm_ends[n],
                    forward and n in folded,
                )
                for n, b in enumerate(blocks[:size])
            ]
            if falsy is not None:
                copy, real, _ = falsy
                for b in chain:
                    if b.target == copy:
                        b.target = real
                last = chain[-1]
                last.fall, last.jumps, last.folded = T, forward, forward
            for n, b in enumerate(chain):
                if n in copies and b.fall is not None:
                    b.fall = T
            starts = [b.start for b in chain]
            outside = {t for b in chain for t in _exits(b) if t not in starts[1:] and t != T}
            if len(outside) > 1:
                merged = self._merge_exit_copies(outside, T)
                if merged is not None:
                    _retarget(chain, outside, merged)
                    outside = {merged}
            cleanup_copy = self._chain_cleanup_copy(outside, T, starts[0]) if len(outside) == 2 else None
            if cleanup_copy is not None:
                # 3.10+: a chained comparison's clean-up falls into a copy of the block at T
                # (its last link's jump was inverted over T): that copy is T
                _retarget(chain, {cleanup_copy[0]}, T)
                outside = outside - {cleanup_copy[0]}
            if not outside and chain[-1].target == T and not used:
                # `if a or b: pass`: every exit is T; the last test's jump is
                # the (empty) false exit
                chain = list(chain)
                last = chain[-1]
                chain[-1] = Block(last.expr, last.when, EMPTY_IF, last.start, last.jump, last.fall, last.jumps, last.folded)
                expr = _build_test(chain, size, T, EMPTY_IF, starts + [T])
                if expr is not None:
                    self.last_chain = (chain, starts + [T])
                    return expr, T, EMPTY_IF
                continue
            if len(outside) != 1:
                continue
            (F,) = outside
            if self._else_pass_between(chain, F):
                continue
            expr = _build_test(chain, size, T, F, starts + [T])
            if expr is not None and any(b.fall is not None for b in chain) and not _has_ifexp(expr):
                # an arm's jump or copied body read as an and/or: two `if`s
                # sharing a body, not one test
                expr = None
            if expr is not None:
                copied = [range(c, c + n) for c, n in used]
                if cleanup_copy is not None:
                    copied.append(range(cleanup_copy[0] - 1, sum(cleanup_copy)))
                if falsy is not None:
                    copied.append(range(falsy[0], T))
                copied.extend(range(k, k + 1) for n, k in jump_arms.items() if n < size - 1)
                for i in (q for r in copied for q in r):
                    self.reachable[i] = False  # (read once, as this test)
                self.last_chain = (chain, starts + [T])
                return expr, T, F
        return None

    def _scan_chain(
        self, j: int, first: ast.expr, stack: list, start: int
    ) -> tuple[list[Block], dict[int, int], dict[int, int], dict[int, int], dict[int, int], set[int], dict[int, int]]:
        """The tests of the chain starting with ``first`` at ``j``, with what lies between
        them: (blocks, falls, copies, arm_jumps, folded, entered, jump_arms), as
        condition_chain uses them (jump_arms: block -> its folded constant arm's jump)."""
        blocks = [self._block(first, j, start)]
        k = self._next(j)
        falls: dict[int, int] = {}
        copies: dict[int, int] = {}
        arm_jumps: dict[int, int] = {}  # where an arm's closing jump is -> where it goes
        folded: dict[int, int] = {}  # block -> where its jump over a folded constant arm goes
        entered: set[int] = set()  # blocks whose jump over the next arm is its only way in
        jump_arms: dict[int, int] = {}
        while k < self.n and self.reachable[k]:
            arm = None
            over = self._arm_jump(k)
            if (
                self.ins[k].op == "JUMP"
                and self.ins[k].target == k + 1
                and len(blocks) >= 2
                and blocks[-1].target != k + 1  # (not `if t: pass` / `else: pass`)
            ):
                # `c if c else 1` as a test: the constant arm the jump goes over is folded
                # away (see _build_ternary)
                folded[len(blocks) - 1] = arm_jumps[k] = k + 1
                k += 1
            elif over is not None:
                falls[len(blocks) - 1] = over
                arm_jumps[k] = over
                # an arm's start is entered from the test only (not a loop's test copy that
                # the body's other paths reach too)
                if all(blocks[0].start <= q < k for q in self._jumps_to(k + 1, 0, self.n)):
                    entered.add(len(blocks) - 1)
                k = self._past_dead(k + 1)
                arm = self._jump_arm(blocks, k, over)
                if arm is not None:
                    # `a if (c if s else False) else v`: the folded constant arm is a jump
                    # to the exit its truth picks, and the chain goes on past it
                    folded[len(blocks) - 1] = over
                    arm_jumps[k] = arm
                    jump_arms[len(blocks) - 1] = k
                    k = over
            elif (size := self._arm_copy(k)) is not None:
                # 3.10+ copy a small `return` body onto the end of the first arm
                if copies and not self._same_copy(falls, copies, k, size):
                    # every copied body of a chain is a copy of the code after it, and this
                    # one differs from the first: no longer chain can hold both (an elif
                    # chain of different returns), so the scan stops here, keeping it linear
                    break
                falls[len(blocks) - 1] = k
                copies[len(blocks) - 1] = size
                k = self._past_dead(k + size)
            test = None if k in self.latch else self._next_test(k, stack)
            # (a loop's head, 3.9's `while` tests at its top: the loop starts there, not
            # another test of this chain; `if c: while d:` jumps where the loop exits)
            if test is None:
                if arm is not None:
                    # (no test after the jump arm: it is no arm inside this chain)
                    del folded[len(blocks) - 1], arm_jumps[jump_arms.pop(len(blocks) - 1)]
                break
            e, jj = test
            blocks.append(self._block(e, jj, k))
            k = self._next(jj)
        return blocks, falls, copies, arm_jumps, folded, entered, jump_arms

    def _jump_arm(self, blocks: list[Block], k: int, over: int) -> int | None:
        """Where the jump at ``k`` goes when it is a folded constant arm inside the chain
        (3.10+ keep it: `c if s else False` as a test inside a test): the first arm's jump
        at k - 1 goes over it alone, only the chain's tests enter it, and it goes forward to
        an exit a test of the chain jumps to.  None when it is not such an arm."""
        ins = self.ins[k]
        if ins.op != "JUMP" or not (ins.target is not None and ins.target > over) or self._past_dead(k + 1) != over:
            return None
        tests = {b.jump for b in blocks}
        into = self._jumps_to(k, 0, self.n)
        if not into or not into <= tests or not any(b.target == ins.target for b in blocks):
            return None
        return ins.target

    def _next_test(self, k: int, stack: list) -> tuple[ast.expr, int] | None:
        """The next test of a chain, read at k: (expression, index of its jump), or None when
        the code at k is no test.  (A trial: what its walk read, such as the copies an and/or
        took for its jumps, is given back when it is no test, for the walk that comes there.)"""
        reachable = list(self.reachable)
        try:
            stmts, st = self.walk(k, self.n, list(stack), frozenset(), until_cond=True)
        except DecompilationError:
            self.reachable[:] = reachable
            return None
        if stmts:
            self.reachable[:] = reachable
            return None
        jj = st.pop()
        e = self.as_expr(st.pop(), self.ins[jj])
        if len(st) != len(stack) or any(a is not b for a, b in zip(st, stack)):
            self.reachable[:] = reachable
            return None
        return e, jj

    def _else_pass_between(self, chain: list[Block], F: int) -> bool:
        """Do the chain's jumps to F land on two offsets with only line NOPs between them (an
        inner if's `else: pass`, which normalization dropped)?  Then they are two ifs, the
        inner one's false exit that else: not one test."""
        if not 0 <= F < self.n:
            return False
        at = self.ins[F].offset
        offsets = {self.ins[b.jump].argval for b in chain if self.ins[b.jump].target == F}
        if at not in offsets:
            return False
        if not hasattr(self, "_raw_ops"):
            raw = decode(self.code)
            self._raw_ops = ([r.offset for r in raw], [r.opname for r in raw])
        offs, ops = self._raw_ops
        return any(
            isinstance(o, int)
            and o < at
            and all(op == "NOP" for op in ops[bisect.bisect_left(offs, o):bisect.bisect_left(offs, at)])
            for o in offsets
        )

    def _falsy_arm_copy(
        self, blocks: list[Block], falls: dict[int, int], copies: dict[int, int], folded: dict[int, int]
    ) -> tuple[int, int, int] | None:
        """`c if c else None` as a test: the falsy constant arm is folded into a jump to the
        false exit (3.10+ copy a small exit block there), after the first arm's jump over it.
        (that arm, the exit it goes to, T: where the jump over it goes), else None."""
        last = len(blocks) - 1
        if last not in falls or last in copies or last in folded:
            return None
        over = falls[last]
        copy = self._next(blocks[last].jump) + 1
        if not any(b.target == copy for b in blocks[:last]):
            return None  # (the arm the test enters)
        if self.ins[copy].op == "JUMP" and copy + 1 == over:
            # (a large exit: the arm is the jump there)
            real = self.ins[copy].target
            return (copy, real, over) if real > copy and any(b.target == real for b in blocks) else None
        n = self._terminal_len(copy) if TABLE.copies_exit_blocks else None
        if n is None or copy + n != over:
            return None
        for b in blocks:
            if b.target >= over and self._same_code(copy, b.target, n):
                return copy, b.target, over
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
        after = self._past_dead(k + 1)
        if not (after < ins.target and self.reachable[after] and self._is_target(after)):
            return None
        return ins.target

    def _arm_copy(self, k: int) -> int | None:
        """Size of a copied small body (a return or raise) at ``k`` ending a ternary arm
        (3.10+): the code after it must be another arm (something jumps there)."""
        size = self._terminal_len(k) if TABLE.copies_exit_blocks else None
        if size is None or k + size >= self.n:
            return None
        after = self._past_dead(k + size)
        if not (after < self.n and self.reachable[after] and self._is_target(after)):
            return None
        return size

    def _past_dead(self, k: int) -> int:
        """The first reachable instruction from ``k``: a chained comparison in the arm may
        have claimed its clean-up (and the copied exit block it falls into) laid out there."""
        while k < self.n and not self.reachable[k]:
            k += 1
        return k

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
