"""CPython 3.13: TO_BOOL, END_FOR; POP_TOP, the NULL above the callable,
SET_FUNCTION_ATTRIBUTE, super-instructions, a line for every code unit."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_12

TABLE = replace(
    v3_12.TABLE,
    version=(3, 13),
    compare_shift=5,
    line_every_unit=True,
    has_to_bool=True,
    end_for_then_pop_top=True,
    null_after_callable=True,
    make_function_flags=False,
    class_firstlineno=True,
    class_static_attributes=True,
    copies_clause_ends=True,
    forms_superinstructions_after_copies=True,
    pops_repeated_stores=True,
    cells_loaded_fast=True,
)
