"""Fast tests of the pieces: guards text, dump-dir files, the code contract, the adapter."""

from __future__ import annotations

import multiprocessing
import os
import types

import pytest

from pellucid.dynamo import adapter, guards, recompile
from pellucid.dynamo.files import DumpDir, safe_name

TORCH_213_PARTS = [
    "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None",
    '___check_global_state() against {"allow_tf32":false,"grad_mode":true}',
    "___check_torch_function_mode_stack()",
    "check_tensor(L['a'], Tensor, DispatchKeySet(CPU, BackendSelect), torch.float32, "
    "device=None, requires_grad=False, size=[10], stride=[1])",
    "___check_obj_id(G['torch'], 139767994110240), type=<class 'module'>",
    "hasattr(L['a'], '_dynamo_dynamic_indices') == False",
    "L['x'].size()[0] == 3  # x.size(0) == 3 user.py:10",
]


def test_guard_parts_translate_and_compile():
    terms = [guards.translate_part(p) for p in TORCH_213_PARTS]
    assert terms[0].code == "True" and "top_saved_tensors_hooks" in terms[0].comment
    assert terms[1].code == "___check_global_state()" and terms[1].comment.startswith("against")
    assert terms[2].is_python
    assert terms[4].code == "___check_obj_id(G['torch'], 139767994110240)"
    assert terms[4].comment == "type=<class 'module'>"
    src = guards.guard_function_source(
        "__guard_0_for_f", TORCH_213_PARTS, title="t", failed=["0/0: size mismatch"]
    )
    compile(src, "g.py", "exec")
    ns = {}
    exec(compile(src, "g.py", "exec"), ns)
    assert "__guard_0_for_f" in ns
    assert "# This cache entry's guard failed" in src


def _reference(part: str) -> guards.GuardTerm:
    """The term of ``part`` from its own parse, nothing shared with other parts."""
    guards.clear_caches()
    return guards.translate_part(part)


def test_parts_of_one_shape_share_a_parse_and_get_the_terms_of_their_own(monkeypatch):
    """Parts that differ only in plain string contents and decimal integers are parsed once;
    each still gets exactly the term its own parse gives."""
    parts = TORCH_213_PARTS + [
        "hasattr(L['b'], '_dynamo_dynamic_indices') == False",
        "___check_obj_id(G['np'], 140095806394496), type=<class 'module'>",
        "___check_obj_id(G['x'], 12)  # a comment",
        "L['s'] == 'x # y'",  # a '#' in a string: not shaped like 'x'
        "L['s'] == \"it's\" and L['t'] == 's'",
        "L['n'] if 3 else 4",
        "L['n'] if 5 else 6",
        "f(0x1f, 1e5, 1_000, 007, 1.5, 2j)",
        "f(0x2f, 2e5, 2_000, 007, 2.5, 3j)",
        "L['a'] + rb'xy' 'z'",
        "x = 1",
        "'''triple''' == L['q']",
        "L['e'] == 'a\\'b'",
        "a b c",
        "a  #",  # an empty comment
        "L['s'] == '#'  # the second '#' starts it",
        "L['\u00e9'] == 1  # after a non-ASCII string",
        "f(1.e5)",
        "f(1.ab)",
        "f'{a!r}' == L['x']",
        "f'{a!z}' == L['x']",
        "L['a']  # type=<class 'module'>",
        "L['b']  # type=<class 'dict'>",
        "L['a'] or L['b']  # c",
    ]
    expected = [_reference(p) for p in parts]  # each parsed on its own, caches emptied
    guards.clear_caches()
    calls = []
    real = guards._term
    monkeypatch.setattr(guards, "_term", lambda t: calls.append(t) or real(t))
    got = [guards.translate_part(p) for p in parts]
    assert got == expected
    assert len(calls) < len(parts)  # the shared shapes were not parsed again
    src = guards.guard_function_source("__guard_0_for_f", parts)
    compile(src, "g.py", "exec")


