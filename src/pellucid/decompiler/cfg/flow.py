"""Each instruction's typed edges, and what reaches what over the instructions as they stand.

The structuring layer edits jumps while it reads (a copy turned back into a jump, a re-raise
made a jump to the last one), so a question it asks mid-walk cannot use blocks built before:
:func:`reach` answers it on the instructions themselves, with the edge kinds of
:mod:`~pellucid.decompiler.cfg.blocks` (see its ``target_kind``), inside the part of the code
the caller lets it enter.  :func:`reach_in_turn` shares code out among starts, each taking
what it reaches first: how each instruction's home (whose code it is) is found.
"""

from __future__ import annotations

from typing import Callable, Container, Iterable, Sequence

from pellucid.decompiler.cfg.blocks import NORMAL_FLOW, EdgeKind
from pellucid.decompiler.instructions import TERMINAL, Instr


class Reach:
    """What :func:`reach` found."""

    __slots__ = ("reached", "left", "ended")

    def __init__(self, reached: set[int], left: set[int], ended: list[int]) -> None:
        self.reached = reached  # instructions run (never the end, n)
        self.left = left  # kept out: starts, or where an edge from ``reached`` leads
        self.ended = ended  # jumps run whose edges were not followed (in the order met)


_KINDS = (EdgeKind.JUMP, EdgeKind.BRANCH, EdgeKind.SETUP, EdgeKind.FALL, EdgeKind.EXCEPTION)
# kinds -> (jump, branch, setup, fall, exception): which edges a walk follows
_FOLLOWS: dict[frozenset[EdgeKind], tuple[bool, ...]] = {}


def _follows(kinds: frozenset[EdgeKind]) -> tuple[bool, ...]:
    """(jump, branch, setup, fall, exception): which edges a walk along ``kinds`` follows."""
    follows = _FOLLOWS.get(kinds)
    if follows is None:
        follows = _FOLLOWS[kinds] = tuple(kind in kinds for kind in _KINDS)
    return follows


def reach(
    ins: Sequence[Instr],
    starts: Iterable[int],
    kinds: frozenset[EdgeKind] = NORMAL_FLOW,
    *,
    handler_of: Sequence[int | None] | None = None,
    within: tuple[int, int] | None = None,
    part_of: Sequence[object] | None = None,
    part: object = None,
    avoid: Container[int] = (),
    stop_jump: Callable[[int], bool] | None = None,
    ends: Container[str] = TERMINAL,
) -> Reach:
    """The instructions run from the instructions ``starts`` along edges of ``kinds``.

    Exception edges go to ``handler_of[k]`` (the handler an exception at k goes to, or None).
    The walk enters only instructions in ``within`` (a range [a, b)), those k with
    ``part_of[k] == part`` (with ``part_of``: the code of one home, or the code no home has
    claimed yet), and none in ``avoid``; where it was kept out is ``left``.  An unconditional
    jump where ``stop_jump`` holds is run but none of its edges is followed (``ended``); control
    does not fall through an instruction in ``ends``.  An
    edge past the last instruction (the end) leads nowhere.  The walk is depth-first, a jump's
    target before the next instruction, so ``ended`` comes in the same order from the same
    instructions.  (The structuring passes ask this for each statement: it is kept lean.)"""
    jump, branch, setup, fall, exc = _follows(kinds)
    handlers = handler_of if exc else None
    n = len(ins)
    lo, hi = within if within is not None else (0, n)
    confined = within is not None or part_of is not None or bool(avoid)
    reached: set[int] = set()
    left: set[int] = set()
    ended: list[int] = []
    work = list(starts)
    while work:
        k = work.pop()
        if k >= n or k in reached:
            continue
        if confined and (
            not lo <= k < hi
            or (part_of is not None and part_of[k] is not part and part_of[k] != part)
            or k in avoid
        ):
            left.add(k)
            continue
        reached.add(k)
        i = ins[k]
        op = i.op
        if op == "JUMP":
            if stop_jump is not None and stop_jump(k):
                ended.append(k)
                continue
            if jump and i.target is not None:
                work.append(i.target)
        else:
            t = i.target
            if t is not None and (
                branch if branch == setup or not op.startswith("SETUP_") else setup
            ):
                work.append(t)
            if fall and op not in ends:
                work.append(k + 1)
        if handlers is not None:
            h = handlers[k]
            if h is not None:
                work.append(h)
    return Reach(reached, left, ended)


def reach_in_turn(
    ins: Sequence[Instr],
    seeds: Iterable[tuple[int, object]],
    owner: list,
    kinds: frozenset[EdgeKind] = NORMAL_FLOW,
) -> None:
    """For each (start, tag) of ``seeds`` in turn, ``owner[k] = tag`` for every instruction
    it reaches through instructions no one owns yet (``owner[k]`` None): code is whose start
    reaches it first, as each instruction's home is found.  The same as :func:`reach` with
    ``part_of=owner, part=None`` once per seed, without its cost per call (one seed per
    handler)."""
    jump, branch, setup, fall, _exc = _follows(kinds)
    n = len(ins)
    for start, tag in seeds:
        work = [start]
        while work:
            k = work.pop()
            if k >= n or owner[k] is not None:
                continue
            owner[k] = tag
            i = ins[k]
            op = i.op
            t = i.target
            if op == "JUMP":
                if jump and t is not None:
                    work.append(t)
            else:
                if t is not None and (
                    branch if branch == setup or not op.startswith("SETUP_") else setup
                ):
                    work.append(t)
                if fall and op not in TERMINAL:
                    work.append(k + 1)
