"""The function's implicit ``return None`` and the copies the compiler makes of it.

The compiler copies the implicit return into the paths that reach it (3.10+), lays it out
after exception handlers (3.11+), keeps a dead one (3.9/3.10), and compiles
``return a if c else b`` as two returns (3.12+).  :func:`emit.function_body` uses these
to tell a written ``return`` from a copy, and to put the source's returns back.
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler.cfg import build as build_cfg
from pellucid.decompiler.evaluate import const
from pellucid.decompiler.instructions import TABLE, TERMINAL
from pellucid.decompiler.structure import Walker


def fold_return_ternaries(body: list[ast.stmt]) -> list[ast.stmt]:
    """3.12+: `return a if c else b` is compiled as two returns; put it back when
    an operand is a constant returned through RETURN_VALUE (see op_RETURN_VALUE)."""
    out: list[ast.stmt] = []
    for node in body:
        for attr in ("body", "orelse"):
            if isinstance(node, (ast.If, ast.For, ast.While)):
                setattr(node, attr, fold_return_ternaries(getattr(node, attr)))
        out.append(node)
        while len(out) >= 1:
            last = out[-1]
            if (
                isinstance(last, ast.If)
                and len(last.body) == 1
                and len(last.orelse) == 1
                and isinstance(last.body[0], ast.Return)
                and isinstance(last.orelse[0], ast.Return)
                and (_ternary_operand(last.body[0]) or _ternary_operand(last.orelse[0]))
            ):
                out[-1] = _ternary_return(last.test, last.body[0], last.orelse[0])
                continue
            if (
                len(out) >= 2
                and isinstance(last, ast.Return)
                and isinstance(out[-2], ast.If)
                and len(out[-2].body) == 1
                and not out[-2].orelse
                and isinstance(out[-2].body[0], ast.Return)
                and (_ternary_operand(out[-2].body[0]) or _ternary_operand(last))
            ):
                prev = out[-2]
                out[-2:] = [_ternary_return(prev.test, prev.body[0], last)]
                continue
            break
    return out


def _ternary_operand(node: ast.stmt) -> bool:
    return isinstance(node, ast.Return) and getattr(node, "from_expression", False)


def _ternary_return(test: ast.expr, a: ast.Return, b: ast.Return) -> ast.Return:
    ret = ast.Return(value=ast.IfExp(test=test, body=a.value, orelse=b.value or const(None)))
    ret.from_expression = True
    return ret


def strip_implicit_returns(body: list[ast.stmt]) -> None:
    """3.11+ copy the implicit `return None` into every branch that ends the
    function; those copies are not source, so drop them from final branches."""
    if not body or not isinstance(body[-1], ast.If):
        return
    node = body[-1]
    for branch in (node.body, node.orelse):
        if branch and isinstance(branch[-1], ast.Return) and _is_none(branch[-1].value):
            branch.pop()
            if not branch and branch is node.body:
                branch.append(ast.Pass())
        strip_implicit_returns(branch)


def restore_ending_elses(body: list[ast.stmt]) -> None:
    """``body`` ends the function.  3.11+ copy the implicit `return None` into
    each exit of a statement that reaches it (a with's normal and suppressed
    exits), so the branch holding that statement reads as returning early:
    `if t: <with>; return None` then the rest.  Only `if t: <with> else: <rest>`
    compiles those exits to the function's end again; the two say the same."""
    for k, st in enumerate(body):
        if isinstance(st, ast.If) and not st.orelse and k + 1 < len(body) and _reaches_copied_end(st.body):
            st.body.pop()
            st.orelse = body[k + 1 :]
            del body[k + 1 :]
            break
    if body and getattr(body[-1], "implicit_copy", False):
        body.pop()
    if body and isinstance(body[-1], ast.If):
        last = body[-1]
        restore_ending_elses(last.body)
        restore_ending_elses(last.orelse)
        if not last.body:
            last.body.append(ast.Pass())


def _reaches_copied_end(branch: list[ast.stmt]) -> bool:
    """Does ``branch`` end in a `return None` that stands for the function's
    end, a statement in it reaching that end by falling off (see above)?"""
    if not branch or not isinstance(branch[-1], ast.Return) or not _is_none(branch[-1].value):
        return False
    if getattr(branch[-1], "implicit_copy", False):
        return True
    return any(isinstance(s, ast.If) and not s.orelse and _reaches_copied_end(s.body) for s in branch[:-1])


def final_return(w: Walker) -> int:
    """Index of the function's last `return None` (its RETURN_VALUE): the last instruction,
    or, where 3.11+ lay exception handlers out after it, the last one the entry reaches
    without an exception when that is a `return None`."""
    last = w.n - 1
    if not TABLE.has_exception_table or w.n < 2:
        return last
    seen, _ = build_cfg(w.ins).reach([0])
    k = max((k for k in range(w.n) if seen[k]), default=last)
    if w.ins[k].op == "RETURN_VALUE" and w.ins[k - 1].op == "LOAD_CONST" and w.ins[k - 1].argval is None:
        return k
    return last


def explicit_final_return(w: Walker, last: int) -> bool:
    """3.10+ copy the implicit `return None` into each path that reaches it;
    a final `return None` (its RETURN_VALUE at ``last``) that jumps land on was written in
    the source."""
    if not TABLE.copies_exit_blocks or last < 1:
        return False
    first = last - 1
    if TABLE.copies_exits_without_line:
        # 3.12+ copy a return without a line into each of its predecessors: one that several
        # jumps (conditional ones too) land on, or a jump and the code before it, has a line,
        # the source's own
        jumps = sum(1 for i in w.ins if i.target == first)
        before = w.ins[first - 1]
        falls_in = w.initially_reachable[first - 1] and before.op not in TERMINAL and before.op != "JUMP"
        if jumps >= 2 or (jumps and falls_in):
            return True
    return any(i.target == first and i.op == "JUMP" for i in w.ins)


def dead_implicit_return(w: Walker) -> bool:
    """3.9/3.10 keep an unreachable `return None` after a final compound statement."""
    if not TABLE.keeps_dead_final_return or w.n < 2 or w.initially_reachable[w.n - 1]:
        return False
    a, b = w.ins[w.n - 2], w.ins[w.n - 1]
    return a.op == "LOAD_CONST" and a.argval is None and b.op == "RETURN_VALUE"


def _is_none(e: Any) -> bool:
    return isinstance(e, ast.Constant) and e.value is None
