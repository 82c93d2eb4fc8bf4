"""Simple statements an opcode ends: ``return`` (written, or the implicit one the compiler
copied), ``raise``/``assert`` and the start of annotated assignments.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.instructions import TABLE, TERMINAL, Instr


class StatementOps(EvaluatorBase):
    """Handlers of ``RETURN_VALUE``, ``RAISE_VARARGS`` and ``SETUP_ANNOTATIONS``."""

    def op_RETURN_VALUE(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        ret = ast.Return(value=v)
        # 3.12+ returns a constant statement with RETURN_CONST; a constant that
        # reaches RETURN_VALUE was an operand of a conditional expression
        ret.from_expression = TABLE.has_return_const and ins.raw == "RETURN_VALUE" and isinstance(v, ast.Constant)
        ret.implicit_copy = ins.index in getattr(self, "implicit_returns", ()) or self._lineless_return(ins, v)
        ret.written = not ret.implicit_copy and self._shared_return_none(ins, v)
        self.emit(ret)

    def _shared_return_none(self, ins: Instr, value: ast.expr) -> bool:
        """A `return None` that several paths reach (two jumps, or a jump and the code before
        it; the exception clean-up on the way, ``POP_EXCEPT``, included): 3.12+ copy a return
        without a line into each of its predecessors, so this one has a line, the source's
        own, and is not the implicit return at the function's end."""
        k = ins.index - 1  # the LOAD_CONST None
        if not TABLE.copies_exits_without_line or k < 1 or not (isinstance(value, ast.Constant) and value.value is None):
            return False
        ins_ = self.ins
        if ins_[k].op != "LOAD_CONST":
            return False
        reached = getattr(self, "initially_reachable", None)
        while k > 0:
            before = ins_[k - 1]
            falls_in = before.op not in TERMINAL and before.op != "JUMP" and (reached is None or reached[k - 1])
            jumps = sum(1 for i in ins_ if i.target == k)
            if jumps + falls_in >= 2:
                return True
            if jumps or before.op != "POP_EXCEPT":
                return False
            k -= 1
        return False

    def _lineless_return(self, ins: Instr, value: ast.expr) -> bool:
        """A `return None` on the line of the statement before it, at the end of a path
        that falls off the function: 3.10+ copy the implicit return there (a written
        `return` has a line of its own)."""
        k = ins.index
        if not TABLE.copies_exit_blocks or k < 2 or not (isinstance(value, ast.Constant) and value.value is None):
            return False
        load, before = self.ins[k - 1], self.ins[k - 2]
        return (
            load.op == "LOAD_CONST"
            and load.line == before.line
            and before.op != "JUMP"
            and before.op not in TERMINAL
            and before.target is None
            and not (self._is_target(k - 1) or self._is_target(k))
        )

    def op_RAISE_VARARGS(self, ins: Instr, stack: list) -> None:
        cause = exc = None
        if ins.arg == 2:
            cause = self.pop_expr(stack, ins)
        if ins.arg >= 1:
            exc = self.pop_expr(stack, ins)
        assertion = exc.func if isinstance(exc, ast.Call) and len(exc.args) == 1 else exc
        if cause is None and getattr(assertion, "is_assertion_error", False):
            # LOAD_ASSERTION_ERROR only comes from `assert`; the test, if any,
            # is the condition jumping around this raise
            msg = exc.args[0] if isinstance(exc, ast.Call) else None
            self.emit(ast.Assert(test=ast.Constant(value=False), msg=msg))
            return
        self.emit(ast.Raise(exc=exc, cause=cause))

    def op_SETUP_ANNOTATIONS(self, ins: Instr, stack: list) -> None:
        self.setup_annotations = True
