"""Frames made into files by the helper process while Dynamo builds their guards, and given to
Dynamo's cache then (adapter.adopt_code): the code that runs is the file's, Dynamo's bookkeeping
follows it, and whatever goes wrong with the helper, the frame still runs (from its file when
this process can make it)."""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import types

import pytest
import torch
import workloads

import pellucid
from pellucid.dynamo import adapter, guards, session, worker


def _wait_ready(w: worker.Worker) -> None:
    while not w.ready and not w.broken:
        w._pump(5.0)


def _run_readme(tmp_path, monkeypatch, before_run=None):
    """The README example under prepare_debug with the helper up; (session, index, outputs)."""
    monkeypatch.setenv("PELLUCID_WORKER", "1")
    worker.shutdown()
    guards.clear_caches()
    torch._dynamo.reset()
    fn, run = workloads.make_readme()
    compiled = torch.compile(fn, backend="eager")
    with pellucid.prepare_debug(str(tmp_path)) as s:
        _wait_ready(s._worker)
        if before_run is not None:
            before_run(s)
        out = run(compiled)
    index = json.loads((tmp_path / "index.json").read_text())["sessions"][-1]
    assert all(torch.equal(a, b) for a, b in zip(out, run(fn)))
    return s, index, (fn, run, compiled)


@pytest.mark.filterwarnings("error::pellucid.dynamo.PellucidWarning")
def test_frames_made_by_the_helper_run_from_their_files(tmp_path, monkeypatch):
    s, index, (fn, run, compiled) = _run_readme(tmp_path, monkeypatch)
    assert index["transformed_by_helper_process"] == 3 and not index["failures"]
    assert all(c["executed_from_file"] and c["transformed_code_file"] for c in index["compiles"])
    # what Dynamo caches (and runs) is the code compiled from each file
    cached = [
        ce.code
        for c in (fn.__code__, *s._resume_codes.values())
        for ce in adapter.cache_entries(c)
    ]
    files = {os.path.join(str(tmp_path), c["transformed_code_file"]) for c in index["compiles"]}
    assert len(cached) == 3 and {c.co_filename for c in cached} == files
    # the guards of every entry were found by the code it holds
    assert all(ce["guard_file"] for ce in (e for f in index["functions"] for e in f["cache_entries"]))
    # after the session, and a collection, the compiled function still runs its files' code:
    # Dynamo's own code (whose clean-ups delete its compiled graphs' globals) is still alive
    gc.collect()
    assert all(torch.equal(a, b) for a, b in zip(run(compiled), run(fn)))
    assert {ce.code.co_filename for c in (fn.__code__,) for ce in adapter.cache_entries(c)} <= files


def test_a_recompile_reason_is_found_for_an_adopted_code(tmp_path, monkeypatch):
    """Guard failures are reported by the cached code's original (Dynamo's orig_code_map):
    an adopted code must be there, or the recompile would fail inside torch."""
    monkeypatch.setenv("PELLUCID_WORKER", "1")
    guards.clear_caches()
    torch._dynamo.reset()

    def double(x):
        return x * 2

    compiled = torch.compile(double, backend="eager", dynamic=False)
    with pellucid.prepare_debug(str(tmp_path)) as s:
        _wait_ready(s._worker)
        compiled(torch.ones(2))
        compiled(torch.ones(3))
    index = json.loads((tmp_path / "index.json").read_text())["sessions"][-1]
    assert index["transformed_by_helper_process"] == 2 and not index["failures"]
    assert any("size" in (c["recompile_reason"] or "") for c in index["compiles"]), index["compiles"]


@pytest.mark.filterwarnings("error::pellucid.dynamo.PellucidWarning")
def test_a_helper_that_dies_after_the_hook_leaves_the_frame_to_this_process(tmp_path, monkeypatch):
    sent = worker.Worker.submit_transform

    def submit_then_die(self, request):
        key = sent(self, request)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        return key

    monkeypatch.setattr(worker.Worker, "submit_transform", submit_then_die)
    alone = tmp_path / "alone"
    s, index, _ = _run_readme(tmp_path / "killed", monkeypatch)
    assert index["transformed_by_helper_process"] == 0 and not index["failures"]
    assert all(c["executed_from_file"] for c in index["compiles"])
    monkeypatch.setattr(worker.Worker, "submit_transform", sent)
    monkeypatch.setenv("PELLUCID_WORKER", "0")
    torch._dynamo.reset()
    fn, run = workloads.make_readme()
    with pellucid.prepare_debug(str(alone)):
        run(torch.compile(fn, backend="eager"))
    made = sorted(p.name for p in (tmp_path / "killed").glob("__transformed_code_*.py"))
    assert made and made == sorted(p.name for p in alone.glob("__transformed_code_*.py"))
    counters = re.compile(r"(__compiled_fn_|__resume_at_\d+_)\d+")  # (they go on across resets)
    for name in made:
        killed_text = counters.sub(r"\1N", (tmp_path / "killed" / name).read_text())
        assert killed_text == counters.sub(r"\1N", (alone / name).read_text())


