"""Lists, tuples, sets, dicts, slices and functions the code builds, followed concretely
on the path's heap until they escape.
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.instructions import TABLE, Instr
from pellucid.decompiler.validation.state import NotModelled, Obj, State
from pellucid.decompiler.validation.terms import const_term


class BuildingOps:
    """The effects of the instructions that build lists, tuples, sets, dicts, slices and
    functions (mixed into ``Executor``)."""

    def op_BUILD_TUPLE(self, st: State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(("tuple",) + tuple(items))

    def op_BUILD_LIST(self, st: State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(self.new(st, "list", items))

    def op_BUILD_SLICE(self, st: State, i: Instr) -> None:
        if i.argval == 3:
            step = st.stack.pop()
        else:
            step = const_term(None)
        stop = st.stack.pop()
        start = st.stack.pop()
        st.stack.append(("slice", start, stop, step))

    def op_BUILD_SET(self, st: State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.append(self.new(st, "set", []))
        self._set_add(st, st.heap[st.stack[-1][1]], items)

    def _set_add(self, st: State, obj: Obj, items: list) -> None:
        # (hashing runs no code only for constants)
        for v in items:
            if not (type(v) is tuple and v[0] == "const"):
                raise NotModelled("a set of values that are not constants")
            if v not in obj.items:
                obj.items.append(v)

    def op_SET_ADD(self, st: State, i: Instr) -> None:
        value = st.stack.pop()
        obj = self.fresh(st, self.peek(st, i.argval))
        if obj is None or obj.kind != "set":
            raise NotModelled("SET_ADD to an unknown set")
        self._set_add(st, obj, [value])

    def op_SET_UPDATE(self, st: State, i: Instr) -> None:
        value = st.stack.pop()
        obj = self.fresh(st, self.peek(st, i.argval))
        if type(value) is tuple and value[0] == "frozenset":
            items = list(value[1:])
        else:
            items = self.items_of(st, value)
        if obj is None or obj.kind != "set" or items is None:
            raise NotModelled("a set updated from an unknown iterable")
        self._set_add(st, obj, items)

    def op_BUILD_MAP(self, st: State, i: Instr) -> None:
        n = i.argval
        flat = self.take(st, 2 * n)
        pairs = [[flat[2 * k], flat[2 * k + 1]] for k in range(n)]
        self._check_keys(st, [k for k, _ in pairs])
        st.stack.append(self.new(st, "dict", pairs))

    def op_BUILD_CONST_KEY_MAP(self, st: State, i: Instr) -> None:
        keys = st.stack.pop()
        values = self.take(st, i.argval)
        if type(keys) is not tuple or keys[0] != "tuple":
            raise NotModelled("BUILD_CONST_KEY_MAP without constant keys")
        pairs = [[k, v] for k, v in zip(keys[1:], values)]
        self._check_keys(st, [k for k, _ in pairs])
        st.stack.append(self.new(st, "dict", pairs))

    def _check_keys(self, st: State, keys: list) -> None:
        """Dict keys must be plain distinct constants (hashing anything else runs code)."""
        for k in keys:
            if not (type(k) is tuple and k[0] == "const"):
                raise NotModelled("a dict key that is not a constant")
        if len(set(keys)) != len(keys):
            raise NotModelled("a dict display with a repeated key")

    def op_DICT_UPDATE(self, st: State, i: Instr, tag: str = "dict-update") -> None:
        other = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        if target is None or target.kind != "dict":
            raise NotModelled("a dict merge into an object the code did not build")
        src = self.fresh(st, other)
        if src is None or src.kind != "dict" or any(type(p) is tuple for p in src.items):
            # (an unknown mapping: its keys are read, and a merge checks them, running code)
            target.items.append(("spread", self.ev_show(st, tag, other)))
            return
        keys = {repr(p[0]) for p in target.items if type(p) is list}
        for k, v in src.items:
            if repr(k) in keys:
                raise NotModelled("a dict merge with a repeated key")
            target.items.append([k, v])

    def op_DICT_MERGE(self, st: State, i: Instr) -> None:
        self.op_DICT_UPDATE(st, i, "dict-merge")

    def op_LIST_APPEND(self, st: State, i: Instr) -> None:
        value = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        if target is None or target.kind != "list":
            raise NotModelled("LIST_APPEND to an unknown list")
        target.items.append(value)

    def op_LIST_EXTEND(self, st: State, i: Instr) -> None:
        value = st.stack.pop()
        target = self.fresh(st, self.peek(st, i.argval))
        items = self.items_of(st, value)
        if target is None or target.kind != "list":
            raise NotModelled("LIST_EXTEND of an unknown list")
        if items is None:
            raise NotModelled("a list extended by an iterable of unknown length")
        target.items.extend(items)

    def op_LIST_TO_TUPLE(self, st: State, i: Instr) -> None:
        items = self.items_of(st, st.stack.pop())
        if items is None:
            raise NotModelled("a tuple made of an unknown list")
        st.stack.append(("tuple",) + tuple(items))

    def op_CALL_INTRINSIC_1(self, st: State, i: Instr) -> None:
        if i.argval == "INTRINSIC_LIST_TO_TUPLE":
            self.op_LIST_TO_TUPLE(st, i)
        elif i.argval == "INTRINSIC_UNARY_POSITIVE":
            st.stack.append(self.ev_show(st, "unary", ("name", "+"), st.stack.pop()))
        else:
            raise NotModelled(f"CALL_INTRINSIC_1 {i.argval}")

    def op_UNPACK_SEQUENCE(self, st: State, i: Instr) -> None:
        seq = st.stack.pop()
        items = self.items_of(st, seq)
        if items is None:
            r = self.ev_show(st, "unpack", seq, ("count", i.argval))
            items = [("item", r, k) for k in range(i.argval)]
        elif len(items) != i.argval:
            raise NotModelled("unpacking a sequence of the wrong length")
        st.stack.extend(reversed(items))

    def op_MAKE_FUNCTION(self, st: State, i: Instr) -> None:
        if TABLE.make_function_pops_qualname:
            st.stack.pop()  # (the qualified name)
        code = st.stack.pop()
        flags = i.argval or 0
        parts = []
        for bit, what in ((8, "closure"), (4, "annotations"), (2, "kwdefaults"), (1, "defaults")):
            if flags & bit:
                parts.append((what, st.stack.pop()))
        st.stack.append(self._function(st, code, parts))

    def _function(self, st: State, code: Any, parts: list) -> tuple:
        # building a function runs no code; what it closes over and its defaults escape.  Each
        # function made is another object: named by the step where it is first seen outside
        # (one made only to read its closure is never seen), with the loop it was made in (one
        # made before a loop is the same object in every iteration, one made in it is not).
        st.functions += 1
        return ("function", code, ("fn-made", st.functions, st.loop_count)) + tuple(
            (what, self.show(st, v)) for what, v in sorted(parts, key=lambda p: p[0])
        )

    def op_SET_FUNCTION_ATTRIBUTE(self, st: State, i: Instr) -> None:
        fn = st.stack.pop()
        value = st.stack.pop()
        what = {8: "closure", 4: "annotations", 2: "kwdefaults", 1: "defaults"}.get(i.argval)
        if type(fn) is not tuple or fn[0] != "function" or what is None:
            raise NotModelled("SET_FUNCTION_ATTRIBUTE on an unknown function")
        parts = [p for p in fn[2:] if p[0] != what] + [(what, self.show(st, value))]
        st.stack.append(("function", fn[1]) + tuple(sorted(parts, key=lambda p: p[0])))
        # (("fn-made", n, loop) sorts among the parts: it stays)
