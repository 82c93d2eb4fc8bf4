"""Snapshot of every decompiler output over the corpora: a refactoring must leave it identical.

For each CPython version, one file ``DIR/3.X.tsv`` with one line per code object::

    <label> TAB <result>

where *result* is ``ok <hash> <check>`` (the first 16 hex digits of the SHA-256 of the
decompiled source, ``verify=False``; *check* is what ``verify`` says of it, as
``benchmarks/roundtrip.py`` asks: ``exact``, ``mismatch:<category>`` or ``no-compile``, or
``-`` with ``--no-verify``), ``refused <reason>`` (a ``DecompilationError``'s reason, without the
offset, name and version the message adds), ``internal <reason>`` (one marked ``.internal``),
``crash <exception type>`` or ``timeout``.  Beside it, ``DIR/3.X.dead`` lists each output
with dead statements (``benchmarks/dead_code.py``: code after a return, which verification
cannot see) as ``<label> TAB <count>``.  The corpora, all compiled by the version under test:

* *stdlib*: every function of ``benchmarks/roundtrip.py``'s module list (``roundtrip.walk_code``:
  defs, not lambdas or comprehensions, which their function covers) and each module whole;
* *samples*: every ``.py`` file under ``tests/decompiler/samples`` (a file in syntax the version
  lacks is left out): each function, as above, and the file whole;
* *random*: ``--count`` programs of each ``benchmarks/random_programs.py`` family (the same
  labels, ``family:seed``, from the same first seeds), each decompiled as that benchmark does
  (a property-generator module whole, a loop program's ``f``).

``--quick`` keeps every 4th stdlib module, every sample file and 50 programs per family.
``--src`` decompiles with another checkout's ``src`` (a baseline from ``main``, say), and
``--force`` lets the decoder read a version ``decode.SUPPORTED_VERSIONS`` leaves out (to
compare the readings of a version being taught).

Usage::

    python benchmarks/snapshot.py record [--dir build/snapshot] [--versions 3.9,3.13]
                                         [--count 300] [--quick] [--jobs 2]
                                         [--src OTHER_CHECKOUT/src] [--force] [--no-verify]
    python benchmarks/snapshot.py compare OLD_DIR NEW_DIR [--versions ...] [--show 40]

``compare`` prints, per version, how many results changed, appeared or disappeared, grouped by
the kind of change (``ok -> refused`` ...), then each changed label with its old and new result,
and how many outputs have dead statements before and after; it exits 1 when anything differs.  Run it with the development environment (the property
generator imports pytest); each version's worker is ``/work/main/.venv-3.X``'s interpreter or
``.venv-3.X``/``.venv`` under the repository, or pyenv's.  The worker runs under Python 3.9, so
this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")
SAMPLES = os.path.join(ROOT, "tests", "decompiler", "samples")
sys.path.insert(0, HERE)

import dead_code  # noqa: E402
import random_programs  # noqa: E402
import roundtrip  # noqa: E402

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
DECOMPILE_SECONDS = 20.0  # CPU seconds for one code object: longer counts as a hang
QUICK_COUNT = 50
QUICK_STRIDE = 4  # --quick: every 4th stdlib module


# ============================================================================================
# Worker side (runs under the interpreter being measured)


class _Timeout(BaseException):
    """A decompilation ran too long (a BaseException: ``except Exception`` cannot swallow it)."""


def _on_alarm(signum, frame):
    raise _Timeout()


_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def result_of(code: types.CodeType, pellucid, verify=None) -> str:
    """The snapshot result of decompiling ``code``: its hash and check, or why it was refused."""
    return outcome_of(code, pellucid, verify)[0]


def outcome_of(code: types.CodeType, pellucid, verify=None) -> tuple[str, str]:
    """(``result_of``'s result, the decompiled source or "" when there is none)."""
    signal.setitimer(signal.ITIMER_VIRTUAL, DECOMPILE_SECONDS, 0.5)
    try:
        try:
            source = pellucid.decompile(code, verify=False)
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    except _Timeout:
        return "timeout", ""
    except pellucid.DecompilationError as exc:
        kind = "internal" if getattr(exc, "internal", False) else "refused"
        reason = _ADDR.sub(" at 0x?", str(getattr(exc, "reason", exc)))
        return f"{kind} {' '.join(reason.split())[:200]}", ""
    except Exception as exc:  # a bug in the decompiler
        return f"crash {type(exc).__name__}", ""
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    return f"ok {digest} {_check(source, code, verify)}", source


def _check(source: str, code: types.CodeType, verify) -> str:
    """What ``verify`` says of ``source`` as ``code``'s decompilation."""
    if verify is None:
        return "-"
    try:
        try:
            recompiled = verify.recompile(source, code)
        except (SyntaxError, ValueError, LookupError):
            return "no-compile"
        diffs = verify.differences(code, recompiled)
    except Exception as exc:  # a bug in verify
        return f"verify-crash:{type(exc).__name__}"
    return f"mismatch:{diffs[0].category}" if diffs else "exact"


def _functions(module_code: types.CodeType):
    """(qualname, code) of each function of a module, labels made unique in code order."""
    seen: collections.Counter = collections.Counter()
    for qualname, code in roundtrip.walk_code(module_code):
        seen[qualname] += 1
        yield (qualname if seen[qualname] == 1 else f"{qualname}#{seen[qualname]}"), code


def _compile(text: str, path: str):
    try:
        return compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def _module_rows(prefix: str, module_code: types.CodeType, pellucid, verify):
    for qualname, code in _functions(module_code):
        yield (f"{prefix}:{qualname}",) + outcome_of(code, pellucid, verify)
    yield (prefix,) + outcome_of(module_code, pellucid, verify)


def _stdlib(quick: bool):
    modules = roundtrip.MODULES[::QUICK_STRIDE] if quick else roundtrip.MODULES
    for name in modules:
        found = roundtrip.module_source(name)
        if found is not None:
            yield f"stdlib:{name}", found[0], found[1]


def _samples():
    for folder, dirs, files in sorted(os.walk(SAMPLES)):
        dirs.sort()
        for file in sorted(files):
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                with open(path, encoding="utf-8") as f:
                    yield f"sample:{os.path.relpath(path, SAMPLES)}", path, f.read()


def worker(programs_path: str, out_path: str, quick: bool, force: bool, check: bool) -> int:
    """Write this interpreter's snapshot of every corpus to ``out_path``."""
    import warnings

    warnings.simplefilter("ignore")  # generated code is full of `x is 1`
    import pellucid
    from pellucid.decompiler import decode

    if force and decode.PY not in decode.SUPPORTED_VERSIONS:
        decode.SUPPORTED_VERSIONS += (decode.PY,)
    verify = None
    if check:
        from pellucid.decompiler import verify

    signal.signal(signal.SIGVTALRM, _on_alarm)
    with open(programs_path, encoding="utf-8") as f:
        families = json.load(f)
    rows = []
    for prefix, path, text in list(_stdlib(quick)) + list(_samples()):
        module_code = _compile(text, path)
        if module_code is not None:
            rows.extend(_module_rows(prefix, module_code, pellucid, verify))
    for programs in families.values():
        for program in programs:
            module_code = _compile(program["source"], "<random>")
            if module_code is None:
                continue  # syntax this version lacks
            label = "random:" + program["label"]
            if program["kind"] == "loop":
                code = next(c for c in module_code.co_consts if getattr(c, "co_name", "") == "f")
                rows.append((label,) + outcome_of(code, pellucid, verify))
            else:
                rows.append((label,) + outcome_of(module_code, pellucid, verify))
    with open(out_path, "w", encoding="utf-8") as f:
        for label, result, _ in rows:
            f.write(f"{label}\t{result}\n")
    with open(dead_path(out_path), "w", encoding="utf-8") as f:
        for label, _, source in rows:
            n = dead_code.dead_in_source(source)
            if n:
                f.write(f"{label}\t{n}\n")
    return 0


def dead_path(tsv_path: str) -> str:
    """The side file of a snapshot file: each output with dead statements and how many
    (``dead_code.py``), one ``<label> TAB <count>`` line each."""
    return tsv_path[: -len(".tsv")] + ".dead"


# ============================================================================================
# Driver


def python_for(version: str) -> str | None:
    """The interpreter whose venv can import the decompiler for ``version``."""
    candidates = [
        os.path.join(ROOT, f".venv-{version}", "bin", "python"),
        f"/work/main/.venv-{version}/bin/python",
    ]
    if version == "3.11":
        candidates += [os.path.join(ROOT, ".venv", "bin", "python"), "/work/main/.venv/bin/python"]
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    return roundtrip.pyenv_python(version)


def load(path: str) -> dict:
    """label -> result of one snapshot file."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, _, result = line.rstrip("\n").partition("\t")
            out[label] = result
    return out


def _kind(result: str | None) -> str:
    """``absent``, ``refused``, ``internal``, ``crash``, ``timeout``, or ``ok/<check>``."""
    if result is None:
        return "absent"
    parts = result.split(" ")
    if parts[0] == "ok" and len(parts) > 2 and parts[2] != "-":
        return "ok/" + parts[2].split(":")[0]
    return parts[0]


def compare_files(old: dict, new: dict, show: int) -> list[str]:
    """Lines describing how ``new`` differs from ``old`` (empty: identical)."""
    changed = [
        (label, old.get(label), new.get(label))
        for label in list(old) + [k for k in new if k not in old]
        if old.get(label) != new.get(label)
    ]
    if not changed:
        return []
    kinds = collections.Counter(f"{_kind(a)} -> {_kind(b)}" for _, a, b in changed)
    lines = [f"  {len(changed)} of {len(new)} changed: "
             + ", ".join(f"{k} {n}" for k, n in kinds.most_common())]  # fmt: skip
    for label, a, b in changed[:show]:
        lines.append(f"  {label}\n      was {a}\n      now {b}")
    if len(changed) > show:
        lines.append(f"  ... and {len(changed) - show} more")
    return lines


def record(args: argparse.Namespace) -> int:
    count = QUICK_COUNT if args.quick and args.count is None else (args.count or 300)
    families = {f: random_programs.generate(f, count) for f in random_programs.FAMILIES}
    os.makedirs(args.dir, exist_ok=True)
    fd, programs = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(families, f)

    def run(version: str) -> str:
        python = python_for(version)
        if python is None:
            return f"{version}: no interpreter found, skipped"
        out = os.path.join(args.dir, f"{version}.tsv")
        cmd = [python, os.path.abspath(__file__), "worker", programs, out]
        cmd += (
            ["--quick"] * args.quick + ["--force"] * args.force + ["--no-verify"] * args.no_verify
        )
        started = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.src))
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            return f"{version}: worker failed\n{done.stderr[-3000:]}"
        rows = load(out)
        kinds = collections.Counter(_kind(r) for r in rows.values())
        summary = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        summary += f"; {len(load(dead_path(out)))} with dead statements"
        return f"{version}: {len(rows)} code objects ({summary}) in " \
               f"{time.perf_counter() - started:.0f}s -> {out}"  # fmt: skip

    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for line in pool.map(run, args.versions.split(",")):
                print(line, flush=True)
    finally:
        os.unlink(programs)
    return 0


def _compare_dead(old_path: str, new_path: str, show: int) -> str:
    """One line (and the outputs that gained dead statements): how many outputs have dead
    statements in each snapshot (a snapshot recorded before the side file existed: ``?``)."""
    old = load(old_path) if os.path.exists(old_path) else None
    new = load(new_path) if os.path.exists(new_path) else None
    line = "  outputs with dead statements: "
    line += f"{'?' if old is None else len(old)} -> {'?' if new is None else len(new)}"
    if old is not None and new is not None:
        worse = [k for k in new if int(new[k]) > int(old.get(k, 0))]
        line += "".join(f"\n    more dead statements: {k} ({old.get(k, 0)} -> {new[k]})"
                        for k in worse[:show])  # fmt: skip
    return line


def compare(args: argparse.Namespace) -> int:
    differs = False
    for version in args.versions.split(","):
        old_path = os.path.join(args.old, f"{version}.tsv")
        new_path = os.path.join(args.new, f"{version}.tsv")
        if not (os.path.exists(old_path) and os.path.exists(new_path)):
            print(f"{version}: missing in {'old' if not os.path.exists(old_path) else 'new'}")
            continue
        lines = compare_files(load(old_path), load(new_path), args.show)
        print(f"{version}: " + ("identical" if not lines else "DIFFERS"))
        for line in lines:
            print(line)
        print(_compare_dead(dead_path(old_path), dead_path(new_path), args.show))
        differs = differs or bool(lines)
    return 1 if differs else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="decompile the corpora on each version, write DIR/3.X.tsv")
    rec.add_argument("--dir", default=os.path.join(ROOT, "build", "snapshot"))
    rec.add_argument("--versions", default=",".join(VERSIONS))
    rec.add_argument("--count", type=int, help="programs per random family (default 300)")
    rec.add_argument("--quick", action="store_true", help="a quarter of the stdlib, 50 programs")
    rec.add_argument("--jobs", type=int, default=1, help="versions run at once")
    rec.add_argument("--src", default=SRC, help="the pellucid source tree to decompile with")
    rec.add_argument("--force", action="store_true", help="read unsupported versions too")
    rec.add_argument("--no-verify", action="store_true", help="hashes only (twice as fast)")
    cmp = sub.add_parser("compare", help="print how NEW differs from OLD; exit 1 if it does")
    cmp.add_argument("old")
    cmp.add_argument("new")
    cmp.add_argument("--versions", default=",".join(VERSIONS))
    cmp.add_argument("--show", type=int, default=40, help="changed labels printed per version")
    work = sub.add_parser("worker")
    work.add_argument("programs")
    work.add_argument("out")
    work.add_argument("--quick", action="store_true")
    work.add_argument("--force", action="store_true")
    work.add_argument("--no-verify", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "worker":
        return worker(args.programs, args.out, args.quick, args.force, not args.no_verify)
    return record(args) if args.command == "record" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
