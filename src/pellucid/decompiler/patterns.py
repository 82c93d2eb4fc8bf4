"""``match`` statements (3.10+): cases, patterns and guards.

The walker asks :meth:`PatternOps.match_at` at every instruction where the value
on top of its stack could be a match subject; a match is recognised by parsing
it completely (:meth:`PatternOps._parse_match`), and anything that does not parse
leaves the instructions to the ordinary walk.

Patterns are read by a small symbolic execution of the pattern code.  Every value
on the stack that is a part of the subject is a :class:`Slot`; the opcodes that
test it (``MATCH_SEQUENCE``, ``GET_LEN`` + compare, ``MATCH_CLASS``,
``MATCH_KEYS``, ``==`` / ``is`` against a value) record on the slot what the
pattern requires, the opcodes that take it apart (``UNPACK_SEQUENCE``,
``UNPACK_EX``, subscripts) create child slots, a store names it (capture or
``as``) and a ``POP_TOP`` of an untested slot is a wildcard.  Only the success
path is executed; every conditional jump must go to the failure clean-up of the
case (a run of ``POP_TOP`` ending at the next case) with exactly as many values
on the stack as that run pops, which is checked.  OR patterns are the one place
with other control flow: each alternative works on a copy of the subject and
jumps to a common end, where the captured values meet.  From the slots the
``ast`` pattern is rebuilt; compiling it again gives the same instructions
(the verification checks that).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from pellucid.decompiler.evaluate import const, name
from pellucid.decompiler.instructions import (
    CONDITIONAL_JUMPS,
    MAX_COPY_SIZE,
    TABLE,
    TERMINAL,
    Instr,
)

STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
LOADS = frozenset({"LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF"})


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
        elif op == "POP_TOP":
            v = self._pop(stack)
            if isinstance(v, (Test, Len, LenMinus)) or (isinstance(v, PExpr) and not v.used):
                raise NoMatch("POP_TOP of an unused value")
        elif op == "LOAD_CONST":
            stack.append(PExpr(const(i.argval), i.argval, True))
        elif op in LOADS:
            stack.append(PExpr(name(i.argval)))
        elif op == "LOAD_ATTR":
            v = self._pop(stack)
            if not isinstance(v, PExpr) or v.is_const:
                raise NoMatch("attribute of a non-name")
            stack.append(PExpr(ast.Attribute(value=v.expr, attr=i.argval, ctx=ast.Load())))
        elif op == "BUILD_TUPLE":
            items = [self._pop(stack) for _ in range(i.arg)][::-1]
            if not all(isinstance(v, PExpr) for v in items):
                raise NoMatch("tuple of non-values")
            t = ast.Tuple(elts=[v.expr for v in items], ctx=ast.Load())
            stack.append(PExpr(t))
        elif op == "COMPARE_OP":
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
        elif op == "BINARY_OP":
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
        elif op == "BINARY_SUBSCR":
            index, obj = self._pop(stack), self._pop(stack)
            stack.append(self._subscript(obj, index))
        elif op == "UNPACK_SEQUENCE":
            v = self._pop(stack)
            items = self._unpack(v, i.arg, None)
            stack.extend(reversed(items))
        elif op == "UNPACK_EX":
            v = self._pop(stack)
            before, after = i.arg & 0xFF, i.arg >> 8
            items = self._unpack(v, before + 1 + after, before)
            stack.extend(reversed(items))
        elif op == "MATCH_CLASS":
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
        elif op == "MATCH_KEYS":
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
        elif op == "COPY_DICT_WITHOUT_KEYS":
            keys = self._pop(stack)
            subj = self._peek(stack)
            if not (isinstance(subj, Slot) and subj.kind == "map" and isinstance(keys, PExpr)):
                raise NoMatch("unrecognized COPY_DICT_WITHOUT_KEYS")
            stack.append(RestDict(subj, len(subj.keys)))
        elif op == "BUILD_MAP" and i.arg == 0:
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
        elif op == "DELETE_SUBSCR":
            key, d = self._pop(stack), self._pop(stack)
            if not (isinstance(d, RestDict) and isinstance(key, KeyItem)):
                raise NoMatch("unrecognized DELETE_SUBSCR")
            d.removed += 1
        elif op in STORES:
            self._bind(self._pop(stack), i.argval)
        elif op in CONDITIONAL_JUMPS:
            self._jump(i, stack, fails)
        else:
            raise NoMatch(f"{op} in a pattern")

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


# ---------------------------------------------------------------------------- building ast
def build_pattern(s: Slot) -> ast.pattern:
    if s.is_star:
        if s.kind is not None or len(s.names) > 1:
            raise NoMatch("star pattern with a test")
        return ast.MatchStar(name=s.names[0] if s.names else None)
    p: ast.pattern | None
    if s.kind is None:
        p = None
    elif s.kind == "value":
        p = ast.MatchValue(value=_pattern_value(s.value))
    elif s.kind == "singleton":
        p = ast.MatchSingleton(value=s.value)
    elif s.kind == "seq":
        p = ast.MatchSequence(patterns=_sequence_items(s))
    elif s.kind == "map":
        p = ast.MatchMapping(
            keys=[_pattern_value(k) for k in s.keys],
            patterns=[build_pattern(v) if v is not None else _wildcard() for v in s.values],
            rest=s.rest,
        )
    elif s.kind == "class":
        attrs = [build_pattern(a) if a is not None else _wildcard() for a in s.attrs]
        p = ast.MatchClass(
            cls=s.cls,
            patterns=attrs[: s.npos],
            kwd_attrs=list(s.kwnames),
            kwd_patterns=attrs[s.npos :],
        )
    elif s.kind == "or":
        p = ast.MatchOr(patterns=[build_pattern(a) for a in s.alts])
    else:
        raise NoMatch(f"unknown pattern kind {s.kind}")
    if len(s.names) > 1:
        raise NoMatch("several names for one pattern")
    if s.names:
        return ast.MatchAs(pattern=p, name=s.names[0])
    return p if p is not None else _wildcard()


def _wildcard() -> ast.MatchAs:
    return ast.MatchAs(pattern=None, name=None)


def _sequence_items(s: Slot) -> list[ast.pattern]:
    if s.size is None:
        if s.items:
            raise NoMatch("sequence items without a length")
        return [ast.MatchStar(name=None)]  # [*_]
    if s.star_index is not None:  # unpacked: every item is there
        return [build_pattern(s.items[k]) for k in range(s.size)]
    if not s.star:
        return [build_pattern(s.items[k]) if k in s.items else _wildcard() for k in range(s.size)]
    # a wildcard star read by subscripts: it sits between the items read from the
    # front and those read from the back (any such place compiles the same)
    front = [k for k in s.items if all(k < j or j in s.items for j in range(k))]
    star = max(front) + 1 if front else 0
    out: list[ast.pattern] = []
    for k in range(s.size):
        if k == star:
            out.append(ast.MatchStar(name=None))
        else:
            out.append(build_pattern(s.items[k]) if k in s.items else _wildcard())
    return out


def _pattern_value(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Constant):
        v = e.value
        if isinstance(v, bool) or v is None:
            raise NoMatch("singleton compared with ==")
        if isinstance(v, (int, float, complex, str, bytes)):
            return e
        raise NoMatch("constant of a type patterns cannot spell")
    node = e
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Name) and isinstance(e, ast.Attribute):
        return e
    raise NoMatch("value pattern that is not a constant or dotted name")


# ---------------------------------------------------------------------------- the statement
@dataclass
class Case:
    pattern: ast.pattern
    copy: bool
    start: int
    body: int  # first instruction of the body
    chain: int | None  # first instruction of the failure clean-up (None: irrefutable)
    next: int | None  # where the next case starts
    guard: ast.expr | None = None
    skip: tuple | None = None  # code the statement owns but nobody walks
    body_end: int | None = None  # the body ends before the failure clean-up
    extra_skip: int | None = None  # ... and the code up to here is skipped too
    guard_start: int | None = None  # last case: where a guard read from the body starts
    relocated: tuple | None = None  # [start, end) of an OR's success block laid out later


_VALUE_LOADS = frozenset(
    ("LOAD_CONST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF",
     "LOAD_ATTR", "NOP")
)


class PatternOps:
    """Walker mixin: ``match`` statements."""

    def match_at(self, i: int, stack: list) -> bool:
        cands = getattr(self, "_match_candidates", None)
        if cands is None:
            if not TABLE.has_match_statement:
                return False
            cands = self._match_candidates = self._find_match_candidates()
        if i not in cands:
            return False
        if len(stack) != self.cur_base + 1 or not isinstance(stack[-1], ast.expr):
            return False
        # parsing is a trial: it must leave no trace when it is not a match
        chains = dict(self.assign_chains)
        try:
            self._pending_match = (i, self._parse_match(i, stack))
        except NoMatch:
            self.assign_chains.clear()
            self.assign_chains.update(chains)
            return False
        return True

    def _subject_copy(self, k: int) -> bool:
        """COPY 1 of a match subject is followed by a pattern test, never a store."""
        nxt = self.ins[k + 1].op if k + 1 < self.n else ""
        return not nxt.startswith("STORE_") and nxt not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")

    def _value_test_follows(self, k: int) -> bool:
        """Without MATCH_* opcodes a subject copy starts literal/value/OR/as patterns: loads of
        the value, then a comparison (or a None test).  Dynamo copies stack values all the time;
        this keeps the trial parse away from its copies."""
        for x in islice(self.ins, k + 1, None):  # (no copy of the rest: Dynamo has many copies)
            if x.op in _VALUE_LOADS or (x.op == "COPY" and x.argval == 1):
                continue
            return x.op in ("COMPARE_OP", "IS_OP", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")
        return False

    def _find_match_candidates(self) -> set[int]:
        ins = self.ins
        has_match_ops = any(op.startswith("MATCH_") for op in {x.op for x in ins})
        out = set()
        for x in ins:
            if x.op == "COPY" and x.argval == 1 and self._subject_copy(x.index):
                if has_match_ops or self._value_test_follows(x.index):
                    out.add(x.index)
            elif has_match_ops and x.op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
                out.add(x.index)
            elif has_match_ops and x.op == "MATCH_CLASS":
                # the class expression: a name and attributes, then the names tuple
                k = x.index - 2
                while k > 0 and ins[k].op == "LOAD_ATTR":
                    k -= 1
                out.add(k)
        return out

    def _parse_match(self, i: int, stack: list) -> list[Case]:
        cases: list[Case] = []
        pos = i
        reader = PatternReader(self.ins)
        while True:
            case = None
            if self.ins[pos].op == "COPY" and self.ins[pos].argval == 1:
                try:
                    case = self._parse_case(reader, pos, True, stack)
                except NoMatch:
                    case = None
            if case is None:
                case = self._parse_case(reader, pos, False, stack)
            cases.append(case)
            if not case.copy:
                break
            pos = case.next
        copied = any(c.copy for c in cases)  # (an OR put back below copied the subject too)
        cases = self._merge_inlined_or(cases)
        if not any(c.chain is not None for c in cases):
            raise NoMatch("no refutable case")
        has_or = any(isinstance(n, ast.MatchOr) for c in cases for n in ast.walk(c.pattern))
        if not (copied or has_or) and not self._has_match_ops(i, cases[-1]):
            raise NoMatch("a single value test is an if statement")
        return cases

    def _merge_inlined_or(self, cases: list[Case]) -> list[Case]:
        """An OR pattern in the last case whose small end the compiler copied into
        every alternative reads as copy-cases with identical bodies followed by a
        lone ``POP_TOP`` (the OR's failure pop of the subject): put the OR back."""
        last = cases[-1]
        if not (
            len(cases) >= 3
            and not last.copy
            and last.chain is None
            and last.guard is None
            and last.body == last.start + 1
            and self.ins[last.start].op == "POP_TOP"
        ):
            return cases
        k = len(cases) - 2
        run: list[Case] = []
        while (
            k >= 0
            and cases[k].copy
            and cases[k].guard is None
            and self._same_body(cases[k], cases[-2])
        ):
            run.insert(0, cases[k])
            k -= 1
        if len(run) < 2:
            raise NoMatch("lone failure pop after the cases")
        first = run[0]
        merged = Case(
            ast.MatchOr(patterns=[c.pattern for c in run]),
            False,
            first.start,
            first.body,
            first.chain,
            last.body,
        )
        merged.skip = (first.chain, last.body)
        return cases[: k + 1] + [merged]

    def _same_body(self, a: Case, b: Case) -> bool:
        if a.chain is None or b.chain is None or a.chain - a.body != b.chain - b.body:
            return False
        for d in range(a.chain - a.body):
            x, y = self.ins[a.body + d], self.ins[b.body + d]
            if x.op != y.op or repr(x.argval) != repr(y.argval):
                return False
            if x.target is not None or y.target is not None:
                xin = x.target is not None and a.body <= x.target < a.chain
                if xin:
                    if y.target is None or x.target - a.body != y.target - b.body:
                        return False
                elif x.target != y.target:
                    return False
        return True

    def _has_match_ops(self, i: int, case: Case) -> bool:
        return any(self.ins[k].op.startswith("MATCH_") for k in range(i, case.body))

    def _parse_case(self, reader: PatternReader, pos: int, copy: bool, stack: list) -> Case:
        subject = Slot()
        st: list = [subject, subject] if copy else [subject]
        base = 1 if copy else 0
        fails: list[Fail] = []
        reader.inlined = reader.relocated = None
        q = reader.run(pos + 1 if copy else pos, st, base, fails)
        inlined, relocated = reader.inlined, reader.relocated
        pattern = build_pattern(subject)
        guard = None
        if copy:
            if self.ins[q].op != "POP_TOP":
                guard, q = self._guard(q, stack, fails)
            if self.ins[q].op != "POP_TOP":
                raise NoMatch("case without the subject's pop")
            body = q + 1
        else:
            body = q
        chain = min((f.target for f in fails), default=None)
        nxt = None
        if chain is not None:
            keep = 1 if copy else 0
            nxt = {f.target + f.height - keep for f in fails}
            if len(nxt) != 1:
                raise NoMatch("failures continue at different places")
            (nxt,) = nxt
            if any(self.ins[k].op != "POP_TOP" for k in range(chain, nxt)):
                raise NoMatch("failure clean-up is not a run of pops")
            if chain < body and relocated is None:
                raise NoMatch("failure jumps into the pattern")
        elif copy:
            raise NoMatch("irrefutable case before others")
        if not copy and chain is not None:
            # the last case's guard: a test whose failure goes where the pattern's does
            # (an `if` opening the body would jump to the end of the statement instead)
            cond = self.try_condition_at(body, stack[:-1])
            limit = inlined[0] if inlined else chain
            if cond is not None and cond[2] == nxt and cond[1] <= limit:
                guard_start = body
                guard, body = cond[0], cond[1]
        case = Case(pattern, copy, pos, body, chain, nxt, guard)
        if guard is not None and not copy:
            case.guard_start = guard_start
        if inlined is not None:
            if not body <= inlined[0] <= inlined[1] <= (chain if chain is not None else inlined[1]):
                raise NoMatch("inlined OR end outside its case")
            case.body_end, case.extra_skip = inlined
        if relocated is not None:
            if chain is None or not chain < relocated <= body:
                raise NoMatch("relocated OR success block outside its case")
            end = self._block_end(body)
            case.body_end = case.extra_skip = end
            case.relocated = (relocated, end)
        return case

    def _copied_after_match(self, cases: list[Case], after: int, stop: int) -> int | None:
        """3.10 and 3.12+ copy a small block ending the function (`return y`) that follows a
        match statement into each case body falling off its end; the default case's body
        (from ``after``) falls into the block itself.  Cut the copies off those bodies (they
        then end where the copy starts, the copy skipped) and return where the block starts,
        else None."""
        if not TABLE.copies_blocks_after_match:
            return None  # 3.11 jumps to the block instead
        ins = self.ins
        t = next((k for k in range(after, min(stop, self.n)) if ins[k].op in TERMINAL), None)
        if t is None or any(ins[k].target is not None for k in range(after, t)):
            return None
        tails = []
        for c in cases:
            b_end = c.body_end or c.chain
            if b_end is None or ins[b_end - 1].op not in TERMINAL:
                continue
            n = 0
            while (
                b_end - n - 1 >= c.body
                and t - n - 1 > after
                and self._same_code(b_end - n - 1, t - n, n + 1)
            ):
                n += 1
            if n:
                tails.append((c, b_end, n))
        if not tails:
            return None

        def starts_line(k: int, first: int) -> bool:  # (a copy holds whole statements)
            return k == first or ins[k].line != ins[k - 1].line

        size = min(n for _, _, n in tails)
        while size and not (
            starts_line(t - size + 1, after)
            and all(starts_line(b_end - size, c.body) for c, b_end, _ in tails)
        ):
            size -= 1
        X = t - size + 1
        if (
            not size
            or self._copy_size(X, t + 1) > MAX_COPY_SIZE
            or ins[X - 1].op in TERMINAL
            or ins[X - 1].op == "JUMP"
        ):
            return None
        if any(i.target is not None and X < i.target <= t for i in ins):
            return None
        for c, b_end, _ in tails:
            c.body_end = b_end - size
            c.extra_skip = c.extra_skip if c.extra_skip is not None and c.extra_skip > b_end else b_end
        return X

    def _block_end(self, k: int) -> int:
        """The end of the block at k that nothing falls out of: past its first return, raise
        or jump that every forward jump inside it has reached."""
        reach = k
        for j in range(k, self.n):
            t = self.ins[j].target
            if t is not None and t > j:
                reach = max(reach, t)
            if (self.ins[j].op in TERMINAL or self.ins[j].op == "JUMP") and j >= reach:
                return j + 1
        raise NoMatch("relocated case body runs off the end")

    def _guard(self, q: int, stack: list, fails: list) -> tuple[ast.expr, int]:
        cond = self.try_condition_at(q, stack)
        if cond is None:
            raise NoMatch("unrecognized guard")
        expr, T, F = cond
        fails.append(Fail(-1, F, 1))
        return expr, T

    def do_match(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        start, cases = self._pending_match
        if start != i:
            raise self.fail("match parsed elsewhere", self.ins[i])
        ins = self.ins
        subject = self.as_expr(stack.pop(), ins[i])
        # where the statement ends: the jumps that end case bodies
        loop_targets = self._loop_targets()
        last = cases[-1]
        ends = []
        for c in cases:
            e = c.chain if c.chain is not None else None
            if c.relocated is not None:
                e = c.relocated[1]  # (the relocated body's own closing jump)
            if e is None:
                continue
            j = ins[e - 1]
            if (
                j.op == "JUMP"
                and j.target is not None
                and j.target > e
                and j.target not in loop_targets
            ):
                ends.append(j.target)
        after = last.next  # after the last case's clean-up: default body or the follow
        if ends:
            end = max(ends)
            if after is not None and end < after:
                raise self.fail("match case jumps into the cases", ins[i])
        elif after is not None:
            end = self._copied_after_match(cases, after, stop) or after
        else:
            end = stop
        if end > stop and end not in exits:
            raise self.fail("match continues past its enclosing block", ins[i])
        stop_at = min(end, stop)
        for c in cases:
            b_end = c.body_end or c.chain
            if c.guard_start is not None and c.next == end and ins[b_end - 1].op == "JUMP":
                # no default case: a guard and an `if` opening a body that ends by
                # jumping to the end of the statement both fail to that end; it is
                # the `if` that compiles the same way (locations, exception table).
                # A body ending in return/raise has no final jump after a guard.
                c.body, c.guard = c.guard_start, None
        inherited = exits if (end >= stop or end in exits) else frozenset()
        branch_exits = frozenset({end, stop_at}) | inherited
        out_cases = []
        # an OR's success block laid out later belongs to its case alone: other walks skip it
        reach = self.reachable
        saved = {k: reach[k] for c in cases if c.relocated is not None for k in range(*c.relocated)}
        for k in saved:
            reach[k] = False
        for c in cases:
            b_end = c.body_end or (c.chain if c.chain is not None else stop_at)
            own = range(*c.relocated) if c.relocated is not None else range(0)
            for k in own:
                reach[k] = saved[k]
            body, st = self.walk(c.body, b_end, list(stack), branch_exits)
            for k in own:
                reach[k] = False
            if len(st) != len(stack):
                raise self.fail("case body changes the stack", ins[c.body])
            out_cases.append(
                ast.match_case(pattern=c.pattern, guard=c.guard, body=body or [ast.Pass()])
            )
        if after is not None and after < stop_at:
            body, st = self.walk(after, stop_at, list(stack), branch_exits)
            if len(st) != len(stack):
                raise self.fail("default case body changes the stack", ins[after])
            out_cases.append(
                ast.match_case(pattern=_wildcard(), guard=None, body=body or [ast.Pass()])
            )
        for c in cases:
            lo, hi = c.skip or (c.chain or c.body, c.next or c.body)
            for k in range(lo, hi):
                self.reachable[k] = False
            if c.body_end is not None:
                for k in range(c.body_end, c.extra_skip):
                    self.reachable[k] = False
        self.emit(ast.Match(subject=subject, cases=out_cases))
        return stop if end >= stop else end
