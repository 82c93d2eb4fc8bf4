"""Verification: recompile decompiled source and compare normalized bytecode.

Two code objects are *equivalent* here when, after normalization, they execute the same
instructions with the same arguments: opnames and arguments compared by value (names rather
than slot indices, constants by type and value), jump targets as indices into the normalized
instruction list, exception-table entries likewise, nested code objects recursively, plus the
signature and the flags that change behaviour. Line numbers, positions, file names and
instructions that only exist for bookkeeping (NOP, CACHE, EXTENDED_ARG, RESUME, ...) are
ignored, and jumps are threaded (a jump to an unconditional jump goes to its target), since
where CPython 3.12+ lets a jump land depends on line numbers.

Public functions:

- :func:`normalize` turns one code object into a :class:`NormalizedCode`;
- :func:`compare_code` returns a list of human-readable differences (empty: equivalent);
- :func:`differences` is the same with structured :class:`Difference` records;
- :func:`recompile` compiles decompiled source so that the code object matching the original
  can be found in it (free variables become closure variables of a wrapper function).
"""

from __future__ import annotations
import __future__

import ast
import dis
import math
import sys
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Iterator

from pellucid.decompiler.decode import decode
from pellucid.decompiler.instructions import (
    DROPPED,
    INVERSE_JUMPS,
    JUMP_ALIASES,
    SPELLINGS,
    TABLE,
    flagged_docstring,
)

__all__ = [
    "Difference",
    "NormalizedCode",
    "NormalizedInstruction",
    "compare_code",
    "differences",
    "normalize",
    "recompile",
    "verify_source",
]

PY = sys.version_info[:2]
# the ast of this Python has type parameters (3.12+ grammar)
_HAS_TYPE_PARAMS = "type_params" in ast.FunctionDef._fields

# Instructions that carry no behaviour of their own once line numbers, caches and quickening
# are ignored. TO_BOOL (3.13) is emitted deterministically before every truth test whose
# operand is not known to be a bool, so it never distinguishes two programs.
# MAKE_CELL / COPY_FREE_VARS (3.11+) are fully determined by co_cellvars / co_freevars,
# which are compared as sets.
# The decoder's own list, except GEN_START (3.10), which says what kind of generator a body is.
_DROPPED = DROPPED - {"GEN_START"}


# 3.13 superinstructions: two local-variable operations in one; split into their halves.
_SUPERINSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}

_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_CONSTS = frozenset(dis.hasconst)
_NAMES = frozenset(dis.hasname)
_LOCALS = frozenset(dis.haslocal) | frozenset(dis.hasfree)

# Name opcodes whose low oparg bits are flags that dis leaves out of argval.
# (LOAD_GLOBAL: push NULL first; LOAD_ATTR: method load; LOAD_SUPER_ATTR: method load,
# two-argument form)
_NAME_FLAG_BITS = {name: (1 << shift) - 1 for name, shift in TABLE.name_shift.items()}

CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
CO_NESTED = 0x10
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200

_FLAG_NAMES = {
    CO_OPTIMIZED: "OPTIMIZED",
    CO_NEWLOCALS: "NEWLOCALS",
    CO_VARARGS: "VARARGS",
    CO_VARKEYWORDS: "VARKEYWORDS",
    CO_NESTED: "NESTED",
    CO_GENERATOR: "GENERATOR",
    CO_COROUTINE: "COROUTINE",
    CO_ITERABLE_COROUTINE: "ITERABLE_COROUTINE",
    CO_ASYNC_GENERATOR: "ASYNC_GENERATOR",
}
_COMPARED_FLAGS = sum(_FLAG_NAMES)

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

WRAPPER_NAME = "__pellucid_wrapper__"
CLASS_NAME = "__pellucid_class__"


# --------------------------------------------------------------------------------------------
# Normalized representation


@dataclass(frozen=True)
class CodeRef:
    """A nested code object as an instruction argument (compared recursively, not by value)."""

    code: CodeType = field(compare=False)
    name: str

    def __repr__(self) -> str:
        return f"<code {self.name}>"


