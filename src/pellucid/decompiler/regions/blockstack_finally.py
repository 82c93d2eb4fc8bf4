"""3.9/3.10 try/finally: the finally body is read from its handler, and the copy inlined
after each POP_BLOCK of the statement must match it.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TERMINAL, arg_key
from pellucid.decompiler.regions.exc_markers import (
    COPIES_EXITS,
    CaughtException,
    Copy,
    ExcInfo,
    try_finally_node,
)


class BlockFinallyOps:
    """Walker mixin: try/finally from the block stack (3.9/3.10)."""

    def _try_finally_blocks(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        home = self.home[s]
        want = self._b_stack[s] + (("E", s),)
        ends = self._finally_ends(H, want)
        if ends:
            R = ends[-1]
        else:
            # a finally body that never ends (raises, returns, breaks or continues on every
            # path): it ends where its last path leaves
            R = self._handler_end(H)
            last = ins[R - 1]
            if (
                last.op not in TERMINAL
                and not (last.op == "JUMP" and not self._owned(last.target, H))
                and not self._falls_into_for_exit39(R)
            ):
                raise self.fail("finally body without its re-raise", ins[H], kind=Refusal.TRY)
        for k in range(H, R):
            if not self._owned(k, H) and self._b_stack[k] is not None:  # 3.9 keeps dead code
                raise self.fail("finally body with code outside its handler", ins[k], kind=Refusal.TRY)
        L = R - H
        pops = sorted(k for k, t in self._b_pops.items() if t == s)
        lengths = {}
        copied_follows: dict[int, tuple[list[int], int]] = {}
        for p in pops:
            m = self._match_finally_copy(p + 1, H, frozenset(ends), copied_follows) if L else 0
            if m is None:
                raise self.fail("finally copy not found after its POP_BLOCK", ins[p], kind=Refusal.TRY)
            lengths[p] = m
        normal = [p for p in pops if p < H and self.home[p] == home]
        P = max(normal) if normal else None
        body_end = H
        cont = R + 1 if ends else R
        norm_end = -1
        if P is not None:
            after = P + 1 + lengths[P]
            if ins[after].op == "JUMP" and self._dead_between(after + 1, H) and ins[after].target > R:
                body_end, cont, norm_end = P, ins[after].target, after
            elif COPIES_EXITS and after < H and ins[after].op != "RETURN_VALUE":
                TL = self._straight_tail(after, H)
                if (
                    TL is not None
                    and self._dead_between(after + TL, H)
                    and not any(k in self._b_setup_of for k in range(after, after + TL))
                ):  # (not a nested try's handler, laid out there)
                    body_end, cont, norm_end = P, after, after
        if body_end == H and ends:
            Q = self._nested_normal_exit_fin39(s, H, R, home, pops, lengths)
            if Q is not None:
                P, body_end, cont, norm_end = Q, Q, ins[Q + 1 + lengths[Q]].target, Q + 1 + lengths[Q]
                normal = [Q]
        if body_end == P and self._leaves_loop_at(cont, stop):
            # not the normal exit but a `break` ending the body (its own exit is dead code)
            body_end, cont, norm_end = H, (R + 1 if ends else R), -1
        if L:
            for p in pops:
                self._copies[p + 1] = Copy(lengths[p], "finally", norm_end, not ends)
        if COPIES_EXITS and body_end == P and P is not None:
            self._merge_exit_copies39(P, norm_end, [p for p in normal if lengths[p] == lengths[P]])
        # the statement's follow, when 3.10 copied it into every end of the normal exit's copy
        follow_copy = copied_follows.get(P + 1) if P is not None else None
        hstack = list(stack) + [ExcInfo(), ExcInfo(), ExcInfo(), CaughtException(), CaughtException(), CaughtException()]
        final, st = self.walk(H, R, hstack, frozenset({R}))
        if not ends and self._falls_into_for_exit39(R) and len(st) == len(stack) - 1:
            final.append(ast.Break())  # (it popped the exception, then the iterator)
            st = hstack
        if len(st) != len(hstack):
            raise self.fail("finally body changes the stack", ins[H], kind=Refusal.TRY)
        end_pt = cont if body_end == P else None
        inherited = self._block_inherit(end_pt, stop, exits)
        body, st = self.walk(s + 1, body_end, list(stack), inherited)
        if len(st) != len(stack) and body_end != H:
            raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
        if not ends and body and getattr(body[-1], "left_copy", False) and body[-1].value is None:
            # the body's last exit, through a finally that always leaves: falling off the
            # body does the same (its normal exit, as the source most often wrote it)
            body.pop()
        self._claim_handler(H)
        self.emit(try_finally_node(body, final))
        if follow_copy is not None and body_end == H:
            starts, size = follow_copy
            tail, st = self.walk(starts[0], starts[0] + size, list(stack), frozenset())
            self.block.extend(tail)
            for x in starts:
                for q in range(x, x + size):
                    self.reachable[q] = False
        return self._cont(cont, stop, exits, ins[s])

    def _nested_normal_exit_fin39(self, s: int, H: int, R: int, home, pops: list, lengths: dict) -> int | None:
        """The try/finally's normal exit inside code nested in its body, when its body's own
        code never falls off (an except clause's end, that try's body returning): the last
        POP_BLOCK before the handler, its finally copy then a jump past the handler right
        before it.  Returns that POP_BLOCK (marked for the clause that falls into it)."""
        ins = self.ins
        inner = [p for p in pops if s < p < H and self.home[p] != home]
        if not inner:
            return None
        Q = max(inner)
        after = Q + 1 + lengths[Q]
        if ins[after].op != "JUMP" or after + 1 != H or ins[after].target <= R or self.home[after] != self.home[Q]:
            return None
        self.__dict__.setdefault("_b_nested_exits", set()).add(Q)
        return Q

    def _falls_into_for_exit39(self, R: int) -> bool:
        """Does the finally handler ending at R fall into the innermost for loop's exit, laid
        right after it: a `break` ending the body (its jump dropped: ``POP_EXCEPT``, the
        iterator's ``POP_TOP``, then the loop's follow)?"""
        if not self.loops or self.loops[-1].item is None or R >= self.n:
            return False
        return (
            R in self.loops[-1].break_targets
            and self.ins[R - 1].op == "POP_TOP"
            and self.ins[R - 2].op == "POP_EXCEPT"
        )

    def _finally_ends(self, H: int, want: tuple) -> list[int]:
        """The re-raises ending finally handler H's body, the last one last.

        3.10 copies the RERAISE block into each predecessor that jumps to it; each
        copy is turned back into a jump to the last one (same behaviour), so that
        the body's branches read as they do on 3.9."""
        cache = self.__dict__.setdefault("_b_fin_ends", {})
        if H in cache:
            return cache[H]
        ins = self.ins
        ends = [
            k
            for k in range(H, self.n)
            if ins[k].op == "RERAISE" and self._b_stack[k] == want and self._owned(k, H)
        ]
        for k in ends[:-1]:
            ins[k].op, ins[k].target = "JUMP", ends[-1]
            ins[k].extra["reraise_copy"] = True
        cache[H] = ends
        return ends

    def _match_finally_copy(
        self, a: int, H: int, ends: frozenset, copied_follows: dict[int, tuple[list[int], int]]
    ) -> int | None:
        """Length of the inlined copy at ``a`` of finally handler H's body, or None.

        The two copies have the same blocks; only their exits differ: where the
        handler's copy re-raises (``ends``), the inlined copy continues at one
        place, reached by falling off its end, by a jump threaded to where that
        jump goes (3.9), or by a copy of a small return block (3.10).  Copies of
        that block reached only from inside the copy are marked dead.  A copy that
        no path leaves, each of its ends a copy of the statement's follow (3.10),
        puts (their starts, their length) in ``copied_follows[a]``."""
        ins = self.ins
        seen: dict[int, int] = {}
        exits: set[int] = set()
        unwound: set[int] = set()
        work = [(a, H)]
        while work:
            x, y = work.pop()
            if y in ends:
                exits.add(x)
                continue
            fe = self._finally_end_len39(y) if y < self.n else 0
            if fe and y + fe < self.n and ins[y + fe].op == "JUMP" and ins[y + fe].target == x:
                continue  # (3.9 threaded the copy's jump to the exit's jump: x is where it goes)
            if fe and (y not in seen or seen[y] != x):
                # a return/break/continue leaving the body: the handler's copy drops
                # the exception first, a copy on a return's path the pending value
                done = False
                for drop in ([], [("POP_TOP", None)], [("SWAP", 2), ("POP_TOP", None)]):  # (ROT_TWO: SWAP 2)
                    if [(ins[q].op, ins[q].arg if ins[q].op == "SWAP" else None) for q in range(x, x + len(drop))] == drop:
                        rest = self._exit_path_matches39(y + fe, x + len(drop))
                        if rest is not None:
                            seen.setdefault(y, x)
                            unwound |= set(range(x, x + len(drop))) | rest
                            done = True
                            break
                if done:
                    continue
            if y in seen:
                if seen[y] != x:
                    return None
                continue
            if x >= self.n or y >= self.n:
                return None
            X, Y = ins[x], ins[y]
            if Y.op == "JUMP" and X.op != "JUMP" and self._finally_end_len39(Y.target) and Y.target not in ends:
                work.append((x, Y.target))  # 3.10 copied the exit from the body into the copy
                continue
            if Y.op == "JUMP" and Y.target in ends and X.op == "RETURN_VALUE":
                exits.add(x)  # 3.9 turns a jump to the return after the copy into the return
                continue
            seen[y] = x
            if X.op != Y.op:
                return None
            if Y.target is not None:
                if X.target is None:
                    return None
                if Y.target in ends or self._owned(Y.target, H):
                    work.append((X.target, Y.target))
                elif X.target != Y.target:
                    return None
            elif X.target is not None or arg_key(X.argval) != arg_key(Y.argval):
                return None
            if Y.op not in TERMINAL and Y.op != "JUMP":
                work.append((x + 1, y + 1))
        covered = set(seen.values()) | unwound
        # returns standing for the copy's end inside it (3.9 replaces a jump to the
        # return after the copy by the return; 3.10 copies it) are part of the copy
        last = max(covered, default=a)
        covered |= {x for x in exits if x < last and ins[x].op == "RETURN_VALUE"}
        E = max(covered) + 1 if covered else a
        # a jump to the copy's end inside it, where the handler's copy re-raises (3.10 copied
        # the re-raise into a nested with's or try's normal exit): part of the copy
        inner_jumps = {
            x
            for x in exits
            if a <= x < E and ins[x].op == "JUMP" and self._through_jump(ins[x].target) == self._through_jump(E)
        }
        covered |= inner_jumps
        tail = self._tail_length(E)
        for x in exits:
            if tail is not None and a <= x < E and self._same(x, E, tail):
                covered |= set(range(x, x + tail))  # 3.10 copied the follow inside the copy
        inner = sorted(x for x in exits if a <= x < E)
        if COPIES_EXITS and inner and tail is None and len(inner) == len(exits):
            # 3.10: no path leaves the copy; each of its ends is the same small `return`
            # block, the statement's follow, copied there (the try/finally ends the function)
            t0 = self._tail_length(inner[0])
            if t0 is not None and all(
                self._tail_length(x) == t0 and self._same(x, inner[0], t0) for x in inner
            ):
                for x in inner:
                    covered |= set(range(x, x + t0))
                E = max(covered) + 1
                copied_follows[a] = (inner, t0)
                exits = set()  # (all accounted for: none leaves the copy)
        covered |= {x for x in range(a, E) if self._b_stack[x] is None}  # 3.9 keeps dead code
        if covered != set(range(a, E)):
            return None
        if exits and E < self.n and self._b_stack[E] is None:
            # 3.9 keeps the dead code ending the copy (a nested try's re-raise, a dropped
            # jump) before the dead jump to the statement's follow, where the copy's own
            # jumps were threaded
            k = E
            while k + 1 < self.n and self._b_stack[k + 1] is None:
                k += 1
            if ins[k].op == "JUMP" and all(self._through_jump(x) == ins[k].target for x in exits):
                E = k
            elif all(x == k + 1 or self._through_jump(x) == self._through_jump(k + 1) for x in exits):
                E = k + 1  # (the dead code ends the copy: a loop's dropped jump back)
        dead = []
        for x in exits:
            if x == E or x in inner_jumps:
                continue
            if x == self._through_jump(E) or self._through_jump(x) == self._through_jump(E):
                # both reach the same place, one through a jump (3.9 threading)
                if ins[x].op == "JUMP" and x != self._through_jump(E) and not a <= x < E:
                    if self._only_reached_from(x, a, E):
                        dead.append((x, 1))
                continue
            size = tail
            if (tail is None or not self._same(x, E, tail)) and not a <= x < E:
                # 3.10 copies the rest of a return's path (the enclosing statements' exits,
                # the return) into each end of the copy that holds an if: longer than a small
                # exit block, the same code up to the return
                size = self._tail_length(E, 64, {"RETURN_VALUE"})  # (up to a return)
            if size is None or not self._same(x, E, size):
                return None
            if not a <= x < E and self._only_reached_from(x, a, E):
                dead.append((x, size))
        for x, length in dead:
            for q in range(x, x + length):
                self.reachable[q] = False
        return E - a

    def _exit_path_matches39(self, y: int, x: int) -> set[int] | None:
        """3.9/3.10: the rest of an exit from a finally body, the same at y (the handler's
        copy) and x (an inlined copy): the instructions at x.  Every path ends in a return
        or a jump to the same place (a `break` through an enclosing finally's copy that
        holds an if: both sides' tests jump to the same place, or to the same code)."""
        ins = self.ins
        used: set[int] = set()
        work, seen = [(y, x)], set()
        while work:
            y, x = work.pop()
            while True:
                if x >= self.n or y >= self.n or len(used) > 200:
                    return None
                if (y, x) in seen:
                    break
                seen.add((y, x))
                a, b = ins[y], ins[x]
                if b.op == "JUMP" and b.target == y and a.op != "JUMP" and used:
                    used.add(x)  # (the handler's copy falls into where this one jumps)
                    break
                if a.op != b.op:
                    return None
                used.add(x)
                if a.op == "RETURN_VALUE":
                    break
                if a.target is not None:
                    if b.target is None:
                        return None
                    if a.target != b.target:
                        if a.target < y or b.target < x:
                            return None
                        work.append((a.target, b.target))  # (the same code further on)
                    if a.op == "JUMP":
                        break
                elif a.op in TERMINAL or arg_key(a.argval) != arg_key(b.argval):
                    return None
                x += 1
                y += 1
        return used

    def _left_copy39(self, i: int, c: Copy, stack: list, before: list) -> int | None:
        """A copy at i, on an exit path, of a finally body that always leaves (returns,
        raises, breaks or continues): the exit whose copy it is never runs (the compiler
        dropped it, or 3.9 left it dead), and no path through the copy reaches its end.
        The exit is written back as a return (of the value it computed first, if any):
        through the finally it does what the exit did.  Returns where the walk goes on,
        or None."""
        b = i + c.length
        if c.kind != "finally" or not c.never_ends or i - 1 not in self._b_pops or not self._closed_copy39(i, b):
            return None
        if self._closed_terminal(i, b):
            return None  # (every path returns or raises: the walker's own reading)
        node = self._overridden_exit(stack, before)
        node.left_copy = True
        self.emit(node)
        return b

    def _closed_copy39(self, a: int, b: int) -> bool:
        """Does no path through the copy [a, b) reach b: it ends in a jump, return or
        raise, and none of its jumps goes to b?"""
        last = self.ins[b - 1]
        if last.op not in TERMINAL and last.op != "JUMP":
            return False
        return all(self.ins[k].target != b for k in range(a, b))
