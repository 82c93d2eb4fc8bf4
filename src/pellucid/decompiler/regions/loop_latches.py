"""Loops whose jumps back meet exception handling.

3.12+ move handlers to the end of the code, so their jumps back to the code after a try
look like loops; a jump back to before the try is a loop's ``continue``.  These readings
tell the loop's real latch and where a ``while True`` body goes on past its last jump back,
which the loop structuring in ``structure.py`` asks for.
"""

from __future__ import annotations

from pellucid.decompiler.cfg import Reach, reach
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, TABLE, TERMINAL
from pellucid.decompiler.undo import TEST_COPY


class LoopLatchOps:
    """Walker mixin: which jumps back are loops when handlers hold them."""

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
            T = self._inverted_while_body(t)
            if T is not None:
                # the test at the top of a `while` tested at its bottom too (3.12/3.13): the
                # loop's back edge is the copied test's, the handler's jump a `continue`
                self.latch[t] = self.latch[T]
                continue
            # a loop whose only back edge is a continue in a handler: its body is
            # everything reached from its header, when nothing jumps out of it
            # (a forward jump out of it is a break: it must leave the region)
            body = self._reached_in_home(t)
            seen = body.reached
            breaks = {self.ins[k].target for k in body.ended}
            breaks -= self._joins_in_region(seen, self._clause_line(t))
            last = max(seen)
            if any(b <= last for b in breaks) or any(
                q not in seen and self.home[q] == self.home[t] for q in range(t, last)
            ):
                if t not in cold:
                    continue  # (read as before: a jump to the outer try's follow)
                end = self._body_before_exit(t, breaks)
                if end is not None:
                    self.latch[t] = end
                    continue
                raise self.fail("loop continued only from an exception handler", self.ins[t], kind=Refusal.LOOP)
            last = self._back_edge_past_handlers(t, last, breaks) or self._back_edge_in_clause(t, last, breaks) or last
            self.latch[t] = last
        self._extend_threaded_latches()

    def _extend_threaded_latches(self) -> None:
        """A `while` ending the body of the loop at h: its test's false exit is that loop's
        jump back, threaded to h (3.14+ leave no other), so the inner loop's own jump back
        comes last.  That jump is where h's body ends: h's latch."""
        for h in sorted(self.latch):
            last = self.latch[h]
            if self.ins[last].op not in CONDITIONAL_JUMPS:
                continue
            inner = [
                back for head, back in self.latch.items()
                if h < head <= last < back and self.ins[back].op == "JUMP" and self.home[back] == self.home[last]
            ]
            if inner:
                self.latch[h] = max(inner)

    def _body_before_exit(self, t: int, breaks: set[int]) -> int | None:
        """The last instruction of a loop at t whose only back edge is a handler's `continue`,
        when the walk from t reached code after the loop (through the test's exit, or its
        breaks): the body is [t, F) for the first place F, of where its breaks go and where the
        test at its top exits, that ends it (see _ends_loop_at).  None when none does."""
        cands = set(breaks)
        k = t
        while k < self.n and self.ins[k].target is None and self.ins[k].op not in TERMINAL:
            k += 1  # (the straight code at the top: a `while` test ends in its exit's jump)
        if k < self.n and self.ins[k].op in CONDITIONAL_JUMPS and self.ins[k].target > k:
            cands.add(self.ins[k].target)
        for F in sorted(cands):
            if self._ends_loop_at(t, F):
                return F - 1
        return None

    def _ends_loop_at(self, t: int, F: int) -> bool:
        """Is [t, F) a loop body whose only back edges are handlers' jumps to t, and F the code
        after it?  The walk from t stays in it but for its jumps to F and reaches all of its
        home's code there, which does not fall into F (its paths return, raise, go round or
        break); nothing else of its home enters it past t; the jumps back to t come from
        handlers of tries in it.  (Code from F on never goes round, then: read after the
        loop, it does what it did as the loop's last code.)"""
        ins, home = self.ins, self.home
        part = home[t]
        if not t < F <= self.n or home[F - 1] != part or ins[F - 1].op not in TERMINAL | {"JUMP"}:
            return False
        body = reach(ins, [t], part_of=home, part=part, within=(t, F))
        if body.left != {F}:
            return False
        if any(q not in body.reached for q in range(t, F) if home[q] == part):
            return False
        for i in ins:
            if i.target is None or t <= i.index < F:
                continue
            if t < i.target < F and home[i.index] == part:
                return False  # (entered past its head)
            if i.target == t and not t <= self._outer_try_start(home[i.index], part) < F:
                return False  # (a jump back from a handler of a try after F)
        return True

    def _inverted_while_body(self, t: int) -> int | None:
        """Where the body starts when t starts the test at the top of a `while` whose test the
        compiler copied before its jump back (undo/loop_tests.py): the test falls into the
        body T and jumps forward (past the loop), and the conditional jump back to T ends a
        copy of all of it; None otherwise."""
        for T, last in self.latch.items():
            lj = self.ins[last]
            top = self.ins[T - 1] if T > t else None
            if (
                top is not None
                and top.op in CONDITIONAL_JUMPS
                and top.target is not None
                and top.target > T
                and lj.op in CONDITIONAL_JUMPS
                and lj.target == T
                and (lj.extra.get(TEST_COPY) or {}).get(T - 1, 0) >= T - t
                and not any(i.target is not None and t < i.target < T for i in self.ins[t:T])
            ):
                return T
        return None

    def _reached_in_home(self, t: int) -> Reach:
        """The code of t's home reached from t; a forward jump ends the walk (``ended``)."""
        home, ins = self.home, self.ins

        def forward(k: int) -> bool:
            return ins[k].target is not None and ins[k].target > k

        return reach(ins, [t], part_of=home, part=home[t], stop_jump=forward)

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
