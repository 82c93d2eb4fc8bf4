"""Round-trip benchmark: decompile every code object of a fixed stdlib corpus, recompile, compare.

For each CPython version that pyenv has (3.14 and 3.15: the Debian builds scripts/pythons.sh fetches; or
version's interpreter (with ``PYTHONPATH=src``, no install needed) compiles the source of each
module in ``MODULES`` that exists in that version, collects every nested code object, classifies
it by the opcodes it contains, and for each one: decompiles it (``DecompilationError`` counts as
*error*, or as *internal* when it is marked ``.internal``: an exception inside the decompiler,
a bug, listed like a crash), recompiles the result as :func:`pellucid.decompiler.verify.recompile` does (failure:
*no-compile*), and compares normalized bytecode (*exact* or *mismatch*). Any other exception is a
*crash* and is listed: crashes are bugs. Each module's code object is also decompiled whole.

The peer, ``depyf`` (PyPI 0.20.0, in its own venvs ``.venv-depyf`` for 3.11 and
``.venv-depyf-3.X`` for the others, created on first use; it does not need torch), runs on the
same corpus in the same run, checked by the same verify module. A code object that keeps a
decompiler busy for more than ``--function-timeout`` seconds of CPU time counts as a crash.

Usage::

    python benchmarks/roundtrip.py [--versions 3.11,3.12] [--json out.json]
                                   [--show-mismatches N] [--limit N] [--no-depyf]
                                   [--depyf-versions 3.11]

The worker runs under Python 3.9, so this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import collections
import dis
import glob
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # page.py, also when imported

from page import about_from_doc, markdown_page  # noqa: E402
from page import add_option as add_markdown_option  # noqa: E402

# The corpus: pure-Python stdlib modules. Fixed; modules absent in a version are skipped.
MODULES = [
    "argparse",
    "ast",
    "asyncio.base_events",
    "asyncio.locks",
    "asyncio.streams",
    "asyncio.tasks",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "configparser",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "_pydatetime",
    "difflib",
    "dis",
    "email.message",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "getopt",
    "gettext",
    "glob",
    "heapq",
    "html.parser",
    "inspect",
    "ipaddress",
    "json",
    "json.decoder",
    "json.encoder",
    "logging",
    "optparse",
    "pathlib",
    "pickle",
    "pprint",
    "queue",
    "random",
    "shlex",
    "shutil",
    "statistics",
    "string",
    "subprocess",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "tokenize",
    "tomllib._parser",
    "traceback",
    "typing",
    "urllib.parse",
    "uuid",
    "warnings",
    "zipfile",
]

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
DEPYF_VERSION = "0.20.0"
TORCH_REQUIREMENT = "torch==2.13.0"

CLASSES = ["plain", "exception", "with", "generator", "async", "match"]
CLASS_LABELS = {
    "plain": "plain (no exc/with/gen/async/match)",
    "exception": "exception handling",
    "with": "with",
    "generator": "generator",
    "async": "async",
    "match": "match",
    "total": "total",
    "module": "whole modules",
}
OUTCOMES = ["error", "internal", "no-compile", "exact", "mismatch", "crash"]

CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200

_WITH_OPS = {"SETUP_WITH", "BEFORE_WITH", "SETUP_ASYNC_WITH", "BEFORE_ASYNC_WITH"}
_GEN_OPS = {"YIELD_VALUE", "YIELD_FROM", "GEN_START", "RETURN_GENERATOR"}
_ASYNC_OPS = {
    "GET_AWAITABLE",
    "GET_AITER",
    "GET_ANEXT",
    "END_ASYNC_FOR",
    "BEFORE_ASYNC_WITH",
    "SETUP_ASYNC_WITH",
    "ASYNC_GEN_WRAP",
}


# ============================================================================================
# Worker side (runs under the interpreter being measured)


def classify(code: types.CodeType) -> list[str]:
    """Construct classes of one code object, by the opcodes of its own bytecode.

    exception: try/except/finally -- SETUP_FINALLY not belonging to ``async for`` (3.9/3.10),
    or more PUSH_EXC_INFO than with-statement handlers (3.11+; exception-table entries of
    inlined comprehensions, generators and awaits have no PUSH_EXC_INFO). with: SETUP_WITH,
    BEFORE_WITH and async variants. generator: YIELD_VALUE, GEN_START, RETURN_GENERATOR in a
    non-async code object. async: coroutine flags or GET_AWAITABLE/async opcodes. match:
    MATCH_*. plain: none of these.
    """
    raw = code.co_code
    counts = collections.Counter(dis.opname[op] for op in raw[::2])
    ops = set(counts)
    classes = []
    if sys.version_info >= (3, 11):
        exc = counts["PUSH_EXC_INFO"] > counts["WITH_EXCEPT_START"]
    else:
        exc = counts["SETUP_FINALLY"] > counts["END_ASYNC_FOR"]
    if exc:
        classes.append("exception")
    if ops & _WITH_OPS or "WITH_EXCEPT_START" in ops:
        classes.append("with")
    is_async = bool(
        code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE)
        or ops & _ASYNC_OPS
    )
    if not is_async and (code.co_flags & CO_GENERATOR or ops & _GEN_OPS):
        classes.append("generator")
    if is_async:
        classes.append("async")
    if any(name.startswith("MATCH_") for name in ops):
        classes.append("match")
    return classes or ["plain"]


def module_source(name: str) -> tuple[str, str] | None:
    """(path, source) of a stdlib module's file, or None where the module is absent."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    with open(spec.origin, encoding="utf-8") as f:
        return spec.origin, f.read()


