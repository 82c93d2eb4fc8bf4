"""3.11+ try/except/else: the body is the protected region of a ``try`` handler, the clauses
are read from the handler's code, and the jumps ending them say where the statement goes on
(its follow).  An else is the code between the body's end and the follow.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import replace

from pellucid.decompiler.cfg import reach
from pellucid.decompiler.decode import decode
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, TABLE, TERMINAL, Instr
from pellucid.decompiler.regions.exc_markers import (
    _EXIT_PATH_OPS,
    STORE_OPS,
    CaughtException,
    ExcInfo,
    _ends_in_jump,
    _strip_final_returns,
    inherited_exits,
)


class TryExceptOps:
    """Walker mixin: try/except/else from an exception-table handler (3.11+)."""

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

    def _past_inline_clauses(self, e: int, H: int, home: int, limit: int) -> int:
        """The end of a try body [.., e) that ends in a try whose handler code is laid out
        inline right after it (3.11; 3.12+ inside a handler): that code is covered by H, so
        it is the body's, though its home is the inner handler; the body ends after it."""
        if self._chains is None:
            self._build_chains()
        end = k = e
        while k < limit and self.home[k] != home:
            if H in self._chains[k]:
                # (the inner handlers' clean-ups, never entered normally, have no home)
                end = k + 1
            elif self.ins[k].op not in _EXIT_PATH_OPS:
                # (a clause's jump, or its return's pops, raise nothing: the table may leave
                # them out; taken when more of the handler code follows)
                break
            k += 1
        # (that code running into the end of the enclosing block before H's own code: the
        # block as found ends inside the handler code, and this is not the shape)
        return end if k < limit or k == H else e

    def _unprotected_code_in(self, a: int, b: int, H: int, home: int) -> bool:
        """Is there code of ``home`` in [a, b) that handler H does not protect (more than
        the pops and jumps that end statements)?"""
        if self._chains is None:
            self._build_chains()
        return any(
            self.reachable[k]
            and self.home[k] == home
            and H not in self._chains[k]
            and self.ins[k].op not in _EXIT_PATH_OPS
            for k in range(a, b)
        )

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

    def _inline_arm_past_body(self, s: int, e: int, else_end: int, follow: int | None) -> int | None:
        """3.11: where the if ending a try body ends, when its second arm, which leaves (a
        break's or return's unwinding pops the try's block), lies past the protected range:
        a test of the body jumps to e, and the first arm's jump goes past that arm, to its
        end, the body's jump to the follow.  The arm is the body's, not an else."""
        ins, home = self.ins, self.home[s]
        tests = [q.index for q in ins[s:e] if q.op in CONDITIONAL_JUMPS and q.target == e and self.home[q.index] == home]
        jumps = [q for q in ins[s:e] if q.op == "JUMP" and q.target is not None and e < q.target <= else_end]
        if not tests or len(jumps) != 1 or self.home[jumps[0].index] != home or jumps[0].index < min(tests):
            return None
        t = jumps[0].target
        if ins[t - 1].op not in TERMINAL and ins[t - 1].op != "JUMP":
            return None
        if follow is None or not (ins[t].op == "JUMP" and ins[t].target == follow):
            return None
        if any(q.target is not None and e < q.target < t and not e <= q.index < t for q in ins):
            return None
        return t

    def _else_code_in(self, e: int, else_end: int, home: int) -> bool:
        """Is there code of an else in [e, else_end), more than a jump to its end (the jump
        to the follow that ends the body)?  Jumping over nothing skips nothing."""
        return any(
            self.reachable[k]
            and self.home[k] == home
            and self.ins[k].op != "NOP"
            and not (self.ins[k].op == "JUMP" and self.ins[k].target == else_end)
            for k in range(e, else_end)
        )

    def _check_else_not_skipped(
        self, s: int, e: int, else_end: int, home: int | None, follow: int | None
    ) -> None:
        """Refuse an else [e, else_end) that a test in the body jumps into or over: falling
        off the body runs the whole else, so that code is something else (an arm of the if
        laid out past the protected range, 3.13) and the reading would be wrong code.  (3.11
        lays an if's arms out in order: the first arm's jump past the second, to the else's
        end or the follow, skips the "else" when the compiler left the second, which leaves by
        a jump, out of the protected range.)"""
        loop = self.loops[-1] if self.loops else None
        loop_targets = loop.continue_targets | loop.break_targets if loop is not None else set()
        jumps = CONDITIONAL_JUMPS if TABLE.cold_blocks_at_end else CONDITIONAL_JUMPS | {"JUMP"}
        for j in self.ins[s:e]:
            t = j.target
            if (
                j.op in jumps
                and t is not None
                and (e < t <= else_end or (j.op == "JUMP" and t == follow))
                and t not in loop_targets
                and self.home[j.index] == home
            ):
                raise self.fail("a test in the try body skips what would be its else", j, kind=Refusal.TRY)

    def do_try_except(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        h = self._handlers[H]
        home = self.home[s]
        if h.depth != len(stack) or h.lasti:
            raise self.fail("try handler stack depth differs from the try's", ins[s], kind=Refusal.TRY)
        C = self._cleanup_of(H)
        e0, e = self._body_end_with_tails(H, home, stop)
        e = self._past_inline_clauses(e, H, home, min(stop, H))
        p = H + 1
        base = list(stack)
        hstack = base + [ExcInfo(), CaughtException()]
        if ins[p].op == "COPY" or (ins[p].op == "BUILD_LIST" and ins[p + 1].op == "COPY"):
            return self.do_try_star(s, H, stack, stop, exits)
        clauses, reraise0 = self._except_clauses(H, C, hstack)
        follow_cands, merged_copies = self._clause_follows(clauses, H, C, e)
        normal_exit, no_else = self._except_normal_exit(s, e, H, C, home, follow_cands)
        inside = [t for t in follow_cands if e0 <= t < e]
        if inside:
            # a clause continues at the return that ends the body: it follows the try
            e = min(inside)
        follow = self._single_follow(follow_cands, normal_exit, "except clauses", ins[H])
        breaks_out = self._follow_leaves_loop(follow, stop, exits)
        if breaks_out and normal_exit is None and not (ins[e - 1].op == "JUMP" and ins[e - 1].target == follow):
            # only the clauses go where the loop's breaks go, the body falling off its end
            # (or never): their jumps are `break`s, and the statement goes on after the body
            breaks_out, follow = False, None
        clause_exits = None
        if self._clauses_continue(follow, normal_exit, s, e, stop, home, exits):
            # the code after the try follows it: the clauses' jumps are `continue`s
            clause_exits = frozenset()
            follow = None
        else_end = self._except_else_end(e, H, stop, home, follow, no_else)
        behind = self._code_behind_clause(s, e, H, C, follow)
        if behind is not None and not e <= behind < else_end:
            # 3.11+ reach the else only through a clause of a try in the body when that try's
            # body returns: the else flows as that clause's code, and the reading found no
            # else here (it would come back after the statement, or be lost)
            raise self.misplaced("try else behind a clause of a try in its body", ins[behind])
        if breaks_out and not (ins[e - 1].op == "JUMP" and ins[e - 1].target == follow):
            # (the body ends elsewhere: not this reading; the statement does not go on at the
            # code after the loop, and a clause's jump there is a `break`)
            breaks_out = False
            follow = None
        e = self._body_end_past_arm(s, e, else_end, follow)
        if self._else_code_in(e, else_end, home):
            self._check_else_not_skipped(s, e, else_end, home, follow)
        inherited = inherited_exits(follow, stop, exits)
        rest = None if breaks_out else self._rest_past_block(s, C, H, follow, else_end, stop, exits, home, e)
        if rest is not None:
            # (the rest of the block follows the statement: it does not end the block)
            inherited = frozenset()
        if follow is None and self._own_code_between(else_end, min(stop, self.n), home):
            # the statement goes on at else_end, where code of its own follows: it does not end
            # the enclosing block, so a jump to that block's exits (a loop's head) is written
            inherited = frozenset()
        fo = self._follow_exit(follow, s, exits) if not breaks_out else frozenset()
        body, orelse = self._walk_try_body_else(s, e, H, stack, home, else_end, fo, inherited)
        handlers = self._walk_except_clauses(
            clauses, H, base, follow, merged_copies, fo, inherited, clause_exits
        )
        if breaks_out:
            # every path falling off the statement leaves the loop (its jumps there are breaks)
            if orelse:
                raise self.fail("try body leaves the loop past an else", ins[e], kind=Refusal.TRY)
            if not _ends_in_jump(body):
                orelse = orelse + [ast.Break()]
            for hd in handlers:
                if not _ends_in_jump(hd.body):
                    hd.body = hd.body + [ast.Break()]
            follow = None
        follow, orelse = self._return_past_block(
            (s, else_end, home), follow, stop, exits, stack, body, orelse, handlers
        )
        for m, n_copy in merged_copies:
            for q in range(m, m + n_copy):
                self.reachable[q] = False
        self._claim(H, H, follow)
        self._claim_block(C, C + 3)
        if reraise0 is not None:
            self.reachable[reraise0] = False
        if rest is not None:
            follow = None  # (said by the rest written after the statement)
        self._emit_try_except(body, handlers, orelse, follow, else_end, stop, exits)
        if rest is not None:
            self._emit_relocated_rest(s, rest, stack, stop, exits)
            return stop
        goes_on = self._try_except_goes_on(s, e, follow, else_end, stop, exits, home)
        return max(goes_on, self._body_read_past(s, e, stop)) if goes_on <= stop else goes_on

    def _rest_past_block(
        self, s: int, C: int, H: int, follow: int | None, else_end: int, stop: int,
        exits: frozenset, home: int, e: int | None = None,
    ) -> tuple[int, int] | None:
        """3.12+: (start, end) of the rest of the enclosing block when only the clauses reach
        it (the body and any else [e, else_end) never fall off the statement; a with's
        suppressed exception in the else may): cold code laid out past the handlers, going
        back to the block's end.  None: not that shape."""
        inner = self._statement_handlers_in(else_end if e is None else e, else_end)
        if (
            follow is None
            or follow <= stop
            or follow in exits
            or self.home[follow] not in inner | {H}
            or self._own_code_between(else_end, stop, home)
            or self._exit_copy_past_block(follow, stop, exits) is not None
        ):
            return None
        # the body and else [s, else_end) leave only by raising, returning, or a loop's jump
        # (a continue or break): a path going on past them, even into where a loop's breaks
        # go, would skip the rest
        jumps = self._loop_targets() - {else_end, stop}
        if any(k not in jumps for k in reach(self.ins, [s], within=(s, else_end)).left):
            return None
        # (under the handlers around the statement, which its clean-up C is under)
        end = self._relocated_rest(C, H, follow, stop, exits, [], inner)
        return None if end is None else (follow, end)

    def _except_clauses(self, H: int, C: int, hstack: list) -> tuple[list, int | None]:
        """The clauses of handler H: (type expression or None, name or None, body start, body
        end) each, and the ``RERAISE 0`` after the last typed one (None after a bare except)."""
        ins = self.ins
        clauses = []  # (type_expr|None, name|None, body_start, body_end, star)
        p = H + 1
        reraise0 = None
        while True:
            if ins[p].op == "POP_TOP":
                clauses.append((None, None, p + 1, C))
                break
            q, typ = self._clause_type(p, C, hstack, "CHECK_EXC_MATCH", "except")
            j = ins[q + 1]
            if j.op != "POP_JUMP_IF_FALSE" or j.target is None or j.target <= q:
                raise self.fail("except type test without its jump", j, kind=Refusal.TRY)
            nxt = j.target
            b = ins[q + 2]
            if b.op in STORE_OPS:
                nm = b.argval
                body_start = q + 3
            elif b.op == "POP_TOP":
                nm = None
                body_start = q + 3
            else:
                raise self.fail("except clause without name or pop", b, kind=Refusal.TRY)
            clauses.append((typ, nm, body_start, nxt))
            if ins[nxt].op == "RERAISE" and ins[nxt].arg == 0:
                reraise0 = nxt
                break
            p = nxt
        return clauses, reraise0

    def _clause_follows(self, clauses: list, H: int, C: int, e: int) -> tuple[list, list]:
        """Where the statement continues, from the jumps that end the clauses: (the places,
        the (start, length) of 3.13's copies of the follow that end clauses)."""
        ins = self.ins
        follow_cands = []
        merged_copies: list[tuple[int, int]] = []  # (start, length): copies of the follow
        unmatched: list[tuple[int, int]] = []  # copies of an enclosing clause end without its own
        for _typ, nm, b0, b1 in clauses:
            for k in range(b0, b1):
                hk = self.home[k]
                if ins[k].op == "POP_EXCEPT" and (
                    (hk == H and not self._second_of_merged_end(k, nm))
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
                        self._merged_end_from(j) is not None
                        and self._cover[C] is not None
                        and self._cover[j] == self._outer_clause_level(C, j)
                    ):
                        # 3.13 merges the end of the enclosing clause (this try ends it) into
                        # this clause's: the try continues at the enclosing clause's POP_EXCEPT
                        # (or at the one the body falls into, of which this is a copy)
                        n_copy = self._merged_end_from(j) - j + 1
                        p = self._enclosing_clause_end(e, H, j, n_copy)
                        if p is not None:
                            merged_copies.append((j, n_copy))
                            follow_cands.append(p)
                        else:
                            unmatched.append((j, n_copy))
                            follow_cands.append(j)
        self._share_clause_end_copies(unmatched, follow_cands, merged_copies)
        return follow_cands, merged_copies

    def _enclosing_clause_end(self, e: int, H: int, j: int, n: int) -> int | None:
        """3.13: where the enclosing clause's own end lies, of which [j, j + n) is a copy that
        ends one of this statement's clauses: right at the body's end e, or (the statement
        has an else) the first code after e, before the handler H, the same as the copy."""
        home = self.home[e] if e < self.n else None
        for p in range(e, min(H, self.n)):
            if p == j:
                return None
            if self.home[p] == home and self._same_code(p, j, n):
                return p
            if p == e and self.ins[e].op == "POP_EXCEPT":
                return None  # (the body ends in another clause end: not this statement's)
        return None

    def _enclosing_clause_end_before(self, e: int, H: int, home: int) -> int | None:
        """Where the end of an enclosing except clause that jumps past its handlers at H - 1
        starts, in this statement's home at or after the body's end e, or None."""
        j = H - 1
        if not e < j < self.n or self.home[j] != home or self.ins[j].op != "JUMP":
            return None
        for p in range(max(e, j - 4), j):
            if self.ins[p].op == "POP_EXCEPT" and self.home[p] == home and self._clause_end_jump(p) == j:
                return p
        return None

    def _except_normal_exit(
        self, s: int, e: int, H: int, C: int, home: int, follow_cands: list
    ) -> tuple[int | None, bool]:
        """The normal exit: the jump over the handlers ending the body or the else.  Returns
        (where it goes or None, whether no else comes before it); adds it to ``follow_cands``."""
        ins = self.ins
        normal_exit = None
        no_else = False
        end = self._enclosing_clause_end_before(e, H, home)
        if end is not None:
            # 3.11+: the try ends an enclosing except clause, whose end (its exception's
            # POP_EXCEPT, its jump past its handlers) the body or the else falls into: the
            # statement goes on there
            follow_cands.append(end)
            return end, end == e
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
                    # them out inline): the body's normal exit, with no else before it unless
                    # code the handler does not protect comes first (that try's body never
                    # falls off: only its clauses reach the else)
                    follow_cands.append(ins[j].target)
                    normal_exit = ins[j].target
                    no_else = not self._unprotected_code_in(e, j, H, self.home[j])
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
        return normal_exit, no_else

    def _except_else_end(
        self, e: int, H: int, stop: int, home: int, follow: int | None, no_else: bool
    ) -> int:
        """Where an else after the body [.., e) ends: at the follow or the handler, whichever
        comes first within the walk; where nothing says so, see below."""
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
        return else_end

    def _body_end_past_arm(self, s: int, e: int, else_end: int, follow: int | None) -> int:
        """The end of the try body: ``e``, or the end of the if ending it whose arm lies past
        the protected range (3.12+: laid out cold; 3.11: inline, left unprotected)."""
        if TABLE.cold_blocks_at_end:
            arm_end = self._arm_past_body(s, e, else_end)
        else:
            arm_end = self._inline_arm_past_body(s, e, else_end, follow)
        if TABLE.cold_blocks_at_end and arm_end is not None and not (follow is None or follow < s or follow == arm_end):
            # (the test's false exit going to the statement's follow skips [e, arm_end): no
            # else is skipped that way, so that code is the arm; going elsewhere, it may be)
            arm_end = None
        if arm_end is not None:
            # the body's last statement is an if whose arm (a break's or return's copy, which
            # cannot raise) lies past the protected range: the body goes on to the if's end
            e = arm_end
        return e

    def _walk_try_body_else(
        self, s: int, e: int, H: int, stack: list, home: int, else_end: int,
        fo: frozenset, inherited: frozenset,
    ) -> tuple[list, list]:
        """Read the try body [s, e) and its else [e, else_end): (body, else)."""
        ins = self.ins
        body_exits = fo | inherited
        if else_end > e and self.loops:
            # with an else, falling off the body goes there: a jump to the loop's head skips
            # the else, a `continue`
            body_exits -= self.loops[-1].continue_targets
        body, st = self.walk(s, e, list(stack), body_exits | {e} | self._exit_jump_after(e, H, home))
        if len(st) != len(stack):
            raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
        # (a copy of an inner finally body that the body's reading read past its protected
        # code, the arm of an `if` ending it that leaves, is no code of the else)
        e = self._body_read_past(s, e, else_end)
        orelse, st = self.walk(e, else_end, list(stack), fo | {else_end} | inherited) if else_end > e else ([], stack)
        if orelse:
            # an else runs outside the try: code the try protects is its body's, not the else's
            # (3.11 lays code reached only from an inner clause inline, where it looks like one)
            self._check_nothing_protected_in(H, e, else_end, "code the try protects is read as its else")
        if len(st) != len(stack):
            raise self.fail("try else changes the stack", ins[e], kind=Refusal.TRY)
        if TABLE.inline_handlers and orelse:
            # (3.11 lays clauses inline, so the else range may hold them: checked once the
            # else is known to hold code of its own)
            self._check_else_not_skipped(s, e, else_end, home, None)
        return body, orelse

    def _body_read_past(self, s: int, e: int, bound: int) -> int:
        """Where the reading of the body [s, e) ended: past e when a copy of an inner finally
        body starting in it goes on past e, up to ``bound`` (the arm of an ``if`` ending that
        body that leaves, unprotected: read with the copy, no code of an else nor of what
        follows the statement)."""
        return max([e] + [k + c.length for k, c in self._copies.items() if s <= k < e < k + c.length <= bound])

    def _walk_except_clauses(
        self, clauses: list, H: int, base: list, follow: int | None, merged_copies: list,
        fo: frozenset, inherited: frozenset, clause_exits: frozenset | None,
    ) -> list[ast.ExceptHandler]:
        """Read the clause bodies into except handlers."""
        ins = self.ins
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
                raise self.fail("except clause changes the stack", ins[b0], kind=Refusal.TRY)
            self._claim_nested(b0, b1)
            handlers.append(
                ast.ExceptHandler(type=typ, name=nm, body=hb or [ast.Pass()])
            )
        return handlers

    def _return_past_block(
        self, extent: tuple[int, int, int], follow: int | None, stop: int, exits: frozenset,
        stack: list, body: list, orelse: list, handlers: list,
    ) -> tuple[int | None, list]:
        """3.11+: the statement goes on at a copy of the function's exit laid out past the
        enclosing block (a return): each path falling off the statement returns there (said
        in the else, not the body: the try's handlers do not cover it).  Returns (follow,
        else), the follow None once said.  ``extent`` is (start, else end, home) of the
        statement: its code is there and in its handlers' code."""
        tail = self._exit_copy_past_block(follow, stop, exits)
        if tail is not None:
            if not _ends_in_jump(body + orelse):
                orelse = orelse + self._exit_copy_stmts(follow, tail, stack)
            for hd in handlers:
                if not _ends_in_jump(hd.body):
                    hd.body = hd.body + self._exit_copy_stmts(follow, tail, stack)
            s, else_end, home = extent
            if not any(
                i.target == follow and not s <= i.index < else_end and self.home[i.index] == home
                for i in self.ins
            ):
                # (a jump outside the statement, an enclosing if's test, goes there too: the
                # code stays for the reading of that jump to say, or the path that takes it
                # would fall off the function)
                for q in range(follow, follow + tail):
                    self.reachable[q] = False
            follow = None
        return follow, orelse

    def _emit_try_except(
        self, body: list, handlers: list, orelse: list, follow: int | None, else_end: int,
        stop: int, exits: frozenset,
    ) -> None:
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

    def _try_except_goes_on(
        self, s: int, e: int, follow: int | None, else_end: int, stop: int, exits: frozenset,
        home: int,
    ) -> int:
        """Where the walk continues after the statement whose body ends at ``e``."""
        ins = self.ins
        if follow is not None and e <= follow:
            if follow <= stop:
                after = max(follow, else_end)
                if self._own_code_between(else_end, after, home):
                    # (never drop code: it would be missing from the source, silently)
                    raise self.fail("code between the try statement and its follow is not placed", ins[s], kind=Refusal.UNPLACED)
                return after
            if follow in exits or (
                ins[follow].op == "JUMP" and ins[follow].target in exits and follow not in self.latch
            ):
                # (through the jump the enclosing try's body ends with: the same place)
                return stop
            raise self.fail("try continues past its enclosing block", ins[s], kind=Refusal.TRY)
        return else_end

    def _follow_leaves_loop(self, follow: int | None, stop: int, exits: frozenset) -> bool:
        """3.11+: does a try statement go on, at or past the end of its enclosing block, where
        the innermost loop's breaks go?  That is the code after the loop (a return the
        compiler laid out last, reached by a `break`), not a copy of the function's exit
        inside the loop, nor where falling off the block goes (round the loop)."""
        return (
            TABLE.has_exception_table
            and follow is not None
            and stop <= follow < self.n
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
        if TABLE.duplicates_loop_tests and not loop.forever and loop.item is None:
            # a `while` tested at its top: falling off its body goes to the copy of its test
            # at the bottom, never to the head, so a jump to the head is a `continue`
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
                raise self.fail(f"{what} continue at different places", at, kind=Refusal.TRY)
            return plain[0]
        return cands[0] if cands else None

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
