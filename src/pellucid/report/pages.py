"""Render the report's pages from a loaded :class:`~pellucid.report.model.Dump`.

Pages: ``index.html`` (the overview: every graph break and recompilation with the source line
that caused it, every compiled function, failures, files), one page per user function (its
source with graph-break lines marked, the frame/graph-break/resume picture, and per frame the
guards, the decompiled transformed code beside the original, graphs, timings), and one page per
graph (each stage drawn as a node graph, with its code).  All HTML goes through
:func:`pellucid.report.html.h`, which escapes text.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from pellucid.report import graphview, highlight
from pellucid.report.fxgraph import FxGraph, parse_fx_graph
from pellucid.report.grouping import COLLAPSE_ABOVE, short_location, source_line_groups
from pellucid.report.html import Markup, esc, file_href, h, href_to, join, raw, slug
from pellucid.report.model import (
    TIME_KEYS,
    TIME_LABELS,
    Compile,
    Dump,
    FrameNotCompiled,
    Function,
    Graph,
    GraphBreak,
    Recompile,
    Session,
    SourceCache,
    SourceLoc,
    compile_sort_key,
    resume_parent,
    split_part,
)
from pellucid.report.svg import Edge, Node, render_graph

STYLESHEET = "report.css"
GRAPH_SCRIPT = graphview.SCRIPT_NAME

STAGE_TITLES = {
    "captured_graph": "captured graph (Dynamo)",
    "aot_joint_graph": "joint graph (AOTAutograd)",
    "aot_forward_graph": "forward graph (AOTAutograd)",
    "aot_backward_graph": "backward graph (AOTAutograd)",
    "inductor_forward": "Inductor output code, forward",
    "inductor_backward": "Inductor output code, backward",
}


def stage_title(stage: str) -> str:
    """A stage's title; a subgraph (``<stage>.<attribute>``) is titled by its parent's."""
    if stage in STAGE_TITLES:
        return STAGE_TITLES[stage]
    parent, _, sub = stage.rpartition(".")
    if parent:
        return f"{stage_title(parent)} › subgraph {sub}"
    base, part = split_part(stage)
    if part and base in STAGE_TITLES:
        return f"{STAGE_TITLES[base]}, part {part} of the split graph"
    return stage


@dataclass
class Site:
    """What every page needs: the dump, where pages go, and how to name and link them."""

    dump: Dump
    out_dir: str
    sources: SourceCache
    engine: str = "auto"
    use_pygments: bool | None = None
    max_graph_nodes: int = 800
    fn_pages: dict[int, str] = field(default_factory=dict)  # id(Function root) -> page
    graph_pages: dict[tuple[int, str], str] = field(default_factory=dict)
    _fx: dict[str, FxGraph | None] = field(default_factory=dict)
    _hl_files: dict[str, list[Markup]] = field(default_factory=dict)

    # ---------------------------------------------------------------- naming
    def assign_pages(self) -> None:
        used: set[str] = {"index.html"}

        def unique(name: str) -> str:
            base, n = name, 1
            while name in used:
                n += 1
                name = base.replace(".html", f"-{n}.html")
            used.add(name)
            return name

        for s in self.dump.sessions:
            for i, fn in enumerate(s.roots()):
                page = unique(f"s{s.number}-fn{i}-{slug(fn.name, 40)}.html")
                for member in fn.family():
                    self.fn_pages[id(member)] = page
                    member.page = page
            for name in s.graphs:
                self.graph_pages[(s.number, name)] = unique(f"s{s.number}-{slug(name, 50)}.html")

    def fn_page(self, fn: Function | None) -> str | None:
        return self.fn_pages.get(id(fn)) if fn is not None else None

    def graph_page(self, s: Session, name: str) -> str | None:
        return self.graph_pages.get((s.number, name))

    # ---------------------------------------------------------------- links
    def dump_href(self, rel: str) -> str:
        return href_to(os.path.join(self.dump.path, rel), self.out_dir)

    def file_link(self, rel: str | None, label: Any = None) -> Markup:
        """A link to a file in the dump directory (or a note that it is missing)."""
        if not rel:
            return h("span", "—", class_="muted")
        text = label if label is not None else rel
        if self.dump.file_exists(rel):
            return h("a", h("code", text), href=self.dump_href(rel), title=f"open {rel}")
        return h("span", h("code", text), " ", h("span", "(missing)", class_="bad"))

    def source_href(self, filename: str) -> str | None:
        if filename and not filename.startswith("<") and os.path.isfile(filename):
            return file_href(filename)
        return None

    def fx(self, rel: str) -> FxGraph | None:
        if rel not in self._fx:
            text = self.dump.read(rel)
            self._fx[rel] = parse_fx_graph(text) if text is not None else None
        return self._fx[rel]

    def highlight(self, source: str) -> list[Markup]:
        return highlight.highlight_lines(source, self.use_pygments)

    def highlight_file(self, filename: str) -> list[Markup]:
        """The user's file, highlighted once per report."""
        if filename not in self._hl_files:
            lines = self.sources.lines(filename) or []
            self._hl_files[filename] = self.highlight("\n".join(lines))
        return self._hl_files[filename]


# ---------------------------------------------------------------------------------------------
# small pieces


def short(path: str) -> str:
    return os.path.basename(path) if path else "?"


def display_name(fn: Function | None, fallback: str = "?") -> str:
    """``torch_dynamo_resume_in_f_at_12`` reads as ``f (resumed at line 12)``."""
    if fn is None:
        return fallback
    parsed = resume_parent(fn.name)
    if parsed is None:
        return fn.name
    parts = []
    name = fn.name
    while parsed is not None:
        name, line = parsed
        parts.append(line)
        parsed = resume_parent(name)
    return f"{name} (resumed at line {', '.join(str(p) for p in reversed(parts))})"


def compile_anchor(cid: str | None) -> str:
    return "compile-" + slug((cid or "unknown").replace("/", "-"))


