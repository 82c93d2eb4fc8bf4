"""Where an if statement's else ends.

The then-branch of ``if t: A else: B`` ends in a jump over B, to where the if statement goes
on.  Compilers hide that jump in many ways: threaded to a loop's head (3.9), dropped after a
branch that returns (an inner arm's jump over the else says where it ends), replaced by a
copy of the small block after the else (3.12+), or left out after a loop that never falls
off its end.  The scans here find the else's end from the jumps that remain.
"""

from __future__ import annotations

from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    MAX_COPY_SIZE,
    TABLE,
    TERMINAL,
    Instr,
)
from pellucid.decompiler.regions.loops import Loop


class ElseOps:
    """Walker mixin: where an if statement's else ends when no plain jump over it says so."""

    def _else_after_jump(
        self, T: int, F: int, stop: int, exits: frozenset, last: Instr | None, loop: Loop | None,
        then_stop: int,
    ) -> tuple[tuple[int, int] | None, int, bool]:
        """The else of the if whose then-branch [T, then_stop) ends in ``last`` (its last jump,
        if any), as the jumps over it say: (else_range, then_stop, dead_else).  else_range is
        [F, where the else ends) or None; then_stop drops the jump over the else; dead_else:
        ``last`` is a jump over the else that 3.9 kept, dead, after a branch that leaves."""
        else_range = None
        if (
            last is not None
            and last.op == "JUMP"
            and last.target is not None
            and last.target > then_stop
            and F <= stop
            and not (loop is not None and (last.target in loop.break_targets or last.target in loop.continue_targets))
        ):
            E = last.target
            if E <= stop:
                else_range = (F, E)
            elif E in exits:
                else_range = (F, stop)
            if else_range is not None:
                then_stop = then_stop - 1
        elif (
            last is not None
            and last.op == "JUMP"
            and loop is not None
            and last.target in loop.continue_targets
            and last.target in exits
            and last.index == then_stop - 1
            and T <= last.index
            and F < stop
            and self.reachable[last.index]
            and (self._has_inner_loop(T, last.index) or self._falls_off_loop_body(T, last.index, F, exits, loop))
        ):
            # an if/else ending the loop body: its jump over the else goes to
            # the loop head (the same code as `continue`); say the else, so a
            # loop inside the branch can leave by that jump too
            else_range = (F, stop)
            then_stop = then_stop - 1
        elif self._leaves_handler(last, T, F, stop, exits):
            # 3.12+ handlers sit after the code: `POP_EXCEPT; JUMP <try follow>`
            # ends each arm of an if/else in an except clause
            else_range = (F, stop)
            then_stop = last.index
        if (
            else_range is None
            and TABLE.keeps_dead_jumps
            and last is not None
            and last.op == "JUMP"
            and loop is not None
            and last.target in loop.continue_targets
            and last.index == then_stop - 1
            and self.reachable[last.index]
            and F < stop
        ):
            # 3.9 threads the jump over the else to the loop's head when a `continue`
            # follows the if/else; a test in the branch that jumps to that continue
            # (a jump to the same head) says where the else ends
            E = self._threaded_follow39(T, then_stop, F, stop, last.target)
            if E is not None:
                else_range = (F, E)
                then_stop = then_stop - 1
        if else_range is None and F < stop and _leaves_at_end(last, T, then_stop, loop):
            # the branch ends by leaving (break, continue, return), so the jump over the else
            # is in a nested statement ending the branch another way (3.11: `elif` arms)
            E = self._jump_over_else_inside(T, then_stop, F, stop, exits, loop)
            if E is not None:
                else_range = (F, E)
        dead_else = (
            last is not None
            and last.op == "JUMP"
            and last.index == min(F, stop) - 1
            and not self.initially_reachable[last.index]
            # (not when the code before it jumps to F: then it ends an inner if/else, whose
            # then-branch jumps over it to where this if ends)
            and not (self.ins[last.index - 1].op == "JUMP" and self.ins[last.index - 1].target == F)
        )
        if else_range is None and dead_else and last.target in exits and F < stop:
            # 3.9 keep the jump over the else after a break/continue/raise: an
            # if/else ending a loop body, its jump threaded to the loop head
            else_range = (F, stop)
            then_stop = then_stop - 1
        return else_range, then_stop, dead_else

    def _else_after_leaving_branch(
        self, T: int, F: int, stop: int, exits: frozenset, last: Instr | None, loop: Loop | None,
        then_stop: int,
    ) -> tuple[tuple[int, int] | None, int]:
        """The else of an if whose then-branch [T, then_stop) has no jump over it, because the
        branch ends by leaving (a return or raise, or a loop that never falls off its end):
        (else_range, then_stop), else_range None when nothing says the else ends before F."""
        else_range = None
        if else_range is None and F <= stop and last is not None and last.op in TERMINAL:
            copy = self._copied_follow(T, then_stop, stop)
            if copy is not None:
                # the then-branch falls into a copy of the block after the else
                # (3.12+ copy small exit blocks into each path that reaches them)
                X, size = copy
                if size == 2 and self.ins[X].op == "LOAD_CONST" and self.ins[X].argval is None:
                    # a `return None` copied for a jump from inside the branch as well:
                    # only the function's implicit return (no line) is copied so
                    self.implicit_returns.add(X + 1)
                else_range = (F, X)
                then_stop = then_stop - size
                for k in range(then_stop, then_stop + size):
                    self.reachable[k] = False
        if (
            else_range is None
            and F < stop
            and last is not None
            and last.op in TERMINAL
            and self._falls_off_loop_body(T, then_stop, F, exits, loop)
        ):
            # the branch ends in a return/raise, but an if inside it falls off the
            # loop body (3.12+ jump to the head): an if/else ending the body
            else_range = (F, stop)
        if else_range is None and F < stop and last is not None and last.op in TERMINAL:
            E = self._inner_else_jump(T, then_stop, stop, loop, exits)
            if E is not None:
                # the branch ends in a statement that returns, but an arm inside
                # it jumps over the else (3.10+ thread the jumps)
                else_range = (F, E)
        if (
            else_range is None
            and F < stop
            and last is not None
            and last.op == "JUMP"
            and T <= last.target < last.index
            and self.ins[last.target].op != "FOR_ITER"
        ):
            # the branch ends in a loop that never falls off its end: where its breaks go
            # past the else says where the else ends (no jump over the else is left);
            # 3.10+ copy the code there behind a break through a finally
            outs = {
                self.ins[k].target
                for k in range(last.target, then_stop)
                if self.reachable[k] and self.ins[k].target is not None and F < self.ins[k].target <= stop
            }
            # (the last such place: copies of it in the else come before it)
            p = self.finally_copied_break(last.target, then_stop, F, stop, last=True) if not outs else None
            if p is not None:
                outs = {p}
            if len(outs) == 1:
                else_range = (F, outs.pop())
        return else_range, then_stop

    def _jump_over_else_inside(
        self, T: int, then_stop: int, F: int, stop: int, exits: frozenset, loop: Loop | None
    ) -> int | None:
        """The one place E in (F, stop] that jumps inside the branch [T, then_stop) go to,
        other than the loop's break and continue targets: where the else starting at F ends
        (``stop`` for a jump to where the enclosing block goes on).  A conditional jump to
        the loop's closing jump back is the false exit of an if ending the branch (3.12).
        None without such jumps, or with several places."""
        places = set()
        for k in range(T, then_stop):
            j = self.ins[k]
            if j.target is None or not self.reachable[k] or j.target <= F:
                continue
            if j.op != "JUMP" and not (
                TABLE.forward_only_conditional_jumps
                and j.op in CONDITIONAL_JUMPS
                and loop is not None
                and self._is_back_edge(j.target, loop)
            ):
                continue
            if loop is not None and (j.target in loop.break_targets or j.target in loop.continue_targets):
                continue
            if j.target <= stop:
                places.add(j.target)
            elif j.target in exits:
                places.add(stop)
        if self._goes_on_at(T, then_stop, F):
            return None  # (no else starts where the branch goes on)
        return places.pop() if len(places) == 1 else None

    def _goes_on_at(self, T: int, end: int, F: int) -> bool:
        """Does a jump inside the branch [T, end) go to F (a try's normal exit, say)?  Then
        the branch goes on at F, which no else can start at: the then-branch never reaches
        the else."""
        return any(self.reachable[j] for j in self._jumps_to(F, T, end))

    def _threaded_follow39(self, T: int, end: int, F: int, stop: int, head: int) -> int | None:
        """Where an if/else whose then-branch [T, end) ends by a jump to ``head`` ends: the
        one place in (F, stop] a jump of the branch reaches that is itself a jump to ``head``."""
        found = {
            t
            for k in range(T, end)
            if (t := self.ins[k].target) is not None
            and F < t <= stop
            and t < self.n
            and self.ins[t].op == "JUMP"
            and self.ins[t].target == head
        }
        return found.pop() if len(found) == 1 else None

    def _falls_off_loop_body(self, T: int, end: int, F: int, exits: frozenset, loop: Loop | None) -> bool:
        """Does a test in the then-branch [T, end) of an if whose else starts at F
        go round the loop whose body the walk ends, by a compiler-made jump to its
        head (see :meth:`_compiler_made_continue`) or by a jump past F to the
        body's last jump back (3.9)?"""
        if loop is None or not any(t in exits for t in loop.continue_targets):
            return False
        for k in range(T, end):
            ins = self.ins[k]
            if ins.op not in CONDITIONAL_JUMPS:
                continue
            t = ins.target
            if t in loop.continue_targets and self._compiler_made_continue(k) is True:
                return True
            if t > F and self.ins[t].op == "JUMP" and self.ins[t].target in loop.continue_targets:
                return True
        return False

    def _jumps_over_empty_else(self, last: Instr | None, F: int) -> bool:
        """Does the then-branch end in a jump to F that skips code the test's
        false exit lands on (only NOPs: an else of `pass`)?"""
        if last is None or last.op != "JUMP" or last.target != F or last.index != F - 1:
            return False
        if not isinstance(last.argval, int):
            return False  # (a jump the decompiler made of a clause's end: no compiler's offset)
        chain, _ = self.last_chain
        offsets = [self.ins[b.jump].argval for b in chain if b.target == F]
        if TABLE.keeps_dead_jumps:  # 3.9 drops the NOP and keeps the jump: `JUMP_FORWARD 0`
            return bool(offsets) and all(o == last.argval for o in offsets)
        return bool(offsets) and all(isinstance(o, int) and o < last.argval for o in offsets)

    def _has_inner_loop(self, lo: int, hi: int) -> bool:
        return any(self.ins[k].op == "FOR_ITER" or k in self.latch for k in range(lo, hi))

    def _inner_else_jump(
        self, T: int, end: int, stop: int, loop: Loop | None, exits: frozenset = frozenset()
    ) -> int | None:
        """The one place past ``end`` (and within the block) that jumps inside
        [T, end) reach (the clauses of its tries too): the end of an else that follows.
        A jump from the branch past the block to where falling off its end goes (3.12+
        thread an inner if's false exit there) says the else ends the block."""
        moved = self.moved_handler_code(T, end)
        targets = {
            self.ins[j].target
            for j in sorted(set(range(T, end)) | moved)
            if self.reachable[j] and self.ins[j].target not in moved and self.ins[j].target is not None and self.ins[j].op != "FOR_ITER"
            and (end < self.ins[j].target <= stop or (T <= j < end and self.ins[j].target > stop and self.ins[j].target in exits))
        }
        leaving = loop.break_targets | loop.continue_targets if loop is not None else set()
        outs = {min(t, stop) for t in targets if t <= stop or t not in leaving}
        if len(outs) != 1:
            return None
        (E,) = outs
        if E in leaving:
            return None
        if self._goes_on_at(T, end, end):
            return None
        return E

    def _copied_follow(self, T: int, end: int, stop: int) -> tuple[int, int] | None:
        """(X, size) when [T, end) ends in a copy of the small terminal block at
        a merge point X in (end, stop], reached here only by falling through."""
        if not TABLE.copies_exits_without_line:
            return None
        # only where a jump inside the branch reaches X past the branch's end
        for X in sorted({self.ins[j].target for j in range(T, end) if self.ins[j].target is not None}):
            if not end < X <= stop or X >= self.n:
                continue
            k = X
            while k < self.n and self.ins[k].target is None and self.ins[k].op not in TERMINAL:
                k += 1
            if k >= self.n or self.ins[k].op not in TERMINAL or self.ins[k].target is not None:
                continue
            size = k - X + 1
            start = end - size
            if (
                start <= T
                or self._copy_size(X, X + size) > MAX_COPY_SIZE
                or any(self._is_target(j) for j in range(start, end))
                or not self._same_code(start, X, size)
            ):
                continue
            return X, size
        return None


def _leaves_at_end(last: Instr | None, T: int, then_stop: int, loop: Loop | None) -> bool:
    """Does the branch [T, then_stop) end in a jump out of the loop or back to its head,
    or in a return/raise?"""
    if last is None or last.index != then_stop - 1 or last.index < T:
        return False
    if last.op in TERMINAL:
        return True
    return (
        last.op == "JUMP"
        and loop is not None
        and (last.target in loop.break_targets or last.target in loop.continue_targets)
    )
