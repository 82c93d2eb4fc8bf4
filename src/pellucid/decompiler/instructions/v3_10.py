"""CPython 3.10: jumps count instructions; the compiler copies small exit blocks and loop
tests and drops dead code; ``match``."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_9

TABLE = replace(
    v3_9.TABLE,
    version=(3, 10),
    jump_unit=2,
    has_match_statement=True,
    keeps_dead_jumps=False,
    copies_exit_blocks=True,
    duplicates_loop_tests=True,
    clause_continue_before_rest=True,
    copies_exit_tails_into_both_arms=True,
)
