"""Dominator and post-dominator trees: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
Algorithm" (2001).

Blocks are numbered in reverse postorder from the root; each block's immediate dominator is
the intersection (walking up the tree by postorder number) of its processed predecessors',
repeated until nothing changes.  Post-dominators are the same on the reversed graph, rooted at
a virtual exit that every block without successors (a return, a raise, the end) leads to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pellucid.decompiler.cfg.blocks import CFG, NORMAL_FLOW, EdgeKind


@dataclass
class DominatorTree:
    """``idom[b]``: block b's immediate dominator (the root's is itself; None: b is not
    reached from the root).  For post-dominators the root is ``EXIT`` (-1), a virtual block."""

    root: int
    idom: list[int | None]

    def dominates(self, a: int, b: int) -> bool:
        """Whether every path from the root to ``b`` goes through ``a`` (a block dominates
        itself)."""
        if self.idom[b] is None:
            return False
        while b != a:
            parent = self.idom[b]
            if parent is None or parent == b:
                return False
            b = parent
        return True


EXIT = -1


def _solve(
    nodes: int, root: int, succ: Callable[[int], list[int]], pred: Callable[[int], list[int]]
) -> list[int | None]:
    """Immediate dominators of a graph of ``nodes`` nodes (indices 0..nodes-1)."""
    order: list[int] = []  # postorder
    visited = bytearray(nodes)
    visited[root] = 1
    stack = [(root, iter(succ(root)))]
    while stack:
        node, it = stack[-1]
        for s in it:
            if not visited[s]:
                visited[s] = 1
                stack.append((s, iter(succ(s))))
                break
        else:
            stack.pop()
            order.append(node)
    number = [-1] * nodes
    for k, node in enumerate(order):
        number[node] = k
    idom: list[int | None] = [None] * nodes
    idom[root] = root
    rpo = order[::-1]

    def intersect(a: int, b: int) -> int:
        while a != b:
            while number[a] < number[b]:
                a = idom[a]  # type: ignore[assignment]
            while number[b] < number[a]:
                b = idom[b]  # type: ignore[assignment]
        return a

    changed = True
    while changed:
        changed = False
        for node in rpo[1:]:
            new = None
            for p in pred(node):
                if idom[p] is None:
                    continue
                new = p if new is None else intersect(p, new)
            if new is not None and idom[node] != new:
                idom[node] = new
                changed = True
    return idom


def dominators(cfg: CFG, kinds: frozenset[EdgeKind] = NORMAL_FLOW, root: int = 0) -> DominatorTree:
    """The dominator tree of ``cfg`` from block ``root`` along edges of ``kinds``."""
    return DominatorTree(
        root,
        _solve(
            len(cfg.blocks),
            root,
            lambda b: cfg.successors(b, kinds),
            lambda b: cfg.predecessors(b, kinds),
        ),
    )


def post_dominators(cfg: CFG, kinds: frozenset[EdgeKind] = NORMAL_FLOW) -> DominatorTree:
    """The post-dominator tree of ``cfg`` along edges of ``kinds``: ``idom[b]`` is the block
    every path from b to an exit goes through first (``EXIT`` when none does; None when b
    reaches no exit, in a loop without one)."""
    n = len(cfg.blocks)
    exits = [b.index for b in cfg.blocks if not cfg.successors(b.index, kinds)]
    virtual = n  # the virtual exit, numbered after the blocks

    def succ(b: int) -> list[int]:  # edges of the reversed graph
        return exits if b == virtual else cfg.predecessors(b, kinds)

    def pred(b: int) -> list[int]:
        out = cfg.successors(b, kinds)
        return out if out else [virtual]

    idom = _solve(n + 1, virtual, succ, pred)
    tree: list[int | None] = [EXIT if d == virtual else d for d in idom[:n]]
    return DominatorTree(EXIT, tree)
