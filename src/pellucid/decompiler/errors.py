"""The one error the decompiler raises for anything it cannot prove it handles."""

from __future__ import annotations

import sys


class DecompilationError(Exception):
    """Raised instead of returning source that might behave differently.

    The message names the function, the Python version and, where known, the
    offending opcode and its offset.
    """

    def __init__(
        self,
        reason: str,
        *,
        code_name: str | None = None,
        opname: str | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = reason
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

    def _format(self) -> str:
        return self.reason
