"""Generators and coroutines: yield, yield from, await, async for, async comprehensions.

Two parts:

* :func:`fold_suspensions` rewrites the normalized instruction list before any
  structuring.  Every suspension loop the compiler builds for ``yield from`` and
  ``await`` (3.9/3.10 ``LOAD_CONST None; YIELD_FROM``; 3.11+ ``LOAD_CONST None;
  SEND; YIELD_VALUE; JUMP_BACKWARD_NO_INTERRUPT`` and, 3.12+, ``END_SEND`` and
  the ``CLEANUP_THROW`` handler) becomes one pseudo-instruction ``YIELD_FROM``
  that pops the iterator/awaitable and pushes the result.  ``async for``
  (``GET_ANEXT`` + suspension, protected by a handler ending in
  ``END_ASYNC_FOR``) becomes a ``FOR_ITER`` with ``extra["async"]`` whose
  target is where the loop continues after exhaustion, so the loop machinery
  of :mod:`.regions.for_loops` sees the same shape as a plain ``for``.  The
  generator prologue (``RETURN_GENERATOR; POP_TOP``), the async-generator
  value wrapping and the 3.12+ handler that turns a leaked ``StopIteration``
  into ``RuntimeError`` (``CALL_INTRINSIC_1 INTRINSIC_STOPITERATION_ERROR;
  RERAISE 1``) carry no source and are dropped with their exception-table
  entries; real try blocks keep theirs.  Shapes that do not match exactly are
  left alone, so their opcodes reach the walker and fail there.

* :class:`GeneratorOps`, a mixin of the walker, gives the handlers of the
  remaining opcodes (``YIELD_VALUE``, ``GET_YIELD_FROM_ITER``,
  ``GET_AWAITABLE``, ``GET_AITER`` and the ``YIELD_FROM`` pseudo-instruction).
"""

from __future__ import annotations

import ast
import dis
from dataclasses import dataclass
from typing import Any

from pellucid.decompiler import cfg
from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TABLE, Instr, remove_instructions

CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200

_SUSPENDING = frozenset(
    {
        "YIELD_VALUE",
        "YIELD_FROM",
        "SEND",
        "RETURN_GENERATOR",
        "GET_ANEXT",
        "END_ASYNC_FOR",
        "CLEANUP_THROW",
        "ASYNC_GEN_WRAP",
        "CALL_INTRINSIC_1",
        "BEFORE_ASYNC_WITH",
    }
)

Entry = tuple  # (start, end, target, depth, lasti) as instruction indices


# ---------------------------------------------------------------------------- folding
def fold_suspensions(ins: list[Instr], entries: list[Entry]) -> tuple[list[Instr], list[Entry]]:
    """Collapse suspension loops, async-for heads and generator plumbing (see module doc)."""
    if _SUSPENDING.isdisjoint([i.op for i in ins]):
        return ins, entries
    remove: set[int] = set()  # the plumbing's instructions
    drop_handlers: set[int] = set()  # the handlers of plumbing's exception-table entries
    _clear_yield_args(ins)
    _generator_plumbing(ins, entries, remove, drop_handlers)
    _suspension_loops(ins, remove)
    cold = _cleanup_throws(ins, entries, remove, drop_handlers)
    _async_with(ins, remove)
    _async_for_heads(ins, entries, remove, drop_handlers)
    if not remove and not drop_handlers:
        return ins, entries
    return _without_plumbing(ins, entries, remove, drop_handlers, cold)


def _clear_yield_args(ins: list[Instr]) -> None:
    """YIELD_VALUE's oparg (3.12: exception-stack depth, 3.13: a flag) says nothing about
    the source; keeping it would make copies of finally bodies look different."""
    for i in ins:
        if i.op == "YIELD_VALUE":
            i.arg = i.argval = None


def _generator_plumbing(ins: list[Instr], entries: list[Entry], remove: set[int], drop_handlers: set[int]) -> None:
    """The generator prologue, the StopIteration wrapper handler and the async-generator
    wrapping of yielded values."""
    n = len(ins)
    # the generator prologue
    if n >= 2 and ins[0].op == "RETURN_GENERATOR" and ins[1].op == "POP_TOP":
        remove.update((0, 1))

    # the 3.12+ StopIteration -> RuntimeError wrapper handler
    for _, _, t, _, _ in entries:
        if (
            t + 1 < n
            and ins[t].op == "CALL_INTRINSIC_1"
            and _intrinsic(ins[t]) == "INTRINSIC_STOPITERATION_ERROR"
            and ins[t + 1].op == "RERAISE"
        ):
            drop_handlers.add(t)
            remove.update((t, t + 1))

    # async generators wrap every yielded value
    for k in range(n - 1):
        i = ins[k]
        if ins[k + 1].op == "YIELD_VALUE" and (
            i.op == "ASYNC_GEN_WRAP"
            or (i.op == "CALL_INTRINSIC_1" and _intrinsic(i) == "INTRINSIC_ASYNC_GEN_WRAP")
        ):
            remove.add(k)


