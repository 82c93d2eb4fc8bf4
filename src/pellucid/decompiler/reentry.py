"""A with block entered in one place and continued in another: Dynamo's resume functions.

When a graph break happens inside ``with cm:``, the resume function Dynamo makes (torch 2.13)
starts with a prologue that enters the context manager again and then *jumps into the middle
of the original with body*, which follows in the same code object.  The exception table sends
both parts, the prologue's and the original body's, to the prologue's handler::

    BEFORE_WITH; POP_TOP; <stack values>; JUMP T   (protected by H)
    <dead: the prologue's own exits>
    H: <with handler>
    <the original code: its head is dead> T: <rest of the body> (protected by H) <exit> ...

No source has this layout, but it means one with statement whose body is the prologue's part
followed by the original part.  :func:`splice_reentries` lays the instructions out that way:
the part from ``T`` on moved right after the jump, each handler of the prologue (one per with it
entered again) in the place of its statement's dead one, the jump and the dead code dropped.
The structurer then reads with statements (``regions.with_.WithOps.do_with`` tells their exits
apart: Dynamo's code raises where a suppressed exception would go on).  Only that exact shape
is touched: everything else keeps its layout.

The prologue of any resume function jumps over the original function's head, which stays in
the code object; a try or with statement there leaves handlers in the exception table that
nothing can raise into.  The compiler (3.11+) leaves none, so where one is found, the code that
never runs is dropped (:func:`_without_dead_code`), and the jump over it with it.
"""

from __future__ import annotations

from pellucid.decompiler.cfg import PLAIN_FLOW, EdgeKind, reach
from pellucid.decompiler.instructions import TERMINAL, Instr

Entry = tuple[int, int, int, int, bool]


def splice_reentries(ins: list[Instr], entries: list[Entry]) -> tuple[list[Instr], list[Entry]]:
    """``ins`` and ``entries`` with each jump into a with body re-entered elsewhere spliced,
    then without protected code that never runs (see :func:`_without_dead_code`)."""
    if not entries:
        return ins, entries
    if any(i.op == "BEFORE_WITH" for i in ins):
        while True:
            spliced = _splice_one(ins, entries)
            if spliced is None:
                break
            ins, entries = spliced
    return _without_dead_code(ins, entries)


def _without_dead_code(ins: list[Instr], entries: list[Entry]) -> tuple[list[Instr], list[Entry]]:
    """A resume function jumps from its prologue over the original function's head, try and
    with statements included, whose handlers then stay in the table though nothing can raise
    into them.  The compiler (3.11+) leaves no such handler, so when one is there, whatever
    never runs goes: the jump over it then goes too, and the rest reads as the code it is."""
    n = len(ins)
    live = _live(ins, _covering(ins, entries))
    if all(t in live for _, _, t, _, _ in entries if t < n):
        return ins, entries
    return _relaid(ins, entries, [k for k in range(n) if k in live])


def _covering(ins: list[Instr], entries: list[Entry]) -> list[Entry | None]:
    """The exception-table entry covering each instruction (one more slot, None, for the end)."""
    entry_of: list[Entry | None] = [None] * (len(ins) + 1)
    for e in entries:
        for k in range(e[0], min(e[1], len(ins))):
            entry_of[k] = e
    return entry_of


def _live(ins: list[Instr], entry_of: list[Entry | None]) -> set[int]:
    """Instructions that can run: reached by jumps, fall-through and exception edges."""
    handler_of = [e[2] if e is not None else None for e in entry_of]
    return reach(ins, [0], PLAIN_FLOW | {EdgeKind.EXCEPTION}, handler_of=handler_of).reached


