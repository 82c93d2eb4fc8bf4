"""Unit tests of the report's modules, on hand-written dumps (no torch, no browser)."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser

import pytest

from pellucid.report import DumpError, build_report, load_dump
from pellucid.report import highlight as hl
from pellucid.report.fxgraph import parse_fx_graph
from pellucid.report.html import Markup, esc, h, join
from pellucid.report.model import Graph, SourceCache, SourceLoc, recompile_location, resume_parent
from pellucid.report.pages import display_name, stage_title
from pellucid.report.svg import Edge, Node, dot_path, dot_source, render_graph

EVIL = '</script><img src=x onerror="alert(1)">'


# ---------------------------------------------------------------------------------------------
# html


def test_h_escapes_text_and_attributes():
    out = h("a", EVIL, href=f'x.html?"{EVIL}', class_="c", hidden=True, title=None)
    assert "<img" not in out and "</script>" not in out
    assert out.startswith('<a href="x.html?&quot;&lt;/script&gt;') and " hidden" in out
    assert "title" not in out
    assert h("p", Markup("<b>ok</b>"), EVIL).count("<b>") == 1
    assert join(["<", Markup("<br>")], "&") == "&lt;&amp;<br>"
    with pytest.raises(ValueError):
        h("a", **{"on click": "x"})


# ---------------------------------------------------------------------------------------------
# highlighting


@pytest.mark.parametrize("use_pygments", [True, False])
def test_highlight_keeps_lines_and_escapes(use_pygments):
    if use_pygments and not hl.HAVE_PYGMENTS:
        pytest.skip("pygments not installed")
    src = f'x = """a\n\nb"""\n\n\ndef f():\n    return {EVIL!r}  # {EVIL}\n'
    lines = hl.highlight_lines(src, use_pygments)
    assert len(lines) == len(src.splitlines())
    joined = "\n".join(lines)
    assert "<img" not in joined and "&lt;img" in joined
    if use_pygments:
        assert '<span class="k">def</span>' in joined


# ---------------------------------------------------------------------------------------------
# FX graphs

GRAPH = """\
# header


def forward(self, L_x_: "f32[6]", L_y_: "f32[6]"):
    l_x_ = L_x_
    l_y_ = L_y_

    # File: /w/f.py:3 in f, code: z = x.cos() + y
    cos: "f32[6]" = l_x_.cos();  l_x_ = None
    add: "f32[6]" = cos + l_y_;  cos = l_y_ = None
    mm: "f32[6]" = torch.ops.aten.mm.default(add, add)
    sub = self.L__self___lin(mm)
    return (add, sub)
