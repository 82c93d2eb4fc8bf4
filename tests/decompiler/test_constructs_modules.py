"""Whole-module samples: a module's code object decompiled back to module source.

Each file in ``samples/modules/`` is compiled as a module, decompiled with ``verify=True``, and
both the original and the decompiled module are executed (as ``__main__`` and as an imported
module) in fresh namespaces.  Their printed output, the values they leave behind and the result
of their ``_check()`` function must match.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import re
import sys
from pathlib import Path

import pytest
from samples._harness import (
    CASE_TIMEOUT,
    CONSTRUCT_OF,
    CaseTimeout,
    describe,
    exc_signature,
    normalize,
    source_or_outcome,
    time_limit,
)

MODULE_DIR = Path(__file__).resolve().parent / "samples" / "modules"
_MIN = re.compile(r"#\s*min-version:\s*(\d+)\.(\d+)")
# ``# refused-from: 3.14: <reason>``: from that version on the module's bytecode carries too
# little of it to decompile (3.14+ keep nothing of an annotation whose target is an attribute
# or a subscript), and the decompiler must refuse it with that reason instead
_REFUSED_FROM = re.compile(r"^#\s*refused-from:\s*(\d+)\.(\d+):\s*(.+)$", re.M)


def _refusal(path: Path) -> str | None:
    """The reason this Python must refuse the module with, or None when it must decompile."""
    m = _REFUSED_FROM.search(path.read_text(encoding="utf-8"))
    if m is None or sys.version_info[:2] < (int(m.group(1)), int(m.group(2))):
        return None
    return m.group(3).strip()


def _module_files():
    out = []
    for path in sorted(MODULE_DIR.glob("mod_*.py")):
        text = path.read_text(encoding="utf-8")
        m = _MIN.search(text.split("\n", 1)[0])
        minver = (int(m.group(1)), int(m.group(2))) if m else (3, 9)
        marks = []
        if sys.version_info[:2] < minver:
            marks.append(pytest.mark.skip(reason=f"needs Python {minver[0]}.{minver[1]}"))
        out.append(pytest.param(path, id=f"modules.{path.stem}", marks=marks))
        CONSTRUCT_OF[f"modules.{path.stem}"] = "modules"
    return out


MODULES = _module_files()


def _compile(path: Path):
    return compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)


def _run_module(code, name: str) -> dict:
    ns = {"__name__": name, "__builtins__": builtins, "__doc__": None}
    out = io.StringIO()
    record = {}
    with contextlib.redirect_stdout(out):
        try:
            with time_limit(CASE_TIMEOUT, "running the module", CaseTimeout):
                exec(code, ns)
                check = ns.get("_check")
                record["check"] = describe(normalize(check())) if callable(check) else None
        except (Exception, CaseTimeout) as exc:  # noqa: BLE001
            record["raised"] = exc_signature(exc)
    record["stdout"] = out.getvalue()
    record["names"] = sorted(k for k in ns if k != "__builtins__")
    record["values"] = {
        k: describe(v)
        for k, v in ns.items()
        if not k.startswith("__")
        and isinstance(v, (int, float, str, bytes, tuple, list, dict, set))
    }
    record["__all__"] = ns.get("__all__")
    record["__doc__"] = ns.get("__doc__")
    record["__annotations__"] = describe(ns.get("__annotations__"))
    return record


def _source(path: Path, verify: bool) -> str:
    code = _compile(path)
    return source_or_outcome(f"modules.{path.stem}", code, "modules", verify)


def _assert_refused(path: Path, reason: str, verify: bool) -> None:
    from pellucid import decompile
    from pellucid.decompiler.errors import DecompilationError

    with pytest.raises(DecompilationError, match=re.escape(reason)):
        decompile(_compile(path), verify=verify)


@pytest.mark.parametrize("path", MODULES)
def test_module_verified(path):
    reason = _refusal(path)
    if reason is not None:
        _assert_refused(path, reason, verify=True)
        return
    src = _source(path, verify=True)
    compile(src, "<decompiled>", "exec", dont_inherit=True)


@pytest.mark.parametrize("path", MODULES)
@pytest.mark.parametrize("run_as", ["__main__", "imported_sample"])
def test_module_behaviour(path, run_as):
    reason = _refusal(path)
    if reason is not None:
        _assert_refused(path, reason, verify=False)
        return
    src = _source(path, verify=False)
    original = _run_module(_compile(path), run_as)
    decompiled = _run_module(compile(src, str(path), "exec", dont_inherit=True), run_as)
    diffs = [
        f"  {k}: original {original.get(k)!r} / decompiled {decompiled.get(k)!r}"
        for k in sorted(set(original) | set(decompiled))
        if original.get(k) != decompiled.get(k)
    ]
    assert not diffs, (
        "decompiled module behaves differently:\n"
        + "\n".join(diffs)
        + (f"\n--- decompiled source ---\n{src}")
    )
