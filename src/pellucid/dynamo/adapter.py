"""Every torch internal that pellucid touches, behind one module.

Nothing else in :mod:`pellucid.dynamo` imports a private torch name: it asks this module.
:data:`TORCH_INTERNALS` lists every one of them, with where pellucid uses it and what a torch
without it loses (docs/new-torch-release.md shows it).  :func:`check_supported` is called at the
entry of ``prepare_debug``/``debug``/``install`` and fails with :class:`UnsupportedTorchError`
naming every missing required internal and the torch releases pellucid is tested with, so an
unsupported torch version stops at the door instead of half-way through a compile.

Where torch offers an extension point (``register_bytecode_hook``, logging) it is used; the
remaining patches (``_exec_with_source``, ``PyCodeCache.load_by_key_path``,
``lazy_format_graph_code``'s code object, ``log_graph_break``, ``Graph.python_code``,
``torch._dynamo.reset``, Dynamo's skip list, ``wrap_guarded_code`` where :func:`adopt_code` can
be used, and under ``debug()`` the stance callback) go through :class:`Patcher`, which records
each one and restores every one of them on exit.
"""

from __future__ import annotations

import importlib
import inspect
import operator
import os
import sys
import types
import weakref
from typing import Any, Callable, Iterable, Iterator, NamedTuple

# The torch releases pellucid's torch.compile support is tested with (tests/dynamo passes on each).
TESTED_TORCH_VERSIONS: tuple[str, ...] = ("2.13.0", "2.14.1", "2.15.0")


def tested_versions() -> str:
    """``"2.13.0, 2.14.1 and 2.15.0"``: the tested releases, for messages."""
    *head, last = TESTED_TORCH_VERSIONS
    return f"{', '.join(head)} and {last}" if head else last


class Internal(NamedTuple):
    """One torch internal pellucid touches.

    ``need`` says what a torch without it loses: ``"required"`` internals are checked by
    :func:`check_supported`, which refuses that torch; without an ``"adoption"`` internal each
    frame's file is made in the bytecode hook instead (see :func:`can_adopt_code`); without an
    ``"optional"`` one a courtesy goes (a backend name, a stack, a stage's label).  ``used_by``
    names pellucid's code that reads it, ``role`` what for."""

    module: str
    path: str  # attribute path inside ``module``, "" for the module itself
    need: str
    used_by: str
    role: str

    @property
    def name(self) -> str:
        return f"{self.module}.{self.path}" if self.path else self.module


