"""Structural pattern matching (3.10+): every pattern kind, guards, nesting."""

from . import cases
from ._helpers import Color, Point

CONSTRUCT = "match"

SUBJECTS = (
    (0,),
    (1,),
    (2.5,),
    ("hello",),
    (b"raw",),
    (None,),
    (True,),
    (False,),
    ([],),
    ([1],),
    ([1, 2],),
    ([1, 2, 3, 4],),
    ((1, "x"),),
    ({"k": 1},),
    ({"k": 1, "extra": 2},),
    ({"type": "point", "x": 1, "y": 2},),
    (Point(1, 2),),
    (Point(0, 0),),
    (Point(5, [1, 2]),),
    (Color.RED,),
    (3,),
    (-1,),
    (1 + 2j,),
    ("",),
    ([1, 2, 3],),
    ({"z": 0},),
    ({},),
    (Point(0, 5),),
    (4,),
    ([[1, 2], 3],),
)


@cases(*SUBJECTS)
def match_literals(x):
    match x:
        case 0:
            return "zero"
        case 1:
            return "one"
        case "hello":
            return "greeting"
        case b"raw":
            return "bytes"
        case -1:
            return "minus one"
        case 1 + 2j:
            return "complex"
        case 2.5:
            return "float"
    return "no match"


@cases(*SUBJECTS)
def match_singletons(x):
    match x:
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case _:
            return "other"


@cases(*SUBJECTS)
def match_capture_and_wildcard(x):
    match x:
        case 0:
            r = "zero"
        case other:
            r = ("captured", other)
    return r


@cases(*SUBJECTS)
def match_value_patterns(x):
    match x:
        case Color.RED:
            return "red"
        case Color.GREEN | Color.BLUE:
            return "green or blue"
        case _:
            return None


@cases(*SUBJECTS)
def match_sequences(x):
    match x:
        case []:
            return "empty"
        case [a]:
            return ("one", a)
        case (first, "x"):
            return ("pair ending in x", first)
        case [a, b]:
            return ("two", a, b)
        case [first, *rest]:
            return ("star", first, rest)
        case _:
            return "not a sequence"


@cases(*SUBJECTS)
def match_star_positions(x):
    match x:
        case [*init, 4]:
            return ("ends with 4", init)
        case [1, *_, 3]:
            return "1..3"
        case [*_]:
            return "any sequence"
    return "nope"


@cases(*SUBJECTS)
def match_mappings(x):
    match x:
        case {"type": "point", "x": px, "y": py}:
            return ("point", px, py)
        case {"k": v, **rest} if rest:
            return ("k with rest", v, rest)
        case {"k": v}:
            return ("k", v)
        case {}:
            return "empty-or-other mapping"
    return "not mapping"


@cases(*SUBJECTS)
def match_class_patterns(x):
    match x:
        case Point(0, 0):
            return "origin"
        case Point(x=0, y=yy):
            return ("on y axis", yy)
        case Point(px, [a, *_]):
            return ("list y", px, a)
        case Point(px, y=py):
            return ("point", px, py)
        case int(n) if n > 2:
            return ("big int", n)
        case int() | float():
            return "number"
        case str(s):
            return ("str", s)
    return "other"


@cases(*SUBJECTS)
def match_or_and_as(x):
    match x:
        case 0 | 1 | 2 as small:
            return ("small", small)
        case [1, 2] | (1, "x") as pair:
            return ("pair", pair)
        case (str() | bytes()) as text:
            return ("text", text)
        case {"k": (1 | 2) as k}:
            return ("k", k)
    return "none"


@cases(*SUBJECTS)
def match_guards(x):
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


@cases(*SUBJECTS)
def match_nested(x):
    match x:
        case {"type": "point", "x": 1 | 2 as px, **kw}:
            return ("nested mapping", px, sorted(kw))
        case Point(x=[*_] | 5, y=[1, b]):
            return ("nested class", b)
        case [[*inner], *_]:
            return ("nested seq", inner)
        case [1, 2, *more] if more != [9]:
            return ("star guard", more)
        case [1, 2, *_] | (1, str()):
            return "nested or"
    return "no"


@cases(*SUBJECTS)
def match_in_loop_with_break(x):
    out = []
    for item in (x, x):
        match item:
            case 0:
                out.append("zero")
                continue
            case [*_]:
                out.append("seq")
                break
            case _:
                out.append("other")
    return out


@cases(*SUBJECTS)
def match_no_default_falls_through(x):
    r = "start"
    match x:
        case 1:
            r = "one"
        case "hello":
            pass
    return r


