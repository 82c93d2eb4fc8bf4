"""``if`` statements: a condition's false exit F says where its branch ends.

:meth:`IfOps.do_condition` reads a condition met by the walk: a test that leaves the
enclosing loop (``if t: break`` / ``if t: continue``, and the if statements whose false path
goes round or out of the loop), a ``while`` whose test is copied to its bottom, or an if
statement, which :meth:`IfOps.do_if` reads: the then-branch runs from T up to F, or up to
the jump over an else (see :mod:`.else_ranges`).  Values the arms leave on the stack meet
in temporaries (:meth:`IfOps._join_arms`); two arms that each leave one value and say
nothing are a conditional expression.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from pellucid.decompiler.assignments import _CONSTANT, _STORE
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import name
from pellucid.decompiler.instructions import TABLE, TERMINAL, VALUE_JUMPS, Instr
from pellucid.decompiler.regions.build import (
    _build_test,
    _explicit,
    _is_arm_value,
    _is_value,
    _negate,
    _negate_test,
    _same_constants,
    restore_final_else,
)
from pellucid.decompiler.regions.conditions import EMPTY_IF
from pellucid.decompiler.regions.exc_markers import _ends_in_jump
from pellucid.decompiler.regions.loops import Loop

_COPY_JUMPS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"})  # (3.12+: `COPY 1` before, an and/or)


class IfOps:
    """Walker mixin: if statements, and the conditions that leave a loop."""

    def do_condition(self, j: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[j]
        first = stack.pop()
        first = self.as_expr(first, ins)
        start = self.stmt_start if self.stmt_start <= j else j
        res = self.condition_chain(j, first, stack, start)
        if res is None:
            raise self.fail("unrecognized conditional jump", ins, kind=Refusal.CONDITION)
        expr, T, F = res
        if F == EMPTY_IF:
            self.emit(ast.If(test=expr, body=[ast.Pass()], orelse=[]))
            return T
        chain, starts = self.last_chain
        loop = self.loops[-1] if self.loops else None
        if (
            TABLE.shares_continue_jumps
            and loop is not None
            and F in loop.continue_targets
            and j < T < stop
            and T in self.latch
            and not self._in_loop(T)
            and self.latch[T] < stop
        ):
            # `while test:` ending an enclosing loop's body: its false exit was threaded to
            # that loop's head, and its copy at the bottom jumps back to T
            r = self._inverted_while(start, T, F, expr, stack, stop, exits, extra_continue=set())
            if r is not None:
                return r
        if loop is not None and (F in loop.break_targets or F in loop.continue_targets):
            self._check_break_not_block_end(F, loop, exits, self.ins[start])
            k = stop - 1
            if (
                TABLE.keeps_dead_jumps
                and T < k - 1 < self.n
                and self.ins[k].op == "JUMP"
                and self.ins[k].target == F
                and not self.initially_reachable[k]
                and self.ins[k - 1].op == "JUMP"
                and self.ins[k - 1].target == stop
                and stop not in loop.break_targets  # (a `break` ending the body, not a jump over)
            ):
                # 3.9: `if t: <body> else: continue` (or break): the test jumps straight
                # to the loop's head, and the else's own jump stays, dead, after the
                # body's jump over it
                body, st = self.walk(T, k - 1, list(stack), exits)
                if len(st) == len(stack):
                    leave_stmt = ast.Continue() if F in loop.continue_targets else ast.Break()
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[leave_stmt]))
                    return stop
            # `if <test>: break/continue` jumps away when its test holds: say the
            # test the way the jumps do (built for "reaches F"), not negated
            leave = _build_test(chain, len(chain), F, T, starts) or _negate(expr)
            # 3.11+ compile `if t: continue` into one jump to the loop head;
            # before, such a jump only ends an `if` that closes the loop body
            jumps_when_true = TABLE.jumps_to_loop_head_from_test and chain[-1].when and chain[-1].target == F
            if TABLE.shares_continue_jumps and sum(b.target == F for b in chain) >= 2:
                # 3.12+ lay a `continue` out once, reached by jumps; several
                # jumps straight to the head are copies of the implicit back edge
                jumps_when_true = False
            if F in loop.break_targets and F not in loop.continue_targets:
                if (
                    loop.item is None
                    and F == loop.follow
                    and loop.header in exits
                    and T < stop
                    and self._last_goes_round(T, stop, loop)
                ):
                    # a conditional jump straight out of a while body is an else
                    # `break` that falls into the exit: `if t: <rest> else: break`
                    # (`if not t: break` jumps over a jump)
                    body, st = self.walk(T, stop, list(stack), exits)
                    if len(st) == len(stack):
                        if loop.forever and not _ends_in_jump(body):
                            # `while True:` goes round by a jump either way: say it
                            self.emit(ast.If(test=expr, body=body + [_explicit(ast.Continue())], orelse=[]))
                            self.emit(ast.Break())
                        else:
                            self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[ast.Break()]))
                        return stop
                self.emit(ast.If(test=leave, body=[ast.Break()], orelse=[]))
                return T
            if (
                F in exits
                and T < stop
                and self.ins[T].op == "JUMP"
                and self.ins[T].target == F
                and self._dead_between(T + 1, stop)
            ):
                # `if t: continue` ending the body (3.9, 3.12+): the jump to the
                # head is the implicit back edge, the one after it the continue
                self.emit(ast.If(test=expr, body=[_explicit(ast.Continue())], orelse=[]))
                return stop
            if (
                F in loop.continue_targets
                and T < stop
                and F in exits
                and self._compiler_made_continue(chain[-1].jump) is True
            ):
                # `if test: <rest>` whose false path falls off the loop body: the
                # jump to the head is the compiler's, not a written continue
                body, st = self.walk(T, stop, list(stack), exits)
                body, st = self._break_into_for_exit(body, st, stack, stop, loop)
                if len(st) == len(stack):
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                    return stop
            if F in exits and T < stop and not jumps_when_true and self._compiler_made_continue(chain[-1].jump) is not False:
                # the rest of this block ends the loop body: `if test: <rest>`
                body, st = self.walk(T, stop, list(stack), exits)
                body, st = self._break_into_for_exit(body, st, stack, stop, loop)
                if len(st) != len(stack):
                    raise self.fail("if branch changes the stack", ins, kind=Refusal.CONDITION)
                self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                return stop
            if (
                TABLE.forward_only_conditional_jumps
                and F in loop.continue_targets
                and T < stop
                and not jumps_when_true
                and self._compiler_made_continue(chain[-1].jump) is not False
                and self._last_goes_round(T, stop, loop)
            ):
                # 3.12+: `if test: <rest>` whose false exit goes round the loop as the rest's
                # end does (an arm before an else: its jump over the else threaded to the
                # head): `if test: <rest>` then `continue`, the test as written (the same as
                # `if not test: continue` then the rest)
                body, st = self.walk(T, stop, list(stack), exits)
                if len(st) == len(stack):
                    if body and type(body[-1]) is ast.Continue:
                        body.pop()
                    self.emit(ast.If(test=expr, body=body or [ast.Pass()], orelse=[]))
                    self.emit(ast.Continue())
                    return stop
            self.emit(ast.If(test=leave, body=[ast.Continue()], orelse=[]))
            return T
        if F < T:
            raise self.fail("condition jumps backwards", ins, kind=Refusal.CONDITION)
        if T in self.latch and not self._in_loop(T):
            r = self._inverted_while(start, T, F, expr, stack, stop, exits, extra_continue=set())
            if r is not None:
                return r
        return self.do_if(j, expr, T, F, stack, stop, exits)

    def _break_into_for_exit(self, body: list, st: list, stack: list, stop: int, loop: Loop) -> tuple[list, list]:
        """A branch ending a for body that pops the iterator and falls into the loop's exit
        (3.12+ drop the jump when the exit follows): a `break` (see do_for)."""
        if (
            loop.item is not None
            and len(st) == len(stack) - 1
            and stop == loop.follow
            and self.ins[stop - 1].op == "POP_TOP"
            and not _ends_in_jump(body)
        ):
            return body + [ast.Break()], st + [stack[-1]]
        return body, st

    def do_if(
        self, j: int, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset
    ) -> int:
        """The if statement whose test ``expr`` (jumping at j) goes on at T when true and at F
        when false: where its else is (see :mod:`.else_ranges`), then a conditional expression
        if its arms make one value, else the statement."""
        ins = self.ins[j]
        swapped = self._jump_first_arm(expr, T, F, stop, exits)
        if swapped is not None:
            expr, T, F = swapped
        if F > stop and F not in exits and self.ins[F].op == "JUMP" and self.ins[F].target in exits:
            # 3.9: the false path jumps to a jump to where this block ends (a loop's
            # back edge after an else): it falls off the block
            F = stop
        if F > stop and F not in exits:
            r = self._if_into_exit_copy(expr, T, F, stack, stop, exits)
            if r is not None:
                return r
            raise self.fail("condition jumps past its block", ins, kind=Refusal.CONDITION)
        then_stop = min(F, stop)
        last = self.branch_last_jump(T, then_stop)
        loop = self.loops[-1] if self.loops else None
        else_range, then_stop, dead_else = self._else_after_jump(T, F, stop, exits, last, loop, then_stop)
        # `else: pass` is a jump over a NOP: both land on F once NOPs are dropped
        empty_else = else_range is None and F <= stop and self._jumps_over_empty_else(last, F)
        if else_range is None:
            else_range, then_stop = self._else_after_leaving_branch(T, F, stop, exits, last, loop, then_stop)
        branch_exits = self._branch_exits(else_range, then_stop, F, stop, exits)
        r = self._if_as_value(expr, T, F, stack, stop, exits, else_range, then_stop)
        if r is not None:
            return r
        if self._pending(stack) and (else_range is None or self._protected(T, else_range[1])):
            # no conditional expression is possible: name the values first, and
            # walk the branches once (try structuring must not run twice)
            self.materialize(stack)
        saved = self._value_jumps_to_follow_copy(T, F, then_stop, else_range)
        try:
            then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
        finally:
            for k, c in saved.items():
                self.ins[k] = c
        if (
            else_range is None
            and len(then_body) == 1
            and isinstance(then_body[0], ast.Assert)
            and isinstance(then_body[0].test, ast.Constant)
        ):
            self.emit(ast.Assert(test=_negate_test(expr), msg=then_body[0].msg))
            return then_stop if F > stop else F
        if dead_else and else_range is not None and self.ins[last.index - 1].op == "RETURN_VALUE":
            # 3.9 drop code after a return only up to the next label: the branch
            # ended in a compound statement, an if whose arms all return
            restore_final_else(then_body)
        if else_range is not None:
            return self._if_else(expr, ins, T, then_stop, else_range, stack, stop, branch_exits, then_body, st1)
        fall: tuple[list[ast.stmt], list] = ([], stack)  # the false exit: the stack as it was
        if not _arms_meet([(then_body, st1), fall]):
            raise self.fail("if branch changes the stack", ins, kind=Refusal.CONDITION)
        if self._pending(stack):
            self.materialize(stack)
            then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
        orelse = [ast.Pass()] if empty_else and not _ends_in_jump(then_body) else []
        fall = ([], list(stack))
        stack[:] = self._join_arms(stack, [(then_body, st1), fall], ins)
        # (the false exit assigns the temporaries of slots the then-branch changed)
        self.emit(ast.If(test=expr, body=then_body or [ast.Pass()], orelse=fall[0] or orelse))
        return then_stop if F > stop else F

    def _value_jumps_to_follow_copy(
        self, T: int, F: int, then_stop: int, else_range: tuple[int, int] | None
    ) -> dict[int, Instr]:
        """3.12+ copy the small block after the if (X) onto the end of a then-branch that
        falls into it, [then_stop, F): an and/or ending the branch's value (`y = x = (a and
        b) if c else d`) still jumps to X.  Those jumps are made to go to the copy, the
        branch's end, for its walk; the instructions they replace are returned."""
        if else_range is None or not then_stop < F <= else_range[0] < else_range[1]:
            return {}
        X = else_range[1]
        if self.reachable[then_stop] or not self._same_code(then_stop, X, F - then_stop):
            return {}
        saved = {
            k: self.ins[k]
            for k in range(T, then_stop)
            if self.ins[k].target == X and self.ins[k].op in _COPY_JUMPS and k > T and self.ins[k - 1].op == "COPY"
        }
        for k, c in saved.items():
            self.ins[k] = dataclasses.replace(c, target=then_stop)
        return saved

    def _jump_first_arm(
        self, expr: ast.expr, T: int, F: int, stop: int, exits: frozenset
    ) -> tuple[ast.expr, int, int] | None:
        """`if not (x and 'ab'): A else: B` (3.10+): the folded truthy operand is a jump to
        B, the test's true exit; A follows it, does not fall into B, and jumps past B (to
        where the statement ends), and that jump is the one way into B.  Read as the test
        of A, spelled so that it compiles to the same jumps: ``not x or False``.  (expr, T,
        F) of that if, or None."""
        if not (T < F < stop and self.ins[T].op == "JUMP" and self._past_dead(T + 1) == F):
            return None
        B = self.ins[T].target
        if B is None or not F < B < stop or self._jumps_to(B, 0, self.n) != {T}:
            return None
        if self.ins[B - 1].op != "JUMP" and self.ins[B - 1].op not in TERMINAL:
            return None
        loop = self.loops[-1] if self.loops else None
        leaving = loop.break_targets | loop.continue_targets if loop is not None else set()
        past = {
            t
            for k in range(F, B)
            if self.reachable[k] and (t := self.ins[k].target) is not None and t > B
        }
        if not past or any(t in leaving or not (t <= stop or t in exits) for t in past):
            return None
        if any(
            (start <= T < end or start < B < end) and not (start <= T and end >= stop)
            for start, end, *_ in self.exc_entries
        ):
            return None  # (a try around part of it: its statements are the try's)
        test = ast.BoolOp(op=ast.Or(), values=[_negate(expr), ast.Constant(value=False)])
        return test, F, B

    def _branch_exits(
        self, else_range: tuple[int, int] | None, then_stop: int, F: int, stop: int, exits: frozenset
    ) -> frozenset:
        """What falling off the end of each branch means: reaching the if's follow."""
        follow = else_range[1] if else_range else then_stop
        if else_range:
            follow_targets = {else_range[1]}
            if then_stop < self.n and self.ins[then_stop].op == "JUMP" and then_stop < else_range[0]:
                follow_targets.add(self.ins[then_stop].target)
        else:
            follow_targets = {F, then_stop}
        inherited = exits if (follow == stop or follow_targets & exits) else frozenset()
        return frozenset(follow_targets) | inherited

    def _if_as_value(
        self, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset,
        else_range: tuple[int, int] | None, then_stop: int,
    ) -> int | None:
        """The if read as a value: an and/or whose operand jumps into the last one (3.9-3.11),
        or a conditional expression whose arms end in a shared copied tail.  Where the walk
        goes on, or None."""
        last_in_then = self.ins[F - 1] if T <= F - 1 < self.n else None
        if last_in_then is not None and last_in_then.op in VALUE_JUMPS and last_in_then.target > F:
            return self._mixed_boolop(expr, T, F, last_in_then, stack)
        tails_copied = (
            TABLE.copies_exit_tails_into_both_arms
            and else_range is None
            and then_stop == F
            and F - 1 >= T
            and self.ins[F - 1].op in TERMINAL
        )
        if tails_copied and self._in_chain_operand(stack):
            # (an operand is an expression: a try region the arms' returns leave is the
            # statement's, around it)
            r = self._chain_tail_ternary(expr, T, F, stack, stop)
            if r is not None:
                return r
        if tails_copied and not self._protected(T, stop):
            r = self._tail_ternary(expr, T, F, stack, stop, exits)
            if r is not None:
                return r
        if (
            TABLE.copies_exits_without_line
            and else_range is not None
            and F - 1 >= T
            and self._is_finally_end_jump(F - 1)
            and else_range[1] == self.ins[F - 1].target
        ):
            # the same in a finally body's exception-path copy, where the copied re-raise
            # ending the first arm was turned back into a jump to the body's end
            r = self._tail_ternary(expr, T, F, stack, stop, exits, end=else_range[1])
            if r is not None:
                return r
        return None

    def _if_else(
        self, expr: ast.expr, ins: Instr, T: int, then_stop: int, else_range: tuple[int, int], stack: list,
        stop: int, branch_exits: frozenset, then_body: list[ast.stmt], st1: list,
    ) -> int:
        """``if expr: <then_body> else: <[else_range)>``, emitted (or, when each arm leaves one
        value and says nothing, the conditional expression pushed): where the if ends."""
        else_body, st2 = self.walk(else_range[0], else_range[1], list(stack), branch_exits)
        # a conditional expression leaves one value and says nothing
        if (
            not then_body
            and not else_body
            and len(st1) == len(stack) + 1
            and len(st2) == len(stack) + 1
            and _is_arm_value(st1[-1])
            and _is_arm_value(st2[-1])
        ):
            stack.append(
                ast.IfExp(test=expr, body=self.as_expr(st1[-1], ins), orelse=self.as_expr(st2[-1], ins))
            )
            return else_range[1]
        left_handler = else_range[1] == stop and self._both_left_handler(stack, st1, st2)
        # (each arm ends the except clause: nothing continues after the if)
        if not left_handler and not _arms_meet([(then_body, st1), (else_body, st2)]):
            raise self.fail("if/else branches leave different stacks", ins, kind=Refusal.CONDITION)
        if self._pending(stack):
            # values computed before the test must not be recomputed in the branches
            # (locals the branches assign are saved as the if statement is emitted)
            self.materialize(stack)
            then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
            else_body, st2 = self.walk(else_range[0], else_range[1], list(stack), branch_exits)
        if not left_handler:
            stack[:] = self._join_arms(stack, [(then_body, st1), (else_body, st2)], ins)
        self.emit(ast.If(test=expr, body=then_body or [ast.Pass()], orelse=else_body))
        return else_range[1]

    def _join_arms(self, stack: list, arms: list[tuple[list[ast.stmt], list]], ins: Instr) -> list:
        """The stack where the arms of an if statement meet again.

        Each arm is walked from a copy of ``stack`` and may leave other values than it found.
        Source never leaves a value on the stack across an if statement, but generated code
        does: Dynamo runs its profiler markers while a call's callable and arguments wait on
        the stack, each arm leaving its own ``None`` behind.  A slot where the arms that reach
        the join hold the same value (the same object, or equal constants) keeps it; any other
        slot becomes a fresh temporary, assigned at the end of each arm, which is where the arm
        computed it (a statement after a value in an arm saves the value first: see spill).
        An arm that leaves by return/raise/break/continue has no say; ``_arms_meet`` has
        checked that the others agree on the depth."""
        live = [(body, st) for body, st in arms if not _ends_in_jump(body)]
        if not live:
            return list(stack)
        if len(live) == 1:
            # the other arms leave; a value the one arm made is made inside it (3.10 lays out
            # a discarded conditional expression's arm as a jump to the pop): assigned there,
            # or saving it before the if statement would run it before the test
            body, st = live[0]
            joined = list(st)
            for k, v in enumerate(st):
                if (k < len(stack) and v is stack[k]) or not _is_value(v) or type(v) is _CONSTANT:
                    continue
                joined[k] = self._assigned_at_end([(body, v)], ins)
            return joined
        joined = []
        for k in range(len(live[0][1])):
            values = [st[k] for _, st in live]
            first = values[0]
            if all(v is first for v in values) or _same_constants(values):
                joined.append(first)
                continue
            if not all(_is_value(v) for v in values):
                raise self.fail("if arms leave different markers on the stack", ins, kind=Refusal.CONDITION)
            joined.append(self._assigned_at_end([(body, v) for (body, _), v in zip(live, values)], ins))
        return joined

    def _assigned_at_end(self, arms: list[tuple[list[ast.stmt], Any]], ins: Instr) -> ast.Name:
        """A fresh temporary, assigned each arm's value at the end of that arm."""
        tmp = f"__pellucid_tmp{self.spilled}"
        self.spilled += 1
        for body, v in arms:
            body.append(ast.Assign([name(tmp, _STORE)], self.as_expr(v, ins), lineno=0))
        ref = name(tmp)
        ref.is_spill = True
        self.seq += 1
        ref._seq = self.seq
        return ref

    def _protected(self, lo: int, hi: int) -> bool:
        """Does an exception-table region (a try/with) overlap [lo, hi) without holding all
        of it?  (A try around the whole range, its body holding a conditional expression,
        puts no statement inside it.)"""
        return any(
            start < hi and end > lo and not (start <= lo and end >= hi)
            for start, end, *_ in self.exc_entries
        )


def _arms_meet(arms: list[tuple[list[ast.stmt], list]]) -> bool:
    """Do the arms that reach the join (those not ending by return/raise/break/continue)
    leave stacks of one depth?  (see _join_arms)"""
    depths = {len(st) for body, st in arms if not _ends_in_jump(body)}
    return len(depths) <= 1
