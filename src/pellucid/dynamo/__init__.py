"""torch.compile made readable and debuggable (depyf-compatible API).

``prepare_debug`` dumps and runs from files, ``debug`` steps through them, ``install`` adds
decompiled source to ``TORCH_LOGS=+bytecode``.  Every torch internal used sits in
:mod:`pellucid.dynamo.adapter`.
"""

from __future__ import annotations

from pellucid.dynamo.adapter import UnsupportedTorchError
from pellucid.dynamo.debugging import debug
from pellucid.dynamo.logging_hook import install, uninstall
from pellucid.dynamo.session import PellucidWarning, prepare_debug

__all__ = [
    "PellucidWarning",
    "UnsupportedTorchError",
    "debug",
    "install",
    "prepare_debug",
    "uninstall",
]