# Every torch internal pellucid touches, in one table: check_supported, the adoption check,
# tests/dynamo/test_internals.py and docs/new-torch-release.md all read it.  A torch release
# that moves one costs a row here (and the code in ``used_by``), not a hunt.
TORCH_INTERNALS: tuple[Internal, ...] = (
    Internal("torch._dynamo.convert_frame", "register_bytecode_hook", "required",
             "session.Session.install, logging_hook, trace.TraceEmitter",
             "sees each frame's transformed code; returns the code compiled from its file"),
    Internal("torch._dynamo.eval_frame", "_debug_get_cache_entry_list", "required",
             "adapter.cache_entries (session, debugging)",
             "a function's cache entries: their code and guards"),
    Internal("torch._dynamo.eval_frame", "innermost_fn", "required",
             "adapter.innermost_fn", "unwraps torch.compile's wrappers to the user's function"),
    Internal("torch._dynamo.utils", "orig_code_map", "required",
             "adapter.compiled_original_codes, adapter.adopt_code",
             "transformed code -> original code"),
    Internal("torch._dynamo.utils", "get_compilation_metrics", "required",
             "adapter.compilation_metrics (session)", "per-frame compile times for the index"),
    Internal("torch._dynamo.utils", "lazy_format_graph_code", "required",
             "session (patched: its code object)", "every stage's graph module passes here"),
    Internal("torch._dynamo.symbolic_convert", "InstructionTranslatorBase.log_graph_break",
             "required", "session (patched)", "graph-break reasons and where they happen"),
    Internal("torch._dynamo.convert_frame", "bytecode_log", "required",
             "logging_hook", "TORCH_LOGS=+bytecode gains the decompiled source"),
    Internal("torch.fx.graph_module", "_exec_with_source", "required",
             "session (patched)", "graph modules run from their dumped files"),
    Internal("torch.fx.graph", "Graph.python_code", "required",
             "adapter.annotate_codegen, adapter.graph_module_source",
             "annotated graph code, made once"),
    Internal("torch._inductor.codecache", "PyCodeCache.load_by_key_path", "required",
             "session (patched)", "Inductor's kernels load from the dump directory"),
    Internal("torch._guards", "CompileContext.current_compile_id", "required",
             "adapter.current_compile_id (session)", "which compile a file belongs to"),
    Internal("torch._dynamo", "reset", "required",
             "session (patched)", "a reset inside prepare_debug starts a new index session"),
    Internal("torch._dynamo.eval_frame", "_callback_from_stance", "required",
             "adapter.run_cached_reporting_misses (debugging)",
             "debug() runs cached code only and reports guard misses"),
    Internal("torch._dynamo.eval_frame", "innermost_backend", "required",
             "adapter.run_cached_reporting_misses", "the backend a guard miss is checked for"),
    Internal("torch._dynamo.types", "ConvertFrameReturn", "required",
             "adapter.run_cached_reporting_misses", "tells Dynamo to run a missed call eagerly"),
    Internal("torch._dynamo.guards", "get_and_maybe_log_recompilation_reasons", "required",
             "adapter.run_cached_reporting_misses", "why a call missed every cache entry"),
    Internal("torch._dynamo.trace_rules", "SKIP_DIRS", "required",
             "adapter.skip_own_frames", "pellucid's own frames are never compiled"),
    Internal("torch._dynamo.trace_rules", "SKIP_DIRS_RE", "required",
             "adapter.skip_own_frames", "the skip list's compiled form"),
    Internal("torch._dynamo.trace_rules", "_recompile_re", "required",
             "adapter.skip_own_frames", "rebuilds SKIP_DIRS_RE"),
    Internal("torch._dynamo.convert_frame", "wrap_guarded_code", "adoption",
             "adapter.patch_guarded_code, adapter.adopt_code",
             "a frame's file is made while Dynamo builds its guards"),
    Internal("torch._dynamo.convert_frame", "output_codes", "adoption",
             "adapter.adopt_code", "the adopted code counts as Dynamo's output"),
    Internal("torch._dynamo.convert_frame", "_copy_code_context", "adoption",
             "adapter.adopt_code", "the adopted code gets Dynamo's code context"),
    Internal("torch._dynamo.types", "GuardedCode", "adoption",
             "adapter.adopt_code", "what wrap_guarded_code is handed"),
    Internal("torch._dynamo.convert_frame", "_compile", "optional",
             "adapter.compile_frame_globals", "its frame holds the compiled frame's globals"),
    Internal("torch._dynamo.symbolic_convert", "InstructionTranslator.current_tx", "optional",
             "adapter.current_backend_name", "the backend named in the index"),
    Internal("torch._guards", "TracingContext.try_get", "optional",
             "adapter.current_aot_id", "which AOTAutograd compilation a graph belongs to"),
    Internal("torch._guards", "TracingContext.extract_stack", "optional",
             "session.on_graph_break", "the user's stack at a graph break"),
    Internal("torch._functorch._aot_autograd.logging_utils", "graph_being_compiled", "optional",
             "adapter.current_aot_id", "the same, where the tracing context has no name"),
    Internal("torch._inductor.virtualized", "V", "optional",
             "adapter.inductor_graph_is_backward", "forward or backward Inductor graph"),
    Internal("torch._functorch.config", "enable_autograd_cache", "optional",
             "adapter.disable_compile_caches", "a cache hit would skip the dumped stages"),
    Internal("torch._inductor.config", "fx_graph_cache", "optional",
             "adapter.disable_compile_caches", "the same, for Inductor"),
    Internal("torch._dynamo.config", "caching_precompile", "optional",
             "adapter.can_adopt_code", "with it on, files are made in the hook"),
    Internal("torch._dynamo.bytecode_debugger", "BREAKPOINT_MARKER", "optional",
             "adapter.has_breakpoint_marker", "code Dynamo's bytecode debugger registers"),
    Internal("torch._dynamo.utils", "counters", "optional",
             "runner._counters", "Dynamo's tallies in pellucid run's summary"),
    Internal("torch._logging._internal", "trace_log", "optional",
             "trace.trace_enabled", "is the structured trace going anywhere"),
    Internal("torch._logging", "trace_structured", "optional",
             "trace.TraceEmitter", "pellucid's files in the structured trace"),
    Internal("torch._guards", "CompileContext.current_trace_id", "optional",
             "trace.TraceEmitter", "the compile id and attempt of a trace artifact"),
    Internal("torch._guards", "CompileId", "optional",
             "trace.TraceEmitter", "a compile context rebuilt for guard artifacts"),
    Internal("torch._guards", "CompileContext", "optional",
             "trace.TraceEmitter", "the same"),
    Internal("torch._guards", "compile_context", "optional",
             "trace.TraceEmitter", "the same"),
)

