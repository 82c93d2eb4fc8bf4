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


def class_annotations(annotate: CodeType) -> list[tuple[str, ast.expr]] | None:
    """The annotations a class body's ``__annotate__`` builds, in order::

        BUILD_MAP 0; (<annotation>; COPY 2; LOAD_CONST 'name'; STORE_SUBSCR)*; RETURN_VALUE

    None for another shape (annotations under ``if``/``try``, which it guards one by one)."""
    from pellucid.decompiler.emit import CodeWalker

    if annotate.co_name != "__annotate__" or annotate.co_argcount != 1:
        return None
    walker = CodeWalker(annotate)
    ins = walker.ins
    if not _is_guard(ins, annotate.co_varnames[0]):
        return None
    if ins[6].op != "BUILD_MAP" or ins[6].arg != 0 or ins[-1].op != "RETURN_VALUE":
        return None
    out = []
    k, end = 7, len(ins) - 1
    while k < end:
        j = next(
            (
                j for j in range(k, end - 2)
                if ins[j].op == "COPY" and ins[j].arg == 2
                and ins[j + 1].op == "LOAD_CONST" and isinstance(ins[j + 1].argval, str)
                and ins[j + 2].op == "STORE_SUBSCR"
            ),
            None,
        )
        if j is None or any(i.target is not None and not k <= i.target <= j for i in ins[k:j]):
            return None
        # each annotation on its own: a plain expression between two stores
        body, stack = walker.walk(k, j, [], frozenset())
        if body or len(stack) != 1 or not isinstance(stack[0], ast.expr):
            return None
        out.append((ins[j + 1].argval, stack[0]))
        k = j + 3
    return out


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


def annotate_source(annotate: CodeType) -> list[ast.stmt]:
    """An ``__annotate__`` function alone (3.14+): the definition the compiler made it for.

    A function's (``BUILD_MAP n``) comes back as ``def _annotated(a: A, ...) -> R: pass``:
    its parameters' kinds and the function's name change nothing in the ``__annotate__``
    they compile to.  A class body's or a module's (``BUILD_MAP 0`` and one store per
    annotation, or for a module's each under a check that its statement ran) comes back as
    the annotated names, ``a: A`` each; a class body's reads the class namespace, which the
    caller's class scope gives back (verify wraps code with a ``__classdict__`` cell in one).
    A class body's annotations under ``if`` (checked against ``__conditional_annotations__``)
    are refused: which statement guards them is not
    in this code.  Under ``from __future__ import annotations`` the values are the source
    text, parsed back (the caller adds the import)."""
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
            raise walker.fail("__annotate__ names a parameter no source can spell")
        # `*args: *Ts` (a starred annotation) belongs to the one parameter that can hold it
        vararg = [p for p in params if isinstance(p.annotation, ast.Starred)]
        if len(vararg) > 1:
            raise walker.fail("__annotate__ with more than one starred annotation")
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
    pairs = class_annotations(annotate)
    if pairs is None and not annotate.co_freevars:
        # a module's: every entry conditional, in the order the statements stand
        entries = conditional_annotations(annotate)
        if entries is not None and sorted(entries) == list(range(len(entries))):
            pairs = [entries[k] for k in range(len(entries))]
    if pairs is None or not all(name.isidentifier() for name, _ in pairs):
        raise walker.fail(
            "__annotate__ of a shape the compiler makes only with its definition (a class's "
            "annotations under a condition): decompile the code that defines it instead"
        )
    if future:
        pairs = [(n, _parsed_annotation(a, walker)) for n, a in pairs]
    return [
        ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()), annotation=value, value=None, simple=1)
        for name, value in pairs
    ]


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
    """The entries of a module's ``__annotate__``, by index: (name, annotation).  None for
    another shape."""
    from pellucid.decompiler.emit import CodeWalker

    if annotate.co_name != "__annotate__" or annotate.co_argcount != 1:
        return None
    walker = CodeWalker(annotate)
    ins = walker.ins
    if not _is_guard(ins, annotate.co_varnames[0]):
        return None
    if ins[6].op != "BUILD_MAP" or ins[6].arg != 0 or ins[-1].op != "RETURN_VALUE":
        return None
    out: dict[int, tuple[str, ast.expr]] = {}
    k, end = 7, len(ins) - 1
    while k < end:
        head = ins[k : k + 4]
        if not (
            len(head) == 4
            and head[0].op == "LOAD_CONST" and type(head[0].argval) is int
            and head[1].argval == _CONDITIONAL
            and head[2].op == "CONTAINS_OP" and head[2].arg == 0
            and head[3].op == "POP_JUMP_IF_FALSE"
        ):
            return None
        nxt = head[3].target
        j = nxt - 3
        if not (
            k + 4 < j and nxt <= end
            and ins[j].op == "COPY" and ins[j].arg == 2
            and ins[j + 1].op == "LOAD_CONST" and isinstance(ins[j + 1].argval, str)
            and ins[j + 2].op == "STORE_SUBSCR"
        ) or any(i.target is not None for i in ins[k + 4 : j]):
            return None
        body, stack = walker.walk(k + 4, j, [], frozenset())
        if body or len(stack) != 1 or not isinstance(stack[0], ast.expr):
            return None
        out[head[0].argval] = (ins[j + 1].argval, stack[0])
        k = nxt
    return out


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
                raise fail(f"annotation {st.index} recorded but not in __annotate__")
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
