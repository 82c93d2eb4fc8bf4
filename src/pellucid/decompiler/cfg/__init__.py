"""The control-flow graph layer: basic blocks with typed edges, dominators, post-dominators
and natural loops over the normalized instructions (read-only: nothing here changes them).

``blocks.py`` cuts instructions into blocks and types each edge; ``dominators.py`` computes
dominator and post-dominator trees (Cooper, Harvey and Kennedy's iterative algorithm);
``loops.py`` finds natural loops (a back edge is one whose target dominates its source).
"""

from __future__ import annotations

from pellucid.decompiler.cfg.blocks import CFG, NORMAL_FLOW, Block, Edge, EdgeKind, build
from pellucid.decompiler.cfg.dominators import DominatorTree, dominators, post_dominators
from pellucid.decompiler.cfg.loops import Loop, natural_loops

__all__ = [
    "CFG",
    "NORMAL_FLOW",
    "Block",
    "DominatorTree",
    "Edge",
    "EdgeKind",
    "Loop",
    "build",
    "dominators",
    "natural_loops",
    "post_dominators",
]
