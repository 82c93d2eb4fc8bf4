"""A comprehension filter the walk read as statements, turned back into one test.

The compiler lays a filter out in jump context, so a conditional expression or an and/or
there becomes jumps straight to the loop's next iteration, and the walk reads it as ifs whose
arms are empty or ``continue``: ``[x for x in c if (x if x else '')]`` comes back as
``if x: (if not x: continue) else: continue``.  A filter only decides whether the element is
made, so any expression with the same truth value that evaluates the same tests in the same
order is that filter.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.regions.build import _negate

_TRUE, _FALSE = object(), object()  # the outcome when no test remains: go on, or skip


def filter_prefix(body: list[ast.stmt]) -> tuple[ast.expr, list[ast.stmt]] | None:
    """(the filter, the statements after it) when ``body`` starts with ifs whose arms only
    pass or continue, and something follows them; None otherwise."""
    k = 0
    while k < len(body) and _is_filter(body[k]):
        k += 1
    if k == 0 or k == len(body) or not any(_continues(s) for s in body[:k]):
        return None
    test = _outcome(body[:k])
    if test is _TRUE or test is _FALSE:
        return None  # (a constant filter: the compiler left no test, so none was read)
    return test, body[k:]


def _is_filter(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Pass, ast.Continue)):
        return True
    return isinstance(stmt, ast.If) and all(map(_is_filter, stmt.body + stmt.orelse))


def _continues(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Continue):
        return True
    return isinstance(stmt, ast.If) and any(map(_continues, stmt.body + stmt.orelse))


def _outcome(stmts: list[ast.stmt]):
    """True when control falls through ``stmts``, as an expression (or _TRUE/_FALSE)."""
    if not stmts:
        return _TRUE
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, ast.Pass):
        return _outcome(rest)
    if isinstance(first, ast.Continue):
        return _FALSE
    then = _outcome(first.body)
    if first.orelse:
        # an if/else: the conditional expression itself, whose arms jump where these do
        other = _outcome(first.orelse)
        here = ast.IfExp(test=first.test, body=_expr(then), orelse=_expr(other))
    elif then is _FALSE:
        here = _negate(first.test)  # `if t: continue`
    elif then is _TRUE:
        here = ast.BoolOp(op=ast.Or(), values=[first.test, ast.Constant(True)])
    else:
        here = _join(ast.Or, _negate(first.test), then)  # `if t: <more tests>`
    after = _outcome(rest)
    if after is _TRUE:
        return here
    if after is _FALSE:
        return ast.BoolOp(op=ast.And(), values=[here, ast.Constant(False)])
    return _join(ast.And, here, after)


def _expr(outcome) -> ast.expr:
    if outcome is _TRUE or outcome is _FALSE:
        return ast.Constant(outcome is _TRUE)
    return outcome


def _join(op: type, left: ast.expr, right: ast.expr) -> ast.expr:
    values = []
    for side in (left, right):
        if isinstance(side, ast.BoolOp) and isinstance(side.op, op):
            values.extend(side.values)
        else:
            values.append(side)
    return ast.BoolOp(op=op(), values=values)
