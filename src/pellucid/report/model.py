"""Load a dump directory's ``index.json`` into a small, linked model for the report.

The index (``docs/dump-index.md``) is read defensively: every field may be missing or ``null``
and unknown fields are ignored, so a report can be built from a dump of an older or newer
pellucid.  The model links what the index keeps apart: compiles to their function, graphs and
graph breaks; graph breaks to the resume frames that continue after them; recompilations to the
guard that failed and to the user's source line that caused it.

Nothing here renders HTML; :mod:`pellucid.report.pages` does.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

INDEX_NAME = "index.json"
RUN_NAME = "pellucid_run.json"
RESUME_PREFIX = "torch_dynamo_resume_in_"
STAGE_ORDER = [
    "captured_graph",
    "aot_joint_graph",
    "aot_forward_graph",
    "aot_backward_graph",
    "inductor_forward",
    "inductor_backward",
]
TIME_KEYS = ["entire_frame", "dynamo_before_restart", "backend", "inductor", "code_gen"]
TIME_LABELS = {
    "entire_frame": "frame",
    "dynamo_before_restart": "before restart",
    "backend": "backend",
    "inductor": "inductor",
    "code_gen": "code gen",
    "pellucid_hook": "pellucid",
}

_RESUME_NAME = re.compile(r"^torch_dynamo_resume_in_(?P<parent>.+)_at_(?P<line>\d+)$")
_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_COMMENT_LOC = re.compile(r"#\s*(?P<file>[^\s#:]+\.pyw?):(?P<line>\d+)\b")
_LOCAL_NAME = re.compile(
    r"""L\[['"](?P<name>[A-Za-z_][A-Za-z0-9_]*)['"]\]|tensor '(?P<t>[A-Za-z_][A-Za-z0-9_]*)'"""
)


_GUARD_HINTS = [
    (
        r"size mismatch|stride mismatch",
        "A tensor came with a new shape. Dynamo compiles again (the second time it usually makes "
        "the changed dimension dynamic); torch._dynamo.mark_dynamic(x, dim) or "
        "torch.compile(dynamic=True) compiles once for all sizes.",
    ),
    (
        r"dtype mismatch|device mismatch|requires_grad mismatch|dispatch key set mismatch",
        "A tensor's dtype, device or requires_grad changed: each combination is compiled separately.",
    ),
    (
        r"___check_obj_id|id mismatch|ID_MATCH",
        "A different object (module, function, ...) was used where Dynamo saw another one.",
    ),
    (r"___check_type_id|type mismatch|TYPE_MATCH", "A value of another type was passed."),
    (r"len\(", "A list, tuple or dict changed its length."),
    (
        r"global_state|grad_mode|autocast",
        "Global state (grad mode, autocast, ...) differed from the call that compiled this frame.",
    ),
    (
        r"== ",
        "Dynamo treated a Python value as a constant and a call brought another value: every new "
        "value compiles again. Pass it as a tensor, or keep it constant.",
    ),
]


class DumpError(Exception):
    """The directory holds no readable pellucid index."""


def _s(value: Any, default: str = "") -> str:
    return default if value is None else str(value)


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def compile_sort_key(compile_id: str | None) -> tuple[int, ...]:
    """Order compile ids ``"<frame>/<attempt>"`` numerically; unknown ids last."""
    nums = re.findall(r"\d+", compile_id or "")
    return tuple(int(n) for n in nums) if nums else (1 << 30,)


def resume_parent(name: str) -> tuple[str, int] | None:
    """``torch_dynamo_resume_in_f_at_12`` -> ``("f", 12)``; None for other names."""
    m = _RESUME_NAME.match(name)
    if not m:
        return None
    return m.group("parent"), int(m.group("line"))


@dataclass
class SourceLoc:
    """A user's file and line (the line's text when the file can be read)."""

    filename: str
    lineno: int | None
    text: str | None = None


@dataclass
class Graph:
    name: str
    compile_id: str | None
    stages: dict[str, str]  # stage -> relative file
    aot_id: int | None
    raw: dict[str, Any]

    def ordered_stages(self) -> list[tuple[str, str]]:
        """Pipeline order; a stage's subgraphs (``<stage>.<attribute>``: bodies of
        higher-order ops) right after it; stages of other names last."""

        def key(stage: str) -> tuple[int, int, str]:
            base, part = split_part(stage.split(".", 1)[0])
            rank = STAGE_ORDER.index(base) if base in STAGE_ORDER else len(STAGE_ORDER)
            return part, rank, stage

        return [(s, self.stages[s]) for s in sorted(self.stages, key=key)]


def split_part(stage: str) -> tuple[str, int]:
    """``aot_forward_graph_part2`` -> (``aot_forward_graph``, 2): the stages of part k > 0 of
    a graph a backend split and compiled part by part (DDP's DDPOptimizer)."""
    m = re.fullmatch(r"(.+)_part(\d+)", stage)
    return (m.group(1), int(m.group(2))) if m else (stage, 0)


class _DynamoReason:
    """Reading Dynamo's multi-line message (``reason``): its kind, explanation and hints."""

    reason: str

    def _lines(self) -> list[str]:
        return [ln.strip() for ln in self.reason.strip().splitlines() if ln.strip()]

    @property
    def kind(self) -> str:
        """Dynamo's name for the break (the line after "Encountered graph break ..." if any)."""
        lines = self._lines()
        for ln in lines:
            if not ln.startswith("Encountered graph break when attempting to trace"):
                return ln.rstrip(":")
        return lines[0].rstrip(":") if lines else "graph break"

    @property
    def explanation(self) -> str | None:
        for ln in self._lines():
            if ln.startswith("Explanation:"):
                return ln[len("Explanation:") :].strip()
        return None

    @property
    def hints(self) -> list[str]:
        return [ln[len("Hint:") :].strip() for ln in self._lines() if ln.startswith("Hint:")]


@dataclass
class GraphBreak(_DynamoReason):
    number: int  # 1-based, in the order they happened
    compile_id: str | None
    function: str
    reason: str
    loc: SourceLoc
    user_stack: list[SourceLoc]
    resumed_by: list[str] = field(default_factory=list)  # compile ids of the resume frames


@dataclass
class FrameNotCompiled(_DynamoReason):
    """A frame Dynamo gave up on: it ran eagerly (or, with ``fullgraph=True``, raised)."""

    number: int  # 1-based
    compile_id: str | None
    function: str
    error: str  # the exception's type name
    reason: str
    loc: SourceLoc  # the user's line Dynamo was tracing (or the def line)


@dataclass
class CacheEntry:
    index: int
    compile_id: str | None
    guard_file: str | None
    guard_function: str | None
    guards: list[dict[str, Any]]
    failed_guards: list[str]
    recompile_reason: str | None
    transformed_code_file: str | None
    executed_from_file: bool
    graphs: list[str]
    resume_functions: list[str]


@dataclass
class Compile:
    compile_id: str | None
    function_key: str
    transformed_code_file: str | None
    transformed_function: str | None
    executed_from_file: bool
    failure: str | None
    graph_names: list[str]
    resume_functions: list[str]
    bytecode_files: dict[str, str]
    recompile_reason: str | None
    times: dict[str, float | None]
    # "equivalent" or "not-verified: <reason>" (None in dumps older than the validator)
    verification: str | None = None
    # resume function global -> the key of the function it is (which resume function, when
    # two graph breaks on one line make two with one name)
    resume_function_keys: dict[str, str] = field(default_factory=dict)
    # "compiled", "failed" (Dynamo gave up: no cache entry), "no_code" (nothing to compile)
    outcome: str = "compiled"
    function: Function | None = None
    graphs: list[Graph] = field(default_factory=list)
    breaks: list[GraphBreak] = field(default_factory=list)
    cache_entry: CacheEntry | None = None
    resumed_from: GraphBreak | None = None
    recompile: Recompile | None = None

    @property
    def frame(self) -> str:
        return (self.compile_id or "?/?").split("/")[0]

    @property
    def attempt(self) -> int:
        parts = (self.compile_id or "").split("/")
        return _int(parts[1]) or 0 if len(parts) > 1 else 0

    @property
    def total_time(self) -> float | None:
        t = self.times.get("entire_frame")
        return t if isinstance(t, (int, float)) else None


@dataclass
class Recompile:
    """A frame compiled again because the guards of its earlier cache entries failed."""

    number: int
    compile: Compile
    reason: str  # Dynamo's text
    failed_guards: list[str]  # one line per failed guard, "<compile id>: <why>"
    loc: SourceLoc  # the source line that caused it
    variable: str | None  # the local the failed guard checks (L['x'] -> x), when known

    @property
    def summary(self) -> str:
        lines = [ln.strip() for ln in self.reason.splitlines() if ln.strip()]
        return lines[0] if lines else "recompiled"

    @property
    def hint(self) -> str | None:
        """What this kind of failed guard usually means, in plain words (None if unknown)."""
        text = " ".join(self.failed_guards) or self.reason
        for pattern, hint in _GUARD_HINTS:
            if re.search(pattern, text):
                return hint
        return None


@dataclass
class Function:
    key: str
    name: str
    filename: str
    firstlineno: int | None
    kind: str  # "user" or "resume"
    compiled_before: bool
    full_code_file: str | None
    cache_entries: list[CacheEntry]
    compiles: list[Compile] = field(default_factory=list)
    parent: Function | None = None
    children: list[Function] = field(default_factory=list)
    page: str = ""  # file name of the page that shows it (set by the renderer)

    @property
    def root(self) -> Function:
        fn = self
        seen = set()
        while fn.parent is not None and id(fn) not in seen:
            seen.add(id(fn))
            fn = fn.parent
        return fn

    def family(self) -> list[Function]:
        """This function and every resume function under it, depth first."""
        out = [self]
        for c in self.children:
            out.extend(c.family())
        return out


@dataclass
class Session:
    number: int  # 0-based position in the index
    raw: dict[str, Any]
    functions: list[Function]
    compiles: list[Compile]
    graphs: dict[str, Graph]
    breaks: list[GraphBreak]
    recompiles: list[Recompile]
    failures: list[dict[str, Any]]
    messages: list[str]
    files: list[dict[str, Any]]
    not_compiled: list[FrameNotCompiled] = field(default_factory=list)

    @property
    def id(self) -> str:
        return _s(self.raw.get("id"), str(self.number))

    @property
    def argv(self) -> list[str]:
        return [str(a) for a in _list(self.raw.get("argv"))]

    def roots(self) -> list[Function]:
        return [f for f in self.functions if f.parent is None]

    def function(self, key: str) -> Function | None:
        for f in self.functions:
            if f.key == key:
                return f
        return None


@dataclass
class Dump:
    path: str
    raw: dict[str, Any]
    sessions: list[Session]
    run: dict[str, Any] | None  # pellucid_run.json written by `pellucid run`, if any
    problems: list[str]  # what could not be read (shown in the report)

    def inside(self, rel: str | None) -> str | None:
        """The absolute path of ``rel`` if it names a file inside the dump directory."""
        if not rel:
            return None
        full = os.path.realpath(os.path.join(self.path, rel))
        root = os.path.realpath(self.path)
        if not full.startswith(root + os.sep) or not os.path.isfile(full):
            return None
        return full

    def file_exists(self, rel: str | None) -> bool:
        return self.inside(rel) is not None

    def read(self, rel: str | None) -> str | None:
        full = self.inside(rel)
        if full is None:
            return None
        try:
            with open(full, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return None


# ---------------------------------------------------------------------------------------------
# user source


class SourceCache:
    """The user's files, read once (tolerating missing or undecodable files)."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}
        self._spans: dict[tuple[str, int | None], tuple[int, int] | None] = {}
        self._trees: dict[str, Any] = {}

    def lines(self, filename: str) -> list[str] | None:
        if filename not in self._lines:
            self._lines[filename] = self._read(filename)
        return self._lines[filename]

    @staticmethod
    def _read(filename: str) -> list[str] | None:
        if filename and not os.path.isfile(filename):
            # A notebook cell (ipykernel's /tmp/ipykernel_<pid>/<n>.py, IPython's
            # <ipython-input-...>) has no file: its lines are in linecache while the kernel
            # that ran it builds the report.
            import linecache

            cached = linecache.getlines(filename)
            return [line.rstrip("\n") for line in cached] if cached else None
        if not filename:
            return None
        try:
            import tokenize

            with tokenize.open(filename) as f:
                return f.read().splitlines()
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            try:
                with open(filename, encoding="utf-8", errors="replace") as f:
                    return f.read().splitlines()
            except OSError:
                return None

    def line(self, filename: str, lineno: int | None) -> str | None:
        lines = self.lines(filename)
        if lines is None or not lineno or not 1 <= lineno <= len(lines):
            return None
        return lines[lineno - 1]

    def function_span(self, filename: str, firstlineno: int | None) -> tuple[int, int] | None:
        """(first, last) line of the def/lambda/class starting at ``firstlineno``."""
        key = (filename, firstlineno)
        if key not in self._spans:
            self._spans[key] = self._function_span(filename, firstlineno)
        return self._spans[key]

    def _tree(self, filename: str) -> Any:
        if filename not in self._trees:
            import ast

            try:
                self._trees[filename] = ast.parse("\n".join(self.lines(filename) or []) + "\n")
            except (SyntaxError, ValueError):
                self._trees[filename] = None
        return self._trees[filename]

    def _function_span(self, filename: str, firstlineno: int | None) -> tuple[int, int] | None:
        lines = self.lines(filename)
        if lines is None or not firstlineno or not 1 <= firstlineno <= len(lines):
            return None
        import ast

        tree = self._tree(filename)
        if tree is None:
            return (firstlineno, min(len(lines), firstlineno + 30))
        best: tuple[int, int] | None = None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if start == firstlineno or node.lineno == firstlineno:
                    end = getattr(node, "end_lineno", None) or node.lineno
                    if best is None or end - start < best[1] - best[0]:
                        best = (start, end)
        if best is None:
            # module code, a lambda or a resume function: a window around the line
            return (firstlineno, min(len(lines), firstlineno + 30))
        return best


# ---------------------------------------------------------------------------------------------
# loading


def _loc(filename: Any, lineno: Any, sources: SourceCache) -> SourceLoc:
    fn = _s(filename)
    ln = _int(lineno)
    return SourceLoc(fn, ln, sources.line(fn, ln))


def _cache_entry(raw: dict[str, Any]) -> CacheEntry:
    return CacheEntry(
        index=_int(raw.get("index")) or 0,
        compile_id=raw.get("compile_id"),
        guard_file=raw.get("guard_file"),
        guard_function=raw.get("guard_function"),
        guards=[g for g in _list(raw.get("guards")) if isinstance(g, dict)],
        failed_guards=[str(x) for x in _list(raw.get("failed_guards"))],
        recompile_reason=raw.get("recompile_reason"),
        transformed_code_file=raw.get("transformed_code_file"),
        executed_from_file=bool(raw.get("executed_from_file")),
        graphs=[str(x) for x in _list(raw.get("graphs"))],
        resume_functions=[str(x) for x in _list(raw.get("resume_functions"))],
    )


def _function(raw: dict[str, Any]) -> Function:
    name = _s(raw.get("name"), "?")
    filename = _s(raw.get("filename"))
    first = _int(raw.get("firstlineno"))
    kind = _s(raw.get("kind")) or ("resume" if name.startswith(RESUME_PREFIX) else "user")
    return Function(
        key=_s(raw.get("key"), f"{name}@{filename}:{first}"),
        name=name,
        filename=filename,
        firstlineno=first,
        kind=kind,
        compiled_before=bool(raw.get("compiled_before_prepare_debug")),
        full_code_file=raw.get("full_code_file"),
        cache_entries=[
            _cache_entry(c) for c in _list(raw.get("cache_entries")) if isinstance(c, dict)
        ],
    )


def _compile(raw: dict[str, Any]) -> Compile:
    times = {
        k: v
        for k, v in _dict(raw.get("times_s")).items()
        if isinstance(v, (int, float)) or v is None
    }
    return Compile(
        compile_id=raw.get("compile_id"),
        function_key=_s(raw.get("function")),
        transformed_code_file=raw.get("transformed_code_file"),
        transformed_function=raw.get("transformed_function"),
        executed_from_file=bool(raw.get("executed_from_file")),
        failure=raw.get("failure"),
        graph_names=[str(x) for x in _list(raw.get("graphs"))],
        resume_functions=[str(x) for x in _list(raw.get("resume_functions"))],
        bytecode_files={str(k): str(v) for k, v in _dict(raw.get("bytecode_files")).items()},
        recompile_reason=raw.get("recompile_reason"),
        times=times,
        verification=raw.get("verification") if isinstance(raw.get("verification"), str) else None,
        resume_function_keys={
            str(k): str(v) for k, v in _dict(raw.get("resume_function_keys")).items() if v
        },
        outcome=_s(raw.get("outcome"), "compiled"),
    )


def recompile_location(
    reason: str, fn: Function | None, sources: SourceCache
) -> tuple[SourceLoc, str | None]:
    """The source line a recompilation points at, and the local its failed guard checks.

    Dynamo's reason names a user stack (``File "f.py", line 12``) or a ``# f.py:12`` comment for
    guards installed on a line; otherwise it names a local (``L['x']``, ``tensor 'x'``) and the
    line is the one in the function's signature that declares it (or the ``def`` line).
    """
    var = None
    m = _LOCAL_NAME.search(reason)
    if m:
        var = m.group("name") or m.group("t")
    files = list(_FILE_LINE.finditer(reason))
    if files:
        last = files[-1]
        return _loc(last.group("file"), last.group("line"), sources), var
    comment = _COMMENT_LOC.search(reason)
    if comment and fn is not None:
        rel = comment.group("file")
        filename = fn.filename
        if not filename.replace(os.sep, "/").endswith(rel.replace(os.sep, "/")):
            filename = rel
        return _loc(filename, comment.group("line"), sources), var
    if fn is None:
        return SourceLoc("", None), var
    span = sources.function_span(fn.filename, fn.firstlineno)
    lineno = fn.firstlineno
    if var and span is not None:
        pattern = re.compile(rf"\b{re.escape(var)}\b")
        for ln in range(span[0], min(span[1], span[0] + 20) + 1):
            text = sources.line(fn.filename, ln) or ""
            if pattern.search(text.split("#")[0]):
                lineno = ln
                break
            if text.rstrip().endswith(":") and ln > span[0] and "def " not in text:
                break
    return _loc(fn.filename, lineno, sources), var


def _link(session_raw: dict[str, Any], number: int, sources: SourceCache) -> Session:
    functions = [_function(f) for f in _list(session_raw.get("functions")) if isinstance(f, dict)]
    by_key: dict[str, Function] = {}
    for f in functions:
        by_key.setdefault(f.key, f)
    compiles = [
        _compile(c)
        for c in [*_list(session_raw.get("compiles")), *_list(session_raw.get("compiles_without_code"))]
        if isinstance(c, dict)
    ]
    graphs: dict[str, Graph] = {}
    for g in _list(session_raw.get("graphs")):
        if isinstance(g, dict) and g.get("name"):
            name = str(g["name"])
            graphs[name] = Graph(
                name,
                g.get("compile_id"),
                {str(k): str(v) for k, v in _dict(g.get("stages")).items() if v},
                _int(g.get("aot_id")),
                g,
            )
    breaks = []
    for i, b in enumerate(x for x in _list(session_raw.get("graph_breaks")) if isinstance(x, dict)):
        stack = [
            _loc(fr.get("filename"), fr.get("lineno"), sources)
            for fr in _list(b.get("user_stack"))
            if isinstance(fr, dict)
        ]
        breaks.append(
            GraphBreak(
                number=i + 1,
                compile_id=b.get("compile_id"),
                function=_s(b.get("function")),
                reason=_s(b.get("reason"), "graph break"),
                loc=_loc(b.get("filename"), b.get("lineno"), sources),
                user_stack=stack,
            )
        )

    not_compiled = []
    for i, x in enumerate(
        y for y in _list(session_raw.get("frames_not_compiled")) if isinstance(y, dict)
    ):
        where = (
            (x.get("user_filename"), x.get("user_lineno"))
            if x.get("user_filename")
            else (x.get("filename"), x.get("firstlineno"))
        )
        not_compiled.append(
            FrameNotCompiled(
                number=i + 1,
                compile_id=x.get("compile_id"),
                function=_s(x.get("function"), "?"),
                error=_s(x.get("error"), "error"),
                reason=_s(x.get("reason"), "compilation failed"),
                loc=_loc(where[0], where[1], sources),
            )
        )

    # functions that only appear in compiles (e.g. two resume functions with one key)
    for c in compiles:
        fn = by_key.get(c.function_key)
        if fn is None and c.function_key:
            name, _, rest = c.function_key.partition("@")
            filename, _, line = rest.rpartition(":")
            fn = Function(
                key=c.function_key,
                name=name,
                filename=filename,
                firstlineno=_int(line.partition("#")[0]),
                kind="resume" if name.startswith(RESUME_PREFIX) else "user",
                compiled_before=False,
                full_code_file=None,
                cache_entries=[],
            )
            functions.append(fn)
            by_key[fn.key] = fn
        c.function = fn
        if fn is not None:
            fn.compiles.append(c)
            for ce in fn.cache_entries:
                if ce.compile_id and ce.compile_id == c.compile_id:
                    c.cache_entry = ce
        c.graphs = [graphs[n] for n in c.graph_names if n in graphs]
        for b in breaks:
            if b.compile_id is not None and b.compile_id == c.compile_id:
                c.breaks.append(b)

    # the compiles whose code calls each resume function (the index names it by its key)
    callers: dict[str, list[Compile]] = {}
    for c in sorted(compiles, key=lambda c: compile_sort_key(c.compile_id)):
        for key in dict.fromkeys(c.resume_function_keys.values()):
            callers.setdefault(key, []).append(c)

    # resume functions under the function whose compile calls them; in an index that does not
    # say, under the function they are named after (same file, the prefix removed)
    for f in functions:
        parsed = resume_parent(f.name)
        if parsed is None:
            continue
        called_by = [x.function for x in callers.get(f.key, []) if x.function not in (None, f)]
        parent_name, _ = parsed
        candidates = [p for p in functions if p.name == parent_name and p is not f]
        same_file = [p for p in candidates if p.filename == f.filename]
        parent = (called_by or same_file or candidates or [None])[0]
        if parent is not None and f not in parent.children and parent.root is not f:
            f.parent = parent
            parent.children.append(f)
    for f in functions:
        f.children.sort(key=lambda c: (c.firstlineno or 0, c.name))
        f.compiles.sort(key=lambda c: compile_sort_key(c.compile_id))

    # graph break -> the resume frames that continue after it
    for c in compiles:
        fn = c.function
        if fn is None or fn.parent is None:
            continue
        parsed = resume_parent(fn.name)
        line = parsed[1] if parsed else fn.firstlineno
        if fn.key in callers:
            # the graph breaks of the compiles whose code calls this resume function
            for pc in callers[fn.key]:
                hits = [b for b in pc.breaks if b.loc.lineno == line] or pc.breaks[-1:]
                for b in hits:
                    if c.compile_id and c.compile_id not in b.resumed_by:
                        b.resumed_by.append(c.compile_id)
                if hits and c.resumed_from is None:
                    c.resumed_from = hits[-1]
            continue
        # Dynamo names a resume function after the original function even when the break
        # happened in another resume frame: look through the whole family, earlier frames first.
        family = [x for x in fn.root.family() if x is not fn]
        for pc in sorted(
            (x for f in family for x in f.compiles), key=lambda x: compile_sort_key(x.compile_id)
        ):
            hits = [
                b for b in pc.breaks if b.loc.lineno == line and b.loc.filename in ("", fn.filename)
            ]
            for b in hits:
                if c.compile_id and c.compile_id not in b.resumed_by:
                    b.resumed_by.append(c.compile_id)
            if hits and c.resumed_from is None:
                c.resumed_from = hits[-1]

    # recompilations: compiles with attempt > 0 or a recompile reason
    recompiles: list[Recompile] = []
    for c in sorted(compiles, key=lambda c: compile_sort_key(c.compile_id)):
        reason = c.recompile_reason or (c.cache_entry.recompile_reason if c.cache_entry else None)
        if not reason and c.attempt == 0:
            continue
        failed: list[str] = []
        if reason:
            failed = [
                ln.strip() for ln in str(reason).splitlines() if re.match(r"^\s*\d+/\d+:", ln)
            ]
        if not failed and c.function is not None:
            prefix = f"{c.frame}/"
            for ce in c.function.cache_entries:
                for line in ce.failed_guards:
                    if ce.compile_id and ce.compile_id.startswith(prefix) and line not in failed:
                        failed.append(line)
        text = str(reason) if reason else "recompiled (Dynamo recorded no reason)"
        loc, var = recompile_location(text, c.function, sources)
        rc = Recompile(len(recompiles) + 1, c, text, failed, loc, var)
        c.recompile = rc
        recompiles.append(rc)

    return Session(
        number=number,
        raw=session_raw,
        functions=functions,
        compiles=compiles,
        graphs=graphs,
        breaks=breaks,
        recompiles=recompiles,
        failures=[f for f in _list(session_raw.get("failures")) if isinstance(f, dict)],
        messages=[str(m) for m in _list(session_raw.get("messages"))],
        files=[f for f in _list(session_raw.get("files")) if isinstance(f, dict)],
        not_compiled=not_compiled,
    )


def load_dump(path: str, sources: SourceCache | None = None) -> Dump:
    """Read ``path/index.json`` (and ``pellucid_run.json`` when present) into a :class:`Dump`.

    Raises :class:`DumpError` when the directory or its index is missing or not a pellucid
    index; anything odd inside a valid index is tolerated and listed in ``Dump.problems``.
    """
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        raise DumpError(f"{path}: no such directory")
    index_path = os.path.join(path, INDEX_NAME)
    problems: list[str] = []
    run = None
    run_path = os.path.join(path, RUN_NAME)
    if os.path.isfile(run_path):
        try:
            with open(run_path, encoding="utf-8") as f:
                loaded = json.load(f)
            run = loaded if isinstance(loaded, dict) else None
        except (OSError, ValueError) as exc:
            problems.append(f"{RUN_NAME}: unreadable ({exc})")
    if not os.path.isfile(index_path):
        if run is None:
            raise DumpError(f"{path}: no {INDEX_NAME} (not a pellucid dump directory?)")
        problems.append(
            f"no {INDEX_NAME}: the program compiled nothing under prepare_debug, "
            "or it was killed before the index was written"
        )
        raw: dict[str, Any] = {"sessions": []}
    else:
        try:
            with open(index_path, encoding="utf-8") as f:
                raw = json.load(f)
        except (OSError, ValueError) as exc:
            raise DumpError(f"{index_path}: not readable JSON ({exc})") from None
        if (
            not isinstance(raw, dict)
            or raw.get("schema", "pellucid-dump-index") != "pellucid-dump-index"
        ):
            raise DumpError(f"{index_path}: not a pellucid dump index")
        version = raw.get("version")
        if isinstance(version, int) and version > 1:
            problems.append(f"index version {version} is newer than this report knows (1)")
    sources = sources or SourceCache()
    sessions = [
        _link(s, i, sources)
        for i, s in enumerate(x for x in _list(raw.get("sessions")) if isinstance(x, dict))
    ]
    return Dump(path, raw, sessions, run, problems)
