"""Large FX graphs, collapsed by the source line each node came from.

A 500-node AOT joint graph drawn node by node is a strip no one reads. FX writes, above the
nodes it traced from one line of the user's code, a ``# File: path:line in fn, code: ...``
comment; nodes until the next comment came from the same line. One box per such line, with its
operation count, and one edge per pair of lines that pass a value, give a picture the size of
the user's own code, and the full picture stays one click away.
"""

from __future__ import annotations

from pellucid.report.fxgraph import FxGraph

__all__ = ["COLLAPSE_ABOVE", "short_location", "source_line_groups"]

COLLAPSE_ABOVE = 60  # nodes: larger graphs are shown collapsed first


def short_location(user_code: str) -> list[str]:
    """``/long/path/modeling_gpt2.py:312: x = self.attn(x)`` as two short lines for a box:
    ``modeling_gpt2.py:312`` and the code."""
    place, sep, code = user_code.partition(": ")
    path, _, line = place.rpartition(":")
    if not sep or not line.isdigit():
        return [user_code]
    return [f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}", code]


def source_line_groups(fx: FxGraph) -> tuple[list[tuple[str, str, list[str]]], list[tuple[str, str]]]:
    """``(groups, edges)``: each group is ``(id, label, node names)``, in graph order.

    The inputs (placeholders: arguments, parameters, buffers) form one group and the output
    one; an operation without a comment belongs to the line of the operation before it (FX
    comments a line once).
    """
    group_of: dict[str, str] = {}
    groups: dict[str, tuple[str, list[str]]] = {}
    current: str | None = None
    for n in fx.nodes:
        if n.op == "placeholder":
            key, label = "placeholder", "inputs"
        elif n.op == "output":
            key, label = "output", n.name
        elif n.user_code:
            key = label = n.user_code
        elif current is not None:
            key, label = current, groups[current][0]
        else:
            key, label = "(no source line)", "(no source line)"
        if n.op not in ("placeholder", "output"):
            current = key
        groups.setdefault(key, (label, []))[1].append(n.name)
        group_of[n.name] = key
    ids = {key: f"grp{k}" for k, key in enumerate(groups)}
    edges: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for a, b in fx.edges:
        ga, gb = group_of.get(a), group_of.get(b)
        if ga is None or gb is None or ga == gb:
            continue
        pair = (ids[ga], ids[gb])
        if pair not in seen:
            seen.add(pair)
            edges.append(pair)
    return [(ids[key], label, names) for key, (label, names) in groups.items()], edges
