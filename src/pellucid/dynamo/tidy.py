"""Readable graph breaks: the frame-value lists of Dynamo's resume calls, followed away.

At a graph break, Dynamo (torch 2.13) builds the resume function's arguments with a dance of
fresh lists: a list per frame, slice copies, ``extend``, slice assignments that reorder, ``del``
of the last item, and the call with ``*``.  Decompiled faithfully, that is a dozen temporaries
(``__pellucid_tmp5[0][0:0] = []``) around one call, and the reader cannot see what the resume
function receives.  Those lists are fresh, and nothing outside these statements can see them
before the call; so their contents can be followed statement by statement, and the call
written with list displays: ``return __resume_at_102_2([], [], b, __pellucid_tmp1)``.

Sound by construction, or not at all: values are followed only through statements whose
effect on a fresh list is known exactly (displays, constant indexes and slices, ``extend``,
``append``, slice and item assignment, ``del`` of an item); a value put into a list that could
change or fail before the call is read into a temporary where it was read.  Any other use of a
followed list (a call, a store into a variable, a loop, an index out of range, the same list
passed twice) leaves the function exactly as decompiled.  Only Dynamo's code gets this: for
source-made code the decompiler reproduces the bytecode, and this changes it.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field
from typing import Any, Union

TEMP = re.compile(r"__pellucid_tmp(\d+)\Z")


def _temp_number(name: str) -> str:
    """The digits of a temporary's name (``TEMP``'s group, without a match object per name)."""
    digits = name[14:]
    if not digits.isdecimal():  # (``\d``: the decimal digits)
        raise _GiveUp
    return digits


class _GiveUp(Exception):
    """A followed list is used in a way not modelled here: keep the function as it was."""


@dataclass(frozen=True)
class _List:
    """A fresh list object, by identity (``oid``)."""

    oid: int


# an element of a followed list: another followed list, or an expression that reads the same
# whenever it is evaluated (a constant, a temporary, an argument never rebound)
Item = Union[_List, ast.expr]


@dataclass
class _State:
    heap: dict[int, list[Item]] = field(default_factory=dict)
    env: dict[str, Item] = field(default_factory=dict)  # followed temporary -> its value
    changes: int = 0  # lists made or changed: a branch that falls through must make none

    def copy(self) -> _State:
        return _State({k: list(v) for k, v in self.heap.items()}, dict(self.env), self.changes)

    def new_list(self, items: list[Item]) -> _List:
        oid = len(self.heap)  # (lists are never removed)
        self.heap[oid] = items
        self.changes += 1
        return _List(oid)


def tidy(tree: ast.Module, function_name: str) -> bool:
    """Rewrite the graph-break lists of ``function_name``'s definition in ``tree`` in place;
    True if anything changed."""
    fn = next(
        (
            d
            for d in tree.body
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == function_name
        ),
        None,
    )
    if fn is None:
        return False
    try:
        return _Tidier(fn).run()
    except Exception:  # noqa: BLE001
        # A defect here must not cost the frame its file (the tree is only changed at the end,
        # once everything was followed): the code is then left as decompiled.
        return False


class _Tidier:
    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.fn = fn
        # One walk of the function: the names each statement mentions (statements of the body
        # and of its ifs, the ones followed), every name's reads, what is bound, nested scopes.
        self.reads: dict[str, int] = {}  # a temporary read once can be folded away
        self.bound: set[str] = set()
        self.deleted: set[str] = set()
        self.nested = False
        self.temp_nodes: list[ast.Name] = []  # to number the temporaries left, at the end
        self.stmt_names: dict[int, set[str]] = {}
        self._index(fn.body)
        args = fn.args
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        # arguments nothing rebinds (a nested scope might, through nonlocal: then none)
        self.stable_names = set() if self.nested else set(params) - self.bound
        temps = [int(_temp_number(n.id)) for n in self.temp_nodes]
        self.next_temp = max(temps, default=-1) + 1
        self.assigned_temps: set[str] = set()
        self.quiet = False  # (see statement)

    def _index(self, stmts: list[ast.stmt]) -> None:
        for st in stmts:
            if type(st) is ast.If:
                names = self._scan(st.test)
                self._index(st.body)
                self._index(st.orelse)
                for child in st.body + st.orelse:
                    names |= self.stmt_names[id(child)]
            else:
                names = self._scan(st)
            self.stmt_names[id(st)] = names

    def _scan(self, node: ast.AST) -> set[str]:
        """Names under ``node``, counting reads and bindings (ast.walk is several times slower)."""
        names: set[str] = set()
        reads = self.reads
        stack: list = [node]
        pop = stack.pop
        while stack:
            n = pop()
            t = type(n)
            if t is ast.Name:
                i = n.id
                names.add(i)
                ctx = type(n.ctx)
                if ctx is ast.Load:
                    reads[i] = reads.get(i, 0) + 1
                else:
                    self.bound.add(i)
                    if ctx is ast.Del:
                        self.deleted.add(i)
                if i.startswith("__pellucid_tmp"):
                    self.temp_nodes.append(n)
                continue
            if t is ast.Constant or not isinstance(n, ast.AST):  # (None, a match literal)
                continue
            if t in _BINDERS:
                self._binder(n)
            _push_children(n, stack)
        return names

    def _binder(self, n: ast.AST) -> None:
        """A scope or a binding that is not a Name node."""
        t = type(n)
        if t in _SCOPES:
            self.nested = True
        elif t is ast.ExceptHandler:
            if n.name:  # type: ignore[attr-defined]
                self.bound.add(n.name)  # type: ignore[attr-defined]
        elif t is ast.alias:
            self.bound.add((n.asname or n.name).split(".")[0])  # type: ignore[attr-defined]
        elif t is ast.Global or t is ast.Nonlocal:
            self.bound.update(n.names)  # type: ignore[attr-defined]
        else:  # match patterns
            bound = getattr(n, "rest" if t.__name__ == "MatchMapping" else "name", None)
            if bound:
                self.bound.add(bound)

    def run(self) -> bool:
        try:
            body, changed = self.block(self.fn.body, _State())
        except _GiveUp:
            return False
        if changed:
            self.fn.body = body or [ast.Pass()]
            if not self.nested:
                self._renumber_temps(body)
        return changed

    def _renumber_temps(self, body: list[ast.stmt]) -> None:
        """Temporaries numbered 0, 1, ... (some were followed away, some made here)."""
        left: set[str] = set()
        for st in body:
            left |= self._names(st)
        order = sorted((n for n in left if TEMP.match(n)), key=lambda n: int(n[14:]))
        new = {old: f"__pellucid_tmp{k}" for k, old in enumerate(order)}
        for n in self.temp_nodes:
            if n.id in new:
                n.id = new[n.id]

    def _names(self, st: ast.AST) -> set[str]:
        """The names ``st`` mentions (remembered for the statements indexed at the start)."""
        known = self.stmt_names.get(id(st))
        if known is None:
            known = _names_under(st)
        return known

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list[ast.stmt], state: _State) -> tuple[list[ast.stmt], bool]:
        """``stmts`` followed in order: (what to write instead, whether that differs)."""
        stmts_in = stmts
        stmts = _fold_result_moves(self._split_called_walrus(stmts), self.reads)
        out: list[ast.stmt] = []
        for st in stmts:
            if self.statement(st, state, out):
                out.append(st)
            if isinstance(st, (ast.Return, ast.Raise)):
                break  # (what follows is unreachable)
        changed = len(out) != len(stmts_in) or any(a is not b for a, b in zip(out, stmts_in))
        return out, changed

    def statement(self, st: ast.stmt, state: _State, out: list[ast.stmt]) -> bool:
        """Follow ``st``; True to keep it as it is (it may have appended replacements to ``out``)."""
        # a statement naming no followed list: no part of it needs looking into for one
        self.quiet = not state.env or self._names(st).isdisjoint(state.env)
        if self.quiet and not (
            isinstance(st, ast.Assign) and isinstance(st.value, ast.List) or isinstance(st, ast.If)
        ):
            return True
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            target = st.targets[0]
            if isinstance(target, ast.Name) and TEMP.match(target.id):
                if target.id in self.assigned_temps:
                    raise _GiveUp  # (temporaries are assigned once; a second time is not modelled)
                self.assigned_temps.add(target.id)
                if isinstance(st.value, (ast.Name, ast.List, ast.Subscript)):
                    value = self.value(st.value, state, out)
                    if value is None:
                        return True
                    state.env[target.id] = value
                    state.changes += 1
                    return False
            if isinstance(target, ast.Subscript) and self._mentions(target.value, state):
                self.store_item(target, st.value, state, out)
                return False
        elif isinstance(st, ast.Expr):
            call = st.value
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("extend", "append")
                and len(call.args) == 1
                and not call.keywords
                and self._mentions(call.func.value, state)
            ):
                into = self._followed_list(call.func.value, state, out)
                if call.func.attr == "extend":
                    src = self.value(call.args[0], state, out)
                    if not isinstance(src, _List):
                        raise _GiveUp
                    state.heap[into.oid].extend(state.heap[src.oid])
                else:
                    state.heap[into.oid].append(self.item(call.args[0], state, out))
                state.changes += 1
                return False
            if self._discardable(st.value, state):
                return False
        elif isinstance(st, ast.Delete) and len(st.targets) == 1:
            target = st.targets[0]
            if isinstance(target, ast.Name) and target.id in state.env:
                del state.env[target.id]
                state.changes += 1
                return False
            if isinstance(target, ast.Subscript) and self._mentions(target.value, state):
                lst = state.heap[self._followed_list(target.value, state, out).oid]
                where = _index_or_slice(target.slice)
                if isinstance(where, int):
                    _check_index(lst, where)
                del lst[where]
                state.changes += 1
                return False
        elif (
            isinstance(st, ast.Return) and st.value is not None and self._mentions(st.value, state)
        ):
            counted: dict[int, int] = {}
            value = self.materialize(st.value, state, counted)
            if any(n > 1 for n in counted.values()):
                raise _GiveUp  # one list passed twice: two displays would be two lists
            out.append(ast.Return(value=value))
            return False
        elif isinstance(st, ast.If) and not self._mentions(st.test, state):
            before = state.changes
            body_state, else_state = state.copy(), state.copy()
            body, body_changed = self.block(st.body, body_state)
            orelse, else_changed = self.block(st.orelse, else_state)
            ends = bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))
            else_ends = bool(orelse) and isinstance(orelse[-1], (ast.Return, ast.Raise))
            if ends:
                after = else_state
            elif else_ends:
                after = body_state
            elif body_state.changes == before and else_state.changes == before:
                after = state
            else:
                raise _GiveUp  # lists changed on a path that goes on: not followed past a join
            state.heap, state.env, state.changes = after.heap, after.env, after.changes
            if body_changed or else_changed:
                out.append(ast.If(test=st.test, body=body or [ast.Pass()], orelse=orelse))
                return False
            return True
        if self._mentions(st, state):
            out.append(self.substituted(st, state))
            return False
        return True

    def _split_called_walrus(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """``t = (f := g.h)()`` as ``f = g.h`` then ``t = f()``: Dynamo keeps the function it
        calls in a local.  The same order: ``g.h``, bind ``f``, then the arguments and the call."""
        out: list[ast.stmt] = []
        for st in stmts:
            call = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.NamedExpr)
                and (isinstance(st, ast.Expr) or all(isinstance(t, ast.Name) for t in st.targets))
            ):
                walrus = call.func
                out.append(ast.Assign(targets=[walrus.target], value=walrus.value, lineno=0))
                # (a node of its own, numbered with the others if it is a temporary)
                func = self._fresh_copy(walrus.target)
                new_call = ast.Call(func=func, args=call.args, keywords=call.keywords)
                if isinstance(st, ast.Expr):
                    out.append(ast.Expr(value=new_call))
                else:
                    out.append(ast.Assign(targets=st.targets, value=new_call, lineno=0))
            else:
                out.append(st)
        return out

    # ------------------------------------------------------------------ values
    def value(self, e: ast.expr, state: _State, out: list[ast.stmt]) -> Item | None:
        """What ``e`` evaluates to when it involves followed lists (None: it does not)."""
        if isinstance(e, ast.Name):
            return state.env.get(e.id)
        if isinstance(e, ast.List) and isinstance(e.ctx, ast.Load):
            items: list[Item] = []
            for elt in e.elts:
                if isinstance(elt, ast.Starred):
                    inner = self.value(elt.value, state, out)
                    if not isinstance(inner, _List):
                        raise _GiveUp
                    items += state.heap[inner.oid]
                else:
                    items.append(self.item(elt, state, out))
            return state.new_list(items)
        if isinstance(e, ast.Subscript) and isinstance(e.ctx, ast.Load):
            if not self._mentions(e.value, state):
                if self._mentions(e.slice, state):
                    raise _GiveUp
                return None
            lst = state.heap[self._followed_list(e.value, state, out).oid]
            where = _index_or_slice(e.slice)
            if isinstance(where, int):
                _check_index(lst, where)
                return lst[where]
            return state.new_list(lst[where])
        if self._mentions(e, state):
            raise _GiveUp
        return None

    def item(self, e: ast.expr, state: _State, out: list[ast.stmt]) -> Item:
        """``e`` as an element of a list: followed, stable, or read into a new temporary now."""
        v = self.value(e, state, out)
        if v is not None:
            return v
        if self._stable(e):
            return e
        name = f"__pellucid_tmp{self.next_temp}"
        self.next_temp += 1
        self.assigned_temps.add(name)
        stored, ref = ast.Name(name, ast.Store()), ast.Name(name, ast.Load())
        self.temp_nodes += (stored, ref)
        out.append(ast.Assign(targets=[stored], value=e, lineno=0))
        return ref

    def store_item(
        self, target: ast.Subscript, value: ast.expr, state: _State, out: list[ast.stmt]
    ) -> None:
        """``lst[i] = value`` / ``lst[a:b] = [...]`` on a followed list (the value first, as Python does)."""
        where = _index_or_slice(target.slice)
        if isinstance(where, int):
            new: Item = self.item(value, state, out)
            lst = state.heap[self._followed_list(target.value, state, out).oid]
            _check_index(lst, where)
            lst[where] = new
        else:
            src = self.value(value, state, out)
            if not isinstance(src, _List) or where.step is not None:
                raise _GiveUp
            items = list(state.heap[src.oid])
            state.heap[self._followed_list(target.value, state, out).oid][where] = items
        state.changes += 1

    def _followed_list(self, e: ast.expr, state: _State, out: list[ast.stmt]) -> _List:
        v = self.value(e, state, out)
        if not isinstance(v, _List):
            raise _GiveUp
        return v

    def substituted(self, node: ast.AST, state: _State) -> Any:
        """``node`` (any statement) with what it reads from followed lists written in: an
        element that is no list, as itself; a list whose items are only copied out of it (the
        value of a slice assignment, a ``*`` argument) as a display of no lists.  Any other
        use of a followed list gives up: that list would be another object."""

        def consumed(e: ast.expr) -> list[ast.expr] | None:
            if type(e) not in (ast.Name, ast.Subscript) or not self._mentions(e, state):
                return None
            v = self.value(e, state, [])
            if not isinstance(v, _List):
                return None
            items = state.heap[v.oid]
            if any(isinstance(i, _List) for i in items):
                raise _GiveUp  # the inner list itself would be kept by what receives it
            return [self._fresh_copy(i) for i in items]  # type: ignore[arg-type]

        def sub(n: Any) -> Any:
            if not isinstance(n, ast.AST) or not self._mentions(n, state):
                return n
            t = type(n)
            if t in _SCOPES or t in _COMPREHENSIONS:
                raise _GiveUp  # (a temporary read there would become a cell)
            if t is ast.Name or (t is ast.Subscript and self._mentions(n.value, state)):
                if type(n.ctx) is not ast.Load:
                    raise _GiveUp
                v = self.value(n, state, [])
                if v is None or isinstance(v, _List):
                    raise _GiveUp
                return self._fresh_copy(v)
            if t is ast.Assign and len(n.targets) == 1:
                target = n.targets[0]
                items = None
                if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                    items = consumed(n.value)  # x[a:b] = lst copies the items in
                value = ast.List(elts=items, ctx=ast.Load()) if items is not None else sub(n.value)
                return ast.Assign(targets=[sub(target)], value=value, lineno=0)
            if t is ast.Call:
                args: list[ast.expr] = []
                for a in n.args:
                    items = consumed(a.value) if isinstance(a, ast.Starred) else None
                    args += items if items is not None else [sub(a)]
                keywords = [ast.keyword(arg=k.arg, value=sub(k.value)) for k in n.keywords]
                return ast.Call(func=sub(n.func), args=args, keywords=keywords)
            new = copy.copy(n)
            for f in _child_fields(t):
                v = getattr(n, f)
                setattr(new, f, [sub(x) for x in v] if type(v) is list else sub(v))
            return new

        return sub(node)

    def materialize(self, e: ast.expr, state: _State, counted: dict[int, int]) -> ast.expr:
        """``e`` with followed lists written as displays (a ``*`` of one spread into its items)."""

        def show(item: Item) -> ast.expr:
            if isinstance(item, _List):
                counted[item.oid] = counted.get(item.oid, 0) + 1
                return ast.List(elts=[show(i) for i in state.heap[item.oid]], ctx=ast.Load())
            return self._fresh_copy(item)

        def spread(elts: list[ast.expr]) -> list[ast.expr]:
            out: list[ast.expr] = []
            for x in elts:
                if isinstance(x, ast.Starred) and self._mentions(x.value, state):
                    inner = self.value(x.value, state, [])
                    if not isinstance(inner, _List):
                        raise _GiveUp
                    counted[inner.oid] = counted.get(inner.oid, 0) + 1
                    out += [show(i) for i in state.heap[inner.oid]]
                elif isinstance(x, ast.Starred):
                    out.append(x)
                else:
                    out.append(walk(x))
            return out

        def walk(node: ast.expr) -> ast.expr:
            if not self._mentions(node, state):
                return node
            if isinstance(node, (ast.Name, ast.Subscript)):
                v = self.value(node, state, [])
                if v is None:
                    raise _GiveUp
                return show(v)
            if isinstance(node, ast.Call):
                keywords = [ast.keyword(arg=k.arg, value=walk(k.value)) for k in node.keywords]
                return ast.Call(func=walk(node.func), args=spread(node.args), keywords=keywords)
            if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
                return type(node)(elts=spread(node.elts), ctx=ast.Load())
            raise _GiveUp

        return walk(e)

    def _fresh_copy(self, e: ast.expr) -> ast.expr:
        """A stable item written once more (a node of its own: the tree is a tree)."""
        if isinstance(e, ast.Name):
            copy = ast.Name(e.id, ast.Load())
            if e.id.startswith("__pellucid_tmp"):
                self.temp_nodes.append(copy)
            return copy
        if isinstance(e, ast.Constant):
            return ast.Constant(e.value)
        if isinstance(e, ast.Tuple):
            return ast.Tuple(elts=[self._fresh_copy(x) for x in e.elts], ctx=ast.Load())
        return e

    # ------------------------------------------------------------------ facts
    def _stable(self, e: ast.expr) -> bool:
        """Does ``e`` read the same, without effects or errors, wherever it is evaluated later?"""
        if isinstance(e, ast.Constant):
            return True
        if isinstance(e, ast.Name):
            if TEMP.match(e.id):  # assigned once, before it is read: stable unless deleted
                return e.id not in self.deleted
            return e.id in self.stable_names
        if isinstance(e, ast.Tuple):
            return all(not isinstance(x, ast.Starred) and self._stable(x) for x in e.elts)
        return False

    def _discardable(self, e: ast.expr, state: _State) -> bool:
        """An expression statement whose only effect is making followed (or no) values."""
        if not self._mentions(e, state):
            return False
        try:
            scratch = state.copy()
            extra: list[ast.stmt] = []
            self.value(e, scratch, extra)
        except _GiveUp:
            return False
        if extra:  # it reads something that could fail: kept
            return False
        return True

    def _mentions(self, node: ast.AST, state: _State) -> bool:
        if self.quiet or not state.env:
            return False
        if type(node) is ast.Name:
            return node.id in state.env  # type: ignore[attr-defined]
        return not self._names(node).isdisjoint(state.env)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _names_under(node: ast.AST) -> set[str]:
    names: set[str] = set()
    stack: list = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Name:
            names.add(n.id)
            continue
        if t is ast.Constant or not isinstance(n, ast.AST):  # (None, a match literal)
            continue
        _push_children(n, stack)
    return names


def _push_children(n: ast.AST, stack: list) -> None:
    t = type(n)
    fields = _CHILDREN.get(t)
    if fields is None:
        fields = _CHILDREN[t] = _child_fields(t)
    for f in fields:
        v = getattr(n, f)
        if type(v) is list:
            stack.extend(v)
        else:
            stack.append(v)


# fields that never hold a node (or a list of nodes): identifiers, operators, flags
_LEAF_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "kind",
     "type_comment", "conversion", "is_async", "simple", "kwd_attrs", "rest", "asname"}
)  # fmt: skip
_CHILDREN: dict[type, tuple[str, ...]] = {}
_BINDERS = frozenset(
    {ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ExceptHandler,
     ast.alias, ast.Global, ast.Nonlocal}
    | {getattr(ast, k) for k in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, k)}
)  # fmt: skip


def _child_fields(t: type) -> tuple[str, ...]:
    return tuple(f for f in t._fields if f not in _LEAF_FIELDS)


def _index_or_slice(s: ast.expr) -> int | slice:
    """A constant index or a slice of constant bounds (anything else is not followed)."""
    if isinstance(s, ast.Constant) and type(s.value) is int:
        return s.value
    if (
        isinstance(s, ast.UnaryOp)
        and isinstance(s.op, ast.USub)
        and isinstance(s.operand, ast.Constant)
    ):
        if type(s.operand.value) is int:
            return -s.operand.value
    if isinstance(s, ast.Slice):
        parts = []
        for p in (s.lower, s.upper, s.step):
            if p is None:
                parts.append(None)
            else:
                v = _index_or_slice(p)
                if not isinstance(v, int):
                    raise _GiveUp
                parts.append(v)
        return slice(*parts)
    raise _GiveUp


def _check_index(lst: list[Item], k: int) -> None:
    if not -len(lst) <= k < len(lst):
        raise _GiveUp  # an IndexError at run time: not this rewrite's to move


def _fold_result_moves(stmts: list[ast.stmt], reads: dict[str, int]) -> list[ast.stmt]:
    """``tmp = call(...); del a; del b; x = tmp`` as ``x = call(...); del a; del b``: Dynamo
    deletes its helper locals between a graph's call and the store of its result.  Moving the
    store of ``x`` before deleting other locals changes nothing observable."""
    out = list(stmts)
    k = 0
    while k < len(out):
        st = out[k]
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and reads.get(st.targets[0].id) == 1
            and TEMP.match(st.targets[0].id)
        ):
            tmp = st.targets[0].id
            j = k + 1
            deleted: set[str] = set()
            while (
                j < len(out)
                and isinstance(out[j], ast.Delete)
                and all(isinstance(t, ast.Name) for t in out[j].targets)
            ):
                deleted.update(t.id for t in out[j].targets)
                j += 1
            move = out[j] if j < len(out) else None
            if (
                isinstance(move, ast.Assign)
                and len(move.targets) == 1
                and isinstance(move.targets[0], ast.Name)
                and isinstance(move.value, ast.Name)
                and move.value.id == tmp
                and move.targets[0].id not in deleted
                and move.targets[0].id != tmp
                and tmp not in deleted
            ):
                new = ast.Assign(targets=[move.targets[0]], value=st.value, lineno=0)
                out[k : j + 1] = [new, *out[k + 1 : j]]
        k += 1
    return out
