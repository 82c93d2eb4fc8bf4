"""A path's state in the translation validator: its stack, locals, heap of fresh objects,
steps so far and loop bookkeeping, and the errors that end or abandon a path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pellucid.decompiler.validation.terms import CALLER_HANDLING


class NotModelled(Exception):
    """The code does something this validator does not model (the message says what)."""


@dataclass
class Obj:
    """A list, set or dict the code built itself, followed concretely until it escapes."""

    kind: str  # "list" or "dict"
    items: list  # list: terms; dict: [key term, value term] pairs
    escaped: int | None = None  # its number among escaped objects, once escaped


@dataclass
class State:
    """One path's state: where it is, its values, and what it has done."""

    pc: int
    stack: list
    local: dict
    heap: dict
    path: list
    truths: dict = field(default_factory=dict)
    # the exception being handled (what ``sys.exception()``, a bare ``raise`` and the context of
    # a new exception see), and the one the path last recorded as seen
    handling: Any = CALLER_HANDLING
    handling_seen: Any = CALLER_HANDLING
    kwnames: tuple | None = None
    escapes: int = 0
    loops: frozenset = frozenset()  # heads of the loops this path runs one iteration of
    floor: int = 0  # fresh objects below this number were made before the loop (read-only)
    visits: int = 0  # backward jumps taken (a bound on loops run concretely)
    heads: dict = field(default_factory=dict)  # loop head -> the stack there
    functions: int = 0  # functions made on this path
    shown_functions: dict = field(default_factory=dict)  # made function -> its name once seen
    cells: dict = field(default_factory=dict)  # bound cells only this frame writes -> version
    loop_count: int = 0  # loops entered on this path
    holders: dict = field(default_factory=dict)  # object made before a loop -> who held it
    # (head, floor before it, holders before it) of the loops whose iteration the path is in,
    # outermost first
    inside: tuple = ()
    ended: bool = False  # the path has ended (returned, raised out, or looped back)
    joined: bool = False  # passed a join point since its node was last keyed (lockstep)
    jumped_back: bool = False  # forked onto a backward jump, not yet taken

    def fork(self) -> State:
        heap = {k: Obj(o.kind, list(o.items), o.escaped) for k, o in self.heap.items()}
        st = State(self.pc, list(self.stack), dict(self.local), heap, list(self.path),
                   dict(self.truths), self.handling, self.handling_seen, self.kwnames,
                   self.escapes)
        st.loops, st.floor, st.visits, st.heads = self.loops, self.floor, self.visits, self.heads
        st.functions, st.cells, st.loop_count = self.functions, self.cells, self.loop_count
        st.shown_functions = self.shown_functions
        st.holders, st.inside, st.joined = self.holders, self.inside, self.joined
        return st


class Live:
    """The live locals at each instruction, as sets made when first asked for."""

    def __init__(self, masks: list[int], names: list[str]) -> None:
        self.masks, self.names = masks, names
        self.sets: dict[int, frozenset] = {}

    def __getitem__(self, index: int) -> frozenset:
        got = self.sets.get(index)
        if got is None:
            m = self.masks[index]
            got = self.sets[index] = frozenset(
                name for k, name in enumerate(self.names) if m >> k & 1
            )
        return got


class PathEnd(Exception):
    """The path has ended (a return, a raise out of the frame, a loop's next iteration)."""


# What a symbolic step raises when the code has a shape the executor does not expect (a stack
# shallower than an instruction reads, a value of another kind than it takes): the step is
# not followed, and the code is not verified.
FOLLOW_ERRORS = (LookupError, TypeError, ValueError, AttributeError, AssertionError)
