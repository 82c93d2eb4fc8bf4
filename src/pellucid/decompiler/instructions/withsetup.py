"""3.14+ ``with`` statements, read as the ``BEFORE_WITH`` form of 3.11-3.13.

3.14 sets a ``with`` up with special-method loads, which leave two values under the body's
stack (``__exit__`` as a plain function and the manager as its ``self``) where ``BEFORE_WITH``
left one (the bound ``__exit__``)::

    COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0
    ...body...
    LOAD_CONST None; LOAD_CONST None; LOAD_CONST None; CALL 3      (3.13: CALL 2)
    handler: ... POP_EXCEPT; POP_TOP; POP_TOP; POP_TOP             (3.13: two POP_TOPs)

and every exception-table depth above counts the extra value.  A walk of the stack depths
marks each ``with``'s extra value.  The set-up becomes ``BEFORE_WITH`` (``BEFORE_ASYNC_WITH``),
the ``CALL 3`` whose ``self`` is the mark becomes ``CALL 2``, a ``POP_TOP`` of the mark goes,
and each exception-table entry's depth loses one per mark under it.  Code in which anything
else reaches a mark is left as it is: its ``LOAD_SPECIAL`` is then refused, never guessed.

3.15 gives iterators and awaitables a second stack value the same way (``paired_iterators``):
``GET_ITER`` pushes the iterator and an index (or NULL), an awaitable and an ``async for``'s
next value get a ``PUSH_NULL`` above them, and ``POP_ITER``/``END_SEND`` pop the pair.  The
same walk marks that value: ``GET_ITER`` becomes 3.14's (``GET_YIELD_FROM_ITER`` for ``yield
from``'s), the ``PUSH_NULL`` goes, a ``POP_ITER``/``END_SEND`` taking the mark pops one value as
on 3.14, a ``break``'s or ``return``'s ``POP_TOP`` of it goes, and a comprehension's
``LIST_APPEND``/``SET_ADD``/``MAP_ADD`` reaches its container past one value less per loop.
A generator expression gets its iterable from its caller and turns it into an iterator itself
(``LOAD_FAST .0; GET_ITER`` before ``RETURN_GENERATOR``): that conversion moves to the caller's
``CALL 0``, and ``LOAD_FAST .0`` after the prologue, where 3.14 has them.
"""

from __future__ import annotations

import bisect
import dis
from types import CodeType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pellucid.decompiler.instructions.decode import Raw

_SETUP = ("COPY", "LOAD_SPECIAL", "SWAP", "SWAP", "LOAD_SPECIAL", "CALL")
_SETUP_ARGS = (1, None, 2, 3, None, 0)
# LOAD_SPECIAL's argument: 0 __enter__, 1 __exit__, 2 __aenter__, 3 __aexit__
_KIND = {(1, 0): "BEFORE_WITH", (3, 2): "BEFORE_ASYNC_WITH"}
_NO_FALL_THROUGH = frozenset(
    {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_BACKWARD",
     "JUMP_BACKWARD_NO_INTERRUPT"}
)
_HASJUMP = frozenset(getattr(dis, "hasjump", ())) | frozenset(dis.hasjrel)
_HASARG = frozenset(getattr(dis, "hasarg", ()))


class WithRewrite(NamedTuple):
    raw: list[Raw]
    # (start, end, target) offsets of an exception-table entry -> its depth as 3.13 counts it
    depths: dict[tuple[int, int, int], int]


def _setup_kind(raw: list[Raw], k: int) -> str | None:
    if k + 6 > len(raw):
        return None
    seq = raw[k : k + 6]
    if tuple(i.opname for i in seq) != _SETUP:
        return None
    if any(want is not None and i.arg != want for i, want in zip(seq, _SETUP_ARGS)):
        return None
    return _KIND.get((seq[1].arg, seq[4].arg))


def _effect(ins: Raw, jump: bool) -> int:
    arg = ins.arg if ins.opcode in _HASARG else None
    return dis.stack_effect(ins.opcode, arg, jump=jump)