# (module, attribute path) pairs of the required internals, and of those adopting a frame's code
REQUIRED_INTERNALS: tuple[tuple[str, str], ...] = tuple(
    (i.module, i.path) for i in TORCH_INTERNALS if i.need == "required"
)
ADOPTION_INTERNALS: tuple[tuple[str, str], ...] = tuple(
    (i.module, i.path) for i in TORCH_INTERNALS if i.need == "adoption"
)


class UnsupportedTorchError(RuntimeError):
    """The installed torch lacks an internal pellucid needs (the message names it)."""


def _resolve(module: str, path: str) -> Any:
    obj: Any = sys.modules.get(module) or importlib.import_module(module)
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def check_supported() -> None:
    """Raise :class:`UnsupportedTorchError` unless every internal in ``REQUIRED_INTERNALS`` exists."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without torch
        raise UnsupportedTorchError(
            "pellucid's torch.compile support needs torch (pip install torch)"
        ) from e
    missing = missing_internals(REQUIRED_INTERNALS)
    if missing:
        raise UnsupportedTorchError(
            f"torch {torch.__version__} lacks internals pellucid's torch.compile support needs "
            f"(missing: {', '.join(missing)}); it is tested with torch {tested_versions()}"
        )
    lazy = _resolve("torch._dynamo.utils", "lazy_format_graph_code")
    if not isinstance(lazy, types.FunctionType) or lazy.__code__.co_freevars:
        raise UnsupportedTorchError(
            "torch._dynamo.utils.lazy_format_graph_code is not a plain function on "
            f"torch {torch.__version__}; pellucid cannot capture graphs"
        )


def missing_internals(internals: Iterable[tuple[str, str]] | None = None) -> list[str]:
    """The dotted names of ``internals`` ((module, path) pairs; all of ``TORCH_INTERNALS`` by
    default) that the installed torch lacks."""
    pairs = [(i.module, i.path) for i in TORCH_INTERNALS] if internals is None else internals
    missing = []
    for module, path in pairs:
        try:
            _resolve(module, path)
        except (ImportError, AttributeError):
            missing.append(f"{module}.{path}" if path else module)
    return missing


def internals_markdown() -> str:
    """``TORCH_INTERNALS`` as a markdown table (docs/new-torch-release.md holds it)."""
    rows = ["| internal | need | used by | for |", "|---|---|---|---|"]
    for i in TORCH_INTERNALS:
        rows.append(f"| `{i.name}` | {i.need} | {i.used_by} | {i.role} |")
    return "\n".join(rows) + "\n"


def torch_version() -> str:
    import torch

    return str(torch.__version__)


def is_torch_code(code: types.CodeType) -> bool:
    """Whether ``code`` is torch's own (e.g. the wrapper ``torch.cond`` compiles when called
    outside torch.compile), not the user's."""
    import torch

    root = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    return os.path.abspath(code.co_filename).startswith(root)


# ---------------------------------------------------------------------------------------------
# Patching, with a record of what is patched so that tests can check it is all restored.


