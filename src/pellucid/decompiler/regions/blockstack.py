"""3.9/3.10: the block stack.

Before 3.11 a protected region is opened by SETUP_FINALLY/SETUP_WITH (whose target is the
handler) and closed by POP_BLOCK; a handler runs inside an except-handler block that
POP_EXCEPT closes.  ``_setup_blocks`` computes the block stack of every instruction by
following normal control flow (as CPython's ``markblocks`` does), which pairs every
POP_BLOCK with its SETUP.  Each compiler-made copy of a finally body or of a with's
``__exit__`` call sits right after a POP_BLOCK of its statement, so the copies are found by
that pairing, not by position.  ``home`` is as on 3.11+: -1 for code reached from the entry,
else the handler whose code it is.  ``do_try_blocks`` sends a SETUP_FINALLY to the
try/except or the try/finally reading.
"""

from __future__ import annotations

from pellucid.decompiler.cfg import PLAIN_FLOW, reach, reach_in_turn
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TERMINAL
from pellucid.decompiler.regions.exc_markers import Copy


def _starts_value(ins) -> bool:
    """Does the instruction push a value without using any (a load, an empty display)?"""
    return ins.op.startswith("LOAD_") or (ins.op in _EMPTY_DISPLAYS and ins.arg == 0)


_EMPTY_DISPLAYS = frozenset({"BUILD_MAP", "BUILD_LIST", "BUILD_SET", "BUILD_TUPLE"})


