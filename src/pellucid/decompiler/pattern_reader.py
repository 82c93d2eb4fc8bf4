"""Reading the code of one ``match`` pattern (3.10+), by a small symbolic execution.

Every value on the stack that is a part of the subject is a :class:`Slot`; the opcodes that
test it (``MATCH_SEQUENCE``, ``GET_LEN`` + compare, ``MATCH_CLASS``,
``MATCH_KEYS``, ``==`` / ``is`` against a value) record on the slot what the
pattern requires, the opcodes that take it apart (``UNPACK_SEQUENCE``,
``UNPACK_EX``, subscripts) create child slots, a store names it (capture or
``as``) and a ``POP_TOP`` of an untested slot is a wildcard.  Only the success
path is executed; every conditional jump must go to the failure clean-up of the
case (a run of ``POP_TOP`` ending at the next case) with exactly as many values
on the stack as that run pops, which is checked.  OR patterns are the one place
with other control flow: each alternative works on a copy of the subject and
jumps to a common end, where the captured values meet.  :mod:`pattern_ast` makes
the ``ast`` pattern of the slots.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import Any

from pellucid.decompiler.evaluate import const, name
from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, TABLE, TERMINAL, Instr

STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
LOADS = frozenset({"LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF"})
# the opcodes of each step of PatternReader.step
_SHUFFLES = frozenset({"COPY", "SWAP", "ROT_THREE", "ROT_FOUR", "ROT_N", "POP_TOP"})
_VALUE_OPS = frozenset({"LOAD_CONST", "LOAD_ATTR", "BUILD_TUPLE"})  # (and LOADS)
_TESTS = frozenset({"COMPARE_OP", "IS_OP", "MATCH_SEQUENCE", "MATCH_MAPPING", "GET_LEN", "BINARY_OP"})
_TAKING_APART = frozenset({"BINARY_SUBSCR", "UNPACK_SEQUENCE", "UNPACK_EX"})
_REST_DICT = frozenset({"COPY_DICT_WITHOUT_KEYS", "DICT_UPDATE", "DELETE_SUBSCR"})  # (and BUILD_MAP 0)


class NoMatch(Exception):
    """The instructions are not a match statement (or not one we can read)."""


# ---------------------------------------------------------------------------- values
@dataclass(eq=False)
class Slot:
    """A part of the subject and what the pattern requires of it."""

    kind: str | None = None  # value | singleton | seq | map | class | or
    value: Any = None  # value: ast.expr; singleton: the constant
    size: int | None = None  # seq: number of subpatterns (star included)
    star: bool = False  # seq: has a star subpattern
    items: dict = field(default_factory=dict)  # seq: index -> Slot
    star_index: int | None = None
    keys: list = field(default_factory=list)  # map: key expressions
    values: list = field(default_factory=list)  # map: value slots
    rest: str | None = None  # map: **rest
    cls: ast.expr | None = None  # class
    npos: int = 0
    kwnames: tuple = ()
    attrs: list = field(default_factory=list)
    alts: list = field(default_factory=list)  # or: alternative slots
    names: list = field(default_factory=list)  # captures (as-names)
    is_star: bool = False

    def require(self, kind: str) -> None:
        if self.kind is None:
            self.kind = kind
        elif self.kind != kind:
            raise NoMatch(f"{kind} test on a {self.kind} pattern")


@dataclass(eq=False)
class PExpr:
    """A value expression: a constant, a dotted name, a tuple of keys."""

    expr: ast.expr
    raw: Any = None  # the constant, for LOAD_CONST
    is_const: bool = False
    used: bool = False  # keys of MATCH_KEYS (popped afterwards)


@dataclass(eq=False)
class Test:
    kind: str  # eq | is | seq | map | len_eq | len_ge | ok
    slot: Any
    arg: Any = None


@dataclass(eq=False)
class Len:
    slot: Slot


@dataclass(eq=False)
class LenMinus:
    slot: Slot
    k: int


@dataclass(eq=False)
class Attrs:
    """MATCH_CLASS result: the attributes (positional, then keyword) of a class pattern."""

    slot: Slot


@dataclass(eq=False)
class Values:
    """MATCH_KEYS result: the values of a mapping pattern's keys."""

    slot: Slot


