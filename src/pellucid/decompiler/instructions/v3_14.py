"""CPython 3.14: new spellings (LOAD_SMALL_INT, borrowed loads, POP_ITER, subscription in
BINARY_OP, LOAD_COMMON_CONSTANT), inlined ``all``/``any``/``tuple`` calls, ``with`` set up by
special-method loads, and/or jumps that skip a test, the docstring in co_flags, while tests
no longer copied to the loop's bottom (a `while True`'s jump back laid where its path goes round),
RETURN_CONST gone."""

from __future__ import annotations

import dis
from dataclasses import replace
from types import CodeType
from typing import TYPE_CHECKING, Any

from pellucid.decompiler.instructions import v3_13
from pellucid.decompiler.instructions.vocabulary import INVERSE_JUMPS
from pellucid.decompiler.instructions.withsetup import rewrite_withs

if TYPE_CHECKING:
    from pellucid.decompiler.instructions.decode import Raw
    from pellucid.decompiler.instructions.normalize import Instr


def _load_small_int(ins: Raw) -> Raw:
    return ins._replace(opname="LOAD_CONST", argval=ins.arg, argrepr=repr(ins.arg))


def _renamed(name: str) -> Any:
    return lambda ins: ins._replace(opname=name)


def _binary_op_314(ins: Raw) -> Raw:
    # subscription joined BINARY_OP (NB_SUBSCR, spelled "[]")
    if ins.argrepr == "[]":
        return ins._replace(opname="BINARY_SUBSCR", arg=None, argval=None, argrepr="")
    return ins


# LOAD_COMMON_CONSTANT's argument indexes this list (3.14+)
_COMMON_CONSTANTS = getattr(dis, "_common_constants", None) or ()


def _load_common_constant(ins: Raw) -> Raw:
    # AssertionError only comes from `assert`; the other common constants (the builtins the
    # compiler inlines calls of) are removed with the inlined code by _undo_inlined_builtins
    value = _COMMON_CONSTANTS[ins.arg]
    if value is AssertionError:
        return ins._replace(opname="LOAD_ASSERTION_ERROR", arg=None, argval=None, argrepr="")
    if value is None or type(value) in (bool, int, str):
        # 3.15+: the commonest literals (None, True, False, '', -1) come from this table too
        return ins._replace(opname="LOAD_CONST", argval=value, argrepr=repr(value))
    return ins


