"""`pellucid run` and `pellucid report` as real subprocesses.

The program must see what ``python script.py`` gives it (argv, ``__main__``, ``sys.path[0]``,
exit code), while its torch.compile work is dumped, reported and (with ``TORCH_TRACE``) added to
PyTorch's structured trace for tlparse.  Tests that run torch are skipped where torch is not
installed (the non-3.11 venvs).
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="pellucid run needs torch"
)

SCRIPT = textwrap.dedent(
    """\
    import os
    import pickle
    import sys

    import torch

    print("ARGV", repr(sys.argv))
    print("MAIN", __name__, __file__ == os.path.abspath(sys.argv[0]), __spec__)
    print("PATH0", sys.path[0])


    class Point:
        pass


    def f(x):
        x = x + 1
        print("a graph break")
        return x * 2


    compiled = torch.compile(f, backend="eager")
    compiled(torch.ones(3))
    compiled(torch.ones(4))
    pickle.dumps(Point())  # classes of __main__ pickle as in python script.py
    sys.exit(int(sys.argv[1]))
    """
)
BREAK_LINE = SCRIPT.splitlines().index('    print("a graph break")') + 1

MODULE = textwrap.dedent(
    """\
    import sys

    import torch


    def g(x):
        return x.sin()


    print("ARGV", repr(sys.argv))
    print("MAIN", __name__)
    torch.compile(g, backend="eager")(torch.ones(2))
    raise ValueError("the program failed")
    """
)


def env_with_src(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONSTARTUP", None)
    env.pop("TORCH_TRACE", None)
    env.update(extra)
    return env


def pellucid(*args: str, cwd: Path | str | None = None, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pellucid", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env_with_src(**env),
        timeout=300,
    )


def lines(out: str, tag: str) -> list[str]:
    return [ln[len(tag) + 1 :] for ln in out.splitlines() if ln.startswith(tag + " ")]


def tlparse_exe() -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), "tlparse")
    return here if os.path.isfile(here) else shutil.which("tlparse")


# ---------------------------------------------------------------------------------------------
# no torch needed


def test_run_usage_errors():
    proc = pellucid("run")
    assert proc.returncode == 2, proc.stderr
    assert "script or -m module is required" in proc.stderr
    proc = pellucid("run", "--bogus", "x.py")
    assert proc.returncode == 2 and "unknown option --bogus" in proc.stderr
    proc = pellucid("run", "--help")
    assert proc.returncode == 0 and "--dump-dir DIR" in proc.stdout


def test_run_missing_script(tmp_path):
    proc = pellucid("run", str(tmp_path / "nope.py"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "can't open file" in proc.stderr and "nope.py" in proc.stderr


@needs_torch
def test_run_missing_module(tmp_path):
    proc = pellucid("run", "--dump-dir", str(tmp_path / "d"), "-m", "no_such_mod_x", cwd=tmp_path)
    assert proc.returncode == 1
    assert "No module named no_such_mod_x" in proc.stderr
    assert "Traceback" not in proc.stderr


@needs_torch
def test_run_with_an_unwritable_dump_dir_says_so_and_does_not_start(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me\n")
    script = tmp_path / "prog.py"
    script.write_text("print('PROGRAM RAN')\n")
    proc = pellucid("run", "--dump-dir", str(blocker / "dump"), str(script), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write its dump directory" in proc.stderr and "Not a directory" in proc.stderr
    assert "PROGRAM RAN" not in proc.stdout and "Traceback" not in proc.stderr
    assert blocker.read_text() == "keep me\n"


def test_report_of_missing_dump(tmp_path):
    proc = pellucid("report", str(tmp_path / "nothing"))
    assert proc.returncode == 1
    assert "no such directory" in proc.stderr


# ---------------------------------------------------------------------------------------------
# running programs


@needs_torch
def test_run_script_like_python_with_report_and_torch_trace(tmp_path):
    work = tmp_path / "my dir"
    work.mkdir()
    script = work / "prog.py"
    script.write_text(SCRIPT)
    args = ["3", "--report", "--", "b c"]  # the program's own args, including pellucid-like ones
    plain = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env_with_src(),
        timeout=300,
    )
    assert plain.returncode == 3, plain.stderr
    trace_dir = tmp_path / "trace"
    dump = tmp_path / "dump"
    proc = pellucid(
        "run",
        "--dump-dir",
        str(dump),
        "--report",
        str(script),
        *args,
        cwd=tmp_path,
        TORCH_TRACE=str(trace_dir),
    )
    assert proc.returncode == 3, proc.stderr
    # what the program saw is what python script.py shows it
    for tag in ("ARGV", "MAIN", "PATH0"):
        assert lines(proc.stdout, tag) == lines(plain.stdout, tag), (tag, proc.stdout, plain.stdout)
    assert ast.literal_eval(lines(proc.stdout, "ARGV")[0]) == [str(script), *args]
    assert lines(proc.stdout, "MAIN") == ["__main__ True None"]
    # the dump: the graph break at its line, the recompilation, the run record
    index = json.loads((dump / "index.json").read_text())
    session = index["sessions"][-1]
    breaks = session["graph_breaks"]
    assert breaks and breaks[0]["lineno"] == BREAK_LINE
    assert breaks[0]["filename"] == str(script)
    assert any(c["recompile_reason"] for c in session["compiles"]), session["compiles"]
    run = json.loads((dump / "pellucid_run.json").read_text())
    assert run["exit_code"] == 3 and run["argv"] == [str(script), *args]
    assert run["counters"].get("stats"), run["counters"]
    # the report explains the break at its source line
    report = (dump / "report" / "index.html").read_text()
    assert f"prog.py:{BREAK_LINE}" in report
    assert "Recompilation 1" in report
    assert "pellucid: report:" in proc.stderr
    # TORCH_TRACE: pellucid's source is in the trace, next to Dynamo's graphs in tlparse's output
    logs = glob.glob(str(trace_dir / "*.log"))
    assert logs, list(trace_dir.iterdir()) if trace_dir.exists() else "no trace dir"
    assert run.get("trace_artifacts", 0) >= 2
    exe = tlparse_exe()
    if exe is None:
        pytest.skip("tlparse is not installed (pip install tlparse)")
    out = tmp_path / "tl"
    tl = subprocess.run(
        [exe, logs[0], "-o", str(out), "--overwrite", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tl.returncode == 0, tl.stderr
    ours = glob.glob(str(out / "*" / "pellucid_transformed_code_f_*.txt"))
    assert ours, sorted(os.listdir(out))
    folder = os.path.dirname(ours[0])
    assert glob.glob(os.path.join(folder, "dynamo_output_graph_*.txt")), os.listdir(folder)
    assert "def __transformed_code_" in Path(ours[0]).read_text()
    guards = glob.glob(str(out / "*" / "pellucid_guard_f_*.txt"))
    assert guards and "L['x']" in Path(guards[0]).read_text()
    assert "pellucid_transformed_code_f" in (out / "index.html").read_text()


@needs_torch
def test_run_module_with_uncaught_exception(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(MODULE)
    dump = tmp_path / "d"
    proc = pellucid("run", "--dump-dir", str(dump), "-m", "pkg.mod", "-x", "1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert ast.literal_eval(lines(proc.stdout, "ARGV")[0]) == [str(pkg / "mod.py"), "-x", "1"]
    assert lines(proc.stdout, "MAIN") == ["__main__"]
    # python's traceback, without pellucid's frames
    assert "ValueError: the program failed" in proc.stderr
    assert 'mod.py", line 13' in proc.stderr
    assert "runner.py" not in proc.stderr
    index = json.loads((dump / "index.json").read_text())
    assert index["sessions"][-1]["compiles"], index
    run = json.loads((dump / "pellucid_run.json").read_text())
    assert run["exit_code"] == 1 and run["exception"].startswith("ValueError")
    # and the report can be built afterwards
    rep = pellucid("report", str(dump), "-o", str(tmp_path / "out"))
    assert rep.returncode == 0, rep.stderr
    assert (tmp_path / "out" / "index.html").is_file()


@needs_torch
def test_run_toy_example_default_dump_dir(tmp_path):
    """The README promise: `pellucid run --report examples/toy.py` explains its graph break
    (here with --open, which implies --report, and $BROWSER standing in for a browser)."""
    opened = tmp_path / "opened.txt"
    browser = (
        f"{sys.executable} -c \"import sys; open({str(opened)!r}, 'w').write(sys.argv[1])\" %s"
    )
    proc = pellucid(
        "run", "--open", str(ROOT / "examples" / "toy.py"), cwd=tmp_path, BROWSER=browser
    )
    assert proc.returncode == 0, proc.stderr
    # toy.py calls prepare_debug itself: it joins the run's dump
    assert "joins the run's dump" in proc.stderr
    dumps = list((tmp_path / "pellucid_dump").glob("toy-*"))
    assert len(dumps) == 1, dumps
    report = (dumps[0] / "report" / "index.html").read_text()
    assert opened.read_text() == "file://" + str(dumps[0] / "report" / "index.html")
    assert "Graph breaks (1)" in report and "toy.py:18" in report
    assert "Data-dependent branching" in report


# ---------------------------------------------------------------------------------------------
# in-process pieces


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["s.py", "-m", "x", "--report"], ("s.py", ["-m", "x", "--report"], False, None, False)),
        (["--report", "--dump-dir", "D", "s.py", "--"], ("s.py", ["--"], False, "D", True)),
        (["--dump-dir=D", "--", "-weird.py", "a"], ("-weird.py", ["a"], False, "D", False)),
        (
            ["--open", "-m", "pkg.mod", "--x", "--", "y"],
            ("pkg.mod", ["--x", "--", "y"], True, None, False),
        ),
        (["-mpkg", "a"], ("pkg", ["a"], True, None, False)),
        (["--dump", "D", "--rep", "s.py", "--dump", "x"], ("s.py", ["--dump", "x"], False, "D", True)),
        (["--dump=D", "s.py"], ("s.py", [], False, "D", False)),
    ],
)
def test_parse_run_args(argv, expected):
    from pellucid.runner import parse_run_args

    o = parse_run_args(argv)
    assert (o.target, o.args, o.module, o.dump_dir, o.report) == expected


def test_parse_run_args_ambiguous_prefix():
    from pellucid.runner import UsageError, parse_run_args

    with pytest.raises(UsageError, match="ambiguous option --d .could be --dump-dir, --debug"):
        parse_run_args(["--d", "s.py"])


@needs_torch
def test_joined_prepare_debug_is_restored(tmp_path):
    import pellucid
    import pellucid.dynamo as dynamo
    import pellucid.dynamo.session as session
    from pellucid.runner import joined_prepare_debug

    before = (dynamo.prepare_debug, session.prepare_debug)
    original = session.prepare_debug
    with joined_prepare_debug(str(tmp_path)) as asked:
        assert pellucid.prepare_debug is not before[0]
        with original(str(tmp_path / "outer")) as outer:
            with pellucid.prepare_debug(str(tmp_path / "inner")) as inner:
                assert inner is outer
        with pellucid.prepare_debug(str(tmp_path / "alone")) as alone:  # no session: a real one
            assert alone is not outer
    assert (dynamo.prepare_debug, session.prepare_debug) == before
    assert pellucid.prepare_debug is before[0]
    assert asked == [str(tmp_path / "inner")]
    assert not (tmp_path / "inner").exists()


# ---------------------------------------------------------------------------------------------
# pellucid's own failures never change the program's outcome

LOSES_ITS_DUMP = textwrap.dedent(
    """\
    import os
    import shutil
    import sys

    import torch


    def f(x):
        return x.sin() + 1


    torch.compile(f, backend="eager")(torch.ones(3))
    dump, how = sys.argv[1], sys.argv[2]
    shutil.rmtree(dump)
    if how == "file":  # the dump directory's path is a file now: nothing can be made under it
        with open(dump, "w") as out:
            out.write("not a directory")
    print("PROGRAM OUTPUT", how)
    sys.exit(7)
    """
)


@needs_torch
@pytest.mark.parametrize("how", ["removed", "file"])
@pytest.mark.parametrize("report", [False, True])
def test_run_keeps_the_exit_code_and_output_when_the_dump_cannot_be_written(tmp_path, how, report):
    script = tmp_path / "prog.py"
    script.write_text(LOSES_ITS_DUMP)
    dump = tmp_path / "dump"
    extra = ["--report"] if report else []
    proc = pellucid("run", "--dump-dir", str(dump), *extra, str(script), str(dump), how, cwd=tmp_path)
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout.splitlines() == [f"PROGRAM OUTPUT {how}"]
    # (torch may print its own "Exception ignored" noise at exit: none of it is pellucid's)
    assert "internal error" not in proc.stderr and f"src{os.sep}pellucid" not in proc.stderr, proc.stderr
    warned = [ln for ln in proc.stderr.splitlines() if ln.startswith("pellucid")]
    assert warned and all(ln.startswith("pellucid: ") for ln in warned), proc.stderr
    if how == "file":
        assert dump.read_text() == "not a directory"


@needs_torch
def test_run_keeps_the_exit_code_when_entering_the_dump_fails(tmp_path):
    """The dump directory goes away between pellucid's check and the program's start: the
    program runs without a dump, with one warning line."""
    script = tmp_path / "prog.py"
    script.write_text("import sys\nprint('RAN')\nsys.exit(5)\n")
    starter = tmp_path / "start.py"
    starter.write_text(
        textwrap.dedent(
            f"""\
            import shutil, sys
            import pellucid.dynamo.files as files
            made = files.DumpDir.__init__
            calls = []
            def init(self, path):
                calls.append(path)
                if len(calls) == 2:  # prepare_debug's own: the path is a file by now
                    shutil.rmtree(path)
                    open(path, "w").close()
                made(self, path)
            files.DumpDir.__init__ = init
            from pellucid.cli import main
            sys.exit(main(["run", "--dump-dir", {str(tmp_path / "dump")!r}, {str(script)!r}]))
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, str(starter)], capture_output=True, text=True, env=env_with_src(), timeout=300
    )
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout == "RAN\n"
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert any(ln.startswith("pellucid: ") for ln in proc.stderr.splitlines()), proc.stderr