class Patcher:
    """Set attributes (or function code objects) and put every one of them back on :meth:`restore`.

    Patches are undone in reverse order.  ``active`` is a class-level registry of live patches
    (by description) so tests can assert nothing is left behind.
    """

    active: dict[str, int] = {}

    def __init__(self) -> None:
        self._undo: list[tuple[str, Callable[[], None]]] = []

    def setattr(self, owner: Any, name: str, value: Any, *, raw: bool = False) -> None:
        """``owner.name = value`` until restore; ``raw`` keeps the ``__dict__`` entry as is."""
        desc = f"{getattr(owner, '__name__', owner)}.{name}"
        if raw and isinstance(owner, type):
            old = owner.__dict__[name]
        else:
            old = getattr(owner, name)
        setattr(owner, name, value)

        def undo() -> None:
            setattr(owner, name, old)

        self._push(desc, undo)

    def swap_code(self, fn: types.FunctionType, code: types.CodeType) -> None:
        """Replace ``fn.__code__`` (reaches callers that imported ``fn`` by name)."""
        desc = f"{fn.__module__}.{fn.__qualname__}.__code__"
        old = fn.__code__
        fn.__code__ = code

        def undo() -> None:
            fn.__code__ = old

        self._push(desc, undo)

    def call_on_restore(self, desc: str, undo: Callable[[], None]) -> None:
        """Run ``undo`` on restore (for hook handles and other non-attribute state)."""
        self._push(desc, undo)

    def _push(self, desc: str, undo: Callable[[], None]) -> None:
        self._undo.append((desc, undo))
        Patcher.active[desc] = Patcher.active.get(desc, 0) + 1

    def restore(self) -> None:
        """Undo every patch, newest first; errors in one undo do not stop the others."""
        errors: list[BaseException] = []
        while self._undo:
            desc, undo = self._undo.pop()
            try:
                undo()
            except BaseException as e:  # noqa: BLE001 - keep restoring, re-raise below
                errors.append(e)
            n = Patcher.active.get(desc, 1) - 1
            if n:
                Patcher.active[desc] = n
            else:
                Patcher.active.pop(desc, None)
        if errors:
            raise errors[0]


# ---------------------------------------------------------------------------------------------
# Typed accessors.  Each returns a torch object or plain data; callers never import torch
# internals themselves.


def register_bytecode_hook(hook: Callable[[types.CodeType, types.CodeType], Any]) -> Any:
    """Register a Dynamo bytecode hook; returns a handle with ``remove()``."""
    return _resolve("torch._dynamo.convert_frame", "register_bytecode_hook")(hook)


def cache_entries(code: types.CodeType) -> list[Any]:
    """Dynamo's cache entries on ``code`` (most recently used first)."""
    fn = _resolve("torch._dynamo.eval_frame", "_debug_get_cache_entry_list")
    return list(fn(code))


def innermost_fn(fn: Any) -> Any:
    """Unwrap ``torch.compile`` wrappers down to the user's function."""
    return _resolve("torch._dynamo.eval_frame", "innermost_fn")(fn)


def compiled_original_codes() -> list[types.CodeType]:
    """Original code objects Dynamo has transformed in this process (alive ones)."""
    ocm = _resolve("torch._dynamo.utils", "orig_code_map")
    seen: dict[int, types.CodeType] = {}
    for code in list(getattr(ocm, "values", {}).values()):
        if isinstance(code, types.CodeType):
            seen[id(code)] = code
    return list(seen.values())


def compilation_metrics() -> list[Any]:
    """Dynamo's per-frame CompilationMetrics records (recent ones)."""
    try:
        return list(_resolve("torch._dynamo.utils", "get_compilation_metrics")())
    except Exception:  # noqa: BLE001 - metrics are best-effort
        return []


def current_compile_id() -> str | None:
    """The compile id (``"frame/attempt"``) being compiled now, if any."""
    try:
        cid = _resolve("torch._guards", "CompileContext.current_compile_id")()
    except Exception:  # noqa: BLE001
        return None
    return None if cid is None else str(cid)


