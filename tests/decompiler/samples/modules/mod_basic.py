"""A small module: imports, constants, functions, globals, __all__ and a main guard."""

import math
import os.path as osp
from collections import OrderedDict as OD, deque

__all__ = ["area", "Counter", "VERSION"]

VERSION = (1, 2, 3)
NAMES = ["a", "b"]
TABLE = {n: i for i, n in enumerate(NAMES)}
global _state  # legal (and a no-op) at module level
_state = 0


def area(r, *, precision=2):
    return round(math.pi * r * r, precision)


def bump(k=1):
    global _state
    _state += k
    return _state


def pipeline(items):
    q = deque(items)
    out = OD()
    while q:
        item = q.popleft()
        if item in TABLE:
            out[item] = TABLE[item]
        elif isinstance(item, int) and item > 0:
            q.append(item - 1)
    return list(out.items()), osp.basename("/x/y.txt")


Counter = type("Counter", (), {"n": 0})

for _i in range(3):
    bump(_i)
del _i

if __name__ == "__main__":
    print("main:", area(2), pipeline(["a", 3, "b"]), _state)
else:
    print("imported as", __name__)


def _check():
    return area(1.5), bump(), pipeline([2, "b"]), VERSION, __all__, sorted(TABLE)
