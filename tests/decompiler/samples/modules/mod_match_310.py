# min-version: 3.10
"""Module-level match statement and functions using match."""

import sys

RESULTS = []

for subject in (0, [1, 2], {"k": 3}, "s"):
    match subject:
        case 0:
            RESULTS.append("zero")
        case [a, b]:
            RESULTS.append(("pair", a, b))
        case {"k": v}:
            RESULTS.append(("k", v))
        case _:
            RESULTS.append("other")


def classify(x):
    match x:
        case int() | float() as num if num > 0:
            return "positive"
        case str():
            return "text"
    return "unknown"


def _check():
    return RESULTS, classify(3), classify("a"), classify(-1), sys.version_info >= (3, 10)
