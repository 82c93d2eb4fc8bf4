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


def _jumps(targets):
    """Normalized instructions: ``targets[k]`` is the target of a JUMP at k, None for a NOP."""
    from pellucid.decompiler.instructions import Instr

    return [
        Instr("JUMP" if t is not None else "NOP", None, None, 2 * k, target=t, index=k)
        for k, t in enumerate(targets)
    ]


def test_jump_chains_are_threaded_to_their_end():
    from pellucid.decompiler.instructions import has_jump_chains, thread_jump_chains

    ins = _jumps([2, None, 4, None, None])  # 0 -> 2 -> 4 (a NOP): 0 goes to 4
    assert has_jump_chains(ins)
    assert thread_jump_chains(ins)
    assert [i.target for i in ins] == [4, None, 4, None, None]
    assert ins[0].argval == ins[4].offset
    assert not has_jump_chains(ins) and not thread_jump_chains(ins)


def test_jump_cycles_are_left_alone():
    from pellucid.decompiler.instructions import has_jump_chains, thread_jump_chains

    ins = _jumps([1, 2, 0])  # (no compiler makes this: an endless loop of jumps)
    assert not has_jump_chains(ins)
    assert not thread_jump_chains(ins)
    assert [i.target for i in ins] == [1, 2, 0]


def test_a_refused_walk_is_tried_again_with_jump_chains_threaded():
    """3.9 leaves a branch's jump to a ``continue``'s jump in place (samples
    loops.loop_forever_option_arms, loops.loop_nested_elif_jumps_past_chain): read as compiled it
    has no structure; threaded, it is a ``continue`` (on 3.10+ the compiler threads it itself)."""
    src = (
        "def f(action, explicit, count, extras):\n"
        "    out = []\n"
        "    while True:\n"
        "        if action is None:\n"
        "            return 0, out\n"
        "        if explicit is not None:\n"
        "            if count == 0:\n"
        "                out.append(action)\n"
        "                if explicit in extras:\n"
        "                    action = 2\n"
        "                    explicit = None\n"
        "                else:\n"
        "                    raise ValueError('ignored')\n"
        "            elif count == 1:\n"
        "                stop = 1\n"
        "                break\n"
        "            else:\n"
        "                raise ValueError('bad count')\n"
        "        else:\n"
        "            stop = 2\n"
        "            break\n"
        "    return stop, out\n"
    )
    import pellucid

    ns: dict = {}
    exec(compile(src, "<loop>", "exec"), ns)
    f = ns["f"]
    out = pellucid.decompile(f, strict=True)
    ns2: dict = {}
    exec(compile(out, "<decompiled>", "exec"), ns2)
    for args in [(None, 1, 0, []), (1, None, 0, []), (1, 5, 1, []), (1, 5, 0, [5])]:
        assert ns2["f"](*args) == f(*args), out
    for args in [(1, 5, 0, []), (1, 5, 2, [])]:
        with pytest.raises(ValueError) as want:
            f(*args)
        with pytest.raises(ValueError) as got:
            ns2["f"](*args)
        assert str(got.value) == str(want.value), out
