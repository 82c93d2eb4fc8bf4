"""Dead statements in a decompiler output: code written after a ``return``, ``raise``,
``break`` or ``continue`` in the same statement list.

The compiler drops such code, so an output that repeats a statement as dead code after a
return still verifies exact, and only a reader sees the duplicate.  The decompiler never has
dead code to recover (the bytecode has none), so every dead statement in an output is one it
wrote by mistake.  The one exception is ``if False: yield``, the marker that keeps a function
without a reachable ``yield`` a generator; it is not counted.

The worker of ``random_programs.py`` and ``snapshot.py`` runs under Python 3.9, so this file
avoids newer syntax.
"""

from __future__ import annotations

import ast

TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_BODIES = ("body", "orelse", "finalbody")


def _is_marker(stmt: ast.stmt) -> bool:
    """``if False: ...``: written on purpose (a generator's unreachable ``yield``)."""
    return (
        isinstance(stmt, ast.If)
        and isinstance(stmt.test, ast.Constant)
        and not stmt.test.value
    )


def _statement_lists(tree: ast.AST):
    for node in ast.walk(tree):
        for field in _BODIES:
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def dead_statements(tree: ast.AST) -> list[ast.stmt]:
    """Every statement of ``tree`` that follows a terminal one in its statement list."""
    dead = []
    for body in _statement_lists(tree):
        for i, stmt in enumerate(body):
            if isinstance(stmt, TERMINAL):
                dead.extend(s for s in body[i + 1 :] if not _is_marker(s))
                break
    return dead


def dead_in_source(source: str) -> int:
    """How many dead statements the source ``source`` has (0 when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 0
    return len(dead_statements(tree))