class _OffsetIndex:
    """Index of the instruction at a byte offset.  A jump to an instruction with a long
    argument names the offset of its ``EXTENDED_ARG`` prefix, which the decoder folded into
    the instruction: such an offset maps to the instruction it prefixes."""

    def __init__(self, raw: list[Raw]) -> None:
        self._offsets = [ins.offset for ins in raw]
        self._at = {off: k for k, off in enumerate(self._offsets)}

    def get(self, offset: int, default: int | None = None) -> int | None:
        k = self._at.get(offset)
        if k is not None:
            return k
        k = bisect.bisect_left(self._offsets, offset)
        if k < len(self._offsets) and self._offsets[k] - offset <= 6:  # up to three prefixes
            return k
        return default


def _pair_makers(raw: list[Raw]) -> set[int]:
    """3.15: instructions whose result's top value is an iterator's or awaitable's second."""
    return {
        k
        for k, ins in enumerate(raw)
        if ins.opname == "GET_ITER"
        or (ins.opname == "PUSH_NULL" and k and raw[k - 1].opname in _AWAITING)
    }


_AWAITING = frozenset({"GET_AWAITABLE", "GET_ANEXT"})
# instructions that pop a marked value with the one under it, as 3.14's pop only that one:
# opname -> where the mark lies below the top
_PAIR_ENDS = {"POP_ITER": 1, "END_SEND": 2}


def rewrite_withs(
    code: CodeType, raw: list[Raw], paired_iterators: bool = False
) -> WithRewrite | None:
    """The 3.13 reading of ``code``'s ``with`` statements (and, with ``paired_iterators``,
    3.14's of its iterators), or None when it has none or they cannot be read that way."""
    setups = {k: kind for k in range(len(raw)) if (kind := _setup_kind(raw, k))}
    pairs = _pair_makers(raw) if paired_iterators else set()
    if not setups and not pairs and not (paired_iterators and _makes_genexpr(raw)):
        return None
    index = _OffsetIndex(raw)
    offsets = [ins.offset for ins in raw]
    table = _idle_depths(dis._parse_exception_table(code), raw, offsets)  # type: ignore[attr-defined]
    entry_of: list = [None] * len(raw)
    for e in table:
        for k in range(bisect.bisect_left(offsets, e.start), bisect.bisect_left(offsets, e.end)):
            entry_of[k] = e
    # state before each instruction: (depth, depths of the marks under it)
    states: dict[int, tuple[int, tuple[int, ...]]] = {}
    exit_calls: set[int] = set()
    dropped: set[int] = set()
    pair_ends: set[int] = set()
    rewritten: dict[int, int] = {}  # index -> the argument 3.13 would give it
    work: list[int] = []

    def reach(k: int, depth: int, marks: tuple[int, ...]) -> bool:
        old = states.get(k)
        if old is None:
            states[k] = (depth, marks)
            work.append(k)
            return True
        return old == (depth, marks)

    if not reach(0, 0, ()):
        return None
    setup_ends = {k + 5: k for k in setups}
    while work:
        k = work.pop()
        depth, marks = states[k]
        ins = raw[k]
        e = entry_of[k]
        # (an instruction below the entry's depth, after the values it keeps were popped, such
        # as a generator's final return after its loop, cannot raise into it)
        if e is not None and depth >= e.depth:
            handler = index.get(e.target)
            if handler is None or not reach(
                handler, e.depth + int(e.lasti) + 1, tuple(m for m in marks if m < e.depth)
            ):
                return None
        name = ins.opname
        moved = marks
        if name == "CALL" and ins.arg == 3 and depth - 4 in marks:
            exit_calls.add(k)
        elif name == "POP_TOP" and depth - 1 in marks:
            dropped.add(k)
        elif name in _PAIR_ENDS and depth - _PAIR_ENDS[name] in marks:
            pair_ends.add(k)
        elif name in _STACK_OFFSET_OPS and any(
            m >= depth - ins.arg - max(_APPENDS.get(name, 1) - 1, 0) for m in marks
        ):
            moved = _reach_under(ins, depth, marks, rewritten, dropped, k)
            if moved is None:
                return None
        succ: list[tuple[int, int]] = []  # (index, depth after)
        is_jump = ins.opcode in _HASJUMP and name != "END_ASYNC_FOR"
        if is_jump:
            target = index.get(ins.argval)
            if target is None:
                return None
            succ.append((target, depth + _effect(ins, True)))
        if name not in _NO_FALL_THROUGH and k + 1 < len(raw):
            succ.append((k + 1, depth + _effect(ins, False)))
        start = setup_ends.get(k)
        for nxt, new_depth in succ:
            kept = tuple(m for m in moved if m < new_depth)
            if len(kept) != len(moved) and not (k in exit_calls or k in dropped or k in pair_ends):
                return None  # something other than the exit call or a POP_TOP reached a mark
            if start is not None:
                # the set-up's last CALL: the manager was at depth - 1, `self` is now above it
                kept = kept + (states[start][0],)
            if k in pairs:
                kept = kept + (new_depth - 1,)
            if not reach(nxt, new_depth, kept):
                return None
    return _apply(raw, setups, exit_calls, dropped, rewritten, states, table, code, pairs,
                  paired_iterators)