"""


def test_parse_fx_graph():
    g = parse_fx_graph(GRAPH)
    assert g is not None
    names = [n.name for n in g.nodes]
    assert names == ["L_x_", "L_y_", "cos", "add", "mm", "sub", "output"]
    by = {n.name: n for n in g.nodes}
    assert by["cos"].inputs == ["L_x_"] and by["cos"].target == "cos" and by["cos"].type == "f32[6]"
    assert by["add"].inputs == ["cos", "L_y_"] and by["add"].target == "+"
    assert by["mm"].target == "aten.mm"
    assert by["sub"].op == "call_module" and by["sub"].target == "L__self___lin"
    assert by["output"].inputs == ["add", "sub"]
    assert by["cos"].user_code == "/w/f.py:3: z = x.cos() + y"
    assert g.op_count == 4
    assert parse_fx_graph("def call(args):\n    pass\n") is None
    assert parse_fx_graph("def forward(:") is None


def test_parse_fx_graph_flattened_inputs():
    src = (
        "def forward(self, primals, tangents):\n"
        '    primals_1: "f32[2]"; tangents_1: "f32[2]"; \n'
        "    primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"
        "    mul = torch.ops.aten.mul.Tensor(primals_1, tangents_1)\n"
        "    return pytree.tree_unflatten([mul], self._out_spec)\n"
    )
    g = parse_fx_graph(src)
    assert [n.name for n in g.nodes] == ["primals_1", "tangents_1", "mul", "output"]
    assert g.nodes[0].type == "f32[2]"
    assert ("primals_1", "mul") in g.edges and ("mul", "output") in g.edges


# ---------------------------------------------------------------------------------------------
# svg


def _nodes():
    return (
        [
            Node("a", [EVIL, 'x"y\\n'], "frame", href='p.html#"q'),
            Node("b", ["b"]),
            Node("c", ["c"]),
        ],
        [Edge("a", "b", EVIL), Edge("b", "c"), Edge("c", "a", kind="recompile")],  # a cycle
    )


@pytest.mark.parametrize("engine", ["builtin", "dot"])
def test_render_graph_escapes(engine, monkeypatch):
    if engine == "dot" and dot_path() is None:
        pytest.skip("graphviz dot not installed")
    nodes, edges = _nodes()
    svg = render_graph(nodes, edges, engine, prefix="t")
    assert ("dot" if engine == "dot" else "builtin") in svg[:40]
    assert "<svg" in svg and "<img" not in svg and "<script" not in svg
    assert "&lt;/script&gt;" in svg
    assert 'href="p.html#%22q"' in svg or 'href="p.html#&quot;q"' in svg


def test_dot_source_quotes(monkeypatch):
    nodes, edges = _nodes()
    text = dot_source(nodes, edges)
    assert 'x\\"y\\\\n' in text  # quote and backslash escaped for DOT
    monkeypatch.setenv("PELLUCID_NO_DOT", "1")
    assert dot_path() is None
    assert "builtin" in render_graph(nodes, edges, "auto")[:40]


def test_builtin_layout_big_graph_is_fast():
    nodes = [Node(str(i), [f"n{i}"]) for i in range(400)]
    edges = [Edge(str(i), str(j)) for i in range(400) for j in (i + 1, i * 2) if j < 400]
    svg = render_graph(nodes, edges, "builtin")
    assert svg.count("<rect") == 400


# ---------------------------------------------------------------------------------------------
# the model


def test_resume_names():
    assert resume_parent("torch_dynamo_resume_in_f_at_12") == ("f", 12)
    assert resume_parent("torch_dynamo_resume_in_a_at_1_b_at_3") == ("a_at_1_b", 3)
    assert resume_parent("f") is None


def test_recompile_location(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import torch\n\n\ndef f(\n    a,\n    x,\n):\n    return x + a\n")
    sources = SourceCache()
    from pellucid.report.model import Function

    fn = Function("f@m.py:4", "f", str(src), 4, "user", False, None, [])
    loc, var = recompile_location("0/0: tensor 'x' size mismatch at index 0", fn, sources)
    assert (loc.lineno, var, loc.text) == (6, "x", "    x,")
    loc, _ = recompile_location(
        f'0/0: ___stack0 == 1\nUser stack trace:\n  File "{src}", line 8, in f', fn, sources
    )
    assert loc.lineno == 8 and loc.text == "    return x + a"
    loc, _ = recompile_location("0/0: L['a'] == 3  # x + a  # m.py:8 in f", fn, sources)
    assert loc.lineno == 8
    loc, var = recompile_location("0/0: something else", fn, sources)
    assert (loc.lineno, var) == (4, None)


def write_index(d, sessions, **top):
    os.makedirs(d, exist_ok=True)
    data = {"schema": "pellucid-dump-index", "version": 1, "sessions": sessions}
    data.update(top)
    with open(os.path.join(d, "index.json"), "w") as f:
        json.dump(data, f)


def test_load_dump_errors(tmp_path):
    with pytest.raises(DumpError, match="no such directory"):
        load_dump(str(tmp_path / "none"))
    with pytest.raises(DumpError, match="no index.json"):
        load_dump(str(tmp_path))
    (tmp_path / "index.json").write_text("{")
    with pytest.raises(DumpError, match="not readable JSON"):
        load_dump(str(tmp_path))
    (tmp_path / "index.json").write_text('{"schema": "other"}')
    with pytest.raises(DumpError, match="not a pellucid dump index"):
        load_dump(str(tmp_path))


def test_sparse_and_odd_index_still_reports(tmp_path):
    """Missing fields, nulls, unknown fields and wrong types must not break the report."""
    write_index(
        str(tmp_path),
        [
            {},
            {
                "functions": [None, {"name": None, "cache_entries": [{"guards": None}]}],
                "compiles": [
                    {"compile_id": None},
                    {"compile_id": "0/1", "function": "g@<stdin>:1"},
                ],
                "graphs": [{"name": "__compiled_fn_1", "stages": {"captured_graph": "gone.py"}}],
                "graph_breaks": [{"reason": None, "lineno": "x", "user_stack": [None]}],
                "frames_not_compiled": [None, {}, {"user_lineno": "x", "reason": None}],
                "failures": [{"kind": "decompile"}],
                "files": [{"path": "gone.py"}, {"path": "../../../../../../etc/passwd"}],
                "new_field": {"anything": 1},
            },
        ],
        version=7,
    )
    index = build_report(str(tmp_path), str(tmp_path / "out"), engine="builtin")
    html = open(index, encoding="utf-8").read()
    assert "Frames not compiled (2)" in html
    assert "newer than this report knows" in html
    assert "(missing)" in html
    assert 'href="../../' not in html  # nothing outside the dump directory is linked


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        own_script = tag == "script" and attrs == [("src", "graphview.js"), ("defer", None)]
        if tag in ("script", "img", "iframe", "object") and not own_script:
            self.bad.append(tag)
        self.bad += [f"{tag} {k}" for k, _ in attrs if k.startswith("on")]


def hostile_dump(d):
    """A dump whose every string is an injection attempt (as a buggy or hostile program makes)."""
    src = os.path.join(d, "src")
    os.makedirs(src, exist_ok=True)
    user = os.path.join(src, "user<b>.py")
    with open(user, "w") as f:
        f.write(f"def f(x):\n    s = {EVIL!r}\n    print(s)\n    return x\n")
    with open(os.path.join(d, "__compiled_fn_1.captured_graph.py"), "w") as f:
        f.write(f'def forward(self, L_x_: "{EVIL}"):\n    y = L_x_.cos()\n    return (y,)\n')
    with open(os.path.join(d, "t.py"), "w") as f:
        f.write(f"def t():\n    return {EVIL!r}\n")
    key = f"{EVIL}@{user}:1"
    write_index(
        d,
        [
            {
                "id": EVIL,
                "argv": [EVIL],
                "functions": [
                    {
                        "key": key,
                        "name": EVIL,
                        "filename": user,
                        "firstlineno": 1,
                        "kind": "user",
                        "full_code_file": "t.py",
                        "cache_entries": [
                            {
                                "index": 0,
                                "compile_id": "0/0",
                                "guard_file": EVIL,
                                "guards": [
                                    {"code": EVIL, "comment": EVIL, "python": False, "text": EVIL}
                                ],
                                "failed_guards": [f"0/0: L['x'] == {EVIL}"],
                                "transformed_code_file": "t.py",
                                "graphs": ["__compiled_fn_1"],
                                "resume_functions": [EVIL],
                            }
                        ],
                    }
                ],
                "compiles": [
                    {
                        "compile_id": "0/0",
                        "function": key,
                        "transformed_code_file": "t.py",
                        "graphs": ["__compiled_fn_1"],
                        "times_s": {"entire_frame": 0.5, EVIL: 1},
                    },
                    {
                        "compile_id": "0/1",
                        "function": key,
                        "recompile_reason": f"0/0: L['x'] == {EVIL}",
                        "failure": EVIL,
                    },
                ],
                "graphs": [
                    {
                        "name": "__compiled_fn_1",
                        "compile_id": "0/0",
                        "stages": {
                            "captured_graph": "__compiled_fn_1.captured_graph.py",
                            EVIL: "t.py",
                        },
                    }
                ],
                "graph_breaks": [
                    {
                        "compile_id": "0/0",
                        "function": EVIL,
                        "reason": f"{EVIL}\n  Explanation: {EVIL}\n  Hint: {EVIL}",
                        "filename": user,
                        "lineno": 3,
                        "user_stack": [{"filename": user, "lineno": 3, "name": EVIL}] * 2,
                    }
                ],
                "frames_not_compiled": [
                    {
                        "compile_id": EVIL,
                        "function": EVIL,
                        "filename": user,
                        "firstlineno": 1,
                        "error": EVIL,
                        "reason": f"{EVIL}\n  Explanation: {EVIL}\n  Hint: {EVIL}",
                        "user_filename": user,
                        "user_lineno": 3,
                    }
                ],
                "failures": [{"kind": EVIL, "where": EVIL, "reason": EVIL, "compile_id": EVIL}],
                "messages": [EVIL],
                "files": [{"path": "t.py", "kind": EVIL, "function": EVIL}],
            }
        ],
        torch_version=EVIL,
    )
    with open(os.path.join(d, "pellucid_run.json"), "w") as f:
        json.dump(
            {"command": [EVIL], "exit_code": 1, "exception": EVIL, "counters": {EVIL: {EVIL: 1}}}, f
        )


@pytest.mark.parametrize("engine,pyg", [("builtin", False), ("auto", None)])
def test_hostile_strings_are_escaped_everywhere(tmp_path, engine, pyg):
    d = str(tmp_path / "dump")
    hostile_dump(d)
    index = build_report(d, str(tmp_path / "out"), engine=engine, use_pygments=pyg)
    assert len(index.pages) >= 3
    for name in index.pages:
        html = open(os.path.join(tmp_path / "out", name), encoding="utf-8").read()
        p = _Tags()
        p.feed(html)
        assert not p.bad, (name, p.bad)
        html = html.replace('<script src="graphview.js" defer></script>', "", 1)
        assert "<img" not in html and "</script><" not in html
    main = open(index, encoding="utf-8").read()
    assert "&lt;/script&gt;&lt;img" in main
    assert 'id="s0-graph-breaks"' not in main and 'id="graph-breaks"' in main


def test_subgraph_stages_follow_their_parent():
    stages = {
        "inductor_forward": "i.py",
        "aot_forward_graph.true_graph_0": "at.py",
        "captured_graph.cond_true_0": "ct.py",
        "aot_forward_graph": "a.py",
        "captured_graph": "c.py",
        "odd": "o.py",
        "inductor_forward_part1": "i1.py",
        "aot_forward_graph_part1": "a1.py",
    }
    g = Graph("__compiled_fn_1", "0/0", stages, None, {})
    assert [s for s, _ in g.ordered_stages()] == [
        "captured_graph", "captured_graph.cond_true_0", "aot_forward_graph",
        "aot_forward_graph.true_graph_0", "inductor_forward", "odd",
        "aot_forward_graph_part1", "inductor_forward_part1",
    ]
    assert stage_title("captured_graph.cond_true_0") == "captured graph (Dynamo) › subgraph cond_true_0"
    assert stage_title("odd") == "odd"
    assert stage_title("aot_forward_graph_part1") == "forward graph (AOTAutograd), part 1 of the split graph"


def test_display_name():
    from pellucid.report.model import Function

    fn = Function("k", "torch_dynamo_resume_in_f_at_3", "x.py", 3, "resume", False, None, [])
    assert display_name(fn) == "f (resumed at line 3)"
    assert display_name(None, "k") == "k"
    assert esc(SourceLoc("a", 1).filename) == "a"


def test_multi_session_dump_links_resolve(tmp_path):
    """Two prepare_debug sessions (e.g. two torchrun ranks) in one dump: pages and anchors per session."""
    from report_browser import static_link_problems

    d = str(tmp_path / "dump")
    hostile_dump(d)
    with open(os.path.join(d, "index.json")) as f:
        data = json.load(f)
    second = json.loads(json.dumps(data["sessions"][0]))
    second["id"], second["pid"], second["rank"] = "2", 2, "1"
    data["sessions"].append(second)
    with open(os.path.join(d, "index.json"), "w") as f:
        json.dump(data, f)
    for engine in ("builtin", "auto"):
        out = str(tmp_path / f"out-{engine}")
        index = build_report(d, out, engine=engine)
        assert any(p.startswith("s1-") for p in index.pages), index.pages
        html = open(index, encoding="utf-8").read()
        assert 'id="s1-graph-breaks"' in html and "Session 2" in html
        assert static_link_problems(out) == []


def test_break_inside_a_called_helper_marks_the_call(tmp_path):
    d = tmp_path / "dump"
    d.mkdir()
    user = tmp_path / "prog.py"
    user.write_text(
        "def f(x):\n    y = x + 1\n    y = helper(y)\n    return y\n\n\n"
        "def helper(y):\n    print(y)\n    return y\n"
    )
    key = f"f@{user}:1"
    write_index(
        str(d),
        [
            {
                "functions": [{"key": key, "name": "f", "filename": str(user), "firstlineno": 1}],
                "compiles": [{"compile_id": "0/0", "function": key}],
                "graph_breaks": [
                    {
                        "compile_id": "0/0",
                        "function": "helper",
                        "reason": "Failed to trace builtin operator",
                        "filename": str(user),
                        "lineno": 8,
                        "user_stack": [
                            {"filename": str(user), "lineno": 3, "name": "f"},
                            {"filename": str(user), "lineno": 8, "name": "helper"},
                        ],
                    }
                ],
            }
        ],
    )
    index = build_report(str(d), str(tmp_path / "out"), engine="builtin")
    page = next(p for p in index.pages if "-fn0-f" in p)
    html = open(os.path.join(tmp_path / "out", page), encoding="utf-8").read()
    assert 'id="src-L3" class="mark-break"' in html
    assert "inside this call, at prog.py:8" in html
    assert 'id="src-L8"' in html  # the helper's line is shown too, so links to it resolve


def test_frame_pages_show_the_verification_verdict(tmp_path):
    """A frame proven equivalent runs from its file and says so; one that is not says that
    Dynamo's bytecode runs and why its file is for reading only."""
    d = str(tmp_path)
    for name in ("__transformed_code_0_for_f.py", "__transformed_code_1_for_f.py"):
        with open(os.path.join(d, name), "w") as f:
            f.write("def x():\n    pass\n")
    write_index(
        d,
        [
            {
                "functions": [{"key": "f@m.py:1", "name": "f", "filename": "m.py", "firstlineno": 1}],
                "compiles": [
                    {"compile_id": "0/0", "function": "f@m.py:1", "verification": "equivalent",
                     "transformed_code_file": "__transformed_code_0_for_f.py",
                     "executed_from_file": True},
                    {"compile_id": "0/1", "function": "f@m.py:1",
                     "verification": "not-verified: a loop that is not over an iterable",
                     "transformed_code_file": "__transformed_code_1_for_f.py",
                     "executed_from_file": False},
                ],
            }
        ],
    )
    build_report(d, str(tmp_path / "out"), engine="builtin")
    pages = ""
    for root, _, files in os.walk(tmp_path / "out"):
        for name in files:
            if name.endswith(".html"):
                pages += open(os.path.join(root, name), encoding="utf-8").read()
    assert "proven equivalent" in pages
    assert "not proven equivalent" in pages
    assert "a loop that is not over an iterable" in pages
