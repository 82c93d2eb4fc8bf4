"""One normalized instruction model for CPython 3.9-3.13.

Version differences end here.  Later layers see a single opcode vocabulary with
3.9-3.11 semantics where versions disagree:

* jump direction variants are unified (``JUMP``, ``POP_JUMP_IF_FALSE`` ...) and
  every jump carries ``target``, the index of the instruction it reaches;
* ``FOR_ITER`` pops the iterator itself on exhaustion (``END_FOR`` is dropped);
* ``RETURN_CONST`` becomes ``LOAD_CONST`` + ``RETURN_VALUE``;
* 3.13 super-instructions are split into their halves;
* the NULL bit of ``LOAD_GLOBAL``/``LOAD_ATTR`` becomes explicit ``PUSH_NULL`` /
  ``LOAD_METHOD``;
* binary operators are ``BINARY_OP`` with the operator symbol as ``argval``;
* instructions with no source-level meaning (NOP, CACHE, RESUME, PRECALL,
  TO_BOOL ...) disappear.
"""

from __future__ import annotations

import bisect
import dataclasses
import dis
import itertools
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from pellucid.decompiler.instructions.decode import TABLE, Raw, decode
from pellucid.decompiler.instructions.vocabulary import (
    _TO_BOOL_USERS,
    DROPPED,
    INVERSE_JUMPS,
    JUMP_ALIASES,
)

# Whether the compiler spells a jump on `not (a is b)` / `not (a in b)` with the inverse
# operator (`is not`, `not in`) rather than with the inverse jump.  3.14 keeps the operator
# the source wrote and inverts the jump; in value context every version folds.
JUMPS_FOLD_NOT_INTO_COMPARE = TABLE.jumps_fold_not_into_compare

# 3.14+ record whether co_consts[0] is the docstring in co_flags; earlier versions leave it to
# be inferred (a str first constant that no instruction loads).
_CO_HAS_DOCSTRING = 0x4000000


def flagged_docstring(code: CodeType) -> str | None | bool:
    """The docstring ``code``'s flags say it has (None: it has none), or False on versions
    whose code objects do not say."""
    if not TABLE.docstring_flag:
        return False
    return code.co_consts[0] if code.co_flags & _CO_HAS_DOCSTRING else None


# Largest block (in instructions, as the compiler counts them) that 3.10+ copy into each
# predecessor (small exit blocks: a return, the code after a match or a loop).
MAX_COPY_SIZE = 4

# Pre-3.11 spellings of binary operators.
_BINARY_NAMES = {
    "POWER": "**",
    "MULTIPLY": "*",
    "MATRIX_MULTIPLY": "@",
    "FLOOR_DIVIDE": "//",
    "TRUE_DIVIDE": "/",
    "MODULO": "%",
    "ADD": "+",
    "SUBTRACT": "-",
    "LSHIFT": "<<",
    "RSHIFT": ">>",
    "AND": "&",
    "XOR": "^",
    "OR": "|",
}
_LEGACY_BINARY = {f"BINARY_{k}": v for k, v in _BINARY_NAMES.items()}
_LEGACY_BINARY.update({f"INPLACE_{k}": v + "=" for k, v in _BINARY_NAMES.items()})


# (slots where dataclasses offer them, 3.10+: the decompiler makes one per instruction and
# reads their fields in every pass)
@dataclass(**({"slots": True} if "slots" in dataclasses.dataclass.__kwdefaults__ else {}))
class Instr:
    """A normalized instruction; ``target`` is an index into the same list."""

    op: str
    arg: Any
    argval: Any
    offset: int
    line: int | None = None
    target: int | None = None
    index: int = -1
    raw: str = ""
    # notes later layers attach (made on first use: most instructions never get one)
    _extra: dict | None = field(default=None, repr=False, compare=False)

    @property
    def extra(self) -> dict:
        if self._extra is None:
            self._extra = {}
        return self._extra

    def __repr__(self) -> str:
        t = f" ->{self.target}" if self.target is not None else ""
        return f"<{self.index}:{self.op} {self.argval!r}{t}>"


def arg_key(value: Any) -> tuple[str, str]:
    """What two instructions' arguments are compared by when copies of code are matched: the
    type and the repr (``1``, ``1.0`` and ``True`` differ; equal values that print alike agree)."""
    return (type(value).__name__, repr(value))


