"""Annotations evaluated lazily (3.14+, PEP 649/749): an ``__annotate__`` function handed over
alone comes back as the definition it was made for, verified, and runs alike.

Earlier versions have no ``__annotate__`` functions; there these tests do not apply.  (No
``from __future__ import annotations`` here: under it the compiler makes no ``__annotate__``.)"""

import sys

import pytest

from pellucid.decompiler import DecompilationError, decode, decompile

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 14) or decode.unsupported_version() is not None,
    reason="__annotate__ functions exist on 3.14+ (and this Python's bytecode must be supported)",
)


def _run(source: str, name: str) -> dict:
    ns: dict = {}
    exec(compile(source, "<decompiled>", "exec"), ns)
    return ns[name]


def test_a_functions_annotate_comes_back_as_a_def_with_those_annotations():
    def f(a: int, *args: str, b: "int | None" = 1, **kw: float) -> list[int]:
        return [a]

    source = decompile(f.__annotate__)
    back = _run(source, "_annotated")
    assert back.__annotate__(1) == f.__annotate__(1)


class Annotated:
    x: int
    y: str = "a"


def test_a_class_bodys_annotate_comes_back_as_the_annotated_names():
    source = decompile(Annotated.__annotate__)
    assert source.split() == ["x:", "int", "y:", "str"]


_CLASS_MODULE = """
flag = 1
class C:
    a: int
    if flag:
        b: str = 'x'
    else:
        e: bytes
    c: float = 1.0
    for i in range(2):
        d: list[int] = [i]
"""


def test_conditional_class_annotations_come_back_where_they_ran():
    back = decompile(compile(_CLASS_MODULE, "<m>", "exec"), strict=True)
    assert "    a: int\n    if flag:\n        b: str = 'x'\n    else:\n        e: bytes\n" in back, back
    original, decompiled = _module_namespace(_CLASS_MODULE), _module_namespace(back)
    assert decompiled["C"].__annotations__ == original["C"].__annotations__
    assert decompiled["C"].__dict__.keys() == original["C"].__dict__.keys()


def test_a_class_annotate_alone_puts_conditional_ones_under_an_if():
    # which statement guarded them is not in the __annotate__ code: any `if` compiles alike
    ns = _module_namespace(_CLASS_MODULE)
    back = decompile(ns["C"].__annotate__, strict=True)
    assert back.split() == [
        "a:", "int", "if", "True:", "b:", "str", "if", "True:", "e:", "bytes", "c:", "float",
        "if", "True:", "d:", "list[int]",
    ]


def test_a_starred_annotation_comes_back_on_the_varargs_parameter():
    # (as text: 3.9-3.11 cannot parse this file otherwise)
    ident = _run("def ident[T, *Ts](a: T, *rest: *Ts) -> T:\n    return a\n", "ident")
    source = decompile(ident.__annotate__)
    assert "*rest: *Ts" in source, source


_MODULE = '''
x: int = 1
y: "str"
if x:
    z: list[int] = [x]
else:
    w: float
for i in range(2):
    q: int = i
try:
    t: tuple = ()
except ValueError:
    pass


class C:
    a: int


def f(b: int) -> str:
    return str(b)
'''


def _module_namespace(source: str) -> dict:
    ns: dict = {"__name__": "annotated_module"}
    exec(compile(source, "<m>", "exec"), ns)
    return ns


def test_module_annotations_come_back_where_they_ran():
    back = decompile(compile(_MODULE, "<m>", "exec"), strict=True)
    assert "z: list[int] = [x]" in back and "    w: float" in back, back
    original, decompiled = _module_namespace(_MODULE), _module_namespace(back)
    assert decompiled["__annotate__"](1) == original["__annotate__"](1)
    assert decompiled["C"].__annotations__ == original["C"].__annotations__


def test_a_module_whose_only_annotations_keep_nothing_is_refused():
    # `o.a: int` evaluates `o` and nothing else, yet the module records that it has
    # annotations: no source can be said to be the original's
    source = "import types\no = types.SimpleNamespace()\no.a: int\n"
    with pytest.raises(DecompilationError, match="only annotations are of attributes"):
        decompile(compile(source, "<m>", "exec"))


def test_a_modules_annotate_comes_back_as_the_annotated_names():
    ns = _module_namespace(_MODULE)
    back = decompile(ns["__annotate__"], strict=True)
    assert back.split() == ["x:", "int", "y:", "'str'", "z:", "list[int]", "w:", "float", "q:", "int", "t:", "tuple"]


def test_a_lazily_evaluated_value_alone_comes_back_as_a_definition_of_its_name():
    import types

    source = "type Pair = tuple[int, int]\ndef first[P: Pair](p: P) -> int:\n    return p[0]\n"
    code = compile(source, "<m>", "exec")
    found, todo = {}, [code]
    while todo:
        c = todo.pop()
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        if c.co_varnames[:1] == (".format",):
            found[c.co_name] = decompile(c, strict=True).strip()
    assert found == {"Pair": "type Pair = tuple[int, int]", "P": "type P = Pair"}


def test_a_handwritten_annotate_function_is_decompiled_like_any_other():
    def __annotate__(format):
        if format == 1:
            return {"x": int}
        raise NotImplementedError

    back = decompile(__annotate__, strict=True)
    assert back.startswith("def __annotate__(format):"), back
