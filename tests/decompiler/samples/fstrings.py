"""f-strings: conversions, format specs, nested specs, the `=` debug specifier."""

from . import cases

CONSTRUCT = "fstrings"


class Weird:
    def __repr__(self):
        return "Weird<é>"

    def __str__(self):
        return "weird-str"

    def __format__(self, spec):
        return f"fmt[{spec}]"


VALUES = ((1, "x"), (3.14159, "héllo"), (-42, ""), (Weird(), Weird()))


@cases(*VALUES)
def fs_plain(a, b):
    return f"{a}", f"{a}{b}", f"a={a}, b={b}!", f"{{literal}} {a}", f""


@cases(*VALUES)
def fs_conversions(a, b):
    return f"{a!r}", f"{b!s}", f"{b!a}", f"{a!r:>20}", f"{b!s:^9}"


@cases((3.14159, 10, 3), (2.5, 8, 1), (1234567.891, 15, 2))
def fs_format_specs(x, width, prec):
    return (
        f"{x:.2f}",
        f"{x:10.3e}",
        f"{x:>{width}}",
        f"{x:{width}.{prec}f}",
        f"{x:{'<' if width > 9 else '>'}{width}}",
        f"{int(x):08b}",
        f"{int(x):,}",
        f"{int(x):#x}",
        f"{x:%}",
    )


@cases((7, 4), (123, 2))
def fs_nested_spec_with_conversion(n, w):
    fill = "*"
    return f"{n!r:{fill}^{w + 6}}", f"{n:{fill}>{w}d}", f"{'ab'!r:{w}}"


@cases((1, 2), ("s", [1]))
def fs_debug_equals(a, b):
    return f"{a=}", f"{a + 1 if isinstance(a, int) else a=}", f"{b=!s}", f"{a=:>5}", f"{ b = }"


@cases(
    (1, [1, 2], {"k": "v"}),
)
def fs_expressions(a, lst, d):
    return (
        f"{a + 1}",
        f"{lst[0]}",
        f"{d['k']}",
        f"{len(lst) * 2}",
        f"{'nested ' + str(a)}",
        f"{a if a else 'zero'}",
        f"{[x * 2 for x in lst]}",
        f"{(lambda: a)()}",
        f"{a:{'0'}{3}}",
    )


@cases(
    (1, 2),
)
def fs_nested_fstrings(a, b):
    return f"{f'{a}'}", f"outer {f'inner {b!r}'} end", f"{f'{a:>{b}}'}"


@cases(("x",), ("multi\nline",))
def fs_with_escapes(s):
    return f"tab\t{s}\n", f"quote' {s}", f'dq" {s}', f"\\{s}\\", f"{s}\x00"


@cases((5,), (0,))
def fs_in_conditions(n):
    if f"{n}" == "5":
        return f"five:{n:>3}"
    return f"{n}" or "empty"


@cases(
    (1, 2),
)
def fs_concat_with_plain(a, b):
    return f"plain {a} more {b!r}", "ab"


@cases(
    (3,),
)
def fs_percent_and_format(x):
    return "%d items" % x, "{} {}".format(x, x), "{0:>{1}}".format(x, 4), "%(k)s" % {"k": x}


@cases(
    (1.5,),
)
def fs_only_expression(x):
    return f"{x}", f"{x!r}", f"{x:}", f"{x!s:}"


@cases(
    (42,),
)
def fs_bytes_and_str_mixing(n):
    return b"%d" % n, f"{b'raw'!r}", f"{n.__class__.__name__}"


@cases(
    ("a", ["b", "c"]),
    (1, []),
)
def fs_percent_format_with_backslash(a, b):
    # 3.11+ compile this %-formatting to f-string code, whose expression holds a backslash:
    # no f-string before 3.12 can spell it
    return "%s %r: 100%%" % (a, "\\x".join(b)), "%s" % ("\n".join(b),), "%a|%s" % (a, "\t" + str(a))