def _raw_instructions(code: CodeType) -> list[Raw]:
    return decode(code)


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)

# opnames normalize rewrites; every other kept instruction is copied as it is
_REWRITTEN = frozenset(
    set(JUMP_ALIASES)
    | set(_LEGACY_BINARY)
    | {
        "BINARY_OP", "RETURN_CONST", "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR",
        "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "COMPARE_OP",
        "LOAD_FAST_CHECK", "ROT_TWO", "DUP_TOP", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2",
        "KW_NAMES", "IMPORT_NAME",
    }
)

# this version's own spellings, and the passes undoing its compiler's rearrangements (its table)
SPELLINGS = TABLE.spellings
_LAYOUT_PASSES = TABLE.layout_passes
_NORMALIZED_PASSES = TABLE.normalized_passes

# raw opnames normalize does more with than copying them
_SPECIAL = DROPPED | _REWRITTEN | {"END_FOR"} | set(SPELLINGS)


def normalize(code: CodeType) -> list[Instr]:
    """Return the normalized instruction list of ``code`` (not of nested code)."""
    raw = _raw_instructions(code)
    for undo in _LAYOUT_PASSES:
        raw = undo(code, raw)
    # 3.13 TO_BOOL is implied by a following conditional jump or `not`; alone
    # (`not not x`) it is a conversion the source must say
    kept_to_bool: set[int] = set()
    if TABLE.has_to_bool:
        kept_to_bool = {
            k
            for k, ins in enumerate(raw)
            if ins.opname == "TO_BOOL"
            and (k + 1 >= len(raw) or raw[k + 1].opname not in _TO_BOOL_USERS)
        }
    out: list[Instr] = []
    # offset of raw instruction -> index of first normalized instruction at or after it
    first_at: dict[int, int] = {}
    pending_targets: list[tuple[Instr, int]] = []
    skip_pop_after_end_for = False
    line = None
    for k, ins in enumerate(raw):
        spelling = SPELLINGS.get(ins.opname)
        if spelling is not None:
            ins = spelling(ins)
        name, opcode, arg, argval, _, offset, line_number = ins
        start_len = len(out)
        first_at[offset] = start_len
        if line_number is not None:
            line = line_number
        if not (name in _SPECIAL or skip_pop_after_end_for or k in kept_to_bool):
            # the common case: copied as it is (positional: keywords cost a third more)
            out.append(Instr(name, arg, argval, offset, line, None, start_len, name))
            if opcode in _JUMP_OPCODES and isinstance(argval, int):
                pending_targets.append((out[start_len], argval))
            continue
        if k in kept_to_bool:
            name = "TO_BOOL_VALUE"
        if skip_pop_after_end_for:
            skip_pop_after_end_for = False
            if name == "POP_TOP":
                continue
        if name in DROPPED:
            continue
        if name == "END_FOR":
            # 3.12: END_FOR pops twice; 3.13: END_FOR + POP_TOP.  Both are the
            # exhaustion path of FOR_ITER, which our model already popped.
            if TABLE.end_for_then_pop_top:
                skip_pop_after_end_for = True
            continue
        if name in _REWRITTEN:
            _rewrite(code, ins, name, line, out)
        else:
            out.append(Instr(name, arg, argval, offset, line, None, start_len, name))
        if opcode in _JUMP_OPCODES and isinstance(argval, int) and len(out) > start_len:
            pending_targets.append((out[start_len], argval))
    end = len(out)
    for i, off in pending_targets:
        # FOR_ITER on 3.12+ targets END_FOR, which was dropped: the resolved
        # index is the first instruction after the loop, as in 3.9-3.11.
        i.target = _resolve(first_at, off, end)
    out = _fold_backward_conditionals(out)
    if TABLE.cells_loaded_fast and (code.co_cellvars or code.co_freevars):
        _cell_loads(code, out)
    for undo in _NORMALIZED_PASSES:
        undo(out)
    return out


