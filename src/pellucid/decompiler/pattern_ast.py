"""The ``ast`` pattern of the :class:`~pattern_reader.Slot` a pattern's code was read into;
compiling it again gives the same instructions (the verification checks that).
"""

from __future__ import annotations

import ast

from pellucid.decompiler.pattern_reader import NoMatch, Slot


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
            patterns=[build_pattern(v) if v is not None else wildcard() for v in s.values],
            rest=s.rest,
        )
    elif s.kind == "class":
        attrs = [build_pattern(a) if a is not None else wildcard() for a in s.attrs]
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
    return p if p is not None else wildcard()


def wildcard() -> ast.MatchAs:
    return ast.MatchAs(pattern=None, name=None)


def _sequence_items(s: Slot) -> list[ast.pattern]:
    if s.size is None:
        if s.items:
            raise NoMatch("sequence items without a length")
        return [ast.MatchStar(name=None)]  # [*_]
    if s.star_index is not None:  # unpacked: every item is there
        return [build_pattern(s.items[k]) for k in range(s.size)]
    if not s.star:
        return [build_pattern(s.items[k]) if k in s.items else wildcard() for k in range(s.size)]
    # a wildcard star read by subscripts: it sits between the items read from the
    # front and those read from the back (any such place compiles the same)
    front = [k for k in s.items if all(k < j or j in s.items for j in range(k))]
    star = max(front) + 1 if front else 0
    out: list[ast.pattern] = []
    for k in range(s.size):
        if k == star:
            out.append(ast.MatchStar(name=None))
        else:
            out.append(build_pattern(s.items[k]) if k in s.items else wildcard())
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
