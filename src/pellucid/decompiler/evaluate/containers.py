"""Containers: tuple, list, set and dict displays, the opcodes that fill them (``*x``,
``**m``, constants the compiler folded) and ``GET_ITER``.
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import LOAD, ClosureTuple, name
from pellucid.decompiler.instructions import Instr


class ContainerOps(EvaluatorBase):
    """Handlers of the ``BUILD_*`` display opcodes and of those that extend a display."""

    def op_BUILD_TUPLE(self, ins: Instr, stack: list) -> None:
        if ins.arg == 3 and self.builds_type_alias(ins):
            stack.append(V.TypeAliasParts(stack[-3:]))
            del stack[-4:-1]
            return
        items = stack[len(stack) - ins.arg :] if ins.arg else []
        if items and all(isinstance(v, ast.Name) for v in items) and self._closure_tuple(ins):
            del stack[len(stack) - ins.arg :]
            stack.append(ClosureTuple([v.id for v in items]))
            return
        elts = self.pop_n(stack, ins.arg, ins)
        stack.append(ast.Tuple(elts, LOAD))

    def _closure_tuple(self, ins: Instr) -> bool:
        return False

    def builds_type_alias(self, ins: Instr) -> bool:
        """Whether this BUILD_TUPLE makes the operand of a ``type`` statement's intrinsic."""
        return False

    def op_BUILD_LIST(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("list"))
            return
        stack.append(ast.List(self.pop_n(stack, ins.arg, ins), LOAD))

    def op_BUILD_SET(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("set"))
            return
        # an empty one is filled by SET_UPDATE; left empty it is spelled {*()} (no `set` global)
        stack.append(ast.Set(elts=self.pop_n(stack, ins.arg, ins)))

    def op_BUILD_MAP(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("dict"))
            return
        items = self.pop_n(stack, 2 * ins.arg, ins)
        stack.append(ast.Dict(keys=items[0::2], values=items[1::2]))

    def next_is_comprehension(self, ins: Instr) -> bool:
        return False

    def op_BUILD_CONST_KEY_MAP(self, ins: Instr, stack: list) -> None:
        keys = self.pop_expr(stack, ins)
        vals = self.pop_n(stack, ins.arg, ins)
        if not isinstance(keys, ast.Tuple):
            raise self.fail("BUILD_CONST_KEY_MAP without constant keys", ins, kind=Refusal.EXPRESSION)
        stack.append(ast.Dict(keys=list(keys.elts), values=vals))

    def _mutate_named(self, ins: Instr, stack: list, method: str, args: list[ast.expr]) -> None:
        """A container op on a value that is not a literal being built: call
        the equivalent method on it, as a statement, once it has a name."""
        self.materialize(stack)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Name):
            raise self.fail(f"{ins.op} on an unnamed value", ins, kind=Refusal.EXPRESSION)
        call = ast.Call(
            func=ast.Attribute(value=name(target.id), attr=method, ctx=ast.Load()), args=args, keywords=[]
        )
        self.emit(ast.Expr(value=call))

    def _literal_target(self, ins: Instr, stack: list, kind: type) -> bool:
        target = stack[-ins.arg]
        return isinstance(target, kind) and sum(1 for v in stack if v is target) == 1 and not getattr(
            target, "is_spill", False
        )

    def op_LIST_EXTEND(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not self._literal_target(ins, stack, ast.List):
            self._mutate_named(ins, stack, "extend", [it])
            return
        if isinstance(it, (ast.Tuple, ast.List)) and not target.elts and _all_const(it):
            target.elts.extend(it.elts)  # a constant list/tuple folded by the compiler
            target.folded = True
        else:
            target.elts.append(ast.Starred(value=it, ctx=ast.Load()))

    def op_SET_UPDATE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if isinstance(target, ast.Call) and not target.args:  # set() placeholder
            target = ast.Set(elts=[])
            stack[-ins.arg] = target
        if not isinstance(target, ast.Set):
            raise self.fail("SET_UPDATE on a non-set", ins, kind=Refusal.EXPRESSION)
        if isinstance(it, ast.Set) and not target.elts and _all_const(it):
            target.elts.extend(it.elts)  # a constant set display folded to a frozenset
        else:
            target.elts.append(ast.Starred(value=it, ctx=ast.Load()))

    def op_LIST_TO_TUPLE(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        if not isinstance(v, ast.List):
            raise self.fail("LIST_TO_TUPLE of a non-list", ins, kind=Refusal.EXPRESSION)
        stack.append(ast.Tuple(elts=v.elts, ctx=ast.Load()))

    def op_DICT_UPDATE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Dict):
            raise self.fail("DICT_UPDATE on a non-dict", ins, kind=Refusal.EXPRESSION)
        if (
            isinstance(it, ast.Dict)
            and None not in it.keys
            and target.keys
            and None not in target.keys
            and len(target.keys) % 16 == 0
        ):
            # a large dict display is compiled in chunks
            target.keys.extend(it.keys)
            target.values.extend(it.values)
            return
        target.keys.append(None)
        target.values.append(it)

    def op_DICT_MERGE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Dict):
            raise self.fail("DICT_MERGE on a non-dict", ins, kind=Refusal.EXPRESSION)
        target.keys.append(None)
        target.values.append(it)
        target.is_kwargs = True

    def op_GET_ITER(self, ins: Instr, stack: list) -> None:
        stack.append(V.Iterator(self.pop_expr(stack, ins)))


def _all_const(e: ast.expr) -> bool:
    return all(isinstance(x, ast.Constant) or (isinstance(x, ast.Tuple) and _all_const(x)) for x in e.elts)
