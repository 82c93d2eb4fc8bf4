"""Annotations of module and class bodies that store nothing.

A body holding any annotation starts with ``SETUP_ANNOTATIONS``, which creates
``__annotations__``.  Only annotations of plain names are stored there (see
:func:`pellucid.decompiler.classes.annotated`); the others compile to the code of
ordinary statements:

- ``o.attr: T`` evaluates ``o`` then ``T`` and drops both (``o; T``); ``a[i]: T``
  evaluates ``a``, ``i`` and ``T``;
- ``o.attr: T = v`` (and ``(name): T = v``) assigns, then evaluates ``T`` (``o.attr = v; T``);
- under ``from __future__ import annotations`` the ``T`` is not evaluated at all.

Read back as those statements, the body has no annotation, so its recompiled code has no
``SETUP_ANNOTATIONS`` and ``__annotations__`` is never created: a difference in behaviour.
When the code sets annotations up and the decompiled body holds no annotation,
:func:`restore_unstored_annotation` writes one such statement back as the annotation it
compiles from.  Which statement was the annotation the bytecode does not say (the same code
comes from either), nor which attribute name an attribute target had (it is never loaded):
any choice compiles to the same code, and one annotation is enough to create
``__annotations__``.
"""

from __future__ import annotations

import ast

# the attribute an `o.<attr>: T` annotation is written with: the name is not in the bytecode
PLACEHOLDER_ATTR = "_"

_COMPOUND_FIELDS = ("body", "orelse", "finalbody")


def has_annotation(body: list[ast.stmt]) -> bool:
    """An annotation in ``body``, in the blocks the compiler searches (not in nested
    function or class definitions)."""
    for st in body:
        if isinstance(st, ast.AnnAssign):
            return True
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in _blocks(st):
            if has_annotation(block):
                return True
    return False


def _blocks(st: ast.stmt) -> list[list[ast.stmt]]:
    out = [getattr(st, f) for f in _COMPOUND_FIELDS if isinstance(getattr(st, f, None), list)]
    out += [h.body for h in getattr(st, "handlers", ())]
    out += [c.body for c in getattr(st, "cases", ())]
    return out


def _annotation_like(e: ast.expr) -> bool:
    """An expression one would write as an annotation (a name, ``typing.X``, ``list[int]``,
    ``'T'``, ``A | B``, ``None``)."""
    if isinstance(e, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) or e.value is None
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
        return _annotation_like(e.left) and _annotation_like(e.right)
    return False


def _target_of(st: ast.stmt) -> ast.expr | None:
    """The single target of ``st`` if it is an assignment an annotation can carry."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1:
        t = st.targets[0]
        if isinstance(t, (ast.Attribute, ast.Subscript, ast.Name)):
            return t
    return None


def _marked(st: ast.stmt | None) -> bool:
    return getattr(st, "unstored_annotation_part", False)


def _rewrite(body: list[ast.stmt], future: bool, strict: bool, parts_only: bool = False) -> bool:
    """Write the first statement (or statements) of ``body`` that an unstored annotation
    compiles to as that annotation; True if one was found.  ``strict``: only statements that
    read like one (an attribute or item assigned, a name or attribute evaluated).
    ``parts_only``: only where a constant the walker kept as an annotation's part follows."""
    for k, st in enumerate(body):
        nexts = body[k + 1 : k + 3] + [None, None]
        after = [e.value if isinstance(e, ast.Expr) else None for e in nexts]
        annotation = after[0] if after[0] is not None and _annotation_like(after[0]) else None
        if parts_only and not _marked(nexts[0]):
            continue
        target = _target_of(st)
        if target is not None and (not strict or not isinstance(target, ast.Name)):
            if future and not parts_only:  # `o.a: T = v` under the future import: T is not evaluated
                body[k] = _ann(target, ast.Constant(value=...), st.value)
                return True
            if annotation is not None:
                body[k : k + 2] = [_ann(target, annotation, st.value)]
                return True
        if isinstance(st, ast.Expr) and not isinstance(st.value, ast.Constant):
            if strict and not isinstance(st.value, (ast.Name, ast.Attribute, ast.Subscript)):
                continue
            if future and not parts_only:  # `o.attr: T`: only `o` is evaluated
                body[k] = _ann(_attribute(st.value), ast.Constant(value=...), None)
                return True
            if after[0] is not None and after[1] is not None and _annotation_like(after[1]) and not future:
                # `a[i]: T` evaluates a, i and T
                item = ast.Subscript(value=st.value, slice=after[0], ctx=ast.Store())
                body[k : k + 3] = [_ann(item, after[1], None)]
                return True
            if annotation is not None or (future and after[0] is not None):
                if future:  # `a[i]: T` under the future import evaluates a and i
                    item = ast.Subscript(value=st.value, slice=after[0], ctx=ast.Store())
                    body[k : k + 2] = [_ann(item, ast.Constant(value=...), None)]
                else:
                    body[k : k + 2] = [_ann(_attribute(st.value), annotation, None)]
                return True
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in _blocks(st):
            if _rewrite(block, future, strict, parts_only):
                return True
    return False


def _drop_unused_parts(body: list[ast.stmt]) -> list[ast.stmt]:
    """Constants the walker kept as possible parts of an annotation (they compile to nothing
    as statements; one first in a body would read as a docstring)."""
    out = [st for st in body if not getattr(st, "unstored_annotation_part", False)]
    for st in out:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for f in _COMPOUND_FIELDS:
            block = getattr(st, f, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(st, f, _drop_unused_parts(block) or [ast.Pass()])
        for h in [*getattr(st, "handlers", ()), *getattr(st, "cases", ())]:
            h.body = _drop_unused_parts(h.body) or [ast.Pass()]
    return out


def _attribute(value: ast.expr) -> ast.Attribute:
    return ast.Attribute(value=value, attr=PLACEHOLDER_ATTR, ctx=ast.Store())


def _ann(target: ast.expr, annotation: ast.expr, value: ast.expr | None) -> ast.AnnAssign:
    # simple=0: a name target is written in brackets, `(x): T = v`, which stores nothing
    return ast.AnnAssign(target=target, annotation=annotation, value=value, simple=0)


def restore_unstored_annotation(body: list[ast.stmt], future: bool) -> list[ast.stmt]:
    """``body`` of code that sets annotations up, with one annotation in it: a statement an
    unstored annotation compiles to is written back as one if ``body`` has none.  With no
    such statement (``(x): T`` under the future import compiles to nothing), ``(_): ...``
    is put first, which compiles to nothing either."""
    while _rewrite(body, future, False, parts_only=True):
        pass  # only annotations leave constants behind (3.9-3.11 evaluate them)
    if has_annotation(body) or _rewrite(body, future, True) or _rewrite(body, future, False):
        return _drop_unused_parts(body)
    body = _drop_unused_parts(body)
    k = 0
    while k < len(body) and (
        (isinstance(body[k], ast.Expr) and isinstance(body[k].value, ast.Constant))
        or (isinstance(body[k], ast.ImportFrom) and body[k].module == "__future__")
    ):
        k += 1  # after the docstring and the future imports
    body.insert(k, _ann(ast.Name(id=PLACEHOLDER_ATTR, ctx=ast.Store()), ast.Constant(value=...), None))
    return body


def future_annotation(value: ast.expr) -> ast.expr:
    """Under ``from __future__ import annotations`` an annotation is stored as the text it
    was written as: that text's expression, which compiles back to the same text."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        try:
            return ast.parse(value.value, mode="eval").body
        except SyntaxError:
            return value
    return value
