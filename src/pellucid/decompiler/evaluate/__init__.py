"""Symbolic stack evaluation: one handler per (normalized) opcode.

Handlers pop ``ast`` expressions (or :mod:`values` markers) from the stack,
push new expressions and emit statements through ``self.emit``.  They never
look at control flow; :mod:`structure` owns jumps and calls these per
instruction.

The handlers are grouped by job, one mixin per module of this package;
:class:`Evaluator` puts them together (each opcode has its handler in exactly one
of them, so their order does not matter).
"""

from __future__ import annotations

from pellucid.decompiler.evaluate.calls import CO_FUTURE_ANNOTATIONS, CallOps
from pellucid.decompiler.evaluate.containers import ContainerOps
from pellucid.decompiler.evaluate.imports import ImportOps
from pellucid.decompiler.evaluate.loads import LoadOps
from pellucid.decompiler.evaluate.nodes import (
    CONSTANT_NAMER,
    cell_of,
    const,
    name,
    named_code_constant,
    store_ctx,
)
from pellucid.decompiler.evaluate.operators import BINOPS, InPlace, OperatorOps, augmented_target
from pellucid.decompiler.evaluate.stack import StackOps
from pellucid.decompiler.evaluate.statements import StatementOps
from pellucid.decompiler.evaluate.stores import StoreOps
from pellucid.decompiler.evaluate.strings import StringOps
from pellucid.decompiler.evaluate.subscripts import SubscriptOps

__all__ = [
    "BINOPS",
    "CONSTANT_NAMER",
    "CO_FUTURE_ANNOTATIONS",
    "Evaluator",
    "InPlace",
    "augmented_target",
    "cell_of",
    "const",
    "name",
    "named_code_constant",
    "store_ctx",
]


class Evaluator(
    LoadOps,
    StackOps,
    OperatorOps,
    SubscriptOps,
    StoreOps,
    ContainerOps,
    StringOps,
    CallOps,
    ImportOps,
    StatementOps,
):
    """Opcode handlers.  Subclasses provide ``emit``, ``fail`` and the code."""
