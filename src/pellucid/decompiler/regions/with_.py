"""3.11+ with / async with: the body is the protected region of a ``with`` handler
(``PUSH_EXC_INFO; WITH_EXCEPT_START``), the ``__exit__`` copies on its exit paths are
skipped, and where a suppressed exception goes on is the statement's follow.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.cfg import reach
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import const, name
from pellucid.decompiler.instructions import TABLE, TERMINAL, Instr
from pellucid.decompiler.regions.exc_markers import (
    WithExit,
    _ends_in_jump,
    inherited_exits,
    with_node,
)


class WithOps:
    """Walker mixin: with statements from an exception-table handler (3.11+)."""

    def do_with(self, b: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        ctx = self.pop_expr(stack, ins[b])
        home = self.home[b]
        W, C, Lb = self._with_handler(b, stack)
        # where a suppressed exception continues: the with's follow
        sup = Lb + 4
        follow, tail, crossed, leaves, claim_to, unread = self._suppressed_path(W, Lb, sup)
        # the as-target
        stack.append(WithExit(ctx))
        k, target = self._with_target(b + 1, stack)
        _, e = self._extent(W, home)
        self._copy_kind = "with"
        end = self._register_copies(W, home, k, e, lambda k: 5 if self._is_exit_copy(k) else 0)
        # this statement's exit copies (each 5 long: what follows one is where it goes)
        exit_copies = [c for c, cp in self._copies.items() if cp.kind == "with" and k <= c < max(end, e) + 1]
        raising_tail = None  # (see below: a suppressed exception that raises instead)
        normal_follow = (
            self._normal_exit_past(W, tail, claim_to, exit_copies)
            if tail is not None and (leaves is not None or ins[claim_to - 1].op == "RAISE_VARARGS")
            else None
        )
        if unread is not None and crossed is None and unread.index == claim_to - 1 and unread.op == "JUMP":
            # the suppressed path runs the small block after the statement (`POP_EXCEPT;
            # JUMP` ending an except clause): 3.13+ copy it there and after the normal exit
            if TABLE.copies_exits_without_line and any(self._same(c + 5, tail[0], tail[1]) for c in exit_copies):
                unread = None  # (the normal exit's copy is the follow, see _follow_of_tail)
            elif all(ins[q].op in ("POP_EXCEPT", "POP_TOP", "NOP") for q in range(sup, claim_to - 1)):
                # (the body never ends normally: the compiler sends a suppressed exception
                # where the normal exit would go; this is that code, the follow)
                follow, tail, leaves, claim_to, unread = sup, None, None, sup, None
        if unread is None and normal_follow is None and crossed is not None:
            unread = crossed
        ends_enclosing = False
        if unread is not None and (
            self._ends_enclosing_with(W, sup, exit_copies, stop)
            # (its exit paths, up to their returns and jumps, inside that body: the try's
            # reading may end the body inside a copy of its own, before a return's value)
            or (max(end, e) <= stop and self._ends_enclosing_finally(b, W, sup, exit_copies))
        ):
            # (3.11) the body never ends normally and a suppressed exception runs on into the
            # exit of the with around (or the normal exit's copy of the finally body around):
            # the statement ends that with's (that try's) body
            follow, tail, crossed, leaves, claim_to, unread = None, None, None, None, sup, None
            ends_enclosing = True
        if unread is not None:
            if not (
                not TABLE.cold_blocks_at_end
                and sup <= stop
                and all(self._pure_exit(c + 5) for c in exit_copies)
                and self._under_handlers_of(b, [q for q in range(sup, stop) if self.home[q] == W])
            ):
                raise self.fail("with handler continues into unrecognized code", unread, kind=Refusal.WITH)
            # (3.11) the body never ends normally: the rest of the enclosing block, reached
            # only when an exception is suppressed, follows the handler inline
            follow, tail, crossed, leaves, claim_to = sup, None, None, None, sup
        elif normal_follow is not None:
            # The body's normal exit goes on past the handler, while an exception the context
            # manager suppresses ends in a raise of the handler's own, or leaves an enclosing
            # with for that one's raise.  Dynamo's resume functions re-enter with blocks this
            # way (reentry.py); no source says it with a plain with statement: a flag the body
            # sets at its end tells the exits apart.
            follow, raising_tail, tail = normal_follow, tail, None
        elif crossed is not None:
            raise self.fail("with handler continues into unrecognized code", crossed, kind=Refusal.WITH)
        if tail is not None:
            follow, claim_to, tail = self._follow_of_tail(
                b, sup, follow, tail, claim_to, exit_copies, end, stop, home
            )
        follow, body_end, rest = self._with_body_end(b, k, W, follow, end, e, stop, exits, exit_copies)
        if ends_enclosing and self._own_code_between(body_end, stop, home):
            raise self.fail("with continues past its enclosing block", ins[b], kind=Refusal.WITH)
        # (a body followed by a rest laid out elsewhere does not end the block: its jumps
        # round the loop are continues)
        body_exits = exits if rest is None else frozenset()
        if rest is not None and follow is not None:
            # (the clauses inside the body that end it jump to the statement's exit copies
            # laid out with the rest: reaching one ends the body)
            body_exits = self._exit_copies_into(W, follow, k, body_end)
        body, flag, raised = self._walk_with_body(
            b, k, W, C, Lb, claim_to, stack, follow, body_end, stop, body_exits, raising_tail, leaves
        )
        item = ast.withitem(context_expr=ctx, optional_vars=target)
        self._emit_with(b, k, item, body, flag, raised, raising_tail, leaves, follow, exits)
        if rest is not None:
            self._emit_relocated_rest(b, rest, stack, stop, exits)
        return body_end

    def _with_handler(self, b: int, stack: list) -> tuple[int, int, int]:
        """Check the handler of the with at ``b``: (handler, its clean-up, where a suppressed
        exception goes: ``POP_TOP; POP_EXCEPT; POP_TOP; POP_TOP``)."""
        ins = self.ins
        W = self._cover[b + 1]
        if W is None or self._handlers[W].kind != "with":
            raise self.fail("with statement without its handler", ins[b], kind=Refusal.WITH)
        h = self._handlers[W]
        if h.depth != len(stack) + 1 or not h.lasti:
            raise self.fail("with handler stack depth differs", ins[b], kind=Refusal.WITH)
        self._started.add(W)
        C = self._cleanup_of(W)
        if self._handlers[C].depth != h.depth + 2:
            # The clean-up (COPY 3; POP_EXCEPT; RERAISE 1) finds the exception handled before
            # the handler's under the exception and lasti it pushes; kept deeper, it finds the
            # handler's own exception, which then stays set as the one being handled after an
            # exception __exit__ raises leaves the statement.  No source does that (Dynamo's
            # resume functions on 3.14, torch 2.15, re-enter with blocks so).
            raise self.fail("with handler's clean-up keeps another stack than the handler's", ins[W], kind=Refusal.WITH)
        # handler: PUSH_EXC_INFO; WITH_EXCEPT_START; POP_JUMP_IF_TRUE L; RERAISE 2
        j = ins[W + 2]
        if not (j.op == "POP_JUMP_IF_TRUE" and ins[W + 3].op == "RERAISE" and j.target is not None):
            raise self.fail("unrecognized with handler", ins[W], kind=Refusal.WITH)
        Lb = j.target
        if [ins[Lb + d].op for d in range(4)] != ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP"]:
            raise self.fail("unrecognized with handler", ins[Lb], kind=Refusal.WITH)
        return W, C, Lb

    def _suppressed_path(self, W: int, Lb: int, sup: int) -> tuple:
        """Where a suppressed exception goes on from ``sup``: (follow, tail, crossed, leaves,
        claim_to, unread).  A jump there gives the follow; code of the handler's own up to a return or
        raise is the tail (``(start, length)``), ``crossed`` an instruction of another
        handler's code it runs into, ``leaves`` the flag of an enclosing with whose suppressed
        path it leaves; ``claim_to`` ends the handler code the statement owns."""
        ins = self.ins
        follow = None
        tail = None
        crossed = None  # (an instruction of another handler's code the tail runs into)
        leaves = None  # the flag of an enclosing with this one's suppressed path leaves
        unread = None  # a jump in the tail no reading of its own takes
        # (a JUMP the body's normal exit jumps to as well is the code after the statement,
        # such as the `continue` ending a branch the with ends, not the handler's own)
        # (nor one a jump from before the statement reaches: an if whose test jumps there,
        # past the with ending its branch, as 3.11 117:131 does)
        if ins[sup].op == "JUMP" and not any(
            q.target == sup and not Lb <= q.index < sup and self.initially_reachable[q.index]
            for q in ins
        ):
            follow = ins[sup].target
            claim_to = sup + 1
        elif self.home[sup] != W or ins[sup].op == "JUMP":
            follow = sup
            claim_to = sup
        else:
            k = sup
            while k < self.n and ins[k].op not in TERMINAL:
                if ins[k].target is not None:
                    leaves = self._leaves_enclosing_with(sup, k)
                    if leaves is None:
                        unread = ins[k]
                    break
                if self.home[k] != W and crossed is None:
                    crossed = ins[k]
                k += 1
            tail = (sup, k + 1 - sup)
            claim_to = k + 1
        return follow, tail, crossed, leaves, claim_to, unread

    def _follow_of_tail(
        self, b: int, sup: int, follow: int | None, tail: tuple, claim_to: int,
        exit_copies: list, end: int, stop: int, home: int,
    ) -> tuple:
        """Find the normal exit of a with whose suppressed path runs code of its own (``tail``):
        an exit copy followed by the same code as the tail.  Returns (follow, claim_to, tail)."""
        ins = self.ins
        cand = [c + 5 for c in exit_copies if self._same(c + 5, tail[0], tail[1])]
        if cand:
            follow = max(cand)
            if tail[1] == 2 and ins[tail[0]].op == "LOAD_CONST" and ins[tail[0]].argval is None:
                # both exits end in their own `return None`: the compiler copied the
                # function's implicit return (no line) into each, see emit
                self.implicit_returns.add(follow + 1)
        elif (
            tail[1] == 2
            and ins[tail[0]].op == "LOAD_CONST"
            and ins[tail[0]].argval is None
            and not self._own_code_between(end, stop, home)
            and stop >= self.n - 0
        ):
            pass
        elif (
            TABLE.copies_exits_without_line
            and tail[0] > stop
            and stop < self.n
            and ins[tail[0] + tail[1] - 1].op in TERMINAL
            and self._same(stop, tail[0], tail[1])
        ):
            # 3.12+: the statement ends a block (an if's arm) whose body ends otherwise
            # (a return): a suppressed exception goes on where the block does, at a copy
            # of that code (a small exit) laid out after the handler
            follow = stop
        elif self._exits_then_return_none(tail[0]) == list(range(tail[0], tail[0] + tail[1])):
            # 3.11: the statement ends the body of withs whose other paths return: a
            # suppressed exception goes on into their exits and the function's `return
            # None` (3.12+ jump there, see below)
            pass
        elif sup <= stop and all(self._pure_exit(c + 5) for c in exit_copies):
            # the body never ends normally (`with suppress(E): return x`): the
            # code after the statement is reached only when an exception is
            # suppressed, and follows the handler
            follow = sup
            claim_to = sup
            tail = None
        else:
            raise self.fail("with statement whose follow is not found", ins[b], kind=Refusal.WITH)
        return follow, claim_to, tail

    def _with_body_end(
        self, b: int, k: int, W: int, follow: int | None, end: int, e: int, stop: int, exits: frozenset,
        exit_copies: list[int],
    ) -> tuple[int | None, int, tuple[int, int] | None]:
        """(follow, end of the body starting at k, the rest of the enclosing block laid out
        elsewhere or None)."""
        ins = self.ins
        if (
            follow is not None
            and follow > stop
            and follow not in exits
            and self._exits_then_return_none(follow) is not None
        ):
            # 3.12+: the statement ends the body of withs whose other paths return: what a
            # suppressed exception goes on to, their exits and the function's `return None`,
            # is laid out past the handler code, not at the block's end
            for q in self._exits_then_return_none(follow):
                self.reachable[q] = False
            follow = None
        rest = None
        if follow is not None and k <= follow <= stop:
            body_end = follow
        elif follow is None or follow in exits or follow < k:
            body_end = stop if follow is None or follow > stop or follow < k else follow
            body_end = min(max(end, e), stop) if follow is None else body_end
        else:
            # (each exit copy goes on inside the block: a return, break or continue of the body)
            inside = all(k <= c + 5 < stop for c in exit_copies)
            if inside and self._ends_enclosing_with(W, follow, exit_copies, stop):
                # the body never ends normally and a suppressed exception goes on to the
                # exit of the with around (3.12+ lay it out past the handler): the statement
                # ends that with's body, which has no other code after it
                body_end = min(max(end, e), stop)
                if self._own_code_between(body_end, stop, self.home[b]):
                    raise self.fail("with continues past its enclosing block", ins[b], kind=Refusal.WITH)
                return None, body_end, None
            at = self._relocated_rest(b, W, follow, stop, exits, exit_copies) if inside else None
            if at is None:
                raise self.fail("with continues past its enclosing block", ins[b], kind=Refusal.WITH)
            # the rest of the enclosing block, reached when an exception is suppressed (and
            # from the exits of clauses inside the body, whose handlers flood it first), is
            # cold code laid out past it (3.12+); the body goes on to the block's end
            rest, body_end = (follow, at), stop
            if self.home[follow] == W:
                follow = None  # (the body never ends normally)
        return follow, body_end, rest

    def _ends_enclosing_with(self, W: int, a: int, exit_copies: list[int], stop: int) -> bool:
        """Is the code at ``a``, which only with's handler ``W`` reaches, the exit of the
        with whose body is being walked (line-number NOPs, its ``__exit__`` copy, then where
        that with's own suppressed path goes), and does no exit copy of this statement go
        on past the enclosing block (``stop``; its body never ends normally)?  Then that
        code is claimed: the statement ends the enclosing with's body."""
        if not self._walked_withs or a >= self.n or self.home[a] != W:
            return False
        if not all(c + 5 < stop and self._pure_exit(c + 5) for c in exit_copies):
            return False
        claimed = self._enclosing_exit(W, a)
        if claimed is None:
            return False
        for k in claimed:
            self.reachable[k] = False
        return True

    def _enclosing_exit(self, W: int, a: int) -> range | None:
        """The code at ``a`` of with's handler ``W`` when it is the exit of the with whose
        body is being walked (line-number NOPs, its ``__exit__`` copy, then where that
        with's own suppressed path goes), and nothing but ``W``'s code goes on there."""
        if not self._walked_withs:
            return None
        ins = self.ins
        q = self._past_nops(a)
        cp = self._copies.get(q)
        if cp is None or cp.kind != "with" or not self._is_exit_copy(q):
            return None
        after, enclosing = q + 5, self._walked_withs[-1]
        if after < self.n and ins[after].op == "JUMP":
            if self._thread(after) != self._thread(enclosing):
                return None
            claimed = range(a, after + 1)
        else:
            length = self._exit_tail_len(after)
            if not length or not self._same(after, enclosing, length):
                return None
            claimed = range(a, after + length)
        if any(i.target in claimed and self.home[i.index] != W for i in ins):
            return None  # (other code goes on there too: not this statement's alone)
        return claimed

    def _ends_enclosing_finally(self, b: int, W: int, a: int, exit_copies: list[int]) -> bool:
        """Is the code at ``a``, which only with's handler ``W`` reaches, the copy of the body
        of a try/finally around the statement at ``b`` on that try's normal exit, while
        every exit copy of this statement goes on into a return or jump of its own (its body
        never ends normally)?  3.11 lays a with's handler out inline, and a suppressed
        exception runs on from it into what follows the statement: nothing, in the try's
        body, then that try's finally.  The statement ends the try's body; the try's reading
        owns the copy."""
        if TABLE.cold_blocks_at_end or a >= self.n or self.home[a] != W:
            return False
        q = self._past_nops(a)
        cp = self._copies.get(q)
        if cp is None or cp.kind != "finally" or cp.owner is None or self.home[q] != W:
            return False
        if not self._in(b, cp.owner) or self._handlers[cp.owner].kind != "try":
            return False
        if not exit_copies or not all(self._leaves_by_copies(c + 5) for c in exit_copies):
            return False
        return not any(i.target is not None and a <= i.target <= q and self.home[i.index] != W for i in self.ins)

    def _leaves_by_copies(self, k: int) -> bool:
        """Does the exit path at ``k`` leave (a return or jump, see _pure_exit), or end in a
        finally body's copy that never goes on at its end (``finally: ... return``)?"""
        while k in self._copies:
            c = self._copies[k]
            if self._never_reaches(k, k + c.length):
                return True
            k += c.length
        return self._pure_exit(k)

    def _relocated_rest(
        self, b: int, W: int, a: int, stop: int, exits: frozenset, exit_copies: list[int],
        more_homes: frozenset = frozenset(),
    ) -> int | None:
        """The end of the code at ``a`` only with's handler ``W`` reaches (and the handlers
        ``more_homes``), that goes on to the end of the enclosing block (``stop``, ``exits``)
        or an enclosing loop's head or follow (3.12+ lay it out past the code the entry
        reaches).  None: not that shape."""
        owned = self._with_homes(W) | more_homes
        if not TABLE.cold_blocks_at_end or self.home[a] not in owned:
            return None
        avoid = set(exits) | {stop} | self._loop_targets()
        seen = reach(self.ins, [a], within=(a, self.n), avoid=avoid).reached
        for lp in self.loops:
            latch = self.latch.get(lp.header)
            if latch in seen and self.ins[latch].target == lp.header:
                continue  # (the rest ends the loop's body: its jump back, the loop's own)
            if latch is not None and latch < a and self.ins[latch].target != lp.header:
                # a loop whose every jump back is in code laid out past the function's
                # (see loop_latches): its body is the code its head reaches, which ends
                # before this code.  (Not when an exit copy goes on into code computing a
                # value to return: a `break` into a copy of the code after the loop, which
                # no reading here tells from a return)
                if any(self._copied_return_value(c + 5) for c in exit_copies):
                    return None
                continue
            if lp.item is not None:
                continue  # (a `for` loop is its FOR_ITER's: found from no jump back)
            if latch is None or latch >= a or self.ins[latch].target != lp.header:
                # (an enclosing loop found without its own jump back before this code,
                # one whose only jump back is a clause's: the loop as found may not be
                # the source's)
                return None
        R = max(seen) + 1
        if any(self.home[q] not in owned for q in seen):
            return None
        # (under every handler the statement is: code past a try's protected range, its
        # else, is no part of the block the with is in; the jump ending a try body, which
        # raises nothing, the compiler leaves unprotected)
        if not self._under_handlers_of(b, seen, past_exits=True):
            return None
        if any(self.home[q] in owned and q not in seen and self.reachable[q] for q in range(a, R)):
            return None
        return R

    def _exit_copies_into(self, W: int, a: int, k: int, body_end: int) -> frozenset:
        """The exit copies of with's handler ``W`` outside its body [k, body_end) that go on
        to ``a`` (directly or through one jump), claimed: what reaching one does, the
        statement's end and then ``a``, the reading says once."""
        out = set()
        for c, cp in self._copies.items():
            if cp.kind != "with" or cp.owner != W or k <= c < body_end:
                continue
            after = c + cp.length
            if after != a and not (self.ins[after].op == "JUMP" and self.ins[after].target == a):
                continue
            out.add(c)
            for q in range(c, after + (after != a)):
                self.reachable[q] = False
        return frozenset(out)

    def _with_homes(self, W: int) -> frozenset:
        """W and the handlers of the except clauses inside its body: code reached only from
        them is the statement's (homes go to the handler that floods first, by address).
        (Not a with's inside: its suppressed path ends the body, read by its own walk.)"""
        return frozenset(
            {W}
            | {
                H
                for H, h in self._handlers.items()
                if h.kind == "try" and self.home[H] is not None and self._in(H, W)
            }
        )

    def _copied_return_value(self, k: int) -> bool:
        """Does the code at k compute a value and return it (not a return of the value
        computed before an exit copy, nor of None)?  The exit copies of withs around come
        first; a for loop's iterator popped before the value is computed is a `break`'s,
        which the walk reads as one."""
        while k in self._copies and self._copies[k].kind == "with" and self._is_exit_copy(k):
            k += 5
        while k < self.n and self.ins[k].op == "SWAP":
            k += 1
        if k < self.n and self.ins[k].op == "POP_TOP" and self.ins[k - 1].op != "SWAP":
            return False
        while k < self.n and self.ins[k].op in ("POP_TOP", "SWAP"):
            k += 1
        length = self._exit_tail_len(k)
        if length <= 1:
            return False
        return not (length == 2 and self.ins[k].op == "LOAD_CONST" and self.ins[k].argval is None)

    def _under_handlers_of(self, b: int, code, past_exits: bool = False) -> bool:
        """Is all of ``code`` under every handler the statement at b is under?  (Jumps raise
        nothing: 3.12+ leave a block's last jump out of the ranges around it.)  Past the
        ``POP_EXCEPT`` ending an except clause the statement is in, the clause's clean-ups
        no longer cover the code: that is the clause's end (a return's unwinding, the
        ``POP_EXCEPT; JUMP`` to the try's follow), still the block's."""
        around = list(self._chain(b))
        ended = 0  # how many of the innermost handlers around a clause end has left
        # (``past_exits``: the exit copy of a with around, on a return's or break's path
        # out of it, and the straight code after it, are outside that with's range)
        exiting = set()
        for c, cp in self._copies.items() if past_exits else ():
            if cp.kind == "with" and cp.owner in around and c in code:
                q = c - 1 if self.ins[c - 1].op == "SWAP" else c  # (a return's value kept)
                while q < self.n and (q < c + cp.length or self.ins[q - 1].op not in TERMINAL):
                    exiting.add(q)
                    if self.ins[q].target is not None:
                        break
                    q += 1
        for q in sorted(code):
            if self.ins[q].op == "JUMP" or q in exiting:
                continue
            missing = [H for H in around if not self._in(q, H)]
            if not missing:
                continue
            if len(missing) <= ended and missing == around[: len(missing)]:
                continue
            if self.ins[q].op == "POP_EXCEPT" and self._ends_clause_of(around, missing):
                ended = len(missing)
                continue
            return False
        return True

    def _ends_clause_of(self, around: list[int], missing: list[int]) -> bool:
        """Are ``missing``, the handlers a ``POP_EXCEPT`` is not under, the innermost of
        ``around`` and an except clause's clean-ups (its name's, then its own)?"""
        kinds = [self._handlers[H].kind for H in missing]
        return missing == around[: len(missing)] and kinds in (["cleanup"], ["name_cleanup", "cleanup"])

    def _emit_relocated_rest(self, b: int, rest: tuple[int, int], stack: list, stop: int, exits: frozenset) -> None:
        """Read the rest of the enclosing block laid out at ``rest`` after the statement."""
        a, R = rest
        # Its jumps to where the enclosing block goes on lead back, to code before it: for
        # the walk they go to its end, as a block's jumps to its follow do.  (The jumps
        # round or out of a loop stay: they are continues and breaks.)
        ends = (exits | {stop}) - self._loop_targets()
        moved = {q: self.ins[q].target for q in range(a, R) if self.ins[q].target in ends}
        for q in moved:
            self.ins[q].target = R
        try:
            stmts, st = self.walk(a, R, list(stack), exits | {stop, R})
        finally:
            for q, t in moved.items():
                self.ins[q].target = t
        if len(st) != len(stack):
            what, kind = ("with", Refusal.WITH) if self.ins[b].op == "BEFORE_WITH" else ("try", Refusal.TRY)
            raise self.fail(f"{what} continues past its enclosing block", self.ins[b], kind=kind)
        # (no other walk reads it again: it lies past the code of the blocks around)
        W = self.home[a]
        for q in range(a, R):
            if self.home[q] == W:
                self.reachable[q] = False
        # (where it goes on, when that is only a jump round or out of a loop it reached
        # first, is the enclosing block's follow laid out as W's code: nothing walks it)
        for t in set(moved.values()):
            if self.home[t] == W and self.ins[t].op == "JUMP" and self.ins[t].target in self._loop_targets():
                self.reachable[t] = False
        for s in stmts:
            self.emit(s)

    def _walk_with_body(
        self, b: int, k: int, W: int, C: int, Lb: int, claim_to: int, stack: list,
        follow: int | None, body_end: int, stop: int, exits: frozenset,
        raising_tail: tuple | None, leaves: str | None,
    ) -> tuple[list, str, list]:
        """Claim the handler code and read the body [k, body_end): (body, the flag the body
        sets at its end or "", what a suppressed exception runs before its raise)."""
        ins = self.ins
        raised: list[ast.stmt] = []
        flag = ""
        if raising_tail is not None:
            # (named once per statement: a walk may be tried again)
            flag = self._with_flags.setdefault(b, f"__pellucid_with_done{len(self._with_flags)}")
            if leaves is None:
                raised, left = self.walk(raising_tail[0], claim_to, stack[:-1], frozenset())
                if left != stack[:-1] or not raised or not isinstance(raised[-1], ast.Raise):
                    raise self.fail("with handler ends in unrecognized code", ins[raising_tail[0]], kind=Refusal.WITH)
            self._raising_withs.append((raising_tail[0], flag))
        for q in range(W, W + 4):
            self.reachable[q] = False
        self._claim_block(Lb, claim_to)
        self._claim_block(C, C + 3)
        inherited = inherited_exits(follow, stop, exits)
        fo = self._follow_exit(follow, k, exits)
        self._walked_withs.append(Lb + 4)
        try:
            body, st = self.walk(k, body_end, list(stack), fo | {body_end} | inherited)
        finally:
            self._walked_withs.pop()
            if raising_tail is not None:
                self._raising_withs.pop()
        if len(st) == len(stack) and st[-1] is stack[-1]:
            pass  # no path leaves the body normally
        elif len(st) != len(stack) - 1:
            raise self.fail("with body does not end with its exit", ins[b], kind=Refusal.WITH)
        stack.pop()
        return body, flag, raised

    def _emit_with(
        self, b: int, k: int, item: ast.withitem, body: list, flag: str, raised: list,
        raising_tail: tuple | None, leaves: str | None, follow: int | None, exits: frozenset,
    ) -> None:
        ins = self.ins
        # async with: generators.fold_suspensions leaves it in this shape, marked
        kind = ast.AsyncWith if ins[b].extra.get("async") else ast.With
        if raising_tail is not None:
            self.emit(ast.Assign(targets=[name(flag, ast.Store())], value=const(False), lineno=0))
            done = ast.Assign(targets=[name(flag, ast.Store())], value=const(True), lineno=0)
            body = self._guard_rest(body, done, flag, ins[b])
        node = with_node(kind, item, body)
        self.emit(node)
        loop = self.loops[-1] if self.loops else None
        if (
            follow is not None
            and follow < k
            and follow not in exits
            and loop is not None
            and follow in loop.continue_targets
            and raising_tail is None
            and _ends_in_jump(body)
        ):
            # a suppressed exception goes round the loop (3.13+ thread the jump there), the
            # body never ends normally, and the block around the statement does not end at
            # the loop's head: say it
            self.emit(ast.Continue())
        if leaves is not None:
            node.leaves = (leaves, flag)  # (see _guard_rest)
        elif raising_tail is not None:
            # (a constant alone, the handler's leftover, is no statement: compile drops it)
            raised = [st for st in raised if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
            test = ast.UnaryOp(op=ast.Not(), operand=name(flag))
            self.emit(ast.If(test=test, body=raised, orelse=[]))

    def _normal_exit_past(
        self, W: int, tail: tuple[int, int], claim_to: int, exit_copies: list[int]
    ) -> int | None:
        """Where the normal exit of a with goes when it does not go where a suppressed
        exception does (``tail``, the handler's code from the suppressed path to
        ``claim_to``): None when it does.

        The compiler lets a suppressed exception go on where the normal exit goes, never
        elsewhere: the exit copy jumps to the code after the statement, and the suppressed
        path either jumps there too or (a small block, 3.12+) runs its own copy of it.  A
        normal exit that jumps just past the suppressed path's code, or (3.12+) runs a
        copied block of its own that returns or raises, unlike that code, goes elsewhere."""
        ins = self.ins
        jumps = [c + 5 for c in exit_copies if ins[c + 5].op == "JUMP" and ins[c + 5].target == claim_to]
        if jumps:
            # (not where the compiler copied the code after the statement, a raise, into
            # the suppressed path: that code is the same)
            return None if self._same(claim_to, tail[0], tail[1]) else claim_to
        if not TABLE.copies_exits_without_line:
            return None
        # (the statement's own exit: the one right after its body, which its handler covers;
        # a with inside it has its own)
        own = [c for c in exit_copies if c > 0 and self._cover[c - 1] == W]
        if len(own) != 1 or self._straight_tail(own[0] + 5) is None:
            return None
        at = own[0] + 5
        length = self._straight_tail(at)
        if length == tail[1] and self._same(at, tail[0], tail[1]):
            return None  # (the same block: the code after an ordinary statement)
        return at

    def _guard_rest(self, body: list[ast.stmt], done: ast.stmt, flag: str, at: Instr) -> list[ast.stmt]:
        """``body`` of a with that sets its ``flag`` at its end (``done``).  A with inside it
        whose suppressed exception leaves this one (its ``leaves``: this flag, and its own)
        skips the rest of the body: ``if <its flag>: <rest>; <done>``."""
        inner = [q for q, st in enumerate(body) if getattr(st, "leaves", ("",))[0] == flag]
        deeper = sum(1 for st in body for n in ast.walk(st) if getattr(n, "leaves", ("",))[0] == flag)
        if len(inner) > 1 or deeper != len(inner):
            raise self.fail("a with leaving an enclosing with from inside a nested block", at, kind=Refusal.WITH)
        if not inner:
            return [*body, done]
        q = inner[0]
        test = name(body[q].leaves[1])
        return [*body[: q + 1], ast.If(test=test, body=[*body[q + 1 :], done], orelse=[])]

    def _leaves_enclosing_with(self, sup: int, j: int) -> str | None:
        """The flag of the enclosing with whose own suppressed path the suppressed path
        [sup, j] of a with inside it joins: the enclosing with's exit (a copy of it, the only
        other thing there) and a jump into that path, which raises or, the same way, leaves
        the with around it.  None: not that shape."""
        if not self._raising_withs:
            return None
        start, flag = self._raising_withs[-1]
        ins = self.ins
        if not (
            ins[j].op == "JUMP"
            and ins[j].target == start + 1
            and ins[start].op == "LOAD_CONST"
            and ins[start].argval is None
            and ins[j - 1].op == "LOAD_CONST"
            and ins[j - 1].argval is None
            and j - 6 >= sup
            and self._is_exit_copy(j - 6)
        ):
            return None
        # before the exit copy: only a value pushed and popped (the handler's leftover)
        if [ins[q].op for q in range(sup, j - 6)] not in ([], ["LOAD_CONST", "POP_TOP"]):
            return None
        return flag

    def _with_target(self, k: int, stack: list) -> tuple[int, ast.expr | None]:
        """Read the store(s) of ``__enter__()``'s result; return (body start, target)."""
        ins = self.ins
        if ins[k].op == "POP_TOP":
            return k + 1, None
        sentinel = ast.Name(id="__pellucid_with_enter__", ctx=ast.Load())
        st = list(stack) + [sentinel]
        saved, self.block = self.block, []
        try:
            depth = len(stack)
            while True:
                cur = ins[k]
                if cur.target is not None or cur.op in TERMINAL:
                    raise self.fail("with target is not a store", cur, kind=Refusal.WITH)
                self.apply(cur, st)
                k += 1
                if len(st) == depth and self.block:
                    break
            stmts = self.block
        finally:
            self.block = saved
        if len(stmts) != 1 or not isinstance(stmts[0], ast.Assign) or stmts[0].value is not sentinel:
            raise self.fail("with target is not a plain store", ins[k - 1], kind=Refusal.WITH)
        if len(stmts[0].targets) != 1:
            raise self.fail("with target with several names", ins[k - 1], kind=Refusal.WITH)
        stack[:] = st
        return k, stmts[0].targets[0]
