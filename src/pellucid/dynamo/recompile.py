"""Turn decompiled Dynamo bytecode into a file whose code object Dynamo will accept.

Dynamo's bytecode-hook contract (torch 2.13, ``convert_frame._compile``): the code a hook
returns must have the same argument names (``co_varnames`` prefix over all arguments), the
same ``co_freevars`` and the same ``co_cellvars`` as the *original* frame's code, because
the frame's fast locals, cells and closure are handed to it as they are.  Decompiled source
compiled on its own does not give that: free variables need an enclosing scope, names only
kept for layout need a reference, and nested functions Dynamo creates (resume functions with
closures) must stay Dynamo's own code objects, whose identity its caches rely on.

:func:`build` does the source side (an ``ast`` rewrite) and :func:`compile_checked` the code
side; both raise :class:`ContractError` with the reason when the result cannot be used, and the
caller then keeps Dynamo's bytecode.
"""

from __future__ import annotations

import ast
import copy
import dis
import inspect
import re
import sys
import types
from dataclasses import dataclass

from pellucid.decompiler.decode import NAME_SHIFT, opargs
from pellucid.decompiler.emit import unparse
from pellucid.dynamo.adapter import iter_code_constants

SCOPE_PREFIX = "__pellucid_scope_for_"
KEEP_CELLS = "__pellucid_keep_cells"

UUID_NAME = re.compile(
    r"^(__compiled_fn_\d+)_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12}$"
)


class ContractError(Exception):
    """The recompiled code cannot stand in for Dynamo's (the message says why)."""


class LostCellsError(ContractError):
    """Dynamo's code passes cell objects (LOAD_CLOSURE) that the source passes as values."""


class InventedNamesError(ContractError):
    """The source reads globals Dynamo's code never reads (e.g. a constant written as its repr)."""


def blames_decompiler(e: BaseException) -> bool:
    """Is ``e`` the decompiler's failure (its error, or source reading what Dynamo's code does
    not), rather than a file's layout or the dump directory?"""
    return "Decompil" in type(e).__name__ or isinstance(e, (InventedNamesError, LostCellsError))


def count_args(code: types.CodeType) -> int:
    """Number of argument slots, as Dynamo counts them."""
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & inspect.CO_VARARGS)
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


def stable_global_names(code: types.CodeType) -> dict[str, str]:
    """Map Dynamo's ``__compiled_fn_<n>_<uuid>`` global names in ``code`` to ``__compiled_fn_<n>``."""
    out: dict[str, str] = {}
    for name in code.co_names:
        m = UUID_NAME.match(name)
        if m:
            out[name] = m.group(1)
    return out


@dataclass
class Built:
    source: str
    function_name: str


