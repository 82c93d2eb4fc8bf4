"""Source for live objects a function was made with: the values of its defaults, its
annotations and its type parameters (given with the function, not in its code).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from pellucid.decompiler.evaluate import const, name


def value_ast(v: Any) -> ast.expr:
    """A source expression for a live default/annotation value."""
    try:
        if ast.literal_eval(repr(v)) == v and type(ast.literal_eval(repr(v))) is type(v):
            return ast.parse(repr(v), mode="eval").body
    except Exception:
        pass
    if isinstance(v, str):
        return const(v)
    if type(v).__name__ in ("GenericAlias", "_GenericAlias", "UnionType", "_UnionGenericAlias"):
        try:
            return ast.parse(repr(v).replace("typing.", "typing."), mode="eval").body
        except SyntaxError:
            pass
    if isinstance(v, type) or callable(v):
        mod = getattr(v, "__module__", None)
        qual = getattr(v, "__qualname__", None)
        if qual and "<" not in qual:
            if mod in ("builtins", None) and getattr(builtins, qual, None) is v:
                return name(qual)
            if mod:
                try:
                    return ast.parse(f"{mod}.{qual}", mode="eval").body
                except SyntaxError:
                    pass
    try:
        return ast.parse(repr(v), mode="eval").body
    except SyntaxError:
        return name(f"__default_{type(v).__name__}")


def annotation_ast(v: Any, future: bool) -> ast.expr:
    """Under `from __future__ import annotations` every annotation is stored as
    text; otherwise a string annotation was written as a string."""
    if isinstance(v, str) and not future:
        return const(v)
    if isinstance(v, str):
        try:
            return ast.parse(v, mode="eval").body
        except SyntaxError:
            return const(v)
    return value_ast(v)


def type_params_ast(params: tuple) -> list:
    """`def f[T: int, *Ts, **P]`: the live type parameters back to syntax (3.12+)."""
    out = []
    for p in params:
        kind = type(p).__name__
        if kind == "TypeVarTuple":
            out.append(ast.TypeVarTuple(name=p.__name__))
        elif kind == "ParamSpec":
            out.append(ast.ParamSpec(name=p.__name__))
        else:
            bound = None
            if getattr(p, "__constraints__", ()):
                bound = ast.Tuple(elts=[value_ast(c) for c in p.__constraints__], ctx=ast.Load())
            elif getattr(p, "__bound__", None) is not None:
                bound = value_ast(p.__bound__)
            out.append(ast.TypeVar(name=p.__name__, bound=bound))
    return out
