"""Symbolic stack evaluation: one handler per (normalized) opcode.

Handlers pop ``ast`` expressions (or :mod:`values` markers) from the stack,
push new expressions and emit statements through ``self.emit``.  They never
look at control flow; :mod:`structure` owns jumps and calls these per
instruction.
"""

from __future__ import annotations

import ast
import contextvars
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import DecompilationError
from pellucid.decompiler.instructions import TABLE, TERMINAL, Instr

CO_FUTURE_ANNOTATIONS = 0x1000000

BINOPS = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "@": ast.MatMult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "<<": ast.LShift,
    ">>": ast.RShift,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
}
CMPOPS = {
    "<": ast.Lt,
    "<=": ast.LtE,
    "==": ast.Eq,
    "!=": ast.NotEq,
    ">": ast.Gt,
    ">=": ast.GtE,
}
UNARY = {
    "UNARY_NEGATIVE": ast.USub,
    "UNARY_POSITIVE": ast.UAdd,
    "UNARY_INVERT": ast.Invert,
    "UNARY_NOT": ast.Not,
}
INTRINSIC_1 = {
    "INTRINSIC_UNARY_POSITIVE": "unary_positive",
    "INTRINSIC_LIST_TO_TUPLE": "list_to_tuple",
    "INTRINSIC_IMPORT_STAR": "import_star",
}


# One Load (Store, Del) for every node made here: contexts carry nothing (the parser shares its own the
# same way), and a node made with positional fields costs half of one made with keywords.
_LOAD = ast.Load()
_STORE = ast.Store()
_DEL = ast.Del()


