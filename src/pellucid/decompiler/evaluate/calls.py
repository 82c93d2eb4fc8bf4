"""Calls and function building: the call opcodes of every version (a call of a
comprehension's function or a decorator is read as such), ``MAKE_FUNCTION`` and the
attributes (defaults, closure, annotations) a function is made with.
"""

from __future__ import annotations

import ast
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate.base import EvaluatorBase
from pellucid.decompiler.evaluate.nodes import ClosureTuple, name
from pellucid.decompiler.instructions import TABLE, Instr

CO_FUTURE_ANNOTATIONS = 0x1000000


class CallOps(EvaluatorBase):
    """Handlers of the call opcodes and of those that make a function."""

    def generic_definition(self, fv: V.FunctionValue, args: list, ins: Instr) -> Any:
        raise self.fail(f"function {fv.code.co_name} used as a value", ins, kind=Refusal.DEFINITION)

    # -- calls
    def _finish_call(self, func: Any, args: list, kwnames: tuple, stack: list, ins: Instr) -> None:
        npos = len(args) - len(kwnames)
        keywords = [
            ast.keyword(arg=k, value=self.as_expr(v, ins)) for k, v in zip(kwnames, args[npos:])
        ]
        call_args = args[:npos]
        fexpr = func
        if isinstance(func, V.FunctionValue):
            if (
                len(call_args) == 1
                and isinstance(call_args[0], V.Iterator)
                and func.code.co_name in ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
            ):
                stack.append(self.comprehension_expr(func, call_args[0].iterable, ins))
                return
            if func.code.co_name.startswith("<generic parameters of "):
                # 3.12+: `type X[T] = ...`, generic classes and functions run such a function
                stack.append(self.generic_definition(func, args, ins))
                return
            fexpr = self.function_expr(func, ins)
        if call_args and isinstance(call_args[0], V.FunctionValue) and len(args) == 1:
            fv = call_args[0]
            if fv.code.co_name != "<lambda>":
                # decorator application: keep the function pending
                fv.decorators.insert(0, self.as_expr(func, ins))
                stack.append(fv)
                return
        stack.append(ast.Call(self.as_expr(fexpr, ins), [self.as_expr(a, ins) for a in call_args], keywords))

    def _pop_callable(self, stack: list, ins: Instr, args: list | None = None) -> Any:
        """Pop the two callable slots; a non-NULL second slot is a first argument."""
        a = stack.pop()
        b = stack.pop()
        if a is V.NULL:
            return b
        if b is V.NULL:
            return a
        if args is None:
            raise self.fail("call without NULL marker", ins, kind=Refusal.STACK)
        args.insert(0, a)
        return b

    def op_CALL(self, ins: Instr, stack: list) -> None:
        kwnames = self.pending_kwnames or ()
        self.pending_kwnames = None
        args = self._pop_args(stack, ins.arg, ins)
        func = self._pop_callable(stack, ins, args)
        self._finish_call(func, args, kwnames, stack, ins)

    def op_CALL_KW(self, ins: Instr, stack: list) -> None:
        names = self.pop_expr(stack, ins)
        args = self._pop_args(stack, ins.arg, ins)
        func = self._pop_callable(stack, ins, args)
        self._finish_call(func, args, tuple(e.value for e in names.elts), stack, ins)

    def op_KW_NAMES(self, ins: Instr, stack: list) -> None:
        self.pending_kwnames = ins.argval

    def _pop_args(self, stack: list, n: int, ins: Instr) -> list:
        if len(stack) < n:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        args = stack[len(stack) - n :] if n else []
        if n:
            del stack[-n:]
        return args

    def op_CALL_FUNCTION(self, ins: Instr, stack: list) -> None:
        args = self._pop_args(stack, ins.arg, ins)
        func = stack.pop()
        self._finish_call(func, args, (), stack, ins)

    def op_CALL_FUNCTION_KW(self, ins: Instr, stack: list) -> None:
        names = self.pop_expr(stack, ins)
        args = self._pop_args(stack, ins.arg, ins)
        func = stack.pop()
        self._finish_call(func, args, tuple(e.value for e in names.elts), stack, ins)

    def op_CALL_METHOD(self, ins: Instr, stack: list) -> None:
        args = self._pop_args(stack, ins.arg, ins)
        func = self._pop_callable(stack, ins, args)
        self._finish_call(func, args, (), stack, ins)

    def op_CALL_FUNCTION_EX(self, ins: Instr, stack: list) -> None:
        kwargs = None
        if ins.arg & 1:
            kwargs = self.pop_expr(stack, ins)
        posargs = self.pop_expr(stack, ins)
        if TABLE.calls_push_null:
            func = self._pop_callable(stack, ins)
        else:
            func = stack.pop()
        args: list[ast.expr] = []
        if isinstance(posargs, (ast.Tuple, ast.List)):
            args = list(posargs.elts)
            if isinstance(posargs, ast.List) and getattr(posargs, "folded", False):
                args = [ast.Starred(value=ast.Tuple(elts=args, ctx=ast.Load()), ctx=ast.Load())]
        else:
            args = [ast.Starred(value=posargs, ctx=ast.Load())]
        keywords: list[ast.keyword] = []
        if kwargs is not None:
            if isinstance(kwargs, ast.Dict) and (getattr(kwargs, "is_kwargs", False) or True):
                for k, v in zip(kwargs.keys, kwargs.values):
                    if k is None:
                        keywords.append(ast.keyword(arg=None, value=v))
                    elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                        keywords.append(ast.keyword(arg=k.value, value=v))
                    else:
                        raise self.fail("non-string keyword", ins, kind=Refusal.EXPRESSION)
            else:
                keywords.append(ast.keyword(arg=None, value=kwargs))
        stack.append(ast.Call(func=self.as_expr(func, ins), args=args, keywords=keywords))

    # ----------------------------------------------------------- functions
    # -- making a function
    def op_MAKE_FUNCTION(self, ins: Instr, stack: list) -> None:
        if TABLE.make_function_pops_qualname:
            self.pop_expr(stack, ins)  # qualified name
        fv = stack.pop()
        if not isinstance(fv, V.FunctionValue):
            raise self.fail("MAKE_FUNCTION without a code object", ins, kind=Refusal.DEFINITION)
        fv = V.FunctionValue(code=fv.code)
        flags = ins.arg if TABLE.make_function_flags else 0
        if flags & 0x08:
            fv.closure = self._closure_names(stack.pop(), ins)
        if flags & 0x04:
            fv.annotations = self._annotations(self.pop_expr(stack, ins), ins)
        if flags & 0x02:
            kw = self.pop_expr(stack, ins)
            fv.kwdefaults = [(k.value, v) for k, v in zip(kw.keys, kw.values)]
        if flags & 0x01:
            d = self.pop_expr(stack, ins)
            fv.defaults = list(d.elts)
        stack.append(fv)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins: Instr, stack: list) -> None:
        fv = stack.pop()
        value = stack.pop()
        flag = ins.arg
        if flag == 0x08:
            fv.closure = self._closure_names(value, ins)
        elif flag == 0x04:
            fv.annotations = self._annotations(self.as_expr(value, ins), ins)
        elif flag == 0x02:
            fv.kwdefaults = [(k.value, v) for k, v in zip(value.keys, value.values)]
        elif flag == 0x01:
            if isinstance(value, ClosureTuple):
                value = ast.Tuple(elts=[name(n) for n in value.names], ctx=ast.Load())
            fv.defaults = list(value.elts)
        elif flag == 0x10 and isinstance(value, V.FunctionValue):
            # 3.14+: the annotations, made lazily by an __annotate__ function
            from pellucid.decompiler.annotate import annotations_of

            read = annotations_of(value.code)
            if read is None:
                raise self.fail("unrecognized __annotate__ function", ins, kind=Refusal.DEFINITION)
            keys = [ast.Constant(k) for k in read]
            fv.annotations = self._annotations(ast.Dict(keys, list(read.values())), ins)
        else:
            raise self.fail(f"unsupported function attribute {flag}", ins, kind=Refusal.DEFINITION)
        stack.append(fv)

    def _closure_names(self, value: Any, ins: Instr) -> list[str]:
        if isinstance(value, ClosureTuple):
            return value.names
        if isinstance(value, ast.Tuple) and all(isinstance(e, ast.Name) for e in value.elts):
            return [e.id for e in value.elts]
        raise self.fail("closure is not a tuple of cells", ins, kind=Refusal.DEFINITION)

    def _annotations(self, value: ast.expr, ins: Instr) -> dict[str, ast.expr]:
        if isinstance(value, ast.Dict):
            pairs = {k.value: v for k, v in zip(value.keys, value.values)}
        elif isinstance(value, ast.Tuple):
            e = value.elts
            pairs = {e[i].value: e[i + 1] for i in range(0, len(e), 2)}
        else:
            raise self.fail("unrecognized annotations", ins, kind=Refusal.DEFINITION)
        if self.code.co_flags & CO_FUTURE_ANNOTATIONS:
            # `from __future__ import annotations` stored them as source text
            for k, v in pairs.items():
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    try:
                        pairs[k] = ast.parse(v.value, mode="eval").body
                    except SyntaxError:
                        raise self.fail("annotation string is not an expression", ins, kind=Refusal.DEFINITION) from None
        return pairs
