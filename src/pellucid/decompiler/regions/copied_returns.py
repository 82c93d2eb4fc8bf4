"""3.12+ copy a small exit block (``return x``, a loop's ``continue`` jump) into every
jump to it, so an except clause ends in the code that follows the try in the source.

Read at set-up, before any statement: where the try's normal path reaches the same code,
the copy is turned back into the jump it replaced (the 3.11 shape), and ``_redo_exit_copy``
puts one back when it turns out to be part of a finally body's copy.
"""

from __future__ import annotations

from dataclasses import replace

from pellucid.decompiler.cfg import reach
from pellucid.decompiler.instructions import TERMINAL, Instr
from pellucid.decompiler.regions.exc_markers import DELETE_OPS, STORE_OPS


class CopiedReturnOps:
    """Walker mixin: undo the exit blocks 3.12+ copy into except clauses."""

    def _thread_clause_continues(self) -> None:
        """3.12+: an except clause ending ``POP_EXCEPT; [name clean-up;] JUMP t`` where t
        is itself a jump back (a loop's continue shared by the clauses) jumps there directly."""
        ins = self.ins
        threaded: set[int] = set()
        homed = self._indices_by_home()
        for H, h in self._handlers.items():
            if h.kind != "try":
                continue
            for k in homed.get(H, ()):
                if not H < k < self.n - 1:
                    continue
                q = self._clause_end_jump(k) if self.home[k] == H else None
                if q is None:
                    continue
                j = ins[q]
                t = ins[j.target]
                if t.op == "JUMP" and t.target is not None and t.target < t.index and t.index != j.index:
                    ins[q] = replace(j, target=t.target, argval=t.target)
                    threaded.add(t.index)
                    self._stands_for.setdefault(t.index, []).append(q)
        for t in threaded:
            falls_in = t > 0 and ins[t - 1].op not in TERMINAL and ins[t - 1].op != "JUMP"
            if not falls_in and not any(i.target == t for i in ins):
                self.home[t] = None  # no longer reached

    def _undo_exit_copies(self) -> None:
        """3.12+ copy a small exit block (``return x``) into every jump to it, so
        an except clause ends ``POP_EXCEPT; return x`` where the source continues
        after the try.  Where the try's normal path reaches the same code from the
        same line, the copy is turned back into the jump it replaced (the 3.11
        shape); a clause's own ``return`` computes its value before POP_EXCEPT."""
        ins = self.ins
        homed = self._indices_by_home()  # (the loop only clears homes: checked again below)
        for H, h in self._handlers.items():
            if h.kind != "try":
                continue
            for k in homed.get(H, ()):
                if k <= H or ins[k].op != "POP_EXCEPT" or self.home[k] != H:
                    continue
                if self._finally_end_len(k - 1) == 2 or self._finally_end_len(k - 3) == 4:
                    continue  # a return leaving an enclosing finally body: not this clause's end
                j = k + 1
                if (
                    j + 2 < self.n
                    and ins[j].op == "LOAD_CONST"
                    and ins[j].argval is None
                    and ins[j + 1].op in STORE_OPS
                    and ins[j + 2].op in DELETE_OPS
                    and ins[j + 1].argval == ins[j + 2].argval
                ):
                    j += 3
                L = self._return_tail(j, H)
                if L is not None:
                    twin = self._tail_twin(H, j, L)
                elif j + 1 < self.n and ins[j].op == "POP_EXCEPT" and ins[j + 1].op == "JUMP":
                    # 3.13: the end of an enclosing except clause (``POP_EXCEPT; JUMP``)
                    # copied into this clause: the try's body falls into the original
                    L = 2
                    home, e = self._body_end(H)
                    twin = e if home is not None and self.home[e] == home and self._same(e, j, 2) else None
                else:
                    continue
                if twin is None:
                    continue
                old = ins[j]
                self._undone[j] = (twin, L, [self.home[q] for q in range(j, j + L)], old)
                ins[j] = Instr(
                    "JUMP", None, twin, old.offset, line=old.line, target=twin, index=j, raw="JUMP (exit copy)"
                )
                for q in range(j + 1, j + L):
                    self.home[q] = None
                    self._dead_copy.add(q)
                    self._stands_for.setdefault(q, []).append(twin + q - j)

    def _redo_exit_copy(self, j: int) -> None:
        """Put back an exit copy that ``_undo_exit_copies`` turned into a jump to
        its twin, when the twin is inside a finally body's normal-path copy (the
        copy's clause then ends in the statement's follow, as in the handler)."""
        _twin, L, homes, old = self._undone.pop(j)
        self.ins[j] = old
        for q in range(j, j + L):
            self.home[q] = homes[q - j]
            self._dead_copy.discard(q)
            self.reachable[q] = True
            self.initially_reachable[q] = True

    def _return_tail(self, j: int, H: int) -> int | None:
        """Length of straight-line code at j in handler H's own code that ends in
        a return or a raise and starts a statement (nothing it uses was pushed before), or
        None."""
        k = j
        while k < self.n and self.home[k] == H and k - j < 8:
            ins = self.ins[k]
            if ins.target is not None or ins.op in ("POP_EXCEPT", "SWAP", "POP_TOP", "COPY"):
                return None
            if ins.op == "RETURN_VALUE":
                return k + 1 - j if k > j else None
            if ins.op == "RAISE_VARARGS" and ins.arg == 0:
                return k + 1 - j  # a bare `raise` after the try: re-raises the outer one
            if ins.op == "RAISE_VARARGS":
                return k + 1 - j if k > j else None  # `raise x`: an exit block too
            if ins.op in TERMINAL:
                return None
            k += 1
        return None

    def _tail_twin(self, H: int, j: int, L: int) -> int | None:
        """Where the try of handler H continues after its body, if the code there
        is the same (same line too) as the copy at j: the first such place after
        the body that no jump before it skips."""
        home, e = self._body_end(H)
        if home is None:
            return None
        for k in range(e, self.n):
            if self.home[k] != home:
                continue
            if not self._same(k, j, L) or self.ins[k].line != self.ins[j].line:
                continue
            for q in range(e, k):
                t = self.ins[q].target
                if self.home[q] == home and t is not None and t > k:
                    return None
            start = min(a for a, _ in self._handlers[H].ranges if self.home[a] == home)
            if k not in reach(self.ins, [start], within=(start, k + 1)).reached:
                # the body's paths do not go on there (an else ending in a continue): the
                # same code after it is the loop's exit, and the copy a break's
                return None
            return k
        # A try whose body is a try: its own ranges lie in the inner one's handler code, so
        # its body's end is not found there; where a clause of the inner try was turned back
        # into a jump to the same code (same line), both statements go on there.
        for twin, length, _, _ in self._undone.values():
            if length == L and self._same(twin, j, L) and self.ins[twin].line == self.ins[j].line:
                return twin
        return None
