"""``debug()``: pause once, then run the already compiled code from the dumped files.

Inside the block Dynamo compiles nothing new (as under ``set_stance("eager_on_recompile")``):
calls whose guards pass run the code compiled under ``prepare_debug`` (loaded from the dump
files, so breakpoints there hit); others run eagerly, and pellucid says so once per function,
with the guard that failed (a breakpoint that never stops otherwise goes unexplained).

With the default ``breakpoint()`` hook the pause uses a ``pdb.Pdb`` that skips torch's and the
standard library's frames, so ``step`` from transformed code lands in the graph's ``forward``
file (Inductor: its output code's ``call()``) rather than in Dynamo's wrappers.  Under
debugpy/pydevd (VS Code, PyCharm) the pause is that debugger's, stopped in the caller's frame;
any other ``breakpoint()`` hook is called as it is.
"""

from __future__ import annotations

import linecache
import os
import pdb
import re
import sys
import sysconfig
from types import CodeType, FrameType, TracebackType
from typing import Any

from pellucid.dynamo import adapter, session

# Modules whose frames stepping passes through without stopping.
SKIP_MODULES = (
    "torch",
    "torch.*",
    "pellucid.dynamo",
    "pellucid.dynamo.*",
    "contextlib",
    "functools",
    "typing",
    "weakref",
    "threading",
    "logging",
    "logging.*",
    "importlib",
    "importlib.*",
    "abc",
    "copy",
    "inspect",
    "dis",
    "enum",
    "sympy",
    "sympy.*",
    "numpy",
    "numpy.*",
    "warnings",
)


def _plumbing_dirs() -> tuple[str, ...]:
    dirs = [sysconfig.get_paths()["stdlib"], os.path.dirname(os.path.abspath(__file__))]
    try:
        import torch

        dirs.append(os.path.dirname(os.path.abspath(torch.__file__)))
    except ImportError:  # pragma: no cover
        pass
    return tuple(os.path.join(d, "") for d in dirs)


# ipykernel names a cell's code /tmp/ipykernel_<pid>/<hash>.py, plain IPython
# <ipython-input-<n>-<hash>>; neither is a file on disk.
_CELL_NAME = re.compile(r"^<ipython-input-\d+-|[/\\]ipykernel_\d+[/\\][^/\\]+\.py$")


def _is_notebook_cell(filename: str) -> bool:
    """Whether ``filename`` names an IPython cell: user code, though no file holds it."""
    if filename in getattr(linecache, "_ipython_cache", {}):
        return True
    return bool(_CELL_NAME.search(filename)) and bool(linecache.getlines(filename))


class PellucidPdb(pdb.Pdb):
    """``pdb.Pdb`` that steps over torch's wrappers: it only stops in user-facing files.

    A frame is plumbing (never stopped in while stepping) when its code comes from torch, the
    standard library or pellucid's torch integration, or from generated code with no file of
    its own (AOTAutograd's runtime wrappers, ``<eval_with_key>``); frames from the dump
    directories and notebook cells are always user-facing.
    """

    def __init__(self, dump_dirs: tuple[str, ...] = (), **kwargs: Any) -> None:
        kwargs.setdefault("skip", list(SKIP_MODULES))
        super().__init__(**kwargs)
        self._dump_dirs = tuple(os.path.join(os.path.abspath(d), "") for d in dump_dirs)
        self._plumbing = _plumbing_dirs()
        self._cache: dict[str, bool] = {}

    def _is_plumbing(self, filename: str) -> bool:
        hit = self._cache.get(filename)
        if hit is None:
            path = os.path.abspath(filename)
            if path.startswith(self._dump_dirs):
                hit = False
            elif _is_notebook_cell(filename):
                hit = False
            elif filename.startswith("<") or not os.path.exists(filename):
                hit = True
            else:
                hit = path.startswith(self._plumbing)
            self._cache[filename] = hit
        return hit

    _pause_next_line = False

    def pause_at_next_line(self, frame: FrameType) -> None:
        """Stop at the next line ``frame`` runs (or a user-facing frame it calls), as
        ``set_trace`` does up to 3.12.  From 3.13 ``set_trace`` stops at the next instruction:
        in ``with pellucid.debug():`` that is still on the ``with`` line, the statement that
        paused, rather than on the code about to run under it."""
        self._pause_next_line = True
        try:
            self.set_trace(frame)
        finally:
            self._pause_next_line = False

    def set_stepinstr(self) -> None:
        # (3.13+: what set_trace asks for; a step to the next line instead, for the pause)
        if self._pause_next_line:
            self.set_step()
        else:
            super().set_stepinstr()

    def _in_dump(self, filename: str) -> bool:
        return bool(self._dump_dirs) and os.path.abspath(filename).startswith(self._dump_dirs)

    def stop_here(self, frame: Any) -> bool:
        filename = frame.f_code.co_filename
        if frame is not self.botframe and self._is_plumbing(filename):
            return False
        if self.skip and self._in_dump(filename):
            # A dump file is user-facing whatever its module is called.  Inductor loads its
            # output code as ``torch._inductor.runtime.compile_tasks.<key>``, a name the
            # ``torch.*`` skip pattern matches, so ``step`` would pass over its ``call()``
            # (a breakpoint there still hits: breakpoints ignore ``skip``).
            skip, self.skip = self.skip, None
            try:
                return super().stop_here(frame)
            finally:
                self.skip = skip
        return super().stop_here(frame)


