"""Terms: the symbolic values of the translation validator (constants by type and value, the
markers for NULL and the exception the caller handles, Dynamo's own globals), and the
folding of operators on constants.
"""

from __future__ import annotations

import ast
import operator
import types
from typing import Any

# Globals that Dynamo binds in the frame's globals for its transformed code (compiled graphs,
# imported modules, resume functions, builtins dicts, guard helpers).
DYNAMO_GLOBAL_PREFIXES = (
    "__compiled_fn_",
    "__import_",
    "__resume_at_",
    "__builtins_dict",
    "___",
    "__nested_",
)

NULL = ("null",)
# the exception the caller is handling when the frame starts (or none): the same in both programs
CALLER_HANDLING = ("caller-handling",)

SIMPLE_CONSTS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))


def const_term(value: object, code_alias: dict[int, int] | None = None) -> tuple:
    """A constant as a term: by type and value for immutable data, tuples element-wise (a
    constant tuple is the same value as one built element by element), other objects by
    identity."""
    t = type(value)
    if t in SIMPLE_CONSTS:
        return ("const", t.__name__, repr(value))
    if t is tuple:
        return ("tuple",) + tuple(const_term(v, code_alias) for v in value)  # type: ignore[union-attr]
    if t is frozenset:
        return ("frozenset",) + tuple(sorted((const_term(v) for v in value), key=repr))  # type: ignore[union-attr]
    if t is slice:
        return ("slice", const_term(value.start), const_term(value.stop), const_term(value.step))  # type: ignore[union-attr]
    if isinstance(value, types.CodeType):
        i = id(value)
        return ("code", (code_alias or {}).get(i, i))
    return ("object", id(value))


def const_value(term: Any) -> tuple[bool, Any]:
    """(True, value) for a term that is a plain constant (not a float's nan or infinity)."""
    if type(term) is tuple and term and term[0] == "const":
        if term[1] == "ellipsis":
            return True, ...
        try:
            return True, ast.literal_eval(term[2])
        except (ValueError, SyntaxError):
            return False, None
    return False, None


BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
    ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
}


def fold(op: str, a: Any, b: Any) -> tuple[bool, Any]:
    """A binary operator on two constants, as the compiler folds it (small results only)."""
    f = BINARY.get(op.rstrip("=") if op.endswith("=") and op not in ("==",) else op)
    if f is None or not all(type(v) in (int, float, bool, str) for v in (a, b)):
        return False, None
    try:
        if op.rstrip("=") in ("**", "<<") and abs(b) > 64:
            return False, None
        r = f(a, b)
    except Exception:  # noqa: BLE001
        return False, None
    if isinstance(r, (str, int)) and len(repr(r)) > 100:
        return False, None
    return True, r
