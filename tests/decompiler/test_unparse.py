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


# (complex constants' reprs do not read back signed zeros: the decompiler spells them as
# arithmetic that folds back exactly, see evaluate._complex_ast, and the samples cover them)
_SIGNED = [-1, -2.5, -0.0, float("-inf"), -(2**70)]


def _positions(c: ast.expr) -> list[ast.expr]:
    """``c`` in every operand position that binds tighter than a unary minus, and a few looser."""
    n = ast.Name(id="n", ctx=ast.Load())
    return [
        ast.BinOp(left=c, op=ast.Pow(), right=n),
        ast.BinOp(left=n, op=ast.Pow(), right=c),
        ast.BinOp(left=c, op=ast.Mult(), right=n),
        ast.Attribute(value=c, attr="real", ctx=ast.Load()),
        ast.Call(func=ast.Attribute(value=c, attr="__repr__", ctx=ast.Load()), args=[], keywords=[]),
        ast.Subscript(value=ast.Tuple(elts=[c], ctx=ast.Load()), slice=ast.Constant(value=0), ctx=ast.Load()),
        ast.UnaryOp(op=ast.USub(), operand=c),
        ast.UnaryOp(op=ast.Invert(), operand=c) if isinstance(c.value, int) else c,
        ast.Compare(left=c, ops=[ast.Lt()], comparators=[n]),
    ]


@pytest.mark.parametrize("value", _SIGNED, ids=repr)
def test_signed_constants_keep_their_operand_position(value):
    """A constant written with a leading sign (``-1``, ``-0.0``, ``-inf``, ``-1j``) is an
    expression of unary-minus precedence: where a tighter operand is needed it is bracketed,
    so the text evaluates to what the tree does (``(-1) ** n``, never ``-1 ** n``)."""
    for node in _positions(ast.Constant(value=value)):
        text = unparse(node)
        expected = eval(compile(ast.fix_missing_locations(ast.Expression(body=node)), "<tree>", "eval"), {"n": 3})
        got = eval(compile(text, "<text>", "eval"), {"n": 3})
        assert repr(got) == repr(expected), (text, got, expected)


def test_fstring_no_source_can_spell_is_percent_format_or_refused():
    """An f-string whose expression holds a backslash (3.11 compiles `'%s' % (a, '\\n'.join(b))`
    to one) is written as the %-formatting it compiles from before 3.12; one %-formatting
    cannot say (no conversion, or a format spec) is a DecompilationError, never a ValueError."""
    import sys

    from pellucid.decompiler.errors import DecompilationError

    joined = ast.Call(
        func=ast.Attribute(value=ast.Constant(value="\\n"), attr="join", ctx=ast.Load()),
        args=[ast.Name(id="b", ctx=ast.Load())],
        keywords=[],
    )
    node = ast.JoinedStr(values=[ast.Constant(value="1% "), ast.FormattedValue(value=joined, conversion=ord("r"), format_spec=None)])
    text = unparse(ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(value="!")))
    assert eval(text, {"b": ["x", "y"]}) == "1% 'x\\\\ny'!"
    plain = ast.JoinedStr(values=[ast.FormattedValue(value=joined, conversion=-1, format_spec=None)])
    if sys.version_info >= (3, 12):
        assert eval(unparse(plain), {"b": ["x"]}) == "x"
    else:
        with pytest.raises(DecompilationError):
            unparse(plain)