def _rewrite(code: CodeType, ins: Raw, name: str, line: int | None, out: list[Instr]) -> None:
    """Append the normalized form of a raw instruction whose opname is in ``_REWRITTEN``."""

    def add(op: str, arg: Any = ins.arg, argval: Any = ins.argval, **extra: Any) -> None:
        out.append(Instr(op, arg, argval, ins.offset, line, None, len(out), raw_name, extra or None))

    raw_name = name
    if name in JUMP_ALIASES:
        name = JUMP_ALIASES[name]
    if name in _LEGACY_BINARY:
        add("BINARY_OP", argval=_LEGACY_BINARY[name])
    elif name == "BINARY_OP":
        add("BINARY_OP", argval=ins.argrepr)
    elif name == "RETURN_CONST":
        add("LOAD_CONST", argval=ins.argval)
        add("RETURN_VALUE", None, None)
    elif name == "LOAD_GLOBAL" and TABLE.load_global_null_bit:
        if ins.arg & 1:
            if TABLE.null_after_callable:
                add("LOAD_GLOBAL")
                add("PUSH_NULL", None, None)
            else:
                add("PUSH_NULL", None, None)
                add("LOAD_GLOBAL")
        else:
            add("LOAD_GLOBAL")
    elif name == "LOAD_ATTR" and TABLE.load_attr_method_bit:
        add("LOAD_METHOD" if ins.arg & 1 else "LOAD_ATTR")
    elif name == "LOAD_SUPER_ATTR":
        add("LOAD_SUPER_ATTR", extra_method=bool(ins.arg & 1), two_arg=bool(ins.arg & 2))
    elif name in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
        first, second = ins.argval
        op1, op2 = name.split("_FAST_")
        add(op1 + "_FAST", argval=first)
        add(op2 + "_FAST" if not op2.endswith("FAST") else op2, argval=second)
    elif name == "COMPARE_OP":
        op = ins.argrepr
        if op.startswith("bool(") and op.endswith(")"):
            op = op[5:-1]
        add("COMPARE_OP", argval=op)
    elif name == "LOAD_FAST_CHECK":
        add("LOAD_FAST", may_be_unbound=True)  # (see Table.marks_unbound_loads)
    elif name == "ROT_TWO":
        add("SWAP", 2, 2)
    elif name == "DUP_TOP":
        add("COPY", 1, 1)
    elif name in ("CALL_INTRINSIC_1", "CALL_INTRINSIC_2"):
        add(name, argval=ins.argrepr)
    elif name == "IMPORT_NAME":
        # (a lazy import's spelling says so in argrepr: see v3_15.py)
        add("IMPORT_NAME", **({"lazy": True} if ins.argrepr == "lazy" else {}))
    elif name == "KW_NAMES":
        add("KW_NAMES", argval=ins.argval if TABLE.kw_names_resolved else code.co_consts[ins.arg])
    else:
        add(name)



def _cell_loads(code: CodeType, out: list[Instr]) -> None:
    """3.13+ assemble ``LOAD_CLOSURE`` (the cell object, to build a closure or, in Dynamo's
    code, to hand to a resume function) as ``LOAD_FAST`` of the cell's slot; a cell's value is
    read with ``LOAD_DEREF``, so a fast load of a cell or free slot is that cell.  Except where
    an inlined comprehension's variable shadows the cell: its slot, saved and cleared by
    ``LOAD_FAST_AND_CLEAR``, holds plain values inside, read by ``LOAD_FAST``.  Such names are
    left as fast loads (a closure over them still reads as one: a tuple of names)."""
    cells = set(code.co_cellvars) | set(code.co_freevars)
    cells -= {i.argval for i in out if i.op == "LOAD_FAST_AND_CLEAR"}
    for i in out:
        if i.op == "LOAD_FAST" and i.argval in cells:
            i.op = "LOAD_CLOSURE"


def _fold_backward_conditionals(out: list[Instr]) -> list[Instr]:
    """3.12+ has forward-only conditional jumps: ``POP_JUMP_IF_X +1; JUMP_BACKWARD t``
    is how it spells a backward conditional jump.  Fold it back into one
    ``POP_JUMP_IF_notX t`` so loops look alike on every version."""
    if not TABLE.forward_only_conditional_jumps:
        return out
    targeted = {i.target for i in out if i.target is not None}
    remove = fold_jumps_over_jumps(out, targeted, backward_only=True)
    if not remove:
        return out
    for k in remove:
        out[k - 1].extra["folded_jump"] = out[k].offset
    return remove_instructions(out, remove)


