"""Annotations whose target is an attribute or a subscript are the module's only annotations:
they are evaluated (not stored), and yet ``__annotations__`` is created."""

# refused-from: 3.14: a module whose only annotations are of attributes or subscripts

import types

o = types.SimpleNamespace(real=0)
a = [1, 2]
k = 0
o.real: int
a[k]: int
a[0]: "str"
if k == 0:
    o.real: float
o.imag: float = 2.5
a[1]: "str" = "b"


class C:
    o.real: int
    a[k]: list[int] = [3]


class D:
    (q): int = 3
    z: int


def _check():
    return __annotations__, C.__dict__.get("__annotations__"), D.__annotations__, o, a, D.q
