"""Python source as a list of HTML lines, highlighted with Pygments when it is installed.

Lines are kept separate so pages can number them, mark graph-break lines and put notes beside
them.  Without Pygments (an optional dependency: ``pellucid[report]``) lines are plain escaped
text.  Token text is always escaped here; Pygments only decides the CSS class.
"""

from __future__ import annotations

from typing import Any

from pellucid.report.html import Markup, esc

try:  # optional dependency
    from pygments.lexers import PythonLexer as _PythonLexer
    from pygments.token import STANDARD_TYPES as _STANDARD_TYPES

    HAVE_PYGMENTS = True
except ImportError:  # pragma: no cover - exercised by forcing use_pygments=False
    HAVE_PYGMENTS = False

__all__ = ["HAVE_PYGMENTS", "css", "highlight_lines"]


def _token_class(ttype: Any) -> str:
    while ttype is not None:
        cls = _STANDARD_TYPES.get(ttype)
        if cls is not None:
            return cls
        ttype = ttype.parent
    return ""


def highlight_lines(source: str, use_pygments: bool | None = None) -> list[Markup]:
    """One HTML string per line of ``source`` (no trailing newline characters)."""
    lines = source.splitlines()
    if use_pygments is None:
        use_pygments = HAVE_PYGMENTS
    if not use_pygments or not HAVE_PYGMENTS or len(source) > 2_000_000:
        return [esc(ln) for ln in lines]
    lexer = _PythonLexer(stripnl=False, ensurenl=True, tabsize=0)
    out: list[str] = []
    current: list[str] = []
    for ttype, text in lexer.get_tokens(source):
        cls = _token_class(ttype)
        pieces = text.split("\n")
        for i, piece in enumerate(pieces):
            if i > 0:
                out.append("".join(current))
                current = []
            if not piece:
                continue
            if cls:
                current.append(f'<span class="{cls}">{esc(piece)}</span>')
            else:
                current.append(esc(piece))
    if current:
        out.append("".join(current))
    # the lexer's newline handling must not change the line count
    if len(out) < len(lines):
        out += [""] * (len(lines) - len(out))
    return [Markup(x) for x in out[: len(lines)]]


def css() -> str:
    """CSS rules for the token classes (empty without Pygments)."""
    if not HAVE_PYGMENTS:
        return ""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style="default").get_style_defs(".code")