def fold_jumps_over_jumps(
    out: list[Instr], spare: set[int], backward_only: bool = False
) -> set[int]:
    """Fold each ``POP_JUMP_IF_X +1; JUMP t`` into ``POP_JUMP_IF_notX t`` (the same behaviour)
    unless the ``JUMP``'s index is in ``spare`` (something else lands on it), or with
    ``backward_only`` where ``t`` is ahead.  Returns the indices of the folded ``JUMP``s, left
    in place (other jumps may still land on them) for :func:`remove_instructions`."""
    folded: set[int] = set()
    n = len(out)
    for i in out:
        if i.op not in INVERSE_JUMPS or i.target != i.index + 2 or i.index + 1 >= n:
            continue
        j = out[i.index + 1]
        if (
            j.op == "JUMP"
            and j.target is not None
            and not (backward_only and j.target > i.index)
            and j.index not in spare
        ):
            i.op = INVERSE_JUMPS[i.op]
            i.target = j.target
            folded.add(j.index)
    return folded


def same_positions(code: CodeType, a: int, b: int) -> bool:
    """Whether the instructions at offsets ``a`` and ``b`` carry the same source positions
    (line and columns): a compiler-made instruction copies those of the one it stands for."""
    positions = list(itertools.islice(code.co_positions(), max(a, b) // 2 + 1))
    return positions[a // 2] == positions[b // 2]


def _chain_end(ins: list[Instr], i: Instr, into_cycles: bool = False) -> int | None:
    """Where a jump ends up when the unconditional jumps it lands on are followed (None when it
    lands on none).  Where they go round in a circle: None, or with ``into_cycles`` the jump of
    the circle the chain enters it at."""
    seen: set[int] = set()
    t = i.target
    n = len(ins)
    while t is not None and t < n and ins[t].op == "JUMP" and t not in seen:
        seen.add(t)
        t = ins[t].target
    if t is None or t == i.target or (t in seen and not into_cycles):
        return None
    return t


def has_jump_chains(ins: list[Instr]) -> bool:
    return any(i.op == "JUMP" and _chain_end(ins, i) is not None for i in ins)


def thread_jump_chains(
    ins: list[Instr], every_jump: bool = False, into_cycles: bool = False
) -> bool:
    """Point every unconditional jump that lands on other unconditional jumps at where they
    end, as CPython's optimizer does where it can (the same behaviour).  True if any changed.

    ``every_jump`` threads conditional jumps (and every other kind) too; ``into_cycles`` points
    a chain that runs into a circle of jumps at the jump where it enters the circle."""
    changed = False
    for i in ins:
        if i.op != "JUMP" and not (every_jump and i.target is not None):
            continue
        end = _chain_end(ins, i, into_cycles)
        if end is not None:
            i.target = end
            i.argval = ins[end].offset if end < len(ins) else i.argval
            changed = True
    return changed


def remove_instructions(out: list[Instr], remove: set[int]) -> list[Instr]:
    """Drop instructions by index, remapping jump targets to the next kept one."""
    new_index: list[int] = []
    kept: list[Instr] = []
    for i in out:
        new_index.append(len(kept))
        if i.index not in remove:
            kept.append(i)
    new_index.append(len(kept))
    for i in kept:
        if i.target is not None:
            i.target = new_index[i.target]
    for n, i in enumerate(kept):
        i.index = n
    return kept


def _resolve(first_at: dict[int, int], offset: int, end: int) -> int:
    if offset in first_at:
        return first_at[offset]
    keys = sorted(first_at)
    k = bisect.bisect_right(keys, offset)
    return first_at[keys[k]] if k < len(keys) else end


def exception_entries(
    code: CodeType, instrs: list[Instr], as_encoded: bool = False
) -> list[tuple[int, int, int, int, bool]]:
    """Exception-table entries as (start, end, target, depth, lasti) instruction indices.

    An offset maps to the first normalized instruction at or after it; ``end`` is exclusive.
    Depths are those the version's with-setup reading counts (see ``Table.exception_depths``),
    or with ``as_encoded`` those the table holds."""
    if not TABLE.has_exception_table:
        return []
    table = dis._parse_exception_table(code)  # type: ignore[attr-defined]
    if not table:
        return []
    depths = {} if TABLE.exception_depths is None or as_encoded else TABLE.exception_depths(code)
    offsets = [i.offset for i in instrs]
    n = len(instrs)

    def index(off: int) -> int:
        k = bisect.bisect_left(offsets, off)
        return k if k < n else n

    return [
        (index(e.start), index(e.end), index(e.target), depths.get((e.start, e.end, e.target), e.depth),
         e.lasti)
        for e in table
    ]
