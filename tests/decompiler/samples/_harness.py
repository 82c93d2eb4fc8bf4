"""The decompiler behaviour-test harness: decompile samples, rebuild them, run both, compare.

Lives in the samples package (not in conftest.py) so that test modules can import it by a name
no other test directory shares.  ``tests/decompiler/conftest.py`` owns ``NOT_YET`` and hands it
over with :func:`configure`.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import io
import itertools
import os
import re
import signal
import sys
import traceback
import types
from pathlib import Path

import pytest

import pellucid
from pellucid import DecompilationError

from . import materialize

# Set by conftest.configure(): construct classes whose DecompilationError is an xfail.
NOT_YET: set = set()
# parametrize id -> construct class, for the per-construct summary.
CONSTRUCT_OF: dict = {}


def configure(not_yet: set) -> None:
    global NOT_YET
    NOT_YET = not_yet


DECOMPILE_TIMEOUT = 20.0  # seconds for one decompile call: a hang is a bug, not a slow test
CASE_TIMEOUT = 2.0  # seconds for one call of a sample (wrong code may loop forever)
_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def scrub(text: str) -> str:
    """Remove memory addresses (and our filenames) so reprs of distinct objects compare."""
    return _ADDR.sub(" at 0x?", text)


# --------------------------------------------------------------------------- decompiling


class CaseTimeout(BaseException):
    """A sample call ran too long: a BaseException, so `except Exception` cannot swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str, error: type = TimeoutError):
    if not hasattr(signal, "setitimer") or sys.platform == "win32":
        yield
        return

    def on_alarm(signum, frame):
        raise error(f"{what} took more than {seconds}s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _selftest_decompile(obj, verify=False, strict=False):
    """Stand-in decompiler (PELLUCID_SAMPLES_SELFTEST=1): the sample's own source, undecorated.

    Running the suite with it checks the samples and the harness themselves.
    """
    if isinstance(obj, types.CodeType) and obj.co_name == "<module>":
        return Path(obj.co_filename).read_text(encoding="utf-8")
    fn = getattr(obj, "__func__", obj)
    code = fn.__code__
    tree = ast.parse(Path(code.co_filename).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if code.co_firstlineno in (node.lineno, first):
                node.decorator_list = []
                return ast.unparse(node)
        if isinstance(node, ast.Lambda) and fn.__name__ == "<lambda>":
            if node.lineno == code.co_firstlineno:
                return ast.unparse(node)
    raise DecompilationError("selftest: no source", code_name=fn.__name__)


DECOMPILE = (
    _selftest_decompile if os.environ.get("PELLUCID_SAMPLES_SELFTEST") else pellucid.decompile
)

_CACHE: dict = {}


def decompile_cached(key, obj, verify: bool):
    """``("ok", source)`` or ``("err", exception, formatted traceback)``, computed once."""
    k = (key, verify)
    if k not in _CACHE:
        try:
            with time_limit(DECOMPILE_TIMEOUT, f"decompile({key})"):
                src = DECOMPILE(obj, verify=verify, strict=verify)
            _CACHE[k] = ("ok", src)
        except Exception as exc:  # noqa: BLE001 - classified by the caller
            _CACHE[k] = ("err", exc, traceback.format_exc())
    return _CACHE[k]


def source_or_outcome(key, obj, construct: str, verify: bool) -> str:
    """Decompile ``obj``; turn a DecompilationError into xfail (NOT_YET classes) or failure."""
    res = decompile_cached(key, obj, verify)
    if res[0] == "ok":
        src = res[1]
        assert isinstance(src, str), f"decompile returned {type(src).__name__}, not str"
        return src
    exc, tb = res[1], res[2]
    if isinstance(exc, DecompilationError):
        if construct in NOT_YET:
            pytest.xfail(f"[{construct} not yet] {exc}")
        pytest.fail(f"DecompilationError on construct class {construct!r}: {exc}", pytrace=False)
    pytest.fail(
        f"decompile raised {type(exc).__name__}, only DecompilationError is allowed:\n{tb}",
        pytrace=False,
    )


# --------------------------------------------------------------------------- rebuilding


def _fallback_recompile(source: str, original: types.CodeType) -> types.CodeType:
    """Compile ``source`` and return the code object standing for ``original``.

    Free variables of ``original`` are made free again by wrapping the source in a function
    that binds them.
    """
    text = source
    if original.co_freevars:
        binds = "".join(f"    {name} = None\n" for name in original.co_freevars)
        body = "".join("    " + line + "\n" for line in source.splitlines())
        text = f"def __pellucid_outer__():\n{binds}{body}"
    top = compile(text, "<decompiled>", "exec", dont_inherit=True)
    found = []

    def walk(co):
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                if c.co_name == original.co_name:
                    found.append(c)
                walk(c)

    walk(top)
    if not found:
        raise AssertionError(f"no code object named {original.co_name!r} in the decompiled source")
    return found[0]


def recompile(source: str, original: types.CodeType) -> types.CodeType:
    try:
        from pellucid.decompiler.verify import recompile as infra_recompile
    except ImportError:
        return _fallback_recompile(source, original)
    return infra_recompile(source, original)


def _fresh_copy(value):
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - uncopyable defaults are shared, as in the original
        return copy.copy(value)


def _clone(fn, code, globs, cells=None):
    """``fn`` with another code object/globals; defaults copied so runs cannot leak state."""
    new = types.FunctionType(
        code,
        globs,
        fn.__name__,
        _fresh_copy(fn.__defaults__),
        cells if cells is not None else fn.__closure__,
    )
    new.__kwdefaults__ = _fresh_copy(fn.__kwdefaults__)
    new.__qualname__ = fn.__qualname__
    return new


def rebuild_original(fn, module_globals: dict):
    """The original function, but running in a private copy of its module's globals."""
    g = dict(module_globals)
    new = _clone(fn, fn.__code__, g)
    if g.get(fn.__name__) is fn:
        g[fn.__name__] = new
    return new, g


def rebuild_decompiled(fn, source: str, module_globals: dict, fresh_fn=None):
    """Function built from decompiled ``source``, in its own copy of the module globals.

    Functions without free variables come from executing the source (so the signature, defaults
    and annotations are the decompiled ones).  Closures get the recompiled code object and the
    cells of ``fresh_fn`` (a second, independent instance of the same closure).
    """
    g = dict(module_globals)
    code = fn.__code__
    if code.co_freevars:
        fresh_fn = fresh_fn or fn
        new_code = recompile(source, code)
        cells_by_name = dict(zip(fresh_fn.__code__.co_freevars, fresh_fn.__closure__ or ()))
        missing = [n for n in new_code.co_freevars if n not in cells_by_name]
        assert not missing, f"decompiled code has free variables the original lacks: {missing}"
        cells = tuple(cells_by_name[n] for n in new_code.co_freevars)
        return _clone(fresh_fn, new_code, g, cells), g, False
    name = fn.__name__
    original_value = g.pop(name, None)
    before = dict(g)
    try:
        exec(compile(source, f"<decompiled {fn.__qualname__}>", "exec", dont_inherit=True), g)
    except Exception as exc:  # noqa: BLE001 - the def statement itself must run
        pytest.fail(
            f"executing the decompiled def raised {type(exc).__name__}: {exc}\n{source}",
            pytrace=False,
        )
    new = g.get(name)
    if not isinstance(new, types.FunctionType):
        fresh = [
            v
            for k, v in g.items()
            if isinstance(v, types.FunctionType) and before.get(k) is not v and k != "__builtins__"
        ]
        if len(fresh) == 1:
            new = fresh[0]
        else:
            try:
                new = eval(compile(source, "<decompiled>", "eval", dont_inherit=True), g)
            except SyntaxError:
                new = None
    assert isinstance(new, types.FunctionType), (
        f"decompiled source defines no function {name!r}:\n{source}"
    )
    if original_value is not None and name not in g:
        g[name] = original_value
    return new, g, True


# --------------------------------------------------------------------------- running


def exc_signature(exc: BaseException):
    sig = [type(exc).__name__, scrub(str(exc))]
    if exc.__cause__ is not None:
        sig.append(("cause", type(exc.__cause__).__name__, scrub(str(exc.__cause__))))
    if exc.__context__ is not None and not exc.__suppress_context__:
        sig.append(("context", type(exc.__context__).__name__))
    group_type = getattr(builtins, "BaseExceptionGroup", None)  # 3.11+
    if group_type is not None and isinstance(exc, group_type):
        sig.append(("group", sorted(repr(exc_signature(e)) for e in exc.exceptions)))
    return tuple(sig)


def drive_coroutine(coro, limit: int = 1000):
    """Step a coroutine by hand: every suspension is recorded, ``None`` is sent back."""
    yielded = []
    try:
        for _ in range(limit):
            yielded.append(scrub(repr(coro.send(None))))
        coro.close()
        return ("did not finish", yielded)
    except StopIteration as stop:
        return ("returned", normalize(stop.value), yielded)
    except BaseException as exc:  # noqa: BLE001
        return ("raised", exc_signature(exc), yielded)


def drive_async_generator(agen, limit: int = 200):
    items = []
    for _ in range(limit):
        res = drive_coroutine(agen.__anext__())
        items.append(res)
        if res[0] != "returned":
            break
    return ("async generator", items)


def normalize(value, depth: int = 0):
    """Turn lazy results (generators, coroutines) into plain, comparable data."""
    if depth > 3:
        return value
    if isinstance(value, types.GeneratorType):
        items = []
        try:
            for item in itertools.islice(value, 1000):
                items.append(normalize(item, depth + 1))
        except BaseException as exc:  # noqa: BLE001
            items.append(("raised", exc_signature(exc)))
        return ("generator", items)
    if isinstance(value, types.CoroutineType):
        return ("coroutine", drive_coroutine(value))
    if isinstance(value, types.AsyncGeneratorType):
        return drive_async_generator(value)
    return value


def describe(value) -> str:
    return scrub(f"{type(value).__name__}: {value!r}")


def run_case(fn, globs: dict, spec, case) -> dict:
    """Call ``fn`` on one case and record everything observable."""
    for name, value in spec.state.items():
        globs[name] = copy.deepcopy(value)
    args, kwargs = materialize(case)
    out = io.StringIO()
    record: dict = {}
    with contextlib.redirect_stdout(out):
        try:
            with time_limit(CASE_TIMEOUT, "calling the sample", CaseTimeout):
                result = fn(*args, **kwargs)
                if spec.drive is not None:
                    result = spec.drive(result)
                record["result"] = describe(normalize(result))
        except BaseException as exc:  # noqa: BLE001 - SystemExit etc. are behaviour too
            if isinstance(exc, KeyboardInterrupt):
                raise
            record["raised"] = exc_signature(exc)
    record["stdout"] = out.getvalue()
    record["args after"] = describe((args, kwargs))
    for name in spec.state:
        record[f"global {name}"] = describe(globs.get(name, "<unset>"))
    return record


def compare_runs(fn_a, globs_a, fn_b, globs_b, spec) -> list[str]:
    """Run both functions on every case; return human-readable differences."""
    problems = []
    for i, case in enumerate(spec.inputs):
        a = run_case(fn_a, globs_a, spec, case)
        b = run_case(fn_b, globs_b, spec, case)
        if a != b:
            keys = sorted(set(a) | set(b))
            diff = [
                f"  {k}: original {a.get(k)!r} / decompiled {b.get(k)!r}"
                for k in keys
                if a.get(k) != b.get(k)
            ]
            problems.append(f"case {i} {case!r}:\n" + "\n".join(diff))
            if "CaseTimeout" in repr(b.get("raised")):
                problems.append("(stopped after the first timeout)")
                break
    return problems


# --------------------------------------------------------------------------- signatures


def find_def(tree: ast.AST, name: str):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def code_arg_shape(code: types.CodeType) -> dict:
    """Argument names by kind, straight from the code object."""
    names = code.co_varnames
    npos, nposonly, nkw = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    i = npos + nkw
    vararg = names[i] if code.co_flags & 0x04 else None
    if vararg:
        i += 1
    kwarg = names[i] if code.co_flags & 0x08 else None
    return {
        "posonly": list(names[:nposonly]),
        "args": list(names[nposonly:npos]),
        "kwonly": list(names[npos : npos + nkw]),
        "vararg": vararg,
        "kwarg": kwarg,
    }


def ast_arg_shape(args: ast.arguments) -> dict:
    return {
        "posonly": [a.arg for a in args.posonlyargs],
        "args": [a.arg for a in args.args],
        "kwonly": [a.arg for a in args.kwonlyargs],
        "vararg": args.vararg.arg if args.vararg else None,
        "kwarg": args.kwarg.arg if args.kwarg else None,
    }


# --------------------------------------------------------------------------- sample coverage


def _code_tree(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_tree(const)


def uncovered_lines(sample) -> list[tuple[int, str]]:
    """Lines of the sample (nested code included) that its declared inputs never execute.

    Lines marked ``# unreachable`` are deliberately dead and not counted.
    """
    import dis

    fn = sample.fresh()
    codes = set(_code_tree(fn.__code__))
    wanted = {line for co in codes for _, line in dis.findlinestarts(co) if line is not None}
    wanted.discard(fn.__code__.co_firstlineno)
    seen: set = set()

    def tracer(frame, event, arg):
        if frame.f_code in codes:
            if event in ("call", "line"):
                seen.add(frame.f_lineno)
            return tracer
        return None

    original, globs = rebuild_original(fn, vars(sample.module))
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        for case in sample.spec.inputs:
            run_case(original, globs, sample.spec, case)
    finally:
        sys.settrace(old)
    lines = Path(fn.__code__.co_filename).read_text(encoding="utf-8").splitlines()
    # 3.9's peephole optimizer folds a `continue` (or a `break` ending a try's else)
    # into the jump before it, and drops the NOP of a `pass` before a jump: no line event
    untraceable = {"continue", "break", "pass"} if sys.version_info < (3, 10) else set()
    return [
        (n, lines[n - 1].strip())
        for n in sorted(wanted - seen)
        if 0 < n <= len(lines)
        and "# unreachable" not in lines[n - 1]
        and lines[n - 1].strip() not in untraceable
    ]
