"""Where the benchmarks find the peer tool: depyf (PyPI 0.20.0) in a venv beside this checkout."""

from __future__ import annotations

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def depyf_torch_python() -> str | None:
    """The interpreter of a venv where ``import depyf, torch`` works, or None."""
    for venv in (".venv-depyf-torch", ".venv-depyf"):
        py = os.path.join(ROOT, venv, "bin", "python")
        if os.path.exists(py):
            ok = subprocess.run([py, "-c", "import depyf, torch"], capture_output=True, timeout=300)
            if ok.returncode == 0:
                return py
    return None