def _suspension_loops(ins: list[Instr], remove: set[int]) -> None:
    """Each ``yield from``/``await`` suspension loop becomes one ``YIELD_FROM``."""
    n = len(ins)
    for k in range(n - 1):
        i = ins[k]
        if not (i.op == "LOAD_CONST" and i.argval is None) or k in remove:
            continue
        nxt = ins[k + 1]
        if not TABLE.yield_from_is_send:
            if nxt.op == "YIELD_FROM":
                _pseudo(i, "YIELD_FROM")
                remove.add(k + 1)
            continue
        if nxt.op != "SEND" or k + 3 >= n:
            continue
        t = nxt.target
        y, j = ins[k + 2], ins[k + 3]
        if not (y.op == "YIELD_VALUE" and j.op == "JUMP" and j.target == k + 1 and t is not None):
            continue
        group = {k + 1, k + 2, k + 3}
        if TABLE.has_end_send:
            # [CLEANUP_THROW inline]; END_SEND at the SEND target
            if not (t < n and ins[t].op == "END_SEND"):
                continue
            between = set(range(k + 4, t))
            if between and not (len(between) == 1 and ins[k + 4].op == "CLEANUP_THROW"):
                continue
            group |= between | {t}
        elif t != k + 4:
            continue
        _pseudo(i, "YIELD_FROM")
        remove |= group


def _cleanup_throws(
    ins: list[Instr], entries: list[Entry], remove: set[int], drop_handlers: set[int]
) -> list[tuple[Instr, int]]:
    """The out-of-line CLEANUP_THROW handlers (3.12+: ``CLEANUP_THROW; JUMP END_SEND``) go;
    gives each with the ``YIELD_FROM`` it serves."""
    n = len(ins)
    cold: list[tuple[Instr, int]] = []
    for k in range(n):
        if ins[k].op == "CLEANUP_THROW":
            if k not in remove:
                remove.add(k)
                if k + 1 < n and ins[k + 1].op == "JUMP" and ins[k + 1].target in remove:
                    remove.add(k + 1)
            drop_handlers.add(k)
            # which suspension it serves: the entry sending its YIELD_VALUE here
            for s0, _, t, _, _ in entries:
                if t == k and s0 >= 2 and ins[s0 - 2].op == "YIELD_FROM":
                    cold.append((ins[s0 - 2], k))
    return cold


def _kept_after(k: int, n: int, remove: set[int]) -> int:
    """The first instruction after ``k`` that is not being removed."""
    k += 1
    while k < n and k in remove:
        k += 1
    return k


def _async_with(ins: list[Instr], remove: set[int]) -> None:
    """async with: the awaits of __aenter__/__aexit__ go, leaving the shape of a plain with
    (3.11+: whose BEFORE_WITH says it is async)."""
    n = len(ins)
    if not TABLE.yield_from_is_send:
        # BEFORE_ASYNC_WITH; GET_AWAITABLE; YIELD_FROM; SETUP_ASYNC_WITH -> SETUP_WITH, and
        # the awaits after the __aexit__ calls (CALL_FUNCTION 3 / WITH_EXCEPT_START)
        for k in range(n):
            i = ins[k]
            if k in remove or i.op not in (
                "BEFORE_ASYNC_WITH",
                "CALL_FUNCTION",
                "WITH_EXCEPT_START",
            ):
                continue
            a = _kept_after(k, n, remove)
            y = _kept_after(a, n, remove)
            if not (a < n and ins[a].op == "GET_AWAITABLE" and y < n and ins[y].op == "YIELD_FROM"):
                continue
            if i.op == "BEFORE_ASYNC_WITH":
                w = _kept_after(y, n, remove)
                if not (w < n and ins[w].op == "SETUP_ASYNC_WITH"):
                    continue
                _pseudo(i, "NOP_ASYNC_WITH")
                remove.add(k)
                ins[w].op = "SETUP_WITH"
                ins[w].extra["async"] = True
            elif i.op == "CALL_FUNCTION" and not (
                i.arg == 3
                and k >= 3
                and ins[k - 3].op == "LOAD_CONST"
                and ins[k - 3].argval is None
                and ins[k - 2].op == "COPY"
                and ins[k - 1].op == "COPY"
            ):
                continue
            remove.update((a, y))
    if TABLE.yield_from_is_send:
        for k in range(n):
            i = ins[k]
            if k in remove or i.op not in ("BEFORE_ASYNC_WITH", "GET_AWAITABLE"):
                continue
            a = _kept_after(k, n, remove) if i.op == "BEFORE_ASYNC_WITH" else k
            y = _kept_after(a, n, remove)
            if not (
                a < n
                and ins[a].op == "GET_AWAITABLE"
                and ins[a].arg == (1 if i.op == "BEFORE_ASYNC_WITH" else 2)
                and y < n
                and ins[y].op == "YIELD_FROM"
            ):
                continue
            if i.op == "BEFORE_ASYNC_WITH":
                _pseudo(i, "BEFORE_WITH")
                i.extra["async"] = True
            remove.update((a, y))


