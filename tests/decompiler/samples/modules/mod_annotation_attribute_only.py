"""An attribute annotation, without value, is the only annotation of the module."""

# refused-from: 3.14: a module whose only annotations are of attributes or subscripts

import types

o = types.SimpleNamespace(real=0)
o.real: int


def _check():
    return __annotations__, o
