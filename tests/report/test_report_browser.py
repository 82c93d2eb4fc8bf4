"""The report of each torch.compile test workload, loaded in real headless Chromium.

One subprocess dumps every workload (``make_dumps.py``); each report is then built and every
page visited: no console errors, every link resolves, the key sections are there, and the
workload's graph breaks and recompilations are explained at the right source line.  One
screenshot per workload goes to ``artifacts/report/`` (or ``$PELLUCID_ARTIFACTS/report``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")
playwright = pytest.importorskip("playwright.sync_api")

from report_browser import (  # noqa: E402
    CHROMIUM_ARGS,
    GRAPH_SCRIPT,
    check_report,
    chromium_path,
)

from pellucid.report import build_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARTIFACTS = os.path.join(
    os.environ.get("PELLUCID_ARTIFACTS", os.path.join(ROOT, "artifacts")), "report"
)

# name -> backend; inductor once, for its output-code stage
WORKLOADS = {
    "readme": "eager",
    "graph_breaks": "eager",
    "dynamic_auto": "eager",
    "mlp_backward": "aot_eager",
    "method": "inductor",
    "higher_order_ops": "aot_eager",
    "hostile": "eager",
    "gpt2": "aot_eager",  # a 348-node AOT joint graph
}
HOSTILE = '</script><img src=x onerror="window.__pwned=1">'


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("report_dumps"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "src") + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "make_dumps.py"), root]
        + [f"{n}:{b}" for n, b in WORKLOADS.items()],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    print(f"dumps made in {time.perf_counter() - t0:.1f}s")
    return root


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        pytest.skip("no system Chromium (Debian packages chromium and chromium-driver)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def build_and_check(dumps, browser, name, engine="auto", suffix=""):
    dump = os.path.join(dumps, name)
    assert os.path.isfile(os.path.join(dump, "index.json")), f"{name}: no index"
    out = os.path.join(dumps, f"{name}-report{suffix}")
    index = build_report(dump, out, engine=engine)
    assert os.path.isfile(index)
    check = check_report(browser, out, os.path.join(ARTIFACTS, f"{name}{suffix}.png"))
    assert check.pages and "index.html" in check.pages
    assert not check.console, check.console
    assert not check.problems, check.problems[:20]
    error = os.path.join(dumps, name + ".error")
    return check, (open(error).read() if os.path.exists(error) else None)


def test_readme_report(dumps, browser):
    check, _ = build_and_check(dumps, browser, "readme")
    text = check.texts["index.html"]
    for section in ("Graph breaks (1)", "Recompilations (0)", "Compiled functions"):
        assert section in text
    assert "workloads.py:30" in text  # if b.sum() < 0:
    assert "Data-dependent branching" in text
    assert "Dynamo compile time" in text and "pellucid's own time" in text
    fn_page = next(p for p in check.pages if "toy_example" in p)
    assert "graph break 1" in check.texts[fn_page]
    with open(os.path.join(dumps, "readme-report", fn_page), encoding="utf-8") as f:
        html = f.read()
    assert 'id="src-L30" class="mark-break"' in html
    assert "<svg" in html  # the frame / graph break / resume picture


def test_graph_breaks_report(dumps, browser):
    check, _ = build_and_check(dumps, browser, "graph_breaks")
    text = check.texts["index.html"]
    for line in (87, 88, 89):
        assert f"workloads.py:{line}" in text
    assert "Recompilations (1)" in text
    assert "Unsupported Tensor.item() call" in text


def test_graph_breaks_report_builtin_graphs(dumps, browser):
    check, _ = build_and_check(dumps, browser, "graph_breaks", engine="builtin", suffix="-builtin")
    assert "Graph breaks (" in check.texts["index.html"]


def test_dynamic_report_explains_recompilation(dumps, browser):
    check, _ = build_and_check(dumps, browser, "dynamic_auto")
    text = check.texts["index.html"]
    assert "Recompilation 1" in text
    assert "size mismatch" in text
    # the failed guard is on x: the line of dynamic_fn's signature
    assert "workloads.py:71" in text and "the guard on local x" in text
    assert "mark_dynamic" in text  # what a size mismatch means


def test_mlp_backward_report_has_aot_stages(dumps, browser):
    check, _ = build_and_check(dumps, browser, "mlp_backward")
    graph_pages = [p for p in check.pages if "compiled_fn" in p]
    assert graph_pages
    texts = "\n".join(check.texts[p] for p in graph_pages)
    assert "joint graph (AOTAutograd)" in texts
    assert "backward graph (AOTAutograd)" in texts


def test_higher_order_op_subgraphs_are_shown_after_their_graph(dumps, browser):
    check, _ = build_and_check(dumps, browser, "higher_order_ops")
    texts = "\n".join(check.texts[p] for p in check.pages if "compiled_fn" in p)
    for sub in ("cond_true_0", "cond_false_0", "wrap_body_0"):
        assert f"captured graph (Dynamo) › subgraph {sub}" in texts, sub
    assert "forward graph (AOTAutograd) › subgraph true_graph_0" in texts
    first = texts.index("captured graph (Dynamo) › subgraph")
    assert texts.index("captured graph (Dynamo)") < first < texts.index("forward graph (AOTAutograd)")


def test_inductor_report_has_output_code(dumps, browser):
    check, _ = build_and_check(dumps, browser, "method")
    texts = "\n".join(check.texts[p] for p in check.pages if "compiled_fn" in p)
    assert "Inductor output code, forward" in texts


def test_hostile_names_are_text(dumps, browser):
    check, _ = build_and_check(dumps, browser, "hostile")
    text = check.texts["index.html"]
    assert HOSTILE in text  # shown as text, never run
    assert "Recompilation 1" in text
    out = os.path.join(dumps, "hostile-report")
    for name in check.pages:
        with open(os.path.join(out, name), encoding="utf-8") as f:
            html = f.read().replace(f'<script src="{GRAPH_SCRIPT}" defer></script>', "", 1)
        assert "<img" not in html and "</script><" not in html, name


def test_checker_catches_broken_pages(tmp_path, browser):
    """The checks above would see a broken link, a script, an injection and a console error."""
    (tmp_path / "index.html").write_text(
        '<html><body><a href="#nope">x</a><a href="missing.html">y</a>'
        '<a href="https://example.com/">z</a>'
        '<svg xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="gone.py"><text>t</text></a></svg>'
        '<img src=x onerror="window.__pwned=1"><script>console.error("boom")</script></body></html>'
    )
    check = check_report(browser, str(tmp_path))
    text = "\n".join(check.problems)
    for needle in (
        "'nope'",
        "missing.html",
        "leaves the machine",
        "gone.py",
        "injected script ran",
        "<script>",
    ):
        assert needle in text, (needle, check.problems)
    assert any("boom" in c for c in check.console)


# --- large graphs: fit, zoom, pan, search, collapsed by source line ---------------------------

GRAPH_STATE = """holder => {
    const svg = holder.querySelector('svg'), r = holder.getBoundingClientRect();
    const s = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
    return {holder: [r.left, r.top, r.right, r.bottom], svg: [s.left, s.top, s.right, s.bottom],
            vb: [vb.x, vb.y, vb.width, vb.height], nodes: svg.querySelectorAll('g.node').length,
            status: holder.parentNode.querySelector('.graphstatus').textContent};
}"""


def _graph_pages(dumps, browser, name):
    check, _ = build_and_check(dumps, browser, name)
    out = os.path.join(dumps, f"{name}-report")
    return [p for p in check.pages if p not in ("index.html",) and "compiled_fn" in p], out


def test_large_graph_opens_collapsed_and_fitted_and_navigates(dumps, browser):
    pages, out = _graph_pages(dumps, browser, "gpt2")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    largest = None  # (nodes, page, index of the picture on its page)
    for name in pages:
        page.goto("file://" + os.path.join(out, name), wait_until="load")
        summaries = page.locator("details.allnodes > summary")
        for k in range(summaries.count()):
            n = int(re.search(r"All (\d+) nodes", summaries.nth(k).inner_text()).group(1))
            if largest is None or n > largest[0]:
                largest = (n, name, k)
    assert largest is not None, "no graph of the GPT-2 run was collapsed"
    n_nodes, name, k = largest
    assert n_nodes >= 300, n_nodes  # the joint graph
    page.goto("file://" + os.path.join(out, name), wait_until="load")
    holder = page.locator("div.graph.grouped").nth(k)
    holder.scroll_into_view_if_needed()
    state = holder.evaluate(GRAPH_STATE)
    assert 5 < state["nodes"] < n_nodes / 3, state  # one box per source line
    # fitted: the whole picture inside the window's width and the holder
    hx0, hy0, hx1, hy1 = state["holder"]
    assert 0 <= hx0 and hx1 <= 1280, state
    os.makedirs(ARTIFACTS, exist_ok=True)
    holder.screenshot(path=os.path.join(ARTIFACTS, "large-graph-collapsed.png"))
    # zoom in with the wheel over the picture: the view gets narrower
    box = holder.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -400)
    zoomed = holder.evaluate(GRAPH_STATE)
    assert zoomed["vb"][2] < state["vb"][2], (state["vb"], zoomed["vb"])
    # pan by dragging
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 150, box["y"] + box["height"] / 2 + 40, steps=5)
    page.mouse.up()
    panned = holder.evaluate(GRAPH_STATE)
    assert panned["vb"][0] < zoomed["vb"][0], (zoomed["vb"], panned["vb"])
    # Fit shows everything again
    holder.locator("xpath=..").locator("button", has_text="Fit").click()
    assert holder.evaluate(GRAPH_STATE)["vb"] == state["vb"]
    # the whole graph, node by node, one click away; search finds a node and centres it
    page.locator("details.allnodes summary").nth(k).click()
    full = page.locator("details.allnodes").nth(k).locator("div.graph")
    assert full.evaluate(GRAPH_STATE)["nodes"] == n_nodes
    search = page.locator("details.allnodes").nth(k).locator(".graphbar input")
    search.fill("addmm")
    found = full.evaluate(GRAPH_STATE)
    assert re.fullmatch(r"1 of \d+", found["status"]), found["status"]
    current = full.locator("g.node.current")
    assert current.count() == 1
    c = current.bounding_box()
    fx0, fy0, fx1, fy1 = found["holder"]
    assert fx0 <= c["x"] and c["x"] + c["width"] <= fx1 and fy0 <= c["y"] <= fy1, (c, found)
    assert "addmm" in (current.text_content() or "")
    full.screenshot(path=os.path.join(ARTIFACTS, "large-graph-search.png"))
    assert not errors, errors
    context.close()


def test_small_graph_is_drawn_whole_and_fitted(dumps, browser):
    pages, out = _graph_pages(dumps, browser, "readme")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto("file://" + os.path.join(out, pages[0]), wait_until="load")
    assert page.locator("div.graph.grouped").count() == 0  # small: no collapsing
    holder = page.locator("div.graph.fx").first
    state = holder.evaluate(GRAPH_STATE)
    assert state["nodes"] > 3
    sx0, sy0, sx1, sy1 = state["svg"]
    hx0, hy0, hx1, hy1 = state["holder"]
    assert hx0 - 1 <= sx0 and sx1 <= hx1 + 1 and hx1 <= 1280, state
    holder.screenshot(path=os.path.join(ARTIFACTS, "small-graph.png"))
    context.close()
