"""Annotations evaluated lazily (3.14+, PEP 649/749): read back as written.

The compiler no longer evaluates a function's annotations where the ``def`` runs.  It makes an
``__annotate__`` function, set on the new function with ``SET_FUNCTION_ATTRIBUTE 16``::

    def __annotate__(format):
        if format > 2:             # LOAD_FAST format; LOAD_CONST 2; COMPARE_OP >; ...
            raise NotImplementedError          # LOAD_COMMON_CONSTANT; RAISE_VARARGS 1
        return {'a': int, 'return': str}       # ...; BUILD_MAP n; RETURN_VALUE

Its dictionary's values are the annotations as written, so the ``def`` gets them back from
there.  Any other shape is not an ``__annotate__`` the compiler made: it is refused.
"""

from __future__ import annotations

import ast
from types import CodeType

from pellucid.decompiler.errors import Refusal


def _is_guard(ins: list, format_name: str) -> bool:
    if len(ins) < 8:
        return False
    ops = [(i.op, i.argval) for i in ins[:3]]
    return (
        ops == [("LOAD_FAST", format_name), ("LOAD_CONST", 2), ("COMPARE_OP", ">")]
        and ins[3].op == "POP_JUMP_IF_FALSE"
        and ins[3].target == 6
        and ins[4].op == "LOAD_COMMON_CONSTANT"
        and ins[5].op == "RAISE_VARARGS"
        and ins[5].arg == 1
    )


def format_guard_end(code: CodeType, ins: list) -> int:
    """Where the body of a lazily evaluated function starts: after the ``format`` check 3.14+
    put first in every such function (``__annotate__``, a type alias's value, a type
    parameter's bound, constraints or default; the argument is ``.format`` in the latter),
    else 0.  The check is the compiler's, never the source's."""
    if code.co_argcount == 1 and _is_guard(ins, code.co_varnames[0]):
        return 6
    return 0


def _starred_temporaries(body: list[ast.stmt]) -> dict[str, ast.expr] | None:
    """``*args: *Ts`` compiles to ``Ts`` unpacked into one value (``UNPACK_SEQUENCE 1``),
    which the walker reads as ``(tmp,) = Ts``: each such temporary's ``*Ts``, by name.  None
    when ``body`` holds anything else."""
    out: dict[str, ast.expr] = {}
    for st in body:
        if not (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Tuple)
            and len(st.targets[0].elts) == 1
            and isinstance(st.targets[0].elts[0], ast.Name)
        ):
            return None
        out[st.targets[0].elts[0].id] = ast.Starred(value=st.value, ctx=ast.Load())
    return out


def annotations_of(annotate: CodeType) -> dict[str, ast.expr] | None:
    """The annotations an ``__annotate__`` function returns, by name; None for code of
    another shape."""
    from pellucid.decompiler.emit import CodeWalker

    if annotate.co_name != "__annotate__" or annotate.co_argcount != 1:
        return None
    walker = CodeWalker(annotate)
    ins = walker.ins
    if not _is_guard(ins, annotate.co_varnames[0]) or ins[-2].op != "BUILD_MAP":
        return None
    if ins[-1].op != "RETURN_VALUE":
        return None
    body, stack = walker.walk(6, len(ins) - 1, [], frozenset())
    if len(stack) != 1 or not isinstance(stack[0], ast.Dict):
        return None
    result = stack[0]
    starred = _starred_temporaries(body)
    if starred is None:
        return None
    if starred:
        result.values = [
            starred.pop(v.id) if isinstance(v, ast.Name) and v.id in starred else v for v in result.values
        ]
        if starred:
            return None
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in result.keys):
        return None
    return {k.value: v for k, v in zip(result.keys, result.values)}


