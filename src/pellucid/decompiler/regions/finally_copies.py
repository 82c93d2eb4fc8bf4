"""3.11+: the copies of a finally body the compiler inlines on the normal exit and on each
return/break/continue, checked against the body read from its exception-path copy.

A copy matches when it runs the same instructions, its exits go to one place, and what
differs is the unwinding after an exit (``_finally_end_len``) or 3.12+'s copies of a small
exit block.  Where a copy's control flow differs in layout, it is compared as a graph
(``_graph_copy``).
"""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    INVERSE_JUMPS,
    TABLE,
    TERMINAL,
    Instr,
    arg_key,
)


class FinallyCopyOps:
    """Walker mixin: recognise the normal-path copies of a finally body (3.11+)."""

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
            elif arg_key(x.argval) != arg_key(y.argval):
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
                    break
                starts.add(p)
                p += t
            if p == X and far - {X} <= starts:
                length = X - b
            elif far == {X} and not tails and ins[end - 1].op in TERMINAL:
                # the copy never falls off its end: its exits jump on to where the block
                # holding the statement goes on, past code of that block (an else arm),
                # the compiler having threaded the jump that would follow the copy
                self._threaded_exits[b] = X
                return j
            else:
                return 0
        for q, t in tails:
            if not self._same(q, X, t):
                return 0
        if X == end and outs and ins[end].op != "RETURN_VALUE":
            # its exits jump to its end: the statement ends there (unless that is the
            # return of a value computed before the copy, inside the statement)
            self._joined_copies.add(b)
        return length

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
        holds an if).  A jump out of an if's path (a loop's `break` or `continue` in the
        enclosing finally body) is where that path goes on, which the copy cannot say:
        returns (the instructions of y's side, whether such a jump was passed), or None."""
        ins = self.ins
        used: set[int] = set()
        jumps = False
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
                    jumps = jumps or branched  # (a path of an if that goes on elsewhere)
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
                elif a.target is not None or a.op in TERMINAL or arg_key(a.argval) != arg_key(b.argval):
                    return None
                x += 1
                y += 1
        return used, jumps

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

        jumping = False

        def inside(x: int) -> bool:
            hx = self.home[x]
            return hx == H or (hx is not None and hx >= 0 and self._in(hx, C)) or self._in(x, C)

        work = [(H + 1, b)]
        entries: set[tuple[int, int]] = set()  # (nested handlers, paired by exception edges)
        while work:
            x, y = work.pop()
            x = self._thread(x)
            if x == R and (x, y) not in entries:
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
                        found = self._exit_path_matches(x + skip, y + len(drop))
                        if found is not None:
                            rest, jumps = found
                            jumping = jumping or jumps
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
            if a.target is None and arg_key(a.argval) != arg_key(c.argval):
                return None
            pairs[x] = y
            rpairs.setdefault(y, x)
            used.add(y)
            hx, hy = self._cover[x], self._cover[y]
            if hx is None and hy is None and a.target is not None:
                pass  # (3.13+ leave a comprehension's `if` jump back unprotected in both copies)
            elif hx in hmap:
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
                entries.add((hx, hy))  # (a handler starting at R: a nested try's, not the end)
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
            # of it, the last one is where the statement continues.  (Or, in an except
            # clause, its unwinding and jump on: one copy per arm of an if ending the body.)
            t = self._exit_tail_len(F) or self._unwinding_jump_len(F)
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
            if T > F and ins[F - 1].op in TERMINAL:
                # the copy never falls off its end: its end jumps on to where the block
                # holding the statement goes on, past code of that block (an else arm)
                self._threaded_exits[b] = T
            elif not (T < b and T in self.latch):
                return None  # (unless the body's end goes back to the loop around the statement)
            else:
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
        if jumping:
            self._jumping_copies.add(b)
        return F - b, extra

    def _unwinding_jump_len(self, k: int) -> int:
        """Length of an except clause's end at k: ``POP_EXCEPT`` (with the pops before it)
        then a jump on, a small block the compiler copies into each jump to it; else 0."""
        q = k
        while q < self.n and q - k < 4 and self.ins[q].op in ("POP_TOP", "SWAP"):
            q += 1
        if q + 1 >= self.n or self.ins[q].op != "POP_EXCEPT" or self.ins[q + 1].op != "JUMP":
            return 0
        return q + 2 - k

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
                if a.op != b.op or a.target is not None or b.target is not None or arg_key(a.argval) != arg_key(b.argval):
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
