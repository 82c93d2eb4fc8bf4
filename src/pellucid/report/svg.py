"""Draw a small directed graph as inline SVG: graphviz ``dot`` when installed, else our own layout.

Both engines take the same :class:`Node` / :class:`Edge` lists.  The built-in engine is a plain
layered layout (longest-path layers, a few barycenter sweeps to reduce crossings, curved
edges); it needs nothing installed and is good enough for the frame/graph-break pictures and
small FX graphs.  ``dot`` (Debian package ``graphviz``) draws large graphs more neatly; its output
is used only if it runs within a time limit, and every label we hand it is escaped for DOT (dot
escapes it again for XML).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from urllib.parse import quote

from pellucid.report.html import Markup, esc

__all__ = ["Edge", "Node", "dot_path", "render_graph"]

# fill, stroke per node kind
PALETTE = {
    "frame": ("#e8f0fe", "#3b6fd8"),
    "resume": ("#eef7ee", "#3a8f3a"),
    "graph": ("#fff7e0", "#b8860b"),
    "break": ("#fde8e8", "#c62828"),
    "recompile": ("#fff0e0", "#d9731a"),
    "failure": ("#fde8e8", "#c62828"),
    "placeholder": ("#e8f0fe", "#3b6fd8"),
    "output": ("#eef7ee", "#3a8f3a"),
    "op": ("#f6f6f6", "#777777"),
    "get_attr": ("#f3ecfb", "#7b4fb8"),
}
EDGE_COLORS = {"": "#666666", "break": "#c62828", "recompile": "#d9731a", "resume": "#3a8f3a"}

CHAR_W = 7.0
LINE_H = 15.0
PAD_X = 8.0
PAD_Y = 6.0
GAP_X = 22.0
GAP_Y = 38.0
MAX_LABEL = 48
DOT_MAX_NODES = 120  # "auto" uses the built-in layout above this
DOT_TIMEOUT_S = 5.0


@dataclass
class Node:
    id: str
    lines: list[str]
    kind: str = "op"
    href: str | None = None
    title: str | None = None


@dataclass
class Edge:
    src: str
    dst: str
    label: str | None = None
    kind: str = ""


@dataclass
class _Box:
    node: Node
    w: float
    h: float
    layer: int = 0
    x: float = 0.0
    y: float = 0.0
    preds: list[int] = field(default_factory=list)
    succs: list[int] = field(default_factory=list)


def _clip(text: str, limit: int = MAX_LABEL) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dot_path() -> str | None:
    """The graphviz ``dot`` executable, unless PELLUCID_NO_DOT is set."""
    if os.environ.get("PELLUCID_NO_DOT"):
        return None
    return shutil.which("dot")


def render_graph(
    nodes: list[Node],
    edges: list[Edge],
    engine: str = "auto",
    css_class: str = "graph",
    prefix: str = "g",
) -> Markup:
    """Inline SVG for the graph. ``engine``: ``"auto"`` (dot if installed and the graph small),
    ``"dot"`` (whenever installed), ``"builtin"``.

    ``prefix`` makes the ids inside the SVG unique on a page with several pictures.
    """
    if not nodes:
        return Markup("")
    prefix = _ID_SAFE.sub("_", prefix) or "g"
    # dot's layout time grows quickly with long edges (weights used far down an AOT graph):
    # 20-50 s for 350-node joint graphs. "auto" keeps it for pictures it draws in well under a second.
    small = len(nodes) <= DOT_MAX_NODES and len(edges) <= 2 * DOT_MAX_NODES
    if engine == "dot" or (engine == "auto" and small):
        dot = dot_path()
        if dot is not None:
            svg = _dot_svg(nodes, edges, dot, timeout=DOT_TIMEOUT_S if engine == "auto" else 60.0)
            if svg is not None:
                svg = _DOT_ID.sub(lambda m: f'{m.group(1)}="{prefix}-', svg)
                return Markup(f'<div class="{esc(css_class)} dot">{svg}</div>')
    return Markup(
        f'<div class="{esc(css_class)} builtin">{_builtin_svg(nodes, edges, prefix)}</div>'
    )


# ---------------------------------------------------------------------------------------------
# built-in layered layout


def _layout(nodes: list[Node], edges: list[Edge]) -> list[_Box]:
    index = {n.id: i for i, n in enumerate(nodes)}
    boxes = []
    for n in nodes:
        lines = [_clip(x) for x in n.lines] or [""]
        w = max(len(x) for x in lines) * CHAR_W + 2 * PAD_X
        boxes.append(_Box(n, max(w, 40.0), len(lines) * LINE_H + 2 * PAD_Y))
    for e in edges:
        a, b = index.get(e.src), index.get(e.dst)
        if a is None or b is None or a == b:
            continue
        boxes[a].succs.append(b)
        boxes[b].preds.append(a)
    # break cycles: drop edges that go back in DFS order
    state = [0] * len(boxes)
    back: set[tuple[int, int]] = set()
    for start in range(len(boxes)):
        if state[start]:
            continue
        stack = [(start, iter(boxes[start].succs))]
        state[start] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[v] = 2
                stack.pop()
            elif state[nxt] == 1:
                back.add((v, nxt))
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(boxes[nxt].succs)))
    for v, w in back:
        boxes[v].succs = [s for s in boxes[v].succs if s != w]
        boxes[w].preds = [p for p in boxes[w].preds if p != v]
    # longest-path layering in topological order
    indeg = [len(b.preds) for b in boxes]
    ready = [i for i, d in enumerate(indeg) if d == 0]
    topo = []
    while ready:
        v = ready.pop(0)
        topo.append(v)
        for s in boxes[v].succs:
            boxes[s].layer = max(boxes[s].layer, boxes[v].layer + 1)
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    # sources (inputs, weights) sit right above their first user, not all in the top row
    for i in reversed(topo):
        b = boxes[i]
        if not b.preds and b.succs:
            b.layer = max(0, min(boxes[s].layer for s in b.succs) - 1)
    layers: list[list[int]] = []
    for i in topo:
        while len(layers) <= boxes[i].layer:
            layers.append([])
        layers[boxes[i].layer].append(i)
    # barycenter sweeps
    pos = {i: k for layer in layers for k, i in enumerate(layer)}
    for sweep in range(4):
        rng = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        for li in rng:
            layer = layers[li]

            def bary(i: int, down: bool = sweep % 2 == 0) -> float:
                nb = boxes[i].preds if down else boxes[i].succs
                return sum(pos[j] for j in nb) / len(nb) if nb else pos[i]

            layer.sort(key=bary)
            for k, i in enumerate(layer):
                pos[i] = k
    # coordinates: rows top to bottom, each node under the mean of its parents
    y = 10.0
    for li, layer in enumerate(layers):
        height = max(boxes[i].h for i in layer)
        right = -1e9
        for i in layer:
            b = boxes[i]
            parents = [boxes[p] for p in b.preds]
            want = (
                sum(p.x + p.w / 2 for p in parents) / len(parents) - b.w / 2
                if parents and li
                else right + GAP_X
            )
            b.x = max(want, right + GAP_X) if right > -1e9 else want
            b.y = y + (height - b.h) / 2
            right = b.x + b.w
        y += height + GAP_Y
    if boxes:
        minx = min(b.x for b in boxes)
        for b in boxes:
            b.x += 10.0 - minx
    return boxes


def _builtin_svg(nodes: list[Node], edges: list[Edge], prefix: str = "g") -> str:
    boxes = _layout(nodes, edges)
    index = {b.node.id: b for b in boxes}
    width = max((b.x + b.w for b in boxes), default=0) + 10
    height = max((b.y + b.h for b in boxes), default=0) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="12" role="img">',
        "<defs>",
    ]
    for kind, color in EDGE_COLORS.items():
        out.append(
            f'<marker id="{prefix}-arrow{esc(kind)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
        )
    out.append("</defs>")
    for e in edges:
        a, b = index.get(e.src), index.get(e.dst)
        if a is None or b is None:
            continue
        color = EDGE_COLORS.get(e.kind, EDGE_COLORS[""])
        x1, y1 = a.x + a.w / 2, a.y + a.h
        x2, y2 = b.x + b.w / 2, b.y
        if y2 <= y1:  # a back edge: leave from the side
            x1, y1 = a.x + a.w, a.y + a.h / 2
            x2, y2 = b.x + b.w, b.y + b.h / 2
            d = f"M{x1:.1f},{y1:.1f} C{x1 + 60:.1f},{y1:.1f} {x2 + 60:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
        else:
            dy = (y2 - y1) / 2
            d = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + dy:.1f} {x2:.1f},{y2 - dy:.1f} {x2:.1f},{y2:.1f}"
        dash = ' stroke-dasharray="5,3"' if e.kind == "recompile" else ""
        out.append(
            f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.3"{dash} '
            f'marker-end="url(#{prefix}-arrow{esc(e.kind if e.kind in EDGE_COLORS else "")})"/>'
        )
        if e.label:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            label = _clip(e.label, 36)
            out.append(
                f'<text x="{mx + 4:.1f}" y="{my + 4:.1f}" font-size="10" fill="{color}">{esc(label)}</text>'
            )
    for b in boxes:
        fill, stroke = PALETTE.get(b.node.kind, PALETTE["op"])
        parts = [f'<g class="node {esc(b.node.kind)}">']
        if b.node.title:
            parts.append(f"<title>{esc(b.node.title)}</title>")
        parts.append(
            f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" rx="5" '
            f'fill="{fill}" stroke="{stroke}"/>'
        )
        for k, line in enumerate(b.node.lines or [""]):
            weight = ' font-weight="bold"' if k == 0 else ""
            parts.append(
                f'<text x="{b.x + PAD_X:.1f}" y="{b.y + PAD_Y + (k + 0.8) * LINE_H:.1f}"{weight}>'
                f"{esc(_clip(line))}</text>"
            )
        parts.append("</g>")
        g = "".join(parts)
        if b.node.href:
            g = f'<a href="{esc(b.node.href)}">{g}</a>'
        out.append(g)
    out.append("</svg>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# graphviz


def _dot_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def dot_source(nodes: list[Node], edges: list[Edge]) -> str:
    """The DOT text for the graph (labels clipped and escaped)."""
    ids = {n.id: f"n{i}" for i, n in enumerate(nodes)}
    out = [
        "digraph G {",
        '  graph [rankdir=TB, bgcolor="transparent", nodesep=0.25, ranksep=0.35];',
        '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10, margin="0.08,0.04"];',
        '  edge [fontname="monospace", fontsize=9, arrowsize=0.7];',
    ]
    for n in nodes:
        fill, stroke = PALETTE.get(n.kind, PALETTE["op"])
        label = "\\n".join(_dot_str(_clip(x))[1:-1] for x in (n.lines or [""]))
        attrs = [f'label="{label}"', f'fillcolor="{fill}"', f'color="{stroke}"']
        attrs.append(f"tooltip={_dot_str(_clip(n.title or ' / '.join(n.lines), 400))}")
        if n.href:
            # dot copies href into the SVG without escaping quotes: hand it a quoted URL only
            attrs.append(f"href={_dot_str(quote(n.href, safe=_URL_SAFE))}")
            attrs.append('target="_top"')
        out.append(f"  {ids[n.id]} [{', '.join(attrs)}];")
    for e in edges:
        if e.src not in ids or e.dst not in ids:
            continue
        color = EDGE_COLORS.get(e.kind, EDGE_COLORS[""])
        attrs = [f'color="{color}"', f'fontcolor="{color}"']
        if e.kind == "recompile":
            attrs.append('style="dashed"')
        if e.label:
            attrs.append(f"label={_dot_str(_clip(e.label, 36))}")
        out.append(f"  {ids[e.src]} -> {ids[e.dst]} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


_URL_SAFE = "/._-~#%:?=+,"
_ID_SAFE = re.compile(r"[^A-Za-z0-9_-]")
_DOT_ID = re.compile(r'\b(id)="')
_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _dot_svg(nodes: list[Node], edges: list[Edge], dot: str, timeout: float = 30.0) -> str | None:
    try:
        proc = subprocess.run(
            [dot, "-Tsvg"],
            input=dot_source(nodes, edges).encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    svg = proc.stdout.decode("utf-8", errors="replace")
    svg = _COMMENT.sub("", _PROLOG.sub("", svg, count=1))
    if not svg.lstrip().startswith("<svg") or "<script" in svg.lower():
        return None
    return svg.strip()
