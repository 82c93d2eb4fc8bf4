"""3.9/3.10 with / async with: SETUP_WITH opens the body's block; the
``__exit__(None, None, None)`` call inlined after each POP_BLOCK is skipped, and where a
suppressed exception goes on is the statement's follow.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.regions.exc_markers import COPIES_EXITS, Copy, WithExit, with_node


class BlockWithOps:
    """Walker mixin: with statements from the block stack (3.9/3.10)."""

    def do_with_blocks(self, w: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        H = ins[w].target
        home = self.home[w]
        ctx = self.pop_expr(stack, ins[w])
        ops = [ins[H + d].op for d in range(8)] if H + 8 <= self.n else []
        if not (
            ops == ["WITH_EXCEPT_START", "POP_JUMP_IF_TRUE", "RERAISE", "POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP"]
            and ins[H + 1].target == H + 3
        ):
            raise self.fail("unrecognized with handler", ins[H], kind=Refusal.WITH)
        sup = H + 8
        stack.append(WithExit(ctx))
        k, target = self._with_target(w + 1, stack)
        pops = sorted(p for p, t in self._b_pops.items() if t == w)
        normal_end = -1
        P = None
        for p in pops:
            c = p + 1
            if ins[c].op == "SWAP" and ins[c].argval == 2:
                c += 1
            elif p < H and self.home[p] == home:
                P = p
            if not self._is_exit_copy39(c):
                raise self.fail("with exit call not found after its POP_BLOCK", ins[p], kind=Refusal.WITH)
        # where the normal exit continues, and where a suppressed exception does
        cont_n = None
        if P is not None:
            after = P + 6
            if ins[after].op == "JUMP" and self._dead_between(after + 1, H) and ins[after].target > H:
                cont_n = ins[after].target
                normal_end = after
            elif COPIES_EXITS and after < H and ins[after].op != "RETURN_VALUE" and self._straight_tail(after, H) == H - after:
                cont_n = after
                normal_end = after
                if (
                    stop < self.n
                    and self._same(after, stop, H - after)
                    and any(i.target == stop for i in ins[:w])
                ):
                    # a copy of the code where the enclosing block goes on (a small exit
                    # block after an `if`, say): the statement goes on there
                    self._claim_block(after, H)
                    cont_n = stop
            else:
                P = None  # a return/break path, not the normal exit
        if P is None:
            P, cont_n, normal_end = self._nested_normal_exit39(w, H, pops)
            if P is not None:
                self.__dict__.setdefault("_b_nested_exits", set()).add(P)
        # where a suppressed exception goes on
        sup_tail = None
        if self.home[sup] != H:
            cont_s = sup
        elif ins[sup].op == "JUMP" and ins[sup].target is not None and self.home[ins[sup].target] != H:
            cont_s = ins[sup].target
        else:
            TL = self._straight_tail(sup)
            if TL is None:
                raise self.fail("with handler continues into unrecognized code", ins[sup], kind=Refusal.WITH)
            sup_tail = (sup, TL)
            cont_s = None
        if cont_n is not None and (
            (self._last_exit_leaves39(cont_n, cont_s) and (not COPIES_EXITS or ins[normal_end].op == "JUMP"))
            or self._last_exit_leaves310(cont_n, cont_s)
        ):
            P, cont_n, normal_end = None, None, -1  # (the body ends in a break or return)
        for p in pops:
            c = p + 2 if ins[p + 1].op == "SWAP" else p + 1
            self._copies[c] = Copy(5, "with", normal_end)
        if COPIES_EXITS and P is not None:
            same = [p for p in pops if p < H and self.home[p] == home and ins[p + 1].op != "SWAP"]
            self._merge_exit_copies39(P, normal_end, same)
        if cont_n is not None:
            if sup_tail is not None:
                if not self._same(cont_n, sup, sup_tail[1]):
                    raise self.fail("with statement whose follow is not found", ins[w], kind=Refusal.WITH)
                if all(H <= q.index < sup for q in ins if q.target == sup):
                    self._claim_block(sup, sup + sup_tail[1])  # the follow's copy
            elif cont_s != cont_n and self._through_jump(cont_s) == self._through_jump(cont_n):
                # both jump on to the same place (or one jumps to the other)
                if cont_n > stop and cont_n not in exits:
                    cont_n = cont_s
            elif cont_s != cont_n:
                # 3.10 copies a small follow into the normal exit
                TL = self._straight_tail(cont_n)
                if TL is None or not self._same(cont_n, cont_s, TL):
                    TL = self._left_through_copies(cont_n)
                if TL is None or not self._same(cont_n, cont_s, TL):
                    raise self.fail("with exits continue at different places", ins[w], kind=Refusal.WITH)
                if cont_n > stop and cont_n not in exits:
                    cont_n = cont_s
                elif cont_s == sup and all(H <= q.index < sup for q in ins if q.target == sup):
                    # the suppressed path's copy of the follow, which only the handler
                    # reaches: written once, where the normal exit goes on
                    self._claim_block(sup, sup + TL)
        body_end = P if P is not None else H
        end_pt = cont_n if cont_n is not None else cont_s
        inherited = self._block_inherit(end_pt, stop, exits)
        explicit = []
        if cont_n is None and sup_tail is not None:
            explicit, _ = self.walk(sup, sup + sup_tail[1], list(stack[:-1]), exits)
        body, st = self.walk(k, body_end, list(stack), inherited)
        if P is not None and (len(st) != len(stack) or st[-1] is not stack[-1]):
            raise self.fail("with body does not end with its exit", ins[w], kind=Refusal.WITH)
        stack.pop()
        self._claim_handler(H)
        item = ast.withitem(context_expr=ctx, optional_vars=target)
        # async with: generators.fold_suspensions leaves it in this shape, marked
        kind = ast.AsyncWith if ins[w].extra.get("async") else ast.With
        self.emit(with_node(kind, item, body))
        for st_ in explicit:
            self.emit(st_)
        end_at = cont_n if cont_n is not None else cont_s
        if end_at is not None and self._leaves_loop_at(end_at, stop):
            # both exits jump out of the loop (3.9 threads a `break` after the with there):
            # reaching the end of the walk would go round instead
            self.emit(ast.Break())
            return stop
        if cont_n is not None:
            return self._cont(cont_n, stop, exits, ins[w])
        if cont_s is not None and cont_s < w:
            # a suppressed exception continues the enclosing loop, as the body does
            return self._cont(self._handler_end(H), stop, exits, ins[w])
        if cont_s is not None:
            return self._cont(cont_s, stop, exits, ins[w])
        return self._cont(sup + sup_tail[1], stop, exits, ins[w])

    def _nested_normal_exit39(self, w: int, H: int, pops: list) -> tuple:
        """The with's normal exit inside code nested in its body, when its body's own code
        never falls off (an except clause's end, the try's body returning): the last
        POP_BLOCK before the handler, its exit copy jumping past the handler right before
        it.  Returns (that POP_BLOCK, where it goes on, its jump) or (None, None, -1)."""
        ins = self.ins
        inner = [p for p in pops if w < p < H and ins[p + 1].op != "SWAP" and self.home[p] != self.home[w]]
        if inner:
            P = max(inner)
            after = P + 6
            if (
                ins[after].op == "JUMP"
                and after + 1 == H
                and ins[after].target > H
                and self.home[after] == self.home[P]
            ):
                return P, ins[after].target, after
        return None, None, -1

    def _last_exit_leaves39(self, cont_n: int, cont_s: int | None) -> bool:
        """Is the exit taken for the with's normal one a `break` ending its body, whose own
        normal exit is dead code (3.9 keeps it)?  It jumps where the loop's breaks go, and a
        suppressed exception goes on elsewhere.  (3.10: only when the exit jumps there; it may
        copy the code after the loop in place of the jump: ``_last_exit_leaves310``.)"""
        if not self.loops or cont_s is None:
            return False
        if self._through_jump(cont_s) == self._through_jump(cont_n):
            return False
        return cont_n in self.loops[-1].break_targets

    def _last_exit_leaves310(self, cont_n: int, cont_s: int | None) -> bool:
        """3.10: is the code the with's normal exit goes on to a `return` of a constant or a
        `break` ending its body (the small block after the loop copied in place of its jump)?
        A suppressed exception goes on elsewhere, to code that is no copy of it (the with's
        real follow)."""
        if not COPIES_EXITS or cont_s is None:
            return False
        if self._through_jump(cont_s) == self._through_jump(cont_n):
            return False
        TL = self._straight_tail(cont_n)
        if TL is not None and self._same(cont_n, cont_s, TL):
            return False  # (the with's follow, copied into its normal exit)
        if self.ins[cont_n].op == "LOAD_CONST" and self.ins[cont_n + 1].op == "RETURN_VALUE":
            # a `return` of a constant ending the body (its value is loaded last); not of
            # None, which may be the function's implicit return copied for a `break`
            return self.ins[cont_n].argval is not None
        if not self.loops:
            return False
        loop = self.loops[-1]
        k = cont_n
        while k < self.n and (k in self._copies or self._is_exit_copy39(k) or self.ins[k].op == "POP_BLOCK"):
            k += self._copies[k].length if k in self._copies else 5 if self._is_exit_copy39(k) else 1
        t = self._exit_tail_len(k)
        if self.ins[k].op == "LOAD_CONST" and t == 2:
            return False  # (read as the return it also is, not as a `break`)
        if loop.item is not None or not t:
            return False  # (a for loop's `break` pops its iterator first)
        f = loop.follow
        if loop.forever and (f >= self.n or not self._is_target(f)):
            # `while True:` whose breaks all copy the code after it: that code is the first
            # such copy (``_break_into_copied_follow`` checks the others against it)
            return loop.copied_follow is None or (
                loop.copied_follow[1] == t and self._same(k, loop.copied_follow[0], t)
            )
        return any(
            c != k and c < self.n and self._exit_tail_len(c) == t and self._same(k, c, t)
            for c in (loop.follow, *sorted(loop.outer_exits))
        )

    def _left_through_copies(self, k: int) -> int | None:
        """Length of the POP_BLOCKs and exit copies from k up to the end of an enclosing
        finally body's copy that always leaves (a return ending every path): how the
        enclosing try's normal exit ends, which 3.10 copies into each path reaching it.
        None when that is not what is at k."""
        j = k
        while j < self.n:
            if self.ins[j].op == "POP_BLOCK":
                j += 1
                continue
            c = self._copies.get(j)
            if c is None:
                return None
            if c.kind == "finally" and c.never_ends and self._closed_terminal(j, j + c.length):
                return j + c.length - k
            j += c.length
        return None
