"""Signatures: defaults, keyword-only, positional-only, *args/**kwargs, annotations, docstrings."""

from . import call, cases

CONSTRUCT = "signatures"


@cases(
    (),
)
def sig_no_args():
    return "none"


@cases((1, 2), call(1, b=3))
def sig_positional(a, b):
    return a, b


@cases((1,), (1, 5), call(a=2, b=9))
def sig_default(a, b=2):
    return a, b


@cases((1,), call(1, c="x", d=None))
def sig_many_default_types(a, b=None, c="s", d=1.5, e=(1, 2), f=-1, g=b"b", h=2j, i=...):
    return a, b, c, d, e, f, g, h, i


@cases((), (1,))
def sig_mutable_default(a=[], b={}):  # noqa: B006
    a.append(len(a))
    return list(a), b


@cases(call(1, k=2), call(1, k=2, m=3), (1,))
def sig_kwonly(a, *, k, m=10):
    return a, k, m


@cases((1,), call(1, c=3), call(1, 2, 3, c=4, x=5))
def sig_all_kinds(a, b=2, *args, c=3, d=None, **kwargs):
    return a, b, args, c, d, sorted(kwargs.items())


@cases((1, 2), (1, 2, 3), call(1, b=2), call(a=1, b=2))
def sig_posonly(a, /, b, c=3):
    return a, b, c


@cases((1,), (1, 2), call(1, 2, d=4), call(1, 2, 3, d=5, e=6))
def sig_posonly_all_kinds(a, b=2, /, c=3, *args, d=4, e=5, **kw):
    return a, b, c, args, d, e, kw


@cases((), (1, 2, 3))
def sig_varargs_only(*args):
    return args


@cases((), call(x=1))
def sig_varkw_only(**kwargs):
    return kwargs


@cases((), (1,), call(1, k=2))
def sig_varargs_and_varkw(*args, **kwargs):
    return args, kwargs


@cases(
    (1, "s"),
)
def sig_annotations(a: int, b: str = "x", *args: float, c: bool = True, **kw: dict) -> tuple:
    return a, b, args, c, kw


@cases(
    (1,),
)
def sig_string_annotations(a: "int", b: "list[str]" = None) -> "None":
    return a, b


@cases(
    (1,),
)
def sig_none_return_annotation(a) -> None:
    return None


@cases(
    (1,),
)
def sig_generic_annotations(a: list, b: dict = None) -> "tuple[int, ...]":
    return a, b


@cases((1, 2), call(1, 2, c=3))
def sig_kwonly_no_default_after_varargs(a, *rest, c=0, d=1):
    return a, rest, c, d


@cases(
    (1,),
)
def sig_docstring(a):
    """A docstring that should survive decompilation."""
    return a


@cases(
    (1,),
)
def sig_docstring_and_locals(a):
    """Doc.

    With several lines and 'quotes' and "double quotes".
    """
    b = a + 1
    return b


@cases(
    (1, 2),
)
def sig_underscore_names(_a, __b, _=3):
    return _a, __b, _


@cases(
    (1,),
)
def sig_param_shadowed_by_local(a, b=5):
    a = a + b
    b = None
    return a, b


@cases((1,), (1, 2))
def sig_default_is_expression_value(a, b=2**10, c=("x",) * 2):
    return a, b, c


@cases(call(1), call(1, key="v"))
def sig_kwonly_only_defaults(a, *, key="default", flag=False):
    return a, key, flag


@cases((1, 2, 3), call(1, 2, 3, 4))
def sig_many_positional(a, b, c, d=None, e=None, f=None, g=None, h=None, i=None, j=None, k=None):
    return a, b, c, d, e, f, g, h, i, j, k
