"""Values that live on the symbolic stack but are not (yet) Python expressions.

Each marker stands for something the bytecode keeps on the stack that source
code never names: a NULL, a for-loop iterator, a half-built unpacking, a
function object being decorated.  The evaluator turns them into ``ast`` only
once their meaning is known, and refuses when it never becomes known.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from itertools import repeat
from types import CodeType
from typing import Any


class Marker:
    """Base of non-expression stack values."""


class ClassNamespace(Marker):
    """LOAD_LOCALS in a class body: the namespace mapping (3.12+: read by name lookups, and
    kept in the ``__classdict__`` cell for the body's annotation scopes)."""


class Null(Marker):
    """The NULL that CPython 3.11+ pushes beside callables (and LOAD_METHOD)."""

    def __repr__(self) -> str:
        return "NULL"


NULL = Null()


@dataclass(eq=False)
class Iterator(Marker):
    """Result of GET_ITER: the loop's iterable expression."""

    iterable: ast.expr


@dataclass(eq=False)
class ForItem(Marker):
    """The value FOR_ITER pushes: only ever stored into the loop target."""

    loop_id: int


@dataclass(eq=False)
class Accumulator(Marker):
    """An empty list/set/dict built as a comprehension's result."""

    kind: str  # "list", "set" or "dict"


@dataclass(eq=False)
class SavedLocal(Marker):
    """3.12+ inlined comprehension: LOAD_FAST_AND_CLEAR of a shadowed local."""

    name: str


@dataclass(eq=False)
class FunctionValue(Marker):
    """Result of MAKE_FUNCTION before it becomes a def, lambda or comprehension."""

    code: CodeType
    defaults: list[ast.expr] = field(default_factory=list)
    kwdefaults: list[tuple[str, ast.expr]] = field(default_factory=list)
    annotations: dict[str, ast.expr] = field(default_factory=dict)
    closure: list[str] = field(default_factory=list)
    decorators: list[ast.expr] = field(default_factory=list)
    type_params: list = field(default_factory=list)  # `def f[T]` made in a body (3.12+)


@dataclass(eq=False)
class TypeAliasParts(Marker):
    """The (name, type parameters, value function) tuple a ``type`` statement builds (3.12+)."""

    items: list


@dataclass(eq=False)
class TypeAliasValue(Marker):
    """A ``type`` statement's alias (3.12+), stored under its own name."""

    name: str
    type_params: list
    value: ast.expr


@dataclass(eq=False)
class UnpackGroup:
    """Targets being collected after UNPACK_SEQUENCE / UNPACK_EX."""

    source: Any  # the value unpacked (expr or marker)
    size: int
    star_index: int | None
    targets: list[ast.expr | None]
    parent: UnpackSlot | None = None
    # where the unpacking ran: the statement list being built and its last statement then
    # (a value used as an expression, not stored, is unpacked into temporaries there)
    block: list | None = None
    after: Any = None
    names: list[str] | None = None  # the temporaries, once unpacked into them

    def complete(self) -> bool:
        return all(t is not None for t in self.targets)


@dataclass(eq=False)
class UnpackSlot(Marker):
    group: UnpackGroup
    index: int


@dataclass(eq=False)
class ImportedModule(Marker):
    """Result of IMPORT_NAME, waiting for its STORE or IMPORT_FROMs."""

    name: str
    fromlist: Any
    level: int
    names: list[ast.alias] = field(default_factory=list)
    attr_path: list[str] = field(default_factory=list)
    # `lazy import` (3.15+, PEP 810): bound on first use
    lazy: bool = False

    def statement(self, node: ast.Import | ast.ImportFrom) -> ast.Import | ast.ImportFrom:
        """``node``, the import statement of this module, marked lazy when the import was."""
        if self.lazy:
            node.is_lazy = 1
        return node


@dataclass(eq=False)
class ImportedName(Marker):
    """Result of IMPORT_FROM."""

    module: ImportedModule
    name: str


@dataclass(eq=False)
class ExceptionValue(Marker):
    """An exception object on the stack (handlers, re-raise)."""

    note: str = ""


@dataclass(eq=False)
class KwNames(Marker):
    names: tuple


def is_expr(value: Any) -> bool:
    return isinstance(value, ast.expr)


def holds(stack: list, value: Any) -> bool:
    """Is ``value`` itself (not an equal value) on ``stack``?  One C-level scan: Dynamo's
    stacks are deep and this runs for every store."""
    return any(map(operator.is_, stack, repeat(value)))
