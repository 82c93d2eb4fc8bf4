"""Exceptions: the path where an operation raises goes to its handler (3.11+ exception
tables), and the exception being handled is part of the state, recorded where code that may
run next can see it.
"""

from __future__ import annotations

from pellucid.decompiler.instructions import Instr
from pellucid.decompiler.validation.state import NotModelled, PathEnd, State


class ExceptionStateOps:
    """The effects of raises, handlers and the exception being handled (mixed into ``Executor``)."""

    def _raise_fork(self, st: State, exc: tuple) -> None:
        """The path where the current instruction raises ``exc``."""
        h = self._handler(self.cur.index)
        if h is None:
            # (out of the function: the same in both programs when their paths to here are;
            # an operation one program covers by a handler and the other does not gives the
            # first a path the second has not)
            return
        alt = st.fork()
        alt.stack = list(self.before)
        alt.path.append(("raised",))
        self._to_handler(alt, h, exc)
        self.work.append(alt)

    def _handler(self, index: int) -> tuple | None:
        for start, end, target, depth, lasti in self.handlers:
            if start <= index < end:
                return target, depth, lasti
        return None

    @staticmethod
    def _to_handler(st: State, h: tuple, exc: tuple) -> None:
        target, depth, lasti = h
        if depth > len(st.stack):
            raise NotModelled("an exception handler deeper than the stack")
        st.stack = st.stack[:depth]
        if lasti:
            st.stack.append(("lasti",))
        st.stack.append(exc)
        st.pc = target

    def raise_(self, st: State, exc: tuple) -> None:
        """The current instruction raises ``exc`` (a raise or re-raise)."""
        self.observe(st)
        h = self._handler(self.cur.index) if self.exceptions else None
        if h is None:
            st.path.append(("raise", self.show(st, exc)))
            raise PathEnd
        st.stack = list(self.before)
        st.path.append(("raised-to-handler", self.show(st, exc)))
        self._to_handler(st, h, exc)

    def op_RAISE_VARARGS(self, st: State, i: Instr) -> None:
        n = i.argval
        if n == 0:
            # (a bare raise raises the exception being handled, whatever put it there)
            self.raise_(st, ("reraise", st.handling))
            return
        cause = st.stack.pop() if n == 2 else None
        exc = st.stack.pop()
        # (the new exception's context is the one being handled)
        self.observe(st)
        k = len(st.path)
        st.path.append(("make-exception", self.show(st, exc), self.show(st, cause)))
        self.raise_(st, ("raised-exc", k))

    def op_RERAISE(self, st: State, i: Instr) -> None:
        """Raise the exception on the stack again; with an argument, first read the offset an
        exception-table entry pushed that far down (it only places the traceback there), which
        CPython requires to be an int: anything else raises SystemError instead."""
        n = i.arg or 0
        if n and (len(st.stack) <= n or st.stack[-1 - n] != ("lasti",)):
            raise NotModelled("a RERAISE that reads no offset an exception table pushed")
        self.raise_(st, ("reraise", st.stack.pop()))

    def op_PUSH_EXC_INFO(self, st: State, i: Instr) -> None:
        """The exception a handler catches becomes the one being handled; the one handled
        before is saved on the stack, for the ``POP_EXCEPT`` that ends the handler."""
        exc = st.stack.pop()
        st.stack.append(st.handling)
        st.handling = exc
        st.stack.append(exc)

    def op_POP_EXCEPT(self, st: State, i: Instr) -> None:
        """The value on the stack becomes the exception being handled, as in CPython: the one
        ``PUSH_EXC_INFO`` saved where the code is what a compiler makes, whatever else is there
        where it is not (None is none)."""
        st.handling = st.stack.pop()

    def observe(self, st: State) -> None:
        """Record the exception being handled where code that may run next can see it (an
        event, a raise, a return, a loop's head or its end), if it changed since the path last
        recorded it: called code reads it (``sys.exception()``, a bare ``raise``), a new
        exception takes it as its context, and a frame that ends leaves it set."""
        if st.handling != st.handling_seen:
            st.handling_seen = st.handling
            st.path.append(("handling", self.show(st, st.handling)))

    def op_CHECK_EXC_MATCH(self, st: State, i: Instr) -> None:
        match = st.stack.pop()
        r = self.ev_show(st, "exception-matches", st.stack[-1], match)
        st.stack.append(("truth", r))

    def op_BEFORE_WITH(self, st: State, i: Instr) -> None:
        r = self.ev_show(st, "enter-with", st.stack.pop())
        st.stack.append(("exit-of", r))
        st.stack.append(("entered", r))

    def op_WITH_EXCEPT_START(self, st: State, i: Instr) -> None:
        # exit function, (lasti,) previous exception, exception: exit(type, value, tb)
        exc = st.stack[-1]
        fn = st.stack[-4]
        st.stack.append(self.ev_show(st, "call-exit", fn, exc))