_SPELLINGS_314 = {
    "LOAD_SMALL_INT": _load_small_int,
    "LOAD_FAST_BORROW": _renamed("LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": _renamed("LOAD_FAST_LOAD_FAST"),
    # the iterator a loop leaves behind, popped at the loop's end or on `break`/`return`
    "POP_ITER": _renamed("POP_TOP"),
    "BINARY_OP": _binary_op_314,
    "LOAD_COMMON_CONSTANT": _load_common_constant,
    # its argument locates the loop for the interpreter; control only falls through
    "END_ASYNC_FOR": lambda ins: ins._replace(arg=None, argval=None, argrepr=""),
}


def _undo_inlined_builtins(code: CodeType, raw: list[Raw]) -> list[Raw]:
    """3.14+ inline ``all(genexpr)``, ``any(genexpr)`` and ``tuple(genexpr)``::

        LOAD_GLOBAL all; COPY 1; LOAD_COMMON_CONSTANT all; IS_OP 0; POP_JUMP_IF_FALSE L
        (or the name loaded from wherever it lives: a local ``all`` is checked the same way)
        POP_TOP; <the generator expression as a loop>
        L: PUSH_NULL; <the generator expression>; CALL 1

    The inlined loop runs only when the name is the builtin, and is the same call.  Dropping
    everything from the COPY up to L leaves what 3.13 compiles (LOAD_GLOBAL with its NULL)."""
    out: list[Raw] = []
    skip_to = -1
    n = len(raw)
    for k, ins in enumerate(raw):
        if ins.offset < skip_to:
            continue
        out.append(ins)
        if (
            ins.opname.startswith("LOAD_")  # the name, wherever it lives
            and not (ins.opname == "LOAD_GLOBAL" and ins.arg & 1)
            and k + 5 < n
            and raw[k + 1].opname == "COPY" and raw[k + 1].arg == 1
            and raw[k + 2].opname == "LOAD_COMMON_CONSTANT"
            and _COMMON_CONSTANTS[raw[k + 2].arg] in (all, any, tuple, list, set)
            and raw[k + 3].opname == "IS_OP" and raw[k + 3].arg == 0
            and raw[k + 4].opname == "POP_JUMP_IF_FALSE"
        ):
            target = raw[k + 4].argval
            end = next((j for j in range(k + 5, n) if raw[j].offset == target), None)
            if end is not None and raw[end].opname == "PUSH_NULL":
                skip_to = target
    return out


def _call_function_ex_flag(code: CodeType, raw: list[Raw]) -> list[Raw]:
    """3.14+ ``CALL_FUNCTION_EX`` always pops a keyword mapping, NULL (``PUSH_NULL`` right
    before it) when the call has none; earlier versions say which in the argument's low bit."""
    out: list[Raw] = []
    for ins in raw:
        if ins.opname == "CALL_FUNCTION_EX":
            if out and out[-1].opname == "PUSH_NULL":
                out.pop()
                ins = ins._replace(arg=0, argval=0)
            elif out and out[-1].opname == "LOAD_GLOBAL" and out[-1].arg & 1:
                # 3.15+: the global's NULL bit pushes the missing mapping (`f(*g)`)
                out[-1] = out[-1]._replace(arg=out[-1].arg & ~1)
                ins = ins._replace(arg=0, argval=0)
            elif [(i.opname, i.arg) for i in out[-4:]] == _NULLS_UNDER_ARGS:
                # Dynamo's: `func, args; PUSH_NULL; PUSH_NULL; SWAP 3; SWAP 2` leaves
                # func, NULL, args, NULL: the 3.13 spelling is `PUSH_NULL; SWAP 2` and no mapping
                del out[-3:-1]
                ins = ins._replace(arg=0, argval=0)
            else:
                ins = ins._replace(arg=1, argval=1)
        out.append(ins)
    return out


_NULLS_UNDER_ARGS = [("PUSH_NULL", None), ("PUSH_NULL", None), ("SWAP", 3), ("SWAP", 2)]


def _with_setups(code: CodeType, raw: list[Raw]) -> list[Raw]:
    """3.14+ ``with`` set-ups and exits as ``BEFORE_WITH`` ones, and 3.15+ iterator pairs as
    3.14's single iterators (see withsetup.py)."""
    from pellucid.decompiler.instructions.decode import TABLE  # (decode imports this table)

    done = rewrite_withs(code, raw, TABLE.paired_iterators)
    return raw if done is None else done.raw



def _unskip_value_tests(out: list[Instr]) -> None:
    """3.14+ let an and/or operand's jump skip the next operand's test when that test cannot
    jump for the same value: in ``a and b or c``, ``COPY 1; POP_JUMP_IF_FALSE`` of ``a`` lands
    after ``b``'s ``COPY 1; POP_JUMP_IF_TRUE`` (a false ``a`` is false there too), where 3.13
    lands on it.  Pointing the jump back at that test is the same program (the test falls
    through for this value) and the layout the and/or recognizers know."""
    for i in out:
        t = i.target
        if (
            i.op in INVERSE_JUMPS
            and t is not None
            and t >= 2
            and i.index >= 1
            and out[i.index - 1].op == "COPY" and out[i.index - 1].arg == 1
            and out[t - 2].op == "COPY" and out[t - 2].arg == 1
            and out[t - 1].op == INVERSE_JUMPS[i.op]
            and t - 2 > i.index
        ):
            i.target = t - 2
            i.argval = out[t - 2].offset
            i.extra["unskipped_test"] = out[t].offset if t < len(out) else None


def _unthread_value_tests(out: list[Instr]) -> None:
    """3.14+ also let an and/or operand's jump skip a test that must jump for the same value:
    in ``(x or y and z) and d``, a false ``y`` jumps where the ``and d`` after the group goes,
    past that ``and``'s ``COPY 1; POP_JUMP_IF_FALSE`` to the same place, where 3.13 lands on
    it.  Pointing the jump back at that test is the same program (the test jumps there for
    this value) and the layout the and/or recognizers know.  The test must end a group the
    jump is in (the nearest one a jump from before it lands on); with none, the jump is read
    as it is (``a and (b or c) and d``: ``a``'s jump goes straight to the end)."""
    first_lander: dict[int, int] = {}
    for i in out:
        if i.target is not None:
            first_lander.setdefault(i.target, i.index)
    for i in out:
        t = i.target
        if (
            i.op not in INVERSE_JUMPS
            or t is None
            or i.index < 1
            or out[i.index - 1].op != "COPY"
            or out[i.index - 1].arg != 1
        ):
            continue
        y = next(
            (
                y
                for y in range(i.index + 1, t - 1)
                if first_lander.get(y, y) < i.index
                and out[y].op == "COPY"
                and out[y].arg == 1
                and out[y + 1].op == i.op
                and out[y + 1].target == t
            ),
            None,
        )
        if y is not None:
            i.target = y
            i.argval = out[y].offset
            i.extra["unthreaded_test"] = out[t].offset if t < len(out) else None


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _return_consts(code: CodeType, raw: list[Raw]) -> list[Raw]:
    """3.14 dropped ``RETURN_CONST``: ``return <constant>`` is ``LOAD_CONST; RETURN_VALUE`` in
    one block (in a loop, after the iterator's ``POP_TOP``, where ``return <expression>``
    computes first and pops the iterator from under its value).  A constant a jump brings to
    a ``RETURN_VALUE`` (a conditional expression's arm) is an operand, as on 3.12/3.13.  The
    pair with no jump to its ``RETURN_VALUE`` is the 3.13 ``RETURN_CONST``."""
    targets = {ins.argval for ins in raw if ins.opcode in _JUMPS}
    out: list[Raw] = []
    for ins in raw:
        if ins.opname == "RETURN_VALUE" and out and ins.offset not in targets:
            spelled = _SPELLINGS_314.get(out[-1].opname, lambda i: i)(out[-1])
            if spelled.opname == "LOAD_CONST":  # (a small int or common constant too)
                out[-1] = spelled._replace(opname="RETURN_CONST")
                continue
        out.append(ins)
    return out


def _with_depths(code: CodeType) -> dict:
    """Exception-table depths once ``_with_setups`` dropped each extra value."""
    from pellucid.decompiler.instructions.decode import TABLE, decode  # (decode imports this)

    done = rewrite_withs(code, decode(code), TABLE.paired_iterators)
    return {} if done is None else done.depths


TABLE = replace(
    v3_13.TABLE,
    version=(3, 14),
    docstring_flag=True,
    jumps_fold_not_into_compare=False,
    duplicates_loop_tests=False,
    lays_forever_back_edge_inline=True,
    spellings=_SPELLINGS_314,
    # (the stack walk of _with_setups reads CALL_FUNCTION_EX as encoded, before its flag)
    layout_passes=(_undo_inlined_builtins, _with_setups, _call_function_ex_flag, _return_consts),
    normalized_passes=(_unskip_value_tests, _unthread_value_tests),
    exception_depths=_with_depths,
)
