"""Unconditional jumps inside loops: ``break``, ``continue`` and a loop's own back edge.

A jump to the enclosing loop's head is a ``continue`` unless it ends the body (the loop's
implicit back edge); a jump to where the loop's breaks go is a ``break``.  The scans here
(jumps out of a range, to a place, into a range) are what the loop and if readings ask of
the instruction stream, and whether a jump back was written or made by the compiler.
"""

from __future__ import annotations

import ast
import dis

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    TABLE,
    TERMINAL,
    Instr,
    same_positions,
)
from pellucid.decompiler.regions.build import _explicit
from pellucid.decompiler.regions.loops import Loop


class JumpOps:
    """Walker mixin: break, continue and the scans of jumps the loop and if readings share."""

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
            if i < t < stop and self._dead_between(i + 1, t):
                # over handler code only to the closing jump back, which is read where it
                # is (a try statement's normal exit ending an if arm that goes round)
                return t
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
            raise self.fail("jump to the end of a block from its middle", ins, kind=Refusal.CONDITION)
        if i < t < stop and self._dead_between(i + 1, t):
            return t  # over handler code only (3.12+ keeps some of it inline)
        raise self.fail(f"unstructured jump to instruction {t}", ins, kind=Refusal.CONDITION)

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
            raise self.fail("a loop's follow is the end of the handler code being read", ins, kind=Refusal.LOOP)

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

    def _conditional_jump_to_end(self, a: int, b: int) -> bool:
        """Does a reachable conditional jump in [a, b) go to b?  In a while body's rest laid out
        past its last jump back, which ends in a return or raise, such a jump is a `break`,
        even where it looks like the join of an if ending the rest (3.14: a `break` through
        finally bodies, merged into the jump past the last copy's `if c: return`): falling off
        the body there leaves the loop, not going round.  (An unconditional jump to b is read
        as a `break` where it is.)"""
        return any(j.target == b and j.op in CONDITIONAL_JUMPS and self.reachable[j.index] for j in self.ins[a:b])

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

    def _jumps_out(self, lo: int, hi: int) -> list[int]:
        """Forward targets >= hi of unconditional jumps in [lo, hi): the break targets."""
        out = []
        for j in range(lo, hi):
            t = self.ins[j].target
            if self.ins[j].op == "JUMP" and t is not None and t >= hi and self.reachable[j]:
                out.append(t)
        return out

    def _jumps_to(self, target: int, lo: int, hi: int) -> set[int]:
        """Indices in [lo, hi) of the jumps that reach ``target``."""
        return {k for k in range(lo, hi) if self.ins[k].target == target}

    def _jumps_into(self, lo: int, hi: int, a: int, b: int) -> bool:
        """Does an instruction in [lo, hi) jump into [a, b]?"""
        return any(
            (t := self.ins[k].target) is not None and a <= t <= b for k in range(lo, hi)
        )
