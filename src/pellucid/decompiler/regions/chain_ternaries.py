"""A conditional expression as the operand of a chained comparison's link, on 3.10 and 3.12+.

The code after the operand (the link's comparison and the small exit block that follows the
chain: a return, a store and a return) is copied into every arm, nested conditional
expressions' arms included, so no arm rejoins another.  Each arm is read up to the first
copy of that tail it reaches with one more value on the stack; the chain's reading then goes
on in the first arm's copy (it stops at the comparison, and checks the rest of the tail
against the copy after its clean-up) and the other arms' copies are dead.
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler.errors import DecompilationError
from pellucid.decompiler.instructions import MAX_COPY_SIZE
from pellucid.decompiler.regions.build import _is_value


class ChainTernaryOps:
    """Walker mixin: conditional expressions whose arms end in a chained comparison's tail."""

    def _chain_tail_ternary(self: Any, expr: ast.expr, T: int, F: int, stack: list, stop: int) -> int | None:
        """``<shared> < (a if expr else b)`` whose arms at T and F end in copies of the tail
        that ends the arm at T (before F).  Where the walk goes on (the first arm's copy), or
        None."""
        base = len(stack)
        # a walk again over the same code (a trial, then the real one) reads the second arm
        # again: it is made reachable as it was before the first reading
        killed = self.__dict__.setdefault("_killed_arms", {})
        for k, was in killed.pop(F, ()):
            self.reachable[k] = was
        for n_s in range(F - T - 1, 1, -1):
            tail_start = F - n_s
            if self._copy_size(tail_start, F) > MAX_COPY_SIZE or self.ins[tail_start].op == "POP_TOP":
                continue
            line = self.ins[tail_start].line
            copies = {
                p for p in range(T, stop - n_s + 1)
                if self.reachable[p] and self.ins[p].line == line and self._same_code(tail_start, p, n_s)
            }

            def at_copy(st: list, copies: set = copies) -> bool:
                return (
                    self.walk_at in copies
                    and len(st) == base + 1
                    and all(x is y for x, y in zip(st, stack))
                )

            reachable = list(self.reachable)  # (a trial: walks may retire exit copies)
            arms = []
            try:
                for lo, hi in ((T, F), (F, stop)):
                    self.stopped_at = None
                    stmts, st = self.walk(lo, stop, list(stack), frozenset(), until=at_copy)
                    p = self.stopped_at
                    if stmts or p is None or not lo <= p < hi or not _is_value(st[-1]):
                        break
                    if self._jumps_into(lo, p, p + 1, p + n_s - 1):
                        break  # an and/or of the arm ends inside the tail: part of its value
                    arms.append((p, st[-1]))
            except DecompilationError as e:
                if getattr(e, "internal", False):
                    raise
            if len(arms) != 2:
                self.reachable[:] = reachable
                continue
            (p_a, a), (p_b, b) = arms
            stack.append(ast.IfExp(test=expr, body=self.as_expr(a, None), orelse=self.as_expr(b, None)))
            killed[F] = [(k, self.reachable[k]) for k in range(F, p_b + n_s)]
            for k in range(F, p_b + n_s):
                self.reachable[k] = False  # the second arm, read, and its copy of the tail
            return p_a
        return None
