"""The report's one stylesheet (written next to the pages; no fonts or CDNs)."""

from __future__ import annotations

from pellucid.report import graphview, highlight

CSS = """
:root { --fg:#1d1d1f; --muted:#666; --line:#ddd; --bg:#fff; --soft:#f7f7f9;
        --break:#c62828; --break-bg:#fdecec; --recompile:#b35900; --recompile-bg:#fff2e0;
        --ok:#2e7d32; --link:#1a56c4; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
       background: var(--bg); margin: 0; }
header.top { background: #20232a; color: #fff; padding: 10px 24px; }
header.top a { color: #9cc3ff; }
header.top .crumbs { font-size: 13px; }
main { padding: 12px 24px 60px; max-width: 1500px; }
h1 { font-size: 22px; margin: 14px 0 6px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
h4 { font-size: 14px; margin: 12px 0 4px; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.help { color: var(--muted); max-width: 60em; }
.pill { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; background: var(--soft);
        border: 1px solid var(--line); margin-right: 4px; white-space: nowrap; }
.pill.bad, .bad { color: var(--break); }
.pill.bad { background: var(--break-bg); border-color: #f3b4b4; }
.pill.warn { color: var(--recompile); background: var(--recompile-bg); border-color: #f1cf9f; }
.pill.good { color: var(--ok); }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 120px; background: var(--soft); }
.card .n { font-size: 22px; font-weight: 600; }
.card.bad { border-color: #f3b4b4; background: var(--break-bg); }
.card.warn { border-color: #f1cf9f; background: var(--recompile-bg); }
div.wide { overflow-x: auto; }
table.list { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
table.list th, table.list td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
table.list th { background: var(--soft); font-weight: 600; font-size: 13px; }
table.list td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td { background: var(--break-bg); }
.event { border: 1px solid var(--line); border-left: 4px solid var(--break); border-radius: 6px; padding: 8px 12px;
         margin: 10px 0; background: #fff; }
.event.recompile { border-left-color: var(--recompile); }
.event.failure { border-left-color: var(--break); background: var(--break-bg); }
.event .where { font-weight: 600; }
.event .line { background: var(--soft); padding: 4px 8px; border-radius: 4px; margin: 6px 0; overflow-x: auto; white-space: pre; }
details > summary { cursor: pointer; color: var(--link); margin: 4px 0; }
pre.reason { white-space: pre-wrap; background: var(--soft); padding: 8px; border-radius: 4px; margin: 4px 0; }
table.code { border-collapse: collapse; width: 100%; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
ul.hints { margin: 2px 0; color: #444; font-size: 13px; }
table.code td { padding: 0 6px; vertical-align: top; }
table.code td.no { color: #999; text-align: right; user-select: none; width: 1%; white-space: nowrap;
                   border-right: 1px solid var(--line); }
table.code td.src { white-space: pre; }
table.code td.note { white-space: normal; font-family: system-ui, sans-serif; font-size: 12px; width: 34%; }
table.code tr.mark-break td { background: var(--break-bg); }
table.code tr.mark-break td.note { color: var(--break); }
table.code tr.mark-recompile td { background: var(--recompile-bg); }
table.code tr.mark-recompile td.note { color: var(--recompile); }
table.code tr.mark-resume td { background: #eef7ee; }
table.code tr:target td { outline: 2px solid #ffcc00; }
.codebox { border: 1px solid var(--line); border-radius: 6px; overflow: auto; max-height: 640px; background: #fff; }
.codebox .title { position: sticky; top: 0; background: var(--soft); border-bottom: 1px solid var(--line);
                  padding: 3px 8px; font-size: 12px; z-index: 1; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; align-items: start; }
@media (max-width: 1000px) { .side { grid-template-columns: 1fr; } }
.graph { overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 6px; background: #fff; max-height: 720px; }
.graph svg { display: block; }
.compile { border: 1px solid var(--line); border-radius: 8px; padding: 4px 14px 12px; margin: 14px 0; }
.compile.failed { border-color: #f3b4b4; }
.compile > h3 { margin-top: 10px; }
ul.guards { list-style: none; padding-left: 0; margin: 4px 0; }
ul.guards li { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; padding: 1px 0;
               white-space: pre-wrap; word-break: break-all; }
ul.guards li .comment { color: #7a7a7a; }
ul.guards li.not-python { color: #555; }
ul.guards li.failed { background: var(--recompile-bg); }
.legend span { margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 4px; vertical-align: -2px; border: 1px solid #888; }
nav.toc { font-size: 13px; margin: 6px 0 10px; }
nav.toc a { margin-right: 14px; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; }
"""


def stylesheet() -> str:
    """The CSS file's text (with Pygments' token colors when Pygments is installed)."""
    return CSS + graphview.CSS + "\n" + highlight.css() + "\n"