def scope_annotations(annotate: CodeType) -> list[tuple[str, ast.expr, int | None]] | None:
    """The annotations a class body's or a module's ``__annotate__`` builds, in order:
    (name, annotation, index), the index None for an annotation the scope always has::

        BUILD_MAP 0; (entry)*; RETURN_VALUE
        entry: <annotation>; COPY 2; LOAD_CONST 'name'; STORE_SUBSCR
            or <index>; LOAD __conditional_annotations__; CONTAINS_OP 0; POP_JUMP_IF_FALSE next
               <annotation>; COPY 2; LOAD_CONST 'name'; STORE_SUBSCR

    (the second for a statement that may not run: under ``if``, ``try``, a loop... in a class
    body, every one in a module).  None for another shape."""
    from pellucid.decompiler.emit import CodeWalker

    if annotate.co_name != "__annotate__" or annotate.co_argcount != 1:
        return None
    walker = CodeWalker(annotate)
    ins = walker.ins
    if not _is_guard(ins, annotate.co_varnames[0]):
        return None
    if ins[6].op != "BUILD_MAP" or ins[6].arg != 0 or ins[-1].op != "RETURN_VALUE":
        return None
    out: list[tuple[str, ast.expr, int | None]] = []
    k, end = 7, len(ins) - 1
    while k < end:
        head = ins[k : k + 4]
        index = None
        if (
            len(head) == 4
            and head[0].op == "LOAD_CONST" and type(head[0].argval) is int
            and head[1].argval == _CONDITIONAL
            and head[2].op == "CONTAINS_OP" and head[2].arg == 0
            and head[3].op == "POP_JUMP_IF_FALSE"
        ):
            index, k, nxt = head[0].argval, k + 4, head[3].target
            j = nxt - 3
        else:
            j = next(
                (
                    j for j in range(k, end - 2)
                    if ins[j].op == "COPY" and ins[j].arg == 2
                    and ins[j + 1].op == "LOAD_CONST" and isinstance(ins[j + 1].argval, str)
                    and ins[j + 2].op == "STORE_SUBSCR"
                ),
                -1,
            )
            nxt = j + 3
        if not (
            k < j and nxt <= end
            and ins[j].op == "COPY" and ins[j].arg == 2
            and ins[j + 1].op == "LOAD_CONST" and isinstance(ins[j + 1].argval, str)
            and ins[j + 2].op == "STORE_SUBSCR"
        ) or any(i.target is not None and not k <= i.target <= j for i in ins[k:j]):
            return None
        # each annotation on its own: a plain expression between two stores
        body, stack = walker.walk(k, j, [], frozenset())
        if body or len(stack) != 1 or not isinstance(stack[0], ast.expr):
            return None
        out.append((ins[j + 1].argval, stack[0], index))
        k = nxt
    return out


def class_annotations(annotate: CodeType) -> list[tuple[str, ast.expr]] | None:
    """The annotations of a class body's ``__annotate__``, in order, when it always has them
    all; None otherwise."""
    read = scope_annotations(annotate)
    if read is None or any(index is not None for _, _, index in read):
        return None
    return [(name, value) for name, value, _ in read]


def with_class_annotations(
    body: list[ast.stmt], annotations: list[tuple[str, ast.expr]]
) -> list[ast.stmt]:
    """The class body with its annotations written back: ``name: T = v`` where an assignment
    ``name = v`` follows the previous annotation, ``name: T`` otherwise.  A class body's
    bytecode holds only the assignments and the annotations only their order, so any
    placement keeping both orders compiles alike."""
    body = list(body)
    pos = 0
    pending: list[ast.stmt] = []
    for name, annotation in annotations:
        q = next(
            (
                j for j in range(pos, len(body))
                if isinstance(body[j], ast.Assign)
                and len(body[j].targets) == 1
                and isinstance(body[j].targets[0], ast.Name)
                and body[j].targets[0].id == name
            ),
            None,
        )
        if q is None:
            pending.append(ast.AnnAssign(ast.Name(name, ast.Store()), annotation, None, 1))
            continue
        node = ast.AnnAssign(ast.Name(name, ast.Store()), annotation, body[q].value, 1)
        body[q : q + 1] = [*pending, node]
        pos = q + len(pending) + 1
        pending = []
    return body + pending


# The name a function is written under when only its ``__annotate__`` is at hand: that code
# says which annotations the function has, not what it is called.
ANNOTATED_NAME = "_annotated"


