"""Subscripts and slices: loading, storing and deleting ``x[i]`` and ``x[a:b]``."""

from __future__ import annotations

import ast

from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import LOAD
from pellucid.decompiler.instructions import Instr


class SubscriptOps(EvaluatorBase):
    """Handlers of the subscript and slice opcodes."""

    def op_BINARY_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Subscript(obj, index, LOAD))

    def op_BUILD_SLICE(self, ins: Instr, stack: list) -> None:
        parts = self.pop_n(stack, ins.arg, ins)
        # `x[a:b:None]` keeps its explicit step (BUILD_SLICE 3); bounds fold
        parts = [None if _is_none(p) and k < 2 else p for k, p in enumerate(parts)]
        if ins.arg == 2:
            stack.append(ast.Slice(lower=parts[0], upper=parts[1], step=None))
        else:
            stack.append(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2]))

    def op_BINARY_SLICE(self, ins: Instr, stack: list) -> None:
        end = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        sl = ast.Slice(
            lower=None if _is_none(start) else start, upper=None if _is_none(end) else end
        )
        stack.append(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()))

    def op_STORE_SLICE(self, ins: Instr, stack: list) -> None:
        end = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        sl = ast.Slice(
            lower=None if _is_none(start) else start, upper=None if _is_none(end) else end
        )
        self.store(ast.Subscript(value=obj, slice=sl, ctx=ast.Store()), stack, ins)

    def op_STORE_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        self.store(ast.Subscript(value=obj, slice=index, ctx=ast.Store()), stack, ins)

    def op_DELETE_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=index, ctx=ast.Del())]))


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None
