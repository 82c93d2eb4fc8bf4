"""Class statements, class bodies and whole modules.

A ``class`` statement compiles to a call of ``__build_class__`` with the class body
as a function, the class name, the bases and the keywords, then decorator calls and
a store of the name.  :class:`ClassOps` (a walker mixin) turns that call into a
:class:`ClassValue` marker, which a store of the class's own name makes a
``ClassDef`` (decorator calls on the way are collected as for functions).

The body is a code object of its own that starts by storing ``__module__``,
``__qualname__`` (3.13: ``__firstlineno__``) and maybe ``__doc__``, and ends by
storing ``__static_attributes__`` (3.13) and returning the ``__class__`` cell
(``__classcell__``) or None.  :func:`class_body` walks it like a function and
removes that bookkeeping.  Annotated names in class and module bodies store into
``__annotations__`` (after ``SETUP_ANNOTATIONS``); :func:`annotated` turns
``name = value`` + ``__annotations__['name'] = T`` back into ``name: T = value``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Callable

from pellucid.decompiler import values as V
from pellucid.decompiler.annotation_targets import future_annotation, restore_unstored_annotation
from pellucid.decompiler.errors import DecompilationError, Refusal
from pellucid.decompiler.evaluate import CO_FUTURE_ANNOTATIONS, const, name, named_code_constant
from pellucid.decompiler.instructions import TABLE, Instr

# the ast of this Python has type parameters (3.12+ grammar)
_HAS_TYPE_PARAMS = "type_params" in ast.ClassDef._fields
CO_OPTIMIZED_NEWLOCALS = 0x3


def is_class_body(code: CodeType) -> bool:
    """A class body: neither optimized nor given new locals, and not a module."""
    return not code.co_flags & CO_OPTIMIZED_NEWLOCALS and code.co_name != "<module>"


@dataclass(eq=False)
class ClassValue(V.FunctionValue):
    """``__build_class__(body, name, *bases, **keywords)`` before its store."""

    name: str = ""
    bases: list = field(default_factory=list)
    keywords: list = field(default_factory=list)


class ClassBodyRef(ast.expr):
    """A class-body function inside a ``*args`` list of a ``__build_class__`` call."""

    _fields = ()

    def __init__(self, fv: V.FunctionValue) -> None:
        super().__init__()
        self.fv = fv


def _is_build_class(func: Any) -> bool:
    return isinstance(func, ast.Name) and getattr(func, "build_class", False)


class ClassOps:
    """Walker mixin: ``LOAD_BUILD_CLASS`` and the call that builds a class."""

    def op_LOAD_BUILD_CLASS(self, ins: Instr, stack: list) -> None:
        n = name("__build_class__")
        n.build_class = True
        stack.append(n)

    def function_value_expr(self, v: V.FunctionValue, ins: Instr | None) -> ast.expr:
        if not isinstance(v, ClassValue) and is_class_body(v.code):
            return ClassBodyRef(v)
        return super().function_value_expr(v, ins)

    def _finish_call(self, func: Any, args: list, kwnames: tuple, stack: list, ins: Instr) -> None:
        if not _is_build_class(func):
            args = [named_code_constant(a) or a for a in args]  # a class body as Dynamo's argument
            super()._finish_call(func, args, kwnames, stack, ins)
            return
        npos = len(args) - len(kwnames)
        pos = args[:npos]
        if len(pos) < 2 or not isinstance(pos[0], V.FunctionValue):
            raise self.fail("__build_class__ without a class body", ins, kind=Refusal.CLASS)
        keywords = [
            ast.keyword(arg=k, value=self.as_expr(v, ins)) for k, v in zip(kwnames, args[npos:])
        ]
        stack.append(self._class_value(pos[0], pos[1], pos[2:], keywords, ins))

    def op_CALL_FUNCTION_EX(self, ins: Instr, stack: list) -> None:
        super().op_CALL_FUNCTION_EX(ins, stack)
        call = stack[-1]
        if not (isinstance(call, ast.Call) and _is_build_class(call.func)):
            return
        args = call.args
        if len(args) < 2 or not isinstance(args[0], ClassBodyRef):
            raise self.fail("__build_class__ without a class body", ins, kind=Refusal.CLASS)
        stack[-1] = self._class_value(args[0].fv, args[1], args[2:], call.keywords, ins)

    def _class_value(
        self, fv: V.FunctionValue, cname: Any, bases: list, keywords: list, ins: Instr
    ) -> ClassValue:
        if not is_class_body(fv.code):
            raise self.fail("__build_class__ of a function that is not a class body", ins, kind=Refusal.CLASS)
        cname = self.as_expr(cname, ins)
        if not (isinstance(cname, ast.Constant) and cname.value == fv.code.co_name):
            raise self.fail("class name differs from its body's", ins, kind=Refusal.CLASS)
        if fv.defaults or fv.kwdefaults or fv.annotations:
            raise self.fail("class body with defaults", ins, kind=Refusal.CLASS)
        return ClassValue(
            code=fv.code,
            closure=fv.closure,
            name=cname.value,
            bases=[self.as_expr(b, ins) for b in bases],
            keywords=keywords,
        )


# ---------------------------------------------------------------------------- bodies
def _is_store(stmt: ast.stmt, target: str) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == target
    )


def _is_classcell_return(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Return):
        return False
    v = stmt.value
    if v is None or (isinstance(v, ast.Constant) and v.value is None):
        return True
    return (
        isinstance(v, ast.NamedExpr)
        and v.target.id == "__classcell__"
        and isinstance(v.value, ast.Name)
        and v.value.id == "__class__"
    )


def _is_none_return(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Return) and (
        stmt.value is None or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
    )


def annotated(body: list[ast.stmt], future: bool = False) -> list[ast.stmt]:
    """``x = v`` then ``__annotations__['x'] = T`` -> ``x: T = v``; alone -> ``x: T``.
    ``future``: the code was compiled under ``from __future__ import annotations``, which
    stores each annotation as its text: ``T`` is that text's expression, not a string."""
    out: list[ast.stmt] = []
    for stmt in body:
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, attr, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, attr, annotated(inner, future))
        if isinstance(stmt, ast.Try):
            for h in stmt.handlers:
                h.body = annotated(h.body, future)
        ann = _annotation_store(stmt)
        if ann is None:
            out.append(stmt)
            continue
        target, annotation = ann
        if future:
            annotation = future_annotation(annotation)
        prev = out[-1] if out else None
        if prev is not None and _is_store(prev, target) and not getattr(prev, "annotated", False):
            node = ast.AnnAssign(
                target=ast.Name(id=target, ctx=ast.Store()),
                annotation=annotation,
                value=prev.value,
                simple=1,
            )
            out[-1] = node
        else:
            out.append(
                ast.AnnAssign(
                    target=ast.Name(id=target, ctx=ast.Store()),
                    annotation=annotation,
                    value=None,
                    simple=1,
                )
            )
    return out


