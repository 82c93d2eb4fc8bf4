"""The one error the decompiler raises for anything it cannot prove it handles."""

from __future__ import annotations

import sys
from enum import Enum


class Refusal(Enum):
    """Why the decompiler refused: one kind per refusal, so that callers and benchmarks can
    group refusals whose messages differ.  The value is the kind's name in reports (JSON)."""

    UNSUPPORTED_VERSION = "unsupported_version"
    """The running CPython's bytecode is one pellucid was not taught."""
    UNSUPPORTED = "unsupported"
    """An opcode or feature pellucid does not read yet (async with, an intrinsic, deep nesting)."""
    NO_SOURCE = "no_source"
    """The bytecode holds what no source can write: a constant, name or value, a path off its end."""
    UNPLACED = "unplaced"
    """Structuring's invariant: code the function reaches that no reading placed, or placed
    outside the statement it belongs to."""
    STACK = "stack"
    """A stack shape the evaluator cannot read as expressions (underflow, values left behind)."""
    EXPRESSION = "expression"
    """An expression or simple statement (call, display, store, import) of an unknown shape."""
    CONDITION = "condition"
    """An if, and/or, chained comparison or jump that no condition or branch explains."""
    LOOP = "loop"
    """A while or for loop, its else, break or continue, of an unknown shape."""
    TRY = "try"
    """A try statement: its except (or except*) clauses, else or finally, of an unknown shape."""
    WITH = "with"
    """A with statement: its handler, exit or target, of an unknown shape."""
    MATCH = "match"
    """A match statement of an unknown shape."""
    COMPREHENSION = "comprehension"
    """A comprehension or generator expression of an unknown shape."""
    DEFINITION = "definition"
    """A def, lambda, generic, type alias or annotations (of any scope) of an unknown shape."""
    CLASS = "class"
    """A class or module body, or the ``__build_class__`` call of a class, of an unknown shape."""
    GENERATOR = "generator"
    """A yield, yield from or await of an unknown shape."""
    UNVERIFIED = "unverified"
    """``strict`` verification found the source compiles to different bytecode."""


class DecompilationError(Exception):
    """Raised instead of returning source that might behave differently.

    The message names the function, the Python version and, where known, the
    offending opcode and its offset.  ``kind`` (a :class:`Refusal`) says why, for grouping;
    it is None on an internal error (``.internal``: a bug of pellucid's, not a refusal).
    """

    def __init__(
        self,
        reason: str,
        *,
        kind: Refusal | None = None,
        code_name: str | None = None,
        opname: str | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = reason
        self.kind = kind
        self.code_name = code_name
        self.opname = opname
        self.offset = offset
        super().__init__(self._format())

    def _format(self) -> str:
        parts = [self.reason]
        if self.opname is not None:
            where = f"opcode {self.opname}"
            if self.offset is not None:
                where += f" at offset {self.offset}"
            parts.append(where)
        if self.code_name is not None:
            parts.append(f"in {self.code_name}")
        parts.append(f"(Python {sys.version_info.major}.{sys.version_info.minor})")
        return " ".join(parts[:1]) + ": " + ", ".join(parts[1:]) if len(parts) > 1 else parts[0]


class UnsupportedVersionError(DecompilationError):
    """The running CPython's bytecode is one pellucid was not taught: nothing is decoded.

    Its message is the reason alone (it already names the version), the same for every code
    object, so that a command line prints it as one plain line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, kind=Refusal.UNSUPPORTED_VERSION)

    def _format(self) -> str:
        return self.reason