def fmt_time(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "—"
    if value >= 1:
        return f"{value:.2f} s"
    return f"{value * 1000:.1f} ms"


def loc_text(loc: SourceLoc) -> str:
    return f"{short(loc.filename)}:{loc.lineno}" if loc.lineno else short(loc.filename)


def code_table(
    lines: list[Markup],
    first: int = 1,
    id_prefix: str | None = None,
    marks: dict[int, tuple[str, Markup]] | None = None,
    only: tuple[int, int] | None = None,
) -> Markup:
    """Numbered lines; ``marks`` maps a line number to (css class, note shown beside it)."""
    marks = marks or {}
    with_notes = bool(marks)
    rows = []
    for i, text in enumerate(lines):
        no = first + i
        if only is not None and not only[0] <= no <= only[1]:
            continue
        cls, note = marks.get(no, (None, None))
        cells = [h("td", str(no), class_="no"), h("td", text, class_="src")]
        if with_notes:
            cells.append(h("td", note, class_="note"))
        rows.append(h("tr", cells, id=f"{id_prefix}-L{no}" if id_prefix else None, class_=cls))
    return h("table", rows, class_="code")


def codebox(title: Any, body: Markup) -> Markup:
    return h("div", h("div", title, class_="title"), body, class_="codebox")


def page(site: Site, title: str, crumbs: list[Any], body: list[Any]) -> str:
    doc = join(
        [
            raw("<!DOCTYPE html>\n"),
            h(
                "html",
                h(
                    "head",
                    h("meta", charset="utf-8"),
                    h("meta", name="viewport", content="width=device-width, initial-scale=1"),
                    h("title", title),
                    h("link", rel="stylesheet", href=STYLESHEET),
                    h("script", src=GRAPH_SCRIPT, defer=True),
                ),
                h(
                    "body",
                    h("header", h("div", join(crumbs, " › "), class_="crumbs"), class_="top"),
                    h("main", body),
                    lang=None,
                ),
                lang="en",
            ),
        ]
    )
    return str(doc) + "\n"


def reason_details(reason: str, summary: str = "Dynamo's full reason") -> Markup:
    return h("details", h("summary", summary), h("pre", reason, class_="reason"))


def source_line_box(site: Site, loc: SourceLoc) -> Markup:
    if loc.text is None:
        return h("div", "(source line not available)", class_="line muted")
    hl = site.highlight(loc.text.strip())
    return h("div", h("code", hl[0] if hl else ""), class_="line code")


# ---------------------------------------------------------------------------------------------
# locating a user line on a function page


def holds_line(site: Site, fn: Function, loc: SourceLoc) -> bool:
    """Whether the function's source span (as its page shows it) contains the line."""
    if fn.filename != loc.filename or not fn.firstlineno or not loc.lineno:
        return False
    span = site.sources.function_span(fn.filename, fn.firstlineno)
    return bool(span) and span[0] <= loc.lineno <= span[1]


def function_for_line(site: Site, s: Session, loc: SourceLoc) -> Function | None:
    """The root function whose source span contains the line (for linking to its page)."""
    best = None
    for fn in s.roots():
        if holds_line(site, fn, loc):
            if best is None or (best.firstlineno or 0) < (fn.firstlineno or 0):
                best = fn
    return best


def loc_link(
    site: Site, s: Session, loc: SourceLoc, fn: Function | None = None, here: str = ""
) -> Markup:
    """``file.py:18`` linking to the marked line on the function's page (or the file)."""
    label = loc_text(loc)
    if fn is None or not holds_line(site, fn.root, loc):
        # the line may lie in a function Dynamo inlined into the frame: link where it is shown
        fn = function_for_line(site, s, loc)
    else:
        fn = fn.root
    target = site.fn_page(fn)
    if target is not None and loc.lineno:
        href = ("" if target == here else target) + f"#src-L{loc.lineno}"
        return h("a", h("code", label), href=href, title=f"{loc.filename}:{loc.lineno}")
    fhref = site.source_href(loc.filename)
    if fhref:
        return h("a", h("code", label), href=fhref, title=loc.filename)
    return h("code", label, title=loc.filename)


# ---------------------------------------------------------------------------------------------
# events: graph breaks, recompilations, failures


def break_event(site: Site, s: Session, b: GraphBreak, here: str) -> Markup:
    fn = next((c.function for c in s.compiles if c.compile_id == b.compile_id and c.function), None)
    target = site.fn_page(fn)
    anchor = f"break-{b.number}"
    self_link = (("" if target == here else target) + "#" + anchor) if target else None
    resumed = []
    for cid in b.resumed_by:
        c = next((x for x in s.compiles if x.compile_id == cid), None)
        p = site.fn_page(c.function if c else None)
        resumed.append(
            h("a", f"frame {cid}", href=(("" if p == here else p) + "#" + compile_anchor(cid)))
            if p
            else cid
        )
    stack = []
    if len(b.user_stack) > 1:
        stack = h(
            "details",
            h("summary", f"user stack ({len(b.user_stack)} frames, innermost last)"),
            h(
                "ul",
                [
                    h(
                        "li",
                        loc_link(site, s, fr, None, here),
                        " ",
                        h("code", (fr.text or "").strip()),
                    )
                    for fr in b.user_stack
                ],
            ),
        )
    return h(
        "div",
        h(
            "div",
            h("span", f"Graph break {b.number}", class_="pill bad"),
            " at ",
            loc_link(site, s, b.loc, fn, here),
            " in ",
            h("code", display_name(fn, b.function)),
            " — frame ",
            h(
                "a",
                b.compile_id or "?",
                href=(("" if target == here else target) + "#" + compile_anchor(b.compile_id)),
            )
            if target
            else (b.compile_id or "?"),
            " ",
            h("a", "¶", href=self_link, title="link to this graph break") if self_link else None,
            class_="where",
        ),
        source_line_box(site, b.loc),
        h("div", h("b", b.kind)),
        h("div", b.explanation) if b.explanation else None,
        h("ul", [h("li", "Hint: ", x) for x in b.hints], class_="hints") if b.hints else None,
        h(
            "div",
            "Dynamo compiled the code before this line into a graph, runs this line in Python, "
            "and continues in ",
            join(resumed, ", ") if resumed else "a resume function (not compiled in this run)",
            ".",
            class_="muted",
        ),
        stack,
        reason_details(b.reason),
        class_="event break",
        id=anchor if target == here else None,
    )


# what a compile that made no cache entry came to (index.json's Compile.outcome)
COMPILE_OUTCOMES = {
    "failed": "compile failed: no cache entry",
    "no_code": "no code: Dynamo left the frame as it is",
}


def recompile_event(site: Site, s: Session, r: Recompile, here: str) -> Markup:
    c = r.compile
    fn = c.function
    target = site.fn_page(fn)
    anchor = f"recompile-{r.number}"
    guards = r.failed_guards or [r.summary]
    return h(
        "div",
        h(
            "div",
            h("span", f"Recompilation {r.number}", class_="pill warn"),
            " of ",
            h("code", display_name(fn, c.function_key)),
            " — frame ",
            h(
                "a",
                c.compile_id or "?",
                href=(("" if target == here else target) + "#" + compile_anchor(c.compile_id)),
            )
            if target
            else (c.compile_id or "?"),
            " caused by ",
            loc_link(site, s, r.loc, fn, here) if r.loc.filename else h("span", "an unknown line"),
            (" (the guard on local ", h("code", r.variable), ")") if r.variable else None,
            " ",
            h(
                "a",
                "¶",
                href=(("" if target == here else target) + "#" + anchor),
                title="link to this recompilation",
            )
            if target
            else None,
            class_="where",
        ),
        source_line_box(site, r.loc) if r.loc.filename else None,
        h(
            "div",
            "Failed guard"
            + ("s" if len(guards) > 1 else "")
            + " (why the earlier cache entries did not match):",
        ),
        h("ul", [h("li", h("code", g)) for g in guards]),
        h(
            "div",
            h("span", COMPILE_OUTCOMES[c.outcome], class_="pill bad"),
            " ",
            h("code", c.failure or ""),
            class_="bad",
        )
        if c.outcome in ("failed", "no_code")
        else None,
        h("div", r.hint, class_="muted") if r.hint else None,
        reason_details(r.reason) if r.reason.strip() not in guards else None,
        class_="event recompile",
        id=anchor if target == here else None,
    )


def not_compiled_event(site: Site, s: Session, x: FrameNotCompiled, here: str) -> Markup:
    return h(
        "div",
        h(
            "div",
            h("span", f"Not compiled {x.number}", class_="pill bad"),
            " ",
            h("code", x.function),
            " — frame ",
            x.compile_id or "?",
            ", at ",
            loc_link(site, s, x.loc, None, here)
            if x.loc.filename
            else h("span", "an unknown line"),
            ": ",
            h("code", x.error),
            class_="where",
        ),
        source_line_box(site, x.loc) if x.loc.filename else None,
        h("div", h("b", x.kind)),
        h("div", x.explanation) if x.explanation else None,
        h("ul", [h("li", "Hint: ", t) for t in x.hints], class_="hints") if x.hints else None,
        h(
            "div",
            "Dynamo gave up on this frame, so nothing of it is in the dump: it ran eagerly "
            "(with fullgraph=True, or an error Dynamo does not recover from, the error reached "
            "the program instead).",
            class_="muted",
        ),
        reason_details(x.reason),
        class_="event break",
        id=f"not-compiled-{x.number}",
    )


def failures_section(site: Site, s: Session) -> Markup:
    items = []
    for f in s.failures:
        items.append(
            h(
                "div",
                h(
                    "div",
                    h("span", _s(f.get("kind"), "failure"), class_="pill bad"),
                    " ",
                    h("code", _s(f.get("where"))),
                    (" — frame " + _s(f.get("compile_id"))) if f.get("compile_id") else None,
                    class_="where",
                ),
                h("pre", _s(f.get("reason")), class_="reason"),
                class_="event failure",
            )
        )
    return join(items)


def _s(v: Any, default: str = "") -> str:
    return default if v is None else str(v)


# ---------------------------------------------------------------------------------------------
# the structure picture: frames -> graphs -> graph breaks -> resume frames


def structure_picture(
    site: Site, s: Session, roots: list[Function], here: str, prefix: str
) -> Markup:
    nodes: list[Node] = []
    edges: list[Edge] = []
    compiles: list[Compile] = []
    for root in roots:
        for fn in root.family():
            compiles.extend(fn.compiles)
    if not compiles:
        return Markup("")
    compiles.sort(key=lambda c: compile_sort_key(c.compile_id))
    seen_graphs: set[str] = set()

    def fn_href(fn: Function | None, anchor: str) -> str | None:
        p = site.fn_page(fn)
        return (("" if p == here else p) + "#" + anchor) if p else None

    for c in compiles:
        fn = c.function
        cid = c.compile_id or "?"
        status = "Dynamo's bytecode (not decompiled)" if c.failure else ""
        lines = [
            display_name(fn, c.function_key),
            f"frame {cid}" + (f" · {fmt_time(c.total_time)}" if c.total_time else ""),
        ]
        if status:
            lines.append("✗ " + status)
        nodes.append(
            Node(
                f"c:{cid}",
                lines,
                "failure"
                if c.failure
                else ("resume" if fn is not None and fn.kind == "resume" else "frame"),
                fn_href(fn, compile_anchor(c.compile_id)),
                f"{fn.name if fn else c.function_key} — compile id {cid}",
            )
        )
        for g in c.graphs:
            gid = f"g:{g.name}"
            if g.name not in seen_graphs:
                seen_graphs.add(g.name)
                captured = g.stages.get("captured_graph")
                fx = site.fx(captured) if captured else None
                gp = site.graph_page(s, g.name)
                nodes.append(
                    Node(
                        gid,
                        [g.name, f"{fx.op_count} ops" if fx else f"{len(g.stages)} stage(s)"],
                        "graph",
                        (gp if gp != here else "") if gp else None,
                        f"graph {g.name}: " + ", ".join(g.stages),
                    )
                )
            edges.append(Edge(f"c:{cid}", gid, "graph"))
        for b in c.breaks:
            bid = f"b:{b.number}"
            nodes.append(
                Node(
                    bid,
                    [f"graph break @ line {b.loc.lineno}", b.kind],
                    "break",
                    fn_href(fn, f"break-{b.number}"),
                    b.kind,
                )
            )
            src = f"g:{c.graphs[-1].name}" if c.graphs else f"c:{cid}"
            edges.append(Edge(src, bid, None, "break"))
            for rid in b.resumed_by:
                edges.append(Edge(bid, f"c:{rid}", "resume", "resume"))
        if c.recompile is not None:
            prev = [
                p
                for p in compiles
                if p.function is c.function
                and compile_sort_key(p.compile_id) < compile_sort_key(c.compile_id)
            ]
            if prev:
                label = (
                    c.recompile.failed_guards[0]
                    if c.recompile.failed_guards
                    else c.recompile.summary
                )
                edges.append(
                    Edge(
                        f"c:{prev[-1].compile_id or '?'}",
                        f"c:{cid}",
                        "recompile: " + label.split(": ", 1)[-1],
                        "recompile",
                    )
                )
        if c.resumed_from is None and fn is not None and fn.parent is not None and c.attempt == 0:
            for pc in fn.parent.compiles:
                edges.append(Edge(f"c:{pc.compile_id or '?'}", f"c:{cid}", "resume", "resume"))
    ids = {n.id for n in nodes}
    edges = [e for e in edges if e.src in ids and e.dst in ids]
    legend = h(
        "div",
        [
            h("span", h("i", style=f"background:{bg}"), label)
            for bg, label in [
                ("#e8f0fe", "frame Dynamo compiled"),
                ("#eef7ee", "resume frame (after a graph break)"),
                ("#fff7e0", "FX graph"),
                ("#fde8e8", "graph break / failure"),
            ]
        ],
        h("span", "dashed orange arrow: recompilation"),
        class_="legend",
    )
    return join([legend, render_graph(nodes, edges, site.engine, "graph structure", prefix)])


# ---------------------------------------------------------------------------------------------
# index page


def function_rows(site: Site, s: Session) -> Markup:
    header = h(
        "tr",
        [
            h("th", x)
            for x in [
                "function",
                "defined at",
                "frames",
                "graphs",
                "graph breaks",
                "recompilations",
                "cache entries",
                *[TIME_LABELS[k] for k in TIME_KEYS],
                "pellucid",
                "status",
            ]
        ],
    )
    rows = []
    for root in s.roots():
        for fn in root.family():
            comps = fn.compiles
            breaks = sum(len(c.breaks) for c in comps)
            recs = sum(1 for c in comps if c.recompile is not None)
            graphs = sum(len(c.graph_names) for c in comps)
            failed = [c for c in comps if c.failure]
            times = []
            for k in [*TIME_KEYS, "pellucid_hook"]:
                vals = [c.times.get(k) for c in comps if isinstance(c.times.get(k), (int, float))]
                times.append(h("td", fmt_time(sum(vals)) if vals else "—", class_="num"))
            status = []
            if failed:
                status.append(
                    h(
                        "span",
                        f"{len(failed)} frame(s) not decompiled",
                        class_="pill bad",
                        title="; ".join(_s(c.failure) for c in failed),
                    )
                )
            if fn.compiled_before:
                status.append(h("span", "compiled before prepare_debug", class_="pill warn"))
            if not status:
                status.append(h("span", "runs from the dump", class_="pill good"))
            page_ = site.fn_page(fn)
            anchor = "#fn-" + slug(fn.key, 80)
            rows.append(
                h(
                    "tr",
                    h(
                        "td",
                        h("a", display_name(fn), href=page_ + anchor)
                        if page_
                        else display_name(fn),
                        style="padding-left:22px" if fn.parent is not None else None,
                    ),
                    h("td", loc_link(site, s, SourceLoc(fn.filename, fn.firstlineno), fn, "")),
                    h("td", str(len(comps)), class_="num"),
                    h("td", str(graphs), class_="num"),
                    h("td", str(breaks), class_="num bad" if breaks else "num"),
                    h("td", str(recs), class_="num"),
                    h("td", str(len(fn.cache_entries)), class_="num"),
                    times,
                    h("td", status),
                    class_="failed" if failed else None,
                )
            )
    return h(
        "div",
        h("table", h("thead", header), h("tbody", rows), class_="list functions"),
        class_="wide",
    )


def counters_section(run: dict[str, Any]) -> Markup:
    counters = run.get("counters") if isinstance(run.get("counters"), dict) else {}
    if not counters:
        return Markup("")
    rows = []
    for group in sorted(counters):
        values = counters[group]
        if not isinstance(values, dict):
            continue
        for key, value in sorted(values.items(), key=lambda kv: str(kv[0])):
            first = str(key).strip().splitlines()[0] if str(key).strip() else str(key)
            rows.append(
                h(
                    "tr",
                    h("td", h("code", group)),
                    h(
                        "td",
                        first
                        if first == str(key)
                        else h("details", h("summary", first), h("pre", str(key), class_="reason")),
                    ),
                    h("td", str(value), class_="num"),
                )
            )
    return join(
        [
            h("h2", "Dynamo's counters", id="counters"),
            h(
                "p",
                "torch._dynamo.utils.counters at the end of the run (PyTorch's own tally).",
                class_="help",
            ),
            h(
                "table",
                h("tr", h("th", "group"), h("th", "key"), h("th", "count")),
                rows,
                class_="list",
            ),
        ]
    )


def run_summary(site: Site) -> Markup:
    run = site.dump.run or {}
    raw_idx = site.dump.raw
    items = []
    if run:
        cmd = run.get("command")
        if isinstance(cmd, list):
            items.append(h("div", "command: ", h("code", " ".join(str(x) for x in cmd))))
        code = run.get("exit_code")
        if code is not None:
            items.append(
                h(
                    "div",
                    "exit code: ",
                    h("span", str(code), class_="pill " + ("good" if code == 0 else "bad")),
                    (" — " + _s(run.get("exception"))) if run.get("exception") else None,
                )
            )
        if isinstance(run.get("duration_s"), (int, float)):
            items.append(h("div", "run time: ", fmt_time(run["duration_s"])))
        if run.get("torch_trace"):
            items.append(h("div", "TORCH_TRACE log: ", h("code", _s(run.get("torch_trace")))))
    versions = ", ".join(
        f"{k} {raw_idx.get(v)}"
        for k, v in [
            ("torch", "torch_version"),
            ("Python", "python_version"),
            ("pellucid", "pellucid_version"),
        ]
        if raw_idx.get(v)
    )
    items.append(h("div", "dump directory: ", h("code", site.dump.path)))
    if versions:
        items.append(h("div", versions, class_="muted"))
    return h("div", items, class_="summary")


def cards(s: Session) -> Markup:
    n_frames = len(s.compiles)
    failed = sum(1 for c in s.compiles if c.failure)
    data = [
        ("functions", str(len([f for f in s.functions if f.kind != "resume"])), ""),
        ("frames compiled", str(n_frames), ""),
        ("graphs", str(len(s.graphs)), ""),
        ("graph breaks", str(len(s.breaks)), "bad" if s.breaks else ""),
        ("recompilations", str(len(s.recompiles)), "warn" if s.recompiles else ""),
        ("problems", str(len(s.failures)), "bad" if s.failures else ""),
    ]
    if s.not_compiled:
        data.append(("frames not compiled", str(len(s.not_compiled)), "bad"))
    if failed:
        data.append(("frames on Dynamo's bytecode", str(failed), "bad"))
    frame_times = [c.times.get("entire_frame") for c in s.compiles]
    frame_times = [t for t in frame_times if isinstance(t, (int, float))]
    if frame_times:
        data.append(("Dynamo compile time", fmt_time(sum(frame_times)), ""))
    own = s.raw.get("pellucid_time_s")
    if isinstance(own, (int, float)):  # dumps from before it was measured have none
        data.append(("pellucid's own time", fmt_time(own), ""))
    return h(
        "div",
        [
            h("div", h("div", n, class_="n"), h("div", label, class_="muted"), class_="card " + cls)
            for label, n, cls in data
        ],
        class_="cards",
    )


def files_section(site: Site, s: Session) -> Markup:
    rows = []
    for f in s.files:
        rel = _s(f.get("path"))
        extra = ", ".join(
            f"{k}={f[k]}" for k in ("function", "graph", "stage", "compile_id") if f.get(k)
        )
        rows.append(
            h(
                "tr",
                h("td", site.file_link(rel)),
                h("td", _s(f.get("kind"))),
                h("td", extra, class_="muted"),
            )
        )
    if not rows:
        return h("p", "No files.", class_="muted")
    return h(
        "details",
        h("summary", f"{len(rows)} files in the dump directory"),
        h("table", h("tr", h("th", "file"), h("th", "kind"), h("th", "for")), rows, class_="list"),
    )


HOW_TO_READ = (
    "torch.compile (Dynamo) compiles each Python frame it can into an FX graph and replaces the "
    "frame's bytecode with transformed code that calls the graph. Where it cannot trace a line it "
    "makes a graph break: the graph ends, the line runs in plain Python, and a resume function "
    "continues after it (compiled as a new frame). Each compiled frame is guarded: when a guard "
    "fails on a later call, Dynamo recompiles the frame (a recompilation) and keeps one cache "
    "entry per compilation. pellucid decompiled the transformed code into files the program ran "
    "from; this report links to them."
)


def session_body(site: Site, s: Session, multi: bool) -> list[Any]:
    here = "index.html"
    out: list[Any] = []
    sid = f"s{s.number}-" if multi else ""
    if multi:
        out.append(
            h(
                "h2",
                f"Session {s.number + 1}: process {_s(s.raw.get('pid'), '?')}",
                (" rank " + _s(s.raw.get("rank"))) if s.raw.get("rank") else None,
                id=f"session-{s.number}",
            )
        )
        out.append(h("div", h("code", " ".join(s.argv)), class_="muted"))
    out.append(cards(s))
    if s.raw.get("complete") is False:
        out.append(
            h(
                "div",
                "This session did not finish: the program ended before prepare_debug's exit "
                "(killed, say). Everything dumped up to its last event is here; guards and "
                "full_code files, written at the exit, are not.",
                class_="event failure",
            )
        )
    for m in s.messages:
        out.append(h("div", m, class_="event failure"))
    out.append(h("h2", f"Graph breaks ({len(s.breaks)})", id=f"{sid}graph-breaks"))
    if s.breaks:
        out.append(
            h(
                "p",
                "Each break, where it happened in your code and why (Dynamo's own reason).",
                class_="help",
            )
        )
        out.extend(break_event(site, s, b, here) for b in s.breaks)
    else:
        out.append(
            h("p", "No graph breaks: every compiled frame became whole graphs.", class_="muted")
        )
    if s.not_compiled:
        out.append(h("h2", f"Frames not compiled ({len(s.not_compiled)})", id=f"{sid}not-compiled"))
        out.append(
            h(
                "p",
                "Frames whose compilation failed: the error and the line Dynamo was tracing.",
                class_="help",
            )
        )
        out.extend(not_compiled_event(site, s, x, here) for x in s.not_compiled)
    out.append(h("h2", f"Recompilations ({len(s.recompiles)})", id=f"{sid}recompilations"))
    if s.recompiles:
        out.append(
            h(
                "p",
                "Each time a frame was compiled again, the guard that failed and the line it points at.",
                class_="help",
            )
        )
        out.extend(recompile_event(site, s, r, here) for r in s.recompiles)
    else:
        out.append(
            h("p", "No recompilations: every call matched an existing cache entry.", class_="muted")
        )
    out.append(h("h2", "Compiled functions", id=f"{sid}functions"))
    if s.functions:
        out.append(function_rows(site, s))
        if len(s.compiles) <= 80:
            out.append(h("h3", "Frames, graphs and graph breaks", id=f"{sid}structure"))
            out.append(structure_picture(site, s, s.roots(), here, f"{sid}idx"))
    else:
        out.append(h("p", "Nothing was compiled inside prepare_debug.", class_="muted"))
    if s.failures:
        out.append(h("h2", f"Problems ({len(s.failures)})", id=f"{sid}failures"))
        out.append(
            h(
                "p",
                "What pellucid could not do; the program went on (a frame whose code could not be "
                "decompiled runs Dynamo's own bytecode).",
                class_="help",
            )
        )
        out.append(failures_section(site, s))
    out.append(h("h2", "Files", id=f"{sid}files"))
    out.append(files_section(site, s))
    return out


def index_page(site: Site) -> str:
    dump = site.dump
    run = dump.run or {}
    title = "pellucid report"
    program = run.get("program") or (
        dump.sessions[0].argv[0] if dump.sessions and dump.sessions[0].argv else None
    )
    body: list[Any] = [h("h1", title + (f": {short(str(program))}" if program else ""))]
    body.append(run_summary(site))
    multi = len(dump.sessions) > 1
    toc = [
        h("a", "graph breaks", href="#graph-breaks" if not multi else "#s0-graph-breaks"),
        h("a", "recompilations", href="#recompilations" if not multi else "#s0-recompilations"),
        h("a", "functions", href="#functions" if not multi else "#s0-functions"),
    ]
    if run.get("counters"):
        toc.append(h("a", "Dynamo's counters", href="#counters"))
    if dump.sessions:
        body.append(h("nav", toc, class_="toc"))
    body.append(
        h("details", h("summary", "How to read this report"), h("p", HOW_TO_READ, class_="help"))
    )
    for p in dump.problems:
        body.append(h("div", p, class_="event failure"))
    if not dump.sessions:
        body.append(h("p", "The dump holds no prepare_debug session.", class_="muted"))
    for s in dump.sessions:
        body.extend(session_body(site, s, multi))
    body.append(counters_section(run))
    body.append(h("footer", f"Generated by pellucid on {time.strftime('%Y-%m-%d %H:%M:%S')}."))
    return page(site, title, [h("a", "pellucid report", href="index.html")], body)


# ---------------------------------------------------------------------------------------------
# function page


def guards_list(ce: Any, failed_hint: list[str]) -> Markup:
    items = []
    for g in ce.guards:
        code = _s(g.get("code"))
        comment = g.get("comment")
        is_py = bool(g.get("python"))
        failed = any(_guard_mentions(code, f) for f in failed_hint)
        items.append(
            h(
                "li",
                code,
                h("span", f"  # {comment}", class_="comment") if comment else None,
                class_=" ".join(
                    x for x in ["not-python" if not is_py else "", "failed" if failed else ""] if x
                )
                or None,
                title=None if is_py else "not Python in torch's description: " + _s(g.get("text")),
            )
        )
    return h("ul", items, class_="guards")


def _guard_mentions(code: str, failed: str) -> bool:
    import re

    m = re.search(r"L\[['\"]([^'\"]+)['\"]\]|tensor '([^']+)'", failed)
    if not m:
        return False
    name = m.group(1) or m.group(2)
    return f"L['{name}']" in code and (
        "check_tensor" in code or "size" in failed and "size" in code
    )


def compile_section(site: Site, s: Session, c: Compile, root: Function, here: str) -> Markup:
    fn = c.function
    cid = c.compile_id or "?"
    head = [
        h("span", f"frame {cid}", class_="pill"),
        " ",
        display_name(fn, c.function_key),
    ]
    status = []
    if c.outcome in ("failed", "no_code"):
        status.append(
            h(
                "div",
                h("span", COMPILE_OUTCOMES[c.outcome], class_="pill bad"),
                " ",
                h("code", c.failure or ""),
                class_="bad",
            )
        )
    elif c.failure:
        status.append(
            h(
                "div",
                h("span", "not decompiled", class_="pill bad"),
                " Dynamo's own bytecode runs for this frame: ",
                h("code", c.failure),
                class_="bad",
            )
        )
    elif c.executed_from_file:
        status.append(
            h(
                "div",
                h("span", "runs from the dump", class_="pill good"),
                " set breakpoints in ",
                site.file_link(c.transformed_code_file),
                class_="muted",
            )
        )
    elif c.transformed_code_file and c.verification and c.verification != "equivalent":
        status.append(
            h(
                "div",
                h("span", "not proven equivalent", class_="pill warn"),
                " Dynamo's own bytecode runs for this frame; ",
                site.file_link(c.transformed_code_file),
                " is for reading: ",
                h("code", c.verification),
                class_="muted",
            )
        )
    if c.executed_from_file and c.verification == "equivalent":
        status.append(
            h(
                "div",
                h("span", "proven equivalent", class_="pill good"),
                " the file does what Dynamo's bytecode does (same calls, stores, branches and "
                "results on every path)",
                class_="muted",
            )
        )
    if c.recompile is not None:
        r = c.recompile
        status.append(
            h(
                "div",
                h("span", "recompilation", class_="pill warn"),
                " ",
                h("a", f"recompilation {r.number}", href=f"#recompile-{r.number}"),
                ": ",
                h("code", (r.failed_guards or [r.summary])[0]),
            )
        )
    if c.resumed_from is not None:
        b = c.resumed_from
        status.append(
            h(
                "div",
                "Resumes after ",
                h("a", f"graph break {b.number}", href=f"#break-{b.number}"),
                f" (line {b.loc.lineno}).",
                class_="muted",
            )
        )
    times = [
        h("span", f"{TIME_LABELS.get(k, k)} {fmt_time(v)}", class_="pill")
        for k, v in c.times.items()
        if isinstance(v, (int, float)) and (v or k == "entire_frame")
    ]
    graphs = []
    for g in c.graphs:
        gp = site.graph_page(s, g.name)
        stages = [
            h(
                "span",
                h("a", stage_title(st), href=f"{gp}#stage-{slug(st)}") if gp else st,
                " (",
                site.file_link(rel, short(rel)),
                ")",
            )
            for st, rel in g.ordered_stages()
        ]
        graphs.append(
            h(
                "li",
                h("a", h("code", g.name), href=gp) if gp else h("code", g.name),
                ": ",
                join(stages, "; "),
            )
        )
    for name in c.graph_names:
        if name not in s.graphs:
            graphs.append(
                h("li", h("code", name), " (no file: the graph was not dumped)", class_="muted")
            )
    resumes = []
    for b in c.breaks:
        for rid in b.resumed_by:
            rc = next((x for x in s.compiles if x.compile_id == rid), None)
            resumes.append(
                h(
                    "li",
                    "after graph break ",
                    h("a", str(b.number), href=f"#break-{b.number}"),
                    ": ",
                    h("a", f"frame {rid}", href="#" + compile_anchor(rid)),
                    " ",
                    display_name(rc.function if rc else None, rid),
                )
            )
    if c.resume_functions and not resumes:
        resumes.append(
            h(
                "li",
                "calls ",
                join([h("code", r) for r in c.resume_functions], ", "),
                " (not compiled during this run)",
                class_="muted",
            )
        )
    ce = c.cache_entry
    guard_part: list[Any] = []
    if ce is not None:
        failed_hint = [
            f
            for r in s.recompiles
            if r.compile.function is fn
            for f in r.failed_guards
            if f.startswith(f"{cid}:")
        ]
        guard_part = [
            h(
                "h4",
                f"Guards (cache entry {ce.index} in dispatch order) — ",
                site.file_link(ce.guard_file, short(ce.guard_file or "")),
            ),
            h(
                "p",
                "Dynamo runs this frame's transformed code only when every term holds. L: the frame's locals, "
                "G: its globals."
                + (" Highlighted: the guards that later failed." if failed_hint else ""),
                class_="help",
            ),
            guards_list(ce, failed_hint),
        ]
        if ce.failed_guards:
            guard_part.append(
                h(
                    "div",
                    "Later failed: ",
                    join([h("code", x) for x in ce.failed_guards], "; "),
                    class_="muted",
                )
            )
    elif fn is not None and fn.cache_entries:
        guard_part = [
            h(
                "p",
                "No cache entry with this compile id was alive when the dump was written.",
                class_="muted",
            )
        ]
    # transformed code beside the original
    side: list[Any] = []
    tfile = c.transformed_code_file or (ce.transformed_code_file if ce else None)
    ttext = site.dump.read(tfile) if tfile else None
    span = site.sources.function_span(root.filename, root.firstlineno)
    orig_lines = site.sources.lines(root.filename)
    if ttext is not None or orig_lines:
        left = (
            codebox(
                h(
                    "span",
                    "transformed code (decompiled): ",
                    site.file_link(tfile, short(tfile or "")),
                ),
                code_table(site.highlight(ttext)),
            )
            if ttext is not None
            else codebox(
                "transformed code",
                h("p", "not decompiled — Dynamo's own bytecode runs", class_="muted"),
            )
        )
        right: Any = ""
        if orig_lines and span:
            mark_line = None
            parsed = resume_parent(fn.name) if fn is not None else None
            if parsed:
                mark_line = parsed[1]
            hl = site.highlight_file(root.filename)
            marks = {mark_line: ("mark-resume", Markup(""))} if mark_line else {}
            right = codebox(
                h("span", "original: ", short(root.filename)),
                code_table(hl, 1, None, marks or None, only=span),
            )
        side = [
            h("h4", "Transformed code beside the original"),
            h("div", left, right, class_="side"),
        ]
    extra = []
    if c.bytecode_files:
        extra.append(
            h(
                "div",
                "bytecode listings: ",
                join(
                    [
                        h("span", k, " ", site.file_link(v, short(v)))
                        for k, v in sorted(c.bytecode_files.items())
                    ],
                    "; ",
                ),
                class_="muted",
            )
        )
    return h(
        "section",
        h("h3", head),
        status,
        h("div", times) if times else None,
        h("h4", "Graphs") if graphs else None,
        h("ul", graphs) if graphs else None,
        h("h4", "Resume functions") if resumes else None,
        h("ul", resumes) if resumes else None,
        guard_part,
        side,
        extra,
        class_="compile" + (" failed" if c.failure else ""),
        id=compile_anchor(c.compile_id),
    )


def function_page(site: Site, s: Session, root: Function) -> str:
    here = site.fn_page(root) or ""
    family = root.family()
    compiles = sorted(
        (c for fn in family for c in fn.compiles), key=lambda c: compile_sort_key(c.compile_id)
    )
    breaks = [b for c in compiles for b in c.breaks]
    recompiles = [c.recompile for c in compiles if c.recompile is not None]
    body: list[Any] = [h("h1", display_name(root))]
    fhref = site.source_href(root.filename)
    body.append(
        h(
            "div",
            "defined at ",
            h("a", h("code", f"{root.filename}:{root.firstlineno}"), href=fhref)
            if fhref
            else h("code", f"{root.filename}:{root.firstlineno}"),
            " · ",
            f"{len(compiles)} frame(s), {len(breaks)} graph break(s), {len(recompiles)} recompilation(s)",
            " · whole story: ",
            site.file_link(root.full_code_file, short(root.full_code_file or ""))
            if root.full_code_file
            else "—",
            class_="muted",
        )
    )
    body.append(
        h(
            "nav",
            h("a", "source", href="#source"),
            h("a", "structure", href="#structure"),
            h("a", "graph breaks", href="#graph-breaks"),
            h("a", "recompilations", href="#recompilations"),
            h("a", "frames", href="#frames"),
            class_="toc",
        )
    )
    if root.compiled_before:
        body.append(
            h(
                "div",
                "This function was compiled before prepare_debug: its files are for reading; "
                "it runs the code compiled before.",
                class_="event failure",
            )
        )
    # source with marks
    body.append(h("h2", "Source", id="source"))
    lines = site.sources.lines(root.filename)
    span = site.sources.function_span(root.filename, root.firstlineno)
    if lines and span:
        marks: dict[int, tuple[str, Markup]] = {}
        for r in recompiles:
            if r.loc.filename == root.filename and r.loc.lineno:
                marks[r.loc.lineno] = (
                    "mark-recompile",
                    join(
                        [
                            h("a", f"recompilation {r.number}", href=f"#recompile-{r.number}"),
                            ": ",
                            (r.failed_guards or [r.summary])[0],
                        ]
                    ),
                )
        for b in breaks:
            line = b.loc.lineno if b.loc.filename == root.filename else None
            via = None
            if not (line and span[0] <= line <= span[1]):
                # the break is inside a call: mark the call in this function (outermost frame)
                for fr in b.user_stack:
                    if (
                        fr.filename == root.filename
                        and fr.lineno
                        and span[0] <= fr.lineno <= span[1]
                    ):
                        line, via = fr.lineno, b.loc
                        break
            if not line:
                continue
            prev = marks.get(line)
            note = join(
                [
                    h("a", f"graph break {b.number}", href=f"#break-{b.number}"),
                    f" (inside this call, at {loc_text(via)})" if via else None,
                    ": ",
                    b.kind,
                ]
            )
            if prev and prev[0] == "mark-break":
                note = join([prev[1], h("br"), note])
            marks[line] = ("mark-break", note)
        # lines outside the function (e.g. a break inside a called helper) are listed after
        body.append(
            codebox(
                h("span", root.filename),
                code_table(site.highlight_file(root.filename), 1, "src", marks, only=span),
            )
        )
        outside = [
            b
            for b in breaks
            if b.loc.lineno
            and not (b.loc.filename == root.filename and span[0] <= b.loc.lineno <= span[1])
        ]
        if outside:
            body.append(
                h(
                    "p",
                    "Graph breaks in code this function calls: ",
                    join(
                        [
                            h("a", f"{b.number} ({loc_text(b.loc)})", href=f"#break-{b.number}")
                            for b in outside
                        ],
                        ", ",
                    ),
                )
            )
        # ids used by links for lines outside the span
        anchors = sorted(
            {
                x.loc.lineno
                for x in [*breaks, *recompiles]
                if x.loc.lineno
                and x.loc.filename == root.filename
                and not span[0] <= x.loc.lineno <= span[1]
            }
        )
        if anchors:
            body.append(
                codebox(
                    "other lines of " + short(root.filename),
                    join(
                        [
                            code_table(
                                site.highlight_file(root.filename), 1, "src", marks, only=(a, a)
                            )
                            for a in anchors
                        ]
                    ),
                )
            )
    else:
        body.append(h("p", f"The source of {root.filename} is not available.", class_="muted"))
        body.append(
            join(
                [
                    h("span", "", id=f"src-L{x.loc.lineno}")
                    for x in [*breaks, *recompiles]
                    if x.loc.lineno
                ]
            )
        )
    body.append(h("h2", "Frames, graphs and graph breaks", id="structure"))
    body.append(structure_picture(site, s, [root], here, "fn"))
    body.append(h("h2", f"Graph breaks ({len(breaks)})", id="graph-breaks"))
    body.extend(break_event(site, s, b, here) for b in breaks)
    if not breaks:
        body.append(h("p", "No graph breaks.", class_="muted"))
    body.append(h("h2", f"Recompilations ({len(recompiles)})", id="recompilations"))
    body.extend(recompile_event(site, s, r, here) for r in recompiles)
    if not recompiles:
        body.append(h("p", "No recompilations.", class_="muted"))
    body.append(h("h2", "Frames", id="frames"))
    body.append(
        h(
            "p",
            "In compile order. Each frame Dynamo compiled: its guards, the transformed code it runs "
            "(decompiled by pellucid) beside the original, and the graphs it calls.",
            class_="help",
        )
    )
    for fn in family:
        body.append(
            h(
                "h3",
                display_name(fn),
                " ",
                h("span", fn.kind, class_="pill"),
                id="fn-" + slug(fn.key, 80),
            )
        )
        for c in fn.compiles:
            body.append(compile_section(site, s, c, root, here))
        alive = {c.compile_id for c in fn.compiles}
        orphans = [ce for ce in fn.cache_entries if ce.compile_id not in alive]
        for ce in orphans:
            body.append(
                h(
                    "section",
                    h("h4", f"cache entry {ce.index} (compile id {ce.compile_id})"),
                    guards_list(ce, []),
                    h("div", "transformed code: ", site.file_link(ce.transformed_code_file)),
                    class_="compile",
                )
            )
    crumbs = [h("a", "pellucid report", href="index.html"), display_name(root)]
    return page(site, f"{root.name} — pellucid report", crumbs, body)


# ---------------------------------------------------------------------------------------------
# graph page


def fx_picture(site: Site, fx: FxGraph, stage: str) -> Markup:
    if len(fx.nodes) > site.max_graph_nodes:
        return h(
            "p",
            f"{len(fx.nodes)} nodes: too many to draw (limit {site.max_graph_nodes}); read the code below.",
            class_="muted",
        )
    nodes = []
    for n in fx.nodes:
        kind = {"placeholder": "placeholder", "output": "output", "get_attr": "get_attr"}.get(
            n.op, "op"
        )
        lines = [n.name if n.op in ("placeholder", "output") else f"{n.name} = {n.target}"]
        if n.type:
            lines.append(n.type)
        title = f"{n.op} {n.target}" + (f"\n{n.user_code}" if n.user_code else "")
        nodes.append(Node(n.name, lines, kind, f"#{slug(stage)}-L{n.lineno}", title))
    edges = [Edge(a, b) for a, b in fx.edges]
    picture = render_graph(nodes, edges, site.engine, "graph fx", f"st-{slug(stage)}")
    if len(fx.nodes) <= COLLAPSE_ABOVE:
        return picture
    return join(
        [
            collapsed_picture(site, fx, stage),
            h("details", h("summary", f"All {len(fx.nodes)} nodes"), picture, class_="allnodes"),
        ]
    )


def collapsed_picture(site: Site, fx: FxGraph, stage: str) -> Markup:
    """One box per line of the user's code that the graph's nodes came from."""
    groups, group_edges = source_line_groups(fx)
    first_line = {n.name: n.lineno for n in fx.nodes}
    op_of = {n.name: n.op for n in fx.nodes}
    nodes = []
    for gid, label, names in groups:
        ops = f"{len(names)} node" + ("s" if len(names) != 1 else "")
        kind = {"placeholder": "placeholder", "output": "output"}.get(op_of[names[0]], "op")
        lines = [label] if kind == "output" else [*short_location(label), ops]
        title = label + "\n" + ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
        href = f"#{slug(stage)}-L{first_line[names[0]]}"
        nodes.append(Node(gid, lines, kind, href, title))
    edges = [Edge(a, b) for a, b in group_edges]
    note = h(
        "p",
        f"Collapsed by source line: {len(groups)} boxes for {len(fx.nodes)} nodes "
        "(each box is the nodes traced from one line of your code).",
        class_="help",
    )
    picture = render_graph(nodes, edges, site.engine, "graph fx grouped", f"grp-{slug(stage)}")
    return join([note, picture])


def graph_page(site: Site, s: Session, g: Graph) -> str:
    owner = next((c for c in s.compiles if g.name in c.graph_names), None)
    fn = owner.function if owner else None
    fp = site.fn_page(fn)
    body: list[Any] = [h("h1", g.name)]
    body.append(
        h(
            "div",
            "captured in ",
            h(
                "a",
                f"frame {g.compile_id or (owner.compile_id if owner else '?')}",
                href=f"{fp}#{compile_anchor(owner.compile_id if owner else g.compile_id)}",
            )
            if fp
            else f"frame {g.compile_id}",
            " of ",
            h("code", display_name(fn, "?")),
            (f" · AOTAutograd id {g.aot_id}" if g.aot_id is not None else ""),
            class_="muted",
        )
    )
    stages = g.ordered_stages()
    body.append(
        h(
            "nav",
            [h("a", stage_title(st), href=f"#stage-{slug(st)}") for st, _ in stages],
            class_="toc",
        )
    )
    for st, rel in stages:
        text = site.dump.read(rel)
        body.append(h("h2", stage_title(st), id=f"stage-{slug(st)}"))
        body.append(h("div", "file: ", site.file_link(rel), class_="muted"))
        if text is None:
            body.append(h("p", "The file is missing.", class_="bad"))
            continue
        fx = site.fx(rel)
        if fx is not None and fx.nodes:
            body.append(
                h(
                    "p",
                    f"{len(fx.nodes)} nodes, {fx.op_count} operations. Click a node for its line.",
                    class_="help",
                )
            )
            body.append(fx_picture(site, fx, st))
        body.append(codebox(short(rel), code_table(site.highlight(text), 1, slug(st))))
    crumbs = [h("a", "pellucid report", href="index.html")]
    if fp and fn is not None:
        crumbs.append(h("a", display_name(fn.root), href=fp))
    crumbs.append(g.name)
    return page(site, f"{g.name} — pellucid report", crumbs, body)


def render_all(site: Site, write: Callable[[str, str], None]) -> list[str]:
    """Render every page through ``write(name, html)``; return the page names."""
    site.assign_pages()
    names = ["index.html"]
    write("index.html", index_page(site))
    for s in site.dump.sessions:
        for root in s.roots():
            name = site.fn_page(root)
            if name:
                write(name, function_page(site, s, root))
                names.append(name)
        for gname, g in s.graphs.items():
            name = site.graph_page(s, gname)
            if name:
                write(name, graph_page(site, s, g))
                names.append(name)
    return names


__all__ = ["Site", "render_all", "esc"]
