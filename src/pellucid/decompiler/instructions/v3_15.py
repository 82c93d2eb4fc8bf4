"""CPython 3.15: read as 3.14 so far (see v3_14.py).

Not yet read: ``decode.SUPPORTED_VERSIONS`` stops before this version."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_14

TABLE = replace(v3_14.TABLE, version=(3, 15))
