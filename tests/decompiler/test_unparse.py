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