def _async_for_heads(ins: list[Instr], entries: list[Entry], remove: set[int], drop_handlers: set[int]) -> None:
    """Each ``async for`` head becomes a ``FOR_ITER`` marked async, whose target is where the
    loop continues when exhausted."""
    n = len(ins)
    reach = None
    for k in range(n - 1):
        i = ins[k]
        y = _kept_after(k, n, remove)
        if i.op != "GET_ANEXT" or y >= n or ins[y].op != "YIELD_FROM" or k in remove:
            continue
        if not TABLE.yield_from_is_send:
            b = _kept_after(y, n, remove)
            s = ins[k - 1] if k else None
            if not (
                s is not None
                and s.op == "SETUP_FINALLY"
                and s.target is not None
                and ins[s.target].op == "END_ASYNC_FOR"
                and b < n
                and ins[b].op == "POP_BLOCK"
            ):
                continue
            end = s.target
            plumbing = {k - 1, y, b, end}
            head_latch = k - 1
        else:
            cover = [e for e in entries if e[0] <= k < e[1]]
            if len(cover) != 1 or ins[cover[0][2]].op != "END_ASYNC_FOR":
                continue
            end = cover[0][2]
            plumbing = {y, end}
            head_latch = k
            drop_handlers.add(end)
        # the back edge of the loop, and where exhaustion continues
        latches = [
            j.index for j in ins if j.op == "JUMP" and j.target == head_latch and j.index > k
        ]
        if not latches:
            continue
        latch = max(latches)
        if reach is None:
            reach = cfg.reach(ins, [0], cfg.PLAIN_FLOW).reached
        if any(q in reach and q not in remove for q in range(latch + 1, end)):
            continue  # the exhaustion path was moved away from reachable code
        exit_ = end + 1
        if (
            exit_ < n
            and ins[exit_].op == "JUMP"
            and ins[exit_].target is not None
            and ins[exit_].target > exit_
            and not any(q in reach and q not in remove for q in range(exit_ + 1, ins[exit_].target))
            # (not a try's jump over its handlers: a try around the loop, 3.11)
            and not any(exit_ < e[2] < ins[exit_].target for e in entries)
        ):
            plumbing.add(exit_)
            exit_ = ins[exit_].target
        _pseudo(i, "FOR_ITER")
        i.extra["async"] = True
        i.target = exit_
        remove |= plumbing


def _without_plumbing(
    ins: list[Instr],
    entries: list[Entry],
    remove: set[int],
    drop_handlers: set[int],
    cold: list[tuple[Instr, int]],
) -> tuple[list[Instr], list[Entry]]:
    """The instructions without those removed; the exception-table entries without the
    plumbing handlers', the rest remapped."""
    n = len(ins)
    new_index: list[int] = []
    kept = 0
    for k in range(n + 1):
        new_index.append(kept)
        if k < n and k not in remove:
            kept += 1
    out_entries = []
    for s, e, t, d, lasti in entries:
        if t in drop_handlers:
            continue
        s2, e2 = new_index[s], new_index[e]
        if s2 >= e2:
            continue
        out_entries.append((s2, e2, new_index[t], d, lasti))
    # 3.12+: where the compiler put each suspension's (cold) CLEANUP_THROW block.  Cold
    # blocks keep source order, so this tells whether an await/yield from was compiled
    # before or after a try's handlers (an else clause comes before them).
    for pseudo, k in cold:
        pseudo.extra["cleanup_at"] = new_index[k]
    return remove_instructions(ins, remove), out_entries


