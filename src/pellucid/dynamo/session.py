"""``prepare_debug``: dump what torch.compile runs, and run it from the dumped files.

One :class:`DumpSession` is active at a time (the hooks are process-global).  Its handlers:

* ``on_bytecode`` (Dynamo bytecode hook): decompile the transformed code, write
  ``__transformed_code_<fn>_entry<k>.py``, compile it from that file and hand it back to Dynamo.
  Any failure is recorded, warned about once per frame, and Dynamo's bytecode is kept.
* ``on_lazy_format_graph_code``: every graph module of every stage is written to
  ``__compiled_fn_<n>.<stage>.py`` and its ``forward`` re-made from that file.
* ``on_exec_with_source``: FX recompiling a graph we already dumped compiles it from our file.
* ``on_load_by_key_path``: Inductor's output code module is loaded from the dump directory.
* ``on_graph_break``: graph-break reasons with the user's file:line.

On exit it writes guards, ``full_code_for_<fn>.py`` files and the JSON index
(schema in ``docs/dump-index.md``) and restores every patch.
"""

from __future__ import annotations

import contextlib
import dis
import inspect
import io
import linecache
import os
import re
import sys
import textwrap
import threading
import time
import types
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Iterator

from pellucid.dynamo import adapter, guards, recompile, trampolines, worker
from pellucid.dynamo.files import INDEX_NAME, DumpDir, safe_name

INDEX_SCHEMA = "pellucid-dump-index"
_EMBEDDED_GRAPH = re.compile(
    r"(__compiled_fn_\d+)(_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12})?"
)
INDEX_VERSION = 1
# graph sources are compiled once under this name, then given their file's path (recompile.relabel)
_GRAPH_FILE = "<pellucid-graph>"


class PellucidWarning(UserWarning):
    """Warnings from pellucid's torch.compile integration (decompile fallbacks, hints)."""


_current: DumpSession | None = None
_last_dump_dir: str | None = None
_lock = threading.RLock()


def current() -> DumpSession | None:
    """The active session, if inside ``prepare_debug``."""
    return _current


def last_dump_dir() -> str | None:
    """The dump directory of the most recent ``prepare_debug``."""
    return _last_dump_dir


def _code_key(code: types.CodeType) -> str:
    return f"{code.co_name}@{code.co_filename}:{code.co_firstlineno}"


def _graph_stage(name: str) -> str:
    lowered = name.strip().lower()
    return {
        "joint graph": "aot_joint_graph",
        "forward graph": "aot_forward_graph",
        "backward graph": "aot_backward_graph",
    }.get(lowered, safe_name(lowered))


@dataclass
class FunctionRecord:
    key: str
    name: str
    filename: str
    firstlineno: int
    code_ref: Any  # weakref to the original code object (or the code itself)
    compiled_before: bool = False
    compile_ids: list[str] = field(default_factory=list)
    qualname: str = ""
    # the function in file names: its qualname, with its module when another module's function
    # has that qualname, and a number when another code object still has that name
    file_id: str = ""
    entries: dict[str, int] = field(default_factory=dict)  # compile id -> k of `_entry<k>`
    next_entry: int = 0

    def entry_for(self, compile_id: str | None) -> int:
        """The ``k`` of ``_entry<k>`` in the names of the files of ``compile_id``'s cache entry:
        the function's compiles in the session counted from 0 (a compile not seen by the
        bytecode hook, e.g. one from before ``prepare_debug``, gets the next one)."""
        if compile_id is not None and compile_id in self.entries:
            return self.entries[compile_id]
        k = self.next_entry
        self.next_entry += 1
        if compile_id is not None:
            self.entries[compile_id] = k
        return k


@dataclass
class FrameCompile:
    compile_id: str | None
    function: str  # FunctionRecord.key
    entry: int = 0  # the k of its files' `_entry<k>`
    transformed_file: str | None = None
    transformed_function: str | None = None
    executed_from_file: bool = False
    failure: str | None = None
    # the file's code proven equivalent to Dynamo's ("equivalent"), or "not-verified: <reason>"
    verification: str | None = None
    hook_time_s: float = 0.0
    bytecode_files: dict[str, str] = field(default_factory=dict)
    graphs: list[str] = field(default_factory=list)
    resume_functions: list[str] = field(default_factory=list)


@dataclass
class _Deferred:
    """A frame sent to the helper process in its bytecode hook (see DumpSession._defer)."""

    new_code: types.CodeType
    code: types.CodeType
    fc: FrameCompile
    fn_key: str
    safe: str
    g: dict[str, Any] | None
    usable: dict[str, str]
    key: int


