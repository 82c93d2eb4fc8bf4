"""emit.unparse (ast's unparser with its method lookup cached) writes what ast.unparse writes."""

from __future__ import annotations

import ast
import importlib.util
import pathlib

import pytest

from pellucid.decompiler.emit import unparse

MODULES = ["argparse", "ast", "asyncio.tasks", "dataclasses", "difflib", "enum", "inspect",
           "json.decoder", "typing", "tarfile", "zipfile"]
SAMPLES = pathlib.Path(__file__).parent / "samples"


def _sources() -> list[tuple[str, str]]:
    out = []
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            out.append((name, pathlib.Path(spec.origin).read_text(encoding="utf-8")))
    for path in sorted(SAMPLES.rglob("*.py")):  # match, except*, type parameters where parsable
        out.append((path.name, path.read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize(("name", "text"), _sources(), ids=lambda v: v if len(v) < 40 else "")
def test_same_text_as_ast_unparse(name, text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        pytest.skip(f"{name}: syntax newer than this Python")
    assert unparse(tree) == ast.unparse(tree)


def _without_locations(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(node, attr):
                delattr(node, attr)
    return tree


@pytest.mark.parametrize("name", ["argparse", "dataclasses", "typing"])
def test_trees_without_locations(name):
    """The decompiler's trees carry no line numbers: unparse needs none (ast.unparse reads
    statements' ``lineno``) and writes what ast.unparse writes once they are filled in."""
    text = pathlib.Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8")
    bare = _without_locations(ast.parse(text))
    with pytest.raises(AttributeError):
        ast.unparse(_without_locations(ast.parse(text)))
    assert unparse(bare) == ast.unparse(ast.fix_missing_locations(_without_locations(ast.parse(text))))
