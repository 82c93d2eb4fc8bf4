"""``pellucid run``: run an unmodified program under ``prepare_debug``, then write the report.

``pellucid run [--dump-dir DIR] [--report] [--open] script.py [args...]`` and
``pellucid run [...] -m package.module [args...]`` behave like ``python script.py args...`` and
``python -m package.module args...`` (same ``sys.argv``, ``sys.path[0]``, ``__main__`` module and
exit code), with every ``torch.compile`` of the program dumped into DIR (default
``./pellucid_dump/<script>-<timestamp>``).  Afterwards it writes ``DIR/pellucid_run.json`` (the
command, exit code, Dynamo's counters) and, with ``--report``, the HTML report.  Nothing of
pellucid's changes the program's outcome: a dump, record or report it cannot write is one
warning line on stderr, and the program's output and exit code stay.

A program that calls ``pellucid.prepare_debug`` itself (like ``examples/toy.py``) joins the run's
dump instead of failing (``prepare_debug`` does not nest); the patch that does this lives here
and is undone when the program ends.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import sys
import time
import traceback
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["RunOptions", "UsageError", "parse_run_args", "run", "USAGE"]

RUN_FILE = "pellucid_run.json"

USAGE = """\
usage: pellucid run [--dump-dir DIR] [--report] [--open] [--debug] script.py [args ...]
       pellucid run [--dump-dir DIR] [--report] [--open] [--debug] -m module [args ...]

Run a Python program unmodified (same sys.argv, __main__ and exit code as `python script.py`)
with everything torch.compile does dumped into DIR, then optionally write the HTML report.

options:
  --dump-dir DIR  where to dump (default ./pellucid_dump/<script>-<timestamp>)
  --report        write the HTML report to DIR/report/index.html after the program ends
  --open          open the report in a web browser (implies --report)
  --debug         show pellucid's own tracebacks
  -m module       run a module as `python -m module` does; the arguments after it are its own
  --              end of pellucid's options (the next argument is the script)
