"""The CFG layer: blocks partition the instructions, edges are typed, dominators and
post-dominators agree with the textbook data-flow definition, natural loops are found."""

from __future__ import annotations

import importlib.util
import types

import pytest

from pellucid.decompiler.cfg import (
    NORMAL_FLOW,
    PLAIN_FLOW,
    EdgeKind,
    build,
    dominators,
    natural_loops,
    post_dominators,
    reach,
)
from pellucid.decompiler.cfg.dominators import EXIT
from pellucid.decompiler.instructions import exception_entries, normalize


def _handler_of(code: types.CodeType, ins) -> list:
    handler = [None] * len(ins)
    for start, end, target, _depth, _lasti in exception_entries(code, ins):
        for k in range(start, min(end, len(ins))):
            handler[k] = target
    return handler


def _cfg(fn):
    ins = normalize(fn.__code__)
    return ins, build(ins, _handler_of(fn.__code__, ins))


def if_else(a):
    if a:
        b = 1
    else:
        b = 2
    return b


def nested_loops(n):
    total = 0
    i = 0
    while i < n:
        for j in range(i):
            total += j
        i += 1
    return total


def with_try(a):
    try:
        a = a + 1
    except ValueError:
        a = 0
    return a


def _stdlib_codes(limit: int = 400):
    out = []
    for name in ("json.decoder", "difflib", "argparse", "tokenize"):
        spec = importlib.util.find_spec(name)
        with open(spec.origin, encoding="utf-8") as f:
            work = [compile(f.read(), spec.origin, "exec")]
        while work:
            code = work.pop()
            out.append(code)
            work.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return out[:limit]


def test_blocks_partition_the_instructions_and_end_with_the_empty_end_block():
    ins, cfg = _cfg(nested_loops)
    covered = [k for b in cfg.blocks for k in range(b.start, b.end)]
    assert covered == list(range(len(ins)))
    assert cfg.end.start == cfg.end.end == len(ins)
    for b in cfg.blocks[:-1]:
        assert all(cfg.block_of[k] == b.index for k in range(b.start, b.end))
        # only a block's last instruction jumps
        assert all(ins[k].target is None for k in range(b.start, b.end - 1))


def test_an_if_else_has_a_branch_a_fall_through_and_a_jump_to_the_join():
    ins, cfg = _cfg(if_else)
    test = cfg.blocks[cfg.block_of[next(i.index for i in ins if i.op.startswith("POP_JUMP"))]]
    kinds = sorted(e.kind.value for e in test.succs)
    assert kinds == ["branch", "fall"]
    dom = dominators(cfg)
    pdom = post_dominators(cfg)
    arms = [e.target for e in test.succs]
    assert all(dom.dominates(test.index, a) for a in arms)
    returns = [cfg.block_of[i.index] for i in ins if i.op == "RETURN_VALUE"]
    if len(returns) == 1:
        # the join: both arms go on to the return, which post-dominates the test
        assert pdom.idom[test.index] == returns[0]
        assert all(pdom.dominates(returns[0], a) for a in arms)
    else:
        # the compiler copied the return into each arm (3.10+): nothing joins
        assert sorted(returns) == sorted(arms)
        assert pdom.idom[test.index] == EXIT


def test_exception_edges_go_to_the_handler():
    ins, cfg = _cfg(with_try)
    if not any(e.kind in (EdgeKind.EXCEPTION, EdgeKind.SETUP) for b in cfg.blocks for e in b.succs):
        pytest.fail("no exception edge to the handler")


def test_nested_loops_are_two_natural_loops_the_inner_inside_the_outer():
    _, cfg = _cfg(nested_loops)
    loops = natural_loops(cfg)
    assert len(loops) == 2
    inner, outer = loops
    assert outer.contains(inner) and not inner.contains(outer)
    dom = dominators(cfg)
    for lp in loops:
        assert all(dom.dominates(lp.header, b) for b in lp.body)
        assert all(lp.header in cfg.successors(latch) for latch in lp.latches)


def _dataflow_dominators(cfg, preds, root, nodes):
    """Dom(root) = {root}; Dom(b) = {b} | intersection of Dom(p) over predecessors p."""
    dom = {b: set(nodes) for b in nodes}
    dom[root] = {root}
    changed = True
    while changed:
        changed = False
        for b in nodes:
            if b == root:
                continue
            ps = [p for p in preds(b) if p in nodes]
            new = {b} | (set.intersection(*(dom[p] for p in ps)) if ps else set())
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


