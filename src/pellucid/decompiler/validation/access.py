"""Attribute and subscript reads, stores and deletes: events, but on a list the code built
and has not let escape, followed concretely.
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.instructions import TABLE, Instr
from pellucid.decompiler.validation.state import NotModelled, State
from pellucid.decompiler.validation.terms import NULL, const_term, const_value


class AccessOps:
    """The effects of attribute and subscript reads, stores and deletes (an ``Executor``'s)."""

    def op_LOAD_ATTR(self, st: State, i: Instr) -> None:
        obj = st.stack.pop()
        fresh = self.fresh(st, obj)
        if type(obj) is tuple and obj[0] == "function" and i.argval == "__closure__":
            # (a function this code made: its closure, as pellucid writes a cell object)
            closure = dict(p[:2] for p in obj[2:]).get("closure", const_term(None))
            st.stack.append(closure)
            return
        if fresh is not None and fresh.kind == "list" and i.argval in ("extend", "append"):
            st.stack.append(("listmeth", obj[1], i.argval))
            return
        st.stack.append(self.ev_show(st, "getattr", obj, ("name", i.argval)))

    def op_LOAD_METHOD(self, st: State, i: Instr) -> None:
        self.op_LOAD_ATTR(st, i)
        # (a method call is the attribute's call: pushed as an attribute with a NULL)
        value = st.stack.pop()
        st.stack.extend([value, NULL] if TABLE.null_after_callable else [NULL, value])

    def op_STORE_ATTR(self, st: State, i: Instr) -> None:
        obj = st.stack.pop()
        value = st.stack.pop()
        self.ev_show(st, "setattr", obj, ("name", i.argval), value)

    def op_DELETE_ATTR(self, st: State, i: Instr) -> None:
        self.ev_show(st, "delattr", st.stack.pop(), ("name", i.argval))

    def _index(self, term: Any) -> Any:
        """A constant int or slice of constant ints/None as a Python index; None if not."""
        ok, v = const_value(term)
        if ok and type(v) is int:
            return v
        if type(term) is tuple and term[0] == "slice":
            parts = []
            for p in term[1:]:
                ok, v = const_value(p)
                if not ok or not (v is None or type(v) is int):
                    return None
                parts.append(v)
            return slice(*parts)
        return None

    def op_BINARY_SUBSCR(self, st: State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        self._subscr(st, container, key)

    def op_BINARY_SLICE(self, st: State, i: Instr) -> None:
        stop = st.stack.pop()
        start = st.stack.pop()
        container = st.stack.pop()
        self._subscr(st, container, ("slice", start, stop, const_term(None)))

    def _subscr(self, st: State, container: Any, key: Any) -> None:
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, slice):
                st.stack.append(self.new(st, "list", obj.items[idx]))
                return
            if -len(obj.items) <= idx < len(obj.items):
                st.stack.append(obj.items[idx])
                return
            raise NotModelled("an index out of range of a list the code built")
        items = None if obj is not None else self.items_of(st, container)
        if items is not None and idx is not None:
            if isinstance(idx, slice):
                st.stack.append(("tuple",) + tuple(items[idx]))
                return
            if -len(items) <= idx < len(items):
                st.stack.append(items[idx])
                return
        st.stack.append(self.ev_show(st, "getitem", container, key))

    def op_STORE_SUBSCR(self, st: State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        value = st.stack.pop()
        self._store_subscr(st, container, key, value)

    def op_STORE_SLICE(self, st: State, i: Instr) -> None:
        stop = st.stack.pop()
        start = st.stack.pop()
        container = st.stack.pop()
        value = st.stack.pop()
        self._store_subscr(st, container, ("slice", start, stop, const_term(None)), value)

    def _store_subscr(self, st: State, container: Any, key: Any, value: Any) -> None:
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, slice):
                items = self.items_of(st, value)
                if items is None or idx.step not in (None, 1):
                    raise NotModelled("a slice assignment of unknown items")
                obj.items[idx] = items
                return
            if -len(obj.items) <= idx < len(obj.items):
                obj.items[idx] = value
                return
            raise NotModelled("an index out of range of a list the code built")
        if obj is not None:
            raise NotModelled("a store into a fresh object not modelled")
        self.ev_show(st, "setitem", container, key, value)

    def op_DELETE_SUBSCR(self, st: State, i: Instr) -> None:
        key = st.stack.pop()
        container = st.stack.pop()
        obj = self.fresh(st, container)
        idx = self._index(key)
        if obj is not None and obj.kind == "list" and idx is not None:
            if isinstance(idx, int) and not -len(obj.items) <= idx < len(obj.items):
                raise NotModelled("an index out of range of a list the code built")
            del obj.items[idx]
            return
        if obj is not None:
            raise NotModelled("a delete from a fresh object not modelled")
        self.ev_show(st, "delitem", container, key)