"""


class UsageError(Exception):
    """Bad command line for ``pellucid run`` (exit code 2)."""


@dataclass
class RunOptions:
    target: str  # the script path, or the module name with module=True
    args: list[str] = field(default_factory=list)
    module: bool = False
    dump_dir: str | None = None
    report: bool = False
    open: bool = False
    debug: bool = False
    help: bool = False


def parse_run_args(argv: list[str]) -> RunOptions:
    """pellucid's options up to the script (or ``-m module``); the rest is the program's."""
    opts: dict[str, Any] = {"dump_dir": None, "report": False, "open": False, "debug": False}
    i = 0
    while i < len(argv):
        a = _long_option(argv[i])
        if a in ("-h", "--help"):
            return RunOptions("", help=True)
        if a == "--":
            i += 1
            break
        if a in ("--report", "--open", "--debug"):
            opts[a[2:]] = True
        elif a == "--dump-dir":
            if i + 1 >= len(argv):
                raise UsageError("--dump-dir needs a directory")
            opts["dump_dir"] = argv[i + 1]
            i += 1
        elif a.startswith("--dump-dir="):
            opts["dump_dir"] = a.split("=", 1)[1]
        elif a == "-m" or (a.startswith("-m") and len(a) > 2):
            name = a[2:] if len(a) > 2 else (argv[i + 1] if i + 1 < len(argv) else None)
            if not name:
                raise UsageError("-m needs a module name")
            rest = argv[i + (1 if len(a) > 2 else 2) :]
            return RunOptions(name, list(rest), module=True, **opts)
        elif a.startswith("-") and a != "-":
            raise UsageError(f"unknown option {a} (options go before the script)")
        else:
            break
        i += 1
    if i >= len(argv):
        raise UsageError("a script or -m module is required")
    return RunOptions(argv[i], list(argv[i + 1 :]), module=False, **opts)


_LONG_OPTIONS = ("--dump-dir", "--report", "--open", "--debug", "--help")


def _long_option(arg: str) -> str:
    """``arg`` with an unambiguous prefix of a long option spelled out, as argparse allows
    (``--dump`` -> ``--dump-dir``, ``--rep`` -> ``--report``); anything else as it is."""
    if not arg.startswith("--") or arg == "--":
        return arg
    name, eq, value = arg.partition("=")
    if name in _LONG_OPTIONS:
        return arg
    matches = [o for o in _LONG_OPTIONS if o.startswith(name)]
    if len(matches) > 1:
        raise UsageError(f"ambiguous option {name} (could be {', '.join(matches)})")
    return matches[0] + eq + value if matches else arg


def default_dump_dir(target: str, module: bool, now: float | None = None) -> str:
    """``./pellucid_dump/<script stem or module>-<YYYYmmdd-HHMMSS>`` (made unique)."""
    stem = target if module else os.path.splitext(os.path.basename(os.path.normpath(target)))[0]
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in stem) or "program"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    base = os.path.join("pellucid_dump", f"{stem}-{stamp}")
    path, n = base, 1
    while os.path.exists(path):
        n += 1
        path = f"{base}-{n}"
    return path


# ---------------------------------------------------------------------------------------------
# the program's own prepare_debug joins ours


@contextlib.contextmanager
def joined_prepare_debug(run_dump_dir: str) -> Iterator[list[str]]:
    """While active, ``pellucid.prepare_debug(...)`` called by the program joins the run's dump.

    Yields the list of directories the program asked for (for the run record).
    """
    from pellucid import dynamo
    from pellucid.dynamo import session as session_mod

    original = session_mod.prepare_debug
    asked: list[str] = []

    @contextlib.contextmanager
    def prepare_debug(dump_src_dir: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        current = session_mod.current()
        if current is None:
            with original(dump_src_dir, *args, **kwargs) as s:
                yield s
            return
        asked.append(os.fspath(dump_src_dir))
        if len(asked) == 1:
            print(
                f"pellucid run: the program's prepare_debug({os.fspath(dump_src_dir)!r}) joins the "
                f"run's dump in {run_dump_dir}",
                file=sys.stderr,
            )
        yield current

    prepare_debug.__doc__ = original.__doc__
    saved = [(dynamo, dynamo.__dict__.get("prepare_debug")), (session_mod, original)]
    dynamo.prepare_debug = prepare_debug  # type: ignore[attr-defined]
    session_mod.prepare_debug = prepare_debug  # type: ignore[attr-defined]
    try:
        yield asked
    finally:
        for mod, value in saved:
            mod.prepare_debug = value  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# running the program


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    print(code, file=sys.stderr)
    return 1


def _print_program_traceback(exc: BaseException) -> None:
    """The traceback as ``python script.py`` prints it: without pellucid's own frames."""
    tb = exc.__traceback__
    here = os.path.abspath(__file__)
    runpy_file = None
    try:
        import runpy

        runpy_file = os.path.abspath(runpy.__file__)
    except Exception:  # noqa: BLE001
        pass
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in (here, runpy_file):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def _run_script(path: str, args: list[str]) -> None:
    """``python path args``: fresh ``__main__``, argv as given, the script's dir first on sys.path."""
    if os.path.isdir(path) or path.endswith(".zip"):
        import runpy

        sys.argv = [path, *args]
        sys.path.insert(0, path)
        runpy.run_path(path, run_name="__main__")
        return
    abspath = os.path.abspath(path)
    with open(abspath, "rb") as f:
        source = f.read()
    code = compile(source, abspath, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(
        {"__file__": abspath, "__builtins__": builtins, "__cached__": None, "__spec__": None}
    )
    main.__loader__ = None  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    sys.argv = [path, *args]
    sys.path[0:1] = [os.path.dirname(os.path.realpath(abspath))]
    exec(code, main.__dict__)


class ProgramNotFound(Exception):
    """``-m name`` names no module (python -m says so and exits with 1)."""


def _run_module(name: str, args: list[str]) -> None:
    """``python -m name args``: the current directory first on sys.path."""
    import importlib.util
    import runpy

    sys.argv = [name, *args]  # runpy sets argv[0] to the module's file, as python -m does
    sys.path[0:1] = [os.getcwd()]
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as exc:
        raise ProgramNotFound(
            f"Error while finding module specification for {name!r} ({exc})"
        ) from None
    if spec is None:
        raise ProgramNotFound(f"No module named {name}")
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def _counters() -> dict[str, dict[str, int]]:
    try:
        from torch._dynamo.utils import counters

        return {
            str(group): {str(k): int(v) for k, v in values.items()}
            for group, values in counters.items()
            if values
        }
    except Exception:  # noqa: BLE001
        return {}


def _write_json(path: str, data: dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, default=str)
    os.replace(tmp, path)


def _warn(what: str, exc: BaseException) -> None:
    """One line on stderr for a failure of pellucid's own: the program's outcome stays."""
    text = " ".join(str(exc).split())
    print(f"pellucid: could not write {what}: {type(exc).__name__}: {text}", file=sys.stderr)


def _guarded(what: str, action: Any, failed: Any = None) -> Any:
    """``action()``, or ``failed`` with one warning line if pellucid's own work raised."""
    try:
        return action()
    except Exception as exc:  # noqa: BLE001 - pellucid's failure is not the program's
        _warn(what, exc)
        return failed


@contextlib.contextmanager
def _dumping(dump_dir: str, debug: bool) -> Iterator[None]:
    """``prepare_debug(dump_dir)`` around the program, whose outcome it never changes: when it
    cannot start the program runs without a dump, and a failure on its way out (the program
    removed the directory, say) is one warning line.  The program's own exceptions are caught
    inside the block, so whatever comes out of ``prepare_debug`` is pellucid's."""
    from pellucid.dynamo import prepare_debug

    entered = None
    try:
        manager = prepare_debug(dump_dir)
        manager.__enter__()
        entered = manager
    except Exception as exc:  # noqa: BLE001
        if debug:
            traceback.print_exc()
        print(
            f"pellucid: could not start dumping to {dump_dir} ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())}); the program runs without a dump",
            file=sys.stderr,
        )
    try:
        yield
    finally:
        if entered is not None:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", _pellucid_warning())
                    entered.__exit__(None, None, None)
                for w in caught:  # pellucid's warnings on the way out: one line each
                    if issubclass(w.category, _pellucid_warning()):
                        print(" ".join(str(w.message).split()), file=sys.stderr)
                    else:
                        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
            except Exception as exc:  # noqa: BLE001
                if debug:
                    traceback.print_exc()
                _warn(f"the dump index in {dump_dir}", exc)


def _pellucid_warning() -> type[Warning]:
    from pellucid.dynamo.session import PellucidWarning

    return PellucidWarning


def run(opts: RunOptions) -> int:
    """Run the program under ``prepare_debug``; return its exit code (2 if it cannot start)."""
    if not opts.module and not os.path.exists(opts.target):
        print(
            f"pellucid run: can't open file {os.path.abspath(opts.target)!r}: "
            "[Errno 2] No such file or directory",
            file=sys.stderr,
        )
        return 2
    try:
        import torch  # noqa: F401 - prepare_debug needs it; fail early with a clear message

        from pellucid.dynamo import UnsupportedTorchError
        from pellucid.dynamo.adapter import check_supported
    except ImportError as exc:
        print(f"pellucid run: needs PyTorch ({exc})", file=sys.stderr)
        return 1
    try:
        check_supported()
    except UnsupportedTorchError as exc:
        print(f"pellucid run: {exc}", file=sys.stderr)
        return 1

    dump_dir = os.path.abspath(opts.dump_dir or default_dump_dir(opts.target, opts.module))
    from pellucid.dynamo.files import DumpDir, DumpDirError

    try:
        DumpDir(dump_dir)  # created and checked writable before the program starts
    except DumpDirError as exc:
        print(f"pellucid run: {exc.strerror}", file=sys.stderr)
        return 2
    from pellucid.trace import TraceEmitter, trace_enabled

    saved_argv, saved_path = list(sys.argv), list(sys.path)
    saved_main = sys.modules.get("__main__")
    record: dict[str, Any] = {
        "schema": "pellucid-run",
        "version": 1,
        "command": [
            "pellucid",
            "run",
            *(["-m"] if opts.module else []),
            opts.target,
            *opts.args,
        ],
        "program": opts.target,
        "module": opts.module,
        "argv": [opts.target, *opts.args],
        "cwd": os.getcwd(),
        "dump_dir": dump_dir,
        "python": sys.version.split()[0],
        "started": time.time(),
        "torch_trace": os.environ.get("TORCH_TRACE"),
    }
    exit_code = 0
    emitter = _guarded("the torch trace", lambda: TraceEmitter(dump_dir) if trace_enabled() else None)
    t0 = time.perf_counter()
    try:
        with joined_prepare_debug(dump_dir) as asked, _dumping(dump_dir, opts.debug):
            if emitter is not None and _guarded("the torch trace", emitter.install, False) is False:
                emitter = None
            try:
                if opts.module:
                    _run_module(opts.target, opts.args)
                else:
                    _run_script(opts.target, opts.args)
            except SystemExit as exc:
                exit_code = _exit_code(exc)
            except ProgramNotFound as exc:
                print(f"pellucid run: {exc}", file=sys.stderr)
                exit_code = 1
                record["exception"] = str(exc)
            except KeyboardInterrupt as exc:
                _print_program_traceback(exc)
                exit_code = 130
                record["exception"] = "KeyboardInterrupt"
            except BaseException as exc:  # noqa: BLE001 - the program's own error
                _print_program_traceback(exc)
                exit_code = 1
                record["exception"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
            finally:
                if emitter is not None:
                    _guarded("the torch trace", emitter.remove)
        record["program_prepare_debug_dirs"] = asked
    finally:
        record["duration_s"] = round(time.perf_counter() - t0, 6)
        record["finished"] = time.time()
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    record["exit_code"] = exit_code
    record["counters"] = _counters()
    if emitter is not None:
        _guarded("the torch trace", lambda: _emit_trace(emitter, dump_dir))
        record["trace_artifacts"] = len(emitter.emitted)
        if emitter.errors:
            record["trace_errors"] = emitter.errors
    if _guarded(f"the run record {RUN_FILE}", lambda: _write_json(os.path.join(dump_dir, RUN_FILE), record), False) is False:
        return exit_code
    print(f"pellucid: dumped to {dump_dir}", file=sys.stderr)
    if opts.report or opts.open:
        try:
            from pellucid.report import build_report

            index = build_report(dump_dir)
            print(f"pellucid: report: {index}", file=sys.stderr)
            if opts.open:
                import webbrowser

                webbrowser.open("file://" + str(index))
        except Exception as exc:  # noqa: BLE001 - the program's exit code stays
            if opts.debug:
                traceback.print_exc()
            _warn("the report", exc)
    return exit_code


def _emit_trace(emitter: Any, dump_dir: str) -> None:
    try:
        with open(os.path.join(dump_dir, "index.json"), encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError):
        return
    sessions = index.get("sessions") or []
    mine = [s for s in sessions if s.get("pid") == os.getpid()]
    if mine:
        emitter.emit_session(mine[-1])
