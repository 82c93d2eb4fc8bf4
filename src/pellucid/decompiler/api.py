"""``decompile()``: accept what users hand us and find the code object inside."""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import sys
from types import (
    AsyncGeneratorType,
    CodeType,
    CoroutineType,
    FrameType,
    FunctionType,
    GeneratorType,
    MethodType,
)
from typing import Any, Callable, Iterator, TypeVar

from pellucid.decompiler.errors import DecompilationError, Refusal, UnsupportedVersionError
from pellucid.decompiler.instructions import TABLE

# Python 3.11+ frames do not use the C stack; older ones do, so stay modest there
_RECURSION_LIMIT = 6000 if TABLE.frames_on_c_stack else 20000

T = TypeVar("T")


# objects that run a code object, and the attribute holding it
_RUNNING_CODE = {
    GeneratorType: "gi_code",
    CoroutineType: "cr_code",
    AsyncGeneratorType: "ag_code",
    FrameType: "f_code",
}


def _unwrap(obj: Any) -> tuple[CodeType, FunctionType | None]:
    """Return (code, function-or-None) for anything that wraps Python code."""
    seen = set()
    while id(obj) not in seen:
        seen.add(id(obj))
        if isinstance(obj, CodeType):
            return obj, None
        running = _RUNNING_CODE.get(type(obj))
        if running is not None:  # a generator, coroutine or frame: the code it runs
            return getattr(obj, running), None
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None and wrapped is not obj:
            obj = wrapped  # functools.wraps / lru_cache: the user's function
            continue
        if isinstance(obj, FunctionType):
            return obj.__code__, obj
        if isinstance(obj, MethodType):
            obj = obj.__func__
            continue
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
            continue
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        if isinstance(obj, property) and obj.fget is not None:
            obj = obj.fget
            continue
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None:
            obj = wrapped
            continue
        if not isinstance(obj, type) and not inspect.isbuiltin(obj):
            call = type(obj).__dict__.get("__call__") or next(
                (k.__dict__["__call__"] for k in type(obj).__mro__ if "__call__" in k.__dict__), None
            )
            if isinstance(call, FunctionType):
                obj = call
                continue
        break
    raise TypeError(
        f"pellucid.decompile() needs a function, method, code object or callable "
        f"implemented in Python, not {type(obj).__name__!s}: {obj!r:.80}"
    )


def _internal_error(message: str, code: CodeType) -> DecompilationError:
    """A DecompilationError marked as pellucid's own fault (``.internal``), not the input's."""
    err = DecompilationError(message, code_name=_qualname(code), kind=None)
    err.internal = True
    return err


def _refuse_unknown_version() -> None:
    """Raise :class:`UnsupportedVersionError` on a CPython whose bytecode pellucid does not know,
    before anything tries to read it (the supported set is the instruction layer's)."""
    from pellucid.decompiler.decode import unsupported_version

    reason = unsupported_version()
    if reason is not None:
        raise UnsupportedVersionError(reason)


NOT_VERIFIED = "# pellucid: NOT verified"
"""First words of the comment that opens source whose verification found a difference."""


