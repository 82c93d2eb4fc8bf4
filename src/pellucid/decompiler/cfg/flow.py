"""Each instruction's typed edges, and what reaches what over the instructions as they stand.

The structuring layer edits jumps while it reads (a copy turned back into a jump, a re-raise
made a jump to the last one), so a question it asks mid-walk cannot use blocks built before:
:func:`reach` answers it on the instructions themselves, with the edge kinds of
:mod:`~pellucid.decompiler.cfg.blocks` (see its ``target_kind``), inside the part of the code
the caller lets it enter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from pellucid.decompiler.cfg.blocks import NORMAL_FLOW, EdgeKind
from pellucid.decompiler.instructions import TERMINAL, Instr


@dataclass
class Reach:
    """What :func:`reach` found."""

    reached: set[int] = field(default_factory=set)  # instructions run (never the end, n)
    left: set[int] = field(default_factory=set)  # refused by ``enter``, an edge from ``reached`` leads there
    ended: list[int] = field(default_factory=list)  # reached, ``stop`` held (in the order met)


def reach(
    ins: Sequence[Instr],
    starts: Iterable[int],
    kinds: frozenset[EdgeKind] = NORMAL_FLOW,
    *,
    handler_of: Sequence[int | None] | None = None,
    enter: Callable[[int], bool] | None = None,
    stop: Callable[[int], bool] | None = None,
) -> Reach:
    """The instructions run from the instructions ``starts`` along edges of ``kinds``, each one
    let in by ``enter`` (all when None); where ``stop`` holds, an instruction is run but its
    edges are not followed.  Exception edges go to ``handler_of[k]`` (the handler an exception
    at k goes to, or None).  An edge past the last instruction (the end) leads nowhere.  The
    walk is depth-first, a jump's target before the next instruction, so ``ended`` comes in
    the same order from the same instructions."""
    n = len(ins)
    jump = EdgeKind.JUMP in kinds
    branch = EdgeKind.BRANCH in kinds
    setup = EdgeKind.SETUP in kinds
    fall = EdgeKind.FALL in kinds
    exc = handler_of if EdgeKind.EXCEPTION in kinds else None
    out = Reach()
    reached, left = out.reached, out.left
    work = list(starts)
    pop, push = work.pop, work.append
    while work:
        k = pop()
        if k >= n or k in reached:
            continue
        if enter is not None and not enter(k):
            left.add(k)
            continue
        reached.add(k)
        if stop is not None and stop(k):
            out.ended.append(k)
            continue
        i = ins[k]
        op = i.op
        t = i.target
        if t is not None and (
            jump if op == "JUMP" else setup if op.startswith("SETUP_") else branch
        ):
            push(t)
        if fall and op != "JUMP" and op not in TERMINAL:
            push(k + 1)
        if exc is not None:
            h = exc[k]
            if h is not None:
                push(h)
    return out
