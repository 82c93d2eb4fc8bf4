"""Shapes the random-program benchmark found decompiled to source that behaves differently
(``benchmarks/random_programs.py``; each is that run's minimal reproducer).

Whatever the decompiler makes of them, the default ``decompile()`` must not hand out source
that behaves differently unmarked: it is either verified and behaves the same on every input,
or it opens with the NOT-verified comment, or it is refused. ``strict=True`` never returns
source that behaves differently.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import pellucid
from pellucid.decompiler.api import NOT_VERIFIED

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loop_try_programs import PRELUDE  # noqa: E402  (CM and nxt, as the generator's programs use)

SHAPES = {
    "walrus_in_augmented_subscript": ("""
        def f(a, b):
            a[(x := b)] += 1
            return x
        """, [([0, 1], 0), ([5, 5], 1)]),
    "continue_under_returning_finally": ("""
        def f(ks):
            n = 0
            while True:
                try:
                    if nxt(ks) % 2:
                        continue
                    n += 1
                finally:
                    return -n
        """, [([1],), ([2],), ([1, 2],)]),
    "continue_through_nested_finallys": ("""
        def f(ks):
            n = 0
            while True:
                if n > 12:
                    break
                n += 1
                try:
                    try:
                        continue
                    finally:
                        n += 1
                finally:
                    if nxt(ks) % 2:
                        continue
            return n
        """, [([1, 2, 1, 1, 2, 2, 1],), ([2],), ([1, 1, 1, 1, 1, 1, 1, 1, 1],)]),
    "break_in_outer_finally": ("""
        def f(ks):
            log = []
            for k in ks:
                if nxt(ks) % 2:
                    try:
                        try:
                            log.append(nxt(ks))
                        finally:
                            log.append('f')
                    finally:
                        if nxt(ks) % 2:
                            break
            return log
        """, [([1, 2, 1, 1, 2, 1],), ([2, 2, 1, 1, 1, 1],)]),
    "else_continue_and_finally_break": ("""
        def f(ks):
            while ks:
                try:
                    if nxt(ks) % 2:
                        pass
                    else:
                        continue
                finally:
                    if nxt(ks) % 2:
                        break
            return ks
        """, [([1, 2, 2, 2],), ([2, 1, 1, 2],), ([2, 2, 2, 2, 2, 1],)]),
    "continue_in_with_in_try_finally": ("""
        def f(ks):
            log = []
            while ks:
                try:
                    with CM(log):
                        continue
                    log.append(nxt(ks))
                finally:
                    if nxt(ks) % 2:
                        break
            return log
        """, [([1, 2, 2],), ([2, 2, 2, 2],), ([2, 1],)]),
}


def _run(fn, args):
    args = [list(a) if isinstance(a, list) else a for a in args]
    try:
        return ("ok", repr(fn(*args)), repr(args))
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return ("raise", type(exc).__name__, repr(args))


def _original(source):
    namespace: dict = {}
    exec(PRELUDE + textwrap.dedent(source), namespace)
    return namespace


def _assert_same_behaviour(out, namespace, inputs):
    decompiled: dict = dict(namespace)
    exec(out, decompiled)
    for args in inputs:
        assert _run(decompiled["f"], args) == _run(namespace["f"], args), out


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_default_decompile_never_hands_out_different_behaviour_unmarked(name):
    source, inputs = SHAPES[name]
    namespace = _original(source)
    try:
        out = pellucid.decompile(namespace["f"])
    except pellucid.DecompilationError:
        return
    if not out.startswith(NOT_VERIFIED):  # else the reader is told
        _assert_same_behaviour(out, namespace, inputs)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_strict_decompile_is_right_or_refused(name):
    source, inputs = SHAPES[name]
    namespace = _original(source)
    try:
        out = pellucid.decompile(namespace["f"], strict=True)
    except pellucid.DecompilationError:
        return
    assert not out.startswith(NOT_VERIFIED)
    _assert_same_behaviour(out, namespace, inputs)
