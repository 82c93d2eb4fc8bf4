"""Property test: pellucid never crashes and never returns unverified code on random programs.

Random but valid Python modules are built from ``ast`` nodes by a small seeded generator
(expressions of every kind, assignments, if/while/for with break/continue, comprehensions,
lambdas, closures with nonlocal, f-strings, walrus; with lower probability try/with/yield),
compiled, and every code object in them is decompiled:

* ``decompile(code)`` may raise ``DecompilationError`` -- any other exception is a failure;
* the returned source is recompiled and compared (``pellucid.decompiler.verify``), giving the
  counts exact / error / mismatch / does-not-compile;
* ``decompile(code, strict=True)`` either raises ``DecompilationError`` or returns source that
  verifies -- returning source that does not verify is a failure;
* top-level functions whose unverified output mismatches are run, original and recompiled, on a
  few argument sets: a different result, exception or output is *wrong code* (its own test);
* every top-level function *object* (random positional-only / keyword-only / *args / **kwargs
  parameters, constant defaults, annotations) is decompiled with verify=True and its executed
  ``def`` must have the original's signature -- a difference is wrong code too.

If ``hypothesmith`` is installed, programs from its grammar strategy are checked the same way.

Bounded and deterministic: ``PELLUCID_PROPERTY_EXAMPLES`` (default 500) programs from a fixed
seed (``PELLUCID_PROPERTY_SEED``, default 20240601).  With ``PELLUCID_ARTIFACTS=dir`` the counts
are written to ``dir/property-<python version>.json`` for the README.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import inspect
import io
import json
import os
import random
import re
import sys
import time
import traceback
import types
from collections import Counter
from pathlib import Path

import pytest
from samples._harness import (
    DECOMPILE,
    CaseTimeout,
    describe,
    exc_signature,
    normalize,
    recompile,
    time_limit,
)

from pellucid import DecompilationError

# generated code is full of `x is 1` and `1[2]`: valid, and warned about at compile time
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")

N_PROGRAMS = int(os.environ.get("PELLUCID_PROPERTY_EXAMPLES", "500"))
SEED = int(os.environ.get("PELLUCID_PROPERTY_SEED", "20240601"))
N_HYPOTHESMITH = int(os.environ.get("PELLUCID_HYPOTHESMITH_EXAMPLES", "30"))
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


# --------------------------------------------------------------------------- the generator

CONSTANTS = [0, 1, -1, 2, 7, 10, 255, 2**70, 1.5, -0.0, 0.25, 1j, "s", "", "ab", b"b", None,
             True, False, (1, 2), ("x", (None,)), ...]  # fmt: skip
BINOPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift,
          ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd]  # fmt: skip
CMPOPS = [ast.Lt, ast.LtE, ast.Eq, ast.NotEq, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is,
          ast.IsNot]  # fmt: skip
BUILTINS = ["len", "abs", "str", "min", "max", "sorted", "list", "tuple", "bool", "repr", "int"]
LOCALS = ["x", "y", "z", "w", "v"]
PARAMS = ["a", "b", "c"]


class Frame:
    def __init__(self, params, kind="function"):
        self.params = list(params)
        self.assigned = set()
        self.declared = set()  # global / nonlocal names
        self.loop_depth = 0
        self.kind = kind
        self.in_comprehension = 0


class ProgramGenerator:
    """Builds one random module from a seed.  ``features`` adds try/with/yield/class."""

    def __init__(self, seed: int, features: frozenset):
        self.rng = random.Random(seed)
        self.features = features
        self.frames: list[Frame] = []
        self.counter = 0
        # "runnable" programs avoid `**`, `<<` and huge ints, so their functions can be executed
        # (see safe_to_run) to tell wrong code from an equivalent encoding
        runnable = "runnable" in features
        self.binops = [op for op in BINOPS if not (runnable and op in (ast.Pow, ast.LShift))]
        self.constants = [c for c in CONSTANTS if not (runnable and c == 2**70)]

    # -- helpers
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def readable_names(self):
        names = ["G"]
        for fr in self.frames:
            names += fr.params + sorted(fr.assigned)
        return names

    def name(self, ctx=ast.Load):
        return ast.Name(id=self.pick(self.readable_names()), ctx=ctx())

    # -- expressions
    def expr(self, depth=0):
        if depth >= 3 or self.chance(0.25):
            return self.atom()
        kind = self.pick(
            ["binop", "unary", "boolop", "compare", "ifexp", "call", "subscript", "slice",
             "attr", "display", "comp", "lambda", "fstring", "walrus", "dict", "starcall"]
        )  # fmt: skip
        d = depth + 1
        if kind == "binop":
            return ast.BinOp(self.expr(d), self.pick(self.binops)(), self.expr(d))
        if kind == "unary":
            op = self.pick([ast.USub, ast.UAdd, ast.Not, ast.Invert])
            return ast.UnaryOp(op(), self.expr(d))
        if kind == "boolop":
            n = self.rng.randint(2, 3)
            return ast.BoolOp(self.pick([ast.And, ast.Or])(), [self.expr(d) for _ in range(n)])
        if kind == "compare":
            n = self.rng.randint(1, 3)
            return ast.Compare(
                self.expr(d),
                [self.pick(CMPOPS)() for _ in range(n)],
                [self.expr(d) for _ in range(n)],
            )
        if kind == "ifexp":
            return ast.IfExp(self.expr(d), self.expr(d), self.expr(d))
        if kind == "call":
            args = [self.expr(d) for _ in range(self.rng.randint(0, 2))]
            kw = []
            if self.chance(0.2):
                kw.append(ast.keyword(arg="key", value=self.expr(d)))
            return ast.Call(ast.Name(self.pick(BUILTINS), ast.Load()), args, kw)
        if kind == "starcall":
            args = [ast.Starred(self.name(), ast.Load())]
            kw = [ast.keyword(arg=None, value=ast.Dict([], []))] if self.chance(0.5) else []
            return ast.Call(ast.Name(self.pick(BUILTINS), ast.Load()), args, kw)
        if kind == "subscript":
            return ast.Subscript(self.expr(d), self.expr(d), ast.Load())
        if kind == "slice":
            parts = [self.expr(d) if self.chance(0.6) else None for _ in range(3)]
            return ast.Subscript(self.name(), ast.Slice(*parts), ast.Load())
        if kind == "attr":
            return ast.Attribute(self.expr(d), self.pick(["real", "imag", "attr", "x"]), ast.Load())
        if kind == "display":
            elts = [self.expr(d) for _ in range(self.rng.randint(0, 3))]
            if self.chance(0.3):
                elts.append(ast.Starred(self.name(), ast.Load()))
            node = self.pick([ast.List, ast.Tuple, ast.Set])
            if node is ast.Set and not elts:
                node = ast.List
            return node(elts, ast.Load()) if node is not ast.Set else ast.Set(elts)
        if kind == "dict":
            keys = [self.expr(d) for _ in range(self.rng.randint(0, 3))]
            values = [self.expr(d) for _ in keys]
            if self.chance(0.3):
                keys.append(None)
                values.append(self.name())
            return ast.Dict(keys, values)
        if kind == "comp":
            return self.comprehension(d)
        if kind == "lambda":
            return self.lambda_(d)
        if kind == "fstring":
            return self.fstring(d)
        if kind == "walrus" and not self.frame.in_comprehension and self.frame.kind == "function":
            target = self.pick(LOCALS)
            if target not in self.frame.declared:
                self.frame.assigned.add(target)
                return ast.NamedExpr(ast.Name(target, ast.Store()), self.expr(d))
        return self.atom()

    def atom(self):
        if self.chance(0.5):
            return self.name()
        return ast.Constant(self.pick(self.constants))

    def comprehension(self, depth):
        fr = self.frame
        fr.in_comprehension += 1
        gens = []
        loop_names = []
        for _ in range(self.rng.randint(1, 2)):
            var = self.fresh("q")
            ifs = []
            it = self.expr(depth + 1)
            loop_names.append(var)
            fr.params.append(var)  # readable inside the comprehension
            if self.chance(0.4):
                ifs.append(self.expr(depth + 1))
            gens.append(ast.comprehension(ast.Name(var, ast.Store()), it, ifs, is_async=0))
        elt = self.expr(depth + 1)
        kind = self.pick(["list", "set", "dict", "gen"])
        if kind == "list":
            node = ast.ListComp(elt, gens)
        elif kind == "set":
            node = ast.SetComp(elt, gens)
        elif kind == "dict":
            node = ast.DictComp(elt, self.expr(depth + 1), gens)
        else:
            node = ast.GeneratorExp(elt, gens)
        for var in loop_names:
            fr.params.remove(var)
        fr.in_comprehension -= 1
        return node

    def lambda_(self, depth):
        names = [self.fresh("l") for _ in range(self.rng.randint(0, 2))]
        defaults = [self.expr(depth + 1) for _ in names[: self.rng.randint(0, len(names))]]
        self.frames.append(Frame(names, kind="lambda"))
        body = self.expr(depth + 1)
        self.frames.pop()
        args = ast.arguments(
            posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=defaults,
        )  # fmt: skip
        return ast.Lambda(args, body)

    def fstring(self, depth):
        values = [ast.Constant("t")]
        for _ in range(self.rng.randint(1, 2)):
            spec = None
            if self.chance(0.3):
                spec = ast.JoinedStr([ast.Constant(self.pick([">5", ".2", "^3", "x"]))])
            conv = self.pick([-1, -1, 114, 115, 97])
            values.append(ast.FormattedValue(self.name(), conv, spec))
            values.append(ast.Constant(self.pick([" ", "-", ""])))
        return ast.JoinedStr(
            [v for v in values if not (isinstance(v, ast.Constant) and v.value == "")]
        )

    # -- statements
    def block(self, depth, n=None):
        n = n if n is not None else self.rng.randint(1, 4)
        body = []
        for _ in range(n):
            body.append(self.stmt(depth))
            # nothing after a jump: unreachable code is dropped by the compiler (keeping only
            # its names), which no decompiler can reproduce
            if isinstance(body[-1], (ast.Return, ast.Break, ast.Continue, ast.Raise)):
                break
        return body or [ast.Pass()]

    def target(self):
        fr = self.frame
        choices = [v for v in LOCALS if v not in fr.declared] or ["x_"]
        name = self.pick(choices)
        fr.assigned.add(name)
        return ast.Name(name, ast.Store())

    def stmt(self, depth):
        fr = self.frame
        options = ["assign", "assign", "augassign", "expr", "chain", "unpack", "store_sub",
                   "if", "if", "return", "del", "assert", "pass", "annassign", "import"]  # fmt: skip
        if depth < 3:
            options += ["if", "while", "for", "for", "nested_def"]
        if fr.loop_depth:
            options += ["break", "continue"]
        if "exceptions" in self.features and depth < 3:
            options += ["try", "try", "raise"]
        if "with" in self.features and depth < 3:
            options += ["with"]
        if "generators" in self.features:
            options += ["yield"]
        if "classes" in self.features and depth < 2:
            options += ["classdef"]
        kind = self.pick(options)
        d = depth + 1
        if kind == "assign":
            return ast.Assign([self.target()], self.expr())
        if kind == "chain":
            return ast.Assign([self.target(), self.target()], self.expr())
        if kind == "unpack":
            elts = [self.target() for _ in range(self.rng.randint(2, 3))]
            if self.chance(0.4):
                elts[self.rng.randrange(len(elts))] = ast.Starred(self.target(), ast.Store())
            return ast.Assign([ast.Tuple(elts, ast.Store())], self.expr())
        if kind == "store_sub":
            target = self.pick(
                [ast.Subscript(self.name(), self.expr(2), ast.Store()),
                 ast.Attribute(self.name(), "attr", ast.Store())]
            )  # fmt: skip
            return ast.Assign([target], self.expr())
        if kind == "augassign":
            name = (
                self.pick(sorted(fr.assigned) + fr.params) if (fr.assigned or fr.params) else None
            )
            if name is None or name in fr.declared and name != "G":
                return ast.Assign([self.target()], self.expr())
            tgt = self.pick(
                [ast.Name(name, ast.Store()), ast.Subscript(ast.Name(name, ast.Load()), self.expr(2), ast.Store())]
            )  # fmt: skip
            return ast.AugAssign(tgt, self.pick(self.binops)(), self.expr())
        if kind == "annassign":
            choices = [v for v in LOCALS if v not in fr.declared]
            if not choices:
                return ast.Pass()
            name = self.pick(choices)
            fr.assigned.add(name)
            return ast.AnnAssign(
                ast.Name(name, ast.Store()), ast.Name("int", ast.Load()), self.expr(), simple=1
            )
        if kind == "expr":
            return ast.Expr(self.expr())
        if kind == "if":
            orelse = []
            if self.chance(0.5):
                orelse = [self.stmt(d)] if self.chance(0.5) else self.block(d)
            return ast.If(self.expr(), self.block(d), orelse)
        if kind == "while":
            fr.loop_depth += 1
            body = self.block(d)
            fr.loop_depth -= 1
            orelse = self.block(d) if self.chance(0.3) else []
            return ast.While(self.expr(), body, orelse)
        if kind == "for":
            target = self.target()
            it = self.expr()
            fr.loop_depth += 1
            body = self.block(d)
            fr.loop_depth -= 1
            orelse = self.block(d) if self.chance(0.3) else []
            return ast.For(target, it, body, orelse)
        if kind == "break":
            return ast.Break()
        if kind == "continue":
            return ast.Continue()
        if kind == "return":
            return ast.Return(self.expr() if self.chance(0.8) else None)
        if kind == "del":
            if self.chance(0.5):
                return ast.Delete([ast.Subscript(self.name(), self.expr(2), ast.Del())])
            return ast.Delete([self.target_del()])
        if kind == "assert":
            msg = self.expr() if self.chance(0.5) else None
            return ast.Assert(self.expr(), msg)
        if kind == "pass":
            return ast.Pass()
        if kind == "import":
            alias = self.target().id
            if self.chance(0.5):
                module = self.pick(["os.path", "math", "json"])
                return ast.Import([ast.alias(module, alias)])
            return ast.ImportFrom("math", [ast.alias(self.pick(["floor", "pi", "sqrt"]), alias)], 0)
        if kind == "nested_def":
            return self.funcdef(d, nested=True)
        if kind == "try":
            handlers = []
            for _ in range(self.rng.randint(0 if self.chance(0.3) else 1, 2)):
                typ = self.pick([None, "ValueError", "TypeError", "Exception"])
                name = self.pick([None, "e"]) if typ else None
                handlers.append(
                    ast.ExceptHandler(
                        ast.Name(typ, ast.Load()) if typ else None, name, self.block(d)
                    )
                )
            if (
                handlers
                and handlers[-1].type is not None
                and any(h.type is None for h in handlers[:-1])
            ):
                handlers = [h for h in handlers if h.type is not None] or handlers[:1]
            if any(h.type is None for h in handlers[:-1]):
                handlers = handlers[:1]
            orelse = self.block(d) if handlers and self.chance(0.3) else []
            final = self.block(d) if (not handlers or self.chance(0.3)) else []
            return ast.Try(self.block(d), handlers, orelse, final)
        if kind == "raise":
            return ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [self.expr()], []), None)
        if kind == "with":
            item = ast.withitem(
                ast.Call(ast.Name("open", ast.Load()), [ast.Constant("/dev/null")], []),
                self.target() if self.chance(0.5) else None,
            )
            return ast.With([item], self.block(d))
        if kind == "classdef":
            return self.classdef(d)
        if kind == "yield":
            fr.kind = "generator"
            return ast.Expr(ast.Yield(self.expr()))
        return ast.Pass()

    def target_del(self):
        fr = self.frame
        if fr.assigned:
            return ast.Name(self.pick(sorted(fr.assigned)), ast.Del())
        name = self.target().id
        return ast.Name(name, ast.Del())

    def classdef(self, depth):
        """A class with attributes and methods (one may call super()); bound in the scope."""
        name = self.fresh("C")
        outer = self.frame
        frame = Frame([], kind="class")
        self.frames.append(frame)
        body = []
        for _ in range(self.rng.randint(0, 2)):
            body.append(ast.Assign([self.target()], self.expr(1)))
        for _ in range(self.rng.randint(1, 2)):
            method = self.funcdef(depth + 1, nested=True)
            first = method.args.posonlyargs if method.args.posonlyargs else method.args.args
            first.insert(0, ast.arg("self"))
            if self.chance(0.4):
                call = ast.Call(ast.Name("super", ast.Load()), [], [])
                attr = ast.Attribute(call, "__init__", ast.Load())
                method.body.insert(0, ast.Expr(ast.Call(attr, [], [])))
            body.append(method)
        self.frames.pop()
        bases = [ast.Name("object", ast.Load())] if self.chance(0.5) else []
        outer.assigned.add(name)
        return ast.ClassDef(name, bases, [], body, [])

    def funcdef(self, depth, nested=False):
        name = self.fresh("f")
        params = (
            [self.fresh("p") for _ in range(self.rng.randint(0, 3))] if nested else list(PARAMS)
        )
        vararg = "va" if self.chance(0.25) else None
        kwarg = "kw" if self.chance(0.25) else None
        outer = self.frame if self.frames else None
        frame = Frame(params + [n for n in (vararg, kwarg) if n])
        self.frames.append(frame)
        body = []
        if nested and outer is not None and outer.kind != "class" and self.chance(0.5):
            candidates = sorted(
                n for n in outer.assigned | set(outer.params) if n not in outer.declared
            )
            candidates = [n for n in candidates if not n.startswith(("q", "l"))]
            if candidates:
                nl = self.pick(candidates)
                frame.declared.add(nl)
                body.append(ast.Nonlocal([nl]))
                body.append(ast.AugAssign(ast.Name(nl, ast.Store()), ast.Add(), ast.Constant(1)))
        elif self.chance(0.2):
            frame.declared.add("G")
            body.append(ast.Global(["G"]))
            body.append(ast.Assign([ast.Name("G", ast.Store())], self.expr()))
        body += self.block(depth + 1, self.rng.randint(2, 6))
        if not isinstance(body[-1], (ast.Return, ast.Raise)):
            body.append(ast.Return(self.expr()))
        self.frames.pop()
        if outer is not None:
            outer.assigned.add(name)
        return ast.FunctionDef(
            name, self.signature(params, vararg, kwarg), body, [], self.annotation(0.2)
        )

    def annotation(self, p):
        if not self.chance(p):
            return None
        return self.pick([ast.Name("int", ast.Load()), ast.Constant("str"), ast.Constant(None)])

    def signature(self, params, vararg, kwarg) -> ast.arguments:
        """Parameters split at random into positional-only / normal / keyword-only, with
        constant defaults and some annotations."""
        n = len(params)
        if self.chance(0.5):
            cut1 = self.rng.randint(0, n)
            cut2 = self.rng.randint(cut1, n)
        else:
            cut1, cut2 = 0, n
        posonly, normal, kwonly = params[:cut1], params[cut1:cut2], params[cut2:]

        def arg(name):
            return ast.arg(name, self.annotation(0.3))

        npos = len(posonly) + len(normal)
        ndef = self.rng.randint(0, npos)
        kw_defaults = [
            ast.Constant(self.pick(self.constants)) if self.chance(0.5) else None for _ in kwonly
        ]
        return ast.arguments(
            posonlyargs=[arg(p) for p in posonly],
            args=[arg(p) for p in normal],
            vararg=arg(vararg) if vararg else None,
            kwonlyargs=[arg(p) for p in kwonly],
            kw_defaults=kw_defaults,
            kwarg=arg(kwarg) if kwarg else None,
            defaults=[ast.Constant(self.pick(self.constants)) for _ in range(ndef)],
        )

    def module(self) -> ast.Module:
        self.frames = [Frame([], kind="module")]
        body = [ast.Assign([ast.Name("G", ast.Store())], ast.Constant(0))]
        for _ in range(self.rng.randint(1, 3)):
            body.append(self.funcdef(0))
        return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


def generate_program(seed: int, features: frozenset):
    """Source text of a valid random module, or None when this seed produced invalid code."""
    import warnings

    warnings.simplefilter("ignore", SyntaxWarning)
    try:
        tree = ProgramGenerator(seed, features).module()
        src = ast.unparse(tree)
        compile(src, f"<random {seed}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return src


# --------------------------------------------------------------------------- checking


def code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def classify(code: types.CodeType):
    """Return ``(outcome, detail, failure, src)`` for one code object.

    Outcomes of ``decompile(code)``: exact, error (DecompilationError), mismatch (recompiled
    bytecode differs, or the source lacks the code object), does-not-compile, crash (any other
    exception).  ``failure`` is None, or says why this is a bug: a crash of either call, or
    ``verify=True`` returning source that does not verify.  ``src`` is what decompile returned.
    """
    try:
        from pellucid.decompiler.verify import compare_code
    except ImportError:  # pragma: no cover - infra not there yet
        compare_code = None
    failure = None
    src = None
    try:
        with time_limit(20, f"decompile {code.co_name}"):
            src = DECOMPILE(code, verify=False)
    except DecompilationError as exc:
        outcome, detail = "error", str(exc)
    except Exception:  # noqa: BLE001
        outcome, detail = "crash", traceback.format_exc()
        failure = "decompile() crashed"
    else:
        outcome, detail = _compare(code, src, compare_code)
    # verify=True must refuse everything that is not exact, and only with DecompilationError
    try:
        with time_limit(20, f"decompile(verify=True) {code.co_name}"):
            DECOMPILE(code, strict=True)
    except DecompilationError:
        pass
    except Exception:  # noqa: BLE001
        failure = failure or "decompile(verify=True) crashed:\n" + traceback.format_exc()
    else:
        if outcome in ("mismatch", "does-not-compile"):
            failure = failure or "decompile(verify=True) returned source that does not verify"
    return outcome, detail, failure, src


def _compare(code, src, compare_code):
    try:
        new = recompile(src, code)
    except SyntaxError as exc:
        return "does-not-compile", f"{exc}\n{src}"
    except Exception as exc:  # noqa: BLE001 - e.g. the source lacks the code object
        return "mismatch", f"recompile: {type(exc).__name__}: {exc}\n{src}"
    diffs = compare_code(code, new) if compare_code else []
    if diffs:
        return "mismatch", "\n".join(diffs[:5]) + "\n" + src
    return "exact", ""


ARGUMENT_SETS = [(0, 1, 2), (1, "ab", [1, 2]), ([], {}, 2.5), (-3, (1, 2), "s")]
MAX_DIFFERENTIAL = 60  # behaviour checks per run (each may cost a few timeouts)


def _call(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            with time_limit(0.2, "random function", CaseTimeout):
                return ("returned", describe(normalize(fn(*args))))
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            return ("raised", exc_signature(exc))


_EXPLOSIVE_OPS = {"BINARY_POWER", "INPLACE_POWER", "BINARY_LSHIFT", "INPLACE_LSHIFT"}


def safe_to_run(code: types.CodeType) -> bool:
    """No `**`, no `<<`, no big int constants anywhere inside: a C-level computation such as
    ``255 ** 2**70`` runs unbounded, cannot be interrupted by the time limit and eats memory."""
    import dis

    for co in code_objects(code):
        for const in co.co_consts:
            if isinstance(const, int) and abs(const) > 10**6:
                return False
        for ins in dis.get_instructions(co):
            if ins.opname in _EXPLOSIVE_OPS:
                return False
            if ins.opname == "BINARY_OP" and ins.argrepr in ("**", "**=", "<<", "<<="):
                return False
    return True


def behaviour_differs(top: types.CodeType, code: types.CodeType, src: str):
    """Run a mismatching top-level function and its recompiled source on a few argument sets.

    Returns a description of the first difference, or None when they agree (the mismatch is
    then a different but equivalent encoding, as far as these inputs show).
    """
    ns_a = {"__name__": "random_program"}
    ns_b = {"__name__": "random_program"}
    exec(top, ns_a)
    exec(top, ns_b)
    original = ns_a.get(code.co_name)
    if not isinstance(original, types.FunctionType) or original.__code__ is not code:
        return None
    try:
        new_code = recompile(src, code)
    except Exception:  # noqa: BLE001 - nothing to run
        return None
    rebuilt = types.FunctionType(new_code, ns_b, code.co_name, original.__defaults__)
    rebuilt.__kwdefaults__ = original.__kwdefaults__
    for args in ARGUMENT_SETS[: 1 + code.co_argcount]:
        args = args[: code.co_argcount]
        # each call gets its own copy: a function may mutate its arguments (`del c[1]`)
        a, b = _call(original, copy.deepcopy(args)), _call(rebuilt, copy.deepcopy(args))
        if a != b:
            return f"args {args!r}: original {a!r} / decompiled {b!r}"
    return None


def _reason(outcome: str, detail: str) -> str:
    """A short, number-free category for a non-exact outcome (for the README's table)."""
    first = detail.split("\n", 1)[0]
    if outcome == "error":
        first = first.split(", in ", 1)[0]
    elif ": " in first:
        first = first.split(": ", 1)[1]  # drop the code object's name
    return re.sub(r"\d+", "N", first)[:110]


def check_programs(sources, differential=False):
    counts: Counter = Counter()
    by_kind: dict = {}
    reasons: Counter = Counter()
    failures = []
    wrong = []
    for label, kind, src in sources:
        counts["programs"] += 1
        top = compile(src, f"<{label}>", "exec", dont_inherit=True)
        for co in code_objects(top):
            outcome, detail, failure, out = classify(co)
            counts["code objects"] += 1
            counts[outcome] += 1
            by_kind.setdefault(kind, Counter())[outcome] += 1
            if outcome in ("mismatch", "does-not-compile", "error"):
                reasons[f"{outcome}: {_reason(outcome, detail)}"] += 1
            if failure:
                counts["failures"] += 1
                failures.append(
                    f"{label} / {co.co_name}: {failure}\n{outcome}: {detail}\n--- program ---\n{src}"
                )
            top_level_plain = co in top.co_consts and not co.co_flags & 0x3A0  # no gen/coro
            if (
                differential
                and outcome == "mismatch"
                and kind == "core"
                and top_level_plain
                and counts["behaviour checked"] < MAX_DIFFERENTIAL
                and safe_to_run(co)
            ):
                counts["behaviour checked"] += 1
                diff = behaviour_differs(top, co, out)
                if diff:
                    counts["mismatch, behaviour differs"] += 1
                    wrong.append(f"{label} / {co.co_name}: {diff}\n--- decompiled ---\n{out}")
        if differential:
            for name, problem in signature_problems(top):
                counts["signatures checked"] += 1
                if problem is None:
                    continue
                if problem.startswith("crash"):
                    counts["failures"] += 1
                    failures.append(f"{label} / {name}: {problem}\n--- program ---\n{src}")
                else:
                    counts["signature differs"] += 1
                    wrong.append(f"{label} / {name}: {problem}")
    return counts, by_kind, failures, reasons, wrong


def signature_problems(top: types.CodeType):
    """Decompile each top-level function *object* (defaults, annotations, kinds are only there)
    with verify=True and compare the executed ``def`` with the original's signature."""
    ns = {"__name__": "random_program"}
    exec(top, ns)
    for name, fn in list(ns.items()):
        if not isinstance(fn, types.FunctionType) or fn.__code__ not in top.co_consts:
            continue
        try:
            with time_limit(20, f"decompile {name}"):
                src = DECOMPILE(fn, strict=True)
        except DecompilationError:
            yield name, None
            continue
        except Exception:  # noqa: BLE001
            yield name, "crash: " + traceback.format_exc()
            continue
        g = {"__name__": "random_program", "G": 0}
        try:
            exec(compile(src, "<decompiled>", "exec", dont_inherit=True), g)
            new = g[name]
        except Exception as exc:  # noqa: BLE001
            yield name, f"the verified def does not execute: {exc!r}\n{src}"
            continue
        got = (str(inspect.signature(new)), repr(new.__defaults__), repr(new.__kwdefaults__))
        want = (str(inspect.signature(fn)), repr(fn.__defaults__), repr(fn.__kwdefaults__))
        if got != want:
            yield name, f"signature {got} != original {want}\n{src}"
        else:
            yield name, None


def _write_artifact(name: str, payload: dict):
    dest = os.environ.get("PELLUCID_ARTIFACTS")
    if dest:
        Path(dest).mkdir(parents=True, exist_ok=True)
        with open(Path(dest) / f"{name}-{VERSION}.json", "w") as fh:
            json.dump(payload, fh, indent=1, sort_keys=True)


def _report(title, counts, by_kind, elapsed):
    keys = ["exact", "error", "mismatch", "does-not-compile", "crash", "failures"]
    print(f"\n{title} (Python {VERSION}): {counts['programs']} programs, "
          f"{counts['code objects']} code objects in {elapsed:.1f}s")  # fmt: skip
    print("  " + ", ".join(f"{k} {counts.get(k, 0)}" for k in keys))
    for kind, c in sorted(by_kind.items()):
        print(f"  [{kind}] " + ", ".join(f"{k} {c.get(k, 0)}" for k in keys))


FEATURE_SETS = [
    ("core", frozenset()),
    ("core", frozenset({"runnable"})),
    ("core", frozenset({"runnable"})),
    ("exceptions+with", frozenset({"exceptions", "with"})),
    ("generators+classes", frozenset({"generators", "classes"})),
]


def test_generator_is_deterministic():
    a = generate_program(SEED, frozenset({"exceptions"}))
    b = generate_program(SEED, frozenset({"exceptions"}))
    assert a == b


@functools.cache
def random_program_results():
    """Generate and check the random programs once; both tests below read the result."""
    start = time.perf_counter()
    sources = []
    seed = SEED
    invalid = 0
    while len(sources) < N_PROGRAMS and seed < SEED + 20 * N_PROGRAMS:
        kind, features = FEATURE_SETS[seed % len(FEATURE_SETS)]
        src = generate_program(seed, features)
        if src is None:
            invalid += 1
        else:
            sources.append((f"seed {seed}", kind, src))
        seed += 1
    assert len(sources) == N_PROGRAMS, f"generator produced too many invalid programs ({invalid})"
    counts, by_kind, failures, reasons, wrong = check_programs(sources, differential=True)
    elapsed = time.perf_counter() - start
    _report("random ast programs", counts, by_kind, elapsed)
    print(
        f"  mismatches run on sample inputs: {counts['behaviour checked']}, "
        f"behaviour differs: {counts['mismatch, behaviour differs']}; "
        f"function signatures checked: {counts['signatures checked']}, "
        f"differ: {counts['signature differs']}"
    )
    for reason, n in reasons.most_common(8):
        print(f"  {n:5}  {reason}")
    for w in wrong[:3]:
        print("  WRONG CODE:", w.replace("\n", "\n    "))
    _write_artifact(
        "property",
        {
            "python": sys.version.split()[0],
            "generator": "ast",
            "seed": SEED,
            "programs": counts["programs"],
            "code_objects": counts["code objects"],
            "discarded_invalid": invalid,
            "counts": {k: v for k, v in counts.items() if k not in ("programs", "code objects")},
            "by_kind": {k: dict(v) for k, v in by_kind.items()},
            "top_reasons": dict(reasons.most_common(15)),
            "wrong_code_examples": wrong[:5],
            "seconds": round(elapsed, 2),
        },
    )
    return failures, wrong


def test_random_programs_never_crash_or_return_unverified_code():
    failures, _ = random_program_results()
    assert not failures, f"{len(failures)} failures; first:\n" + "\n\n".join(failures[:3])


def test_random_programs_unverified_output_is_never_wrong_code():
    """decompile() without verify must not return source that behaves differently either."""
    _, wrong = random_program_results()
    assert not wrong, f"{len(wrong)} functions decompiled to wrong code; first:\n" + "\n\n".join(
        wrong[:3]
    )


def test_hypothesmith_programs():
    hypothesmith = pytest.importorskip("hypothesmith")
    from hypothesis import HealthCheck, given, settings

    collected = []

    def gather_from(strategy, label, n):
        @settings(
            max_examples=n,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy)
        def gather(src):
            try:
                compile(src, "<hypothesmith>", "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                return
            collected.append((f"{label} {len(collected)}", label, src))

        gather()

    start = time.perf_counter()
    # from_grammar: odd token-level programs; from_node: libcst trees with defs and classes
    gather_from(hypothesmith.from_grammar(), "from_grammar", N_HYPOTHESMITH)
    gather_from(hypothesmith.from_node(), "from_node", max(1, N_HYPOTHESMITH // 6))  # ~1 s each
    counts, by_kind, failures, reasons, _ = check_programs(collected)
    elapsed = time.perf_counter() - start
    _report("hypothesmith programs", counts, by_kind, elapsed)
    _write_artifact(
        "property-hypothesmith",
        {
            "python": sys.version.split()[0],
            "generator": "hypothesmith.from_grammar + from_node",
            "programs": counts["programs"],
            "code_objects": counts["code objects"],
            "counts": {k: v for k, v in counts.items() if k not in ("programs", "code objects")},
            "by_kind": {k: dict(v) for k, v in by_kind.items()},
            "seconds": round(elapsed, 2),
        },
    )
    assert not failures, f"{len(failures)} failures; first:\n" + "\n\n".join(failures[:3])
