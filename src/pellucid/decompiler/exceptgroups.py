"""try/except* (PEP 654, 3.11+): a mixin of the exception structure.

The handler of a ``try`` with ``except*`` clauses keeps the raised group, a
list of what the clauses raise and the unmatched rest on the stack::

    PUSH_EXC_INFO; COPY 1; BUILD_LIST; SWAP 2      (3.11)
    PUSH_EXC_INFO; BUILD_LIST; COPY 2              (3.12+)
    per clause:  <type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE skip
                 STORE name | POP_TOP; <body>; [name clean-up]; -> next
                 X: [name clean-up]; LIST_APPEND 3; POP_TOP; -> next
           skip: POP_TOP; next: ...
    LIST_APPEND 1; PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE R
    POP_TOP; POP_EXCEPT; JUMP follow
    R: SWAP 2; POP_EXCEPT; RERAISE 0

X is a handler of its own (kind ``star_clause``) protecting the body.  3.13
copies the final ``LIST_APPEND 1`` into the jumps reaching it, so "reaches
the next clause" follows jumps and that copy.  A clause body can neither
return nor break/continue (a SyntaxError), so it ends by falling through or
raising.  Any other shape is refused.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import TABLE
from pellucid.decompiler.regions.exc_markers import _strip_final_returns, inherited_exits

STORE_OPS = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
DELETE_OPS = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})


class GroupSlot(V.Marker):
    """A stack slot of an except* handler (group, result list, rest)."""

    def __repr__(self) -> str:
        return "<except* slot>"


def is_star_clause_handler(ins: list, t: int) -> bool:
    """The handler protecting an except* clause body (see module docstring)."""
    ops = [i.op for i in ins[t : t + 5]]
    if ops[:1] == ["LIST_APPEND"] and ins[t].arg == 3 and ops[1:2] == ["POP_TOP"]:
        return True
    return (
        len(ops) == 5
        and ops[0] == "LOAD_CONST"
        and ins[t].argval is None
        and ops[1] in STORE_OPS
        and ops[2] in DELETE_OPS
        and ins[t + 1].argval == ins[t + 2].argval
        and ops[3] == "LIST_APPEND"
        and ins[t + 3].arg == 3
        and ops[4] == "POP_TOP"
    )


class ExceptGroupOps:
    def _is_prep_reraise_star(self, k: int) -> bool:
        i = self.ins[k]
        if i.op == "PREP_RERAISE_STAR":
            return True
        return i.op == "CALL_INTRINSIC_2" and i.argval == "INTRINSIC_PREP_RERAISE_STAR"

    def _star_final_at(self, k: int) -> int | None:
        """If k starts the final ``LIST_APPEND 1`` (then PREP_RERAISE_STAR, maybe
        through a jump), the index of PREP_RERAISE_STAR."""
        ins = self.ins
        if k + 1 >= self.n or ins[k].op != "LIST_APPEND" or ins[k].arg != 1:
            return None
        p = k + 1
        if ins[p].op == "JUMP" and ins[p].target is not None:
            p = ins[p].target
        return p if p < self.n and self._is_prep_reraise_star(p) else None

    def _star_reaches(self, k: int, N: int, P: int | None) -> int | None:
        """Does code at k only continue at N (the next clause; with P, N is the
        final LIST_APPEND 1 before P)?  Returns the length of the code at k."""
        ins = self.ins
        if k >= self.n:
            return None
        if ins[k].op == "JUMP" and ins[k].target is not None:
            t = ins[k].target
            for _ in range(3):
                if t == N:
                    return 1
                if P is not None and self._star_final_at(t) == P:
                    return 1
                if ins[t].op != "JUMP" or ins[t].target is None:
                    return None
                t = ins[t].target
            return None
        if P is not None and self._star_final_at(k) == P and ins[k + 1].op == "JUMP":
            return 2
        return None

    def _star_cleanup_at(self, j: int, nm: str) -> bool:
        return j >= 0 and self._name_cleanup_at(j, nm)

    def _star_clauses(self, H: int, C: int, depth: int):
        """Parse the clauses of except* handler H: [(type, name, b0, bend, X, ends)], P."""
        ins = self.ins
        p = H + 1
        ops = [ins[k].op for k in range(p, min(p + 3, self.n))]
        if not TABLE.except_star_list_first and ops == ["COPY", "BUILD_LIST", "SWAP"] and ins[p].arg == 1 and ins[p + 2].arg == 2:
            p += 3
        elif TABLE.except_star_list_first and ops[:2] == ["BUILD_LIST", "COPY"] and ins[p + 1].arg == 2:
            p += 2
        else:
            raise self.fail("unrecognized except* handler start", ins[p], kind=Refusal.TRY)
        clauses = []
        hstack = [GroupSlot()] * (depth + 4)
        while True:
            if self._star_final_at(p) is not None:
                return clauses, self._star_final_at(p), p
            q, typ = self._clause_type(p, C, hstack, "CHECK_EG_MATCH", "except*")
            if (
                ins[q + 1].op != "COPY"
                or ins[q + 1].arg != 1
                or ins[q + 2].op != "POP_JUMP_IF_NONE"
                or ins[q + 2].target is None
                or ins[q + 2].target <= q
            ):
                raise self.fail("except* match without its test", ins[q + 1], kind=Refusal.TRY)
            skip = ins[q + 2].target
            if ins[skip].op != "POP_TOP":
                raise self.fail("except* clause not skipped with POP_TOP", ins[skip], kind=Refusal.TRY)
            N = skip + 1
            P = self._star_final_at(N)
            b = ins[q + 3]
            if b.op in STORE_OPS:
                nm = b.argval
            elif b.op == "POP_TOP":
                nm = None
            else:
                raise self.fail("except* clause without name or pop", b, kind=Refusal.TRY)
            b0 = q + 4
            X = next(
                (
                    k
                    for k in range(b0, skip)
                    if k in self._handlers
                    and self._handlers[k].kind == "star_clause"
                    and self._handlers[k].depth == depth + 4
                    and self._handlers[k].lasti
                ),
                None,
            )
            if X is None:
                # an empty body (pass) protects nothing: its dead handler is no handler
                c = b0
                if nm is not None:
                    if not self._star_cleanup_at(c, nm):
                        raise self.fail("except* clause body without its handler", b, kind=Refusal.TRY)
                    c += 3
                L = self._star_reaches(c, N, P)
                if L is None or any(
                    self.home[k] is not None and self._star_reaches(k, N, P) is None for k in range(c + L, skip)
                ):
                    raise self.fail("except* clause body without its handler", b, kind=Refusal.TRY)
                clauses.append((typ, nm, b0, b0, None, frozenset()))
                p = N
                continue
            if self._cover[X] != C:
                raise self.fail("except* clause body without its handler", b, kind=Refusal.TRY)
            # the handler X: [name clean-up]; LIST_APPEND 3; POP_TOP; continue at N
            x = X
            if nm is not None:
                if not self._star_cleanup_at(x, nm):
                    raise self.fail("except* clause handler without its name clean-up", ins[X], kind=Refusal.TRY)
                x += 3
            if not (ins[x].op == "LIST_APPEND" and ins[x].arg == 3 and ins[x + 1].op == "POP_TOP"):
                raise self.fail("unrecognized except* clause handler", ins[X], kind=Refusal.TRY)
            L = self._star_reaches(x + 2, N, P)
            if L is None or x + 2 + L != skip and not self._star_gap_ok(x + 2 + L, skip, N, P):
                raise self.fail("except* clause handler does not continue at the next clause", ins[x], kind=Refusal.TRY)
            # where the body ends: its exit sequence, or a raise
            bend = None
            for cand in range(max(b0, X - 6), X + 1):
                c = cand
                if nm is not None:
                    if not self._star_cleanup_at(c, nm):
                        continue
                    c += 3
                L = self._star_reaches(c, N, P)
                if L is not None and c + L == X:
                    bend = cand
                    break
            if bend is None:
                last = ins[X - 1]
                if X > b0 and (
                    last.op in ("RAISE_VARARGS", "RERAISE")
                    or last.op == "JUMP" and last.target is not None and b0 <= last.target < X - 1
                ):
                    bend = X  # ends raising, or in a loop without exit
                else:
                    raise self.fail("except* clause body without a recognized end", ins[X - 1], kind=Refusal.TRY)
            ends = set()
            for k in range(b0, bend - 1):
                if P is not None and self._star_final_at(k) == P and ins[k + 1].op == "JUMP":
                    # 3.13: a copy of the final LIST_APPEND 1 ending a branch: the body's end
                    ins[k] = replace(ins[k], op="JUMP", arg=None, argval=bend, target=bend)
                    ins[k + 1] = replace(ins[k + 1], target=bend, argval=bend)
                    self.reachable[k + 1] = False
            for k in range(b0, bend):
                t = ins[k].target
                if t is None or b0 <= t <= bend or self.home[k] != self.home[b0]:
                    continue
                if nm is None and (t == N or self._star_reaches(t, N, P) is not None):
                    ends.add(t)  # a jump threaded to the next clause: the end of the body
                    continue
                raise self.fail("jump out of an except* clause body", ins[k], kind=Refusal.TRY)
            clauses.append((typ, nm, b0, bend, X, frozenset(ends)))
            p = N

    def _star_gap_ok(self, a: int, skip: int, N: int, P: int | None) -> bool:
        """Between a clause handler's end and the skip target: the body's exit jump (3.11/3.12)."""
        L = self._star_reaches(a, N, P)
        return L is not None and a + L == skip

    def do_try_star(self, s: int, H: int, stack: list, stop: int, exits: frozenset) -> int:
        """try/except*: the body, else and follow as for try/except; the clauses parsed above."""
        ins = self.ins
        home = self.home[s]
        base = list(stack)
        C = self._cleanup_of(H)
        clauses, P, F = self._star_clauses(H, C, len(base))
        if not clauses:
            raise self.fail("except* without clauses", ins[H], kind=Refusal.TRY)
        # the end: PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE R; POP_TOP; POP_EXCEPT; JUMP follow
        ok = (
            ins[P + 1].op == "COPY"
            and ins[P + 1].arg == 1
            and ins[P + 2].op == "POP_JUMP_IF_NOT_NONE"
            and ins[P + 3].op == "POP_TOP"
            and ins[P + 4].op == "POP_EXCEPT"
        )
        R = ins[P + 2].target
        if not ok or [i.op for i in ins[R : R + 3]] != ["SWAP", "POP_EXCEPT", "RERAISE"] or ins[R + 2].arg != 0:
            raise self.fail("unrecognized end of an except* handler", ins[P], kind=Refusal.TRY)
        if ins[P + 5].op == "LOAD_CONST" and ins[P + 5].argval is None and ins[P + 6].op == "RETURN_VALUE":
            return self._try_star_at_end(s, H, stack, stop, exits, clauses, (C, R))
        if ins[P + 5].op != "JUMP" or ins[P + 5].target is None:
            raise self.fail("unrecognized end of an except* handler", ins[P + 5], kind=Refusal.TRY)
        clause_follow = ins[P + 5].target
        e0, e = self._body_end_with_tails(H, home, stop)
        follow_cands = [clause_follow]
        normal_exit = None
        for j in (e, H - 1):
            if s <= j < self.n and j >= e and ins[j].op == "JUMP" and self.home[j] == home and ins[j].target > j:
                follow_cands.append(ins[j].target)
                normal_exit = ins[j].target
        else_at = None
        if (
            normal_exit is not None
            and H < normal_exit < clause_follow <= stop
            and self.home[normal_exit] == home
        ):
            # 3.11 puts an except*'s else after its handler code: it runs up to the follow
            else_at = normal_exit
            follow_cands = [clause_follow]
        inside = [t for t in follow_cands if e0 <= t < e]
        if inside:
            e = min(inside)
        follow = self._single_follow(follow_cands, normal_exit, "except* clauses and body", ins[H])
        bound = stop
        if e <= follow < bound:
            bound = follow
        if e <= H < bound:
            bound = H
        else_end = bound
        inherited = inherited_exits(follow, stop, exits)
        fo = frozenset({follow})
        body, st = self.walk(s, e, list(stack), fo | {e} | inherited | self._exit_jump_after(e, H, home))
        if len(st) != len(stack):
            raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
        if else_at is not None:
            orelse, st = self.walk(else_at, follow, list(stack), fo | inherited)
            else_end = follow
        elif else_end > e:
            orelse, st = self.walk(e, else_end, list(stack), fo | {else_end} | inherited)
        else:
            orelse, st = [], stack
        if len(st) != len(stack):
            raise self.fail("try else changes the stack", ins[e], kind=Refusal.TRY)
        self._emit_try_star(H, C, body, clauses, orelse, follow, base)
        if e <= follow:
            if follow <= stop:
                return max(follow, else_end)
            if follow in exits:
                return stop
            raise self.fail("try continues past its enclosing block", ins[s], kind=Refusal.TRY)
        return else_end

    def _try_star_at_end(self, s: int, H: int, stack: list, stop: int, exits: frozenset, clauses, CR) -> int:
        """The try ends the function: the clauses end with the copied implicit
        ``return None``, so everything the body reaches before its own is its else."""
        ins = self.ins
        home = self.home[s]
        if stop != self.n or exits or self.loops:
            raise self.fail("except* ending in a return inside a block", ins[H], kind=Refusal.TRY)
        _, e = self._extent(H, home)
        if e < s or e >= H:
            raise self.fail("except* body does not end before its handler", ins[H], kind=Refusal.TRY)
        else_at, else_end = e, H
        if ins[e].op == "JUMP" and ins[e].target is not None and ins[e].target > H and self.home[ins[e].target] == home:
            else_at, else_end = ins[e].target, self.n  # 3.11: the else after the handler
        body, st = self.walk(s, e, list(stack), frozenset({e}))
        if len(st) != len(stack):
            raise self.fail("try body changes the stack", ins[s], kind=Refusal.TRY)
        orelse, st = self.walk(else_at, else_end, list(stack), frozenset())
        if not orelse or not _ends_in_return_none(orelse):
            raise self.fail("except* at the end of the function without its return", ins[H], kind=Refusal.TRY)
        _strip_final_returns(orelse)
        self._emit_try_star(H, CR[0], body, clauses, orelse, None, list(stack))
        return stop

    def _emit_try_star(self, H: int, C: int, body: list, clauses, orelse: list, follow, base: list) -> ast.TryStar:
        ins = self.ins
        handlers = []
        for typ, nm, b0, bend, _X, ends in clauses:
            cst = base + [GroupSlot()] * 4
            hb, st = self.walk(b0, bend, cst, frozenset({bend}) | ends)
            if len(st) != len(cst):
                raise self.fail("except* clause changes the stack", ins[b0], kind=Refusal.TRY)
            handlers.append(ast.ExceptHandler(type=typ, name=nm, body=hb or [ast.Pass()]))
        self._claim(H, H, follow)
        for *_, X, _ends in clauses:
            if X is not None:
                self._claim(X, X, follow)
        self._claim_block(C, C + 3)
        node = ast.TryStar(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[])
        self.emit(node)
        return node


def _ends_in_return_none(stmts: list) -> bool:
    last = stmts[-1]
    return isinstance(last, ast.Return) and (
        last.value is None or isinstance(last.value, ast.Constant) and last.value.value is None
    )