@cases(((1, 2),), ([3, 4],), ("ab",), ({"k": 1},))
def match_tuple_subject(x):
    match x, len(x):
        case (a, b), 2:
            return ("pair of len 2", a, b)
        case _, n:
            return ("len", n)


@cases(*SUBJECTS)
def match_class_no_args_and_builtins(x):
    match x:
        case Point():
            return "a point"
        case bool(b):
            return ("bool", b)
        case bytes() | bytearray():
            return "binary"
        case list([]) | tuple(()):
            return "empty sequence"
        case dict({"k": 1}):
            return "dict with k=1"
        case complex() as c:
            return ("complex", c.real)
    return "other"


@cases(*SUBJECTS)
def match_mapping_rest_only_and_literal_keys(x):
    match x:
        case {"type": _, **rest}:
            return ("typed", sorted(rest))
        case {**rest} if not rest:
            return "empty mapping"
        case {"k": 1, "extra": 2}:
            return "both"
        case {**rest}:
            return ("mapping", sorted(rest))
    return "no mapping"


@cases(*SUBJECTS)
def match_capture_used_after(x):
    match x:
        case [first, *_]:
            pass
        case _:
            first = "none"
    return first


@cases(*SUBJECTS)
def match_return_in_every_case(x):
    match x:
        case int():
            return 1
        case str():
            return 2
        case _:
            return 3


@cases((0,), (1,), (2,), (5,))
def match_in_while_with_continue(n):
    out = []
    i = 0
    while i < n:
        i += 1
        match i % 3:
            case 0:
                continue
            case 1:
                out.append("one")
            case _:
                out.append("other")
                if i > 3:
                    break
    return out


@cases(*SUBJECTS)
def match_capture_into_cell_and_walrus_subject(x):
    match y := x:
        case [a, *rest]:
            get = lambda: (a, rest)  # noqa: E731
            return get(), y
        case {"k": v} if (w := v) is not None:
            return (lambda: w)(), y
        case _:
            return None, y


@cases(*SUBJECTS)
def match_value_pattern_from_module_attr(x):
    import enum

    class E(enum.Enum):
        ONE = 1
        TWO = 2

    match x:
        case E.ONE.value:
            return "E.ONE"
        case Color.BLUE:
            return "blue"
    return "neither"


@cases(*SUBJECTS)
def match_or_of_values_then_code_after(x):
    # 3.12+ copy the case body into each alternative: three cases with one body, or an OR
    match x:
        case 1 | 2 | 3:
            return "small"
    return "other"


@cases(*SUBJECTS)
def match_or_of_sequences_binding_then_code_after(x):
    # 3.10 and 3.13 copy the code after the match into the OR's failure path
    match x:
        case [1, a] | [2, a] | [3, a]:
            return a
    return None


@cases(*SUBJECTS)
def match_or_of_kinds_binding_with_default(x):
    match x:
        case {"k": a} | [a] | (a, _, _):
            return a
        case _:
            return -1


@cases(*SUBJECTS)
def match_or_with_guard_and_as(x):
    match x:
        case [1, a] | [2, a] if a > 1:
            return a
        case (3 | 4) as b:
            return b
    return None


@cases(*((s, []) for (s,) in SUBJECTS))
def match_or_binding_then_default_falls_on(x, log):
    match x:
        case {"k": a} | [a]:
            log.append(a)
        case _:
            log.append(None)
    log.append("after")
    return log


@cases(([1, 2, [5, 6], (7,), 3, 1],), ([2, "x"],), ([],))
def match_or_cases_in_loop_continue_break(xs):
    out = []
    for y in xs:
        match y:
            case 1 | 2:
                out.append("s")
            case [a, *_] | (a,):
                out.append(a)
                continue
            case _:
                break
        out.append("end")
    return out


@cases(*SUBJECTS)
def match_or_class_patterns_assign_then_return(x):
    # the return after the match is copied into each case body (3.10, 3.12+)
    match x:
        case str() | bytes():
            kind = "text"
        case int(n) | float(n):
            kind = n
        case _:
            kind = None
    return kind


@cases(*SUBJECTS)
def match_or_sequences_assign_then_return(x):
    match x:
        case [1, a] | [2, a]:
            y = a * 2
        case _:
            y = 0
    return y


@cases(({"x": 1, "z": 0},), ({"y": 5},), ({"x": 3, "y": 4},), ({"z": 1},))
def match_or_of_mappings_with_rest(p):
    match p:
        case {"x": 1 | 2 as v, **rest} | {"y": v, **rest}:
            return v, rest
    raise ValueError(p)
