"""try/except/finally and with: regions derived from exception edges.

A mixin of the structure walker.  ``try_at(i)`` says whether a protected
region starts at instruction ``i`` (or a compiler-made copy of a finally body
or a with-exit call sits there); ``do_try`` structures it and returns the
index where the walk continues.

3.11+ (exception tables).  Every instruction has at most one handler, the
innermost.  A handler's own code is protected by its clean-up handler, whose
code is protected by the next handler out, so following "which handler covers
the first instruction of this handler" gives the nesting chain of every
instruction.  A ``try`` body is exactly the instructions whose chain contains
its handler, in the same *home* (the code reached by normal flow from the
function entry, or from one handler): that gives start and end of the body
without looking at opcode patterns.  Handler code is then read clause by
clause; a ``finally`` body is read from its exception-path copy, and the
copies the compiler inlined on every other exit path (and the ``__exit__``
calls of ``with``) are recognised by comparing instructions and skipped.
Code that a structured try/with owns in its handlers is marked unreachable
once structured, so that the linear walk (which on 3.12+ meets the handlers
at the end of the function) does not read it again.

3.9/3.10 (block stack).  ``_setup_blocks`` follows normal control flow with a
block stack, as CPython's ``markblocks`` does: SETUP_FINALLY/SETUP_WITH push a
block whose handler is the SETUP's target, POP_BLOCK pops it (so every
POP_BLOCK is paired with its SETUP) and a handler runs in an except block that
POP_EXCEPT closes.  Homes are flooded as on 3.11+, except that a handler's code
ends where it leaves its except block (the jump to the statement's follow).
The compiler inlines a finally body / the ``__exit__(None, None, None)`` call
right after each POP_BLOCK of the statement (return, break, continue and the
normal exit), so the copies are found through the pairing and checked against
the handler's copy.  3.10 also copies a small follow block (a ``return``) into
every path reaching it; those tails are recognised when all paths end alike.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pellucid.decompiler import values as V
from pellucid.decompiler.cfg import build as build_cfg
from pellucid.decompiler.decode import decode
from pellucid.decompiler.evaluate import const, name
from pellucid.decompiler.exceptgroups import ExceptGroupOps, is_star_clause_handler
from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    INVERSE_JUMPS,
    TABLE,
    TERMINAL,
    Instr,
)

STORE_OPS = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
DELETE_OPS = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})
# 3.10+ copy small exit blocks (returns) into every predecessor; 3.9 never does
COPIES_EXITS = TABLE.copies_exit_blocks


class ExcInfo(V.Marker):
    """The previous exception PUSH_EXC_INFO saves under the current one."""

    def __repr__(self) -> str:
        return "EXC_INFO"


class CaughtException(V.Marker):
    """The exception a handler is running for."""

    def __repr__(self) -> str:
        return "EXC"


@dataclass(eq=False)
class WithExit(V.Marker):
    """The bound ``__exit__`` a with statement keeps on the stack during its body."""

    ctx: ast.expr


@dataclass(eq=False)
class WithEnter(V.Marker):
    """The value of ``__enter__()``: stored into the as-target or popped."""

    ctx: ast.expr


# instructions an exit path runs between a try body and where it goes: unwinding, and the jump
_UNWINDING = frozenset({"NOP", "POP_TOP", "SWAP", "POP_EXCEPT", "COPY", "JUMP", "RETURN_VALUE", "RETURN_CONST", "END_FOR"})


@dataclass
class Copy:
    """A compiler-made copy of a finally body / with exit: skip, apply stack effect."""

    length: int
    kind: str  # "finally" | "with" | "skip"
    end: int = -1  # where the statement's normal exit continues
    never_ends: bool = False  # a finally body that returns or raises on every path


@dataclass(eq=False)
class Handler:
    target: int
    kind: str  # try | with | cleanup | name_cleanup | comprehension
    depth: int
    lasti: bool
    ranges: list = field(default_factory=list)


class ExceptionStructure(ExceptGroupOps):
    # ------------------------------------------------------------ set-up
    def _exc_ready(self) -> None:
        """Set up the exception structures on first use (most code has none to ask about)."""
        if not hasattr(self, "_copies"):
            self._exc_setup()

    def _exc_setup(self) -> None:
        self._copies: dict[int, Copy] = {}
        # start of a finally body's copy -> the loop head its path goes back to, when that
        # is not the code after it (see _graph_copy)
        self._back_to_loop: dict[int, int] = {}
        self._started: set[int] = set()
        self._with_flags: dict[int, str] = {}  # with statement -> its flag (do_with)
        # each with being walked whose suppressed path raises or leaves the with around it:
        # (where that path starts, its flag), innermost last
        self._raising_withs: list[tuple[int, str]] = []
        self._handlers: dict[int, Handler] = {}
        # an instruction left dead by _thread_clause_continues or _undo_exit_copies -> the live
        # ones that do its work now: the clause jumps threaded past it, or its twin
        self._stands_for: dict[int, list[int]] = {}
        self._cover: list[int | None] = [None] * (self.n + 1)
        self.home: list[int | None] = [None] * (self.n + 1)
        self._exc_error: str | None = None
        self._chains = None
        if not TABLE.has_exception_table:
            self._setup_blocks()
            return
        for start, end, target, depth, lasti in self.exc_entries:
            h = self._handlers.get(target)
            if h is None:
                h = self._handlers[target] = Handler(target, self._classify(target), depth, lasti)
            h.ranges.append((start, end))
            for k in range(start, end):
                self._cover[k] = target
        self._flood_homes()
        self._dead_copy: set[int] = set()
        self._fin_exits: dict[int, tuple[int, frozenset, int]] = {}
        self._fin_past: dict[int, int] = {}
        self._undone: dict[int, tuple] = {}
        self._joined_copies: set[int] = set()
        self._merge_finally_exits()
        if TABLE.copies_exits_without_line:
            self._undo_exit_copies()
            self._thread_clause_continues()

    def _classify(self, t: int) -> str:
        ins = self.ins
        ops = [ins[k].op for k in range(t, min(t + 4, self.n))]
        if ops[:2] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"]:
            return "with"
        if ops[:1] == ["PUSH_EXC_INFO"]:
            return "try"
        if ops[:3] == ["COPY", "POP_EXCEPT", "RERAISE"]:
            return "cleanup"
        if (
            len(ops) == 4
            and ops[0] == "LOAD_CONST"
            and ins[t].argval is None
            and ops[1] in STORE_OPS
            and ops[2] in DELETE_OPS
            and ops[3] == "RERAISE"
        ):
            return "name_cleanup"
        if ops[:2] == ["SWAP", "POP_TOP"]:
            return "comprehension"
        if is_star_clause_handler(ins, t):
            return "star_clause"
        return "other"

    def _succ(self, k: int) -> list[int]:
        ins = self.ins[k]
        out = []
        if ins.target is not None:
            out.append(ins.target)
        if ins.op not in TERMINAL and ins.op != "JUMP":
            out.append(k + 1)
        return out

    def _flood_homes(self) -> None:
        """home[k]: -1 for code reached from the entry, else the handler whose code it is."""
        home, ins, n = self.home, self.ins, self.n
        if not self._handlers:
            # only the entry's code: __init__ found where it reaches (nothing changed since)
            init = self.initially_reachable
            for k in range(n):
                if init[k]:
                    home[k] = -1
            return

        def flood(start: int, tag: int) -> None:
            work = [start]
            while work:
                k = work.pop()
                if k >= n or home[k] is not None:
                    continue
                home[k] = tag
                i = ins[k]  # (self._succ(k), inline: this runs for every instruction)
                if i.target is not None:
                    work.append(i.target)
                if i.op not in TERMINAL and i.op != "JUMP":
                    work.append(k + 1)

        flood(0, -1)
        pending = [h for h in self._handlers.values() if h.kind in ("try", "with")]
        while pending:
            ready = [
                h
                for h in pending
                if any(home[k] is not None for a, b in h.ranges for k in range(a, b))
            ]
            if not ready:
                break
            for h in ready:
                pending.remove(h)
            for h in sorted(ready, key=lambda h: h.target):
                flood(h.target, h.target)
        for h in pending:
            flood(h.target, h.target)

    def _merge_finally_exits(self) -> None:
        """A finally body that ends in more than one place (an ``if`` as its last
        statement) has a ``RERAISE 0`` at each end of its exception-path copy: the
        compiler copied the one after the body into each jump to it.  Turn the
        copies back into jumps to the end, so the body reads as the source's."""
        ins = self.ins
        for H, h in self._handlers.items():
            if h.kind != "try" or not self._is_finally(H):
                continue
            C = self._cover[H]
            if C is None or self._handlers[C].kind != "cleanup":
                continue
            # (a copy may end a nested try's clause: its home is that handler's)
            rs = [
                k
                for k in range(H + 1, self.n)
                if self.home[k] is not None
                and self.home[k] >= H
                and ins[k].op == "RERAISE"
                and ins[k].arg == 0
                and self._cover[k] == C
            ]
            if not rs:
                continue
            E = self._finally_past_loop(H, C, rs[-1])
            if E is None:
                if len(rs) < 2:
                    continue
                E = rs[-1]
                while E - 1 in rs:
                    E -= 1
            rset = set(rs)
            jumps = set()
            for k in range(H + 1, E):
                cur = ins[k]
                if k in rset:
                    ins[k] = Instr("JUMP", None, E, cur.offset, line=cur.line, target=E, index=k, raw="JUMP (finally end)")
                    jumps.add(k)
                elif cur.target in rset and cur.target != E:
                    ins[k] = replace(cur, target=E, argval=E)
            self._fin_exits[H] = (E, frozenset(jumps), rs[-1])
            if self.home[E] != H:
                # E ends a nested try's clause: that try's re-raise and cleanup follow
                k = E + 1
                while k < C and self.home[k] is not None and self.home[k] > H:
                    k += 1
                self._fin_past[H + 1] = k - 1

    def _finally_past_loop(self, H: int, C: int, last: int) -> int | None:
        """Where the exception-path copy of a finally body ends when it ends in a loop left
        only by ``break`` (``while True``): the compiler copied the re-raise after the loop
        into each break, so the copy's last re-raise (``last``) lies inside the loop, whose
        back edge comes after it.  None when the copy ends at a re-raise."""
        ins = self.ins
        past = [k for k in range(last + 1, C) if self.home[k] is not None and self.home[k] >= H]
        if not past or any(self.home[k] is not None for k in range(past[-1] + 1, C)):
            # (the loop's code runs to the clean-up C, or to the unreached clean-up of a try
            # in it: 3.14+ end the loop at its clause's jump back, not at a block past it)
            return None
        if not any(
            ins[k].op == "JUMP" and ins[k].target is not None and H < ins[k].target <= last
            for k in past
        ):
            return None
        return C

    def _match_finally(self, b: int, a: int, L: int, jumps: frozenset) -> int:
        """Length of a normal-path copy at b of the finally body [a, a+L) whose
        exits (``jumps``, and jumps to a+L) go to one place X after it, or 0.  An
        exit of the copy is a jump to X, a jump to the copy's end, or a copy of
        the small exit block (``return``) at X; the copy may end in one."""
        ins = self.ins
        i = j = 0
        rel: dict[int, int] = {}
        inner = []
        outs = []
        tails = []
        past = []
        while i < L:
            if b + j >= self.n:
                return 0
            x, y = ins[a + i], ins[b + j]
            rel[i] = j
            if a + i in jumps:
                if y.op == "JUMP" and y.target is not None:
                    outs.append(y.target)
                    i += 1
                    j += 1
                    continue
                t = self._exit_tail_len(b + j)
                if not t:
                    return 0
                tails.append((b + j, t))
                i += 1
                j += t
                continue
            if x.op != y.op:
                return 0
            if x.target is not None or y.target is not None:
                if x.target is None or y.target is None:
                    return 0
                if x.target == a + L:
                    outs.append(y.target)
                elif a <= x.target < a + L:
                    inner.append((x.target - a, y.target))
                elif x.target > a + L and x.target <= self._fin_past.get(a, -1):
                    past.append((x.target - (a + L), y.target))
                elif x.target != y.target:
                    return 0
            elif _key(x.argval) != _key(y.argval):
                return 0
            i += 1
            j += 1
        rel[L] = j
        if any(yt != b + rel.get(xr, -1) for xr, yt in inner):
            return 0
        end = b + j
        if past and not self._past_tail_matches(a + L, end, past):
            return 0
        if past and end in self._undone and any(q == self._undone[end][0] for q, _ in tails):
            self._redo_exit_copy(end)
        if end < self.n and ins[end].op == "JUMP":
            # the statement continues with a jump (over 3.11 handlers, back to a
            # loop): exits reach its target, directly or through a copy of the jump
            goal = ins[end].target
            if tails or any(b <= t < end for t in outs):
                return 0
            for t in outs:
                if t != end and t != goal and not (ins[t].op == "JUMP" and ins[t].target == goal):
                    return 0
            if any(t != goal for t in outs):
                self._joined_copies.add(b)  # exits meet at the jump: it follows the statement
            return j
        far = {t for t in outs if t != end}
        X = max(far) if far else end
        if b <= X < end:
            return 0
        length = j
        if X != end:
            # copies of the exit block after the body, one per exit (3.12+): part of
            # the copy; the last one is where the statement continues
            p = end
            starts = set()
            while p < X:
                t = self._exit_tail_len(p)
                if not t or not self._same(p, X, t):
                    return 0
                starts.add(p)
                p += t
            if p != X or not far - {X} <= starts:
                return 0
            length = X - b
        for q, t in tails:
            if not self._same(q, X, t):
                return 0
        if X == end and outs and ins[end].op != "RETURN_VALUE":
            # its exits jump to its end: the statement ends there (unless that is the
            # return of a value computed before the copy, inside the statement)
            self._joined_copies.add(b)
        return length

    def _thread(self, k: int, seen: set | None = None) -> int:
        """Where an unconditional jump chain starting at k leads (the jumps
        passed are added to ``seen``)."""
        seen = set() if seen is None else seen
        while k < self.n and self.ins[k].op == "JUMP" and k not in seen:
            seen.add(k)
            k = self.ins[k].target
        return k

    def _exit_places(self, exits: frozenset) -> set[int]:
        """Where a block's exits lead, each past NOPs and through jump chains, and themselves."""
        return set(exits) | {self._past_nops(self._thread(x)) for x in exits}

    def _past_nops(self, k: int) -> int:
        """``k``, or the first instruction after the NOPs there, through jump chains."""
        seen: set = set()
        while k < self.n and self.ins[k].op == "NOP" and k not in seen:
            seen.add(k)
            k = self._thread(k + 1, seen)
        return k

    def _finally_end_len(self, k: int) -> int:
        """Length of the unwinding of a finally's exception-path copy at k (a
        return/break/continue leaving the body): ``POP_TOP; POP_EXCEPT``, or
        ``SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT`` around a return value, with the
        POP_TOP (of the exception) under the clean-up of a finally handler; else 0."""
        if not TABLE.has_exception_table:
            return self._finally_end_len39(k)
        ops = [(self.ins[q].op, self.ins[q].arg) for q in range(k, min(k + 4, self.n))]
        if [o for o, _ in ops[:2]] == ["POP_TOP", "POP_EXCEPT"]:
            n, p = 2, k
        elif ops == [("SWAP", 2), ("POP_TOP", ops[1][1]), ("SWAP", 2), ("POP_EXCEPT", ops[3][1])]:
            n, p = 4, k + 1
        else:
            return 0
        C = self._cover[p]
        if C is None or self._handlers[C].kind != "cleanup":
            return 0
        fin = any(
            self._cover[H] == C and h.kind == "try" and self._is_finally(H) for H, h in self._handlers.items()
        )
        return n if fin else 0

    def _finally_end_len39(self, k: int) -> int:
        """3.9/3.10: ``POP_TOP`` x3; ``POP_EXCEPT`` (the exception and its saved
        info), with ``ROT_FOUR`` around the pops for a return value; else 0."""
        ops = [self.ins[q].op for q in range(k, min(k + 6, self.n))]
        if ops[:4] == ["POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT"]:
            return 4
        if ops == ["ROT_FOUR", "POP_TOP", "POP_TOP", "POP_TOP", "ROT_FOUR", "POP_EXCEPT"]:
            return 6
        return 0

    def _in_finally_exit(self, k: int) -> bool:
        """Is k in the straight-line exit (after ``_finally_end_len`` unwinding) of
        a return/break/continue leaving a finally body from a nested clause?"""
        for j in range(k - 1, max(k - 8, -1), -1):
            if self.home[j] != self.home[k]:
                return False
            if self._finally_end_len(j) and self._cover[j] is not None:
                return True
            if j < k - 1 and (self.ins[j].target is not None or self.ins[j].op in TERMINAL):
                return False
        return False

    def _exit_path_matches(self, x: int, y: int) -> set[int] | None:
        """The rest of an exit from a finally body: the same code at x (exception-path
        copy, after its unwinding) and y (normal-path copy), under the same handler, each
        path ending in a return or a jump to the same place.  Conditional jumps are
        followed on both sides (a `return` through an enclosing finally body's copy that
        holds an if), and then every path must end in a return: a jump out of an if's path
        (a loop's `break` or `continue` in the enclosing finally body) is where that path
        goes on, which the copy cannot say.  Returns the instructions of y's side, or None."""
        ins = self.ins
        used: set[int] = set()
        work = [(x, y)]
        seen: set[tuple[int, int]] = set()
        branched = False  # (past an if, every path must end in a return)
        while work:
            x, y = work.pop()
            while True:
                x = self._thread(x)
                y = self._thread(y, used)
                if x >= self.n or y >= self.n:
                    return None
                if (x, y) in seen:
                    break
                if x == y:
                    if branched:
                        return None  # (a path of an if that goes on elsewhere: a loop jump)
                    break  # (both continue at the same place: a jump out, threaded)
                seen.add((x, y))
                a, b = ins[x], ins[y]
                if a.op != b.op or self._cover[x] != self._cover[y]:
                    return None
                used.add(y)
                if a.op == "RETURN_VALUE":
                    break
                if a.op in CONDITIONAL_JUMPS and b.target is not None:
                    work.append((a.target, b.target))
                    branched = True
                elif a.target is not None or a.op in TERMINAL or _key(a.argval) != _key(b.argval):
                    return None
                x += 1
                y += 1
        return used

    def _graph_copy(self, b: int, H: int, R: int, C: int) -> tuple[int, frozenset] | None:
        """A normal-path copy at b of the finally body of H (exception-path copy
        [H+1, R)) compared as a flow graph: instructions paired along jumps,
        fall-throughs and exception edges (nested handlers pair with nested
        handlers, the finally's clean-up C with the handler around the
        statement), unconditional jumps followed, and an exit of the body
        (return/break/continue) allowed to lack the exception copy's unwinding.
        3.12+ put the normal copy's nested handlers out of line, 3.11+ add that
        unwinding: a linear comparison sees neither.  Returns (length of the
        contiguous copy at b, the copy's instructions outside it) or None."""
        ins = self.ins
        hmap: dict = {C: self._cover[C]}
        hrev: dict = {self._cover[C]: C}
        pairs: dict[int, int] = {}
        rpairs: dict[int, int] = {}
        used: set[int] = set()
        exits: set[int] = set()
        ends: set[int] = set()
        delta = None

        def inside(x: int) -> bool:
            hx = self.home[x]
            return hx == H or (hx is not None and hx >= 0 and self._in(hx, C)) or self._in(x, C)

        work = [(H + 1, b)]
        while work:
            x, y = work.pop()
            x = self._thread(x)
            if x == R:
                ends.add(y)
                continue
            passed: set[int] = set()
            y = self._thread(y, passed)
            used |= passed
            if x >= self.n or y >= self.n:
                return None
            if not inside(x):
                if x != y:
                    return None
                continue
            if x in pairs:
                if pairs[x] != y:
                    # 3.12+ copy a small block ending in a return into each jump to it
                    t = self._exit_tail_len(y)
                    if not t or not self._same(pairs[x], y, t) or used & set(range(y, y + t)):
                        return None
                    used |= set(range(y, y + t))
                continue
            if y in used and y not in exits:
                if self._copied_end_tail(rpairs.get(y), x, R):
                    continue  # 3.13 copied the end of the exception-path copy, not the other's
                return None
            skip = self._finally_end_len(x)
            rest = None
            if skip:
                # (a copy on a return's path first drops the pending return value)
                for drop in ([], [("POP_TOP", None)], [("SWAP", 2), ("POP_TOP", None)]):
                    if [(ins[q].op, ins[q].arg) for q in range(y, y + len(drop))] == drop:
                        rest = self._exit_path_matches(x + skip, y + len(drop))
                        if rest is not None:
                            rest |= set(range(y, y + len(drop)))
                            break
            if rest is not None:
                if rest & (used - exits):
                    return None  # (exits may share their return)
                used |= rest
                exits |= rest
                pairs[x] = y
                continue
            a, c = ins[x], ins[y]
            swapped = INVERSE_JUMPS.get(a.op) == c.op  # one copy's jump threaded past the other's
            if (a.op != c.op and not swapped) or (a.target is None) != (c.target is None):
                return None
            if a.target is None and _key(a.argval) != _key(c.argval):
                return None
            pairs[x] = y
            rpairs.setdefault(y, x)
            used.add(y)
            hx, hy = self._cover[x], self._cover[y]
            if hx in hmap:
                if hmap[hx] != hy:
                    return None
            else:
                if hy is None or hy in hrev or hx is None:
                    return None
                gx, gy = self._handlers[hx], self._handlers[hy]
                d = gx.depth - gy.depth
                if gx.kind != gy.kind or gx.lasti != gy.lasti or (delta is not None and d != delta):
                    return None
                delta = d
                hmap[hx], hrev[hy] = hy, hx
                work.append((hx, hy))
            if swapped:
                work += [(a.target, y + 1), (x + 1, c.target)]
                continue
            if a.target is not None:
                work.append((a.target, c.target))
            if a.op not in TERMINAL and a.op != "JUMP":
                work.append((x + 1, y + 1))
        home = self.home[b]
        main = [k for k in used if self.home[k] == home]
        if not main or min(main) != b:
            return None
        F = max(main) + 1
        if len({self._thread(y) for y in ends}) > 1:
            # 3.12+ copy the small exit block after the statement (a return) into
            # each end of the body: the copies after the contiguous part are part
            # of it, the last one is where the statement continues
            t = self._exit_tail_len(F)
            if not t or any(not self._same(F, y, t) for y in ends) or used & ends:
                return None
            while F + t in ends:
                used |= set(range(F, F + t))
                F += t
            for y in ends:
                if y != F:
                    used |= set(range(y, y + t))
        elif ends and not (F in ends or self._thread(F) in {self._thread(y) for y in ends}):
            T = self._thread(next(iter(ends)))
            if not (T < b and T in self.latch):
                return None  # (unless the body's end goes back to the loop around the statement)
            self._back_to_loop[b] = T
            if ins[F - 1].op not in TERMINAL and ins[F - 1].op != "JUMP":
                # the copy's end goes back to the loop, yet its last instruction falls into
                # F: another exit of the finally body (its `break`) goes on there, and F is
                # not where this copy's path continues (a `continue`'s copy, not the normal
                # exit's)
                return None
        if any(k not in used and self.home[k] is not None for k in range(b, F)):
            return None
        extra = frozenset(k for k in used if not b <= k < F)
        if any(self.home[k] == home for k in extra):
            return None
        return F - b, extra

    def _copied_end_tail(self, x1: int | None, x2: int, R: int) -> bool:
        """Is the code at x2 a copy of the code at x1 up to the end R of a finally body's
        exception-path copy (the compiler copied the small block ending in the re-raise
        into each jump to it, in that copy only)?"""
        if x1 is None or x1 == x2:
            return False
        ins = self.ins
        for jumping, last in ((x1, x2), (x2, x1)):
            for d in range(8):
                a, b = ins[jumping + d], ins[last + d]
                if last + d == R:
                    if a.op == "JUMP" and a.target == R:
                        return True
                    break
                if a.op != b.op or a.target is not None or b.target is not None or _key(a.argval) != _key(b.argval):
                    break
        return False

    def _past_tail_matches(self, R: int, end: int, past: list) -> bool:
        """3.12+: a nested try's clause in the finally body jumps past the body's
        re-raise R (to the clause's own re-raise after it); in the normal-path copy
        the same code follows the copy's exit at ``end``."""
        if self.ins[end].op != "JUMP" and not self._exit_tail_len(end):
            return False
        K = max(d for d, _ in past)
        base = {yt - d + 1 for d, yt in past}
        if len(base) != 1:
            return False
        p = base.pop()
        if not end < p <= end + 8 or any(self.ins[k].op != "NOP" and self._cover[k] is not None for k in range(end, p)):
            return False
        if not self._same(R + 1, p, K):
            return False
        self._claim_block(p, p + K)  # the copy's clause re-raise
        return True

    def _redo_exit_copy(self, j: int) -> None:
        """Put back an exit copy that ``_undo_exit_copies`` turned into a jump to
        its twin, when the twin is inside a finally body's normal-path copy (the
        copy's clause then ends in the statement's follow, as in the handler)."""
        _twin, L, homes, old = self._undone.pop(j)
        self.ins[j] = old
        for q in range(j, j + L):
            self.home[q] = homes[q - j]
            self._dead_copy.discard(q)
            self.reachable[q] = True
            self.initially_reachable[q] = True

    def _exit_tail_len(self, k: int) -> int:
        """Length of straight-line code at k ending in RETURN_VALUE (a copy of a
        small exit block), else 0."""
        q = k
        while q < self.n and q - k < 8:
            cur = self.ins[q]
            if cur.op == "RETURN_VALUE":
                return q + 1 - k
            if cur.target is not None or cur.op in TERMINAL:
                return 0
            q += 1
        return 0

    def _thread_clause_continues(self) -> None:
        """3.12+: an except clause ending ``POP_EXCEPT; [name clean-up;] JUMP t`` where t
        is itself a jump back (a loop's continue shared by the clauses) jumps there directly."""
        ins = self.ins
        threaded: set[int] = set()
        homed = self._indices_by_home()
        for H, h in self._handlers.items():
            if h.kind != "try":
                continue
            for k in homed.get(H, ()):
                if not H < k < self.n - 1:
                    continue
                q = self._clause_end_jump(k) if self.home[k] == H else None
                if q is None:
                    continue
                j = ins[q]
                t = ins[j.target]
                if t.op == "JUMP" and t.target is not None and t.target < t.index and t.index != j.index:
                    ins[q] = replace(j, target=t.target, argval=t.target)
                    threaded.add(t.index)
                    self._stands_for.setdefault(t.index, []).append(q)
        for t in threaded:
            falls_in = t > 0 and ins[t - 1].op not in TERMINAL and ins[t - 1].op != "JUMP"
            if not falls_in and not any(i.target == t for i in ins):
                self.home[t] = None  # no longer reached

    def _indices_by_home(self) -> dict[int, list[int]]:
        """Handler -> the indices whose innermost handler it is, in order: a pass over each
        handler's own code, not over everything after it (linear in the code, not quadratic)."""
        homed: dict[int, list[int]] = {}
        for k, H in enumerate(self.home):
            if H is not None:
                homed.setdefault(H, []).append(k)
        return homed

    def _undo_exit_copies(self) -> None:
        """3.12+ copy a small exit block (``return x``) into every jump to it, so
        an except clause ends ``POP_EXCEPT; return x`` where the source continues
        after the try.  Where the try's normal path reaches the same code from the
        same line, the copy is turned back into the jump it replaced (the 3.11
        shape); a clause's own ``return`` computes its value before POP_EXCEPT."""
        ins = self.ins
        homed = self._indices_by_home()  # (the loop only clears homes: checked again below)
        for H, h in self._handlers.items():
            if h.kind != "try":
                continue
            for k in homed.get(H, ()):
                if k <= H or ins[k].op != "POP_EXCEPT" or self.home[k] != H:
                    continue
                if self._finally_end_len(k - 1) == 2 or self._finally_end_len(k - 3) == 4:
                    continue  # a return leaving an enclosing finally body: not this clause's end
                j = k + 1
                if (
                    j + 2 < self.n
                    and ins[j].op == "LOAD_CONST"
                    and ins[j].argval is None
                    and ins[j + 1].op in STORE_OPS
                    and ins[j + 2].op in DELETE_OPS
                    and ins[j + 1].argval == ins[j + 2].argval
                ):
                    j += 3
                L = self._return_tail(j, H)
                if L is not None:
                    twin = self._tail_twin(H, j, L)
                elif j + 1 < self.n and ins[j].op == "POP_EXCEPT" and ins[j + 1].op == "JUMP":
                    # 3.13: the end of an enclosing except clause (``POP_EXCEPT; JUMP``)
                    # copied into this clause: the try's body falls into the original
                    L = 2
                    home, e = self._body_end(H)
                    twin = e if home is not None and self.home[e] == home and self._same(e, j, 2) else None
                else:
                    continue
                if twin is None:
                    continue
                old = ins[j]
                self._undone[j] = (twin, L, [self.home[q] for q in range(j, j + L)], old)
                ins[j] = Instr(
                    "JUMP", None, twin, old.offset, line=old.line, target=twin, index=j, raw="JUMP (exit copy)"
                )
                for q in range(j + 1, j + L):
                    self.home[q] = None
                    self._dead_copy.add(q)
                    self._stands_for.setdefault(q, []).append(twin + q - j)

    def _exit_jump_after(self, e: int, H: int, home: int) -> frozenset:
        """3.11: the jump over the handlers that ends a try body, when only a nested
        with/try's handler code (inline) separates it from the body: jumps to it
        end the body."""
        j = H - 1
        if (
            TABLE.inline_handlers
            and e < j
            and self.ins[j].op == "JUMP"
            and self.home[j] == home
            and all(self.home[q] != home for q in range(e, j))
        ):
            return frozenset({j})
        return frozenset()

    def _check_no_raise_after_clause(self, b0: int, b1: int, H: int) -> None:
        """A bare ``raise`` after a clause's POP_EXCEPT re-raises the exception
        handled outside the clause (3.12+ copy a ``raise`` following the try into
        the clause): written inside the clause it would raise the clause's own."""
        ins = self.ins
        for k in range(b0, min(b1, self.n)):
            if ins[k].op != "RAISE_VARARGS" or ins[k].arg != 0 or self.home[k] != H:
                continue
            p = k - 1
            if p - 2 >= b0 and ins[p].op in DELETE_OPS and self._name_cleanup_at(p - 2, ins[p].argval):
                p -= 3
            if p >= b0 and ins[p].op == "POP_EXCEPT" and self.home[p] == H:
                raise self.fail("bare raise after its except clause ended", ins[k])

    def _return_tail(self, j: int, H: int) -> int | None:
        """Length of straight-line code at j in handler H's own code that ends in
        a return or a raise and starts a statement (nothing it uses was pushed before), or
        None."""
        k = j
        while k < self.n and self.home[k] == H and k - j < 8:
            ins = self.ins[k]
            if ins.target is not None or ins.op in ("POP_EXCEPT", "SWAP", "POP_TOP", "COPY"):
                return None
            if ins.op == "RETURN_VALUE":
                return k + 1 - j if k > j else None
            if ins.op == "RAISE_VARARGS" and ins.arg == 0:
                return k + 1 - j  # a bare `raise` after the try: re-raises the outer one
            if ins.op == "RAISE_VARARGS":
                return k + 1 - j if k > j else None  # `raise x`: an exit block too
            if ins.op in TERMINAL:
                return None
            k += 1
        return None

    def _body_end(self, H: int) -> tuple[int | None, int]:
        """(home, end) of the protected body of handler H: the code its first
        protected instruction belongs to, and the index after its last range there."""
        home = None
        lo = None
        for a, _b in self._handlers[H].ranges:
            if self.home[a] is not None and (lo is None or a < lo):
                lo, home = a, self.home[a]
        if home is None:
            return None, -1
        return home, max(b for a, b in self._handlers[H].ranges if self.home[a] == home)

    def _tail_twin(self, H: int, j: int, L: int) -> int | None:
        """Where the try of handler H continues after its body, if the code there
        is the same (same line too) as the copy at j: the first such place after
        the body that no jump before it skips."""
        home, e = self._body_end(H)
        if home is None:
            return None
        for k in range(e, self.n):
            if self.home[k] != home:
                continue
            if not self._same(k, j, L) or self.ins[k].line != self.ins[j].line:
                continue
            for q in range(e, k):
                t = self.ins[q].target
                if self.home[q] == home and t is not None and t > k:
                    return None
            return k
        # A try whose body is a try: its own ranges lie in the inner one's handler code, so
        # its body's end is not found there; where a clause of the inner try was turned back
        # into a jump to the same code (same line), both statements go on there.
        for twin, length, _, _ in self._undone.values():
            if length == L and self._same(twin, j, L) and self.ins[twin].line == self.ins[j].line:
                return twin
        return None

    def check_exception_support(self) -> None:
        self._exc_setup()
        if not TABLE.has_exception_table:
            if self._exc_error is not None:
                raise self.fail(self._exc_error[0], self._exc_error[1])
            return
        for h in self._handlers.values():
            if h.kind == "other":
                raise self.fail("unrecognized exception handler", self.ins[h.target])
        home = self.home
        self.reachable[: self.n] = [home[k] is not None for k in range(self.n)]
        # reachable through any edge, exception edges included (the implicit
        # `return None` may sit before trailing clean-up code)
        init = getattr(self, "initially_reachable", None)
        if init is not None and self._handlers:  # (without handlers __init__ found it all)
            seen, _ = build_cfg(self.ins).reach([0, *self._handlers])
            for k in range(self.n):
                if seen[k]:
                    init[k] = True
        if TABLE.forward_only_conditional_jumps:
            self._fix_latches()

    def _returns_straight(self, k: int) -> bool:
        """Is the code at k a short straight run ending in a return (a copied exit block), no
        handler covering it?  (A covered one may raise into a handler that comes back: the
        head of `while True: try: return f() except E: continue`.)"""
        t = self._exit_tail_len(k)
        return bool(t) and all(self._cover[q] is None for q in range(k, k + t))

    def _fix_latches(self) -> None:
        """3.12+ moves handlers to the end of the code.  Their jumps back to the
        code after a try are not loops; a jump back to before the try is a loop's
        continue, whose body ends with the try's own code, not at the handler."""
        self.latch = {}
        cold: set[int] = set()
        nested_cold: set[int] = set()
        for i in self.ins:
            t = i.target
            if t is None or t > i.index or i.op == "FOR_ITER":
                continue
            if self._returns_straight(t):
                continue  # back to a copy of a return: nothing there comes round again
            if i.op in CONDITIONAL_JUMPS and self._copied_loop_test(i.index, t):
                # a while test copied after a try's handlers, reached only from a clause: the
                # loop's own back edge, in code moved with the handler
                self.latch[t] = max(self.latch.get(t, -1), i.index)
                continue
            if self.home[i.index] is None and any(
                self._clause_jump_back(q, t) == "follow" for q in self._stands_for.get(i.index, ())
            ):
                # dead (a clause's jump threaded past it, or an undone copy of a clause's
                # end), and the live jump doing its work goes back to its try's follow: read
                # as a loop's back edge, its range would swallow code reached only on other
                # paths (the code after a loop the source left through its test or a `break`)
                continue
            kind = self._clause_jump_back(i.index, t)
            if kind == "nested":
                # from a clause of a try in a clause, back to before the outer try: a
                # loop's continue, when nothing else tells (a loop found so is kept only
                # if it is one)
                nested_cold.add(t)
                continue
            if kind == "follow":
                continue  # back to the try's follow
            if kind == "loop":
                cold.add(t)
                continue
            self.latch[t] = max(self.latch.get(t, -1), i.index)
        for t in sorted((cold | nested_cold) - set(self.latch)):
            if self.ins[t].op == "FOR_ITER":
                self.latch[t] = t
                continue
            # a loop whose only back edge is a continue in a handler: its body is
            # everything reached from its header, when nothing jumps out of it
            # (a forward jump out of it is a break: it must leave the region)
            seen = set()
            breaks = set()
            work = [t]
            while work:
                k = work.pop()
                if k >= self.n or k in seen or self.home[k] != self.home[t]:
                    continue
                seen.add(k)
                ins = self.ins[k]
                if ins.op == "JUMP" and ins.target is not None and ins.target > k:
                    breaks.add(ins.target)
                    continue
                work.extend(self._succ(k))
            breaks -= self._joins_in_region(seen, self._clause_line(t))
            last = max(seen)
            if any(b <= last for b in breaks) or any(
                q not in seen and self.home[q] == self.home[t] for q in range(t, last)
            ):
                if t not in cold:
                    continue  # (read as before: a jump to the outer try's follow)
                raise self.fail("loop continued only from an exception handler", self.ins[t])
            last = self._back_edge_past_handlers(t, last, breaks) or self._back_edge_in_clause(t, last, breaks) or last
            self.latch[t] = last

    def _clause_line(self, t: int) -> int | None:
        """The first source line of the handler code that jumps back to t (the clause that
        goes round): the code after the loop comes after it in the source."""
        home = self.home
        clauses = {home[i.index] for i in self.ins if i.target == t and home[i.index] not in (None, -1, home[t])}
        lines = [i.line for i in self.ins if home[i.index] in clauses and i.line is not None]
        return min(lines) if lines else None

    def _joins_in_region(self, seen: set[int], before: int | None) -> set[int]:
        """Where the arms of an if/else or a conditional expression in ``seen`` meet: its first
        arm ends in a forward jump over the second, which the test's conditional jump starts.
        A join of the region, not a `break`'s target, when it is on the test's line (an
        expression) or on a line before ``before`` (the clause that goes round, which the code
        after the loop follows in the source)."""
        ins = self.ins
        out = set()
        for j in seen:
            a = ins[j].target
            if ins[j].op not in CONDITIONAL_JUMPS or a is None or a - 1 <= j or a - 1 not in seen:
                continue
            jump = ins[a - 1]
            join = jump.target
            if (
                jump.op == "JUMP"
                and join is not None
                and join > a
                and ins[join].line is not None
                and (ins[join].line == ins[j].line == jump.line or (before is not None and ins[join].line < before))
                and all(q in seen for q in range(j, join + 1))
            ):
                out.add(join)
        return out

    def _clause_jump_back(self, q: int, t: int) -> str | None:
        """What the jump at q, in the code of a handler, back to t is (3.12+ lay handlers
        after the code): "follow", to the code after its try; "loop", to before the try (a
        loop's continue); "nested", from a clause of a try in a clause to before the outer
        try; None when q is no handler's code jumping out of it."""
        hs, ht = self.home[q], self.home[t]
        if hs is None or ht is None or hs == ht or hs < 0:
            return None
        lo, _ = self._extent(hs, ht)
        if lo < 0 and self._outer_try_start(hs, ht) > t:
            return "nested"
        if lo < 0 or t > lo:
            return "follow"
        return "loop"

    def try_body_past_latch(self, h: int, a: int, after_continue: bool = False) -> int | None:
        """3.12+: where the body of a `while True` goes on past its conditional last jump back
        (an if's `continue`, at a, folded into the jump): when the code at a is protected by
        a try that started in the loop, it is that try's body, not the code after the loop.
        The body then ends at the end of its straight run of code at the loop's level, which
        must end in a return or raise (see _body_goes_on).

        ``after_continue`` (3.11+): the last jump back is the `continue` ending an if's arm
        (through finally copies), and the arm's test jumps to a, laid out after it: the other
        arm, the rest of the body, when a try that started in the loop protects it (code after
        the loop is in no try of the loop's body)."""
        if not (TABLE.forward_only_conditional_jumps or after_continue and TABLE.has_exception_table):
            return None
        if a >= self.n:
            return None
        self._exc_ready()
        H = self._cover[self._past_nops(a) if after_continue else a]
        if H is None or not any(self._cover[k] == H for k in range(h, a)):
            return None
        if after_continue and (
            any(self._cover[k] == H for k in range(h))  # (the try, or a clause, around the loop)
            or not any(j.target == a and j.op in CONDITIONAL_JUMPS for j in self.ins[h:a])
        ):
            return None
        home = self.home[h]
        b = a
        while b < self.n and self.home[b] == home:
            b += 1
        return b if self._body_goes_on(h, a, b) else None

    def clause_rest_past_latch(self, h: int, a: int) -> int | None:
        """3.10/3.11: where the body of a `while True` goes on past its last jump back, at a: the
        rest of an except clause of a try in the loop whose other arm goes round
        (``except E: if c: continue`` then ``raise``).  3.10 and 3.11 lay the clause's
        ``continue`` (POP_EXCEPT, jump back) before that rest, which is still the clause's:
        its home is the try's handler, whose exception is still being handled (a
        bare ``raise`` there re-raises the caught exception; after the loop it would find
        none).  The body goes on to the end of the code of handlers in the loop, which must
        end in a raise or return; None when a is not such code."""
        if not TABLE.clause_continue_before_rest or a >= self.n:
            return None
        self._exc_ready()
        H = self.home[a]
        if H is None or not h < H < a:
            return None
        if not (self._handlers[H].kind == "try" if TABLE.has_exception_table else self._is_except_handler39(H)):
            return None
        if self.ins[a].op == "RERAISE" or not any(
            j.target == a and H <= j.index < a and "EXC_MATCH" not in j.op for j in self.ins
        ):
            return None  # (not a clause's code: the re-raise of an exception no clause matched)
        b = a
        while b < self.n and self.home[b] is not None and h < self.home[b] <= b and self._set_up_in(self.home[b], h, b):
            b += 1  # (and the handlers of the clause's own code: its name's clean-up)
        if self.ins[b - 1].op not in TERMINAL:
            return None
        if any(j.target is not None and a <= j.target < b and not h <= j.index < b for j in self.ins):
            return None  # (reached from outside the loop: not the loop's code)
        return b

    def _set_up_in(self, H: int, lo: int, hi: int) -> bool:
        """Does code in [lo, hi) set handler H up (3.9/3.10: a SETUP_* to it; 3.11+: H
        protects code there)?"""
        if TABLE.has_exception_table:
            h = self._handlers.get(H)
            return h is not None and any(lo <= r0 < hi for r0, _ in h.ranges)
        return any(j.target == H and j.op.startswith("SETUP_") for j in self.ins[lo:hi])

    def _outer_try_start(self, H: int, home: int) -> int:
        """Where the try of handler H starts in ``home``'s code, or the try whose handler code
        holds H's try, and so on out (-1 if none does): a jump from a clause of a try in a
        clause goes back to before the outer statement, not to its follow."""
        seen: set[int] = set()
        h: int | None = H
        while h is not None and h >= 0 and h not in seen:
            seen.add(h)
            lo, _ = self._extent(h, home)
            if lo >= 0:
                return lo
            h, _ = self._body_end(h)
        return -1

    def _back_edge_past_handlers(self, t: int, last: int, breaks: set[int]) -> int | None:
        """3.12+: a `while True` left only by returns and raises whose one jump back is a block
        of its own, reached by jumps from handler code (a clause's path through a finally
        body's copy) and laid out after handler code only: that jump, where the loop ends."""
        ins, home = self.ins, self.home
        edges = [i.index for i in ins if i.target == t]
        if breaks or len(edges) != 1 or edges[0] <= last:
            return None
        far = edges[0]
        if ins[far].op != "JUMP":
            return None
        start = far
        if TABLE.lays_forever_back_edge_inline:
            # 3.14+ lay the jump back at the end of the path that goes round: the block it
            # ends (a finally body's copy on a clause's way out) is the one jumped to
            while (
                start > last + 1
                and ins[start - 1].op not in TERMINAL | {"JUMP"}
                and ins[start - 1].target is None
                and not any(i.target == start for i in ins)
            ):
                start -= 1
            if start < far and not self._is_finally_copy(start, far - start):
                return None  # (code of the loop body after a statement, not a copy)
        if ins[start - 1].op not in TERMINAL | {"JUMP"}:
            return None  # (fallen into: a clause's own `continue`)
        sources = [i for i in ins if i.target == start]
        if not sources or any(i.op != "JUMP" or home[i.index] in (None, -1) for i in sources):
            return None
        if any(home[q] == home[t] for q in range(last + 1, far + 1)):
            return None
        return far

    def _back_edge_in_clause(self, t: int, last: int, breaks: set[int]) -> int | None:
        """3.14+: a `while True` left only by returns and raises whose one jump back ends a
        clause of a try in the loop.  Earlier versions lay that jump out after the handlers
        (a block of its own, outside handler code); 3.14 leaves it at the clause's end.  The
        loop ends at that jump, the handler code between included."""
        if not TABLE.lays_forever_back_edge_inline:
            return None
        ins, home = self.ins, self.home
        edges = [i.index for i in ins if i.target == t]
        if breaks or len(edges) != 1 or edges[0] <= last or ins[edges[0]].op != "JUMP":
            return None
        far = edges[0]
        clauses = set()
        for q in range(last + 1, far + 1):
            hq = home[q]
            if hq is None:
                continue
            h = self._handlers.get(hq)
            if h is None or h.kind != "try" or hq == home[t]:
                return None  # (the code after a with reached when it swallows: the loop's own)
            if not t <= self._outer_try_start(hq, home[t]) <= last:
                return None  # (code of a handler whose try is not in the loop)
            clauses.add(hq)
        if any(home[q] in clauses and ins[q].op != "RERAISE" for q in range(far + 1, self.n)):
            return None  # (a clause goes on past the jump: its rest is the loop's too)
        return far

    def _is_finally_copy(self, a: int, n: int) -> bool:
        """Is [a, a + n) a copy of the whole body of a finally handler (PUSH_EXC_INFO; body;
        RERAISE)?"""
        return any(
            h.kind == "try"
            and self._is_finally(H)
            and H + n + 1 < self.n
            and self.ins[H + n + 1].op == "RERAISE"
            and self._same(a, H + 1, n)
            for H, h in self._handlers.items()
        )

    def _copied_loop_test(self, k: int, t: int) -> bool:
        """Does the conditional jump at k back to t end a copy of the `while` test just
        before t (the test at the top jumps forward, past the loop)?"""
        ins = self.ins
        top = ins[t - 1] if t > 0 else None
        if top is None or top.op not in CONDITIONAL_JUMPS or top.target is None or top.target <= t:
            return False
        n = 1
        while n < t and k - n > t:
            a, b = ins[t - 1 - n], ins[k - n]
            if (a.op, repr(a.argval)) != (b.op, repr(b.argval)) or a.target is not None or b.target is not None:
                break
            n += 1
        return n >= 2 and not any(i.target == k - n + 1 for i in ins if i.index < t - n)

    def moved_handler_code(self, lo: int, hi: int) -> set[int]:
        """3.12+: the code of try handlers whose body starts in [lo, hi), which the
        compiler moved to the end of the function (a clause's break is in there)."""
        if not TABLE.cold_blocks_at_end or not getattr(self, "_handlers", None):
            return set()
        mine = {H for H, h in self._handlers.items() if h.kind == "try" and any(lo <= a < hi for a, _ in h.ranges)}
        return {k for k in range(hi, self.n) if self.home[k] in mine}

    # ------------------------------------------------------------ nesting
    def _chain(self, k: int):
        seen = set()
        h = self._cover[k]
        while h is not None and h not in seen:
            seen.add(h)
            yield h
            h = self._cover[h]

    def _in(self, k: int, H: int) -> bool:
        chains = self._chains
        if chains is None:
            chains = self._build_chains()
        return H in chains[k]

    def _build_chains(self) -> list:
        self._chains = [frozenset(self._chain(k)) if self._cover[k] is not None else frozenset() for k in range(self.n + 1)]
        ext: dict = {}
        protected: dict[int, list[int]] = {}
        for k in range(self.n):
            for H in self._chains[k]:
                protected.setdefault(H, []).append(k)
            hk = self.home[k]
            if hk is None:
                continue
            for H in self._chains[k]:
                key = (H, hk)
                if key in ext:
                    ext[key][1] = k
                else:
                    ext[key] = [k, k]
        self._extents = ext
        self._covered_by = protected  # handler -> the indices it covers, in order
        return self._chains

    def _extent(self, H: int, home: int | None) -> tuple[int, int]:
        if self._chains is None:
            self._build_chains()
        r = self._extents.get((H, home))
        if r is None:
            return -1, -1
        return r[0], r[1] + 1

    def _try_handler_at(self, i: int) -> int | None:
        if not TABLE.has_exception_table or self.home[i] is None:
            return None
        cands = []
        for H in self._chain(i):
            h = self._handlers.get(H)
            if h is None or h.kind != "try" or H in self._started:
                continue
            lo, _ = self._extent(H, self.home[i])
            if lo == i:
                cands.append(H)
        if not cands:
            # a try whose first instruction is an inner try's: chain of the first covered
            return None
        return cands[-1]  # outermost

    # ------------------------------------------------------------ hooks
    def branch_last_jump(self, T: int, then_stop: int):
        """The last instruction of an if's then-branch [T, then_stop), for its else-jump.

        On 3.11 a try ending the branch puts its handlers after the jump over the
        else; the jump is the last instruction of the branch's own code."""
        k = then_stop - 1
        while k > T and k in getattr(self, "_dead_copy", ()):
            k -= 1  # the rest of an exit copy turned back into a jump
        if k < T:
            return None
        if not TABLE.has_exception_table:
            j = k
            while j > T and not self.reachable[j]:
                j -= 1
            if j < k and j in self.__dict__.get("_b_exit_jumps", ()):
                k = j  # a copy of the exit turned into a jump leaves dead code behind it
        last = self.ins[k]
        if last.op == "JUMP":
            return last
        # a try ending the branch puts its handlers after the jump over the else: 3.11,
        # and 3.9/3.10 when the branch's last instruction is in the try's handlers
        legacy = not TABLE.has_exception_table and getattr(self, "_b_handler", None) and self.home[k] != self.home[T]
        if not legacy and (not TABLE.inline_handlers or not getattr(self, "_handlers", None)):
            return last
        h = self.home[T]
        while k >= T and self.home[k] != h:
            k -= 1
        if k >= T and self.ins[k].op == "JUMP" and self.ins[k].target > then_stop:
            return self.ins[k]
        return last

    def _clause_type(self, p: int, C: int, hstack: list, match_op: str, what: str) -> tuple[int, ast.expr]:
        """The type expression of a 3.11+ clause starting at ``p``: straight-line code up to
        its ``match_op`` (CHECK_EXC_MATCH, CHECK_EG_MATCH).  Returns (index of the test, type)."""
        ins = self.ins
        q = p
        while q < C and ins[q].op != match_op:
            if ins[q].target is not None:
                raise self.fail(f"jump inside an {what} type", ins[q])
            q += 1
        if q >= C:
            raise self.fail(f"{what} clause without a type test", ins[p])
        stmts, st = self.walk(p, q, list(hstack), frozenset())
        if stmts or len(st) != len(hstack) + 1:
            raise self.fail(f"{what} type is not an expression", ins[q])
        return q, self.as_expr(st[-1], ins[q])

    def try_at(self, i: int) -> bool:
        self._exc_ready()
        if i in self._copies:
            return True
        if not TABLE.has_exception_table:
            return self.ins[i].op in ("SETUP_FINALLY", "SETUP_WITH")
        if self.ins[i].op == "BEFORE_WITH":
            return True
        if self._cover[i] is None:
            return False
        return self._try_handler_at(i) is not None

    def _overridden_exit(self, stack: list, before: list) -> ast.Return:
        """The statement for an exit a returning/raising finally body overrides: ``return``
        of the value on top of the stack when the exit computed one (a return's value,
        evaluated before the finally runs), else a bare ``return``."""
        value = None
        if len(stack) > self.cur_base or (stack and not isinstance(stack[-1], V.Marker)):
            top = stack[-1]
            if isinstance(top, ast.expr) or not isinstance(top, V.Marker):
                value = self.as_expr(stack.pop(), None)
        node = ast.Return(value=value)
        node.overridden_exit = True
        return node

    def loop_encloses_try(self, i: int) -> bool:
        """3.11+: a loop whose header is a try's first instruction and whose back
        edge lies past the try's body (``while True: try: ...``) is entered first.
        3.9/3.10: a loop whose header is a SETUP (the try or with opens its body)."""
        if i in self._copies or i not in self.latch or self._in_loop(i):
            return False
        if not TABLE.has_exception_table:
            return self.ins[i].op in ("SETUP_FINALLY", "SETUP_WITH")
        if self.ins[i].op == "BEFORE_WITH":
            return False
        H = self._try_handler_at(i)
        if H is None:
            return False
        _, e = self._extent(H, self.home[i])
        last = self.latch[i] - 1
        if (
            self.reachable[last]
            and self.ins[last].target is None
            and self.ins[last].op not in TERMINAL
            and not self._in(last, H)
        ):
            # the code falling into the jump back is no code of the try body (a finally
            # body's copy on a `continue`'s path): the loop goes round the try
            return True
        if self._tests_outside_jump_back(i, H):
            return True
        return self.latch[i] >= e

    def _tests_outside_jump_back(self, i: int, H: int) -> bool:
        """Does a conditional jump to the loop's jump back test a value computed outside the
        try of handler H (3.11: an if in a finally body's copy on a `continue`'s path whose
        other arm returns)?  Code of the try body is protected by H; the path that goes round
        through unprotected code of the try's level has left the try: the loop goes round it."""
        latch, home = self.latch[i], self.home[i]
        for q in range(i, latch):
            j = self.ins[q]
            if j.target != latch or j.op not in CONDITIONAL_JUMPS or not self.reachable[q]:
                continue
            p = self.ins[q - 1]
            if (
                self.reachable[q - 1]
                and p.target is None
                and p.op not in TERMINAL
                and p.op != "NOP"
                and self.home[q - 1] == home
                and not self._in(q - 1, H)
            ):
                return True
        return False

    def do_try(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        if i in self._copies:
            c = self._copies[i]
            before = list(stack)
            if c.kind in ("with", "finally") and i + c.length != c.end and not TABLE.has_exception_table:
                j = self._normal_exit_copy_end(i, c, stop)
                if j is not None:
                    return j  # the body falls off here: the with exit stays pending
            if c.kind == "with":
                if not stack or not isinstance(stack[-1], WithExit):
                    raise self.fail("with exit without its context manager", self.ins[i])
                stack.pop()
            if c.kind == "finally" and c.never_ends and i + c.length != c.end and self._closed_terminal(i, i + c.length):
                # a finally body that returns or raises: the exit whose copy this is (a
                # return, break or continue) never runs, the compiler dropped it, and the
                # copy ends the path.  Written back as a return (of the value it computed
                # first, if any): through the finally it does what the exit did.
                self.emit(self._overridden_exit(stack, before))
                return i + c.length
            back = self._back_to_loop.get(i)
            if c.kind == "finally" and back is not None:
                # the copy's own jumps go round the loop (the jump back after it threaded into
                # them; its other paths return or raise): the exit whose copy this is was a
                # `continue`, or the normal exit of a statement the loop goes round after
                # (the code after the copy is another path's)
                loop = self.loops[-1] if self.loops else None
                if loop is None or back not in loop.continue_targets:
                    raise self.fail("a finally body's copy goes round a loop other than its own", self.ins[i])
                if i + c.length != c.end or back not in self._exit_places(exits):
                    self.emit(ast.Continue())  # (unless the block's end goes round anyway)
                return i + c.length
            if c.kind in ("with", "finally") and i + c.length != c.end:
                # not the normal exit: only a return of a value computed before the
                # copy (or a constant), or a loop jump, may follow; anything else is a
                # copy of the code after the statement, which we cannot place
                if not self._pure_exit(i + c.length) and not self._never_ends(i, i + c.length):
                    after = self._break_into_copied_follow(i + c.length, stack)
                    if after is None:
                        raise self.fail("code after a finally/with copy on an exit path", self.ins[i])
                    self.emit(ast.Break())
                    stack[:] = before  # (the rest of the loop body still runs inside the with)
                    return after
                j = i + c.length
                loop = self.loops[-1] if self.loops else None
                if (
                    TABLE.cold_blocks_at_end
                    and c.kind == "finally"
                    and self.home[i] in self._handlers  # in an except clause
                    and not self._is_finally(self.home[i])
                    and loop is not None
                    and self.ins[j].op == "JUMP"
                    and self.ins[j].target in loop.continue_targets
                ):
                    # the finally's copy on an except clause's path round the loop: a
                    # `continue` (falling off the try goes through the normal exit's copy)
                    self.emit(ast.Continue())
                    return j + 1
                if (
                    not TABLE.has_exception_table
                    and loop is not None
                    and j < self.n
                    and not self.initially_reachable[j]
                    and self.ins[j].op == "JUMP"
                    and (self.ins[j].target in loop.continue_targets or self.ins[j].target in loop.break_targets)
                    and (self.ins[j - 1].op == "JUMP" or self.ins[j - 1].op in TERMINAL)
                ):
                    # 3.9/3.10: the `continue` (or `break`) whose copy this is, left dead after
                    # it: the copy leaves by its own jumps (the finally's `break`, its end
                    # threaded to the loop's head), and the statement is that jump
                    return self.do_jump(j, stack, stop, exits)
            return i + c.length
        if not TABLE.has_exception_table:
            if self.ins[i].op == "SETUP_WITH":
                nxt = self.do_with_blocks(i, stack, stop, exits)
            else:
                nxt = self.do_try_blocks(i, stack, stop, exits)
            if nxt <= i:
                raise self.fail("try/with continues before itself", self.ins[i])
            return nxt
        if self.ins[i].op == "BEFORE_WITH":
            return self.do_with(i, stack, stop, exits)
        H = self._try_handler_at(i)
        self._started.add(H)
        if self._is_finally(H):
            nxt = self.do_try_finally(i, H, stack, stop, exits)
        else:
            nxt = self.do_try_except(i, H, stack, stop, exits)
        self._check_nothing_protected_after(H, nxt)
        return nxt

    def _check_nothing_protected_after(self, H: int, end: int) -> None:
        """Code that handler H protects is code of the try statement's body: none of it may
        be left to come after the statement (3.11+ lay code reached only from an inner
        clause inline, where a reading can take it for code after the statement, outside
        the try and past its finally)."""
        self._check_nothing_protected_in(H, end, self.n, "code the try protects comes after the statement")

    def _check_nothing_protected_in(self, H: int, a: int, b: int, what: str) -> None:
        """Refuse when code that handler H protects lies in [a, b), read outside H's body."""
        if self._chains is None:
            self._build_chains()
        covered = self._covered_by.get(H, [])
        protected = [
            k for k in covered[bisect.bisect_left(covered, a):bisect.bisect_left(covered, b)]
            if self.reachable[k] and self.ins[k].op not in ("JUMP", "NOP")
        ]
        if not protected:
            return
        # (copies of finally bodies inside the body run there too: read where they are met;
        # jumps are how statements end, and 3.11+ lay clauses' exits after the body's end)
        copied = self._copied()
        for k in protected:
            if k not in copied:
                raise self.misplaced(what, self.ins[k])

    def _copied(self) -> set[int]:
        """The instructions inside the registered copies of finally/with bodies and skipped
        blocks: read once, where the statement they belong to reads them."""
        return {q for c, cp in self._copies.items() for q in range(c, c + cp.length)}

    def _leaves_handler(self, last, T: int, F: int, stop: int, exits: frozenset) -> bool:
        """Does an if's then-arm [T, F) end with ``POP_EXCEPT; JUMP`` back to the
        follow of the try whose clause the if ends (3.12+ layout)?"""
        if not (
            TABLE.merges_clause_end_jumps
            and last is not None
            and last.op == "JUMP"
            and last.target is not None
            and last.target < T
            and last.target in exits
            and F <= stop
            and not any(last.target == lp.header or last.target in lp.continue_targets for lp in self.loops)
        ):
            return False
        p = last.index - 1
        if p - 3 >= T and self.ins[p].op in DELETE_OPS and self._name_cleanup_at(p - 2, self.ins[p].argval):
            p -= 3  # `except E as name`: the name is cleared after POP_EXCEPT
        return p >= T and self.ins[p].op == "POP_EXCEPT"

    @staticmethod
    def _both_left_handler(stack: list, st1: list, st2: list) -> bool:
        """Both arms of an if ended an except clause (popped its exception info or
        left by return/raise): the stacks they leave are never merged."""
        if not stack or not isinstance(stack[-1], ExcInfo):
            return False
        return all(len(st) in (len(stack), len(stack) - 1) for st in (st1, st2)) and (
            len(st1) == len(stack) - 1 or len(st2) == len(stack) - 1
        )

    # ------------------------------------------------------------ helpers
    def _handler_of(self, k: int, kind: str) -> int:
        H = self._cover[k]
        if H is None or self._handlers[H].kind != kind:
            raise self.fail(f"expected a {kind} handler", self.ins[k])
        return H

    def _cleanup_of(self, H: int) -> int:
        """The COPY 3; POP_EXCEPT; RERAISE 1 block protecting handler H's code."""
        C = self._cover[H]
        if C is None or self._handlers[C].kind != "cleanup":
            raise self.fail("handler without clean-up", self.ins[H])
        return C

    def _is_finally(self, H: int) -> bool:
        nxt = self.ins[H + 1]
        if nxt.op == "POP_TOP":
            return False
        # except*: COPY 1; BUILD_LIST; SWAP 2 (3.11) / BUILD_LIST; COPY 2 (3.12+)
        if nxt.op in ("COPY", "BUILD_LIST") and self.ins[H + 2].op in ("BUILD_LIST", "COPY"):
            return False
        k = H + 1
        while k < self.n and self.ins[k].target is None and self.ins[k].op not in TERMINAL:
            if self.ins[k].op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"):
                return False
            if self.ins[k].op in STORE_OPS or self.ins[k].op == "POP_TOP":
                return True
            k += 1
        return True

    def _claim(self, start: int, H: int, follow: int | None) -> None:
        """Mark handler H's own code (normal-flow reachable from start) as consumed.  Where a
        clause breaks out of or goes round an enclosing loop, the code there is the loop's (3.11:
        it has H's home when only that break reaches it, the code after a `while True`; 3.12+
        lay handler code past the function's, where a loop's targets may be copies in it)."""
        work = [start]
        seen = set()
        stops = self._loop_targets() if TABLE.inline_handlers else frozenset()
        while work:
            k = work.pop()
            if k >= self.n or k in seen or k == follow or self.home[k] != H or k in stops:
                continue
            seen.add(k)
            self.reachable[k] = False
            work.extend(self._succ(k))

    def _claim_nested(self, a: int, b: int) -> None:
        """After walking handler code [a, b): the code there of the handlers nested in it is
        consumed too (3.11 lays a loop's back edge out after a nested try's handlers, so
        it has their home; it was walked with the loop)."""
        for k in range(a, b):
            if self.home[k] is not None and a <= self.home[k] < b:
                self.reachable[k] = False

    def _claim_block(self, a: int, b: int) -> None:
        for k in range(a, b):
            self.reachable[k] = False

    def _same(self, a: int, b: int, length: int, end_inside: bool = False) -> bool:
        """Do [a, a+length) and [b, b+length) hold the same code?  With
        ``end_inside`` a jump to the end of each copy (a finally body's loop
        exhausted) counts as the same place."""
        ext = 1 if end_inside else 0
        for d in range(length):
            if a + d >= self.n or b + d >= self.n:
                return False
            x, y = self.ins[a + d], self.ins[b + d]
            if x.op != y.op:
                return False
            if x.target is not None or y.target is not None:
                if x.target is None or y.target is None:
                    return False
                # inside the copy: same relative place; outside: same place
                xin = a <= x.target < a + length + ext
                yin = b <= y.target < b + length + ext
                if xin != yin:
                    return False
                if xin and x.target - a != y.target - b:
                    return False
                if not xin and x.target != y.target:
                    return False
                continue
            if _key(x.argval) != _key(y.argval):
                return False
        return True

    def _exits_then_return_none(self, k: int) -> list[int] | None:
        """The instructions of the exit copies of withs at k (each perhaps jumping to the
        next) followed by `return None`: how a with ending the bodies of withs ending the
        function goes on.  None if that is not what is at k."""
        ins = self.ins
        j = k
        run: list[int] = []
        while self._is_exit_copy(j) and j not in run:
            run.extend(range(j, j + 5))
            j += 5
            if j < self.n and ins[j].op == "JUMP" and ins[j].target is not None and ins[j].target > j:
                run.append(j)
                j = ins[j].target
        if not run or j + 1 >= self.n:
            return None
        if ins[j].op == "LOAD_CONST" and ins[j].argval is None and ins[j + 1].op == "RETURN_VALUE":
            return run + [j, j + 1]
        return None

    def _is_exit_copy(self, k: int) -> bool:
        ins = self.ins
        return (
            k + 4 < self.n
            and all(ins[k + d].op == "LOAD_CONST" and ins[k + d].argval is None for d in range(3))
            and ins[k + 3].op == "CALL"
            and ins[k + 3].arg == 2
            and ins[k + 4].op == "POP_TOP"
        )

    def _walk_region(self, a: int, b: int, stack: list, exits: frozenset, what: str):
        body, st = self.walk(a, b, list(stack), exits)
        return body, st

    def _follow_exit(self, follow: int | None, s: int, exits: frozenset) -> frozenset:
        """The jump targets meaning "leave the statement starting at s normally":
        its follow, unless that is the head of the enclosing loop and the block
        around the statement does not end there (the try/with ends an if's branch
        that skips an else: its jumps to the head are continues, not the end)."""
        if follow is None:
            return frozenset()
        if follow < s and follow not in exits and any(
            follow == lp.header or follow in lp.continue_targets for lp in self.loops
        ):
            return frozenset()
        return frozenset({follow})

    def _inherit(self, follow: int | None, stop: int, exits: frozenset) -> frozenset:
        if follow is None or follow == stop or follow in exits or follow >= stop:
            return exits
        return frozenset()

    # ------------------------------------------------------------ copies on exit paths
    def _register_copies(self, H: int, home: int, s: int, e: int, matches) -> int:
        before = set(self._copies)
        end = self._register_copies_inner(H, home, s, e, matches)
        for k, c in self._copies.items():
            if k not in before:
                c.end = end
                self._retire_nested_handlers(k, k + c.length)
        return end

    def _retire_nested_handlers(self, a: int, b: int) -> None:
        """The handlers of try/with statements inside the copy [a, b) of a finally body:
        3.11+ lay them out apart from the copy, and they go with it (the statement is written
        once, from the exception path's copy). Handlers inside the copy already go with it."""
        if not TABLE.has_exception_table:
            return
        dead: set[int] = set()
        changed = True
        while changed:
            changed = False
            for H2, h2 in self._handlers.items():
                if H2 in dead or not h2.ranges or a <= H2 < b:
                    continue
                if all(a <= s2 and e2 <= b or self.home[s2] in dead for s2, e2 in h2.ranges):
                    dead.add(H2)
                    changed = True
        if dead:
            for q in range(self.n):
                if self.home[q] in dead:
                    self.reachable[q] = False

    def _register_copies_inner(self, H: int, home: int, s: int, e: int, matches) -> int:
        """Register the exit copies of a finally/with body; return where the statement ends.

        Inside [s, e) every instruction of this home not protected by H is on an exit
        path: a copy (``matches(k)`` gives its length) or what follows it (return,
        loop jump).  From ``e`` on, copies followed by exit tails belong to the
        statement; the first copy followed by anything else is the normal exit.
        """
        k = s
        while k < e:
            if self.home[k] == home and not self._in(k, H) and k not in self._copies:
                L = matches(k)
                if L:
                    self._copies[k] = Copy(L, self._copy_kind)
                    k += L
                    continue
            k += 1
        # exits from the clauses of nested try statements (their own homes)
        k = 0
        while k < self.n:
            hk = self.home[k]
            if hk is not None and hk != home and hk >= 0 and self._in(hk, H) and not self._in(k, H):
                if k not in self._copies:
                    L = matches(k)
                    if L:
                        self._copies[k] = Copy(L, self._copy_kind)
                        k += L
                        continue
            k += 1
        k = e
        end = e
        while k < self.n:
            hk = self.home[k]
            if hk != home and (self._in(k, H) or (hk is not None and hk >= 0 and self._in(hk, H))):
                # 3.11: handler code of a nested try/with, inline, with the exit paths of its
                # clauses (a return through this finally's copy)
                k += 1
                continue
            if self.home[k] != home:
                break
            j = k
            # a return value moved under the with's __exit__, loop iterators popped...
            while j < self.n and self.ins[j].op in ("SWAP", "POP_TOP", "POP_EXCEPT") and j not in self._copies:
                j += 1
            if any(i.target is not None and k <= i.target <= j and i.index < s for i in self.ins[:s]):
                break  # (code jumped to from before the try is none of its exits: the same code after it)
            L = matches(j)
            if not L:
                break
            self._copies[j] = Copy(L, self._copy_kind)
            joined = j in self._joined_copies
            j += L
            end = j
            if joined or self._jumped_to_from_outside(j, s):
                break  # (a shared tail, e.g. a loop's back edge: it follows the statement)
            t = self._tail_end(j)
            if t is None:
                t = self._break_tail_before_normal_exit(s, e, j, matches)
            if t is None:
                break
            k = end = t
        return end

    def _break_tail_before_normal_exit(self, s: int, e: int, j: int, matches) -> int | None:
        """3.12+: the copy ending at ``j`` is a ``break``'s when a copy of the small block
        after the loop (a return) follows it and the body jumps past that block to the
        normal exit's copy (a try body ending ``if c: break``).  The index of that normal
        exit (its copy, or line-number NOPs before it), else None."""
        if not TABLE.copies_exits_without_line:
            return None
        t = self._exit_tail_len(j)
        if not t:
            return None
        x = j + t
        if not any(i.target == x for i in self.ins[s:e]):
            return None
        q = x
        while q < self.n and self.ins[q].op == "NOP":
            q += 1
        if q >= self.n or q in self._copies or not matches(q):
            return None
        return q

    def _jumped_to_from_outside(self, j: int, s: int) -> bool:
        """Does a jump from outside [s, j) reach j?  The code at j is then where
        other paths join (an if around the statement skipping to a loop's back
        edge), not an exit tail owned by the statement starting at s."""
        return any(i.target == j and not s <= i.index < j for i in self.ins)

    def _body_end_with_tails(self, H: int, home: int | None, stop: int) -> tuple[int, int]:
        """(end of the region H protects, end of the try body): a return/break/continue at
        the end of the body runs unprotected after the region, up to ``stop``."""
        _, e0 = self._extent(H, home)
        e = e0
        while True:
            t = self._tail_end(e)
            if t is None or t > stop or self.home[t - 1] != home:
                return e0, e
            e = t

    def _tail_end(self, k: int) -> int | None:
        """If an exit tail (return, loop jump) starts at k, the index after it."""
        while k < self.n:
            if k in self._back_to_loop and k in self._copies:
                # a finally body's copy whose path goes back to the loop: what follows it
                # is not where that path goes on (it may be the finally's own `break`)
                return None
            if k in self._copies:
                k += self._copies[k].length
                continue
            ins = self.ins[k]
            if ins.op == "RETURN_VALUE":
                return k + 1
            if ins.op == "JUMP":
                if any(ins.target == lp.header or ins.target in lp.continue_targets or ins.target in lp.break_targets for lp in self.loops):
                    return k + 1
                return None
            if ins.op in ("POP_TOP", "SWAP", "LOAD_CONST", "POP_EXCEPT", "COPY"):
                k += 1
                continue
            if self._is_exit_copy(k):
                return None
            return None
        return None

    def _break_into_copied_follow(self, k: int, stack: list) -> int | None:
        """3.10+: a ``break`` through a finally/with copy whose loop's follow is a
        small exit block (a return) continues with a copy of that block (after
        popping a for loop's iterator).  Returns the index after it, or None."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not COPIES_EXITS:
            return None
        if loop.item is not None:
            if self.ins[k].op != "POP_TOP" or not stack or not isinstance(stack[-1], V.Iterator):
                return None
            k += 1
        f = loop.follow
        t = self._exit_tail_len(k)
        if not t or any(self._is_target(q) for q in range(k, k + t)):
            return None
        if loop.forever and (f >= self.n or not self._is_target(f)) and k != f:
            # `while True:` whose every exit is such a break: no code after the loop is left
            # but the copies; the first copy is that code, written after the loop
            if loop.copied_follow is None:
                stmts, _ = self.walk(k, k + t, list(stack[: self.cur_base]), frozenset())
                loop.copied_follow = (k, t, stmts)
            elif not self._same(k, loop.copied_follow[0], t):
                return None
        elif not any(
            c != k and c < self.n and self._exit_tail_len(c) == t and self._same(k, c, t)
            for c in (f, *sorted(loop.outer_exits))
        ):
            return None
        for q in range(k, k + t):
            self.reachable[q] = False
        return k + t

    def finally_copied_break(self, lo: int, hi: int, exit_: int, stop: int, last: bool = False) -> int | None:
        """3.10+: where a ``break`` in the loop body [lo, hi) goes when it leaves through a
        finally body and the loop has an else: the compiler writes the finally body's copy, then
        a copy of the small block after the else (a ``return``), and no jump says where the
        break goes.  That block's first instruction, found before the body is walked so that
        the loop gets its else; None when there is no such break."""
        if not COPIES_EXITS:
            return None
        self._exc_ready()
        ins = self.ins
        for start, L, body in self._finally_bodies(lo, hi):
            for k in body:
                if not self.reachable[k] or not self._same(k, start, L):
                    continue
                j = k + L
                t = self._exit_tail_len(j)
                if not t or any(self._is_target(q) for q in range(j, j + t)):
                    continue
                places = range(exit_ + 1, min(stop, self.n))
                for p in reversed(places) if last else places:
                    if (
                        self._is_target(p) or ins[p - 1].op in STORE_OPS or ins[p - 1].op == "POP_TOP"
                    ) and ins[p - 1].op not in TERMINAL and self._same(j, p, t):
                        return p
        return None

    def _finally_bodies(self, lo: int, hi: int) -> list[tuple[int, int, list[int]]]:
        """(first instruction, length, where its copies may be) of the exception-path copy
        of each straight finally body of a try in the loop body [lo, hi)."""
        ins = self.ins
        out = []
        if not TABLE.has_exception_table:
            for q in range(lo, hi):
                H = ins[q].target
                if ins[q].op != "SETUP_FINALLY" or H is None or self._is_except_handler39(H):
                    continue
                R = next((k for k in range(H, self.n) if ins[k].op == "RERAISE"), None)
                if R is not None and R > H and not any(ins[k].target is not None for k in range(H, R)):
                    out.append((H, R - H, list(range(lo, hi))))
            return out
        # the body's code, and the handler code of the try statements in it (3.12+ lays
        # handlers out after the function's other code)
        owners = {H2 for H2, h2 in self._handlers.items() if any(lo <= a < hi for a, _ in h2.ranges)}
        body = [k for k in range(lo, self.n) if k < hi or self.home[k] in owners]
        for H, h in self._handlers.items():
            if h.kind != "try" or not self._is_finally(H) or not any(self._in(k, H) for k in range(lo, hi)):
                continue
            R = next(
                (k for k in range(H + 1, self.n) if ins[k].op == "RERAISE" and ins[k].arg == 0),
                None,
            )
            if R is not None and not any(ins[k].target is not None for k in range(H + 1, R)):
                out.append((H + 1, R - (H + 1), body))
        return out

    def _never_ends(self, a: int, b: int) -> bool:
        """Does no path through the straight copy [a, b) reach b (a finally body
        that raises)?"""
        last = self.ins[b - 1]
        return last.op in TERMINAL and not any(self.ins[k].target == b for k in range(a, b))

    def _closed_terminal(self, a: int, b: int) -> bool:
        """Does every path through the copy [a, b) end in a return or raise inside it (no
        jump leaves it, not even one the compiler threaded to a loop's head)?"""
        if self.ins[b - 1].op not in TERMINAL:
            return False
        return all(self.ins[k].target is None or a <= self.ins[k].target < b for k in range(a, b))

    def _pure_exit(self, k: int) -> bool:
        while k < self.n:
            if k in self._copies:
                k += self._copies[k].length
                continue
            op = self.ins[k].op
            if op in ("POP_TOP", "SWAP", "POP_EXCEPT", "POP_BLOCK"):
                k += 1
                continue
            if op == "LOAD_CONST" and k + 1 < self.n and self.ins[k + 1].op == "RETURN_VALUE":
                return True
            return op in ("RETURN_VALUE", "JUMP")
        return False

    # ------------------------------------------------------------ try/except
    def _arm_past_body(self, s: int, e: int, else_end: int) -> int | None:
        """3.12+: where the if ending a try body ends, when an arm of it lies after the
        protected range and leaves (return, raise, a jump) before the if's end: the body's
        last instruction is the test, which falls into the arm, or the other arm's jump over
        it, the test jumping to it.  The arm is the body's, not an else."""
        ins = self.ins
        j = ins[e - 1]
        if j.target is None or not e < j.target <= else_end:
            return None
        if j.op == "JUMP":
            if not any(q.op in CONDITIONAL_JUMPS and q.target == e for q in ins[s : e - 1]):
                return None
        elif j.op not in CONDITIONAL_JUMPS:
            return None
        t = j.target
        if ins[t - 1].op not in TERMINAL and ins[t - 1].op != "JUMP":
            return None
        if any(q.target is not None and e < q.target < t and not e <= q.index < t for q in ins):
            return None
        return t

    def _check_else_not_skipped(self, s: int, e: int, else_end: int, home: int | None) -> None:
        """Refuse an else [e, else_end) that a test in the body jumps into or over: falling
        off the body runs the whole else, so that code is something else (an arm of the if
        laid out past the protected range, 3.13) and the reading would be wrong code."""
        loop = self.loops[-1] if self.loops else None
        loop_targets = loop.continue_targets | loop.break_targets if loop is not None else set()
        for j in self.ins[s:e]:
            t = j.target
            if (
                j.op in CONDITIONAL_JUMPS
                and t is not None
                and e < t <= else_end
                and t not in loop_targets
                and self.home[j.index] == home
            ):
                raise self.fail("a test in the try body skips what would be its else", j)

    def do_try_except(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        h = self._handlers[H]
        home = self.home[s]
        if h.depth != len(stack) or h.lasti:
            raise self.fail("try handler stack depth differs from the try's", ins[s])
        C = self._cleanup_of(H)
        e0, e = self._body_end_with_tails(H, home, stop)
        # the clauses: type test, optional name, body
        clauses = []  # (type_expr|None, name|None, body_start, body_end, star)
        p = H + 1
        base = list(stack)
        hstack = base + [ExcInfo(), CaughtException()]
        reraise0 = None
        if ins[p].op == "COPY" or (ins[p].op == "BUILD_LIST" and ins[p + 1].op == "COPY"):
            return self.do_try_star(s, H, stack, stop, exits)
        while True:
            if ins[p].op == "POP_TOP":
                clauses.append((None, None, p + 1, C))
                break
            q, typ = self._clause_type(p, C, hstack, "CHECK_EXC_MATCH", "except")
            j = ins[q + 1]
            if j.op != "POP_JUMP_IF_FALSE" or j.target is None or j.target <= q:
                raise self.fail("except type test without its jump", j)
            nxt = j.target
            b = ins[q + 2]
            if b.op in STORE_OPS:
                nm = b.argval
                body_start = q + 3
            elif b.op == "POP_TOP":
                nm = None
                body_start = q + 3
            else:
                raise self.fail("except clause without name or pop", b)
            clauses.append((typ, nm, body_start, nxt))
            if ins[nxt].op == "RERAISE" and ins[nxt].arg == 0:
                reraise0 = nxt
                break
            p = nxt
        # where the statement continues: jumps that end the clauses
        follow_cands = []
        merged_copies: list[tuple[int, int]] = []  # (start, length): copies of the follow
        for _typ, nm, b0, b1 in clauses:
            for k in range(b0, b1):
                hk = self.home[k]
                if ins[k].op == "POP_EXCEPT" and (
                    (hk == H and not self._merged_clause_end(k - 1))
                    # the end of a clause whose last statement is a try: reached from that
                    # try's handlers (their home), it pops this handler's exception
                    or (hk is not None and b0 <= hk < b1 and self._cover[k] == self._cover[C])
                ):
                    j = k + 1
                    if nm is not None and self._name_cleanup_at(j, nm):
                        j += 3
                    if j < self.n and ins[j].op == "JUMP":
                        follow_cands.append(ins[j].target)
                    elif (
                        self._merged_clause_end(k)
                        and self._cover[C] is not None
                        and self._cover[j] == self._outer_clause_level(C, k)
                    ):
                        # 3.13 merges the end of the enclosing clause (this try ends it) into
                        # this clause's: the try continues at the enclosing clause's POP_EXCEPT
                        # (or at the one the body falls into, of which this is a copy)
                        n_copy = self._merged_jump(k) - j + 1
                        if j != e and self._same_code(e, j, n_copy):
                            merged_copies.append((j, n_copy))
                            follow_cands.append(e)
                        else:
                            follow_cands.append(j)
        # the normal exit: the jump over the handlers ending the body or the else
        normal_exit = None
        no_else = False
        for j in (e, H - 1):
            if (
                s <= j < self.n
                and j >= e
                and ins[j].op == "JUMP"
                and ins[j].target > j
                and (j == e or j == H - 1)
            ):
                if self.home[j] == home:
                    follow_cands.append(ins[j].target)
                    normal_exit = ins[j].target
                elif (
                    j == H - 1
                    and self.home[j] is not None
                    and s <= self.home[j] < H
                    # (not when that try starts after the body at this statement's level:
                    # then it is in the else, and the else ends where its clauses go)
                    and not self._starts_after(self.home[j], e, home)
                ):
                    # reached only from the clauses of a try that ends the body (3.11+ lays
                    # them out inline): the body's normal exit, with no else before it
                    follow_cands.append(ins[j].target)
                    normal_exit = ins[j].target
                    no_else = True
        if TABLE.copies_clause_ends and normal_exit is None:
            # 3.13: the body ends in a try whose clause ends in a try, and the innermost
            # clause's end jumps past this statement's handlers itself (merged jumps)
            for q in self._merged_end_jumps_homed_in(s, H):
                if (
                    self.home[q] != home
                    and ins[q].target > C + 2
                    and (self._merged_jump(q - 2) == q or self._merged_jump(q - 5) == q)
                ):
                    follow_cands.append(ins[q].target)
                    normal_exit = ins[q].target
                    no_else = True
        inside = [t for t in follow_cands if e0 <= t < e]
        if inside:
            # a clause continues at the return that ends the body: it follows the try
            e = min(inside)
        follow = self._single_follow(follow_cands, normal_exit, "except clauses", ins[H])
        breaks_out = self._follow_leaves_loop(follow, stop, exits)
        clause_exits = None
        if self._clauses_continue(follow, normal_exit, s, e, stop, home, exits):
            # the code after the try follows it: the clauses' jumps are `continue`s
            clause_exits = frozenset()
            follow = None
        # (follow None: from the end of the protected body to the handler)
        bound = stop
        if follow is not None and e <= follow < bound:
            bound = follow
        if e <= H < bound:
            bound = H
        else_end = bound
        if follow is None and (TABLE.cold_blocks_at_end or not (e < H <= stop)):
            # nothing tells where an else would end (3.12+ moves handlers to the end
            # of the code; no clause falls through): what follows the body is after
            # it, unless a try there has its handlers before this one's: compiled
            # first, it was in the else
            else_end = e
            if TABLE.cold_blocks_at_end and any(
                self.home[k] == home and self._cover[k] is not None and self._cover[k] < H
                and self._handlers[self._cover[k]].kind in ("try", "with")
                for k in range(e, min(stop, self.n))
            ):
                else_end = H if e < H < stop else stop
            elif TABLE.cold_blocks_at_end:
                else_end = self._else_end_at_back_edge(e, stop, home) or e
        if no_else:
            else_end = e
        behind = self._code_behind_clause(s, e, H, C, follow)
        if behind is not None and not e <= behind < else_end:
            # 3.11+ reach the else only through a clause of a try in the body when that try's
            # body returns: the else flows as that clause's code, and the reading found no
            # else here (it would come back after the statement, or be lost)
            raise self.misplaced("try else behind a clause of a try in its body", ins[behind])
        if breaks_out and not (ins[e - 1].op == "JUMP" and ins[e - 1].target == follow):
            breaks_out = False  # (the body ends elsewhere: not this reading)
        arm_end = self._arm_past_body(s, e, else_end) if TABLE.cold_blocks_at_end else None
        if arm_end is not None and not (follow is None or follow < s or follow == arm_end):
            # (the test's false exit going to the statement's follow skips [e, arm_end): no
            # else is skipped that way, so that code is the arm; going elsewhere, it may be)
            arm_end = None
        if arm_end is not None:
            # the body's last statement is an if whose arm (a break's or return's copy, which
            # cannot raise) lies past the protected range: the body goes on to the if's end
            e = arm_end
        if TABLE.cold_blocks_at_end and else_end > e:
            self._check_else_not_skipped(s, e, else_end, home)
        inherited = self._inherit(follow, stop, exits)
        if follow is None and self._own_code_between(else_end, min(stop, self.n), home):
            # the statement goes on at else_end, where code of its own follows: it does not end
            # the enclosing block, so a jump to that block's exits (a loop's head) is written
            inherited = frozenset()
        fo = self._follow_exit(follow, s, exits) if not breaks_out else frozenset()
        body_exits = fo | inherited
        if else_end > e and self.loops:
            # with an else, falling off the body goes there: a jump to the loop's head skips
            # the else, a `continue`
            body_exits -= self.loops[-1].continue_targets
        body, st = self.walk(s, e, list(stack), body_exits | {e} | self._exit_jump_after(e, H, home))
        if len(st) != len(stack):
            raise self.fail("try body changes the stack", ins[s])
        orelse, st = self.walk(e, else_end, list(stack), fo | {else_end} | inherited) if else_end > e else ([], stack)
        if orelse:
            # an else runs outside the try: code the try protects is its body's, not the else's
            # (3.11 lays code reached only from an inner clause inline, where it looks like one)
            self._check_nothing_protected_in(H, e, else_end, "code the try protects is read as its else")
        if len(st) != len(stack):
            raise self.fail("try else changes the stack", ins[e])
        if TABLE.inline_handlers and orelse:
            # (3.11 lays clauses inline, so the else range may hold them: checked once the
            # else is known to hold code of its own)
            self._check_else_not_skipped(s, e, else_end, home)
        handlers = []
        for typ, nm, b0, b1 in clauses:
            self._check_no_raise_after_clause(b0, b1, H)
            if nm is not None:
                self._strip_name_cleanups(b0, b1, nm, H)
            cst = base + [ExcInfo()]
            if follow is not None and b0 < follow < b1:
                b1 = follow  # 3.12+: the clause falls into the follow (a finally body's end)
            for m, _ in merged_copies:
                if b0 < m < b1:
                    b1 = m  # 3.13: the clause ends in a copy of the follow
            hb, st = self.walk(b0, b1, cst, fo | inherited if clause_exits is None else clause_exits)
            if len(st) not in (len(base), len(base) + 1):
                raise self.fail("except clause changes the stack", ins[b0])
            self._claim_nested(b0, b1)
            handlers.append(
                ast.ExceptHandler(type=typ, name=nm, body=hb or [ast.Pass()])
            )
        if breaks_out:
            # every path falling off the statement leaves the loop (its jumps there are breaks)
            if orelse:
                raise self.fail("try body leaves the loop past an else", ins[e])
            if not _ends_in_jump(body):
                orelse = orelse + [ast.Break()]
            for hd in handlers:
                if not _ends_in_jump(hd.body):
                    hd.body = hd.body + [ast.Break()]
            follow = None
        tail = self._exit_copy_past_block(follow, stop, exits)
        if tail is not None:
            # 3.11+: the statement goes on at a copy of the function's exit laid out past the
            # enclosing block (a return): each path falling off the statement returns there
            # (said in the else, not the body: the try's handlers do not cover it)
            if not _ends_in_jump(body + orelse):
                orelse = orelse + self._exit_copy_stmts(follow, tail, stack)
            for hd in handlers:
                if not _ends_in_jump(hd.body):
                    hd.body = hd.body + self._exit_copy_stmts(follow, tail, stack)
            for q in range(follow, follow + tail):
                self.reachable[q] = False
            follow = None
        for m, n_copy in merged_copies:
            for q in range(m, m + n_copy):
                self.reachable[q] = False
        self._claim(H, H, follow)
        self._claim_block(C, C + 3)
        if reraise0 is not None:
            self.reachable[reraise0] = False
        node = ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[])
        written = None
        if follow is None and self._at_function_end(else_end, stop, exits):
            # 3.11+ copy the implicit `return None` into every path that ends the function
            # (3.12+ keep one written return that the paths share: it follows the statement)
            written = _strip_final_returns([node])
            node.body = node.body or [ast.Pass()]
        self.emit(node)
        if written is not None:
            self.emit(written)
        if follow is not None and e <= follow:
            if follow <= stop:
                after = max(follow, else_end)
                if self._own_code_between(else_end, after, home):
                    # (never drop code: it would be missing from the source, silently)
                    raise self.fail("code between the try statement and its follow is not placed", ins[s])
                return after
            if follow in exits or (
                ins[follow].op == "JUMP" and ins[follow].target in exits and follow not in self.latch
            ):
                # (through the jump the enclosing try's body ends with: the same place)
                return stop
            raise self.fail("try continues past its enclosing block", ins[s])
        return else_end

    def _follow_leaves_loop(self, follow: int | None, stop: int, exits: frozenset) -> bool:
        """3.11+: does a try statement go on, past its enclosing block, where the innermost
        loop's breaks go?  That is the code after the loop (a return the compiler laid out
        last, reached by a `break`), not a copy of the function's exit inside the loop."""
        return (
            TABLE.has_exception_table
            and follow is not None
            and stop < follow < self.n
            and follow not in exits
            and bool(self.loops)
            and follow in self.loops[-1].break_targets
            and self.ins[follow].op != "JUMP"
        )

    def _exit_copy_past_block(self, follow: int | None, stop: int, exits: frozenset) -> int | None:
        """The length of the copied return at ``follow`` when a 3.11+ try statement goes on
        there, past its enclosing block [.., stop), else None.  Jumps from anywhere may reach
        the copy (each path it ends says it); nothing may fall into it (``_exit_copy_len``)."""
        if not TABLE.has_exception_table or follow is None or follow <= stop or follow in exits or follow >= self.n:
            return None
        if self.ins[follow].op == "JUMP" or any(follow in lp.break_targets for lp in self.loops):
            # (where a loop's breaks go is the code after it, not a copy inside it)
            return None
        return self._exit_copy_len(follow)

    def _merged_clause_end(self, k: int) -> bool:
        """3.13: ``POP_EXCEPT; POP_EXCEPT; JUMP t`` at k, t no loop's target: a clause ending
        a try that ends an enclosing clause, the two clauses' ends merged into one jump (the
        enclosing clause's name cleanup, if it is named, before the jump)."""
        return self._merged_jump(k) is not None

    def _outer_clause_level(self, C: int, k: int) -> int | None:
        """The protection outside the enclosing clause whose end merged into the end at k of
        a clause with clean-up C: past the enclosing clause's name clean-up if it has one."""
        outer = self._cover[self._cover[C]]
        if self._merged_jump(k) == k + 5 and outer is not None:
            outer = self._cover[outer]
        return outer

    def _merged_end_jumps_homed_in(self, lo: int, hi: int) -> list[int]:
        """The jumps that may end merged clause ends (``_merged_jump`` of the POP_EXCEPT two or
        five instructions before), in order, whose home lies in [lo, hi): found in a list
        sorted by home, made once per code, not by a scan of [lo, hi) per try (3.12+ lay the
        handlers at the end, so that scan made a run of n try statements quadratic)."""
        cands = self.__dict__.get("_b_merged_end_jumps")
        if cands is None:
            ins, home = self.ins, self.home
            cands = self._b_merged_end_jumps = sorted(
                (home[q], q)
                for q in range(self.n)
                if ins[q].op == "JUMP"
                and home[q] is not None
                and any(q - d >= 0 and ins[q - d].op == "POP_EXCEPT" for d in (2, 5))
            )
        i = bisect.bisect_left(cands, (lo, -1))
        j = bisect.bisect_left(cands, (hi, -1))
        return sorted(q for _h, q in cands[i:j])

    def _merged_jump(self, k: int) -> int | None:
        """The jump ending the merged clause ends at k (``_merged_clause_end``), or None."""
        if not TABLE.copies_clause_ends or not 0 <= k < self.n or self.ins[k].op != "POP_EXCEPT":
            return None
        j = self._clause_end_jump(k + 1)
        return j if j is not None and self.ins[j].target not in self._loop_targets() else None

    def _clauses_continue(
        self, follow: int | None, normal_exit: int | None, s: int, e: int, stop: int, home: int,
        exits: frozenset,
    ) -> bool:
        """Are the clauses' jumps back to the loop head `continue`s, the code after the
        try body following the try?  Always when the try does not end the loop body
        (falling off it does not go round).  When it does, 3.11 tells them apart: a clause
        falling off the try jumps forward to the back edge laid out after the handlers, a
        `continue` straight to the head.  3.12 may thread the first into the second (both
        compile alike), so the plain reading stays there; 3.13 tells them apart again: an if
        ending an else leaves by a second jump back (see below), one ending the loop body
        jumps to the head itself."""
        loop = self.loops[-1] if self.loops else None
        if not (
            loop is not None
            and follow is not None
            and normal_exit is None
            and follow < s
            and follow in loop.continue_targets
        ):
            return False
        if follow not in exits:
            return True
        if not TABLE.cold_blocks_at_end:
            return True
        return TABLE.copies_clause_ends and e < stop and self._else_end_at_back_edge(e, stop, home) is None

    def _else_end_at_back_edge(self, e: int, stop: int, home: int) -> int | None:
        """3.12+: a try ending a loop body whose clauses never fall through, with an
        else: the else's jump to the try's follow is threaded to the loop head and the
        follow is the loop's back edge, which code in the else (an if's false exit)
        still jumps to; a statement ending the loop body would jump to the head
        itself.  Returns the back edge's index."""
        loop = self.loops[-1] if self.loops else None
        J = min(stop, self.n) - 1
        if loop is None or J <= e:
            return None
        back = self.ins[J]
        if back.op != "JUMP" or back.target not in loop.continue_targets or self.home[J] != home:
            return None
        for k in range(e, J):
            cur = self.ins[k]
            if cur.target != J or cur.op not in CONDITIONAL_JUMPS or self._cover[k] != self._cover[J]:
                continue
            # a `for` body's last if jumps over a jump back instead; a `while` body's
            # jumps to the back edge too, an else's to the NOP before it (its line)
            if loop.item is not None or self._nop_between(cur.argval, back.offset):
                return J
        return None

    def _nop_between(self, a: int, b: int) -> bool:
        """Is there a NOP at a raw offset in [a, b)?  (Normalization drops NOPs.)"""
        if not hasattr(self, "_raw_nops"):
            self._raw_nops = sorted(r.offset for r in decode(self.code) if r.opname == "NOP")
        return any(a <= o < b for o in self._raw_nops)

    def _merge_copied_follows(self, targets: list, prefer: int | None) -> list:
        """Clauses and body jumping to different copies of one exit block (the
        compiler copied the code after the try, ending in a return, into each
        path): the copies are the same code, so every jump goes to the one the
        body reaches."""
        first = prefer if prefer in targets else min(targets)
        k = first
        while k < self.n and self.ins[k].op not in TERMINAL:
            if self.ins[k].target is not None or k - first > 12:
                return targets
            k += 1
        if k >= self.n:
            return targets
        L = k + 1 - first
        others = set(targets) - {first}
        if not all(self._same(t, first, L) for t in others):
            return targets
        for i in self.ins:
            if i.target in others and i.op != "JUMP":
                return targets  # reached otherwise too: leave it
        for t in others:
            before = self.ins[t - 1].op
            if before not in TERMINAL and before != "JUMP":
                return targets  # falls in from the code before it
        for idx, i in enumerate(self.ins):
            if i.target in others:
                self.ins[idx] = replace(i, target=first, argval=first)
        for t in others:
            for q in range(t, t + L):
                self.reachable[q] = False
        return [first] * len(targets)

    def _starts_after(self, H: int, e: int, home: int | None) -> bool:
        """Does the try statement of handler H start at or after ``e``, in code of ``home``?"""
        start = self._try_start(H)
        return start >= e and self.home[start] == home

    def _try_start(self, H: int) -> int:
        """The first instruction handler H protects: where its try or with statement starts."""
        return min(a for a, _ in self._handlers[H].ranges)

    def _code_behind_clause(
        self, s: int, e: int, H: int, C: int, follow: int | None
    ) -> int | None:
        """The first instruction of code in [e, follow), between the try body [s, e) and
        where its clauses go, that only a clause of a try starting in the body reaches (its
        home) and that runs at the level around this statement (covered as its clean-up C
        is), not inside that clause: code of this statement's else.  Jumps and pops are
        how statements end, not code of their own."""
        if not TABLE.has_exception_table or follow is None or follow <= e:
            return None
        outer = self._cover[C]
        starts: dict[int, int] = {}
        for k in range(e, min(follow, self.n)):
            at = self.home[k]
            op = self.ins[k].op
            if at is None or at < 0 or at == H or not self.reachable[k]:
                continue
            returns_const = op == "LOAD_CONST" and k + 1 < self.n and self.ins[k + 1].op == "RETURN_VALUE"
            if self._cover[k] == outer:
                if op in _EXIT_PATH_OPS or returns_const:
                    continue  # (how statements end; a copy of a small return block)
            elif not (
                (op == "JUMP" or returns_const) and self._past_own_finally_copies(k, at, C)
            ):
                continue
            if at not in starts:
                starts[at] = self._try_start(at) if at in self._handlers else -1
            if s <= starts[at] < e:
                return k
        return None

    def _past_own_finally_copies(self, k: int, at: int, C: int) -> bool:
        """Is ``k`` an exit (a return of a constant, a loop's jump) that runs outside the
        handlers around this statement (whose clean-up is C), right after copies of enclosing
        finally bodies, past the code of handler ``at`` (its clauses and clean-up)?  3.11+ lay
        an else's `return <constant>`, `break` or `continue` that leaves through a finally
        that way: the copies, then the return or the jump."""
        cover = self._cover[k]
        if cover is not None and not self._in(C, cover):
            return False
        h = self._handlers.get(at)
        if h is None or h.kind != "try" or self._cover[at] is None or k < self._cover[at] + 3:
            return False
        copies = self._copies
        q = k
        while q > at:
            c = next((c for c, cp in copies.items() if c + cp.length == q), None)
            if c is None:
                break
            q = c
        if q == k:
            return False
        # entered only by jumps (the clause's path, straight from the try in the body), not
        # fallen into from code before it: then the exit is a statement's tail in the body
        p = q - 1
        while p > at and self.ins[p].op == "NOP":
            p -= 1
        return self.ins[p].op == "JUMP" or self.ins[p].op in TERMINAL

    def _at_function_end(self, k: int, stop: int, exits: frozenset) -> bool:
        return (
            stop == self.n
            and not exits
            and not self.loops
            and not any(self.reachable[q] for q in range(k, self.n))
        )

    def _clause_end_jump(self, k: int) -> int | None:
        """Index of the jump ending ``POP_EXCEPT; [name clean-up;] JUMP`` at k (how an except
        clause ends), or None."""
        ins = self.ins
        if k + 1 >= self.n or ins[k].op != "POP_EXCEPT":
            return None
        j = k + 1
        if j + 1 < self.n and ins[j].op == "LOAD_CONST" and self._name_cleanup_at(j, ins[j + 1].argval):
            j += 3
        return j if j < self.n and ins[j].op == "JUMP" else None

    def _name_cleanup_at(self, j: int, nm: str) -> bool:
        ins = self.ins
        return (
            j + 2 < self.n
            and ins[j].op == "LOAD_CONST"
            and ins[j].argval is None
            and ins[j + 1].op in STORE_OPS
            and ins[j + 1].argval == nm
            and ins[j + 2].op in DELETE_OPS
            and ins[j + 2].argval == nm
        )

    def _strip_name_cleanups(self, b0: int, b1: int, nm: str, H: int) -> None:
        for k in range(b0, b1):
            if self.ins[k].op == "POP_EXCEPT" and self._name_cleanup_at(k + 1, nm):
                self._copies[k + 1] = Copy(3, "skip")

    def op_POP_EXCEPT(self, ins, stack: list) -> None:
        # 3.9/3.10: the saved exception is three values (type, value, traceback)
        n = TABLE.saved_exception_values
        if len(stack) < n or not all(isinstance(v, ExcInfo) for v in stack[-n:]):
            raise self.fail("POP_EXCEPT outside a handler", ins)
        del stack[-n:]

    def op_POP_TOP(self, ins, stack: list) -> None:
        """3.11+: a return/break/continue leaving a finally body's exception-path
        copy drops the exception, then its saved info (``_finally_end_len``)."""
        if stack and isinstance(stack[-1], CaughtException):
            k = ins.index
            if TABLE.has_exception_table:
                starts = ((k, 2), (k - 1, 4))
            else:
                starts = ((k, 4), (k - 1, 4), (k - 2, 4), (k - 1, 6), (k - 2, 6), (k - 3, 6))
            if any(j >= 0 and self._finally_end_len(j) == n for j, n in starts):
                stack.pop()
                return
        super().op_POP_TOP(ins, stack)

    def op_POP_BLOCK(self, ins, stack: list) -> None:
        """3.9/3.10: regions come from the block analysis; the pop itself says nothing."""
        if ins.index not in self._b_pops:
            raise self.fail("POP_BLOCK without its SETUP", ins)

    # ------------------------------------------------------------ try/finally
    def do_try_finally(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        h = self._handlers[H]
        home = self.home[s]
        if h.depth > len(stack) or h.lasti or (h.depth < len(stack) and not TABLE.has_exception_table):
            raise self.fail("finally handler stack depth differs from the try's", ins[s])
        outer = list(stack)
        if h.depth < len(stack):
            # Dynamo: a try/finally around a call whose operands were pushed before it (a graph
            # break inside a `with`).  Source cannot keep values on the stack across a `try`:
            # they are computed into temporaries before it, and what the body leaves into
            # temporaries inside it.
            self.spill(None, stack)
            outer = list(stack)
        C = self._cleanup_of(H)
        # the exception-path copy: PUSH_EXC_INFO; <finally body>; RERAISE 0
        R = None
        for k in range(H + 1, self.n):
            if self.home[k] != H:
                continue
            if ins[k].op == "RERAISE" and ins[k].arg == 0 and self._cover[k] == C:
                R = k
        fin_jumps: frozenset = frozenset()
        last_reraise = R
        if H in self._fin_exits:
            # (its last re-raise may end a nested try's clause: found there)
            R, fin_jumps, last_reraise = self._fin_exits[H]
        never_ends = R is None
        if R is None:
            R = last_reraise = self._raising_finally_end(H, C)
        if R is None:
            raise self.fail("finally body without its re-raise", ins[H])
        for k in range(H + 1, R):
            if self.home[k] != H and self.home[k] is not None and self._cover[k] is None:
                if not self._in_finally_exit(k):
                    raise self.fail("finally body with code outside its handler", ins[k])
        L = R - (H + 1)
        _, e = self._extent(H, home)
        self._copy_kind = "finally"
        ends_twice = bool(fin_jumps) or any(ins[k].target == R for k in range(H + 1, R))

        extras: dict[int, frozenset] = {}

        def matches(k: int) -> int:
            if L == 0:
                return 0
            if ends_twice:
                n = self._match_finally(k, H + 1, L, fin_jumps)
            else:
                n = L if self._same(k, H + 1, L) else 0
            if n or ins[k].op != ins[H + 1].op:
                return n
            g = self._graph_copy(k, H, R, C)
            if g is None:
                return 0
            extras[k] = g[1]
            return g[0]

        before = set(self._copies)
        end = self._register_copies(H, home, s, e, matches)
        for k in set(self._copies) - before:
            self._copies[k].never_ends = never_ends
        if L:
            self._check_body_leaves_through_copies(s, e, H)
            self._check_unprotected_code_is_copies(s, e, H, home)
            self._check_clause_exits_are_copies(H, home)
        # 3.12+: the normal exit's copy reached only from a clause of a try in the body (the
        # body itself returns) lies with that clause's code: a clause jumping there leaves
        # this statement too
        clause_exits = frozenset(
            k for k in set(self._copies) - before
            if k > end and self.home[k] not in (None, -1, home) and self._in(self.home[k], H)
        ) if TABLE.has_exception_table else frozenset()
        loop = self.loops[-1] if self.loops and clause_exits else None
        loop_places = self._exit_places(frozenset(loop.continue_targets | loop.break_targets)) if loop else set()
        after_end = self._past_nops(self._thread(end)) if clause_exits else end
        jumped_to = (
            {q.target for q in ins if q.op == "JUMP" and self.initially_reachable[q.index]} if clause_exits else set()
        )
        for k in clause_exits & jumped_to:
            # a clause leaving through such a copy leaves the statement only if the copy goes
            # on where the statement does, when the body falls off into code of its own level
            # (3.12 104:171: the copy went round the loop, while the statement, read inside an
            # if's arm, went on at the code after the if).  (A body that never falls off ends
            # at its handler: the clauses' copies say where the statement goes on.)
            after, seen = k, set()
            while after in self._copies and after not in seen:  # (and enclosing finallys' copies)
                seen.add(after)
                after = self._past_nops(self._thread(after + self._copies[after].length))
                while after < self.n and ins[after].op in ("POP_TOP", "POP_EXCEPT"):  # (unwinding)
                    after = self._past_nops(self._thread(after + 1))
            if (
                # (a clause's `continue` or `break` through the finally, or code after the
                # statement outside the block being read: laid out past it, 3.12+, which the
                # walk would place after the enclosing statements)
                (after in loop_places or not end <= after < stop)
                and after != after_end
                and after_end < self.n
                and self.home[after_end] == home
                and (after >= self.n or self.ins[after].op not in TERMINAL)  # (a return's copy)
                # (ending the enclosing block, the statement goes where the block's exits go)
                and not ((end == stop or end in exits) and after in self._exit_places(exits))
            ):
                raise self.fail("a clause leaves the try/finally for elsewhere than its end", ins[k])
        for k, extra in extras.items():
            if k in self._copies:
                for q in extra:
                    self.reachable[q] = False
        if (
            L  # (`finally: pass`: the copies are empty, the body falls into what follows)
            and e < self.n
            and self.home[e] == home
            and e not in self._copies
            and ins[e - 1].op not in TERMINAL
            and ins[e - 1].op != "JUMP"
        ):
            # the body falls off its end into code that is not the finally body's copy:
            # reading it as the code after the statement would run the body twice
            raise self.fail("finally body's copy on the normal path not found", ins[e])
        hstack = list(stack[: h.depth]) + [ExcInfo(), CaughtException()]
        final, st = self.walk(H + 1, R, hstack, frozenset({R}))
        if len(st) != len(hstack):
            raise self.fail("finally body changes the stack", ins[H])
        self._claim_nested(H + 1, R)
        follow = end
        inherited = self._inherit(follow, stop, exits)
        body, st = self.walk(
            s, end, list(stack), frozenset({end}) | inherited | clause_exits,
            base_stack=list(stack[: h.depth]),
        )
        if len(outer) != h.depth:
            stack[:] = self._left_by_body(body, st, outer, ins[s])
        elif len(st) != len(stack):
            raise self.fail("try body changes the stack", ins[s])
        self._claim(H, H, None)
        self._claim_block(R, last_reraise + 1)
        self._claim_block(C, C + 3)
        if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody and body[0].handlers:
            node = body[0]
            node.finalbody = final or [ast.Pass()]
        else:
            node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
        self.emit(node)
        return end

    def _check_body_leaves_through_copies(self, s: int, e: int, H: int) -> None:
        """Every jump out of a try body runs the finally body first: it lands on a copy of
        it (after the pops that unwind a loop or a handler).  A jump landing elsewhere means
        a copy was not recognized (3.12: the normal exit's copy, when the body ends
        `if c: pass else: continue`), and whatever the walk made of it would skip the
        finally body on that path, or run another path's copy instead."""
        ins = self.ins
        for q in range(s, e):
            t = ins[q].target
            if t is None or not self.reachable[q] or not self._in(q, H) or s <= t < e:
                continue
            k = self._past_nops(self._thread(t))
            while k < self.n and ins[k].op in ("SWAP", "POP_TOP", "POP_EXCEPT") and k not in self._copies:
                k = self._past_nops(k + 1)
            if t in self._copies or k in self._copies or self._in(t, H):
                continue
            raise self.fail("a jump leaves the try body elsewhere than through its finally body's copy", ins[q])

    def _check_unprotected_code_is_copies(self, s: int, e: int, H: int, home: int | None) -> None:
        """Inside the try's extent, the code of its level that H does not protect is on an
        exit path: copies of the finally body, the pops that unwind, the exit itself (a
        jump, a return, a copy of a small return block).  Anything else is a copy not
        recognized (3.12: a `return`'s copy of a finally body that ends in `break`), which
        the walk would read as code of the body, run twice."""
        k = self._first_uncopied(s, e, lambda k: self.home[k] != home or self._in(k, H))
        if k is not None:
            raise self.fail(
                "code on an exit path of the try body that is no copy of its finally body", self.ins[k]
            )

    def _first_uncopied(self, lo: int, hi: int, other: Callable[[int], bool]) -> int | None:
        """The first reachable instruction in [lo, hi) on an exit path that is none of: a known
        copy of a finally body, unwinding, a jump (3.13 leaves some of a body's jumps
        unprotected), an exit tail (pops, a return), or code ``other`` says is not on it."""
        ins = self.ins
        k = lo
        while k < hi:
            if k in self._copies:
                k += self._copies[k].length
                continue
            if (
                not self.reachable[k]
                or ins[k].op in _UNWINDING
                or ins[k].target is not None
                or other(k)
            ):
                k += 1
                continue
            t = self._exit_tail_len(k)
            if not t:
                return k
            k += t
        return None

    def _check_clause_exits_are_copies(self, H: int, home: int | None) -> None:
        """3.11+: the exception-path copy of a try/finally nested in the body, where H does
        not protect it, has left this statement (a `break`, `continue` or `return` in the
        nested finally body): it goes on with a copy of this finally body (then pops, a
        return, a jump).  Anything else is a copy not recognized (3.14: the copy on a
        nested finally body's `break`, its jump merged into the copy's if), which the walk
        would read as code of the nested finally body, run without this finally body.
        (Code an except clause of a nested try reaches may be the code after that try.)"""
        if not TABLE.has_exception_table:
            return
        def elsewhere(k: int) -> bool:
            hk = self.home[k]
            return (
                hk is None
                or hk < 0
                or hk in (H, home)
                or not self._in(hk, H)
                or not self._is_finally(hk)
                or self._in(k, H)
            )

        k = self._first_uncopied(0, self.n, elsewhere)
        if k is not None:
            raise self.fail(
                "code on an exit path of a nested handler that is no copy of the finally body",
                self.ins[k],
            )

    def _raising_finally_end(self, H: int, C: int) -> int | None:
        """A finally body that never ends (it raises or returns on every path) has
        no re-raise after its exception-path copy: the copy is handler H's code
        with that of the handlers nested in it, up to the first other code."""
        mine = [
            k
            for k in range(H + 1, self.n)
            if self.home[k] == H or (self.home[k] is not None and self.home[k] > H and self._in(self.home[k], C))
        ]
        if not mine:
            return None
        R = mine[-1] + 1
        if any(self.home[k] is not None and k not in mine for k in range(H + 1, R)):
            return None
        if self.ins[R - 1].op not in TERMINAL and self.ins[R - 1].op != "JUMP":
            return None
        return R

    def _left_by_body(self, body: list[ast.stmt], st: list, outer: list, ins: Instr) -> list:
        """The stack after a try body that consumed values pushed before it (already in
        temporaries, see :meth:`spill`): values it left are assigned to temporaries at its end."""
        kept = [v for v in st if any(v is o for o in outer)]
        if kept != outer[: len(kept)]:
            raise self.fail("try body reorders the values below it", ins)
        out = list(kept)
        for v in st[len(kept) :]:
            if not isinstance(v, ast.expr):
                raise self.fail("try body leaves a non-value on the stack", ins)
            tmp = f"__pellucid_tmp{self.spilled}"
            self.spilled += 1
            body.append(ast.Assign(targets=[name(tmp, ast.Store())], value=self.as_expr(v, ins), lineno=0))
            ref = name(tmp)
            ref.is_spill = True
            out.append(ref)
        return out

    # ------------------------------------------------------------ with
    def do_with(self, b: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        ctx = self.pop_expr(stack, ins[b])
        home = self.home[b]
        W = self._cover[b + 1]
        if W is None or self._handlers[W].kind != "with":
            raise self.fail("with statement without its handler", ins[b])
        h = self._handlers[W]
        if h.depth != len(stack) + 1 or not h.lasti:
            raise self.fail("with handler stack depth differs", ins[b])
        self._started.add(W)
        C = self._cleanup_of(W)
        if self._handlers[C].depth != h.depth + 2:
            # The clean-up (COPY 3; POP_EXCEPT; RERAISE 1) finds the exception handled before
            # the handler's under the exception and lasti it pushes; kept deeper, it finds the
            # handler's own exception, which then stays set as the one being handled after an
            # exception __exit__ raises leaves the statement.  No source does that (Dynamo's
            # resume functions on 3.14, torch 2.15, re-enter with blocks so).
            raise self.fail("with handler's clean-up keeps another stack than the handler's", ins[W])
        # handler: PUSH_EXC_INFO; WITH_EXCEPT_START; POP_JUMP_IF_TRUE L; RERAISE 2
        j = ins[W + 2]
        if not (j.op == "POP_JUMP_IF_TRUE" and ins[W + 3].op == "RERAISE" and j.target is not None):
            raise self.fail("unrecognized with handler", ins[W])
        Lb = j.target
        if [ins[Lb + d].op for d in range(4)] != ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP"]:
            raise self.fail("unrecognized with handler", ins[Lb])
        # where a suppressed exception continues: the with's follow
        sup = Lb + 4
        follow = None
        tail = None
        crossed = None  # (an instruction of another handler's code the tail runs into)
        leaves = None  # the flag of an enclosing with this one's suppressed path leaves
        # (a JUMP the body's normal exit jumps to as well is the code after the statement,
        # such as the `continue` ending a branch the with ends, not the handler's own)
        # (nor one a jump from before the statement reaches: an if whose test jumps there,
        # past the with ending its branch, as 3.11 117:131 does)
        if ins[sup].op == "JUMP" and not any(
            q.target == sup and not Lb <= q.index < sup and self.initially_reachable[q.index]
            for q in ins
        ):
            follow = ins[sup].target
            claim_to = sup + 1
        elif self.home[sup] != W or ins[sup].op == "JUMP":
            follow = sup
            claim_to = sup
        else:
            k = sup
            while k < self.n and ins[k].op not in TERMINAL:
                if ins[k].target is not None:
                    leaves = self._leaves_enclosing_with(sup, k)
                    if leaves is None:
                        raise self.fail("with handler continues into unrecognized code", ins[k])
                    break
                if self.home[k] != W and crossed is None:
                    crossed = ins[k]
                k += 1
            tail = (sup, k + 1 - sup)
            claim_to = k + 1
        # the as-target
        stack.append(WithExit(ctx))
        k, target = self._with_target(b + 1, stack)
        _, e = self._extent(W, home)
        self._copy_kind = "with"
        end = self._register_copies(W, home, k, e, lambda k: 5 if self._is_exit_copy(k) else 0)
        # this statement's exit copies (each 5 long: what follows one is where it goes)
        exit_copies = [c for c, cp in self._copies.items() if cp.kind == "with" and k <= c < max(end, e) + 1]
        raising_tail = None  # (see below: a suppressed exception that raises instead)
        normal_follow = (
            self._normal_exit_past(W, tail, claim_to, exit_copies)
            if tail is not None and (leaves is not None or ins[claim_to - 1].op == "RAISE_VARARGS")
            else None
        )
        if normal_follow is not None:
            # The body's normal exit goes on past the handler, while an exception the context
            # manager suppresses ends in a raise of the handler's own, or leaves an enclosing
            # with for that one's raise.  Dynamo's resume functions re-enter with blocks this
            # way (reentry.py); no source says it with a plain with statement: a flag the body
            # sets at its end tells the exits apart.
            follow, raising_tail, tail = normal_follow, tail, None
        elif crossed is not None:
            raise self.fail("with handler continues into unrecognized code", crossed)
        if tail is not None:
            # find the normal exit: an exit copy followed by the same code as the tail
            cand = [c + 5 for c in exit_copies if self._same(c + 5, tail[0], tail[1])]
            if cand:
                follow = max(cand)
                if tail[1] == 2 and ins[tail[0]].op == "LOAD_CONST" and ins[tail[0]].argval is None:
                    # both exits end in their own `return None`: the compiler copied the
                    # function's implicit return (no line) into each, see emit
                    self.implicit_returns.add(follow + 1)
            elif (
                tail[1] == 2
                and ins[tail[0]].op == "LOAD_CONST"
                and ins[tail[0]].argval is None
                and not self._own_code_between(end, stop, home)
                and stop >= self.n - 0
            ):
                pass
            elif (
                TABLE.copies_exits_without_line
                and tail[0] > stop
                and stop < self.n
                and ins[tail[0] + tail[1] - 1].op in TERMINAL
                and self._same(stop, tail[0], tail[1])
            ):
                # 3.12+: the statement ends a block (an if's arm) whose body ends otherwise
                # (a return): a suppressed exception goes on where the block does, at a copy
                # of that code (a small exit) laid out after the handler
                follow = stop
            elif self._exits_then_return_none(tail[0]) == list(range(tail[0], tail[0] + tail[1])):
                # 3.11: the statement ends the body of withs whose other paths return: a
                # suppressed exception goes on into their exits and the function's `return
                # None` (3.12+ jump there, see below)
                pass
            elif sup <= stop and all(self._pure_exit(c + 5) for c in exit_copies):
                # the body never ends normally (`with suppress(E): return x`): the
                # code after the statement is reached only when an exception is
                # suppressed, and follows the handler
                follow = sup
                claim_to = sup
                tail = None
            else:
                raise self.fail("with statement whose follow is not found", ins[b])
        if (
            follow is not None
            and follow > stop
            and follow not in exits
            and self._exits_then_return_none(follow) is not None
        ):
            # 3.12+: the statement ends the body of withs whose other paths return: what a
            # suppressed exception goes on to, their exits and the function's `return None`,
            # is laid out past the handler code, not at the block's end
            for q in self._exits_then_return_none(follow):
                self.reachable[q] = False
            follow = None
        if follow is not None and k <= follow <= stop:
            body_end = follow
        elif follow is None or follow in exits or follow < k:
            body_end = stop if follow is None or follow > stop or follow < k else follow
            body_end = min(max(end, e), stop) if follow is None else body_end
        else:
            raise self.fail("with continues past its enclosing block", ins[b])
        raised: list[ast.stmt] = []
        flag = ""
        if raising_tail is not None:
            # (named once per statement: a walk may be tried again)
            flag = self._with_flags.setdefault(b, f"__pellucid_with_done{len(self._with_flags)}")
            if leaves is None:
                raised, left = self.walk(raising_tail[0], claim_to, stack[:-1], frozenset())
                if left != stack[:-1] or not raised or not isinstance(raised[-1], ast.Raise):
                    raise self.fail("with handler ends in unrecognized code", ins[raising_tail[0]])
            self._raising_withs.append((raising_tail[0], flag))
        for q in range(W, W + 4):
            self.reachable[q] = False
        self._claim_block(Lb, claim_to)
        self._claim_block(C, C + 3)
        inherited = self._inherit(follow, stop, exits)
        fo = self._follow_exit(follow, k, exits)
        try:
            body, st = self.walk(k, body_end, list(stack), fo | {body_end} | inherited)
        finally:
            if raising_tail is not None:
                self._raising_withs.pop()
        if len(st) == len(stack) and st[-1] is stack[-1]:
            pass  # no path leaves the body normally
        elif len(st) != len(stack) - 1:
            raise self.fail("with body does not end with its exit", ins[b])
        stack.pop()
        item = ast.withitem(context_expr=ctx, optional_vars=target)
        # async with: generators.fold_suspensions leaves it in this shape, marked
        kind = ast.AsyncWith if ins[b].extra.get("async") else ast.With
        if raising_tail is not None:
            self.emit(ast.Assign(targets=[name(flag, ast.Store())], value=const(False), lineno=0))
            done = ast.Assign(targets=[name(flag, ast.Store())], value=const(True), lineno=0)
            body = self._guard_rest(body, done, flag, ins[b])
        if len(body) == 1 and type(body[0]) is kind:
            # `with a, b:` compiles exactly as `with a: with b:`
            node = body[0]
            node.items.insert(0, item)
        else:
            node = kind(items=[item], body=body or [ast.Pass()])
        self.emit(node)
        loop = self.loops[-1] if self.loops else None
        if (
            follow is not None
            and follow < k
            and follow not in exits
            and loop is not None
            and follow in loop.continue_targets
            and raising_tail is None
            and _ends_in_jump(body)
        ):
            # a suppressed exception goes round the loop (3.13+ thread the jump there), the
            # body never ends normally, and the block around the statement does not end at
            # the loop's head: say it
            self.emit(ast.Continue())
        if leaves is not None:
            node.leaves = (leaves, flag)  # (see _guard_rest)
        elif raising_tail is not None:
            # (a constant alone, the handler's leftover, is no statement: compile drops it)
            raised = [st for st in raised if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
            test = ast.UnaryOp(op=ast.Not(), operand=name(flag))
            self.emit(ast.If(test=test, body=raised, orelse=[]))
        return body_end

    def _normal_exit_past(
        self, W: int, tail: tuple[int, int], claim_to: int, exit_copies: list[int]
    ) -> int | None:
        """Where the normal exit of a with goes when it does not go where a suppressed
        exception does (``tail``, the handler's code from the suppressed path to
        ``claim_to``): None when it does.

        The compiler lets a suppressed exception go on where the normal exit goes, never
        elsewhere: the exit copy jumps to the code after the statement, and the suppressed
        path either jumps there too or (a small block, 3.12+) runs its own copy of it.  A
        normal exit that jumps just past the suppressed path's code, or (3.12+) runs a
        copied block of its own that returns or raises, unlike that code, goes elsewhere."""
        ins = self.ins
        jumps = [c + 5 for c in exit_copies if ins[c + 5].op == "JUMP" and ins[c + 5].target == claim_to]
        if jumps:
            # (not where the compiler copied the code after the statement, a raise, into
            # the suppressed path: that code is the same)
            return None if self._same(claim_to, tail[0], tail[1]) else claim_to
        if not TABLE.copies_exits_without_line:
            return None
        # (the statement's own exit: the one right after its body, which its handler covers;
        # a with inside it has its own)
        own = [c for c in exit_copies if c > 0 and self._cover[c - 1] == W]
        if len(own) != 1 or self._straight_tail(own[0] + 5) is None:
            return None
        at = own[0] + 5
        length = self._straight_tail(at)
        if length == tail[1] and self._same(at, tail[0], tail[1]):
            return None  # (the same block: the code after an ordinary statement)
        return at

    def _guard_rest(self, body: list[ast.stmt], done: ast.stmt, flag: str, at: Instr) -> list[ast.stmt]:
        """``body`` of a with that sets its ``flag`` at its end (``done``).  A with inside it
        whose suppressed exception leaves this one (its ``leaves``: this flag, and its own)
        skips the rest of the body: ``if <its flag>: <rest>; <done>``."""
        inner = [q for q, st in enumerate(body) if getattr(st, "leaves", ("",))[0] == flag]
        deeper = sum(1 for st in body for n in ast.walk(st) if getattr(n, "leaves", ("",))[0] == flag)
        if len(inner) > 1 or deeper != len(inner):
            raise self.fail("a with leaving an enclosing with from inside a nested block", at)
        if not inner:
            return [*body, done]
        q = inner[0]
        test = name(body[q].leaves[1])
        return [*body[: q + 1], ast.If(test=test, body=[*body[q + 1 :], done], orelse=[])]

    def _leaves_enclosing_with(self, sup: int, j: int) -> str | None:
        """The flag of the enclosing with whose own suppressed path the suppressed path
        [sup, j] of a with inside it joins: the enclosing with's exit (a copy of it, the only
        other thing there) and a jump into that path, which raises or, the same way, leaves
        the with around it.  None: not that shape."""
        if not self._raising_withs:
            return None
        start, flag = self._raising_withs[-1]
        ins = self.ins
        if not (
            ins[j].op == "JUMP"
            and ins[j].target == start + 1
            and ins[start].op == "LOAD_CONST"
            and ins[start].argval is None
            and ins[j - 1].op == "LOAD_CONST"
            and ins[j - 1].argval is None
            and j - 6 >= sup
            and self._is_exit_copy(j - 6)
        ):
            return None
        # before the exit copy: only a value pushed and popped (the handler's leftover)
        if [ins[q].op for q in range(sup, j - 6)] not in ([], ["LOAD_CONST", "POP_TOP"]):
            return None
        return flag

    def _with_target(self, k: int, stack: list) -> tuple[int, ast.expr | None]:
        """Read the store(s) of ``__enter__()``'s result; return (body start, target)."""
        ins = self.ins
        if ins[k].op == "POP_TOP":
            return k + 1, None
        sentinel = ast.Name(id="__pellucid_with_enter__", ctx=ast.Load())
        st = list(stack) + [sentinel]
        saved, self.block = self.block, []
        try:
            depth = len(stack)
            while True:
                cur = ins[k]
                if cur.target is not None or cur.op in TERMINAL:
                    raise self.fail("with target is not a store", cur)
                self.apply(cur, st)
                k += 1
                if len(st) == depth and self.block:
                    break
            stmts = self.block
        finally:
            self.block = saved
        if len(stmts) != 1 or not isinstance(stmts[0], ast.Assign) or stmts[0].value is not sentinel:
            raise self.fail("with target is not a plain store", ins[k - 1])
        if len(stmts[0].targets) != 1:
            raise self.fail("with target with several names", ins[k - 1])
        stack[:] = st
        return k, stmts[0].targets[0]

    # ------------------------------------------------------------ 3.9/3.10: the block stack
    #
    # Before 3.11 a protected region is opened by SETUP_FINALLY/SETUP_WITH (whose
    # target is the handler) and closed by POP_BLOCK; a handler runs inside an
    # except-handler block that POP_EXCEPT closes.  ``_setup_blocks`` computes the
    # block stack of every instruction by following normal control flow (as
    # CPython's ``markblocks`` does), which pairs every POP_BLOCK with its SETUP.
    # Each compiler-made copy of a finally body or of a with's ``__exit__`` call
    # sits right after a POP_BLOCK of its statement, so the copies are found by
    # that pairing, not by position.  ``home`` is as on 3.11+: -1 for code reached
    # from the entry, else the handler whose code it is.

    def _bsucc(self, k: int) -> list[int]:
        ins = self.ins[k]
        out = []
        if ins.target is not None and not ins.op.startswith("SETUP_"):
            out.append(ins.target)
        if ins.op not in TERMINAL and ins.op != "JUMP":
            out.append(k + 1)
        return out

    def _setup_blocks(self) -> None:
        n, ins = self.n, self.ins
        bs: list = [None] * (n + 1)
        self._b_stack = bs
        self._b_pops: dict[int, int] = {}
        self._b_setup_of: dict[int, int] = {}
        self._b_handler: dict[int, int] = {}
        for i in ins:
            if i.op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH") and i.target is not None:
                self._b_handler[i.index] = i.target
                if self._b_setup_of.setdefault(i.target, i.index) != i.index:
                    self._exc_error = ("two SETUPs share a handler", i)
        if not self._b_handler:
            return

        def err(reason: str, k: int) -> None:
            if self._exc_error is None:
                self._exc_error = (reason, ins[k])

        work = [(0, ())]
        while work:
            k, B = work.pop()
            while k < n:
                if bs[k] is not None:
                    if bs[k] != B:
                        err("block stacks disagree at a join", k)
                    break
                bs[k] = B
                i = ins[k]
                op = i.op
                if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                    work.append((i.target, B + (("E", k),)))
                    B = B + (("S", k),)
                    k += 1
                    continue
                if op == "POP_BLOCK":
                    if not B or B[-1][0] != "S":
                        err("POP_BLOCK without a block", k)
                        break
                    self._b_pops[k] = B[-1][1]
                    B = B[:-1]
                    k += 1
                    continue
                if op == "POP_EXCEPT":
                    if not B or B[-1][0] != "E":
                        err("POP_EXCEPT without a handler block", k)
                        break
                    B = B[:-1]
                    k += 1
                    continue
                if i.target is not None:
                    work.append((i.target, B))
                if op in TERMINAL or op == "JUMP":
                    break
                k += 1
        # homes
        home = self.home

        def flood(start: int, tag: int) -> None:
            work = [start]
            while work:
                k = work.pop()
                if k >= n or home[k] is not None:
                    continue
                home[k] = tag
                work.extend(self._bsucc(k))

        def flood_handler(s: int, start: int | None = None) -> None:
            # a handler's code ends where it leaves its except block: a jump from
            # after its POP_EXCEPT (and a with's suppression path falling through)
            # reaches the statement's follow, which is the enclosing code's (and
            # if that is a handler's too, it ends where it leaves that one's block)
            H = self._b_handler[s]
            mine = ("E", s)
            outside = []
            work = [H if start is None else start]
            while work:
                k = work.pop()
                if k >= n or home[k] is not None:
                    continue
                if ins[H].op == "WITH_EXCEPT_START" and k == H + 8:
                    outside.append(k)
                    continue
                home[k] = H
                if bs[k] is not None and mine not in bs[k] and ins[k].op == "JUMP":
                    outside.append(ins[k].target)
                    continue
                work.extend(self._bsucc(k))
            outer = home[s]
            for t in outside:
                if outer is not None and outer >= 0 and outer in self._b_setup_of:
                    flood_handler(self._b_setup_of[outer], t)
                else:
                    flood(t, outer)

        flood(0, -1)
        pending = sorted(self._b_handler)
        progress = True
        while pending and progress:
            progress = False
            for s in list(pending):
                if home[s] is not None:
                    flood_handler(s)
                    pending.remove(s)
                    progress = True

    def _owned_tags(self, H: int) -> frozenset:
        """The homes that are handler H's code: H and the handlers nested in it."""
        cache = self.__dict__.setdefault("_b_owned_cache", {})
        r = cache.get(H)
        if r is None:
            nested = self.__dict__.get("_b_nested")
            if nested is None:
                # handler -> the handlers whose set-up is its code (found once, not per H)
                nested = self._b_nested = {}
                for h, s in self._b_setup_of.items():
                    nested.setdefault(self.home[s] if s is not None else None, []).append(h)
            tags, seen, work = set(), set(), [H]
            while work:
                x = work.pop()
                if x in seen:
                    continue
                seen.add(x)
                if x in self._b_setup_of:
                    tags.add(x)
                work.extend(nested.get(x, ()))
            r = cache[H] = frozenset(tags)
        return r

    def _owned(self, k: int, H: int) -> bool:
        """Is instruction k code of handler H (or of a handler nested in H's code)?"""
        return self.home[k] in self._owned_tags(H)

    def _handler_code(self, H: int) -> list[int]:
        """The indices from H on that are handler H's code (its homes are set once, when the
        block stack is read): found per home, not by a scan of everything after H."""
        homed = self.__dict__.get("_b_homed")
        if homed is None:
            homed = self._b_homed = self._indices_by_home()
        return sorted(k for tag in self._owned_tags(H) for k in homed.get(tag, ()) if k >= H)

    def _claim_handler(self, H: int) -> int:
        """Mark handler H's code consumed; return the index after its last instruction."""
        code = self._handler_code(H)
        for k in code:
            self.reachable[k] = False
        return code[-1] + 1 if code else H

    def _handler_end(self, H: int) -> int:
        code = self._handler_code(H)
        return code[-1] + 1 if code else H + 1

    def _straight_tail(self, j: int, limit: int | None = None) -> int | None:
        """Length of straight-line code from j ending in a return or a raise (a 3.10 copy
        of a small exit block), or None.  It starts a statement: nothing it consumes was
        pushed before it (``SWAP; POP_TOP; RETURN_VALUE`` is a return's unwinding)."""
        if j < self.n and self.ins[j].op == "RAISE_VARARGS" and self.ins[j].arg == 0:
            return 1 if limit is None or j < limit else None  # a bare `raise`
        if j >= self.n or not (self.ins[j].op.startswith("LOAD_") or self.ins[j].op == "POP_BLOCK"):
            return None
        k = j
        leading = True  # still in the POP_BLOCKs and exit copies it starts with
        while k < self.n and (limit is None or k < limit):
            ins = self.ins[k]
            if leading and (k in self._copies or self._is_exit_copy39(k)):
                k += self._copies[k].length if k in self._copies else 5
                continue
            if ins.target is not None or ins.op.startswith("SETUP_"):
                return None
            if leading and ins.op != "POP_BLOCK":
                if not ins.op.startswith("LOAD_"):
                    return None  # uses a value computed before: a return's unwinding
                leading = False
            if ins.op in ("RETURN_VALUE", "RAISE_VARARGS"):
                return k + 1 - j
            if ins.op in TERMINAL:
                return None
            k += 1
        return None

    def _through_jump(self, k: int) -> int:
        return self.ins[k].target if k < self.n and self.ins[k].op == "JUMP" else k

    def _pops3(self, p: int) -> bool:
        return p + 2 < self.n and all(self.ins[p + d].op == "POP_TOP" for d in range(3))

    def _single_follow(self, cands: list, normal_exit: int | None, what: str, at: Instr) -> int | None:
        """Where a try statement continues, from where its body and clauses go: the one place
        that is not a loop's head, break or continue target (copies of one block count once),
        else the first candidate; None without candidates."""
        loop_targets = self._loop_targets()
        plain = [t for t in cands if t not in loop_targets]
        if len(set(plain)) > 1:
            plain = self._merge_copied_follows(plain, normal_exit)
        if plain:
            if len(set(plain)) != 1:
                raise self.fail(f"{what} continue at different places", at)
            return plain[0]
        return cands[0] if cands else None

    def _loop_targets(self) -> set:
        out: set = set()
        for lp in self.loops:
            out |= lp.continue_targets | lp.break_targets | {lp.header}
        return out

    def _block_inherit(self, end: int | None, stop: int, exits: frozenset) -> frozenset:
        """The exits of the walks inside a statement that continues at ``end``: the
        enclosing walk's when the statement ends it (directly, or through a last
        jump to one of them, as a loop's back edge)."""
        if end is None or end >= stop or end in exits:
            return exits
        j = self.ins[end]
        if (
            j.op == "JUMP"
            and j.target in exits
            and self._dead_between(end + 1, stop)
        ):
            return exits
        return frozenset()

    def _is_exit_copy39(self, k: int) -> bool:
        ins = self.ins
        return (
            k + 4 < self.n
            and ins[k].op == "LOAD_CONST"
            and ins[k].argval is None
            and ins[k + 1].op == "COPY"
            and ins[k + 1].argval == 1
            and ins[k + 2].op == "COPY"
            and ins[k + 2].argval == 1
            and ins[k + 3].op == "CALL_FUNCTION"
            and ins[k + 3].argval == 3
            and ins[k + 4].op == "POP_TOP"
        )

    def _is_except_handler39(self, H: int) -> bool:
        ins = self.ins
        if self._pops3(H):
            return True
        if not (ins[H].op == "COPY" and ins[H].argval == 1):
            return False
        k = H + 1
        while k < self.n and ins[k].target is None:
            k += 1
        return k < self.n and ins[k].op == "JUMP_IF_NOT_EXC_MATCH"

    def do_try_blocks(self, s: int, stack: list, stop: int, exits: frozenset) -> int:
        H = self.ins[s].target
        if H is None or self.home[H] is None or self.home[s] is None:
            raise self.fail("try without a reachable handler", self.ins[s])
        if self._is_except_handler39(H):
            return self._try_except_blocks(s, H, stack, stop, exits)
        return self._try_finally_blocks(s, H, stack, stop, exits)

    def _leaves_to(self, t: int, exits: frozenset) -> bool:
        """Is reaching t the same as falling off the enclosing block: t is one of
        its exits, or a jump to one (3.9: a loop's last jump back, after an else)?"""
        return t in exits or (t < self.n and self.ins[t].op == "JUMP" and self.ins[t].target in exits)

    def _leaves_loop_at(self, cont: int, stop: int) -> bool:
        """Does a statement that goes on at ``cont``, at or past the end of the walk, leave the
        innermost loop there (a `break`)?  Its end is past the loop's last jump back, where
        falling off would go round instead (also when an if ending the loop body names that
        place an exit: it is where the body ends, and falling off the body goes round)."""
        return cont >= stop and bool(self.loops) and cont in self.loops[-1].break_targets

    def _cont(self, cont: int, stop: int, exits: frozenset, ins) -> int:
        if cont <= stop:
            return cont
        if cont in exits:
            return stop
        raise self.fail("try continues past its enclosing block", ins)

    # ------------------------------------------------------------ 3.9/3.10 try/except
    def _try_except_blocks(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        home = self.home[s]
        base = list(stack)
        hstack = base + [ExcInfo(), ExcInfo(), ExcInfo(), CaughtException(), CaughtException(), CaughtException()]
        hend = self._handler_end(H)
        clauses = []  # [type, name, body start, body end]
        p = H
        while True:
            if self._pops3(p):
                clauses.append([None, None, p + 3, hend])
                break
            if not (ins[p].op == "COPY" and ins[p].argval == 1):
                raise self.fail("unrecognized except clause", ins[p])
            q = p + 1
            while q < hend and ins[q].op != "JUMP_IF_NOT_EXC_MATCH":
                if ins[q].target is not None:
                    raise self.fail("jump inside an except type", ins[q])
                q += 1
            if q >= hend:
                raise self.fail("except clause without a type test", ins[p])
            stmts, st = self.walk(p + 1, q, hstack + [CaughtException()], frozenset())
            if stmts or len(st) != len(hstack) + 2:
                raise self.fail("except type is not an expression", ins[q])
            typ = self.as_expr(st[-1], ins[q])
            nxt = ins[q].target
            a = q + 1
            if ins[a].op == "POP_TOP" and ins[a + 1].op in STORE_OPS and ins[a + 2].op == "POP_TOP":
                nm = ins[a + 1].argval
                sf = a + 3
                T = ins[sf].target if ins[sf].op == "SETUP_FINALLY" else None
                if T is None or not self._name_cleanup_at(T, nm) or ins[T + 3].op != "RERAISE":
                    raise self.fail("named except clause without its clean-up", ins[a])
                self._copies[sf] = Copy(1, "skip")
                clauses.append([typ, nm, sf + 1, T])
            elif self._pops3(a):
                clauses.append([typ, None, a + 3, nxt])
            else:
                raise self.fail("unrecognized except clause", ins[a])
            if nxt is None or nxt <= q or nxt >= hend:
                raise self.fail("except clause test jumps outside the handler", ins[q])
            if ins[nxt].op == "RERAISE":
                break
            p = nxt
        # how each clause ends: JUMP follow, return, or (3.10) a copy of the follow
        loop_targets = self._loop_targets()
        follows: set = set()
        tails: list = []
        mine = ("E", s)
        clause_end = None  # the enclosing clause's end, where a clause falls in (3.10)
        if COPIES_EXITS:
            for _typ, nm, b0, b1 in clauses:
                self._merge_clause_ends310(b0, b1, nm, mine)
        merged = self.__dict__.get("_b_merged_ends", set())
        for _typ, nm, b0, b1 in clauses:
            for k in range(b0, b1):
                if ins[k].op != "POP_EXCEPT" or not self._b_stack[k] or self._b_stack[k][-1] != mine:
                    continue
                if k in merged:
                    continue
                j = k + 1
                if nm is not None and self._name_cleanup_at(j, nm):
                    self._copies[j] = Copy(3, "skip")
                    j += 3
                if self._ends_enclosing_clause39(j, mine, b0):
                    follows.add(j)  # falls into the end of the except clause it is in (3.10)
                    clause_end = j
                    continue
                if self._leaves_enclosing39(j, loop_targets):
                    continue  # a break/continue/return through enclosing finally/with exits
                op = ins[j].op
                if op == "JUMP":
                    if ins[j].target not in loop_targets:
                        follows.add(ins[j].target)
                elif op == "POP_TOP" and ins[j + 1].op == "JUMP" and ins[j + 1].target in loop_targets:
                    pass  # break out of a for loop: its iterator is popped first
                elif op == "POP_TOP" and self._copied_break310(j + 1):
                    pass  # the same, to a return 3.10 copied in place of the jump
                elif self._return_from_loops(j):
                    pass  # a return from inside for loops pops their iterators
                elif j == stop and op == "RERAISE":
                    follows.add(j)  # falls into the end of the finally body it is in (3.10)
                elif not self._owned(j, H) and ins[j].op != "RETURN_VALUE" and (
                    self._straight_tail(j) is None or self._jumped_to_from_outside(j, b0)
                ):
                    # falls into the code after the handler (3.10: a loop's test); straight
                    # code ending in a return that another path jumps to (the body's exit) is
                    # that code itself, not 3.10's copy of it in the clause
                    follows.add(j)
                elif op != "RETURN_VALUE":
                    L = self._straight_tail(j)
                    if L is None:
                        raise self.fail("except clause ends in unrecognized code", ins[j])
                    if any(self._b_stack[q] is not None for q in range(j + L, b1)):
                        continue  # more of the clause follows: the clause's own return
                    tails.append((j, L))
        if len(follows) > 1:
            raise self.fail("except clauses continue at different places", ins[H])
        follow = next(iter(follows)) if follows else None
        if follow is not None and follow < hend and follow != stop and follow != clause_end:
            raise self.fail("except clause continues inside the handler", ins[H])
        # the body's normal exit: POP_BLOCK; JUMP else/follow  -- or a copy of the follow
        pops = [k for k, t in self._b_pops.items() if t == s and k < H and self.home[k] == home]
        P = max(pops) if pops else None
        X = None
        body_tail = None
        body_end = H
        else_break = False
        if (
            P is not None and P + 1 < H and ins[P + 1].op == "JUMP" and ins[P + 1].target > H
            and self._dead_between(P + 2, H)
        ):  # (past the jump, an exit copy an enclosing try turned into this jump)
            if ins[P + 1].target not in loop_targets:
                X = ins[P + 1].target
                body_end = P
            elif self._dead_else_break39(hend, ins[P + 1].target):
                else_break = True
                body_end = P
        elif (
            clause_end is not None and P is not None and P + 1 < H and self._dead_between(P + 1, H - 1)
            and ins[H - 1].op == "JUMP" and ins[H - 1].target == clause_end
        ):
            # the body's normal exit goes to the end of the enclosing clause too (3.10 copied
            # that end here; the copies were merged back into this jump)
            X = clause_end
            body_end = P
        elif COPIES_EXITS and P is not None and P + 1 < H and ins[P + 1].op != "RETURN_VALUE":
            L = self._straight_tail(P + 1, H)
            if L is not None and P + 1 + L == H:
                body_tail = P + 1
                body_end = P
                for p in pops:
                    if p != P and self._same(p, P, 1 + L):
                        # 3.10 copied the whole normal exit into this path: jump there
                        if self._only_reached_from(p, 0, self.n):
                            for q in ins:
                                if q.target == p:
                                    q.target = P  # a test's exit
                            self._claim_block(p, p + 1 + L)
                            continue
                        self._claim_block(p + 1, p + 1 + L)
                        ins[p].op, ins[p].target = "JUMP", P
                        self.__dict__.setdefault("_b_exit_jumps", set()).add(p)
                        for q in ins:
                            if q.target == p and q.op == "JUMP" and q.index != p:
                                q.target = P  # an if-arm's jump over the else
        # 3.10 copies a small follow block (a return) into every path reaching it;
        # 3.9 does not, and clauses that end alike in different code are returns
        tail_code = None  # (start, length) of the code after the statement
        if tails and COPIES_EXITS:
            j0, L0 = tails[0]
            if all(L == L0 and self._same(j, j0, L0) for j, L in tails[1:]):
                tail_code = (j0, L0)
        if tail_code is None or follow is not None:
            tails = []  # the clauses' own returns
            tail_code = None
        else_to_handler = False
        if body_tail is not None and follow is not None:
            if self._const_return(body_tail):
                body_tail, body_end = None, H  # the body's own `return <constant>`
            else:
                # code after the POP_BLOCK is not protected: an else that returns
                X, else_to_handler, body_tail = body_tail, True, None
        elif body_tail is not None and tail_code is not None and not (
            tail_code[1] == H - body_tail and self._same(body_tail, tail_code[0], tail_code[1])
        ):
            # a return inside the body pops its block right before RETURN_VALUE:
            # code after the POP_BLOCK is the follow, and the clauses' differing
            # returns are their own
            tails, tail_code = [], None
        if (
            P is not None and X is None and body_tail is None and not else_break
            and P + 1 < H and self._starts_statement(P + 1) and not self._const_return(P + 1)
        ):
            # likewise any other code between the body's POP_BLOCK and the handler
            # (it leaves by a return, raise or jump): never read it as the body's
            X, else_to_handler, body_end = P + 1, True, P
        else_end = None
        explicit_tail = None
        if body_tail is not None:
            end_pt = body_tail
            cont = body_tail
        elif X is not None and else_to_handler:
            else_end = H
            if tail_code is not None:
                explicit_tail = tail_code
            end_pt = follow
            cont = follow if follow is not None else hend
        elif X is not None:
            if X > stop:
                if not self._leaves_to(X, exits):
                    raise self.fail("try continues past its enclosing block", ins[s])
                if follow is not None and not self._leaves_to(follow, exits):
                    raise self.fail("try continues past its enclosing block", ins[s])
                if tail_code is not None and not self._same(X, *tail_code):
                    # the body leaves the block (a loop's jump back), not through a copy of
                    # the clauses' common tail: those are the clauses' own returns
                    tails, tail_code = [], None
                X = stop
                else_end = stop
            elif follow is not None:
                if follow < X:
                    raise self.fail("except follow before the else", ins[s])
                else_end = min(follow, stop) if follow <= stop or follow in exits else None
                if else_end is None:
                    raise self.fail("try continues past its enclosing block", ins[s])
            elif tail_code is not None:
                j0, L0 = tail_code
                else_end = None
                for k in range(X, stop):
                    if not self._same(k, j0, L0):
                        continue
                    if all(
                        ins[q].target is None or ins[q].target <= k or ins[q].target in loop_targets
                        or ins[q].target >= stop
                        for q in range(X, k)
                    ):
                        else_end = k
                        break
                if else_end is None:
                    # no copy of the clauses' common tail after the else: they are
                    # the clauses' own returns, and the try's follow is X
                    tails, tail_code, else_end = [], None, X
            elif self._clauses_end_loop_body39(clauses, exits):
                else_end = stop  # the try ends the loop body: the else runs to its end
            elif X < (t := self._dead_clause_follow39(clauses)) <= stop:
                else_end = t  # every clause leaves; their dead ends say where the try ends
            else:
                else_end = X
            end_pt = else_end
            cont = else_end
        else:
            if tail_code is not None:
                explicit_tail = tail_code
            end_pt = follow
            cont = follow if follow is not None else hend
        inherited = self._block_inherit(end_pt, stop, exits)
        fo = frozenset({end_pt}) if end_pt is not None else frozenset()
        if follow is not None and follow > stop and follow not in exits and self._leaves_to(follow, exits):
            fo |= {follow}  # the clauses jump to the enclosing block's last jump
        # the tails copied into the clauses are the follow: skip them there
        explicit = []
        if explicit_tail is not None:
            explicit, st = self.walk(explicit_tail[0], explicit_tail[0] + explicit_tail[1], list(stack), exits)
            # code follows the statement: a clause's jump back to a loop's head is a `continue`
            # the source wrote, not the end of the loop body
            inherited = frozenset()
        for j, L in tails:
            self._copies[j] = Copy(L, "skip")
        # a jump to where a walk stops is falling off its end; naming that place an
        # exit would hide a loop's else ending there.  With an else, falling off the body
        # runs the else: a jump back to the loop's head in the body is a written `continue`
        has_else = X is not None and else_end is not None and else_end > X
        body, st = self.walk(s + 1, body_end, list(stack), frozenset() if has_else else inherited)
        if len(st) != len(stack) and body_end != H:
            raise self.fail("try body changes the stack", ins[s])
        orelse = [ast.Break()] if else_break else []
        if has_else:
            orelse, st = self.walk(X, else_end, list(stack), inherited)
            if len(st) != len(stack):
                raise self.fail("try else changes the stack", ins[X])
        handlers = []
        for typ, nm, b0, b1 in clauses:
            cst = base + [ExcInfo(), ExcInfo(), ExcInfo()]
            if follow is not None and follow in (stop, clause_end) and b0 < follow < b1:
                b1 = follow  # the clause falls into the end of the finally body or clause it is in
            hb, st = self.walk(b0, b1, cst, fo | inherited)
            if len(st) not in (len(base), len(cst)):
                raise self.fail("except clause changes the stack", ins[b0])
            jump = self._explicit_clause_jump39(b0, b1)
            if jump is not None and not (hb and isinstance(hb[-1], type(jump))):
                hb.append(jump)
            if self._clause_ends_in_block39(b0, b1):
                hb = _else_of_exiting_if(hb)
            handlers.append(ast.ExceptHandler(type=typ, name=nm, body=hb or [ast.Pass()]))
        if clause_end is None:
            self._claim_handler(H)
        else:
            for k in self._handler_code(H):
                if k < clause_end:  # (from there on: the enclosing clause's end, walked next)
                    self.reachable[k] = False
        self.emit(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[]))
        for st_ in explicit:
            self.emit(st_)
        return self._cont(cont, stop, exits, ins[s])

    def _const_return(self, k: int) -> bool:
        """``return <constant>`` inside a try pops the block before loading the
        constant (it cannot raise, so the place makes no difference)."""
        return self.ins[k].op == "LOAD_CONST" and k + 1 < self.n and self.ins[k + 1].op == "RETURN_VALUE"

    def _starts_statement(self, k: int) -> bool:
        """Does code at k start a statement, not unwind one (a return leaving its
        blocks, a with exit, a finally copy)?"""
        op = self.ins[k].op
        return k not in self._copies and op not in (
            "RETURN_VALUE", "POP_BLOCK", "SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR",
            "POP_TOP", "POP_EXCEPT", "JUMP",
        )

    def _ends_enclosing_clause39(self, j: int, mine: tuple, b0: int) -> bool:
        """Does a clause of the statement ``mine`` that ends at j fall into the code after the
        statement, which is the end of the except clause the statement is in: that clause's
        POP_EXCEPT, then a copy of the code after its own statement (read there), or what the
        body's normal exit jumps to as well?  3.10 lays it where the clause ends instead of
        a jump there (3.9 jumps)."""
        stack = self._b_stack[j]
        if self.ins[j].op != "POP_EXCEPT" or not stack or stack[-1] == mine or stack[-1][0] != "E":
            return False
        copy = self._copies.get(j + 1)
        return (copy is not None and copy.kind == "skip") or self._jumped_to_from_outside(j, b0)

    def _leaves_enclosing39(self, j: int, loop_targets: set) -> bool:
        """Is j a break/continue/return leaving enclosing try/with statements:
        their POP_BLOCKs and registered exit copies, then the jump or return?"""
        ins = self.ins
        k = j
        while (ins[k].op == "POP_BLOCK" and k in self._b_pops) or (
            ins[k].op == "POP_EXCEPT" and self._b_stack[k] and self._b_stack[k][-1][0] == "E"
        ):
            # enclosing try/with blocks (and their exit copies), enclosing handlers
            k += 1 + (self._copies[k + 1].length if k + 1 in self._copies else 0)
            if k >= self.n:
                return False  # (the copies stepped over end the code: no exit read here)
        if k == j:
            return False
        if ins[k].op == "RERAISE" or ins[k].extra.get("reraise_copy"):
            return True  # the end of an enclosing finally body (3.10 copies its re-raise)
        if ins[k].op == "JUMP":
            return ins[k].target in loop_targets
        if ins[k].op == "POP_TOP" and ins[k + 1].op == "JUMP":
            return ins[k + 1].target in loop_targets
        return self._pure_exit(k)

    def _dead_else_break39(self, hend: int, t: int) -> bool:
        """3.9 threads the jump to an else that only breaks to the loop's exit,
        and keeps that else (a dead jump to the same exit) after the handler."""
        if COPIES_EXITS or not self.loops or t not in self.loops[-1].break_targets:
            return False
        return hend < self.n and self._b_stack[hend] is None and self.ins[hend].op == "JUMP" and self.ins[hend].target == t

    def _return_from_loops(self, j: int) -> bool:
        """``SWAP 2; POP_TOP`` per enclosing for loop, then RETURN_VALUE; or, returning a
        constant, ``POP_TOP`` per loop, then the constant and RETURN_VALUE."""
        ins = self.ins
        k = j
        while k + 1 < self.n and ins[k].op == "SWAP" and ins[k].argval == 2 and ins[k + 1].op == "POP_TOP":
            k += 2
        if k > j:
            return ins[k].op == "RETURN_VALUE"
        while k < self.n and ins[k].op == "POP_TOP":
            k += 1
        return k > j and k + 1 < self.n and ins[k].op == "LOAD_CONST" and ins[k + 1].op == "RETURN_VALUE"

    def _copied_break310(self, j: int) -> bool:
        """3.10 copies a loop's small exit block (a return) into a break: turn the
        copy at j back into the jump to the loop's exit."""
        if not COPIES_EXITS or not self.loops:
            return False
        L = self._straight_tail(j)
        if L is None:
            return False
        for t in sorted(self.loops[-1].break_targets):
            if t != j and self._same(j, t, L):
                self._claim_block(j + 1, j + L)
                self.ins[j].op, self.ins[j].target = "JUMP", t
                return True
        return False

    def _merge_clause_ends310(self, b0: int, b1: int, nm: str | None, mine: tuple) -> None:
        """3.10 copies a clause's end (POP_EXCEPT, the name clean-up, then a jump or
        a small return) into each branch reaching it: earlier copies become jumps
        to the last one (same code, same block stack), so the branches read as if/else."""
        ins = self.ins
        ends = []
        for k in range(b0, b1):
            if ins[k].op != "POP_EXCEPT" or not self._b_stack[k] or self._b_stack[k][-1] != mine:
                continue
            j = k + 1
            if nm is not None and self._name_cleanup_at(j, nm):
                j += 3
            if ins[j].op == "JUMP":
                # a jump to the loop is a continue (or the loop's own back edge)
                L = None if ins[j].target in self._loop_targets() else 1
            else:
                L = self._straight_tail(j)
            if L is not None:
                ends.append((k, j + L))
        if len(ends) < 2:
            return
        lk, le = ends[-1]
        if any(self._b_stack[q] is not None for q in range(le, b1)):
            return  # the last one does not end the clause: these are the clause's own returns
        for k, e in ends[:-1]:
            if e - k == le - lk and self._same(k, lk, e - k) and e <= lk:
                a, la = k, lk
                if ins[k - 1].op == "POP_BLOCK" and ins[lk - 1].op == "POP_BLOCK":
                    a, la = k - 1, lk - 1  # a named clause's clean-up block pops first
                self.__dict__.setdefault("_b_merged_ends", set()).add(k)
                if self._only_reached_from(a, 0, self.n):
                    # reached by jumps only: they go to the last copy
                    for q in ins:
                        if q.target == a:
                            q.target = la
                    self._claim_block(a, e)
                    continue
                # the copy's last instruction becomes the jump (an if's then-arm
                # ends with its jump over the else)
                self._claim_block(k, e - 1)
                ins[e - 1].op, ins[e - 1].target, ins[e - 1].arg = "JUMP", lk, None

    def _dead_clause_follow39(self, clauses: list) -> int:
        """3.9: where the dead ``POP_EXCEPT; JUMP`` ending every clause (kept after
        a raise or break) goes -- the try statement's follow -- or -1."""
        if COPIES_EXITS:
            return -1
        targets = set()
        for _typ, nm, b0, b1 in clauses:
            ends = self._clause_end_jumps39(nm, b0, b1)
            if not ends or self._b_stack[ends[-1][0]] is not None:
                return -1
            targets.add(ends[-1][1])
        return targets.pop() if len(targets) == 1 else -1

    def _clause_end_jumps39(self, nm: str | None, b0: int, b1: int) -> list[tuple[int, int]]:
        """3.9: the ``POP_EXCEPT; [name clean-up;] JUMP`` ends of a clause, live or in the
        dead code after it: (index of the POP_EXCEPT, jump target) for each."""
        ins = self.ins
        e = self._dead_end39(b1)
        out = []
        for q in range(b0, e - 1):
            if ins[q].op != "POP_EXCEPT":
                continue
            j = q + 1
            if nm is not None and self._name_cleanup_at(j, nm):
                j += 3
            if j < e and ins[j].op == "JUMP":
                out.append((q, ins[j].target))
        return out

    def _dead_end39(self, b: int) -> int:
        """The end of the dead code (never reached, kept by 3.9) starting at b."""
        while b < self.n and self._b_stack[b] is None:
            b += 1
        return b

    def _clauses_end_loop_body39(self, clauses: list, exits: frozenset) -> bool:
        """3.9: does every clause's own end (the compiler's ``POP_EXCEPT; JUMP``,
        kept even when dead) jump to the loop's next iteration, the enclosing
        walk's exit?  Then the try is the last statement of the loop body."""
        if COPIES_EXITS or not self.loops or not exits:
            return False
        loop = self.loops[-1]
        for _typ, nm, b0, b1 in clauses:
            ends = self._clause_end_jumps39(nm, b0, b1)
            if not ends or ends[-1][1] not in loop.continue_targets or ends[-1][1] not in exits:
                return False
        return True

    def close_body(self, stmts: list) -> list:
        """3.9 keeps the implicit ``return None`` (dead) after a final return only
        when a compound statement encloses that return.  A function read as
        ``try: ... except: <exits>`` then code ending in a return had that code
        in the try's else."""
        if not TABLE.keeps_dead_jumps or not getattr(self, "_b_handler", None) or self.n < 2:
            return stmts
        ins, bs = self.ins, self._b_stack
        last = ins[self.n - 2]
        if not (
            last.op == "LOAD_CONST" and last.argval is None and ins[self.n - 1].op == "RETURN_VALUE"
            and bs[self.n - 2] is None and bs[self.n - 1] is None
            and stmts and isinstance(stmts[-1], ast.Return)
        ):
            return stmts
        for t in range(len(stmts) - 2, -1, -1):
            st = stmts[t]
            if isinstance(st, ast.Try) and not st.finalbody and not st.orelse and st.handlers:
                if all(h.body and isinstance(h.body[-1], (ast.Return, ast.Raise)) for h in st.handlers):
                    st.orelse = stmts[t + 1 :]
                    return stmts[: t + 1]
                return stmts
        return stmts

    def _clause_ends_in_block39(self, b0: int, b1: int) -> bool:
        """3.9 drops dead code after a return only within its basic block: a clause
        ending in a return but keeping its dead ``POP_EXCEPT; JUMP`` ends with an
        if/else (the dead code is the if's end label)."""
        if COPIES_EXITS:
            return False
        ins, bs = self.ins, self._b_stack
        live = [k for k in range(b0, b1) if bs[k] is not None]
        if not live or ins[live[-1]].op != "RETURN_VALUE":
            return False
        k = live[-1]
        return any(
            bs[q] is None and ins[q].op == "POP_EXCEPT" and ins[q + 1].op == "JUMP"
            for q in range(k + 1, self._dead_end39(b1) - 1)
        )

    def _explicit_clause_jump39(self, b0: int, b1: int) -> ast.stmt | None:
        """3.9 keeps the dead ``POP_EXCEPT; JUMP`` ending a clause whose body
        already left by continue/break: that live jump was written in the source."""
        if COPIES_EXITS or not self.loops:
            return None
        ins, bs = self.ins, self._b_stack
        live = [k for k in range(b0, b1) if bs[k] is not None]
        if not live:
            return None
        k = live[-1]
        if ins[k].op != "JUMP" or k == 0 or ins[k - 1].op != "POP_EXCEPT":
            return None
        if not any(
            bs[q] is None and ins[q].op == "POP_EXCEPT" and ins[q + 1].op == "JUMP"
            for q in range(k + 1, self._dead_end39(b1) - 1)
        ):
            return None
        loop, t = self.loops[-1], ins[k].target
        if t in loop.continue_targets:
            return ast.Continue()
        if t in loop.break_targets:
            return ast.Break()
        return None

    # ------------------------------------------------------------ 3.9/3.10 try/finally
    def _try_finally_blocks(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        home = self.home[s]
        want = self._b_stack[s] + (("E", s),)
        ends = self._finally_ends(H, want)
        if ends:
            R = ends[-1]
        else:
            # a finally body that never ends (raises or returns on every path)
            R = self._handler_end(H)
            if ins[R - 1].op not in TERMINAL:
                raise self.fail("finally body without its re-raise", ins[H])
        for k in range(H, R):
            if not self._owned(k, H) and self._b_stack[k] is not None:  # 3.9 keeps dead code
                raise self.fail("finally body with code outside its handler", ins[k])
        L = R - H
        pops = sorted(k for k, t in self._b_pops.items() if t == s)
        lengths = {}
        copied_follows: dict[int, tuple[list[int], int]] = {}
        for p in pops:
            m = self._match_finally_copy(p + 1, H, frozenset(ends), copied_follows) if L else 0
            if m is None:
                raise self.fail("finally copy not found after its POP_BLOCK", ins[p])
            lengths[p] = m
        normal = [p for p in pops if p < H and self.home[p] == home]
        P = max(normal) if normal else None
        body_end = H
        cont = R + 1 if ends else R
        norm_end = -1
        if P is not None:
            after = P + 1 + lengths[P]
            if ins[after].op == "JUMP" and self._dead_between(after + 1, H) and ins[after].target > R:
                body_end, cont, norm_end = P, ins[after].target, after
            elif COPIES_EXITS and after < H and ins[after].op != "RETURN_VALUE":
                TL = self._straight_tail(after, H)
                if TL is not None and self._dead_between(after + TL, H):
                    body_end, cont, norm_end = P, after, after
        if body_end == P and self._leaves_loop_at(cont, stop):
            # not the normal exit but a `break` ending the body (its own exit is dead code)
            body_end, cont, norm_end = H, (R + 1 if ends else R), -1
        if L:
            for p in pops:
                self._copies[p + 1] = Copy(lengths[p], "finally", norm_end, not ends)
        if COPIES_EXITS and body_end == P and P is not None:
            self._merge_exit_copies39(P, norm_end, [p for p in normal if lengths[p] == lengths[P]])
        # the statement's follow, when 3.10 copied it into every end of the normal exit's copy
        follow_copy = copied_follows.get(P + 1) if P is not None else None
        hstack = list(stack) + [ExcInfo(), ExcInfo(), ExcInfo(), CaughtException(), CaughtException(), CaughtException()]
        final, st = self.walk(H, R, hstack, frozenset({R}))
        if len(st) != len(hstack):
            raise self.fail("finally body changes the stack", ins[H])
        end_pt = cont if body_end == P else None
        inherited = self._block_inherit(end_pt, stop, exits)
        body, st = self.walk(s + 1, body_end, list(stack), inherited)
        if len(st) != len(stack) and body_end != H:
            raise self.fail("try body changes the stack", ins[s])
        self._claim_handler(H)
        if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody and body[0].handlers:
            node = body[0]
            node.finalbody = final or [ast.Pass()]
        else:
            node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
        self.emit(node)
        if follow_copy is not None and body_end == H:
            starts, size = follow_copy
            tail, st = self.walk(starts[0], starts[0] + size, list(stack), frozenset())
            self.block.extend(tail)
            for x in starts:
                for q in range(x, x + size):
                    self.reachable[q] = False
        return self._cont(cont, stop, exits, ins[s])

    def _finally_ends(self, H: int, want: tuple) -> list[int]:
        """The re-raises ending finally handler H's body, the last one last.

        3.10 copies the RERAISE block into each predecessor that jumps to it; each
        copy is turned back into a jump to the last one (same behaviour), so that
        the body's branches read as they do on 3.9."""
        cache = self.__dict__.setdefault("_b_fin_ends", {})
        if H in cache:
            return cache[H]
        ins = self.ins
        ends = [
            k
            for k in range(H, self.n)
            if ins[k].op == "RERAISE" and self._b_stack[k] == want and self._owned(k, H)
        ]
        for k in ends[:-1]:
            ins[k].op, ins[k].target = "JUMP", ends[-1]
            ins[k].extra["reraise_copy"] = True
        cache[H] = ends
        return ends

    def _own_code_between(self, a: int, b: int, home: int | None) -> bool:
        """Is code of ``home`` (a statement's own level) left to walk in [a, b)?"""
        return any(self.reachable[k] and self.home[k] == home for k in range(a, b))

    def _dead_between(self, a: int, b: int) -> bool:
        """Is nothing in [a, b) left to walk (dead code, or code already consumed)?"""
        return all(not self.reachable[k] for k in range(a, b))

    def _match_finally_copy(
        self, a: int, H: int, ends: frozenset, copied_follows: dict[int, tuple[list[int], int]]
    ) -> int | None:
        """Length of the inlined copy at ``a`` of finally handler H's body, or None.

        The two copies have the same blocks; only their exits differ: where the
        handler's copy re-raises (``ends``), the inlined copy continues at one
        place, reached by falling off its end, by a jump threaded to where that
        jump goes (3.9), or by a copy of a small return block (3.10).  Copies of
        that block reached only from inside the copy are marked dead.  A copy that
        no path leaves, each of its ends a copy of the statement's follow (3.10),
        puts (their starts, their length) in ``copied_follows[a]``."""
        ins = self.ins
        seen: dict[int, int] = {}
        exits: set[int] = set()
        unwound: set[int] = set()
        work = [(a, H)]
        while work:
            x, y = work.pop()
            if y in ends:
                exits.add(x)
                continue
            fe = self._finally_end_len39(y) if y < self.n else 0
            if fe and (y not in seen or seen[y] != x):
                # a return/break/continue leaving the body: the handler's copy drops
                # the exception first, a copy on a return's path the pending value
                done = False
                for drop in ([], ["POP_TOP"], ["ROT_TWO", "POP_TOP"]):
                    if [ins[q].op for q in range(x, x + len(drop))] == drop:
                        rest = self._exit_path_matches39(y + fe, x + len(drop))
                        if rest is not None:
                            seen.setdefault(y, x)
                            unwound |= set(range(x, x + len(drop))) | rest
                            done = True
                            break
                if done:
                    continue
            if y in seen:
                if seen[y] != x:
                    return None
                continue
            if x >= self.n or y >= self.n:
                return None
            X, Y = ins[x], ins[y]
            if Y.op == "JUMP" and X.op != "JUMP" and self._finally_end_len39(Y.target) and Y.target not in ends:
                work.append((x, Y.target))  # 3.10 copied the exit from the body into the copy
                continue
            if Y.op == "JUMP" and Y.target in ends and X.op == "RETURN_VALUE":
                exits.add(x)  # 3.9 turns a jump to the return after the copy into the return
                continue
            seen[y] = x
            if X.op != Y.op:
                return None
            if Y.target is not None:
                if X.target is None:
                    return None
                if Y.target in ends or self._owned(Y.target, H):
                    work.append((X.target, Y.target))
                elif X.target != Y.target:
                    return None
            elif X.target is not None or _key(X.argval) != _key(Y.argval):
                return None
            if Y.op not in TERMINAL and Y.op != "JUMP":
                work.append((x + 1, y + 1))
        covered = set(seen.values()) | unwound
        # returns standing for the copy's end inside it (3.9 replaces a jump to the
        # return after the copy by the return; 3.10 copies it) are part of the copy
        last = max(covered, default=a)
        covered |= {x for x in exits if x < last and ins[x].op == "RETURN_VALUE"}
        E = max(covered) + 1 if covered else a
        tail = self._tail_length(E)
        for x in exits:
            if tail is not None and a <= x < E and self._same(x, E, tail):
                covered |= set(range(x, x + tail))  # 3.10 copied the follow inside the copy
        inner = sorted(x for x in exits if a <= x < E)
        if COPIES_EXITS and inner and tail is None and len(inner) == len(exits):
            # 3.10: no path leaves the copy; each of its ends is the same small `return`
            # block, the statement's follow, copied there (the try/finally ends the function)
            t0 = self._tail_length(inner[0])
            if t0 is not None and all(
                self._tail_length(x) == t0 and self._same(x, inner[0], t0) for x in inner
            ):
                for x in inner:
                    covered |= set(range(x, x + t0))
                E = max(covered) + 1
                copied_follows[a] = (inner, t0)
                exits = set()  # (all accounted for: none leaves the copy)
        covered |= {x for x in range(a, E) if self._b_stack[x] is None}  # 3.9 keeps dead code
        if covered != set(range(a, E)):
            return None
        dead = []
        for x in exits:
            if x == E:
                continue
            if x == self._through_jump(E) or self._through_jump(x) == self._through_jump(E):
                # both reach the same place, one through a jump (3.9 threading)
                if ins[x].op == "JUMP" and x != self._through_jump(E) and not a <= x < E:
                    if self._only_reached_from(x, a, E):
                        dead.append((x, 1))
                continue
            if tail is None or not self._same(x, E, tail):
                return None
            if not a <= x < E and self._only_reached_from(x, a, E):
                dead.append((x, tail))
        for x, length in dead:
            for q in range(x, x + length):
                self.reachable[q] = False
        return E - a

    def _exit_path_matches39(self, y: int, x: int) -> set[int] | None:
        """3.9/3.10: the straight-line rest of an exit from a finally body, the same
        at y (the handler's copy) and x (an inlined copy): the instructions at x."""
        ins = self.ins
        used: set[int] = set()
        while x < self.n and y < self.n:
            a, b = ins[y], ins[x]
            if a.op != b.op:
                return None
            used.add(x)
            if a.op == "RETURN_VALUE":
                return used
            if a.target is not None:
                return used if a.op == "JUMP" and a.target == b.target else None
            if a.op in TERMINAL or _key(a.argval) != _key(b.argval):
                return None
            x += 1
            y += 1
        return None

    def _merge_exit_copies39(self, P: int, tail: int, pops: list) -> None:
        """3.10 copies a statement's whole normal exit (POP_BLOCK, finally body or
        ``__exit__`` call, a small follow) into each jump reaching it.  Copies that
        only jumps reach become jumps to the last one, P (same code, same block
        stack), so conditions see one false exit."""
        ins = self.ins
        j = ins[tail]
        tl = 1 if j.op == "JUMP" else self._tail_length(tail)
        if tl is None:
            return
        length = tail + tl - P
        for p in pops:
            if p == P or not self._same(p, P, length) or not self._only_reached_from(p, 0, self.n):
                continue
            for i in ins:
                if i.target == p:
                    i.target = P
            self._claim_block(p, p + length)

    def _normal_exit_copy_end(self, i: int, c: Copy, stop: int) -> int | None:
        """3.10 copies a statement's whole normal exit (POP_BLOCK, finally body or
        ``__exit__`` call, a small follow ending in a return) into a branch that
        ends the body.  When the walk stops at the original exit's POP_BLOCK, the
        copy is falling off the walk's end: return ``stop``."""
        if c.end < 0 or i - 1 not in self._b_pops or stop not in self._b_pops:
            return None
        if self._b_pops[i - 1] != self._b_pops[stop]:
            return None
        k = i + c.length
        tl = self._tail_length(c.end)
        if tl is None or not self._same(k, c.end, tl) or not self._dead_between(k + tl, stop):
            return None
        return stop

    def _tail_length(self, k: int) -> int | None:
        """Length of straight-line code from k up to a return/raise, or None."""
        j = k
        while j < self.n and j - k < 8:
            op = self.ins[j].op
            if self.ins[j].target is not None or op.startswith("SETUP_"):
                return None
            if op in TERMINAL:
                return j + 1 - k
            j += 1
        return None

    def _only_reached_from(self, x: int, a: int, b: int) -> bool:
        """Is x reached only by jumps from [a, b) (nothing falls into it)?"""
        if x > 0:
            prev = self.ins[x - 1]
            if prev.op not in TERMINAL and prev.op != "JUMP":
                return False
        return all(a <= i.index < b for i in self.ins if i.target == x)

    # ------------------------------------------------------------ 3.9/3.10 with
    def do_with_blocks(self, w: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        H = ins[w].target
        home = self.home[w]
        ctx = self.pop_expr(stack, ins[w])
        ops = [ins[H + d].op for d in range(8)] if H + 8 <= self.n else []
        if not (
            ops == ["WITH_EXCEPT_START", "POP_JUMP_IF_TRUE", "RERAISE", "POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP"]
            and ins[H + 1].target == H + 3
        ):
            raise self.fail("unrecognized with handler", ins[H])
        sup = H + 8
        stack.append(WithExit(ctx))
        k, target = self._with_target(w + 1, stack)
        pops = sorted(p for p, t in self._b_pops.items() if t == w)
        normal_end = -1
        P = None
        for p in pops:
            c = p + 1
            if ins[c].op == "SWAP" and ins[c].argval == 2:
                c += 1
            elif p < H and self.home[p] == home:
                P = p
            if not self._is_exit_copy39(c):
                raise self.fail("with exit call not found after its POP_BLOCK", ins[p])
        # where the normal exit continues, and where a suppressed exception does
        cont_n = None
        if P is not None:
            after = P + 6
            if ins[after].op == "JUMP" and self._dead_between(after + 1, H) and ins[after].target > H:
                cont_n = ins[after].target
                normal_end = after
            elif COPIES_EXITS and after < H and ins[after].op != "RETURN_VALUE" and self._straight_tail(after, H) == H - after:
                cont_n = after
                normal_end = after
                if (
                    stop < self.n
                    and self._same(after, stop, H - after)
                    and any(i.target == stop for i in ins[:w])
                ):
                    # a copy of the code where the enclosing block goes on (a small exit
                    # block after an `if`, say): the statement goes on there
                    self._claim_block(after, H)
                    cont_n = stop
            else:
                P = None  # a return/break path, not the normal exit
        for p in pops:
            c = p + 2 if ins[p + 1].op == "SWAP" else p + 1
            self._copies[c] = Copy(5, "with", normal_end)
        if COPIES_EXITS and P is not None:
            same = [p for p in pops if p < H and self.home[p] == home and ins[p + 1].op != "SWAP"]
            self._merge_exit_copies39(P, normal_end, same)
        sup_tail = None
        if self.home[sup] != H:
            cont_s = sup
        elif ins[sup].op == "JUMP" and ins[sup].target is not None and self.home[ins[sup].target] != H:
            cont_s = ins[sup].target
        else:
            TL = self._straight_tail(sup)
            if TL is None:
                raise self.fail("with handler continues into unrecognized code", ins[sup])
            sup_tail = (sup, TL)
            cont_s = None
        if cont_n is not None:
            if sup_tail is not None:
                if not self._same(cont_n, sup, sup_tail[1]):
                    raise self.fail("with statement whose follow is not found", ins[w])
                if all(H <= q.index < sup for q in ins if q.target == sup):
                    self._claim_block(sup, sup + sup_tail[1])  # the follow's copy
            elif cont_s != cont_n and self._through_jump(cont_s) == self._through_jump(cont_n):
                # both jump on to the same place (or one jumps to the other)
                if cont_n > stop and cont_n not in exits:
                    cont_n = cont_s
            elif cont_s != cont_n:
                # 3.10 copies a small follow into the normal exit
                TL = self._straight_tail(cont_n)
                if TL is None or not self._same(cont_n, cont_s, TL):
                    raise self.fail("with exits continue at different places", ins[w])
                if cont_n > stop and cont_n not in exits:
                    cont_n = cont_s
        body_end = P if P is not None else H
        end_pt = cont_n if cont_n is not None else cont_s
        inherited = self._block_inherit(end_pt, stop, exits)
        explicit = []
        if cont_n is None and sup_tail is not None:
            explicit, _ = self.walk(sup, sup + sup_tail[1], list(stack[:-1]), exits)
        body, st = self.walk(k, body_end, list(stack), inherited)
        if P is not None and (len(st) != len(stack) or st[-1] is not stack[-1]):
            raise self.fail("with body does not end with its exit", ins[w])
        stack.pop()
        self._claim_handler(H)
        item = ast.withitem(context_expr=ctx, optional_vars=target)
        # async with: generators.fold_suspensions leaves it in this shape, marked
        kind = ast.AsyncWith if ins[w].extra.get("async") else ast.With
        if len(body) == 1 and type(body[0]) is kind:
            node = body[0]
            node.items.insert(0, item)
        else:
            node = kind(items=[item], body=body or [ast.Pass()])
        self.emit(node)
        for st_ in explicit:
            self.emit(st_)
        end_at = cont_n if cont_n is not None else cont_s
        if end_at is not None and self._leaves_loop_at(end_at, stop):
            # both exits jump out of the loop (3.9 threads a `break` after the with there):
            # reaching the end of the walk would go round instead
            self.emit(ast.Break())
            return stop
        if cont_n is not None:
            return self._cont(cont_n, stop, exits, ins[w])
        if cont_s is not None and cont_s < w:
            # a suppressed exception continues the enclosing loop, as the body does
            return self._cont(self._handler_end(H), stop, exits, ins[w])
        if cont_s is not None:
            return self._cont(cont_s, stop, exits, ins[w])
        return self._cont(sup + sup_tail[1], stop, exits, ins[w])


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _else_of_exiting_if(body: list) -> list:
    """``if t: <exits>`` followed by more code is ``if t: ... else: <more>``."""
    for n, st in enumerate(body):
        if (
            isinstance(st, ast.If)
            and not st.orelse
            and st.body
            and isinstance(st.body[-1], _EXITS)
            and n + 1 < len(body)
        ):
            st.orelse = _else_of_exiting_if(body[n + 1 :])
            return body[: n + 1]
    return body


def _key(v):
    return (type(v).__name__, repr(v))


def _is_return_none(st: ast.stmt) -> bool:
    return (
        isinstance(st, ast.Return)
        and isinstance(st.value, ast.Constant)
        and st.value.value is None
    )


def _strip_final_returns(body: list) -> ast.Return | None:
    """Drop copies of the implicit ``return None`` from the paths that end a function; the
    first dropped that was written in the source (``written``, see ``op_RETURN_VALUE``) is
    returned."""
    if not body:
        return None
    last = body[-1]
    if _is_return_none(last):
        body.pop()
        rest = _strip_final_returns(body)
        return last if getattr(last, "written", False) else rest
    found = []
    if isinstance(last, ast.If):
        found += [_strip_final_returns(last.body), _strip_final_returns(last.orelse)]
        if not last.body:
            last.body.append(ast.Pass())
    elif isinstance(last, ast.Try) and not last.finalbody:
        branches = [last.orelse] + [h.body for h in last.handlers]
        if not last.orelse:
            branches.append(last.body)
        for b in branches:
            found.append(_strip_final_returns(b))
            if not b and b is not last.orelse:
                b.append(ast.Pass())
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        found.append(_strip_final_returns(last.body))
        if not last.body:
            last.body.append(ast.Pass())
    return next((r for r in found if r is not None), None)


# how exit paths leave a statement (jumps, pops of what a clause or a loop left); code of a
# statement of its own starts otherwise
# (and returns: a clause's `return` leaves its protection too; a constant's return is a copy
# of the function's end as often as not)
_EXIT_PATH_OPS = frozenset({"JUMP", "NOP", "SWAP", "POP_TOP", "POP_EXCEPT", "COPY", "RETURN_VALUE"})


def _ends_in_jump(body: list[ast.stmt]) -> bool:
    """Does the block end in a statement that leaves it (control never falls off)?"""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))