def name(id_: str, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.Name(id_, ctx or _LOAD)


def const(value: Any) -> ast.expr:
    """An ast for a constant, keeping tuples/frozensets literal."""
    if isinstance(value, tuple):
        return ast.Tuple(elts=[const(v) for v in value], ctx=ast.Load())
    if isinstance(value, complex):
        return _complex_ast(value)
    if type(value) is slice:
        # 3.14+ fold a subscript's constant slice (`x[1:]`, `x[::2]`) into one constant; no
        # other source makes one
        return ast.Slice(
            *(None if part is None else const(part) for part in (value.start, value.stop, value.step))
        )
    if isinstance(value, frozenset) and value:
        # `x in {a, b}` folds the set display into a frozenset constant
        return ast.Set(elts=[const(v) for v in sorted(value, key=repr)])
    if type(value) not in _LITERAL_TYPES:
        # Dynamo puts live objects (devices, dtypes...) in co_consts; their
        # repr is not source for the same object
        raise DecompilationError(f"constant {type(value).__name__} has no source form: {value!r:.60}")
    return ast.Constant(value=value)


def named_code_constant(v: Any) -> ast.Name | None:
    """A code object Dynamo passes around as a value (to build a nested function or class
    itself) has no source spelling: under :data:`CONSTANT_NAMER` it is named like a device."""
    namer = CONSTANT_NAMER.get()
    if namer is not None and isinstance(v, V.FunctionValue) and getattr(v, "raw_code_const", False):
        return name(namer(v.code))
    return None


def is_plain_expr(v: Any) -> bool:
    """An expression :meth:`Evaluator.as_expr` gives back as it is (most values are)."""
    return isinstance(v, ast.expr) and not isinstance(v, ast.FormattedValue) and not getattr(v, "is_cell", False)


def _is_literal(value: Any) -> bool:
    """Does the source spell ``value`` exactly?  By exact type: a subclass of tuple (torch.Size,
    a named tuple) written as a display would come back as a plain tuple."""
    if type(value) in (tuple, frozenset):
        return all(_is_literal(v) for v in value)
    return type(value) in _LITERAL_TYPES or type(value) is complex


# Set by decompile_naming_constants(): a callable giving a name for a constant
# that has no source form (Dynamo's devices, dtypes...).
CONSTANT_NAMER: contextvars.ContextVar = contextvars.ContextVar("pellucid_constant_namer", default=None)

_LITERAL_TYPES = frozenset(
    {type(None), bool, int, float, str, bytes, type(...), frozenset}
)
_SCALAR_TYPES = _LITERAL_TYPES - {frozenset}  # literals const() spells as one ast.Constant


def store_ctx(target: ast.expr) -> ast.expr:
    """Turn an expression into an assignment/deletion target (recursively)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            store_ctx(e)
    if isinstance(target, ast.Starred):
        store_ctx(target.value)
    if hasattr(target, "ctx"):
        target.ctx = ast.Store()
    return target


class Evaluator:
    """Opcode handlers.  Subclasses provide ``emit``, ``fail`` and the code."""

    code: Any
    loop_items: dict

    # ----------------------------------------------------------- helpers
    def fail(self, reason: str, ins: Instr | None = None) -> DecompilationError:
        raise NotImplementedError

    def emit(self, stmt: ast.stmt) -> None:
        raise NotImplementedError

    def pop_expr(self, stack: list, ins: Instr) -> ast.expr:
        if not stack:
            raise self.fail("stack underflow", ins)
        v = stack.pop()
        return self.as_expr(v, ins)

    def as_expr(self, v: Any, ins: Instr | None) -> ast.expr:
        if is_plain_expr(v):
            return v
        if isinstance(v, ast.FormattedValue):
            return ast.JoinedStr(values=[v])
        if getattr(v, "is_cell", False) and (v.id != "__class__" or self.code.co_flags & 0x1):
            # (a class body's own __class__ cell has its own idiom, __classcell__)
            return cell_of(v.id)
        if isinstance(v, ast.expr):
            return v
        if isinstance(v, V.FunctionValue):
            return self.function_value_expr(v, ins)
        if isinstance(v, ClosureTuple):  # it was a tuple of names after all
            return ast.Tuple(elts=[name(n) for n in v.names], ctx=ast.Load())
        if isinstance(v, V.UnpackSlot):
            return self.unpacked_value(v, ins)
        raise self.fail(f"cannot use {type(v).__name__} as an expression", ins)

    def function_value_expr(self, v: V.FunctionValue, ins: Instr | None) -> ast.expr:
        """A function made by MAKE_FUNCTION used as a value (ClassOps: a class body's)."""
        named = named_code_constant(v)
        return named if named is not None else self.function_expr(v, ins)

    def pop_n(self, stack: list, n: int, ins: Instr) -> list[ast.expr]:
        if n == 0:
            return []
        if len(stack) < n:
            raise self.fail("stack underflow", ins)
        items = stack[-n:]
        del stack[-n:]
        return [self.as_expr(v, ins) for v in items]

    def function_expr(self, fv: V.FunctionValue, ins: Instr | None) -> ast.expr:
        raise NotImplementedError

    # ----------------------------------------------------------- loads
    def op_LOAD_CONST(self, ins: Instr, stack: list) -> None:
        v = ins.argval
        if type(v) in _SCALAR_TYPES:
            stack.append(ast.Constant(v))  # what const(v) gives (most constants)
            return
        if hasattr(v, "co_code"):
            stack.append(V.FunctionValue(code=v))  # completed by MAKE_FUNCTION
            stack[-1].raw_code_const = True
            return
        namer = CONSTANT_NAMER.get()
        if namer is not None and not _is_literal(v):
            stack.append(name(namer(v)))  # the caller binds this name to the object
            return
        stack.append(const(v))

    def op_LOAD_FAST(self, ins: Instr, stack: list) -> None:
        if ins.argval == ".0":  # a comprehension's iterator argument (3.9-3.11)
            stack.append(V.Iterator(name(".0")))
            return
        n = ast.Name(ins.argval, _LOAD)  # (name(), inline: the commonest value)
        if ins._extra is not None and ins._extra.get("may_be_unbound") or (
            not TABLE.marks_unbound_loads and ins.argval not in self._surely_bound()
        ):
            # loading it may raise: code must not move before it (see Walker.spill)
            n.may_be_unbound = True
        stack.append(n)

    def op_LOAD_NAME(self, ins: Instr, stack: list) -> None:
        stack.append(ast.Name(ins.argval, _LOAD))

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
        stack.append(ast.Attribute(obj, ins.argval, _LOAD))

    def op_LOAD_METHOD(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Attribute(obj, ins.argval, _LOAD))
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

    # ----------------------------------------------------------- stack ops
    def op_POP_TOP(self, ins: Instr, stack: list) -> None:
        if not stack:
            raise self.fail("stack underflow", ins)
        v = stack.pop()
        if isinstance(v, (V.Iterator, V.Null)):
            return  # loop clean-up before return/break
        if isinstance(v, V.ImportedModule):
            if stack and isinstance(stack[-1], V.ImportedName) and stack[-1].module is v:
                return  # 3.9/3.10 `import a.b.c as d` drops the module under the name
            self.finish_from_import(v, ins)
            return
        if isinstance(v, V.ImportedName) and getattr(v.module, "done", False):
            return
        if isinstance(v, V.ImportedName) and stack and isinstance(stack[-1], V.ImportedName) and stack[-1].module is v.module:
            return  # `import a.b.c.d as e` drops each step of its walk down the packages
        if isinstance(v, ast.expr):
            if V.holds(stack, v):
                return  # a duplicate left over from a chain; nothing to say
            if isinstance(v, ast.Constant) and getattr(self, "setup_annotations", False):
                # part of an annotation that stores nothing (`a[0]: 'T'` evaluates `0` and
                # `'T'`): kept for annotation_targets, which drops what it does not use
                stmt = ast.Expr(v)
                stmt.unstored_annotation_part = True
                self.emit(stmt)
                return
            if getattr(v, "is_spill", False) or (
                isinstance(v, (ast.List, ast.Tuple, ast.Constant))
                and all(getattr(x, "is_spill", False) or isinstance(x, ast.Constant) for x in getattr(v, "elts", []))
            ):
                return  # discarding a value computed earlier has no effect
            self.emit(ast.Expr(self.as_expr(v, ins)))
            return
        if isinstance(v, V.FunctionValue):
            self.emit(ast.Expr(value=self.function_expr(v, ins)))
            return
        if isinstance(v, V.UnpackSlot):
            if v.group.names is not None:
                return  # unpacked into temporaries already: dropping one is nothing
            store = self._repeated_store_after(ins)
            if store is not None:
                # 3.13 drops a store the next one overwrites: `a, _, _ = x`
                stack.append(v)
                self.store(name(store, ast.Store()), stack, ins)
                return
        raise self.fail(f"POP_TOP of {type(v).__name__}", ins)

    def _repeated_store_after(self, ins: Instr) -> str | None:
        """3.13: the local a POP_TOP of an unpacked value stands for, when the run
        of POP_TOPs it starts ends in a STORE_FAST (stores to the same name in a row)."""
        if not TABLE.pops_repeated_stores:
            return None
        k = ins.index + 1
        while k < len(self.ins) and self.ins[k].op == "POP_TOP":
            k += 1
        if k < len(self.ins) and self.ins[k].op == "STORE_FAST":
            return self.ins[k].argval
        return None

    def op_COPY(self, ins: Instr, stack: list) -> None:
        n = ins.argval
        if len(stack) < n:
            raise self.fail("stack underflow", ins)
        if not self.copy_is_idiom(ins, stack[-n]):
            # a value used twice must be evaluated once: name it first
            self.materialize(stack)
        stack.append(stack[-n])

    def copy_is_idiom(self, ins: Instr, value: Any) -> bool:
        return True

    def materialize(self, stack: list) -> None:
        """Save pending stack values to temporaries (see Walker.spill)."""

    def op_SWAP(self, ins: Instr, stack: list) -> None:
        n = ins.argval
        if len(stack) < n:
            raise self.fail("stack underflow", ins)
        stack[-1], stack[-n] = stack[-n], stack[-1]

    def op_ROT_THREE(self, ins: Instr, stack: list) -> None:
        if len(stack) < 3:
            raise self.fail("stack underflow", ins)
        stack.insert(-2, stack.pop())

    def op_ROT_FOUR(self, ins: Instr, stack: list) -> None:
        if len(stack) < 4:
            raise self.fail("stack underflow", ins)
        stack.insert(-3, stack.pop())

    def op_DUP_TOP_TWO(self, ins: Instr, stack: list) -> None:
        if len(stack) < 2:
            raise self.fail("stack underflow", ins)
        stack.extend(stack[-2:])

    # ----------------------------------------------------------- operators
    def op_BINARY_OP(self, ins: Instr, stack: list) -> None:
        right = self.pop_expr(stack, ins)
        left = self.pop_expr(stack, ins)
        sym = ins.argval
        if sym.endswith("=") and sym not in ("==", "<=", ">=", "!="):
            stack.append(InPlace(left, BINOPS[sym[:-1]](), right))
            return
        stack.append(ast.BinOp(left=left, op=BINOPS[sym](), right=right))

    def op_UNARY_NEGATIVE(self, ins: Instr, stack: list) -> None:
        operand = self.pop_expr(stack, ins)
        stack.append(ast.UnaryOp(op=UNARY[ins.op](), operand=operand))

    op_UNARY_POSITIVE = op_UNARY_INVERT = op_UNARY_NOT = op_UNARY_NEGATIVE

    def op_TO_BOOL_VALUE(self, ins: Instr, stack: list) -> None:
        operand = self.pop_expr(stack, ins)
        inner = ast.UnaryOp(op=ast.Not(), operand=operand)
        stack.append(ast.UnaryOp(op=ast.Not(), operand=inner))

    def compared(self, stack: list, ins: Instr) -> tuple[ast.expr, ast.expr]:
        """The two operands of a comparison, popped as expressions.

        A chained comparison's link leaves a copy of its right operand beneath, for the next
        link.  When that operand only became an expression here (a lambda, an f-string part),
        the copy is replaced by the same expression: the links must share one node."""
        raw = stack[-1] if stack else None
        right = self.pop_expr(stack, ins)
        left = self.pop_expr(stack, ins)
        if stack and raw is not right and stack[-1] is raw:
            stack[-1] = right
        return left, right

    def op_COMPARE_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = CMPOPS.get(ins.argval)
        if op is None:
            raise self.fail(f"unknown comparison {ins.argval!r}", ins)
        stack.append(ast.Compare(left=left, ops=[op()], comparators=[right]))

    def op_IS_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = ast.IsNot() if ins.arg else ast.Is()
        stack.append(ast.Compare(left=left, ops=[op], comparators=[right]))

    def op_CONTAINS_OP(self, ins: Instr, stack: list) -> None:
        left, right = self.compared(stack, ins)
        op = ast.NotIn() if ins.arg else ast.In()
        stack.append(ast.Compare(left=left, ops=[op], comparators=[right]))

    def op_CALL_INTRINSIC_1(self, ins: Instr, stack: list) -> None:
        kind = ins.argrepr if hasattr(ins, "argrepr") else None
        kind = str(ins.argval)
        if "UNARY_POSITIVE" in kind:
            operand = self.pop_expr(stack, ins)
            stack.append(ast.UnaryOp(op=ast.UAdd(), operand=operand))
        elif "LIST_TO_TUPLE" in kind:
            v = self.pop_expr(stack, ins)
            if not isinstance(v, ast.List):
                raise self.fail("LIST_TO_TUPLE of a non-list", ins)
            stack.append(ast.Tuple(elts=v.elts, ctx=ast.Load()))
        elif kind == "INTRINSIC_TYPEALIAS":
            stack.append(self.type_alias(stack.pop(), ins))
        elif "IMPORT_STAR" in kind:
            mod = stack.pop()
            if not isinstance(mod, V.ImportedModule):
                raise self.fail("import * of a non-module", ins)
            self.emit(mod.statement(
                ast.ImportFrom(
                    module=mod.name or None, names=[ast.alias(name="*")], level=mod.level
                )
            ))
            stack.append(const(None))  # popped by the following POP_TOP
        else:
            raise self.fail(f"unsupported intrinsic {kind}", ins)

    def op_IMPORT_STAR(self, ins: Instr, stack: list) -> None:
        mod = stack.pop()
        if not isinstance(mod, V.ImportedModule):
            raise self.fail("import * of a non-module", ins)
        self.emit(mod.statement(
            ast.ImportFrom(module=mod.name or None, names=[ast.alias(name="*")], level=mod.level)
        ))

    # ----------------------------------------------------------- subscripts
    def op_BINARY_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Subscript(obj, index, _LOAD))

    def op_BUILD_SLICE(self, ins: Instr, stack: list) -> None:
        parts = self.pop_n(stack, ins.arg, ins)
        # `x[a:b:None]` keeps its explicit step (BUILD_SLICE 3); bounds fold
        parts = [None if _is_none(p) and k < 2 else p for k, p in enumerate(parts)]
        if ins.arg == 2:
            stack.append(ast.Slice(lower=parts[0], upper=parts[1], step=None))
        else:
            stack.append(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2]))

    def op_BINARY_SLICE(self, ins: Instr, stack: list) -> None:
        end = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        sl = ast.Slice(
            lower=None if _is_none(start) else start, upper=None if _is_none(end) else end
        )
        stack.append(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()))

    def op_STORE_SLICE(self, ins: Instr, stack: list) -> None:
        end = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        sl = ast.Slice(
            lower=None if _is_none(start) else start, upper=None if _is_none(end) else end
        )
        self.store(ast.Subscript(value=obj, slice=sl, ctx=ast.Store()), stack, ins)

    def op_STORE_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        self.store(ast.Subscript(value=obj, slice=index, ctx=ast.Store()), stack, ins)

    def op_DELETE_SUBSCR(self, ins: Instr, stack: list) -> None:
        index = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=index, ctx=ast.Del())]))

    # ----------------------------------------------------------- stores
    def op_STORE_FAST(self, ins: Instr, stack: list) -> None:
        self.store(name(ins.argval, _STORE), stack, ins)

    op_STORE_NAME = op_STORE_GLOBAL = op_STORE_DEREF = op_STORE_FAST

    def op_STORE_ATTR(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        self.store(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Store()), stack, ins)

    def op_DELETE_FAST(self, ins: Instr, stack: list) -> None:
        self.emit(ast.Delete([name(ins.argval, _DEL)]))

    op_DELETE_NAME = op_DELETE_GLOBAL = op_DELETE_DEREF = op_DELETE_FAST

    def op_DELETE_ATTR(self, ins: Instr, stack: list) -> None:
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete(targets=[ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Del())]))

    def store(self, target: ast.expr, stack: list, ins: Instr) -> None:
        raise NotImplementedError

    def op_UNPACK_SEQUENCE(self, ins: Instr, stack: list) -> None:
        src = stack.pop()
        group = V.UnpackGroup(src, ins.arg, None, [None] * ins.arg)
        if isinstance(src, V.UnpackSlot):
            group.parent = src
        self.note_unpack(group)
        for i in reversed(range(ins.arg)):
            stack.append(V.UnpackSlot(group, i))

    def op_UNPACK_EX(self, ins: Instr, stack: list) -> None:
        src = stack.pop()
        before, after = ins.arg & 0xFF, ins.arg >> 8
        size = before + 1 + after
        group = V.UnpackGroup(src, size, before, [None] * size)
        if isinstance(src, V.UnpackSlot):
            group.parent = src
        self.note_unpack(group)
        for i in reversed(range(size)):
            stack.append(V.UnpackSlot(group, i))

    def note_unpack(self, group: V.UnpackGroup) -> None:
        """Remember where an unpacking ran (see Walker.unpacked_value)."""

    def unpacked_value(self, slot: V.UnpackSlot, ins: Instr | None) -> ast.expr:
        raise self.fail("cannot use UnpackSlot as an expression", ins)

    # ----------------------------------------------------------- builders
    def op_BUILD_TUPLE(self, ins: Instr, stack: list) -> None:
        if ins.arg == 3 and self.builds_type_alias(ins):
            stack.append(V.TypeAliasParts(stack[-3:]))
            del stack[-4:-1]
            return
        items = stack[len(stack) - ins.arg :] if ins.arg else []
        if items and all(isinstance(v, ast.Name) for v in items) and self._closure_tuple(ins):
            del stack[len(stack) - ins.arg :]
            stack.append(ClosureTuple([v.id for v in items]))
            return
        elts = self.pop_n(stack, ins.arg, ins)
        stack.append(ast.Tuple(elts, _LOAD))

    def _closure_tuple(self, ins: Instr) -> bool:
        return False

    def builds_type_alias(self, ins: Instr) -> bool:
        """Whether this BUILD_TUPLE makes the operand of a ``type`` statement's intrinsic."""
        return False

    def type_alias(self, parts: Any, ins: Instr) -> Any:
        raise self.fail("type alias", ins)

    def generic_definition(self, fv: V.FunctionValue, args: list, ins: Instr) -> Any:
        raise self.fail(f"function {fv.code.co_name} used as a value", ins)

    def op_BUILD_LIST(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("list"))
            return
        stack.append(ast.List(self.pop_n(stack, ins.arg, ins), _LOAD))

    def op_BUILD_SET(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("set"))
            return
        # an empty one is filled by SET_UPDATE; left empty it is spelled {*()} (no `set` global)
        stack.append(ast.Set(elts=self.pop_n(stack, ins.arg, ins)))

    def op_BUILD_MAP(self, ins: Instr, stack: list) -> None:
        if ins.arg == 0 and self.next_is_comprehension(ins):
            stack.append(V.Accumulator("dict"))
            return
        items = self.pop_n(stack, 2 * ins.arg, ins)
        stack.append(ast.Dict(keys=items[0::2], values=items[1::2]))

    def next_is_comprehension(self, ins: Instr) -> bool:
        return False

    def op_BUILD_CONST_KEY_MAP(self, ins: Instr, stack: list) -> None:
        keys = self.pop_expr(stack, ins)
        vals = self.pop_n(stack, ins.arg, ins)
        if not isinstance(keys, ast.Tuple):
            raise self.fail("BUILD_CONST_KEY_MAP without constant keys", ins)
        stack.append(ast.Dict(keys=list(keys.elts), values=vals))

    def op_BUILD_STRING(self, ins: Instr, stack: list) -> None:
        """An f-string's parts joined.  A part that is not spelled as a string (a value formatted
        before a graph break, which Dynamo's resume function gets on its stack) is joined as it
        is: ``''.join((part, f'...'))`` runs the function BUILD_STRING runs (a ``str`` passes
        through unformatted, anything else raises the same TypeError)."""
        parts = self.pop_n(stack, ins.arg, ins)
        pieces: list[ast.expr] = []  # joined as they are
        values: list[ast.expr] = []  # the f-string being built from string parts
        for p in parts:
            if isinstance(p, ast.JoinedStr):
                values.extend(p.values)
            elif (isinstance(p, ast.Constant) and isinstance(p.value, str)) or isinstance(
                p, ast.FormattedValue
            ):
                values.append(p)
            else:
                if values:
                    pieces.append(_joined(values))
                    values = []
                pieces.append(p)
        if not pieces:
            stack.append(ast.JoinedStr(values=values))
            return
        if values:
            pieces.append(_joined(values))
        join = ast.Attribute(value=ast.Constant(""), attr="join", ctx=ast.Load())
        stack.append(
            ast.Call(func=join, args=[ast.Tuple(elts=pieces, ctx=ast.Load())], keywords=[])
        )

    def op_FORMAT_VALUE(self, ins: Instr, stack: list) -> None:
        flags = ins.arg
        spec = None
        if flags & 0x04:
            spec = self.pop_expr(stack, ins)
        value = self.pop_expr(stack, ins)
        conv = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[flags & 0x03]
        stack.append(_formatted(value, conv, spec))

    def op_CONVERT_VALUE(self, ins: Instr, stack: list) -> None:
        value = self.pop_expr(stack, ins)
        conv = {1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg]
        stack.append(Converted(value, conv))

    def op_FORMAT_SIMPLE(self, ins: Instr, stack: list) -> None:
        v = stack.pop()
        if isinstance(v, Converted):
            stack.append(_formatted(v.value, v.conversion, None))
        else:
            stack.append(_formatted(self.as_expr(v, ins), -1, None))

    def op_FORMAT_WITH_SPEC(self, ins: Instr, stack: list) -> None:
        spec = self.pop_expr(stack, ins)
        v = stack.pop()
        if isinstance(v, Converted):
            stack.append(_formatted(v.value, v.conversion, spec))
        else:
            stack.append(_formatted(self.as_expr(v, ins), -1, spec))

    def _mutate_named(self, ins: Instr, stack: list, method: str, args: list[ast.expr]) -> None:
        """A container op on a value that is not a literal being built: call
        the equivalent method on it, as a statement, once it has a name."""
        self.materialize(stack)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Name):
            raise self.fail(f"{ins.op} on an unnamed value", ins)
        call = ast.Call(
            func=ast.Attribute(value=name(target.id), attr=method, ctx=ast.Load()), args=args, keywords=[]
        )
        self.emit(ast.Expr(value=call))

    def _literal_target(self, ins: Instr, stack: list, kind: type) -> bool:
        target = stack[-ins.arg]
        return isinstance(target, kind) and sum(1 for v in stack if v is target) == 1 and not getattr(
            target, "is_spill", False
        )

    def op_LIST_EXTEND(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not self._literal_target(ins, stack, ast.List):
            self._mutate_named(ins, stack, "extend", [it])
            return
        if isinstance(it, (ast.Tuple, ast.List)) and not target.elts and _all_const(it):
            target.elts.extend(it.elts)  # a constant list/tuple folded by the compiler
            target.folded = True
        else:
            target.elts.append(ast.Starred(value=it, ctx=ast.Load()))

    def op_SET_UPDATE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if isinstance(target, ast.Call) and not target.args:  # set() placeholder
            target = ast.Set(elts=[])
            stack[-ins.arg] = target
        if not isinstance(target, ast.Set):
            raise self.fail("SET_UPDATE on a non-set", ins)
        if isinstance(it, ast.Set) and not target.elts and _all_const(it):
            target.elts.extend(it.elts)  # a constant set display folded to a frozenset
        else:
            target.elts.append(ast.Starred(value=it, ctx=ast.Load()))

    def op_LIST_TO_TUPLE(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        if not isinstance(v, ast.List):
            raise self.fail("LIST_TO_TUPLE of a non-list", ins)
        stack.append(ast.Tuple(elts=v.elts, ctx=ast.Load()))

    def op_DICT_UPDATE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Dict):
            raise self.fail("DICT_UPDATE on a non-dict", ins)
        if (
            isinstance(it, ast.Dict)
            and None not in it.keys
            and target.keys
            and None not in target.keys
            and len(target.keys) % 16 == 0
        ):
            # a large dict display is compiled in chunks
            target.keys.extend(it.keys)
            target.values.extend(it.values)
            return
        target.keys.append(None)
        target.values.append(it)

    def op_DICT_MERGE(self, ins: Instr, stack: list) -> None:
        it = self.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if not isinstance(target, ast.Dict):
            raise self.fail("DICT_MERGE on a non-dict", ins)
        target.keys.append(None)
        target.values.append(it)
        target.is_kwargs = True

    def op_GET_ITER(self, ins: Instr, stack: list) -> None:
        stack.append(V.Iterator(self.pop_expr(stack, ins)))

    # ----------------------------------------------------------- calls
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
            raise self.fail("call without NULL marker", ins)
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
            raise self.fail("stack underflow", ins)
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
                        raise self.fail("non-string keyword", ins)
            else:
                keywords.append(ast.keyword(arg=None, value=kwargs))
        stack.append(ast.Call(func=self.as_expr(func, ins), args=args, keywords=keywords))

    # ----------------------------------------------------------- functions
    def op_MAKE_FUNCTION(self, ins: Instr, stack: list) -> None:
        if TABLE.make_function_pops_qualname:
            self.pop_expr(stack, ins)  # qualified name
        fv = stack.pop()
        if not isinstance(fv, V.FunctionValue):
            raise self.fail("MAKE_FUNCTION without a code object", ins)
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
                raise self.fail("unrecognized __annotate__ function", ins)
            keys = [ast.Constant(k) for k in read]
            fv.annotations = self._annotations(ast.Dict(keys, list(read.values())), ins)
        else:
            raise self.fail(f"unsupported function attribute {flag}", ins)
        stack.append(fv)

    def _closure_names(self, value: Any, ins: Instr) -> list[str]:
        if isinstance(value, ClosureTuple):
            return value.names
        if isinstance(value, ast.Tuple) and all(isinstance(e, ast.Name) for e in value.elts):
            return [e.id for e in value.elts]
        raise self.fail("closure is not a tuple of cells", ins)

    def _annotations(self, value: ast.expr, ins: Instr) -> dict[str, ast.expr]:
        if isinstance(value, ast.Dict):
            pairs = {k.value: v for k, v in zip(value.keys, value.values)}
        elif isinstance(value, ast.Tuple):
            e = value.elts
            pairs = {e[i].value: e[i + 1] for i in range(0, len(e), 2)}
        else:
            raise self.fail("unrecognized annotations", ins)
        if self.code.co_flags & CO_FUTURE_ANNOTATIONS:
            # `from __future__ import annotations` stored them as source text
            for k, v in pairs.items():
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    try:
                        pairs[k] = ast.parse(v.value, mode="eval").body
                    except SyntaxError:
                        raise self.fail("annotation string is not an expression", ins) from None
        return pairs

    # ----------------------------------------------------------- simple statements
    def op_RETURN_VALUE(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        ret = ast.Return(value=v)
        # 3.12+ returns a constant statement with RETURN_CONST; a constant that
        # reaches RETURN_VALUE was an operand of a conditional expression
        ret.from_expression = TABLE.has_return_const and ins.raw == "RETURN_VALUE" and isinstance(v, ast.Constant)
        ret.implicit_copy = ins.index in getattr(self, "implicit_returns", ()) or self._lineless_return(ins, v)
        ret.written = not ret.implicit_copy and self._shared_return_none(ins, v)
        self.emit(ret)

    def _shared_return_none(self, ins: Instr, value: ast.expr) -> bool:
        """A `return None` that several paths reach (two jumps, or a jump and the code before
        it; the exception clean-up on the way, ``POP_EXCEPT``, included): 3.12+ copy a return
        without a line into each of its predecessors, so this one has a line, the source's
        own, and is not the implicit return at the function's end."""
        k = ins.index - 1  # the LOAD_CONST None
        if not TABLE.copies_exits_without_line or k < 1 or not (isinstance(value, ast.Constant) and value.value is None):
            return False
        ins_ = self.ins
        if ins_[k].op != "LOAD_CONST":
            return False
        reached = getattr(self, "initially_reachable", None)
        while k > 0:
            before = ins_[k - 1]
            falls_in = before.op not in TERMINAL and before.op != "JUMP" and (reached is None or reached[k - 1])
            jumps = sum(1 for i in ins_ if i.target == k)
            if jumps + falls_in >= 2:
                return True
            if jumps or before.op != "POP_EXCEPT":
                return False
            k -= 1
        return False

    def _lineless_return(self, ins: Instr, value: ast.expr) -> bool:
        """A `return None` on the line of the statement before it, at the end of a path
        that falls off the function: 3.10+ copy the implicit return there (a written
        `return` has a line of its own)."""
        k = ins.index
        if not TABLE.copies_exit_blocks or k < 2 or not (isinstance(value, ast.Constant) and value.value is None):
            return False
        load, before = self.ins[k - 1], self.ins[k - 2]
        return (
            load.op == "LOAD_CONST"
            and load.line == before.line
            and before.op != "JUMP"
            and before.op not in TERMINAL
            and before.target is None
            and not (self._is_target(k - 1) or self._is_target(k))
        )

    def op_RAISE_VARARGS(self, ins: Instr, stack: list) -> None:
        cause = exc = None
        if ins.arg == 2:
            cause = self.pop_expr(stack, ins)
        if ins.arg >= 1:
            exc = self.pop_expr(stack, ins)
        assertion = exc.func if isinstance(exc, ast.Call) and len(exc.args) == 1 else exc
        if cause is None and getattr(assertion, "is_assertion_error", False):
            # LOAD_ASSERTION_ERROR only comes from `assert`; the test, if any,
            # is the condition jumping around this raise
            msg = exc.args[0] if isinstance(exc, ast.Call) else None
            self.emit(ast.Assert(test=ast.Constant(value=False), msg=msg))
            return
        self.emit(ast.Raise(exc=exc, cause=cause))

    def op_IMPORT_NAME(self, ins: Instr, stack: list) -> None:
        fromlist = self.pop_expr(stack, ins)
        level = self.pop_expr(stack, ins)
        stack.append(
            V.ImportedModule(
                name=ins.argval, fromlist=fromlist.value if isinstance(fromlist, ast.Constant)
                else tuple(e.value for e in fromlist.elts),
                level=level.value,
                lazy=bool(ins._extra and ins._extra.get("lazy")),
            )
        )

    def op_IMPORT_FROM(self, ins: Instr, stack: list) -> None:
        mod = stack[-1]
        if isinstance(mod, V.ImportedName):  # import a.b.c as d walks attributes
            stack.append(V.ImportedName(mod.module, mod.name + "." + ins.argval))
            return
        if not isinstance(mod, V.ImportedModule):
            raise self.fail("IMPORT_FROM without a module", ins)
        stack.append(V.ImportedName(mod, ins.argval))

    def finish_from_import(self, mod: V.ImportedModule, ins: Instr) -> None:
        if getattr(mod, "done", False):
            return
        if not mod.names:
            raise self.fail("from-import with no names", ins)
        self.emit(mod.statement(
            ast.ImportFrom(module=mod.name or None, names=mod.names, level=mod.level)
        ))

    def op_SETUP_ANNOTATIONS(self, ins: Instr, stack: list) -> None:
        self.setup_annotations = True


class InPlace(ast.expr):
    """``left op= right`` before its store turns it into an AugAssign."""

    _fields = ("target", "op", "value")

    def __init__(self, target: ast.expr, op: ast.operator, value: ast.expr) -> None:
        super().__init__()
        self.target = target
        self.op = op
        self.value = value


def augmented_target(value: InPlace, stored: ast.expr) -> ast.expr:
    """The target of ``value``'s AugAssign, stored to ``stored``.

    The place is read and written from the same stack values, but only the read consumed
    them as expressions: an assignment expression among them (``a[(x := k)] += 1``) is in
    the loaded target alone.  When the two name the same place, the loaded one (made a
    store target) keeps it; otherwise the stored one is the place written.
    """
    loaded = value.target
    if type(loaded) is not type(stored) or not isinstance(loaded, (ast.Attribute, ast.Subscript)):
        return stored
    try:
        same = _without_walrus(loaded) == _without_walrus(stored)
    except (SyntaxError, ValueError, TypeError, AttributeError):
        same = False  # (a value unparse cannot spell yet: the stored target, as it was)
    if not same:
        return stored
    fields = {f: getattr(loaded, f) for f in loaded._fields if f != "ctx"}
    return type(loaded)(**fields, ctx=ast.Store())


def _without_walrus(node: ast.expr) -> str:
    """``node`` dumped with each ``(x := e)`` read as ``e`` and no load/store contexts."""

    class Strip(ast.NodeTransformer):
        def visit_NamedExpr(self, n: ast.NamedExpr) -> ast.AST:
            return self.visit(n.value)

    copy = Strip().visit(ast.parse(ast.unparse(node), mode="eval").body)
    return ast.dump(copy).replace("ctx=Store()", "ctx=Load()")


class Converted(ast.expr):
    """3.13 CONVERT_VALUE result, consumed by FORMAT_SIMPLE/FORMAT_WITH_SPEC."""

    _fields = ("value", "conversion")

    def __init__(self, value: ast.expr, conversion: int) -> None:
        super().__init__()
        self.value = value
        self.conversion = conversion


class ClosureTuple(V.Marker):
    def __init__(self, names: list[str]) -> None:
        self.names = names


def _same_number(a: complex, b: complex) -> bool:
    import math

    return all(
        x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
        for x, y in ((a.real, b.real), (a.imag, b.imag))
    )


def _complex_ast(c: complex) -> ast.expr:
    """A complex constant as source that folds back to the same value, signed
    zeros included (`-1.5j` is complex(-0.0, -1.5); `(-0-1.5j)` is not)."""
    real, imag = c.real, c.imag
    j = ast.Constant(value=complex(0.0, abs(imag)))
    candidates = [
        ast.Constant(value=c),
        ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-c)),
        ast.BinOp(left=ast.Constant(value=real), op=ast.Add() if imag >= 0 else ast.Sub(), right=j),
        ast.UnaryOp(
            op=ast.USub(),
            operand=ast.BinOp(
                left=ast.Constant(value=-real), op=ast.Sub() if imag >= 0 else ast.Add(), right=j
            ),
        ),
    ]
    for cand in candidates:
        try:
            # judge the text, as it will be read back, not the ast node
            folded = eval(compile(ast.unparse(cand), "<complex>", "eval"), {"__builtins__": {}})
        except Exception:
            continue
        if isinstance(folded, complex) and _same_number(folded, c):
            return cand
    raise DecompilationError(f"no source spelling for the constant {c!r}")


def cell_of(var: str) -> ast.expr:
    """Source for the cell object of a variable (Dynamo passes cells to resume
    functions): the one closure cell of `lambda: var` is that very cell."""
    no_args = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    fn = ast.Lambda(args=no_args, body=name(var))
    closure = ast.Attribute(value=fn, attr="__closure__", ctx=ast.Load())
    return ast.Subscript(value=closure, slice=ast.Constant(value=0), ctx=ast.Load())


def _joined(values: list[ast.expr]) -> ast.expr:
    """String parts as one expression: a lone constant as itself, else an f-string."""
    if len(values) == 1 and isinstance(values[0], ast.Constant):
        return values[0]
    return ast.JoinedStr(values=values)


def _formatted(value: ast.expr, conversion: int, spec: ast.expr | None) -> ast.FormattedValue:
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    return ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


def _all_const(e: ast.expr) -> bool:
    return all(isinstance(x, ast.Constant) or (isinstance(x, ast.Tuple) and _all_const(x)) for x in e.elts)