def decompile(obj: Any, verify: bool = True, strict: bool = False) -> str:
    """Return Python source equivalent to ``obj``'s bytecode.

    ``obj`` may be a function, bound method, code object, ``functools.partial``,
    a ``functools.wraps``/``lru_cache`` wrapper, a callable instance, or a generator,
    coroutine or frame (the code it runs: ``decompile(sys._getframe())`` in a debugger).  For a
    function the result is a complete ``def`` statement (a module code object
    gives a module's source).

    The source is verified by default: it is compiled again and its normalized bytecode
    compared with the original.  Source that fails the check still comes back, opened by a
    ``# pellucid: NOT verified: <first difference>`` comment, so no unverified source reaches
    a reader unmarked; with ``strict=True`` the difference raises :class:`DecompilationError`
    instead.  ``verify=False`` skips the check (and the comment): for callers that check the
    source another way, such as translation validation of Dynamo's code.
    """
    code, fn = _unwrap(obj)
    _refuse_unknown_version()
    from pellucid.decompiler.emit import source_for

    source = _guarded(source_for, code, fn)
    try:
        compile(source, "<pellucid>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:
        # the ast held something unparse cannot spell: a bug, never output
        raise _internal_error(f"internal error: decompiled source does not parse ({e.msg})", code) from None
    if not verify:
        return source
    problem = first_difference(source, code)
    if problem is None:
        return source
    if strict:
        raise DecompilationError(f"not verified: {problem}", code_name=_qualname(code), kind=Refusal.UNVERIFIED)
    return f"{NOT_VERIFIED}: {problem}\n{source}"


def first_difference(source: str, code: CodeType) -> str | None:
    """Why ``source`` is not proven equivalent to ``code`` (one line), or None when it is.

    Never raises: a check that cannot run (the source does not compile, the verifier
    recursed too deep or met bytecode ``dis`` cannot read) is itself the reason.
    """
    from pellucid.decompiler import verify as _verify

    try:
        with _room_to_recurse():
            try:
                recompiled = _verify.recompile(source, code)
            except SyntaxError as e:
                return f"the source does not compile ({e.msg}, line {e.lineno})"
            except (ValueError, LookupError) as e:  # the original's code object is not in it
                return f"the source cannot be checked: {e}"
            diffs = _verify.compare_code(code, recompiled)
    except (RecursionError, MemoryError) as e:
        return f"the check ran out of room ({type(e).__name__}): code too deeply nested"
    except Exception as e:  # noqa: BLE001 - a verifier bug must not pass for a verdict
        return f"the check failed ({type(e).__name__}: {e})"
    if not diffs:
        return None
    more = f" (and {len(diffs) - 1} more)" if len(diffs) > 1 else ""
    return _one_line(f"recompiled bytecode differs: {diffs[0]}{more}")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _qualname(code: CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


def _unspellable_name(code: CodeType) -> str | None:
    """A name ``code`` (or code nested in it) uses that no source can spell, if any: a
    bytecode rewriter made it (pytest's assertion rewriting names temporaries ``@py_assert1``).
    Names starting with a dot are the compiler's own (``.0``, a comprehension's iterator);
    imports name modules (``collections.abc``, ``''`` for ``from . import x``)."""
    for name in code.co_varnames + code.co_names + code.co_cellvars + code.co_freevars:
        if not name.isidentifier() and not name.startswith(".") and not _module_name(name):
            return name
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found = _unspellable_name(const)
            if found is not None:
                return found
    return None


def _module_name(name: str) -> bool:
    return name == "" or all(part.isidentifier() for part in name.split("."))


def _guarded(make: Callable[[CodeType, Any], T], code: CodeType, fn: Any) -> T:
    """``make(code, fn)`` with decompilation's error contract: only DecompilationError leaves."""
    from pellucid.decompiler.decode import dangling_executor

    if dangling_executor(code):
        raise DecompilationError(
            "the bytecode has an ENTER_EXECUTOR instruction without its executor (no compiler "
            "made it)",
            code_name=_qualname(code),
            kind=Refusal.NO_SOURCE,
        )
    bad = _unspellable_name(code)
    if bad is not None:
        raise DecompilationError(
            f"the code uses the name {bad!r}, which no source can spell (made by a bytecode "
            "rewriter, such as pytest's assertion rewriting)",
            code_name=_qualname(code),
            kind=Refusal.NO_SOURCE,
        )
    try:
        with _room_to_recurse():
            return make(code, fn)
    except DecompilationError:
        raise
    except (RecursionError, MemoryError) as e:
        raise DecompilationError(
            f"code too deeply nested to decompile ({type(e).__name__})",
            code_name=_qualname(code),
            kind=Refusal.UNSUPPORTED,
        ) from e
    except Exception as e:
        # a bug or a code object no compiler made: say so, never guess
        raise _internal_error(f"internal error {type(e).__name__}: {e}", code) from e


@contextlib.contextmanager
def _room_to_recurse() -> Iterator[None]:
    """A higher recursion limit for the block: long and/or chains and deep nesting recurse
    once per level, in the decompiler and in the verifier alike."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def decompile_tree(code: CodeType) -> ast.Module:
    """The decompiled module tree of a function's code object, for callers that edit it
    before writing it out (torch.compile's frames): no unparse/reparse round trip.
    Not checked here: the caller compiles what it writes."""
    _refuse_unknown_version()
    from pellucid.decompiler.emit import tree_for

    tree, future_annotations = _guarded(lambda c, f: tree_for(c, f, as_def=True), code, None)
    if not isinstance(tree, ast.Module):
        tree = ast.Module(body=[tree], type_ignores=[])
    if future_annotations:
        future = ast.ImportFrom(module="__future__", names=[ast.alias(name="annotations")], level=0)
        tree.body.insert(0, future)
    return tree


def decompile_naming_constants(code: CodeType, prefix: str, tree: bool = False) -> tuple[Any, dict[str, Any]]:
    """Like :func:`decompile`, for code whose constants include live objects
    (Dynamo puts devices and dtypes there): each becomes a name ``prefix<k>``,
    returned with the object it must be bound to where the source runs.
    With ``tree=True`` the first item is an ``ast.Module`` instead of source."""
    from pellucid.decompiler.evaluate import CONSTANT_NAMER

    names: dict[str, Any] = {}
    by_id: dict[int, str] = {}

    def namer(value: Any) -> str:
        if id(value) not in by_id:
            by_id[id(value)] = f"{prefix}{len(by_id)}"
            names[by_id[id(value)]] = value
        return by_id[id(value)]

    import pellucid.decompiler as package  # the attribute, so tests may swap in a stub

    token = CONSTANT_NAMER.set(namer)
    try:
        if not tree:
            return package.decompile(code, verify=False), names
        if package.decompile is decompile:
            return decompile_tree(code), names
        return ast.parse(package.decompile(code, verify=False)), names  # a stand-in decompiler (tests)
    finally:
        CONSTANT_NAMER.reset(token)
