"""Decompile a few example functions and print the original beside the decompiled source.

Run with ``bash scripts/demo.sh`` (which sets everything up) or ``python examples/decompile_demo.py``.
"""

from __future__ import annotations

import inspect
import shutil
import sys
import textwrap
from itertools import zip_longest

import pellucid


def add(a, b):
    return a + b


def clamp(x, lo=0, hi=10):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


def count_words(text, *, lower=True):
    counts = {}
    for word in text.split():
        if lower:
            word = word.lower()
        counts[word] = counts.get(word, 0) + 1
    return counts


def make_counter(start=0):
    n = start

    def step(by=1):
        nonlocal n
        n += by
        return n

    return step


def squares_of_odds(xs):
    return [x * x for x in xs if x % 2]


def describe(items):
    names = ", ".join(f"{k}={v!r:>4}" for k, v in sorted(items.items()))
    return f"<{len(items)} items: {names}>" if items else "<empty>"


EXAMPLES = [add, clamp, count_words, make_counter, squares_of_odds, describe]


def side_by_side(left: str, right: str, width: int) -> str:
    """Lay two blocks of text out in two columns of ``width`` characters each."""
    left_lines = left.expandtabs().splitlines()
    right_lines = right.expandtabs().splitlines()
    rows = [
        f"{a[:width]:<{width}} | {b[:width]}"
        for a, b in zip_longest(left_lines, right_lines, fillvalue="")
    ]
    return "\n".join(rows)


def main() -> int:
    columns = shutil.get_terminal_size((120, 24)).columns
    width = max(30, (columns - 3) // 2)
    py = f"Python {sys.version_info.major}.{sys.version_info.minor}"
    print(f"pellucid {pellucid.__version__} on {py}: original source | decompiled from bytecode")
    ok = 0
    for fn in EXAMPLES:
        original = textwrap.dedent(inspect.getsource(fn))
        try:
            decompiled = pellucid.decompile(fn, verify=True)
            ok += 1
        except pellucid.DecompilationError as exc:
            decompiled = f"DecompilationError:\n{textwrap.fill(str(exc), width)}"
        print()
        print(f"{'original':<{width}} | decompiled ({fn.__qualname__})")
        print(f"{'-' * width}-+-{'-' * width}")
        print(side_by_side(original, decompiled, width))
    print()
    print(f"{ok}/{len(EXAMPLES)} functions decompiled and verified")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