@pytest.mark.parametrize("code", _stdlib_codes(), ids=lambda c: c.co_name)
def test_dominators_and_post_dominators_agree_with_the_dataflow_definition(code):
    ins = normalize(code)
    cfg = build(ins, _handler_of(code, ins))
    dom = dominators(cfg)
    reached = {b for b in range(len(cfg.blocks)) if dom.idom[b] is not None}
    sets = _dataflow_dominators(cfg, cfg.predecessors, 0, reached)
    for b in reached:
        assert {a for a in reached if dom.dominates(a, b)} == sets[b], b
    pdom = post_dominators(cfg)
    exits = {b for b in range(len(cfg.blocks)) if not cfg.successors(b)}
    # the reversed graph rooted at a virtual exit (EXIT) that every exit block leads to
    nodes = {b for b in range(len(cfg.blocks)) if pdom.idom[b] is not None} | {EXIT}

    def rpreds(b):
        return [EXIT] if b in exits else cfg.successors(b)

    psets = _dataflow_dominators(cfg, rpreds, EXIT, nodes)
    for b in nodes - {EXIT}:
        assert {a for a in nodes - {EXIT} if pdom.dominates(a, b)} | {EXIT} == psets[b], b


def _flags(found: set, n: int) -> list:
    return [k in found for k in range(n + 1)]


@pytest.mark.parametrize("code", _stdlib_codes(), ids=lambda c: c.co_name)
def test_reach_on_blocks_is_reach_on_the_instructions(code):
    ins = normalize(code)
    n = len(ins)
    handler = _handler_of(code, ins)
    with_exc = PLAIN_FLOW | {EdgeKind.EXCEPTION}
    for kinds in (PLAIN_FLOW, NORMAL_FLOW, with_exc):
        seen, _ = build(ins, handler).reach([0], kinds)
        assert seen == _flags(reach(ins, [0], kinds, handler_of=handler).reached, n), kinds
    # from the middle of a block too: the rest of it runs
    starts = [0, *(k for k in range(n) if ins[k].target is not None)][:5]
    seen, _ = build(ins, handler).reach(starts, with_exc)
    assert seen == _flags(reach(ins, starts, with_exc, handler_of=handler).reached, n)


def test_reach_enters_only_where_let_in_and_reports_where_it_was_kept_out():
    ins = normalize(nested_loops.__code__)
    n = len(ins)
    everything = reach(ins, [0]).reached
    assert everything == set(range(n))  # (no dead code in it)
    # confined to the first half: nothing past it, and the edges that left it are reported
    half = n // 2
    inside = reach(ins, [0], enter=lambda k: k < half)
    assert inside.reached and all(k < half for k in inside.reached)
    assert inside.left and all(k >= half for k in inside.left)
    for k in inside.left:
        assert any(k in (j + 1, ins[j].target) for j in inside.reached)


def test_reach_stops_after_the_instructions_stop_names():
    ins = normalize(if_else.__code__)
    test = next(i.index for i in ins if i.op.startswith("POP_JUMP"))
    found = reach(ins, [0], stop=lambda k: k == test)
    assert found.ended == [test]
    assert found.reached == set(range(test + 1))
    assert not found.left


def test_reach_follows_only_the_edge_kinds_asked_for():
    ins = normalize(if_else.__code__)
    test = next(i.index for i in ins if i.op.startswith("POP_JUMP"))
    along_falls = reach(ins, [0], frozenset({EdgeKind.FALL})).reached
    assert ins[test].target not in along_falls or ins[test].target == test + 1
    assert test + 1 in along_falls
    branch_only = reach(ins, [test], frozenset({EdgeKind.BRANCH})).reached
    assert branch_only == {test} | reach(ins, [ins[test].target], frozenset({EdgeKind.BRANCH})).reached


def test_reach_follows_exception_edges_only_with_handlers_given():
    code = with_try.__code__
    ins = normalize(code)
    handler = _handler_of(code, ins)
    handlers = {h for h in handler if h is not None}
    if not handlers:
        pytest.skip("3.9/3.10: a SETUP_FINALLY's target is the handler, no table")
    with_exc = PLAIN_FLOW | {EdgeKind.EXCEPTION}
    assert handlers <= reach(ins, [0], with_exc, handler_of=handler).reached
    assert not handlers & reach(ins, [0], PLAIN_FLOW, handler_of=handler).reached
    assert not handlers & reach(ins, [0], with_exc).reached
