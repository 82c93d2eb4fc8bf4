"""Dump file names say what they are: the function (its qualname, its module when another
module has a function of that qualname, a number for more code objects of one name) and the
cache entry (``_entry<k>``: the function's k-th compile), the same in every run."""

from __future__ import annotations

import importlib.util
import os
import textwrap

import torch
from checks import check_files_compile, load_index

import pellucid

MODULE = textwrap.dedent(
    """\
    import torch


    class Block(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) + 1


    class Head(torch.nn.Module):
        def forward(self, x):
            return x.sum(-1)


    def f(x):
        return x.cos() * {k}
    """
)


def _load(path, name: str, k: int):
    path.write_text(MODULE.format(k=k))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program(tmp_path):
    """Two forwards of two classes, a function recompiled for a new shape, and two functions
    with one qualname in two modules."""
    one = _load(tmp_path / "one.py", "one", 2)
    two = _load(tmp_path / "two.py", "two", 3)

    def run() -> list[torch.Tensor]:
        block, head = one.Block(), one.Head()
        cblock = torch.compile(block, backend="eager", dynamic=False)
        chead = torch.compile(head, backend="eager", dynamic=False)
        outs = [chead(cblock(torch.ones(2, 3)))]
        outs.append(chead(cblock(torch.ones(4, 5))))  # a recompile of each
        outs.append(torch.compile(one.f, backend="eager")(torch.ones(2)))
        outs.append(torch.compile(two.f, backend="eager")(torch.ones(2)))
        return outs

    return run


def _dump(tmp_path, name):
    d = str(tmp_path / name)
    run = _program(tmp_path)
    torch._dynamo.reset()
    with pellucid.prepare_debug(d):
        got = run()
    with torch.compiler.set_stance("force_eager"):
        want = run()
    assert all(torch.equal(a, b) for a, b in zip(got, want))
    return d


def test_file_names_name_the_function_and_the_cache_entry(tmp_path):
    d = _dump(tmp_path, "a")
    index = load_index(d)
    check_files_compile(d, index)
    s = index["sessions"][-1]
    names = set(os.listdir(d))
    for stem in ("Block_forward", "Head_forward"):
        assert f"__transformed_code_{stem}_entry0.py" in names, sorted(names)
        assert f"__transformed_code_{stem}_entry1.py" in names, sorted(names)
        assert f"__guard_{stem}_entry0.py" in names and f"__guard_{stem}_entry1.py" in names
        assert f"full_code_for_{stem}.py" in names
    # one qualname in two modules: the second says its module
    assert "__transformed_code_f_entry0.py" in names and "__transformed_code_f_two_entry0.py" in names
    assert "full_code_for_f.py" in names and "full_code_for_f_two.py" in names
    assert not [n for n in names if "_for_forward" in n or ".1." in n], sorted(names)
    # a file's entry is its compile's: transformed code and guard of one cache entry agree
    by_key = {f["key"]: f for f in s["functions"]}
    for c in s["compiles"]:
        fn = by_key[c["function"]]
        stem = f"{fn['file_id']}_entry{c['entry']}"
        assert c["transformed_code_file"] == f"__transformed_code_{stem}.py"
        assert c["transformed_function"] == f"__transformed_code_{stem}"
        (entry,) = [e for e in fn["cache_entries"] if e["compile_id"] == c["compile_id"]]
        assert entry["entry"] == c["entry"] and entry["guard_file"] == f"__guard_{stem}.py"
        assert entry["guard_function"] == f"__guard_{stem}"
    assert {c["entry"] for c in s["compiles"]} == {0, 1}


def test_file_names_are_the_same_in_every_run(tmp_path):
    a = _dump(tmp_path, "a")
    b = _dump(tmp_path, "b")
    # (graphs are named by Dynamo's process-wide counter, which goes on across runs in one process)
    def ours(d):
        return sorted(n for n in os.listdir(d) if not n.startswith("__compiled_fn_"))

    assert ours(a) == ours(b) and len(ours(a)) > 12
