"""The dead-statement check of the benchmarks: code after a return, raise, break or continue
in the same statement list (which the compiler drops and verification cannot see)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import dead_code  # noqa: E402

DUPLICATED = """\
def g(xs, log):
    while xs:
        try:
            return log.pop()
        except IndexError:
            pass
        log.append(2)
        xs = xs[1:]
    return 2
    log.append(2)
    xs = xs[1:]
"""


def test_statements_after_a_return_are_dead():
    dead = dead_code.dead_statements(ast.parse(DUPLICATED))
    assert [ast.unparse(s) for s in dead] == ["log.append(2)", "xs = xs[1:]"]
    assert dead_code.dead_in_source(DUPLICATED) == 2


def test_every_statement_list_and_every_terminal_statement():
    source = """\
for x in y:
    if x:
        break
        a = 1
    else:
        continue
        b = 2
try:
    raise E
    c = 3
except E:
    pass
finally:
    return_ = 4
"""
    dead = dead_code.dead_statements(ast.parse(source))
    assert sorted(ast.unparse(s) for s in dead) == ["a = 1", "b = 2", "c = 3"]


def test_a_generator_marker_and_live_code_are_not_dead():
    source = """\
def g():
    return 1
    if False:
        yield
def h(x):
    if x:
        return 1
    x += 1
    return x
"""
    assert dead_code.dead_statements(ast.parse(source)) == []
    assert dead_code.dead_in_source("def f(:") == 0
