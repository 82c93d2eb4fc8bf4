"""Basic blocks of a normalized instruction list, and typed edges between them.

A block starts at the entry, at every jump target and handler, after every instruction that
jumps or ends the flow, and where the handler protecting the code changes.  The last block,
``cfg.end``, is empty and sits at index ``n``: the place past the last instruction.  An edge
into it means running off the end of the code, which no source compiles to, so reaching it is
worth knowing (see :meth:`CFG.reach`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pellucid.decompiler.instructions import TERMINAL, Instr


class EdgeKind(enum.Enum):
    """How control goes from one block to the next."""

    FALL = "fall"  # falls through to the next instruction
    JUMP = "jump"  # an unconditional jump
    BRANCH = "branch"  # the taken side of a conditional jump, FOR_ITER's exit, SEND's end
    SETUP = "setup"  # a SETUP_* instruction's target (3.9/3.10): its block's handler
    EXCEPTION = "exception"  # an exception raised in the block goes to its handler


# the edges ordinary execution takes, with SETUP_*'s (the block-stack walks of 3.9/3.10 follow
# them as if they were taken: the handler's code is laid out there)
NORMAL_FLOW = frozenset({EdgeKind.FALL, EdgeKind.JUMP, EdgeKind.BRANCH, EdgeKind.SETUP})
# the edges ordinary execution takes, without SETUP_*'s (its handler is entered by an exception)
PLAIN_FLOW = frozenset({EdgeKind.FALL, EdgeKind.JUMP, EdgeKind.BRANCH})


def target_kind(op: str) -> EdgeKind:
    """The kind of the edge to the target of an instruction of opcode ``op`` (it has one)."""
    if op == "JUMP":
        return EdgeKind.JUMP
    if op.startswith("SETUP_"):
        return EdgeKind.SETUP
    return EdgeKind.BRANCH


@dataclass(frozen=True)
class Edge:
    source: int  # block index
    target: int  # block index
    kind: EdgeKind


@dataclass
class Block:
    """Instructions [start, end) that run one after the other."""

    index: int
    start: int
    end: int
    succs: list[Edge] = field(default_factory=list)
    preds: list[Edge] = field(default_factory=list)

    def __repr__(self) -> str:
        out = ", ".join(f"{e.kind.value}->{e.target}" for e in self.succs)
        return f"<block {self.index} [{self.start}, {self.end}) {out}>"


@dataclass
class CFG:
    """Blocks in code order (the last one is ``end``) and, per instruction, its block."""

    blocks: list[Block]
    block_of: list[int]  # instruction index (0..n) -> block index

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def end(self) -> Block:
        return self.blocks[-1]

    def successors(self, b: int, kinds: frozenset[EdgeKind] = NORMAL_FLOW) -> list[int]:
        return [e.target for e in self.blocks[b].succs if e.kind in kinds]

    def predecessors(self, b: int, kinds: frozenset[EdgeKind] = NORMAL_FLOW) -> list[int]:
        return [e.source for e in self.blocks[b].preds if e.kind in kinds]

    def reach(
        self, starts: Iterable[int], kinds: frozenset[EdgeKind] = NORMAL_FLOW
    ) -> tuple[list[bool], bool]:
        """(reached, off_end): which instructions run from the instructions ``starts`` along
        edges of ``kinds`` (one more slot, never set, for the end), and whether the end is
        reached.  A start inside a block reaches the rest of that block."""
        n = self.end.start
        seen = [False] * (n + 1)
        entered = bytearray(len(self.blocks))
        off_end = False
        end = self.end.index
        work: list[int] = []
        for s in starts:
            if s >= n:
                off_end = True
                continue
            b = self.blocks[self.block_of[s]]
            if s == b.start:
                work.append(b.index)
            elif not seen[s]:
                for k in range(s, b.end):
                    seen[k] = True
                work.extend(e.target for e in b.succs if e.kind in kinds)
        while work:
            b = work.pop()
            if entered[b]:
                continue
            entered[b] = 1
            if b == end:
                off_end = True
                continue
            block = self.blocks[b]
            for k in range(block.start, block.end):
                seen[k] = True
            work.extend(e.target for e in block.succs if e.kind in kinds)
        return seen, off_end


def build(ins: Sequence[Instr], handler_of: Sequence[int | None] | None = None) -> CFG:
    """The CFG of ``ins`` (normalized, targets as indices); ``handler_of`` gives, per
    instruction, the index of the handler an exception there goes to (None: none)."""
    n = len(ins)
    leader = bytearray(n + 1)
    leader[0] = 1
    leader[n] = 1
    for i in ins:
        k = i.index
        if i.target is not None:
            leader[min(i.target, n)] = 1
            leader[k + 1] = 1
        elif i.op in TERMINAL:
            leader[k + 1] = 1
    if handler_of is not None:
        for k in range(n):
            h = handler_of[k]
            if h is not None:
                leader[min(h, n)] = 1
            if k and h != handler_of[k - 1]:
                leader[k] = 1
    blocks: list[Block] = []
    block_of = [0] * (n + 1)
    start = 0
    for k in range(1, n + 1):
        if leader[k]:
            blocks.append(Block(len(blocks), start, k))
            start = k
    blocks.append(Block(len(blocks), n, n))  # the end
    for b in blocks:
        for k in range(b.start, b.end):
            block_of[k] = b.index
    block_of[n] = blocks[-1].index
    for b in blocks[:-1]:
        last = ins[b.end - 1]
        out: list[tuple[int, EdgeKind]] = []
        if last.target is not None:
            out.append((block_of[min(last.target, n)], target_kind(last.op)))
        if last.op not in TERMINAL and last.op != "JUMP":
            out.append((block_of[b.end], EdgeKind.FALL))
        if handler_of is not None:
            h = handler_of[b.start]
            if h is not None:
                out.append((block_of[min(h, n)], EdgeKind.EXCEPTION))
        for target, kind in out:
            edge = Edge(b.index, target, kind)
            b.succs.append(edge)
            blocks[target].preds.append(edge)
    return CFG(blocks, block_of)
