"""3.14+ ``with`` statements, read as the ``BEFORE_WITH`` form of 3.11-3.13.

3.14 sets a ``with`` up with special-method loads, which leave two values under the body's
stack (``__exit__`` as a plain function and the manager as its ``self``) where ``BEFORE_WITH``
left one (the bound ``__exit__``)::

    COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0
    ...body...
    LOAD_CONST None; LOAD_CONST None; LOAD_CONST None; CALL 3      (3.13: CALL 2)
    handler: ... POP_EXCEPT; POP_TOP; POP_TOP; POP_TOP             (3.13: two POP_TOPs)

and every exception-table depth above counts the extra value.  A walk of the stack depths
marks each ``with``'s extra value.  The set-up becomes ``BEFORE_WITH`` (``BEFORE_ASYNC_WITH``),
the ``CALL 3`` whose ``self`` is the mark becomes ``CALL 2``, a ``POP_TOP`` of the mark goes,
and each exception-table entry's depth loses one per mark under it.  Code in which anything
else reaches a mark is left as it is: its ``LOAD_SPECIAL`` is then refused, never guessed.
"""

from __future__ import annotations

import dis
from types import CodeType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pellucid.decompiler.instructions.decode import Raw

_SETUP = ("COPY", "LOAD_SPECIAL", "SWAP", "SWAP", "LOAD_SPECIAL", "CALL")
_SETUP_ARGS = (1, None, 2, 3, None, 0)
# LOAD_SPECIAL's argument: 0 __enter__, 1 __exit__, 2 __aenter__, 3 __aexit__
_KIND = {(1, 0): "BEFORE_WITH", (3, 2): "BEFORE_ASYNC_WITH"}
_NO_FALL_THROUGH = frozenset(
    {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_BACKWARD",
     "JUMP_BACKWARD_NO_INTERRUPT"}
)
_HASJUMP = frozenset(getattr(dis, "hasjump", ())) | frozenset(dis.hasjrel)
_HASARG = frozenset(getattr(dis, "hasarg", ()))


class WithRewrite(NamedTuple):
    raw: list[Raw]
    # (start, end, target) offsets of an exception-table entry -> its depth as 3.13 counts it
    depths: dict[tuple[int, int, int], int]


def _setup_kind(raw: list[Raw], k: int) -> str | None:
    if k + 6 > len(raw):
        return None
    seq = raw[k : k + 6]
    if tuple(i.opname for i in seq) != _SETUP:
        return None
    if any(want is not None and i.arg != want for i, want in zip(seq, _SETUP_ARGS)):
        return None
    return _KIND.get((seq[1].arg, seq[4].arg))


def _effect(ins: Raw, jump: bool) -> int:
    arg = ins.arg if ins.opcode in _HASARG else None
    return dis.stack_effect(ins.opcode, arg, jump=jump)


