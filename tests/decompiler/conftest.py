"""Decompiler behaviour tests: NOT_YET and the per-construct summary.

``NOT_YET`` names the construct classes the decompiler does not handle yet: for samples of those
classes a ``DecompilationError`` is recorded as an expected failure (xfail).  For every other
class -- all of issue 2 -- it is a plain failure.  Wrong code is a failure in every class.

The harness itself is ``samples/_harness.py`` (imported by the test modules under that name:
several test directories have a conftest.py, so ``from conftest import ...`` is ambiguous).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from samples import CORE_CONSTRUCTS, _harness  # noqa: E402
from samples._harness import *  # noqa: E402,F401,F403 - kept importable from here too

# Construct classes not done yet, per Python version: a DecompilationError in one of their
# samples is an xfail on that version and a failure on every other.  Shrink me.
_NOT_YET_BY_VERSION = {
    (3, 9): set(),
    (3, 10): set(),
    (3, 11): set(),
    (3, 12): set(),
    (3, 13): set(),
    (3, 14): set(),
    (3, 15): set(),
}
NOT_YET = _NOT_YET_BY_VERSION.get(
    sys.version_info[:2],
    {"exceptions", "with", "async", "match", "type_params", "generators", "classes"},
)

assert not (NOT_YET & CORE_CONSTRUCTS), "issue-2 constructs must never be xfailed"

class Bug(NamedTuple):
    """A known decompiler defect: the versions where a sample is refused (``DecompilationError``:
    its behaviour, signature and verified tests fail), where it decompiles to
    different-but-equivalent bytecode (only its verified test fails), where the recompiled
    function decompiles to other, equivalent text (only its fixpoint test fails), where it
    decompiles to source that behaves differently (``wrong``: its behaviour and verified tests
    fail; ``decompile(verify=True)`` refuses it), where it decompiles with dead statements
    (``dead``: code written after a return, raise, break or continue, which verification cannot
    see; only its dead-statement test fails), and why."""

    refused: str = ""
    mismatch: str = ""
    why: str = ""
    unstable: str = ""
    wrong: str = ""
    dead: str = ""


def _versions(spec: str) -> set[tuple[int, int]]:
    """``"3.9, 3.11-3.13"`` as a set of (major, minor)."""
    out: set[tuple[int, int]] = set()
    for part in filter(None, (p.strip() for p in spec.split(","))):
        lo, _, hi = part.partition("-")
        a, b = (int(x) for x in lo.split("."))
        c = int((hi or lo).split(".")[1])
        out.update((a, m) for m in range(b, c + 1))
    return out


_REFUSAL_FAILS = frozenset({"test_behaviour", "test_signature", "test_verified", "test_no_dead_statements"})

# Known decompiler defects, keyed by sample id: the open work queue, empty is the goal.  On the
# versions listed the sample's failing tests are strict xfails (a fix shows up as an XPASS that
# fails CI until the entry is narrowed); on every other version they must pass.  The behaviour
# tests found no sample that runs differently.
KNOWN_BUGS: dict[str, Bug] = {
    "with_statements.with_nested_return_then_rest_of_outer": Bug(refused="3.11", why="nested withs, the inner one returning, the rest of the outer body reached only when the inner one swallows (3.11: the outer with's follow, where its suppressed path returns, is not found)"),
    "tricky.tr_ternary_in_while_condition": Bug(mismatch="3.10-3.13", why="the while test copied at the loop bottom reads as `if test: while True:`"),
    "assignments.asg_augmented_place_read_once": Bug(mismatch="3.12-3.15", why="the key and the place read before the inlined comprehension's branch are saved to temporaries, then operated on and stored (same behaviour; the compiler keeps them on the stack)"),
    "boolops.bool_ternary_nested": Bug(mismatch="3.10, 3.12-3.15", why="nested ternary with a copied tail named a temporary"),
    "boolops.bool_deep_nesting": Bug(mismatch="3.9-3.11", why="deep and/or/not comes back De Morgan-transformed"),
    "boolops.bool_group_end_test_skipped": Bug(mismatch="3.9-3.11", why="an and/or group's false exits threaded past the test after it come back with that test's operand repeated inside the group (same behaviour)"),
    "control.ctl_if_not_and_truthy_constant_else": Bug(mismatch="3.9", why="3.9 keeps the constant's test, read back as `not 'ab'`, which recompiled folds to False (same behaviour)"),
    "control.ctl_empty_return_vs_none": Bug(mismatch="3.9", why="bare return vs implicit return jump target"),
    "tricky.tr_assert_in_loop": Bug(mismatch="3.9", why="assert at the end of a loop body"),
    "exceptions.exc_while_true_try_else_break": Bug(mismatch="3.10", why="the else's break reaches a return 3.10 copied into it"),
    "loops.loop_forever_inner_while_else_break": Bug(mismatch="3.9", why="a `while True` whose body starts with a while-else (3.9 gives both loops one head)"),
    "exceptions.exc_try_finally_in_finally": Bug(refused="3.10", why="a try/finally inside a finally body (the normal path's copy ends in the function's return, the exception path's in a re-raise, so the inner try's handler lies one instruction off)"),
    "exceptions.exc_try_finally_in_finally_if_else": Bug(refused="3.10", why="a try/finally inside a finally body (see exc_try_finally_in_finally)"),
    "boolops.bool_ternary_test_raising": Bug(mismatch="3.10", why="a conditional expression as an if test whose raise 3.10 copied into both arms comes back as nested ifs"),
    "exceptions.exc_nested_try_ends_if_arm_with_else": Bug(mismatch="3.12", why="a try whose body is a try, ending an if arm with an else at the function's end (the returns copied into each path are written)"),
    "loops.loop_while_continue_then_break_past_else": Bug(refused="3.9", why="3.9 threads the test's false exit differently: the if's condition reads as jumping past its block"),
    "loops.loop_while_two_forever_levels": Bug(mismatch="3.9", why="a `while True` whose body starts with a `while True` comes back as one loop (3.9 gives both the same head; same behaviour)"),
    "exceptions.exc_try_only_pass": Bug(mismatch="3.11-3.15", why="a try whose body only passes (its handler is dead code the compiler keeps)"),
    "exceptions_loops.exl_retry_loop": Bug(unstable="3.9", why="a clause's `continue` ending the loop body comes back as `pass` (verified equivalent: the continue's jump is dead code), which recompiled reads otherwise"),
    "exceptions_loops.exl_break_in_except": Bug(mismatch="3.12, 3.13, 3.14, 3.15", why="a break whose target is the return after the loop comes back as that return"),
    "exceptions.exc_return_in_else": Bug(mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="a try's else that returns comes back as code after the try, the clause returning"),
    "exceptions.exc_named_handler_unbound_after": Bug(mismatch="3.12, 3.13, 3.14, 3.15", why="`return a, (x if c else y)` comes back as an if with two returns"),
    "exceptions.exc_else_after_body_ending_in_try": Bug(mismatch="3.13-3.15", why="a try/except whose body is a try/except, with an else (3.13+: comes back with the same behaviour, not the same bytecode)"),
    "exceptions.exc_else_reached_only_from_inner_clause": Bug(mismatch="3.12-3.15", why="an else reached only from the inner try's clause, the inner body returning (3.12+: comes back with the same behaviour, not the same bytecode)"),
    "exceptions.exc_try_in_else": Bug(mismatch="3.10", why="a try's else holding a try comes back as code after the try, the clause returning"),
    "async_samples.async_await_try": Bug(mismatch="3.10", why="`return <constant>` ending a try body comes back after the try (it cannot raise)"),
    "exceptions_loops.exl_else_try_breaks_ending_function": Bug(refused="3.12, 3.14, 3.15", mismatch="3.11, 3.13", why="a try/except/else ending a loop that ends the function, the else a try in a try that breaks (3.11, 3.13: written with `return None` for the copied break; 3.12, 3.14+: the loop's test is reached only from handler code past the function's)"),
    "exceptions_loops.exl_try_else_return_in_finally_in_with": Bug(refused="3.12, 3.13", unstable="3.14, 3.15", why="a try/finally in a with in a loop, its body a try whose else returns (3.12/3.13: the return's copies of the finally body and the with's exit are not told from the statement's normal exit; 3.14/3.15: read exactly, as `while True: if ks:` with the else's return in the try body, and that recompiled is refused)"),
    "exceptions_loops.exl_try_else_after_finally_if_continue": Bug(refused="3.11", why="a try/except/else whose body is a try/finally that continues in an if, in a finally that continues (3.11: the inner copy's `continue` arm jumps over handler code laid inline)"),
    "exceptions_loops.exl_break_in_if_arm_through_finally_in_clause": Bug(refused="3.10, 3.12-3.15", why="an if arm's break through a finally in an except clause, the copied return after the loop following the finally body's copy (3.10, 3.12+: that return is not read as the break's)"),
    "exceptions_loops.exl_continue_in_with_in_try_with_else": Bug(refused="3.12-3.15", why="a `continue` ending a with inside a try body that has an else (3.11+: the with's exit on the continue path is not recognized)"),
    "exceptions_loops.exl_clause_continue_before_return": Bug(refused="3.9, 3.10", mismatch="3.11-3.15", why="a clause's `continue` in a try nested in a loop body that ends in a return (3.11 read the return as a copy inside the loop and lost the loop's exit before: wrong code; it now reads the try's exit as a `break`, with an else: break that is never reached; 3.12/3.13 were wrong before)"),
    "exceptions_loops.exl_while_true_try_except_continue": Bug(refused="3.10", why="a clause's `continue` ending a `while True` body whose try returns (3.10: the try's exits all leave the loop)"),
    "exceptions_loops.exl_continuing_finally_under_returning_finally": Bug(refused="3.11", why="a finally that continues, inside a try whose finally returns (3.11: the test of the try body that jumps to the normal exit's copy reads as skipping an else)"),
    "with_statements.with_in_try_else_arm_copied_exit": Bug(mismatch="3.13, 3.14, 3.15", why="the return after the try, copied into the if arm, comes back inside the try (it loads two locals)"),
    "exceptions.exc_finally_retry_loop_break": Bug(refused="3.10", why="a `while True` ending a finally body, left only by `break`: each copy's break is compiled as the code after the loop (the exception path's re-raise, the normal path's return), so the exception-path copy seems to end inside the loop"),
    "exceptions_loops.exl_swallowed_raise_under_continuing_finally": Bug(refused="3.11", why="a with swallowing the exception raised in it, in a try whose finally continues (3.11+: the try body's only normal exit, the with's swallowing path, goes through the finally body's copy laid out past the statement, which is read as code after it)"),
    "exceptions_loops.exl_except_falls_into_continuing_finally": Bug(refused="3.13-3.15", why="an if/else ending a try body whose else returns, an except clause falling off, under a finally that continues (3.13+: the test jumping to the normal exit's copy reads as skipping an else)"),
    "exceptions_loops.exl_clause_falls_into_returning_finally": Bug(refused="3.10", why="an except clause falling off a try whose body's finally returns, under a finally that breaks (3.10: the try statements' blocks end past the loop body)"),
    "exceptions_loops.exl_if_ending_finally_in_if_arm": Bug(unstable="3.12-3.15", why="a try/finally ending an if arm in a loop, the finally body ending in an if: read with a `continue` in the try body, whose recompilation reads with the `continue` after the statement"),
    "exceptions_loops.exl_finally_else_returns_clause_rest": Bug(refused="3.11", why="an except clause going on, through an enclosing finally body's copy, to code after the statement that only it reaches, the else returning (3.11: that code, laid inline after the handlers, is not read as the rest of the block)"),
    "exceptions_loops.exl_while_body_break_through_finally": Bug(mismatch="3.10", why="a try/except/else/finally in a loop, the break ending the try body (3.10: read as the else's break, the same behaviour)"),
    "exceptions_loops.exl_while_else_break_no_code_after": Bug(refused="3.12-3.15", why="a try/except/else/finally in a loop whose else breaks, with no code after the statement (the clause's path goes back to the loop's test)"),
    "exceptions_loops.exl_nested_else_break_through_finally": Bug(refused="3.12-3.15", why="a try/except/else/finally whose else breaks, in a loop nested in a for loop (the break's copied exit is the outer loop's back edge)"),
    "exceptions_loops.exl_forever_break_through_two_finallys": Bug(refused="3.12-3.15", why="a `while True` left by a break through two finally bodies into a copy of the return after the loop (the inner copy's tail holds the outer finally body's copy: it was read as the loop's follow, a `break` after the loop)"),
    "exceptions_loops.exl_retry_loop_in_clause": Bug(mismatch="3.10", why="the loop's break comes back as the return 3.10 copied into it"),
    "exceptions_loops.exl_retry_loop_if_else_in_clause": Bug(mismatch="3.10", why="see exl_retry_loop_in_clause"),
    "exceptions_loops.exl_while_test_clause_continue_then_raise": Bug(refused="3.9", why="a `while` loop only its clause's `continue` goes round, the code after it a raise: 3.9 reads the test's exit as leaving past the loop"),
    "loops.loop_elif_if_without_else_falls_to_back_edge": Bug(mismatch="3.9", why="3.9 threads the arms' jumps (loop-threading shapes)"),
    "exceptions.exc_ternary_argument_in_finally": Bug(mismatch="3.10", why="a conditional expression as a call argument in a finally body (3.10 copies the rest of the statement and the re-raise into both arms of the exception path's copy): the call's callee comes back saved in a temporary, each arm calling it (same behaviour)"),
    "exceptions.exc_finally_retry_loop_named_return": Bug(refused="3.9, 3.10", why="see exc_finally_retry_loop_break"),
    "exceptions.exc_except_and_finally_pass": Bug(mismatch="3.11", why="try/except inside `finally: pass` at the function's end: the return 3.11 puts after the statement is written in the clause and an else"),
    "async_samples.async_for_else_break_in_try_except": Bug(mismatch="3.12, 3.13, 3.14, 3.15", why="an async for-else's break in a try comes back as the return after the try that 3.12+ copied into it, the else as code after the loop (same behaviour)"),
    "loops.loop_while_as_if_body": Bug(mismatch="3.10, 3.12, 3.13", why="`if c: while d:` comes back as `if c and d: while True: ... if d: continue; break` (the test 3.10+ put before the loop's body reads as a second test of the if; same behaviour)"),
    "exceptions_loops.exl_except_continue_then_return_in_while": Bug(refused="3.9", why="a clause's `continue` as the while loop's last jump back, the return after the try laid out after it (3.9: the loop's exit is not found)"),
    "with_statements.with_continue_arm_then_code_after_back_edge": Bug(refused="3.11-3.15", why="an elif arm's `continue` as a `while True` loop's last reachable jump back, the else arm and the break after the if laid out after it (refused: that code is not placed; extending the loop body over it needs a break written at its end)"),
    "exceptions_loops.exl_clause_continue_then_conditional_back_edge": Bug(refused="3.11", why="a clause's `continue` and an if's `continue` in a `while True` whose body then returns (3.11: the try's follow is not found; 3.9 too before)"),
    "with_statements.with_then_break_ending_while_body": Bug(mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="a while body ending in a with and a break comes back as an if (same behaviour)"),
    "exceptions_loops.exl_if_try_break_ending_for_body": Bug(mismatch="3.11-3.15", why="`try: break` whose handler is dead code comes back as a plain `break` (same behaviour)"),
    "exceptions_loops.exl_if_break_ending_try_body_in_loop": Bug(refused="3.13, 3.14, 3.15", mismatch="3.10, 3.12", why="an if ending a try body whose break (copied as the return after the loop) lies past the protected range (3.12: written as the return; 3.13: refused)"),
    "exceptions_loops.exl_if_break_ending_try_body_then_code": Bug(mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="the if's break comes back as the return copied into it, inside the try (same behaviour)"),
    "exceptions_loops.exl_if_break_ending_try_body_in_tested_while": Bug(mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="see exl_if_break_ending_try_body_then_code"),
    "exceptions_loops.exl_else_continue_ending_try_body_with_else_code": Bug(refused="3.13, 3.14, 3.15", why="an if/else ending a try body whose else arm's `continue` lies past the protected range, the try's clause going round too (3.13: the if's test jumps past the body's block)"),
    "exceptions_loops.exl_only_back_edge_in_clause_of_clause": Bug(refused="3.9-3.11", mismatch="3.12, 3.13, 3.14, 3.15", why="a `while True` whose one jump back is a clause's `continue` in a try in a clause, the try's else a break (3.9-3.11: the try's exits are not found; 3.12+: the code after the try comes back in the clause and the break as the return copied into it, same behaviour)"),
    "exceptions_loops.exl_try_body_goes_on_past_conditional_back_edge": Bug(refused="3.9, 3.11", why="an if's `continue` as a `while True` loop's last jump back, inside a try whose body goes on after it (3.9: the try's end is not found; 3.11: the code after the jump back is not placed; 3.12: the return comes back as the try's else, same behaviour)"),
    "exceptions_loops.exl_if_else_break_try_body_then_return": Bug(refused="3.9, 3.11-3.15", mismatch="3.10", why="a loop that never goes round, its try body an if whose `else: break` is copied as the return after the loop, past the return after the try (3.13 read that return as the try's else: wrong code, now refused; 3.10: the break comes back as the return)"),
    "exceptions_loops.exl_clause_break_in_if_arm_try": Bug(mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="the clause's break comes back as the return copied into it (same behaviour)"),
    "exceptions_loops.exl_try_finally_break_in_if_arm": Bug(mismatch="3.11-3.15", why="`try: break finally: f()`, whose handler cannot be reached, comes back as the finally body then the break (same behaviour)"),
    "exceptions_loops.exl_clause_break_skips_return_after_if": Bug(refused="3.9, 3.11", mismatch="3.10, 3.12, 3.13, 3.14, 3.15", why="a loop that never goes round whose clause's `break` jumps past the return after the if (3.9 read it as an arm's jump over an else: wrong code, now refused; 3.10+: the break comes back as the return)"),
    "exceptions_loops.exl_else_behind_clause_of_inner_try": Bug(refused="3.11-3.15", why="a try's else reached only through the clause of a try in its body whose body returns: the else flows as code of that clause (3.11 put it after the enclosing try/finally before: wrong code; now refused)"),
    "exceptions_loops.exl_else_behind_clause_of_inner_try_in_loop": Bug(refused="3.11-3.15", why="exl_else_behind_clause_of_inner_try in a loop (3.11-3.13 put the else after the enclosing try/finally before: wrong code; now refused)"),
    "exceptions_loops.exl_plain_else_behind_clause_of_inner_try": Bug(refused="3.11-3.15", why="exl_else_behind_clause_of_inner_try_in_loop with plain statements in the else (wrong code on 3.11-3.13 before; now refused)"),
    "exceptions_loops.exl_const_return_else_behind_clause": Bug(refused="3.11-3.15", why="exl_else_behind_clause_of_inner_try with `return <constant>` as the else, which 3.11+ lay as the outer finally's copy and the return, outside every handler (3.11: the return came back after the outer try/finally, wrong code before; now refused)"),
    "exceptions_loops.exl_const_return_else_behind_clause_in_loop": Bug(refused="3.11-3.15", why="exl_const_return_else_behind_clause in a loop (3.11-3.13: wrong code before; now refused)"),
    "exceptions_loops.exl_none_return_else_behind_clause": Bug(refused="3.11-3.15", why="exl_const_return_else_behind_clause with `return None` (3.11: wrong code before; now refused)"),
    "exceptions_loops.exl_break_else_behind_clause": Bug(refused="3.11-3.15", why="a `break` as the else behind the clause, through a finally (3.11: the break came back after the try/finally, wrong code before; now refused)"),
    "exceptions_loops.exl_continue_else_behind_clause": Bug(refused="3.11-3.15", why="exl_break_else_behind_clause with `continue` (3.11: wrong code before; now refused)"),
    "exceptions_loops.exl_code_after_inner_try_only_from_clause": Bug(refused="3.12-3.15", why="code after an inner try whose normal exit always breaks, reached only from its clause (3.11 left it out: wrong code before, now read; 3.12, 3.13: the with's or the try's exits are not placed)"),
    "exceptions_loops.exl_code_after_try_finally_only_from_clause": Bug(refused="3.11-3.15", why="code after an inner try/finally reached only from the clause of the try in its clause (3.11 wrote it after the outer try/finally: wrong code before, now refused as code a try protects that comes after the statement; 3.12: the with's exits are not placed)"),
    "exceptions_loops.exl_with_break_then_try_clause_continue": Bug(refused="3.10, 3.12, 3.13, 3.14, 3.15", why="`with: break` in a `while True`, then a try reached only when the with swallows, whose clause's `continue` is the loop's one jump back (3.12/3.13 dropped the loop: wrong code, now refused)"),
    "exceptions_loops.exl_with_suppressing_return_in_try_finally": Bug(refused="3.14, 3.15", why="a with that returns, in a try/finally ending a while body: only the with's swallowing goes round (3.14+: the finally body's copy on that path goes to the loop's test, not the statement's end)"),
    "exceptions_loops.exl_finally_if_in_except_clause_in_for": Bug(refused="3.11", why="a try/finally in an except clause whose finally body ends in an if (3.11: the with's exit path in the clause is not placed)"),
    "exceptions_loops.exl_if_else_break_ending_try_body": Bug(mismatch="3.10, 3.12", unstable="3.13", why="see exl_if_break_ending_try_body_then_code (3.13: verified equivalent, and its recompiled bytecode is read with the break written in the try body)"),
    "exceptions.exc_written_return_none_after_clause_and_ifs": Bug(mismatch="3.10, 3.11", why="the written `return None` the ifs' false exits share comes back as the implicit return (3.10/3.11 lay it out like a copied implicit return; same behaviour)"),
    "exceptions.exc_written_return_none_after_nested_clauses": Bug(mismatch="3.10, 3.13-3.15", why="the written `return None` after the try comes back as the implicit return (3.10 and 3.13+ copy it into each arm of the inner clause, with its line: nothing shares it; same behaviour)"),
    "loops.loop_if_elif_else_pass_ending_body": Bug(unstable="3.12-3.15", why="the dead jump back of the `else: pass` reads as a `continue` ending the elif arm (verified equivalent: 3.12+ keep that jump for the pass's line), and without the pass the recompiled code has no such jump"),
    "with_statements.with_break_ending_body_in_while": Bug(mismatch="3.12-3.15", why="the with's `break` ending its body (3.12+: it comes back as the return after the loop, same behaviour)"),
    "with_statements.with_break_ending_body_in_if_then_rest": Bug(refused="3.14, 3.15", why="the with's `break` ending its body in an if arm, the code after the with reached only when it swallows (3.14+: that code, laid out past the loop's back edge, is not placed)"),
    "with_statements.with_break_into_copied_follow": Bug(mismatch="3.12-3.15", why="see with_break_ending_body_in_while (3.12+: the break comes back as the return after the loop, same behaviour)"),
    "with_statements.with_break_through_nested_withs_forever": Bug(refused="3.11, 3.14, 3.15", mismatch="3.12, 3.13", why="a `break` through two withs in a `while True` whose follow only the breaks' copies hold (3.11: the inner with's handler goes on into code not recognised; 3.14+: the with continues past its enclosing block; 3.12/3.13: the break comes back as the return, same behaviour)"),
    "with_statements.with_return_through_finally_holding_if": Bug(refused="3.11", why="a return through two finally bodies, the inner one holding an if (3.11: the with handler goes on into code not recognised)"),
    "with_statements.with_suppressing_in_try_in_if_arm_of_loop": Bug(mismatch="3.13-3.15", why="the jump round the loop after the with comes back as a `continue` inside the try, which its range then covers (a jump cannot raise: same behaviour; it came back missing before, so that a suppressed exception went on to the code after the if: wrong code)"),
}


def known_bug(test: str, sample: str) -> tuple[str, Bug] | None:
    """("refused" or "mismatch", the entry) under which ``test`` of ``sample`` is expected to
    fail on this Python, else None."""
    bug = KNOWN_BUGS.get(sample)
    if bug is None:
        return None
    here = sys.version_info[:2]
    if here in _versions(bug.refused) and test in _REFUSAL_FAILS:
        return "refused", bug
    if here in _versions(bug.wrong) and test in ("test_behaviour", "test_verified"):
        return "WRONG CODE", bug
    if here in _versions(bug.mismatch) and test == "test_verified":
        return "mismatch", bug
    if here in _versions(bug.unstable) and test == "test_fixpoint":
        return "unstable", bug
    if here in _versions(bug.dead) and test == "test_no_dead_statements":
        return "dead statements", bug
    return None


_harness.configure(NOT_YET)
CONSTRUCT_OF = _harness.CONSTRUCT_OF


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if "tests/decompiler/" not in item.nodeid.replace("\\", "/"):
            continue
        func, _, param = item.name.partition("[")
        for sample in param.rstrip("]").split("-") if param else ():
            known = known_bug(func, sample)
            if known is not None:
                kind, bug = known
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"known bug ({kind}): {bug.why}"))
                break


# --------------------------------------------------------------------------- reporting

_OUTCOMES: dict = {}


def pytest_runtest_logreport(report):
    if "[" not in report.nodeid or "test_constructs" not in report.nodeid:
        return
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    test = report.nodeid.split("::")[-1]
    func, param = test.split("[", 1)
    param = param.rstrip("]")
    # "__main__-modules.mod_basic": the sample id is the part that names a known sample
    construct = next((CONSTRUCT_OF[p] for p in param.split("-") if p in CONSTRUCT_OF), None)
    if construct is None:
        return
    # an xfail is reported as "skipped" with wasxfail; an xpass as "passed" with wasxfail
    outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
    _OUTCOMES.setdefault((construct, func), {}).setdefault(outcome, 0)
    _OUTCOMES[(construct, func)][outcome] += 1


def pytest_terminal_summary(terminalreporter):
    if not _OUTCOMES:
        return
    tr = terminalreporter
    ver = f"{sys.version_info.major}.{sys.version_info.minor}"
    tr.section(f"pellucid constructs (Python {ver}): tests per construct class")
    kinds = ("passed", "failed", "xfailed", "skipped")
    by_construct: dict = {}
    rows = []
    for (construct, func), counts in sorted(_OUTCOMES.items()):
        agg = by_construct.setdefault(construct, {})
        for k, v in counts.items():
            agg[k] = agg.get(k, 0) + v
        rows.append({"construct": construct, "test": func, **{k: counts.get(k, 0) for k in kinds}})
    tr.write_line(f"{'construct':<16} " + " ".join(f"{k:>8}" for k in kinds) + "  failing tests")
    for construct, agg in sorted(by_construct.items()):
        failing = sorted(
            f"{func}:{c['failed']}"
            for (cons, func), c in _OUTCOMES.items()
            if cons == construct and c.get("failed")
        )
        tr.write_line(
            f"{construct:<16} "
            + " ".join(f"{agg.get(k, 0):>8}" for k in kinds)
            + ("  " + ", ".join(failing) if failing else "")
        )
    for construct in sorted(NOT_YET):
        agg = by_construct.get(construct)
        if agg and agg.get("passed") and not agg.get("xfailed"):
            tr.write_line(
                f"NOT_YET: {construct!r} has no expected failures left on {ver}: "
                "remove it from NOT_YET in tests/decompiler/conftest.py"
            )
    dest = os.environ.get("PELLUCID_ARTIFACTS")
    if dest:
        Path(dest).mkdir(parents=True, exist_ok=True)
        with open(Path(dest) / f"constructs-{ver}.json", "w") as fh:
            json.dump({"python": sys.version.split()[0], "rows": rows}, fh, indent=1)