_ATOMS = [
    "a", "b1", "x", "_", "L", "type", "against", "True", "None", "print", "\u03bb", "a\u00b2",
    "1", "12", "0", "1.5", "[1, 2]", "[3]", "1, 2", "False", "isTrue", "x.True", "1.e5", "1.ab", "0x1f", "2j", "1_0", "'a'", "'x y'", '"b"', "'#'",
    "f'{a!r}'", "f'{a!z}'", "rb'x'", "'a.b'", "''", "`",
]
_GLUE = [
    "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "==", "!=", "<", "+", "-", " ", " ",
    " if ", " else ", " and ", " or ", " not ", " is ", " in ", "lambda ", "await ", "yield ",
    " for ", " class ", " against ", ", type=", "  # ", " # ", "#", "!", "'", "\\",
]


def _random_part(rng) -> str:
    """Token soup, or a call/compare/subscript made of atoms, maybe with a tail Dynamo adds."""
    if rng.random() < 0.5:
        return "".join(rng.choice(_ATOMS + _GLUE) for _ in range(rng.randrange(1, 9)))
    atom = lambda: rng.choice(_ATOMS)  # noqa: E731
    forms = [
        lambda: f"{atom()}({atom()}, {atom()})",
        lambda: f"{atom()}[{atom()}].{atom()} == {atom()}",
        lambda: f"{atom()}({atom()}[{atom()}], {atom()}={atom()}, size=[{atom()}, {atom()}])",
        lambda: f"{atom()} if {atom()} else {atom()}",
        lambda: f"not {atom()}.{atom()}",
        lambda: f"({atom()}, {atom()})",
    ]
    text = rng.choice(forms)()
    tails = ["", "", ", type=<class 'm'>", ", type==1", " against {\"k\":1}", "  # n's", "  # c", "  #"]
    return text + rng.choice(tails)


def test_shared_verdicts_equal_each_part_s_own_parse():
    """Whatever parts come, in whatever order: the term a part gets through a shape it
    shares with earlier parts is the term its own parse gives, and it compiles."""
    import random
    import warnings

    rng = random.Random(7)
    guards.clear_caches()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # ("bytes indices must be integers")
        shared = _translate_random_parts(rng, 30000)
    assert shared > 500  # (the test exercised sharing)


def _own_parse_term(part: str) -> guards.GuardTerm:
    """The term of ``part`` the slow way: the whole parsed first, then each splitter's head."""
    text = part.strip()
    whole = guards._term(text)
    verdict: tuple = ("none",)
    if whole is not None:
        paren, at = whole
        verdict = ("comment", text.count("#", 0, at), paren) if at >= 0 else ("whole", paren)
    else:
        for sep in guards._SPLITTERS:
            if sep in text:
                term = guards._term(text.partition(sep)[0].strip())
                if term is not None and term[1] < 0:
                    verdict = ("split", sep, term[0])
                    break
    return guards._apply(verdict, text, part)


def _translate_random_parts(rng, count: int) -> int:
    shared = 0
    for _ in range(count):
        part = _random_part(rng)
        key = guards._shape(part.strip())
        shared += key in guards._VERDICTS
        got = guards.translate_part(part)
        want = _own_parse_term(part)
        assert got == want, part
        compile(f"def g(L, G):\n    return (\n        {got.code}\n    )\n", "g.py", "exec")
    return shared


def test_guard_function_with_nothing_python_still_compiles():
    src = guards.guard_function_source("__guard_1_for_g", ["a b c", "", "x ==== y"])
    compile(src, "g.py", "exec")


def test_write_unique_is_stable_and_dedups(tmp_path):
    d = DumpDir(str(tmp_path))
    p1, n1, w1 = d.write_unique("f_{n}.py", lambda n: "A")
    p2, n2, w2 = d.write_unique("f_{n}.py", lambda n: "A")
    p3, n3, w3 = d.write_unique("f_{n}.py", lambda n: "B")
    assert (n1, w1) == (0, True) and (p2, n2, w2) == (p1, 0, False) and (n3, w3) == (1, True)
    q1, _ = d.write_named("full_code_for_f.py", "X")
    q2, w = d.write_named("full_code_for_f.py", "Y")
    assert os.path.basename(q2) == "full_code_for_f.1.py" and w
    assert safe_name("<lambda>") == "_lambda_"


