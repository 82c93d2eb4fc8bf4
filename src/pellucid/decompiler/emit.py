"""Assemble decompiled bodies into ``def``/``lambda``/comprehension/module ast, then unparse."""

from __future__ import annotations

import ast
from types import CodeType, FunctionType
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.annotate import AnnotationMark, is_conditional_set
from pellucid.decompiler.classes import (
    ClassValue,
    class_source_def,
    def_name_matches,
    is_class_body,
    module_body,
    store_class,
)
from pellucid.decompiler.comprehension_filters import filter_prefix
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import BINOPS, CO_FUTURE_ANNOTATIONS, const, name
from pellucid.decompiler.generators import finish_generator_body, is_async_code
from pellucid.decompiler.implicit_returns import (
    dead_implicit_return,
    explicit_final_return,
    final_return,
    fold_return_ternaries,
    restore_ending_elses,
    strip_implicit_returns,
)
from pellucid.decompiler.instructions import TABLE, Instr, flagged_docstring, normalize
from pellucid.decompiler.live_values import annotation_ast, type_params_ast, value_ast
from pellucid.decompiler.regions.build import _negate, restore_final_else
from pellucid.decompiler.structure import Walker
from pellucid.decompiler.unparse import unparse

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
COMPREHENSIONS = {"<listcomp>": "list", "<setcomp>": "set", "<dictcomp>": "dict", "<genexpr>": "gen"}


