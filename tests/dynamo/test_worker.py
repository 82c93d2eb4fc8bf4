"""The helper process that decompiles resume functions (pellucid.dynamo.worker): its answers
are the ones this process would give, and whatever goes wrong with it, the files are the same."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time

import pytest
import torch
import workloads

import pellucid
from pellucid.dynamo import guards, worker


def _closure_maker():
    scale = 3

    def inner(x, *rest, k=1, **kw):
        try:
            return [v * scale for v in rest if v] or x
        except ValueError as e:
            return str(e)

    return inner


async def _coro(xs):
    async with xs as x:
        return [y async for y in x]


def _codes():
    return [
        workloads.toy_example.__code__,
        workloads.graph_breaks.__code__,
        _closure_maker.__code__,
        _closure_maker().__code__,
        _coro.__code__,
    ]


def _wait_ready(w: worker.Worker) -> None:
    """answer() waits only for a helper that said it is ready: wait for that here."""
    while not w.ready and not w.broken:
        w._pump(5.0)


def _fresh_worker() -> worker.Worker:
    w = worker.Worker()
    _wait_ready(w)
    assert w.ready and not w.broken
    return w


def test_answers_are_this_process_s():
    w = _fresh_worker()
    try:
        keys = [(c, w.submit(c)) for c in _codes()]
        assert all(k is not None for _, k in keys)
        for code, key in keys:
            got = w.answer(key)
            assert got == worker.resume_source(code), code.co_name
            assert got[1], got[0]  # decompiled, not a reason
        # a refusal comes back as this process's reason (pytest's rewritten asserts use names
        # no source can spell)
        refused = test_answers_are_this_process_s.__code__
        got = w.answer(w.submit(refused))
        assert got == worker.resume_source(refused) and not got[1] and "@py_assert" in got[0]
        assert not w.answers and not w.sent
    finally:
        w.close()
    assert w.proc.poll() is not None  # the helper exits when its input closes


def test_guard_terms_are_this_process_s():
    """The helper's translation of guard parts is translate_part's here, whatever either
    process met before (shapes shared with earlier parts included)."""
    parts = [
        "check_tensor(L['a'], Tensor, DispatchKeySet(CPU), torch.float32, size=[2, 3], stride=[3, 1])",
        "check_tensor(L['b'], Parameter, DispatchKeySet(CPU), torch.int64, size=[4], stride=[1])",
        "___check_obj_id(G['torch'], 139767994110240), type=<class 'module'>",
        '___check_global_state() against {"grad_mode":true}',
        "L['x'].size()[0] == 3  # x.size(0) == 3 user.py:10",
        "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None",
        "a  #",
        "L['n'] if 3 else 4",
        "a b c",
    ]
    w = _fresh_worker()
    try:
        key = w.submit_guards(parts)
        assert key is not None
        got, ok = w.answer(key)
    finally:
        w.close()
    guards.clear_caches()
    assert ok and got == [(t.code, t.comment) for t in map(guards.translate_part, parts)]
    guards.clear_caches()
    guards.remember_terms(parts, got)
    assert [guards.translate_part(p) for p in parts] == [guards._apply(guards._verdict(p.strip()), p.strip(), p) for p in parts]


def test_code_that_does_not_marshal_is_left_to_the_caller():
    w = _fresh_worker()
    try:
        odd = workloads.toy_example.__code__.replace(co_consts=(object(),))
        assert w.submit(odd) is None
        # the helper is still fine for the next one
        key = w.submit(workloads.toy_example.__code__)
        assert w.answer(key) == worker.resume_source(workloads.toy_example.__code__)
    finally:
        w.close()


def test_a_helper_not_ready_yet_is_not_waited_for():
    w = worker.Worker()
    try:
        w.ready = False  # as if still importing: the caller decompiles itself at once
        w._parse = lambda: None  # (and never hears it is ready)
        key = w.submit(workloads.toy_example.__code__)
        assert key is not None
        assert w.answer(key) is None
    finally:
        w.close()


def test_up_reads_the_helper_s_ready_message():
    """The hook asks up() before sending a frame: it must see a helper that became ready since
    the program last read its pipe."""
    w = worker.Worker()
    try:
        deadline = time.monotonic() + 60
        while not w.up() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert w.ready and not w.broken
    finally:
        w.close()


def test_a_dead_helper_is_dropped():
    w = _fresh_worker()
    os.kill(w.proc.pid, signal.SIGKILL)
    w.proc.wait()
    key = w.submit(workloads.toy_example.__code__)  # (the write may find the pipe closed)
    if key is not None:
        assert w.answer(key) is None
    assert w.broken
    assert w.submit(workloads.toy_example.__code__) is None


def _wait_guard_answers(session) -> None:
    """The exit takes only the guard terms that have come: wait for them here (a loaded
    machine could otherwise turn the test into one of the fallback)."""
    w = session._worker
    while not w.broken and not all(k in w.answers for k in session._guards_sent.values()):
        w._pump(5.0)


def _dump(tmp_path, name, env_value, monkeypatch, kill=False):
    monkeypatch.setenv("PELLUCID_WORKER", env_value)
    worker.shutdown()
    guards.clear_caches()  # (each run translates its guards afresh: here or in the helper)
    torch._dynamo.reset()
    fn, run = workloads.make_readme()
    compiled = torch.compile(fn, backend="eager")
    d = tmp_path / name
    with pellucid.prepare_debug(str(d)) as session:
        if session._worker is not None and not kill:
            _wait_ready(session._worker)  # (on a loaded machine its imports could outlast this run)
        if kill:
            assert session._worker is not None
            os.kill(session._worker.proc.pid, signal.SIGKILL)
            session._worker.proc.wait()
        out = run(compiled)
        if session._worker is not None and not kill:
            _wait_guard_answers(session)
    assert all(torch.equal(a, b) for a, b in zip(out, run(fn)))
    # (Dynamo's own counters go on across resets: its graph and resume names differ by number)
    counters = re.compile(r"(__compiled_fn_|__resume_at_\d+_)\d+")
    files = [*d.glob("full_code_for_*.py"), *d.glob("__guard_*.py"), *d.glob("__transformed_code_*.py")]
    return session, {p.name: counters.sub(r"\1N", p.read_text()) for p in files}


@pytest.mark.filterwarnings("error::pellucid.dynamo.PellucidWarning")
def test_full_code_files_are_the_same_with_and_without_the_helper(tmp_path, monkeypatch):
    alone, files_alone = _dump(tmp_path, "alone", "0", monkeypatch)
    assert alone._worker is None
    helped, files_helped = _dump(tmp_path, "helped", "1", monkeypatch)
    assert helped._worker is not None and not helped._worker.broken
    # both resume functions and the three transformed frames came from the helper
    assert helped._worker.answered == 5
    index = json.loads((tmp_path / "helped" / "index.json").read_text())
    assert index["sessions"][-1]["resume_sources"] == {"decompiled": 2, "by_helper_process": 2}
    assert index["sessions"][-1]["transformed_by_helper_process"] == 3
    # both cache entries' guards were translated by the helper (toy_example's and the resume
    # function's), sent when the next event found their entries
    assert index["sessions"][-1]["guards_translated_by_helper_process"] == 2
    killed, files_killed = _dump(tmp_path, "killed", "1", monkeypatch, kill=True)
    assert killed._worker.broken
    killed_index = json.loads((tmp_path / "killed" / "index.json").read_text())["sessions"][-1]
    assert killed_index["transformed_by_helper_process"] == 0
    # toy_example's file tells both resume functions' code (one for each way of the branch),
    # and the one these inputs ran has a file of its own
    story = files_alone["full_code_for_toy_example.py"]
    assert story.count("made by Dynamo at the graph break") == 2, story
    assert any("resume_in_toy_example" in n for n in files_alone), sorted(files_alone)
    for text in files_alone.values():
        assert "not decompiled" not in text
        compile(text, "full_code", "exec")
    assert files_helped == files_alone
    assert files_killed == files_alone
    worker.shutdown()


def test_a_recompile_s_guards_go_to_the_helper_too(tmp_path, monkeypatch):
    """A second cache entry of one function (a recompile) is found (by the code it holds) and
    its guards sent."""
    monkeypatch.setenv("PELLUCID_WORKER", "1")
    guards.clear_caches()
    torch._dynamo.reset()

    def double(x):
        return x * 2

    def halve(x):
        return x / 2

    compiled = torch.compile(double, backend="eager", dynamic=False)
    with pellucid.prepare_debug(str(tmp_path)) as session:
        _wait_ready(session._worker)
        compiled(torch.ones(2))
        compiled(torch.ones(3))  # another shape: a recompile, a second cache entry
        # the next compile's events find it (with nothing after, the exit would translate it)
        torch.compile(halve, backend="eager")(torch.ones(2))
        _wait_guard_answers(session)
    index = json.loads((tmp_path / "index.json").read_text())["sessions"][-1]
    (fn,) = [f for f in index["functions"] if f["name"] == "double"]
    assert len(fn["cache_entries"]) == 2
    # double's two entries; halve's, made last, is translated on exit
    assert index["guards_translated_by_helper_process"] == 2
    sizes = {g["code"] for ce in fn["cache_entries"] for g in ce["guards"] if "size=" in g["code"]}
    assert any("size=[2]" in c for c in sizes) and any("size=[3]" in c for c in sizes), sizes


@pytest.mark.filterwarnings("error::pellucid.dynamo.PellucidWarning")
def test_a_failing_guard_send_costs_nothing(tmp_path, monkeypatch):
    """Sending guards is an optimisation: when it fails, every file is still made, the guards
    are translated on exit, and no failure is recorded."""
    monkeypatch.setenv("PELLUCID_WORKER", "1")

    def broken(self, parts):
        raise RuntimeError("no")

    monkeypatch.setattr(worker.Worker, "submit_guards", broken)
    guards.clear_caches()
    torch._dynamo.reset()
    fn, run = workloads.make_readme()
    with pellucid.prepare_debug(str(tmp_path)) as session:
        _wait_ready(session._worker)
        run(torch.compile(fn, backend="eager"))
    index = json.loads((tmp_path / "index.json").read_text())["sessions"][-1]
    assert index["guards_translated_by_helper_process"] == 0 and not index["failures"]
    entries = [ce for f in index["functions"] for ce in f["cache_entries"]]
    assert len(entries) >= 2 and all((tmp_path / ce["guard_file"]).exists() for ce in entries)
    assert index["graphs"] and all(g["stages"] for g in index["graphs"])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_starts_its_own_helper():
    parent = worker.get()
    assert parent is not None
    pid = os.fork()
    if pid == 0:  # the child: exit status says what it saw
        status = 1
        try:
            assert worker._worker is None and parent.broken
            own = worker.get()
            assert own is not None and own is not parent and own.pid == os.getpid()
            _wait_ready(own)
            key = own.submit(workloads.toy_example.__code__)
            assert own.answer(key) == worker.resume_source(workloads.toy_example.__code__)
            own.close()
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # the parent's helper is untouched by the child's exit
    assert worker.get() is parent and not parent.broken
    key = parent.submit(workloads.toy_example.__code__)
    _wait_ready(parent)
    assert parent.answer(key) == worker.resume_source(workloads.toy_example.__code__)


def test_the_helper_imports_nothing_but_pellucid():
    """It runs with -I -S: torch and site-packages stay out of it (a light second process)."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(pellucid.__file__)))
    code = (
        f"import sys; sys.path.insert(0, {root!r}); import pellucid.dynamo.worker, "
        "pellucid.decompiler.api, pellucid.dynamo.recompile; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy')))"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_no_helper_where_it_is_off_or_python_is_embedded(monkeypatch):
    worker.shutdown()
    monkeypatch.setenv("PELLUCID_WORKER", "0")
    assert worker.get() is None
    monkeypatch.setenv("PELLUCID_WORKER", "1")
    # an application embedding Python: sys.executable is the application, never started
    monkeypatch.setattr(sys, "executable", "/opt/app/bin/render-server")
    assert worker.get() is None
    monkeypatch.setattr(sys, "executable", "")
    assert worker.get() is None
    monkeypatch.undo()
    # under VS Code's debugger (debugpy, built on pydevd), which would attach to the helper too
    monkeypatch.setitem(sys.modules, "pydevd", sys)
    assert worker.get() is None
    monkeypatch.undo()
    assert worker.get() is not None
