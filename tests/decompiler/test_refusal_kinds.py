"""Every refusal says why: ``DecompilationError.kind`` is a :class:`Refusal`.

The kind is an attribute beside the message (the messages stay free text, compared by the
snapshot), so that benchmarks and callers can group refusals.  Internal errors (``.internal``:
bugs, not refusals) have none.
"""

from __future__ import annotations

import ast
import dis
import sys
from pathlib import Path

import pytest
from bytecode_asm import assemble

import pellucid
from pellucid.decompiler import DecompilationError, Refusal, decode, emit
from pellucid.decompiler.errors import UnsupportedVersionError
from pellucid.decompiler.structure import Walker

DECOMPILER = Path(pellucid.__file__).resolve().parent / "decompiler"


def _raise_sites():
    """(file:line, call) of every ``fail(...)`` and ``DecompilationError(...)`` call."""
    for path in sorted(DECOMPILER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in ("fail", "DecompilationError"):
                yield f"{path.relative_to(DECOMPILER)}:{node.lineno}", node


def test_every_raise_site_passes_a_kind():
    sites = list(_raise_sites())
    assert len(sites) > 200, "the scan found too few raise sites: is it looking in the right place?"
    missing = [where for where, call in sites if not any(k.arg == "kind" for k in call.keywords)]
    assert not missing, f"raise sites without kind=: {missing}"


def test_only_internal_errors_go_without_a_kind():
    """``kind=None`` is written once: in the constructor of internal errors."""
    unkinded = [
        where for where, call in _raise_sites()
        for k in call.keywords
        if k.arg == "kind" and isinstance(k.value, ast.Constant) and k.value.value is None
    ]  # fmt: skip
    assert len(unkinded) == 1 and unkinded[0].startswith("api.py:"), unkinded


def test_kinds_are_named_by_their_value():
    assert [k.value for k in Refusal] == [k.name.lower() for k in Refusal]


def target(a, b):
    return a + b


def _refusal(code_or_fn, **options) -> DecompilationError:
    with pytest.raises(DecompilationError) as info:
        pellucid.decompile(code_or_fn, **options)
    return info.value


def test_stack_underflow_is_a_stack_refusal():
    co = target.__code__
    err = _refusal(co.replace(co_code=bytes([dis.opmap["POP_TOP"], 0]) + co.co_code))
    assert err.kind is Refusal.STACK
    assert err.reason == "stack underflow"


def test_code_no_source_can_write_is_no_source():
    co = target.__code__
    assert _refusal(co.replace(co_code=co.co_code[:-2])).kind is Refusal.NO_SOURCE
    renamed = co.replace(co_varnames=("@py_assert1",) + co.co_varnames[1:])
    assert _refusal(renamed).kind is Refusal.NO_SOURCE


def test_arms_leaving_different_stacks_are_a_condition_refusal():
    code = assemble("f", ("c",), [
        ("LOAD_CONST", 1),
        ("LOAD_FAST", "c"), ("jump_if_false", "else"),
        ("LOAD_CONST", 2),
        ("jump", "end"),
        "else:",
        "end:",
        ("RETURN_VALUE",),
    ])  # fmt: skip
    err = _refusal(code)
    assert err.kind is Refusal.CONDITION, err


def test_misplaced_code_is_the_structuring_invariant():
    walker = Walker(target.__code__)
    err = walker.misplaced("code the function reaches is left out", walker.ins[0])
    assert err.kind is Refusal.UNPLACED
    assert err.misplaced


def test_unknown_version_is_unsupported_version(monkeypatch):
    monkeypatch.setattr(decode, "PY", (3, 8))
    err = _refusal(target)
    assert isinstance(err, UnsupportedVersionError)
    assert err.kind is Refusal.UNSUPPORTED_VERSION


def test_strict_verification_is_unverified(monkeypatch):
    monkeypatch.setattr(emit, "source_for", lambda code, fn: "def target(a, b):\n    return a - b\n")
    err = _refusal(target, strict=True)
    assert err.kind is Refusal.UNVERIFIED
    assert str(err).startswith("not verified: ")


def test_internal_errors_have_no_kind(monkeypatch):
    def broken(code, fn):
        raise RuntimeError("a bug")

    monkeypatch.setattr(emit, "source_for", broken)
    err = _refusal(target)
    assert err.internal and err.kind is None


def test_the_message_does_not_name_the_kind():
    err = DecompilationError("stack underflow", kind=Refusal.STACK, code_name="f")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert str(err) == f"stack underflow: in f, (Python {version})"


def test_every_refusal_of_the_samples_has_a_kind():
    from samples import all_samples

    for sample in all_samples():
        try:
            pellucid.decompile(sample.func, verify=False)
        except DecompilationError as exc:
            if not getattr(exc, "internal", False):
                assert isinstance(exc.kind, Refusal), (sample, exc)
        except Exception:  # noqa: BLE001 - other errors are test_constructs' business
            pass
