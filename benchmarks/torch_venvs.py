"""Where the benchmarks find each supported torch release: the venvs ``scripts/setup.sh`` makes.

The oldest release lives in the checkout's ``.venv``; each other one in
``$PELLUCID_CACHE/venvs/py3.11-torch<version>`` (default cache ``~/.cache/pellucid``). The
releases are the ``requirements/torch-<version>.txt`` files.
"""

from __future__ import annotations

import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("PELLUCID_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "pellucid")


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


def torch_python(version: str) -> str:
    """The interpreter of ``version``'s venv; SystemExit naming the set-up step if absent."""
    versions = supported_versions()
    if version not in versions:
        raise SystemExit(f"torch {version} is not supported; the matrix is {', '.join(versions)}")
    if version == versions[0]:
        python = os.path.join(ROOT, ".venv", "bin", "python")
    else:
        python = os.path.join(CACHE, "venvs", f"py3.11-torch{version}", "bin", "python")
    if not os.path.exists(python):
        raise SystemExit(f"no venv for torch {version} ({python}): run scripts/setup.sh first")
    return python


def parse_torch_option(text: str) -> list[tuple[str, str]]:
    """``--torch all`` or ``--torch 2.13.0,2.15.0``: (version, interpreter) pairs."""
    versions = supported_versions() if text == "all" else [v for v in text.split(",") if v]
    return [(v, torch_python(v)) for v in versions]
