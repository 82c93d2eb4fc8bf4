"""Load a generated report in headless Chromium and check it (used by test_report_browser.py).

The browser is the system one (Debian ``chromium``) driven by Playwright; nothing is downloaded.
``check_report`` visits every page, records console errors, page errors, failed requests and
dialogs, and checks every link: fragments must name an element of their page, relative and
``file://`` links an existing file, and nothing may point off the machine.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlparse

GRAPH_SCRIPT = "graphview.js"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for cand in (
        os.environ.get("PELLUCID_CHROMIUM"),
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
    ):
        if cand and os.path.isfile(cand):
            return cand
    return shutil.which("chromium")


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.scripts = 0
        self.handlers: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            # the one script a report may have: its own graph viewer, a local file
            if dict(attrs).get("src") != GRAPH_SCRIPT or len(attrs) > 2:
                self.scripts += 1
        for k, v in attrs:
            if k == "id" and v:
                self.ids.add(v)
            if k in ("href", "xlink:href", "src") and v is not None:
                self.links.append(v)
            if k.startswith("on"):
                self.handlers.append(f"<{tag} {k}={v!r}>")


def page_ids(path: str) -> _Ids:
    p = _Ids()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


@dataclass
class ReportCheck:
    pages: list[str] = field(default_factory=list)
    links: int = 0
    problems: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # page name -> visible text


def check_report(browser, out_dir: str, screenshot: str | None = None) -> ReportCheck:
    """Visit every page of the report in ``out_dir``; return what was found wrong."""
    result = ReportCheck()
    pages = sorted(glob.glob(os.path.join(out_dir, "*.html")))
    parsed = {os.path.abspath(p): page_ids(p) for p in pages}
    for path, ids in parsed.items():
        if ids.scripts:
            result.problems.append(
                f"{os.path.basename(path)}: has <script> elements other than {GRAPH_SCRIPT}"
            )
        if ids.handlers:
            result.problems.append(
                f"{os.path.basename(path)}: event handler attributes {ids.handlers[:3]}"
            )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on(
        "console",
        lambda m: result.console.append(f"{m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: result.console.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: result.console.append(f"requestfailed: {r.url}"))

    def on_dialog(d):
        result.console.append(f"dialog: {d.message}")
        d.dismiss()

    page.on("dialog", on_dialog)
    try:
        for path in pages:
            name = os.path.basename(path)
            result.pages.append(name)
            url = "file://" + os.path.abspath(path)
            page.goto(url, wait_until="load")
            if page.evaluate("() => window.__pwned") is not None:
                result.problems.append(f"{name}: injected script ran")
            result.texts[name] = page.inner_text("body")
            hrefs = page.eval_on_selector_all(
                "a, link, area",
                "els => els.map(e => e.getAttribute('href') ?? "
                "e.getAttributeNS('http://www.w3.org/1999/xlink', 'href')).filter(x => x !== null)",
            )
            srcs = page.eval_on_selector_all("[src]", "els => els.map(e => e.getAttribute('src'))")
            for href in [*hrefs, *[s for s in srcs if s]]:
                result.links += 1
                problem = _check_link(url, href, parsed)
                if problem:
                    result.problems.append(f"{name}: {problem}")
            if screenshot and name == "index.html":
                os.makedirs(os.path.dirname(screenshot), exist_ok=True)
                page.screenshot(path=screenshot, full_page=True)
    finally:
        context.close()
    return result


def _check_link(page_url: str, href: str, parsed: dict) -> str | None:
    if href is None or href == "":
        return "empty link"
    target = urljoin(page_url, href)
    u = urlparse(target)
    if u.scheme != "file":
        return f"link leaves the machine or is not a file: {href!r}"
    path = unquote(u.path)
    if not os.path.exists(path):
        return f"broken link {href!r} -> {path}"
    if u.fragment:
        ids = parsed.get(os.path.abspath(path))
        if ids is None:
            return f"fragment link into a file that is not a report page: {href!r}"
        if unquote(u.fragment) not in ids.ids:
            return f"no element with id {u.fragment!r} for link {href!r}"
    return None


def static_link_problems(out_dir: str) -> list[str]:
    """The link checks of :func:`check_report` without a browser (parsed HTML only)."""
    pages = sorted(glob.glob(os.path.join(out_dir, "*.html")))
    parsed = {os.path.abspath(p): page_ids(p) for p in pages}
    problems = []
    for path, ids in parsed.items():
        url = "file://" + path
        for href in ids.links:
            problem = _check_link(url, href, parsed)
            if problem:
                problems.append(f"{os.path.basename(path)}: {problem}")
        if ids.scripts or ids.handlers:
            problems.append(f"{os.path.basename(path)}: scripts or event handlers")
    return problems
