"""Loops: found on the control-flow graph (heads, regions, live locals), run by induction
over an unknown iterable (one iteration standing for all) or concretely over one the code
built.
"""

from __future__ import annotations

from pellucid.decompiler.instructions import Instr
from pellucid.decompiler.validation.state import Live, NotModelled, PathEnd, State

MAX_VISITS = 256  # backward jumps one path may take (loops over lists the code built)


class LoopOps:
    """Loops: their heads, regions and live locals, and how a path runs them (mixed into
    ``Executor``)."""

    def _loop_ends(self) -> dict[int, int]:
        """Loop heads -> the last jump back to each: the targets of backward jumps that the
        head leads to again (over jumps, fall-through and exception edges).

        A backward jump nothing after its target leads to is no loop, only a layout: 3.14
        lays a with statement's suppressed path after the code that follows the statement,
        and jumps from it back to that code.  Run as the plain jump it is, it needs no
        induction (it is taken once), and the two programs need not lay it out alike."""
        ends: dict[int, int] = {}
        succ: list[list[int]] | None = None
        for b in self.ins:
            if b.target is None or b.target > b.index:
                continue
            if succ is None:
                succ = self._successors()
            if self._leads_to(succ, b.target, b.index):
                ends[b.target] = max(ends.get(b.target, 0), b.index)
        return ends

    def _successors(self) -> list[list[int]]:
        """Each instruction's successors: its jump's target, the next one, its handler."""
        ins, n = self.ins, len(self.ins)
        succ: list[list[int]] = [[] for _ in range(n)]
        for b in ins:
            if b.target is not None:
                succ[b.index].append(b.target)
            if b.op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"):
                succ[b.index].append(b.index + 1)
            h = self._handler(b.index)
            if h is not None:
                succ[b.index].append(h[0])
        return succ

    def region(self, head: int) -> frozenset:
        """The instructions of the loop at ``head``: those on a cycle through it, that is,
        reached from the head and leading to a jump back to it without passing the head
        again (its natural loop, over jumps, fall-through and exception edges).

        Not the range from the head to its last jump back: 3.12+ lay an except clause after
        the loop and jump from it back into the body, and a loop's locals and objects are
        changed there too; and the code an enclosing loop runs after this one (up to its
        own head) is no part of it, however it is laid out."""
        got = self._regions.get(head)
        if got is None:
            succ = self._succ = self._succ or self._successors()
            preds: list[list[int]] = [[] for _ in range(len(self.ins) + 1)]
            for k, out in enumerate(succ):
                for j in out:
                    if j < len(preds):
                        preds[j].append(k)
            ahead = self._reached(succ, head)
            back = [b.index for b in self.ins
                    if b.target == head and b.index >= head and b.index in ahead]
            # (backwards from the jumps back, stopping at the head)
            seen = {head}
            work = list(back)
            while work:
                k = work.pop()
                if k in seen:
                    continue
                seen.add(k)
                work.extend(preds[k])
            got = self._regions[head] = frozenset(seen & (ahead | {head}))
        return got

    @staticmethod
    def _reached(succ: list[list[int]], start: int) -> set[int]:
        """The instructions reached from ``start`` (itself included)."""
        seen = {start}
        work = [start]
        while work:
            k = work.pop()
            for j in succ[k] if k < len(succ) else ():
                if j not in seen:
                    seen.add(j)
                    work.append(j)
        return seen

    @staticmethod
    def _leads_to(succ: list[list[int]], start: int, goal: int) -> bool:
        seen = {start}
        work = [start]
        while work:
            k = work.pop()
            if k == goal:
                return True
            for j in succ[k] if k < len(succ) else ():
                if j not in seen:
                    seen.add(j)
                    work.append(j)
        return False

    def _leave_loops(self, st: State) -> None:
        """The loops whose instructions do not include the path's next one, and those it
        entered inside them, are left: forgotten, as if never entered.

        What was made before a loop is followed again, and the loop is no longer one the
        path runs an iteration of: reached again (an enclosing loop went round, a list the
        code built gave its next item), it is entered again by induction, from the values
        of that moment.  The proof made at the earlier entry assumed the values of the
        locals it does not bind, and the objects made before it, as they were then."""
        for k, (head, floor, holders) in enumerate(st.inside):
            if st.pc not in self.region(head):
                gone = {h for h, _, _ in st.inside[k:]}
                st.floor, st.holders = floor, dict(holders)
                st.inside = st.inside[:k]
                st.loops = st.loops - gone
                st.heads = {h: v for h, v in st.heads.items() if h not in gone}
                return

    def _jumped_back(self, st: State) -> None:
        """A backward jump: the end of an iteration of a loop run by induction, or of one
        run concretely (over a list the code built), or the way into a loop whose body the
        path entered without passing its head.

        A resume function's prologue jumps into the middle of a loop's body: the rest of that
        first iteration runs as straight code, and the jump back reaches the head for the
        first time (a loop entered by induction is in ``st.loops`` from its head until the
        path leaves it).  That is the state in which any path arrives at the head, so the loop
        is entered there as for a path falling into it: at a ``FOR_ITER`` by its iterator, at
        any other head (a ``while`` test, which 3.14 no longer copies to the bottom, or the
        body's start) by :meth:`_run_path`, which enters every loop head not yet entered."""
        if st.pc in st.loops:
            self._loop_back(st, st.pc)
        if self.ins[st.pc].op != "FOR_ITER":
            return
        st.visits += 1
        if st.visits > MAX_VISITS:
            raise NotModelled("a loop that is not over an iterable")

    def key_live(self) -> Live:
        """The locals each instruction may read before they are bound again, a delete
        counting as a read (it raises when the local is unbound): what of the locals the
        rest of a path can depend on."""
        if self._key_live is None:
            self._key_live = self._liveness(("LOAD_FAST", "DELETE_FAST"))
        return self._key_live

    def op_GET_ITER(self, st: State, i: Instr) -> None:
        x = st.stack.pop()
        if self.fresh(st, x) is not None and self.fresh(st, x).kind == "list":
            st.stack.append(("list-iter", x[1], 0))  # (reads the list live, as CPython does)
            return
        if type(x) is tuple and x[0] == "tuple":
            st.stack.append(("tuple-iter", x[1:]))
            return
        st.stack.append(("iterator", self.ev_show(st, "iter", x)))

    def op_FOR_ITER(self, st: State, i: Instr) -> None:
        it = st.stack[-1]
        if it[0] == "tuple-iter":
            if it[1]:
                st.stack[-1] = ("tuple-iter", it[1][1:])
                st.stack.append(it[1][0])
            else:
                st.stack.pop()
                st.pc = i.target
            return
        if it[0] == "list-iter":
            items = st.heap[it[1]].items
            if it[2] < len(items):
                st.stack[-1] = ("list-iter", it[1], it[2] + 1)
                st.stack.append(items[it[2]])
            else:
                st.stack.pop()
                st.pc = i.target
            return
        if it[0] != "iterator" or i.index in st.loops:
            raise NotModelled("a loop over an iterator not modelled")
        # An unknown iterable: one iteration standing for all, and the path where it is
        # exhausted (at the head of any iteration)
        self._enter_loop(st, i.index)
        done = st.fork()
        done.stack.pop()
        done.path.append(("loop-exhausted", it[1]))
        done.pc = i.target
        self.work.append(done)
        st.stack.append(self.event(st, ("next", it[1])))

    def _enter_loop(self, st: State, head: int) -> None:
        """Run the loop at ``head`` by induction: the locals its body binds become one term
        each (their value at the head of any iteration), recorded with their values on entry;
        the path goes on through one iteration, and ends back at the head with the values
        they have for the next one (:meth:`_loop_back`).  Two programs whose loops enter with
        the same values, do the same in an iteration and leave the same values for the next
        one do the same in every iteration."""
        ins = self.ins
        stored = {
            ins[k].argval for k in self.region(head) if ins[k].op in ("STORE_FAST", "DELETE_FAST")
        }
        # (a cell the loop binds holds at the head what an earlier iteration put there: read
        # as an event in it and after it, like a cell others share)
        rebound = {
            ins[k].argval for k in self.region(head) if ins[k].op in ("STORE_DEREF", "DELETE_DEREF")
        }
        if rebound & st.cells.keys():
            st.cells = {name: v for name, v in st.cells.items() if name not in rebound}
        # (a delete reads too: it raises where the local is unbound, so a local the body
        # deletes before it binds it again is carried, not dropped)
        live = self.key_live()[head]
        carried = sorted(stored & live)  # (the others are bound again before any read)
        for name in stored - live:
            st.local.pop(name, None)
        st.loop_count += 1
        n = st.loop_count
        self.observe(st)
        st.path.append(("loop-enter", n, tuple(
            (name, self.show(st, st.local[name]) if name in st.local else ("unbound",))
            for name in carried
        )))
        for name in carried:
            st.local[name] = ("loop-var", n, name)
        st.loops = st.loops | {head}
        st.heads = {**st.heads, head: (tuple(st.stack), n, tuple(carried), st.handling)}
        st.inside = st.inside + ((head, st.floor, tuple(sorted(st.holders.items()))),)
        st.floor = len(st.heap)
        # objects made before the loop, by a local or stack slot holding them at its head
        holders = dict(st.holders)
        for k, t in enumerate(st.stack):
            if type(t) is tuple and t and t[0] == "ref":
                holders.setdefault(t[1], ("stack", k))
        for name in sorted(st.local):
            t = st.local[name]
            if type(t) is tuple and t and t[0] == "ref":
                holders.setdefault(t[1], ("local", name))
        st.holders = holders

    def _liveness(self, uses: tuple) -> Live:
        """The locals each instruction may read (an instruction in ``uses``) before they are
        bound again, over jumps, fall-through and exception edges: a backward dataflow to a
        fixed point."""
        ins, n = self.ins, len(self.ins)
        succ = self._successors()
        # (sets of locals as bits of an int: the fixed point takes a few passes over the code)
        bits: dict[str, int] = {}
        gen, kill = [0] * n, [0] * n
        for b in ins:
            if b.op in uses or b.op in ("STORE_FAST", "DELETE_FAST"):
                one = bits.setdefault(b.argval, 1 << len(bits))
                if b.op in uses:
                    gen[b.index] = one
                else:
                    kill[b.index] = one
        live = [0] * (n + 1)
        changed = True
        while changed:
            changed = False
            for k in range(n - 1, -1, -1):
                out = 0
                for j in succ[k]:
                    if j <= n:
                        out |= live[j]
                out = (out & ~kill[k]) | gen[k]
                if out != live[k]:
                    live[k] = out
                    changed = True
        return Live(live, list(bits))

    def _loop_back(self, st: State, head: int) -> None:
        stack, n, carried, handling = st.heads[head]
        if tuple(st.stack) != stack:
            raise NotModelled("the stack changes around a loop")
        if st.handling != handling:
            # (the next iteration would run with another exception being handled than the
            # one the induction assumed at the head)
            raise NotModelled("the exception being handled changes around a loop")
        self.observe(st)  # (recorded at the head too: the next iteration starts as this one did)
        self.looping_back = True
        try:
            st.path.append(("loop-back", n, tuple(
                (name, self.show(st, st.local[name]) if name in st.local else ("unbound",))
                for name in carried
            )))
        finally:
            self.looping_back = False
        raise PathEnd
