"""The control-flow graph layer: basic blocks with typed edges, dominators, post-dominators
and natural loops over the normalized instructions (read-only: nothing here changes them).

``blocks.py`` cuts instructions into blocks and types each edge; ``dominators.py`` computes
dominator and post-dominator trees (Cooper, Harvey and Kennedy's iterative algorithm);
``loops.py`` finds natural loops (a back edge is one whose target dominates its source);
``flow.py`` answers what reaches what on the instructions as they stand (the structuring layer
edits jumps as it reads), along the same typed edges, inside the part of the code a caller
lets it enter.
"""

from __future__ import annotations

from pellucid.decompiler.cfg.blocks import (
    CFG,
    NORMAL_FLOW,
    PLAIN_FLOW,
    Block,
    Edge,
    EdgeKind,
    build,
)
from pellucid.decompiler.cfg.dominators import DominatorTree, dominators, post_dominators
from pellucid.decompiler.cfg.flow import Reach, reach, reach_in_turn
from pellucid.decompiler.cfg.loops import Loop, natural_loops

__all__ = [
    "CFG",
    "NORMAL_FLOW",
    "PLAIN_FLOW",
    "Block",
    "DominatorTree",
    "Edge",
    "EdgeKind",
    "Loop",
    "Reach",
    "build",
    "dominators",
    "natural_loops",
    "post_dominators",
    "reach",
    "reach_in_turn",
]
