"""Whole random programs that decompiled, without verification, to source behaving differently
(``found_wrong_programs.py``: the loops+finally family at 10,000 programs per version).

The default ``decompile()`` must never hand one out unmarked: each comes back refused, marked NOT
verified, or behaving like the original on every input.  Without verification they are the open
work queue: strict expected failures on the versions where they still behave differently (a fix
shows up as a failure to update), and right or refused on the others.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from found_wrong_programs import PROGRAMS

import pellucid
from pellucid.decompiler.api import NOT_VERIFIED

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loop_try_programs import INPUTS, PRELUDE  # noqa: E402
from test_found_wrong_shapes import _run  # noqa: E402  (one way to run and compare)

VERSION = sys.version_info[:2]


def _original(source):
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # 3.14: return/break in finally
        exec(compile(PRELUDE + source, "<program>", "exec"), namespace)
    return namespace


def _behaves_the_same(out, namespace) -> bool:
    decompiled: dict = dict(namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        exec(compile(out, "<decompiled>", "exec"), decompiled)
    return all(_run(decompiled["f"], (ks,)) == _run(namespace["f"], (ks,)) for ks in INPUTS)


@pytest.mark.parametrize("seed", sorted(PROGRAMS))
def test_default_decompile_is_marked_refused_or_right(seed):
    namespace = _original(PROGRAMS[seed][1])
    try:
        out = pellucid.decompile(namespace["f"])
    except pellucid.DecompilationError as exc:
        assert not getattr(exc, "internal", False), exc
        return
    assert out.startswith(NOT_VERIFIED) or _behaves_the_same(out, namespace), out


def _unverified_case(seed):
    if VERSION in PROGRAMS[seed][0]:
        reason = "decompiled without verification to different behaviour"
        return pytest.param(seed, marks=pytest.mark.xfail(strict=True, reason=reason))
    return seed


@pytest.mark.parametrize("seed", [_unverified_case(s) for s in sorted(PROGRAMS)])
def test_unverified_decompile_behaves_the_same_or_is_refused(seed):
    namespace = _original(PROGRAMS[seed][1])
    try:
        out = pellucid.decompile(namespace["f"], verify=False)
    except pellucid.DecompilationError as exc:
        assert not getattr(exc, "internal", False), exc
        return
    assert _behaves_the_same(out, namespace), out