def _intrinsic(i: Instr) -> str:
    """The name of a CALL_INTRINSIC_1 function, from argval or the oparg."""
    if isinstance(i.argval, str) and i.argval:
        return i.argval
    names = getattr(dis, "_intrinsic_1_descs", ())
    return names[i.arg] if isinstance(i.arg, int) and 0 <= i.arg < len(names) else ""


def _pseudo(i: Instr, op: str) -> None:
    i.op = op
    i.arg = None
    i.argval = None
    i.raw = i.raw or op


# ---------------------------------------------------------------------------- markers
@dataclass(eq=False)
class YieldFromIter(V.Marker):
    """GET_YIELD_FROM_ITER's result: delegated to by the following YIELD_FROM."""

    value: ast.expr


@dataclass(eq=False)
class Awaitable(V.Marker):
    """GET_AWAITABLE's result: awaited by the following YIELD_FROM."""

    value: ast.expr
    kind: int = 0


def is_async_code(code: Any) -> bool:
    return bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))


# ---------------------------------------------------------------------------- handlers
class GeneratorOps:
    """Walker mixin: opcode handlers of generators and coroutines."""

    def op_YIELD_VALUE(self, ins: Instr, stack: list) -> None:
        v = self.pop_expr(stack, ins)
        if isinstance(v, ast.Constant) and v.value is None:
            v = None  # `yield` and `yield None` compile alike
        stack.append(ast.Yield(value=v))

    def op_GET_YIELD_FROM_ITER(self, ins: Instr, stack: list) -> None:
        stack.append(YieldFromIter(self.pop_expr(stack, ins)))

    def op_GET_AWAITABLE(self, ins: Instr, stack: list) -> None:
        kind = ins.arg if TABLE.get_awaitable_has_kind else 0
        if kind:
            raise self.fail("async with is not supported yet", ins, kind=Refusal.UNSUPPORTED)
        stack.append(Awaitable(self.pop_expr(stack, ins), kind or 0))

    def op_GET_AITER(self, ins: Instr, stack: list) -> None:
        it = V.Iterator(self.pop_expr(stack, ins))
        it.is_async = True
        stack.append(it)

    def op_YIELD_FROM(self, ins: Instr, stack: list) -> None:
        if not stack:
            raise self.fail("stack underflow", ins, kind=Refusal.STACK)
        v = stack.pop()
        if isinstance(v, YieldFromIter):
            stack.append(ast.YieldFrom(value=v.value))
        elif isinstance(v, Awaitable):
            if getattr(v.value, "implicit_await", False):
                # a 3.9-3.11 comprehension function that is itself a coroutine:
                # the await belongs to the comprehension, not to the source
                v.value.implicit_await = False
                stack.append(v.value)
            else:
                stack.append(ast.Await(value=v.value))
        else:
            raise self.fail("yield from without an iterator or awaitable", ins, kind=Refusal.GENERATOR)


# ---------------------------------------------------------------------------- bodies
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
)


def _own_nodes(body: list[ast.stmt]):
    """The nodes of a function body, not those of the scopes nested in it."""
    work: list[ast.AST] = list(body)
    while work:
        node = work.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _SCOPES):
                work.append(child)


def finish_generator_body(code: Any, body: list[ast.stmt]) -> list[ast.stmt]:
    """Make a generator's body say it is one.

    A ``yield`` the compiler removed as dead code (``return x; yield``) still made
    the function a generator: when none is left, ``if False: yield`` (which
    compiles to nothing) keeps the flag.  In an async generator ``return None``
    is a syntax error where ``return`` is not, and both compile alike.
    """
    flags = code.co_flags
    if not flags & (CO_GENERATOR | CO_ASYNC_GENERATOR):
        return body
    has_yield = False
    for node in _own_nodes(body):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            has_yield = True
        if (
            flags & CO_ASYNC_GENERATOR
            and isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant)
            and node.value.value is None
        ):
            node.value = None
    if not has_yield:
        dead = ast.If(
            test=ast.Constant(value=False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[]
        )
        body = [s for s in body if not isinstance(s, ast.Pass)] + [dead]
    return body
