"""What one CPython version's bytecode and compiler are like, as named facts.

Every later layer asks the running version's :class:`Table` (``instructions.TABLE``) a question
by name (``TABLE.has_exception_table``) instead of comparing version numbers: a new CPython is
taught in one place, its table module (``v3_X.py``), which states what changed from the version
before it.  The facts fall in three groups: how instructions are encoded (read by the decoder),
what the instructions mean (read by normalization and the evaluators), and how the compiler lays
code out (read by the structuring walk, until undo passes and regions replace its layout rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class Table:
    """The facts of one CPython version (see each version's module for what it changed)."""

    version: tuple[int, int]

    # ---- encoding: how the decoder reads co_code
    # code units (bytes on 3.9, instructions after) a jump argument counts
    jump_unit: int
    # relative jumps count from after the jump's inline caches (3.12+)
    jumps_skip_caches: bool
    # opname -> low bits of a name instruction's argument that are flags, not the index
    name_shift: Mapping[str, int]
    # low bits of COMPARE_OP's argument below the operator's index
    compare_shift: int
    # locals, cells and free variables share one argument space (code._varname_from_oparg)
    oparg_varnames: bool
    # co_lines gives every code unit a line, None for compiler-made code (3.13+); before,
    # lines are where they start, carried forward
    line_every_unit: bool
    # co_flags says whether co_consts[0] is the docstring (3.14+)
    docstring_flag: bool
    # LOAD_COMMON_CONSTANT's argument resolves to the constant, as dis gives it (3.15+; 3.14's
    # dis leaves it the index)
    common_constant_resolved: bool

    # ---- instructions: what they mean
    # TO_BOOL instructions: implied by a following test, a conversion when alone (3.13+)
    has_to_bool: bool
    # a local the compiler cannot prove bound is loaded by LOAD_FAST_CHECK, so a plain
    # LOAD_FAST cannot raise UnboundLocalError (3.12+); before, every LOAD_FAST checks
    marks_unbound_loads: bool
    # FOR_ITER's exhaustion path is END_FOR; POP_TOP (3.13+), not an END_FOR popping twice
    end_for_then_pop_top: bool
    # LOAD_GLOBAL's low bit pushes a NULL for a call (3.11+)
    load_global_null_bit: bool
    # the NULL (or self) of a call is pushed above the callable (3.13+), not below it
    null_after_callable: bool
    # LOAD_ATTR's low bit is a method load (3.12+)
    load_attr_method_bit: bool
    # the decoder resolves KW_NAMES' argument to its constant (3.12+)
    kw_names_resolved: bool
    # calls have a NULL-or-self slot under the callable and arguments (3.11+)
    calls_push_null: bool
    # MAKE_FUNCTION pops the function's qualified name (3.9/3.10)
    make_function_pops_qualname: bool
    # MAKE_FUNCTION's argument holds flags for the values it pops (before 3.13's
    # SET_FUNCTION_ATTRIBUTE)
    make_function_flags: bool
    # `yield from`/`await` are SEND loops (3.11+), not YIELD_FROM
    yield_from_is_send: bool
    # SEND's exhaustion ends in END_SEND (3.12+)
    has_end_send: bool
    # GET_AWAITABLE's argument says where the awaitable comes from (3.11+)
    get_awaitable_has_kind: bool
    # MATCH_CLASS / MATCH_KEYS push a success flag besides their values (3.10)
    match_pushes_success_flag: bool
    # an exception match is CHECK_EXC_MATCH then a conditional jump (3.11+)
    exc_match_pushes_bool: bool
    # RETURN_CONST returns a constant statement (3.12+): a constant reaching RETURN_VALUE is
    # an operand of an expression
    has_return_const: bool
    # an except* handler starts BUILD_LIST; COPY 2 (3.12+), not COPY 1; BUILD_LIST; SWAP 2
    except_star_list_first: bool
    # class bodies store __firstlineno__ and __static_attributes__ (3.13+)
    class_firstlineno: bool
    class_static_attributes: bool
    # the `match` statement exists (3.10+)
    has_match_statement: bool
    # a loaded constant equal to co_consts[0] may share its slot, so a docstring is only one
    # when no instruction loads an equal constant (before 3.11)
    docstring_shared_with_equal_loads: bool
    # exceptions use the exception table (3.11+), not SETUP_* blocks on a block stack
    has_exception_table: bool
    # values a handler's saved exception takes on the stack (3 before 3.11: type, value, tb)
    saved_exception_values: int
    # Python frames use the C stack (before 3.11): deep recursion must stay modest
    frames_on_c_stack: bool
    # a conditional jump on `not (a is b)` is spelled with the inverse operator (before 3.14)
    jumps_fold_not_into_compare: bool
    # iterators and awaitables take two stack values (3.15+: GET_ITER pushes an index or NULL
    # above the iterator, POP_ITER and END_SEND pop both), and a generator expression makes
    # its iterator from the iterable its caller passes
    paired_iterators: bool

    # ---- compiler layout: where the compiler puts, copies and keeps code
    # dead jumps are kept after a return, raise or jump (3.9)
    keeps_dead_jumps: bool
    # small exit blocks (a return, raise, the implicit return) are copied into each
    # predecessor (3.10+)
    copies_exit_blocks: bool
    # a `while` loop's test is copied to the bottom of the loop (3.10-3.13)
    duplicates_loop_tests: bool
    # a `while True` loop's jump back is laid where its body's path goes round, the arms that
    # return or raise after it (3.14+), not at the end of the body
    lays_forever_back_edge_inline: bool
    # an unreachable `return None` is kept after a final compound statement (3.9/3.10)
    keeps_dead_final_return: bool
    # `if t: continue` is one conditional jump to the loop head (3.11+)
    jumps_to_loop_head_from_test: bool
    # handler code reached only from an inner clause is laid out inline (3.11)
    inline_handlers: bool
    # an except clause's `continue` is laid out before the rest of the clause (3.10/3.11)
    clause_continue_before_rest: bool
    # small exit tails are copied into both arms of an if (3.10, 3.12+)
    copies_exit_tails_into_both_arms: bool
    # conditional jumps only go forward (3.12+): a backward one is a jump over a JUMP back
    forward_only_conditional_jumps: bool
    # handlers and other cold code are laid out after the function's code (3.12+)
    cold_blocks_at_end: bool
    # exit blocks without a line number are copied where they are reached (3.12+)
    copies_exits_without_line: bool
    # a `continue` is laid out once and reached by jumps (3.12+)
    shares_continue_jumps: bool
    # a clause's end (POP_EXCEPT; JUMP) is merged with the jumps that leave it (3.12+)
    merges_clause_end_jumps: bool
    # a conditional jump the compiler turned backward (a test whose path falls off a loop body
    # inside a try) is told from a written `if test: continue` by its JUMP_BACKWARD carrying
    # the test's source positions, a `continue` its own (3.15+, whose exception table protects
    # both); before, by the exception table leaving the compiler's one unprotected
    tells_compiler_back_jumps_by_positions: bool
    # an except clause's end is copied into a `break` (3.13+)
    copies_clause_ends: bool
    # super-instructions are formed after exit copies, so copies may be spelled apart (3.13+)
    forms_superinstructions_after_copies: bool
    # a run of POP_TOPs of an unpacked value stands for repeated stores to one name (3.13+)
    pops_repeated_stores: bool
    # the code after a `match` is copied into each case (all but 3.11, which jumps to it)
    copies_blocks_after_match: bool
    # a cell object (LOAD_CLOSURE, a pseudo-op since 3.13) is assembled as a fast load of the
    # cell's slot (3.13+)
    cells_loaded_fast: bool = False

    # ---- this version's own readings (raw opname -> the raw instruction it stands for) and
    # passes undoing what its compiler laid out differently (see instructions/normalize.py)
    spellings: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    layout_passes: tuple[Callable[[CodeType, list], list], ...] = ()
    normalized_passes: tuple[Callable[[list], None], ...] = ()
    # exception-table depths as the layout passes leave them, keyed (start, end, target)
    exception_depths: Callable[[CodeType], dict] | None = None
