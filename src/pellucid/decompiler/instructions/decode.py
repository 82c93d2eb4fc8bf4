"""A fast bytecode decoder giving what ``dis.get_instructions`` gives us, minus
positions and display strings we never read.

``dis`` formats an ``argrepr`` and a source position for every instruction;
for decompilation that is most of its cost.  This reads ``co_code`` directly
with the interpreter's own tables and resolves arguments the way ``dis`` does
for each version.  tests/decompiler/test_decode.py checks it against ``dis``
over a corpus on every version.
"""

from __future__ import annotations

import dis
import opcode
import sys
from types import CodeType
from typing import Any, Iterator, NamedTuple

from pellucid.decompiler.instructions import v3_9, v3_10, v3_11, v3_12, v3_13, v3_14, v3_15
from pellucid.decompiler.instructions.table import Table

# The running interpreter's version: the only reading of it in the decompiler.
PY = sys.version_info[:2]

# The CPython versions whose bytecode pellucid decodes, oldest first: the one place that says
# so.  Every other version is refused at the decompiler's entry (see unsupported_version).
SUPPORTED_VERSIONS = ((3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15))

# One table per CPython version: what its bytecode and compiler are like (see table.py).
TABLES: dict[tuple[int, int], Table] = {
    t.version: t
    for t in (v3_9.TABLE, v3_10.TABLE, v3_11.TABLE, v3_12.TABLE, v3_13.TABLE, v3_14.TABLE,
              v3_15.TABLE)
}  # fmt: skip
# The running version's table (an unknown version's bytecode is refused before anything reads
# it; the newest table lets the package import there).
TABLE: Table = TABLES.get(PY) or TABLES[max(TABLES)]


def unsupported_version() -> str | None:
    """Why the running interpreter's bytecode cannot be decompiled, or None when it can.

    Bytecode changes with every minor version (opcodes, their encodings, what the compiler
    emits), so reading a version nobody taught the decoder could only end in an internal error
    or, worse, source that behaves differently: it is refused up front instead."""
    if PY in SUPPORTED_VERSIONS:
        return None
    (lo_major, lo_minor), (hi_major, hi_minor) = SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]
    return (
        f"pellucid supports CPython {lo_major}.{lo_minor}\u2013{hi_major}.{hi_minor} bytecode; "
        f"this is {PY[0]}.{PY[1]}"
    )