@dataclass(frozen=True)
class NormalizedInstruction:
    """One instruction after normalization.

    ``arg`` is a comparable key: a name, a constant key (see :func:`const_key`), a
    :class:`CodeRef`, a jump target index, or the raw oparg for opcodes whose argument is a
    plain number. ``offset`` is the original byte offset (for messages only).
    """

    opname: str
    arg: Any
    offset: int = field(compare=False, default=-1)
    argrepr: str = field(compare=False, default="")

    def __str__(self) -> str:
        if self.arg is None:
            return self.opname
        if isinstance(self.arg, JumpTarget):
            return f"{self.opname} -> {self.arg.index}"
        return f"{self.opname} {self.argrepr if self.argrepr else repr(self.arg)}"


@dataclass(frozen=True)
class JumpTarget:
    """A jump argument: index of the target in the normalized instruction list."""

    index: int


@dataclass(frozen=True)
class ExceptionEntry:
    """An exception-table entry with start/end/target as normalized instruction indices."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool

    def __str__(self) -> str:
        lasti = " lasti" if self.lasti else ""
        return f"{self.start} to {self.end} -> {self.target} [{self.depth}]{lasti}"


@dataclass
class NormalizedCode:
    """What of a code object takes part in the comparison."""

    name: str
    qualname: str
    argcount: int
    posonlyargcount: int
    kwonlyargcount: int
    argnames: tuple[str, ...]
    flags: int
    freevars: frozenset[str]
    cellvars: frozenset[str]
    docstring: Any
    instructions: list[NormalizedInstruction]
    exception_table: list[ExceptionEntry]


@dataclass(frozen=True)
class Difference:
    """One difference between an original code object and its recompiled counterpart.

    ``path`` names the code object (e.g. ``f.<locals>.g``); ``kind`` is what differs
    (``instruction``, ``length``, ``argcount``, ``flags``, ``exception_table``, ...);
    ``index`` is the normalized instruction index where relevant; ``original`` and
    ``recompiled`` describe the two sides.
    """

    path: str
    kind: str
    original: str
    recompiled: str
    index: int | None = None

    @property
    def category(self) -> str:
        """A short key for grouping differences.

        ``LOAD_FAST/LOAD_GLOBAL`` for different opnames, ``POP_JUMP_IF_FALSE: jump target`` or
        ``IS_OP: argument`` for the same opname, ``extra PUSH_EXC_INFO`` / ``missing RETURN_VALUE``
        for a length difference, else the kind (``flags``, ``exception_table``, ...).
        """
        a, b = self.original.split(" ")[0], self.recompiled.split(" ")[0]
        if self.kind == "length":
            return f"extra {a}" if b == "<end>" else f"missing {b}"
        if self.kind == "instruction":
            if a != b:
                return f"{a}/{b}"
            return f"{a}: jump target" if " -> " in self.original else f"{a}: argument"
        return self.kind

    def __str__(self) -> str:
        where = f"{self.kind} {self.index}" if self.index is not None else self.kind
        return f"{self.path}: {where}: {self.original} != {self.recompiled}"


# --------------------------------------------------------------------------------------------
# Normalization


def const_key(value: Any) -> Any:
    """A hashable key that equals for constants CPython treats as the same constant.

    Types are part of the key (``1``, ``1.0`` and ``True`` differ), ``-0.0`` differs from
    ``0.0``, NaN equals NaN, and containers are compared element-wise by the same rule.
    Code objects become a :class:`CodeRef` (compared by name here, recursively elsewhere).
    """
    t = type(value)
    if t is float:
        if math.isnan(value):
            return ("float", "nan")
        return ("float", value, math.copysign(1.0, value))
    if t is complex:
        return ("complex", const_key(value.real), const_key(value.imag))
    if t is tuple:
        return ("tuple", tuple(const_key(v) for v in value))
    if t is frozenset:
        return ("frozenset", frozenset(const_key(v) for v in value))
    if t is CodeType:
        return CodeRef(value, value.co_name)
    if t is slice:
        return ("slice", const_key(value.start), const_key(value.stop), const_key(value.step))
    return (t.__name__, value)


def _get_instructions(code: CodeType) -> Iterator[dis.Instruction]:
    if (3, 11) <= PY < (3, 13):
        return dis.get_instructions(code, show_caches=False)
    return dis.get_instructions(code)


def _parse_varint(it: Iterator[int]) -> int:
    b = next(it)
    val = b & 63
    while b & 64:
        val <<= 6
        b = next(it)
        val |= b & 63
    return val


def _exception_table(code: CodeType) -> list[tuple[int, int, int, int, bool]]:
    """Raw (start, end, target, depth, lasti) entries with byte offsets; end is exclusive."""
    table = getattr(code, "co_exceptiontable", b"")
    entries = []
    it = iter(table)
    try:
        while True:
            start = _parse_varint(it) * 2
            end = start + _parse_varint(it) * 2
            target = _parse_varint(it) * 2
            dl = _parse_varint(it)
            entries.append((start, end, target, dl >> 1, bool(dl & 1)))
    except StopIteration:
        pass
    return entries


def _code_qualname(code: CodeType, default: str | None = None) -> str:
    return getattr(code, "co_qualname", None) or default or code.co_name


def normalize(code: CodeType) -> NormalizedCode:
    """Normalize one code object (nested code objects are left as :class:`CodeRef` args).

    Drops bookkeeping instructions, splits 3.13 superinstructions, unifies jump direction
    variants, resolves arguments to values (names, constant keys, code refs) and jump targets
    and exception-table ranges to indices in the normalized instruction list. A jump to a
    dropped instruction goes to the next kept one. The line number a 3.13 class body stores
    in ``__firstlineno__`` is replaced by a placeholder, and qualname constants (3.9/3.10
    MAKE_FUNCTION, class-body ``__qualname__``) keep only their last component.
    """
    # First pass: kept instructions with their byte offsets, jump targets still as offsets.
    raw: list[tuple[str, Any, int, str, bool]] = []  # opname, arg, offset, argrepr, is_jump
    for ins in _get_instructions(code):
        spelling = SPELLINGS.get(ins.opname)
        if spelling is not None:
            # the instruction layer's reading of the version's own opcodes (a borrowed load is
            # a load: borrowing only saves reference counting)
            ins = spelling(ins)
        opname = ins.opname
        if opname in _DROPPED:
            continue
        op = ins.opcode
        split = _SUPERINSTRUCTIONS.get(opname)
        if split is not None:
            first, second = ins.argval
            raw.append((split[0], first, ins.offset, first, False))
            raw.append((split[1], second, ins.offset, second, False))
            continue
        opname = JUMP_ALIASES.get(opname, opname)
        if op in _JUMPS and ins.argval is not None:  # (3.14 END_ASYNC_FOR: no jump)
            raw.append((opname, ins.argval, ins.offset, "", True))
            continue
        if ins.arg is None:
            arg: Any = None
        elif op in _CONSTS or opname == "LOAD_CONST":
            arg = const_key(ins.argval)
        elif op in _NAMES:
            bits = _NAME_FLAG_BITS.get(opname)
            arg = ins.argval if bits is None else (ins.argval, ins.arg & bits)
        elif op in _LOCALS:
            arg = ins.argval
        else:
            arg = ins.arg
        raw.append((opname, arg, ins.offset, ins.argrepr, False))

    # 3.14+ call an attribute of a name the module imports as `LOAD_ATTR; PUSH_NULL` and any
    # other attribute as a method load: which, depends on the module's imports, not on what the
    # call does (the same call either way).  Compare both as the method load.
    merged: list[tuple[str, Any, int, str, bool]] = []
    for r in raw:
        if (
            r[0] == "PUSH_NULL"
            and merged
            and merged[-1][0] == "LOAD_ATTR"
            and type(merged[-1][1]) is tuple
            and merged[-1][1][1] == 0
        ):
            prev = merged[-1]
            merged[-1] = (prev[0], (prev[1][0], 1), prev[2], prev[3], prev[4])
            continue
        merged.append(r)
    raw = merged

    # A store to a local that the next instruction overwrites is a pop: 3.13+ compile it so
    # where both stores are on one line (`_, _, x = t`), not where the targets span lines.
    for i in range(len(raw) - 1):
        cur, nxt = raw[i], raw[i + 1]
        if cur[0] == "STORE_FAST" and nxt[0] == "STORE_FAST" and cur[1] == nxt[1]:
            raw[i] = ("POP_TOP", None, cur[2], "", False)

    # Where a definition is nested depends on where it is recompiled, not on what it does:
    # compare only the last component of qualnames that 3.9/3.10 pass to MAKE_FUNCTION and
    # that class bodies store in ``__qualname__``; 3.13 class bodies also store their first
    # line number in ``__firstlineno__``.
    for i in range(len(raw) - 1):
        cur, nxt = raw[i], raw[i + 1]
        if cur[0] != "LOAD_CONST" or type(cur[1]) is not tuple or cur[1][0] not in ("str", "int"):
            continue
        if nxt[0] == "STORE_NAME" and nxt[1] == "__firstlineno__":
            raw[i] = ("LOAD_CONST", ("firstlineno",), cur[2], "<first line>", False)
        elif cur[1][0] == "str" and (
            (nxt[0] == "STORE_NAME" and nxt[1] == "__qualname__")
            or (TABLE.make_function_pops_qualname and nxt[0] == "MAKE_FUNCTION")
        ):
            tail = cur[1][1].rpartition(".")[2]
            raw[i] = ("LOAD_CONST", ("qualname", tail), cur[2], f"<qualname ...{tail}>", False)

    offsets = [r[2] for r in raw]

    def index_of(offset: int) -> int:
        # first kept instruction at or after ``offset`` (len(raw): the end)
        return bisect_left(offsets, offset)

    entries = [
        (index_of(start), index_of(end), index_of(target), depth, lasti)
        for start, end, target, depth, lasti in _exception_table(code)
    ]
    targets = {k: index_of(r[1]) for k, r in enumerate(raw) if r[4]}
    new_index = _thread_jumps(raw, targets, {e[2] for e in entries})

    instructions = []
    for k, (opname, arg, offset, argrepr, is_jump) in enumerate(raw):
        if new_index[k] is None:
            continue
        if is_jump:
            arg = JumpTarget(_kept(new_index, targets[k]))
        instructions.append(NormalizedInstruction(opname, arg, offset, argrepr))

    table: list[ExceptionEntry] = []
    for start, end, target, depth, lasti in entries:
        s, e = _kept(new_index, start), _kept(new_index, end)
        target = _kept(new_index, target)
        if s >= e:
            continue
        entry = ExceptionEntry(s, e, target, depth, lasti)
        prev = table[-1] if table else None
        if (
            prev is not None
            and prev.end == s
            and (prev.target, prev.depth, prev.lasti) == (entry.target, depth, lasti)
        ):
            table[-1] = ExceptionEntry(prev.start, e, prev.target, depth, lasti)
        else:
            table.append(entry)

    nargs = code.co_argcount + code.co_kwonlyargcount
    nargs += bool(code.co_flags & CO_VARARGS) + bool(code.co_flags & CO_VARKEYWORDS)
    doc = None
    if not code.co_name.startswith("<") and code.co_flags & CO_OPTIMIZED and code.co_consts:
        first = code.co_consts[0]
        doc = first if isinstance(first, str) else None
        flagged = flagged_docstring(code)
        if flagged is not False:
            doc = flagged
    return NormalizedCode(
        name=code.co_name,
        qualname=_code_qualname(code),
        argcount=code.co_argcount,
        posonlyargcount=code.co_posonlyargcount,
        kwonlyargcount=code.co_kwonlyargcount,
        argnames=tuple(code.co_varnames[:nargs]),
        flags=code.co_flags & _COMPARED_FLAGS,
        freevars=frozenset(code.co_freevars),
        cellvars=frozenset(code.co_cellvars),
        docstring=doc,
        instructions=instructions,
        exception_table=table,
    )


def _thread_jumps(
    raw: list[tuple[str, Any, int, str, bool]], targets: dict[int, int], handlers: set[int]
) -> list[int | None]:
    """Jump threading and dead-code removal, on ``raw`` and ``targets`` (jump index -> target
    index) in place.

    Where a jump lands on an unconditional jump is a choice the compiler makes from line
    numbers (3.12+ keeps a jump to a ``JUMP_BACKWARD`` on another line, where it would jump
    straight back on the same line), not a difference in behaviour: a jump to a ``JUMP`` goes
    to that jump's target, and ``POP_JUMP_IF_X +1; JUMP t`` becomes ``POP_JUMP_IF_notX t``
    (other jumps that land on the ``JUMP`` go to ``t`` too, as threading sends them).  What
    no path reaches (from the entry, the handlers, by fall-through and jumps) is left out,
    before and after: 3.9 keeps the dead jump over the rest of an if-chain after an
    ``elif c: continue``, and 3.12+ the dead jump that carried a ``pass``'s line, as in an
    ``else: pass`` ending a loop body, where the same source without them has none.  All of
    these are exact equivalences, applied alike to the original and to the recompiled code.
    Returns old index -> new index (None: removed).
    """
    n = len(raw)
    dest = dict(targets)  # every jump's own target, folded jumps included
    removed = _unreached(raw, targets, handlers, set())

    def kept_from(k: int) -> int:
        while k < n and k in removed:
            k += 1
        return k

    for k in sorted(targets):
        if k in removed or raw[k][0] not in INVERSE_JUMPS:
            continue
        j = kept_from(k + 1)
        if (
            j < n
            and raw[j][0] == "JUMP"
            and j not in handlers
            and kept_from(targets[k]) == kept_from(j + 1)
        ):
            raw[k] = (INVERSE_JUMPS[raw[k][0]],) + raw[k][1:]
            targets[k] = targets[j]
            removed.add(j)
    for k, target in targets.items():
        seen = set()
        while target < n and raw[target][0] == "JUMP" and target not in seen:
            seen.add(target)
            target = dest[target]
        targets[k] = target
    removed |= _unreached(raw, targets, handlers, removed)
    for k in list(targets):
        if k in removed:
            del targets[k]
    new_index: list[int | None] = []
    kept = 0
    for k in range(n):
        if k in removed:
            new_index.append(None)
        else:
            new_index.append(kept)
            kept += 1
    new_index.append(kept)
    return new_index


# normalized opcodes after which control never goes on to the next instruction
_NO_FALL_THROUGH = frozenset({"JUMP", "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"})


def _unreached(
    raw: list[tuple[str, Any, int, str, bool]],
    targets: dict[int, int],
    handlers: set[int],
    removed: set[int],
) -> set[int]:
    """Indices no path reaches: from the entry and every handler, by fall-through (an
    instruction not known to end its path falls through) and by every jump's threaded
    target.  Folded jumps (``removed``) are passed over as if absent."""
    n = len(raw)
    seen: set[int] = set()
    work = [0, *handlers]
    while work:
        k = work.pop()
        while k < n and k in removed:
            k += 1
        if k >= n or k in seen:
            continue
        seen.add(k)
        if k in targets:
            work.append(targets[k])
        if raw[k][0] not in _NO_FALL_THROUGH:
            work.append(k + 1)
    return {k for k in range(n) if k not in seen and k not in removed}


def _kept(new_index: list[int | None], k: int) -> int:
    """The new index of old index ``k``, or of the first kept instruction after it."""
    while new_index[k] is None:
        k += 1
    return new_index[k]  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Comparison


def _flag_names(flags: int) -> str:
    return "|".join(name for bit, name in _FLAG_NAMES.items() if flags & bit) or "0"


def _consts_equal(a: tuple, b: tuple) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if type(x) is CodeType:
            if type(y) is not CodeType or not _identical(x, y):
                return False
        elif const_key(x) != const_key(y):
            return False
    return True


def _identical(a: CodeType, b: CodeType) -> bool:
    """Fast path: byte-identical code (ignoring line info), same tables, names and constants."""
    return (
        a.co_code == b.co_code
        and a.co_flags & _COMPARED_FLAGS == b.co_flags & _COMPARED_FLAGS
        and a.co_argcount == b.co_argcount
        and a.co_posonlyargcount == b.co_posonlyargcount
        and a.co_kwonlyargcount == b.co_kwonlyargcount
        and a.co_names == b.co_names
        and a.co_varnames == b.co_varnames
        and a.co_freevars == b.co_freevars
        and a.co_cellvars == b.co_cellvars
        and getattr(a, "co_exceptiontable", b"") == getattr(b, "co_exceptiontable", b"")
        and _consts_equal(a.co_consts, b.co_consts)
    )


def _child_path(parent_path: str, parent: CodeType, child: CodeType) -> str:
    qualname = getattr(child, "co_qualname", None)
    if qualname is not None:
        return qualname
    if parent.co_flags & CO_OPTIMIZED:
        return f"{parent_path}.<locals>.{child.co_name}"
    if parent.co_name == "<module>":
        return child.co_name
    return f"{parent_path}.{child.co_name}"


def _compare(original: CodeType, recompiled: CodeType, path: str, out: list[Difference]) -> None:
    if _identical(original, recompiled):
        return
    a, b = normalize(original), normalize(recompiled)

    def add(kind: str, x: Any, y: Any, index: int | None = None) -> None:
        out.append(Difference(path, kind, str(x), str(y), index))

    for attr in ("name", "argcount", "posonlyargcount", "kwonlyargcount", "argnames"):
        if getattr(a, attr) != getattr(b, attr):
            add(attr, getattr(a, attr), getattr(b, attr))
    if a.flags != b.flags:
        add("flags", _flag_names(a.flags), _flag_names(b.flags))
    if a.freevars != b.freevars:
        add("freevars", sorted(a.freevars), sorted(b.freevars))
    if a.cellvars != b.cellvars:
        add("cellvars", sorted(a.cellvars), sorted(b.cellvars))
    if a.docstring != b.docstring:
        add("docstring", repr(a.docstring), repr(b.docstring))

    nested: list[tuple[CodeType, CodeType]] = []
    for i, (x, y) in enumerate(zip(a.instructions, b.instructions)):
        if isinstance(x.arg, CodeRef) and isinstance(y.arg, CodeRef) and x.opname == y.opname:
            if x.arg.name != y.arg.name:
                add("instruction", x, y, i)
                break
            nested.append((x.arg.code, y.arg.code))
            continue
        if x != y:
            add("instruction", x, y, i)
            break
    else:
        la, lb = len(a.instructions), len(b.instructions)
        if la != lb:
            extra = a.instructions[lb] if la > lb else b.instructions[la]
            x = extra if la > lb else "<end>"
            y = extra if lb > la else "<end>"
            add("length", x, y, min(la, lb))

    if a.exception_table != b.exception_table:
        for i, (x, y) in enumerate(zip(a.exception_table, b.exception_table)):
            if x != y:
                add("exception_table", x, y, i)
                break
        else:
            add(
                "exception_table",
                f"{len(a.exception_table)} entries",
                f"{len(b.exception_table)} entries",
            )

    for x, y in nested:
        _compare(x, y, _child_path(path, original, x), out)


def differences(original: CodeType, recompiled: CodeType) -> list[Difference]:
    """Structured differences between two code objects (empty list: equivalent).

    Per code object, at most the first differing instruction is reported (later ones are
    usually consequences); signature, flag, variable-set and exception-table differences are
    reported alongside; nested code objects are compared recursively.
    """
    out: list[Difference] = []
    _compare(original, recompiled, _code_qualname(original), out)
    return out


def compare_code(original: CodeType, recompiled: CodeType) -> list[str]:
    """Differences between two code objects as one line each; an empty list means equivalent.

    Each line reads ``<path>: <what> [index]: <original> != <recompiled>``, for example
    ``f.<locals>.g: instruction 12: LOAD_FAST a != LOAD_FAST b``.
    """
    return [str(d) for d in differences(original, recompiled)]


# --------------------------------------------------------------------------------------------
# Recompilation


def _is_future_import(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _function_def(name: str, body: list[ast.stmt]) -> ast.FunctionDef:
    node = ast.FunctionDef(
        name=name,
        args=ast.arguments(
            posonlyargs=[],
            args=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    if _HAS_TYPE_PARAMS:
        node.type_params = []
    return node


def _class_def(name: str, body: list[ast.stmt]) -> ast.ClassDef:
    node = ast.ClassDef(name=name, bases=[], keywords=[], body=body, decorator_list=[])
    if _HAS_TYPE_PARAMS:
        node.type_params = []
    return node


# cells a class body makes for the code in it: zero-argument super(), (3.12+) the
# namespace that annotation scopes read and (3.14+) the record of which annotations ran
_CLASS_CELLS = frozenset({"__class__", "__classdict__", "__conditional_annotations__"})


def wrap_source_tree(tree: ast.Module, original: CodeType) -> ast.Module:
    """Wrap a parsed module so its functions see ``original``'s free variables as closures.

    Returns ``tree`` unchanged when ``original`` is neither nested nor has free variables.
    Otherwise the statements go inside ``def __pellucid_wrapper__():`` that first binds every
    free variable to None (so nested originals stay nested, CO_NESTED); if ``__class__`` is
    free, they go inside a ``class __pellucid_class__:`` (within the wrapper only if the
    original is nested or has other free variables) so that zero-argument ``super()`` and
    ``__class__`` compile to the same cell. ``from __future__`` imports stay at the top.
    """
    freevars = original.co_freevars
    if original.co_name == "<module>" or not (freevars or original.co_flags & CO_NESTED):
        return tree
    futures = [s for s in tree.body if _is_future_import(s)]
    body = [s for s in tree.body if not _is_future_import(s)] or [ast.Pass()]
    class_cells = [name for name in freevars if name in _CLASS_CELLS]
    if class_cells:
        body = [_class_def(CLASS_NAME, body)]
    others = [name for name in freevars if name not in _CLASS_CELLS]
    if not others and (not original.co_flags & CO_NESTED or "__classdict__" in class_cells):
        # a method of a module-level class: the class alone provides the __class__ cell (and
        # makes a generic definition's annotation scope, which reads __classdict__, nested)
        return ast.fix_missing_locations(ast.Module(body=[*futures, *body], type_ignores=[]))
    binds: list[ast.stmt] = [
        ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())],
            value=ast.Constant(value=None),
            type_comment=None,
        )
        for name in others
    ]
    module = ast.Module(body=[*futures, _function_def(WRAPPER_NAME, binds + body)], type_ignores=[])
    return ast.fix_missing_locations(module)


def _iter_code_bfs(code: CodeType) -> Iterator[CodeType]:
    queue = deque([code])
    while queue:
        c = queue.popleft()
        yield c
        queue.extend(k for k in c.co_consts if type(k) is CodeType)


def _strip_wrapper(qualname: str) -> str:
    prefix = f"{WRAPPER_NAME}.<locals>."
    if qualname.startswith(prefix):
        qualname = qualname[len(prefix) :]
    if qualname.startswith(CLASS_NAME + "."):
        qualname = qualname[len(CLASS_NAME) + 1 :]
    return qualname


def find_code(module_code: CodeType, original: CodeType) -> CodeType:
    """Find the code object in ``module_code`` that corresponds to ``original``.

    Module code matches a ``<module>`` original directly. Otherwise a breadth-first search
    over nested constants takes the first code object with the same ``co_qualname`` (3.11+,
    ignoring the wrapper's prefix), else the first with the same ``co_name``, flags and
    argument count, else the first with the same ``co_name``. Raises LookupError when none has the name.
    """
    if original.co_name == "<module>":
        return module_code
    name = original.co_name
    candidates = [c for c in _iter_code_bfs(module_code) if c.co_name == name]
    if not candidates and not name.isidentifier():
        # written as a def under a name spelled from it (a lambda whose body is statements)
        from pellucid.decompiler.emit import def_name

        spelled = def_name(name)
        candidates = [c for c in _iter_code_bfs(module_code) if c.co_name == spelled]
    if not candidates:
        raise LookupError(f"recompiled source defines no code object named {name!r}")
    want = getattr(original, "co_qualname", None)
    if want is not None:
        for c in candidates:
            if _strip_wrapper(c.co_qualname) == want:
                return c
    # 3.9/3.10 have no qualname: prefer the same nesting, kind and signature
    flags = original.co_flags & _COMPARED_FLAGS
    for c in candidates:
        if c.co_flags & _COMPARED_FLAGS == flags and c.co_argcount == original.co_argcount:
            return c
    return candidates[0]


def recompile(source: str, original_code: CodeType, filename: str = "<pellucid>") -> CodeType:
    """Compile decompiled ``source`` and return the code object matching ``original_code``.

    The source is compiled in ``exec`` mode with the original's ``__future__`` flags, wrapped
    as :func:`wrap_source_tree` describes when the original is a nested function or has free
    variables, and the matching code object is found with :func:`find_code`. Raises
    SyntaxError (or ValueError) when the source does not compile and LookupError when it does
    not define the code object.
    """
    tree = ast.parse(source, filename, "exec")
    tree = wrap_source_tree(tree, original_code)
    imported = sorted(_import_originated_globals(original_code))
    if imported and original_code.co_name != "<module>":
        # 3.11+ does not use LOAD_METHOD on names the *module* imports; the
        # function alone cannot say so, so the recompiling module must (after any
        # ``from __future__`` imports; a module's own source has its imports).
        at = 0
        while at < len(tree.body) and _is_future_import(tree.body[at]):
            at += 1
        tree.body[at:at] = [ast.Import(names=[ast.alias(name=n)]) for n in imported]
        ast.fix_missing_locations(tree)
    flags = original_code.co_flags & _FUTURE_FLAGS
    module_code = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    return find_code(module_code, original_code)


def _import_originated_globals(code: CodeType) -> set[str]:
    """Globals called as ``name.attr(...)`` without the method-call form (3.11+)."""
    if not TABLE.load_global_null_bit:
        return set()
    found: set[str] = set()
    # locals whose attribute calls all skip the method form: the module imports the name
    plain_local: set[str] = set()
    method_local: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        stack.extend(k for k in c.co_consts if isinstance(k, CodeType))
        ins = decode(c)
        if not ins:
            continue
        imported_here = {
            b.argval
            for a, b in zip(ins, ins[1:])
            if a.opname in ("IMPORT_NAME", "IMPORT_FROM") and b.opname.startswith("STORE_")
        }
        for p, a, b, c in zip([ins[0]] + ins, ins, ins[1:], ins[2:] + [ins[-1]]):
            local = a.opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME")
            name = a.argval
            if a.opname in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST"):
                local, name = True, a.argval[1]  # 3.13 superinstructions: the second half loads
            if local and (b.opname == "LOAD_METHOD" or (b.opname == "LOAD_ATTR" and TABLE.load_attr_method_bit and b.arg & 1)):
                method_local.add(name)
            if b.opname != "LOAD_ATTR" or (TABLE.load_attr_method_bit and b.arg & 1):
                continue
            called = c.opname == "PUSH_NULL" if TABLE.null_after_callable else p.opname == "PUSH_NULL"
            if a.opname == "LOAD_GLOBAL" and (a.arg & 1 or called):
                found.add(a.argval)
            elif local and called and name in imported_here:
                # a local bound by `import x` that the module also imports
                found.add(name)
            elif local and called and _plain_call_after(ins, b):
                # a parameter or local the module imports under the same name
                plain_local.add(name)
    return found | (plain_local - method_local)


def _plain_call_after(ins: list, attr: object) -> bool:
    """The attribute load is followed by plain arguments and a CALL (not ``*args``, whose
    call skips the method form whatever the callee)."""
    k = ins.index(attr) + 1
    while k < len(ins) and ins[k].opname not in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"):
        k += 1
    return k < len(ins) and ins[k].opname in ("CALL", "CALL_KW")


def verify_source(source: str, original_code: CodeType) -> list[str]:
    """Recompile ``source`` and compare with ``original_code``; an empty list means verified.

    A source that does not compile or lacks the code object is reported as a single
    difference rather than raised.
    """
    try:
        recompiled = recompile(source, original_code)
    except (SyntaxError, ValueError, LookupError) as exc:
        return [f"{_code_qualname(original_code)}: recompile: {type(exc).__name__}: {exc}"]
    return compare_code(original_code, recompiled)
