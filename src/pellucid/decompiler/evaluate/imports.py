"""Imports: the module ``IMPORT_NAME`` pushes and the names ``IMPORT_FROM`` takes from it
become ``import``/``from ... import`` statements when they are stored or dropped.
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.instructions import Instr


class ImportOps(EvaluatorBase):
    """Handlers of ``IMPORT_NAME``, ``IMPORT_FROM`` and ``IMPORT_STAR``."""

    def op_IMPORT_NAME(self, ins: Instr, stack: list) -> None:
        fromlist = self.pop_expr(stack, ins)
        level = self.pop_expr(stack, ins)
        stack.append(
            V.ImportedModule(
                name=ins.argval, fromlist=fromlist.value if isinstance(fromlist, ast.Constant)
                else tuple(e.value for e in fromlist.elts),
                level=level.value,
                lazy=bool(ins._extra and ins._extra.get("lazy")),
            )
        )

    def op_IMPORT_FROM(self, ins: Instr, stack: list) -> None:
        mod = stack[-1]
        if isinstance(mod, V.ImportedName):  # import a.b.c as d walks attributes
            stack.append(V.ImportedName(mod.module, mod.name + "." + ins.argval))
            return
        if not isinstance(mod, V.ImportedModule):
            raise self.fail("IMPORT_FROM without a module", ins, kind=Refusal.EXPRESSION)
        stack.append(V.ImportedName(mod, ins.argval))

    def finish_from_import(self, mod: V.ImportedModule, ins: Instr) -> None:
        if getattr(mod, "done", False):
            return
        if not mod.names:
            raise self.fail("from-import with no names", ins, kind=Refusal.EXPRESSION)
        self.emit(mod.statement(
            ast.ImportFrom(module=mod.name or None, names=mod.names, level=mod.level)
        ))

    def op_IMPORT_STAR(self, ins: Instr, stack: list) -> None:
        mod = stack.pop()
        if not isinstance(mod, V.ImportedModule):
            raise self.fail("import * of a non-module", ins, kind=Refusal.EXPRESSION)
        self.emit(mod.statement(
            ast.ImportFrom(module=mod.name or None, names=[ast.alias(name="*")], level=mod.level)
        ))
