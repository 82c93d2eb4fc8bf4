"""Decompile live CPython code objects (3.9-3.13) back to Python source."""

from __future__ import annotations

from pellucid.decompiler.api import decompile
from pellucid.decompiler.errors import DecompilationError, Refusal

__all__ = ["DecompilationError", "Refusal", "decompile"]
