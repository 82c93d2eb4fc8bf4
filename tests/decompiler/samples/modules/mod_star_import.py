"""Module-level star import and names it brings in."""

from math import *  # noqa: F403
from os.path import join as _join

RESULT = (floor(2.5), ceil(2.5), pi > 3)  # noqa: F405


def _check():
    return RESULT, _join("a", "b"), sqrt(16)  # noqa: F405
