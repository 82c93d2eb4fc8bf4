"""An attribute annotation, without value, is the only annotation of the module."""

import types

o = types.SimpleNamespace(real=0)
o.real: int


def _check():
    return __annotations__, o
