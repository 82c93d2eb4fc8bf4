"""Random programs, decompiled without verification and run beside the original: wrong code?

Three families of programs, ``--count`` of each (default 2,000) per Python version:

* *plain*: modules of one to three functions from the property test's generator
  (``tests/decompiler/test_property.py``, its "runnable" programs: expressions of every kind,
  assignments, if/while/for with break/continue, comprehensions, lambdas, closures, f-strings,
  walrus, random signatures with defaults and annotations);
* *try/with*: the same generator with try/except/else/finally, raise and with statements,
  alternating with ``loop_try_programs.py``'s loops full of try statements, with, break,
  continue and returns of constants and locals;
* *loops+finally*: ``loop_try_programs.finally_program``: loops nesting try/finally whose
  bodies *and* finally clauses return, break or continue (a finally that overrides the body's
  return, break or exception), with try/except/else, with and loops inside loops.

Each program is compiled by the version under test (one in syntax that version lacks is
*skipped*), decompiled with ``verify=False`` (a module of the property generator whole, a loop
program's ``f``), and the output is both verified (recompiled, normalized bytecode compared)
and run: every function of the original and of the decompiled program is called on the same
inputs (results, raised exceptions, what the context managers logged and what was left of
mutated arguments are compared; signatures and annotations too).  Columns: *exact* (verified),
*unverified* (the bytecode differs but the program behaves the same on every input), *refused*
(``DecompilationError``), *internal* (a ``DecompilationError`` marked ``.internal``: a bug),
*WRONG* (behaves differently, or the output does not compile: a bug), *crash* (any other
exception, or a decompilation that hangs: a bug).  Beside them, *dead* counts the outputs with
dead statements (``dead_code.py``: code after a return, break, continue or raise, which the
compiler drops and verification cannot see, but a reader does: a bug).  Every WRONG program, internal error and crash
is listed with its source and its decompiled source; its label (``family:seed``) regenerates it.

Usage::

    python benchmarks/random_programs.py [--versions 3.9,3.13] [--count 2000]
                                         [--families plain,try/with,loops+finally]
                                         [--jobs N] [--json out.json] [--markdown PATH]
    python benchmarks/random_programs.py --from-json 3.9.json 3.10.json ... [--markdown PATH]

(``--from-json`` reports runs made one version at a time, e.g. at once on several cores.)

Run it with the project's development environment (the plain and try/with programs come from
the property test's generator, which imports pytest).  The worker runs under Python 3.9, so
this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import copy
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")
sys.path.insert(0, HERE)
import dead_code  # noqa: E402
import loop_try_programs as loops  # noqa: E402
from page import about_from_doc, commit, markdown_page  # noqa: E402
from page import add_option as add_markdown_option  # noqa: E402
from roundtrip import pyenv_python, refusal_kind  # noqa: E402

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
FAMILIES = ["plain", "try/with", "loops+finally"]
OUTCOMES = ["exact", "unverified", "refused", "internal", "WRONG", "crash", "skipped"]
# the first seed of each family: a program's label family:seed regenerates it
FIRST_SEED = {"plain": 1_000_000, "try/with": 2_000_000, "loops+finally": 3_000_000}
# arguments for the property generator's functions (parameters a, b, c)
ARGUMENT_SETS = [(0, 1, 2), (1, "ab", [1, 2]), ([], {}, 2.5), (-3, (1, 2), "s")]
# CPU seconds (a loaded machine does not make a timeout): one call, tried again for longer when
# it times out on one side only; one decompilation (longer: a hang, counted as a crash)
CALL_SECONDS = 0.2
DECOMPILE_SECONDS = 20.0


# ============================================================================================
# Generating (driver side, under the development environment)


def generate(family: str, count: int) -> list[dict]:
    """``count`` programs of ``family``: [{"label", "kind", "source"}], deterministic."""
    property_gen = None
    if family in ("plain", "try/with"):
        sys.path.insert(0, os.path.join(ROOT, "tests", "decompiler"))
        sys.path.insert(0, SRC)
        import test_property  # noqa: PLC0415 - needs pytest: only where it is used

        property_gen = test_property.generate_program
    out: list[dict] = []
    seed = FIRST_SEED[family]
    while len(out) < count:
        label = f"{family}:{seed}"
        if family == "loops+finally":
            out.append(
                {
                    "label": label,
                    "kind": "loop",
                    "source": loops.finally_program(random.Random(seed)),
                }
            )
        elif family == "try/with" and seed % 2:
            src = loops.program(random.Random(seed), loops.CONST_LEAVES)
            out.append({"label": label, "kind": "loop", "source": src})
        else:
            features = {"runnable"} | ({"exceptions", "with"} if family == "try/with" else set())
            src = property_gen(seed, frozenset(features))
            if src is not None:  # (None: the seed made an invalid program)
                out.append({"label": label, "kind": "module", "source": src})
        seed += 1
    return out


def regenerate(label: str) -> str:
    """The source of the program ``family:seed``."""
    family, seed = label.rsplit(":", 1)
    for program in generate_from(family, int(seed)):
        return program["source"]
    raise ValueError(label)


def generate_from(family: str, seed: int):
    saved = FIRST_SEED[family]
    FIRST_SEED[family] = seed
    try:
        yield from generate(family, 1)
    finally:
        FIRST_SEED[family] = saved


# ============================================================================================
# Checking (worker side, under the interpreter being measured)


class CallTimeout(BaseException):
    """A call or a decompilation ran too long (a BaseException: ``except Exception`` in the
    program cannot swallow it)."""


def _on_alarm(signum, frame):
    raise CallTimeout()


def _limited(seconds: float, fn, *args):
    signal.setitimer(
        signal.ITIMER_VIRTUAL, seconds, 0.05
    )  # keeps firing: a bare except may eat one
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# the same address spelled out one character at a time (a list extended by a string)
_ADDRESS_CHARS = re.compile(r"'0', 'x'(?:, '[0-9a-f]')+")


def _scrub(text: str) -> str:
    """A repr without what differs between two runs of the same program: object addresses (the
    original and the decompiled program make their own functions)."""
    return _ADDRESS_CHARS.sub("'0', 'x', ?", _ADDRESS.sub(" at 0x?", text))


def _shown(value, depth: int = 0) -> str:
    """``repr(value)`` with sets in a fixed order: a set's order follows its elements' hashes,
    and a function's hash is its address, which differs between the two programs."""
    if depth < 20:
        if isinstance(value, (set, frozenset)) and value:
            items = ", ".join(sorted(_shown(x, depth + 1) for x in value))
            return f"frozenset({{{items}}})" if isinstance(value, frozenset) else f"{{{items}}}"
        if type(value) is list:
            return "[" + ", ".join(_shown(x, depth + 1) for x in value) + "]"
        if type(value) is tuple:
            inner = ", ".join(_shown(x, depth + 1) for x in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _outcome(fn, args: tuple, seconds: float) -> list:
    """What one call did: its result or exception, and what was left of its arguments."""
    args = copy.deepcopy(args)
    try:
        result = _limited(seconds, fn, *args)
        if isinstance(result, types.GeneratorType):
            result = ("generator", _limited(seconds, lambda: list(zip(range(100), result))))
        return ["ok", _scrub(_shown(result)), _scrub(_shown(args))]
    except CallTimeout:
        return ["timeout"]
    except Exception as exc:  # noqa: BLE001 - what the program raised is its behaviour
        return ["raise", type(exc).__name__, _scrub(str(exc)), _scrub(_shown(args))]


# fresh copies of the original tried before a difference counts as wrong code
FRESH_ORIGINALS = 20


def _compare_calls(pairs, inputs, fresh) -> str | None:
    """The first input on which a pair of functions (original, decompiled) differs.

    A program can order a set by its elements' addresses (a set holding a function) and so
    behave differently from one run to the next.  A difference counts only when no fresh copy
    of the original (``fresh(name)``: the module run again, new objects at new addresses) does
    what the decompiled function did."""
    for name, a, b in pairs:
        for args in inputs(a):
            x, y = _outcome(a, args, CALL_SECONDS), _outcome(b, args, CALL_SECONDS)
            if x != y and ["timeout"] in (x, y):  # a loaded machine: again, with more time
                x, y = _outcome(a, args, 20 * CALL_SECONDS), _outcome(b, args, 20 * CALL_SECONDS)
            if x != y and not any(
                _outcome(fresh(name), args, CALL_SECONDS) == y for _ in range(FRESH_ORIGINALS)
            ):
                return f"{name}{tuple(args)!r}: original {x!r} / decompiled {y!r}"
    return None


def _signature(fn) -> str:
    import inspect

    try:
        sig = str(inspect.signature(fn))
    except (TypeError, ValueError) as exc:
        sig = f"<{exc}>"
    return f"{sig} {fn.__defaults__!r} {fn.__kwdefaults__!r} {getattr(fn, '__annotations__', {})!r}"


def _functions(ns: dict, top: types.CodeType) -> dict:
    return {
        name: fn
        for name, fn in ns.items()
        if isinstance(fn, types.FunctionType) and fn.__code__ in top.co_consts
    }


def check(program: dict, pellucid, verify) -> tuple[str, str, str, str]:
    """(outcome, detail, decompiled source, refusal kind or "") of one program."""
    kind, src = program["kind"], program["source"]
    text = loops.PRELUDE + src if kind == "loop" else src
    try:
        top = compile(text, "<" + program["label"] + ">", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return "skipped", f"{type(exc).__name__}: {exc}", "", ""
    ns_a: dict = {"__name__": "random_program"}
    exec(top, ns_a)
    target = ns_a["f"].__code__ if kind == "loop" else top
    try:
        out = _limited(DECOMPILE_SECONDS, lambda: pellucid.decompile(target, verify=False))
    except CallTimeout:
        return "crash", f"timeout: still decompiling after {DECOMPILE_SECONDS:g}s", "", ""
    except pellucid.DecompilationError as exc:
        if getattr(exc, "internal", False):
            cause = exc.__cause__ or exc
            tb = "".join(
                traceback.format_exception(type(cause), cause, cause.__traceback__, limit=-6)
            )
            return "internal", f"{exc}\n{tb}", "", ""
        return "refused", str(exc), "", refusal_kind(exc)
    except Exception as exc:  # noqa: BLE001 - a crash is a bug, listed
        return "crash", traceback.format_exc(limit=-6) or repr(exc), "", ""
    try:
        recompiled = verify.recompile(out, target)
    except (SyntaxError, ValueError, LookupError) as exc:
        return "WRONG", f"the output does not compile: {type(exc).__name__}: {exc}", out, ""
    diffs = verify.differences(target, recompiled)
    ns_b: dict = {"__name__": "random_program"}
    try:
        exec(
            compile(
                (loops.PRELUDE if kind == "loop" else "") + out,
                "<decompiled>",
                "exec",
                dont_inherit=True,
            ),
            ns_b,
        )
    except Exception as exc:  # noqa: BLE001 - the decompiled module does not run: wrong
        return "WRONG", f"the decompiled program does not run: {type(exc).__name__}: {exc}", out, ""
    if kind == "loop":
        pairs = [("f", ns_a["f"], ns_b["f"])]

        def inputs(fn):
            return [(list(ks),) for ks in loops.INPUTS]

    else:
        originals = _functions(ns_a, top)
        missing = sorted(set(originals) - set(ns_b))
        if missing:
            return "WRONG", f"the decompiled program lacks {missing}", out, ""
        for name, fn in originals.items():
            if _signature(fn) != _signature(ns_b[name]):
                return (
                    "WRONG",
                    f"{name}: signature {_signature(ns_b[name])} != {_signature(fn)}",
                    out,
                    "",
                )
        pairs = [(name, fn, ns_b[name]) for name, fn in originals.items()]

        def inputs(fn):
            return [args[: fn.__code__.co_argcount] for args in ARGUMENT_SETS]

    kept = []  # the fresh copies' namespaces stay alive: new objects, new addresses

    def fresh(name):
        ns: dict = {"__name__": "random_program"}
        exec(top, ns)
        kept.append(ns)
        return ns[name]

    differs = _compare_calls(pairs, inputs, fresh)
    if differs:
        return "WRONG", differs, out, ""
    if diffs:
        return "unverified", str(diffs[0]), out, ""
    return "exact", "", out, ""


def worker(path: str) -> int:
    """Check every program in the JSON file ``path``; print one RESULT line per family."""
    import warnings

    warnings.simplefilter("ignore")  # generated code is full of `x is 1`
    sys.path.insert(0, SRC)
    import pellucid
    from pellucid.decompiler import verify

    signal.signal(signal.SIGVTALRM, _on_alarm)
    with open(path, encoding="utf-8") as f:
        families = json.load(f)
    for family, programs in families.items():
        counts = collections.Counter({k: 0 for k in OUTCOMES})
        listed, unverified, refusals = [], collections.Counter(), collections.Counter()
        kinds = collections.Counter()
        examples: dict = {}  # refusal message -> the first labels refused with it
        dead = []  # labels of the outputs with dead statements (code after a return)
        started = time.perf_counter()
        for program in programs:
            outcome, detail, out, kind = check(program, pellucid, verify)
            counts[outcome] += 1
            if out and dead_code.dead_in_source(out):
                dead.append(program["label"])
            if outcome in ("WRONG", "internal", "crash"):
                listed.append(
                    {"label": program["label"], "outcome": outcome, "detail": detail,
                     "source": program["source"], "decompiled": out}
                )  # fmt: skip
            elif outcome == "unverified":
                unverified[re.sub(r"\d+", "N", detail.split(": ", 1)[-1])[:120]] += 1
            elif outcome == "refused":
                kinds[kind] += 1
                message = re.sub(r" at offset \d+|, in \S+| \(Python [\d.]+\)", "", detail)[:120]
                refusals[message] += 1
                labels = examples.setdefault(message, [])
                if len(labels) < 5:
                    labels.append(program["label"])
        result = {
            "family": family,
            "python": sys.version.split()[0],
            "counts": dict(counts),
            "listed": listed,
            "unverified": unverified.most_common(8),
            "refusals": refusals.most_common(8),
            "refusal_kinds": kinds.most_common(),
            "refusal_examples": {key: examples[key] for key, _ in refusals.most_common(20)},
            "dead": dead,
            "seconds": time.perf_counter() - started,
        }
        print("RESULT " + json.dumps(result), flush=True)
    return 0


# ============================================================================================
# Driver


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--count", type=int, default=2000, help="programs per family and version")
    parser.add_argument("--json", help="write all results to this file")
    parser.add_argument("--show", metavar="LABEL", help="print one program (family:seed) and exit")
    parser.add_argument("--timeout", type=float, default=3600.0, help="per worker, seconds")
    parser.add_argument("--jobs", type=int, default=1, help="versions run at once")
    parser.add_argument(
        "--from-json", nargs="+", metavar="FILE",
        help="run nothing: report the results that earlier runs wrote with --json (merged)",
    )  # fmt: skip
    parser.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if args.show:
        print(regenerate(args.show))
        return 0
    title = "Random programs: decompiled, then run beside the original"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        if args.from_json:
            return report(merged(args.from_json), args)
        return run(args)


def merged(paths: list[str]) -> dict:
    """The results of several ``--json`` files as one, in version order (a version's rows from
    a later file replace an earlier file's)."""
    results: dict = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            results.update(json.load(f))
    return {v: results[v] for v in sorted(results, key=lambda v: tuple(map(int, v.split("."))))}


def run(args: argparse.Namespace) -> int:
    """Generate once, a worker per version, then the table; 1 while any program is wrong."""
    families = args.families.split(",")
    unknown = set(families) - set(FAMILIES)
    if unknown:
        raise SystemExit(f"unknown families {sorted(unknown)}; known: {FAMILIES}")
    programs = {family: generate(family, args.count) for family in families}
    fd, path = tempfile.mkstemp(prefix="random-programs-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(programs, f)

    def one(version: str) -> list | None:
        python = pyenv_python(version)
        if python is None:
            print(f"[random_programs] Python {version}: not installed, skipped", file=sys.stderr)
            return None
        print(f"[random_programs] Python {version} ({python})", file=sys.stderr, flush=True)
        env = dict(os.environ, PYTHONPATH=SRC)
        env.pop("PYTHONSTARTUP", None)
        try:
            p = subprocess.run(
                [python, os.path.abspath(__file__), "--worker", path],
                capture_output=True, text=True, env=env, timeout=args.timeout,
            )  # fmt: skip
            stdout, err = p.stdout, p.stderr
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = f"worker timed out after {args.timeout:.0f}s (partial results)"
        rows = [json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")]
        if len(rows) < len(families):
            print(f"[random_programs] Python {version}: {err.strip()[-800:]}", file=sys.stderr)
        return rows

    versions = args.versions.split(",")
    try:
        # each worker is a process of its own: threads only wait for them
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            done = list(pool.map(one, versions))
    finally:
        os.unlink(path)
    results = {v: rows for v, rows in zip(versions, done) if rows is not None}
    here = commit()
    for rows in results.values():
        for row in rows:
            row["commit"] = here  # kept in --json: a merged report says what it measured
    return report(results, args)


def refusal_kinds(row: dict) -> list:
    """(kind, count) pairs of a family's refusals, most frequent first; a row written before
    refusals had kinds counts them all as "unknown"."""
    if "refusal_kinds" in row:
        return [tuple(pair) for pair in row["refusal_kinds"]]
    n = row["counts"].get("refused", 0)
    return [("unknown", n)] if n else []


def report(results: dict, args: argparse.Namespace) -> int:
    head = f"{'python':8} {'family':14} {'programs':>8}" + "".join(f" {k:>10}" for k in OUTCOMES)
    head += f" {'exact %':>8} {'dead':>6} {'seconds':>8}"
    if args.from_json:
        commits = sorted({row.get("commit", "?") for rows in results.values() for row in rows})
        print(f"Merged from {len(args.from_json)} runs at commit {', '.join(commits)}\n")
    print(head)
    print("-" * len(head))
    bad = 0
    for rows in results.values():
        for row in rows:
            c = row["counts"]
            run_ = sum(c.values()) - c.get("skipped", 0)
            line = f"{row['python']:8} {row['family']:14} {sum(c.values()):8d}"
            line += "".join(f" {c.get(k, 0):10d}" for k in OUTCOMES)
            line += f" {100.0 * c.get('exact', 0) / run_ if run_ else 0:8.1f}"
            line += f" {len(row['dead']) if 'dead' in row else '?':>6} {row['seconds']:8.0f}"
            print(line)
            bad += c.get("WRONG", 0) + c.get("internal", 0) + c.get("crash", 0)
    for rows in results.values():
        for row in rows:
            if row.get("dead"):
                print(
                    f"\nPython {row['python']} {row['family']}: {len(row['dead'])} outputs with"
                    f" dead statements (code after a return), e.g. {' '.join(row['dead'][:5])}"
                )
    for rows in results.values():
        for row in rows:
            if row["unverified"]:
                print(
                    f"\nPython {row['python']} {row['family']}: unverified (same behaviour), by first difference"
                )
                for key, n in row["unverified"]:
                    print(f"  {n:5d}  {key}")
    for rows in results.values():
        for row in rows:
            if row.get("refusals"):
                print(f"\nPython {row['python']} {row['family']}: refusals by kind")
                if "refusal_kinds" in row:
                    print("  " + ", ".join(f"{key} {n}" for key, n in refusal_kinds(row)))
                else:
                    print("  (not recorded: a run made before refusals had kinds)")
                print(f"Python {row['python']} {row['family']}: most frequent refusals")
                for key, n in row["refusals"]:
                    print(f"  {n:5d}  {key}")
    for rows in results.values():
        for row in rows:
            for item in row["listed"]:
                print(f"\n=== Python {row['python']}: {item['outcome']} {item['label']}")
                print(item["detail"].rstrip())
                print("--- program")
                print(item["source"].rstrip())
                if item["decompiled"]:
                    print("--- decompiled")
                    print(item["decompiled"].rstrip())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
