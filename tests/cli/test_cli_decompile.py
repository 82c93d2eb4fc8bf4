"""`pellucid decompile` as a real subprocess (`python -m pellucid ...`), on every version."""

from __future__ import annotations

import dis
import importlib.util
import marshal
import os
import py_compile
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
ADD = "def f(a, b):\n    return a + b\n"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONSTARTUP", None)
    return subprocess.run(
        [sys.executable, "-m", "pellucid", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("pellucid: ")
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert proc.stdout == ""


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def assert_add_source(text: str) -> None:
    assert "def f(a, b):" in text
    assert "return a + b" in text
    namespace: dict = {}
    exec(compile(text, "<decompiled>", "exec"), namespace)
    assert namespace["f"](2, 3) == 5


# --- FILE.py:QUALNAME, MODULE:QUALNAME, FILE.py --------------------------------------------


def test_file_qualname(tmp_path):
    path = write(tmp_path / "mymod.py", ADD)
    proc = run("decompile", f"{path}:f")
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def test_file_qualname_strict(tmp_path):
    path = write(tmp_path / "mymod.py", ADD)
    proc = run("decompile", "--strict", f"{path}:f")
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def test_output_file(tmp_path):
    path = write(tmp_path / "mymod.py", ADD)
    out = tmp_path / "out.py"
    proc = run("decompile", f"{path}:f", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert_add_source(out.read_text())


def test_module_qualname_method(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    write(pkg / "__init__.py", "")
    write(pkg / "mod.py", "class C:\n    def f(a, b):\n        return a + b\n")
    proc = run("decompile", "pkg.mod:C.f", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def test_nested_locals_qualname(tmp_path):
    path = write(
        tmp_path / "outer.py",
        "def outer():\n    def f(a, b):\n        return a + b\n    return f\n",
    )
    proc = run("decompile", f"{path}:outer.<locals>.f")
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def test_main_block_not_run_on_import(tmp_path):
    path = write(
        tmp_path / "script.py", ADD + "if __name__ == '__main__':\n    raise SystemExit(3)\n"
    )
    proc = run("decompile", f"{path}:f")
    assert proc.returncode == 0, proc.stderr


def test_whole_module_file(tmp_path):
    path = write(tmp_path / "whole.py", ADD)
    proc = run("decompile", str(path))
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def test_missing_attribute(tmp_path):
    path = write(tmp_path / "mymod.py", ADD)
    assert_one_line_error(run("decompile", f"{path}:nope"), "nope")


def test_missing_module():
    assert_one_line_error(run("decompile", "no_such_module_xyz:f"), "no_such_module_xyz")


def test_missing_source_file(tmp_path):
    assert_one_line_error(run("decompile", str(tmp_path / "absent.py")), "no such file")
    assert_one_line_error(run("decompile", f"{tmp_path / 'absent.py'}:f"), "no such file")


def test_import_error_in_file(tmp_path):
    path = write(tmp_path / "broken.py", "raise RuntimeError('boom at import')\n")
    assert_one_line_error(run("decompile", f"{path}:f"), "boom at import")


def test_syntax_error_in_file(tmp_path):
    path = write(tmp_path / "bad.py", "def f(:\n")
    assert_one_line_error(run("decompile", str(path)), "syntax error")


def test_not_a_function(tmp_path):
    path = write(tmp_path / "mymod.py", "X = 3\n")
    assert_one_line_error(run("decompile", f"{path}:X"))


# --- .pyc ------------------------------------------------------------------------------------


def test_pyc_of_running_version(tmp_path):
    path = write(tmp_path / "compiled.py", ADD)
    pyc = tmp_path / "compiled.pyc"
    py_compile.compile(str(path), cfile=str(pyc), doraise=True)
    proc = run("decompile", str(pyc))
    assert proc.returncode == 0, proc.stderr
    assert_add_source(proc.stdout)


def _other_version_magic() -> tuple[bytes, str]:
    # 3.9's final magic number, or 3.13's when running 3.9
    if RUNNING == "3.9":
        return (3571).to_bytes(2, "little") + b"\r\n", "3.13"
    return (3425).to_bytes(2, "little") + b"\r\n", "3.9"


def test_pyc_wrong_magic_names_both_versions(tmp_path):
    magic, version = _other_version_magic()
    pyc = tmp_path / "other.pyc"
    pyc.write_bytes(magic + b"\0" * 12 + marshal.dumps(compile(ADD, "x", "exec")))
    assert_one_line_error(run("decompile", str(pyc)), f"Python {version}", f"Python {RUNNING}")


def test_pyc_unknown_magic(tmp_path):
    pyc = tmp_path / "junk.pyc"
    pyc.write_bytes(b"JUNK" + b"\0" * 40)
    assert_one_line_error(run("decompile", str(pyc)), "magic")


def test_pyc_empty(tmp_path):
    pyc = tmp_path / "empty.pyc"
    pyc.write_bytes(b"")
    assert_one_line_error(run("decompile", str(pyc)), "empty")


def test_pyc_truncated_header(tmp_path):
    pyc = tmp_path / "short.pyc"
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + b"\0\0")
    assert_one_line_error(run("decompile", str(pyc)), "truncated")


def test_pyc_truncated_payload(tmp_path):
    payload = marshal.dumps(compile(ADD, "x", "exec"))
    pyc = tmp_path / "cut.pyc"
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + payload[: len(payload) // 2])
    assert_one_line_error(run("decompile", str(pyc)), "corrupt")


def test_pyc_corrupt_payload(tmp_path):
    pyc = tmp_path / "corrupt.pyc"
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + b"\xff\xfe garbage")
    assert_one_line_error(run("decompile", str(pyc)), "corrupt")


def test_pyc_not_code(tmp_path):
    pyc = tmp_path / "list.pyc"
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps([1, 2, 3]))
    assert_one_line_error(run("decompile", str(pyc)), "list", "not a code object")


def test_pyc_missing(tmp_path):
    assert_one_line_error(run("decompile", str(tmp_path / "absent.pyc")), "no such file")


def test_pyc_directory(tmp_path):
    d = tmp_path / "dir.pyc"
    d.mkdir()
    assert_one_line_error(run("decompile", str(d)), "directory")


def test_undecompilable_code_is_one_line_error_and_debug_shows_traceback(tmp_path):
    # a code object whose bytecode is an undefined opcode: never valid source
    undefined = next(op for op in range(1, 256) if dis.opname[op].startswith("<"))
    code = compile(ADD, "x", "exec").replace(co_code=bytes([undefined, 0]) * 2)
    pyc = tmp_path / "weird.pyc"
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))
    proc = run("decompile", str(pyc))
    assert_one_line_error(proc)
    debug = run("decompile", "--debug", str(pyc))
    assert debug.returncode == 1
    assert "Traceback" in debug.stderr


def test_magic_number_table_matches_running_interpreter():
    from pellucid.cli import pyc_python_version

    assert pyc_python_version(importlib.util.MAGIC_NUMBER) == RUNNING
    assert pyc_python_version((3495).to_bytes(2, "little") + b"\r\n") == "3.11"
    assert pyc_python_version((3379).to_bytes(2, "little") + b"\r\n") == "3.6"
    assert pyc_python_version(b"JUNK") is None


# --- usage errors: exit 2 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [(), ("decompile",), ("decompile", "--no-such-option", "x.py"), ("frobnicate",)],
)
def test_usage_errors_exit_2(args):
    proc = run(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "usage:" in proc.stderr


def test_help_and_version():
    proc = run("decompile", "--help")
    assert proc.returncode == 0
    assert "--strict" in proc.stdout and "--no-verify" in proc.stdout and "TARGET" in proc.stdout
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("pellucid ")
