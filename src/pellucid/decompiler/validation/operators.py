"""Operators, comparisons and identity tests: events, folded for constants as the compiler
folds them.
"""

from __future__ import annotations

import operator
from typing import Any

from pellucid.decompiler.instructions import Instr
from pellucid.decompiler.validation.state import State
from pellucid.decompiler.validation.terms import const_term, const_value, fold


class OperatorOps:
    """The effects of operators, comparisons and identity tests (mixed into ``Executor``)."""

    def op_BINARY_OP(self, st: State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        ok_l, lv = const_value(left)
        ok_r, rv = const_value(right)
        if ok_l and ok_r:
            ok, r = fold(i.argval, lv, rv)
            if ok:
                st.stack.append(const_term(r))
                return
        op = i.argval
        st.stack.append(self.ev_show(st, "binary", ("name", op), left, right))

    def _unary(self, st: State, name: str, f: Any) -> None:
        v = st.stack.pop()
        ok, value = const_value(v)
        if ok and type(value) in (int, float, bool, complex):
            try:
                st.stack.append(const_term(f(value)))
                return
            except Exception:  # noqa: BLE001
                pass
        st.stack.append(self.ev_show(st, "unary", ("name", name), v))

    def op_UNARY_NEGATIVE(self, st: State, i: Instr) -> None:
        self._unary(st, "-", operator.neg)

    def op_UNARY_INVERT(self, st: State, i: Instr) -> None:
        self._unary(st, "~", operator.invert)

    def op_UNARY_POSITIVE(self, st: State, i: Instr) -> None:
        self._unary(st, "+", operator.pos)

    def op_UNARY_NOT(self, st: State, i: Instr) -> None:
        st.stack.append(("not", self.truth(st, st.stack.pop())))

    def op_TO_BOOL_VALUE(self, st: State, i: Instr) -> None:
        st.stack.append(self.truth(st, st.stack.pop()))

    def op_COMPARE_OP(self, st: State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        st.stack.append(self.ev_show(st, "compare", ("name", i.argval), left, right))

    def op_CONTAINS_OP(self, st: State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        r = self.ev_show(st, "contains", left, right)
        st.stack.append(("not", ("truth", r)) if i.argval else ("truth", r))

    def op_IS_OP(self, st: State, i: Instr) -> None:
        right = st.stack.pop()
        left = st.stack.pop()
        t = self._is(st, left, right)
        st.stack.append(("not", t) if i.argval else t)

    def _is(self, st: State, left: Any, right: Any) -> Any:
        """``left is right`` as a truth term (decided when both sides say)."""
        singletons = ("NoneType", "bool", "ellipsis")
        lc = type(left) is tuple and left[0] == "const" and left[1] in singletons
        rc = type(right) is tuple and right[0] == "const" and right[1] in singletons
        if lc and rc:
            return ("known", left == right)
        fresh_l = self.fresh(st, left) is not None
        fresh_r = self.fresh(st, right) is not None
        if (fresh_l and (rc or fresh_r)) or (fresh_r and lc):
            return ("known", left == right)
        a, b = self.show(st, left), self.show(st, right)
        return ("is", a, b) if repr(a) <= repr(b) else ("is", b, a)
