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
    src = pellucid.decompile(ns["outer"], verify=True)
    for line in (
        "type Alias[T: int] = list[T]",
        "class Box[T](list, metaclass=type):",
        "def get[D](self, d: D | None=None) -> T | D:",
        "def ident[T, *Ts](a: T, *rest: *Ts) -> T:",
    ):
        assert line in src, src


def test_a_generic_definition_with_an_annotation_it_cannot_rebuild_is_refused():
    ns = _compile(
        "def make(t):\n"
        "    return t\n"
        "def outer():\n"
        "    def f[T](x: make(T)) -> T:\n"
        "        return x\n"
        "    return f\n"
    )
    with pytest.raises(pellucid.DecompilationError, match="generic parameters of f.*not written back"):
        pellucid.decompile(ns["outer"])