def current_backend_name() -> str | None:
    """The name of the backend Dynamo is compiling the current frame for (``"aot_eager"``,
    ``"inductor"``, a custom function's name), if known."""
    try:
        tx = _resolve("torch._dynamo.symbolic_convert", "InstructionTranslator.current_tx")()
        fn = tx.output.compiler_fn
    except Exception:  # noqa: BLE001
        return None
    for attr in ("compiler_name", "__name__"):
        name = getattr(fn, attr, None)
        if isinstance(name, str):
            return name
    return None


def guard_code_parts(cache_entry: Any) -> list[str]:
    """The guard expressions (Dynamo's ``code_parts``) of one cache entry."""
    gm = getattr(cache_entry, "guard_manager", None)
    parts = list(getattr(gm, "code_parts", None) or [])
    if not parts and gm is not None and hasattr(gm, "populate_code_parts_for_debugging"):
        try:
            gm.populate_code_parts_for_debugging()
            parts = list(gm.code_parts)
        except Exception:  # noqa: BLE001
            parts = []
    return [str(p) for p in parts]


def compile_frame_globals() -> dict[str, Any] | None:
    """The ``f_globals`` of the frame Dynamo is converting (found on the call stack), if any."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name in ("_compile_inner", "_compile") and code.co_filename.endswith(
            "convert_frame.py"
        ):
            g = frame.f_locals.get("globals")
            if isinstance(g, dict):
                return g
        frame = frame.f_back
    return None


def exec_with_source_owner() -> tuple[Any, str]:
    """(module, attribute) of FX's ``_exec_with_source``."""
    return importlib.import_module("torch.fx.graph_module"), "_exec_with_source"


def dynamo_module() -> Any:
    """``torch._dynamo`` (whose ``reset`` users call)."""
    return importlib.import_module("torch._dynamo")


def py_code_cache() -> Any:
    """Inductor's ``PyCodeCache`` class."""
    return _resolve("torch._inductor.codecache", "PyCodeCache")


def lazy_format_graph_code() -> types.FunctionType:
    """The function every stage calls with each graph module it produces."""
    return _resolve("torch._dynamo.utils", "lazy_format_graph_code")


def instruction_translator_class() -> Any:
    """The class whose ``log_graph_break`` is called at every graph break."""
    return _resolve("torch._dynamo.symbolic_convert", "InstructionTranslatorBase")


def bytecode_logger() -> Any:
    """The artifact logger behind ``TORCH_LOGS=+bytecode``."""
    return _resolve("torch._dynamo.convert_frame", "bytecode_log")


def current_aot_id() -> int | None:
    """The id of the AOTAutograd compilation whose graph is being compiled now (None if
    unknown): AOTAutograd names it ``<aot_id>_<forward|backward|...>`` while it runs."""
    try:
        import torch._guards

        ctx = torch._guards.TracingContext.try_get()
        names = getattr(ctx, "aot_graph_name", None) if ctx is not None else None
        if not names:
            from torch._functorch._aot_autograd import logging_utils

            names = logging_utils.graph_being_compiled
        head = str(names[0]).split("_", 1)[0] if names else ""
        return int(head) if head.isdigit() else None
    except Exception:  # noqa: BLE001
        return None


def inductor_graph_is_backward() -> bool | None:
    """Whether Inductor is lowering a backward graph now (None if unknown)."""
    try:
        from torch._inductor.virtualized import V

        return bool(V.graph.is_backward)
    except Exception:  # noqa: BLE001
        return None


# Compile caches that, on a hit, skip the stages whose graphs pellucid dumps (AOTAutograd's
# graphs, Inductor's lowering).  prepare_debug turns them off for its block: a dump wants
# every stage; results are the same either way.
COMPILE_CACHES: tuple[tuple[str, str], ...] = tuple(
    (i.module, i.path) for i in TORCH_INTERNALS if i.used_by == "adapter.disable_compile_caches"
)


def disable_compile_caches(patcher: Patcher) -> None:
    """Turn off the caches in ``COMPILE_CACHES`` until ``patcher`` restores them."""
    for module, attr in COMPILE_CACHES:
        try:
            owner = importlib.import_module(module)
            getattr(owner, attr)
        except (ImportError, AttributeError):
            continue
        patcher.setattr(owner, attr, False)


