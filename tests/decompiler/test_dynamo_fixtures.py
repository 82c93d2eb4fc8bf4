"""Dynamo-generated code objects (saved by tests/dynamo) decompile to source that compiles
back into a function with the same signature, free and cell variables.

Running them for real needs torch and lives in tests/dynamo; this checks the decompiler alone
on every fixture, so a regression shows up without torch.  The fixtures are marshalled by
CPython 3.11 (the version torch 2.13 runs on here) and only load there.
"""

from __future__ import annotations

import glob
import marshal
import os
import sys

import pytest

import pellucid
from pellucid.decompiler import verify

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(HERE, "..", "fixtures", "dynamo", "*.marshal")))

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="fixtures are CPython 3.11 marshal data"
)


@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.basename(p) for p in FIXTURES])
def test_dynamo_fixture_decompiles_to_same_interface(path):
    with open(path, "rb") as f:
        code = marshal.load(f)
    source = pellucid.decompile(code)
    recompiled = verify.recompile(source, code)
    assert recompiled.co_argcount == code.co_argcount
    assert recompiled.co_kwonlyargcount == code.co_kwonlyargcount
    n = code.co_argcount + code.co_kwonlyargcount
    assert recompiled.co_varnames[:n] == code.co_varnames[:n]
    assert set(recompiled.co_freevars) == set(code.co_freevars)
    assert set(code.co_cellvars) <= set(recompiled.co_cellvars)


def test_there_are_fixtures():
    assert len(FIXTURES) >= 10