def make_pdb(dump_dirs: tuple[str, ...] = (), **kwargs: Any) -> PellucidPdb:
    """A pdb that does not stop in torch's or the standard library's plumbing."""
    return PellucidPdb(dump_dirs, **kwargs)


def _pause(caller: FrameType, dump_dirs: tuple[str, ...]) -> None:
    """Stop once in ``caller`` (the user's ``with pellucid.debug():`` frame), whichever debugger.

    pdb (the default hook) gets :class:`PellucidPdb`.  Under debugpy/pydevd (VS Code, PyCharm)
    ``breakpoint()`` would stop in this module's frame, and when pellucid is installed as a
    library (in site-packages) "justMyCode" drops that stop altogether; pydevd's own
    ``settrace(stop_at_frame=...)`` stops at the caller's next line instead.  debugpy's hook
    with no client attached does nothing (ipykernel imports debugpy for its debugger, so in a
    notebook ``breakpoint()`` is a no-op until the debugger is switched on): pdb pauses then.
    Any other hook is called as it is.
    """
    hook = sys.breakpointhook
    chosen = os.environ.get("PYTHONBREAKPOINT")
    owner = getattr(hook, "__module__", None) or ""
    if not chosen and owner.startswith(("debugpy", "pydev", "sitecustomize")):
        pydevd = sys.modules.get("pydevd")
        if pydevd is not None and _debugger_attached(owner, pydevd):
            pydevd.settrace(
                suspend=True,
                trace_only_current_thread=True,
                patch_multiprocessing=False,
                stop_at_frame=caller,
                notify_stdin=False,
            )
            return
        if owner.startswith("debugpy"):
            make_pdb(dump_dirs).pause_at_next_line(caller)
            return
    if hook is sys.__breakpointhook__ and not chosen:
        make_pdb(dump_dirs).pause_at_next_line(caller)
        return
    hook()


def _debugger_attached(owner: str, pydevd: Any) -> bool:
    """Whether the pydevd-based debugger that owns the hook has a client (an IDE) attached."""
    debugpy = sys.modules.get("debugpy")
    if owner.startswith("debugpy") and debugpy is not None:
        connected = getattr(debugpy, "is_client_connected", None)
        return bool(connected()) if connected is not None else False
    get = getattr(pydevd, "get_global_debugger", None)
    return get is not None and get() is not None


class debug:  # noqa: N801 - depyf-compatible lower-case name
    """Context manager: ``with pellucid.debug(): compiled_fn(...)`` (after ``prepare_debug``)."""

    def __init__(self, pause: bool = True) -> None:
        self.pause = pause
        self._patcher: adapter.Patcher | None = None
        self._missed: set[int] = set()  # functions already said to have run eagerly

    def __enter__(self) -> debug:
        if session.current() is not None:
            raise RuntimeError(
                "pellucid.debug() cannot be used inside pellucid.prepare_debug(): first run the "
                "code under prepare_debug to compile and dump it, then run it again under debug()"
            )
        adapter.check_supported()
        where = session.last_dump_dir()
        if where:
            msg = (
                f"pellucid: the dumped code is in {where}. Set breakpoints in its "
                "__transformed_code_*, __compiled_fn_* and full_code_for_* files, then continue."
            )
        else:
            msg = (
                "pellucid: no prepare_debug() has run in this process, so nothing was dumped; "
                "the compiled code runs as usual."
            )
        print(msg, file=sys.stderr)
        self._patcher = adapter.Patcher()
        adapter.run_cached_reporting_misses(self._patcher, self._on_miss)
        if self.pause and os.environ.get("PYTHONBREAKPOINT") != "0":
            _pause(sys._getframe(1), (where,) if where else ())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._patcher is not None:
            self._patcher.restore()
            self._patcher = None

    def _on_miss(self, code: CodeType, reasons: list[str]) -> None:
        """Say once per function that a call ran eagerly, not from the dumped files."""
        if id(code) in self._missed:
            return
        self._missed.add(id(code))
        why = f" (guard failed: {'; '.join(r.strip() for r in reasons)[:300]})" if reasons else ""
        print(
            f"pellucid: {code.co_name} ({code.co_filename}:{code.co_firstlineno}) was called with "
            f"inputs its dumped code does not cover{why}. Nothing recompiles under debug(), so "
            "this call ran eagerly, not from the dump files, and their breakpoints do not stop "
            "it. Run these inputs under prepare_debug() first.",
            file=sys.stderr,
        )
