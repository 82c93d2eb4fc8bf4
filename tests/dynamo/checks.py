"""Assertions shared by the torch.compile tests."""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable

import pytest

NOTES = "tests/dynamo/save_failures.py, which saves it as a fixture"


def load_index(dump_dir: str) -> dict[str, Any]:
    with open(os.path.join(dump_dir, "index.json"), encoding="utf-8") as f:
        data = json.load(f)
    assert data["schema"] == "pellucid-dump-index" and data["version"] == 1
    return data


def check_files_compile(dump_dir: str, index: dict[str, Any]) -> None:
    """Every file the index lists exists; every .py file in the dump compiles."""
    for s in index["sessions"]:
        for f in s["files"]:
            assert os.path.exists(os.path.join(dump_dir, f["path"])), f
    for name in os.listdir(dump_dir):
        if name.endswith(".py"):
            with open(os.path.join(dump_dir, name), encoding="utf-8") as fh:
                compile(fh.read(), name, "exec")


def decompiler_failures(index: dict[str, Any]) -> list[str]:
    return [
        f"{f.get('function')}: {f['reason']}"
        for s in index["sessions"]
        for f in s["failures"]
        if f["kind"] == "decompile"
    ]


def xfail_if_decompiler_broke_run(error: BaseException, dump_dir: str) -> None:
    """A run that died inside a decompiled file is a decompiler bug (recorded in NOTES)."""
    frames = traceback.extract_tb(error.__traceback__)
    culprit = [fs for fs in frames if os.path.dirname(fs.filename) == os.path.abspath(dump_dir)]
    if culprit and "__transformed_code_" in culprit[-1].filename:
        pytest.xfail(
            f"decompiler produced wrong code for {os.path.basename(culprit[-1].filename)}: "
            f"{type(error).__name__}: {error} (see {NOTES})"
        )


def require_all_from_files(index: dict[str, Any]) -> None:
    """Every frame ran from its decompiled file, proven equivalent to Dynamo's bytecode, or the
    test xfails naming the decompiler error."""
    for s in index["sessions"]:
        for c in s["compiles"]:
            if c["transformed_code_file"] and c["verification"] != "equivalent":
                # a difference is wrong code; what the validator does not model is its limit
                assert not c["verification"].startswith("not-verified: differs"), (
                    c["function"], c["verification"])
                pytest.xfail(f"validator: {c['function']}: {c['verification']}")
            if c["executed_from_file"]:
                continue
            failures = [f for f in s["failures"] if f.get("compile_id") == c["compile_id"]]
            if failures and all(f["kind"] == "decompile" for f in failures):
                pytest.xfail(f"decompiler: {failures[0]['reason']} (see {NOTES})")
            raise AssertionError(f"frame {c['function']} not run from its file: {c['failure']}")


def run_seeing_dump_files(dump_dir: str, call: Callable[[], Any], **options: Any) -> tuple[Any, set[str]]:
    """``call()`` inside ``prepare_debug(dump_dir, **options)``: its result and the names of
    the dumped files whose functions ran (executing a file to define them does not count)."""
    import pellucid

    seen: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(dump_dir) and code.co_name != "<module>":
            seen.add(os.path.basename(frame.f_code.co_filename))

    with pellucid.prepare_debug(dump_dir, **options):
        sys.setprofile(profile)
        try:
            result = call()
        finally:
            sys.setprofile(None)
    return result, seen
