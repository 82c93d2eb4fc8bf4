"""Where the benchmarks find each supported torch release: the venvs ``scripts/setup.sh`` makes.

The oldest release lives in the checkout's ``.venv``; each other one in
``$PELLUCID_CACHE/venvs/py3.11-torch<version>`` (default cache ``~/.cache/pellucid``). The
releases are the ``requirements/torch-<version>.txt`` files. The newest release is also
installed for the newer CPythons of ``NEWER_PYTHONS`` (Debian's builds, see
``scripts/pythons.sh``), in ``$PELLUCID_CACHE/venvs/py3.X-torch<version>``.
"""

from __future__ import annotations

import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("PELLUCID_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "pellucid")


# Python the torch matrix runs on, and the newer ones with a venv of the newest torch release
# (PELLUCID_MAIN_VERSION and PELLUCID_TORCH_PYTHONS in scripts/setup.sh).
MAIN_PYTHON = "3.11"
NEWER_PYTHONS = ("3.14",)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def supported_versions() -> list[str]:
    """Every torch release of the support matrix, oldest first."""
    found = []
    for path in glob.glob(os.path.join(ROOT, "requirements", "torch-*.txt")):
        m = re.fullmatch(r"torch-(\d+\.\d+\.\d+)\.txt", os.path.basename(path))
        if m:
            found.append(m.group(1))
    return sorted(found, key=_key)


def torch_python(version: str, python: str = MAIN_PYTHON) -> str:
    """The interpreter of the venv of torch ``version`` on CPython ``python``; SystemExit naming
    the set-up step if absent."""
    versions = supported_versions()
    if version not in versions:
        raise SystemExit(f"torch {version} is not supported; the matrix is {', '.join(versions)}")
    if python != MAIN_PYTHON and (python not in NEWER_PYTHONS or version != versions[-1]):
        raise SystemExit(f"torch {version} on Python {python} is not set up: only "
                         f"{versions[-1]} on {', '.join(NEWER_PYTHONS)}")
    if version == versions[0] and python == MAIN_PYTHON:
        path = os.path.join(ROOT, ".venv", "bin", "python")
    else:
        path = os.path.join(CACHE, "venvs", f"py{python}-torch{version}", "bin", "python")
    if not os.path.exists(path):
        raise SystemExit(f"no venv for torch {version} on Python {python} ({path}): run scripts/setup.sh first")
    return path


def column_label(version: str, python: str = MAIN_PYTHON) -> str:
    """A matrix column's name: the release, and the CPython when it is not the main one."""
    return version if python == MAIN_PYTHON else f"{version} py{python}"


def parse_torch_option(text: str) -> list[tuple[str, str]]:
    """``--torch all`` or ``--torch 2.13.0,2.15.0@3.14``: (column label, interpreter) pairs.

    ``all`` is every release on the main Python, then the newest on each of ``NEWER_PYTHONS``;
    ``VERSION@PYTHON`` names a release on another CPython."""
    if text == "all":
        versions = supported_versions()
        pairs = [(v, MAIN_PYTHON) for v in versions]
        pairs += [(versions[-1], py) for py in NEWER_PYTHONS]
    else:
        pairs = []
        for item in filter(None, text.split(",")):
            version, _, python = item.partition("@")
            pairs.append((version, python or MAIN_PYTHON))
    return [(column_label(v, py), torch_python(v, py)) for v, py in pairs]
