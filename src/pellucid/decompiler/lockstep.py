"""Two symbolic executions compared step by step, with paths merged where they meet again.

The translation validator (:mod:`pellucid.decompiler.validate`) calls two programs equivalent
when their sets of paths (the sequences of steps each input makes them take) are equal.
Enumerating those sets costs a product: a loop body with twenty sequential ``if`` statements
has a million paths.  This module compares the two programs' paths as two tries, walked
together: a *node* is a common prefix of steps, with the states of each program that have
taken it; each program's next steps there must be the same set, and each next step is a node
again.  The comparison is the set comparison, prefix by prefix.

Where the paths of an ``if`` join again, the states of its two arms are often the same up to
the names of the results they computed (results are named by the step that made them, and the
arms took different steps).  Two nodes whose states are equal up to such a renaming, applied to
both programs at once, have the same comparison ahead of them: every operation of the executor
treats result names as names (it compares them for equality, never for order of number), and
both programs name the results still to come by the same step numbers.  So the second such node
is not walked again, and sequential ``if`` statements cost a sum instead of a product.

A test of a condition a path has already tested is decided by the first outcome, so states
that took different arms of an ``if`` on a flag differ in what they know, and a loop body
testing ten flags would again make a product.  A node whose states are the same as an already
walked one's but for those outcomes is walked once more with them forgotten, and every later
such node is merged into that walk.  Forgetting only adds paths (a later test of the same
condition takes both outcomes), in both programs alike, and every branch is recorded with its
condition and outcome: the paths that agree with the outcomes a node did know are its own
paths, picked out of the walked ones by the same rule in both programs, so equal walked sets
give equal own sets.

The key of a node (:func:`node_key`) is what its future depends on: each state with its
pending steps, stack, live locals, the objects reachable from them, the branch outcomes it may
still consult, and its loop bookkeeping, with result names and fresh objects renamed in order of
first appearance.  Leaving a part of a state out of the key would be unsound, so the key leaves
out only what no future step can read: locals that are not live (a delete counts as a read),
objects nothing reaches, branch outcomes over results nothing holds.  The arguments and the
values locals have at the head of a loop are renamed like results: nothing makes them again,
and the executor only passes them on and compares them.
"""

from __future__ import annotations

from typing import Any, Callable

END = ("end-of-path",)


class Differs(Exception):
    """The two programs' paths differ; the message says where."""


def compare(a: Any, b: Any, max_paths: int, too_many: Callable[[], Exception]) -> int:
    """Walk the paths of executors ``a`` (the original) and ``b`` (the candidate) together.

    Each executor has ``start()`` (its first state) and ``advance(state)`` (runs the state
    until its path grows or ends; returns it with the states it forked), and ``key_live`` (the
    locals each instruction may read).  Returns the number of path ends compared (after
    merging); raises :class:`Differs` at the first difference, and ``too_many()`` past
    ``max_paths`` path ends."""
    seen: set = set()
    seen_bases: set = set()
    todo = [(0, [a.start()], [b.start()], False)]
    ends = 0
    while todo:
        at, mine, theirs, widened = todo.pop()
        ga = _next_steps(a, mine, at)
        gb = _next_steps(b, theirs, at)
        if ga.keys() != gb.keys():
            where = _difference(at, ga, gb)
            if widened:
                where += " (found where a condition tested before was taken both ways again)"
            raise Differs(where)
        for step in ga:
            if step == END:
                ends += 1
                if ends > max_paths:
                    raise too_many()
                continue
            sa, sb = ga[step], gb[step]
            forgotten = widened
            if any(s.joined for s in sa) or any(s.joined for s in sb):
                # (past a join point: a node the same as one already walked is not walked again)
                for s in sa + sb:
                    s.joined = False
                base, truths = node_key(a, sa, b, sb, at + 1)
                if (base, truths) in seen:
                    continue
                if truths and base in seen_bases:
                    # The same node but for branch outcomes decided before: walked once with
                    # them forgotten (see the module's docstring), for every such node.
                    for s in sa + sb:
                        s.truths = {}
                    truths = ()
                    forgotten = True
                    if (base, truths) in seen:
                        continue
                seen_bases.add(base)
                seen.add((base, truths))
            todo.append((at + 1, sa, sb, forgotten))
    return ends


def _next_steps(ex: Any, states: list, at: int) -> dict:
    """The states grouped by their step after the first ``at`` (END where the path ends)."""
    groups: dict = {}
    todo = list(states)
    while todo:
        st = todo.pop()
        if not st.ended and len(st.path) <= at:
            todo.extend(ex.advance(st))
            continue
        step = st.path[at] if len(st.path) > at else END
        groups.setdefault(step, []).append(st)
    return groups


def _describe(step: Any) -> str:
    text = "the path ends" if step == END else repr(step)
    return text if len(text) <= 160 else text[:157] + "..."


def _difference(at: int, ga: dict, gb: dict) -> str:
    only_a = [s for s in ga if s not in gb]
    if only_a:
        theirs = next((s for s in gb if s != END), END) if gb else END
        return (f"differs at step {at + 1}: Dynamo's code {_describe(only_a[0])}, "
                f"the file {_describe(theirs)}")
    only_b = [s for s in gb if s not in ga]
    return f"differs at step {at + 1}: the file has a path Dynamo's code does not: " \
        f"{_describe(only_b[0])}"


# ----------------------------------------------------------------------------- node keys

