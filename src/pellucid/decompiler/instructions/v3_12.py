"""CPython 3.12: forward-only conditional jumps, RETURN_CONST, method loads in LOAD_ATTR, cold
blocks (handlers) after the function's code, exit blocks copied where lines are missing."""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.instructions import v3_11

TABLE = replace(
    v3_11.TABLE,
    version=(3, 12),
    jumps_skip_caches=True,
    name_shift={"LOAD_GLOBAL": 1, "LOAD_ATTR": 1, "LOAD_SUPER_ATTR": 2},
    compare_shift=4,
    load_attr_method_bit=True,
    kw_names_resolved=True,
    marks_unbound_loads=True,
    has_end_send=True,
    has_return_const=True,
    except_star_list_first=True,
    inline_handlers=False,
    clause_continue_before_rest=False,
    copies_exit_tails_into_both_arms=True,
    forward_only_conditional_jumps=True,
    cold_blocks_at_end=True,
    copies_exits_without_line=True,
    shares_continue_jumps=True,
    merges_clause_end_jumps=True,
    copies_blocks_after_match=True,
)