# instructions that cannot raise: no error path, no check for signals (a value a store or pop
# frees runs its __del__, whose exceptions do not propagate)
_CANNOT_RAISE = frozenset({
    "NOP", "NOT_TAKEN", "POP_TOP", "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_FAST", "LOAD_FAST_BORROW",
    "STORE_FAST", "JUMP_FORWARD", "PUSH_NULL", "COPY", "SWAP",
})


def _idle_depths(table: list, raw: list[Raw], offsets: list[int]) -> list:
    """``table`` with each entry over code that cannot raise given the depth of the entries
    that can raise into the same handler, when they all have one.

    Such an entry is never used, so its depth says nothing, and any depth makes the same
    program.  Dynamo (torch 2.15 on 3.14) gives the entry over a resume function's prologue,
    which enters a ``with`` again and jumps into the original body, one more than the body's
    entry sharing its handler; read as written, the handler would be reached with two stack
    depths.  With the body's depth it is reached one way, as in code the compiler made."""
    def can_raise(e: Any) -> bool:
        lo, hi = bisect.bisect_left(offsets, e.start), bisect.bisect_left(offsets, e.end)
        return any(raw[k].opname not in _CANNOT_RAISE for k in range(lo, hi))

    raising = [e for e in table if can_raise(e)]
    out = []
    for e in table:
        if e not in raising:
            depths = {r.depth for r in raising if r.target == e.target and r.lasti == e.lasti}
            if len(depths) == 1:
                e = e._replace(depth=depths.pop())
        out.append(e)
    return out


# instructions whose argument reaches that far down the stack
_STACK_OFFSET_OPS = frozenset({"SWAP", "COPY", "LIST_APPEND", "SET_ADD", "MAP_ADD"})


# values a comprehension's append pops above the values its argument counts
_APPENDS = {"LIST_APPEND": 1, "SET_ADD": 1, "MAP_ADD": 2}


def _reach_under(
    ins: Raw, depth: int, marks: tuple[int, ...], rewritten: dict, dropped: set, k: int
) -> tuple[int, ...] | None:
    """An instruction reaching past a mark: its 3.13 form, recorded in ``rewritten`` or
    ``dropped``; the marks after it (None: no 3.13 form).  A return or break inside a
    ``with`` moves the value under the exit (3.14 ``SWAP 3; SWAP 2``, 3.13 ``SWAP 2``)."""
    if ins.opname in _APPENDS:
        # the container lies `arg` values under the popped ones: marks between do not count
        popped = _APPENDS[ins.opname]
        container = depth - popped - ins.arg
        if container in marks:
            return None
        rewritten[k] = ins.arg - sum(1 for m in marks if container < m < depth - popped)
        return marks
    low, top = depth - ins.arg, depth - 1
    between = sum(1 for m in marks if low < m < top)
    if ins.opname == "COPY":
        if low in marks:
            return None
        rewritten[k] = ins.arg - between
        return marks
    if ins.opname != "SWAP":
        return None
    if (low in marks) == (top in marks):
        if low not in marks:
            rewritten[k] = ins.arg - between
        else:
            dropped.add(k)
        return marks
    # a mark trades places with one value: a no-op without the mark, if nothing else lies
    # between them
    if ins.arg - 1 - between != 1:
        return None
    dropped.add(k)
    return tuple(sorted(top if m == low else low if m == top else m for m in marks))


