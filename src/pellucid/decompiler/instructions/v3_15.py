"""CPython 3.15: iterators and awaitables take two stack values and generator expressions
make their own iterator (read as 3.14's by withsetup.py); IMPORT_NAME's two low bits flag a
lazy or eager import (PEP 810): a lazy one is spelled with argrepr "lazy" (an eager one is what
an import in a try or a star import compiles to, nothing the source says)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pellucid.decompiler.instructions import v3_14

if TYPE_CHECKING:
    from pellucid.decompiler.instructions.decode import Raw


def _import_name(ins: Raw) -> Raw:
    return ins._replace(argrepr="lazy") if ins.arg & 1 else ins


TABLE = replace(
    v3_14.TABLE,
    version=(3, 15),
    name_shift={**v3_14.TABLE.name_shift, "IMPORT_NAME": 2},
    paired_iterators=True,
    common_constant_resolved=True,
    tells_compiler_back_jumps_by_positions=True,
    spellings={**v3_14.TABLE.spellings, "IMPORT_NAME": _import_name},
)