def _find_def(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for d in defs:
        if d.name == name:
            return d
    if len(defs) == 1:
        return defs[0]
    raise ContractError(f"decompiled source has no function {name!r}")


def build(
    decompiled: str | ast.Module,
    reference: types.CodeType,
    transformed: types.CodeType,
    function_name: str,
    header: str,
    keep_free: tuple[str, ...] = (),
    keep_cells: tuple[str, ...] = (),
) -> Built:
    """Source for a file defining ``function_name`` with ``reference``'s closure layout.

    ``keep_free``/``keep_cells`` name variables that must be referenced in dead code so the
    compiler keeps them as free/cell variables (found by a first :func:`compile_checked`).
    A tree given as ``decompiled`` is left as it was: it can be built again.
    """
    if isinstance(decompiled, ast.Module):
        tree = decompiled
    else:
        try:
            tree = ast.parse(decompiled)
        except SyntaxError as e:
            raise ContractError(f"decompiled source does not parse: {e}") from e
    fn = copy.copy(_find_def(tree, transformed.co_name))
    fn.name = function_name
    fn.decorator_list = []
    fn.body = list(fn.body)

    dead: list[ast.stmt] = []
    for c in keep_cells:
        dead.append(ast.Assign(targets=[ast.Name(c, ast.Store())], value=ast.Constant(None)))
    if keep_cells:
        dead.append(
            ast.FunctionDef(
                name=KEEP_CELLS,
                args=ast.arguments([], [], None, [], [], None, []),
                body=[
                    ast.Return(ast.Tuple([ast.Name(c, ast.Load()) for c in keep_cells], ast.Load()))
                ],
                decorator_list=[],
                returns=None,
                type_comment=None,
                type_params=[],
            )
        )
    if keep_free:
        dead.append(ast.Expr(ast.Tuple([ast.Name(c, ast.Load()) for c in keep_free], ast.Load())))
    if dead:
        fn.body.insert(0, ast.If(test=ast.Constant(False), body=dead, orelse=[]))

    body: list[ast.stmt] = [fn]
    if reference.co_freevars:
        # Free variables need an enclosing function that owns them as cells.
        outer_body: list[ast.stmt] = [
            ast.Assign(
                targets=[ast.Name(v, ast.Store()) for v in reference.co_freevars],
                value=ast.Constant(None),
            ),
            fn,
            ast.Return(ast.Name(function_name, ast.Load())),
        ]
        body = [
            ast.FunctionDef(
                name=SCOPE_PREFIX + function_name,
                args=ast.arguments([], [], None, [], [], None, []),
                body=outer_body,
                decorator_list=[],
                returns=None,
                type_comment=None,
                type_params=[],
            )
        ]
    # the text is what gets compiled: no locations needed on the tree
    src = unparse(ast.Module(body=body, type_ignores=[]))
    return Built(source=header + src + "\n", function_name=function_name)


def _find_code(module_code: types.CodeType, name: str) -> types.CodeType:
    for c in iter_code_constants(module_code):
        if c.co_name == name:
            return c
    raise ContractError(f"compiled file has no code object {name!r}")


def _replace_nested(
    code: types.CodeType, originals: dict[str, list[types.CodeType]]
) -> types.CodeType:
    """Put Dynamo's own nested code objects (resume functions, the user's lambdas it
    recreates) back in place of recompiled ones, so that they keep their identity.

    A recompiled code object takes the place of Dynamo's of the same name whose bytecode it
    is equivalent to; failing that, of the only one of that name, if the name is a real one
    (``<lambda>`` and the like are shared by unrelated functions: pellucid's own
    ``(lambda: x).__closure__[0]``, for one, stays as it is)."""
    consts = list(code.co_consts)
    changed = False
    for i, c in enumerate(consts):
        if not isinstance(c, types.CodeType):
            continue
        orig = _original_of(c, originals.get(c.co_name, []))
        if orig is not None:
            if orig.co_freevars != c.co_freevars:
                raise ContractError(
                    f"nested function {c.co_name} closes over {c.co_freevars}, "
                    f"Dynamo's over {orig.co_freevars}"
                )
            consts[i] = orig
            changed = True
        else:
            new = _replace_nested(c, originals)
            if new is not c:
                consts[i] = new
                changed = True
    return code.replace(co_consts=tuple(consts)) if changed else code


def _original_of(c: types.CodeType, candidates: list[types.CodeType]) -> types.CodeType | None:
    from pellucid.decompiler.verify import compare_code

    for orig in candidates:
        if orig.co_freevars == c.co_freevars and not compare_code(orig, c):
            return orig
    if len(candidates) == 1 and not c.co_name.startswith("<"):
        return candidates[0]
    return None


_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
_LOAD_NAME = dis.opmap["LOAD_NAME"]
_LOAD_CLOSURE = dis.opmap.get("LOAD_CLOSURE", -1)  # 3.13: a pseudo-op, LOAD_FAST in co_code
# From 3.13 a cell object is pushed by a fast load of a cell or free slot (LOAD_CLOSURE is
# assembled to LOAD_FAST, which 3.14 may turn into LOAD_FAST_BORROW); the two-slot forms
# carry two 4-bit slot numbers.
_FAST_LOADS = frozenset(
    dis.opmap[n] for n in ("LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_CHECK") if n in dis.opmap
)
_FAST_CLEARS = frozenset(dis.opmap[n] for n in ("LOAD_FAST_AND_CLEAR",) if n in dis.opmap)
_FAST_PAIR_LOADS = frozenset(
    dis.opmap[n]
    for n in ("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW")
    if n in dis.opmap
)
_NAME_OPS = frozenset(dis.hasname)


def with_global_names(code: types.CodeType, names: dict[str, str]) -> types.CodeType:
    """``code`` (and code nested in it) with the globals it loads renamed by ``names``.

    Renaming before decompiling spares a walk over the decompiled tree.  A name that the
    code also uses otherwise (an attribute, a store) keeps its spelling: both names are bound.
    """
    consts = tuple(
        with_global_names(c, names) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    other_uses = {
        arg >> NAME_SHIFT.get(op, 0) for op, arg in opargs(code, _NAME_OPS) if op != _LOAD_GLOBAL
    }
    co_names = tuple(
        names.get(n, n) if i not in other_uses else n for i, n in enumerate(code.co_names)
    )
    if co_names == code.co_names and consts == code.co_consts:
        return code
    return code.replace(co_names=co_names, co_consts=consts)


def _global_loads(code: types.CodeType) -> set[str]:
    """Names ``code`` (and code nested in it) reads as globals or builtins."""
    names = code.co_names
    out = {
        names[arg >> NAME_SHIFT.get(op, 0)] for op, arg in opargs(code, (_LOAD_GLOBAL, _LOAD_NAME))
    }
    for c in iter_code_constants(code):
        out |= _global_loads(c)
    return out


def _closure_loads(code: types.CodeType) -> set[str]:
    """Names whose cells ``code`` itself pushes (LOAD_CLOSURE)."""
    if sys.version_info >= (3, 13):
        name = code._varname_from_oparg  # type: ignore[attr-defined]
        slots = [arg for _, arg in opargs(code, _FAST_LOADS)]
        for _, arg in opargs(code, _FAST_PAIR_LOADS):
            slots += (arg >> 4, arg & 15)
        cells = set(code.co_cellvars) | set(code.co_freevars)
        # (a slot an inlined comprehension's variable shadows holds values inside it)
        cells -= {name(arg) for _, arg in opargs(code, _FAST_CLEARS)}
        return {name(arg) for arg in slots} & cells
    if sys.version_info >= (3, 11):
        name = code._varname_from_oparg  # type: ignore[attr-defined]
    else:
        cells = code.co_cellvars + code.co_freevars
        name = cells.__getitem__
    return {name(arg) for _, arg in opargs(code, (_LOAD_CLOSURE,))}


def relabel(
    code: types.CodeType, old_file: str, new_file: str, old_name: str = "", new_name: str = ""
) -> types.CodeType:
    """``code`` as if compiled from ``new_file`` with ``old_name`` spelled ``new_name``.

    Only code compiled from ``old_file`` changes; Dynamo's own nested code objects, put back
    by :func:`compile_checked`, keep their names and files.
    """
    if code.co_filename != old_file:
        return code
    consts = tuple(
        relabel(c, old_file, new_file, old_name, new_name) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    changes: dict[str, object] = {"co_filename": new_file, "co_consts": consts}
    if not old_name:
        return code.replace(**changes)
    changes["co_name"] = code.co_name.replace(old_name, new_name)
    if getattr(code, "co_qualname", None) is not None:
        changes["co_qualname"] = code.co_qualname.replace(old_name, new_name)
    return code.replace(**changes)


def missing_layout(
    code: types.CodeType, reference: types.CodeType
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(free variables, cell variables) of ``reference`` that ``code`` lacks."""
    free = tuple(v for v in reference.co_freevars if v not in code.co_freevars)
    cells = tuple(v for v in reference.co_cellvars if v not in code.co_cellvars)
    return free, cells


def compile_checked(
    source: str,
    filename: str,
    function_name: str,
    reference: types.CodeType,
    transformed: types.CodeType,
    renamed: dict[str, str] | None = None,
) -> types.CodeType:
    """Compile ``source`` as ``filename`` and return ``function_name``'s code, checked like Dynamo.

    Raises :class:`ContractError` naming the first mismatch (arguments, free or cell variables).
    """
    try:
        module_code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise ContractError(f"decompiled source does not compile: {e}") from e
    code = _find_code(module_code, function_name)
    originals: dict[str, list[types.CodeType]] = {}
    for c in transformed.co_consts:
        if isinstance(c, types.CodeType):
            originals.setdefault(c.co_name, []).append(c)
    code = _replace_nested(code, originals)
    code = code.replace(co_qualname=function_name) if hasattr(code, "co_qualname") else code

    n_ref, n_new = count_args(reference), count_args(code)
    if reference.co_varnames[:n_ref] != code.co_varnames[:n_new]:
        raise ContractError(
            f"arguments differ: Dynamo expects {reference.co_varnames[:n_ref]}, "
            f"recompiled code has {code.co_varnames[:n_new]}"
        )
    if (
        reference.co_argcount != code.co_argcount
        or reference.co_posonlyargcount != code.co_posonlyargcount
        or reference.co_kwonlyargcount != code.co_kwonlyargcount
    ):
        raise ContractError("argument kinds differ from the original frame")
    if reference.co_freevars != code.co_freevars:
        raise ContractError(
            f"free variables differ: Dynamo expects {reference.co_freevars}, "
            f"recompiled code has {code.co_freevars}"
        )
    if reference.co_cellvars != code.co_cellvars:
        raise ContractError(
            f"cell variables differ: Dynamo expects {reference.co_cellvars}, "
            f"recompiled code has {code.co_cellvars}"
        )
    lost = _closure_loads(transformed) - _closure_loads(code)
    if lost:
        raise LostCellsError(
            "Dynamo's code passes the cells of " + ", ".join(sorted(lost)) + " (LOAD_CLOSURE), "
            "the decompiled source does not"
        )
    extra = _global_loads(code) - _global_loads(transformed) - set((renamed or {}).values())
    if extra:
        raise InventedNamesError(
            "decompiled source reads globals Dynamo's code does not (constants without a "
            "source form?): " + ", ".join(sorted(extra))
        )
    gen_flags = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
    if (reference.co_flags & gen_flags) != (code.co_flags & gen_flags):
        raise ContractError("generator/coroutine flags differ from the original frame")
    return code


@dataclass
class Template:
    """A transformed frame's file, built and compiled once under a placeholder function name."""

    source: str  # the file's text, the function named ``placeholder``
    consts: dict[str, object]  # names the source reads for constants with no source form
    checked: types.CodeType  # the function's code compiled from ``source`` (compile_checked)
    # "equivalent" (proven to do what Dynamo's code does) or "not-verified: <reason>"
    verification: str = "not-verified: not validated"

    @property
    def runs(self) -> bool:
        """May the checked code run in place of Dynamo's?  Only when proven equivalent."""
        return self.verification == EQUIVALENT


def transformed_template(
    code: types.CodeType,
    new_code: types.CodeType,
    usable: dict[str, str],
    prefix: str,
    compile_id: str,
    placeholder: str,
    validate: bool = True,
) -> Template:
    """Dynamo's transformed code ``new_code`` for the frame ``code`` as a file's source.

    Decompiled (its uuid-named globals read by their ``usable`` stable names, its live
    constants by names ``prefix<k>``), the graph break tidied, and built and checked once under
    ``placeholder``.  The same in the program's process and in the helper process (which sends
    the source back): what a frame's file says does not depend on where it was made."""
    from pellucid.decompiler.api import decompile_naming_constants
    from pellucid.dynamo import tidy

    named = with_global_names(new_code, usable) if usable else new_code
    tree, consts = decompile_naming_constants(named, prefix, tree=True)
    tidy.tidy(tree, new_code.co_name)  # the graph break's resume call, readable
    header = (
        f"# Decompiled by pellucid from the bytecode torch.compile (Dynamo) generated for\n"
        f"# {code.co_name} ({code.co_filename}:{code.co_firstlineno}), compile id {compile_id}.\n"
        f"{RUNS_LINE}\n"
        f"{VERIFICATION_PREFIX}pending\n"
    )
    for const_name, value in consts.items():
        # objects with no source spelling, bound in the frame's globals under these names
        header += f"# {const_name}: {short_repr(value)}\n"
    # Built and checked; a layout the compiler dropped (a free or cell variable the source never
    # names) is kept by dead references, found by a first check.
    keep_free: tuple[str, ...] = ()
    keep_cells: tuple[str, ...] = ()
    for _ in range(2):
        source = build(tree, code, new_code, placeholder, header, keep_free, keep_cells).source
        try:
            return checked_template(source, consts, code, new_code, usable, placeholder, validate)
        except ContractError:
            probe = compile(source, "<pellucid>", "exec", dont_inherit=True)
            inner = next(c for c in iter_code_constants(probe) if c.co_name == placeholder)
            free, cells = missing_layout(inner, code)
            if not free and not cells:
                raise
            keep_free += free
            keep_cells += cells
    raise ContractError("free and cell variables still differ after two builds")


def checked_template(
    source: str,
    consts: dict[str, object],
    code: types.CodeType,
    new_code: types.CodeType,
    usable: dict[str, str],
    placeholder: str,
    validate: bool = True,
) -> Template:
    """``source`` (made by :func:`transformed_template`, here or in the helper process) compiled
    and checked against Dynamo's contract: it may read the stable names of ``usable`` and the
    constants' names, and no other global Dynamo's code does not read.

    Then validated (:mod:`pellucid.decompiler.validate`): the checked code must be proven to do
    what ``new_code`` does, or it does not run.  The verdict is written into the header's
    verification line, and the line saying whether the file runs is set to match (one line
    each, so the compiled code's line numbers stay right)."""
    renamed = dict(usable)
    renamed.update({k: k for k in consts})
    checked = compile_checked(source, "<pellucid>", placeholder, code, new_code, renamed)
    made = Template(source, consts, checked)
    if validate:
        from pellucid.decompiler.validate import validate as validate_code

        aliases = {short: long for long, short in usable.items()}
        verdict = str(validate_code(new_code, checked, aliases, consts))
        made.verification = verdict
        made.source = with_verdict(source, verdict)
    return made


EQUIVALENT = "equivalent"
RUNS_LINE = "# This file is what runs: set breakpoints here."
READING_LINE = "# For reading only: Dynamo's own bytecode runs for this frame (see the line below)."
VERIFICATION_PREFIX = "# Verification against Dynamo's bytecode: "


def with_verdict(source: str, verdict: str) -> str:
    """``source`` with its header's verification line saying ``verdict`` and its line on what
    runs set to match; the number of lines does not change."""
    one_line = " ".join(verdict.split())
    lines = source.split("\n")
    for k, line in enumerate(lines[:40]):
        if line.startswith(VERIFICATION_PREFIX):
            lines[k] = VERIFICATION_PREFIX + one_line
        elif line in (RUNS_LINE, READING_LINE):
            lines[k] = RUNS_LINE if verdict == EQUIVALENT else READING_LINE
    return "\n".join(lines)


def short_repr(value: object) -> str:
    """One comment line's worth of ``repr(value)`` (a code object by its name and place)."""
    if isinstance(value, types.CodeType):
        text = f"code object {value.co_name} ({value.co_filename}:{value.co_firstlineno})"
    else:
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a broken __repr__ must not stop the dump
            text = f"<{type(value).__name__}>"
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", " ".join(text.split()))  # stable across runs
    return text if len(text) <= 90 else text[:87] + "..."
