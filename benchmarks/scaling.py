"""How decompile time grows with the size of one construct, beside CPython's own compile().

Generated code is often large: a long ``elif`` dispatch, a 1,000-term ``and`` of guard checks,
hundreds of sequential statements.  A decompiler whose passes are linear keeps a constant ratio
to ``compile()`` as such a construct grows; one with a quadratic pass falls behind at every
doubling.  For each shape and size this prints the decompile time (``verify=False``), the time
CPython takes to compile the same source, their ratio, and the *growth*: the exponent k in
time ~ size^k between one size and the next (1 is linear, 2 quadratic).  A cell that takes
more than ``--timeout`` CPU seconds stops the shape's larger sizes.

Shapes (``n`` is the size):

* *elif-return*: ``if x == 0: return 0`` / ``elif x == 1: return 1`` ... ``n`` arms;
* *elif-assign*: the same arms assigning a local, one ``return`` after the chain;
* *and-chain*: ``return a[0] and a[1] and ...`` with ``n`` terms;
* *or-condition*: ``if a[0] or a[1] or ...: return 1`` with ``n`` terms;
* *sequential-if*: ``n`` statements ``if a[i]: s += i`` in a row;
* *loop-ifs*: the same inside a ``for`` loop;
* *nested-if*: ``n`` nested ``if a[i]:`` (capped by CPython's nesting limit);
* *try-sequence*: ``n`` statements ``try: s += a[i] except KeyError: s -= 1`` in a row;
* *straight-line*: ``n`` assignments ``v = v + a[i]``.

Usage::

    python benchmarks/scaling.py [--versions 3.9,3.13] [--sizes 100,200,400,800]
                                 [--shapes elif-return,and-chain] [--timeout 30]
                                 [--markdown PATH]

The worker runs under each version's interpreter, so this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
SIZES = [100, 200, 400, 800]
NESTING_LIMIT = 90  # below CPython's "too many statically nested blocks" and parser limits


# ============================================================================================
# Programs, built as ast (worker side)


def _name(n):
    return ast.Name(id=n, ctx=ast.Load())


def _store(n):
    return ast.Name(id=n, ctx=ast.Store())


def _item(i):
    return ast.Subscript(value=_name("a"), slice=ast.Constant(i), ctx=ast.Load())


def _test(i):
    return ast.Compare(left=_name("x"), ops=[ast.Eq()], comparators=[ast.Constant(i)])


def _elif(n, arm):
    """An if/elif chain of ``n`` arms, each body given by ``arm(i)``."""
    node = None
    for i in reversed(range(n)):
        node = ast.If(test=_test(i), body=arm(i), orelse=[node] if node is not None else [])
    return node


def _add(target, value):
    return ast.AugAssign(target=_store(target), op=ast.Add(), value=value)


def _sequential_ifs(n):
    return [ast.If(test=_item(i), body=[_add("s", ast.Constant(i))], orelse=[]) for i in range(n)]


def _shape_body(shape, n):
    """The statements of ``f(x, a)`` for one shape and size."""
    ret = ast.Return
    if shape == "elif-return":
        return [_elif(n, lambda i: [ret(ast.Constant(i))]), ret(ast.Constant(-1))]
    if shape == "elif-assign":
        assign = lambda i: [ast.Assign(targets=[_store("y")], value=ast.Constant(i))]  # noqa: E731
        return [ast.Assign(targets=[_store("y")], value=ast.Constant(-1)), _elif(n, assign),
                ret(_name("y"))]
    if shape == "and-chain":
        return [ret(ast.BoolOp(op=ast.And(), values=[_item(i) for i in range(n)]))]
    if shape == "or-condition":
        test = ast.BoolOp(op=ast.Or(), values=[_item(i) for i in range(n)])
        return [ast.If(test=test, body=[ret(ast.Constant(1))], orelse=[]), ret(ast.Constant(0))]
    zero = ast.Assign(targets=[_store("s")], value=ast.Constant(0))
    if shape == "sequential-if":
        return [zero] + _sequential_ifs(n) + [ret(_name("s"))]
    if shape == "loop-ifs":
        loop = ast.For(target=_store("x"), iter=ast.Call(func=_name("range"), args=[ast.Constant(2)],
                                                         keywords=[]),
                       body=_sequential_ifs(n), orelse=[])
        return [zero, loop, ret(_name("s"))]
    if shape == "nested-if":
        node = [_add("s", ast.Constant(1))]
        for i in reversed(range(min(n, NESTING_LIMIT))):
            node = [ast.If(test=_item(i), body=node, orelse=[])]
        return [zero] + node + [ret(_name("s"))]
    if shape == "try-sequence":
        tries = [
            ast.Try(body=[_add("s", _item(i))],
                    handlers=[ast.ExceptHandler(type=_name("KeyError"), name=None,
                                                body=[ast.AugAssign(target=_store("s"), op=ast.Sub(),
                                                                    value=ast.Constant(1))])],
                    orelse=[], finalbody=[])
            for i in range(n)
        ]
        return [zero] + tries + [ret(_name("s"))]
    if shape == "straight-line":
        v0 = ast.Assign(targets=[_store("v")], value=ast.Constant(0))
        steps = [ast.Assign(targets=[_store("v")], value=ast.BinOp(left=_name("v"), op=ast.Add(),
                                                                    right=_item(i)))
                 for i in range(n)]
        return [v0] + steps + [ret(_name("v"))]
    raise ValueError("unknown shape " + shape)


SHAPES = ["elif-return", "elif-assign", "and-chain", "or-condition", "sequential-if", "loop-ifs",
          "nested-if", "try-sequence", "straight-line"]


def program(shape, n):
    """Source of a module defining ``f(x, a)`` of one shape and size."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg="x"), ast.arg(arg="a")], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = ast.FunctionDef(name="f", args=args, body=_shape_body(shape, n), decorator_list=[],
                         returns=None, type_comment=None)
    if sys.version_info >= (3, 12):
        fn.type_params = []
    module = ast.Module(body=[fn], type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


# ============================================================================================
# Worker: one interpreter, every cell


class _CpuTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _CpuTimeout()


def _cpu_limited(fn, seconds):
    """fn's seconds of wall time, or None when it used more than ``seconds`` of CPU."""
    signal.signal(signal.SIGVTALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    start = time.perf_counter()
    try:
        fn()
    except _CpuTimeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    return time.perf_counter() - start


def _measure(source, timeout):
    """(compile() seconds, decompile seconds or None on timeout, outcome) of one program."""
    from pellucid import decompile
    from pellucid.decompiler.errors import DecompilationError

    compile_s = min(_cpu_limited(lambda: compile(source, "<scaling>", "exec"), timeout)
                    for _ in range(3))
    namespace = {}
    exec(compile(source, "<scaling>", "exec"), namespace)
    outcome = ["ok"]

    def run():
        try:
            decompile(namespace["f"], verify=False)
        except DecompilationError as e:
            outcome[0] = "refused: " + str(e).splitlines()[0][:60]

    # best of up to 3 (short runs are noisy), one run once it takes over a second
    times = []
    while len(times) < 3 and (not times or times[-1] < 1.0):
        seconds = _cpu_limited(run, timeout)
        if seconds is None:
            return compile_s, None, "timeout"
        times.append(seconds)
    return compile_s, min(times), outcome[0]


def worker(shapes, sizes, timeout):
    sys.setrecursionlimit(100000)
    _measure(program("elif-return", 5), timeout)  # imports and first-call costs out of the table
    rows = []
    for shape in shapes:
        for n in sizes:
            compile_s, seconds, outcome = _measure(program(shape, n), timeout)
            rows.append({"shape": shape, "n": n, "compile": compile_s, "decompile": seconds,
                         "outcome": outcome})
            if seconds is None:
                break
    return rows


# ============================================================================================
# Driver


def _growth(prev, row):
    if not prev or prev["decompile"] is None or row["decompile"] is None or prev["shape"] != row["shape"]:
        return "-"
    if prev["decompile"] <= 0 or row["decompile"] <= 0:
        return "-"
    return f"{math.log(row['decompile'] / prev['decompile']) / math.log(row['n'] / prev['n']):.2f}"


def print_table(version, rows):
    print(f"\nPython {version}")
    print(f"{'shape':<14} {'n':>6} {'decompile s':>12} {'compile() s':>12} {'ratio':>10} {'growth':>7}"
          "  outcome")
    print("-" * 80)
    prev = None
    for row in rows:
        d = row["decompile"]
        ratio = f"{d / row['compile']:10.0f}" if d is not None and row["compile"] else f"{'-':>10}"
        shown = f"{d:.3f}" if d is not None else "timeout"
        print(f"{row['shape']:<14} {row['n']:6d} {shown:>12} {row['compile']:12.4f} {ratio}"
              f" {_growth(prev, row):>7}  {row['outcome']}")
        prev = row


def main(argv=None):
    sys.path.insert(0, HERE)
    from page import about_from_doc, markdown_page
    from page import add_option as add_markdown_option
    from roundtrip import pyenv_python

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--timeout", type=float, default=30.0, help="CPU seconds per cell")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    shapes = args.shapes.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.worker:
        json.dump(worker(shapes, sizes, args.timeout), sys.stdout)
        return 0
    title = "Scaling: decompile time as one construct grows"
    status = 0
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        print("```")
        print("decompile with verify=False; compile(): CPython compiling the same source, best of 3;")
        print("growth: k in time ~ n^k from the previous size (1 linear, 2 quadratic)")
        for version in args.versions.split(","):
            python = pyenv_python(version)
            if python is None:
                print(f"\nPython {version}: not found")
                status = 1
                continue
            env = dict(os.environ, PYTHONPATH=SRC)
            proc = subprocess.run(
                [python, os.path.abspath(__file__), "--worker", "--shapes", args.shapes,
                 "--sizes", args.sizes, "--timeout", str(args.timeout)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
            if proc.returncode != 0:
                print(f"\nPython {version}: the worker failed (exit {proc.returncode})")
                status = 1
                continue
            version_line = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                                          capture_output=True, text=True).stdout.strip()
            print_table(version_line, json.loads(proc.stdout))
        print("```")
    return status


if __name__ == "__main__":
    sys.exit(main())
