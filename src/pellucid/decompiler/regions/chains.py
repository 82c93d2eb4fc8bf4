"""Chained comparisons (``a < b < c``), as values and as conditions.

Each link compares the value the previous link kept (a copy of its right operand, the
*shared* value) with the next operand, and jumps to a clean-up that pops the shared value
when it is false.  As a value (:meth:`ChainOps.do_chain`) the links are and/or jumps; as a
condition (:meth:`ChainOps.fold_chain_condition`) they fold into one test whose false exit
is the clean-up's.

An operand after the first link is any expression: a ternary, an and/or, a comparison, a
lambda or a comprehension, so its code may hold jumps of its own.  It ends at the
instruction that consumes the shared value (the link's comparison), which is where control
flow of the operand has joined again.  Straight code is run opcode by opcode; an operand
with jumps is structured by the walker, which stops as soon as the shared value is gone from
the stack (:meth:`ChainOps.chain_operand`).
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler.errors import DecompilationError, Refusal
from pellucid.decompiler.instructions import TERMINAL, VALUE_JUMPS, Instr, arg_key


class ChainOps:
    """Walker mixin: chained comparisons, as values and as conditions."""

    # the shared value of the link whose operand is being structured (see _structured_operand)
    chain_shared: Any = None

    def do_chain(self, left: ast.Compare, stack: list, resume: int, L: int, ins: Instr) -> int:
        """One link of ``a < b < c``: evaluate until the shared middle operand is consumed."""
        if not (L + 1 < self.n and self.ins[L].op == "SWAP" and self.ins[L + 1].op == "POP_TOP"):
            raise self.fail("chained comparison without clean-up", ins, kind=Refusal.CONDITION)
        shared = stack[-1]
        st = list(stack)
        i = self.chain_operand(resume, st, shared, L, ins)
        right = st.pop()
        if not (isinstance(right, ast.Compare) and right.left is shared):
            raise self.fail("chained comparison operand is not a comparison", ins, kind=Refusal.CONDITION)
        stack[:] = st
        stack.append(
            ast.Compare(
                left=left.left,
                ops=left.ops + right.ops,
                comparators=left.comparators + right.comparators,
            )
        )
        nxt = self.ins[i]
        if nxt.op == "JUMP" and nxt.target == L + 2:
            return L + 2
        if nxt.op in VALUE_JUMPS and nxt.target == L:
            return i
        if nxt.op == "COPY" and i + 1 < self.n and self.ins[i + 1].target == L:
            return i
        if i == L:
            return L + 2
        # the tail after the comparison was duplicated into both paths: after the
        # comparison, or (3.10) where the comparison jumps over the clean-up to
        end = self._copied_tail(i, L + 2, L)
        if end is None and nxt.op == "JUMP" and nxt.target is not None and nxt.target > L + 2:
            end = self._copied_tail(nxt.target, L + 2, self.n)
            if end is not None and end >= nxt.target:
                end = None  # (the copies overlap)
        if end is None:
            raise self.fail("chained comparison with different tails", ins, kind=Refusal.CONDITION)
        for k in range(L, end + 1):
            self.reachable[k] = False
        return i

    def _copied_tail(self, a: int, b: int, limit: int) -> int | None:
        """Where the copy at ``b`` of the straight code at ``a`` (up to ``limit``) ends: its
        last instruction, a return, raise or jump; None when the code differs."""
        while a < limit and b < self.n:
            x, y = self.ins[a], self.ins[b]
            if (x.op, arg_key(x.argval), x.target) != (y.op, arg_key(y.argval), y.target):
                return None
            if x.op in TERMINAL or x.op == "JUMP":
                return b
            a += 1
            b += 1
        return None

    def fold_chain_condition(self, j: int, stack: list) -> int:
        """``if a < b < c:``: links jump to a POP_TOP clean-up; fold them into one test.

        Shape: ``cmp; PJIF L; ...; cmp; PJ X; JUMP Y; L: POP_TOP; Y:``.  The
        folded test jumps to X from the last link and continues at Y otherwise.
        """
        first = self.ins[j]
        L = first.target
        if not (
            first.op == "POP_JUMP_IF_FALSE"
            and L is not None
            and L > j
            and self.ins[L].op == "POP_TOP"
        ):
            raise self.fail("unrecognized chained comparison in a condition", first, kind=Refusal.CONDITION)
        left = stack.pop()
        shared = stack[-1]
        st = list(stack)
        saved, self.block = self.block, []
        i = j + 1
        try:
            while True:
                cur = self.ins[i]
                if (
                    any(x is shared for x in st)
                    and st[-1] is not shared
                    and self.operand_jumps_at(i, st)
                ):
                    # an operand with jumps of its own (a ternary, an and/or); not the last
                    # link's test fused into its jump (3.11+ `... is None`), which tests shared
                    i = self.chain_operand(i, st, shared, L, first)
                    continue
                if cur.target is not None:
                    if (
                        cur.op == "POP_JUMP_IF_FALSE"
                        and cur.target == L
                        and not any(x is shared for x in st)
                    ):
                        # another link: its left operand is the comparison just built
                        right = st.pop()
                        if not (isinstance(right, ast.Compare) and right.left is shared):
                            raise self.fail("chained comparison operand is not a comparison", cur, kind=Refusal.CONDITION)
                        left = _merge_compare(left, right)
                        shared = st[-1]
                        i += 1
                        continue
                    break
                self.apply(cur, st)
                i += 1
            if self.block:
                raise self.fail("statement inside a chained comparison", first, kind=Refusal.CONDITION)
        finally:
            self.block = saved
        last = self.ins[i]
        if (
            last.op in _NONE_JUMPS
            and st
            and st[-1] is shared
            and not any(x is shared for x in st[:-1])
        ):
            # 3.11+: the last link `... is None` / `... is not None` is fused into its jump,
            # which reads either way: jump when `is (not) None` is false, or when it is true
            st.pop()
            error = None
            for last_op, cmp in _NONE_JUMPS[last.op]:
                right = ast.Compare(left=shared, ops=[cmp()], comparators=[ast.Constant(None)])
                merged = _merge_compare(left, right)
                merged.fused_none = last_op == "POP_JUMP_IF_TRUE"  # what _block reads
                try:
                    return self._fold_chain_end(i, L, last, last_op, merged, st, stack)
                except DecompilationError as e:
                    error = error or e
            raise error
        if any(x is shared for x in st):
            raise self.fail("chained comparison operand not consumed", first, kind=Refusal.CONDITION)
        right = st.pop()
        if not (isinstance(right, ast.Compare) and right.left is shared):
            raise self.fail("chained comparison operand is not a comparison", first, kind=Refusal.CONDITION)
        return self._fold_chain_end(i, L, last, last.op, _merge_compare(left, right), st, stack)

    def _fold_chain_end(
        self, i: int, L: int, last: Instr, last_op: str, merged: ast.Compare, st: list, stack: list
    ) -> int:
        """Fold a chained comparison whose last link jumps at ``i`` (as ``last_op``) into
        ``merged``; the clean-up of the other links is at ``L``."""
        jump = self.ins[i + 1] if i + 1 < self.n else None
        # the clean-up either falls through or jumps on to where "false" goes
        cleanup_jump = L + 1 < self.n and self.ins[L + 1].op == "JUMP"
        Y = L + 2 if cleanup_jump else L + 1
        C = self.ins[L + 1].target if cleanup_jump else L + 1
        size = (
            self._terminal_len(last.target)
            if last.target is not None and not cleanup_jump
            else None
        )
        if size is not None and self._same_code(L + 1, last.target, size):
            # 3.10+: the clean-up continues into a copy of the (small) exit block
            Y = L + 1 + size
            C = last.target
        tail = L - (i + 1)
        if (
            last_op == "POP_JUMP_IF_TRUE"
            and tail > 0
            and self.ins[L - 1].op in TERMINAL
            and self._same_code(i + 1, L + 1, tail)
        ):
            # 3.12+: the small block after the test was copied behind the clean-up
            stack[:] = st
            stack.append(merged)
            for k in range(L, L + 1 + tail):
                self.reachable[k] = False
            self.fallthrough[i] = i + 1
            return i
        copied = (
            self._terminal_len(last.target)
            if last.target is not None and last.target > L + 1 and not self._is_target(L + 1)
            else None
        )
        if copied is not None and not (
            self._same_code(L + 1, last.target, copied)
            and (last.target == L + 1 + copied or self.ins[L - 1].op in TERMINAL)
        ):
            # (laid out apart from the exit it copies only after a body that leaves: an arm
            # of a conditional expression used as a test, the next arm in between)
            copied = None
        if (
            last_op == "POP_JUMP_IF_FALSE"
            and (last.target == L + 1 or copied is not None)
            and L - 1 > i
            and (self.ins[L - 1].op in TERMINAL or self.ins[L - 1].op == "JUMP")
        ):
            # 3.12+: the test's body sits before the clean-up, which falls into
            # the false exit (or into a copy of it)
            stack[:] = st
            stack.append(merged)
            for k in range(L, L + 1 + (copied or 0)):
                self.reachable[k] = False
            self.fallthrough[i] = i + 1
            return i
        if (
            last_op == "POP_JUMP_IF_FALSE"
            and cleanup_jump
            and L > i + 2  # not just the jump into a body after the clean-up (below)
            and (self.ins[L - 1].op in TERMINAL or self.ins[L - 1].op == "JUMP")
            and C in self._same_place(last.target)
        ):
            # the body sits before the clean-up, and the last link's false exit is a
            # jump (back to a loop head) where the clean-up goes too
            stack[:] = st
            stack.append(merged)
            self.reachable[L] = self.reachable[L + 1] = False
            self.fallthrough[i] = i + 1
            return i
        if (
            last_op == "POP_JUMP_IF_TRUE"
            and jump is not None
            and jump.op == "JUMP"
            and i + 2 == L
            and jump.target in self._same_place(L + 1)
        ):
            # `if not a < b < c: continue`: the code after the clean-up is the test's false
            # branch (a jump: 3.9 threads the last link's false exit straight to its target),
            # which both false paths reach
            Y = L + 1
            stack[:] = st
            stack.append(merged)
            self.fallthrough[i] = Y
            self.reachable[i + 1] = self.reachable[L] = False
            return i
        if (
            last_op == "POP_JUMP_IF_FALSE"
            and cleanup_jump
            and jump is not None
            and jump.op == "JUMP"
            and i + 2 == L
            and jump.target is not None
            and jump.target > self._past_dead(Y)
            and self._is_target(self._past_dead(Y))
            and C in self._same_place(last.target)
        ):
            # the chain ends an arm of a conditional expression used as a test: the jump
            # over the clean-up is the arm's closing jump past the next arm (after the
            # clean-up, and 3.9's dead jump)
            stack[:] = st
            stack.append(merged)
            self.fallthrough[i] = i + 1
            self.reachable[L] = self.reachable[L + 1] = False
            return i
        # 3.9 threads the jump into a body that is itself one jump (`break`) to that jump's
        # target, leaving the body's jump dead: it is still the body
        threaded = (
            jump is not None
            and jump.op == "JUMP"
            and Y < self.n
            and jump.target != Y
            and self.ins[Y].op == "JUMP"
            and self.ins[Y].target == jump.target
            and not self.reachable[Y]
        )
        if not (
            last_op in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
            and jump is not None
            and jump.op == "JUMP"
            and (jump.target == Y or threaded)
            and i + 2 == L
            and C in self._same_place(last.target if last_op == "POP_JUMP_IF_FALSE" else Y)
        ):
            raise self.fail("unrecognized chained comparison in a condition", last, kind=Refusal.CONDITION)
        stack[:] = st
        stack.append(merged)
        self.fallthrough[i] = Y
        for k in range(i + 1, Y):
            self.reachable[k] = False
        if threaded:
            self.reachable[Y] = True
        return i

    def _after_chain_cleanup(self, L: int, stack: list, ins: Instr) -> int:
        # the false path of a chained comparison lands on SWAP 2; POP_TOP
        if L + 1 < self.n and self.ins[L].op == "SWAP" and self.ins[L + 1].op == "POP_TOP":
            return L + 2
        raise self.fail("chained comparison without clean-up", ins, kind=Refusal.CONDITION)

    def _chain_with_tail(self, i: int, left: ast.expr, stack: list, L: int) -> int | None:
        return None

    def chain_operand(self: Any, i: int, stack: list, shared: Any, stop: int, at: Any) -> int:
        """Run from ``i`` on ``stack`` until no value on it is ``shared``; return where.

        ``stop`` bounds the operand (the links' clean-up); a statement inside it refuses,
        reported at ``at``."""
        saved, self.block = self.block, []
        try:
            while any(x is shared for x in stack):
                if i >= stop:
                    raise self.fail("chained comparison operand not found", at, kind=Refusal.CONDITION)
                if self.operand_jumps_at(i, stack):
                    i = self._structured_operand(i, stack, shared, stop, at)
                    continue
                self.apply(self.ins[i], stack)
                i += 1
            if self.block:
                raise self.fail("statement inside a chained comparison", at, kind=Refusal.CONDITION)
        finally:
            self.block = saved
        return i

    def _in_chain_operand(self, stack: list) -> bool:
        """Is the stack that of an operand of a chained comparison's link (the link's
        shared value is still on it)?"""
        shared = self.chain_shared
        return shared is not None and any(x is shared for x in stack)

    def operand_jumps_at(self: Any, i: int, stack: list) -> bool:
        """Whether control flow starts at ``i``: a jump, or 3.12+'s and/or value, which
        begins with the COPY of its left operand."""
        ins = self.ins[i]
        return ins.target is not None or (ins.op == "COPY" and self._is_value_boolop(i, stack))

    def _structured_operand(self: Any, i: int, stack: list, shared: Any, stop: int, at: Any) -> int:
        """The rest of an operand holding jumps (a ternary, an and/or, a nested chain)."""
        st = list(stack)
        saved, self.chain_shared = self.chain_shared, shared
        try:
            stmts, st = self.walk(
                i, stop, st, frozenset(), until=lambda s: not any(x is shared for x in s)
            )
        except DecompilationError as e:
            if getattr(e, "internal", False):
                raise
            raise self.fail("jump inside a chained comparison operand", self.ins[i], kind=Refusal.CONDITION) from e
        finally:
            self.chain_shared = saved
        if stmts or any(x is shared for x in st):
            raise self.fail("jump inside a chained comparison operand", self.ins[i], kind=Refusal.CONDITION)
        stack[:] = st
        return self.stopped_at


def _merge_compare(left: ast.Compare, right: ast.Compare) -> ast.Compare:
    return ast.Compare(
        left=left.left, ops=left.ops + right.ops, comparators=left.comparators + right.comparators
    )


# a jump on `x is None` fused into one opcode, as the plain jump on the comparison it stands for
_NONE_JUMPS = {
    "POP_JUMP_IF_NOT_NONE": (("POP_JUMP_IF_FALSE", ast.Is), ("POP_JUMP_IF_TRUE", ast.IsNot)),
    "POP_JUMP_IF_NONE": (("POP_JUMP_IF_FALSE", ast.IsNot), ("POP_JUMP_IF_TRUE", ast.Is)),
}


def _is_chain_link(left: ast.expr, stack: list) -> bool:
    return isinstance(left, ast.Compare) and bool(stack) and left.comparators[-1] is stack[-1]