def run_cached_reporting_misses(
    patcher: Patcher, on_miss: Callable[[types.CodeType, list[str]], None]
) -> None:
    """Until ``patcher`` restores it, compiled functions run only the code already compiled
    for them, as under ``set_stance("eager_on_recompile")``, and a call that no cache entry's
    guards admit runs eagerly after ``on_miss(code, guard failure reasons)``.

    That stance runs such a call eagerly without a word; a debugger's breakpoints in the
    dumped files then never stop it, and nothing says why.  Built like torch's own
    ``fail_on_recompile`` stance (a frame callback called on cache misses only), reporting
    instead of raising; frames never compiled run eagerly and stay compilable."""
    eval_frame = importlib.import_module("torch._dynamo.eval_frame")
    innermost_backend = eval_frame.innermost_backend
    convert_return = _resolve("torch._dynamo.types", "ConvertFrameReturn")
    reasons_of = _resolve("torch._dynamo.guards", "get_and_maybe_log_recompilation_reasons")
    original = eval_frame._callback_from_stance

    def callback_from_stance(callback: Any) -> Any:
        if callback in (False, None):
            return original(callback)

        def run_cached(frame: Any, *args: Any, **kwargs: Any) -> Any:
            cached = cache_entries(frame.f_code)
            if cached:  # compiled before: this call would recompile
                try:
                    reasons = list(reasons_of(cached, frame, innermost_backend(callback), skip_logging=True))
                except Exception:  # noqa: BLE001 - the reasons are a courtesy
                    reasons = []
                on_miss(frame.f_code, reasons)
            # run this call eagerly; the code stays compilable (not marked to skip)
            return convert_return(apply_to_code=False)

        run_cached._torchdynamo_orig_backend = callback  # type: ignore[attr-defined]
        return run_cached

    patcher.setattr(eval_frame, "_callback_from_stance", callback_from_stance)


def is_fx_graph_module(obj: Any) -> bool:
    """``isinstance(obj, torch.fx.GraphModule)``."""
    try:
        import torch.fx

        return isinstance(obj, torch.fx.GraphModule)
    except Exception:  # noqa: BLE001
        return False


def graph_submodules(gm: Any) -> list[tuple[str, Any]]:
    """(attribute, GraphModule) of ``gm``'s direct children that are graphs themselves: the
    bodies higher-order ops call (``torch.cond`` branches, checkpointed regions, ...)."""
    children = getattr(gm, "named_children", None)
    if children is None:
        return []
    return [(name, m) for name, m in children() if is_fx_graph_module(m)]


def recompiling_graph_module() -> Any:
    """The GraphModule whose ``recompile()`` is on the call stack (FX codegen -> exec), if any."""
    import sys

    frame = sys._getframe(1)
    for _ in range(12):
        if frame is None:
            break
        if frame.f_code.co_name in ("recompile", "real_recompile"):
            obj = frame.f_locals.get("self")
            if is_fx_graph_module(obj):
                return obj
        frame = frame.f_back
    return None


def waits_for_recompile(gm: Any) -> bool:
    """Whether ``gm`` is a lazy graph module whose code is made again at its next call
    (``_LazyGraphModule``: ``recompile()`` only marks it; the first call does the work)."""
    needs = getattr(type(gm), "_needs_recompile", None)
    try:
        return bool(needs()) if needs is not None else False
    except Exception:  # noqa: BLE001
        return False


def graph_module_source(
    gm: Any, recompile: bool = True, verbose: bool = True
) -> tuple[str, dict[str, Any]]:
    """(forward source, verbose: with shape/dtype annotations; its exec globals) of a GraphModule."""
    if recompile and hasattr(gm, "real_recompile"):
        # LazyGraphModule: make ``forward`` real before we replace it.
        try:
            gm.real_recompile()
        except Exception:  # noqa: BLE001
            pass
    python_code = gm._graph.python_code(root_module="self", verbose=verbose)
    return python_code.src, dict(python_code.globals)


