"""pellucid: read and debug what CPython bytecode and torch.compile really run.

Public API only; implementation lives in subpackages.
"""

from __future__ import annotations

from pellucid.decompiler import DecompilationError, Refusal, decompile

__version__ = "0.1.0"

__all__ = [
    "DecompilationError",
    "Refusal",
    "__version__",
    "debug",
    "decompile",
    "install",
    "prepare_debug",
    "uninstall",
]


def __getattr__(name: str):
    # torch integration is imported lazily: the decompiler must work without torch.
    if name in ("prepare_debug", "debug", "install", "uninstall"):
        from pellucid import dynamo

        return getattr(dynamo, name)
    raise AttributeError(f"module 'pellucid' has no attribute {name!r}")
