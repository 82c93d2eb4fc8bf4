"""Calls and imports: events with their argument terms (a method of a fresh list runs on
the heap).
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.instructions import TABLE, Instr
from pellucid.decompiler.validation.state import NotModelled, State
from pellucid.decompiler.validation.terms import NULL, const_term, const_value


class CallOps:
    """The effects of calls and imports (mixed into ``Executor``)."""

    def op_KW_NAMES(self, st: State, i: Instr) -> None:
        st.kwnames = tuple(i.argval)

    def op_CALL(self, st: State, i: Instr) -> None:
        args = self.take(st, i.argval)
        b = st.stack.pop()
        a = st.stack.pop()
        kwnames, st.kwnames = st.kwnames or (), None
        # 3.9-3.12: [NULL, callable] or [method, self]; 3.13: [callable, NULL or self]
        if TABLE.null_after_callable:
            fn, self_arg = a, b
        else:
            fn, self_arg = (b, NULL) if a == NULL else (a, b)
        if fn == NULL:
            raise NotModelled("a call of NULL")
        if self_arg != NULL:
            args = [self_arg] + args
        self._call(st, fn, args, kwnames)

    op_CALL_METHOD = op_CALL

    def op_CALL_KW(self, st: State, i: Instr) -> None:
        names = st.stack.pop()
        if type(names) is not tuple or names[0] != "tuple":
            raise NotModelled("CALL_KW without constant names")
        st.kwnames = tuple(const_value(t)[1] for t in names[1:])
        self.op_CALL(st, i)

    def op_CALL_FUNCTION(self, st: State, i: Instr) -> None:
        args = self.take(st, i.argval)
        self._call(st, st.stack.pop(), args, ())

    def op_CALL_FUNCTION_KW(self, st: State, i: Instr) -> None:
        names = st.stack.pop()
        if type(names) is not tuple or names[0] != "tuple":
            raise NotModelled("CALL_FUNCTION_KW without constant names")
        args = self.take(st, i.argval)
        self._call(st, st.stack.pop(), args, tuple(const_value(t)[1] for t in names[1:]))

    def op_CALL_FUNCTION_EX(self, st: State, i: Instr) -> None:
        kwargs = st.stack.pop() if i.argval & 1 else None
        callargs = st.stack.pop()
        if TABLE.calls_push_null:
            b = st.stack.pop()
            a = st.stack.pop()
            fn = b if a == NULL else a if b == NULL else None
            if fn is None:
                raise NotModelled("CALL_FUNCTION_EX without NULL")
        else:
            fn = st.stack.pop()
        items = self.items_of(st, callargs)
        args = items if items is not None else [("star", callargs)]
        kwnames: tuple = ()
        stars: list = []
        if kwargs is not None:
            obj = self.fresh(st, kwargs)
            if obj is None or obj.kind != "dict":
                args.append(("starstar", kwargs))
            else:
                for pair in obj.items:
                    if type(pair) is tuple:  # ("spread", the merged mapping)
                        stars.append(pair[1])
                        continue
                    k, v = pair
                    ok, name = const_value(k)
                    if not ok or type(name) is not str:
                        raise NotModelled("a ** keyword that is not a constant string")
                    args.append(v)
                    kwnames += (name,)
        self._call(st, fn, args, kwnames, stars)

    def _call(
        self, st: State, fn: Any, args: list, kwnames: tuple, stars: list | None = None
    ) -> None:
        if type(fn) is tuple and fn and fn[0] == "listmeth":
            self._list_method(st, fn, args, kwnames)
            return
        npos = len(args) - len(kwnames)
        pos = tuple(self.show(st, a) for a in args[:npos])
        kws = tuple(sorted(zip(kwnames, (self.show(st, a) for a in args[npos:]))))
        ev = ("call", self.show(st, fn), pos, kws)
        if stars:
            ev += (("**", tuple(stars)),)
        st.stack.append(self.event(st, ev))

    def _list_method(self, st: State, fn: tuple, args: list, kwnames: tuple) -> None:
        obj = st.heap[fn[1]]
        if obj.escaped is not None or kwnames or len(args) != 1:
            raise NotModelled("a list method call not modelled")
        if fn[2] == "append":
            obj.items.append(args[0])
        else:
            items = self.items_of(st, args[0])
            if items is None:
                raise NotModelled("a list extended by an iterable of unknown length")
            obj.items.extend(items)
        st.stack.append(const_term(None))

    def op_IMPORT_NAME(self, st: State, i: Instr) -> None:
        fromlist = st.stack.pop()
        level = st.stack.pop()
        st.stack.append(self.ev_show(st, "import", ("name", i.argval), fromlist, level))

    def op_IMPORT_FROM(self, st: State, i: Instr) -> None:
        st.stack.append(self.ev_show(st, "import-from", st.stack[-1], ("name", i.argval)))
