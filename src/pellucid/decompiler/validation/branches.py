"""Truth tests, branches, jumps and returns: a path forks where it does not know a
condition's outcome, and records the outcome it takes.
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.instructions import Instr
from pellucid.decompiler.validation.state import PathEnd, State
from pellucid.decompiler.validation.terms import const_term, const_value


class BranchOps:
    """The effects of truth tests, branches, jumps and returns (mixed into ``Executor``)."""

    def truth(self, st: State, term: Any) -> Any:
        """The truth value of ``term`` as a term: decided for constants and fresh objects,
        otherwise one ``bool`` event (its result read as a truth)."""
        if type(term) is tuple:
            tag = term[0]
            if tag in ("truth", "known", "is"):
                return term
            if tag == "not":
                return ("not", self.truth(st, term[1]))
            ok, v = const_value(term)
            if ok:
                return ("known", bool(v))
            if tag == "tuple":
                return ("known", len(term) > 1)
            obj = self.fresh(st, term)
            if obj is not None:
                return ("known", bool(obj.items))
        r = self.ev_show(st, "bool", term)
        return ("truth", r)

    def _decide(self, st: State, t: Any) -> bool | None:
        """The outcome of truth term ``t`` if known on this path."""
        neg = False
        while t[0] == "not":
            t, neg = t[1], not neg
        if t[0] == "known":
            return t[1] != neg
        if t in st.truths:
            return st.truths[t] != neg
        return None

    def _branch(self, st: State, cond: Any, jump_if: bool, target: int) -> State | None:
        """Go on at ``target`` where the truth of ``cond`` is ``jump_if``; a path for the other
        outcome (returned) when this path does not decide it."""
        t = self.truth(st, cond)
        outcome = self._decide(st, t)
        alt = None
        if outcome is None:
            base = t
            while base[0] == "not":
                base = base[1]
            alt = st.fork()
            alt.truths[base] = False
            alt.path.append(("branch", base, False))
            st.truths[base] = True
            st.path.append(("branch", base, True))
            if self._decide(alt, t) == jump_if:
                alt.pc = target
                if target <= self.cur.index:
                    alt.jumped_back = True
            self.work.append(alt)
            outcome = self._decide(st, t)
        if outcome == jump_if:
            st.pc = target
        return alt

    def op_POP_JUMP_IF_FALSE(self, st: State, i: Instr) -> None:
        self._branch(st, st.stack.pop(), False, i.target)

    def op_POP_JUMP_IF_TRUE(self, st: State, i: Instr) -> None:
        self._branch(st, st.stack.pop(), True, i.target)

    def op_POP_JUMP_IF_NONE(self, st: State, i: Instr) -> None:
        self._branch(st, self._is(st, st.stack.pop(), const_term(None)), True, i.target)

    def op_POP_JUMP_IF_NOT_NONE(self, st: State, i: Instr) -> None:
        self._branch(st, self._is(st, st.stack.pop(), const_term(None)), False, i.target)

    def op_JUMP_IF_FALSE_OR_POP(self, st: State, i: Instr) -> None:
        self._value_jump(st, i, False)

    def op_JUMP_IF_TRUE_OR_POP(self, st: State, i: Instr) -> None:
        self._value_jump(st, i, True)

    def _value_jump(self, st: State, i: Instr, jump_if: bool) -> None:
        """The value stays on the stack where the jump is taken, and is popped where not."""
        value = st.stack.pop()
        alt = self._branch(st, value, jump_if, i.target)
        for path in (st, alt):
            if path is not None and path.pc == i.target:
                path.stack.append(value)

    def op_JUMP(self, st: State, i: Instr) -> None:
        st.pc = i.target

    op_JUMP_BACKWARD_NO_INTERRUPT = op_JUMP

    def op_RETURN_VALUE(self, st: State, i: Instr) -> None:
        # (the exception being handled stays set for the caller: a frame returning from an
        # except clause it did not leave leaves it set)
        self.observe(st)
        st.path.append(("return", self.show(st, st.stack.pop())))
        raise PathEnd
