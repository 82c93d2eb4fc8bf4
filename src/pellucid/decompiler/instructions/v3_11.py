"""CPython 3.11: zero-cost exceptions (the exception table), NULL-pushing calls, SEND loops,
inline caches, handler code laid out inline."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_10

TABLE = replace(
    v3_10.TABLE,
    version=(3, 11),
    name_shift={"LOAD_GLOBAL": 1},
    oparg_varnames=True,
    load_global_null_bit=True,
    calls_push_null=True,
    make_function_pops_qualname=False,
    yield_from_is_send=True,
    get_awaitable_has_kind=True,
    match_pushes_success_flag=False,
    exc_match_pushes_bool=True,
    docstring_shared_with_equal_loads=False,
    has_exception_table=True,
    saved_exception_values=1,
    frames_on_c_stack=False,
    keeps_dead_final_return=False,
    jumps_to_loop_head_from_test=True,
    inline_handlers=True,
    copies_exit_tails_into_both_arms=False,
    copies_blocks_after_match=False,
)
