"""Annotations under ``from __future__ import annotations``: stored as the text written."""

from __future__ import annotations

import types

x: int
y: list[int] = []
w: "int" = 3
o = types.SimpleNamespace()
o.a: int = 1


class C:
    z: dict[str, int]
    v: "C" | None = None
    o.b: int


def f(a: int, b: list[str] = None) -> dict[str, int]:
    v: int = 1
    return v


def _check():
    return __annotations__, C.__annotations__, f.__annotations__, f(1), o
