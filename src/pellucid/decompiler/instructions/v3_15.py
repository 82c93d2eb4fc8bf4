"""CPython 3.15: iterators and awaitables take two stack values and generator expressions
make their own iterator (read as 3.14's by withsetup.py); IMPORT_NAME's two low bits flag a
lazy or eager import (PEP 810)."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_14

TABLE = replace(
    v3_14.TABLE,
    version=(3, 15),
    name_shift={**v3_14.TABLE.name_shift, "IMPORT_NAME": 2},
    paired_iterators=True,
)