def _apply(
    raw, setups, exit_calls, dropped, rewritten, states, table, code, pairs, paired_iterators
) -> WithRewrite:
    iterators = _genexpr_calls(code, raw, states) if paired_iterators else {}
    prologue = _genexpr_prologue(raw) if pairs else None
    out: list[Raw] = []
    skip = 0
    for k, ins in enumerate(raw):
        if skip:
            skip -= 1
            continue
        if prologue is not None and k in (prologue, prologue + 1):
            continue  # the generator expression's iterator, made where 3.14 makes it
        if k in iterators:
            # the iterator a generator expression's caller makes on 3.14, before its CALL 0
            out.append(ins._replace(opname=iterators[k], opcode=dis.opmap[iterators[k]],
                                    arg=None, argval=None, argrepr=""))
            ins = ins._replace(offset=ins.offset + 1)
        if k in setups:
            out.append(ins._replace(opname=setups[k], opcode=-1, arg=None, argval=None, argrepr=""))
            skip = 5
        elif k in pairs:
            if ins.opname == "GET_ITER":  # (a PUSH_NULL above an awaitable goes)
                out.append(_iterator_314(ins))
        elif k in exit_calls:
            out.append(ins._replace(arg=2, argval=2))
        elif k in rewritten:
            out.append(ins._replace(arg=rewritten[k], argval=rewritten[k]))
        elif k not in dropped:
            out.append(ins)
        if prologue is not None and k == prologue + 4:
            load = raw[prologue]
            out.append(load._replace(opname="LOAD_FAST", opcode=dis.opmap["LOAD_FAST"],
                                     offset=ins.offset))
    if paired_iterators:
        out = _comprehension_iterators(out)
    depths = {}
    offsets = [ins.offset for ins in raw]
    for e in table:
        # (the marks under the entry, as at the first instruction of it that runs: a resume
        # function's prologue jumps into the middle of a with body whose start never runs)
        lo, hi = bisect.bisect_left(offsets, e.start), bisect.bisect_left(offsets, e.end)
        state = next((states[k] for k in range(lo, hi) if k in states), None)
        if state is not None:
            depths[(e.start, e.end, e.target)] = e.depth - sum(1 for m in state[1] if m < e.depth)
    return WithRewrite(out, depths)


def _iterator_314(ins: Raw) -> Raw:
    """3.15's GET_ITER as 3.14 spells it: its argument says whether it serves ``yield from``."""
    if ins.arg:
        return ins._replace(opname="GET_YIELD_FROM_ITER", opcode=-1, arg=None, argval=None,
                            argrepr="")
    return ins._replace(arg=None, argval=None, argrepr="")


_BUILDS = frozenset({"BUILD_LIST", "BUILD_SET", "BUILD_MAP"})
# a comprehension's iterator and the loop's first instruction (an async one's awaits the next)
_LOOP_HEADS = frozenset({("GET_ITER", "FOR_ITER"), ("GET_AITER", "GET_ANEXT")})


def _comprehension_iterators(out: list[Raw]) -> list[Raw]:
    """3.15 makes an inlined comprehension's iterator inside it, after saving the locals it
    binds and building its result (``LOAD_FAST_AND_CLEAR x [MAKE_CELL x]...; SWAP n;
    BUILD_LIST 0; SWAP 2; GET_ITER; FOR_ITER``, ``GET_AITER; GET_ANEXT`` for an async one);
    3.14 makes it first, on the iterable, before ``LOAD_FAST_AND_CLEAR``.  The ``GET_ITER``
    moves there, taking the first save's offset (a jump past the iterable's code lands on it),
    the save one byte later.  One whose saves are not read so is renamed, to be refused: left
    in place it would read as a loop over something else."""
    for i in range(1, len(out) - 3):
        if not (
            out[i].opname in _BUILDS
            and out[i].arg == 0
            and out[i + 1].opname == "SWAP" and out[i + 1].arg == 2
            and (out[i + 2].opname, out[i + 3].opname) in _LOOP_HEADS
        ):
            continue
        p = _first_save(out, i)
        if p is None:
            out[i + 2] = out[i + 2]._replace(opname="UNREAD_COMPREHENSION_" + out[i + 2].opname)
            continue
        get_iter = out[i + 2]._replace(offset=out[p].offset)
        out[i + 2 : i + 3] = []
        out[p : p + 1] = [get_iter, out[p]._replace(offset=out[p].offset + 1)]
    return out


