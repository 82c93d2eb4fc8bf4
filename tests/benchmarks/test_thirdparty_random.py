"""The third-party round trip's and the random-program benchmark's own logic: exact pins,
internal errors counted apart from refusals, and wrong code told from right code."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import random_programs  # noqa: E402
import roundtrip  # noqa: E402
import thirdparty  # noqa: E402

from pellucid import DecompilationError  # noqa: E402
from pellucid.decompiler import verify  # noqa: E402


def test_pins_are_exact_and_name_the_supported_torch(tmp_path):
    pins = dict(thirdparty.read_pins())
    assert pins["torch"] == "2.13.0"
    assert pins["transformers"] == "5.17.0"
    loose = tmp_path / "pins.txt"
    loose.write_text("torch>=2.13\n")
    with pytest.raises(ValueError, match="not an exact pin"):
        thirdparty.read_pins(str(loose))


def test_every_selected_distribution_is_pinned():
    pinned = {name for name, _ in thirdparty.read_pins()}
    assert {dist for dist, _, _ in thirdparty.SELECTION} <= pinned


def test_an_internal_error_is_counted_apart_from_refusals():
    def raises(internal):
        def decompile(code):
            err = DecompilationError("internal error IndexError: x" if internal else "no")
            if internal:
                err.internal = True
            raise err

        return decompile

    code = compile("def f(x):\n    return x\n", "<t>", "exec").co_consts[0]
    outcomes = []
    for internal in (True, False):
        record: dict = {}
        outcomes.append(
            roundtrip.run_one(code, raises(internal), (DecompilationError,), verify, record, [0, 0])
        )
    assert outcomes == ["internal", "error"]


def _check(source: str, decompile) -> str:
    pellucid = types.SimpleNamespace(decompile=decompile, DecompilationError=DecompilationError)
    program = {"label": "test:0", "kind": "loop", "source": source}
    return random_programs.check(program, pellucid, verify)[0]


LOOP = """def f(ks):
    n = 0
    while ks:
        n += 1
        try:
            if nxt(ks) % 2:
                return n
        finally:
            if n > 2:
                break
    return -n
"""


def test_wrong_code_is_told_from_right_code():
    import pellucid

    assert _check(LOOP, pellucid.decompile) in ("exact", "unverified", "refused")
    # a decompiler that dropped the finally's break: the same bytecode? no; the same behaviour? no
    wrong = LOOP.replace("            if n > 2:\n                break\n", "            pass\n")
    assert _check(LOOP, lambda code, verify=False: wrong) == "WRONG"


def test_the_loops_with_finally_family_is_deterministic():
    a = random_programs.generate("loops+finally", 5)
    b = random_programs.generate("loops+finally", 5)
    assert a == b
    assert all(p["source"].startswith("def f(ks):") for p in a)
    assert any("finally:" in p["source"] for p in random_programs.generate("loops+finally", 20))


def test_a_difference_the_original_itself_shows_is_not_wrong_code():
    """A set holding a function iterates in address order, so the original program may behave
    differently from one run to the next; only what no fresh copy of it does is wrong."""
    runs = iter([1, 1, 2])

    def fresh_varies(name):
        value = next(runs)
        return lambda: value

    pairs = [("f", lambda: 1, lambda: 2)]
    no_inputs = lambda fn: [()]  # noqa: E731
    assert random_programs._compare_calls(pairs, no_inputs, fresh_varies) is None
    always_one = lambda name: (lambda: 1)  # noqa: E731
    differs = random_programs._compare_calls(pairs, no_inputs, always_one)
    assert differs == "f(): original ['ok', '1', '()'] / decompiled ['ok', '2', '()']"
