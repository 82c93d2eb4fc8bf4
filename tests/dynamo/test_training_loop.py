"""A training loop as users write one (``training_loop.py``), compiled and dumped for real.

Logging with ``print(f"{loss.item():.4f}")`` and ``print("loss", a.item(), "max", b.item())``
makes several graph breaks on one source line, so Dynamo makes several resume functions with
one name, file and line: each is its own function in the dump, with its own files, and the
report hangs each resume frame off the graph break it continues after.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import training_loop
from checks import check_files_compile, load_index


def _run(dump: str, steps: int = 2, backend: str = "aot_eager") -> tuple[str, str]:
    """(output under prepare_debug, output of the same steps run eagerly)."""
    import torch

    import pellucid

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pellucid.prepare_debug(dump):
        training_loop.train(steps, backend)
    eager = io.StringIO()
    with contextlib.redirect_stdout(eager), torch.compiler.set_stance("force_eager"):
        training_loop.train(steps, backend)
    return out.getvalue(), eager.getvalue()


def test_two_resume_functions_of_one_line_are_two_functions(tmp_path):
    dump = str(tmp_path)
    out, eager = _run(dump)
    assert out == eager and out.count("loss") == 4
    index = load_index(dump)
    check_files_compile(dump, index)
    s = index["sessions"][-1]
    functions = {f["key"]: f for f in s["functions"]}
    assert len(functions) == len(s["functions"])
    at_line = [
        f for f in s["functions"]
        if f["kind"] == "resume" and f["firstlineno"] == training_loop.FSTRING_LINE
        and f["filename"] == training_loop.__file__
    ]
    assert len(at_line) == 2, [f["key"] for f in s["functions"]]
    # every compile's function has the compile's cache entry, guard file and full_code file
    for c in s["compiles"]:
        fn = functions[c["function"]]
        entries = [e for e in fn["cache_entries"] if e["compile_id"] == c["compile_id"]]
        assert len(entries) == 1, (c, fn)
        assert entries[0]["guard_file"] and entries[0]["transformed_code_file"] == c[
            "transformed_code_file"
        ]
        assert fn["full_code_file"], fn
        assert c["transformed_code_file"] in open(
            os.path.join(dump, fn["full_code_file"]), encoding="utf-8"
        ).read()
    # full_code files of distinct functions are distinct files
    fulls = [f["full_code_file"] for f in s["functions"]]
    assert len(set(fulls)) == len(fulls), fulls
    # the resume functions' own code is decompiled in their stories, f-strings included
    for f in s["functions"]:
        if f["kind"] == "resume":
            text = open(os.path.join(dump, f["full_code_file"]), encoding="utf-8").read()
            assert "not decompiled" not in text, text


def test_the_report_hangs_each_resume_frame_off_its_own_graph_break(tmp_path):
    from pellucid.report.model import load_dump

    dump = str(tmp_path)
    _run(dump)
    s = load_dump(dump).sessions[-1]
    at_line = [
        fn for fn in s.functions
        if fn.kind == "resume" and fn.firstlineno == training_loop.FSTRING_LINE
    ]
    assert len(at_line) == 2
    first, second = sorted(at_line, key=lambda fn: fn.compiles[0].compile_id)
    # the first continues after step's break, the second after the first's own break
    assert first.parent is not None and first.parent.name == "step"
    assert second.parent is first
    b1, b2 = first.compiles[0].resumed_from, second.compiles[0].resumed_from
    assert b1 is not None and b2 is not None and b1 is not b2
    assert b1.compile_id == first.parent.compiles[0].compile_id
    assert b2.compile_id == first.compiles[0].compile_id
    # every cache entry of the second shows its guards
    assert second.cache_entries and all(ce.guard_file for ce in second.cache_entries)


def _script_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SRC, env.get("PYTHONPATH", "")])
    env.pop("TORCH_LOGS", None)
    env.update(extra)
    return env


SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
SCRIPT = training_loop.__file__
_GRAPH_BREAK_LOG = re.compile(
    r"Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at"
)


def test_the_report_counts_what_torch_logs_print(tmp_path):
    """The failed recompilation (a guard on the float ``.item()`` gave, then Dynamo gave up on
    the f-string) is a recompilation: the report's counts are TORCH_LOGS's."""
    from pellucid.report import build_report

    dump = tmp_path / "dump"
    proc = subprocess.run(
        [sys.executable, SCRIPT, str(dump), "2"],
        capture_output=True,
        text=True,
        timeout=600,
        env=_script_env(TORCH_LOGS="recompiles,graph_breaks"),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    recompiles = proc.stderr.count("Recompiling function")
    breaks = len(_GRAPH_BREAK_LOG.findall(proc.stderr))
    assert recompiles >= 1 and breaks >= 2
    html = open(build_report(str(dump)), encoding="utf-8").read()
    assert f"Recompilations ({recompiles})" in html, re.findall(r"Recompilations \(\d+\)", html)
    assert f"Graph breaks ({breaks})" in html, re.findall(r"Graph breaks \(\d+\)", html)
    s = load_index(str(dump))["sessions"][-1]
    every = s["compiles"] + s["compiles_without_code"]
    failed = [c for c in every if c["outcome"] == "failed"]
    assert failed and all(c["recompile_reason"] and c["failure"] for c in failed), failed
    assert all(c["outcome"] == "compiled" for c in s["compiles"])
    assert "compile failed" in html
    # every compile Dynamo recorded is in the index once
    ids = [c["compile_id"] for c in every]
    assert len(ids) == len(set(ids))


def _index_describes_the_dump(dump) -> dict:
    """The index is valid JSON and lists exactly the files in the directory (but its own and
    the lock; a temporary file of an index write cut short is a dot file too)."""
    index = load_index(str(dump))
    listed = {f["path"] for s in index["sessions"] for f in s["files"]}
    on_disk = {n for n in os.listdir(dump) if not n.startswith(".") and n != "index.json"}
    assert listed == on_disk, (sorted(on_disk - listed), sorted(listed - on_disk))
    return index


def _torch_release() -> tuple[int, int]:
    import torch

    major, minor = torch.__version__.split(".")[:2]
    return int(major), int(minor)


# Open defect: in the full suite on torch 2.15 (not when this file runs alone), twelve Ctrl-Cs
# ten seconds apart do not end the job; the first one often lands in a weakref callback or a
# guard evaluated from C++, where it is dropped.  Not strict, so a pass is not hidden.
_SIGINT_ON_215 = pytest.mark.xfail(
    _torch_release() >= (2, 15),
    reason="torch 2.15: Ctrl-C repeatedly lost in the full suite (open defect)",
    strict=False,
)


@pytest.mark.parametrize(
    "signame", ["SIGTERM", "SIGKILL", pytest.param("SIGINT", marks=_SIGINT_ON_215)]
)
def test_a_killed_training_job_leaves_an_index_of_its_files(tmp_path, signame):
    dump, ready = tmp_path / "dump", tmp_path / "ready"
    proc = subprocess.Popen(
        [sys.executable, SCRIPT, str(dump), "0", "--ready", str(ready)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_script_env(),
    )
    try:
        deadline = time.monotonic() + 600
        while not ready.exists():
            assert proc.poll() is None, proc.stderr.read()[-3000:]
            assert time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(0.5)  # training on, compiled
        for _ in range(12):
            proc.send_signal(getattr(signal, signame))
            try:
                _, err = proc.communicate(timeout=10)
                break
            except subprocess.TimeoutExpired:
                # A SIGINT that lands inside torch.compile's own compilation can be lost
                # (seen with torch 2.15 without pellucid too): press Ctrl-C again, as a user does.
                assert signame == "SIGINT", f"{signame} did not end the job"
        else:
            raise AssertionError(f"{signame}, sent 12 times, did not end the job")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    index = _index_describes_the_dump(dump)
    (s,) = index["sessions"]
    # what was compiled before the kill is there; SIGINT ends the block as an exception does
    assert len(s["compiles"]) >= 10 and s["graph_breaks"], s["compiles"]
    assert any(c["transformed_code_file"] for c in s["compiles"])
    assert s["complete"] is (signame == "SIGINT"), s["complete"]
    # and the report can be made from it
    from pellucid.report import build_report

    html = open(build_report(str(dump)), encoding="utf-8").read()
    assert "Graph breaks (" in html
    assert ("This session did not finish" in html) is (signame != "SIGINT")


def test_the_index_is_current_after_every_event_that_writes_files(tmp_path, monkeypatch):
    """In the program's own process: whenever a file has been dumped and control is back in
    the program, the index on disk lists it."""
    import torch

    import pellucid
    from pellucid.dynamo import session as session_mod

    checked = []
    real = session_mod._checkpoint

    def checkpoint(s):
        real(s)
        checked.append(len(_index_describes_the_dump(tmp_path)["sessions"][-1]["files"]))

    monkeypatch.setattr(session_mod, "_checkpoint", checkpoint)
    with pellucid.prepare_debug(str(tmp_path)):
        training_loop.train(1)
        torch._dynamo.reset()  # a second session of the block
        training_loop.train(1)
    assert len(checked) >= 10, checked
    index = _index_describes_the_dump(tmp_path)
    assert [s["complete"] for s in index["sessions"]] == [True, True]
