"""Pure helpers of the structuring: tests rebuilt from jump chains, and statement lists.

A condition compiles to a chain of conditional jumps (:class:`Block`); :func:`_build` finds the
and/or/ternary expression whose exits are the chain's (``_build_test`` keeps the ``is``/``in``
operators the bytecode has), :func:`_negate` negates a test as CPython folds it.  The rest are
small predicates on values and statement lists that several readings share; none of them
looks at a walker.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.evaluate import InPlace
from pellucid.decompiler.instructions import JUMPS_FOLD_NOT_INTO_COMPARE, TABLE


@dataclass(eq=False)
class Block:
    """One block of a condition chain: evaluate ``expr``, jump if it is ``when``."""

    expr: ast.expr
    when: bool
    target: int
    start: int
    jump: int
    # where falling through leads when a forward jump follows the test (the
    # first arm of `x if c else y` used as a test jumps over the second)
    fall: int | None = None
    # whether that fall is a jump (a ternary arm's end), not a copy of the code it reaches
    jumps: bool = False
    # whether that jump goes to the next instruction, over a folded constant arm
    folded: bool = False


def _same_constants(values: list[Any]) -> bool:
    """Are all ``values`` constants of one type and value (``0`` is not ``False`` or ``0.0``,
    ``0.0`` is not ``-0.0``)?"""
    if not all(type(v) is ast.Constant for v in values):
        return False
    key = (type(values[0].value), repr(values[0].value))
    return all((type(v.value), repr(v.value)) == key for v in values)


def _is_value(v: Any) -> bool:
    """A real expression (not a marker, not half of an augmented assignment)."""
    return isinstance(v, ast.expr) and not isinstance(v, InPlace)


def _is_arm_value(v: Any) -> bool:
    """An arm of a conditional expression: an expression, or a function MAKE_FUNCTION made
    (a lambda, which only a store would turn into a def)."""
    return _is_value(v) or type(v) is V.FunctionValue


_INVERSE_CMP = (
    {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
    if JUMPS_FOLD_NOT_INTO_COMPARE
    else {}
)


def _negate(e: ast.expr) -> ast.expr:
    """Logical negation as CPython folds it (`not a is b` is `a is not b`)."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _INVERSE_CMP:
        flipped = ast.Compare(
            left=e.left, ops=[_INVERSE_CMP[type(e.ops[0])]()], comparators=e.comparators
        )
        flipped.flipped = not getattr(e, "flipped", False)
        return flipped
    return ast.UnaryOp(op=ast.Not(), operand=e)


def _negate_test(e: ast.expr) -> ast.expr:
    """Negation of a test whose value only steers a jump (an assert's): `not (not a or not
    b)` is `a and b` there, and compiles to the same jumps."""
    if isinstance(e, ast.BoolOp) and all(isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not) for v in e.values):
        op = ast.And() if isinstance(e.op, ast.Or) else ast.Or()
        return ast.BoolOp(op=op, values=[v.operand for v in e.values])
    return _negate(e)


def _flips(e: ast.expr) -> int:
    """`is`/`in` tests whose operator the jumps' polarity inverted."""
    return sum(1 for n in ast.walk(e) if getattr(n, "flipped", False))


def _build_test(chain: list[Block], hi: int, t_true: int, t_false: int, starts: list[int]):
    """The chain's test, as `not (...)` when that keeps the `is`/`in` operators
    the bytecode has (`not (a is b and c is d)`, not De Morgan's form)."""
    expr = _build(chain, 0, hi, t_true, t_false, starts)
    if expr is None or hi < 2 or not _flips(expr):
        return expr
    alt = _build(chain, 0, hi, t_false, t_true, starts)
    if alt is not None and isinstance(alt, ast.BoolOp) and _flips(alt) < _flips(expr):
        return ast.UnaryOp(op=ast.Not(), operand=alt)
    return expr


def _boolop(op: ast.boolop, left: ast.expr, right: ast.expr) -> ast.BoolOp:
    values = []
    for v in (left, right):
        if isinstance(v, ast.BoolOp) and type(v.op) is type(op) and v is right:
            values.extend(v.values)
        else:
            values.append(v)
    return ast.BoolOp(op=op, values=values)


