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
from typing import Any

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
from pellucid.decompiler.stores import _CONSTANT, _STORE


class IfOps:
    """Walker mixin: if statements, and the conditions that leave a loop."""

    def do_condition(self, j: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[j]
        first = stack.pop()
        first = self.as_expr(first, ins)
        start = self.stmt_start if self.stmt_start <= j else j
        res = self.condition_chain(j, first, stack, start)
        if res is None:
            raise self.fail("unrecognized conditional jump", ins)
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
                    raise self.fail("if branch changes the stack", ins)
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
            raise self.fail("condition jumps backwards", ins)
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
        ins = self.ins[j]
        if F > stop and F not in exits and self.ins[F].op == "JUMP" and self.ins[F].target in exits:
            # 3.9: the false path jumps to a jump to where this block ends (a loop's
            # back edge after an else): it falls off the block
            F = stop
        if F > stop and F not in exits:
            r = self._if_into_exit_copy(expr, T, F, stack, stop, exits)
            if r is not None:
                return r
            raise self.fail("condition jumps past its block", ins)
        then_stop = min(F, stop)
        else_range = None
        last = self.branch_last_jump(T, then_stop)
        loop = self.loops[-1] if self.loops else None
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
        if else_range is None and F < stop and self._leaves_at_end(last, T, then_stop, loop):
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
        # `else: pass` is a jump over a NOP: both land on F once NOPs are dropped
        empty_else = else_range is None and F <= stop and self._jumps_over_empty_else(last, F)
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
            E = self._inner_else_jump(T, then_stop, stop, loop)
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
        # what falling off the end of each branch means: reaching the if's follow
        follow = else_range[1] if else_range else then_stop
        if else_range:
            follow_targets = {else_range[1]}
            if then_stop < self.n and self.ins[then_stop].op == "JUMP" and then_stop < else_range[0]:
                follow_targets.add(self.ins[then_stop].target)
        else:
            follow_targets = {F, then_stop}
        inherited = exits if (follow == stop or follow_targets & exits) else frozenset()
        branch_exits = frozenset(follow_targets) | inherited
        last_in_then = self.ins[F - 1] if T <= F - 1 < self.n else None
        if last_in_then is not None and last_in_then.op in VALUE_JUMPS and last_in_then.target > F:
            return self._mixed_boolop(expr, T, F, last_in_then, stack)
        if (
            TABLE.copies_exit_tails_into_both_arms
            and else_range is None
            and then_stop == F
            and F - 1 >= T
            and self.ins[F - 1].op in TERMINAL
            and not self._protected(T, stop)
        ):
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
        if self._pending(stack) and (else_range is None or self._protected(T, else_range[1])):
            # no conditional expression is possible: name the values first, and
            # walk the branches once (try structuring must not run twice)
            self.materialize(stack)
        then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
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
            if not left_handler and not self._arms_meet([(then_body, st1), (else_body, st2)]):
                raise self.fail("if/else branches leave different stacks", ins)
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
        fall: tuple[list[ast.stmt], list] = ([], stack)  # the false exit: the stack as it was
        if not self._arms_meet([(then_body, st1), fall]):
            raise self.fail("if branch changes the stack", ins)
        if self._pending(stack):
            self.materialize(stack)
            then_body, st1 = self.walk(T, then_stop, list(stack), branch_exits)
        orelse = [ast.Pass()] if empty_else and not _ends_in_jump(then_body) else []
        fall = ([], list(stack))
        stack[:] = self._join_arms(stack, [(then_body, st1), fall], ins)
        # (the false exit assigns the temporaries of slots the then-branch changed)
        self.emit(ast.If(test=expr, body=then_body or [ast.Pass()], orelse=fall[0] or orelse))
        return then_stop if F > stop else F

    @staticmethod
    def _arms_meet(arms: list[tuple[list[ast.stmt], list]]) -> bool:
        """Do the arms that reach the join (those not ending by return/raise/break/continue)
        leave stacks of one depth?  (see _join_arms)"""
        depths = {len(st) for body, st in arms if not _ends_in_jump(body)}
        return len(depths) <= 1

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
                raise self.fail("if arms leave different markers on the stack", ins)
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