_CACHES = getattr(dis, "_inline_cache_entries", None)
_HASJREL = frozenset(dis.hasjrel)
_HASJABS = frozenset(dis.hasjabs)
_HASCONST = frozenset(dis.hasconst)
_HASNAME = frozenset(dis.hasname)
_HASLOCAL = frozenset(dis.haslocal) | frozenset(dis.hasfree)
_HASCOMPARE = frozenset(dis.hascompare)
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_HAVE_ARGUMENT = dis.HAVE_ARGUMENT
_OPNAME = dis.opname
_NB_OPS = getattr(dis, "_nb_ops", None)
_INTRINSIC1 = getattr(dis, "_intrinsic_1_descs", None)
_INTRINSIC2 = getattr(dis, "_intrinsic_2_descs", None)
_HASARG = frozenset(getattr(opcode, "hasarg", range(_HAVE_ARGUMENT, 256)))
_BACKWARD = frozenset(
    dis.opmap[n]
    for n in ("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "POP_JUMP_BACKWARD_IF_FALSE",
              "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_NONE",
              "POP_JUMP_BACKWARD_IF_NOT_NONE",
              # 3.14+: a relative argument pointing back at its loop's SEND, never jumped to
              "END_ASYNC_FOR")
    if n in dis.opmap and dis.opmap[n] in dis.hasjrel
)
# bits of a name instruction's argument below its co_names index
NAME_SHIFT = {dis.opmap[name]: shift for name, shift in TABLE.name_shift.items()}
_PAIR_LOCALS = frozenset(
    dis.opmap[n]
    for n in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
              "LOAD_FAST_BORROW_LOAD_FAST_BORROW")
    if n in dis.opmap
)
_CMP_SHIFT = TABLE.compare_shift
_COMMON_CONSTANT = dis.opmap.get("LOAD_COMMON_CONSTANT") if TABLE.common_constant_resolved else None
_COMMON_CONSTANTS = getattr(dis, "_common_constants", None) or ()
# opcodes whose argval or argrepr is more than the raw argument
_RESOLVED = frozenset(
    _HASCONST | _HASNAME | _PAIR_LOCALS | _HASLOCAL | _HASJREL | _HASJABS | _HASCOMPARE
    | {dis.opmap[n] for n in ("BINARY_OP", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2") if n in dis.opmap}
    | ({_COMMON_CONSTANT} if _COMMON_CONSTANT is not None else set())
)


class Raw(NamedTuple):
    """The fields of ``dis.Instruction`` that normalization reads."""

    opname: str
    opcode: int
    arg: int | None
    argval: Any
    argrepr: str
    offset: int
    line_number: int | None


_new_tuple = tuple.__new__


def _cache_count(op: int) -> int:
    if _CACHES is None:
        return 0
    if hasattr(_CACHES, "get"):  # by name: a dict (3.13-3.14) or a frozendict (3.15)
        return _CACHES.get(_OPNAME[op], 0)
    return _CACHES[op]


# code units each opcode occupies: itself and its inline caches
_SIZE = [2 + 2 * _cache_count(op) for op in range(256)]
_JUMP_UNIT = TABLE.jump_unit
_SKIP_CACHES = TABLE.jumps_skip_caches
_ONE_VAR_SPACE = TABLE.oparg_varnames


def opargs(code: CodeType, wanted: frozenset[int] | tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """(opcode, full argument) of ``code``'s instructions whose opcode is in ``wanted``, grouped
    by opcode (not in code order).

    A search of ``co_code``'s opcode bytes without resolving anything, for checks that look at a
    few opcodes (torch.compile's frames are checked this way, where a full :func:`decode` cost
    more than compiling them).  Every code unit of ``co_code`` starts with an opcode: inline
    caches read as ``CACHE`` (0), so the bytes at even offsets are opcodes and the search runs
    at C speed.
    """
    raw = code.co_code
    ops, args = raw[::2], raw[1::2]
    for op in wanted:
        if not 0 < op < 256:  # (3.13's LOAD_CLOSURE is a pseudo-op, never in co_code)
            continue
        k = ops.find(op)
        while k >= 0:
            arg, j, shift = args[k], k - 1, 8
            while j >= 0 and ops[j] == _EXTENDED_ARG:
                arg |= args[j] << shift
                j, shift = j - 1, shift + 8
            yield op, arg
            k = ops.find(op, k + 1)


_ENTER_EXECUTOR = dis.opmap.get("ENTER_EXECUTOR")
_DEOPT = getattr(dis, "_deoptop", None)


def _executors_possible() -> bool:
    """Whether this process may have optimizer executors: with the JIT on (3.14+ say so in
    sys._jit), or in a build with the tier-2 interpreter."""
    import sysconfig

    config = sysconfig.get_config_var("CONFIG_ARGS") or ""
    jit = getattr(sys, "_jit", None)
    if jit is None:
        return "experimental-jit" in config
    return jit.is_enabled() or "experimental-jit=interpreter" in config


def dangling_executor(code: CodeType) -> bool:
    """Whether ``code`` has an ENTER_EXECUTOR instruction although no executor can exist.

    Only the optimizer puts ENTER_EXECUTOR into code, along with the executor it names.  A code
    object built with one by hand (``code.replace(co_code=...)``) has none, and CPython 3.14
    crashes reading its ``co_code``: such code is refused before that read."""
    if _ENTER_EXECUTOR is None or _DEOPT is None:
        return False
    adaptive = getattr(code, "_co_code_adaptive", None)
    if adaptive is None or _ENTER_EXECUTOR not in adaptive[::2]:
        return False  # (the common case, at C speed: no such byte where opcodes can be)
    if _executors_possible():
        return False
    # walk the instructions; where their sizes are not known for sure (instrumented code:
    # a debugger or sys.monitoring), the answer is no: real code must never be refused
    i, n = 0, len(adaptive)
    while i < n:
        op = _DEOPT(adaptive[i])
        if op == _ENTER_EXECUTOR:
            return True
        name = _OPNAME[op] if 0 <= op < 256 else "<>"
        if name.startswith("INSTRUMENTED_"):
            op = dis.opmap.get(name[len("INSTRUMENTED_"):], -1)
        if not 0 <= op < 256 or _OPNAME[op].startswith("<"):
            return False
        i += _SIZE[op]
    return False


def decode(code: CodeType) -> list[Raw]:
    co_code = code.co_code
    consts, names = code.co_consts, code.co_names
    if TABLE.oparg_varnames:
        varname = code._varname_from_oparg  # type: ignore[attr-defined]
    else:
        cells = code.co_cellvars + code.co_freevars
        varnames = code.co_varnames
        local_ops = frozenset(dis.haslocal)

        def varname(i: int, op: int = 0) -> str:
            return varnames[i] if op in local_ops else cells[i]

    lines = _line_table(code)
    # 3.13 gives every code unit a line (None for compiler-made code); earlier versions
    # give where lines start, carried forward
    every_unit = TABLE.line_every_unit
    out: list[Raw] = []
    ext = 0
    i = 0
    n = len(co_code)
    line = None
    while i < n:
        op = co_code[i]
        if every_unit:
            line = lines.get(i)
        elif i in lines:
            line = lines[i]
        if op == _EXTENDED_ARG:
            ext = (co_code[i + 1] | ext) << 8
            i += _SIZE[op]
            continue
        offset = i
        argrepr = ""
        arg = argval = (co_code[i + 1] | ext) if op in _HASARG else None
        ext = 0
        if arg is not None and op in _RESOLVED:
            if op in _HASCONST:
                argval = consts[arg]
            elif op in _HASNAME:
                argval = names[arg >> NAME_SHIFT.get(op, 0)]
            elif op in _PAIR_LOCALS:
                argval = (varname(arg >> 4), varname(arg & 15))
            elif op in _HASLOCAL:
                argval = varname(arg) if _ONE_VAR_SPACE else varname(arg, op)
            elif op in _HASJREL:
                signed = -arg if op in _BACKWARD else arg
                argval = offset + 2 + signed * _JUMP_UNIT + (_SIZE[op] - 2 if _SKIP_CACHES else 0)
            elif op in _HASJABS:
                argval = arg * _JUMP_UNIT
            elif op in _HASCOMPARE:
                argval = argrepr = dis.cmp_op[arg >> _CMP_SHIFT]
            elif _NB_OPS is not None and _OPNAME[op] == "BINARY_OP":
                argrepr = _NB_OPS[arg][1]
            elif _OPNAME[op] == "CALL_INTRINSIC_1" and _INTRINSIC1 is not None:
                argrepr = _INTRINSIC1[arg]
            elif _OPNAME[op] == "CALL_INTRINSIC_2" and _INTRINSIC2 is not None:
                argrepr = _INTRINSIC2[arg]
            elif op == _COMMON_CONSTANT:
                argval = _COMMON_CONSTANTS[arg]
        # (Raw(...) through tuple.__new__: the named tuple's own __new__ is a Python call)
        out.append(_new_tuple(Raw, (_OPNAME[op], op, arg, argval, argrepr, offset, line)))
        i += _SIZE[op]
    return out


def _line_table(code: CodeType) -> dict[int, int | None]:
    """Offset -> line: where lines start (carried forward, as 3.9-3.12 dis does),
    or every code unit's line with None for compiler-made code (3.13)."""
    table: dict[int, int | None] = {}
    if TABLE.line_every_unit:
        for start, end, ln in code.co_lines():
            for off in range(start, end, 2):
                table[off] = ln
        return table
    for off, ln in dis.findlinestarts(code):
        table[off] = ln
    return table
