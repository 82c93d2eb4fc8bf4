"""dead.first_dead: the statement a reading wrote after an exit of its own block."""

from __future__ import annotations

import ast

from pellucid.decompiler.dead import first_dead


def test_code_after_an_exit_in_any_nested_block():
    body = ast.parse("while x:\n    try:\n        break\n        a = 1\n    finally:\n        pass\n").body
    assert ast.unparse(first_dead(body)) == "a = 1"


def test_no_dead_code_and_the_generator_marker():
    assert first_dead(ast.parse("if x:\n    return 1\ny = 2\nreturn y\n").body) is None
    assert first_dead(ast.parse("return 1\nif False:\n    yield\n").body) is None
