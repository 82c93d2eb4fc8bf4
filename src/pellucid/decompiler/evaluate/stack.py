"""Stack shuffles and ``POP_TOP``: the opcodes that move or drop values (a dropped value may
be an expression statement, or the end of an import).
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import name
from pellucid.decompiler.instructions import TABLE, Instr


class StackOps(EvaluatorBase):
    """Handlers of ``POP_TOP``, ``COPY``, ``SWAP`` and the older rotations."""

    def op_POP_TOP(self, ins: Instr, stack: list) -> None:
        if not stack:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        v = stack.pop()
        if isinstance(v, (V.Iterator, V.Null)):
            return  # loop clean-up before return/break
        if isinstance(v, V.ImportedModule):
            if stack and isinstance(stack[-1], V.ImportedName) and stack[-1].module is v:
                return  # 3.9/3.10 `import a.b.c as d` drops the module under the name
            self.finish_from_import(v, ins)
            return
        if isinstance(v, V.ImportedName) and getattr(v.module, "done", False):
            return
        if isinstance(v, V.ImportedName) and stack and isinstance(stack[-1], V.ImportedName) and stack[-1].module is v.module:
            return  # `import a.b.c.d as e` drops each step of its walk down the packages
        if isinstance(v, ast.expr):
            if V.holds(stack, v):
                return  # a duplicate left over from a chain; nothing to say
            if isinstance(v, ast.Constant) and getattr(self, "setup_annotations", False):
                # part of an annotation that stores nothing (`a[0]: 'T'` evaluates `0` and
                # `'T'`): kept for annotation_targets, which drops what it does not use
                stmt = ast.Expr(v)
                stmt.unstored_annotation_part = True
                self.emit(stmt)
                return
            if id(v) not in self.assign_chains and (getattr(v, "is_spill", False) or (
                isinstance(v, (ast.List, ast.Tuple, ast.Constant))
                and all(getattr(x, "is_spill", False) or isinstance(x, ast.Constant) for x in getattr(v, "elts", []))
            )):
                return  # discarding a value computed earlier has no effect (and naming it nothing)
            self.emit(ast.Expr(self.as_expr(v, ins)))
            return
        if isinstance(v, V.FunctionValue):
            named = id(v) in self.assign_chains  # `(f := lambda: 0)`: as_expr writes the names
            self.emit(ast.Expr(value=self.as_expr(v, ins) if named else self.function_expr(v, ins)))
            return
        if isinstance(v, V.UnpackSlot):
            if v.group.names is not None:
                return  # unpacked into temporaries already: dropping one is nothing
            store = self._repeated_store_after(ins)
            if store is not None:
                # 3.13 drops a store the next one overwrites: `a, _, _ = x`
                stack.append(v)
                self.store(name(store, ast.Store()), stack, ins)
                return
        raise self.fail(f"POP_TOP of {type(v).__name__}", ins, kind=Refusal.STACK)

    def _repeated_store_after(self, ins: Instr) -> str | None:
        """3.13: the local a POP_TOP of an unpacked value stands for, when the run
        of POP_TOPs it starts ends in a STORE_FAST (stores to the same name in a row)."""
        if not TABLE.pops_repeated_stores:
            return None
        k = ins.index + 1
        while k < len(self.ins) and self.ins[k].op == "POP_TOP":
            k += 1
        if k < len(self.ins) and self.ins[k].op == "STORE_FAST":
            return self.ins[k].argval
        return None

    def op_COPY(self, ins: Instr, stack: list) -> None:
        n = ins.argval
        if len(stack) < n:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        if not self.copy_is_idiom(ins, stack[-n]):
            # a value used twice must be evaluated once: name it first
            self.materialize(stack)
        stack.append(stack[-n])

    def copy_is_idiom(self, ins: Instr, value: Any) -> bool:
        return True

    def op_SWAP(self, ins: Instr, stack: list) -> None:
        n = ins.argval
        if len(stack) < n:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        stack[-1], stack[-n] = stack[-n], stack[-1]

    def op_ROT_THREE(self, ins: Instr, stack: list) -> None:
        if len(stack) < 3:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        stack.insert(-2, stack.pop())

    def op_ROT_FOUR(self, ins: Instr, stack: list) -> None:
        if len(stack) < 4:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        stack.insert(-3, stack.pop())

    def op_DUP_TOP_TWO(self, ins: Instr, stack: list) -> None:
        if len(stack) < 2:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        stack.extend(stack[-2:])
