"""``decompile()`` verifies by default: unverified source never reaches a caller unmarked.

A decompiler bug is simulated by swapping the emitter for one that returns plausible but wrong
source; the real verifier (recompile and compare) must then catch it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pellucid
from pellucid.decompiler import api, emit
from pellucid.decompiler.api import NOT_VERIFIED

SRC = str(Path(__file__).resolve().parents[2] / "src")


def add_one(n):
    return n + 1


WRONG = "def add_one(n):\n    return n + 2\n"


@pytest.fixture
def wrong_emitter(monkeypatch):
    """The emitter returns source that compiles but behaves differently."""
    monkeypatch.setattr(emit, "source_for", lambda code, fn: WRONG)


def test_verified_source_comes_back_plain():
    source = pellucid.decompile(add_one)
    assert not source.startswith("#")
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["add_one"](41) == 42


def test_default_marks_a_difference_in_a_first_line_comment(wrong_emitter):
    source = pellucid.decompile(add_one)
    first, _, rest = source.partition("\n")
    assert first.startswith(NOT_VERIFIED + ": recompiled bytecode differs")
    assert "2" in first and "1" in first  # the differing constants are named
    assert rest == WRONG


def test_strict_raises_instead(wrong_emitter):
    with pytest.raises(pellucid.DecompilationError, match="not verified: recompiled bytecode"):
        pellucid.decompile(add_one, strict=True)


def test_verify_false_is_the_callers_choice(wrong_emitter):
    assert pellucid.decompile(add_one, verify=False) == WRONG


def test_depyf_style_positional_call_returns_str():
    assert isinstance(pellucid.decompile(add_one), str)


def test_source_that_does_not_compile_is_marked(monkeypatch):
    # parses (the emitter's own check) but does not compile: 'return' outside a function
    monkeypatch.setattr(emit, "source_for", lambda code, fn: "return 1\n")
    source = pellucid.decompile(add_one)
    assert source.startswith(NOT_VERIFIED + ": the source does not compile")
    with pytest.raises(pellucid.DecompilationError, match="does not compile"):
        pellucid.decompile(add_one, strict=True)


def test_a_verifier_failure_is_a_reason_not_a_crash(monkeypatch):
    from pellucid.decompiler import verify

    def broken(*args):
        raise IndexError("tuple index out of range")

    monkeypatch.setattr(verify, "compare_code", broken)
    source = pellucid.decompile(add_one)
    assert source.startswith(NOT_VERIFIED + ": the check failed (IndexError")


def test_long_expression_never_raises_recursion_error():
    namespace: dict = {}
    for size in (2900, 1900, 990, 500):  # the longest chain this CPython compiles
        terms = " + ".join(f"a{k % 7}" for k in range(size))
        try:
            exec(f"def long(a0, a1, a2, a3, a4, a5, a6):\n    return {terms}\n", namespace)
            break
        except RecursionError:
            continue
    try:
        source = pellucid.decompile(namespace["long"])
    except pellucid.DecompilationError:
        return  # refusing is allowed; any other exception is not
    if not source.startswith(NOT_VERIFIED):
        out: dict = {}
        exec(source, out)
        assert out["long"](*range(7)) == namespace["long"](*range(7))


def test_unusual_extended_arg_is_not_an_index_error():
    """A redundant EXTENDED_ARG 0 before an argument-taking instruction: valid bytecode."""
    code = add_one.__code__
    raw = code.co_code
    ext = bytes([__import__("dis").opmap["EXTENDED_ARG"], 0])
    ops = [(raw[k], raw[k + 1]) for k in range(0, len(raw), 2)]
    names = __import__("dis").opname
    first_arg = next(k for k, (op, _) in enumerate(ops) if names[op] in ("LOAD_FAST", "LOAD_CONST"))
    assert not getattr(code, "co_exceptiontable", b"")  # no offsets to move
    new = raw[: 2 * first_arg] + ext + raw[2 * first_arg :]
    kwargs = {"co_code": new}
    if sys.version_info >= (3, 10):
        kwargs["co_linetable"] = code.co_linetable
    patched = code.replace(**kwargs)
    try:
        source = pellucid.decompile(patched)
    except pellucid.DecompilationError:
        return
    assert isinstance(source, str)


def _cli(*args: str, patch_wrong: bool) -> subprocess.CompletedProcess:
    """``pellucid decompile`` in a real subprocess; optionally with the wrong emitter."""
    prelude = ""
    if patch_wrong:
        prelude = (
            f"import pellucid.decompiler.emit as e; e.source_for = lambda code, fn: {WRONG!r}; "
        )
    program = prelude + "import sys; from pellucid.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-c", program, "decompile", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def target(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(
        textwrap.dedent("""\
        def add_one(n):
            return n + 1
    """)
    )
    return f"{path}:add_one"


def test_cli_warns_on_stderr_and_keeps_exit_zero(target):
    proc = _cli(target, patch_wrong=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("pellucid: warning: ") and "NOT verified" in proc.stderr
    assert proc.stdout.startswith(NOT_VERIFIED)


def test_cli_strict_exits_non_zero_without_source(target):
    proc = _cli(target, "--strict", patch_wrong=True)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("pellucid: error: not verified") and proc.stderr.count("\n") == 1


def test_cli_verified_output_is_silent(target):
    proc = _cli(target, "--strict", patch_wrong=False)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("def add_one(n):")


def test_api_reexports_the_marker():
    assert api.NOT_VERIFIED.startswith("# pellucid:")
