"""Chained comparisons (``a < b < c``): evaluating an operand after the first link.

Every link after the first compares the value the previous link kept (a copy of its right
operand, the *shared* value) with the next operand.  That operand is any expression: a
ternary, an and/or, a comparison, a lambda or a comprehension, so its code may hold jumps
of its own.  It ends at the instruction that consumes the shared value (the link's
comparison), which is where control flow of the operand has joined again.  Straight code is
run opcode by opcode; an operand with jumps is structured by the walker, which stops as soon
as the shared value is gone from the stack.
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.errors import DecompilationError


class ChainOps:
    """Walker mixin: evaluate the operands of a chained comparison's later links."""

    def chain_operand(self: Any, i: int, stack: list, shared: Any, stop: int, at: Any) -> int:
        """Run from ``i`` on ``stack`` until no value on it is ``shared``; return where.

        ``stop`` bounds the operand (the links' clean-up); a statement inside it refuses,
        reported at ``at``."""
        saved, self.block = self.block, []
        try:
            while any(x is shared for x in stack):
                if i >= stop:
                    raise self.fail("chained comparison operand not found", at)
                if self.operand_jumps_at(i, stack):
                    i = self._structured_operand(i, stack, shared, stop, at)
                    continue
                self.apply(self.ins[i], stack)
                i += 1
            if self.block:
                raise self.fail("statement inside a chained comparison", at)
        finally:
            self.block = saved
        return i

    def operand_jumps_at(self: Any, i: int, stack: list) -> bool:
        """Whether control flow starts at ``i``: a jump, or 3.12+'s and/or value, which
        begins with the COPY of its left operand."""
        ins = self.ins[i]
        return ins.target is not None or (ins.op == "COPY" and self._is_value_boolop(i, stack))

    def _structured_operand(self: Any, i: int, stack: list, shared: Any, stop: int, at: Any) -> int:
        """The rest of an operand holding jumps (a ternary, an and/or, a nested chain)."""
        st = list(stack)
        try:
            stmts, st = self.walk(
                i, stop, st, frozenset(), until=lambda s: not any(x is shared for x in s)
            )
        except DecompilationError as e:
            if getattr(e, "internal", False):
                raise
            raise self.fail("jump inside a chained comparison operand", self.ins[i]) from e
        if stmts or any(x is shared for x in st):
            raise self.fail("jump inside a chained comparison operand", self.ins[i])
        stack[:] = st
        return self.stopped_at
