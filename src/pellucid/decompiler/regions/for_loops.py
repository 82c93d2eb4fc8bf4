"""``for`` loops: FOR_ITER at the head, its target where the iterator is exhausted.

The body runs with the loop's item on the stack (stored to the target by the first
statement); a ``break`` pops the iterator.  Compilers copy small exit blocks in place of a
``break``'s jump (3.10+: the code after the loop, or an except clause's end on 3.13), so a
``break`` may be a POP_TOP followed by a copy of code further on; what the iterator's
exhaustion reaches before the breaks' target is the loop's ``else``.
"""

from __future__ import annotations

import ast

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import CONDITIONAL_JUMPS, PUSHES_RESULT, TABLE, TERMINAL
from pellucid.decompiler.regions.build import _exits_at, _trim_continue
from pellucid.decompiler.regions.exc_markers import ExcInfo, _ends_in_jump
from pellucid.decompiler.regions.loops import Loop


class ForOps:
    """Walker mixin: for loops, and breaks compiled as copies of the code after the loop."""

    def do_for(self, h: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins[h]
        if not stack or not isinstance(stack[-1], V.Iterator):
            raise self.fail("for loop without an iterator", ins, kind=Refusal.LOOP)
        iterator = stack[-1]
        exit_ = ins.target
        body_end = exit_
        exit_copy = None
        if exit_ > stop and exit_ not in exits and self.latch.get(h, exit_) < stop:
            # the loop ends its block and the function: its exit is a copied
            # `return` laid out past the block (3.10+)
            exit_copy = self._exit_copy_len(exit_, {h} | self._jumps_to(exit_, h, stop))
            if exit_copy is not None and not [t for t in self._jumps_out(h + 1, stop) if t != exit_]:
                body_end = stop
            else:
                exit_copy = None
        breaks = [t for t in self._jumps_out(h + 1, body_end) if t != exit_]
        self._pending_break_copy = None
        if not breaks:
            breaks = self._copied_break_follow(h, exit_, stop)
        break_copy, self._pending_break_copy = self._pending_break_copy, None
        # (a terminal copy never starts with POP_EXCEPT: _copied_break_follow skips those)
        clause_end_copy = break_copy is not None and self._clause_end_len(break_copy[0]) == break_copy[1]
        follow = max(breaks) if breaks else exit_
        if breaks and any(b != follow for b in breaks):
            allowed = {follow} | set(exits)
            if not set(breaks) <= allowed:
                raise self.fail("for loop with several break targets", ins, kind=Refusal.LOOP)
        if (
            breaks
            and follow > stop
            and follow not in exits
            and self.ins[follow].op == "JUMP"
            and self.ins[follow].target in exits
        ):
            # 3.9: the breaks jump to a jump to where this block ends (the loop ends an if
            # arm whose follow goes round an enclosing loop): they leave the block, and
            # the code between is no else of this loop
            follow = stop
        # `break` whose target is the end of an enclosing loop body arrives
        # threaded to that loop's head: pop our iterator, jump back there
        outer = self.loops[-1] if self.loops else None
        to_outer = set()
        threaded_breaks = set()
        if (
            outer is not None
            and breaks
            and set(breaks) == {follow}
            and follow in outer.break_targets
            and follow not in outer.continue_targets
        ):
            # 3.9 threads a `break` followed by the enclosing loop's `break` to where that one
            # goes: the code after the loop jumps there too.  Otherwise, where the block's
            # end goes round the enclosing loop, that loop's follow is no place this
            # statement goes on at.
            threaded = exit_ < stop and self.ins[exit_].op == "JUMP" and self.ins[exit_].target == follow
            if not threaded and (follow > stop or exits & outer.continue_targets):
                raise self.fail("for loop's breaks leave the enclosing loop", ins, kind=Refusal.LOOP)
            threaded_breaks = set(breaks) if threaded else set()
        if threaded_breaks:
            breaks = []
            follow = exit_
        elif outer is not None and not breaks and exits & outer.continue_targets:
            to_outer = {
                self.ins[j].target
                for j in sorted(set(range(h + 1, body_end)) | self.moved_handler_code(h + 1, body_end))
                if self.ins[j].op == "JUMP"
                and self.ins[j].target in outer.continue_targets
                and self.reachable[j]
                and self.ins[j - 1].op == "POP_TOP"
            }
        self.loop_counter += 1
        item = V.ForItem(self.loop_counter)
        loop = Loop(h, follow, {h}, set(breaks) | {follow} | to_outer | threaded_breaks, item=item)
        loop.break_copy = break_copy
        accumulator = stack[-2] if len(stack) >= 2 and isinstance(stack[-2], V.Accumulator) else None
        self.loops.append(loop)
        try:
            body, st = self.walk(
                h + 1, body_end, list(stack) + [item], frozenset({h}), base_stack=list(stack)
            )
        finally:
            self.loops.pop()
        if (
            len(st) == len(stack) - 1
            and self.ins[body_end - 1].op == "POP_TOP"
            and not any(v is iterator for v in st)
            and not _ends_in_jump(body)
        ):
            # `break` as the body's last statement: pop the iterator and fall
            # into the loop's exit, which directly follows
            body = body + [ast.Break()]
            st = st + [iterator]
        if len(st) != len(stack) or st[-1] is not iterator:
            raise self.fail("for body changes the stack", ins, kind=Refusal.LOOP)
        if loop.target is None:
            raise self.fail("for loop target not found", ins, kind=Refusal.LOOP)
        stack.pop()
        orelse: list[ast.stmt] = []
        nxt = exit_
        if to_outer and exit_ < stop:
            # the rest of the enclosing body runs only when the loop did not break
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            if len(st2) != len(stack):
                raise self.fail("for-else changes the stack", ins, kind=Refusal.LOOP)
            nxt = stop
        elif follow != exit_ and (follow == stop or follow in exits) and exit_ < stop:
            # the breaks leave the enclosing block: what the loop's exhaustion
            # reaches before the block ends is the loop's else
            orelse, st2 = self.walk(exit_, stop, list(stack), exits)
            leaves_clause = (
                clause_end_copy
                and len(st2) == len(stack) - 1
                and _ends_in_jump(orelse)
                and isinstance(stack[-1], ExcInfo)
            )  # (the else leaves the clause it ends: it pops the exception)
            if len(st2) != len(stack) and not leaves_clause:
                raise self.fail("for-else changes the stack", ins, kind=Refusal.LOOP)
            nxt = stop
        elif follow != exit_ and follow not in exits:
            if follow < exit_:
                raise self.fail("break jumps backwards", ins, kind=Refusal.LOOP)
            orelse, st2 = self.walk(exit_, follow, list(stack), _exits_at(follow, stop, exits))
            if len(st2) != len(stack):
                raise self.fail("for-else changes the stack", ins, kind=Refusal.LOOP)
            nxt = follow
        node = (ast.AsyncFor if ins.extra.get("async") else ast.For)(
            target=loop.target,
            iter=iterator.iterable,
            body=_trim_continue(body),
            orelse=orelse,
            type_comment=None,
        )
        if accumulator is not None:
            stack[-1] = self.build_comprehension(accumulator, node, ins)
            return nxt
        self.emit(node)
        if break_copy is not None:
            start, size = break_copy
            if clause_end_copy:  # the clause's end: said by the clause itself
                for k in range(start, start + size):
                    self.reachable[k] = False
            else:
                self._emit_exit_copy(start, size, stack)
            return nxt
        if exit_copy is not None and not orelse:
            self._emit_exit_copy(exit_, exit_copy, stack)
            return stop
        return nxt

    def _copied_break_follow(self, h: int, exit_: int, stop: int) -> list[int]:
        """[p] when a `break` in the for body at h was compiled as a copy of the
        small block at p, past the loop's else (3.10+): POP_TOP (the iterator)
        then the same code, which a `return` in the body cannot be."""
        if not TABLE.copies_exit_blocks:
            return []  # (3.9 jumps to the code after the loop, never copies it)
        candidates = []
        copies = getattr(self, "_copies", {})
        in_copy = {q for c, cp in copies.items() if h < c < exit_ for q in range(c + 1, c + cp.length)}
        for k in range(h + 1, exit_):
            if self.ins[k].op != "POP_TOP" or not self.reachable[k] or self._pops_matched_exception(k):
                continue
            if k in in_copy:
                continue  # (a statement's pop inside a finally body's copy: no iterator's)
            if self.ins[k - 1].op in PUSHES_RESULT:
                continue  # (an expression statement's pop of the value computed right before)
            if self._pops_boolop_copy(k):
                continue  # (3.12+: an and/or value, or a chained comparison's link, goes on)
            if self._pops_imported_module(k):
                continue  # (`from m import a, b`: the module, once its names are stored)
            size = self._clause_end_len(k + 1)
            if size is not None:
                # 3.13: the loop ends an except clause, whose end (pop the exception, leave
                # the statement) was copied into the `break`: the break leaves the block,
                # or goes where the loop's exhaustion goes (the copy is the loop's exit)
                self._pending_break_copy = (k + 1, size)
                return [] if self._same_code(k + 1, exit_, size) else [stop]
            size = self._terminal_len(k + 1)
            if (
                size is None
                or size < 2
                or self.ins[k + 1].op in ("POP_TOP", "SWAP", "ROT_TWO", "ROT_FOUR", "POP_EXCEPT", "POP_BLOCK")
                or (size == 2 and self.ins[k + 1].op == "LOAD_CONST")
                or self.ins[k - 1].op in ("SWAP", "ROT_THREE")
            ):
                # `return <value>` keeps its value above the iterator (and pops the iterator
                # from under it after a finally body's copy ends in POP_TOP); a handler's
                # exception is popped before the iterator (3.9/3.10: a return in a finally
                # handler keeps its value above the exception, ROT_FOUR)
                continue
            if self._same_code(k + 1, exit_, size):
                return []  # a copy of the code right after the loop: a plain break
            candidates.append((k, size))
        # no copy of the loop's own follow: one of code further on (another POP_TOP, such as
        # a match subject's, may come first)
        for k, size in candidates:
            for p in range(exit_ + 1, min(stop, self.n)):
                starts = self._is_target(p) or self.ins[p - 1].op.startswith(("STORE_", "POP_TOP"))
                if starts and self._same_code(k + 1, p, size) and not self._jumps_into(exit_, p, p + 1, stop - 1):
                    # (the else is what runs before p: none of it jumps past p, as an if's
                    # false exit does past the copy ending its then-branch)
                    return [p]
            if self._ends_in_terminal(exit_, stop):
                # the else ends the function: the copy is the only code after the loop
                self._pending_break_copy = (k + 1, size)
                return [stop]
        return []

    def _pops_boolop_copy(self, k: int) -> bool:
        """Is the POP_TOP at k the pop of the value an and/or (or a chained comparison's
        link) tested, 3.12+'s ``COPY 1; POP_JUMP_IF_X; POP_TOP``, not of an iterator?"""
        ins = self.ins
        return (
            k >= 2
            and ins[k - 1].op in CONDITIONAL_JUMPS
            and ins[k - 2].op == "COPY"
            and ins[k - 2].argval == 1
        )

    def _pops_imported_module(self, k: int) -> bool:
        """Is the POP_TOP at k the pop of the module a ``from m import a as b`` statement
        imported: IMPORT_NAME, then IMPORT_FROM and a store per name, right before it?"""
        q = k - 1
        while q >= 1 and self.ins[q].op.startswith("STORE_") and self.ins[q - 1].op == "IMPORT_FROM":
            q -= 2
        return q < k - 1 and self.ins[q].op == "IMPORT_NAME"

    def _pops_matched_exception(self, k: int) -> bool:
        """Is the POP_TOP at k an except clause's pop of the exception it caught, not of an
        iterator?  3.11+: ``CHECK_EXC_MATCH; POP_JUMP_IF_FALSE; POP_TOP``; 3.9/3.10: the last
        of the three values the clause pops (or stores, ``as name``) where it starts, after
        ``JUMP_IF_NOT_EXC_MATCH`` or at the handler (a bare ``except:``)."""
        ins = self.ins
        if k < 2:
            return False
        if TABLE.exc_match_pushes_bool:
            return ins[k - 1].op in CONDITIONAL_JUMPS and ins[k - 2].op == "CHECK_EXC_MATCH"
        return (
            (ins[k - 1].op == "POP_TOP" or ins[k - 1].op.startswith("STORE_"))
            and ins[k - 2].op == "POP_TOP"
            and (self._is_target(k - 2) or (k >= 3 and ins[k - 3].op == "JUMP_IF_NOT_EXC_MATCH"))
        )

    def _clause_end_len(self, k: int) -> int | None:
        """Length of an except clause's end at k, ``POP_EXCEPT; [name clean-up;] JUMP``, when
        3.13 copied it into a `break` (right after the iterator's POP_TOP), else None."""
        j = self._clause_end_jump(k) if TABLE.copies_clause_ends else None
        if j is not None and not any(self._is_target(q) for q in range(k, j + 1)):
            return j - k + 1
        return None

    def _ends_in_terminal(self, lo: int, hi: int) -> bool:
        """Does [lo, hi) end in return/raise, with no jump leaving it?"""
        k = hi - 1
        while k >= lo and not self.reachable[k]:
            k -= 1
        if k < lo or self.ins[k].op not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return False
        return all(
            self.ins[j].target is None or lo <= self.ins[j].target < hi for j in range(lo, hi)
        )

    def _break_into_exit_copy(self, i: int, stack: list) -> int | None:
        """``break`` whose small terminal exit block was copied in place of the
        jump (3.12+): pop the iterator, then the same code as at the loop's
        follow.  Returns where the copy ends."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.item is None or not stack or not isinstance(stack[-1], V.Iterator):
            return None
        if loop.break_copy is not None:
            start, size = loop.break_copy
            if i + 1 == start or self._same_code(i + 1, start, size):
                return i + 1 + size
            return None
        f = loop.follow
        for k in range(f, min(f + 6, self.n)):
            if self.ins[k].target is not None:
                return None
            if self.ins[k].op in TERMINAL:
                size = k - f + 1
                break
        else:
            return None
        if (self.ins[f].op == "LOAD_CONST" and size == 2) or size < 2 or self.ins[i - 1].op == "SWAP":
            return None  # `return <constant>` pops the iterator first: the same code
        if not self._same_code(i + 1, f, size) or any(self._is_target(k) for k in range(i + 1, i + 1 + size)):
            return None
        for k in range(i + 1, i + 1 + size):
            self.reachable[k] = False
        return i + 1 + size