def _chained_compare(left: ast.expr, right: ast.expr | None, stack: list) -> ast.Compare | None:
    """``a < b < c``: left is Compare(a, b) whose last operand is also on the stack."""
    if not (isinstance(left, ast.Compare) and stack):
        return None
    shared = stack[-1]
    if left.comparators[-1] is not shared:
        return None
    if right is None or not isinstance(right, ast.Compare) or right.left is not shared:
        return None
    return ast.Compare(
        left=left.left, ops=left.ops + right.ops, comparators=left.comparators + right.comparators
    )


def _has_ifexp(e: ast.expr) -> bool:
    return any(isinstance(n, ast.IfExp) for n in ast.walk(e))


def _exits(b: Block) -> tuple[int, ...]:
    return (b.target,) if b.fall is None else (b.target, b.fall)


def _build(chain: list[Block], lo: int, hi: int, t_true: int, t_false: int, starts: list[int], arm: bool = False):
    """Rebuild the boolean expression of chain[lo:hi] whose exits are t_true/t_false (``arm``:
    inside a conditional expression's arm, where a test may have one exit, see _one_exit)."""
    if hi - lo == 1:
        b = chain[lo]
        fall = starts[hi] if b.fall is None else b.fall
        if b.when:
            exits = (b.target, fall)
        else:
            exits = (fall, b.target)
        if exits == (t_true, t_false):
            return b.expr
        if exits == (t_false, t_true):
            return _negate(b.expr)
        return _one_exit(b, fall, t_true, t_false) if arm else None
    arm_ends = any(chain[m].folded for m in range(lo, hi))
    if arm_ends:
        # a jump over a folded constant arm ends a conditional expression's first arm, which
        # an and/or does not compile to: read the ternary first
        ternary = _build_ternary(chain, lo, hi, t_true, t_false, starts, arm)
        if ternary is not None:
            return ternary
    for k in range(lo + 1, hi):
        inner = set(starts[lo + 1 : k])
        sk = starts[k]
        outs = {t for m in range(lo, k) for t in _exits(chain[m]) if t not in inner and t != sk}
        if not outs and arm and k == lo + 1 and not chain[lo].jumps:
            # `(c or 7) and a` inside an arm: c's jump and fall both reach a (_one_exit)
            # (`(c and 0) or a` when c's jump is taken on false)
            b = chain[lo]
            fall = starts[k] if b.fall is None else b.fall
            left = _one_exit(b, fall, sk, -2) if b.when else _one_exit(b, fall, -2, sk)
            right = _build(chain, k, hi, t_true, t_false, starts, arm) if left is not None else None
            if right is not None:
                return _boolop(ast.And() if b.when else ast.Or(), left, right)
            continue
        if len(outs) != 1:
            continue
        (x,) = outs
        if x == t_true and any(chain[m].jumps and chain[m].fall == x for m in range(lo, k)):
            continue  # an arm's jump to an exit ends a constant arm: no and/or's short-circuit
        if x == t_false:
            left = _build(chain, lo, k, sk, t_false, starts, arm)
            if left is None:
                continue
            right = _build(chain, k, hi, t_true, t_false, starts, arm)
            if right is None:
                continue
            return _boolop(ast.And(), left, right)
        if x == t_true:
            left = _build(chain, lo, k, t_true, sk, starts, arm)
            if left is None:
                continue
            right = _build(chain, k, hi, t_true, t_false, starts, arm)
            if right is None:
                continue
            return _boolop(ast.Or(), left, right)
    return None if arm_ends else _build_ternary(chain, lo, hi, t_true, t_false, starts, arm)


def _one_exit(b: Block, fall: int, t_true: int, t_false: int) -> ast.expr | None:
    """`g or 10` in an arm of a conditional expression used as a test: the truthy constant is
    folded away, g's jump and its fall both reach the true exit (`g and 0`: the false one).
    Spelled with the jump's own polarity (`not g or True` jumps when g is false)."""
    if b.target != fall or fall not in (t_true, t_false) or b.jumps:
        return None
    if (fall == t_true) == b.when:
        expr = b.expr
    else:
        expr = _negate(b.expr)
    if fall == t_true:
        return ast.BoolOp(op=ast.Or(), values=[expr, ast.Constant(True)])
    return ast.BoolOp(op=ast.And(), values=[expr, ast.Constant(False)])


