"""The inside of an except clause: its type test, the clean-up of ``except E as name``
(``name = None; del name``), the ``POP_EXCEPT`` ending it, and 3.13's merged clause ends
(an inner clause's end copied into the enclosing clause's).
"""

from __future__ import annotations

import ast
import bisect

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TABLE
from pellucid.decompiler.regions.exc_markers import DELETE_OPS, STORE_OPS, Copy, ExcInfo


class ExceptClauseOps:
    """Walker mixin: except clause bodies, their endings and name clean-ups."""

    def _check_no_raise_after_clause(self, b0: int, b1: int, H: int) -> None:
        """A bare ``raise`` after a clause's POP_EXCEPT re-raises the exception
        handled outside the clause (3.12+ copy a ``raise`` following the try into
        the clause): written inside the clause it would raise the clause's own."""
        ins = self.ins
        for k in range(b0, min(b1, self.n)):
            if ins[k].op != "RAISE_VARARGS" or ins[k].arg != 0 or self.home[k] != H:
                continue
            p = k - 1
            if p - 2 >= b0 and ins[p].op in DELETE_OPS and self._name_cleanup_at(p - 2, ins[p].argval):
                p -= 3
            if p >= b0 and ins[p].op == "POP_EXCEPT" and self.home[p] == H:
                raise self.fail("bare raise after its except clause ended", ins[k], kind=Refusal.TRY)

    def _clause_type(self, p: int, C: int, hstack: list, match_op: str, what: str) -> tuple[int, ast.expr]:
        """The type expression of a 3.11+ clause starting at ``p``: straight-line code up to
        its ``match_op`` (CHECK_EXC_MATCH, CHECK_EG_MATCH).  Returns (index of the test, type)."""
        ins = self.ins
        q = p
        while q < C and ins[q].op != match_op:
            if ins[q].target is not None:
                raise self.fail(f"jump inside an {what} type", ins[q], kind=Refusal.TRY)
            q += 1
        if q >= C:
            raise self.fail(f"{what} clause without a type test", ins[p], kind=Refusal.TRY)
        stmts, st = self.walk(p, q, list(hstack), frozenset())
        if stmts or len(st) != len(hstack) + 1:
            raise self.fail(f"{what} type is not an expression", ins[q], kind=Refusal.TRY)
        return q, self.as_expr(st[-1], ins[q])

    def _leaves_handler(self, last, T: int, F: int, stop: int, exits: frozenset) -> bool:
        """Does an if's then-arm [T, F) end with ``POP_EXCEPT; JUMP`` back to the
        follow of the try whose clause the if ends (3.12+ layout)?"""
        if not (
            TABLE.merges_clause_end_jumps
            and last is not None
            and last.op == "JUMP"
            and last.target is not None
            and last.target < T
            and last.target in exits
            and F <= stop
            and not any(last.target == lp.header or last.target in lp.continue_targets for lp in self.loops)
        ):
            return False
        p = last.index - 1
        if p - 3 >= T and self.ins[p].op in DELETE_OPS and self._name_cleanup_at(p - 2, self.ins[p].argval):
            p -= 3  # `except E as name`: the name is cleared after POP_EXCEPT
        return p >= T and self.ins[p].op == "POP_EXCEPT"

    @staticmethod
    def _both_left_handler(stack: list, st1: list, st2: list) -> bool:
        """Both arms of an if ended an except clause (popped its exception info or
        left by return/raise): the stacks they leave are never merged."""
        if not stack or not isinstance(stack[-1], ExcInfo):
            return False
        return all(len(st) in (len(stack), len(stack) - 1) for st in (st1, st2)) and (
            len(st1) == len(stack) - 1 or len(st2) == len(stack) - 1
        )

    def _merged_clause_end(self, k: int) -> bool:
        """3.13: ``POP_EXCEPT; POP_EXCEPT; JUMP t`` at k, t no loop's target: a clause ending
        a try that ends an enclosing clause, the two clauses' ends merged into one jump (the
        enclosing clause's name cleanup, if it is named, before the jump)."""
        return self._merged_jump(k) is not None

    def _outer_clause_level(self, C: int, j: int) -> int | None:
        """The protection outside the enclosing clause whose end, merged into the end of a
        clause with clean-up C, starts at j: past the enclosing clause's name clean-up if it
        has one."""
        outer = self._cover[self._cover[C]]
        if self._merged_end_from(j) == j + 4 and outer is not None:
            outer = self._cover[outer]
        return outer

    def _merged_end_jumps_homed_in(self, lo: int, hi: int) -> list[int]:
        """The jumps that may end merged clause ends (``_merged_jump`` of the POP_EXCEPT two or
        five instructions before), in order, whose home lies in [lo, hi): found in a list
        sorted by home, made once per code, not by a scan of [lo, hi) per try (3.12+ lay the
        handlers at the end, so that scan made a run of n try statements quadratic)."""
        cands = self.__dict__.get("_b_merged_end_jumps")
        if cands is None:
            ins, home = self.ins, self.home
            cands = self._b_merged_end_jumps = sorted(
                (home[q], q)
                for q in range(self.n)
                if ins[q].op == "JUMP"
                and home[q] is not None
                and any(q - d >= 0 and ins[q - d].op == "POP_EXCEPT" for d in (2, 5))
            )
        i = bisect.bisect_left(cands, (lo, -1))
        j = bisect.bisect_left(cands, (hi, -1))
        return sorted(q for _h, q in cands[i:j])

    def _merged_jump(self, k: int) -> int | None:
        """The jump ending the merged clause ends at k (``_merged_clause_end``), or None."""
        if not TABLE.copies_clause_ends or not 0 <= k < self.n or self.ins[k].op != "POP_EXCEPT":
            return None
        return self._merged_end_from(k + 1)

    def _merged_end_from(self, j: int) -> int | None:
        """3.13: the jump ending the enclosing clause's end copied at j into the end of an inner
        clause (``POP_EXCEPT; [name clean-up;] JUMP t``, t no loop's target), or None."""
        if not TABLE.copies_clause_ends:
            return None
        q = self._clause_end_jump(j)
        return q if q is not None and self.ins[q].target not in self._loop_targets() else None

    def _second_of_merged_end(self, k: int, nm: str | None) -> bool:
        """Is the POP_EXCEPT at k the enclosing clause's, merged after the end of a clause
        named ``nm`` (after its POP_EXCEPT, and its name clean-up when it is named)?"""
        if self._merged_clause_end(k - 1):
            return True
        return (
            nm is not None
            and k >= 4
            and self.ins[k - 4].op == "POP_EXCEPT"
            and self._name_cleanup_at(k - 3, nm)
            and self._merged_end_from(k) is not None
        )

    def _share_clause_end_copies(self, unmatched: list, follow_cands: list, merged_copies: list) -> None:
        """3.13: a try ending an enclosing clause whose body never falls off (it returns or
        raises) leaves no own copy of that clause's end: each of its clauses ends in a copy.
        The copies are the same code, so the first is where the statement goes on and the
        others are copies of it (the clauses reach the enclosing clause's end alike)."""
        if len(unmatched) < 2:
            return
        first, n_copy = unmatched[0]
        if any(n != n_copy or not self._same_code(first, j, n) for j, n in unmatched[1:]):
            return
        for j, n in unmatched[1:]:
            merged_copies.append((j, n))
            follow_cands[follow_cands.index(j)] = first

    def _clause_end_jump(self, k: int) -> int | None:
        """Index of the jump ending ``POP_EXCEPT; [name clean-up;] JUMP`` at k (how an except
        clause ends), or None."""
        ins = self.ins
        if k + 1 >= self.n or ins[k].op != "POP_EXCEPT":
            return None
        j = k + 1
        if j + 1 < self.n and ins[j].op == "LOAD_CONST" and self._name_cleanup_at(j, ins[j + 1].argval):
            j += 3
        return j if j < self.n and ins[j].op == "JUMP" else None

    def _name_cleanup_at(self, j: int, nm: str) -> bool:
        ins = self.ins
        return (
            j + 2 < self.n
            and ins[j].op == "LOAD_CONST"
            and ins[j].argval is None
            and ins[j + 1].op in STORE_OPS
            and ins[j + 1].argval == nm
            and ins[j + 2].op in DELETE_OPS
            and ins[j + 2].argval == nm
        )

    def _strip_name_cleanups(self, b0: int, b1: int, nm: str, H: int) -> None:
        for k in range(b0, b1):
            if self.ins[k].op == "POP_EXCEPT" and self._name_cleanup_at(k + 1, nm):
                self._copies[k + 1] = Copy(3, "skip")

    def op_POP_EXCEPT(self, ins, stack: list) -> None:
        # 3.9/3.10: the saved exception is three values (type, value, traceback)
        n = TABLE.saved_exception_values
        if len(stack) < n or not all(isinstance(v, ExcInfo) for v in stack[-n:]):
            raise self.fail("POP_EXCEPT outside a handler", ins, kind=Refusal.TRY)
        del stack[-n:]