def test_a_file_cut_short_or_not_utf8_is_passed_over_not_reused(tmp_path):
    """A file a crash left half-written (or any other content under the name) is never
    overwritten or taken for the content: the next name is used."""
    d = DumpDir(str(tmp_path))
    (tmp_path / "f_0.py").write_text("def forward(self, x):\n    ret")  # cut short
    (tmp_path / "g.py").write_bytes(b"\xff\xfe not utf-8")
    path, n, written = d.write_unique("f_{n}.py", lambda n: "def forward(self, x):\n    return x\n")
    assert (os.path.basename(path), n, written) == ("f_1.py", 1, True)
    assert (tmp_path / "f_0.py").read_text() == "def forward(self, x):\n    ret"
    q, w = d.write_named("g.py", "text")
    assert os.path.basename(q) == "g.1.py" and w and (tmp_path / "g.py").read_bytes().startswith(b"\xff")


def _writer(path: str, k: int) -> None:
    d = DumpDir(path)
    for i in range(30):
        d.write_unique("g_{n}.py", lambda n, i=i: f"content {i % 10} from any process\n")
        d.write_unique("p_{n}.py", lambda n, i=i: f"process {k} item {i}\n")
        d.update_json("index.json", lambda data, k=k, i=i: {**data, f"{k}-{i}": i})


def test_processes_share_a_dump_dir_without_losing_files(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), k)) for k in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    names = os.listdir(tmp_path)
    assert len([n for n in names if n.startswith("g_")]) == 10  # identical content: one file
    assert len([n for n in names if n.startswith("p_")]) == 90  # nothing clobbered
    import json

    data = json.load(open(tmp_path / "index.json"))
    assert len(data) == 90


def _nested():
    a = 1
    b = 2

    def f(x):
        c = x

        def g():
            return c

        return x + a + b + g()

    return f


def test_contract_keeps_closure_layout():
    reference = _nested().__code__
    assert reference.co_freevars == ("a", "b") and reference.co_cellvars == ("c",)
    decompiled = "def f(x):\n    return x + a\n"  # uses neither b nor c
    # Dynamo's code for it would just call a graph: no cells of its own, no globals.
    fake_transformed = (lambda x: x).__code__
    built = recompile.build(decompiled, reference, fake_transformed, "__t_0_for_f", "# h\n")
    with pytest.raises(recompile.ContractError):
        recompile.compile_checked(built.source, "x.py", "__t_0_for_f", reference, fake_transformed)
    probe = compile(built.source, "x.py", "exec")
    inner = next(c for c in adapter.iter_code_constants(probe) if c.co_name == "__t_0_for_f")
    free, cells = recompile.missing_layout(inner, reference)
    assert free == ("b",) and cells == ("c",)
    built = recompile.build(
        decompiled, reference, fake_transformed, "__t_0_for_f", "# h\n", free, cells
    )
    code = recompile.compile_checked(
        built.source, "x.py", "__t_0_for_f", reference, fake_transformed
    )
    assert code.co_freevars == reference.co_freevars
    assert code.co_cellvars == reference.co_cellvars
    assert code.co_filename == "x.py"
    fn = types.FunctionType(code, {}, None, None, tuple(types.CellType(v) for v in (10, 20)))
    assert fn(1) == 11


def test_nested_code_goes_back_to_the_equivalent_original_of_its_name():
    """Recompiled nested functions take the place of Dynamo's equivalent ones (their identity
    kept), even among several of one name; pellucid's own ``(lambda: w).__closure__[0]``,
    like no lambda of Dynamo's, stays itself."""
    src = (
        "def f(x, w):\n"
        "    a = lambda t: t * w\n"
        "    b = lambda t: t - 1\n"
        "    return a, b\n"
    )
    reference = next(c for c in compile(src, "u.py", "exec").co_consts if isinstance(c, types.CodeType))
    ours = (
        "def t(x, w):\n"
        "    cell = (lambda: w).__closure__[0]\n"
        "    a = lambda t: t * w\n"
        "    b = lambda t: t - 1\n"
        "    return a, b, cell\n"
    )
    code = recompile.compile_checked(ours, "x.py", "t", reference, reference)
    originals = [c for c in reference.co_consts if isinstance(c, types.CodeType)]
    nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    assert nested[1] is originals[0] and nested[2] is originals[1]
    assert nested[0].co_filename == "x.py" and nested[0].co_argcount == 0
    a, b, cell = types.FunctionType(code, {})(1, 3)
    assert (a(2), b(2), cell.cell_contents) == (6, 1, 3)


