"""What the try/with readings share: the stack markers of exception handling, the records
of handlers and of compiler-made copies, opcode sets, and small helpers on statements and exits.

A leaf module (no recogniser in it), so that every region module, the structure walker and
the except* reader can import these without a cycle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from pellucid.decompiler import values as V
from pellucid.decompiler.instructions import TABLE

STORE_OPS = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
DELETE_OPS = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})
# 3.10+ copy small exit blocks (returns) into every predecessor; 3.9 never does
COPIES_EXITS = TABLE.copies_exit_blocks


class ExcInfo(V.Marker):
    """The previous exception PUSH_EXC_INFO saves under the current one."""

    def __repr__(self) -> str:
        return "EXC_INFO"


class CaughtException(V.Marker):
    """The exception a handler is running for."""

    def __repr__(self) -> str:
        return "EXC"


@dataclass(eq=False)
class WithExit(V.Marker):
    """The bound ``__exit__`` a with statement keeps on the stack during its body."""

    ctx: ast.expr


@dataclass(eq=False)
class WithEnter(V.Marker):
    """The value of ``__enter__()``: stored into the as-target or popped."""

    ctx: ast.expr


# instructions an exit path runs between a try body and where it goes: unwinding, and the jump
_UNWINDING = frozenset({"NOP", "POP_TOP", "SWAP", "POP_EXCEPT", "COPY", "JUMP", "RETURN_VALUE", "RETURN_CONST", "END_FOR"})


@dataclass
class Copy:
    """A compiler-made copy of a finally body / with exit: skip, apply stack effect."""

    length: int
    kind: str  # "finally" | "with" | "skip"
    end: int = -1  # where the statement's normal exit continues
    never_ends: bool = False  # a finally body that returns or raises on every path
    owner: int | None = None  # the handler of the statement whose copy it is


@dataclass(eq=False)
class Handler:
    """An exception handler: its target, what it handles (``kind``), the stack depth it
    restores, and the ranges it protects."""

    target: int
    kind: str  # try | with | cleanup | name_cleanup | comprehension
    depth: int
    lasti: bool
    ranges: list = field(default_factory=list)


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _else_of_exiting_if(body: list) -> list:
    """``if t: <exits>`` followed by more code is ``if t: ... else: <more>``."""
    for n, st in enumerate(body):
        if (
            isinstance(st, ast.If)
            and not st.orelse
            and st.body
            and isinstance(st.body[-1], _EXITS)
            and n + 1 < len(body)
        ):
            st.orelse = _else_of_exiting_if(body[n + 1 :])
            return body[: n + 1]
    return body


def _is_return_none(st: ast.stmt) -> bool:
    return (
        isinstance(st, ast.Return)
        and isinstance(st.value, ast.Constant)
        and st.value.value is None
    )


def _strip_final_returns(body: list) -> ast.Return | None:
    """Drop copies of the implicit ``return None`` from the paths that end a function; the
    first dropped that was written in the source (``written``, see ``op_RETURN_VALUE``) is
    returned."""
    if not body:
        return None
    last = body[-1]
    if _is_return_none(last):
        body.pop()
        rest = _strip_final_returns(body)
        return last if getattr(last, "written", False) else rest
    found = []
    if isinstance(last, ast.If):
        found += [_strip_final_returns(last.body), _strip_final_returns(last.orelse)]
        if not last.body:
            last.body.append(ast.Pass())
    elif isinstance(last, ast.Try) and not last.finalbody:
        branches = [last.orelse] + [h.body for h in last.handlers]
        if not last.orelse:
            branches.append(last.body)
        for b in branches:
            found.append(_strip_final_returns(b))
            if not b and b is not last.orelse:
                b.append(ast.Pass())
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        found.append(_strip_final_returns(last.body))
        if not last.body:
            last.body.append(ast.Pass())
    return next((r for r in found if r is not None), None)


# how exit paths leave a statement (jumps, pops of what a clause or a loop left); code of a
# statement of its own starts otherwise
# (and returns: a clause's `return` leaves its protection too; a constant's return is a copy
# of the function's end as often as not)
_EXIT_PATH_OPS = frozenset({"JUMP", "NOP", "SWAP", "POP_TOP", "POP_EXCEPT", "COPY", "RETURN_VALUE"})


def _ends_in_jump(body: list[ast.stmt]) -> bool:
    """Does the block end in a statement that leaves it (control never falls off)?"""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))


def inherited_exits(follow: int | None, stop: int, exits: frozenset) -> frozenset:
    """The exits the walks inside a statement that goes on at ``follow`` keep from the block
    around it: all of them when the statement ends that block (its follow is the block's end,
    one of its exits, or past it), else none."""
    if follow is None or follow == stop or follow in exits or follow >= stop:
        return exits
    return frozenset()


def try_finally_node(body: list[ast.stmt], final: list[ast.stmt]) -> ast.Try:
    """``try: body finally: final``; a body that is one try/except without a finally takes the
    finally itself (``try/except/finally`` compiles as that try/except inside a try/finally)."""
    if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody and body[0].handlers:
        node = body[0]
        node.finalbody = final or [ast.Pass()]
        return node
    return ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])


def with_node(kind: type, item: ast.withitem, body: list[ast.stmt]) -> ast.stmt:
    """``with item: body`` (``kind``: With or AsyncWith); a body that is one with statement of
    the same kind takes the item first (``with a, b:`` compiles exactly as ``with a: with b:``)."""
    if len(body) == 1 and type(body[0]) is kind:
        node = body[0]
        node.items.insert(0, item)
        return node
    return kind(items=[item], body=body or [ast.Pass()])