# Dynamo's skip-file regex without and with pellucid's package, the last pair made (building
# one costs ~0.25 ms)
_skip_res: tuple[Any, Any] = (None, None)


def skip_own_frames(patcher: Patcher) -> None:
    """Until ``patcher`` restores it, Dynamo never compiles a frame of pellucid's own code.

    pellucid's hooks run inside torch, sometimes with Dynamo's frame callback on: compiled
    autograd logs its graph through ``lazy_format_graph_code``, whose code is pellucid's
    trampoline then.  Torch's own files are on Dynamo's skip list; pellucid's package joins it,
    or Dynamo would trace the hooks as user code (and dump them)."""
    rules = importlib.import_module("torch._dynamo.trace_rules")
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    skip_dirs = rules.SKIP_DIRS
    without = rules.SKIP_DIRS_RE
    skip_dirs.append(package)
    global _skip_res
    if _skip_res[0] is without:
        rules.SKIP_DIRS_RE = _skip_res[1]
    else:
        rules._recompile_re()
        _skip_res = (without, rules.SKIP_DIRS_RE)
    with_pellucid = rules.SKIP_DIRS_RE

    def undo() -> None:
        if package in skip_dirs:
            skip_dirs.remove(package)
        if rules.SKIP_DIRS_RE is with_pellucid:
            rules.SKIP_DIRS_RE = without
        else:  # torch added a skip directory meanwhile: its regex is made again
            rules._recompile_re()

    patcher.call_on_restore("torch._dynamo.trace_rules.SKIP_DIRS[pellucid]", undo)


def annotate_codegen(patcher: Patcher, wanted: Callable[[Any], bool]) -> None:
    """Until ``patcher`` restores it, FX generates the annotated (``verbose``: shapes, dtypes,
    source lines) code for graphs ``wanted(graph)`` says yes to, and for Dynamo's own graphs,
    in every recompile, torch's own included: the readable code is made once, as the code that
    runs, not again beside it.

    Annotated code is remembered per graph while the graph stays as it was: Dynamo generates
    its graph's code once for a pass (``insert_deferred_runtime_asserts``) and the dump needs the
    same code again moments later, usually for an unchanged graph (a third of a small graph's
    dump time went to generating it twice)."""
    graph_cls = _resolve("torch.fx.graph", "Graph")
    plain = graph_cls.__dict__["python_code"]
    # graph -> [(request, graph state, code)], the last few requests (torch asks for the
    # annotated code of one graph in more than one form: e.g. print_readable for its trace)
    made: weakref.WeakKeyDictionary[Any, list[tuple[tuple[Any, ...], list[Any], Any]]] = (
        weakref.WeakKeyDictionary()
    )
    # (torch's recompile spells out some defaults, e.g. record_func=False; other callers don't)
    defaults = _keyword_defaults(plain)

    def python_code(self: Any, root_module: str, *args: Any, **kwargs: Any) -> Any:
        if "verbose" not in kwargs and (wanted(self) or _traced_by_dynamo(self)):
            kwargs["verbose"] = True
        if not kwargs.get("verbose"):
            return plain(self, root_module, *args, **kwargs)
        asked = sorted((k, v) for k, v in kwargs.items() if k not in defaults or defaults[k] != v)
        key = (root_module, args, tuple(asked))
        state = _graph_state(self)
        entries = made.setdefault(self, [])
        for asked_before, state_then, code in entries:
            if asked_before == key and _same_objects(state_then, state):
                return code
        code = plain(self, root_module, *args, **kwargs)
        entries[:] = [e for e in entries[-3:] if e[0] != key] + [(key, state, code)]
        return code

    patcher.setattr(graph_cls, "python_code", python_code, raw=True)


