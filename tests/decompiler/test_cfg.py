"""The CFG layer: blocks partition the instructions, edges are typed, dominators and
post-dominators agree with the textbook data-flow definition, natural loops are found."""

from __future__ import annotations

import importlib.util
import types

import pytest

from pellucid.decompiler.cfg import EdgeKind, build, dominators, natural_loops, post_dominators
from pellucid.decompiler.cfg.dominators import EXIT
from pellucid.decompiler.instructions import exception_entries, flow_reachable, normalize


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


@pytest.mark.parametrize("code", _stdlib_codes(), ids=lambda c: c.co_name)
def test_reach_along_normal_flow_is_the_instruction_flood(code):
    ins = normalize(code)
    cfg = build(ins)
    plain = frozenset({EdgeKind.FALL, EdgeKind.JUMP, EdgeKind.BRANCH})
    seen, _ = cfg.reach([0], plain)
    assert seen == flow_reachable(ins)
