"""Stack shuffles, locals, cells and globals: the instructions that move values around
(locals, temporaries and shuffles disappear into terms) and the name reads and stores that
are events.
"""

from __future__ import annotations

from typing import Any

from pellucid.decompiler.instructions import Instr
from pellucid.decompiler.validation.state import State
from pellucid.decompiler.validation.terms import DYNAMO_GLOBAL_PREFIXES, NULL, const_term


class StackOps:
    """The effects of stack shuffles, locals, cells and globals (mixed into ``Executor``)."""

    @staticmethod
    def take(st: State, n: int) -> list:
        """The top ``n`` values of the stack, popped (the deepest first).  A stack shallower
        than that is code the executor cannot follow (a slice would quietly take fewer)."""
        s = st.stack
        if not 0 <= n <= len(s):
            raise IndexError(f"{n} values taken from a stack of {len(s)}")
        items = s[len(s) - n:]
        del s[len(s) - n:]
        return items

    @staticmethod
    def peek(st: State, n: int) -> Any:
        """The value ``n`` deep on the stack (1 is the top), checked like :meth:`take`."""
        if not 1 <= n <= len(st.stack):
            raise IndexError(f"value {n} deep read from a stack of {len(st.stack)}")
        return st.stack[-n]

    def op_NOP(self, st: State, i: Instr) -> None:
        pass

    def op_POP_TOP(self, st: State, i: Instr) -> None:
        st.stack.pop()

    def op_PUSH_NULL(self, st: State, i: Instr) -> None:
        st.stack.append(NULL)

    def op_COPY(self, st: State, i: Instr) -> None:
        st.stack.append(self.peek(st, i.argval))

    def op_SWAP(self, st: State, i: Instr) -> None:
        s, n = st.stack, i.argval
        self.peek(st, n)
        s[-1], s[-n] = s[-n], s[-1]

    def op_ROT_THREE(self, st: State, i: Instr) -> None:
        s = st.stack
        s[-3:] = [s[-1], s[-3], s[-2]]

    def op_ROT_FOUR(self, st: State, i: Instr) -> None:
        s = st.stack
        s[-4:] = [s[-1], s[-4], s[-3], s[-2]]

    def op_ROT_N(self, st: State, i: Instr) -> None:
        items = self.take(st, i.argval)
        st.stack.extend(items[-1:] + items[:-1])

    def op_DUP_TOP_TWO(self, st: State, i: Instr) -> None:
        items = self.take(st, 2)
        st.stack.extend(items + items)

    def op_LOAD_CONST(self, st: State, i: Instr) -> None:
        st.stack.append(const_term(i.argval, self.code_alias))

    def op_LOAD_FAST(self, st: State, i: Instr) -> None:
        name = i.argval
        if name not in st.local:
            self.raise_(st, ("unbound-local", name))
            return
        st.stack.append(st.local[name])

    op_LOAD_FAST_CHECK = op_LOAD_FAST

    def op_STORE_FAST(self, st: State, i: Instr) -> None:
        st.local[i.argval] = st.stack.pop()

    def op_DELETE_FAST(self, st: State, i: Instr) -> None:
        if st.local.pop(i.argval, None) is None:
            self.raise_(st, ("unbound-local", i.argval))

    def op_LOAD_CLOSURE(self, st: State, i: Instr) -> None:
        st.stack.append(("cell", i.argval))

    def op_LOAD_DEREF(self, st: State, i: Instr) -> None:
        name = i.argval
        if name in self.own_cells and name in st.cells:
            # a cell only this frame writes, bound: its value is what the frame put there
            st.stack.append(("cell-value", name, st.cells[name]))
            return
        st.stack.append(self.event(st, ("deref", name)))

    op_LOAD_CLASSDEREF = op_LOAD_DEREF

    def op_STORE_DEREF(self, st: State, i: Instr) -> None:
        self.ev_show(st, "store-cell", ("name", i.argval), st.stack.pop())
        st.cells = {**st.cells, i.argval: len(st.path)}

    def op_DELETE_DEREF(self, st: State, i: Instr) -> None:
        self.event(st, ("delete-cell", i.argval))
        st.cells = {k: v for k, v in st.cells.items() if k != i.argval}

    def op_LOAD_GLOBAL(self, st: State, i: Instr) -> None:
        name = i.argval
        if name in self.constant_names:
            st.stack.append(const_term(self.constant_names[name], self.code_alias))
            return
        name = self.global_aliases.get(name, name)
        if name.startswith(DYNAMO_GLOBAL_PREFIXES):
            st.stack.append(("global", name))
        else:
            st.stack.append(self.event(st, ("load-global", name)))

    op_LOAD_NAME = op_LOAD_GLOBAL

    def op_STORE_GLOBAL(self, st: State, i: Instr) -> None:
        self.ev_show(st, "store-global", ("name", i.argval), st.stack.pop())

    op_STORE_NAME = op_STORE_GLOBAL

    def op_DELETE_GLOBAL(self, st: State, i: Instr) -> None:
        self.event(st, ("delete-global", i.argval))

    op_DELETE_NAME = op_DELETE_GLOBAL
