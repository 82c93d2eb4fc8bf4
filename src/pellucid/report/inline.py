"""The report in a notebook: a summary of the dump and a link to its pages, shown inline.

``pellucid.report.show(dump_dir)`` builds the report and displays it in the cell's output
(IPython's rich display); a :class:`~pellucid.report.ReportResult` left as a cell's last
expression renders the same way.  Outside IPython ``show`` prints the plain-text summary.
The full pages are not embedded: they are many files with relative links, which an inline
frame cannot load from a notebook server's origin, so the output links to ``index.html``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pellucid.report.html import Markup, file_href, h, href_to
from pellucid.report.model import Dump, load_dump


@dataclass
class Summary:
    """Counts over every session of a dump, as the report's index page shows them."""

    dump_dir: str
    index_html: str
    sessions: int
    functions: int
    compiles: int
    from_file: int  # compiles whose transformed code runs from its dumped file
    graphs: int
    graph_breaks: int
    recompiles: int
    failures: int

    @classmethod
    def of(cls, dump: Dump, index_html: str) -> Summary:
        ss = dump.sessions
        return cls(
            dump_dir=dump.path,
            index_html=os.path.abspath(index_html),
            sessions=len(ss),
            functions=sum(len(s.functions) for s in ss),
            compiles=sum(len(s.compiles) for s in ss),
            from_file=sum(1 for s in ss for c in s.compiles if c.executed_from_file),
            graphs=sum(len(s.graphs) for s in ss),
            graph_breaks=sum(len(s.breaks) for s in ss),
            recompiles=sum(len(s.recompiles) for s in ss),
            failures=sum(len(s.failures) for s in ss),
        )

    def rows(self) -> list[tuple[str, int]]:
        return [
            ("sessions", self.sessions),
            ("functions", self.functions),
            ("compiles", self.compiles),
            ("compiles running from dumped files", self.from_file),
            ("graphs", self.graphs),
            ("graph breaks", self.graph_breaks),
            ("recompilations", self.recompiles),
            ("failures", self.failures),
        ]

    def href(self) -> str:
        """Relative to the working directory (a notebook's folder) when the report is inside
        it, so a notebook server can serve it; otherwise a ``file://`` URL."""
        cwd = os.getcwd()
        if os.path.commonpath([cwd, self.index_html]) == cwd:
            return href_to(self.index_html, cwd)
        return file_href(self.index_html)

    def _repr_html_(self) -> str:
        table = h(
            "table",
            [h("tr", h("th", name, style="text-align:left"), h("td", n)) for name, n in self.rows()],
        )
        return Markup(
            h(
                "div",
                h("p", h("b", "pellucid report"), " of ", h("code", self.dump_dir)),
                table,
                h(
                    "p",
                    h("a", "open the report", href=self.href(), target="_blank"),
                    " (",
                    h("code", self.index_html),
                    ")",
                ),
                class_="pellucid-report",
            )
        )

    def __str__(self) -> str:
        lines = [f"pellucid report of {self.dump_dir}: {self.index_html}"]
        lines += [f"  {name}: {n}" for name, n in self.rows()]
        return "\n".join(lines)


def summary(index_html: str, dump_dir: str | None = None) -> Summary:
    """The summary of the dump whose report is ``index_html`` (its dump is ``dump_dir``, or the
    report's parent directory)."""
    where = dump_dir or os.path.dirname(os.path.dirname(os.path.abspath(index_html)))
    return Summary.of(load_dump(where), index_html)


def show(dump_dir: str, out_dir: str | None = None, **options: object) -> None:
    """Build the report of ``dump_dir`` and display its summary in the notebook cell.

    Returns nothing (a returned value would be displayed a second time as the cell's result);
    ``summary()`` gives the same object.  ``options`` go to :func:`~pellucid.report.build_report`.
    """
    from pellucid.report import build_report

    result = build_report(dump_dir, out_dir, **options)  # type: ignore[arg-type]
    s = summary(result, dump_dir)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None  # type: ignore[assignment]
    if get_ipython is not None and get_ipython() is not None:
        display(s)
    else:
        print(s)