def test_contract_rejects_wrong_arguments():
    reference = (lambda a, b: a + b).__code__
    with pytest.raises(recompile.ContractError, match="arguments differ"):
        src = recompile.build("def f(b, a):\n    return a + b\n", reference, reference, "t", "")
        recompile.compile_checked(src.source, "x.py", "t", reference, reference)


def test_contract_refuses_values_where_dynamo_passes_cells():
    reference = _nested().__code__  # LOAD_CLOSURE c, to build g's closure
    src = "def f(x):\n    c = x\n    return x + a + b + c\n"  # c's value, not its cell
    built = recompile.build(src, reference, reference, "t", "", (), ("c",))
    with pytest.raises(recompile.LostCellsError, match="cells of c"):
        recompile.compile_checked(built.source, "x.py", "t", reference, reference)


def test_stable_global_names():
    names = ("__compiled_fn_1_ddaf72f6_3758_48cb_a718_cc2710c5f4a7", "__resume_at_102_2")
    code = types.SimpleNamespace(co_names=names)
    assert recompile.stable_global_names(code) == {names[0]: "__compiled_fn_1"}


def test_supported_torch_passes_check():
    adapter.check_supported()


def test_missing_internal_is_named(monkeypatch):
    monkeypatch.setattr(
        adapter,
        "REQUIRED_INTERNALS",
        adapter.REQUIRED_INTERNALS + (("torch._dynamo.convert_frame", "no_such_hook"),),
    )
    with pytest.raises(
        adapter.UnsupportedTorchError, match="torch._dynamo.convert_frame.no_such_hook"
    ):
        adapter.check_supported()
    import pellucid

    with pytest.raises(adapter.UnsupportedTorchError, match="no_such_hook"):
        with pellucid.prepare_debug("unused-dir-never-created"):
            pass
    assert adapter.Patcher.active == {}


def test_patcher_restores_in_reverse_order():
    ns = types.SimpleNamespace(x=1)
    p = adapter.Patcher()
    p.setattr(ns, "x", 2)
    p.setattr(ns, "x", 3)
    assert ns.x == 3 and adapter.Patcher.active
    p.restore()
    assert ns.x == 1 and adapter.Patcher.active == {}


def test_guard_terms_keep_their_meaning_in_the_conjunction():
    """Terms that bind looser than ``and`` are parenthesized, comments inside a part do not
    swallow the rest, and parts a plain function may not hold stay comments: the guard
    compiles without being checked, and evaluates as the conjunction of its parts."""
    parts = [
        "L['a'] if L['b'] else L['c']",  # a ternary: (x and a) if b else c without parentheses
        "L['b'] or L['c']",
        "L['n'] == 3  # n == 3 at user.py:10",
        "L['s'] == 'x # y'",  # a '#' inside a string is not a comment
        "lambda: 0",
        "L['a'], L['b']",
        "await L['a']",
        "L['n'] + 1 > 3",
        "not L['c']",
    ]
    terms = [guards.translate_part(p) for p in parts]
    assert [t.code for t in terms[:6]] == [
        "(L['a'] if L['b'] else L['c'])", "(L['b'] or L['c'])", "L['n'] == 3",
        "L['s'] == 'x # y'", "(lambda: 0)", "(L['a'], L['b'])",
    ]
    assert terms[2].comment == "n == 3 at user.py:10" and not terms[3].comment
    assert terms[6].code == "True" and "await" in terms[6].comment
    src = guards.guard_function_source("__guard_0_for_f", parts, title="a\nb", failed=["x\ry"])
    ns: dict = {}
    exec(compile(src, "g.py", "exec"), ns)
    guard = ns["__guard_0_for_f"]
    assert guard({"a": 1, "b": 1, "c": 0, "n": 3, "s": "x # y"}, {}) is True
    assert not guard({"a": 0, "b": 1, "c": 0, "n": 3, "s": "x # y"}, {})  # the ternary is 0
    assert not guard({"a": 1, "b": 1, "c": 0, "n": 2, "s": "x # y"}, {})  # n == 3 still checked


