"""import statements inside functions: dotted, aliased, from-imports, relative imports."""

from . import cases

CONSTRUCT = "imports"


@cases(
    (),
)
def imp_plain():
    import math

    return math.sqrt(16)


@cases(
    (),
)
def imp_dotted():
    import os.path

    return os.path.join("a", "b"), os.sep


@cases(
    (),
)
def imp_dotted_deep():
    import xml.etree.ElementTree

    return xml.etree.ElementTree.__name__, xml.__name__


@cases(
    (),
)
def imp_dotted_as():
    import os.path as p
    import xml.etree.ElementTree as ET

    return p.basename("/x/y"), ET.__name__


@cases(
    (),
)
def imp_from():
    from collections import OrderedDict, deque

    return list(deque([1, 2])), list(OrderedDict(a=1))


@cases(
    (),
)
def imp_from_as():
    from collections import OrderedDict as OD
    from os import path as osp, sep

    return OD.__name__, osp.__name__, sep


@cases(
    (),
)
def imp_from_dotted():
    from os.path import join as j, split

    return j("a", "b"), split("/a/b")


@cases(
    (),
)
def imp_several_names():
    import json, math as m, os.path  # noqa: E401

    return json.dumps([1]), m.pi > 3, os.path.sep


@cases(
    (),
)
def imp_relative():
    from . import _helpers
    from ._helpers import Obj as O, Point

    return _helpers.__name__.rsplit(".", 1)[-1], O(a=1), Point(1, 2)


@cases(([1.5, 2],), ([],))
def imp_from_in_loop_then_return(items):
    # the from-import's pop of the module is no iterator's pop (no copied `break`)
    for y in items:
        from math import floor as w
        return w(y)


@cases(
    (),
)
def imp_relative_sibling_module():
    from .constants import const_bools as cb, const_none

    return cb(), const_none()


@cases(
    (),
)
def imp_relative_beyond_top_level():
    from .. import samples as s  # ImportError: the samples package is top-level

    return s.__name__  # unreachable


@cases((0,), (1,))
def imp_conditional(flag):
    if flag:
        import string as mod
    else:
        import textwrap as mod
    return mod.__name__


@cases(
    (),
)
def imp_missing_module():
    import pellucid_this_module_does_not_exist  # noqa: F401

    return "unreachable"  # unreachable


@cases(
    (),
)
def imp_missing_name():
    from math import this_name_does_not_exist  # noqa: F401

    return "unreachable"  # unreachable


@cases(
    (),
)
def imp_in_nested_function():
    def inner():
        import functools

        return functools.reduce(lambda a, b: a + b, [1, 2, 3])

    return inner()


@cases(
    (),
)
def imp_dunder_import():
    m = __import__("math")
    return m.floor(2.5)


@cases(
    (),
)
def imp_dotted_as_four_deep():
    import samples.deep.er.leaf as leaf
    import samples.deep.er.leaf
    import xml.etree.ElementTree as ET, samples.deep.er as er

    return leaf.VALUE, ET.__name__, er.__name__, samples.deep.er.leaf.__name__
