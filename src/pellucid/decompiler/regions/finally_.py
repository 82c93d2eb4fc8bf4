"""3.11+ try/finally: the body is the protected region, the finally body is read from its
exception-path copy (the handler), and every other exit of the body must run through a
registered copy of it (refused otherwise: code would run without its finally).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from pellucid.decompiler.cfg import reach
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import name
from pellucid.decompiler.instructions import TABLE, TERMINAL, Instr
from pellucid.decompiler.regions.exc_markers import (
    _UNWINDING,
    CaughtException,
    ExcInfo,
    inherited_exits,
    try_finally_node,
)


class FinallyOps:
    """Walker mixin: try/finally from its handler and the copies on its exit paths (3.11+)."""

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

    def do_try_finally(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        h = self._handlers[H]
        home = self.home[s]
        if h.depth > len(stack) or h.lasti or (h.depth < len(stack) and not TABLE.has_exception_table):
            raise self.fail("finally handler stack depth differs from the try's", ins[s], kind=Refusal.TRY)
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
            raise self.fail("finally body without its re-raise", ins[H], kind=Refusal.TRY)
        for k in range(H + 1, R):
            if self.home[k] != H and self.home[k] is not None and self._cover[k] is None:
                if not self._in_finally_exit(k):
                    raise self.fail("finally body with code outside its handler", ins[k], kind=Refusal.TRY)
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
        own = set(self._copies) - before
        past_handlers = self._check_threaded_exits(set(self._copies) - before, end, stop, exits, H, C, home)
        for k in set(self._copies) - before:
            self._copies[k].never_ends = never_ends
            self._claim_copied_end_jumps(k)
        if L:
            self._check_body_leaves_through_copies(s, e, H)
            self._check_unprotected_code_is_copies(s, e, H, home)
            self._check_clause_exits_are_copies(H, home)
        clause_exits, moved, rest = self._clause_exits_through_copies(before, s, end, stop, exits, H, C, home)
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
            raise self.fail("finally body's copy on the normal path not found", ins[e], kind=Refusal.TRY)
        hstack = list(stack[: h.depth]) + [ExcInfo(), CaughtException()]
        final, st = self.walk(H + 1, R, hstack, frozenset({R}))
        if len(st) != len(hstack):
            raise self.fail("finally body changes the stack", ins[H], kind=Refusal.TRY)
        self._claim_nested(H + 1, R)
        follow = end
        if past_handlers != end:
            if moved is not None:
                raise self.fail("finally body's copy on the normal path not found", ins[end], kind=Refusal.TRY)
            follow = past_handlers
        if moved is not None:
            end, follow = moved
            for k in set(self._copies) - before:
                self._copies[k].end = follow
        # (with the rest of the block written after the statement, the body's jumps to the
        # block's exits are continues and breaks)
        inherited = inherited_exits(follow, stop, exits) if rest is None else frozenset()
        body, st = self.walk(
            s, end, list(stack), frozenset({end}) | inherited | clause_exits,
            base_stack=list(stack[: h.depth]),
        )
        self._claim_closed_clause_exits(clause_exits)
        if rest is None and (follow == stop or follow in exits):
            self._claim_clause_exit_jumps(clause_exits, exits)
        for k, c in self._copies.items():
            if k not in own and s <= k < follow < k + c.length and not any(k <= j < k + c.length for j in own):
                # a copy of a nested finally body (read with the body) runs on past where
                # this statement goes on: its code would be read twice, as the copy and as
                # the code after the statement (3.13+: a return's path through an empty
                # `finally: pass`, which its handler leaves unprotected).  (A nested copy
                # holding this statement's own copy, on a break's path, is read as such.)
                raise self.fail("a nested finally body's copy runs past the try's end", ins[follow], kind=Refusal.TRY)
        if len(outer) != h.depth:
            stack[:] = self._left_by_body(body, st, outer, ins[s])
        elif len(st) != len(stack):
            ret = self._return_into_returning_copy(st, stack, end)
            if ret is None and not L and follow == end:
                ret = self._return_past_empty_finally(st, stack, end)
                if ret is not None:
                    follow = end + 1
            if ret is None:
                raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
            body.append(ret)
        self._claim(H, H, None)
        self._claim_block(R, last_reraise + 1)
        self._claim_block(C, C + 3)
        self.emit(try_finally_node(body, final))
        if rest is not None:
            if follow != end:
                raise self.fail("a clause leaves the try/finally for elsewhere than its end", ins[s], kind=Refusal.TRY)
            self._emit_relocated_rest(s, rest, stack, stop, exits)
            return stop
        return follow

    def _clause_exits_through_copies(
        self, before: set, s: int, end: int, stop: int, exits: frozenset, H: int, C: int, home: int
    ) -> tuple[frozenset, tuple[int, int] | None, tuple[int, int] | None]:
        """The copies of this statement's finally body that a clause of a try in its body
        leaves through (3.12+), checked to go on where the statement does; where the
        body's end moves when its copied exit is a break's (or None); and the rest of the
        enclosing block laid out past it, when only those clauses reach it (or None)."""
        ins = self.ins
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
        moved = rest = None
        for k in clause_exits & jumped_to:
            # a clause leaving through such a copy leaves the statement only if the copy goes
            # on where the statement does, when the body falls off into code of its own level
            # (3.12 104:171: the copy went round the loop, while the statement, read inside an
            # if's arm, went on at the code after the if).  (A body that never falls off ends
            # at its handler: the clauses' copies say where the statement goes on.)
            after, closed = self._past_clause_copy(k)
            if after == stop != end and moved in (None, (end, stop)) and self._loop_follow_at_end(end, stop, home):
                # the body never goes on at its end (it returns; the enclosing loop's follow
                # is laid out there): the statement goes on where its clauses' paths do, the
                # end of the loop body (3.13: a with in the body that suppresses, its path
                # through the finally's copy to the loop's next test)
                moved = (end, stop)
                continue
            r = self._returning_path_end(after_end) if after_end < self.n else None
            if (
                r == stop != end
                and moved in (None, (r, stop))
                and self._clause_path_reaches(k, self._exit_places(exits))
            ):
                # the body never falls off (its path at its end is a return's, through the
                # enclosing finally bodies' copies, up to the end of the block), and the clause
                # goes on where the block does: the statement ends the block (3.13: an else
                # that returns, an except clause that falls through an enclosing finally's copy)
                moved = (r, stop)
                continue
            if (
                # (a clause's `continue` or `break` through the finally, or code after the
                # statement outside the block being read: laid out past it, 3.12+, which the
                # walk would place after the enclosing statements)
                (after in loop_places or not end <= after < stop)
                and after != after_end
                and after_end < self.n
                and self.home[after_end] == home
                and (after >= self.n or self.ins[after].op not in TERMINAL)  # (a return's copy)
                and not closed  # (the copy's path does not go on with the statement's)
                # (ending the enclosing block, the statement goes where the block's exits go)
                and not ((end == stop or end in exits) and self._goes_on_as(after, self._exit_places(exits)))
            ):
                # (the body never falls off: only the clauses go on, into the rest of the
                # enclosing block laid out past it, cold code of the clause's handler)
                # (a body whose path at its end returns, through enclosing finally bodies'
                # copies, ends past that return)
                body_end = r if r is not None and end < r <= stop else end
                hk = self.home[after] if after < self.n else None
                found = (
                    None
                    if moved not in (None, (body_end, body_end)) or hk is None or hk < 0 or not self._in(hk, H)
                    else self._rest_past_block(s, C, hk, after, body_end, stop, exits, home)
                )
                if found is not None and rest in (None, found):
                    rest = found
                    if body_end != end:
                        moved = (body_end, body_end)
                    continue
                raise self.fail("a clause leaves the try/finally for elsewhere than its end", ins[k], kind=Refusal.TRY)
            if after != after_end and not closed and self._body_path_leaves(end, after_end, after):
                t = self._copied_follow_len(after_end)
                if moved is None and t and after_end + t <= after < stop and self._only_loop_follow_between(
                    after_end + t, after, home, t
                ):
                    # (the copied exit is the break's: the body ends with it, and the
                    # statement goes on where the clause's path does)
                    moved = (after_end + t, after)
                    continue
                r = self._returning_path_end(after_end)
                if moved is None and r is not None and r <= after < stop and not any(
                    self.reachable[q] and self.home[q] == home for q in range(r, after)
                ):
                    # (the body's path returns: the copy it falls into is the return's, and
                    # the statement goes on where the clause's path does)
                    moved = (r, after)
                    continue
                # (3.12+: the body's path leaves the block, an else's `break` through the
                # finally body then a copy of the code after the loop, while a clause's goes
                # on with the code after the statement: the copied exit is not the statement's
                # follow, and the walk would place it after the whole statement)
                raise self.fail("a clause leaves the try/finally for elsewhere than its end", ins[k], kind=Refusal.TRY)
        if rest is not None and (
            (moved is not None and moved[0] != moved[1]) or self._clause_copies_go_on(clause_exits) != {rest[0]}
        ):
            # (every clause going on goes on with the rest: one going elsewhere, to the
            # statement's end, would read as falling off into it)
            raise self.fail("a clause leaves the try/finally for elsewhere than its end", ins[s], kind=Refusal.TRY)
        return clause_exits, moved, rest

    def _past_clause_copy(self, k: int) -> tuple[int, bool]:
        """Where the path through the copy at k (and the enclosing finally bodies' copies
        after it, and the pops that unwind) goes on, and whether the copy's path ends
        there instead (a finally body that never ends, or a closed terminal copy)."""
        closed, after = False, k
        for step in self._clause_copy_steps(k):
            closed, after = step
        return after, closed

    def _clause_path_reaches(self, k: int, places: set[int]) -> bool:
        """Does the path through the copy at k (and the enclosing finally bodies' copies after
        it, and the pops that unwind) reach one of ``places`` before it goes on into code?"""
        for closed, at in self._clause_copy_steps(k):
            if closed:
                return False
            if at in places:
                return True
        return False

    def _clause_copy_steps(self, k: int):
        """Along the path through the copy at k and the enclosing finally bodies' copies
        laid out after it: for each copy, whether its path ends in it (a finally body that
        never ends, or a closed terminal copy), and where the path goes on past it and the
        pops that unwind (``POP_TOP``, ``POP_EXCEPT``)."""
        ins = self.ins
        at, seen = k, set()
        while at in self._copies and at not in seen:
            seen.add(at)
            copy = self._copies[at]
            closed = copy.never_ends or self._closed_terminal(at, at + copy.length)
            at = self._past_nops(self._thread(at + copy.length))
            while at < self.n and ins[at].op in ("POP_TOP", "POP_EXCEPT"):
                at = self._past_nops(self._thread(at + 1))
            yield closed, at

    def _goes_on_as(self, at: int, places: set[int]) -> bool:
        """Does the code at ``at`` go on as the code at one of ``places``: it is one of them, or
        a copy of the small return block there (3.12+ copy it into each arm of an ``if``
        ending a finally body's copy)?"""
        if at in places:
            return True
        t = self._exit_tail_len(at) if at < self.n else 0
        return bool(t) and any(
            p < self.n and self._exit_tail_len(self._past_nops(p)) == t and self._same(at, self._past_nops(p), t)
            for p in places
        )

    def _clause_copies_go_on(self, clause_exits: frozenset) -> set[int]:
        """Where the paths through the clauses' copies go on into code (not a return)."""
        out = set()
        for k in clause_exits:
            after, closed = self._past_clause_copy(k)
            if not closed and (after >= self.n or self.ins[after].op not in TERMINAL):
                out.add(after)
        return out

    def _loop_follow_at_end(self, end: int, stop: int, home: int | None) -> bool:
        """Is the code at ``end`` the enclosing loop's follow, a small return block that no
        path of the statement falls into, and the only code of ``home`` up to ``stop``?"""
        ins = self.ins
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.follow != end or end == 0:
            return False
        if ins[end - 1].op not in TERMINAL and ins[end - 1].op != "JUMP":
            return False
        t = self._exit_tail_len(end)
        return bool(t) and self._only_loop_follow_between(end, stop, home, t)

    def _claim_copied_end_jumps(self, k: int) -> None:
        """A copy at k followed by a jump may have paths that leave it through copies of that
        jump (3.14: one per arm of an `if` ending the finally body, not threaded into one):
        they are the copy's way to that jump, reached only from it.  Claimed, so that the
        walk after the statement does not read each as one more jump (a second `continue`)."""
        ins = self.ins
        b = k + self._copies[k].length
        if b >= self.n or ins[b].op != "JUMP":
            return
        for q in range(k, b):
            t = ins[q].target
            if t is None or k <= t <= b or t >= self.n:
                continue
            if (
                ins[t].op == "JUMP"
                and ins[t].target == ins[b].target
                and (ins[t - 1].op in TERMINAL or ins[t - 1].op == "JUMP")
                and all(p.target != t or k <= p.index < b for p in ins)
            ):
                self.reachable[t] = False

    def _claim_closed_clause_exits(self, clause_exits: frozenset) -> None:
        """The normal exit's copy reached only from a clause (``clause_exits``), of a finally
        body that never ends, is where the path of that clause ends: the walk of the body
        stopped there (an exit of the statement), and the finally clause says what the copy
        does.  Claimed, so that the code after the statement does not read it again."""
        for k in clause_exits:
            c = self._copies[k]
            if c.never_ends and self._never_reaches(k, k + c.length):
                self._claim_block(k, k + c.length)

    def _claim_clause_exit_jumps(self, clause_exits: frozenset, exits: frozenset) -> None:
        """The jump after the normal exit's copy reached only from a clause (``clause_exits``)
        of a statement that ends its block, going where the block's exits go (3.12+: the
        jump back to the loop's head, laid out with the clause's code): what falling off
        the statement does, read as its end.  Claimed, so that no walk reads it again."""
        places = self._exit_places(exits)
        for k in clause_exits:
            b = k + self._copies[k].length
            if (
                b < self.n
                and self.ins[b].op == "JUMP"
                and self.reachable[b]
                and self._past_nops(self._thread(b)) in places
                and not any(q.target == b for q in self.ins)
            ):
                self.reachable[b] = False

    def _copied_follow_len(self, k: int) -> int:
        """The length of the copy at k of the small block after the enclosing loop (a
        return): a ``break`` through the finally body, 3.12+.  0 if it is not one."""
        loop = self.loops[-1] if self.loops else None
        t = self._exit_tail_len(k)
        if loop is None or not t or loop.follow == k or loop.follow >= self.n:
            return 0
        return t if self._exit_tail_len(loop.follow) == t and self._same(k, loop.follow, t) else 0

    def _only_loop_follow_between(self, a: int, b: int, home: int | None, t: int) -> bool:
        """Is the enclosing loop's small follow block [f, f + t) the only code of ``home`` left
        to walk in [a, b) (3.12+ lay it between the loop body's parts)?"""
        f = self.loops[-1].follow
        return all(
            f <= k < f + t for k in range(a, b) if self.reachable[k] and self.home[k] == home
        )

    def _body_path_leaves(self, end: int, at: int, other: int) -> bool:
        """Does the body's path fall off its last copy at ``end`` into code at ``at`` (past
        line NOPs) that leaves the block, a return or a copied exit block, where the code
        at ``other`` is not the same exit?"""
        if at >= self.n or end == 0 or not self._falls_off_copy(end):
            return False
        # (an enclosing with's or finally's exit copy, the unwinding of a clause: then the exit)
        at = self._past_copies(at)
        while at < self.n and self.ins[at].op in ("POP_TOP", "POP_EXCEPT"):
            at = self._past_copies(self._past_nops(at + 1))
        if at >= self.n:
            return False
        key = self._exit_key(at)
        tail = self._exit_tail_len(at)  # (a straight block that returns a value it computes)
        if key is None and self.ins[at].op not in TERMINAL and not tail:
            return False
        if other >= self.n:
            return True
        if key is None and tail:
            return not (self._exit_tail_len(other) == tail and self._same(at, other, tail))
        return key is None or self._exit_key(other) != key

    def _falls_off_copy(self, end: int) -> bool:
        """Does the path through the copy ending at ``end`` go on there: its last instruction
        falls through, or (an ``if`` ending the finally body, its arm returning last) one of
        its jumps goes there?"""
        if self.ins[end - 1].op not in TERMINAL and self.ins[end - 1].op != "JUMP":
            return True
        return any(
            k + c.length == end and any(self.ins[q].target == end for q in range(k, end))
            for k, c in self._copies.items()
        )

    def _returning_path_end(self, k: int) -> int | None:
        """Past the return that the path at k reaches through the copies laid out there (of
        enclosing with and finally bodies), a small straight block; None if it does not."""
        q = self._past_copies(k)
        t = self._exit_tail_len(q) if q < self.n else 0
        return q + t if t else None

    def _past_copies(self, k: int) -> int:
        """Where the path at k goes on past the registered copies (of enclosing with and
        finally bodies) laid out there."""
        seen = set()
        while k in self._copies and k not in seen:
            seen.add(k)
            k = self._past_nops(k + self._copies[k].length)
        return k

    def _check_threaded_exits(
        self, new: set[int], end: int, stop: int, exits: frozenset, H: int, C: int, home: int | None
    ) -> int:
        """A copy whose end jumps on past code not its own (``_threaded_exits``) is the normal
        exit's of a statement ending its block, and goes where that block goes on: the jump
        the compiler threaded was the block's.  Or it jumps over the statement's own handler
        code (3.12+ lay it out after the normal exit's copy, in a clause of an enclosing try)
        to the code after the statement.  Anywhere else, what lies between is unread.
        Returns where the statement goes on: ``end``, or past its handler code."""
        follow = end
        for k in new:
            T = self._threaded_exits.get(k)
            if T is None:
                continue
            normal = k + self._copies[k].length == end
            if normal and (end == stop or end in exits) and T in self._exit_places(exits):
                continue
            if normal and end < T <= stop and follow in (end, T) and self._own_handler_code(end, T, H, C, home):
                follow = T
                continue
            raise self.fail("finally body's copy on the normal path not found", self.ins[k], kind=Refusal.TRY)
        return follow

    def _own_handler_code(self, a: int, b: int, H: int, C: int, home: int | None) -> bool:
        """Is [a, b) code of the handlers of the try/finally whose handler is H (with clean-up
        C): H's, C's, or of handlers nested in them or in the protected body, or a clean-up
        block (``COPY 3; POP_EXCEPT; RERAISE 1``, of no home)?"""
        cleanups = {c + d for c, h in self._handlers.items() if h.kind == "cleanup" and a <= c < b for d in range(3)}
        for q in range(a, b):
            hq = self.home[q]
            if hq is None and q in cleanups:
                continue
            if hq is None or hq < 0 or hq == home:
                return False
            if not (hq in (H, C) or self._in(hq, H) or self._in(hq, C)):
                return False
        return True

    def _return_into_returning_copy(self, st: list, stack: list, end: int) -> ast.Return | None:
        """The body's last statement is ``return v`` and the finally body (or an enclosing
        one, whose copy follows) never ends (it returns, raises, breaks or continues on every
        path): the compiler computes v, then runs the finally bodies' copies, which never come
        back to return it.  Laid out
        as the body's last copy, that copy reads as the normal exit, leaving v on the stack:
        the statement is that ``return v``.  None when the body ends otherwise."""
        if len(st) != len(stack) + 1 or not isinstance(st[-1], ast.expr):
            return None
        if any(a is not b for a, b in zip(st, stack)):
            return None
        last = [k for k, c in self._copies.items() if c.kind == "finally" and k + c.length == end]
        if not last:
            return None
        k = min(last)  # (the copy holding an enclosing one's ends with it)
        while not self._copies[k].never_ends:
            # (an enclosing try/finally's copy after this one's, on the same return path)
            k = self._past_nops(k + self._copies[k].length)
            if k not in self._copies or self._copies[k].kind != "finally":
                return None
        ret = ast.Return(value=self.as_expr(st[-1], None))
        ret.overridden_exit = True
        return ret

    def _return_past_empty_finally(self, st: list, stack: list, end: int) -> ast.Return | None:
        """``finally: pass`` has no copies: the body's last statement ``return v`` computes v
        inside the protected range and returns right after it, at ``end`` (3.11+).  That
        return, claimed; None when the body ends otherwise."""
        if len(st) != len(stack) + 1 or not isinstance(st[-1], ast.expr):
            return None
        if any(a is not b for a, b in zip(st, stack)):
            return None
        if end >= self.n or self.ins[end].op != "RETURN_VALUE" or not self.reachable[end]:
            return None
        self._claim_block(end, end + 1)
        return ast.Return(value=self.as_expr(st[-1], None))

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
            raise self.fail("a jump leaves the try body elsewhere than through its finally body's copy", ins[q], kind=Refusal.TRY)

    def _check_unprotected_code_is_copies(self, s: int, e: int, H: int, home: int | None) -> None:
        """Inside the try's extent, the code of its level that H does not protect is on an
        exit path: copies of the finally body, the pops that unwind, the exit itself (a
        jump, a return, a copy of a small return block).  Anything else is a copy not
        recognized (3.12: a `return`'s copy of a finally body that ends in `break`), which
        the walk would read as code of the body, run twice."""
        k = self._first_uncopied(s, e, lambda k: self.home[k] != home or self._in(k, H))
        if k is not None:
            raise self.fail(
                "code on an exit path of the try body that is no copy of its finally body", self.ins[k],
                kind=Refusal.TRY,
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
        (Code an except clause of a nested try reaches may be the code after that try.)
        Code reached from those handlers only through a copy of this finally body is where
        that copy's path goes on (the loop's next test, the code after the statement),
        whatever handler's code it was counted as: the finally body has run."""
        if not TABLE.has_exception_table:
            return
        nested = [
            hk for hk in self._handlers
            if hk not in (H, home) and self._in(hk, H) and self._is_finally(hk)
        ]
        own_copies = {
            q for k, c in self._copies.items() if c.owner == H for q in range(k, k + c.length)
        }
        before_copy = reach(self.ins, nested, avoid=own_copies).reached

        def elsewhere(k: int) -> bool:
            hk = self.home[k]
            return (
                k not in before_copy
                or hk is None
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
                kind=Refusal.TRY,
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
            raise self.fail("try body reorders the values below it", ins, kind=Refusal.TRY)
        out = list(kept)
        for v in st[len(kept) :]:
            if not isinstance(v, ast.expr):
                raise self.fail("try body leaves a non-value on the stack", ins, kind=Refusal.TRY)
            tmp = f"__pellucid_tmp{self.spilled}"
            self.spilled += 1
            body.append(ast.Assign(targets=[name(tmp, ast.Store())], value=self.as_expr(v, ins), lineno=0))
            ref = name(tmp)
            ref.is_spill = True
            out.append(ref)
        return out
