"""Random loops full of try/except/else/finally, with, break, continue and return: wrong code?

Usage::

    python benchmarks/loop_try_programs.py [--versions 3.9,3.11] [--seeds 1,2,3] [--count 400]
    python benchmarks/loop_try_programs.py --tiny [--versions 3.9,3.11]
    python benchmarks/loop_try_programs.py --const-returns --seeds 100,101 [--versions 3.11]

For each CPython version pyenv has, a worker running that interpreter builds ``--count``
random functions per seed (a loop whose body nests ifs, try statements with one or two
clauses, else and finally, with statements, and break / continue / return / raise anywhere;
code after the loop or not), decompiles each with ``verify=False`` (what a user gets by
default), runs the original and the decompiled function on nine inputs, and compares results,
raised exceptions and what the context managers logged.  Columns: *same* (decompiled, behaves
the same), *refused* (``DecompilationError``), *wrong* (decompiled, behaves differently: a
decompiler bug), *crash* (any other exception).  Each wrong program is listed as
``seed:index`` with its first differing input; ``--show=seed:index`` prints it and its
decompiled source.  This complements ``tests/decompiler/test_property.py``, whose programs
rarely nest try statements in loops; the wrong programs it lists are open decompiler bugs.  The
command exits 1 while any program is wrong.

``--tiny`` checks, instead of random programs, every program of a small shape: each of the
three loops with a body of one or two statements, each a leaf (break, continue, return, a call)
alone, in an if with or without an else, a try/except, a try/finally or a with (14,112
programs; listed as ``0:index``).  Random deep nesting missed shapes this small that were wrong
on a whole version (``while c: if t: continue`` followed by a return).  ``--nested`` goes one
level deeper: one compound statement (if, if/else, try/except with the tiny statement in its
body or its clause, try/except/else with or without a finally, with) holding a tiny statement,
then nothing, a call or a return (8,064 programs; ``-1:index``).  ``--const-returns`` draws the random programs with
more leaves: ``return 5``, ``return None`` and ``return n`` besides the tuple return (the same
seeds give other programs than without it).

The worker runs under Python 3.9, so this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from page import about_from_doc, markdown_page  # noqa: E402
from page import add_option as add_markdown_option  # noqa: E402
from roundtrip import pyenv_python  # noqa: E402

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
LEAVES = ["break", "continue", "return ('r', log)", "pass", "log.append('x')", "raise KeyError('k')"]
# --const-returns: returns of constants and locals too (3.11+ lay `return <constant>` behind the
# copies of enclosing finally bodies, unprotected: shapes the tuple return above never makes)
CONST_LEAVES = LEAVES + ["return 5", "return None", "return n"]
LOOPS = ["while True:", "for k in ks:", "while ks:"]
# ([2, 1, 0]: an IndexError under `while ks:`, so an except clause runs and the loop goes on)
INPUTS = [[], [1], [2, 3], [3, 1, 2], [0, 0, 0, 0, 1], [1, 2, 3, 4, 5, 6], [3, 3, 3], [2] * 20, [2, 1, 0]]

PRELUDE = '''
class CM:
    def __init__(self, log): self.log = log
    def __enter__(self): self.log.append("in")
    def __exit__(self, *a): self.log.append("out"); return False
def nxt(ks):
    if not ks: raise IndexError("empty")
    v = ks.pop()
    if v == 3: raise ValueError(v)
    if v == 0: raise IndexError(v)
    return v
'''


def _ind(lines):
    return ["    " + line for line in lines]


def _block(rng, depth, leaves):
    out = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        out += _stmt(rng, depth, leaves)
    return out


def _stmt(rng, depth, leaves):
    c = rng.random()
    if c < 0.35 or depth > 2:
        return [rng.choice(["log.append(nxt(ks))", "log.append(1)", "n += 1", rng.choice(leaves)])]
    if c < 0.55:
        out = ["if nxt(ks) % 2:"] + _ind(_block(rng, depth + 1, leaves))
        if rng.random() < 0.5:
            out += ["else:"] + _ind(_block(rng, depth + 1, leaves))
        return out
    if c < 0.85:
        out = ["try:"] + _ind(_block(rng, depth + 1, leaves))
        for exc in ["IndexError", "ValueError"][: rng.choice([1, 1, 2])]:
            out += [f"except {exc}" + (" as e:" if rng.random() < 0.3 else ":")]
            out += _ind(_block(rng, depth + 1, leaves))
        if rng.random() < 0.3:
            out += ["else:"] + _ind(_block(rng, depth + 1, leaves))
        if rng.random() < 0.2:
            out += ["finally:"] + _ind(["log.append('f')"])
        return out
    return ["with CM(log):"] + _ind(_block(rng, depth + 1, leaves))


def _function(loop, body, after):
    """The source of ``f(ks)``: ``body`` in ``loop`` (at most 13 rounds, counted in ``n``),
    then ``after``."""
    guarded = ["if n > 12:", "    break", "n += 1"] + body
    lines = ["def f(ks):", "    log = []", "    n = 0"] + _ind([loop] + _ind(guarded)) + _ind(after)
    return "\n".join(lines) + "\n"


def program(rng, leaves=None):
    """One random function ``f(ks)`` (``leaves``: the statements that end paths, default LEAVES)."""
    body = _block(rng, 0, leaves or LEAVES)
    loop = rng.choice(LOOPS)
    after = []
    if rng.random() < 0.8:
        after = rng.choice([
            ["return ('end', log, n)"],
            ["log.append('after')", "return log, n, len(ks)"],
            ["if log:", "    return log", "return n"],
            ["return n"],  # (small: 3.12+ copy it into each break's path)
        ])
    return _function(loop, body, after)


# Loops nesting try/finally whose finally itself returns, breaks or continues (so it overrides
# a return, break or exception of the body), try/except/else and with, one loop inside another.
FINALLY_LEAVES = [
    "break",
    "continue",
    "return ('r', log)",
    "return n",
    "return None",
    "log.append(nxt(ks))",
    "raise KeyError('k')",
]
FINALLY_EXITS = ["return ('f', log)", "return -n", "break", "continue", "log.append('f')"]


def _finally_block(rng, depth):
    out = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        out += _finally_stmt(rng, depth)
        if out[-1].split(" ")[0] in ("break", "continue", "return", "raise"):
            break  # nothing after a jump: the compiler drops it, so would a reader
    return out


def _finally_body(rng):
    """A finally: logs, then maybe leaves the loop or the function, at once or on a test."""
    out = ["log.append('f')"]
    c = rng.random()
    if c < 0.35:
        out.append(rng.choice(FINALLY_EXITS))
    elif c < 0.7:
        out += ["if nxt(ks) % 2:"] + _ind([rng.choice(FINALLY_EXITS)])
    return out


def _finally_stmt(rng, depth):
    c = rng.random()
    if c < 0.3 or depth > 2:
        return [rng.choice(["log.append(nxt(ks))", "log.append(1)", "n += 1", rng.choice(FINALLY_LEAVES)])]
    if c < 0.4:
        out = ["if nxt(ks) % 2:"] + _ind(_finally_block(rng, depth + 1))
        if rng.random() < 0.4:
            out += ["else:"] + _ind(_finally_block(rng, depth + 1))
        return out
    if c < 0.72:
        out = ["try:"] + _ind(_finally_block(rng, depth + 1))
        if rng.random() < 0.4:
            for exc in ["IndexError", "ValueError"][: rng.choice([1, 1, 2])]:
                out += [f"except {exc}:"] + _ind(_finally_block(rng, depth + 1))
            if rng.random() < 0.3:
                out += ["else:"] + _ind(_finally_block(rng, depth + 1))
        return out + ["finally:"] + _ind(_finally_body(rng))
    if c < 0.87:
        return ["with CM(log):"] + _ind(_finally_block(rng, depth + 1))
    # a loop inside: break and continue below it are its own, returns leave the function
    if rng.random() < 0.5:
        return ["for j in (0, 1, 2):"] + _ind(_finally_block(rng, depth + 1))
    # (the log grows each round: a continue cannot make it endless)
    return ["while len(log) < 40:"] + _ind(["log.append('w')"] + _finally_block(rng, depth + 1))


def finally_program(rng):
    """One random ``f(ks)``: a loop whose body nests try/finally statements -- their bodies and
    their finally clauses return, break or continue -- with try/except, with and inner loops."""
    body = _finally_block(rng, 0)
    after = rng.choice([[], ["return ('end', log, n)"], ["log.append('after')", "return log, n"], ["return n"]])
    return _function(rng.choice(LOOPS), body, after)


TINY_LEAVES = ["log.append(nxt(ks))", "continue", "break", "return ('r', log)"]


def _tiny_statements():
    """Each leaf alone, in an if (with and without an else), a try/except, a try/finally and
    a with."""
    out = [[leaf] for leaf in TINY_LEAVES]
    for a in TINY_LEAVES:
        out.append(["if nxt(ks) % 2:"] + _ind([a]))
        for b in TINY_LEAVES:
            out.append(["if nxt(ks) % 2:"] + _ind([a]) + ["else:"] + _ind([b]))
            out.append(["try:"] + _ind([a]) + ["except IndexError:"] + _ind([b]))
        out.append(["try:"] + _ind([a]) + ["finally:"] + _ind(["log.append('f')"]))
        out.append(["with CM(log):"] + _ind([a]))
    return out


def tiny_programs():
    """Every loop (three kinds) whose body is one or two of the tiny statements, with and
    without a return after it: the small shapes, all of them (14,112 programs)."""
    stmts = _tiny_statements()
    bodies = [[s] for s in stmts] + [[s, t] for s in stmts for t in stmts]
    out = []
    for loop in LOOPS:
        for body in bodies:
            for tail in ([], ["return ('end', log)"]):
                out.append(_function(loop, [x for st in body for x in st], tail))
    return out


def nested_programs():
    """One compound statement whose arm holds a tiny statement, a leaf or a call or nothing
    after it, in each of the three loops (8,064 programs): the tiny shapes one level deeper."""
    calls = ["log.append(nxt(ks))"]
    outers = []
    for a in _tiny_statements():
        outers.append(["if nxt(ks) % 2:"] + _ind(a))
        outers.append(["try:"] + _ind(a) + ["except IndexError:"] + _ind(["log.append(1)"]))
        outers.append(["try:"] + _ind(calls) + ["except IndexError:"] + _ind(a))
        outers.append(["with CM(log):"] + _ind(a))
        for b in TINY_LEAVES:
            outers.append(["if nxt(ks) % 2:"] + _ind(a) + ["else:"] + _ind([b]))
            outers.append(["try:"] + _ind(a) + ["except IndexError:"] + _ind([b]))
            outers.append(["try:"] + _ind(calls) + ["except IndexError:"] + _ind(a) + ["else:"] + _ind([b]))
    # (3.12+ copy a small return after the loop into a break's path through a finally body)
    finals = []
    for a in _tiny_statements():
        for b in TINY_LEAVES:
            finals.append(
                ["try:"] + _ind(calls) + ["except IndexError:"] + _ind(a) + ["else:"] + _ind([b])
                + ["finally:"] + _ind(["log.append('f')"])
            )
    out = []
    for loop in LOOPS:
        for outer in outers:
            for after in ([], ["log.append('a')"], ["return ('x', log)"]):
                out.append(_function(loop, outer + after, ["return ('end', log)"]))
        for outer in finals:
            for after in ([], ["log.append('a')"]):
                out.append(_function(loop, outer + after, ["return n"]))
    return out


def _run(fn, ks):
    """What a call did: its result or exception, and what it left of the list it consumed
    (two readings may return the same value after taking different paths)."""
    ks = list(ks)
    try:
        return ["ok", repr(fn(ks)), repr(ks)]
    except Exception as e:  # noqa: BLE001 - what the program raised is its behaviour
        return ["raise", type(e).__name__, str(e), repr(ks)]


def worker(seeds, count, show, leaves=None):
    """Runs under the interpreter being measured; prints one JSON line per seed."""
    sys.path.insert(0, os.path.join(ROOT, "src"))
    import pellucid
    from pellucid.decompiler import DecompilationError

    for seed in seeds:
        if seed == TINY:
            sources = tiny_programs()
        elif seed == NESTED:
            sources = nested_programs()
        else:
            rng = random.Random(seed)
            sources = [program(rng, leaves) for _ in range(count)]
        counts = {"same": 0, "refused": 0, "wrong": 0, "crash": 0}
        wrong = []
        for i, src in enumerate(sources):
            ns = {}
            exec(PRELUDE + src, ns)
            try:
                out = pellucid.decompile(ns["f"])
                ns2 = {}
                exec(PRELUDE + out, ns2)
            except DecompilationError:
                counts["refused"] += 1
                continue
            except Exception as e:  # noqa: BLE001 - a crash is a bug, counted
                counts["crash"] += 1
                wrong.append(f"{seed}:{i} crash {type(e).__name__}")
                continue
            if show == f"{seed}:{i}":
                print(src + "--- decompiled\n" + out)
            bad = [ks for ks in INPUTS if _run(ns["f"], ks) != _run(ns2["f"], ks)]
            if bad:
                counts["wrong"] += 1
                wrong.append(f"{seed}:{i} on {bad[0]!r}")
            else:
                counts["same"] += 1
        print("RESULT " + json.dumps({"seed": seed, "counts": counts, "wrong": wrong}))


TINY = 0  # the seed that stands for the exhaustive tiny programs
NESTED = -1  # and the one for the nested ones


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", default=",".join(VERSIONS))
    ap.add_argument("--seeds", default="1,2,3,4,5", help="0 stands for the tiny programs, -1 for the nested ones")
    ap.add_argument("--tiny", action="store_true", help="the exhaustive tiny programs instead")
    ap.add_argument("--nested", action="store_true", help="the exhaustive nested programs instead")
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--show", default="", help="seed:index of a program to print")
    ap.add_argument(
        "--const-returns", action="store_true",
        help="random programs whose leaves also return constants and locals (CONST_LEAVES)",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    add_markdown_option(ap)
    args = ap.parse_args()
    seeds = [TINY] if args.tiny else [NESTED] if args.nested else [int(s) for s in args.seeds.split(",")]
    leaves = CONST_LEAVES if args.const_returns else None
    if args.worker:
        worker(seeds, args.count, args.show, leaves)
        return 0
    title = "Random loops with try statements: behaviour against the original"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        return run(args, seeds)


def run(args: argparse.Namespace, seeds: list[int]) -> int:
    """A worker per Python version; 1 while any program decompiles to wrong code."""
    print(f"{'python':7s} {'seeds':>5s} {'programs':>8s} {'same':>6s} {'refused':>8s} {'wrong':>6s} "
          f"{'crash':>6s}  wrong programs (seed:index)")
    total_wrong = 0
    for version in args.versions.split(","):
        python = pyenv_python(version)
        if python is None:
            print(f"{version:7s} skipped: interpreter not installed")
            continue
        p = subprocess.run(
            [python, os.path.abspath(__file__), "--worker", "--seeds", ",".join(map(str, seeds)),
             "--count", str(args.count), f"--show={args.show}"]
            + (["--const-returns"] if args.const_returns else []),
            capture_output=True, text=True,
        )
        rows = [json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")]
        for line in p.stdout.splitlines():
            if not line.startswith("RESULT "):
                print(line)
        if not rows:
            print(f"{version:7s} error: {(p.stderr.strip().splitlines() or ['no output'])[-1]}")
            continue
        c = {k: sum(r["counts"][k] for r in rows) for k in rows[0]["counts"]}
        wrong = [w for r in rows for w in r["wrong"]]
        total_wrong += c["wrong"] + c["crash"]
        listed = ", ".join(wrong[:6]) + (" ..." if len(wrong) > 6 else "")
        print(f"{version:7s} {len(rows):5d} {sum(c.values()):8d} {c['same']:6d} {c['refused']:8d} "
              f"{c['wrong']:6d} {c['crash']:6d}  {listed}")
    return 1 if total_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