class BlockStackOps:
    """Walker mixin: the 3.9/3.10 block stack and the queries its readings share."""

    def op_POP_BLOCK(self, ins, stack: list) -> None:
        """3.9/3.10: regions come from the block analysis; the pop itself says nothing."""
        if ins.index not in self._b_pops:
            raise self.fail("POP_BLOCK without its SETUP", ins, kind=Refusal.TRY)

    def _setup_blocks(self) -> None:
        n, ins = self.n, self.ins
        bs: list = [None] * (n + 1)
        self._b_stack = bs
        self._b_pops: dict[int, int] = {}
        self._b_setup_of: dict[int, int] = {}
        self._b_handler: dict[int, int] = {}
        for i in ins:
            if i.op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH") and i.target is not None:
                self._b_handler[i.index] = i.target
                if self._b_setup_of.setdefault(i.target, i.index) != i.index:
                    self._exc_error = ("two SETUPs share a handler", i)
        if not self._b_handler:
            return

        def err(reason: str, k: int) -> None:
            if self._exc_error is None:
                self._exc_error = (reason, ins[k])

        work = [(0, ())]
        while work:
            k, B = work.pop()
            while k < n:
                if bs[k] is not None:
                    if bs[k] != B:
                        err("block stacks disagree at a join", k)
                    break
                bs[k] = B
                i = ins[k]
                op = i.op
                if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                    work.append((i.target, B + (("E", k),)))
                    B = B + (("S", k),)
                    k += 1
                    continue
                if op == "POP_BLOCK":
                    if not B or B[-1][0] != "S":
                        err("POP_BLOCK without a block", k)
                        break
                    self._b_pops[k] = B[-1][1]
                    B = B[:-1]
                    k += 1
                    continue
                if op == "POP_EXCEPT":
                    if not B or B[-1][0] != "E":
                        err("POP_EXCEPT without a handler block", k)
                        break
                    B = B[:-1]
                    k += 1
                    continue
                if i.target is not None:
                    work.append((i.target, B))
                if op in TERMINAL or op == "JUMP":
                    break
                k += 1
        # homes
        home = self.home

        def flood(start: int, tag: int) -> None:
            reach_in_turn(ins, [(start, tag)], home, PLAIN_FLOW)

        def flood_handler(s: int, start: int | None = None) -> None:
            # a handler's code ends where it leaves its except block: a jump from
            # after its POP_EXCEPT (and a with's suppression path falling through)
            # reaches the statement's follow, which is the enclosing code's (and
            # if that is a handler's too, it ends where it leaves that one's block)
            H = self._b_handler[s]
            mine = ("E", s)
            # (a with's handler falls through its last POP_TOP into the statement's follow)
            follow = H + 8 if ins[H].op == "WITH_EXCEPT_START" else -1

            def leaves(k: int) -> bool:  # (a jump)
                return bs[k] is not None and mine not in bs[k]

            code = reach(
                ins,
                [H if start is None else start],
                PLAIN_FLOW,
                part_of=home,
                part=None,
                avoid={follow},
                stop_jump=leaves,
            )
            outside = [follow] if follow in code.left and home[follow] is None else []
            outside += [ins[k].target for k in code.ended]
            for k in code.reached:
                home[k] = H
            outer = home[s]
            for t in outside:
                if outer is not None and outer >= 0 and outer in self._b_setup_of:
                    flood_handler(self._b_setup_of[outer], t)
                else:
                    flood(t, outer)

        flood(0, -1)
        pending = sorted(self._b_handler)
        progress = True
        while pending and progress:
            progress = False
            for s in list(pending):
                if home[s] is not None:
                    flood_handler(s)
                    pending.remove(s)
                    progress = True

    def _owned_tags(self, H: int) -> frozenset:
        """The homes that are handler H's code: H and the handlers nested in it."""
        cache = self.__dict__.setdefault("_b_owned_cache", {})
        r = cache.get(H)
        if r is None:
            nested = self.__dict__.get("_b_nested")
            if nested is None:
                # handler -> the handlers whose set-up is its code (found once, not per H)
                nested = self._b_nested = {}
                for h, s in self._b_setup_of.items():
                    nested.setdefault(self.home[s] if s is not None else None, []).append(h)
            tags, seen, work = set(), set(), [H]
            while work:
                x = work.pop()
                if x in seen:
                    continue
                seen.add(x)
                if x in self._b_setup_of:
                    tags.add(x)
                work.extend(nested.get(x, ()))
            r = cache[H] = frozenset(tags)
        return r

    def _owned(self, k: int, H: int) -> bool:
        """Is instruction k code of handler H (or of a handler nested in H's code)?"""
        return self.home[k] in self._owned_tags(H)

    def _handler_code(self, H: int) -> list[int]:
        """The indices from H on that are handler H's code (its homes are set once, when the
        block stack is read): found per home, not by a scan of everything after H."""
        homed = self.__dict__.get("_b_homed")
        if homed is None:
            homed = self._b_homed = self._indices_by_home()
        return sorted(k for tag in self._owned_tags(H) for k in homed.get(tag, ()) if k >= H)

    def _claim_handler(self, H: int) -> int:
        """Mark handler H's code consumed; return the index after its last instruction."""
        code = self._handler_code(H)
        for k in code:
            self.reachable[k] = False
        return code[-1] + 1 if code else H

    def _handler_end(self, H: int) -> int:
        code = self._handler_code(H)
        return code[-1] + 1 if code else H + 1

    def _straight_tail(self, j: int, limit: int | None = None) -> int | None:
        """Length of straight-line code from j ending in a return or a raise (a 3.10 copy
        of a small exit block), or None.  It starts a statement: nothing it consumes was
        pushed before it (``SWAP; POP_TOP; RETURN_VALUE`` is a return's unwinding)."""
        if j < self.n and self.ins[j].op == "RAISE_VARARGS" and self.ins[j].arg == 0:
            return 1 if limit is None or j < limit else None  # a bare `raise`
        if j >= self.n or not (_starts_value(self.ins[j]) or self.ins[j].op == "POP_BLOCK"):
            return None
        k = j
        leading = True  # still in the POP_BLOCKs and exit copies it starts with
        while k < self.n and (limit is None or k < limit):
            ins = self.ins[k]
            if leading and (k in self._copies or self._is_exit_copy39(k)):
                k += self._copies[k].length if k in self._copies else 5
                continue
            if ins.target is not None or ins.op.startswith("SETUP_"):
                return None
            if leading and ins.op != "POP_BLOCK":
                if not ins.op.startswith("LOAD_") and not (k == j and _starts_value(ins)):
                    # uses a value computed before: a return's unwinding (an empty display
                    # after the exits, built before them, would be another statement's)
                    return None
                leading = False
            if ins.op in ("RETURN_VALUE", "RAISE_VARARGS"):
                return k + 1 - j
            if ins.op in TERMINAL:
                return None
            k += 1
        return None

    def _through_jump(self, k: int) -> int:
        return self.ins[k].target if k < self.n and self.ins[k].op == "JUMP" else k

    def _pops3(self, p: int) -> bool:
        return p + 2 < self.n and all(self.ins[p + d].op == "POP_TOP" for d in range(3))

    def _block_inherit(self, end: int | None, stop: int, exits: frozenset) -> frozenset:
        """The exits of the walks inside a statement that continues at ``end``: the
        enclosing walk's when the statement ends it (directly, or through a last
        jump to one of them, as a loop's back edge)."""
        if end is None or end >= stop or end in exits:
            return exits
        j = self.ins[end]
        if (
            j.op == "JUMP"
            and j.target in exits
            and self._dead_between(end + 1, stop)
        ):
            return exits
        return frozenset()

    def _is_exit_copy39(self, k: int) -> bool:
        ins = self.ins
        return (
            k + 4 < self.n
            and ins[k].op == "LOAD_CONST"
            and ins[k].argval is None
            and ins[k + 1].op == "COPY"
            and ins[k + 1].argval == 1
            and ins[k + 2].op == "COPY"
            and ins[k + 2].argval == 1
            and ins[k + 3].op == "CALL_FUNCTION"
            and ins[k + 3].argval == 3
            and ins[k + 4].op == "POP_TOP"
        )

    def _is_except_handler39(self, H: int) -> bool:
        ins = self.ins
        if self._pops3(H):
            return True
        if not (ins[H].op == "COPY" and ins[H].argval == 1):
            return False
        k = H + 1
        while k < self.n and ins[k].target is None:
            k += 1
        return k < self.n and ins[k].op == "JUMP_IF_NOT_EXC_MATCH"

    def do_try_blocks(self, s: int, stack: list, stop: int, exits: frozenset) -> int:
        H = self.ins[s].target
        if H is None or self.home[H] is None or self.home[s] is None:
            raise self.fail("try without a reachable handler", self.ins[s], kind=Refusal.TRY)
        if self._is_except_handler39(H):
            return self._try_except_blocks(s, H, stack, stop, exits)
        return self._try_finally_blocks(s, H, stack, stop, exits)

    def _leaves_to(self, t: int, exits: frozenset) -> bool:
        """Is reaching t the same as falling off the enclosing block: t is one of
        its exits, or a jump to one (3.9: a loop's last jump back, after an else)?"""
        return t in exits or (t < self.n and self.ins[t].op == "JUMP" and self.ins[t].target in exits)

    def _leaves_loop_at(self, cont: int, stop: int) -> bool:
        """Does a statement that goes on at ``cont``, at or past the end of the walk, leave the
        innermost loop there (a `break`)?  Its end is past the loop's last jump back, where
        falling off would go round instead (also when an if ending the loop body names that
        place an exit: it is where the body ends, and falling off the body goes round)."""
        return cont >= stop and bool(self.loops) and cont in self.loops[-1].break_targets

    def _cont(self, cont: int, stop: int, exits: frozenset, ins) -> int:
        if cont <= stop:
            return cont
        if cont in exits:
            return stop
        raise self.fail("try continues past its enclosing block", ins, kind=Refusal.TRY)

    def _merge_exit_copies39(self, P: int, tail: int, pops: list) -> None:
        """3.10 copies a statement's whole normal exit (POP_BLOCK, finally body or
        ``__exit__`` call, a small follow) into each jump reaching it.  Copies that
        only jumps reach become jumps to the last one, P (same code, same block
        stack), so conditions see one false exit."""
        ins = self.ins
        j = ins[tail]
        tl = 1 if j.op == "JUMP" else self._tail_length(tail)
        if tl is None:
            return
        length = tail + tl - P
        for p in pops:
            if p == P or not self._same(p, P, length) or not self._only_reached_from(p, 0, self.n):
                continue
            for i in ins:
                if i.target == p:
                    i.target = P
            self._claim_block(p, p + length)

    def _normal_exit_copy_end(self, i: int, c: Copy, stop: int) -> int | None:
        """3.10 copies a statement's whole normal exit (POP_BLOCK, finally body or
        ``__exit__`` call, a small follow ending in a return) into a branch that
        ends the body.  When the walk stops at the original exit's POP_BLOCK, the
        copy is falling off the walk's end: return ``stop``."""
        if c.end < 0 or i - 1 not in self._b_pops or stop not in self._b_pops:
            return None
        if self._b_pops[i - 1] != self._b_pops[stop]:
            return None
        k = i + c.length
        tl = self._tail_length(c.end)
        if tl is None or not self._same(k, c.end, tl) or not self._dead_between(k + tl, stop):
            return None
        return stop

    def _tail_length(self, k: int, limit: int = 8, ends: frozenset[str] | set[str] = TERMINAL) -> int | None:
        """Length of straight-line code from k up to a return/raise (one of ``ends``; any
        other terminal instruction: None), at most ``limit`` long, or None."""
        j = k
        while j < self.n and j - k < limit:
            op = self.ins[j].op
            if self.ins[j].target is not None or op.startswith("SETUP_"):
                return None
            if op in ends:
                return j + 1 - k
            if op in TERMINAL:
                return None
            j += 1
        return None

    def _only_reached_from(self, x: int, a: int, b: int) -> bool:
        """Is x reached only by jumps from [a, b) (nothing falls into it)?"""
        if x > 0:
            prev = self.ins[x - 1]
            if prev.op not in TERMINAL and prev.op != "JUMP":
                return False
        return all(a <= i.index < b for i in self.ins if i.target == x)