# Code objects that are not functions of their own in the source: they are
# decompiled (and verified) as part of the function or module containing them.
_EMBEDDED = {"<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}


def walk_code(code: types.CodeType, prefix: str = ""):
    """Yield (qualname, code) for every function (def) nested in ``code``, depth first.

    Class bodies are covered by the whole-module row; lambdas and comprehensions
    by the function that contains them."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            qualname = getattr(const, "co_qualname", None) or prefix + const.co_name
            if const.co_name not in _EMBEDDED and const.co_flags & 0x3 == 0x3:
                yield qualname, const
            sep = ".<locals>." if const.co_flags & 1 else "."
            yield from walk_code(const, prefix + const.co_name + sep)


def _load_verify():
    """Import the verify module by path so a broken package import cannot hide it."""
    path = os.path.join(SRC, "pellucid", "decompiler", "verify.py")
    spec = importlib.util.spec_from_file_location("_pellucid_verify", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _make_decompiler(tool: str):
    """(decompile(code) -> str, error classes counted as 'error', version string)."""
    if tool == "pellucid":
        import pellucid

        return (
            (lambda code: pellucid.decompile(code, verify=False)),
            (pellucid.DecompilationError,),
            (pellucid.__version__),
        )
    if tool == "depyf":
        import depyf
        from depyf.decompiler import DecompilationError

        version = getattr(depyf, "__version__", DEPYF_VERSION)
        return (lambda code: depyf.decompile(code)), (DecompilationError,), version
    raise ValueError(tool)


class FunctionTimeout(BaseException):
    """Raised by SIGVTALRM inside a decompiler that runs too long on one code object.

    A BaseException so that a decompiler's own ``except Exception`` cannot swallow it."""


def _on_alarm(signum, frame):
    raise FunctionTimeout()


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0][:300] if text else type(exc).__name__


def refusal_kind(exc: BaseException) -> str:
    """The name of a refusal's kind (pellucid's ``DecompilationError.kind``: why it refused),
    "unknown" when it has none."""
    kind = getattr(exc, "kind", None)
    return getattr(kind, "value", None) or "unknown"


