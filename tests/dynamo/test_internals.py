"""Every torch internal pellucid touches exists in the installed torch, and is in the table.

``adapter.TORCH_INTERNALS`` is the one list of them.  Run on a new torch release, the first test
names every internal that release moved; the second keeps the table complete (a private torch
name read anywhere in pellucid's code must be a row); the third keeps the doc in step.
"""

from __future__ import annotations

import ast
import os
import re

import pytest

import pellucid
from pellucid.dynamo import adapter

SRC = os.path.dirname(os.path.abspath(pellucid.__file__))
DOC = os.path.join(os.path.dirname(os.path.dirname(SRC)), "docs", "new-torch-release.md")


def test_every_internal_exists_in_the_installed_torch():
    import torch

    missing = adapter.missing_internals()
    assert not missing, (
        f"torch {torch.__version__} lacks {len(missing)} internal(s) pellucid uses: "
        + ", ".join(missing)
        + " (see docs/new-torch-release.md)"
    )


def test_a_missing_internal_is_named_with_every_other_one():
    fake = [("torch._dynamo.convert_frame", "no_such_hook"), ("torch._no_such_module", "x")]
    assert adapter.missing_internals([*adapter.REQUIRED_INTERNALS, *fake]) == [
        "torch._dynamo.convert_frame.no_such_hook",
        "torch._no_such_module.x",
    ]


def test_the_failure_message_names_the_tested_releases(monkeypatch):
    monkeypatch.setattr(
        adapter,
        "REQUIRED_INTERNALS",
        (*adapter.REQUIRED_INTERNALS, ("torch._dynamo.convert_frame", "a"), ("torch._dynamo", "b")),
    )
    with pytest.raises(adapter.UnsupportedTorchError) as e:
        adapter.check_supported()
    message = str(e.value)
    assert "torch._dynamo.convert_frame.a, torch._dynamo.b" in message
    assert ", ".join(adapter.TESTED_TORCH_VERSIONS[:-1]) in message
    assert adapter.TESTED_TORCH_VERSIONS[-1] in message
    assert adapter.tested_versions() == "2.13.0, 2.14.1 and 2.15.0"


def _private(dotted: str) -> bool:
    return dotted.split(".")[0] == "torch" and any(p.startswith("_") and not p.startswith("__") for p in dotted.split("."))


def _torch_names_read(tree: ast.AST) -> set[str]:
    """Dotted torch names a module's code reads: imports, ``torch.a.b`` chains, and the
    constant arguments of ``_resolve(module, path)`` and ``importlib.import_module(module)``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "torch")
        elif isinstance(node, ast.Attribute):
            parts, n = [], node
            while isinstance(n, ast.Attribute):
                parts.append(n.attr)
                n = n.value
            if isinstance(n, ast.Name) and n.id == "torch":
                out.add(".".join(["torch", *reversed(parts)]))
        elif isinstance(node, ast.Call) and node.args and all(isinstance(a, ast.Constant) for a in node.args):
            fn = node.func
            called = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            values = [a.value for a in node.args]
            if called == "_resolve" and len(values) == 2:
                out.add(".".join(filter(None, values)))
            elif called == "import_module" and isinstance(values[0], str):
                out.add(values[0])
    return out


def test_every_private_torch_name_in_pellucid_is_in_the_table():
    rows = [i.name for i in adapter.TORCH_INTERNALS]
    unlisted = []
    for root, _, files in os.walk(SRC):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for name in sorted(_torch_names_read(tree)):
                # a row covers the name itself, or is inside it (a module, a class)
                if _private(name) and not any(r == name or r.startswith(name + ".") for r in rows):
                    unlisted.append(f"{os.path.relpath(path, SRC)}: {name}")
    assert not unlisted, "torch internals missing from adapter.TORCH_INTERNALS:\n" + "\n".join(unlisted)


def test_the_scan_finds_what_it_looks_for():
    tree = ast.parse(
        "import torch._guards\n"
        "from torch._logging import trace_structured\n"
        "x = torch._guards.CompileId\n"
        "_resolve('torch._dynamo.utils', 'counters')\n"
        "importlib.import_module('torch._dynamo.config')\n"
    )
    assert _torch_names_read(tree) == {
        "torch._guards", "torch._logging.trace_structured", "torch._guards.CompileId",
        "torch._dynamo.utils.counters", "torch._dynamo.config",
    }


def test_the_doc_shows_the_table():
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    m = re.search(r"<!-- internals -->\n(.*?)<!-- /internals -->", doc, re.S)
    assert m, "docs/new-torch-release.md has no internals table"
    assert m.group(1) == adapter.internals_markdown(), (
        "docs/new-torch-release.md's table differs from adapter.TORCH_INTERNALS: "
        "run scripts/internals_table.py"
    )
    for version in adapter.TESTED_TORCH_VERSIONS:
        assert version in doc


def test_every_row_names_a_kind_of_need():
    assert {i.need for i in adapter.TORCH_INTERNALS} <= {"required", "adoption", "optional"}
    assert len({i.name for i in adapter.TORCH_INTERNALS}) == len(adapter.TORCH_INTERNALS)
