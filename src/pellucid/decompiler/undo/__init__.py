"""Undo passes: one module per CPython compiler transformation that copies or moves code.

Each pass runs on the normalized instructions before the structuring walk and declares, as a
fact of the version's table, which versions it serves; the walk then reads the code as the
source wrote it, or asks the pass's record instead of recognising the copy itself.
"""

from pellucid.decompiler.undo.loop_tests import TEST_COPY, mark_loop_test_copies

__all__ = ["TEST_COPY", "mark_loop_test_copies"]