def rewrite_withs(code: CodeType, raw: list[Raw]) -> WithRewrite | None:
    """The 3.13 reading of ``code``'s ``with`` statements, or None when it has none or they
    cannot be read that way."""
    setups = {k: kind for k in range(len(raw)) if (kind := _setup_kind(raw, k))}
    if not setups:
        return None
    index = {ins.offset: k for k, ins in enumerate(raw)}
    table = dis._parse_exception_table(code)  # type: ignore[attr-defined]
    entry_of: list = [None] * len(raw)
    for e in table:
        for k, ins in enumerate(raw):
            if e.start <= ins.offset < e.end:
                entry_of[k] = e
    # state before each instruction: (depth, depths of the marks under it)
    states: dict[int, tuple[int, tuple[int, ...]]] = {}
    exit_calls: set[int] = set()
    dropped: set[int] = set()
    rewritten: dict[int, int] = {}  # index -> the argument 3.13 would give it
    work: list[int] = []

    def reach(k: int, depth: int, marks: tuple[int, ...]) -> bool:
        old = states.get(k)
        if old is None:
            states[k] = (depth, marks)
            work.append(k)
            return True
        return old == (depth, marks)

    if not reach(0, 0, ()):
        return None
    setup_ends = {k + 5: k for k in setups}
    while work:
        k = work.pop()
        depth, marks = states[k]
        ins = raw[k]
        e = entry_of[k]
        if e is not None:
            handler = index.get(e.target)
            if handler is None or not reach(
                handler, e.depth + int(e.lasti) + 1, tuple(m for m in marks if m < e.depth)
            ):
                return None
        name = ins.opname
        moved = marks
        if name == "CALL" and ins.arg == 3 and depth - 4 in marks:
            exit_calls.add(k)
        elif name == "POP_TOP" and depth - 1 in marks:
            dropped.add(k)
        elif name in _STACK_OFFSET_OPS and any(m >= depth - ins.arg for m in marks):
            moved = _reach_under(ins, depth, marks, rewritten, dropped, k)
            if moved is None:
                return None
        succ: list[tuple[int, int]] = []  # (index, depth after)
        is_jump = ins.opcode in _HASJUMP and name != "END_ASYNC_FOR"
        if is_jump:
            target = index.get(ins.argval)
            if target is None:
                return None
            succ.append((target, depth + _effect(ins, True)))
        if name not in _NO_FALL_THROUGH and k + 1 < len(raw):
            succ.append((k + 1, depth + _effect(ins, False)))
        start = setup_ends.get(k)
        for nxt, new_depth in succ:
            kept = tuple(m for m in moved if m < new_depth)
            if len(kept) != len(moved) and k not in exit_calls and k not in dropped:
                return None  # something other than the exit call or a POP_TOP reached a mark
            if start is not None:
                # the set-up's last CALL: the manager was at depth - 1, `self` is now above it
                kept = kept + (states[start][0],)
            if not reach(nxt, new_depth, kept):
                return None
    return _apply(raw, setups, exit_calls, dropped, rewritten, states, table)


# instructions whose argument reaches that far down the stack
_STACK_OFFSET_OPS = frozenset({"SWAP", "COPY", "LIST_APPEND", "SET_ADD", "MAP_ADD"})


def _reach_under(
    ins: Raw, depth: int, marks: tuple[int, ...], rewritten: dict, dropped: set, k: int
) -> tuple[int, ...] | None:
    """An instruction reaching past a mark: its 3.13 form, recorded in ``rewritten`` or
    ``dropped``; the marks after it (None: no 3.13 form).  A return or break inside a
    ``with`` moves the value under the exit (3.14 ``SWAP 3; SWAP 2``, 3.13 ``SWAP 2``)."""
    low, top = depth - ins.arg, depth - 1
    between = sum(1 for m in marks if low < m < top)
    if ins.opname == "COPY":
        if low in marks:
            return None
        rewritten[k] = ins.arg - between
        return marks
    if ins.opname != "SWAP":
        return None
    if (low in marks) == (top in marks):
        if low not in marks:
            rewritten[k] = ins.arg - between
        else:
            dropped.add(k)
        return marks
    # a mark trades places with one value: a no-op without the mark, if nothing else lies
    # between them
    if ins.arg - 1 - between != 1:
        return None
    dropped.add(k)
    return tuple(sorted(top if m == low else low if m == top else m for m in marks))


def _apply(raw, setups, exit_calls, dropped, rewritten, states, table) -> WithRewrite:
    out: list[Raw] = []
    skip = 0
    for k, ins in enumerate(raw):
        if skip:
            skip -= 1
            continue
        if k in setups:
            out.append(ins._replace(opname=setups[k], opcode=-1, arg=None, argval=None, argrepr=""))
            skip = 5
        elif k in exit_calls:
            out.append(ins._replace(arg=2, argval=2))
        elif k in rewritten:
            out.append(ins._replace(arg=rewritten[k], argval=rewritten[k]))
        elif k not in dropped:
            out.append(ins)
    index = {ins.offset: k for k, ins in enumerate(raw)}
    depths = {}
    for e in table:
        state = states.get(index.get(e.start, -1))
        if state is not None:
            depths[(e.start, e.end, e.target)] = e.depth - sum(1 for m in state[1] if m < e.depth)
    return WithRewrite(out, depths)
