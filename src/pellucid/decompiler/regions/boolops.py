"""``and``/``or`` as values, and conditional expressions whose arms end in a shared tail.

3.9-3.11 compile ``a and b`` as a value to JUMP_IF_FALSE_OR_POP, 3.12+ to ``COPY 1;
POP_JUMP_IF_FALSE; POP_TOP``: the right operand runs up to the join, where both paths meet
with one value.  Operands may hold jumps of their own (conditional expressions, and copies
of the small block after the join that a compiler put in place of a jump to it).  3.10 and
3.12+ copy a small tail into both arms of a conditional expression
(:meth:`BoolOpOps._tail_ternary`).
"""

from __future__ import annotations

import ast
import bisect

from pellucid.decompiler.errors import DecompilationError, Refusal
from pellucid.decompiler.instructions import MAX_COPY_SIZE, TERMINAL, Instr
from pellucid.decompiler.regions.build import _boolop, _chained_compare, _is_value, _negate
from pellucid.decompiler.regions.chains import _is_chain_link


class BoolOpOps:
    """Walker mixin: and/or values and conditional expressions with copied tails."""

    def do_value_jump(self, j: int, stack: list) -> int:
        """3.9-3.11 JUMP_IF_FALSE_OR_POP / JUMP_IF_TRUE_OR_POP: ``a and b`` / ``a or b``."""
        ins = self.ins[j]
        left = self.as_expr(stack.pop(), ins)
        L = ins.target
        if L <= j:
            raise self.fail("backward and/or jump", ins, kind=Refusal.CONDITION)
        if _is_chain_link(left, stack) and ins.op == "JUMP_IF_FALSE_OR_POP":
            return self.do_chain(left, stack, j + 1, L, ins)
        stmts, st, resume = self._boolop_operand(j + 1, L, stack)
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", ins, kind=Refusal.CONDITION)
        right = self.as_expr(st[-1], ins)
        op = ast.And() if ins.op == "JUMP_IF_FALSE_OR_POP" else ast.Or()
        chain = _chained_compare(left, right, stack)
        if chain is not None:
            stack.pop()  # the shared middle operand
            stack.append(chain)
            return self._after_chain_cleanup(L, stack, ins)
        stack.append(_boolop(op, left, right))
        return resume

    def _boolop_operand(self, lo: int, L: int, stack: list) -> tuple[list[ast.stmt], list, int]:
        """Walk the right operand of an and/or from ``lo`` to its join ``L``; return what the
        walk made and where to go on (``L``, or the jump that ends a conditional expression's
        arm when the and/or is that arm's value: 3.9 threads its jump to the arm's target).

        ``x or a < b < c`` followed by a small exit block (``return``, a store and a return):
        the compiler copies the block at the join into the chained comparison's true path,
        just before the comparison's clean-up (``SWAP 2; POP_TOP``), which falls into the
        join.  The operand then ends where that copy starts; the copy and the clean-up are
        dead here, and the block at the join is the one that stays."""
        p = self._chain_tail_copy(lo, L)
        if p is not None:
            stmts, st = self.walk(lo, p, list(stack), frozenset({p}))
            n = L - 2 - p
            for k in range(p, L):
                self.reachable[k] = False
            for k in range(L, L + n):  # the chain took the join's block for its own copy
                self.reachable[k] = True
            return stmts, st, L
        p = self._jump_tail_copy(lo, L)
        if p is not None:
            stmts, st = self.walk(lo, p, list(stack), frozenset({p}))
            for k in range(p, L):
                self.reachable[k] = False  # (the copy stands for the operand's way to L)
            return stmts, st, L
        end = self._copy_ending_operand(lo, L)
        if end is not None:
            stmts, st = self.walk(lo, end, list(stack), frozenset({end}))
            return stmts, st, end
        copies = self._arm_tail_copies(lo, L)
        if copies:
            # each copy behaves as the jump to L it replaced: walk the operand with that jump
            n = self._terminal_len(L)
            saved = {p + n - 1: self.ins[p + n - 1] for p in copies}
            for p in copies:
                for k in range(p, p + n):
                    self.reachable[k] = False
                c = self.ins[p + n - 1]
                self.ins[c.index] = Instr("JUMP", None, None, c.offset, c.line, L, c.index, "JUMP_FORWARD")
                self.reachable[c.index] = True
            scanned = self._no_arm_end.pop(L, None)  # (the copies are jumps to L for now)
            try:
                stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
            finally:
                for p, c in saved.items():
                    self.ins[p] = c
                if scanned is not None:
                    self._no_arm_end[L] = scanned
            for p in copies:
                for k in range(p, p + n):
                    self.reachable[k] = False
            return stmts, st, L
        if self._jumps_to_or_past(lo, L):
            # (an arm's end is a jump to L: only then can there be one)
            arm_end = self._arm_end_before(lo, L)
            if arm_end is not None:
                stmts, st = self.walk(lo, arm_end, list(stack), frozenset({arm_end}))
                return stmts, st, arm_end
        else:
            # no jump in [lo, L) leaves for L or past it: an operand nested in this one with
            # the same join (the rest of a long `and` chain) need not scan its part again
            outer = self._no_arm_end.get(L)
            self._no_arm_end[L] = lo
            try:
                stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
            finally:
                if outer is None:
                    del self._no_arm_end[L]
                else:
                    self._no_arm_end[L] = outer
            return stmts, st, L
        stmts, st = self.walk(lo, L, list(stack), frozenset({L}))
        return stmts, st, L

    def _jumps_to_or_past(self, lo: int, L: int) -> bool:
        """Whether an unconditional jump in [lo, L - 1) goes to ``L``, or any jump past it."""
        scanned = self._no_arm_end.get(L)
        if scanned is not None and scanned <= lo:
            return False
        for k in range(lo, L - 1):
            ins = self.ins[k]
            if ins.target is not None and (ins.target > L or (ins.target == L and ins.op == "JUMP")):
                return True
        return False

    def _arm_tail_copies(self, lo: int, L: int) -> list[int]:
        """`x = a or (b if c else d)` before a small exit block at ``L``: the compiler
        replaced the first arm's jump to ``L`` by a copy of that block (3.10+; 3.9's peephole
        does so for a jump to a lone RETURN_VALUE).  Starts of such copies in [lo, L) (each
        followed by the next arm, which something jumps to)."""
        n = self._terminal_len(L)
        if n is None:
            return []
        # a copy is followed by a jump target: look only there, not at every index (a long
        # `and` chain asks this once per operand)
        self._is_target(lo)
        ends = self._sorted_targets
        found = [
            t - n
            for t in ends[bisect.bisect_left(ends, lo + n):bisect.bisect_left(ends, L)]
            if self.reachable[t - n] and self._same_code(t - n, L, n)
        ]
        e = L
        while e > lo and not self.reachable[e - 1]:
            e -= 1
        if e - n >= lo and e - n not in found and self.reachable[e - n] and self._same_code(e - n, L, n):
            # the operand's own end: a constant operand's jump to L (`z or 2 or 1`, the `or 1`
            # folded away; 3.9 keep the dead code after it) became a copy of the block
            found.append(e - n)
        return found

    def _jump_tail_copy(self, lo: int, L: int) -> int | None:
        """3.12+: `a and b` as a statement ending a loop body: the join's small block
        (``POP_TOP``, the jump back) is copied onto the end of the right operand.  The start
        of that copy, which ends the operand [lo, L) (nothing in it jumps into the copy),
        else None."""
        n = None
        for k in range(L, min(L + 4, self.n)):
            ins = self.ins[k]
            if k > L and self._is_target(k):
                return None
            if ins.op == "JUMP":
                n = k - L + 1
                break
            if ins.target is not None or ins.op in TERMINAL:
                return None
        if n is None or n < 2 or lo <= self.ins[L + n - 1].target < L + n:
            return None
        p = L - n
        if (
            p <= lo
            or not self.reachable[p]
            or (self.ins[p - 1].op == "JUMP" and not self._nested_tail_copy(lo, p, L, n))
            or self.ins[p - 1].op in TERMINAL
            or not self._same_code(p, L, n)
            or self._jumps_into(lo, p, p + 1, L - 1)
        ):
            return None
        return p

    def _nested_tail_copy(self, lo: int, p: int, L: int, n: int) -> bool:
        """3.14+: `a and b and c` ending a loop body copies the join's block into each
        operand's false exit: the copy at [p, L) that ends the operand [lo, L) is then the
        join of the operand nested in it (a conditional jump in [lo, p) goes to p), whose own
        copy [p - n, p) is laid out right before it."""
        return (
            p - n > lo
            and self._same_code(p - n, L, n)
            and any(self.ins[k].target == p and self.ins[k].op != "JUMP" for k in range(lo, p))
        )

    def _copy_ending_operand(self, lo: int, L: int) -> int | None:
        """3.9: `return (b and c) if a else d`: the peephole threads the and's jump to the end
        of the conditional expression, a return inside the other arm, and replaces the first
        arm's jump there by a return.  The start of that copy of the block at ``L``, when the
        operand's jumps all stay before it (what follows it is reached from outside), else
        None: the operand ends there, and the copy is where its value goes."""
        n = self._terminal_len(L)
        if n is None:
            return None
        self._is_target(lo)
        ends = self._sorted_targets
        for t in ends[bisect.bisect_left(ends, lo + n + 1):bisect.bisect_left(ends, L)]:
            p = t - n
            if self.reachable[p] and self._same_code(p, L, n):
                inside = all(
                    (u := self.ins[k].target) is None or u < p for k in range(lo, p)
                )
                return p if inside else None
        return None

    def _arm_end_before(self, lo: int, L: int) -> int | None:
        """The jump to ``L`` that ends a conditional expression's arm inside [lo, L): the
        next arm starts right after it (something jumps there)."""
        for k in range(lo, L - 1):
            ins = self.ins[k]
            if ins.target is not None and ins.target > L:
                return None  # a jump past the join: not an arm of one expression
            if ins.op == "JUMP" and ins.target == L:
                nxt = k + 1
                if self.reachable[nxt] and self._is_target(nxt) and not self._jumps_into(lo, k, nxt, L - 1):
                    return k
                return None
        return None

    def _chain_tail_copy(self, lo: int, L: int) -> int | None:
        """Start of a copy of the small exit block at ``L`` that ends a chained comparison
        whose clean-up (``SWAP 2; POP_TOP``) sits just before ``L`` (see _boolop_operand)."""
        if not (
            L - 2 > lo
            and self.ins[L - 2].op == "SWAP"
            and self.ins[L - 2].argval == 2
            and self.ins[L - 1].op == "POP_TOP"
            and not self._is_target(L - 1)
        ):
            return None
        n = self._terminal_len(L)
        if n is None:
            return None
        p = L - 2 - n
        if p <= lo or not self._same_code(p, L, n):
            return None
        if not any(self.ins[k].target == L - 2 for k in range(lo, p)):
            return None  # no link of a chained comparison jumps to the clean-up
        return p

    def _is_value_boolop(self, i: int, stack: list) -> bool:
        # 3.12+: COPY 1; POP_JUMP_IF_X L; POP_TOP; <right>; L:
        ins = self.ins[i]
        if ins.argval != 1 or i + 2 >= self.n:
            return False
        nxt = self.ins[i + 1]
        return (
            nxt.op in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
            and nxt.target is not None
            and nxt.target > i + 2
            and self.ins[i + 2].op == "POP_TOP"
        )

    def do_copy_boolop(self, i: int, stack: list) -> int:
        jump = self.ins[i + 1]
        left = self.as_expr(stack.pop(), jump)
        L = jump.target
        if _is_chain_link(left, stack) and jump.op == "POP_JUMP_IF_FALSE":
            return self.do_chain(left, stack, i + 3, L, jump)
        stmts, st, resume = self._boolop_operand(i + 3, L, stack)
        op = ast.And() if jump.op == "POP_JUMP_IF_FALSE" else ast.Or()
        chain = _chained_compare(left, None, stack) if op.__class__ is ast.And else None
        if chain is not None and not stmts and len(st) == len(stack) and isinstance(st[-1], ast.expr):
            pass
        if stmts or len(st) != len(stack) + 1:
            # chained comparison whose true branch ends in a duplicated tail
            r = self._chain_with_tail(i, left, stack, L)
            if r is not None:
                return r
            raise self.fail("and/or operand is not an expression", jump, kind=Refusal.CONDITION)
        right = self.as_expr(st[-1], jump)
        chain = _chained_compare(left, right, stack)
        if chain is not None:
            stack.pop()
            stack.append(chain)
            return self._after_chain_cleanup(L, stack, jump)
        stack.append(_boolop(op, left, right))
        return resume

    def _mixed_boolop(self, cond: ast.expr, T: int, F: int, vj: Instr, stack: list) -> int:
        """``(a and b) or c`` / ``(a or b) and c`` on 3.9-3.11: a pop-jump into the last operand."""
        stmts, st = self.walk(T, F - 1, list(stack), frozenset())
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", vj, kind=Refusal.CONDITION)
        middle = self.as_expr(st[-1], vj)
        M = vj.target
        stmts, st, M = self._boolop_operand(F, M, stack)
        if stmts or len(st) != len(stack) + 1:
            raise self.fail("and/or operand is not an expression", vj, kind=Refusal.CONDITION)
        last = self.as_expr(st[-1], vj)
        if vj.op == "JUMP_IF_TRUE_OR_POP":
            inner = _boolop(ast.And(), cond, middle)
            stack.append(_boolop(ast.Or(), inner, last))
        else:
            inner = _boolop(ast.Or(), _negate(cond), middle)
            stack.append(_boolop(ast.And(), inner, last))
        return M

    def _tail_ternary(
        self, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset,
        end: int | None = None,
    ) -> int | None:
        """3.10 and 3.12+ copy a small tail (`return (b, <here>)`) into both arms of a
        conditional expression: A+S at [T, F) and B+S after F.  Find the
        longest shared tail S for which A and B each compute one value.  With
        ``end`` (a finally body's re-raise), the first arm's copy ends in a jump
        to ``end`` where the second's reaches the re-raise at ``end`` itself."""
        # a tail of just the return is `if t: return a` / `return b`: same code
        limit = min(stop, self.n)
        if self.ins[F - 1].op in TERMINAL:
            # the tail ends the block, so its second copy ends at the first return or raise
            # the second arm reaches: the search for it stops there (an elif chain of returns
            # stays linear)
            limit = min(limit, self._first_terminal(F) + 1)
        for n_s in range(F - T, 1, -1):
            tail_start = F - n_s
            if self._copy_size(tail_start, F) > MAX_COPY_SIZE:
                continue  # the compiler copies only small blocks
            if self.ins[tail_start].op == "POP_TOP":
                continue  # a tail that drops the value: `if t: a()` / `else: b()`, statements
            if end is not None:
                p = end - (n_s - 1)
                if p <= F or not self._same_code(tail_start, p, n_s - 1):
                    continue
            else:
                p = F
                while p + n_s <= limit and not self._same_code(tail_start, p, n_s):
                    p += 1
                if p + n_s > limit or p == F:
                    continue
            if self.ins[tail_start].line != self.ins[p].line:
                continue  # each copy on its own line: the arms' own statements (`x = a` / `x = b`)
            if any(self.ins[k].op == "POP_BLOCK" for k in [*range(T, tail_start), *range(F, p)]):
                continue  # an arm that leaves a try block is a statement (`if t: return a` in a try)
            if self._jumps_into(T, tail_start, tail_start + 1, F) or self._jumps_into(F, p, p + 1, p + n_s):
                continue  # an arm's and/or ends inside the tail: the tail is part of its value
            # a trial: walking code may retire exit copies it structures, and record the
            # stores of a value kept on the stack (a walrus) as a chained assignment's
            reachable, chains = list(self.reachable), dict(self.assign_chains)
            try:
                a_stmts, a_st = self.walk(T, tail_start, list(stack), frozenset())
                b_stmts, b_st = self.walk(F, p, list(stack), frozenset())
            except DecompilationError:
                self.reachable[:] = reachable
                self.assign_chains.clear()
                self.assign_chains.update(chains)
                continue
            if (
                a_stmts
                or b_stmts
                or len(a_st) != len(stack) + 1
                or len(b_st) != len(stack) + 1
                or any(x is not y for x, y in zip(a_st, stack))
                or any(x is not y for x, y in zip(b_st, stack))
                or not all(_is_value(v[-1]) for v in (a_st, b_st))  # `x += 1` halves are statements
            ):
                self.reachable[:] = reachable
                self.assign_chains.clear()
                self.assign_chains.update(chains)
                continue
            value = ast.IfExp(test=expr, body=self.as_expr(a_st[-1], None), orelse=self.as_expr(b_st[-1], None))
            stack.append(value)
            if end is not None:
                # the shared tail goes on to the finally body's end: the code at p is what
                # runs, the first arm's copy of it is not
                for k in range(tail_start, F):
                    self.reachable[k] = False
                return p
            for k in range(p, p + n_s):
                self.reachable[k] = False
            body, _ = self.walk(tail_start, F, list(stack), exits)
            for stmt in body:
                self.block.append(stmt)
            del stack[self.cur_base :]  # the shared tail ends the block (return/raise)
            return p + n_s
        return None
