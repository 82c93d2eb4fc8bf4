"""Constants of every type, as values, in containers, in `in` tests and as defaults."""

import math

from . import cases

CONSTRUCT = "expressions"

NO_ARGS = ((),)


@cases(*NO_ARGS)
def const_none():
    return None


@cases(*NO_ARGS)
def const_implicit_none():
    pass


@cases(*NO_ARGS)
def const_bools():
    return True, False


@cases(*NO_ARGS)
def const_small_ints():
    return 0, 1, -1, 255, 256, -5, 2**8


@cases(*NO_ARGS)
def const_big_ints():
    return 2**64, -(2**100), 123456789012345678901234567890, 0xFFFFFFFFFFFFFFFF


@cases(*NO_ARGS)
def const_huge_int():
    return 10**50 + 7


@cases(*NO_ARGS)
def const_floats():
    return 1.5, 0.1, -2.25, 1e300, 1e-300, 3.141592653589793


@cases(*NO_ARGS)
def const_special_floats():
    return repr(-0.0), repr(0.0), math.copysign(1.0, -0.0), float("inf"), -float("inf")


@cases(*NO_ARGS)
def const_negative_zero():
    x = -0.0
    return repr(x), math.copysign(1.0, x)


@cases(*NO_ARGS)
def const_inf_nan_literals():
    x = 1e400
    y = -1e400
    z = x - x
    return repr(x), repr(y), z != z


@cases(*NO_ARGS)
def const_complex():
    return 1j, 2 + 3j, -1.5j, 1 - 0j, repr(-0j), complex(0, -0.0)


@cases(*NO_ARGS)
def const_complex_ops():
    a = 3j
    return a * a, a.imag, (1 + 2j) ** 2


@cases(*NO_ARGS)
def const_strings():
    return "", "a", 'quote"s', "it's", "tab\tnew\nline", "\x00\x7f\u20ac\U0001f600", "\\"


@cases(*NO_ARGS)
def const_long_string():
    return "abc" * 3 + "x" * 5000


@cases(*NO_ARGS)
def const_bytes():
    return b"", b"abc", b"\x00\xff\n", b"'\"", bytes(3)


@cases(*NO_ARGS)
def const_ellipsis():
    a = ...
    b = Ellipsis
    return a, b, a is b


@cases(*NO_ARGS)
def const_nested_tuples():
    return ((1, 2), (3, (4, (5, ()))), ("a", b"b", None, True, 1.5, 2j))


@cases(*NO_ARGS)
def const_empty_containers():
    return (), [], {}, set(), frozenset()


@cases(*NO_ARGS)
def const_tuple_of_one():
    return (1,), ((),), ("x",)


@cases((1,), (5,), ("a",), (b"x",), (None,), (2.5,))
def const_in_frozenset(x):
    return x in {1, 2, 3, "a", b"x", None}


@cases((("a", 1),), ((1, 2),))
def const_set_of_tuples(x):
    # a set display of constant tuples is built from one frozenset constant (SET_UPDATE)
    s = {("a", 1), ("b", 2), ("c", (3, 4)), ("d", None)}
    return x in s, len(s)


@cases((1,), (7,), ("z",))
def const_not_in_frozenset(x):
    return x not in {1, 2, 3, "z"}


@cases((1,), (7,))
def const_in_tuple(x):
    return x in (1, 2, 3), x not in (4, 5)


@cases((1,), (7,), ("b",))
def const_in_list_literal(x):
    return x in [1, 2, "b"]


@cases((3,), (9,), (7,))
def const_in_condition(x):
    if x in {1, 2, 3}:
        return "small"
    if x not in (7, 8):
        return "other"
    return "seven-eight"


@cases(*NO_ARGS)
def const_list_of_consts():
    return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], ["a", "b"], [(1, 2), (3, 4)]


@cases(*NO_ARGS)
def const_set_of_consts():
    return sorted({1, 2, 3, 4, 5}), {frozenset({1})} == {frozenset({1})}


@cases(*NO_ARGS)
def const_dict_of_consts():
    return {"a": 1, "b": 2, "c": 3}, {1: "x", 2: "y"}, {(1, 2): b"z"}


@cases(*NO_ARGS)
def const_folded_expressions():
    return 2 * 3 + 4, "ab" * 2, (1, 2) + (3,), -(5), ~7, not 0, 2**-1


@cases(*NO_ARGS)
def const_docstring_like():
    "This is a docstring."
    return const_docstring_like.__doc__


@cases(*NO_ARGS)
def const_string_not_docstring():
    x = 1
    "not a docstring, an expression statement"
    return x


@cases(*NO_ARGS)
def const_frozenset_of_tuples():
    return (1, 2) in {(1, 2), (3, 4)}


@cases(*NO_ARGS)
def const_unicode_identifiers():
    café = 1
    π = 3.14
    return café + π


@cases(*NO_ARGS)
def const_int_subscript_of_const():
    return "abc"[1], (1, 2, 3)[-1], b"xyz"[0]
