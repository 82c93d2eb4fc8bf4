"""What every opcode handler relies on: popping values as expressions, and the hooks the
walker fills in (``fail``, ``emit``, ``store``, ...).

The handler mixins of this package all derive from :class:`EvaluatorBase`; the walker
(:mod:`structure`) overrides the hooks.
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import DecompilationError, Refusal
from pellucid.decompiler.evaluate.nodes import (
    ClosureTuple,
    cell_of,
    is_plain_expr,
    name,
    named_code_constant,
)
from pellucid.decompiler.instructions import Instr


class EvaluatorBase:
    """Helpers of the opcode handlers.  Subclasses provide ``emit``, ``fail`` and the code."""

    code: Any
    loop_items: dict

    def fail(self, reason: str, ins: Instr | None = None, *, kind: Refusal) -> DecompilationError:
        raise NotImplementedError

    def emit(self, stmt: ast.stmt) -> None:
        raise NotImplementedError

    def pop_expr(self, stack: list, ins: Instr) -> ast.expr:
        if not stack:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        v = stack.pop()
        return self.as_expr(v, ins)

    def as_expr(self, v: Any, ins: Instr | None) -> ast.expr:
        if is_plain_expr(v):
            return v
        if isinstance(v, ast.FormattedValue):
            return ast.JoinedStr(values=[v])
        if getattr(v, "is_cell", False) and (v.id != "__class__" or self.code.co_flags & 0x1):
            # (a class body's own __class__ cell has its own idiom, __classcell__)
            return cell_of(v.id)
        if isinstance(v, ast.expr):
            return v
        if isinstance(v, V.FunctionValue):
            return self.function_value_expr(v, ins)
        if isinstance(v, ClosureTuple):  # it was a tuple of names after all
            return ast.Tuple(elts=[name(n) for n in v.names], ctx=ast.Load())
        if isinstance(v, V.UnpackSlot):
            return self.unpacked_value(v, ins)
        raise self.fail(f"cannot use {type(v).__name__} as an expression", ins, kind=Refusal.STACK)

    def function_value_expr(self, v: V.FunctionValue, ins: Instr | None) -> ast.expr:
        """A function made by MAKE_FUNCTION used as a value (ClassOps: a class body's)."""
        named = named_code_constant(v)
        return named if named is not None else self.function_expr(v, ins)

    def pop_n(self, stack: list, n: int, ins: Instr) -> list[ast.expr]:
        if n == 0:
            return []
        if len(stack) < n:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        items = stack[-n:]
        del stack[-n:]
        return [self.as_expr(v, ins) for v in items]

    # -- hooks the walker fills in
    def function_expr(self, fv: V.FunctionValue, ins: Instr | None) -> ast.expr:
        raise NotImplementedError

    def materialize(self, stack: list) -> None:
        """Save pending stack values to temporaries (see Walker.spill)."""

    def store(self, target: ast.expr, stack: list, ins: Instr) -> None:
        raise NotImplementedError

    def unpacked_value(self, slot: V.UnpackSlot, ins: Instr | None) -> ast.expr:
        raise self.fail("cannot use UnpackSlot as an expression", ins, kind=Refusal.STACK)