def run_one(code, decompile, errors, verify, record, timings, timeout=0.0) -> str:
    """Decompile/recompile/compare one code object; return its outcome, fill ``record``.

    With ``timeout`` (seconds of CPU time, so that a loaded machine does not pass for a hang),
    a decompilation that takes longer is stopped and counted as a crash (a hang is a bug too)."""
    t0 = time.perf_counter()
    try:
        if timeout:
            # keeps firing every 0.5 s after the first: a decompiler's bare ``except`` may
            # swallow one FunctionTimeout, not all of them
            signal.setitimer(signal.ITIMER_VIRTUAL, timeout, 0.5)
        try:
            source = decompile(code)
        finally:
            if timeout:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    except FunctionTimeout:
        timings[0] += time.perf_counter() - t0
        record["detail"] = f"timeout: still decompiling after {timeout:g}s"
        return "crash"
    except errors as exc:
        timings[0] += time.perf_counter() - t0
        record["detail"] = _short(exc)
        if getattr(exc, "internal", False):
            # the decompiler's own exception, wrapped: a bug, listed like a crash
            cause = exc.__cause__ or exc
            tb = traceback.format_exception(type(cause), cause, cause.__traceback__, limit=-6)
            record["traceback"] = "".join(tb)
            return "internal"
        kind = refusal_kind(exc)
        if kind != "unknown":
            record["refusal"] = kind  # (a refusal without a kind is counted "unknown")
        return "error"
    except Exception as exc:  # crash: a bug in the decompiler
        timings[0] += time.perf_counter() - t0
        record["detail"] = _short(exc)
        record["traceback"] = traceback.format_exc(limit=-6)
        return "crash"
    t1 = time.perf_counter()
    timings[0] += t1 - t0
    try:
        try:
            recompiled = verify.recompile(source, code)
        except (SyntaxError, ValueError, LookupError) as exc:
            record["detail"] = _short(exc)
            return "no-compile"
        diffs = verify.differences(code, recompiled)
    except Exception as exc:
        record["detail"] = "verify: " + _short(exc)
        record["traceback"] = traceback.format_exc(limit=-6)
        return "crash"
    finally:
        timings[1] += time.perf_counter() - t1
    if diffs:
        record["detail"] = str(diffs[0])
        record["category"] = diffs[0].category
        return "mismatch"
    return "exact"


def worker(args: argparse.Namespace) -> int:
    """Run the corpus under this interpreter; append one JSON line per module to --out."""
    verify = _load_verify()
    decompile, errors, tool_version = _make_decompiler(args.tool)
    if args.function_timeout:
        signal.signal(signal.SIGVTALRM, _on_alarm)
    out = open(args.out, "a", encoding="utf-8")  # flushed line by line

    def emit(obj) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    sources = []
    if args.corpus:
        # another corpus (benchmarks/thirdparty.py): a JSON list of [module name, file path]
        with open(args.corpus, encoding="utf-8") as f:
            for name, path in json.load(f):
                with open(path, encoding="utf-8") as g:
                    sources.append((name, path, g.read()))
    else:
        for name in MODULES:
            found = module_source(name)
            if found is not None:
                sources.append((name, found[0], found[1]))
    # a module written in newer syntax than this Python's is skipped and counted
    compiled, skipped = [], []
    for name, path, text in sources:
        try:
            # dont_inherit: not this file's `from __future__ import annotations`
            compiled.append((name, path, text, compile(text, path, "exec", dont_inherit=True)))
        except (SyntaxError, ValueError) as exc:
            skipped.append([name, _short(exc)])
    emit(
        {
            "kind": "header",
            "tool": args.tool,
            "tool_version": tool_version,
            "python": sys.version.split()[0],
            "modules": [name for name, _, _, _ in compiled],
            "skipped": skipped,
        }
    )
    left = args.limit if args.limit else None
    for name, path, text, module_code in compiled:
        if left is not None and left <= 0:
            break
        # CPython's own compile() of the same source: best of 3
        compile_time = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            module_code = compile(text, path, "exec", dont_inherit=True)
            compile_time = min(compile_time, time.perf_counter() - t0)
        timings = [0.0, 0.0]
        rows = []
        for qualname, code in walk_code(module_code):
            if left is not None:
                if left <= 0:
                    break
                left -= 1
            record = {"name": f"{name}:{qualname}"}
            record["outcome"] = run_one(
                code, decompile, errors, verify, record, timings, args.function_timeout
            )
            record["classes"] = classify(code)
            rows.append(record)
        mod_record = {"name": name}
        mod_timings = [0.0, 0.0]
        mod_record["outcome"] = run_one(
            module_code, decompile, errors, verify, mod_record, mod_timings, args.function_timeout
        )
        emit(
            {
                "kind": "module",
                "module": name,
                "functions": rows,
                "module_row": mod_record,
                "compile_time": compile_time,
                "decompile_time": timings[0],
                "verify_time": timings[1],
                "module_decompile_time": mod_timings[0],
            }
        )
    emit({"kind": "done"})
    out.close()
    return 0


