"""PEP 695 (3.12+): what a generic definition inside a body becomes, and what is refused.

The samples in ``samples/type_params.py`` and ``samples/modules/mod_type_params_312.py`` cover
what is written back; here, a generic definition whose annotation is an expression the
decompiler does not rebuild there (a call) is refused with a message, never written wrongly.
"""

from __future__ import annotations

import sys

import pytest

import pellucid

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 is 3.12+")


def _compile(src: str) -> dict:
    ns: dict = {}
    exec(compile(src, "<type-params-test>", "exec", dont_inherit=True), ns)  # no future flags
    return ns


def test_generic_definitions_in_a_body_come_back_verified():
    ns = _compile(
        "def outer():\n"
        "    type Alias[T: int] = list[T]\n"
        "    class Box[T](list, metaclass=type):\n"
        "        def get[D](self, d: D | None = None) -> T | D: ...\n"
        "    def ident[T, *Ts](a: T, *rest: *Ts) -> T:\n"
        "        return a\n"
        "    return Alias, Box, ident\n"
    )
    src = pellucid.decompile(ns["outer"], strict=True)
    for line in (
        "type Alias[T: int] = list[T]",
        "class Box[T](list, metaclass=type):",
        "def get[D](self, d: D | None=None) -> T | D:",
        "def ident[T, *Ts](a: T, *rest: *Ts) -> T:",
    ):
        assert line in src, src


def test_a_generic_annotation_with_a_call_is_refused_before_314_and_read_back_after():
    ns = _compile(
        "def make(t):\n"
        "    return t\n"
        "def outer():\n"
        "    def f[T](x: make(T)) -> T:\n"
        "        return x\n"
        "    return f\n"
    )
    if sys.version_info >= (3, 14):
        # 3.14+ evaluate annotations lazily, in an __annotate__ function: any expression
        # there is read back like any other code
        assert "def f[T](x: make(T)) -> T:" in pellucid.decompile(ns["outer"], strict=True)
        return
    with pytest.raises(pellucid.DecompilationError, match="generic parameters of f.*not written back"):
        pellucid.decompile(ns["outer"])


def _scopes(src: str) -> dict:
    """The ``<generic parameters of X>`` code objects a module compiles to, by X."""
    import types

    module = compile(src, "<type-params-test>", "exec", dont_inherit=True)
    prefix = "<generic parameters of "
    return {
        c.co_name[len(prefix) : -1]: c
        for c in module.co_consts
        if isinstance(c, types.CodeType) and c.co_name.startswith(prefix)
    }


def test_an_annotation_scope_alone_comes_back_as_its_generic_definition():
    # the compiler-made function a generic definition runs: its source is that definition
    scopes = _scopes(
        "class Box[T](list):\n"
        "    def get(self) -> T:\n"
        "        return self[0]\n"
        "def first[T: (int, str)](xs: list[T]) -> T:\n"
        "    return xs[0]\n"
        "type Pair[K, V] = tuple[K, V]\n"
    )
    expected = {
        "Box": "class Box[T](list):",
        "first": "def first[T: (int, str)](xs: list[T]) -> T:",
        "Pair": "type Pair[K, V] = tuple[K, V]",
    }
    assert set(scopes) == set(expected)
    for name, code in scopes.items():
        src = pellucid.decompile(code, strict=True)
        assert src.splitlines()[0] == expected[name], src


def test_an_annotation_scope_taking_defaults_is_refused_with_a_pointer():
    (code,) = _scopes("def f[T](x: T, n: int = 3) -> T:\n    return x\n").values()
    with pytest.raises(pellucid.DecompilationError, match="takes the defaults of f: decompile"):
        pellucid.decompile(code)


def test_an_annotation_scope_of_a_method_verifies_inside_a_class():
    # it reads the class namespace (__classdict__): verify recompiles it inside a class
    import types

    module = compile(
        "class C:\n    def m[T](self, x: T) -> T:\n        return x\n",
        "<type-params-test>",
        "exec",
        dont_inherit=True,
    )
    cls = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    scope = next(c for c in cls.co_consts if isinstance(c, types.CodeType) and c.co_name.startswith("<generic"))
    assert "__classdict__" in scope.co_freevars
    src = pellucid.decompile(scope, strict=True)
    assert src.startswith("def m[T](self, x: T) -> T:"), src
