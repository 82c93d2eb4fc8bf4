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
        and ins[-2].op == "BUILD_MAP"
        and ins[-1].op == "RETURN_VALUE"
    )


def annotations_of(annotate: CodeType) -> dict[str, ast.expr] | None:
    """The annotations an ``__annotate__`` function returns, by name; None for code of
    another shape."""
    from pellucid.decompiler.emit import CodeWalker

    if annotate.co_name != "__annotate__" or annotate.co_argcount != 1:
        return None
    walker = CodeWalker(annotate)
    ins = walker.ins
    if not _is_guard(ins, annotate.co_varnames[0]):
        return None
    body, stack = walker.walk(6, len(ins) - 1, [], frozenset())
    if body or len(stack) != 1 or not isinstance(stack[0], ast.Dict):
        return None
    result = stack[0]
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in result.keys):
        return None
    return {k.value: v for k, v in zip(result.keys, result.values)}
