"""Operators and comparisons: binary, unary, in-place (``x += 1`` before its store), the
chained-comparison aware comparisons and the one-argument intrinsics.
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import const
from pellucid.decompiler.instructions import Instr

BINOPS = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "@": ast.MatMult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "<<": ast.LShift,
    ">>": ast.RShift,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
}
CMPOPS = {
    "<": ast.Lt,
    "<=": ast.LtE,
    "==": ast.Eq,
    "!=": ast.NotEq,
    ">": ast.Gt,
    ">=": ast.GtE,
}
UNARY = {
    "UNARY_NEGATIVE": ast.USub,
    "UNARY_POSITIVE": ast.UAdd,
    "UNARY_INVERT": ast.Invert,
    "UNARY_NOT": ast.Not,
}
INTRINSIC_1 = {
    "INTRINSIC_UNARY_POSITIVE": "unary_positive",
    "INTRINSIC_LIST_TO_TUPLE": "list_to_tuple",
    "INTRINSIC_IMPORT_STAR": "import_star",
}


class OperatorOps(EvaluatorBase):
    """Handlers of the operator, comparison and ``CALL_INTRINSIC_1`` opcodes."""

    def op_BINARY_OP(self, ins: Instr, stack: list) -> None:
        right = self.pop_expr(stack, ins)
        left = self.pop_expr(stack, ins)
        sym = ins.argval
        if sym.endswith("=") and sym not in ("==", "<=", ">=", "!="):
            stack.append(InPlace(left, BINOPS[sym[:-1]](), right))
            return
        stack.append(ast.BinOp(left=left, op=BINOPS[sym](), right=right))

    def op_UNARY_NEGATIVE(self, ins: Instr, stack: list) -> None:
        operand = self.pop_expr(stack, ins)
        stack.append(ast.UnaryOp(op=UNARY[ins.op](), operand=operand))

    op_UNARY_POSITIVE = op_UNARY_INVERT = op_UNARY_NOT = op_UNARY_NEGATIVE

    def op_TO_BOOL_VALUE(self, ins: Instr, stack: list) -> None:
        operand = self.pop_expr(stack, ins)
        inner = ast.UnaryOp(op=ast.Not(), operand=operand)
        stack.append(ast.UnaryOp(op=ast.Not(), operand=inner))

    def compared(self, stack: list, ins: Instr) -> tuple[ast.expr, ast.expr]:
        """The two operands of a comparison, popped as expressions.

        A chained comparison's link leaves a copy of its right operand beneath, for the next
        link.  When that operand only became an expression here (a lambda, an f-string part),
        the copy is replaced by the same expression: the links must share one node."""
        raw = stack[-1] if stack else None
        right = self.pop_expr(stack, ins)
        left = self.pop_expr(stack, ins)
        if stack and raw is not right and stack[-1] is raw:
            stack[-1] = right
        return left, right

    def op_COMPARE_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = CMPOPS.get(ins.argval)
        if op is None:
            raise self.fail(f"unknown comparison {ins.argval!r}", ins, kind=Refusal.EXPRESSION)
        stack.append(ast.Compare(left=left, ops=[op()], comparators=[right]))

    def op_IS_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = ast.IsNot() if ins.arg else ast.Is()
        stack.append(ast.Compare(left=left, ops=[op], comparators=[right]))

    def op_CONTAINS_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = ast.NotIn() if ins.arg else ast.In()
        stack.append(ast.Compare(left=left, ops=[op], comparators=[right]))

    def op_CALL_INTRINSIC_1(self, ins: Instr, stack: list) -> None:
        kind = ins.argrepr if hasattr(ins, "argrepr") else None
        kind = str(ins.argval)
        if "UNARY_POSITIVE" in kind:
            operand = self.pop_expr(stack, ins)
            stack.append(ast.UnaryOp(op=ast.UAdd(), operand=operand))
        elif "LIST_TO_TUPLE" in kind:
            v = self.pop_expr(stack, ins)
            if not isinstance(v, ast.List):
                raise self.fail("LIST_TO_TUPLE of a non-list", ins, kind=Refusal.EXPRESSION)
            stack.append(ast.Tuple(elts=v.elts, ctx=ast.Load()))
        elif kind == "INTRINSIC_TYPEALIAS":
            stack.append(self.type_alias(stack.pop(), ins))
        elif "IMPORT_STAR" in kind:
            mod = stack.pop()
            if not isinstance(mod, V.ImportedModule):
                raise self.fail("import * of a non-module", ins, kind=Refusal.EXPRESSION)
            self.emit(mod.statement(
                ast.ImportFrom(
                    module=mod.name or None, names=[ast.alias(name="*")], level=mod.level
                )
            ))
            stack.append(const(None))  # popped by the following POP_TOP
        else:
            raise self.fail(f"unsupported intrinsic {kind}", ins, kind=Refusal.UNSUPPORTED)

    def type_alias(self, parts: Any, ins: Instr) -> Any:
        raise self.fail("type alias", ins, kind=Refusal.DEFINITION)


class InPlace(ast.expr):
    """``left op= right`` before its store turns it into an AugAssign."""

    _fields = ("target", "op", "value")

    def __init__(self, target: ast.expr, op: ast.operator, value: ast.expr) -> None:
        super().__init__()
        self.target = target
        self.op = op
        self.value = value


def augmented_target(value: InPlace, stored: ast.expr) -> ast.expr:
    """The target of ``value``'s AugAssign, stored to ``stored``.

    The place is read and written from the same stack values, but only the read consumed
    them as expressions: an assignment expression among them (``a[(x := k)] += 1``) is in
    the loaded target alone.  When the two name the same place, the loaded one (made a
    store target) keeps it; otherwise the stored one is the place written.
    """
    loaded = value.target
    if type(loaded) is not type(stored) or not isinstance(loaded, (ast.Attribute, ast.Subscript)):
        return stored
    try:
        same = _without_walrus(loaded) == _without_walrus(stored)
    except (SyntaxError, ValueError, TypeError, AttributeError):
        same = False  # (a value unparse cannot spell yet: the stored target, as it was)
    if not same:
        return stored
    fields = {f: getattr(loaded, f) for f in loaded._fields if f != "ctx"}
    return type(loaded)(**fields, ctx=ast.Store())


def _without_walrus(node: ast.expr) -> str:
    """``node`` dumped with each ``(x := e)`` read as ``e`` and no load/store contexts."""

    class Strip(ast.NodeTransformer):
        def visit_NamedExpr(self, n: ast.NamedExpr) -> ast.AST:
            return self.visit(n.value)

    copy = Strip().visit(ast.parse(ast.unparse(node), mode="eval").body)
    return ast.dump(copy).replace("ctx=Store()", "ctx=Load()")
