"""The report of each torch.compile test workload, loaded in real headless Chromium.

One subprocess dumps every workload (``make_dumps.py``); each report is then built and every
page visited: no console errors, every link resolves, the key sections are there, and the
workload's graph breaks and recompilations are explained at the right source line.  One
screenshot per workload goes to ``artifacts/report/`` (or ``$PELLUCID_ARTIFACTS/report``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")
playwright = pytest.importorskip("playwright.sync_api")

from report_browser import CHROMIUM_ARGS, check_report, chromium_path  # noqa: E402

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
            html = f.read()
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