def annotate_source(annotate: CodeType) -> list[ast.stmt] | None:
    """An ``__annotate__`` function alone (3.14+): the definition the compiler made it for;
    None for one of no shape the compiler makes (a ``def __annotate__`` written by hand).

    A function's (``BUILD_MAP n``) comes back as ``def _annotated(a: A, ...) -> R: pass``:
    its parameters' kinds and the function's name change nothing in the ``__annotate__``
    they compile to.  A class body's or a module's (``BUILD_MAP 0`` and one store per
    annotation, see :func:`scope_annotations`) comes back as the annotated names, ``a: A``
    each; a class body's reads the class namespace, which the caller's class scope gives back
    (verify wraps code with a ``__classdict__`` cell in one).  A class body's annotation whose
    statement may not run (checked against ``__conditional_annotations__``) comes back under
    ``if True:``: which statement guarded it is not in this code, and any compiles alike.
    Under ``from __future__ import annotations`` the values are the source text, parsed back
    (the caller adds the import)."""
    from pellucid.decompiler.classes import _parsed_annotation
    from pellucid.decompiler.emit import CodeWalker
    from pellucid.decompiler.evaluate import CO_FUTURE_ANNOTATIONS

    walker = CodeWalker(annotate)
    future = bool(annotate.co_flags & CO_FUTURE_ANNOTATIONS)
    read = annotations_of(annotate)
    if read is not None:
        if future:
            # `from __future__ import annotations` keeps them as source text
            read = {k: _parsed_annotation(v, walker) for k, v in read.items()}
        returns = read.pop("return", None)
        params = [ast.arg(arg=name, annotation=value) for name, value in read.items()]
        if not all(name.isidentifier() for name in read):
            raise walker.fail("__annotate__ names a parameter no source can spell", kind=Refusal.NO_SOURCE)
        # `*args: *Ts` (a starred annotation) belongs to the one parameter that can hold it
        vararg = [p for p in params if isinstance(p.annotation, ast.Starred)]
        if len(vararg) > 1:
            raise walker.fail("__annotate__ with more than one starred annotation", kind=Refusal.DEFINITION)
        params = [p for p in params if p not in vararg]
        node = ast.FunctionDef(
            name=ANNOTATED_NAME,
            args=ast.arguments(
                posonlyargs=[], args=params, vararg=vararg[0] if vararg else None, kwonlyargs=[], kw_defaults=[],
                kwarg=None, defaults=[],
            ),
            body=[ast.Pass()],
            decorator_list=[],
            returns=returns,
            type_comment=None,
            type_params=[],
            lineno=0,
        )
        return [node]
    read = scope_annotations(annotate)
    if read is None:
        return None
    if not all(name.isidentifier() for name, _, _ in read):
        raise walker.fail("__annotate__ names an annotation no source can spell", kind=Refusal.NO_SOURCE)
    # a module's are all conditional (and written plainly); a class body's conditional ones
    # stand under an `if` whose test this code does not hold: `if True:` compiles alike
    in_class = "__classdict__" in annotate.co_freevars
    out: list[ast.stmt] = []
    for name, value, index in read:
        if future:
            value = _parsed_annotation(value, walker)
        st: ast.stmt = ast.AnnAssign(
            target=ast.Name(id=name, ctx=ast.Store()), annotation=value, value=None, simple=1
        )
        if in_class and index is not None:
            st = ast.If(test=ast.Constant(value=True), body=[st], orelse=[])
        out.append(st)
    return out


# A module's annotations (3.14+) are all conditional: each ``x: T`` statement records that it ran,
# ``__conditional_annotations__.add(<index>)`` (a SET_ADD on the set the module made first), and
# the module's ``__annotate__`` keeps entry <index> only when it did::
#
#     <index>; LOAD __conditional_annotations__; CONTAINS_OP 0; POP_JUMP_IF_FALSE next
#     <annotation>; COPY 2; LOAD_CONST 'x'; STORE_SUBSCR
_CONDITIONAL = "__conditional_annotations__"


class AnnotationMark(ast.stmt):
    """Where an annotation statement ran: its index in the scope's ``__annotate__``, replaced
    by the statement itself (:func:`place_annotations`)."""

    _fields = ("index",)

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


def is_conditional_set(value: object) -> bool:
    """``value`` is the set in which a scope records which annotations ran."""
    return isinstance(value, ast.Name) and value.id == _CONDITIONAL