def _annotation_store(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    t = stmt.targets[0]
    if not (
        isinstance(t, ast.Subscript)
        and isinstance(t.value, ast.Name)
        and t.value.id == "__annotations__"
        and isinstance(t.slice, ast.Constant)
        and isinstance(t.slice.value, str)
        and t.slice.value.isidentifier()
    ):
        return None
    return t.slice.value, stmt.value


def _uses_annotations(code: CodeType, ins: list[Instr]) -> bool:
    return any(i.op == "SETUP_ANNOTATIONS" for i in ins)


def _finish_body(
    w: Any, body: list[ast.stmt], implicit: Callable[[ast.stmt], bool]
) -> list[ast.stmt]:
    """Class and module bodies: every return in them is a copy of the implicit one."""
    try:
        body = _absorb(body, implicit)
    except _NoSource as e:
        raise w.fail(str(e), kind=Refusal.CLASS) from None
    if _has_return(body):
        raise w.fail("return outside a function", kind=Refusal.CLASS)
    if _uses_annotations(w.code, w.ins):
        future = bool(w.code.co_flags & CO_FUTURE_ANNOTATIONS)
        body = restore_unstored_annotation(annotated(body, future), future)
    return body


class _NoSource(Exception):
    pass


def _parts(st: ast.stmt, create: bool = False) -> list[tuple[Any, str]] | None:
    """The branches of ``st`` whose end continues after ``st`` (owner, attribute)."""
    if isinstance(st, ast.If):
        return [(st, "body"), (st, "orelse")]
    if isinstance(st, ast.Try) and not st.finalbody and st.handlers:
        return [(st, "orelse")] + [(h, "body") for h in st.handlers]
    return None


def _tail_return(branch: list[ast.stmt], implicit: Callable[[ast.stmt], bool]) -> bool:
    """Some path through ``branch`` ends in the implicit return."""
    if not branch:
        return False
    last = branch[-1]
    if implicit(last):
        return True
    parts = _parts(last) or _closing_parts(last)
    if not parts:
        return False
    return any(_tail_return(getattr(o, a), implicit) for o, a in parts)


def _all_return(branch: list[ast.stmt], implicit: Callable[[ast.stmt], bool]) -> bool:
    """Every path through ``branch`` ends in the implicit return."""
    if not branch:
        return False
    last = branch[-1]
    if implicit(last):
        return True
    if isinstance(last, ast.Try) and not last.orelse:
        return _all_return(last.body, implicit) and all(
            _all_return(h.body, implicit) for h in last.handlers
        )
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _all_return(last.body, implicit)
    parts = _parts(last)
    if parts is None:
        return False
    return all(_all_return(getattr(o, a), implicit) for o, a in parts)


def _absorb(stmts: list[ast.stmt], implicit: Callable[[ast.stmt], bool]) -> list[ast.stmt]:
    """Remove the implicit-return copies 3.11+ put in branches that end the body.

    ``if t: A; T; return`` then ``B; T; return`` is ``if t: A`` ``else: B`` then
    ``T``: the code after a compound statement moves into its branches that do not
    return, and the tail the compiler copied into all of them moves out again.
    """
    out: list[ast.stmt] = []
    for k, st in enumerate(stmts):
        if implicit(st):
            return out  # what follows is dead
        parts = _parts(st)
        if parts is not None and any(_tail_return(getattr(o, a), implicit) for o, a in parts):
            rest = stmts[k + 1 :]
            if isinstance(st, ast.Try) and not st.orelse and _tail_return(st.body, implicit):
                raise _NoSource("return copy at the end of a try body")
            branches = []
            for o, a in parts:
                branch = getattr(o, a)
                if not _all_return(branch, implicit):
                    branch = branch + rest
                branches.append(_absorb(branch, implicit))
            # the tail copied into every branch (at most what followed) goes back out
            common = 0
            while common < len(rest) and all(
                len(b) > common and _same_stmt(b[-1 - common], branches[0][-1 - common])
                for b in branches
            ):
                common += 1
            tail = branches[0][len(branches[0]) - common :] if common else []
            for (o, a), branch in zip(parts, branches):
                branch = branch[: len(branch) - common]
                if not branch and not (o is st and a == "orelse"):
                    branch = [ast.Pass()]
                setattr(o, a, branch)
            out.append(st)
            out.extend(tail)
            return out
        if k + 1 == len(stmts) or implicit(stmts[k + 1]):
            # falling off the body's last statement is the implicit return: its branches
            # (a with's, a try/finally's too) lose the copies of it they end in
            for o, a in _closing_parts(st):
                branch = getattr(o, a)
                if branch:
                    branch = _absorb(branch, implicit)
                    setattr(o, a, branch or ([] if o is st and a == "orelse" else [ast.Pass()]))
        out.append(st)
    return out


def _closing_parts(st: ast.stmt) -> list[tuple[Any, str]]:
    """The branches of ``st`` whose end is ``st``'s end (owner, attribute): unlike
    :func:`_parts`, a with's and a try/finally's body, where no code may move in."""
    if isinstance(st, ast.If):
        return [(st, "body"), (st, "orelse")]
    if isinstance(st, ast.Try):
        return [(h, "body") for h in st.handlers] + [(st, "orelse") if st.orelse else (st, "body")]
    if isinstance(st, (ast.With, ast.AsyncWith)):
        return [(st, "body")]
    return []


def _same_stmt(a: ast.stmt, b: ast.stmt) -> bool:
    return ast.dump(a) == ast.dump(b)


def _has_return(body: list[ast.stmt]) -> bool:
    """A return statement outside nested functions and classes."""
    work = list(body)
    while work:
        node = work.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        work.extend(ast.iter_child_nodes(node))
    return False


def _parsed_annotation(value: ast.expr, w: Any) -> ast.expr:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        try:
            return ast.parse(value.value, mode="eval").body
        except SyntaxError:
            raise w.fail("annotation string is not an expression", kind=Refusal.DEFINITION) from None
    return value


def class_body(code: CodeType) -> list[ast.stmt]:
    """The statements of a class body, without the compiler's bookkeeping."""
    from pellucid.decompiler.emit import CodeWalker, declarations

    w = CodeWalker(code, "class")
    body = w.body()
    qual = getattr(code, "co_qualname", None)
    # prologue: __module__ = __name__; __qualname__ = '...'; (3.13) __firstlineno__ = N
    k = 0
    if (
        k < len(body)
        and _is_store(body[k], "__module__")
        and isinstance(body[k].value, ast.Name)
        and body[k].value.id == "__name__"
    ):
        k += 1
    else:
        raise w.fail("class body without __module__", kind=Refusal.CLASS)
    if (
        k < len(body)
        and _is_store(body[k], "__qualname__")
        and isinstance(body[k].value, ast.Constant)
        and isinstance(body[k].value.value, str)
        and (qual is None or body[k].value.value == qual)
    ):
        k += 1
    else:
        raise w.fail("class body without __qualname__", kind=Refusal.CLASS)
    if TABLE.class_firstlineno and k < len(body) and _is_store(body[k], "__firstlineno__"):
        k += 1
    if (  # a generic class (3.12+) records its parameters
        k < len(body)
        and _is_store(body[k], "__type_params__")
        and isinstance(body[k].value, ast.Name)
        and body[k].value.id == ".type_params"
    ):
        k += 1
    body = body[k:]
    doc = None
    if (
        body
        and _is_store(body[0], "__doc__")
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        doc = body[0].value.value
        body = body[1:]
    # epilogue: (3.13) __static_attributes__ = (...); return the __class__ cell
    body = _finish_body(w, _drop_static_attributes(body), _is_classcell_return)
    annotate = getattr(w, "class_annotate", None)
    if annotate is not None:  # 3.14+: the annotations are in a function of their own
        from pellucid.decompiler.annotate import (
            scope_annotations,
            with_class_annotations,
            with_scope_annotations,
        )

        scope = scope_annotations(annotate)
        if scope is None:
            raise w.fail("a class's __annotate__ function of an unknown shape", kind=Refusal.DEFINITION)
        if code.co_flags & CO_FUTURE_ANNOTATIONS:
            # `from __future__ import annotations` keeps them as source text
            scope = [(n, _parsed_annotation(a, w), k) for n, a, k in scope]
        if any(k is not None for _, _, k in scope):
            # those whose statement may not run left a mark where they stand
            body = with_scope_annotations(body, scope, w.fail)
        else:
            body = with_class_annotations(body, [(n, a) for n, a, _ in scope])
    pre = declarations(code, w.ins)
    if doc is not None:
        pre.insert(0, ast.Expr(value=ast.Constant(value=doc)))
    out = pre + body or [ast.Pass()]
    for st in out:
        demangle(st, code.co_name)
    return out


# identifier fields the compiler mangles inside a class (a call's keyword names it does not)
_MANGLED_FIELDS = {
    ast.Name: ("id",),
    ast.Attribute: ("attr",),
    ast.arg: ("arg",),
    ast.FunctionDef: ("name",),
    ast.AsyncFunctionDef: ("name",),
    ast.ClassDef: ("name",),
    ast.ExceptHandler: ("name",),
    ast.alias: ("name", "asname"),
}


def demangle(node: ast.AST, class_name: str) -> None:
    """Write private names of class ``class_name`` as the source did (``self.__x``, not
    ``self._C__x``): the compiler mangles them again, to the same names, and 3.13's
    ``__static_attributes__`` records them as written.  A nested class's body is its own
    class's business (class_body demangles it with its name)."""
    prefix = f"_{class_name.lstrip('_')}__"

    def plain(name: Any) -> Any:
        # the name as written is the one that mangles to this one (see mangle)
        if not isinstance(name, str) or not name.startswith(prefix):
            return name
        written = "__" + name[len(prefix) :]
        return written if mangle(class_name, written) == name else name

    todo = [node]
    while todo:
        n = todo.pop()
        for attr in _MANGLED_FIELDS.get(type(n), ()):
            setattr(n, attr, plain(getattr(n, attr, None)))
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            n.names = [plain(x) for x in n.names]
        if isinstance(n, ast.ClassDef):
            todo.extend(n.bases)
            todo.extend(n.keywords)
            todo.extend(n.decorator_list)
            continue
        todo.extend(ast.iter_child_nodes(n))


def _drop_static_attributes(body: list[ast.stmt]) -> list[ast.stmt]:
    """3.13: ``__static_attributes__ = (...)`` goes with every copy of the final return."""
    if not TABLE.class_static_attributes:
        return body
    out: list[ast.stmt] = []
    for k, st in enumerate(body):
        if (
            _is_store(st, "__static_attributes__")
            and isinstance(st.value, (ast.Tuple, ast.Constant))
            and (k + 1 == len(body) or _is_classcell_return(body[k + 1]))
        ):
            continue
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(st, attr, None)
            if isinstance(inner, list) and not isinstance(st, (ast.FunctionDef, ast.ClassDef)):
                setattr(st, attr, _drop_static_attributes(inner))
        for h in getattr(st, "handlers", None) or []:
            h.body = _drop_static_attributes(h.body)
        out.append(st)
    return out


def class_def(cv: ClassValue) -> ast.ClassDef:
    node = ast.ClassDef(
        name=cv.name,
        bases=list(cv.bases),
        keywords=list(cv.keywords),
        body=class_body(cv.code),
        decorator_list=list(cv.decorators),
    )
    if _HAS_TYPE_PARAMS:
        node.type_params = list(cv.type_params)
    return node


def class_source_def(code: CodeType) -> ast.ClassDef:
    """A class statement for a class-body code object handed over on its own."""
    node = ast.ClassDef(
        name=code.co_name, bases=[], keywords=[], body=class_body(code), decorator_list=[]
    )
    if _HAS_TYPE_PARAMS:
        node.type_params = []
    return node


def module_body(code: CodeType) -> list[ast.stmt]:
    """The statements of a module code object."""
    from pellucid.decompiler.emit import CodeWalker

    w = CodeWalker(code, "module")
    body = w.body()
    annotate = getattr(w, "module_annotate", None)
    if annotate is not None:
        # 3.14+: the annotations are in a function of their own, and each statement that
        # ran left a mark where it stands
        from pellucid.decompiler.annotate import conditional_annotations, place_annotations

        entries = conditional_annotations(annotate)
        if entries is None:
            raise w.fail("a module's __annotate__ function of an unknown shape", kind=Refusal.DEFINITION)
        if code.co_flags & CO_FUTURE_ANNOTATIONS:
            entries = {k: (n, _parsed_annotation(a, w)) for k, (n, a) in entries.items()}
        body = place_annotations(body, entries, w.fail)
        if entries:
            raise w.fail("annotations in __annotate__ that no statement of the module records", kind=Refusal.DEFINITION)
    elif getattr(w, "module_records_annotations", False) and not any(
        i.op == "SETUP_ANNOTATIONS" for i in w.ins  # (they are stored as they run: future import)
    ):
        # only annotations of attributes or subscripts (`o.x: T`), of which the compiler
        # keeps nothing but the target's evaluation: no source can be said to be theirs
        raise w.fail("a module whose only annotations are of attributes or subscripts (3.14+ keep nothing of them)", kind=Refusal.NO_SOURCE)
    body = _finish_body(w, body, _is_none_return)
    # the docstring is the first store of __doc__ (3.9/3.10 after SETUP_ANNOTATIONS)
    if (
        body
        and _is_store(body[0], "__doc__")
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body[0] = ast.Expr(value=const(body[0].value.value))
    # names some function declares global are *_GLOBAL in the module code too
    names = _global_names(w.ins)
    if names:
        k = 0
        while k < len(body) and (
            (isinstance(body[k], ast.Expr) and k == 0 and isinstance(body[k].value, ast.Constant))
            or (isinstance(body[k], ast.ImportFrom) and body[k].module == "__future__")
        ):
            k += 1
        body.insert(k, ast.Global(names=names))
    return body or [ast.Pass()]


def _global_names(ins: list[Instr]) -> list[str]:
    out: list[str] = []
    for i in ins:
        if i.op in ("STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_GLOBAL") and i.argval not in out:
            out.append(i.argval)
    return out


def mangle(class_name: str, name: str) -> str:
    """CPython's private-name mangling of ``name`` inside class ``class_name``."""
    if not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def def_name_matches(walker: Any, def_name: str, stored: str) -> bool:
    """``def name`` stores under ``name``, mangled in a class body (``def __f`` in C: ``_C__f``)."""
    if def_name == stored:
        return True
    return (
        getattr(walker, "mode", None) == "class" and mangle(walker.code.co_name, def_name) == stored
    )


def store_class(walker: Any, cv: ClassValue, target: ast.expr, ins: Instr) -> bool:
    """Emit the ``class`` statement when its value is stored under its own name."""
    if not isinstance(target, ast.Name) or not def_name_matches(walker, cv.name, target.id):
        raise walker.fail("class stored under another name", ins, kind=Refusal.CLASS)
    try:
        walker.emit(class_def(cv))
    except DecompilationError:
        raise
    return True