class _HelperFailure(Exception):
    """The helper process could not make a frame's source (the reason is its error's)."""

    def __init__(self, reason: str, blames_decompiler: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.blames_decompiler = blames_decompiler


class DumpSession:
    """State of one ``prepare_debug`` block."""

    def __init__(self, dump_src_dir: str, clean_wild_fx_code: bool, log_bytecode: bool) -> None:
        self.dump = DumpDir(dump_src_dir)
        self.clean_wild_fx_code = clean_wild_fx_code
        self.log_bytecode = log_bytecode
        # time spent in pellucid's own code (hooks, dumps, exit), without torch's work it wraps:
        # a load-independent measure of its overhead, recorded in the index
        self.own_time_s = 0.0
        self._own_depth = 0  # nested hooks (a recompile inside a dump) count their time once
        self.patcher = adapter.Patcher()
        self._warned: set[str] = set()
        self._current_graph = threading.local()
        # graphs whose every recompile makes the annotated code (adapter.annotate_codegen)
        self._annotated: weakref.WeakSet[Any] = weakref.WeakSet()
        self._orig_lazy: types.FunctionType | None = None
        self._orig_exec_with_source: Any = None
        self._orig_load_by_key_path: Any = None
        self._orig_log_graph_break: Any = None
        self._orig_reset: Any = None
        self._worker: worker.Worker | None = None
        self._adopting = False  # frames' files are made while Dynamo builds their guards
        self._part = 0  # index sessions this block has finished (one per torch._dynamo.reset())
        # the index is kept current while the program runs (checkpoint): after each event
        # that wrote files, between start and finish
        self._live = False
        self._index_dirty = False
        self._checkpoint_failed = False
        self._begin()

    def _begin(self) -> None:
        """Start the state one index session records (again after ``torch._dynamo.reset()``)."""
        self.started = time.time()
        self.session_id = f"{os.getpid()}-{int(self.started * 1000)}"
        if self._part:  # (unique even when the reset came in the same millisecond)
            self.session_id += f"-{self._part}"
        self._own_at_begin = self.own_time_s
        self.functions: dict[str, FunctionRecord] = {}
        # id(original code) -> its record: a function is its code object, not its name (two
        # resume functions Dynamo makes on one line share name, file and line)
        self._function_of_code: dict[int, FunctionRecord] = {}
        self.compiles: list[FrameCompile] = []
        self.graphs: dict[str, dict[str, Any]] = {}
        self.aot_owner: dict[Any, str] = {}
        self.graphs_by_compile: dict[str, list[str]] = {}
        self.graph_breaks: list[dict[str, Any]] = []
        self.failures: list[dict[str, Any]] = []
        self.messages: list[str] = []
        self.files: dict[str, dict[str, Any]] = {}
        self.failed_codes: list[tuple[str, types.CodeType, str]] = []
        # transformed-code file (relative) -> the Dynamo code object it was decompiled from
        self.dynamo_codes: dict[str, types.CodeType] = {}
        self._fx_sources: dict[str, tuple[str, str]] = {}  # fx src -> (path, file content)
        # graph file path -> (its content, code compiled from it as _GRAPH_FILE), not run yet
        self._graph_code: dict[str, tuple[str, types.CodeType]] = {}
        self._code_file_by_id: dict[int, tuple[types.CodeType, str]] = {}
        # id(Dynamo's code) -> a frame sent to the helper, until Dynamo hands it to its cache
        self._deferred: dict[int, _Deferred] = {}
        self._transformed_by_helper = 0
        self._graph_bodies: dict[str, dict[str, str]] = {}
        self._gm_stage: dict[int, tuple[Any, str, str, str]] = {}
        # AOT graphs logged but not dumped yet: id -> (graph module, owner, stage, compile id)
        self._pending_graphs: dict[int, tuple[Any, str, str, str | None]] = {}
        self._annotated.clear()  # (the set the codegen patch reads: cleared, not replaced)
        # id -> (graph module, owner, stage, compile id): first dumps their recompile makes
        self._first_dump: dict[int, tuple[Any, str, str, str | None]] = {}
        # last return lines of graphs filed annotated: a cheap first test (_same_graph_file)
        self._return_lines: set[str] = set()
        self._created: set[str] = set()
        self._contents: dict[str, str] = {}  # relative path -> text, for files written once
        self._plain_bodies: dict[tuple[str, ...], tuple[str, str]] = {}
        self._resume_codes: dict[str, types.CodeType] = {}
        # resume code -> (its decompiled source with a placeholder name, True) or (why not, False)
        self._resume_sources: dict[int, tuple[types.CodeType, tuple[str, bool]]] = {}
        # resume code -> (it, its key) while the helper process decompiles it (worker.py)
        self._resume_sent: dict[int, tuple[types.CodeType, int]] = {}
        self._resume_by_helper = 0  # of those decompiled, how many the helper did
        # frames hooked whose cache entry is not found yet: (original code, the code the
        # entry will hold, how many events looked for it)
        self._awaiting_entries: list[tuple[types.CodeType, types.CodeType, int]] = []
        # guard parts of a cache entry -> the helper's key while it translates them
        self._guards_sent: dict[tuple[str, ...], int] = {}
        self._guards_by_helper = 0  # cache entries whose guard terms the helper gave
        self._unchecked: set[str] = set()  # written files whose text was never compiled
        self.preexisting: list[types.CodeType] = []
        # Dynamo's records of compiles before this index session (held: their ids stay theirs)
        self._metrics_before: list[Any] = []

    def restart(self) -> None:
        """After :meth:`finish`, on ``torch._dynamo.reset()`` inside the block: record what
        follows as a new index session (Dynamo's compile ids start again after a reset; one
        session must not hold two compiles with one id)."""
        previous = self.session_id
        self._part += 1
        self._begin()
        self._metrics_before = adapter.compilation_metrics()
        self.messages.append(
            f"torch._dynamo.reset() was called inside prepare_debug: what was compiled before "
            f"it is in session {previous}"
        )
        self._live = True

    # ------------------------------------------------------------------ bookkeeping

    def _file(self, path: str, kind: str, **extra: Any) -> str:
        rel = self.dump.relpath(path)
        if rel not in self.files:
            self._index_dirty = True  # (the index is written again after this event)
        rec = self.files.setdefault(rel, {"path": rel, "kind": kind})
        rec.update({k: v for k, v in extra.items() if v is not None})
        return rel

    def _write_once(self, name: str, content: str) -> str:
        """``DumpDir.write_named`` that remembers the text (full_code files quote it)."""
        path, _ = self.dump.write_named(name, content)
        self._contents[self.dump.relpath(path)] = content
        return path

    def _function(self, code: types.CodeType, compiled_before: bool = False) -> FunctionRecord:
        """The record of the function whose code object is ``code`` (made at its first sight).
        Its key is ``<name>@<file>:<line>``; another code object with the same name, file and
        line (two graph breaks on one line make two resume functions so) gets ``#2``, ``#3``."""
        rec = self._function_of_code.get(id(code))
        if rec is not None and rec.code_ref() is code:
            return rec
        base = key = _code_key(code)
        k = 1
        while key in self.functions:
            k += 1
            key = f"{base}#{k}"
        try:
            ref: Any = weakref.ref(code)
        except TypeError:
            ref = lambda c=code: c  # noqa: E731
        rec = FunctionRecord(
            key, code.co_name, code.co_filename, code.co_firstlineno, ref, compiled_before
        )
        rec.qualname = getattr(code, "co_qualname", None) or code.co_name
        rec.file_id = self._file_identity(rec)
        self.functions[key] = rec
        self._function_of_code[id(code)] = rec
        return rec

    def _file_identity(self, rec: FunctionRecord) -> str:
        """``rec``'s name in file names, unique in the session and the same in every run of the
        program: its qualname (``MLP.forward``: ``MLP_forward``); with the module's name when
        a function of another file has that qualname (``step_sgd``); then ``_2``, ``_3`` for
        more code objects of one name (two resume functions of one source line)."""
        used = {r.file_id: r for r in self.functions.values()}
        base = safe_name(rec.qualname)
        holder = used.get(base)
        if holder is not None and holder.filename != rec.filename:
            module = os.path.splitext(os.path.basename(rec.filename))[0]
            base = safe_name(f"{rec.qualname}_{module}")
        fid, k = base, 1
        while fid in used:
            k += 1
            fid = f"{base}_{k}"
        return fid

    def _function_key_of(self, code: types.CodeType | None) -> str | None:
        """The key of ``code``'s record, if it has one."""
        rec = self._function_of_code.get(id(code)) if code is not None else None
        return rec.key if rec is not None and rec.code_ref() is code else None

    def _fail(self, kind: str, where: str, reason: str, **extra: Any) -> None:
        rec = {"kind": kind, "where": where, "reason": reason}
        rec.update(extra)
        self.failures.append(rec)

    def _warn_once(self, key: str, message: str) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        warnings.warn(message, PellucidWarning, stacklevel=2)

    # ------------------------------------------------------------------ install / restore

    def start(self) -> None:
        p = self.patcher
        self._worker = worker.get()  # started now: it is ready by the first graph break's exit
        self._metrics_before = adapter.compilation_metrics()
        self.preexisting = [
            c for c in adapter.compiled_original_codes() if adapter.cache_entries(c)
        ]
        for c in self.preexisting:
            self._function(c, compiled_before=True)

        adapter.skip_own_frames(p)
        handle = adapter.register_bytecode_hook(_bytecode_hook)
        p.call_on_restore("torch._dynamo.convert_frame._bytecode_hooks[pellucid]", handle.remove)

        lazy = adapter.lazy_format_graph_code()
        self._orig_lazy = types.FunctionType(
            lazy.__code__, lazy.__globals__, lazy.__name__, lazy.__defaults__, lazy.__closure__
        )
        self._orig_lazy.__kwdefaults__ = lazy.__kwdefaults__
        p.swap_code(lazy, trampolines.lazy_format_graph_code.__code__)

        mod, attr = adapter.exec_with_source_owner()
        self._orig_exec_with_source = getattr(mod, attr)
        p.setattr(mod, attr, _exec_with_source)

        pcc = adapter.py_code_cache()
        self._orig_load_by_key_path = pcc.__dict__["load_by_key_path"].__func__
        p.setattr(pcc, "load_by_key_path", classmethod(_load_by_key_path), raw=True)

        adapter.disable_compile_caches(p)
        adapter.annotate_codegen(p, self._annotated.__contains__)

        itb = adapter.instruction_translator_class()
        self._orig_log_graph_break = itb.__dict__["log_graph_break"]
        p.setattr(itb, "log_graph_break", _log_graph_break, raw=True)

        dynamo = adapter.dynamo_module()
        self._orig_reset = dynamo.reset
        p.setattr(dynamo, "reset", _reset)

        self._adopting = self._worker is not None and adapter.can_adopt_code()
        if self._adopting:
            adapter.patch_guarded_code(p, _on_guarded_code)
        self._live = True

    def stop(self) -> None:
        self.patcher.restore()

    # ------------------------------------------------------------------ bytecode hook

    def on_bytecode(self, code: types.CodeType, new_code: types.CodeType) -> types.CodeType | None:
        t0 = time.perf_counter()
        if self._deferred:
            self._drop_deferred()
        if self._pending_graphs:
            self._flush_pending_graphs(final=False)
        fn = self._function(code)
        cid = adapter.current_compile_id()
        if cid:
            fn.compile_ids.append(cid)
        fc = FrameCompile(cid, fn.key, fn.entry_for(cid or None))
        fc.resume_functions = sorted(n for n in new_code.co_names if n.startswith("__resume_at_"))
        safe = f"{fn.file_id}_entry{fc.entry}"  # (the files' stem: the function, its entry)
        # the converted frame's globals, found once per hook (a walk up the stack that also
        # builds the locals of Dynamo's frame)
        g = adapter.compile_frame_globals()
        # (sent before the resume functions and the guards of earlier frames: the helper answers
        # in order, and this is needed first)
        deferred = self._defer(code, new_code, fc, fn.key, safe, g)
        if self._awaiting_entries:
            self._send_guards()
        if fc.resume_functions:
            for name in fc.resume_functions:
                resume_fn = (g or {}).get(name)
                if isinstance(getattr(resume_fn, "__code__", None), types.CodeType):
                    self._resume_codes[name] = resume_fn.__code__
                    self._send_resume(resume_fn.__code__)
        fc.graphs = [
            recompile.UUID_NAME.sub(r"\1", n)
            for n in new_code.co_names
            if n.startswith("__compiled_fn_")
        ]
        self.compiles.append(fc)
        if self.log_bytecode:
            self._dump_bytecode(fc, "original", safe, code)
            self._dump_bytecode(fc, "transformed", safe, new_code)
        if deferred:  # the code is given when Dynamo has built the guards (on_guarded_code)
            fc.hook_time_s = time.perf_counter() - t0
            return None
        try:
            result = self._recompile(code, new_code, fc, safe, g)
        except Exception as e:  # noqa: BLE001 - any failure keeps Dynamo's bytecode
            self._transform_failed(fn.key, code, new_code, fc, e)
            result = None
        if self._worker is not None:  # (its cache entry will hold the code returned here)
            self._awaiting_entries.append((code, result if result is not None else new_code, 0))
        fc.hook_time_s = time.perf_counter() - t0
        if result is not None and self.log_bytecode:
            self._dump_bytecode(fc, "recompiled", safe, result)
        return result

    def _transform_failed(
        self,
        fn_key: str,
        code: types.CodeType,
        new_code: types.CodeType,
        fc: FrameCompile,
        e: Exception,
    ) -> None:
        """Record why a frame keeps Dynamo's bytecode, and warn once for its function."""
        if isinstance(e, _HelperFailure):  # (the helper process's decompiler or check failed)
            reason, blame_decompiler, unwritable = e.reason, e.blames_decompiler, False
        else:
            reason = f"{type(e).__name__}: {e}"
            blame_decompiler = recompile.blames_decompiler(e)
            unwritable = isinstance(e, OSError)  # (the dump directory, e.g. a full disk)
        fc.failure = reason
        kind = "decompile" if blame_decompiler else "write" if unwritable else "recompile"
        self._fail(kind, fn_key, reason, compile_id=fc.compile_id, function=code.co_name)
        self.failed_codes.append((code.co_name, new_code, reason))
        what = "write the file" if unwritable else "turn Dynamo's code"
        self._warn_once(
            fn_key,
            f"pellucid: could not {what} for {code.co_name} "
            f"({code.co_filename}:{code.co_firstlineno})"
            + (f" in {self.dump.path}" if unwritable else " into source")
            + f" ({reason}); running Dynamo's own bytecode for it",
        )

    # -------------------------------------------------- the file made while Dynamo builds guards

    def _defer(
        self,
        code: types.CodeType,
        new_code: types.CodeType,
        fc: FrameCompile,
        fn_key: str,
        safe: str,
        g: dict[str, Any] | None,
    ) -> bool:
        """Send the frame to the helper process, to be made into its file's source while Dynamo
        builds the frame's guards (tens of milliseconds, on this process's core); True if it
        went (the hook then returns nothing, and :meth:`on_guarded_code` gives Dynamo the
        code).  Not when the helper is not up yet, when the decompiler is a test's stand-in,
        with bytecode listings (written in the hook), or when the frame does not marshal; nor
        in a session that cannot hand code over (see ``start``: ``_adopting``), nor while
        ``pellucid run``'s trace emitter is installed (see :mod:`pellucid.trace`)."""
        w = self._worker
        if not self._adopting or w is None or self.log_bytecode or not w.up():
            return False
        if _trace_emitter_installed():  # (it reads each frame's file from the code hooks return)
            return False
        import pellucid.decompiler as package
        from pellucid.decompiler import api

        if package.decompile is not api.decompile or adapter.has_breakpoint_marker(new_code):
            return False
        usable = self._usable_globals(new_code, g)
        key = w.submit_transform(_template_request(code, new_code, fc, safe, usable))
        if key is None:  # (a live constant, e.g. a device: made here, in the hook)
            return False
        self._deferred[id(new_code)] = _Deferred(new_code, code, fc, fn_key, safe, g, usable, key)
        return True

    def on_guarded_code(self, guarded_code: Any) -> None:
        """Dynamo hands a compiled frame to its cache: a frame sent to the helper gets its file
        and the code compiled from it now (made here if the helper did not answer)."""
        d = self._deferred.pop(id(guarded_code.code), None)
        if d is None or d.new_code is not guarded_code.code:
            return
        t0 = time.perf_counter()
        try:
            w = self._worker
            answer = w.answer(d.key, within=_ADOPT_WAIT_S) if w is not None else None
            made = self._made_by_helper(d, answer)
            by_helper = made is not None
            if made is None:  # (the helper is gone or late, or left it to this process)
                request = _template_request(d.code, d.new_code, d.fc, d.safe, d.usable)
                made = recompile.transformed_template(*request)
            result = self._file_transformed(d.code, d.new_code, d.fc, d.safe, d.g, d.usable, made)
            self._transformed_by_helper += by_helper
            if result is not None:  # (None: not proven equivalent, Dynamo's code runs)
                adapter.adopt_code(guarded_code, result, d.code)
        except Exception as e:  # noqa: BLE001 - any failure keeps Dynamo's bytecode
            self._transform_failed(d.fn_key, d.code, d.new_code, d.fc, e)
            d.fc.executed_from_file = False
        if self._worker is not None:  # (its cache entry holds the code given here)
            self._awaiting_entries.append((d.code, guarded_code.code, 0))
        d.fc.hook_time_s += time.perf_counter() - t0

    def _made_by_helper(self, d: _Deferred, answer: Any) -> recompile.Template | None:
        """The helper's source for ``d``, compiled and checked here; None to make it here."""
        if answer is None:  # (the helper is gone or late)
            return None
        payload, status = answer
        if status is None:  # (the helper left it to this process)
            return None
        if status is False:
            reason, blame = payload
            raise _HelperFailure(reason, blame)
        source, spec = payload
        consts = {name: d.new_code.co_consts[index] for name, index in spec}
        return recompile.checked_template(source, consts, d.code, d.new_code, d.usable, _PLACEHOLDER)

    def _drop_deferred(self) -> None:
        """Frames sent to the helper whose compile stopped after the hook (Dynamo never ran
        their code, so they get no file)."""
        for d in self._deferred.values():
            d.fc.failure = "Dynamo's compile stopped after its bytecode hook: no code of it ran"
            if self._worker is not None:
                self._worker.forget(d.key)
        self._deferred.clear()

    def _recompile(
        self,
        code: types.CodeType,
        new_code: types.CodeType,
        fc: FrameCompile,
        safe: str,
        g: dict[str, Any] | None,
    ) -> types.CodeType:
        """The code Dynamo runs for the frame, compiled from its transformed-code file."""
        usable = self._usable_globals(new_code, g)
        made = recompile.transformed_template(*_template_request(code, new_code, fc, safe, usable))
        return self._file_transformed(code, new_code, fc, safe, g, usable, made)

    @staticmethod
    def _usable_globals(new_code: types.CodeType, g: dict[str, Any] | None) -> dict[str, str]:
        """Dynamo's uuid-named globals -> the stable names the file reads them by (bound in the
        frame's globals ``g`` beside them, as Dynamo binds its compiled functions there)."""
        usable: dict[str, str] = {}
        if g is not None:
            for long, short in recompile.stable_global_names(new_code).items():
                if long in g and (short not in g or g[short] is g[long]):
                    usable[long] = short
        return usable

    def _file_transformed(
        self,
        code: types.CodeType,
        new_code: types.CodeType,
        fc: FrameCompile,
        safe: str,
        g: dict[str, Any] | None,
        usable: dict[str, str],
        made: recompile.Template,
    ) -> types.CodeType | None:
        """Write ``made``'s source as the frame's file; the checked code relabelled as the file's,
        or None when it was not proven equivalent to Dynamo's (the file is then for reading)."""
        if made.consts:
            if g is None:
                raise recompile.ContractError("constants without a source form and no globals to bind them")
            # live objects among Dynamo's constants (devices, dtypes) get names bound in the
            # frame's globals
            g.update(made.consts)

        fname = f"__transformed_code_{safe}"
        path = self._write_once(f"{fname}.py", made.source.replace(_PLACEHOLDER, fname))
        result = recompile.relabel(made.checked, "<pellucid>", path, _PLACEHOLDER, fname)
        if g is not None:
            for long, short in usable.items():
                g.setdefault(short, g[long])
        fc.transformed_file = self._file(path, "transformed_code", function=code.co_name)
        self.dynamo_codes[fc.transformed_file] = new_code
        fc.transformed_function = fname
        fc.verification = made.verification
        if not made.runs:
            return None
        fc.executed_from_file = True
        self._code_file_by_id[id(result)] = (result, fc.transformed_file)
        return result

    def _dump_bytecode(self, fc: FrameCompile, which: str, safe: str, code: types.CodeType) -> None:
        out = io.StringIO()
        out.write(
            f"# {which} bytecode of {code.co_name} ({code.co_filename}:{code.co_firstlineno})\n"
        )
        dis.dis(code, file=out, depth=None) if sys.version_info >= (3, 7) else dis.dis(
            code, file=out
        )
        text = out.getvalue()
        path, _ = self.dump.write_named(f"__bytecode_{which}_{safe}.txt", text)
        fc.bytecode_files[which] = self._file(path, f"bytecode_{which}")

    # ------------------------------------------------------------------ graphs

    def on_graph(self, name: str, gm: Any, maybe_id: Any) -> None:
        if self._awaiting_entries:  # (e.g. the backward graph, compiled at its first run)
            self._send_guards()
        if not adapter.is_fx_graph_module(gm):
            return
        sname = str(name)
        stage = _graph_stage(sname)
        cid = adapter.current_compile_id()
        embedded = _EMBEDDED_GRAPH.search(sname)
        if sname.startswith("__compiled_fn"):
            owner = recompile.UUID_NAME.sub(r"\1", sname.split()[0])
            stage = "captured_graph"
            self._current_graph.name = owner
            if cid:
                self.graphs_by_compile.setdefault(cid, []).append(owner)
        elif embedded is not None:
            # An FX pass over Dynamo's graph (e.g. "pre insert_deferred_runtime_asserts <name>").
            if self.clean_wild_fx_code:
                return
            owner = embedded.group(1)
            stage = safe_name(sname.replace(embedded.group(0), "").strip().lower())
        else:
            if self.clean_wild_fx_code and not stage.startswith("aot_"):
                return
            owner = self.aot_owner.get(maybe_id) if maybe_id is not None else None
            if owner is None:
                owner = getattr(self._current_graph, "name", None)
                if owner is None and cid and self.graphs_by_compile.get(cid):
                    owner = self.graphs_by_compile[cid][-1]
            if owner is None:
                if self.clean_wild_fx_code:
                    return
                owner = "__unowned_graph"
            if maybe_id is not None:
                self.aot_owner.setdefault(maybe_id, owner)
        graph = self.graphs.setdefault(
            owner, {"name": owner, "compile_id": cid, "stages": {}, "aot_id": None}
        )
        base = stage
        if maybe_id is not None and stage.startswith("aot_"):
            if graph.get("aot_id") is None:
                graph["aot_id"] = maybe_id
            stage = _part_stage(stage, self._aot_part(graph, maybe_id))
        if base == "aot_backward_graph" or (
            base == "aot_forward_graph" and adapter.current_backend_name() in _KEEPS_GRAPHS
        ):
            # AOTAutograd logs its graphs before the backend compiles them, and a backend may
            # make a logged graph's code again at once (aot_eager marks it for a boxed-call
            # recompile at its first call): its file is made when the frame's bytecode hook
            # runs (before anything runs the graph), or by that recompile if one is pending then.
            # Only where the logged graph stays as it was: backends get a copy of the backward
            # graph, but Inductor rewrites the forward graph in place.  Held until then: a graph
            # of a compile Dynamo restarts is never called, and its file is still wanted.
            self._pending_graphs[id(gm)] = (gm, owner, stage, cid)
            if base == "aot_forward_graph":
                self._annotated.add(gm.graph)  # its recompile makes the code to file, once
            path = os.path.join(self.dump.path, _stage_file(owner, stage))
            self._gm_stage[id(gm)] = (weakref.ref(gm), owner, stage, path)
            if base == "aot_backward_graph" and not adapter.waits_for_recompile(gm):
                # Backends compile a copy of the backward graph, when the backward first runs:
                # the copy's recompile is recognised by its body and dumps the stage.
                self._plain_bodies.setdefault(tuple(_graph_body(gm.code)), (owner, stage))
            return
        # The joint graph, which only the partitioner reads, is dumped as it is: a lazy one's
        # recompile is not forced (nothing calls it; if something did, its recompile would run
        # it from its file).
        joint = base == "aot_joint_graph" and adapter.waits_for_recompile(gm)
        self._dump_graph(gm, owner, stage, cid, run_from_file=not joint)

    @staticmethod
    def _aot_part(graph: dict[str, Any], aot_id: Any) -> int:
        """Which of the graph's AOTAutograd compilations ``aot_id`` is: 0 for the first; more
        when a backend splits Dynamo's graph and compiles each part (DDP's DDPOptimizer)."""
        ids = graph.setdefault("aot_ids", [])
        if aot_id not in ids:
            ids.append(aot_id)
        return ids.index(aot_id)

    def _flush_pending_graphs(self, final: bool) -> None:
        """Dump the AOT graphs logged since the last hook.  Until ``final`` (exit), when what
        is left is dumped for reading, two kinds stay pending: a graph waiting for its recompile
        (which dumps it) and a backward graph (a copy of it is what runs, dumped when the copy
        is recompiled)."""
        for key, (gm, owner, stage, cid) in list(self._pending_graphs.items()):
            waiting = adapter.waits_for_recompile(gm)
            if not final and (waiting or stage.startswith("aot_backward_graph")):
                continue  # dumped by its (or its copy's) recompile, else on exit
            del self._pending_graphs[key]
            if stage in self.graphs[owner]["stages"]:
                continue  # a copy's recompile dumped it
            try:
                self._dump_graph(gm, owner, stage, cid, run_from_file=not waiting)
            except Exception as e:  # noqa: BLE001 - never break compilation
                self._fail("graph", f"{owner}.{stage}", f"{type(e).__name__}: {e}")

    def _dump_graph(
        self, gm: Any, owner: str, stage: str, cid: str | None, run_from_file: bool = True
    ) -> None:
        """Write ``gm``'s annotated source as the stage's file and (``run_from_file``) make
        its ``forward`` the file's; a graph still waiting for its recompile is only read.
        Its subgraphs (the bodies of higher-order ops: ``torch.cond``'s branches, a
        checkpointed region, a ``while_loop`` body) get files of their own, dumped the same
        way, as stage ``<stage>.<attribute>``."""
        self._dump_one_graph(gm, owner, stage, cid, run_from_file)
        self._dump_subgraphs(gm, owner, stage, cid, run_from_file)

    def _dump_subgraphs(
        self, gm: Any, owner: str, stage: str, cid: str | None, run_from_file: bool
    ) -> None:
        for name, sub in adapter.graph_submodules(gm):
            substage = f"{stage}.{safe_name(name)}"
            try:
                self._dump_graph(sub, owner, substage, cid, run_from_file)
            except Exception as e:  # noqa: BLE001 - never break compilation
                self._fail("graph", f"{owner}.{substage}", f"{type(e).__name__}: {e}")

    def _dump_one_graph(
        self, gm: Any, owner: str, stage: str, cid: str | None, run_from_file: bool
    ) -> None:
        if run_from_file and stage == "captured_graph" and adapter.waits_for_recompile(gm):
            # Dynamo's graph: filed now, from the annotated code adapter.annotate_codegen made
            # for it already; torch's own recompile, when something runs the graph (the eager
            # backend, at once; AOTAutograd interprets it instead), runs it from the file.
            self._annotated.add(gm.graph)
            src, _ = adapter.graph_module_source(gm, recompile=False)
            path, content, compiled = self._file_annotated(gm, owner, stage, cid, src)
            self._graph_code[path] = (content, compiled)
            return
        if run_from_file and adapter.waits_for_recompile(gm):
            # Its pending recompile, done now, makes the annotated code (once: torch's own
            # recompile, see adapter.annotate_codegen); on_exec_with_source files it and runs
            # it from the file.
            self._annotated.add(gm.graph)
            self._first_dump[id(gm)] = (gm, owner, stage, cid)
            try:
                gm.real_recompile()
            finally:
                missed = self._first_dump.pop(id(gm), None) is not None
            if not missed:
                return
        src, fx_globals = adapter.graph_module_source(gm, recompile=run_from_file)
        path, content, compiled = self._file_graph(gm, owner, stage, cid, src)
        if run_from_file:
            self._run_from_file(gm, path, content, fx_globals, _plain(gm, src), compiled)

    def _file_graph(
        self, gm: Any, owner: str, stage: str, cid: str | None, src: str
    ) -> tuple[str, str, types.CodeType]:
        """(path, text, code compiled from the text as ``_GRAPH_FILE``) of the stage's file for
        ``gm``'s annotated source ``src``: written, or the file of another stage of the same
        graph whose code reads the same (a pass that changed nothing gets no new file)."""
        content = self._graph_header(owner, stage) + src
        try:
            compiled = compile(content, _GRAPH_FILE, "exec", dont_inherit=True)
        except SyntaxError:  # a shape/dtype comment FX could not spell: the plain form
            src, _ = adapter.graph_module_source(gm, recompile=False, verbose=False)
            content = self._graph_header(owner, stage) + src
            compiled = compile(content, _GRAPH_FILE, "exec", dont_inherit=True)
        graph = self.graphs[owner]
        bodies = self._graph_bodies.setdefault(owner, {})
        for other_stage, rel in graph["stages"].items():
            if other_stage != stage and bodies.get(other_stage) == src:
                graph["stages"][stage] = rel
                bodies[stage] = src
                path = os.path.join(self.dump.path, rel)
                self._remember_gm(gm, owner, stage, path)
                on_disk = self._read(rel)
                if on_disk is not None and on_disk != content:
                    content = on_disk
                    compiled = compile(on_disk, _GRAPH_FILE, "exec", dont_inherit=True)
                return path, content, compiled
        path, written = self.dump.write_named(_stage_file(owner, stage), content)
        if written:
            self._created.add(path)
        rel = self._file(path, "graph", graph=owner, stage=stage, compile_id=cid)
        graph["stages"][stage] = rel
        bodies[stage] = src
        self._remember_gm(gm, owner, stage, path)
        return path, content, compiled

    def _file_annotated(
        self, gm: Any, owner: str, stage: str, cid: str | None, src: str
    ) -> tuple[str, str, types.CodeType]:
        """:meth:`_file_graph` for a graph's annotated code ``src``, remembered so that a
        recompile making ``src`` (or a plain copy's code) runs the file."""
        path, content, compiled = self._file_graph(gm, owner, stage, cid, src)
        self._fx_sources[src] = (path, content)
        self._plain_bodies.setdefault(tuple(_graph_body(src)), (owner, stage))
        self._return_lines.add(_return_line(src))
        return path, content, compiled

    def _match_copy(self, src: str, gm: Any) -> tuple[Any, str, str, str] | None:
        """A dumped stage whose graph equals ``gm``'s, up to the calling convention (copies)."""
        hit = self._plain_bodies.get(tuple(_graph_body(src)))
        if hit is None:
            return None
        owner, stage = hit
        rel = self.graphs.get(owner, {}).get("stages", {}).get(stage) or _stage_file(owner, stage)
        return (weakref.ref(gm), owner, stage, os.path.join(self.dump.path, rel))

    def _same_graph_file(self, src: str) -> tuple[str, str] | None:
        """(path, text) of the file of a graph filed annotated whose code ``src`` is, but for
        the annotations (a copy's plain recompile): what runs is then that file."""
        if _return_line(src) not in self._return_lines:
            return None
        hit = self._plain_bodies.get(tuple(_graph_body(src)))
        rel = self.graphs.get(hit[0], {}).get("stages", {}).get(hit[1]) if hit else None
        content = self._read(rel) if rel else None
        if content is None:
            return None
        self._fx_sources[src] = (os.path.join(self.dump.path, rel), content)
        return self._fx_sources[src]

    @staticmethod
    def _graph_header(owner: str, stage: str) -> str:
        parent, _, sub = stage.rpartition(".")
        if parent:
            return (
                f"# {sub}: a subgraph (the body of a higher-order op, e.g. a torch.cond branch)\n"
                f"# called from {parent} of {owner}, dumped by pellucid; this file is what runs.\n"
            )
        return f"# {stage} of {owner}, dumped by pellucid; this file is what runs.\n"

    def _remember_gm(self, gm: Any, owner: str, stage: str, path: str) -> None:
        try:
            self._gm_stage[id(gm)] = (weakref.ref(gm), owner, stage, path)
        except TypeError:
            pass

    def _text(self, rel: str) -> str:
        known = self._contents.get(rel)
        return known if known is not None else (self._read(rel) or "")

    def _read(self, rel: str) -> str | None:
        try:
            with open(os.path.join(self.dump.path, rel), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None

    def _run_from_file(
        self,
        gm: Any,
        path: str,
        content: str,
        fx_globals: dict[str, Any],
        plain_src: str,
        compiled: types.CodeType,
    ) -> None:
        """Make ``gm.forward`` the function of ``content`` (compiled, from ``_GRAPH_FILE``) at ``path``."""
        fwd = type(gm).__dict__.get("forward")
        scope = dict(getattr(fwd, "__globals__", None) or fx_globals)
        scope.update({k: v for k, v in fx_globals.items() if k not in scope})
        exec(recompile.relabel(compiled, _GRAPH_FILE, path), scope)
        type(gm).forward = scope["forward"]
        self._fx_sources[plain_src] = (path, content)
        known = self._gm_stage.get(id(gm))
        if known is not None:
            self._plain_bodies.setdefault(tuple(_graph_body(plain_src)), (known[1], known[2]))

    def on_exec_with_source(self, src: str, globals_: dict[str, Any], co_fields: Any) -> bool:
        """Compile a known graph's source from its dumped file; False means not handled."""
        if self._awaiting_entries:  # (a graph's first run: its frame's cache entry is made)
            self._send_guards()
        hit = self._fx_sources.get(src)
        gm = (
            adapter.recompiling_graph_module()
            if hit is None or self._pending_graphs or self._first_dump
            else None
        )
        first = self._first_dump.get(id(gm)) if gm is not None else None
        if first is not None and first[0] is gm:
            # _dump_graph's recompile: the annotated code, filed and run from its file
            _, owner, stage, cid = first
            path, _, compiled = self._file_annotated(gm, owner, stage, cid, src)
            exec(recompile.relabel(compiled, _GRAPH_FILE, path), globals_)
            del self._first_dump[id(gm)]  # done (left there, _dump_graph does it its own way)
            return True
        if gm is not None and self._pending_graphs.get(id(gm), (None,))[0] is gm:
            hit = None  # its own stage file, even if another graph's code reads the same
        if hit is None:
            known = self._gm_stage.get(id(gm)) if gm is not None else None
            if known is not None and known[0]() is not gm:
                known = None
            if known is None and gm is not None and "args_list" in src:
                known = self._match_copy(src, gm)
            elif known is None and gm is not None:
                hit = self._same_graph_file(src)
            if known is not None:
                # A dumped graph recompiled with new codegen (e.g. aot_eager's boxed calling
                # convention): the stage's file follows what runs.
                _, owner, stage, path = known
                self._pending_graphs.pop(id(gm), None)  # dumped here, as it now is
                # annotated already if torch's codegen made it so (annotate_codegen)
                new_src = (
                    src
                    if gm.graph in self._annotated
                    else adapter.graph_module_source(gm, recompile=False)[0]
                )
                content = self._graph_header(owner, stage) + new_src
                with self.dump.locked():
                    old_path = path
                    if old_path in self._created:
                        same = self.dump.find_named(_stage_file(owner, stage), content)
                        if same is not None:
                            path = same
                        else:
                            self.dump._atomic_write(old_path, content)  # ours, nothing ran from it yet
                    else:  # (write_named finds a file that holds the content already by itself)
                        path, written = self.dump.write_named(_stage_file(owner, stage), content)
                        if written:
                            self._created.add(path)
                    if old_path != path and old_path in self._created:
                        # Superseded before anything ran from it: keep names stable.
                        with contextlib.suppress(OSError):
                            os.unlink(old_path)
                        self._created.discard(old_path)
                        self.files.pop(self.dump.relpath(old_path), None)
                        self._index_dirty = True
                    cid = self.graphs[owner].get("compile_id")
                    self._file(path, "graph", graph=owner, stage=stage, compile_id=cid)
                    self.graphs[owner]["stages"][stage] = self.dump.relpath(path)
                self._gm_stage[id(gm)] = (known[0], owner, stage, path)
                self._graph_bodies.setdefault(owner, {})[stage] = new_src
                hit = (path, content)
                self._fx_sources[src] = hit
                self._dump_subgraphs(gm, owner, stage, cid, run_from_file=True)
        if hit is None:
            if self.clean_wild_fx_code:
                return False
            path, _, _ = self.dump.write_unique("__fx_graph_code_{n}.py", lambda n: src)
            self._file(path, "fx_graph_code")
            hit = (path, src)
        path, content = hit
        made = self._graph_code.get(path)
        if made is not None and made[0] is content:
            code = recompile.relabel(made[1], _GRAPH_FILE, path)
        else:
            code = compile(content, path, "exec", dont_inherit=True)
        exec(code, globals_)
        return True

    def on_output_code(self, key: str, path: str) -> str:
        """Copy Inductor's output code into the dump dir; return the path to load it from."""
        if self._awaiting_entries:
            self._send_guards()
        try:
            with open(path, encoding="utf-8") as f:
                src = f.read()
        except OSError:
            return path
        if not _OUTPUT_CODE_ENTRY.search(src):
            return path  # not a graph's output code (a kernel module, say)
        cid = adapter.current_compile_id()
        aot_id = adapter.current_aot_id()
        owner = self.aot_owner.get(aot_id) if aot_id is not None else None
        if owner is None:
            owner = getattr(self._current_graph, "name", None)
            if cid and self.graphs_by_compile.get(cid):
                owner = self.graphs_by_compile[cid][-1]
        owner = owner or "__unowned_graph"
        graph = self.graphs.get(owner, {})
        part = self._aot_part(graph, aot_id) if graph and aot_id is not None else 0
        bw = adapter.inductor_graph_is_backward()
        if bw is None:
            # A cache hit loads without lowering: the first module of a graph is its forward.
            bw = _part_stage("inductor_forward", part) in graph.get("stages", {})
        stage = _part_stage("inductor_backward" if bw else "inductor_forward", part)
        new_path, _ = self.dump.write_named(_stage_file(owner, stage), src)
        rel = self._file(new_path, "inductor_output_code", graph=owner, stage=stage, compile_id=cid)
        self.graphs.setdefault(
            owner, {"name": owner, "compile_id": cid, "stages": {}, "aot_id": None}
        )["stages"][stage] = rel
        return new_path

    def on_graph_break(self, tx: Any, code_options: Any, reason: str, exc: Any) -> None:
        if getattr(exc, "logged", False):
            return
        stack = getattr(exc, "real_stack", None)
        if stack is None:
            try:
                import torch._guards

                stack = torch._guards.TracingContext.extract_stack()
            except Exception:  # noqa: BLE001
                stack = []
        frames = [
            {"filename": fs.filename, "lineno": fs.lineno, "name": fs.name}
            for fs in list(stack or [])
        ]
        where = (
            frames[-1]
            if frames
            else {
                "filename": code_options.get("co_filename"),
                "lineno": code_options.get("co_firstlineno"),
                "name": code_options.get("co_name"),
            }
        )
        self.graph_breaks.append(
            {
                "compile_id": adapter.current_compile_id(),
                "function": code_options.get("co_name"),
                "reason": str(reason).strip(),
                "filename": where["filename"],
                "lineno": where["lineno"],
                "user_stack": frames,
            }
        )

    # ------------------------------------------------------------------ finalize

    def finish(self) -> None:
        """Write what is read only after the run (guards, full_code files, the index): under
        one hold of the directory's lock, not one per file."""
        self._live = False
        with self.dump.locked():
            self._finish()
        if self._worker is not None:  # answers no file asked for are not kept
            for _, key in self._resume_sent.values():
                self._worker.forget(key)
        self._resume_sent.clear()

    def _finish(self) -> None:
        t_finish = time.perf_counter()
        if self._deferred:
            self._drop_deferred()
        self._flush_pending_graphs(final=True)
        self._take_guard_terms()
        metrics = {str(m.compile_id): m for m in adapter.compilation_metrics() if m.compile_id}
        failed_by_entry: dict[str, list[str]] = {}
        for m in metrics.values():
            reason = getattr(m, "recompile_reason", None)
            if reason:
                for line in str(reason).splitlines():
                    head, sep, rest = line.partition(": ")
                    if sep and "/" in head:
                        failed_by_entry.setdefault(head.strip(), []).append(line.strip())
        function_rows = []
        for rec in self.functions.values():
            code = rec.code_ref()
            entries = adapter.cache_entries(code) if code is not None else []
            rows = [
                self._entry_row(rec, code, i, ce, metrics, failed_by_entry)
                for i, ce in enumerate(entries)
            ]
            try:
                full = self._write_full_code(rec, code, rows) if code is not None else None
            except OSError as e:
                self._write_failed(rec.key, e)
                full = None
            function_rows.append(self._function_row(rec, full, rows))
        # Torch's own functions (e.g. the wrapper torch.cond compiles when called outside
        # torch.compile) are nothing the user compiled: their index records say so, no message.
        users = [c for c in self.preexisting if not adapter.is_torch_code(c)]
        if users:
            names = ", ".join(f"{c.co_name} ({c.co_filename}:{c.co_firstlineno})" for c in users)
            msg = (
                f"pellucid: {len(users)} function(s) were compiled before prepare_debug: "
                f"{names}. Their guards and transformed code are dumped for reading, but they keep "
                "running the code compiled before (not from the dump files). To debug them, call "
                "torch._dynamo.reset() before prepare_debug, or enter prepare_debug before their "
                "first call."
            )
            self.messages.append(msg)
            print(msg, file=sys.stderr)
        compiles = self._compile_rows(metrics)
        own = self.own_time_s - self._own_at_begin + time.perf_counter() - t_finish
        self._write_index(self._session_record(function_rows, *compiles, own, complete=True))

    @staticmethod
    def _function_row(
        rec: FunctionRecord, full: str | None, rows: list[dict[str, Any]]
    ) -> dict[str, Any]:
        return {
            "key": rec.key,
            "name": rec.name,
            "qualname": rec.qualname,
            "file_id": rec.file_id,
            "filename": rec.filename,
            "firstlineno": rec.firstlineno,
            "kind": "resume" if rec.name.startswith("torch_dynamo_resume_in_") else "user",
            "compiled_before_prepare_debug": rec.compiled_before,
            "full_code_file": full,
            "cache_entries": rows,
        }

    def _session_record(
        self,
        function_rows: list[dict[str, Any]],
        compiles: list[dict[str, Any]],
        without_code: list[dict[str, Any]],
        own_time_s: float,
        complete: bool,
    ) -> dict[str, Any]:
        return {
            "id": self.session_id,
            "pid": os.getpid(),
            "argv": list(sys.argv),
            "rank": os.environ.get("RANK"),
            "started": self.started,
            "finished": time.time() if complete else None,
            "complete": complete,
            # own time until here; writing the index is the one part not in it
            "pellucid_time_s": round(own_time_s, 6),
            "resume_sources": {
                "decompiled": len(self._resume_sources),
                "by_helper_process": self._resume_by_helper,
            },
            "guards_translated_by_helper_process": self._guards_by_helper,
            "transformed_by_helper_process": self._transformed_by_helper,
            "options": {
                "clean_wild_fx_code": self.clean_wild_fx_code,
                "log_bytecode": self.log_bytecode,
            },
            "functions": function_rows,
            "compiles": compiles,
            "compiles_without_code": without_code,
            "graphs": list(self.graphs.values()),
            "graph_breaks": self.graph_breaks,
            "frames_not_compiled": self._frames_not_compiled(),
            "failures": self.failures,
            "messages": self.messages,
            "files": sorted(self.files.values(), key=lambda r: r["path"]),
        }

    def _write_index(self, session: dict[str, Any]) -> None:
        """Merge ``session`` into the directory's index (other sessions' records stay)."""

        def merge(data: dict[str, Any]) -> dict[str, Any]:
            sessions = [s for s in data.get("sessions", []) if s.get("id") != session["id"]]
            sessions.append(session)
            return {
                "schema": INDEX_SCHEMA,
                "version": INDEX_VERSION,
                "pellucid_version": _pellucid_version(),
                "torch_version": adapter.torch_version(),
                "python_version": sys.version.split()[0],
                "dump_dir": self.dump.path,
                "sessions": sessions,
            }

        self.dump.update_json(INDEX_NAME, merge)

    def checkpoint(self) -> None:
        """Write the index as it stands, while the program runs: a process killed (SIGTERM from
        a scheduler, SIGKILL) leaves an index that describes every file it wrote, but for the
        event in flight.  Called after each event that added or removed files; the session is
        marked ``complete: false`` (no guard or full_code files yet: they are written on exit)."""
        self._index_dirty = False
        metrics = {str(m.compile_id): m for m in adapter.compilation_metrics() if m.compile_id}
        rows = [self._function_row(rec, None, []) for rec in self.functions.values()]
        own = self.own_time_s - self._own_at_begin
        self._write_index(self._session_record(rows, *self._compile_rows(metrics), own, False))

    def _compile_rows(
        self, metrics: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Every compile Dynamo started in the session, with its outcome: those its bytecode
        hook saw (with their files), and, apart, those that made no code (Dynamo gave up, or
        found nothing to compile; from its compilation records), so that a recompilation that
        failed is a recompilation too."""
        rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        for fc in self.compiles:
            m = metrics.get(fc.compile_id or "")
            seen.add(fc.compile_id or "")
            rows.append(
                {
                    "compile_id": fc.compile_id,
                    "function": fc.function,
                    "entry": fc.entry,
                    "outcome": "failed" if getattr(m, "fail_type", None) else "compiled",
                    "transformed_code_file": fc.transformed_file,
                    "transformed_function": fc.transformed_function,
                    "executed_from_file": fc.executed_from_file,
                    "verification": fc.verification,
                    "failure": fc.failure,
                    "graphs": fc.graphs,
                    "resume_functions": fc.resume_functions,
                    "resume_function_keys": {
                        name: key
                        for name in fc.resume_functions
                        if (key := self._function_key_of(self._resume_codes.get(name)))
                    },
                    "bytecode_files": fc.bytecode_files,
                    "recompile_reason": getattr(m, "recompile_reason", None),
                    "times_s": _times(m, fc.hook_time_s),
                }
            )
        before = {id(m) for m in self._metrics_before}
        by_frame = {
            cid.split("/")[0]: rec for rec in self.functions.values() for cid in rec.compile_ids
        }
        others: list[dict[str, Any]] = []
        for m in adapter.compilation_metrics():
            cid = str(m.compile_id) if getattr(m, "compile_id", None) else None
            if id(m) in before or cid is None or cid in seen:
                continue
            seen.add(cid)
            base = f"{getattr(m, 'co_name', '?')}@{getattr(m, 'co_filename', '?')}:" + str(
                getattr(m, "co_firstlineno", "?")
            )
            rec = by_frame.get(cid.split("/")[0]) or self.functions.get(base)
            failed = bool(getattr(m, "fail_type", None))
            others.append(
                {
                    "compile_id": cid,
                    "function": rec.key if rec is not None else base,
                    "entry": None,
                    "outcome": "failed" if failed else "no_code",
                    "transformed_code_file": None,
                    "transformed_function": None,
                    "executed_from_file": False,
                    "failure": (
                        f"{m.fail_type}: {guards.one_line(str(getattr(m, 'fail_reason', '') or ''))}"
                        if failed
                        else "Dynamo made no code for the frame: it ran as it is"
                    ),
                    "graphs": [],
                    "resume_functions": [],
                    "resume_function_keys": {},
                    "bytecode_files": {},
                    "recompile_reason": getattr(m, "recompile_reason", None),
                    "times_s": _times(m, 0.0),
                }
            )
        return rows, others

    def _write_failed(self, where: str, e: OSError, compile_id: str | None = None) -> None:
        """A file of the exit work the dump directory refused (a full disk): recorded, and the
        index is written all the same."""
        self._fail("write", where, f"{type(e).__name__}: {e}", compile_id=compile_id)

    def _frames_not_compiled(self) -> list[dict[str, Any]]:
        """Frames Dynamo gave up on in this index session (with ``fullgraph=True`` it raised; otherwise
        they ran eagerly), from its compilation records: the error and the user's line."""
        before = {id(m) for m in self._metrics_before}
        out = []
        for m in adapter.compilation_metrics():
            if id(m) in before or not getattr(m, "fail_type", None):
                continue
            out.append(
                {
                    "compile_id": str(m.compile_id) if getattr(m, "compile_id", None) else None,
                    "function": getattr(m, "co_name", None),
                    "filename": getattr(m, "co_filename", None),
                    "firstlineno": getattr(m, "co_firstlineno", None),
                    "error": str(m.fail_type),
                    "reason": str(getattr(m, "fail_reason", None) or ""),
                    "user_filename": getattr(m, "fail_user_frame_filename", None),
                    "user_lineno": getattr(m, "fail_user_frame_lineno", None),
                }
            )
        return out

    def _entry_row(
        self,
        rec: FunctionRecord,
        code: types.CodeType,
        index: int,
        ce: Any,
        metrics: dict[str, Any],
        failed_by_entry: dict[str, list[str]],
    ) -> dict[str, Any]:
        cid = str(getattr(ce, "compile_id", None) or "") or None
        entry = rec.entry_for(cid)
        stem = f"{rec.file_id}_entry{entry}"
        parts = adapter.guard_code_parts(ce)
        failed = failed_by_entry.get(cid or "", [])
        ce_code = getattr(ce, "code", None)
        transformed = None
        if ce_code is not None and id(ce_code) in self._code_file_by_id:
            transformed = self._code_file_by_id[id(ce_code)][1]
        executed = transformed is not None
        fc = next(
            (c for c in self.compiles if cid and c.compile_id == cid and c.function == rec.key), None
        )
        if ce_code is None and fc is not None:
            # Dynamo dropped the entry's code (an object its guards watch is gone: the entry
            # can never run again); the compile that made it says what it ran
            transformed, executed = fc.transformed_file, fc.executed_from_file
        if transformed is None and ce_code is not None:
            transformed = self._dump_for_reading(rec, ce_code, cid, stem)
        title = (
            f"Guard of cache entry {index} (compile id {cid}) of {rec.name} "
            f"({rec.filename}:{rec.firstlineno}).\n"
            f"When it returns True, Dynamo runs {transformed or 'its own bytecode'}.\n"
            "L: the frame's locals, G: its globals. Terms Dynamo does not describe as Python are comments."
        )

        gname = f"__guard_{stem}"
        text = guards.guard_function_source(gname, parts, title=title, failed=failed)
        try:
            path = self._write_once(f"{gname}.py", text)
            gfile: str | None = self._file(path, "guard", function=rec.name, compile_id=cid)
        except OSError as e:
            self._write_failed(rec.key, e, compile_id=cid)
            gfile = None
        terms = [guards.translate_part(p) for p in parts]
        m = metrics.get(cid or "")
        return {
            "index": index,
            "entry": entry,
            "compile_id": cid,
            "guard_file": gfile,
            "guard_function": gname if gfile else None,
            "guards": [
                {
                    "code": t.code,
                    "comment": t.comment or None,
                    "python": t.is_python,
                    "text": t.original,
                }
                for t in terms
            ],
            "failed_guards": failed,
            "recompile_reason": getattr(m, "recompile_reason", None),
            "transformed_code_file": transformed,
            "executed_from_file": executed,
            "graphs": sorted(
                recompile.UUID_NAME.sub(r"\1", nm)
                for nm in (ce_code.co_names if ce_code is not None else ())
                if nm.startswith("__compiled_fn_")
            )
            or (sorted(fc.graphs) if fc is not None and ce_code is None else []),
            "resume_functions": sorted(
                nm
                for nm in (ce_code.co_names if ce_code is not None else ())
                if nm.startswith("__resume_at_")
            )
            or (fc.resume_functions if fc is not None and ce_code is None else []),
        }

    def _dump_for_reading(
        self, rec: FunctionRecord, code: types.CodeType, cid: str | None, stem: str
    ) -> str | None:
        """Decompile a cache entry's code that is not running from a file (pre-existing or fallback)."""
        try:
            from pellucid.decompiler import decompile

            src = decompile(code, verify=False)  # Dynamo code: not a compiler's output
        except Exception as e:  # noqa: BLE001
            if rec.compiled_before:
                self._fail(
                    "decompile",
                    rec.key,
                    f"{type(e).__name__}: {e}",
                    compile_id=cid,
                    function=rec.name,
                )
            return None
        header = (
            f"# Decompiled by pellucid for reading only: Dynamo runs its own bytecode for this entry of\n"
            f"# {rec.name} ({rec.filename}:{rec.firstlineno}), compile id {cid}.\n"
        )
        try:
            path = self._write_once(f"__transformed_code_{stem}.readonly.py", header + src)
        except OSError as e:
            self._write_failed(rec.key, e, compile_id=cid)
            return None
        rel = self._file(path, "transformed_code_readonly", function=rec.name, compile_id=cid)
        self._unchecked.add(rel)  # parsed, never compiled (nothing runs from it)
        return rel

    def _write_full_code(
        self, rec: FunctionRecord, code: types.CodeType, rows: list[dict[str, Any]]
    ) -> str:
        safe = rec.file_id
        out: list[str] = [
            f"# The whole story of {rec.name} ({guards.one_line(rec.filename)}:{rec.firstlineno}) "
            "under torch.compile,",
            "# written by pellucid: original source, then each cache entry in dispatch order",
            "# (guard, transformed code, compiled graphs, resume functions).",
            "",
        ]
        if rec.name.startswith("torch_dynamo_resume_in_"):
            # No source of its own: Dynamo made it at a graph break (positions point into
            # the function that broke, whose source would mislead here).
            out += ["# ---- made by Dynamo at a graph break; its code, decompiled ----"]
            out += self._resume_source(code, safe) + [""]  # (a lambda's: no identifier)
        else:
            original = original_source(code)
            if original is not None:
                out += ["# ---- original source ----", original.rstrip(), ""]
            else:
                out += ["# ---- original source: not available ----", ""]
        for row in rows:
            out.append(f"# ==== cache entry {row['index']} (compile id {row['compile_id']}) ====")
            out.append(f"# guard: {row['guard_file'] or 'not written'}")
            if row["guard_file"]:
                out.append(self._text(row["guard_file"]))
            tf = row["transformed_code_file"]
            if tf:
                out.append(
                    f"# transformed code: {tf}"
                    + ("" if row["executed_from_file"] else " (for reading)")
                )
                out.append(self._text(tf))
            else:
                out.append("# transformed code: not decompiled (Dynamo's own bytecode runs)")
            for g in row["graphs"]:
                if not g.isidentifier():  # not Dynamo's naming: nothing to stand in for
                    out.append(f"# compiled graph {guards.one_line(g)}")
                    continue
                stages = self.graphs.get(g, {}).get("stages", {})
                out.append(
                    f"# compiled graph {g}: " + ", ".join(f"{k}={v}" for k, v in stages.items())
                )
                out.append(f"def {g}(*args, **kwargs):")
                out.append(
                    f"    pass  # runs the graph in {stages.get('captured_graph', 'the backend')}"
                )
                out.append("")
            for r in row["resume_functions"]:
                out.extend(self._resume_story(r))
        out.append("")
        content = "\n".join(out)
        # Every piece compiles on its own (guards by construction, the others were compiled)
        # and comments are one line each, so the whole does; a file that was only parsed
        # makes the whole worth a compile.
        if any(row["transformed_code_file"] in self._unchecked for row in rows):
            try:
                compile(content, "<full_code>", "exec", dont_inherit=True)
            except SyntaxError as e:
                content = "\n".join("# " + ln for ln in content.splitlines()) + "\n"
                self._fail("full_code", rec.key, f"full code did not compile: {e}")
        path, _ = self.dump.write_named(f"full_code_for_{safe}.py", content)
        return self._file(path, "full_code", function=rec.name)

    def _resume_story(self, global_name: str) -> list[str]:
        """The resume function behind ``global_name``: Dynamo's code for it, decompiled."""
        code = self._resume_codes.get(global_name)
        if code is None:
            return [f"# resume function {global_name}: not found", ""]
        key = self._function_key_of(code)
        rec = self.functions.get(key) if key is not None else None
        lines = [
            f"# resume function {global_name} = {code.co_name}, made by Dynamo at the graph break"
        ]
        if rec is not None:
            lines.append(f"# its own compiled story: full_code_for_{rec.file_id}.py")
        lines += self._resume_source(code, global_name)
        lines.append("")
        return lines

    def _send_guards(self) -> None:
        """Have the helper process translate the guards of the cache entries made since the
        frames were hooked: Dynamo builds a frame's guards after its bytecode hook, so they
        are found at the next event (the next frame's hook, a graph's first run or logging,
        Inductor's output code), long before the exit needs them.  A frame after which no
        event comes before the exit (one graph, no backward) is translated there."""
        waiting = []
        try:
            for code, out, misses in self._awaiting_entries:
                entries = adapter.cache_entries(code)
                ce = next((e for e in entries if getattr(e, "code", None) is out), None)
                if ce is None:
                    if misses < _ENTRY_LOOKS:  # (a compile whose guards failed makes none)
                        waiting.append((code, out, misses + 1))
                    continue
                parts = tuple(adapter.guard_code_parts(ce))
                if parts and parts not in self._guards_sent and self._worker is not None:
                    key = self._worker.submit_guards(list(parts))
                    if key is not None:
                        self._guards_sent[parts] = key
        except Exception:  # noqa: BLE001 - an optimisation: the exit translates what is left
            waiting = []
        self._awaiting_entries = waiting

    def _take_guard_terms(self) -> None:
        """The guard terms the helper has sent by now (no waiting: the rest are translated
        here, by the same function)."""
        if self._worker is None or not self._guards_sent:
            return
        answers = self._worker.answers_ready(list(self._guards_sent.values()))
        for parts, key in self._guards_sent.items():
            got = answers.get(key)
            if got is not None and got[1] and len(got[0]) == len(parts):
                guards.remember_terms(list(parts), got[0])
                self._guards_by_helper += 1
        self._guards_sent.clear()

    def _send_resume(self, code: types.CodeType) -> None:
        """Have the helper process decompile a resume function now, for the exit's files."""
        if self._worker is None or id(code) in self._resume_sent or id(code) in self._resume_sources:
            return
        key = self._worker.submit(code)
        if key is not None:
            self._resume_sent[id(code)] = (code, key)

    def _resume_source(self, code: types.CodeType, name: str) -> list[str]:
        """A resume function's code decompiled as ``def name`` (inside a scope owning its free
        variables, as in its transformed-code file); decompiled once per index session, by the helper
        process if it has it, else here."""
        hit = self._resume_sources.get(id(code))
        if hit is None or hit[0] is not code:
            result = None
            sent = self._resume_sent.pop(id(code), None)
            if sent is not None and sent[0] is code and self._worker is not None:
                result = self._worker.answer(sent[1])
                self._resume_by_helper += result is not None
            if result is None:
                result = worker.resume_source(code)
            hit = self._resume_sources[id(code)] = (code, result)
        text, ok = hit[1]
        if ok:
            return [text.replace(_PLACEHOLDER, name)]
        return [f"# (not decompiled: {guards.one_line(text)})", f"def {name}(*args, **kwargs):", "    pass"]


# Events at which a frame's cache entry is looked for (see _send_guards) before its guards are
# left to the exit: the entry is made right after the frame's hook, so the first look finds it
# unless the compile failed after the hook.
_ENTRY_LOOKS = 8

# Backends that leave the AOT forward graph they are given as it was logged (they may mark it
# for a recompile with another calling convention, which does not change the graph).
_KEEPS_GRAPHS = frozenset({"aot_eager"})

# Inductor's output code defines its entry point: `def call(args)` (Python wrapper), `def run(`,
# or `call = _wrap_func(inductor_entry)` (the C++ wrapper, cpp_wrapper=True)
_OUTPUT_CODE_ENTRY = re.compile(r"def call\(|def run\(|^call = ", re.M)

# How long Dynamo's hand-over of a frame waits for the helper's source of its file.  It is sent
# before Dynamo builds the frame's guards (tens of milliseconds here) and takes a few, so it has
# come unless the helper is stuck or starved of CPU; then this process makes it (in about as
# long as this wait) and the helper's late answer is dropped.
_ADOPT_WAIT_S = 0.02

# A function name no source uses: files are built once under it, then named by replacing it.
_PLACEHOLDER = worker.PLACEHOLDER


def _template_request(
    code: types.CodeType, new_code: types.CodeType, fc: FrameCompile, safe: str, usable: dict[str, str]
) -> tuple:
    """``recompile.transformed_template``'s arguments for a frame: what the helper is sent, and
    what this process calls it with.  Its constants with no source form are named
    ``__pellucid_const_<fn>_<compile id>_<k>``."""
    tag = "".join(c if c.isalnum() else "_" for c in str(fc.compile_id))
    prefix = f"__pellucid_const_{safe}_{tag}_"
    return (code, new_code, usable, prefix, str(fc.compile_id), _PLACEHOLDER)


def _part_stage(stage: str, part: int) -> str:
    """The stage's name for part ``part`` of a split graph (part 0: the stage itself)."""
    return stage if part == 0 else f"{stage}_part{part}"


def _stage_file(owner: str, stage: str) -> str:
    """The dump file name of a graph's stage (``write_named`` adds ``.<k>`` on a clash)."""
    return f"{owner}.{stage}.py"


def _plain(gm: Any, src: str) -> str:
    """The code FX generates for ``gm`` without annotations (``src`` if it has none)."""
    return gm.code if hasattr(gm, "code") else src


def _return_line(src: str) -> str:
    """The last ``return`` line of graph code (the same in its annotated and plain forms)."""
    at = src.rfind("return ")
    end = src.find("\n", at)
    return src[at : end if end >= 0 else len(src)].strip()


# an annotated assignment of FX's verbose codegen: `add: "f32[10]" = ...`
_ANNOTATED_STORE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*): "[^"]*" = ')


def _graph_body(src: str) -> list[str]:
    """Graph code lines without the signature, the boxed-call prologue and the annotations
    (FX's annotated and plain codegen of one graph give the same body)."""
    out = []
    for ln in src.splitlines():
        t = ln.strip()
        if not t or t.startswith(("def forward", "args_iter = iter(", "args_list.clear()", "#")):
            continue
        if "= next(args_iter)" in t:
            continue
        out.append(_ANNOTATED_STORE.sub(r"\1 = ", t) if '"' in t else t)
    return out


def _times(m: Any, hook_time: float) -> dict[str, Any]:
    if m is None:
        return {"pellucid_hook": round(hook_time, 6)}
    return {
        "entire_frame": getattr(m, "entire_frame_compile_time_s", None),
        "backend": getattr(m, "backend_compile_time_s", None),
        "inductor": getattr(m, "inductor_compile_time_s", None),
        "code_gen": getattr(m, "code_gen_time_s", None),
        "dynamo_before_restart": getattr(m, "dynamo_time_before_restart_s", None),
        "pellucid_hook": round(hook_time, 6),
    }


def _pellucid_version() -> str:
    from pellucid import __version__

    return __version__


def original_source(code: types.CodeType) -> str | None:
    """The source of ``code``'s function, dedented, or None.

    The lines from ``co_firstlineno`` to the last line the code's positions reach, when they
    compile as the function's definition (cheap: ``inspect.getsource`` tokenizes the block);
    else ``inspect.getsource``, which also finds a last line the positions do not reach.
    """
    lines = linecache.getlines(code.co_filename)
    positions = getattr(code, "co_positions", None)
    if lines and positions is not None:
        last = max((p[1] for p in positions() if p[1] is not None), default=0)
        if last >= code.co_firstlineno:
            text = textwrap.dedent("".join(lines[code.co_firstlineno - 1 : last]))
            if text.startswith(("def ", "async def ", "@")):
                try:  # compiled, not only parsed: e.g. a nonlocal at the top fails here
                    module = compile(text, "<original>", "exec", dont_inherit=True)
                except SyntaxError:
                    module = None
                if module is not None and any(
                    isinstance(c, types.CodeType) and c.co_name == code.co_name
                    for c in module.co_consts
                ):
                    return text
    name = code.co_filename
    if not lines and name.startswith("<") and name.endswith(">"):
        # exec'd or `python -c` code with no lines registered: inspect would fail too, after
        # scanning every loaded module for the file's owner (~15 ms the first time)
        return None
    try:
        text = textwrap.dedent(inspect.getsource(code))
        compile(text, "<original>", "exec", dont_inherit=True)
        return text
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------------------------------------------
# Module-level entry points the patches call (they look up the current session each time).


@contextlib.contextmanager
def _own_time(s: DumpSession) -> Iterator[None]:
    s._own_depth += 1
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if s._own_depth == 1 and s._index_dirty and s._live:
            _checkpoint(s)  # (its time is pellucid's too)
        s._own_depth -= 1
        if not s._own_depth:
            s.own_time_s += time.perf_counter() - t0


def _checkpoint(s: DumpSession) -> None:
    """The index written after an event that added files; a failure is recorded once and
    never reaches the program (the exit writes the index again)."""
    try:
        with _lock:
            s.checkpoint()
    except Exception as e:  # noqa: BLE001 - the user's program must go on
        if not s._checkpoint_failed:
            s._checkpoint_failed = True
            s._fail("write", INDEX_NAME, f"{type(e).__name__}: {e}")


def _bytecode_hook(code: types.CodeType, new_code: types.CodeType) -> types.CodeType | None:
    s = _current
    if s is None:
        return None
    with _lock, _own_time(s):
        return s.on_bytecode(code, new_code)


def on_lazy_format_graph_code(name: Any, gm: Any, maybe_id: Any, kwargs: dict[str, Any]) -> Any:
    s = _current
    if s is not None:
        try:
            with _lock, _own_time(s):
                s.on_graph(name, gm, maybe_id)
        except Exception as e:  # noqa: BLE001 - never break compilation
            s._fail("graph", str(name), f"{type(e).__name__}: {e}")
        orig = s._orig_lazy
    else:
        orig = None
    if orig is None:
        from pellucid.dynamo import adapter as _a

        orig = _a.lazy_format_graph_code()
    return orig(name, gm, maybe_id, **kwargs)


def _trace_emitter_installed() -> bool:
    from pellucid.trace import emitter_installed

    return emitter_installed()


def _on_guarded_code(guarded_code: Any) -> None:
    s = _current
    if s is not None and s._deferred:
        try:
            with _lock, _own_time(s):
                s.on_guarded_code(guarded_code)
        except Exception as e:  # noqa: BLE001 - never break compilation
            s._fail("adopt", "wrap_guarded_code", f"{type(e).__name__}: {e}")


def _exec_with_source(src: str, globals: dict[str, Any], co_fields: Any = None) -> None:  # noqa: A002
    s = _current
    if s is not None:
        try:
            with _lock, _own_time(s):
                if s.on_exec_with_source(src, globals, co_fields):
                    return
        except Exception as e:  # noqa: BLE001
            s._fail("fx_exec", "_exec_with_source", f"{type(e).__name__}: {e}")
        return s._orig_exec_with_source(src, globals, co_fields)
    mod, attr = adapter.exec_with_source_owner()
    return getattr(mod, attr)(src, globals, co_fields)


def _load_by_key_path(
    cls: Any, key: str, path: str, linemap: Any = None, attrs: Any = None, **kw: Any
) -> Any:
    s = _current
    orig = s._orig_load_by_key_path if s is not None else cls.load_by_key_path.__func__
    if s is not None:
        try:
            with _lock, _own_time(s):
                path = s.on_output_code(key, path)
        except Exception as e:  # noqa: BLE001
            s._fail("inductor_output_code", path, f"{type(e).__name__}: {e}")
    return orig(cls, key, path, linemap, attrs, **kw)


def _log_graph_break(self: Any, code_options: Any, reason: str, exc: Any) -> Any:
    s = _current
    if s is not None:
        try:
            with _own_time(s):
                s.on_graph_break(self, code_options, reason, exc)
        except Exception as e:  # noqa: BLE001
            s._fail("graph_break", "log_graph_break", f"{type(e).__name__}: {e}")
        return s._orig_log_graph_break(self, code_options, reason, exc)
    return adapter.instruction_translator_class().log_graph_break(self, code_options, reason, exc)


def _reset(*args: Any, **kwargs: Any) -> Any:
    s = _current
    if s is not None:
        try:
            with _lock:
                # this index session is finished while its cache entries still exist; its own
                # time is complete before the next one starts counting
                with _own_time(s):
                    s.finish()
                with _own_time(s):
                    s.restart()
        except Exception as e:  # noqa: BLE001 - the user's program must go on
            s._fail("reset", "torch._dynamo.reset", f"{type(e).__name__}: {e}")
        return s._orig_reset(*args, **kwargs)
    return adapter.dynamo_module().reset(*args, **kwargs)


@contextlib.contextmanager
def prepare_debug(
    dump_src_dir: str, clean_wild_fx_code: bool = True, log_bytecode: bool = False
) -> Iterator[DumpSession]:
    """Dump and run from files everything ``torch.compile`` produces inside the block.

    Code compiled inside the ``with`` block runs from the dumped files (transformed code, graph
    ``forward``\\ s, Inductor output code), so debuggers stop at breakpoints set in them; results
    do not change.  On exit the guards, ``full_code_for_<fn>.py`` files and ``index.json`` are
    written and every torch patch is undone.  Decompilation failures are warned about once per
    frame and recorded; the affected frame keeps Dynamo's bytecode.
    """
    global _current, _last_dump_dir
    if not isinstance(dump_src_dir, (str, os.PathLike)):
        raise TypeError(
            "prepare_debug(dump_src_dir) takes the directory to dump into, e.g. "
            "prepare_debug('./dump')"
        )
    t0 = time.perf_counter()
    adapter.check_supported()
    if _current is not None:
        raise RuntimeError("pellucid.prepare_debug is already active; it does not nest")
    session = DumpSession(os.fspath(dump_src_dir), clean_wild_fx_code, log_bytecode)
    session.own_time_s += time.perf_counter() - t0  # (its own making counts too)
    with _own_time(session):
        session.start()
    _current = session
    try:
        yield session
    finally:
        _current = None
        session._live = False
        try:
            with _own_time(session):
                session.stop()
        finally:
            _last_dump_dir = session.dump.path
            try:
                with _own_time(session):  # session.own_time_s: all of pellucid's time
                    session.finish()
            except Exception as e:  # noqa: BLE001 - the user's program must go on
                warnings.warn(
                    f"pellucid: could not finish the dump index: {type(e).__name__}: {e}",
                    PellucidWarning,
                    stacklevel=3,
                )