# function -> its keyword defaults (inspect.signature is slow; every prepare_debug block asks)
_defaults_of: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _keyword_defaults(fn: Any) -> dict[str, Any]:
    known = _defaults_of.get(fn)
    if known is None:
        known = _defaults_of[fn] = {
            k: p.default
            for k, p in inspect.signature(inspect.unwrap(fn)).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
    return known


def _traced_by_dynamo(graph: Any) -> bool:
    """Is ``graph`` Dynamo's (its nodes carry Dynamo's ``example_value``), not AOTAutograd's?"""
    first = next(iter(graph.nodes), None)
    return first is not None and "example_value" in first.meta


def _graph_state(graph: Any) -> list[Any]:
    """Everything FX's codegen reads from ``graph``, as the objects themselves: compared by
    identity, so any pass that changes a node (FX replaces, never mutates, a node's arguments)
    or its annotations makes the state differ."""
    state: list[Any] = [graph._codegen]
    for n in graph.nodes:
        meta = n.meta
        state += (
            n, n.name, n.op, n.target, n.args, n.kwargs, n.type,
            meta.get("val"), meta.get("example_value"), meta.get("tensor_meta"),
            meta.get("stack_trace"),
        )
    return state


def _same_objects(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


def iter_code_constants(code: types.CodeType) -> Iterator[types.CodeType]:
    """Every code object nested in ``code`` (depth first), not including ``code`` itself."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c
            yield from iter_code_constants(c)


# ---------------------------------------------------------------------------------------------
# A frame's code given to Dynamo after its guards are built.
#
# Dynamo (torch 2.13, ``convert_frame._compile``) calls the bytecode hooks, then builds the
# frame's guards (tens of milliseconds: it times one guard run after flushing the CPU cache),
# then hands ``GuardedCode(code, ...)`` to its cache through ``wrap_guarded_code``.  A hook that
# returns nothing and lets another process make the file meanwhile gives the code at that last
# step, with the bookkeeping Dynamo gives a hook's code.


def can_adopt_code() -> bool:
    """Can a frame's code be given at ``wrap_guarded_code`` (see :func:`adopt_code`)?"""
    try:
        for module, path in ADOPTION_INTERNALS:
            _resolve(module, path)
        config = importlib.import_module("torch._dynamo.config")
    except Exception:  # noqa: BLE001 - an older or newer torch: files are made in the hook
        return False
    # (compile caching records the hook's code in its package before the guards are built)
    return not getattr(config, "caching_precompile", False)


def has_breakpoint_marker(code: types.CodeType) -> bool:
    """Does Dynamo register ``code`` with its bytecode debugger (in the hook step)?"""
    try:
        marker = importlib.import_module("torch._dynamo.bytecode_debugger").BREAKPOINT_MARKER
    except Exception:  # noqa: BLE001 - no such debugger: nothing is registered
        return False
    return marker in code.co_consts


def patch_guarded_code(patcher: Patcher, on_guarded_code: Callable[[Any], None]) -> None:
    """Call ``on_guarded_code(guarded_code)`` as Dynamo hands each compiled frame to its cache."""
    cf = importlib.import_module("torch._dynamo.convert_frame")
    wrap = cf.wrap_guarded_code

    def wrap_guarded_code(guarded_code: Any) -> Any:
        on_guarded_code(guarded_code)
        return wrap(guarded_code)

    patcher.setattr(cf, "wrap_guarded_code", wrap_guarded_code)


# id(adopted code) -> (a weak reference to it, Dynamo's code it stands in for)
_adopted: dict[int, tuple[Any, types.CodeType]] = {}


def adopt_code(guarded_code: Any, code: types.CodeType, original: types.CodeType) -> None:
    """Make ``code`` what Dynamo caches and runs for ``guarded_code``'s frame (whose code is
    Dynamo's), as if the bytecode hook had returned it: its code context, its original in
    ``orig_code_map`` (guard failures are reported by it), and a place among Dynamo's outputs.
    Dynamo's code lives as long as ``code``: its clean-ups (which delete the globals its
    compiled graphs are bound to) run when the code that replaced it goes, not before."""
    cf = importlib.import_module("torch._dynamo.convert_frame")
    utils = importlib.import_module("torch._dynamo.utils")
    dynamo_code = guarded_code.code
    cf._copy_code_context(dynamo_code, code)
    utils.orig_code_map[code] = original
    cf.output_codes.add(code)
    key = id(code)
    _adopted[key] = (weakref.ref(code, lambda _, key=key: _adopted.pop(key, None)), dynamo_code)
    guarded_code.code = code
