"""A CPython whose bytecode pellucid was not taught is refused in one plain sentence.

The supported set is one constant of the instruction layer (``decode.SUPPORTED_VERSIONS``); these
tests change the version that layer reads, so they run the refusal on every interpreter."""

from __future__ import annotations

import sys

import pytest

import pellucid
from pellucid import cli
from pellucid.decompiler import api, decode
from pellucid.decompiler.errors import DecompilationError, UnsupportedVersionError


def sample(a, b=2):
    total = a + b
    return total * 3


def expected(version: tuple[int, int]) -> str:
    lo, hi = decode.SUPPORTED_VERSIONS[0], decode.SUPPORTED_VERSIONS[-1]
    return (
        f"pellucid supports CPython {lo[0]}.{lo[1]}\u2013{hi[0]}.{hi[1]} bytecode; "
        f"this is {version[0]}.{version[1]}"
    )


UNKNOWN = [(3, 8), (3, 16), (4, 0)] + [
    v for v in ((3, 14), (3, 15)) if v not in decode.SUPPORTED_VERSIONS
]


def test_supported_versions_are_consecutive_and_include_the_oldest():
    versions = decode.SUPPORTED_VERSIONS
    assert versions[0] == (3, 9)
    assert list(versions) == [(3, minor) for minor in range(9, 9 + len(versions))]


@pytest.mark.parametrize("version", UNKNOWN, ids=lambda v: f"{v[0]}.{v[1]}")
def test_decompile_refuses_an_unknown_version(monkeypatch, version):
    monkeypatch.setattr(decode, "PY", version)
    with pytest.raises(DecompilationError) as info:
        pellucid.decompile(sample)
    assert isinstance(info.value, UnsupportedVersionError)
    assert not getattr(info.value, "internal", False)
    assert str(info.value) == expected(version)
    # every entry point refuses the same way, before reading any bytecode
    for call in (
        lambda: pellucid.decompile(sample.__code__, verify=True),
        lambda: api.decompile_tree(sample.__code__),
        lambda: api.decompile_naming_constants(sample.__code__, "c"),
    ):
        with pytest.raises(UnsupportedVersionError, match="bytecode; this is"):
            call()


def test_a_bad_argument_is_still_a_type_error_on_an_unknown_version(monkeypatch):
    monkeypatch.setattr(decode, "PY", (3, 16))
    with pytest.raises(TypeError):
        pellucid.decompile(42)


def test_cli_prints_the_refusal_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(decode, "PY", (3, 16))
    path = tmp_path / "mod.py"
    path.write_text("def f(a):\n    return a + 1\n")
    assert cli.main(["decompile", f"{path}:f"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"pellucid: error: {expected((3, 16))}\n"


def test_the_running_version_decompiles_or_is_refused_cleanly():
    """On the interpreter running the tests: source that behaves the same, or the refusal."""
    running = sys.version_info[:2]
    if running in decode.SUPPORTED_VERSIONS:
        source = pellucid.decompile(sample, verify=True)
        namespace: dict = {}
        exec(compile(source, "<decompiled>", "exec"), namespace)
        assert namespace["sample"](4) == sample(4) and namespace["sample"](1, 5) == sample(1, 5)
    else:
        with pytest.raises(UnsupportedVersionError) as info:
            pellucid.decompile(sample)
        assert str(info.value) == expected(running)
