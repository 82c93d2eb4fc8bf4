"""The round-trip benchmark's own logic: construct classes and a tiny end-to-end run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "roundtrip.py"


@pytest.fixture(scope="module")
def roundtrip():
    spec = importlib.util.spec_from_file_location("_roundtrip_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_of(source: str) -> types.CodeType:
    module = compile(textwrap.dedent(source), "<bench-test>", "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


@pytest.mark.parametrize(
    "source, classes",
    [
        ("def f(x):\n    return [y for y in x if y]\n", ["plain"]),
        (
            "def f(x):\n    try:\n        return x()\n    except E:\n        return 0\n",
            ["exception"],
        ),
        ("def f(x):\n    try:\n        return x()\n    finally:\n        g()\n", ["exception"]),
        ("def f(x):\n    with x:\n        return 1\n", ["with"]),
        ("def f(x):\n    yield x\n", ["generator"]),
        ("async def f(x):\n    await x\n", ["async"]),
        ("async def f(x):\n    async with x:\n        pass\n", ["with", "async"]),
        ("async def f(x):\n    async for i in x:\n        pass\n", ["async"]),
    ],
)
def test_classify(roundtrip, source, classes):
    assert roundtrip.classify(code_of(source)) == classes


def test_corpus_is_fixed_and_large_enough(roundtrip):
    assert len(roundtrip.MODULES) >= 40
    assert len(set(roundtrip.MODULES)) == len(roundtrip.MODULES)
    present = [m for m in roundtrip.MODULES if roundtrip.module_source(m) is not None]
    assert len(present) >= 40


def test_small_run_end_to_end(tmp_path, roundtrip):
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    if roundtrip.pyenv_python(version) is None:
        pytest.fail(f"no pyenv interpreter for {version}")
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--versions",
            version,
            "--limit",
            "40",
            "--no-depyf",
            "--json",
            str(out),
            "--show-mismatches",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "plain (no exc/with/gen/async/match)" in proc.stdout
    assert "decomp/compile" in proc.stdout
    result = json.loads(out.read_text())[version]["pellucid"]
    assert result["status"] == "ok"
    assert result["functions"] == 40
    assert sum(result["rows"]["total"].values()) == 40
    assert result["compile_time"] > 0
