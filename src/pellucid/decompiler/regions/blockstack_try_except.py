"""3.9/3.10 try/except/else: the clauses are read from the handler (``COPY 1``, the type,
``JUMP_IF_NOT_EXC_MATCH``), the body ends at its POP_BLOCK, and the
jumps ending the clauses say where the statement goes on.  3.9 keeps dead code after a
clause's return within its block; 3.10 copies small exit blocks into the clauses: both are
recognised here.
"""

from __future__ import annotations

import ast

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TABLE
from pellucid.decompiler.regions.exc_markers import (
    COPIES_EXITS,
    STORE_OPS,
    CaughtException,
    Copy,
    ExcInfo,
    _else_of_exiting_if,
)


class BlockTryExceptOps:
    """Walker mixin: try/except/else from the block stack (3.9/3.10)."""

    def _try_except_blocks(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        ins = self.ins
        home = self.home[s]
        base = list(stack)
        hstack = base + [ExcInfo(), ExcInfo(), ExcInfo(), CaughtException(), CaughtException(), CaughtException()]
        hend = self._handler_end(H)
        clauses = self._clauses39(H, hend, hstack)
        # how each clause ends: JUMP follow, return, or (3.10) a copy of the follow
        loop_targets = self._loop_targets()
        follows, tails, clause_end = self._clause_ends39(clauses, s, H, stop, loop_targets)
        if len(follows) > 1:
            raise self.fail("except clauses continue at different places", ins[H], kind=Refusal.TRY)
        follow = next(iter(follows)) if follows else None
        if follow is not None and follow < hend and follow != stop and follow != clause_end:
            raise self.fail("except clause continues inside the handler", ins[H], kind=Refusal.TRY)
        P, X, body_tail, body_end, else_break = self._body_exit39(s, H, home, hend, clause_end, loop_targets)
        # 3.10 copies a small follow block (a return) into every path reaching it;
        # 3.9 does not, and clauses that end alike in different code are returns
        tail_code = None  # (start, length) of the code after the statement
        if tails and COPIES_EXITS:
            j0, L0 = tails[0]
            if all(L == L0 and self._same(j, j0, L0) for j, L in tails[1:]):
                tail_code = (j0, L0)
        if tail_code is None or follow is not None:
            tails = []  # the clauses' own returns
            tail_code = None
        else_to_handler = False
        if body_tail is not None and follow is not None:
            if self._const_return(self._past_enclosing_exits39(body_tail)):
                body_tail, body_end = None, H  # the body's own `return <constant>`
            else:
                # code after the POP_BLOCK is not protected: an else that returns
                X, else_to_handler, body_tail = body_tail, True, None
        elif body_tail is not None and tail_code is not None and not (
            tail_code[1] == H - body_tail and self._same(body_tail, tail_code[0], tail_code[1])
        ):
            # a return inside the body pops its block right before RETURN_VALUE:
            # code after the POP_BLOCK is the follow, and the clauses' differing
            # returns are their own
            tails, tail_code = [], None
        if (
            P is not None and X is None and body_tail is None and not else_break
            and P + 1 < H and self._starts_statement(P + 1) and not self._const_return(P + 1)
        ):
            # likewise any other code between the body's POP_BLOCK and the handler
            # (it leaves by a return, raise or jump): never read it as the body's
            X, else_to_handler, body_end = P + 1, True, P
        else_end = None
        explicit_tail = None
        if body_tail is not None:
            end_pt = body_tail
            cont = body_tail
        elif X is not None and else_to_handler:
            else_end = H
            if tail_code is not None:
                explicit_tail = tail_code
            end_pt = follow
            cont = follow if follow is not None else hend
        elif X is not None:
            X, else_end, tails, tail_code = self._else_end39(
                s, X, follow, tails, tail_code, clauses, stop, exits, loop_targets
            )
            end_pt = else_end
            cont = else_end
        else:
            if tail_code is not None:
                explicit_tail = tail_code
            end_pt = follow
            cont = follow if follow is not None else hend
        inherited = self._block_inherit(end_pt, stop, exits)
        fo = frozenset({end_pt}) if end_pt is not None else frozenset()
        if follow is not None and follow > stop and follow not in exits and self._leaves_to(follow, exits):
            fo |= {follow}  # the clauses jump to the enclosing block's last jump
        # the tails copied into the clauses are the follow: skip them there
        explicit = []
        if explicit_tail is not None:
            explicit, st = self.walk(explicit_tail[0], explicit_tail[0] + explicit_tail[1], list(stack), exits)
            # code follows the statement: a clause's jump back to a loop's head is a `continue`
            # the source wrote, not the end of the loop body
            inherited = frozenset()
        for j, L in tails:
            self._copies[j] = Copy(L, "skip")
        # a jump to where a walk stops is falling off its end; naming that place an
        # exit would hide a loop's else ending there.  With an else, falling off the body
        # runs the else: a jump back to the loop's head in the body is a written `continue`
        has_else = X is not None and else_end is not None and else_end > X
        body, st = self.walk(s + 1, body_end, list(stack), frozenset() if has_else else inherited)
        if len(st) != len(stack) and body_end != H:
            raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
        orelse = [ast.Break()] if else_break else []
        if has_else:
            orelse, st = self.walk(X, else_end, list(stack), inherited)
            if len(st) != len(stack):
                raise self.fail("try else changes the stack", ins[X], kind=Refusal.TRY)
        handlers = self._walk_clauses39(clauses, base, follow, stop, clause_end, fo, inherited)
        if clause_end is None:
            self._claim_handler(H)
        else:
            for k in self._handler_code(H):
                if k < clause_end:  # (from there on: the enclosing clause's end, walked next)
                    self.reachable[k] = False
        self.emit(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[]))
        for st_ in explicit:
            self.emit(st_)
        return self._cont(cont, stop, exits, ins[s])

    def _clauses39(self, H: int, hend: int, hstack: list) -> list:
        """The clauses of handler H, up to ``hend``: [type, name, body start, body end] each."""
        ins = self.ins
        clauses = []  # [type, name, body start, body end]
        p = H
        while True:
            if self._pops3(p):
                clauses.append([None, None, p + 3, hend])
                break
            if not (ins[p].op == "COPY" and ins[p].argval == 1):
                raise self.fail("unrecognized except clause", ins[p], kind=Refusal.TRY)
            q = p + 1
            while q < hend and ins[q].op != "JUMP_IF_NOT_EXC_MATCH":
                if ins[q].target is not None:
                    raise self.fail("jump inside an except type", ins[q], kind=Refusal.TRY)
                q += 1
            if q >= hend:
                raise self.fail("except clause without a type test", ins[p], kind=Refusal.TRY)
            stmts, st = self.walk(p + 1, q, hstack + [CaughtException()], frozenset())
            if stmts or len(st) != len(hstack) + 2:
                raise self.fail("except type is not an expression", ins[q], kind=Refusal.TRY)
            typ = self.as_expr(st[-1], ins[q])
            nxt = ins[q].target
            a = q + 1
            if ins[a].op == "POP_TOP" and ins[a + 1].op in STORE_OPS and ins[a + 2].op == "POP_TOP":
                nm = ins[a + 1].argval
                sf = a + 3
                T = ins[sf].target if ins[sf].op == "SETUP_FINALLY" else None
                if T is None or not self._name_cleanup_at(T, nm) or ins[T + 3].op != "RERAISE":
                    raise self.fail("named except clause without its clean-up", ins[a], kind=Refusal.TRY)
                self._copies[sf] = Copy(1, "skip")
                clauses.append([typ, nm, sf + 1, T])
            elif self._pops3(a):
                clauses.append([typ, None, a + 3, nxt])
            else:
                raise self.fail("unrecognized except clause", ins[a], kind=Refusal.TRY)
            if nxt is None or nxt <= q or nxt >= hend:
                raise self.fail("except clause test jumps outside the handler", ins[q], kind=Refusal.TRY)
            if ins[nxt].op == "RERAISE":
                break
            p = nxt
        return clauses

    def _clause_ends39(
        self, clauses: list, s: int, H: int, stop: int, loop_targets: frozenset
    ) -> tuple[set, list, int | None]:
        """How the clauses of the try at ``s`` end: (the places they continue at, the
        (start, length) of the returns ending them, the enclosing clause's end where a clause
        falls in (3.10) or None)."""
        ins = self.ins
        follows: set = set()
        tails: list = []
        mine = ("E", s)
        clause_end = None  # the enclosing clause's end, where a clause falls in (3.10)
        if COPIES_EXITS:
            for _typ, nm, b0, b1 in clauses:
                self._merge_clause_ends310(b0, b1, nm, mine)
        merged = self.__dict__.get("_b_merged_ends", set())
        for _typ, nm, b0, b1 in clauses:
            for k in range(b0, b1):
                if ins[k].op != "POP_EXCEPT" or not self._b_stack[k] or self._b_stack[k][-1] != mine:
                    continue
                if k in merged:
                    continue
                j = k + 1
                if nm is not None and self._name_cleanup_at(j, nm):
                    self._copies[j] = Copy(3, "skip")
                    j += 3
                if self._ends_enclosing_clause39(j, mine, b0):
                    follows.add(j)  # falls into the end of the except clause it is in (3.10)
                    clause_end = j
                    continue
                if self._leaves_enclosing39(j, loop_targets):
                    continue  # a break/continue/return through enclosing finally/with exits
                op = ins[j].op
                if op == "JUMP":
                    if ins[j].target not in loop_targets:
                        follows.add(ins[j].target)
                elif op == "POP_TOP" and ins[j + 1].op == "JUMP" and ins[j + 1].target in loop_targets:
                    pass  # break out of a for loop: its iterator is popped first
                elif op == "POP_TOP" and self._copied_break310(j + 1):
                    pass  # the same, to a return 3.10 copied in place of the jump
                elif self._return_from_loops(j):
                    pass  # a return from inside for loops pops their iterators
                elif j == stop and op == "RERAISE":
                    follows.add(j)  # falls into the end of the finally body it is in (3.10)
                elif j == stop and op == "POP_BLOCK" and j in self.__dict__.get("_b_nested_exits", ()):
                    follows.add(j)  # falls into the normal exit of the with or try/finally it is in
                elif not self._owned(j, H) and ins[j].op != "RETURN_VALUE" and (
                    self._straight_tail(j) is None or self._jumped_to_from_outside(j, b0)
                ):
                    # falls into the code after the handler (3.10: a loop's test); straight
                    # code ending in a return that another path jumps to (the body's exit) is
                    # that code itself, not 3.10's copy of it in the clause
                    follows.add(j)
                elif op != "RETURN_VALUE":
                    L = self._straight_tail(j)
                    if L is None:
                        raise self.fail("except clause ends in unrecognized code", ins[j], kind=Refusal.TRY)
                    if any(self._b_stack[q] is not None for q in range(j + L, b1)):
                        continue  # more of the clause follows: the clause's own return
                    tails.append((j, L))
        return follows, tails, clause_end

    def _body_exit39(
        self, s: int, H: int, home: int, hend: int, clause_end: int | None, loop_targets: frozenset
    ) -> tuple:
        """The body's normal exit: ``POP_BLOCK; JUMP else/follow``, or a copy of the follow.
        Returns (its last POP_BLOCK or None, where an else starts or None, the start of a
        copied follow after the POP_BLOCK or None, the body's end, whether the else only
        breaks out of the loop)."""
        ins = self.ins
        pops = [k for k, t in self._b_pops.items() if t == s and k < H and self.home[k] == home]
        P = max(pops) if pops else None
        X = None
        body_tail = None
        body_end = H
        else_break = False
        if (
            P is not None and P + 1 < H and ins[P + 1].op == "JUMP" and ins[P + 1].target > H
            and self._dead_between(P + 2, H)
        ):  # (past the jump, an exit copy an enclosing try turned into this jump)
            if ins[P + 1].target not in loop_targets:
                X = ins[P + 1].target
                body_end = P
            elif self._dead_else_break39(hend, ins[P + 1].target):
                else_break = True
                body_end = P
        elif (
            clause_end is not None and P is not None and P + 1 < H and self._dead_between(P + 1, H - 1)
            and ins[H - 1].op == "JUMP" and ins[H - 1].target == clause_end
        ):
            # the body's normal exit goes to the end of the enclosing clause too (3.10 copied
            # that end here; the copies were merged back into this jump)
            X = clause_end
            body_end = P
        elif COPIES_EXITS and P is not None and P + 1 < H and ins[P + 1].op != "RETURN_VALUE":
            L = self._straight_tail(P + 1, H)
            if L is not None and P + 1 + L == H:
                body_tail = P + 1
                body_end = P
                for p in pops:
                    if p != P and self._same(p, P, 1 + L):
                        # 3.10 copied the whole normal exit into this path: jump there
                        if self._only_reached_from(p, 0, self.n):
                            for q in ins:
                                if q.target == p:
                                    q.target = P  # a test's exit
                            self._claim_block(p, p + 1 + L)
                            continue
                        self._claim_block(p + 1, p + 1 + L)
                        ins[p].op, ins[p].target = "JUMP", P
                        self.__dict__.setdefault("_b_exit_jumps", set()).add(p)
                        for q in ins:
                            if q.target == p and q.op == "JUMP" and q.index != p:
                                q.target = P  # an if-arm's jump over the else
        return P, X, body_tail, body_end, else_break

    def _else_end39(
        self, s: int, X: int, follow: int | None, tails: list, tail_code: tuple | None,
        clauses: list, stop: int, exits: frozenset, loop_targets: frozenset,
    ) -> tuple:
        """Where the else starting at X ends.  Returns (X, else end, tails, tail_code): X is
        ``stop`` when the body leaves the block; the clauses' tails are dropped when they
        turn out to be the clauses' own returns."""
        ins = self.ins
        if X > stop:
            if not self._leaves_to(X, exits):
                raise self.fail("try continues past its enclosing block", ins[s], kind=Refusal.TRY)
            if follow is not None and not self._leaves_to(follow, exits):
                raise self.fail("try continues past its enclosing block", ins[s], kind=Refusal.TRY)
            if tail_code is not None and not self._same(X, *tail_code):
                # the body leaves the block (a loop's jump back), not through a copy of
                # the clauses' common tail: those are the clauses' own returns
                tails, tail_code = [], None
            X = stop
            else_end = stop
        elif follow is not None:
            if follow < X:
                raise self.fail("except follow before the else", ins[s], kind=Refusal.TRY)
            else_end = min(follow, stop) if follow <= stop or follow in exits else None
            if else_end is None:
                raise self.fail("try continues past its enclosing block", ins[s], kind=Refusal.TRY)
        elif tail_code is not None:
            j0, L0 = tail_code
            else_end = None
            for k in range(X, stop):
                if not self._same(k, j0, L0):
                    continue
                if all(
                    ins[q].target is None or ins[q].target <= k or ins[q].target in loop_targets
                    or ins[q].target >= stop
                    for q in range(X, k)
                ):
                    else_end = k
                    break
            if else_end is None:
                # no copy of the clauses' common tail after the else: they are
                # the clauses' own returns, and the try's follow is X
                tails, tail_code, else_end = [], None, X
        elif self._clauses_end_loop_body39(clauses, exits):
            else_end = stop  # the try ends the loop body: the else runs to its end
        elif X < (t := self._dead_clause_follow39(clauses)) <= stop:
            else_end = t  # every clause leaves; their dead ends say where the try ends
        else:
            else_end = X
        return X, else_end, tails, tail_code

    def _walk_clauses39(
        self, clauses: list, base: list, follow: int | None, stop: int, clause_end: int | None,
        fo: frozenset, inherited: frozenset,
    ) -> list[ast.ExceptHandler]:
        """Read the clause bodies into except handlers."""
        ins = self.ins
        handlers = []
        for typ, nm, b0, b1 in clauses:
            cst = base + [ExcInfo(), ExcInfo(), ExcInfo()]
            if follow is not None and follow in (stop, clause_end) and b0 < follow < b1:
                b1 = follow  # the clause falls into the end of the finally body or clause it is in
            hb, st = self.walk(b0, b1, cst, fo | inherited)
            if len(st) not in (len(base), len(cst)):
                raise self.fail("except clause changes the stack", ins[b0], kind=Refusal.TRY)
            jump = self._explicit_clause_jump39(b0, b1)
            if jump is not None and not (hb and isinstance(hb[-1], type(jump))):
                hb.append(jump)
            if self._clause_ends_in_block39(b0, b1):
                hb = _else_of_exiting_if(hb)
            handlers.append(ast.ExceptHandler(type=typ, name=nm, body=hb or [ast.Pass()]))
        return handlers

    def _const_return(self, k: int) -> bool:
        """``return <constant>`` inside a try pops the block before loading the
        constant (it cannot raise, so the place makes no difference)."""
        return self.ins[k].op == "LOAD_CONST" and k + 1 < self.n and self.ins[k + 1].op == "RETURN_VALUE"

    def _past_enclosing_exits39(self, k: int) -> int:
        """Where code at k goes on past the POP_BLOCKs of enclosing try/with statements and
        their exit copies: a `return <constant>` leaves them all before loading the constant
        (3.10 copies the finally bodies it runs on the way)."""
        while k < self.n and self.ins[k].op == "POP_BLOCK" and k in self._b_pops:
            c = self._copies.get(k + 1)
            k += 1 + (c.length if c is not None and c.kind in ("finally", "with") else 0)
        return k

    def _starts_statement(self, k: int) -> bool:
        """Does code at k start a statement, not unwind one (a return leaving its
        blocks, a with exit, a finally copy)?"""
        op = self.ins[k].op
        return k not in self._copies and op not in (
            "RETURN_VALUE", "POP_BLOCK", "SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR",
            "POP_TOP", "POP_EXCEPT", "JUMP",
        )

    def _ends_enclosing_clause39(self, j: int, mine: tuple, b0: int) -> bool:
        """Does a clause of the statement ``mine`` that ends at j fall into the code after the
        statement, which is the end of the except clause the statement is in: that clause's
        POP_EXCEPT, then a copy of the code after its own statement (read there), or what the
        body's normal exit jumps to as well?  3.10 lays it where the clause ends instead of
        a jump there (3.9 jumps)."""
        stack = self._b_stack[j]
        if self.ins[j].op != "POP_EXCEPT" or not stack or stack[-1] == mine or stack[-1][0] != "E":
            return False
        copy = self._copies.get(j + 1)
        return (copy is not None and copy.kind == "skip") or self._jumped_to_from_outside(j, b0)

    def _leaves_enclosing39(self, j: int, loop_targets: set) -> bool:
        """Is j a break/continue/return leaving enclosing try/with statements:
        their POP_BLOCKs and registered exit copies, then the jump or return?"""
        ins = self.ins
        k = j
        while True:
            if ins[k].op == "ROT_FOUR" and k + 1 < self.n and ins[k + 1].op == "POP_EXCEPT":
                k += 1  # (a return's value kept above the enclosing handler's exception)
            if not (ins[k].op == "POP_BLOCK" and k in self._b_pops) and not (
                ins[k].op == "POP_EXCEPT" and self._b_stack[k] and self._b_stack[k][-1][0] == "E"
            ):
                if k > j and ins[k - 1].op == "ROT_FOUR":
                    k -= 1
                break
            # enclosing try/with blocks (and their exit copies), enclosing handlers
            c = self._copies.get(k + 1) if ins[k].op == "POP_BLOCK" else None
            k += 1 + (c.length if c is not None else 0)
            if c is not None and c.kind == "finally" and c.never_ends and self._closed_copy39(k - c.length, k):
                return True  # through a finally body that always leaves (its copy returns)
            if k >= self.n:
                return False  # (the copies stepped over end the code: no exit read here)
        if k == j:
            return False
        if ins[k].op == "RERAISE" or ins[k].extra.get("reraise_copy"):
            return True  # the end of an enclosing finally body (3.10 copies its re-raise)
        if ins[k].op == "JUMP":
            return ins[k].target in loop_targets
        if ins[k].op == "POP_TOP" and ins[k + 1].op == "JUMP":
            return ins[k + 1].target in loop_targets
        return self._pure_exit(k)

    def _dead_else_break39(self, hend: int, t: int) -> bool:
        """3.9 threads the jump to an else that only breaks to the loop's exit,
        and keeps that else (a dead jump to the same exit) after the handler."""
        if COPIES_EXITS or not self.loops or t not in self.loops[-1].break_targets:
            return False
        return hend < self.n and self._b_stack[hend] is None and self.ins[hend].op == "JUMP" and self.ins[hend].target == t

    def _return_from_loops(self, j: int) -> bool:
        """``SWAP 2; POP_TOP`` per enclosing for loop, then RETURN_VALUE; or, returning a
        constant, ``POP_TOP`` per loop, then the constant and RETURN_VALUE."""
        ins = self.ins
        k = j
        while k + 1 < self.n and ins[k].op == "SWAP" and ins[k].argval == 2 and ins[k + 1].op == "POP_TOP":
            k += 2
        if k > j:
            return ins[k].op == "RETURN_VALUE"
        while k < self.n and ins[k].op == "POP_TOP":
            k += 1
        return k > j and k + 1 < self.n and ins[k].op == "LOAD_CONST" and ins[k + 1].op == "RETURN_VALUE"

    def _copied_break310(self, j: int) -> bool:
        """3.10 copies a loop's small exit block (a return) into a break: turn the
        copy at j back into the jump to the loop's exit."""
        if not COPIES_EXITS or not self.loops:
            return False
        L = self._straight_tail(j)
        if L is None:
            return False
        for t in sorted(self.loops[-1].break_targets):
            if t != j and self._same(j, t, L):
                self._claim_block(j + 1, j + L)
                self.ins[j].op, self.ins[j].target = "JUMP", t
                return True
        return False

    def _merge_clause_ends310(self, b0: int, b1: int, nm: str | None, mine: tuple) -> None:
        """3.10 copies a clause's end (POP_EXCEPT, the name clean-up, then a jump or
        a small return) into each branch reaching it: earlier copies become jumps
        to the last one (same code, same block stack), so the branches read as if/else."""
        ins = self.ins
        ends = []
        for k in range(b0, b1):
            if ins[k].op != "POP_EXCEPT" or not self._b_stack[k] or self._b_stack[k][-1] != mine:
                continue
            j = k + 1
            if nm is not None and self._name_cleanup_at(j, nm):
                j += 3
            if ins[j].op == "JUMP":
                # a jump to the loop is a continue (or the loop's own back edge)
                L = None if ins[j].target in self._loop_targets() else 1
            else:
                L = self._straight_tail(j)
            if L is not None:
                ends.append((k, j + L))
        if len(ends) < 2:
            return
        lk, le = ends[-1]
        if any(self._b_stack[q] is not None for q in range(le, b1)):
            return  # the last one does not end the clause: these are the clause's own returns
        for k, e in ends[:-1]:
            if e - k == le - lk and self._same(k, lk, e - k) and e <= lk:
                a, la = k, lk
                if ins[k - 1].op == "POP_BLOCK" and ins[lk - 1].op == "POP_BLOCK":
                    a, la = k - 1, lk - 1  # a named clause's clean-up block pops first
                self.__dict__.setdefault("_b_merged_ends", set()).add(k)
                if self._only_reached_from(a, 0, self.n):
                    # reached by jumps only: they go to the last copy
                    for q in ins:
                        if q.target == a:
                            q.target = la
                    self._claim_block(a, e)
                    continue
                # the copy's last instruction becomes the jump (an if's then-arm
                # ends with its jump over the else)
                self._claim_block(k, e - 1)
                ins[e - 1].op, ins[e - 1].target, ins[e - 1].arg = "JUMP", lk, None

    def _dead_clause_follow39(self, clauses: list) -> int:
        """3.9: where the dead ``POP_EXCEPT; JUMP`` ending every clause (kept after
        a raise or break) goes -- the try statement's follow -- or -1."""
        if COPIES_EXITS:
            return -1
        targets = set()
        for _typ, nm, b0, b1 in clauses:
            ends = self._clause_end_jumps39(nm, b0, b1)
            if not ends or self._b_stack[ends[-1][0]] is not None:
                return -1
            targets.add(ends[-1][1])
        return targets.pop() if len(targets) == 1 else -1

    def _clause_end_jumps39(self, nm: str | None, b0: int, b1: int) -> list[tuple[int, int]]:
        """3.9: the ``POP_EXCEPT; [name clean-up;] JUMP`` ends of a clause, live or in the
        dead code after it: (index of the POP_EXCEPT, jump target) for each."""
        ins = self.ins
        e = self._dead_end39(b1)
        out = []
        for q in range(b0, e - 1):
            if ins[q].op != "POP_EXCEPT":
                continue
            j = q + 1
            if nm is not None and self._name_cleanup_at(j, nm):
                j += 3
            if j < e and ins[j].op == "JUMP":
                out.append((q, ins[j].target))
        return out

    def _dead_end39(self, b: int) -> int:
        """The end of the dead code (never reached, kept by 3.9) starting at b."""
        while b < self.n and self._b_stack[b] is None:
            b += 1
        return b

    def _clauses_end_loop_body39(self, clauses: list, exits: frozenset) -> bool:
        """3.9: does every clause's own end (the compiler's ``POP_EXCEPT; JUMP``,
        kept even when dead) jump to the loop's next iteration, the enclosing
        walk's exit?  Then the try is the last statement of the loop body."""
        if COPIES_EXITS or not self.loops or not exits:
            return False
        loop = self.loops[-1]
        for _typ, nm, b0, b1 in clauses:
            ends = self._clause_end_jumps39(nm, b0, b1)
            if not ends or ends[-1][1] not in loop.continue_targets or ends[-1][1] not in exits:
                return False
        return True

    def close_body(self, stmts: list) -> list:
        """3.9 keeps the implicit ``return None`` (dead) after a final return only
        when a compound statement encloses that return.  A function read as
        ``try: ... except: <exits>`` then code ending in a return had that code
        in the try's else."""
        if not TABLE.keeps_dead_jumps or not getattr(self, "_b_handler", None) or self.n < 2:
            return stmts
        ins, bs = self.ins, self._b_stack
        last = ins[self.n - 2]
        if not (
            last.op == "LOAD_CONST" and last.argval is None and ins[self.n - 1].op == "RETURN_VALUE"
            and bs[self.n - 2] is None and bs[self.n - 1] is None
            and stmts and isinstance(stmts[-1], ast.Return)
        ):
            return stmts
        for t in range(len(stmts) - 2, -1, -1):
            st = stmts[t]
            if isinstance(st, ast.Try) and not st.finalbody and not st.orelse and st.handlers:
                if all(h.body and isinstance(h.body[-1], (ast.Return, ast.Raise)) for h in st.handlers):
                    st.orelse = stmts[t + 1 :]
                    return stmts[: t + 1]
                return stmts
        return stmts

    def _clause_ends_in_block39(self, b0: int, b1: int) -> bool:
        """3.9 drops dead code after a return only within its basic block: a clause
        ending in a return but keeping its dead ``POP_EXCEPT; JUMP`` ends with an
        if/else (the dead code is the if's end label)."""
        if COPIES_EXITS:
            return False
        ins, bs = self.ins, self._b_stack
        live = [k for k in range(b0, b1) if bs[k] is not None]
        if not live or ins[live[-1]].op != "RETURN_VALUE":
            return False
        k = live[-1]
        return any(
            bs[q] is None and ins[q].op == "POP_EXCEPT" and ins[q + 1].op == "JUMP"
            for q in range(k + 1, self._dead_end39(b1) - 1)
        )

    def _explicit_clause_jump39(self, b0: int, b1: int) -> ast.stmt | None:
        """3.9 keeps the dead ``POP_EXCEPT; JUMP`` ending a clause whose body
        already left by continue/break: that live jump was written in the source."""
        if COPIES_EXITS or not self.loops:
            return None
        ins, bs = self.ins, self._b_stack
        live = [k for k in range(b0, b1) if bs[k] is not None]
        if not live:
            return None
        k = live[-1]
        if ins[k].op != "JUMP" or k == 0 or ins[k - 1].op != "POP_EXCEPT":
            return None
        if not any(
            bs[q] is None and ins[q].op == "POP_EXCEPT" and ins[q + 1].op == "JUMP"
            for q in range(k + 1, self._dead_end39(b1) - 1)
        ):
            return None
        loop, t = self.loops[-1], ins[k].target
        if t in loop.continue_targets:
            return ast.Continue()
        if t in loop.break_targets:
            return ast.Break()
        return None
