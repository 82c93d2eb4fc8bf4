"""``while`` loops: a back edge's target is a loop head, and its extent follows from the jumps.

:meth:`LoopOps.do_loop` reads the loop headed at ``h`` (the target of the jump back at
``latch``): a leading condition whose false exit leaves the loop is the ``while`` test,
otherwise it is ``while True:``; where the breaks go is the loop's follow, and code between
the last jump back and the follow is the body's rest (arms that return or raise, laid out
there) or a ``while``-``else``.  3.10+ copy the test to the bottom of the loop (an
*inverted* while: ``test; jump exit; body; test; jump body``), read by
:meth:`LoopOps.try_inverted_while`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from pellucid.decompiler import values as V
from pellucid.decompiler.cfg import NORMAL_FLOW, EdgeKind, reach
from pellucid.decompiler.dead import first_dead
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import const
from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, TABLE, TERMINAL, Instr
from pellucid.decompiler.regions.build import _exits_at, _falls_off, _trim_continue
from pellucid.decompiler.regions.exc_markers import Copy, _ends_in_jump
from pellucid.decompiler.undo import TEST_COPY


@dataclass(eq=False)
class Loop:
    header: int
    follow: int
    continue_targets: set[int]
    break_targets: set[int]
    item: V.ForItem | None = None
    target: ast.expr | None = None
    # 3.10+ repeat a while test at the bottom: a plain jump back is a `continue`
    tested: bool = False
    forever: bool = False  # `while True:`
    # (start, size) of a `break` compiled as the only copy of the code after the loop
    break_copy: tuple[int, int] | None = None
    # (start, size, statements) of the code after a `while True:` that only its breaks'
    # copies hold (3.10+ copy it into each break through a finally): written after the loop
    copied_follow: tuple[int, int, list] | None = None
    # where the block holding the loop goes on when the loop ends it (a `while True:` that
    # ends an if arm: the if's follow)
    outer_exits: frozenset = frozenset()


@dataclass(eq=False)
class _While:
    """A `while` loop that do_loop is reading: what its steps have found so far."""

    h: int  # the head: where the jumps back go
    latch: int  # the last jump back
    loop: Loop
    breaks: list[int]  # where the body's unconditional jumps out go
    follow: int  # where the loop goes on (loop.follow)
    body_start: int
    tail_end: int  # where the body's walk ends (past body_end when the body goes on after its last jump back)
    rest_leaves: bool = False  # (the rest past the last jump back reaches the loop's exit)
    placed_from: int | None = None  # (where the code left for the enclosing block starts, if not tail_end)
    test: ast.expr | None = None  # None: `while True:`
    F: int | None = None  # the test's false exit
    # the code after the loop laid out inside its range: skipped by the body's walk
    outside: list[int] = field(default_factory=list)
    orelse: list[ast.stmt] = field(default_factory=list)
    conditional_latch: bool = False  # (the last jump back is a conditional jump)
    leaves_at_end: bool = False  # (the end of the body is where the loop's breaks go)

    @property
    def body_end(self) -> int:
        return self.latch + 1


class LoopOps:
    """Walker mixin: while loops, tested at the top, at the bottom, or not at all."""

    def do_loop(self, h: int, stack: list, stop: int, exits: frozenset) -> int:
        """The loop whose head h the jump back at ``self.latch[h]`` targets: a ``for`` (FOR_ITER
        at h), a ``while`` tested at its bottom (see try_inverted_while), else a ``while`` read
        in steps: its breaks, its test, the body's rest past the last jump back, the body."""
        ins = self.ins[h]
        latch = self.latch[h]
        if ins.op == "FOR_ITER":
            return self.do_for(h, stack, stop, exits)
        if h == self._inner_while_head:
            # the first statement of the `while True:` body walked below
            self._inner_while_head = None
            inverted = self.try_inverted_while(h, stack, stop, exits)
            if inverted is None:
                raise self.fail("loop at the start of a loop body not recognized", ins, kind=Refusal.LOOP)
            return inverted
        if any(h < t <= latch for lp in self.loops for t in lp.break_targets):
            # a jump back over where an enclosing loop's breaks go is no loop of its body
            # (3.12+ lay the code after a loop whose back edge comes last inside its range,
            # where clauses of a try in its body jump back to the code after the try)
            raise self.fail("jump back over the end of an enclosing loop", ins, kind=Refusal.LOOP)
        around = self._forever_around_while(h, stack)
        if not around:
            inverted = self.try_inverted_while(h, stack, stop, exits)
            if inverted is not None:
                return inverted
        w = self._while_breaks(h, latch, stop, exits)
        self._while_test(w, stack, stop, exits, ins)
        self._while_rest_past_latch(w, stop, exits)
        if around:
            if w.test is not None:
                raise self.fail("loop at the start of a loop body not recognized", ins, kind=Refusal.LOOP)
            self._inner_while_head = h
        body = self._while_body(w, stack, stop, ins)
        self.emit(ast.While(test=w.test if w.test is not None else const(True), body=body, orelse=w.orelse))
        return self._while_exit(w, stack, stop, exits, ins)

    def _while_breaks(self, h: int, latch: int, stop: int, exits: frozenset) -> _While:
        """The `while` loop at h as its unconditional jumps out say: where its breaks go."""
        body_end = latch + 1
        breaks = self._jumps_out(h, body_end)
        follow = max(breaks) if breaks else body_end
        loop = Loop(h, follow, {h}, set(breaks) | {follow} | self._breaks_leaving_clause(h, body_end, stop, exits))
        if follow < self.n and self.ins[follow].op == "JUMP":
            # 3.9 threads a `break` to where the loop's follow jumps: the back edge of the
            # enclosing loop (a `continue` of that loop cannot be written in this one)
            t = self.ins[follow].target
            if any(t in lp.continue_targets for lp in self.loops):
                loop.break_targets.add(t)
        return _While(h, latch, loop, breaks, follow, body_start=h, tail_end=body_end)

    def _while_test(self, w: _While, stack: list, stop: int, exits: frozenset, ins: Instr) -> None:
        """A leading condition whose false exit leaves the loop is the while test: where the
        body starts, where the loop goes on, and the while-else between."""
        h, latch, body_end, loop = w.h, w.latch, w.body_end, w.loop
        cond = self.try_condition_at(h, stack)
        if cond is None:
            return
        expr, T, F = cond
        w.F = F
        if F < h and F in exits and T <= latch and not w.breaks:
            # the loop ends its block: its exit was threaded to an
            # enclosing loop's head
            w.test = expr
            w.body_start = T
            w.follow = stop
            loop.follow = stop
            loop.break_targets = {stop, F}
            if body_end < stop and self.ins[body_end].op == "JUMP" and self.ins[body_end].target == F:
                # the enclosing loop's jump back after the latch: the compiler threads
                # a conditional `break` (`else: break`) to it, never to the latch
                loop.break_targets.add(body_end)
                w.placed_from = body_end + 1  # (that jump back is the enclosing loop's)
            elif body_end < stop and self._body_goes_on(h, body_end, stop):
                # the body's arms that raise or return, laid out past its jump back
                w.tail_end = stop
        elif F >= body_end and T <= latch:
            w.test = expr
            w.body_start = T
            loop.tested = self.ins[latch].op == "JUMP"
            if not w.breaks and F == body_end < stop:
                # a break whose jump the compiler replaced by copies (a finally, the
                # return after the else): where it goes ends the else
                p = self.finally_copied_break(T, body_end, body_end, stop)
                w.breaks = [p] if p is not None else []
                if p is not None:
                    w.follow = loop.follow = p
                    loop.break_targets = {p}
            if not w.breaks and F > body_end:
                x = self._rest_breaks_to(h, body_end, F)
                if x is not None:
                    # the body's rest past its jump back ends in the loop's only break
                    w.breaks = [x]
                    w.tail_end = F
                    w.follow = loop.follow = x
                    loop.break_targets = {x}
            if not w.breaks:
                w.follow = F
                loop.follow = F
                loop.break_targets = {F}
            falls_in = F > body_end and w.tail_end != F and self._rest_falls_into(h, body_end, F)
            if F > body_end and w.tail_end != F and (falls_in or self._body_goes_on(h, body_end, F)):
                # (the jumps that seemed to leave the body may be to its rest: only
                # jumps to F leave it)
                w.tail_end = w.follow = loop.follow = F
                loop.break_targets = {F} | self._breaks_leaving_clause(h, body_end, stop, exits)
                w.rest_leaves = falls_in or self._conditional_jump_to_end(body_end, F)
            if F < w.follow and F not in exits:
                # (breaks that leave the block past its end: the else is what runs up to it)
                else_end = stop if F < stop < w.follow and w.follow in exits else w.follow
                w.orelse, st = self.walk(F, else_end, list(stack), _exits_at(else_end, stop, exits))
                if len(st) != len(stack):
                    raise self.fail("while-else leaves values on the stack", ins, kind=Refusal.LOOP)
            elif F > w.follow:
                raise self.fail("while condition exits past the loop", ins, kind=Refusal.LOOP)
        elif not w.breaks and latch < stop:
            # the code after the loop laid out inside its range: skipped by the body's walk
            w.outside = self._exit_inside_tested_loop(h, T, F, latch) or []
            if w.outside:
                w.test = expr
                w.body_start = T
                w.follow = loop.follow = F
                loop.break_targets = {F}

    def _while_rest_past_latch(self, w: _While, stop: int, exits: frozenset) -> None:
        """Where the body's walk ends: the body of a loop nothing breaks out of may go on past
        its last jump back (arms that return or raise, a try's handler code laid out there)."""
        h, latch, body_end, loop = w.h, w.latch, w.body_end, w.loop
        loop.forever = w.test is None
        for k in w.outside:
            self.reachable[k] = False
        w.conditional_latch = conditional_latch = self.ins[latch].op in CONDITIONAL_JUMPS
        if w.test is not None and conditional_latch:
            self._mark_test_copy(h, w.body_start, latch)
        if w.test is None and not w.breaks and conditional_latch:
            rest = self.try_body_past_latch(h, body_end)
            if rest is not None:
                w.tail_end = w.follow = loop.follow = rest
                loop.break_targets = {rest}
        if w.test is None and not w.breaks and not conditional_latch:
            rest = self.clause_rest_past_latch(h, body_end)
            if rest is not None:
                w.tail_end = w.follow = loop.follow = rest
                loop.break_targets = {rest}
            else:
                rest = self.try_body_past_latch(h, body_end, after_continue=True)
                if rest is not None:
                    # (nothing breaks out: the handler code laid out at rest is no loop target)
                    w.tail_end = w.follow = loop.follow = rest
                    loop.break_targets = set()
        if w.test is None and not w.breaks and w.tail_end == body_end:
            rest = self._forever_rest_past_latch(h, body_end, stop, conditional_latch)
            if rest is not None:
                w.tail_end = w.follow = loop.follow = rest
                loop.break_targets = {rest}
        w.leaves_at_end = w.rest_leaves or (w.test is None and self._forever_body_goes_on(h, body_end, w.breaks))
        if w.leaves_at_end:
            w.tail_end = w.follow
        if w.follow == body_end and body_end == stop:
            loop.outer_exits = exits

    def _while_body(self, w: _While, stack: list, stop: int, ins: Instr) -> list[ast.stmt]:
        """The loop's body, walked with the loop entered, and the breaks its end means."""
        h, latch, body_end, loop = w.h, w.latch, w.body_end, w.loop
        conditional_latch, leaves_at_end, tail_end = w.conditional_latch, w.leaves_at_end, w.tail_end
        exits_before = (
            set() if TABLE.has_exception_table else {t for t in loop.break_targets if t < self.n and self.reachable[t]}
        )
        self.loops.append(loop)
        try:
            # (through a conditional back edge, the body's end leaves the loop: a jump to
            # the head is then a `continue`, not the end)
            ends_going_round = (not conditional_latch or tail_end != body_end) and not leaves_at_end
            body, st = self.walk(w.body_start, tail_end, list(stack), frozenset({h}) if ends_going_round else frozenset())
        finally:
            self.loops.pop()
            self._inner_while_head = None
            for k in w.outside:
                self.reachable[k] = True  # (the walk goes on at the loop's exit, in there)
        if len(st) != len(stack):
            raise self.fail("loop body changes the stack", ins, kind=Refusal.LOOP)
        self._check_exits_kept(exits_before, body, ins)
        body = _trim_continue(body)
        if leaves_at_end and (_falls_off(body) if w.rest_leaves else not _ends_in_jump(body)):
            body = body + [ast.Break()]  # (the end of the body is where the loop's breaks go)
        # (a while-else's code is [F, follow))
        self._check_placed(
            w.placed_from or tail_end, min(w.follow, stop, w.F if w.test is not None and w.F > h else w.follow), ins
        )
        if conditional_latch and tail_end == body_end and not _ends_in_jump(body):
            # the back edge is conditional: falling through it leaves the loop
            if latch + 1 != w.follow:
                raise self.fail("loop left through its conditional back edge into an else", ins, kind=Refusal.LOOP)
            body = body + [ast.Break()]
        return body

    def _check_exits_kept(self, exits_before: set[int], body: list[ast.stmt], ins: Instr) -> None:
        """A `break` goes to the code where the loop's breaks go: if the body's reading took
        that code as its own (3.10: the clause's end copied after an except clause, read as the
        code after the try, when a `return` follows the try), nothing is left after the loop for
        the break to reach, and the break would fall off the function.  (3.11+ mark handler
        code a loop's follow may be in as read while reading the body: no such test there.)"""
        if any(not self.reachable[t] for t in exits_before) and _has_break(body):
            raise self.fail("a loop's exit was read as part of its body", ins, kind=Refusal.LOOP)

    def _while_exit(self, w: _While, stack: list, stop: int, exits: frozenset, ins: Instr) -> int:
        """Where the walk goes on after the loop (emitted): its follow, or the end of the block
        when the code after the loop ends it."""
        loop, follow = w.loop, w.follow
        if w.outside:
            # the code after the loop, inside its range, ends in a return or raise: it ends
            # the block, the walk goes on past the loop's jump back (code reached elsewhere)
            after, _ = self.walk(w.F, w.outside[-1] + 1, list(stack), exits)
            for stmt in after:
                self.emit(stmt)
            return w.latch + 1
        if loop.copied_follow is not None:
            for stmt in loop.copied_follow[2]:
                self.emit(stmt)
            return stop  # the copied code ends the function (a return)
        if follow > stop and follow not in exits:
            if loop.forever and not w.breaks and loop.break_targets <= {follow}:
                # nothing leaves it but returns and raises (a retry loop in a with, 3.11+:
                # its clause's path laid out past the with's body): nothing follows it, and
                # the code up to its jump back is its own
                for k in range(stop, w.body_end):
                    self.reachable[k] = False
                return stop
            raise self.fail("loop exits past its enclosing block", ins, kind=Refusal.LOOP)
        return min(follow, stop) if follow in exits or follow == stop else follow

    def _mark_test_copy(self, h: int, T: int, latch: int) -> None:
        """3.11+ copy a while loop's test [h, T) before its conditional back edge: the
        copy is read as the loop's test, never walked (see _check_all_placed)."""
        n = T - h
        a = latch + 1 - n
        if a > T and all(self.ins[a + d].op == self.ins[h + d].op for d in range(n)):
            for q in range(a, latch + 1):
                self.walked[q] = 1

    def _forever_body_goes_on(self, h: int, a: int, breaks: list[int]) -> bool:
        """3.9/3.10: is [a, b), between a `while True`'s last jump back and b, where all its
        breaks go, the rest of its body?  The rest of an except clause whose other arm goes
        round is laid out after that jump back.  It is when nothing outside [h, b) jumps or
        hands an exception into it: then only the loop reaches it, and reaching b from it
        leaves the loop."""
        if TABLE.has_exception_table or not breaks or len(set(breaks)) != 1:
            return False
        b = breaks[0]
        if not a < b <= self.n or not self.reachable[a]:
            return False
        return not any(
            j.target is not None and a <= j.target < b and not h <= j.index < b for j in self.ins
        )

    def _forever_rest_past_latch(self, h: int, a: int, stop: int, falls_in: bool) -> int | None:
        """Where the body of a `while True` that nothing breaks out of goes on past its last
        jump back, at a (3.14+ lay that jump where the body's path goes round, the arms that
        return or raise after it).  The rest is the code the loop's conditional jumps reach
        past a, up to a return or raise: reached only from the loop, jumping nowhere past
        its end, in the loop's own handler level (and, through a conditional jump back, the
        code it falls into).  None when a is not such code."""
        if not TABLE.lays_forever_back_edge_inline or a >= min(stop, self.n):
            return None
        ins = self.ins
        b = a
        if falls_in:
            b = self._first_terminal(b) + 1
            if b > min(stop, self.n):
                return None
        while True:
            far = max(
                (j.target for j in ins[h:b] if j.target is not None and j.target >= b and self.reachable[j.index]),
                default=None,
            )
            if far is None:
                break
            b = far
            b = self._first_terminal(b) + 1
            if b > min(stop, self.n):
                return None
        if b == a or not self.reachable[a] or ins[b - 1].op not in TERMINAL:
            return None
        if any(self.home[k] != self.home[h] for k in range(a, b) if self.reachable[k]):
            return None
        if any(j.target is not None and a <= j.target < b and not h <= j.index < b for j in ins):
            return None  # (reached from outside the loop: not the loop's code)
        return b

    def _body_goes_on(self, h: int, a: int, b: int) -> bool:
        """Is [a, b), between a while loop's last jump back and its exit b, the rest of its
        body?  The compiler lays out `if c: continue` as the jump back, with the code after
        it behind: reached only from the loop (and from handlers of its try statements,
        laid out after the code on 3.12+), ending in a return or raise, and no jump from
        the loop goes past it but to b."""
        ins = self.ins
        if not self.reachable[a] or not self.reachable[b - 1] or ins[b - 1].op not in TERMINAL:
            return False
        if any(t != b for t in self._jumps_out(h, b)):
            return False
        return not any(
            j.target is not None and a < j.target < b and j.index < h for j in ins
        )

    def _rest_breaks_to(self, h: int, a: int, b: int) -> int | None:
        """Where the break ending [a, b) goes, when [a, b), between a tested while loop's last
        jump back and its test's false exit b, is the rest of its body: ``if c: continue``
        laid out as the jump back, the code after it behind, ending in ``break`` (a jump
        past the while-else at b).  It is when only the loop reaches it, in the loop's
        handler level, and its jumps stay in the loop but for that break.  None otherwise."""
        ins = self.ins
        last = ins[b - 1]
        x = last.target
        if last.op != "JUMP" or x is None or x <= b or not self.reachable[a] or not self.reachable[b - 1]:
            return None
        if any(self.home[k] != self.home[h] for k in range(a, b) if self.reachable[k]):
            return None
        for j in ins:
            t = j.target
            if t is None or not self.reachable[j.index]:
                continue
            inside = h <= j.index < b
            if a <= t < b and not inside:
                return None  # (reached from outside the loop: not the loop's code)
            if inside and not h <= t < b and t != x and not (t == b and j.op in CONDITIONAL_JUMPS):
                return None
        return x

    def _rest_falls_into(self, h: int, a: int, b: int) -> bool:
        """Is [a, b), between a tested while loop's last jump back and its test's false exit
        b, the rest of its body ending in a ``break`` that falls into b?  The compiler lays
        out ``if c: continue`` (or an if whose false path goes round) as the jump back, the
        arm after it behind; its break to the code right after it is no jump.  It is when
        only the loop reaches [a, b), in the loop's handler level, and no jump from the loop
        goes past it but to b."""
        ins = self.ins
        last = ins[b - 1]
        if last.op in TERMINAL or last.op == "JUMP" or not self.reachable[a] or not self.reachable[b - 1]:
            return False
        if any(self.home[k] != self.home[h] for k in range(a, b) if self.reachable[k]):
            return False
        if any(j.target is not None and j.target > b and self.reachable[j.index] for j in ins[h:b]):
            return False
        return not any(
            j.target is not None and a <= j.target < b and not h <= j.index < b and self.reachable[j.index]
            for j in ins
        )

    def _check_placed(self, a: int, b: int, at: Instr) -> None:
        """Refuse when reachable code in [a, b), between a loop's back edge and where its
        breaks go, was never walked: the structure found leaves it out of the source."""
        if not self._dead_between(a, b):
            k = next(k for k in range(a, b) if self.reachable[k])
            raise self.fail("code between the loop's back edge and its follow is not placed", self.ins[k], kind=Refusal.UNPLACED)

    def _ends_block(self, h: int, body_end: int, stop: int) -> bool:
        """Does the loop [h, body_end) end its block [.., stop)?  The code between may only be
        handler code of tries in the loop (3.14+ leave a clause's jump back at the clause's end,
        before its no-match re-raise and clean-up)."""
        if body_end == stop:
            return True
        if body_end > stop:
            return False
        home = self.home
        return all(
            home[k] is None or (home[k] >= 0 and h <= self._outer_try_start(home[k], home[h]) < body_end)
            for k in range(body_end, stop)
        )

    def _breaks_leaving_clause(self, h: int, body_end: int, stop: int, exits: frozenset) -> set[int]:
        """3.12+: a loop ending an except clause (moved past the function's code) whose
        `break` the compiler merged with the clause's end, ``POP_EXCEPT; [name clean-up;]
        JUMP t`` back to the try's follow t: t is a break target, the clause's end before
        the jump is skipped."""
        if not TABLE.merges_clause_end_jumps or not exits or not self._ends_block(h, body_end, stop):
            return set()
        ins = self.ins
        out = set()
        for k in range(h + 1, body_end):
            j = ins[k]
            if j.op != "JUMP" or j.target is None or j.target >= h or j.target not in exits:
                continue
            p = next((q for q in (k - 1, k - 4) if q >= 0 and self._clause_end_jump(q) == k), None)
            if p is None or self.home[p] != self.home[h] or p in self._copies:
                continue
            self._copies[p] = Copy(k - p, "skip")
            out.add(j.target)
        return out

    def _forever_around_while(self, h: int, stack: list) -> bool:
        """3.10+ `while True:` whose body starts with `while c:`: both loops' heads are the
        test at ``h``.  Jumps to ``h`` after the inner loop's bottom test (which jumps to
        its own body) belong to the outer loop."""
        if not TABLE.duplicates_loop_tests:
            return False
        cond = self.try_condition_at(h, stack)
        if cond is None:
            return False
        T = cond[1]
        if T <= h or T not in self.latch:
            return False
        inner_end = self.latch[T]
        lj = self.ins[inner_end]
        return (
            lj.op in CONDITIONAL_JUMPS
            and self.latch[h] > inner_end
            and any(self.ins[k].target == h for k in range(inner_end + 1, self.latch[h] + 1))
        )

    def try_inverted_while(self, h: int, stack: list, stop: int, exits: frozenset) -> int | None:
        """3.10+ test-at-both-ends loops: ``test; jump exit; body: ...; test; jump body``."""
        cond = self.try_condition_at(h, stack)
        if cond is None:
            return None
        expr, T, F = cond
        if T not in self.latch or self._in_loop(T) or T == h:
            return None
        return self._inverted_while(h, T, F, expr, stack, stop, exits, extra_continue={h})

    def _inverted_while(
        self, cs: int, T: int, F: int, expr: ast.expr, stack: list, stop: int, exits: frozenset,
        extra_continue: set[int],
    ) -> int | None:
        latch = self.latch[T]
        lj = self.ins[latch]
        if lj.op not in CONDITIONAL_JUMPS or lj.target != T:
            return None
        # the test at the bottom is a copy of the test at the top (of the test itself: a
        # chained comparison's test may end in a jump to the body, its clean-up laid out after)
        to_body = [k for k in range(cs, T) if self.ins[k].op == "JUMP" and self.ins[k].target == T]
        pre_end = to_body[0] if to_body else T
        n = pre_end - cs
        if (lj.extra.get(TEST_COPY) or {}).get(pre_end - 1, 0) < n:
            return None  # (undo/loop_tests.py: the n before the jump back repeat the test)
        body_end = latch - n + 1
        exit_ = latch + 1
        for q in range(body_end, exit_):
            self.walked[q] = 1  # (the copy is read as the test: see _check_all_placed)
        outside = self._exit_inside_loop(T, F, body_end, exit_)
        if outside is not None:
            # the code after the loop (and more), laid out inside the loop's range: not body
            for k in outside:
                self.reachable[k] = False
        breaks = [t for t in self._jumps_out(T, body_end) if t >= exit_]
        if not breaks and F == exit_ < stop:
            # a break whose jump the compiler replaced by copies (a finally, the return after)
            p = self.finally_copied_break(T, body_end, exit_, stop)
            breaks = [p] if p is not None else []
        follow = max(breaks) if breaks else F
        # `while c: while True: ...`: plain jumps back to the body's start are the back edges
        # of an inner loop headed there (the NOP that told the two heads apart is dropped);
        # this loop's own `continue`s go to the test at the top
        inner = [
            k for k in range(T, body_end)
            if self.ins[k].op == "JUMP" and self.ins[k].target == T and self.reachable[k]
        ]
        if inner:
            loop = Loop(cs, follow, {cs} | extra_continue, set(breaks) | {follow})
            saved_latch = self.latch[T]
            self.latch[T] = max(inner)
        else:
            loop = Loop(T, follow, {T, cs} | extra_continue, set(breaks) | {follow})
        self.loops.append(loop)
        try:
            body, st = self.walk(T, body_end, list(stack), frozenset({T}))
        finally:
            self.loops.pop()
            if inner:
                self.latch[T] = saved_latch
        if len(st) != len(stack):
            raise self.fail("loop body changes the stack", self.ins[T], kind=Refusal.LOOP)
        if outside is not None and first_dead(body) is not None:
            # code the body's reading wrote after an exit that runs before it (its code laid
            # out past the exit block is not written again below)
            raise self.fail("the loop body's reading leaves code after an exit", self.ins[T], kind=Refusal.LOOP)
        orelse: list[ast.stmt] = []
        if follow != F and (follow == stop or follow in exits) and F == exit_ < stop:
            # the breaks leave the enclosing block: the rest of it is the else
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            if len(st2) != len(stack):
                raise self.fail("while-else changes the stack", self.ins[T], kind=Refusal.LOOP)
        elif follow != F and follow not in exits:
            if F != exit_ and F > exit_:
                return None
            orelse, st2 = self.walk(exit_, follow, list(stack), _exits_at(follow, stop, exits))
            if len(st2) != len(stack):
                raise self.fail("while-else changes the stack", self.ins[T], kind=Refusal.LOOP)
        self._retire_bottom_exit_copies(body_end, latch, F)
        self.emit(ast.While(test=expr, body=_trim_continue(body), orelse=orelse))
        if outside is not None:
            # the walk goes on at the exit block; the body's code laid out after it (written
            # already), the bottom test and its jump to the exit are this loop's
            after_exit = set(range(F, body_end)) - set(outside)
            self.written_elsewhere(after_exit)
            for k in outside:
                self.reachable[k] = True
            for k in range(body_end, exit_ + self._bottom_exit_len(exit_, F)):
                self.reachable[k] = False
        if follow in exits:
            return stop
        return follow

    def _exit_inside_loop(self, T: int, F: int, body_end: int, exit_: int) -> list[int] | None:
        """3.12+ lay a `while` loop's bottom test out after the handlers of a try in its body
        when only an except clause reaches it (the body's other paths leave): the code after
        the loop, which the top test and the bottom test's exit jump reach, and any code laid
        out after that, then lie inside the loop's range.  The instructions in [T, body_end)
        the loop body does not reach (from T, through its handlers, never past F), which
        the body's walk must skip; None when the loop is not laid out so."""
        ins = self.ins
        if (
            not TABLE.cold_blocks_at_end
            or not T < F < body_end
            or not self._bottom_exit_len(exit_, F)
            or ins[F - 1].op not in TERMINAL | {"JUMP"}
        ):
            return None
        return self._unreached_by_body(T, F, body_end)

    def _bottom_exit_len(self, exit_: int, F: int) -> int:
        """Length of the bottom test's exit at ``exit_`` to the code after the loop at F: a
        jump there, or (3.12+) a copy of it when it is a small return block; else 0."""
        ins = self.ins
        if exit_ >= self.n:
            return 0
        if ins[exit_].op == "JUMP":
            return 1 if ins[exit_].target == F else 0
        t = self._exit_tail_len(F)
        return t if t and self._exit_tail_len(exit_) == t and self._same(exit_, F, t) else 0

    def _unreached_by_body(self, T: int, F: int, body_end: int) -> list[int] | None:
        """The instructions in [T, body_end) a loop body starting at T does not reach (through
        its handlers too, never past the loop's exit F): the code after the loop laid out
        inside its range.  None when the body never reaches F's neighbourhood (F - 1, or a
        jump to F): another layout."""
        ins = self.ins
        cover = getattr(self, "_cover", None) or [None] * self.n
        seen = reach(
            ins,
            [T],
            NORMAL_FLOW | {EdgeKind.EXCEPTION},
            handler_of=cover,
            within=(T, body_end),
            avoid={F},
        ).reached
        if F - 1 not in seen and not any(ins[k].target == F for k in seen):
            return None  # the body never reaches the exit's neighbourhood: another layout
        return [k for k in range(T, body_end) if k not in seen and self.reachable[k]]

    def _exit_inside_tested_loop(self, h: int, T: int, F: int, latch: int) -> list[int] | None:
        """3.14+ (no copy of a `while` test at the bottom): when only an except clause goes
        round (the body's other paths leave), the loop's one jump back, to its test at h, is
        laid out after the try's handlers, and the code after the loop, which the test's exit F
        reaches, right after the body's code: inside the loop's range.  That code (one run
        ending in a return or raise, reached only from the test: a loop with breaks is not
        read so), which the body's walk must skip; None when the loop is not laid out so."""
        ins = self.ins
        if (
            not TABLE.cold_blocks_at_end
            or TABLE.duplicates_loop_tests
            or not h < T < F <= latch
            or ins[latch].op != "JUMP"
            or ins[latch].target != h
            or ins[F - 1].op not in TERMINAL | {"JUMP"}
            or any(i.target == F and not h <= i.index < T for i in ins)
            or any(i.target == h and i.index != latch for i in ins)
            or self.home[latch] in (None, self.home[h])
        ):
            return None  # (a jump back the loop's own code reaches: no such layout)
        outside = self._unreached_by_body(T, F, latch + 1)
        if (
            not outside
            or outside != list(range(F, outside[-1] + 1))
            or ins[outside[-1]].op not in TERMINAL
        ):
            return None  # (the code after the loop must be one run that returns or raises)
        size = len(outside)
        if any(self._same_code(k, F, size) for k in range(T, latch + 2 - size) if not F - size < k < F + size):
            return None  # (a copy of it in the loop: a `break`, which this reading does not place)
        return outside

    def _retire_bottom_exit_copies(self, lo: int, latch: int, F: int) -> None:
        """The loop's exit F is a small `return` block copied per jump (3.10+): the
        copies the bottom test's early exits reach (`while a and b:`) are the same
        exit; only the loop's test reaches them."""
        key = self._exit_key(F)
        if key is None or F <= latch:
            return
        copies = {self.ins[j].target for j in range(lo, latch) if self.ins[j].op in CONDITIONAL_JUMPS}
        copies = {t for t in copies if t > latch and t != F}
        if not copies or any(self._exit_key(t) != key for t in copies):
            return
        for t in copies:
            if any(i.target == t and not lo <= i.index < latch for i in self.ins) or (
                self.ins[t - 1].op not in TERMINAL and self.ins[t - 1].op != "JUMP"
            ):
                return
        for t in copies:
            for k in range(t, t + len(key)):
                self.reachable[k] = False


def _has_break(stmts: list[ast.stmt]) -> bool:
    """Is there a `break` of this loop in ``stmts`` (not one of a nested loop)?"""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            todo.extend(node.orelse)  # (a break in a nested loop's body is that loop's)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt) or hasattr(child, "body"))
    return False
