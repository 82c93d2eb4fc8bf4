"""Loads: names, constants, attributes, cells and the markers a call or a class body starts
with, pushed onto the stack.
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import (
    CONSTANT_NAMER,
    LOAD,
    SCALAR_TYPES,
    const,
    is_literal,
    name,
)
from pellucid.decompiler.instructions import TABLE, Instr


class LoadOps(EvaluatorBase):
    """Handlers of the ``LOAD_*`` opcodes and ``PUSH_NULL``."""

    def op_LOAD_CONST(self, ins: Instr, stack: list) -> None:
        v = ins.argval
        if type(v) in SCALAR_TYPES:
            stack.append(ast.Constant(v))  # what const(v) gives (most constants)
            return
        if hasattr(v, "co_code"):
            stack.append(V.FunctionValue(code=v))  # completed by MAKE_FUNCTION
            stack[-1].raw_code_const = True
            return
        namer = CONSTANT_NAMER.get()
        if namer is not None and not is_literal(v):
            stack.append(name(namer(v)))  # the caller binds this name to the object
            return
        stack.append(const(v))

    def op_LOAD_FAST(self, ins: Instr, stack: list) -> None:
        if ins.argval == ".0":  # a comprehension's iterator argument (3.9-3.11)
            stack.append(V.Iterator(name(".0")))
            return
        n = ast.Name(ins.argval, LOAD)  # (name(), inline: the commonest value)
        if ins._extra is not None and ins._extra.get("may_be_unbound") or (
            not TABLE.marks_unbound_loads and ins.argval not in self._surely_bound()
        ):
            # loading it may raise: code must not move before it (see Walker.spill)
            n.may_be_unbound = True
        stack.append(n)

    def op_LOAD_NAME(self, ins: Instr, stack: list) -> None:
        stack.append(ast.Name(ins.argval, LOAD))

    op_LOAD_GLOBAL = op_LOAD_DEREF = op_LOAD_CLASSDEREF = op_LOAD_NAME

    def _surely_bound(self) -> frozenset:
        """The locals no LOAD_FAST of this code can find unbound, where the bytecode does not
        say (3.9-3.11): the parameters that are never deleted."""
        bound = self.__dict__.get("_e_surely_bound")
        if bound is None:
            c = self.code
            n = c.co_argcount + c.co_kwonlyargcount
            n += bool(c.co_flags & 0x04) + bool(c.co_flags & 0x08)  # *args, **kwargs
            deleted = {i.argval for i in self.ins if i.op == "DELETE_FAST"}
            bound = self._e_surely_bound = frozenset(c.co_varnames[:n]) - deleted
        return bound

    def op_LOAD_CLOSURE(self, ins: Instr, stack: list) -> None:
        n = name(ins.argval)
        n.is_cell = True  # the cell object itself, not the value it holds
        stack.append(n)

    def op_LOAD_FROM_DICT_OR_DEREF(self, ins: Instr, stack: list) -> None:
        stack.pop()  # the class namespace mapping
        stack.append(name(ins.argval))

    def op_LOAD_LOCALS(self, ins: Instr, stack: list) -> None:
        stack.append(V.ClassNamespace())

    def op_LOAD_FROM_DICT_OR_GLOBALS(self, ins: Instr, stack: list) -> None:
        stack.pop()  # the class namespace (__classdict__) an annotation scope reads first
        stack.append(name(ins.argval))

    def op_LOAD_ATTR(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Attribute(obj, ins.argval, LOAD))

    def op_LOAD_METHOD(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Attribute(obj, ins.argval, LOAD))
        stack.append(V.NULL)

    def op_LOAD_SUPER_ATTR(self, ins: Instr, stack: list) -> None:
        self_arg = self.pop_expr(stack, ins)
        cls = self.pop_expr(stack, ins)
        sup = self.pop_expr(stack, ins)
        if ins.extra.get("two_arg"):
            call = ast.Call(func=sup, args=[cls, self_arg], keywords=[])
        else:
            call = ast.Call(func=sup, args=[], keywords=[])
        stack.append(ast.Attribute(value=call, attr=ins.argval, ctx=ast.Load()))
        if ins.extra.get("extra_method"):
            stack.append(V.NULL)

    def op_LOAD_ASSERTION_ERROR(self, ins: Instr, stack: list) -> None:
        n = name("AssertionError")
        n.is_assertion_error = True
        stack.append(n)

    def op_LOAD_BUILD_CLASS(self, ins: Instr, stack: list) -> None:
        stack.append(name("__build_class__"))

    def op_PUSH_NULL(self, ins: Instr, stack: list) -> None:
        stack.append(V.NULL)
