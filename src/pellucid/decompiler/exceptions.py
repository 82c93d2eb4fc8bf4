"""try/except/finally and with: regions derived from exception edges.

A mixin of the structure walker.  ``try_at(i)`` says whether a protected
region starts at instruction ``i`` (or a compiler-made copy of a finally body
or a with-exit call sits there); ``do_try`` structures it and returns the
index where the walk continues.  The readings themselves live in
``decompiler/regions``, one module per construct; this module composes them.

3.11+ (exception tables).  Every instruction has at most one handler, the
innermost.  A handler's own code is protected by its clean-up handler, whose
code is protected by the next handler out, so following "which handler covers
the first instruction of this handler" gives the nesting chain of every
instruction.  A ``try`` body is exactly the instructions whose chain contains
its handler, in the same *home* (the code reached by normal flow from the
function entry, or from one handler): that gives start and end of the body
without looking at opcode patterns (``regions/handler_map.py``).  Handler code
is then read clause by clause (``regions/try_except.py``,
``regions/except_clauses.py``); a ``finally`` body is read from its
exception-path copy (``regions/finally_.py``), and the copies the compiler
inlined on every other exit path (``regions/finally_copies.py``) and the
``__exit__`` calls of ``with`` (``regions/with_.py``) are recognised by
comparing instructions and skipped (``regions/exit_copies.py``).  Code that a
structured try/with owns in its handlers is marked unreachable once
structured, so that the linear walk (which on 3.12+ meets the handlers at the
end of the function) does not read it again.  3.12+ copy small exit blocks
into clauses (``regions/copied_returns.py``) and move handlers past the loops
whose jumps back they hold (``regions/loop_latches.py``).

3.9/3.10 (block stack, ``regions/blockstack*.py``).  ``_setup_blocks`` follows
normal control flow with a block stack, as CPython's ``markblocks`` does:
SETUP_FINALLY/SETUP_WITH push a block whose handler is the SETUP's target,
POP_BLOCK pops it (so every POP_BLOCK is paired with its SETUP) and a handler
runs in an except block that POP_EXCEPT closes.  Homes are flooded as on
3.11+, except that a handler's code ends where it leaves its except block (the
jump to the statement's follow).  The compiler inlines a finally body / the
``__exit__(None, None, None)`` call right after each POP_BLOCK of the
statement (return, break, continue and the normal exit), so the copies are
found through the pairing and checked against the handler's copy.  3.10 also
copies a small follow block (a ``return``) into every path reaching it; those
tails are recognised when all paths end alike.
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.exceptgroups import ExceptGroupOps
from pellucid.decompiler.instructions import TABLE, TERMINAL
from pellucid.decompiler.regions.blockstack import BlockStackOps
from pellucid.decompiler.regions.blockstack_finally import BlockFinallyOps
from pellucid.decompiler.regions.blockstack_try_except import BlockTryExceptOps
from pellucid.decompiler.regions.blockstack_with import BlockWithOps
from pellucid.decompiler.regions.copied_returns import CopiedReturnOps
from pellucid.decompiler.regions.exc_markers import Copy, ExcInfo, WithExit, _ends_in_jump
from pellucid.decompiler.regions.except_clauses import ExceptClauseOps
from pellucid.decompiler.regions.exit_copies import ExitCopyOps
from pellucid.decompiler.regions.finally_ import FinallyOps
from pellucid.decompiler.regions.finally_copies import FinallyCopyOps
from pellucid.decompiler.regions.handler_map import HandlerMap
from pellucid.decompiler.regions.loop_latches import LoopLatchOps
from pellucid.decompiler.regions.try_except import TryExceptOps
from pellucid.decompiler.regions.with_ import WithOps

# (the structure walker takes the markers it meets from here)
__all__ = ["Copy", "ExcInfo", "ExceptionStructure", "_ends_in_jump"]


class ExceptionStructure(
    HandlerMap,
    CopiedReturnOps,
    LoopLatchOps,
    FinallyCopyOps,
    FinallyOps,
    ExitCopyOps,
    TryExceptOps,
    ExceptClauseOps,
    WithOps,
    BlockStackOps,
    BlockTryExceptOps,
    BlockFinallyOps,
    BlockWithOps,
    ExceptGroupOps,
):
    """Walker mixin: where a try/with starts, and which reading structures it."""

    def try_at(self, i: int) -> bool:
        self._exc_ready()
        if i in self._copies:
            return True
        if not TABLE.has_exception_table:
            return self.ins[i].op in ("SETUP_FINALLY", "SETUP_WITH")
        if self.ins[i].op == "BEFORE_WITH":
            return True
        if self._cover[i] is None:
            return False
        return self._try_handler_at(i) is not None

    def _exit_value_pushed(self, stack: list) -> bool:
        """Is a value on top of the stack, pushed by the exit (a return's) before its copy
        runs?  Above the block's base, or a value where the base has a marker: in an except
        or finally handler, the unwinding before a return's copy drops the exception and its
        saved info below the value, so the stack is shorter than the handler's base."""
        return len(stack) > self.cur_base or bool(stack and not isinstance(stack[-1], V.Marker))

    def _closing_copy_next(self, k: int) -> bool:
        """Is the code at k the copy of an enclosing finally body that never ends, of a
        statement being read, whose path ends inside it (a return, or its own break or
        continue)?  The exit whose copies lead there is then overridden: the walk goes on
        into that copy, which says so (see do_try)."""
        c = self._copies.get(k)
        return (
            c is not None
            and c.kind == "finally"
            and c.never_ends
            and c.owner in self._started
            and self._never_reaches(k, k + c.length)
        )

    def _overridden_exit(self, stack: list, before: list) -> ast.Return:
        """The statement for an exit a returning/raising finally body overrides: ``return``
        of the value on top of the stack when the exit computed one (a return's value,
        evaluated before the finally runs), else a bare ``return``."""
        value = None
        if self._exit_value_pushed(stack):
            top = stack[-1]
            if isinstance(top, ast.expr) or not isinstance(top, V.Marker):
                value = self.as_expr(stack.pop(), None)
        node = ast.Return(value=value)
        node.overridden_exit = True
        return node

    def do_try(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        if i in self._copies:
            c = self._copies[i]
            before = list(stack)
            if c.kind in ("with", "finally") and i + c.length != c.end and not TABLE.has_exception_table:
                j = self._normal_exit_copy_end(i, c, stop)
                if j is not None:
                    return j  # the body falls off here: the with exit stays pending
            if c.kind == "with":
                if not stack or not isinstance(stack[-1], WithExit):
                    raise self.fail("with exit without its context manager", self.ins[i], kind=Refusal.WITH)
                stack.pop()
            if i + c.length != c.end and not TABLE.has_exception_table:
                j = self._left_copy39(i, c, stack, before)
                if j is not None:
                    return j
            if (
                c.kind == "finally"
                and c.never_ends
                and i + c.length != c.end
                and (
                    self._closed_terminal(i, i + c.length)
                    # (one that breaks or continues, on a return's path: its value pushed)
                    or (self._exit_value_pushed(stack) and self._never_reaches(i, i + c.length))
                    # (or on a break's or continue's path inside the statement: walked outside
                    # it, the copy is one the statement's reading left unclaimed)
                    or (c.owner in self._started and self._never_reaches(i, i + c.length))
                )
            ):
                # a finally body that returns or raises (or leaves the loop): the exit whose
                # copy this is (a return, break or continue) never runs, the compiler dropped
                # it, and the copy ends the path.  Written back as a return (of the value it
                # computed first, if any): through the finally it does what the exit did.
                node = self._overridden_exit(stack, before)
                node.left_copy = not TABLE.has_exception_table  # (3.9/3.10: see _left_copy39)
                self.emit(node)
                return i + c.length
            if i in self._jumping_copies and i + c.length != c.end:
                if not c.never_ends or self.ins[i - 1].op in TERMINAL or self.ins[i - 1].op == "JUMP":
                    # (the exit whose copy this is goes on by the copy's own jumps, unsaid; or
                    # the copy is reached by a jump only: where it was read is not its exit's)
                    raise self.fail("a finally body's copy on an exit path leaves by its own jumps", self.ins[i], kind=Refusal.TRY)
                # the finally body never ends: the exit whose copy this is never runs (its
                # own jumps go where the finally body says), written back as a return
                self.emit(self._overridden_exit(stack, before))
                return i + c.length
            back = self._back_to_loop.get(i)
            if c.kind == "finally" and back is not None:
                # the copy's own jumps go round the loop (the jump back after it threaded into
                # them; its other paths return or raise): the exit whose copy this is was a
                # `continue`, or the normal exit of a statement the loop goes round after
                # (the code after the copy is another path's)
                loop = self.loops[-1] if self.loops else None
                if loop is None or back not in loop.continue_targets:
                    raise self.fail("a finally body's copy goes round a loop other than its own", self.ins[i], kind=Refusal.TRY)
                if i + c.length != c.end or back not in self._exit_places(exits):
                    self.emit(ast.Continue())  # (unless the block's end goes round anyway)
                return i + c.length
            if c.kind in ("with", "finally") and i + c.length != c.end:
                # not the normal exit: only a return of a value computed before the
                # copy (or a constant), or a loop jump, may follow; anything else is a
                # copy of the code after the statement, which we cannot place
                if (
                    not self._pure_exit(i + c.length)
                    and not self._never_ends(i, i + c.length)
                    and not self._closing_copy_next(i + c.length)
                ):
                    after = self._break_into_copied_follow(i + c.length, stack)
                    if after is None:
                        raise self.fail("code after a finally/with copy on an exit path", self.ins[i], kind=Refusal.TRY)
                    self.emit(ast.Break())
                    stack[:] = before  # (the rest of the loop body still runs inside the with)
                    return after
                j = i + c.length
                loop = self.loops[-1] if self.loops else None
                if (
                    TABLE.cold_blocks_at_end
                    and c.kind == "finally"
                    and self.home[i] in self._handlers  # in an except clause
                    and not self._is_finally(self.home[i])
                    and loop is not None
                    and self.ins[j].op == "JUMP"
                    and self.ins[j].target in loop.continue_targets
                ):
                    # the finally's copy on an except clause's path round the loop: a
                    # `continue` (falling off the try goes through the normal exit's copy)
                    self.emit(ast.Continue())
                    return j + 1
                if (
                    not TABLE.has_exception_table
                    and loop is not None
                    and j < self.n
                    and not self.initially_reachable[j]
                    and self.ins[j].op == "JUMP"
                    and (self.ins[j].target in loop.continue_targets or self.ins[j].target in loop.break_targets)
                    and (self.ins[j - 1].op == "JUMP" or self.ins[j - 1].op in TERMINAL)
                ):
                    # 3.9/3.10: the `continue` (or `break`) whose copy this is, left dead after
                    # it: the copy leaves by its own jumps (the finally's `break`, its end
                    # threaded to the loop's head), and the statement is that jump
                    return self.do_jump(j, stack, stop, exits)
            return i + c.length
        if not TABLE.has_exception_table:
            if self.ins[i].op == "SETUP_WITH":
                nxt = self.do_with_blocks(i, stack, stop, exits)
            else:
                nxt = self.do_try_blocks(i, stack, stop, exits)
            if nxt <= i:
                raise self.fail("try/with continues before itself", self.ins[i], kind=Refusal.TRY)
            return nxt
        if self.ins[i].op == "BEFORE_WITH":
            return self.do_with(i, stack, stop, exits)
        H = self._try_handler_at(i)
        self._started.add(H)
        if self._is_finally(H):
            nxt = self.do_try_finally(i, H, stack, stop, exits)
        else:
            nxt = self.do_try_except(i, H, stack, stop, exits)
        self._check_nothing_protected_after(H, nxt)
        return nxt
