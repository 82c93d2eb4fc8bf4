"""Dead statements: code after a ``return``, ``raise``, ``break`` or ``continue`` in the same
statement list.

The bytecode holds no dead code (the compiler drops it), so a reading that writes some has
either read code twice or placed an exit before code that runs: a reading to refuse.
"""

from __future__ import annotations

import ast

_TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_BLOCKS = ("body", "orelse", "finalbody")


def first_dead(stmts: list[ast.stmt]) -> ast.stmt | None:
    """The first statement of ``stmts``, or of a block nested in them, that follows a terminal
    statement of its own list (``if False:``, a generator's marker, is no code); None if
    there is none."""
    lists = [stmts]
    for stmt in stmts:
        for node in ast.walk(stmt):
            lists.extend(getattr(node, field) for field in _BLOCKS if _is_block(getattr(node, field, None)))
    for body in lists:
        ends = next((i for i, s in enumerate(body) if isinstance(s, _TERMINAL)), None)
        if ends is not None:
            after = [s for s in body[ends + 1 :] if not _is_marker(s)]
            if after:
                return after[0]
    return None


def _is_block(value: object) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], ast.stmt)


def _is_marker(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant) and not stmt.test.value
