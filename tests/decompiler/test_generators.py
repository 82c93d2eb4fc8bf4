"""Generators and coroutines: decompile with verification, rebuild, run both, compare.

Each case is a small source defining ``f``; the original and the decompiled ``f`` are run on
the same arguments and their observable behaviour compared: items yielded (with values sent
in), return values, exceptions and printed output.  Coroutines run under ``asyncio.run``,
async generators are drained by a coroutine.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import textwrap
import types

import pytest

import pellucid

PRELUDE = """
import asyncio

class AIter:
    def __init__(self, items):
        self.items = list(items)
    def __aiter__(self):
        return self
    async def __anext__(self):
        await asyncio.sleep(0)
        if not self.items:
            raise StopAsyncIteration
        return self.items.pop(0)

class ACM:
    def __init__(self, log, name, swallow=False):
        self.log, self.name, self.swallow = log, name, swallow
    async def __aenter__(self):
        self.log.append(("enter", self.name))
        return self.name
    async def __aexit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return self.swallow

async def later(x):
    await asyncio.sleep(0)
    return x

def sub(n):
    for i in range(n):
        got = yield i
        if got is not None:
            print("sub got", got)
    return "sub done"
"""

# (id, source of f, list of argument tuples, minimum version)
CASES = [
    (
        "yield_simple",
        "def f(n):\n    for i in range(n):\n        yield i * 2\n",
        [(3,), (0,)],
        (3, 9),
    ),
    ("yield_bare", "def f(n):\n    yield\n    yield n\n    yield n, n\n", [(1,)], (3, 9)),
    (
        "yield_expression",
        "def f(n):\n    total = 0\n    while True:\n        got = yield total\n"
        "        if got is None:\n            return total\n        total += got * n\n",
        [(2,)],
        (3, 9),
    ),
    (
        "yield_in_expressions",
        "def f(n):\n    x = yield n\n    y = (yield x) or 'd'\n    print((yield y))\n"
        "    z = [(yield 'l'), (yield 'm')]\n    return x, y, z\n",
        [(1,)],
        (3, 9),
    ),
    (
        "yield_from",
        "def f(n):\n    r = yield from sub(n)\n    yield ('r', r)\n    yield from [10, 20]\n"
        "    return (yield from range(n))\n",
        [(3,)],
        (3, 9),
    ),
    (
        "return_value",
        "def f(n):\n    if n > 2:\n        return 'big'\n    yield n\n    return n + 1\n",
        [(1,), (5,)],
        (3, 9),
    ),
    (
        "genexpr_inside_generator",
        "def f(n):\n    g = (i * i for i in range(n) if i)\n    yield list(g)\n"
        "    yield sum(x for x in range(n))\n    yield from (y + 1 for y in range(n))\n",
        [(4,)],
        (3, 9),
    ),
    (
        "yield_in_loops",
        "def f(n):\n    i = 0\n    while i < n:\n        if i % 2:\n            yield 'odd', i\n"
        "        else:\n            yield 'even', i\n        i += 1\n    for j in range(3):\n"
        "        if j == n:\n            break\n        yield j\n    else:\n        yield 'else'\n",
        [(4,), (1,)],
        (3, 9),
    ),
    (
        "yield_in_try",
        "def f(n):\n    try:\n        yield 1\n        if n:\n            raise ValueError(n)\n"
        "    except ValueError as e:\n        yield ('caught', e.args)\n    print('after')\n",
        [(0,), (1,)],
        (3, 11),
    ),
    (
        "yield_in_finally",
        "def f(n):\n    try:\n        for i in range(n):\n            yield i\n    finally:\n"
        "        yield 'fin'\n",
        [(0,), (2,)],
        (3, 11),
    ),
    (
        "generator_lambda",
        "def f(n):\n    g = lambda: (yield n)\n    return list(g())\n",
        [(3,)],
        (3, 9),
    ),
    (
        "await_simple",
        "async def f(a, b):\n    x = await later(a)\n    y = await later(b) + await later(x)\n"
        "    if await later(a > b):\n        return 'gt', x, y\n    return x, y\n",
        [(1, 2), (3, 1)],
        (3, 9),
    ),
    (
        "async_for_else",
        "async def f(items):\n    out = []\n    async for x in AIter(items):\n        if x == 2:\n"
        "            continue\n        out.append(x)\n    else:\n        out.append('else')\n    return out\n",
        [([1, 2, 3],), ([],)],
        (3, 9),
    ),
    (
        "async_for_nested",
        "async def f(items):\n    out = []\n    async for x in AIter(items):\n"
        "        async for y in AIter(range(x)):\n            out.append((x, y))\n        for z in range(2):\n"
        "            out.append(await later(z))\n    return out\n",
        [([1, 2],)],
        (3, 9),
    ),
    (
        "async_comprehensions",
        "async def f(items):\n    a = [x async for x in AIter(items)]\n    b = [await later(x) for x in items]\n"
        "    c = {x: y async for x, y in AIter(zip(items, items))}\n"
        "    d = [x async for x in AIter(items) if await later(x) > 1]\n"
        "    e = {x async for x in AIter(items)}\n    return a, b, c, d, e\n",
        [([1, 2, 3],)],
        (3, 9),
    ),
    (
        "async_genexpr",
        "async def f(n):\n    g = (x async for x in AIter(range(n)))\n    h = (await later(x) for x in range(n))\n"
        "    return [v async for v in g], [w async for w in h]\n",
        [(3,)],
        (3, 9),
    ),
    (
        "async_generator",
        "async def f(n):\n    for i in range(n):\n        await later(i)\n        yield i\n"
        "    async for x in AIter(range(n)):\n        yield x * 10\n    yield 'last'\n",
        [(3,)],
        (3, 9),
    ),
    (
        "async_with",
        "async def f(k):\n    log = []\n    async with ACM(log, 'a') as name:\n        log.append(name)\n"
        "        async with ACM(log, 'b'), ACM(log, 'c') as c:\n            log.append(c)\n"
        "            if k:\n                raise KeyError(k)\n    return log\n",
        [(0,), (1,)],
        (3, 11),
    ),
    (
        "async_with_swallow",
        "async def f(k):\n    log = []\n    async with ACM(log, 'outer', swallow=True):\n"
        "        if k:\n            raise ValueError(k)\n        log.append('body')\n    return log\n",
        [(0,), (1,)],
        (3, 11),
    ),
]


def _observe(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args)
            result = _drain(result)
            outcome = ("ok", repr(result))
        except Exception as exc:  # noqa: BLE001 - behaviour, compared
            outcome = ("raised", type(exc).__name__, str(exc))
    return outcome, out.getvalue()


def _drain(value):
    if isinstance(value, types.GeneratorType):
        items = []
        try:
            items.append(next(value))
            k = 0
            while True:
                k += 1
                items.append(value.send(k if k % 2 else None))
        except StopIteration as stop:
            items.append(("stop", stop.value))
        return ("generator", items)
    if isinstance(value, types.CoroutineType):
        return ("coroutine", _drain(asyncio.run(value)))
    if isinstance(value, types.AsyncGeneratorType):

        async def collect():
            return [x async for x in value]

        return ("async generator", asyncio.run(collect()))
    return value


def _define(source: str):
    ns: dict = {}
    exec(compile(PRELUDE, "<prelude>", "exec"), ns)
    exec(compile(source, "<case>", "exec"), ns)
    return ns["f"], ns


@pytest.mark.parametrize("case_id,source,inputs,minver", CASES, ids=[c[0] for c in CASES])
def test_generator_case(case_id, source, inputs, minver):
    if sys.version_info[:2] < minver:
        pytest.skip(f"needs Python {minver}")
    original, ns = _define(source)
    decompiled_src = pellucid.decompile(original, strict=True)
    assert ("async def" in decompiled_src) == ("async def" in source.splitlines()[0])
    ns2: dict = {}
    exec(compile(PRELUDE, "<prelude>", "exec"), ns2)
    exec(compile(decompiled_src, "<decompiled>", "exec"), ns2)
    rebuilt = ns2["f"]
    for args in inputs:
        assert _observe(original, args) == _observe(rebuilt, args), textwrap.indent(
            decompiled_src, "    "
        )


def test_stopiteration_wrapper_hides_no_try():
    """3.12+ wraps generator bodies in a StopIteration->RuntimeError handler: not a try."""
    src = "def f():\n    yield 1\n    x = yield 2\n    return x\n"
    fn, _ = _define(src)
    out = pellucid.decompile(fn, strict=True)
    assert "try" not in out
    assert "yield 1" in out


def test_real_try_in_generator_kept():
    src = "def f():\n    try:\n        yield 1\n    except KeyError:\n        yield 2\n"
    fn, _ = _define(src)
    out = pellucid.decompile(fn, strict=True)
    assert "try:" in out and "except KeyError" in out
