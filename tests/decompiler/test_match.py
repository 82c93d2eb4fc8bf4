"""match statements (3.10+): decompile with verification, rebuild, run both on many subjects.

Every case is a function ``f(x)`` containing a match statement; original and decompiled are
called on every subject below and must return the same value (or raise the same exception).
Patterns cover literal, capture, wildcard, value, singleton, sequence (with star), mapping
(with ``**rest``), class (positional and keyword), OR, AS, guards and nesting.
"""

from __future__ import annotations

import sys

import pytest

import pellucid

pytestmark = pytest.mark.skipif(sys.version_info < (3, 10), reason="match needs Python 3.10")

PRELUDE = """
import dataclasses, enum

@dataclasses.dataclass
class Point:
    x: int = 0
    y: object = 0

class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3

class K:
    KEY = "key"
"""

SUBJECTS = [
    0,
    1,
    2,
    3,
    -1,
    5,
    2.5,
    1 + 2j,
    True,
    False,
    None,
    "",
    "a",
    "hello",
    b"x",
    [],
    [1],
    [1, 2],
    [1, 2, 3],
    [1, "x"],
    (1, "x"),
    [[1, 2], 3],
    [9, 8, 7, 6],
    {},
    {"k": 1},
    {"k": 1, "extra": 2},
    {"type": "point", "x": 1, "z": 0},
    {"key": [5]},
    "Point(0, 0)",
    "Color.RED",
    "Color.BLUE",
    "Point(0, 7)",
    "Point(3, [4, 5])",
    "Point(2, 2)",
]

CASES = {
    "literals": """
def f(x):
    match x:
        case 0:
            return "zero"
        case "hello":
            return "greeting"
        case -1:
            return "minus one"
        case 2.5:
            return "float"
        case b"x":
            return "bytes"
        case (1+2j):
            return "complex"
    return "other"
""",
    "singletons_and_capture": """
def f(x):
    r = None
    match x:
        case None:
            r = "none"
        case True:
            r = "true"
        case False:
            r = "false"
        case other:
            r = ("other", other)
    return r
""",
    "values_and_or": """
def f(x):
    match x:
        case Color.RED:
            return "red"
        case Color.GREEN | Color.BLUE:
            return "green or blue"
        case 1 | 2 | 3 as small:
            return ("small", small)
        case _:
            return None
""",
    "sequences": """
def f(x):
    match x:
        case []:
            return "empty"
        case [a]:
            return ("one", a)
        case (first, "x"):
            return ("pair ending in x", first)
        case [[a, b], c]:
            return ("nested", a, b, c)
        case [a, *_, b]:
            return ("ends", a, b)
        case [first, *rest]:
            return ("star", first, rest)
        case _:
            return "not a sequence"
""",
    "star_positions": """
def f(x):
    out = []
    match x:
        case [*init, 3]:
            out.append(init)
        case [1, *mid, 6]:
            out.append(mid)
        case [_, _, *_]:
            out.append("at least two")
        case [*_]:
            out.append("any sequence")
    return out
""",
    "mappings": """
def f(x):
    match x:
        case {"type": "point", "x": 1 | 2 as px, **kw}:
            return ("point", px, sorted(kw))
        case {K.KEY: [v]}:
            return ("dotted key", v)
        case {"k": 1, "extra": _}:
            return "k and extra"
        case {"k": v}:
            return ("k", v)
        case {**rest} if not rest:
            return "empty mapping"
    return "no"
""",
    "classes": """
def f(x):
    if isinstance(x, str) and x.startswith(("Point", "Color")):
        x = eval(x)
    match x:
        case Point(0, 0):
            return "origin"
        case Point(x=0, y=yy):
            return ("on y axis", yy)
        case Point(px, [a, *_]):
            return ("list y", px, a)
        case Point(px, y=py) if px == py:
            return ("diagonal", px)
        case int(n) if n > 2:
            return ("big int", n)
        case str(s):
            return ("str", s)
        case Color():
            return "a color"
    return "other"
""",
    "guards": """
def f(x):
    match x:
        case int(n) if n < 0:
            return "negative"
        case int(n) if n % 2 == 0 and n:
            return "even"
        case [a, *_] if a == 1 or not a:
            return "seq starting 1"
        case str(s) if not s:
            return "empty string"
        case _ if x is None:
            return "none via guard"
    return "fallthrough"
""",
    "no_default_fallthrough": """
def f(x):
    r = "start"
    match x:
        case 1:
            r = "one"
        case "hello":
            pass
        case [_, _]:
            r = "pair"
    return r
""",
    "in_loop": """
def f(x):
    out = []
    for item in (x, [x], {"k": x}):
        match item:
            case 0:
                out.append("zero")
                continue
            case [[*_]]:
                out.append("nested seq")
            case {"k": v}:
                out.append(("k", v))
            case _:
                out.append("other")
        out.append("after")
    return out
""",
    "match_subject_expression": """
def f(x):
    match (x, type(x).__name__):
        case (0, _):
            return "zero"
        case (_, "str"):
            return "some str"
        case (v, t):
            return (t, v)
""",
}


def _define(source: str):
    ns: dict = {}
    exec(compile(PRELUDE, "<prelude>", "exec"), ns)
    exec(compile(source, "<case>", "exec"), ns)
    return ns


def _observe(fn, x):
    try:
        return ("ok", repr(fn(x)))
    except Exception as exc:  # noqa: BLE001 - behaviour, compared
        return ("raised", type(exc).__name__, str(exc))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_match_case(case_id):
    ns = _define(CASES[case_id])
    original = ns["f"]
    try:
        src = pellucid.decompile(original, strict=True)
    except pellucid.DecompilationError as e:
        # a shape we refuse is not wrong code; it must still not produce wrong code unverified
        if "recompiled bytecode differs" not in str(e):
            pytest.fail(f"DecompilationError: {e}")
        src = pellucid.decompile(original)
    assert "match " in src, src
    ns2 = _define(src)
    rebuilt = ns2["f"]
    for x in SUBJECTS:
        assert _observe(original, x) == _observe(rebuilt, x), f"subject {x!r}:\n{src}"


def test_single_value_case_is_an_if():
    """``match x: case 1: ...`` compiles exactly like ``if x == 1: ...``."""
    ns = _define(
        "def f(x):\n    match x:\n        case 1:\n            return 'one'\n    return 'no'\n"
    )
    src = pellucid.decompile(ns["f"], strict=True)
    ns2 = _define(src)
    for x in SUBJECTS:
        assert _observe(ns["f"], x) == _observe(ns2["f"], x)


def test_walrus_and_chained_assignment_are_not_matches():
    src = "def f(x):\n    a = b = x + 1\n    print((c := a * 2))\n    return a, b, c\n"
    ns = _define(src)
    out = pellucid.decompile(ns["f"], strict=True)
    assert "match" not in out
