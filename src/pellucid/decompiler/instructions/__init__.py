"""The instruction layer: decoding, one table per CPython version, normalized instructions.

The only layer that reads the interpreter's version.  ``decode.py`` reads
``co_code`` with the running version's :class:`~.table.Table` (``v3_9.py`` ... ``v3_15.py``
each state what their version changed) and ``normalize.py`` turns it into version-neutral
:class:`Instr` records in the vocabulary of ``vocabulary.py``.  Later layers ask ``TABLE``
for facts about the version by name.
"""

from __future__ import annotations

from pellucid.decompiler.instructions.decode import TABLE
from pellucid.decompiler.instructions.normalize import (
    JUMPS_FOLD_NOT_INTO_COMPARE,
    MAX_COPY_SIZE,
    SPELLINGS,
    Instr,
    arg_key,
    exception_entries,
    flagged_docstring,
    fold_jumps_over_jumps,
    has_jump_chains,
    normalize,
    remove_instructions,
    same_positions,
    thread_jump_chains,
)
from pellucid.decompiler.instructions.table import Table
from pellucid.decompiler.instructions.vocabulary import (
    CONDITIONAL_JUMPS,
    DROPPED,
    INVERSE_JUMPS,
    JUMP_ALIASES,
    PUSHES_RESULT,
    TERMINAL,
    VALUE_JUMPS,
)

__all__ = [
    "CONDITIONAL_JUMPS",
    "DROPPED",
    "INVERSE_JUMPS",
    "JUMPS_FOLD_NOT_INTO_COMPARE",
    "JUMP_ALIASES",
    "MAX_COPY_SIZE",
    "PUSHES_RESULT",
    "SPELLINGS",
    "TABLE",
    "TERMINAL",
    "VALUE_JUMPS",
    "Instr",
    "Table",
    "arg_key",
    "exception_entries",
    "flagged_docstring",
    "fold_jumps_over_jumps",
    "has_jump_chains",
    "normalize",
    "remove_instructions",
    "same_positions",
    "thread_jump_chains",
]
