"""The fast decoder agrees with ``dis`` on every instruction of a stdlib corpus."""

from __future__ import annotations

import dis
import importlib.util
import sys

import pytest

from pellucid.decompiler.decode import decode

_ARG_ONLY = {"FORMAT_VALUE", "KW_NAMES", "CONVERT_VALUE"}
MODULES = ["argparse", "ast", "dataclasses", "enum", "inspect", "json.decoder", "typing", "tarfile"]


def _shown(ins) -> str:
    """The argrepr normalization reads (operator symbols, intrinsic names)."""
    if ins.opname in ("BINARY_OP", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2"):
        return ins.argrepr
    return ""


def _reference(code):
    kw = {"show_caches": False} if sys.version_info >= (3, 11) else {}
    line = None
    for ins in dis.get_instructions(code, **kw):
        if sys.version_info >= (3, 13):
            line = ins.line_number
        elif ins.starts_line is not None:
            line = ins.starts_line
        if ins.opname in ("CACHE", "EXTENDED_ARG"):
            continue
        argval = ins.argval
        if ins.opname in _ARG_ONLY:
            argval = ins.arg  # normalization reads only the raw argument of these
        if ins.opname == "COMPARE_OP" and sys.version_info >= (3, 12):
            argval = ins.argrepr.replace("bool(", "").rstrip(")")
        yield (ins.opname, ins.arg, repr(argval), _shown(ins), ins.offset, line)


@pytest.mark.parametrize("module", MODULES)
def test_decode_matches_dis(module):
    count = 0
    for name in [module]:
        spec = importlib.util.find_spec(name)
        with open(spec.origin, encoding="utf-8") as f:
            stack = [compile(f.read(), spec.origin, "exec")]
        while stack:
            code = stack.pop()
            stack.extend(k for k in code.co_consts if hasattr(k, "co_code"))
            ours = [
                (
                    r.opname,
                    r.arg,
                    repr(r.arg if r.opname in _ARG_ONLY else r.argval),
                    _shown(r),
                    r.offset,
                    r.line_number,
                )
                for r in decode(code)
            ]
            assert ours == list(_reference(code)), code.co_qualname if hasattr(code, "co_qualname") else code.co_name
            count += len(ours)
    assert count > 1000


@pytest.mark.parametrize("module", MODULES)
def test_opargs_finds_what_dis_finds(module):
    """opargs searches opcode bytes; dis walks instructions: the same (opcode, argument)s,
    EXTENDED_ARG included, and nothing read out of an inline cache."""
    from collections import Counter

    from pellucid.decompiler.decode import opargs

    spec = importlib.util.find_spec(module)
    with open(spec.origin, encoding="utf-8") as f:
        stack = [compile(f.read(), spec.origin, "exec")]
    wanted = frozenset(dis.hasname) | frozenset(dis.haslocal) | frozenset(dis.hasjrel)
    checked = 0
    while stack:
        code = stack.pop()
        stack.extend(k for k in code.co_consts if hasattr(k, "co_code"))
        expected = Counter(
            (i.opcode, i.arg)
            for i in dis.get_instructions(code)
            if i.opcode in wanted and i.opname != "CACHE"
        )
        assert Counter(opargs(code, wanted)) == expected, code
        checked += sum(expected.values())
    assert checked > 100