def _first_save(out: list[Raw], build: int) -> int | None:
    """Index of the first ``LOAD_FAST_AND_CLEAR`` of the saves before a comprehension's
    ``SWAP n; BUILD_...`` (n - 1 saves, each followed by a ``MAKE_CELL`` when the comprehension's
    variable is a cell), or None when they are not there."""
    swap = out[build - 1]
    if swap.opname != "SWAP":
        return None
    want, saves, p = swap.arg - 1, 0, build - 2
    while p >= 0 and saves < want and out[p].opname in ("LOAD_FAST_AND_CLEAR", "MAKE_CELL"):
        saves += out[p].opname == "LOAD_FAST_AND_CLEAR"
        p -= 1
    if saves != want or out[p + 1].opname != "LOAD_FAST_AND_CLEAR":
        return None
    return p + 1


_GENEXPR_ITER = frozenset({"GET_ITER", "GET_AITER"})
_LOAD_FASTS = frozenset({"LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_CHECK"})


def _genexpr_prologue(raw: list[Raw]) -> int | None:
    """Where a 3.15 generator expression loads its argument ``.0`` to make the iterator
    before ``RETURN_GENERATOR; POP_TOP; RESUME`` (3.14 loads the caller's iterator after)."""
    for k in range(min(len(raw) - 4, 4)):
        if (
            raw[k].opname in _LOAD_FASTS
            and raw[k].argval == ".0"
            and raw[k + 1].opname in _GENEXPR_ITER
            and [i.opname for i in raw[k + 2 : k + 5]] == ["RETURN_GENERATOR", "POP_TOP", "RESUME"]
        ):
            return k
    return None


_CO_ASYNC_GENERATOR = 0x200


def _is_genexpr(value: object) -> bool:
    return isinstance(value, CodeType) and value.co_name == "<genexpr>"


def _makes_genexpr(raw: list[Raw]) -> bool:
    return any(ins.opname == "LOAD_CONST" and _is_genexpr(ins.argval) for ins in raw)


def _genexpr_calls(code: CodeType, raw: list[Raw], states: dict) -> dict[int, str]:
    """3.15 calls a generator expression's function with the iterable, ``CALL 0`` taking it
    as the ``self`` of the call: index of each such CALL -> the instruction 3.14 applies to
    the iterable before it (``GET_ITER``, ``GET_AITER`` for an async one).

    The function is made right before the iterable's code, which never takes the stack below
    the function's slot: the one function-making instruction leaving the stack at that depth
    is the callee."""
    out: dict[int, str] = {}
    for k, ins in enumerate(raw):
        if ins.opname != "CALL" or ins.arg != 0 or k not in states:
            continue
        slot = states[k][0] - 1  # the depth with the function on top
        j = k - 1
        while j >= 0 and j in states and states[j][0] >= slot:
            name = raw[j].opname
            if (name == "MAKE_FUNCTION" and states[j][0] == slot) or (
                name == "SET_FUNCTION_ATTRIBUTE" and states[j][0] == slot + 1
            ):
                break
            j -= 1
        else:
            continue
        while j > 0 and raw[j].opname == "SET_FUNCTION_ATTRIBUTE":
            j -= 1
        const = raw[j - 1].argval if j > 0 and raw[j].opname == "MAKE_FUNCTION" else None
        if _is_genexpr(const):
            out[k] = "GET_AITER" if const.co_flags & _CO_ASYNC_GENERATOR else "GET_ITER"
    return out