def test_a_frame_the_helper_cannot_make_keeps_dynamo_s_code(tmp_path, monkeypatch):
    """The helper's failure is recorded and warned about like this process's own."""
    answer = worker.Worker.answer

    def failing(self, key, within=None):
        got = answer(self, key, within)
        if got is not None and isinstance(got[0], tuple) and got[1] is True:
            return ("DecompilationError: made to fail by the test", True), False
        return got

    monkeypatch.setattr(worker.Worker, "answer", failing)
    with pytest.warns(pellucid.dynamo.PellucidWarning, match="made to fail by the test"):
        s, index, (fn, _, _) = _run_readme(tmp_path, monkeypatch)
    assert index["transformed_by_helper_process"] == 0
    assert {f["kind"] for f in index["failures"]} == {"decompile"}
    assert all(not c["executed_from_file"] and c["failure"] for c in index["compiles"])
    # Dynamo's own code is what its cache holds
    assert all(ce.code.co_filename == fn.__code__.co_filename for ce in adapter.cache_entries(fn.__code__))


def test_without_the_internals_files_are_made_in_the_hook(tmp_path, monkeypatch):
    monkeypatch.setattr(
        adapter, "ADOPTION_INTERNALS", (*adapter.ADOPTION_INTERNALS, ("torch._dynamo.types", "NoSuchThing"))
    )
    assert not adapter.can_adopt_code()
    s, index, _ = _run_readme(tmp_path, monkeypatch)
    assert not s._adopting
    assert index["transformed_by_helper_process"] == 0 and not index["failures"]
    assert all(c["executed_from_file"] for c in index["compiles"])


def test_adopt_code_keeps_dynamo_s_code_and_its_clean_ups_as_long_as_the_new_one():
    from torch._dynamo import convert_frame, utils

    def original():
        return 1

    dynamo_code = compile("def f():\n    return 2\n", "<dynamo>", "exec").co_consts[0]
    ours = compile("def f():\n    return 3\n", "<pellucid>", "exec").co_consts[0]
    cleaned = []
    utils.CleanupManager.instance[dynamo_code] = [lambda: cleaned.append(1)]
    guarded = types.SimpleNamespace(code=dynamo_code)
    adapter.adopt_code(guarded, ours, original.__code__)
    assert guarded.code is ours
    assert utils.orig_code_map[ours] is original.__code__
    assert ours in convert_frame.output_codes
    del dynamo_code
    gc.collect()
    assert not cleaned  # Dynamo's code is alive while its stand-in is
    del guarded, ours
    gc.collect()
    assert cleaned == [1]


def test_a_compile_that_stops_after_the_hook_leaves_no_file(tmp_path, monkeypatch):
    """Guard building fails: Dynamo never runs the code, and the frame's record says so."""
    from torch._dynamo.convert_frame import DynamoOutput

    build = DynamoOutput.build_guards

    def failing_build(self, *a, **k):
        raise RuntimeError("guards made to fail by the test")

    monkeypatch.setattr(DynamoOutput, "build_guards", failing_build)
    monkeypatch.setenv("PELLUCID_WORKER", "1")
    torch._dynamo.reset()

    def plus(x):
        return x + 1

    with pellucid.prepare_debug(str(tmp_path)) as s:
        _wait_ready(s._worker)
        with pytest.raises(Exception, match="guards made to fail"):
            torch.compile(plus, backend="eager", fullgraph=True)(torch.ones(2))
    monkeypatch.setattr(DynamoOutput, "build_guards", build)
    index = json.loads((tmp_path / "index.json").read_text())["sessions"][-1]
    (c,) = index["compiles"]
    assert not c["executed_from_file"] and "stopped after its bytecode hook" in c["failure"]
    assert not list(tmp_path.glob("__transformed_code_*.py"))
    assert session._current is None
