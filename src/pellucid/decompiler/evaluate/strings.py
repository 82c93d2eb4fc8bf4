"""f-strings: formatted values (with their conversion and format spec) and the string
joining their parts.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.instructions import Instr


class StringOps(EvaluatorBase):
    """Handlers of ``BUILD_STRING`` and the value-formatting opcodes."""

    def op_BUILD_STRING(self, ins: Instr, stack: list) -> None:
        """An f-string's parts joined.  A part that is not spelled as a string (a value formatted
        before a graph break, which Dynamo's resume function gets on its stack) is joined as it
        is: ``''.join((part, f'...'))`` runs the function BUILD_STRING runs (a ``str`` passes
        through unformatted, anything else raises the same TypeError)."""
        parts = self.pop_n(stack, ins.arg, ins)
        pieces: list[ast.expr] = []  # joined as they are
        values: list[ast.expr] = []  # the f-string being built from string parts
        for p in parts:
            if isinstance(p, ast.JoinedStr):
                values.extend(p.values)
            elif (isinstance(p, ast.Constant) and isinstance(p.value, str)) or isinstance(
                p, ast.FormattedValue
            ):
                values.append(p)
            else:
                if values:
                    pieces.append(_joined(values))
                    values = []
                pieces.append(p)
        if not pieces:
            stack.append(ast.JoinedStr(values=values))
            return
        if values:
            pieces.append(_joined(values))
        join = ast.Attribute(value=ast.Constant(""), attr="join", ctx=ast.Load())
        stack.append(
            ast.Call(func=join, args=[ast.Tuple(elts=pieces, ctx=ast.Load())], keywords=[])
        )

    def op_FORMAT_VALUE(self, ins: Instr, stack: list) -> None:
        flags = ins.arg
        spec = None
        if flags & 0x04:
            spec = self.pop_expr(stack, ins)
        value = self.pop_expr(stack, ins)
        conv = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[flags & 0x03]
        stack.append(_formatted(value, conv, spec))

    def op_CONVERT_VALUE(self, ins: Instr, stack: list) -> None:
        value = self.pop_expr(stack, ins)
        conv = {1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg]
        stack.append(Converted(value, conv))

    def op_FORMAT_SIMPLE(self, ins: Instr, stack: list) -> None:
        v = stack.pop()
        if isinstance(v, Converted):
            stack.append(_formatted(v.value, v.conversion, None))
        else:
            stack.append(_formatted(self.as_expr(v, ins), -1, None))

    def op_FORMAT_WITH_SPEC(self, ins: Instr, stack: list) -> None:
        spec = self.pop_expr(stack, ins)
        v = stack.pop()
        if isinstance(v, Converted):
            stack.append(_formatted(v.value, v.conversion, spec))
        else:
            stack.append(_formatted(self.as_expr(v, ins), -1, spec))


class Converted(ast.expr):
    """3.13 CONVERT_VALUE result, consumed by FORMAT_SIMPLE/FORMAT_WITH_SPEC."""

    _fields = ("value", "conversion")

    def __init__(self, value: ast.expr, conversion: int) -> None:
        super().__init__()
        self.value = value
        self.conversion = conversion


def _joined(values: list[ast.expr]) -> ast.expr:
    """String parts as one expression: a lone constant as itself, else an f-string."""
    if len(values) == 1 and isinstance(values[0], ast.Constant):
        return values[0]
    return ast.JoinedStr(values=values)


def _formatted(value: ast.expr, conversion: int, spec: ast.expr | None) -> ast.FormattedValue:
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    return ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)
