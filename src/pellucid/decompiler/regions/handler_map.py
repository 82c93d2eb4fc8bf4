"""Where each instruction stands in the exception handling of its code: the set-up the
try/with readings share.

On 3.11+ every instruction has at most one handler, the innermost (``_cover``); following
which handler covers each handler's first instruction gives the nesting chain of every
instruction (``_in``, ``_extent``).  ``home[k]`` says whose code instruction k is: -1 for
code reached from the function entry, else the handler whose code it is.  A try body is the
code of one home whose chain holds its handler, so its start and end come from the table,
not from opcode patterns.  Here too are the small questions every reading asks: is this
copy the same code (``_same``), where does a jump chain lead, which code has a statement
consumed (``_claim``).
"""

from __future__ import annotations

from pellucid.decompiler.cfg import build as build_cfg
from pellucid.decompiler.cfg import reach, reach_in_turn
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.exceptgroups import is_star_clause_handler
from pellucid.decompiler.instructions import TABLE, TERMINAL, arg_key
from pellucid.decompiler.regions.exc_markers import DELETE_OPS, STORE_OPS, Copy, Handler


class HandlerMap:
    """Walker mixin: handler cover, homes, nesting chains and extents, and the shared queries on them."""

    def _exc_ready(self) -> None:
        """Set up the exception structures on first use (most code has none to ask about)."""
        if not hasattr(self, "_copies"):
            self._exc_setup()

    def _exc_setup(self) -> None:
        self._copies: dict[int, Copy] = {}
        # start of a finally body's copy -> the loop head its path goes back to, when that
        # is not the code after it (see _graph_copy)
        self._back_to_loop: dict[int, int] = {}
        # normal-path copies of a finally body holding an exit path that branches and leaves
        # by a jump (an enclosing finally body's `if c: continue`): only the normal exit's
        # copy may be one, as its path goes on where the statement's exits say
        self._jumping_copies: set[int] = set()
        self._started: set[int] = set()
        self._with_flags: dict[int, str] = {}  # with statement -> its flag (do_with)
        # each with being walked whose suppressed path raises or leaves the with around it:
        # (where that path starts, its flag), innermost last
        self._raising_withs: list[tuple[int, str]] = []
        # each with whose body is being walked: where its suppressed path goes on after
        # popping the exception (``sup``), innermost last (see with_._ends_enclosing_with)
        self._walked_withs: list[int] = []
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
        # normal-path copy of a finally body -> where its exits jump, past code not its own
        self._threaded_exits: dict[int, int] = {}
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

        reach_in_turn(ins, [(0, -1)], home)
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
            ready.sort(key=lambda h: h.target)
            reach_in_turn(ins, [(h.target, h.target) for h in ready], home)
        reach_in_turn(ins, [(h.target, h.target) for h in pending], home)

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

    def _indices_by_home(self) -> dict[int, list[int]]:
        """Handler -> the indices whose innermost handler it is, in order: a pass over each
        handler's own code, not over everything after it (linear in the code, not quadratic)."""
        homed: dict[int, list[int]] = {}
        for k, H in enumerate(self.home):
            if H is not None:
                homed.setdefault(H, []).append(k)
        return homed

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

    def check_exception_support(self) -> None:
        self._exc_setup()
        if not TABLE.has_exception_table:
            if self._exc_error is not None:
                raise self.fail(self._exc_error[0], self._exc_error[1], kind=Refusal.TRY)
            return
        for h in self._handlers.values():
            if h.kind == "other":
                raise self.fail("unrecognized exception handler", self.ins[h.target], kind=Refusal.TRY)
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

    def _handler_of(self, k: int, kind: str) -> int:
        H = self._cover[k]
        if H is None or self._handlers[H].kind != kind:
            raise self.fail(f"expected a {kind} handler", self.ins[k], kind=Refusal.TRY)
        return H

    def _cleanup_of(self, H: int) -> int:
        """The COPY 3; POP_EXCEPT; RERAISE 1 block protecting handler H's code."""
        C = self._cover[H]
        if C is None or self._handlers[C].kind != "cleanup":
            raise self.fail("handler without clean-up", self.ins[H], kind=Refusal.TRY)
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
        stops = self._loop_targets() if TABLE.inline_handlers else set()
        if follow is not None:
            stops.add(follow)
        for k in reach(self.ins, [start], part_of=self.home, part=H, avoid=stops).reached:
            self.reachable[k] = False

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
            if arg_key(x.argval) != arg_key(y.argval):
                return False
        return True

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

    def _try_start(self, H: int) -> int:
        """The first instruction handler H protects: where its try or with statement starts."""
        return min(a for a, _ in self._handlers[H].ranges)

    def _statement_handlers_in(self, a: int, b: int) -> frozenset:
        """The handlers of the try and with statements starting in [a, b): a with's
        suppressed exception, a clause of a try, may go on where the statement around them
        does (3.12+ give that code the home of whichever handler reaches it first)."""
        return frozenset(
            X for X, h in self._handlers.items()
            if h.kind in ("try", "with") and a <= self._try_start(X) < b
        )

    def _starts_after(self, H: int, e: int, home: int | None) -> bool:
        """Does the try statement of handler H start at or after ``e``, in code of ``home``?"""
        start = self._try_start(H)
        return start >= e and self.home[start] == home

    def _loop_targets(self) -> set:
        """Where the enclosing loops' jumps go: their heads, continues and breaks."""
        out: set = set()
        for lp in self.loops:
            out |= lp.continue_targets | lp.break_targets | {lp.header}
        return out

    def _own_code_between(self, a: int, b: int, home: int | None) -> bool:
        """Is code of ``home`` (a statement's own level) left to walk in [a, b)?"""
        return any(self.reachable[k] and self.home[k] == home for k in range(a, b))

    def _dead_between(self, a: int, b: int) -> bool:
        """Is nothing in [a, b) left to walk (dead code, or code already consumed)?"""
        return all(not self.reachable[k] for k in range(a, b))

    def _copied(self) -> set[int]:
        """The instructions inside the registered copies of finally/with bodies and skipped
        blocks: read once, where the statement they belong to reads them."""
        return {q for c, cp in self._copies.items() for q in range(c, c + cp.length)}