def test_with_global_names_renames_global_loads_only():
    long = "__compiled_fn_1_0a1b2c3d_0a1b_0a1b_0a1b_0a1b2c3d4e5f"
    src = f"def f(x):\n    return {long}(x) + (lambda: {long})()()\n\ndef g(o):\n    return o.{long}\n"
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    short = recompile.stable_global_names(ns["f"].__code__)
    assert short == {long: "__compiled_fn_1"}
    f = recompile.with_global_names(ns["f"].__code__, short)
    assert long not in f.co_names and "__compiled_fn_1" in f.co_names
    inner = next(c for c in f.co_consts if isinstance(c, types.CodeType))
    assert inner.co_names == ("__compiled_fn_1",)  # nested code renamed too
    g = ns["g"].__code__
    assert recompile.with_global_names(g, short) is g  # an attribute of that name stays


def test_original_source_from_files_registered_lines_and_exec_strings(monkeypatch):
    import inspect
    import linecache

    from pellucid.dynamo.session import original_source

    def defined_here(a):
        return a + 1

    assert original_source(defined_here.__code__).startswith("def defined_here(a):")

    def deco(f):
        return f

    @deco
    def decorated(a):
        return a + 2

    assert original_source(decorated.__code__) == "@deco\ndef decorated(a):\n    return a + 2\n"
    counter = 0

    def bumps():
        nonlocal counter  # alone, its definition does not compile
        counter += 1

    assert original_source(bumps.__code__) is None
    # a notebook cell: no file, its lines registered in linecache
    cell = "def in_a_cell(x):\n    return x * 2\n"
    ns: dict = {}
    exec(compile(cell, "<cell-7>", "exec"), ns)
    monkeypatch.setitem(linecache.cache, "<cell-7>", (len(cell), None, cell.splitlines(True), "<cell-7>"))
    assert original_source(ns["in_a_cell"].__code__) == cell
    # exec'd text with no lines anywhere: None, without asking inspect (it scans every module)
    exec(compile("def from_exec(y):\n    return y\n", "<string>", "exec"), ns)

    def no_inspect(obj):
        raise AssertionError("inspect.getsource called")

    monkeypatch.setattr(inspect, "getsource", no_inspect)
    assert original_source(ns["from_exec"].__code__) is None


def test_annotated_codegen_is_used_again_only_for_an_unchanged_graph():
    """The annotated code FX made for a graph is given again while every node (and its
    arguments and annotations) is the same object as then; any change makes it anew."""
    import operator

    import torch
    import torch.fx

    def f(x):  # noqa: ANN001, ANN202
        return torch.relu(x) + 1

    original = torch.fx.Graph.__dict__["python_code"]
    gm = torch.fx.symbolic_trace(f)
    for n in gm.graph.nodes:
        n.meta["val"] = torch.empty(3)  # the shape annotation FX's verbose codegen writes
    p = adapter.Patcher()
    adapter.annotate_codegen(p, lambda g: g is gm.graph)
    try:
        first = gm.graph.python_code("self")
        assert 'f32[3]' in first.src  # annotated
        assert gm.graph.python_code("self") is first
        assert gm.graph.python_code("self", verbose=False) is not first  # another request
        add = next(n for n in gm.graph.nodes if n.target is operator.add)
        add.args = (add.args[0], 2)
        changed = gm.graph.python_code("self")
        assert changed is not first and "+ 2" in changed.src
        assert gm.graph.python_code("self") is changed
        add.meta["val"] = torch.empty(4)  # an annotation changes: the code is made again
        assert "f32[4]" in gm.graph.python_code("self").src
        with gm.graph.inserting_after(add):
            neg = gm.graph.call_function(operator.neg, (add,))
        add.replace_all_uses_with(neg, delete_user_cb=lambda u: u is not neg)
        assert "neg = " in gm.graph.python_code("self").src  # a node inserted
    finally:
        p.restore()
    assert torch.fx.Graph.__dict__["python_code"] is original
    assert gm.graph.python_code("self") is not gm.graph.python_code("self")  # restored: no memory
