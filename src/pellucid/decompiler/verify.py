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
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Iterator

from pellucid.decompiler.cfg.blocks import PLAIN_FLOW, EdgeKind
from pellucid.decompiler.cfg.flow import reach
from pellucid.decompiler.decode import decode
from pellucid.decompiler.instructions import (
    DROPPED,
    JUMP_ALIASES,
    SPELLINGS,
    TABLE,
    TERMINAL,
    Instr,
    exception_entries,
    flagged_docstring,
    fold_jumps_over_jumps,
    remove_instructions,
    thread_jump_chains,
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
    plain number. ``offset`` is the original byte offset; ``argrepr`` is how messages show
    the argument, None for as ``dis`` shows that instruction's, read from ``listing`` (for
    messages only: neither takes part in comparisons).
    """

    opname: str
    arg: Any
    offset: int = field(compare=False, default=-1)
    argrepr: str | None = field(compare=False, default="")
    listing: DisListing | None = field(compare=False, default=None, repr=False)

    def __str__(self) -> str:
        if self.arg is None:
            return self.opname
        if isinstance(self.arg, JumpTarget):
            return f"{self.opname} -> {self.arg.index}"
        argrepr = self.argrepr
        if argrepr is None:
            argrepr = self.listing.argrepr(self.offset) if self.listing is not None else ""
        return f"{self.opname} {argrepr if argrepr else repr(self.arg)}"


class DisListing:
    """How ``dis`` shows the arguments of one code object's instructions (the version's own
    spellings read as the instruction layer reads them), read as far as asked.  Only messages
    need it: normalization reads the decoder, which leaves these strings out."""

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self._argreprs: dict[int, str] = {}
        self._unread: Iterator[dis.Instruction] | None = None

    def argrepr(self, offset: int) -> str:
        if self._unread is None:
            self._unread = dis.get_instructions(self.code)
        while offset not in self._argreprs:
            ins = next(self._unread, None)
            if ins is None:
                return ""
            spelling = SPELLINGS.get(ins.opname)
            self._argreprs[ins.offset] = (spelling(ins) if spelling else ins).argrepr
        return self._argreprs[offset]


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
    ins = _instructions(code)

    # 3.14+ call an attribute of a name the module imports as `LOAD_ATTR; PUSH_NULL` and any
    # other attribute as a method load: which, depends on the module's imports, not on what the
    # call does (the same call either way).  Compare both as the method load.
    merged: list[Instr] = []
    for i in ins:
        if i.op == "PUSH_NULL" and merged:
            prev = merged[-1]
            if prev.op == "LOAD_ATTR" and type(prev.argval) is tuple and prev.argval[1] == 0:
                prev.argval = (prev.argval[0], 1)
                continue
        merged.append(i)
    ins = merged

    # A store to a local that the next instruction overwrites is a pop: 3.13+ compile it so
    # where both stores are on one line (`_, _, x = t`), not where the targets span lines.
    for cur, nxt in zip(ins, ins[1:]):
        if cur.op == "STORE_FAST" and nxt.op == "STORE_FAST" and cur.argval == nxt.argval:
            cur.op, cur.argval = "POP_TOP", None

    # Where a definition is nested depends on where it is recompiled, not on what it does:
    # compare only the last component of qualnames that 3.9/3.10 pass to MAKE_FUNCTION and
    # that class bodies store in ``__qualname__``; 3.13 class bodies also store their first
    # line number in ``__firstlineno__``.
    for cur, nxt in zip(ins, ins[1:]):
        key = cur.argval
        if cur.op != "LOAD_CONST" or type(key) is not tuple or key[0] not in ("str", "int"):
            continue
        if nxt.op == "STORE_NAME" and nxt.argval == "__firstlineno__":
            cur.argval, cur.extra["shown"] = ("firstlineno",), "<first line>"
        elif key[0] == "str" and (
            (nxt.op == "STORE_NAME" and nxt.argval == "__qualname__")
            or (TABLE.make_function_pops_qualname and nxt.op == "MAKE_FUNCTION")
        ):
            tail = key[1].rpartition(".")[2]
            cur.argval, cur.extra["shown"] = ("qualname", tail), f"<qualname ...{tail}>"

    # jump targets: the first kept instruction at or after the offset (len(ins): the end)
    offsets = [i.offset for i in ins]
    for k, i in enumerate(ins):
        i.index = k
        if i.target is not None:
            i.target = bisect_left(offsets, i.argval)
    handlers = [ins[e[2]] for e in exception_entries(code, ins, as_encoded=True) if e[2] < len(ins)]
    ins = _threaded(ins, handlers)

    listing = DisListing(code)
    instructions = [
        NormalizedInstruction(
            i.op,
            JumpTarget(i.target) if i.target is not None else i.argval,
            i.offset,
            i._extra["shown"] if i._extra else None,
            listing,
        )
        for i in ins
    ]
    table: list[ExceptionEntry] = []
    for s, e, target, depth, lasti in exception_entries(code, ins, as_encoded=True):
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


def _instructions(code: CodeType) -> list[Instr]:
    """The decoder's instructions as verify compares them: bookkeeping dropped, superinstructions
    split, jump variants unified, ``argval`` a comparable key (a jump's: its target offset,
    ``target`` set to mark it a jump), ``extra["shown"]`` what messages show of an argument
    ``dis`` does not show so (a superinstruction's half)."""
    out: list[Instr] = []
    for ins in decode(code):
        spelling = SPELLINGS.get(ins.opname)
        if spelling is not None:
            # the instruction layer's reading of the version's own opcodes (a borrowed load is
            # a load: borrowing only saves reference counting)
            ins = spelling(ins)
        opname = ins.opname
        if opname in _DROPPED:
            continue
        op, offset = ins.opcode, ins.offset
        split = _SUPERINSTRUCTIONS.get(opname)
        if split is not None:
            first, second = ins.argval
            out.append(Instr(split[0], None, first, offset, None, None, -1, "", {"shown": first}))
            out.append(Instr(split[1], None, second, offset, None, None, -1, "", {"shown": second}))
            continue
        opname = JUMP_ALIASES.get(opname, opname)
        if op in _JUMPS and ins.argval is not None:  # (3.14 END_ASYNC_FOR: no jump)
            out.append(Instr(opname, ins.arg, ins.argval, offset, None, -1))
            continue
        if ins.arg is None:
            key: Any = None
        elif op in _CONSTS or opname == "LOAD_CONST":
            key = const_key(ins.argval)
        elif op in _NAMES:
            bits = _NAME_FLAG_BITS.get(opname)
            key = ins.argval if bits is None else (ins.argval, ins.arg & bits)
        elif op in _LOCALS:
            key = ins.argval
        else:
            key = ins.arg
        out.append(Instr(opname, ins.arg, key, offset))
    return out


# normalized opcodes after which control never goes on to the next instruction (besides JUMP)
_ENDS = TERMINAL | {"RETURN_CONST"}
# 3.9/3.10: a SETUP_*'s handler is reached along its exception edge (handler_of: the setups)
_SETUP_FLOW = PLAIN_FLOW | {EdgeKind.EXCEPTION}


def _threaded(ins: list[Instr], handlers: list[Instr]) -> list[Instr]:
    """Jump threading and dead-code removal.

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
    """
    ins = _without(ins, _unreached(ins, handlers))
    folded = fold_jumps_over_jumps(ins, {h.index for h in handlers})
    if not thread_jump_chains(ins, every_jump=True, into_cycles=True) and not folded:
        return ins  # (every instruction left is reached, as before)
    ins = _without(ins, folded)
    return _without(ins, _unreached(ins, handlers))


def _unreached(ins: list[Instr], handlers: list[Instr]) -> set[int]:
    """Indices no path reaches: from the entry and every handler (each counted reached), by
    fall-through and by every jump, a 3.9/3.10 ``SETUP_*``'s included."""
    setups = None
    if not TABLE.has_exception_table:
        setups = [i.target if i.op.startswith("SETUP_") else None for i in ins]
    starts = [0, *(h.index for h in handlers)]
    kinds = PLAIN_FLOW if setups is None else _SETUP_FLOW
    reached = reach(ins, starts, kinds, handler_of=setups, ends=_ENDS).reached
    return {k for k in range(len(ins)) if k not in reached}


def _without(ins: list[Instr], remove: set[int]) -> list[Instr]:
    return remove_instructions(ins, remove) if remove else ins


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
