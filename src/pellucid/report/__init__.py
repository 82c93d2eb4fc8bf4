"""A dump directory -> a static HTML report (offline: no server, no CDN; one local script).

``build_report(dump_dir)`` writes ``dump_dir/report/index.html`` and the pages it links to;
``show(dump_dir)`` builds it and displays a summary inline in a notebook;
modules: :mod:`.model` (read the index), :mod:`.pages` (render), :mod:`.svg` (draw graphs),
:mod:`.fxgraph` (read FX graph files), :mod:`.highlight` (Pygments, optional),
:mod:`.html` (escaping builder), :mod:`.assets` (the stylesheet).
"""

from __future__ import annotations

import os
import time

from pellucid.report import graphview
from pellucid.report.assets import stylesheet
from pellucid.report.inline import Summary, show, summary
from pellucid.report.model import Dump, DumpError, SourceCache, load_dump
from pellucid.report.pages import STYLESHEET, Site, render_all

__all__ = ["DumpError", "ReportResult", "Summary", "build_report", "load_dump", "show", "summary"]


class ReportResult(str):
    """The path of ``index.html`` (a str), with the page names and build time attached.

    In a notebook, a ``ReportResult`` left as a cell's value shows the dump's summary and a
    link to the report (:mod:`.inline`).
    """

    pages: list[str]
    seconds: float
    dump_dir: str

    def _repr_html_(self) -> str:
        from pellucid.report.inline import summary

        return summary(self, self.dump_dir)._repr_html_()


def build_report(
    dump_dir: str,
    out_dir: str | None = None,
    engine: str = "auto",
    use_pygments: bool | None = None,
) -> ReportResult:
    """Write the HTML report of ``dump_dir`` into ``out_dir`` (default ``dump_dir/report``).

    ``engine`` picks how graphs are drawn: ``"auto"`` (graphviz ``dot`` when installed, else the
    built-in layout), ``"dot"`` or ``"builtin"``.  ``use_pygments=False`` turns highlighting off.
    Returns the path of ``index.html``; raises :class:`DumpError` if ``dump_dir`` has no index.
    """
    t0 = time.perf_counter()
    sources = SourceCache()
    dump: Dump = load_dump(dump_dir, sources)
    out = os.path.abspath(out_dir or os.path.join(dump.path, "report"))
    os.makedirs(out, exist_ok=True)
    site = Site(dump, out, sources, engine=engine, use_pygments=use_pygments)

    def write(name: str, text: str) -> None:
        tmp = os.path.join(out, f".{name}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out, name))

    write(STYLESHEET, stylesheet())
    write(graphview.SCRIPT_NAME, graphview.SCRIPT)
    pages = render_all(site, write)
    result = ReportResult(os.path.join(out, "index.html"))
    result.pages = pages
    result.dump_dir = dump.path
    result.seconds = time.perf_counter() - t0
    return result