def _splice_one(ins: list[Instr], entries: list[Entry]) -> tuple[list[Instr], list[Entry]] | None:
    n = len(ins)
    entry_of = _covering(ins, entries)
    plain = reach(ins, [0], PLAIN_FLOW).reached
    live = _live(ins, entry_of)
    for J, j in enumerate(ins):
        T = j.target
        if j.op != "JUMP" or T is None or T <= J + 1 or T >= n or J not in plain:
            continue
        here, there = entry_of[J], entry_of[T]
        if here is None or there is None or here is there or here[2:] != there[2:]:
            continue
        H = here[2]
        if not (
            H + 1 < n
            and ins[H].op == "PUSH_EXC_INFO"
            and ins[H + 1].op == "WITH_EXCEPT_START"
            and here[0] > 0
            and ins[here[0] - 1].op == "BEFORE_WITH"
        ):
            continue
        # nothing between the jump and its target runs but handler code, and only the jump
        # leads to the target (no other jump, and nothing falls into it); nothing jumps to it
        if any(k in plain for k in range(J + 1, T)):
            continue
        if any(k in live and i.target in (J, T) and k != J for k, i in enumerate(ins)):
            continue
        before = ins[T - 1]
        if T - 1 in live and before.op not in TERMINAL and before.op != "JUMP":
            continue
        # Each handler of the prologue (one per with it entered, innermost first) goes where
        # the original statement's own, dead, handler was: after that statement's exit, as the
        # compiler lays out a with statement.  (Counts that differ: all of them there.)
        handlers: list[list[int]] = []
        for k in range(J + 1, T):
            if k in live:
                if ins[k].op == "PUSH_EXC_INFO" or not handlers:
                    handlers.append([])
                handlers[-1].append(k)
        handlers = [_cleanups_first(ins, block, entry_of) for block in handlers]
        places = [k for k in range(T, n) if k not in live and ins[k].op == "PUSH_EXC_INFO"]
        if len(places) != len(handlers):
            places = places[:1]
            handlers = [[k for block in handlers for k in block]]
        put = dict(zip(places, handlers))
        order = [k for k in range(J) if k in live]
        for k in range(T, n):
            order += put.get(k, [k] if k in live else [])
        if len(put) < len(handlers):  # (no place: at the end)
            order += handlers[-1]
        return _relaid(ins, entries, order)
    return None


def _cleanups_first(ins: list[Instr], block: list[int], entry_of: list[Entry | None]) -> list[int]:
    """A prologue's handler code, ``block`` (indices in order), with each with handler's
    clean-up (``COPY 3; POP_EXCEPT; RERAISE 1``) right after the handler's ``RERAISE 2``.

    3.14 lays the clean-up after the path of a suppressed exception, which then jumps over it
    to the prologue's code after the statement; 3.11-3.13 lay it before, and that path falls
    into its code.  Laid as there, the jump is to the next instruction, and goes."""
    order = list(block)
    for H in block:
        e = entry_of[H]
        if e is None or ins[H].op != "PUSH_EXC_INFO":
            continue
        C = e[2]
        if not (
            [i.op for i in ins[H : H + 4]] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START", "POP_JUMP_IF_TRUE", "RERAISE"]
            and [i.op for i in ins[C : C + 3]] == ["COPY", "POP_EXCEPT", "RERAISE"]
            and C > H + 3
            and all(k in order for k in range(C, C + 3))
        ):
            continue
        rest = [k for k in order if not C <= k < C + 3]
        at = rest.index(H + 3) + 1
        order = rest[:at] + [C, C + 1, C + 2] + rest[at:]
    return order


def _relaid(ins: list[Instr], entries: list[Entry], order: list[int]) -> tuple[list[Instr], list[Entry]]:
    """The instructions ``order`` names, in that order, with jump targets and exception
    ranges following them (a range cut in pieces by the new order becomes several)."""
    # a jump to the instruction now next to it goes (what jumped to it goes there too)
    kept = [
        k
        for p, k in enumerate(order)
        if not (ins[k].op == "JUMP" and p + 1 < len(order) and ins[k].target == order[p + 1])
    ]
    new_of = {old: new for new, old in enumerate(kept)}
    for p in reversed(range(len(order))):  # (backwards: the next may have gone too)
        if order[p] not in new_of:
            new_of[order[p]] = new_of[order[p + 1]]
    out = [ins[k] for k in kept]
    placed = set(kept)
    for new, i in enumerate(out):
        if i.target is not None:
            i.target = new_of[i.target]  # (a reached instruction's targets are reached)
        i.index = new
    runs: list[Entry] = []
    for s, e, t, depth, lasti in entries:
        if t not in new_of:
            continue  # the handler of dead code only
        covered = sorted(new_of[k] for k in range(s, e) if k in placed)
        for k in covered:
            if runs and runs[-1][1] == k and runs[-1][2:] == (new_of[t], depth, lasti):
                runs[-1] = (runs[-1][0], k + 1, *runs[-1][2:])
            else:
                runs.append((k, k + 1, new_of[t], depth, lasti))
    runs.sort()
    merged: list[Entry] = []
    for r in runs:
        if merged and merged[-1][1] == r[0] and merged[-1][2:] == r[2:]:
            merged[-1] = (merged[-1][0], r[1], *r[2:])
        else:
            merged.append(r)
    return out, merged
