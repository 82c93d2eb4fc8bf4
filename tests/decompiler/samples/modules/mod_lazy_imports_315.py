# min-version: 3.15
"""Lazy imports (PEP 810): bound on first use, so the decompiled module must say `lazy` too."""

lazy import json
lazy import os.path as osp
lazy from collections import OrderedDict as Ordered, deque

import sys

try:
    import string  # (an import in a try is compiled eager: nothing the source says)
except ImportError:
    string = None


def _check():
    return (
        json.dumps([1]),
        osp.join("a", "b"),
        list(Ordered(a=1)),
        list(deque([2])),
        string.digits,
        type(sys.modules).__name__,
    )