class CompAppend(ast.stmt):
    """LIST_APPEND/SET_ADD/MAP_ADD/yield inside a comprehension body."""

    _fields = ("kind", "elt", "value")

    def __init__(self, kind: str, elt: ast.expr, value: ast.expr | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.elt = elt
        self.value = value


class SentValue(V.Marker):
    """What a genexpr's YIELD_VALUE pushes back; always discarded."""


# The set of annotations that ran, once SET_ADD recorded one in it (popped right after)
_RECORDED = V.Marker()


# 3.12+ intrinsics that make a type parameter from its name, and the ast node each writes as
_TYPE_PARAM_KINDS = {
    "INTRINSIC_TYPEVAR": getattr(ast, "TypeVar", None),
    "INTRINSIC_PARAMSPEC": getattr(ast, "ParamSpec", None),
    "INTRINSIC_TYPEVARTUPLE": getattr(ast, "TypeVarTuple", None),
}
_TYPE_PARAM_NODES = tuple(k for k in _TYPE_PARAM_KINDS.values() if k is not None)
_TYPE_PARAMS, _GENERIC_BASE = ("type_params",), ("generic_base",)  # in generic_definition
# the ast of this Python has type parameters (3.12+ grammar)
_HAS_TYPE_PARAMS = "type_params" in ast.FunctionDef._fields
_BOUNDED = frozenset({"INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS"})


def _is_str(v: Any) -> bool:
    return isinstance(v, ast.Constant) and isinstance(v.value, str)


def _is_function(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "function"


class CodeWalker(Walker):
    """A walker that knows how to turn nested code objects into source."""

    def __init__(self, code: CodeType, mode: str = "function", thread_jumps: bool = False) -> None:
        super().__init__(code, thread_jumps)
        self.mode = mode

    def threaded_walker(self) -> CodeWalker:
        return CodeWalker(self.code, self.mode, thread_jumps=True)

    def check_supported(self) -> None:
        if self.mode == "genexpr":
            # a generator expression is a generator by construction; we only
            # accept the single shape it compiles to (checked when converting)
            return
        super().check_supported()

    def _only_comprehension_handlers(self) -> bool:
        if self.mode == "genexpr":
            return True
        return super()._only_comprehension_handlers()

    # ---- nested code
    def builds_type_alias(self, ins: Instr) -> bool:
        nxt = self.ins[ins.index + 1] if ins.index + 1 < self.n else None
        return nxt is not None and nxt.op == "CALL_INTRINSIC_1" and nxt.argval == "INTRINSIC_TYPEALIAS"

    def type_alias(self, parts: Any, ins: Instr) -> V.TypeAliasValue:
        """``type Name = value`` (3.12+): the intrinsic's operand is (name, None, value function)."""
        items = parts.items if isinstance(parts, V.TypeAliasParts) else None
        if (
            items is None
            or not (isinstance(items[0], ast.Constant) and isinstance(items[0].value, str))
            or not (isinstance(items[1], ast.Constant) and items[1].value is None)
            or not isinstance(items[2], V.FunctionValue)
        ):
            raise self.fail("unrecognized type alias", ins, kind=Refusal.DEFINITION)
        return V.TypeAliasValue(items[0].value, [], self.returned_expr(items[2].code, ins))

    def returned_expr(self, code: CodeType, ins: Instr | None) -> ast.expr:
        """The expression a lazily evaluated body returns (a type alias's value, a bound)."""
        from pellucid.decompiler.annotate import format_guard_end

        walker = CodeWalker(code)
        start = format_guard_end(code, walker.ins)
        body = walker.walk(start, walker.n, [], frozenset())[0] if start else walker.body()
        value = _returns_as_expression(body)
        if value is None:
            raise self.fail(f"{code.co_name}: not a single returned expression", ins, kind=Refusal.DEFINITION)
        return value

    def generic_definition(self, fv: V.FunctionValue, args: list, ins: Instr) -> Any:
        """What a ``<generic parameters of X>`` function returns (3.12+): a generic ``type``
        alias, a generic class (with bases and keywords), or a generic function; annotations,
        bounds and bases made of names, constants, attributes, subscripts, lists, operators
        and ``*Ts``.
        Its code is straight-line: make each type parameter (stored under its name), then the
        alias (from the name, the parameters and the value function), the class
        (``__build_class__(body, name, *bases, Generic[*params])``) or the function (its defaults
        come in as this function's arguments; its annotations are evaluated here)."""
        code = fv.code
        env = dict(zip(code.co_varnames[: code.co_argcount], args))  # .defaults, .kwdefaults
        cells = code.co_cellvars + code.co_freevars
        stack: list = []
        params: list = []
        kwnames: tuple = ()
        for i in normalize(code):
            op, arg = i.op, i.argval
            top = stack[-1] if stack else None
            if op == "CALL_KW" and isinstance(top, ast.Tuple) and all(_is_str(k) for k in top.elts):
                kwnames = tuple(k.value for k in stack.pop().elts)  # 3.13: the names on the stack
                op = "CALL"
            if op == "LOAD_CONST":
                stack.append(("code", arg) if isinstance(arg, CodeType) else const(arg))
            elif op == "CALL_INTRINSIC_1" and arg in _TYPE_PARAM_KINDS and _is_str(top):
                node = _TYPE_PARAM_KINDS[arg](name=stack.pop().value)
                if isinstance(node, getattr(ast, "TypeVar", ())):
                    node.bound = None
                stack.append(node)
            elif op == "CALL_INTRINSIC_2" and arg in _BOUNDED and len(stack) >= 2:
                bound_fn, pname = stack.pop(), stack.pop()
                if not (_is_function(bound_fn) and _is_str(pname)):
                    break
                stack.append(ast.TypeVar(name=pname.value, bound=self.returned_expr(bound_fn[1], ins)))
            elif op == "COPY" and i.arg == 1 and stack:
                stack.append(top)
            elif op in ("STORE_DEREF", "STORE_FAST") and isinstance(top, _TYPE_PARAM_NODES) and top.name == arg:
                params.append(stack.pop())
            elif op == "STORE_DEREF" and arg == ".type_params" and top == tuple(params):
                stack.pop()  # a generic class's parameters, which its body reads
            elif op == "LOAD_DEREF" and arg == ".type_params":
                stack.append(_TYPE_PARAMS)
            elif op == "CALL_INTRINSIC_1" and arg == "INTRINSIC_SUBSCRIPT_GENERIC" and top is _TYPE_PARAMS:
                stack[-1] = _GENERIC_BASE  # Generic[*params], the implicit last base
            elif op == "STORE_FAST" and arg == ".generic_base" and top is _GENERIC_BASE:
                stack.pop()
            elif op == "LOAD_FAST" and arg == ".generic_base":
                stack.append(_GENERIC_BASE)
            elif op == "LOAD_CLOSURE" or (op == "LOAD_FAST" and arg in cells and arg not in env):
                stack.append(("cell", arg))  # 3.13 spells LOAD_CLOSURE as LOAD_FAST
            elif op == "LOAD_FAST" and arg in env:
                stack.append(env[arg])
            elif op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME"):
                stack.append(name(arg))  # in an annotation
            elif op in ("LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF") and isinstance(top, ast.Name) and top.id == "__classdict__":
                stack[-1] = name(arg)  # a name in a class body's annotation scope
            elif op == "UNPACK_SEQUENCE" and i.arg == 1 and isinstance(top, ast.expr):
                stack[-1] = ast.Starred(value=top, ctx=ast.Load())  # `*args: *Ts`
            elif op == "LOAD_ATTR" and isinstance(top, ast.expr):
                stack[-1] = ast.Attribute(value=top, attr=arg, ctx=ast.Load())
            elif op == "BINARY_SUBSCR" and len(stack) >= 2 and all(isinstance(v, ast.expr) for v in stack[-2:]):
                index = stack.pop()
                stack[-1] = ast.Subscript(value=stack[-1], slice=index, ctx=ast.Load())
            elif op == "BINARY_OP" and arg in BINOPS and len(stack) >= 2 and all(isinstance(v, ast.expr) for v in stack[-2:]):
                right = stack.pop()
                stack[-1] = ast.BinOp(left=stack[-1], op=BINOPS[arg](), right=right)
            elif op == "BUILD_TUPLE" and len(stack) >= i.arg:
                items = stack[len(stack) - i.arg :] if i.arg else []
                del stack[len(stack) - i.arg :]
                exprs = i.arg and all(isinstance(v, ast.expr) for v in items)
                stack.append(ast.Tuple(elts=items, ctx=ast.Load()) if exprs else tuple(items))
            elif op == "BUILD_LIST" and len(stack) >= i.arg and all(isinstance(v, ast.expr) for v in stack[len(stack) - i.arg :]):
                items = stack[len(stack) - i.arg :] if i.arg else []
                del stack[len(stack) - i.arg :]
                stack.append(ast.List(elts=items, ctx=ast.Load()))  # Callable[[T], R]
            elif op == "SWAP" and len(stack) >= i.arg:
                stack[-1], stack[-i.arg] = stack[-i.arg], stack[-1]
            elif op == "MAKE_FUNCTION" and top is not None and top[0] == "code":
                fn = ("function", stack.pop()[1], {})
                for bit in (8, 4, 2, 1):  # 3.12: what the flags say, below the code
                    if (i.arg or 0) & bit:
                        fn[2][bit] = stack.pop()
                stack.append(fn)
            elif op == "SET_FUNCTION_ATTRIBUTE" and len(stack) >= 2 and _is_function(top):  # 3.13
                fn = stack.pop()
                fn[2][i.arg] = stack.pop()
                stack.append(fn)
            elif op == "CALL_INTRINSIC_1" and arg == "INTRINSIC_TYPEALIAS" and stack:
                parts = stack.pop()
                if not (
                    isinstance(parts, tuple) and len(parts) == 3 and _is_str(parts[0])
                    and list(parts[1]) == params and _is_function(parts[2])
                ):
                    break
                stack.append(V.TypeAliasValue(parts[0].value, params, self.returned_expr(parts[2][1], ins)))
            elif op == "CALL_INTRINSIC_2" and arg == "INTRINSIC_SET_FUNCTION_TYPE_PARAMS" and len(stack) >= 2:
                made, fn = stack.pop(), stack.pop()
                if not (_is_function(fn) and list(made) == params):
                    break
                stack.append(self._generic_function(fn, params, ins))
            elif op in ("LOAD_BUILD_CLASS", "PUSH_NULL"):
                stack.append(op)
            elif op == "KW_NAMES" and isinstance(arg, tuple):  # 3.12
                kwnames = arg
            elif op == "CALL" and len(stack) == i.arg + 2 and set(stack[:2]) == {"LOAD_BUILD_CLASS", "PUSH_NULL"}:
                # a generic class: __build_class__(body, name, *bases, Generic[*params], **kw)
                args = stack[2:]
                positional, values = args[: len(args) - len(kwnames)], args[len(args) - len(kwnames) :]
                if len(positional) < 3:
                    break
                body, cname, *bases, base = positional
                if not (
                    _is_function(body) and _is_str(cname) and base is _GENERIC_BASE
                    and all(isinstance(b, ast.expr) for b in bases + values)
                ):
                    break
                del stack[:]
                keywords = [ast.keyword(arg=k, value=v) for k, v in zip(kwnames, values)]
                stack.append(
                    ClassValue(code=body[1], name=cname.value, bases=bases, keywords=keywords, type_params=params)
                )
                kwnames = ()
            elif op == "RETURN_VALUE" and len(stack) == 1 and isinstance(stack[0], (V.TypeAliasValue, V.FunctionValue)):
                return stack[0]
            else:
                break
        raise self.fail(
            f"{code.co_name}: a generic definition whose annotations, bounds or bases are more than "
            "names, constants, attributes, subscripts, lists and operators is not written back yet",
            ins,
            kind=Refusal.DEFINITION,
        )

    def _generic_function(self, fn: tuple, params: list, ins: Instr) -> V.FunctionValue:
        """A generic function's value from its MAKE_FUNCTION attributes (defaults 1,
        keyword defaults 2, annotations 4 as a (name, value, ...) tuple, 3.14+: annotate 16,
        an ``__annotate__`` function)."""
        attrs = fn[2]
        defaults, kwdefaults, notes = attrs.get(1), attrs.get(2), attrs.get(4)
        out = V.FunctionValue(code=fn[1], type_params=params)
        if defaults is not None:
            if not isinstance(defaults, ast.Tuple):
                raise self.fail("generic function defaults that are not a tuple", ins, kind=Refusal.DEFINITION)
            out.defaults = list(defaults.elts)
        if kwdefaults is not None:
            if not (isinstance(kwdefaults, ast.Dict) and all(_is_str(k) for k in kwdefaults.keys)):
                raise self.fail("generic function keyword defaults that are not a dict", ins, kind=Refusal.DEFINITION)
            out.kwdefaults = [(k.value, v) for k, v in zip(kwdefaults.keys, kwdefaults.values)]
        if notes is not None:
            elts = notes.elts if isinstance(notes, ast.Tuple) else None
            if elts is None or len(elts) % 2 or not all(_is_str(k) for k in elts[0::2]):
                raise self.fail("generic function annotations that are not name/value pairs", ins, kind=Refusal.DEFINITION)
            out.annotations = {k.value: v for k, v in zip(elts[0::2], elts[1::2])}
        annotate = attrs.get(16)
        if annotate is not None:
            # 3.14+: the annotations, made lazily by an __annotate__ function
            from pellucid.decompiler.annotate import annotations_of

            read = annotations_of(annotate[1]) if _is_function(annotate) else None
            if read is None:
                raise self.fail("generic function annotations of an unknown shape", ins, kind=Refusal.DEFINITION)
            out.annotations = read
        return out

    def next_is_comprehension(self, ins: Instr) -> bool:
        i = ins.index
        if i + 2 >= self.n:
            return False
        a, b = self.ins[i + 1], self.ins[i + 2]
        if a.op == "SWAP" and a.argval == 2 and b.op == "FOR_ITER":
            return True
        return a.op == "LOAD_FAST" and a.argval == ".0" and b.op == "FOR_ITER"

    def op_LOAD_FAST_AND_CLEAR(self, ins: Instr, stack: list) -> None:
        stack.append(V.SavedLocal(ins.argval))

    def op_LIST_APPEND(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        if self._literal_target(ins, stack, ast.List):
            stack[-ins.arg].elts.append(v)  # `[*a, b]`: a display being built
            return
        self._check_acc(stack, ins, "list")
        self.emit(CompAppend("list", v))

    def op_SET_ADD(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        if (
            ins.arg == 1 and stack and is_conditional_set(stack[-1])
            and isinstance(v, ast.Constant) and type(v.value) is int
        ):
            # 3.14+: an annotation statement ran (the module records it for __annotate__)
            stack[-1] = _RECORDED  # (first: emitting saves names still on the stack)
            self.emit(AnnotationMark(v.value))
            return
        if self._literal_target(ins, stack, ast.Set):
            stack[-ins.arg].elts.append(v)
            return
        self._check_acc(stack, ins, "set")
        self.emit(CompAppend("set", v))

    def op_MAP_ADD(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        k = self.pop_expr(stack, ins)
        if self._literal_target(ins, stack, ast.Dict):
            stack[-ins.arg].keys.append(k)  # a large dict display
            stack[-ins.arg].values.append(v)
            return
        self._check_acc(stack, ins, "dict")
        self.emit(CompAppend("dict", k, v))

    def _check_acc(self, stack: list, ins: Instr, kind: str) -> None:
        n = ins.arg
        if len(stack) < n or not isinstance(stack[-n], V.Accumulator) or stack[-n].kind != kind:
            raise self.fail(f"{ins.op} without a {kind} being built", ins, kind=Refusal.COMPREHENSION)

    def op_YIELD_VALUE(self, ins: Instr, stack: list) -> None:
        if self.mode != "genexpr":
            return super().op_YIELD_VALUE(ins, stack)
        v = self.pop_expr(stack, ins)
        self.emit(CompAppend("gen", v))
        stack.append(SentValue())

    def op_RETURN_GENERATOR(self, ins: Instr, stack: list) -> None:
        if self.mode != "genexpr":
            raise self.fail("generators are not supported yet", ins, kind=Refusal.GENERATOR)
        stack.append(SentValue())

    def op_POP_TOP(self, ins: Instr, stack: list) -> None:
        if stack and (isinstance(stack[-1], SentValue) or stack[-1] is _RECORDED):
            stack.pop()
            return
        super().op_POP_TOP(ins, stack)

    def _closure_tuple(self, ins: Instr) -> bool:
        """Is the tuple built at ``ins`` the cells of the function made next?  (Only a code
        with free variables takes one: a tuple of names before one without them is its
        defaults, `lambda a=(y := b): 0`.)"""
        j = ins.index + 1
        if not (j < self.n and self.ins[j].op == "LOAD_CONST" and hasattr(self.ins[j].argval, "co_code")):
            return False
        return len(self.ins[j].argval.co_freevars) == ins.arg

    def function_expr(self, fv: V.FunctionValue, ins: Instr | None) -> ast.expr:
        if fv.code.co_name != "<lambda>":
            raise self.fail(f"function {fv.code.co_name} used as a value", ins, kind=Refusal.DEFINITION)
        if fv.decorators:
            raise self.fail("decorated lambda", ins, kind=Refusal.DEFINITION)
        w = CodeWalker(fv.code)
        value = _returns_as_expression(w.body())
        if value is None:
            raise self.fail("lambda body is not a single expression", ins, kind=Refusal.DEFINITION)
        return ast.Lambda(args=arguments(fv.code, fv.defaults, fv.kwdefaults, {}), body=value)

    def _store_function(self, fv: V.FunctionValue, target: ast.expr, ins: Instr) -> bool:
        if isinstance(fv, ClassValue):
            return store_class(self, fv, target, ins)
        if not isinstance(target, ast.Name) or not def_name_matches(self, fv.code.co_name, target.id):
            return False
        node = function_def(fv.code, fv.defaults, fv.kwdefaults, fv.annotations, fv.decorators)
        if fv.type_params:
            node.type_params = list(fv.type_params)
        self.emit(node)
        return True

    def comprehension_expr(self, fv: V.FunctionValue, iterable: ast.expr, ins: Instr) -> ast.expr:
        kind = COMPREHENSIONS[fv.code.co_name]
        w = CodeWalker(fv.code, "genexpr" if kind == "gen" else "comprehension")
        body = w.body()
        if kind == "gen":
            if not body or not isinstance(body[0], (ast.For, ast.AsyncFor)):
                raise self.fail("unrecognized generator expression", ins, kind=Refusal.COMPREHENSION)
            rest = body[1:]
            if rest and not (
                len(rest) == 1 and isinstance(rest[0], ast.Return) and _is_none(rest[0].value)
            ):
                raise self.fail("generator expression with trailing code", ins, kind=Refusal.COMPREHENSION)
            expr = w.comprehension_from_for("gen", body[0], ins)
        else:
            if len(body) != 1 or not isinstance(body[0], ast.Return):
                raise self.fail("unrecognized comprehension", ins, kind=Refusal.COMPREHENSION)
            expr = body[0].value
        gens = expr.generators
        if not (isinstance(gens[0].iter, ast.Name) and gens[0].iter.id == ".0"):
            raise self.fail("comprehension does not iterate its argument", ins, kind=Refusal.COMPREHENSION)
        gens[0].iter = iterable
        if kind != "gen" and fv.code.co_flags & 0x80:
            # 3.9-3.11: an async comprehension is a coroutine awaited where it is called
            expr.implicit_await = True
        return expr

    def build_comprehension(self, acc: V.Accumulator, node: ast.For, ins: Instr) -> ast.expr:
        return self.comprehension_from_for(acc.kind, node, ins)

    def comprehension_from_for(self, kind: str, node: ast.For, ins: Instr) -> ast.expr:
        gens: list[ast.comprehension] = []
        while True:
            if node.orelse:
                raise self.fail("comprehension loop with else", ins, kind=Refusal.COMPREHENSION)
            gen = ast.comprehension(
                target=node.target, iter=node.iter, ifs=[], is_async=int(isinstance(node, ast.AsyncFor))
            )
            gens.append(gen)
            body = [s for s in node.body if not isinstance(s, ast.Pass)]
            while True:
                if len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
                    gen.ifs.append(body[0].test)
                    body = body[0].body
                    continue
                if (
                    len(body) >= 2
                    and isinstance(body[0], ast.If)
                    and not body[0].orelse
                    and all(isinstance(s, ast.Pass) for s in body[0].body)
                ):
                    # a filter true once its test ran (`if q or 2`): the compiler keeps the
                    # test, whose jump goes where it falls through.  It jumps when `q` is
                    # true, the sense opposite to the `if not q: pass` the walk read
                    test = _negate(body[0].test)
                    gen.ifs.append(ast.BoolOp(op=ast.Or(), values=[test, const(True)]))
                    body = body[1:]
                    continue
                if (
                    len(body) >= 2
                    and isinstance(body[0], ast.If)
                    and not body[0].orelse
                    and len(body[0].body) == 1
                    and isinstance(body[0].body[0], ast.Continue)
                ):
                    gen.ifs.append(_negate(body[0].test))
                    body = body[1:]
                    continue
                if (
                    len(body) >= 2
                    and isinstance(body[0], ast.Assign)
                    and len(body[0].targets) == 1
                ):
                    # 3.14+ compile `for t in [v]` (one element, not starred) as `t = v`: a
                    # comprehension body holds no other assignment
                    gen = ast.comprehension(
                        target=body[0].targets[0],
                        iter=ast.List(elts=[body[0].value], ctx=ast.Load()),
                        ifs=[],
                        is_async=0,
                    )
                    gens.append(gen)
                    body = body[1:]
                    continue
                split = filter_prefix(body)
                if split is not None:
                    test, body = split
                    gen.ifs.append(test)
                    continue
                break
            if len(body) == 1 and isinstance(body[0], (ast.For, ast.AsyncFor)):
                node = body[0]
                continue
            if len(body) == 1 and isinstance(body[0], CompAppend) and body[0].kind == kind:
                app = body[0]
                break
            if not body:
                # a filter that is a false constant: the compiler dropped the element as dead
                # code (3.10+), so any element and a false filter compile to this loop
                gen.ifs.append(const(False))
                app = CompAppend(kind, const(None), const(None) if kind == "dict" else None)
                break
            raise self.fail("comprehension body is not a single append", ins, kind=Refusal.COMPREHENSION)
        if kind == "list":
            return ast.ListComp(elt=app.elt, generators=gens)
        if kind == "set":
            return ast.SetComp(elt=app.elt, generators=gens)
        if kind == "dict":
            return ast.DictComp(key=app.elt, value=app.value, generators=gens)
        return ast.GeneratorExp(elt=app.elt, generators=gens)

    def as_expr(self, v: Any, ins: Instr | None) -> ast.expr:
        if (
            not self.assign_chains  # (and is_plain_expr(v), inline: once per value used)
            and isinstance(v, ast.expr)
            and not isinstance(v, ast.FormattedValue)
            and not getattr(v, "is_cell", False)
        ):
            return v  # (the common case, without the calls below)
        targets = self.assign_chains.pop(id(v), (None, None))[1]
        e = super().as_expr(v, ins)
        if targets:
            if not all(isinstance(t, ast.Name) for t in targets):
                raise self.fail("assignment expression to a non-name target", ins, kind=Refusal.EXPRESSION)
            # `(b := (a := e))`: each walrus copies the value once more (Dynamo writes these)
            for t in targets:
                t.ctx = ast.Store()
                e = ast.NamedExpr(t, e)
        return e





def _returns_as_expression(body: list[ast.stmt]) -> ast.expr | None:
    """A lambda body: `return e`, or returns in both arms of an if (3.9-3.11 copy
    the return into each arm of a conditional expression)."""
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    if body and isinstance(body[0], ast.If):
        node = body[0]
        then = _returns_as_expression(node.body)
        other = _returns_as_expression(node.orelse + body[1:])
        if then is not None and other is not None:
            return ast.IfExp(test=node.test, body=then, orelse=other)
    return None


def _is_none(e: Any) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


# ---------------------------------------------------------------- signatures
def arguments(
    code: CodeType,
    defaults: list[ast.expr],
    kwdefaults: list[tuple[str, ast.expr]],
    annotations: dict[str, ast.expr],
) -> ast.arguments:
    names = code.co_varnames
    npos = code.co_argcount
    nposonly = code.co_posonlyargcount
    nkw = code.co_kwonlyargcount

    def arg(n: str) -> ast.arg:
        return ast.arg(arg=n, annotation=annotations.get(n))

    i = npos + nkw
    vararg = kwarg = None
    if code.co_flags & CO_VARARGS:
        vararg = arg(names[i])
        i += 1
    if code.co_flags & CO_VARKEYWORDS:
        kwarg = arg(names[i])
    kwd = dict(kwdefaults)
    return ast.arguments(
        posonlyargs=[arg(n) for n in names[:nposonly]],
        args=[arg(n) for n in names[nposonly:npos]],
        vararg=vararg,
        kwonlyargs=[arg(n) for n in names[npos : npos + nkw]],
        kw_defaults=[kwd.get(n) for n in names[npos : npos + nkw]],
        kwarg=kwarg,
        defaults=list(defaults),
    )


_DECLARED = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_DEREF", "DELETE_DEREF"})


def declarations(code: CodeType, walker_ins: list[Instr]) -> list[ast.stmt]:
    """`global`/`nonlocal` statements a function body needs to compile the same."""
    glob: list[str] = []
    nonloc: list[str] = []
    for i in walker_ins:
        if i.op not in _DECLARED:
            continue  # (most instructions)
        if i.op in ("STORE_GLOBAL", "DELETE_GLOBAL") and i.argval not in glob:
            glob.append(i.argval)
        if (
            i.op in ("STORE_DEREF", "DELETE_DEREF")
            and i.argval in code.co_freevars
            and i.argval not in nonloc
        ):
            nonloc.append(i.argval)
    out: list[ast.stmt] = []
    if glob:
        out.append(ast.Global(names=glob))
    if nonloc:
        out.append(ast.Nonlocal(names=nonloc))
    return out


_BINDS_LOCAL = frozenset({"STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF", "LOAD_FAST_AND_CLEAR"})
_READS_LOCAL = frozenset({"LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE"})


def _dead_locals(code: CodeType, ins: list[Instr], reachable: list[bool]) -> list[ast.stmt]:
    """Locals whose only assignments the compiler removed as dead code (`if 0:`)
    are still locals; say so with an equally dead assignment (and a dead read
    for free variables nothing uses).  An assignment the compiler left in code no path
    reaches (3.9: the walrus in `a if 'c' else (v := b)`) is not written either, so
    only reachable ones count."""
    params = code.co_argcount + code.co_kwonlyargcount
    params += bool(code.co_flags & CO_VARARGS) + bool(code.co_flags & CO_VARKEYWORDS)
    stored: set[str] = set()
    loaded: set[str] = set()
    for i in ins:  # (one pass)
        if i.op in _BINDS_LOCAL:
            if reachable[i.index]:
                stored.add(i.argval)
        elif i.op in _READS_LOCAL:
            loaded.add(i.argval)
    cells = set(code.co_cellvars)
    args = set(code.co_varnames[:params])  # parameters are bound by the call
    names = [
        n
        for n in list(code.co_varnames[params:]) + list(code.co_cellvars)
        if n not in stored and n not in args and (n in loaded or n in cells) and n.isidentifier()
        and n not in code.co_freevars  # Dynamo's resume code lists a free variable as a local too
    ]
    names = list(dict.fromkeys(names))
    # free variables the code never touches are still captured (Dynamo keeps the
    # original's); a dead read keeps them free
    used = stored | loaded  # (STORE_DEREF's names are in stored)
    unused_free = [n for n in code.co_freevars if n not in used and n.isidentifier() and n != "__class__"]
    body: list[ast.stmt] = []
    if names:
        body.append(ast.Assign(targets=[name(n, ast.Store()) for n in names], value=const(None), lineno=0))
    if unused_free:
        body.append(ast.Expr(value=ast.Tuple(elts=[name(n) for n in unused_free], ctx=ast.Load())))
    dead_cells = [n for n in names if n in cells]
    if dead_cells:
        # a cell only some removed inner function used: a dead closure keeps it a cell
        no_args = ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
        )
        tup = ast.Tuple(elts=[name(n) for n in dead_cells], ctx=ast.Load())
        body.append(ast.Expr(value=ast.Lambda(args=no_args, body=tup)))
    if not body:
        return []
    return [ast.If(test=ast.Constant(value=0), body=body, orelse=[])]


def docstring(code: CodeType, ins: list[Instr]) -> str | None:
    if not code.co_consts or not isinstance(code.co_consts[0], str):
        return None
    if code.co_name in ("<lambda>",) or code.co_name.startswith("<"):
        return None
    flagged = flagged_docstring(code)
    if flagged is not False:
        return flagged
    doc = code.co_consts[0]
    if any(i.op == "LOAD_CONST" and i.argval is doc for i in ins):
        return None
    if TABLE.docstring_shared_with_equal_loads and any(i.op == "LOAD_CONST" and i.argval == doc for i in ins):
        return None
    return doc


def function_body(code: CodeType) -> list[ast.stmt]:
    w = CodeWalker(code)
    body = w.body()
    if TABLE.has_return_const:
        body = fold_return_ternaries(body)
    # the implicit `return None` is the reachable last instruction; a dead one
    # after an explicit `return None` (3.9/3.10) means the source wrote it
    last = final_return(w)
    if (
        body
        and isinstance(body[-1], ast.Return)
        and _is_none(body[-1].value)
        and w.initially_reachable[last]
        and not getattr(body[-1], "written", False)
        and not explicit_final_return(w, last)
    ):
        body = body[:-1]
        restore_ending_elses(body)
        strip_implicit_returns(body)
    elif dead_implicit_return(w) and body and isinstance(body[-1], (ast.Return, ast.Raise)):
        restore_final_else(body)
    else:
        restore_ending_elses(body)
    pre = declarations(code, w.ins) + _dead_locals(code, w.ins, w.initially_reachable)
    doc = docstring(code, w.ins)
    if doc is not None:
        pre.insert(0, ast.Expr(value=ast.Constant(value=doc)))
    body = pre + body
    return body or [ast.Pass()]


def function_def(
    code: CodeType,
    defaults: list[ast.expr],
    kwdefaults: list[tuple[str, ast.expr]],
    annotations: dict[str, ast.expr],
    decorators: list[ast.expr],
) -> ast.FunctionDef:
    node = (ast.AsyncFunctionDef if is_async_code(code) else ast.FunctionDef)(
        name=code.co_name,
        args=arguments(code, defaults, kwdefaults, annotations),
        body=finish_generator_body(code, function_body(code)),
        decorator_list=list(decorators),
        returns=annotations.get("return"),
        type_comment=None,
        lineno=0,
    )
    if _HAS_TYPE_PARAMS:
        node.type_params = []
    return node


def _names_used(code: CodeType) -> set[str]:
    names = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
    for c in code.co_consts:
        if isinstance(c, CodeType):
            names |= _names_used(c)
    return names


def comprehension_source(code: CodeType) -> ast.Module:
    """A comprehension's own code object (3.9-3.11; generator expressions on every version)
    has no source by itself: it is written inside an enclosing function.  Give that function,
    taking the iterator the comprehension receives (``.0``) and the variables it closes over as
    parameters, so that the nested code object compiles back the same."""
    used = _names_used(code)
    iterable = next(n for n in ("iterable", *(f"iterable_{k}" for k in range(len(used) + 1))) if n not in used)
    w = CodeWalker(code)
    expr = w.comprehension_expr(V.FunctionValue(code=code), name(iterable), w.ins[0])
    if not code.co_flags & 0x10:  # not nested: a module-level (or class-level) comprehension
        return ast.Module(body=[ast.Expr(value=expr)], type_ignores=[])
    qualname = getattr(code, "co_qualname", "")
    outer = qualname.rsplit(".<locals>.", 1)[0].rsplit(".", 1)[-1] if ".<locals>." in qualname else ""
    if not outer.isidentifier():
        outer = "_" + "".join(c if c.isalnum() else "_" for c in outer) if outer else "_enclosing"
    params = [ast.arg(arg=n) for n in (iterable, *code.co_freevars)]
    kind = ast.AsyncFunctionDef if code.co_flags & 0x280 else ast.FunctionDef  # async comprehension
    node = kind(
        name=outer,
        args=ast.arguments(posonlyargs=[], args=params, vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[ast.Return(value=expr)],
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=0,
    )
    if _HAS_TYPE_PARAMS:
        node.type_params = []
    return ast.Module(body=[node], type_ignores=[])


_GENERIC_SCOPE = "<generic parameters of "


def generic_scope_source(code: CodeType) -> list[ast.stmt]:
    """A ``<generic parameters of X>`` function alone (3.12+): the compiler made it for the
    generic definition of X (``class X[T]``, ``def X[T]``, ``type X[T] = ...``); that
    definition is its source (compiled, it holds a function of the same name)."""
    target = code.co_name[len(_GENERIC_SCOPE) : -1]
    w = CodeWalker(code)
    if code.co_argcount or code.co_kwonlyargcount or not target.isidentifier():
        # its arguments are the definition's defaults, whose values only the caller has
        raise w.fail(
            f"{code.co_name} takes the defaults of {target}: decompile the code that defines "
            f"{target} (its module or class) instead",
            kind=Refusal.DEFINITION,
        )
    value = w.generic_definition(V.FunctionValue(code=code), [], None)
    w.block = []
    w.store(ast.Name(id=target, ctx=ast.Store()), [value], None)
    if not w.block:
        raise w.fail(f"{code.co_name}: not a generic definition of {target}", kind=Refusal.DEFINITION)
    return w.block


def lazy_value_source(code: CodeType) -> list[ast.stmt]:
    """A lazily evaluated value alone (3.14+: the function of a type alias's value or of a
    type parameter's bound, constraints or default, whose argument is ``.format``): written
    as ``type <name> = <value>``, a definition that compiles to a function of that name and
    body (which of them it was made for is not in this code)."""
    w = CodeWalker(code)
    if not code.co_name.isidentifier():
        raise w.fail(f"a lazily evaluated value named {code.co_name!r}, which no source can spell", kind=Refusal.NO_SOURCE)
    value = w.returned_expr(code, None)
    return [
        ast.TypeAlias(  # type: ignore[attr-defined] - 3.12+, where it is made
            name=ast.Name(id=code.co_name, ctx=ast.Store()), type_params=[], value=value
        )
    ]


def def_name(co_name: str) -> str:
    """The name a code object whose name is no identifier (``<lambda>``) is written under as
    a ``def`` (verify looks the recompiled code up by it)."""
    return "_" + "".join(c if c.isalnum() else "_" for c in co_name)


def source_for(code: CodeType, fn: FunctionType | None) -> str:
    """Source for a code object (a def statement, or a module body)."""
    tree, future_annotations = tree_for(code, fn)
    source = unparse(tree) + "\n"
    if future_annotations:
        # the annotations were written as source text; keep them that way
        source = "from __future__ import annotations\n\n" + source
    return source


def _writes_annotations(tree: ast.AST) -> bool:
    """``tree`` holds an annotation (of a variable, a parameter or a return)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) or (isinstance(node, ast.arg) and node.annotation is not None):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            return True
    return False


def tree_for(code: CodeType, fn: FunctionType | None, as_def: bool = False) -> tuple[ast.AST, bool]:
    """The ast :func:`source_for` unparses, and whether the source needs
    ``from __future__ import annotations`` (callers that edit the tree skip a reparse).
    ``as_def``: a lambda's code comes back as a ``def`` (torch.compile rewrites a lambda's
    frame into statements no lambda can hold)."""
    if code.co_name in COMPREHENSIONS:
        return comprehension_source(code), False
    if code.co_name == "<module>":
        return ast.Module(body=module_body(code), type_ignores=[]), False
    if is_class_body(code):
        # its annotations are written as the text they were stored as: under the future
        # import they must stay text
        node = class_source_def(code)
        return node, bool(code.co_flags & CO_FUTURE_ANNOTATIONS) and _writes_annotations(node)
    if code.co_name.startswith(_GENERIC_SCOPE) and code.co_name.endswith(">"):
        return ast.Module(body=generic_scope_source(code), type_ignores=[]), False
    if code.co_argcount == 1 and code.co_varnames[0] == ".format" and flagged_docstring(code) is not False:
        return ast.Module(body=lazy_value_source(code), type_ignores=[]), False
    if code.co_name == "__annotate__" and code.co_argcount == 1 and flagged_docstring(code) is not False:
        # 3.14+: a function the compiler made to evaluate annotations lazily
        from pellucid.decompiler.annotate import annotate_source

        made = annotate_source(code)
        if made is not None:
            return ast.Module(body=made, type_ignores=[]), bool(code.co_flags & CO_FUTURE_ANNOTATIONS)
    if code.co_name == "<lambda>" and not as_def:
        # a lambda is an expression: give it as one, unless its body is statements no lambda
        # holds (torch.compile rewrites a lambda's frame so): then as a def
        value = _returns_as_expression(CodeWalker(code).body())
        if value is not None:
            defaults: list[ast.expr] = []
            kwdefaults: list[tuple[str, ast.expr]] = []
            if fn is not None:
                defaults = [value_ast(v) for v in (fn.__defaults__ or ())]
                kwdefaults = [(k, value_ast(v)) for k, v in (fn.__kwdefaults__ or {}).items()]
            expr = ast.Lambda(args=arguments(code, defaults, kwdefaults, {}), body=value)
            return ast.Module(body=[ast.Expr(value=expr)], type_ignores=[]), False
    defaults: list[ast.expr] = []
    kwdefaults: list[tuple[str, ast.expr]] = []
    annotations: dict[str, ast.expr] = {}
    if fn is not None:
        defaults = [value_ast(v) for v in (fn.__defaults__ or ())]
        kwdefaults = [(k, value_ast(v)) for k, v in (fn.__kwdefaults__ or {}).items()]
        try:
            future = bool(code.co_flags & CO_FUTURE_ANNOTATIONS)
            annotations = {k: annotation_ast(v, future) for k, v in fn.__annotations__.items()}
        except Exception:
            annotations = {}
    node = function_def(code, defaults, kwdefaults, annotations, [])
    if fn is not None and getattr(fn, "__type_params__", ()):
        node.type_params = type_params_ast(fn.__type_params__)
    if not node.name.isidentifier():
        node.name = def_name(node.name)
    return node, bool(code.co_flags & CO_FUTURE_ANNOTATIONS and annotations)