_NAMED = ("res", "exc", "raised-exc")  # terms named by the step that made them
# Other opaque values no step makes again: the arguments, and the values of locals at the head
# of a loop (named by the loop's number on the path; a loop entered later has a new number).
# The executor does nothing with an opaque value but pass it on and compare it for equality,
# so one may stand for another when both programs' states have it in the same places.
_ATOMS = ("arg", "loop-var")


class _Canon:
    """Renames step-named results, cell versions and fresh objects in order of appearance."""

    def __init__(self) -> None:
        self.names: dict = {}  # shared by all states of a node: they share its prefix
        self.objects: dict = {}  # heap id -> its name, per state (each has its own heap)
        self.pending: list = []  # heap objects reached, not yet written out
        self.fresh = 0
        self.tokens: dict = {}  # made function -> its name, per state

    def name(self, key: tuple) -> int:
        n = self.names.get(key)
        if n is None:
            n = self.names[key] = len(self.names)
        return n

    def term(self, t: Any, st: Any) -> Any:
        kind = type(t)
        if kind is list:
            return ("list",) + tuple(self.term(x, st) for x in t)
        if kind is not tuple or not t:
            return t
        tag = t[0]
        if (tag in _NAMED and len(t) == 2 and type(t[1]) is int) or tag in _ATOMS:
            return ("opaque", self.name(t))
        if tag == "made" and len(t) == 4:
            return (tag, self.name(("made", t[1], t[2])), t[3])
        if tag == "fn-made" and len(t) == 3:
            return (tag, self.token(t[1]), t[2])
        if tag == "cell-value" and len(t) == 3:
            return (tag, t[1], self.version(t[2]))
        if tag in ("ref", "list-iter", "listmeth") and len(t) >= 2 and type(t[1]) is int:
            return (tag, self.obj(t[1], st)) + tuple(self.term(x, st) for x in t[2:])
        return tuple(self.term(x, st) for x in t)

    def token(self, n: int) -> int:
        """A made function's identity within its state (never seen outside as such)."""
        name = self.tokens.get(n)
        if name is None:
            name = self.tokens[n] = len(self.tokens)
        return name

    def version(self, v: Any) -> Any:
        return v if v == -1 else ("v", self.name(("version", v)))

    def obj(self, oid: int, st: Any) -> Any:
        name = self.objects.get(oid)
        if name is None:
            if oid < st.floor:
                # (made before the loop the path is in: its number is compared with floors)
                name = ("old", oid)
            else:
                name = ("fresh", self.fresh)
                self.fresh += 1
            self.objects[oid] = name
            self.pending.append(oid)
        return name

    def ids_in(self, t: Any, out: list) -> None:
        if type(t) is not tuple or not t:
            return
        if (t[0] in _NAMED and len(t) == 2 and type(t[1]) is int) or t[0] in _ATOMS:
            out.append(t)
            return
        for x in t:
            self.ids_in(x, out)


def _state_key(ex: Any, st: Any, at: int, c: _Canon) -> tuple:
    c.objects, c.pending, c.fresh, c.tokens = {}, [], 0, {}
    if st.ended:
        return ("ended", tuple(c.term(s, st) for s in st.path[at:])), ()
    live = ex.key_live()[st.pc]
    local = tuple(
        (name, c.term(st.local[name], st) if name in st.local else ("unbound",))
        for name in sorted(live)
    )
    parts: list = [
        st.pc, st.jumped_back,
        tuple(c.term(s, st) for s in st.path[at:]),
        tuple(c.term(t, st) for t in st.stack),
        local,
        c.term(st.handling, st), c.term(st.handling_seen, st),
        tuple(sorted((h, c.term(v, st)) for h, v in st.heads.items())),
        tuple(sorted((name, c.version(v)) for name, v in st.cells.items())),
        st.kwnames, st.escapes, tuple(sorted(st.loops)), st.floor, st.visits,
        st.loop_count, st.inside,
    ]
    heap = []
    while c.pending:
        oid = c.pending.pop(0)
        obj = st.heap[oid]
        items = None if obj.escaped is not None else c.term(list(obj.items), st)
        heap.append((c.obj(oid, st), obj.kind, obj.escaped, items,
                     st.holders.get(oid)))
    parts.append(tuple(heap))
    # branch outcomes: only those a future step may consult (over results still held)
    truths = []
    for t, v in st.truths.items():
        ids: list = []
        c.ids_in(t, ids)
        if all(k in c.names for k in ids):
            truths.append((c.term(t, st), v))
    # functions made and seen: only those still held may be seen again
    at_now = len(st.path)
    parts.append(sum(1 for d in st.shown_functions.values() if d[1] == at_now))
    parts.append(tuple(sorted(
        ((c.tokens[t[1]], t[2]), c.term(d, st))
        for t, d in st.shown_functions.items() if t[1] in c.tokens
    )))
    return tuple(parts), tuple(sorted(truths, key=repr))


def node_key(a: Any, sa: list, b: Any, sb: list, at: int) -> tuple[tuple, tuple]:
    """What the comparison ahead of a node depends on, up to the names of results: the
    states, and apart from them the branch outcomes they may still consult."""
    c = _Canon()
    keys = [_state_key(a, st, at, c) for st in sa] + [_state_key(b, st, at, c) for st in sb]
    n = len(sa)
    base = (tuple(k for k, _ in keys[:n]), tuple(k for k, _ in keys[n:]))
    return base, tuple(t for _, t in keys)