# ============================================================================================
# Driver side


def pyenv_python(version: str) -> str | None:
    """Path of the newest pyenv interpreter for ``version`` (e.g. "3.11"), or None."""
    root = os.environ.get("PYENV_ROOT")
    if not root:
        try:
            root = subprocess.run(
                ["pyenv", "root"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            root = os.path.expanduser("~/.pyenv")
    found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python"))

    def key(path: str):
        v = path.split(os.sep)[-3]
        return [int(p) if p.isdigit() else 0 for p in v.split(".")]

    if found:
        return max(found, key=key)
    return debian_python(version)


def debian_python(version: str) -> str | None:
    """The interpreter scripts/pythons.sh unpacks from Debian for versions pyenv lacks
    (3.14, 3.15), if it has been fetched."""
    cache = os.environ.get("PELLUCID_CACHE") or os.path.expanduser("~/.cache/pellucid")
    path = os.path.join(cache, f"python{version}", "root", "usr", "bin", f"python{version}")
    return path if os.access(path, os.X_OK) else None


def depyf_python(version: str, log) -> str | None:
    """Python of the depyf venv for ``version``; created and installed if absent."""
    venv = os.path.join(ROOT, ".venv-depyf" if version == "3.11" else f".venv-depyf-{version}")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python):
        probe = subprocess.run([python, "-c", "import depyf"], capture_output=True)
        if probe.returncode == 0:
            return python
    base = pyenv_python(version)
    if base is None:
        return None
    log(f"installing depyf=={DEPYF_VERSION} into {venv}")
    try:
        if not os.path.exists(python):
            subprocess.run([base, "-m", "venv", venv], check=True, capture_output=True)
        pip = [python, "-m", "pip", "install", "--quiet", "--no-input"]
        subprocess.run([*pip, f"depyf=={DEPYF_VERSION}"], check=True, capture_output=True)
        probe = subprocess.run([python, "-c", "import depyf"], capture_output=True, text=True)
        if probe.returncode != 0 and "torch" in probe.stderr:
            # only if depyf cannot import its decompiler without torch
            subprocess.run([*pip, TORCH_REQUIREMENT], check=True, capture_output=True)
            probe = subprocess.run([python, "-c", "import depyf"], capture_output=True)
        return python if probe.returncode == 0 else None
    except subprocess.CalledProcessError as exc:
        log(f"depyf install failed on {version}: {(exc.stderr or b'').decode()[-500:]}")
        return None


def run_worker(
    python: str,
    tool: str,
    limit: int,
    timeout: float,
    function_timeout: float,
    log,
    corpus: str | None = None,
) -> dict:
    """Run one worker and aggregate its JSON lines (partial results if it dies).

    ``corpus``: a JSON file of [module name, path] pairs to use instead of ``MODULES``."""
    fd, out = tempfile.mkstemp(prefix=f"roundtrip-{tool}-", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONSTARTUP", None)
    cmd = [python, os.path.abspath(__file__), "--worker", "--tool", tool, "--out", out]
    cmd += ["--function-timeout", str(function_timeout)]
    if limit:
        cmd += ["--limit", str(limit)]
    if corpus:
        cmd += ["--corpus", corpus]
    status = "ok"
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            status = f"worker exited {proc.returncode}: {proc.stderr.strip()[-800:]}"
    except subprocess.TimeoutExpired:
        status = f"worker timed out after {timeout:.0f}s (partial results)"
    wall = time.perf_counter() - started
    lines = []
    with open(out, encoding="utf-8") as f:
        for line in f:
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                break
    os.unlink(out)
    if status == "ok" and not (lines and lines[-1].get("kind") == "done"):
        status = "worker stopped early (partial results)"
    if status != "ok":
        log(f"{tool}: {status}")
    return aggregate(lines, status, wall)


def aggregate(lines: list[dict], status: str, wall: float) -> dict:
    header = next((x for x in lines if x.get("kind") == "header"), {})
    modules = [x for x in lines if x.get("kind") == "module"]
    rows = {key: collections.Counter() for key in [*CLASSES, "total", "module"]}
    mismatches, crashes, no_compile, refusals, internal = [], [], [], [], []
    errors, kinds = collections.Counter(), collections.Counter()
    decompile_time = verify_time = 0.0
    for mod in modules:
        decompile_time += mod["decompile_time"]
        verify_time += mod["verify_time"]
        for rec in mod["functions"]:
            outcome = rec["outcome"]
            rows["total"][outcome] += 1
            for cls in rec["classes"]:
                rows[cls][outcome] += 1
            if outcome == "mismatch":
                mismatches.append(rec)
            elif outcome == "crash":
                crashes.append(rec)
            elif outcome == "internal":
                internal.append(rec)
            elif outcome == "no-compile":
                no_compile.append(rec)
            elif outcome == "error":
                errors[_error_key(rec.get("detail", ""))] += 1
                kinds[rec.get("refusal", "unknown")] += 1
                refusals.append(rec)
        mrec = mod["module_row"]
        rows["module"][mrec["outcome"]] += 1
        if mrec["outcome"] == "crash":
            crashes.append(mrec)
        elif mrec["outcome"] == "internal":
            internal.append(mrec)
        elif mrec["outcome"] == "mismatch":
            mismatches.append(mrec)
        elif mrec["outcome"] == "no-compile":
            no_compile.append(mrec)
        elif mrec["outcome"] == "error":
            refusals.append(mrec)  # (not in the per-error counts: those count functions)
    functions = sum(rows["total"].values())
    return {
        "status": status,
        "tool": header.get("tool"),
        "tool_version": header.get("tool_version"),
        "python": header.get("python"),
        "modules": [mod["module"] for mod in modules],
        "skipped": header.get("skipped", []),
        "compile_time": sum(mod["compile_time"] for mod in modules),
        "functions": functions,
        "decompile_time": decompile_time,
        "verify_time": verify_time,
        "wall_time": wall,
        "rows": {k: dict(v) for k, v in rows.items()},
        "mismatches": mismatches,
        "crashes": crashes,
        "internal": internal,
        "no_compile": no_compile,
        "top_errors": errors.most_common(10),
        "error_kinds": kinds.most_common(),  # refused functions by DecompilationError.kind
        "errors": refusals,  # every refused code object, for --json readers
    }


def _error_key(detail: str) -> str:
    """Group DecompilationErrors by reason and opcode, without offsets and function names."""
    text = re.sub(r"^\w*Error: ", "", detail)
    text = re.sub(r" at offset \d+", "", text)
    text = re.sub(r",? in \S+", "", text)
    text = re.sub(r" \(Python [\d.]+\)", "", text)
    return text.strip()[:100] or "?"


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:6.1f}" if d else "     -"


def format_version_table(version: str, ours: dict, peer: dict | None) -> str:
    lines = []
    title = f"Python {ours.get('python') or version}: {len(ours['modules'])} modules, "
    if ours.get("skipped"):
        title += f"{len(ours['skipped'])} skipped (newer syntax), "
    title += f"{ours['functions']} code objects"
    if ours["status"] != "ok":
        title += f"  [pellucid: {ours['status'][:120]}]"
    if peer is not None and peer["status"] != "ok":
        title += f"  [depyf: {peer['status'][:120]}]"
    lines.append(title)
    head = f"{'':38} {'total':>6} {'error':>6} {'internal':>8} {'no-comp':>7} {'exact':>6}"
    head += f" {'mismatch':>8}"
    head += f" {'crash':>6} {'exact %':>7}"
    if peer is not None:
        head += f" | {'depyf exact':>11} {'depyf %':>7}"
    lines.append(head)
    for key in [*CLASSES, "total", "module"]:
        if key == "total" or key == "module":
            lines.append("-" * len(head))
        row = ours["rows"].get(key, {})
        total = sum(row.values())
        line = f"{CLASS_LABELS[key]:38} {total:6d}"
        for outcome in OUTCOMES:
            width = {"no-compile": 7, "mismatch": 8, "internal": 8}.get(outcome, 6)
            line += f" {row.get(outcome, 0):{width}d}"
        line += f" {_pct(row.get('exact', 0), total):>7}"
        if peer is not None:
            prow = peer["rows"].get(key, {})
            ptotal = sum(prow.values())
            line += f" | {prow.get('exact', 0):11d} {_pct(prow.get('exact', 0), ptotal):>7}"
        lines.append(line)
    if peer is not None:
        prow = peer["rows"].get("total", {})
        counts = ", ".join(f"{o} {prow.get(o, 0)}" for o in OUTCOMES)
        lines.append(f"depyf {peer.get('tool_version')} total: {sum(prow.values())}: {counts}")
    return "\n".join(lines)


def _rate(n: int, seconds: float) -> str:
    return f"{n / seconds:10.0f}" if seconds else "         -"


def format_speed_table(results: dict) -> str:
    head = (
        f"{'python':8} {'tool':10} {'code objs':>9} {'decompile s':>11} {'fn/s':>10}"
        f" {'+verify s':>10} {'fn/s':>10} {'verify x':>8} {'compile() s':>11}"
        f" {'decomp/compile':>14}"
    )
    lines = [head]
    for version, res in results.items():
        for tool in ("pellucid", "depyf"):
            r = res.get(tool)
            if r is None or not r["functions"]:
                continue
            d, v, c, n = r["decompile_time"], r["verify_time"], r["compile_time"], r["functions"]
            ratio = f"{d / c:14.1f}" if c else "             -"
            overhead = f"{(d + v) / d:8.2f}" if d else "       -"
            lines.append(
                f"{version:8} {tool:10} {n:9d} {d:11.2f} {_rate(n, d)} {d + v:10.2f}"
                f" {_rate(n, d + v)} {overhead} {c or 0:11.3f} {ratio}"
            )
    return "\n".join(lines)


def format_mismatches(version: str, res: dict, n: int) -> str:
    groups = collections.defaultdict(list)
    for rec in res["mismatches"]:
        groups[rec.get("category", "?")].append(rec)
    lines = [f"Python {version}: {len(res['mismatches'])} mismatches by first difference"]
    shown = 0
    for category, recs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if shown >= n:
            break
        lines.append(f"  {category}: {len(recs)}")
        for rec in recs:
            if shown >= n:
                break
            lines.append(f"    {rec['name']}: {rec.get('detail', '')[:200]}")
            shown += 1
    return "\n".join(lines)


def format_crashes(version: str, tool: str, res: dict, key: str = "crashes") -> str:
    """Every crash (or, with ``key="internal"``, every internal error): each is a bug."""
    what = {"crashes": "crashes", "internal": "internal errors"}[key]
    recs = res.get(key, [])
    lines = [f"Python {version}: {tool}: {len(recs)} {what} (bugs)"]
    for rec in recs[:50]:
        lines.append(f"  {rec['name']}: {rec.get('detail', '')}")
    if len(recs) > 50:
        lines.append(f"  ... {len(recs) - 50} more (see --json)")
    return "\n".join(lines)


def format_mismatch_classes(version: str, res: dict) -> str:
    """Mismatches counted by construct class and by first differing opcode (category)."""
    by_class: collections.Counter = collections.Counter()
    by_op: collections.Counter = collections.Counter()
    for rec in res["mismatches"]:
        for cls in rec.get("classes", ["module"]):
            by_class[cls] += 1
        by_op[rec.get("category", "?")] += 1
    lines = [f"Python {version}: {len(res['mismatches'])} mismatches"]
    if by_class:
        lines.append("  by construct class: " + ", ".join(f"{k} {n}" for k, n in by_class.most_common()))
        lines.append("  by first difference:")
        for key, n in by_op.most_common():
            lines.append(f"    {n:5d}  {key}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", help="comma-separated, e.g. 3.11,3.12 (default: all)")
    parser.add_argument("--json", help="write all results to this file")
    parser.add_argument("--show-mismatches", type=int, default=0, metavar="N")
    parser.add_argument("--limit", type=int, default=0, help="code objects per version")
    parser.add_argument("--no-depyf", action="store_true", help="skip the peer")
    parser.add_argument(
        "--depyf-versions",
        default="all",
        help="versions to run depyf on, e.g. 3.11 (default: every version run; depyf is"
        " pure Python and installs on 3.9-3.13; about 3 minutes per version)",
    )
    parser.add_argument("--timeout", type=float, default=3600.0, help="per worker, seconds")
    parser.add_argument(
        "--function-timeout",
        type=float,
        default=10.0,
        help="per code object, CPU seconds; longer counts as a crash (0: none)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tool", default="pellucid", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    with markdown_page(args.markdown, "Round trip: the standard library", about_from_doc(__doc__)):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """The benchmark proper: a worker per version (and per peer), then the tables."""

    def log(msg: str) -> None:
        print(f"[roundtrip] {msg}", file=sys.stderr, flush=True)

    versions = args.versions.split(",") if args.versions else VERSIONS
    if args.no_depyf:
        depyf_versions = set()
    elif args.depyf_versions == "all":
        depyf_versions = set(versions)
    else:
        depyf_versions = set(args.depyf_versions.split(","))
    results: dict[str, dict] = {}
    for version in versions:
        python = pyenv_python(version)
        if python is None:
            log(f"Python {version}: interpreter not found, skipped")
            continue
        log(f"Python {version}: pellucid ({python})")
        res = {
            "pellucid": run_worker(
                python, "pellucid", args.limit, args.timeout, args.function_timeout, log
            )
        }
        if version in depyf_versions:
            peer_python = depyf_python(version, log)
            if peer_python is None:
                log(f"Python {version}: depyf not available")
            else:
                log(f"Python {version}: depyf {DEPYF_VERSION}")
                res["depyf"] = run_worker(
                    peer_python, "depyf", args.limit, args.timeout, args.function_timeout, log
                )
        results[version] = res

    print()
    for version, res in results.items():
        print(format_version_table(version, res["pellucid"], res.get("depyf")))
        print()
    print("Speed (decompile: verify off; +verify: decompile, recompile, compare;")
    print("compile(): CPython compiling the same module sources, same run)")
    print(format_speed_table(results))
    for version, res in results.items():
        for tool, r in res.items():
            if r["crashes"] and tool == "pellucid":
                print()
                print(format_crashes(version, tool, r))
            if r.get("internal") and tool == "pellucid":
                print()
                print(format_crashes(version, tool, r, "internal"))
    if args.show_mismatches:
        for version, res in results.items():
            print()
            print(format_mismatches(version, res["pellucid"], args.show_mismatches))
            no_compile = res["pellucid"]["no_compile"]
            if no_compile:
                print(f"Python {version}: {len(no_compile)} decompiled sources that do not compile")
                for rec in no_compile[: args.show_mismatches]:
                    print(f"    {rec['name']}: {rec.get('detail', '')[:200]}")
            errs = res["pellucid"]["top_errors"]
            if errs:
                kinds = res["pellucid"].get("error_kinds", [])
                print(f"Python {version}: DecompilationErrors by kind: "
                      + ", ".join(f"{key} {n}" for key, n in kinds))
                print(f"Python {version}: most frequent DecompilationErrors")
                for key, count in errs:
                    print(f"  {count:6d}  {key}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
