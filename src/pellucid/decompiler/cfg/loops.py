"""Natural loops: a back edge is an edge whose target dominates its source; the loop of a
header is the header and every block that reaches one of its back edges' sources without
going through the header."""

from __future__ import annotations

from dataclasses import dataclass

from pellucid.decompiler.cfg.blocks import CFG, NORMAL_FLOW, EdgeKind
from pellucid.decompiler.cfg.dominators import DominatorTree, dominators


@dataclass(frozen=True)
class Loop:
    header: int  # block index
    latches: frozenset[int]  # sources of the back edges
    body: frozenset[int]  # blocks of the loop, header included

    def contains(self, other: Loop) -> bool:
        return other.body <= self.body


def natural_loops(
    cfg: CFG, kinds: frozenset[EdgeKind] = NORMAL_FLOW, dom: DominatorTree | None = None
) -> list[Loop]:
    """The natural loops of ``cfg`` (one per header, back edges of one header merged),
    innermost first (smaller bodies first)."""
    dom = dom or dominators(cfg, kinds)
    latches: dict[int, set[int]] = {}
    for b in cfg.blocks:
        for t in cfg.successors(b.index, kinds):
            if dom.dominates(t, b.index):
                latches.setdefault(t, set()).add(b.index)
    loops = []
    for header, sources in latches.items():
        body = {header}
        work = [s for s in sources if s != header]
        while work:
            b = work.pop()
            if b in body or dom.idom[b] is None:  # (None: not reached from the entry)
                continue
            body.add(b)
            work.extend(cfg.predecessors(b, kinds))
        loops.append(Loop(header, frozenset(sources), frozenset(body)))
    loops.sort(key=lambda lp: (len(lp.body), lp.header))
    return loops
