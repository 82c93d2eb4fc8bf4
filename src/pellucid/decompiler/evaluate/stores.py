"""Stores and deletions of names and attributes, and the unpacking of a value into several
targets (``a, *b = x``).
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import DEL, STORE, name
from pellucid.decompiler.instructions import Instr


class StoreOps(EvaluatorBase):
    """Handlers of the ``STORE_*``, ``DELETE_*`` and ``UNPACK_*`` opcodes."""

    def op_STORE_FAST(self, ins: Instr, stack: list) -> None:
        self.store(name(ins.argval, STORE), stack, ins)

    op_STORE_NAME = op_STORE_GLOBAL = op_STORE_DEREF = op_STORE_FAST

    def op_STORE_ATTR(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        self.store(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Store()), stack, ins)

    def op_DELETE_FAST(self, ins: Instr, stack: list) -> None:
        self.emit(ast.Delete([name(ins.argval, DEL)]))

    op_DELETE_NAME = op_DELETE_GLOBAL = op_DELETE_DEREF = op_DELETE_FAST

    def op_DELETE_ATTR(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete(targets=[ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Del())]))

    def op_UNPACK_SEQUENCE(self, ins: Instr, stack: list) -> None:
        src = stack.pop()
        group = V.UnpackGroup(src, ins.arg, None, [None] * ins.arg)
        if isinstance(src, V.UnpackSlot):
            group.parent = src
        self.note_unpack(group)
        for i in reversed(range(ins.arg)):
            stack.append(V.UnpackSlot(group, i))

    def op_UNPACK_EX(self, ins: Instr, stack: list) -> None:
        src = stack.pop()
        before, after = ins.arg & 0xFF, ins.arg >> 8
        size = before + 1 + after
        group = V.UnpackGroup(src, size, before, [None] * size)
        if isinstance(src, V.UnpackSlot):
            group.parent = src
        self.note_unpack(group)
        for i in reversed(range(size)):
            stack.append(V.UnpackSlot(group, i))

    def note_unpack(self, group: V.UnpackGroup) -> None:
        """Remember where an unpacking ran (see Walker.unpacked_value)."""