def _build_ternary(
    chain: list[Block], lo: int, hi: int, t_true: int, t_false: int, starts: list[int], arm: bool = False
):
    """`x if c else y` as a test: c picks an arm, and each arm jumps to the
    test's own exits; the first arm ends in a jump over the second."""
    for m in range(lo + 2, hi):
        if chain[m - 1].fall not in (t_true, t_false):
            continue
        for k in range(lo + 1, m):
            test = _build(chain, lo, k, starts[k], starts[m], starts)
            if test is None:
                continue
            body = _build(chain, k, m, t_true, t_false, starts, True)
            orelse = _build(chain, m, hi, t_true, t_false, starts, True) if body is not None else None
            if orelse is not None:
                return ast.IfExp(test=test, body=body, orelse=orelse)
    for k in range(lo + 1, hi):
        # `1 if c else y`: the constant arm is folded away, c's true path jumps straight to
        # the true exit (an arm's start the test alone enters: see condition_chain)
        x = chain[k - 1].fall
        if x != t_true or not chain[k - 1].jumps:
            continue  # (a jump to the false exit is `if c: pass` / `elif y:`)
        test = _build(chain, lo, k, x, starts[k], starts)
        orelse = _build(chain, k, hi, t_true, t_false, starts, True) if test is not None else None
        if orelse is not None:
            return ast.IfExp(test=test, body=ast.Constant(True), orelse=orelse)
    if chain[hi - 1].folded and chain[hi - 1].fall in (t_true, t_false):
        # `c if c else 1`: the constant arm after the jump over it is folded away, c's false
        # path goes straight to the exit the constant's truth picks
        for k in range(lo + 1, hi):
            for x in (t_true, t_false):
                test = _build(chain, lo, k, starts[k], x, starts)
                body = _build(chain, k, hi, t_true, t_false, starts, True) if test is not None else None
                if body is not None:
                    return ast.IfExp(test=test, body=body, orelse=ast.Constant(x == t_true))
    return None


def _exits_at(follow: int, stop: int, exits: frozenset) -> frozenset:
    """Exits of a block that ends at ``follow``: the enclosing block's exits
    only when ``follow`` is where the enclosing block ends too."""
    if follow == stop or follow in exits:
        return frozenset({follow}) | exits
    return frozenset({follow})


def restore_final_else(body: list[ast.stmt]) -> None:
    """The code ended in `if ...: <terminal> else: <rest>`; put the else back.

    3.9 keeps the (dead) jump over an else after a raise, so an if ending in a
    raise that came back without an else had none."""
    terminal = (ast.Return,) if TABLE.keeps_dead_jumps else (ast.Return, ast.Raise)
    for k in range(len(body) - 2, -1, -1):
        node = body[k]
        if isinstance(node, ast.If) and not node.orelse and isinstance(node.body[-1], terminal):
            node.orelse = body[k + 1 :]
            del body[k + 1 :]
            return


def _explicit(node: ast.stmt) -> ast.stmt:
    node.explicit = True
    return node


def _falls_off(body: list[ast.stmt]) -> bool:
    """Can control fall off the end of the block?  Conservative: True unless its last
    statement leaves on every path (a jump, or an if/try all of whose ways out jump), so
    that a statement appended for the fall-through is at worst dead."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return False
    if isinstance(last, ast.If):
        return _falls_off(last.body) or _falls_off(last.orelse)
    if isinstance(last, ast.Try):
        if last.finalbody and not _falls_off(last.finalbody):
            return False
        body_goes_on = _falls_off(last.body) and _falls_off(last.orelse)
        return body_goes_on or any(_falls_off(hd.body) for hd in last.handlers)
    return True


def _trim_continue(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[-1], ast.Continue) and not getattr(body[-1], "explicit", False):
        body = body[:-1]
    return body or [ast.Pass()]
