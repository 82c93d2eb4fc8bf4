"""The ``ast`` nodes the evaluator makes of values: names, constants, store targets, the
cell of a variable; and the marker of a closure's tuple of cell names.

A module of its own because the structuring passes make the same nodes.
"""

from __future__ import annotations

import ast
import contextvars
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import DecompilationError, Refusal

# One Load (Store, Del) for every node made here: contexts carry nothing (the parser shares its own the
# same way), and a node made with positional fields costs half of one made with keywords.
LOAD = ast.Load()
STORE = ast.Store()
DEL = ast.Del()


def name(id_: str, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.Name(id_, ctx or LOAD)


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
        raise DecompilationError(f"constant {type(value).__name__} has no source form: {value!r:.60}", kind=Refusal.NO_SOURCE)
    return ast.Constant(value=value)


def named_code_constant(v: Any) -> ast.Name | None:
    """A code object Dynamo passes around as a value (to build a nested function or class
    itself) has no source spelling: under :data:`CONSTANT_NAMER` it is named like a device."""
    namer = CONSTANT_NAMER.get()
    if namer is not None and isinstance(v, V.FunctionValue) and getattr(v, "raw_code_const", False):
        return name(namer(v.code))
    return None


def is_plain_expr(v: Any) -> bool:
    """An expression :meth:`EvaluatorBase.as_expr` gives back as it is (most values are)."""
    return isinstance(v, ast.expr) and not isinstance(v, ast.FormattedValue) and not getattr(v, "is_cell", False)


def is_literal(value: Any) -> bool:
    """Does the source spell ``value`` exactly?  By exact type: a subclass of tuple (torch.Size,
    a named tuple) written as a display would come back as a plain tuple."""
    if type(value) in (tuple, frozenset):
        return all(is_literal(v) for v in value)
    return type(value) in _LITERAL_TYPES or type(value) is complex


# Set by decompile_naming_constants(): a callable giving a name for a constant
# that has no source form (Dynamo's devices, dtypes...).
CONSTANT_NAMER: contextvars.ContextVar = contextvars.ContextVar("pellucid_constant_namer", default=None)

_LITERAL_TYPES = frozenset(
    {type(None), bool, int, float, str, bytes, type(...), frozenset}
)
SCALAR_TYPES = _LITERAL_TYPES - {frozenset}  # literals const() spells as one ast.Constant


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
    raise DecompilationError(f"no source spelling for the constant {c!r}", kind=Refusal.NO_SOURCE)


def cell_of(var: str) -> ast.expr:
    """Source for the cell object of a variable (Dynamo passes cells to resume
    functions): the one closure cell of `lambda: var` is that very cell."""
    no_args = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    fn = ast.Lambda(args=no_args, body=name(var))
    closure = ast.Attribute(value=fn, attr="__closure__", ctx=ast.Load())
    return ast.Subscript(value=closure, slice=ast.Constant(value=0), ctx=ast.Load())