@dataclass(eq=False)
class KeyItem:
    expr: ast.expr


@dataclass(eq=False)
class RestDict:
    slot: Slot | None = None
    removed: int = 0


@dataclass(eq=False)
class Joined:
    """The values of several OR alternatives meeting at the end of the OR."""

    parts: list


@dataclass(eq=False)
class Fail:
    index: int  # the jump
    target: int
    height: int  # stack height on the jump's failure path


# ---------------------------------------------------------------------------- reading patterns
class PatternReader:
    """Symbolic execution of pattern code (success path only)."""

    def __init__(self, ins: list[Instr]) -> None:
        self.ins = ins
        self.n = len(ins)
        self.inlined: tuple[int, int] | None = None
        # the OR's success block, laid out after the code its last failure falls into
        self.relocated: int | None = None

    def run(self, pos: int, stack: list, base: int, fails: list) -> int:
        """Execute from ``pos`` until the stack is back at ``base`` (after at least one step)."""
        ins = self.ins
        while True:
            if pos >= self.n:
                raise NoMatch("pattern runs off the end")
            i = ins[pos]
            op = i.op
            if op == "COPY" and i.argval == 1 and stack and isinstance(stack[-1], Slot):
                end = self._or(pos, stack, fails)
                if end is not None:
                    pos = end
                    if len(stack) == base:
                        return pos
                    continue
            self.step(i, stack, fails)
            pos += 1
            if len(stack) == base:
                return pos
            if len(stack) < base:
                raise NoMatch("pattern pops below its base")

    # -- one instruction
    def step(self, i: Instr, stack: list, fails: list) -> None:
        op = i.op
        if op in _SHUFFLES:
            self._shuffle(i, stack)
        elif op in _VALUE_OPS or op in LOADS:
            self._value(i, stack)
        elif op in _TESTS:
            self._test(i, stack)
        elif op in _TAKING_APART:
            self._take_apart(i, stack)
        elif op == "MATCH_CLASS":
            self._match_class(i, stack)
        elif op == "MATCH_KEYS":
            self._match_keys(i, stack)
        elif op in _REST_DICT or (op == "BUILD_MAP" and i.arg == 0):
            self._rest_dict(i, stack)
        elif op in STORES:
            self._bind(self._pop(stack), i.argval)
        elif op in CONDITIONAL_JUMPS:
            self._jump(i, stack, fails)
        else:
            raise NoMatch(f"{op} in a pattern")

    def _shuffle(self, i: Instr, stack: list) -> None:
        """Values moved, copied or dropped (a dropped value must be a slot or a used key)."""
        op = i.op
        if op == "COPY":
            n = i.argval
            if len(stack) < n:
                raise NoMatch("underflow")
            stack.append(stack[-n])
        elif op == "SWAP":
            n = i.argval
            if len(stack) < n:
                raise NoMatch("underflow")
            stack[-1], stack[-n] = stack[-n], stack[-1]
        elif op in ("ROT_THREE", "ROT_FOUR", "ROT_N"):
            n = {"ROT_THREE": 3, "ROT_FOUR": 4}.get(op, i.arg)
            if len(stack) < n:
                raise NoMatch("underflow")
            stack.insert(len(stack) - n, stack.pop())
        else:  # POP_TOP
            v = self._pop(stack)
            if isinstance(v, (Test, Len, LenMinus)) or (isinstance(v, PExpr) and not v.used):
                raise NoMatch("POP_TOP of an unused value")

    def _value(self, i: Instr, stack: list) -> None:
        """A value a pattern compares with: a constant, a dotted name, a tuple of keys."""
        op = i.op
        if op == "LOAD_CONST":
            stack.append(PExpr(const(i.argval), i.argval, True))
        elif op in LOADS:
            stack.append(PExpr(name(i.argval)))
        elif op == "LOAD_ATTR":
            v = self._pop(stack)
            if not isinstance(v, PExpr) or v.is_const:
                raise NoMatch("attribute of a non-name")
            stack.append(PExpr(ast.Attribute(value=v.expr, attr=i.argval, ctx=ast.Load())))
        else:  # BUILD_TUPLE
            items = [self._pop(stack) for _ in range(i.arg)][::-1]
            if not all(isinstance(v, PExpr) for v in items):
                raise NoMatch("tuple of non-values")
            t = ast.Tuple(elts=[v.expr for v in items], ctx=ast.Load())
            stack.append(PExpr(t))

    def _test(self, i: Instr, stack: list) -> None:
        """A test of a slot (its value, identity, kind or length), or the length arithmetic
        a subscript from the back needs."""
        op = i.op
        if op == "COMPARE_OP":
            right, left = self._pop(stack), self._pop(stack)
            if not isinstance(right, PExpr) or not right.is_const and i.argval != "==":
                raise NoMatch("comparison with a non-value")
            if isinstance(left, Slot) and i.argval == "==":
                stack.append(Test("eq", left, right.expr))
            elif isinstance(left, Len) and i.argval in ("==", ">=") and isinstance(right.raw, int):
                stack.append(Test("len_eq" if i.argval == "==" else "len_ge", left.slot, right.raw))
            else:
                raise NoMatch("unrecognized comparison in a pattern")
        elif op == "IS_OP":
            right, left = self._pop(stack), self._pop(stack)
            if not (
                i.arg == 0
                and isinstance(left, Slot)
                and isinstance(right, PExpr)
                and right.is_const
                and right.raw in (None, True, False)
            ):
                raise NoMatch("unrecognized is-test in a pattern")
            stack.append(Test("is", left, right.raw))
        elif op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            s = self._peek(stack)
            if not isinstance(s, Slot):
                raise NoMatch(f"{op} of a non-slot")
            stack.append(Test("seq" if op == "MATCH_SEQUENCE" else "map", s))
        elif op == "GET_LEN":
            s = self._peek(stack)
            if not isinstance(s, Slot):
                raise NoMatch("GET_LEN of a non-slot")
            stack.append(Len(s))
        else:  # BINARY_OP
            right, left = self._pop(stack), self._pop(stack)
            if (
                i.argval == "-"
                and isinstance(left, Len)
                and isinstance(right, PExpr)
                and isinstance(right.raw, int)
            ):
                stack.append(LenMinus(left.slot, right.raw))
            else:
                raise NoMatch("arithmetic in a pattern")

    def _take_apart(self, i: Instr, stack: list) -> None:
        """A slot's parts as child slots: a subscript or an unpacking."""
        op = i.op
        if op == "BINARY_SUBSCR":
            index, obj = self._pop(stack), self._pop(stack)
            stack.append(self._subscript(obj, index))
        elif op == "UNPACK_SEQUENCE":
            v = self._pop(stack)
            items = self._unpack(v, i.arg, None)
            stack.extend(reversed(items))
        else:  # UNPACK_EX
            v = self._pop(stack)
            before, after = i.arg & 0xFF, i.arg >> 8
            items = self._unpack(v, before + 1 + after, before)
            stack.extend(reversed(items))

    def _match_class(self, i: Instr, stack: list) -> None:
        """``MATCH_CLASS``: the subject's slot becomes a class pattern."""
        names, cls, subj = self._pop(stack), self._pop(stack), self._pop(stack)
        if not (
            isinstance(subj, Slot)
            and isinstance(cls, PExpr)
            and not cls.is_const
            and isinstance(names, PExpr)
            and names.is_const
            and isinstance(names.raw, tuple)
        ):
            raise NoMatch("unrecognized MATCH_CLASS")
        subj.require("class")
        subj.cls, subj.npos, subj.kwnames = cls.expr, i.arg, names.raw
        subj.attrs = [None] * (i.arg + len(names.raw))
        stack.append(Attrs(subj))
        if TABLE.match_pushes_success_flag:
            stack.append(Test("ok", Attrs))

    def _match_keys(self, i: Instr, stack: list) -> None:
        """``MATCH_KEYS``: the subject's slot becomes a mapping pattern with these keys."""
        keys, subj = stack[-1], stack[-2] if len(stack) >= 2 else None
        if not (isinstance(subj, Slot) and isinstance(keys, PExpr)):
            raise NoMatch("unrecognized MATCH_KEYS")
        k = keys.expr
        key_list = list(k.elts) if isinstance(k, ast.Tuple) else None
        if key_list is None:
            raise NoMatch("mapping keys are not a tuple")
        subj.require("map")
        keys.used = True
        subj.keys = key_list
        subj.values = [None] * len(key_list)
        stack.append(Values(subj))
        if TABLE.match_pushes_success_flag:
            stack.append(Test("ok", Values))

    def _rest_dict(self, i: Instr, stack: list) -> None:
        """The ``**rest`` of a mapping pattern: a copy of the subject without its keys."""
        op = i.op
        if op == "COPY_DICT_WITHOUT_KEYS":
            keys = self._pop(stack)
            subj = self._peek(stack)
            if not (isinstance(subj, Slot) and subj.kind == "map" and isinstance(keys, PExpr)):
                raise NoMatch("unrecognized COPY_DICT_WITHOUT_KEYS")
            stack.append(RestDict(subj, len(subj.keys)))
        elif op == "BUILD_MAP":  # (with no items)
            stack.append(RestDict())
        elif op == "DICT_UPDATE":
            src = self._pop(stack)
            d = stack[-i.arg] if len(stack) >= i.arg else None
            if not (
                isinstance(src, Slot)
                and src.kind == "map"
                and isinstance(d, RestDict)
                and d.slot is None
            ):
                raise NoMatch("unrecognized DICT_UPDATE")
            d.slot = src
        else:  # DELETE_SUBSCR
            key, d = self._pop(stack), self._pop(stack)
            if not (isinstance(d, RestDict) and isinstance(key, KeyItem)):
                raise NoMatch("unrecognized DELETE_SUBSCR")
            d.removed += 1

    def _pop(self, stack: list) -> Any:
        if not stack:
            raise NoMatch("underflow")
        return stack.pop()

    def _peek(self, stack: list) -> Any:
        if not stack:
            raise NoMatch("underflow")
        return stack[-1]

    def _jump(self, i: Instr, stack: list, fails: list) -> None:
        v = self._pop(stack)
        op = i.op
        if i.target is None or i.target <= i.index:
            raise NoMatch("backward jump in a pattern")
        if op == "POP_JUMP_IF_FALSE" and isinstance(v, Test):
            self._apply(v)
        elif op == "POP_JUMP_IF_NONE" and isinstance(v, (Attrs, Values)):
            pass  # MATCH_CLASS / MATCH_KEYS succeeded
        elif op == "POP_JUMP_IF_NOT_NONE" and isinstance(v, Slot):
            v.require("singleton")
            v.value = None
        else:
            raise NoMatch("unrecognized jump in a pattern")
        fails.append(Fail(i.index, i.target, len(stack)))

    def _apply(self, t: Test) -> None:
        s = t.slot
        if t.kind == "ok":
            return
        if t.kind == "eq":
            s.require("value")
            s.value = t.arg
        elif t.kind == "is":
            s.require("singleton")
            s.value = t.arg
        elif t.kind in ("seq", "map"):
            s.require(t.kind)
        elif t.kind in ("len_eq", "len_ge"):
            if s.kind == "seq":
                if s.size is not None:
                    raise NoMatch("two length checks")
                s.size = t.arg if t.kind == "len_eq" else t.arg + 1
                s.star = t.kind == "len_ge"
            elif s.kind == "map" and t.kind == "len_ge":
                pass  # number of keys, checked when the keys are known
            else:
                raise NoMatch("length check of a non-sequence")

    def _subscript(self, obj: Any, index: Any) -> Slot:
        if isinstance(obj, Attrs) and isinstance(index, PExpr) and isinstance(index.raw, int):
            return self._child(obj.slot.attrs, index.raw)
        if isinstance(obj, Values) and isinstance(index, PExpr) and isinstance(index.raw, int):
            return self._child(obj.slot.values, index.raw)
        if isinstance(obj, Slot) and obj.kind == "seq" and obj.size is not None:
            if isinstance(index, PExpr) and isinstance(index.raw, int) and index.raw >= 0:
                k = index.raw
            elif isinstance(index, LenMinus) and index.slot is obj:
                k = obj.size - index.k
            else:
                raise NoMatch("unrecognized sequence subscript")
            if k in obj.items or not 0 <= k < obj.size:
                raise NoMatch("bad sequence subscript")
            child = obj.items[k] = Slot()
            return child
        raise NoMatch("unrecognized subscript in a pattern")

    def _child(self, lst: list, k: int) -> Slot:
        if not 0 <= k < len(lst) or lst[k] is not None:
            raise NoMatch("bad attribute/value index")
        lst[k] = Slot()
        return lst[k]

    def _unpack(self, v: Any, n: int, star: int | None) -> list:
        if isinstance(v, Attrs) and star is None and n == len(v.slot.attrs):
            v.slot.attrs = [Slot() for _ in range(n)]
            return v.slot.attrs
        if isinstance(v, Values) and star is None and n == len(v.slot.values):
            v.slot.values = [Slot() for _ in range(n)]
            return v.slot.values
        if (
            isinstance(v, PExpr)
            and isinstance(v.expr, ast.Tuple)
            and star is None
            and n == len(v.expr.elts)
        ):
            return [KeyItem(e) for e in v.expr.elts]
        if isinstance(v, Slot) and v.kind == "seq":
            if v.size is None:
                if star is None:
                    raise NoMatch("unpacking of a sequence of unknown length")
                v.size, v.star = n, True
            if n != v.size or (star is not None) != v.star or v.items:
                raise NoMatch("unpacking does not fit the length check")
            items = [Slot() for _ in range(n)]
            v.items = dict(enumerate(items))
            if star is not None:
                items[star].is_star = True
                v.star_index = star
            return items
        raise NoMatch("unrecognized unpacking in a pattern")

    def _bind(self, v: Any, nm: str) -> None:
        if isinstance(v, Slot):
            v.names.append(nm)
        elif isinstance(v, Joined):
            for p in v.parts:
                self._bind(p, nm)
        elif isinstance(v, RestDict) and v.slot is not None and v.removed == len(v.slot.keys):
            if v.slot.rest is not None:
                raise NoMatch("two rest names")
            v.slot.rest = nm
        else:
            raise NoMatch("store of a non-pattern value")

    # -- OR patterns
    def _or(self, pos: int, stack: list, fails: list) -> int | None:
        """An OR pattern at ``pos``: tried on a copy first, so that a failed attempt
        (the COPY was an ``as`` pattern's) leaves no trace on the slots."""
        trial = copy.deepcopy(stack)
        if self._try_or(pos, trial, []) is None:
            return None
        return self._try_or(pos, stack, fails)

    def _try_or(self, pos: int, stack: list, fails: list) -> int | None:
        """``COPY 1; alt; JUMP end; <pops>; COPY 1; alt; JUMP end; <pops>; POP_TOP; JUMP fail; end:``.

        When the code after the OR is a small exit block (``... return``), 3.10 and
        3.12+ copy it into every alternative instead of jumping: each alternative
        then ends in an identical copy followed by its failure pops.  The walk goes
        on in the first copy; :attr:`inlined` tells the case where that copy ends
        and which code (the other alternatives) nobody walks.
        """
        ins = self.ins
        x = stack[-1]
        h0 = len(stack)
        alts: list[tuple[Slot, list]] = []
        p = pos
        end = None
        copies: list[tuple[int, int]] = []  # inlined exit copies [start, stop)
        while True:
            if not (ins[p].op == "COPY" and ins[p].argval == 1):
                return None
            view = Slot()
            st = stack[:-1] + [x, view]
            alt_fails: list[Fail] = []
            try:
                q, how = self._run_alternative(p + 1, st, h0, alt_fails)
            except NoMatch:
                return None
            if how == "jump":
                if copies:
                    return None
                j = ins[q]
                if end is None:
                    end = j.target
                if j.target != end or end <= q:
                    return None
                chain = q + 1
            else:
                if end is not None:
                    return None
                t = q
                while t < self.n and ins[t].op not in TERMINAL:
                    if ins[t].target is not None or t - q > 8:
                        return None
                    t += 1
                if t >= self.n:
                    return None
                copies.append((q, t + 1))
                chain = t + 1
            alts.append((view, st[h0:]))
            # the alternative's failure pops, then the next alternative or the OR's failure
            k = chain
            while (
                k < self.n
                and ins[k].op == "POP_TOP"
                and not _fails_land(alt_fails, chain, k, h0, ins)
            ):
                k += 1
            if (
                k < self.n
                and ins[k].op == "COPY"
                and ins[k].argval == 1
                and _fails_land(alt_fails, chain, k, h0, ins)
            ):
                p = k
                continue
            # the last alternative: its pops include the OR's subject
            k = chain
            while (
                k < self.n
                and ins[k].op == "POP_TOP"
                and not _fails_land(alt_fails, chain, k, h0 - 1, ins)
            ):
                k += 1
            if k >= self.n or not _fails_land(alt_fails, chain, k, h0 - 1, ins) or k == chain:
                return None
            if how == "jump":
                if ins[k].op == "JUMP" and ins[k].target is not None and end == k + 1:
                    or_fail = Fail(k, ins[k].target, h0 - 1)
                elif (
                    ins[k].op != "JUMP"
                    and end > k
                    and (ins[end - 1].op in TERMINAL or ins[end - 1].op == "JUMP")
                ):
                    # 3.10 and 3.13 lay the OR's success block out after the code its last
                    # failure falls into (the next case, or a copy of the code after the match)
                    or_fail = Fail(k, k, h0 - 1)
                    self.relocated = end
                else:
                    return None
            else:
                target = ins[k].target if ins[k].op == "JUMP" and ins[k].target is not None else k
                or_fail = Fail(k, target, h0 - 1)
                skip_to = k + 1 if ins[k].op == "JUMP" else k
            break
        if len(alts) < 2:
            return None
        widths = {len(extra) for _, extra in alts}
        if len(widths) != 1:
            return None
        if copies:
            first = copies[0]
            if any(not self._same_span(first, c) for c in copies[1:]):
                return None
        fails.append(or_fail)
        x_slot = x
        x_slot.require("or")
        x_slot.alts = [view for view, _ in alts]
        width = widths.pop()
        stack[:] = stack[:h0] + [Joined([extra[w] for _, extra in alts]) for w in range(width)]
        if copies:
            self.inlined = (copies[0][1], skip_to)
            return copies[0][0]
        return end

    def _same_span(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        if a[1] - a[0] != b[1] - b[0]:
            return False
        for d in range(a[1] - a[0]):
            x, y = self.ins[a[0] + d], self.ins[b[0] + d]
            if x.op != y.op or repr(x.argval) != repr(y.argval) or x.target is not None:
                return False
        return True

    def _run_alternative(self, pos: int, stack: list, h0: int, fails: list) -> tuple[int, str]:
        """Run one alternative: to its ``JUMP`` to the OR's end ("jump"), or to the
        first instruction that touches the OR's subject, the start of an inlined
        copy of the code after the OR ("inlined")."""
        x = stack[h0 - 1]
        while True:
            if pos >= self.n:
                raise NoMatch("alternative runs off the end")
            i = self.ins[pos]
            if i.op == "JUMP":
                return pos, "jump"
            if i.op == "COPY" and i.argval == 1 and stack and isinstance(stack[-1], Slot):
                end = self._or(pos, stack, fails)
                if end is not None:
                    pos = end
                    continue
            if len(stack) - _reach(i) < h0:
                return pos, "inlined"
            self.step(i, stack, fails)
            pos += 1
            if len(stack) < h0 or stack[h0 - 1] is not x:
                raise NoMatch("alternative pops the OR's subject")


def _reach(i: Instr) -> int:
    """How deep into the stack an instruction reaches (pops or rearranges)."""
    op = i.op
    if op in ("POP_TOP",) or op in STORES:
        return 1
    if op in ("SWAP", "COPY"):
        return i.argval
    if op in ("ROT_THREE", "ROT_FOUR", "ROT_N"):
        return {"ROT_THREE": 3, "ROT_FOUR": 4}.get(op, i.arg)
    return 0


def _fails_land(fails: list[Fail], lo: int, hi: int, keep: int, ins: list[Instr]) -> bool:
    """Every failure jump lands in the POP_TOP run [lo, hi) popping down to ``keep`` values."""
    for f in fails:
        if not lo <= f.target <= hi:
            return False
        if hi - f.target != f.height - keep:
            return False
    return True
