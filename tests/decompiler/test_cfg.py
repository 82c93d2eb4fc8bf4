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
    reach_in_turn,
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


def test_reach_within_a_range_reports_where_it_was_kept_out():
    ins = normalize(nested_loops.__code__)
    n = len(ins)
    assert reach(ins, [0]).reached == set(range(n))  # (no dead code in it)
    half = n // 2
    inside = reach(ins, [0], within=(0, half))
    assert inside.reached and all(k < half for k in inside.reached)
    assert inside.left and all(k >= half for k in inside.left)
    for k in inside.left:  # each one an edge from inside leads to
        assert any(k in (j + 1, ins[j].target) for j in inside.reached)
    # a partition's part is the same question
    labels = ["front" if k < half else "back" for k in range(n)]
    same = reach(ins, [0], part_of=labels, part="front")
    assert (same.reached, same.left) == (inside.reached, inside.left)


def test_reach_avoids_the_instructions_named():
    ins = normalize(nested_loops.__code__)
    inner = [i.index for i in ins if i.op == "FOR_ITER"][0]
    found = reach(ins, [0], avoid={inner})
    assert inner not in found.reached and inner in found.left
    body = reach(ins, [inner + 1], avoid={inner}).reached  # (the inner loop's body)
    assert not body & found.reached


def test_reach_runs_the_jumps_stop_jump_names_and_follows_none_of_their_edges():
    ins = normalize(nested_loops.__code__)
    found = reach(ins, [0], stop_jump=lambda k: True)
    jumps = {i.index for i in ins if i.op == "JUMP"}
    assert found.ended and set(found.ended) == jumps & found.reached
    without_jumps = reach(ins, [0], NORMAL_FLOW - {EdgeKind.JUMP})
    assert found.reached == without_jumps.reached
    assert reach(ins, [0], stop_jump=lambda k: True).ended == found.ended  # (the same order)
    # only the named ones stop
    back = {k for k in jumps if ins[k].target < k}
    some = reach(ins, [0], stop_jump=lambda k: k in back)
    assert set(some.ended) <= back and some.reached == reach(ins, [0]).reached


def test_reach_follows_only_the_edge_kinds_asked_for():
    ins = normalize(if_else.__code__)
    test = next(i.index for i in ins if i.op.startswith("POP_JUMP"))
    along_falls = reach(ins, [0], frozenset({EdgeKind.FALL})).reached
    assert ins[test].target not in along_falls or ins[test].target == test + 1
    assert test + 1 in along_falls
    branch_only = reach(ins, [test], frozenset({EdgeKind.BRANCH})).reached
    assert (
        branch_only == {test} | reach(ins, [ins[test].target], frozenset({EdgeKind.BRANCH})).reached
    )


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


@pytest.mark.parametrize("code", _stdlib_codes(100), ids=lambda c: c.co_name)
def test_reach_in_turn_gives_each_instruction_to_the_first_start_reaching_it(code):
    ins = normalize(code)
    n = len(ins)
    handlers = sorted({h for h in _handler_of(code, ins) if h is not None})
    targets = sorted({i.target for i in ins if i.target is not None and i.target < n})
    seeds = [(0, -1)] + [(h, h) for h in handlers] + [(t, -2) for t in targets]
    for kinds in (NORMAL_FLOW, PLAIN_FLOW):
        owner: list = [None] * (n + 1)
        reach_in_turn(ins, seeds, owner, kinds)
        one_by_one: list = [None] * (n + 1)
        for start, tag in seeds:
            for k in reach(ins, [start], kinds, part_of=one_by_one, part=None).reached:
                one_by_one[k] = tag
        assert owner == one_by_one
