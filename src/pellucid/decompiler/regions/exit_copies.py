"""The copies of a finally body or of a with's ``__exit__`` call that the compiler inlines
on each exit path of a statement (return, break, continue, the normal exit).

Each copy is registered once found (``_copies``), so that the walk skips it and applies its
stack effect instead of reading it again as code; its end says where that path goes.
"""

from __future__ import annotations

from pellucid.decompiler import values as V
from pellucid.decompiler.instructions import TABLE, TERMINAL
from pellucid.decompiler.regions.exc_markers import COPIES_EXITS, STORE_OPS, Copy


class ExitCopyOps:
    """Walker mixin: register and follow the exit-path copies of finally and with bodies."""

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

    def _register_copies(self, H: int, home: int, s: int, e: int, matches) -> int:
        before = set(self._copies)
        end = self._register_copies_inner(H, home, s, e, matches)
        for k, c in self._copies.items():
            if k not in before:
                c.end = end
                c.owner = H
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
            if joined or self._jumped_to_from_outside(j, s, H):
                break  # (a shared tail, e.g. a loop's back edge: it follows the statement)
            t = self._tail_end(j)
            if t is None and self._never_reaches(j - L, j):
                t = j  # (the copy holds its path's exit, a return or a jump: another copy may follow)
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

    def _jumped_to_from_outside(self, j: int, s: int, H: int | None = None) -> bool:
        """Does a jump from outside [s, j) reach j?  The code at j is then where
        other paths join (an if around the statement skipping to a loop's back
        edge), not an exit tail owned by the statement starting at s.  With H, a
        jump from the clause of a try nested in what H protects is from inside (3.11+
        lay those clauses out after the statement: one falling off its try goes on
        to the normal exit's copy)."""
        return any(
            i.target == j and not s <= i.index < j and not (H is not None and self._in_nested_clause(i.index, H))
            for i in self.ins
        )

    def _in_nested_clause(self, k: int, H: int) -> bool:
        """Is k code of a handler that H protects (a clause of a nested try or with)?"""
        hk = self.home[k]
        return hk is not None and hk >= 0 and self._in(hk, H)

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
        start = k
        while (
            not TABLE.has_exception_table
            and k < self.n
            and (self.ins[k].op == "POP_BLOCK" or k in self._copies)
            and not self._is_target(k)
        ):
            # (3.9/3.10: the break leaves enclosing with/finally statements too, through
            # their own copies)
            k += self._copies[k].length if k in self._copies else 1
        if loop.item is not None:
            if self.ins[k].op != "POP_TOP" or not stack or not isinstance(stack[-1], V.Iterator):
                return None
            k += 1
        f = loop.follow
        t = self._exit_tail_len(k)
        if not t or any(self._is_target(q) or q in self._copies for q in range(k, k + t)):
            # (an enclosing finally body's copy first: its own exit goes on from there)
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
        for q in range(start, k + t):
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

    def _never_reaches(self, a: int, b: int) -> bool:
        """Does no path through the copy [a, b) go on at b (its last instruction returns, raises
        or jumps, and no jump in it goes to b)?"""
        last = self.ins[b - 1].op
        if last not in TERMINAL and last != "JUMP":
            return False
        return not any(self.ins[k].target == b for k in range(a, b))

    def _closed_terminal(self, a: int, b: int) -> bool:
        """Does every path through the copy [a, b) end in a return or raise inside it (no
        jump leaves it, not even one the compiler threaded to a loop's head)?"""
        if self.ins[b - 1].op not in TERMINAL:
            return False
        return all(self.ins[k].target is None or a <= self.ins[k].target < b for k in range(a, b))

    def _pure_exit(self, k: int) -> bool:
        while k < self.n:
            if k in self._copies:
                c = self._copies[k]
                if not TABLE.has_exception_table and c.never_ends and self._never_reaches(k, k + c.length):
                    return True  # (3.9/3.10: the path ends in a finally body that always leaves)
                k += c.length
                continue
            op = self.ins[k].op
            if op in ("POP_TOP", "SWAP", "POP_EXCEPT", "POP_BLOCK", "ROT_FOUR"):  # (3.9/3.10: a
                # return's value kept above an enclosing handler's exception)
                k += 1
                continue
            if op == "LOAD_CONST" and k + 1 < self.n and self.ins[k + 1].op == "RETURN_VALUE":
                return True
            return op in ("RETURN_VALUE", "JUMP")
        return False