def conditional_annotations(annotate: CodeType) -> dict[int, tuple[str, ast.expr]] | None:
    """The conditional entries of a scope's ``__annotate__``, by index: (name, annotation).
    None for another shape."""
    read = scope_annotations(annotate)
    if read is None:
        return None
    return {index: (name, value) for name, value, index in read if index is not None}


def place_annotations(body: list[ast.stmt], entries: dict[int, tuple[str, ast.expr]], fail) -> list[ast.stmt]:
    """``body`` with each :class:`AnnotationMark` replaced by its annotation statement:
    ``x: T = v`` when an assignment ``x = v`` comes right before it (the value is stored
    before the mark), ``x: T`` otherwise.  Nested blocks of the same scope are searched too
    (``if``, loops, ``try``, ``with``); nested functions and classes are other scopes."""
    out: list[ast.stmt] = []
    for st in body:
        if isinstance(st, AnnotationMark):
            entry = entries.pop(st.index, None)
            if entry is None:
                raise fail(f"annotation {st.index} recorded but not in __annotate__", kind=Refusal.DEFINITION)
            name, annotation = entry
            prev = out[-1] if out else None
            target = ast.Name(id=name, ctx=ast.Store())
            if (
                isinstance(prev, ast.Assign)
                and len(prev.targets) == 1
                and isinstance(prev.targets[0], ast.Name)
                and prev.targets[0].id == name
            ):
                out[-1] = ast.AnnAssign(target=target, annotation=annotation, value=prev.value, simple=1)
            else:
                out.append(ast.AnnAssign(target=target, annotation=annotation, value=None, simple=1))
            continue
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(st, field, None)
                if isinstance(block, list) and block:
                    setattr(st, field, place_annotations(block, entries, fail))
            for handler in getattr(st, "handlers", ()) or ():
                handler.body = place_annotations(handler.body, entries, fail)
            for case in getattr(st, "cases", ()) or ():
                case.body = place_annotations(case.body, entries, fail)
        out.append(st)
    return out


def _assigns(st: ast.stmt, name: str) -> bool:
    return (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and st.targets[0].id == name
    )


def with_scope_annotations(
    body: list[ast.stmt], scope: list[tuple[str, ast.expr, int | None]], fail
) -> list[ast.stmt]:
    """A class body with its annotations written back, some of them conditional (3.14+,
    see :func:`scope_annotations`): each conditional one where its statement left its mark,
    each other one as :func:`with_class_annotations` places it, in the order of the
    ``__annotate__`` (an unconditional one goes after the statement holding the mark of the
    conditional one before it)."""
    where: dict[int, int] = {}
    for q, st in enumerate(body):
        for node in ast.walk(st):
            if isinstance(node, AnnotationMark):
                where[node.index] = q
    before: dict[int, list[ast.stmt]] = {}
    replaced: dict[int, ast.stmt] = {}
    pending: list[ast.stmt] = []
    pos = 0
    for name, annotation, index in scope:
        target = ast.Name(id=name, ctx=ast.Store())
        if index is not None:
            q = where.get(index)
            if q is None:
                raise fail(f"annotation {index} in __annotate__ that no statement records", kind=Refusal.DEFINITION)
            before.setdefault(q, []).extend(pending)
            pending = []
            pos = max(pos, q + 1)
            continue
        j = next((j for j in range(pos, len(body)) if j not in replaced and _assigns(body[j], name)), None)
        if j is None:
            pending.append(ast.AnnAssign(target=target, annotation=annotation, value=None, simple=1))
            continue
        before.setdefault(j, []).extend(pending)
        pending = []
        replaced[j] = ast.AnnAssign(target=target, annotation=annotation, value=body[j].value, simple=1)
        pos = j + 1
    out: list[ast.stmt] = []
    for q, st in enumerate(body):
        out.extend(before.get(q, ()))
        out.append(replaced.get(q, st))
    out.extend(pending)
    conditional = {index: (name, value) for name, value, index in scope if index is not None}
    out = place_annotations(out, conditional, fail)
    if conditional:
        raise fail("annotations in __annotate__ that no statement of the scope records", kind=Refusal.DEFINITION)
    return out
