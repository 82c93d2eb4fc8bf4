"""``install()``/``uninstall()``: decompiled source in PyTorch's own bytecode log.

With ``TORCH_LOGS=+bytecode``, Dynamo logs the original and modified bytecode of every frame
to the ``torch._dynamo.convert_frame`` bytecode artifact logger.  The hook installed here adds,
to the same logger, the decompiled source of each modified frame (or the reason it could not
be decompiled).  It never changes the code Dynamo runs.
"""

from __future__ import annotations

import logging
import types
from typing import Any

from pellucid.dynamo import adapter

_handle: Any = None


def _log_source(code: types.CodeType, new_code: types.CodeType) -> None:
    log = adapter.bytecode_logger()
    if not log.isEnabledFor(logging.DEBUG):
        return None
    try:
        from pellucid.decompiler.api import decompile_naming_constants
        from pellucid.decompiler.emit import unparse
        from pellucid.dynamo import tidy
        from pellucid.dynamo.recompile import short_repr

        tree, consts = decompile_naming_constants(new_code, "__pellucid_const_", tree=True)
        tidy.tidy(tree, new_code.co_name)  # the graph break's resume call, readable
        src = unparse(tree)
        # Dynamo's constants with no source spelling (devices, code objects) get names
        src = "".join(f"# {k}: {short_repr(v)}\n" for k, v in consts.items()) + src
    except Exception as e:  # noqa: BLE001
        src = f"# pellucid could not decompile it: {type(e).__name__}: {e}"
    log.debug(
        "DECOMPILED SOURCE (pellucid) %s %s line %s \n%s\n",
        code.co_name,
        code.co_filename,
        code.co_firstlineno,
        src,
    )
    return None


def install() -> None:
    """Log the decompiled source of every Dynamo-transformed frame (see ``TORCH_LOGS=+bytecode``)."""
    global _handle
    adapter.check_supported()
    if _handle is None:
        _handle = adapter.register_bytecode_hook(_log_source)


def uninstall() -> None:
    """Undo :func:`install` (no-op if not installed)."""
    global _handle
    if _handle is not None:
        _handle.remove()
        _handle = None


def installed() -> bool:
    return _handle is not None
