"""Assignments: what a store of a value means, and values kept on the stack across a statement.

The ``STORE_*`` handlers (:mod:`.evaluate.stores`) call :meth:`AssignmentOps.store` with a
target.  Most values become an assignment, but the value may be half of an unpacking, a
loop's item (the ``for`` target), an import, a function, an augmented operation, or the same
object stored again (``a = b = x``); values stored one by one after several were pushed are a
parallel assignment (``a, b = b, a``).

Generated code (Dynamo's) keeps values on the stack while statements run: those values were
evaluated before the statement, so :meth:`AssignmentOps.spill` saves them to
``__pellucid_tmp<k>`` temporaries first, in the order they were evaluated.
:meth:`AssignmentOps.copy_is_idiom` tells the COPY shapes of one source construct (chained
assignment, walrus, chained comparison) from a value used twice.
"""

from __future__ import annotations

import ast
import copy
from itertools import chain, repeat
from typing import Any

from pellucid.decompiler import values as V
from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.evaluate import InPlace, augmented_target, name, store_ctx
from pellucid.decompiler.instructions import Instr

# operands a call pops besides its arguments (the callable, NULL/self, a kwnames tuple)
_CALL_OPERANDS = {
    "CALL": 2,  # 3.11+
    "CALL_KW": 3,  # 3.13
    "CALL_FUNCTION": 1,  # 3.9/3.10
    "CALL_METHOD": 2,
    "CALL_FUNCTION_KW": 2,
}
# displays: items popped per unit of their argument
_BUILDS = {"BUILD_TUPLE": 1, "BUILD_LIST": 1, "BUILD_SET": 1, "BUILD_MAP": 2, "BUILD_SLICE": 1}
# operators: operands popped for the one value pushed
_POPS_TO_ONE = {
    "BINARY_OP": 2, "COMPARE_OP": 2, "IS_OP": 2, "CONTAINS_OP": 2, "BINARY_SLICE": 3,
    "UNARY_NEGATIVE": 1, "UNARY_NOT": 1, "UNARY_INVERT": 1, "UNARY_POSITIVE": 1,
}


# (name stored, body mode) -> the Walker attribute that keeps a body's __annotate__ code
_ANNOTATE_SLOTS = {
    ("__annotate_func__", "class"): "class_annotate",
    ("__annotate__", "module"): "module_annotate",
}


# Globals that torch.compile (Dynamo) installs for its generated code and no user code writes.
_DYNAMO_OWNED = ("__compiled_fn_", "__resume_at_", "__import_")
_NAME, _CONSTANT, _TUPLE, _SLICE = ast.Name, ast.Constant, ast.Tuple, ast.Slice  # (spill)
_STORE = ast.Store()  # (one for every temporary: contexts carry nothing)

_MUTABLE_DISPLAYS = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


def _stored_names(node: ast.AST) -> set[str]:
    """Names bound anywhere in ``node`` (targets, walrus, comprehension variables):
    what ``ast.walk`` finds, without its generators (spill asks at most statements)."""
    out = set()
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        t = type(n)
        if t is _NAME:
            if type(n.ctx) is not _LOAD_CTX:
                out.add(n.id)
            continue
        fields = _FIELDS_BELOW.get(t)
        if fields is None:
            if not isinstance(n, ast.AST):
                continue  # (a list's str, None or number)
            fields = _FIELDS_BELOW[t] = tuple(f for f in t._fields if f != "ctx")
        for f in fields:
            v = getattr(n, f, None)
            if type(v) is list:
                extend(v)
            elif v is not None:
                push(v)
    return out


# node type -> its fields but ``ctx`` (a context holds no names): _stored_names' walk
_FIELDS_BELOW: dict[type, tuple[str, ...]] = {}
_LOAD_CTX = ast.Load


def _pure(e: ast.expr, stable: set[str]) -> bool:
    """An expression whose value cannot depend on when it is evaluated
    (mutable displays are excluded: their identity matters)."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return getattr(e, "is_spill", False) or (
            e.id in stable and not getattr(e, "may_be_unbound", False)
        )
    if isinstance(e, ast.Tuple):
        return all(_pure(x, stable) for x in e.elts)
    return False


def _has_slice(e: ast.expr) -> bool:
    return isinstance(e, ast.Slice) or (
        isinstance(e, ast.Tuple) and any(isinstance(x, ast.Slice) for x in e.elts)
    )


def _slice_parts(e: ast.expr) -> list[ast.expr]:
    """The values a slice (or a tuple of subscripts holding slices) is made of."""
    if isinstance(e, ast.Slice):
        return [x for x in (e.lower, e.upper, e.step) if x is not None]
    if isinstance(e, ast.Tuple):
        return [p for x in e.elts for p in _slice_parts(x)]
    return [e]


def _with_parts(e: ast.expr, done: dict[int, ast.Name]) -> ast.expr:
    """``e`` with the parts saved to temporaries replaced by them (see _slice_parts)."""
    if isinstance(e, ast.Slice):
        new = ast.Slice(*(None if x is None else _with_parts(x, done) for x in (e.lower, e.upper, e.step)))
    elif isinstance(e, ast.Tuple):
        new = ast.Tuple(elts=[_with_parts(x, done) for x in e.elts], ctx=e.ctx)
    else:
        return done.get(id(e), e)
    if hasattr(e, "_seq"):
        new._seq = e._seq
    return new


def _reusing(e: ast.AST, done: dict[int, ast.Name]) -> ast.AST:
    """``e`` with each part already saved to a temporary read from it: a value saved after
    another that it holds (`b[k()]` after `k()`, the key it was subscripted with, kept on the
    stack by a COPY) must not evaluate that part again.  Nodes are copied only on the way to a
    replaced part; ``e`` itself is left as it is."""
    if id(e) in done:
        return done[id(e)]
    new = None
    for field, old in ast.iter_fields(e):
        if isinstance(old, ast.AST):
            value = _reusing(old, done)
        elif isinstance(old, list):
            value = [_reusing(x, done) if isinstance(x, ast.AST) else x for x in old]
            if all(a is b for a, b in zip(value, old)):
                value = old
        else:
            continue
        if value is not old:
            new = new or copy.copy(e)
            setattr(new, field, value)
    return e if new is None else new


class AssignmentOps:
    """Walker mixin: assignments, parallel and chained, unpacking, and the values a statement must save first."""

    _COPY_IDIOM_NEXT = frozenset(
        {"COPY", "LOAD_ATTR", "COMPARE_OP", "ROT_THREE", "BINARY_SUBSCR", "BINARY_SLICE",
         "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
         "LOAD_METHOD"}
    )

    def copy_is_idiom(self, ins: Instr, value: Any) -> bool:
        """COPY shapes CPython uses for one source construct: chained and
        augmented assignment, walrus, chained comparison, and/or."""
        if not isinstance(value, ast.expr) or isinstance(value, (ast.Name, ast.Constant)):
            return True
        if isinstance(value, _MUTABLE_DISPLAYS):
            # one list used twice must not become two lists; `a = b = []`,
            # `(a := [])` and `x < [] < y` keep one object by construction
            return self._store_follows(ins.index + 1) or self._chain_link_copy(ins)
        nxt = self.ins[ins.index + 1].op if ins.index + 1 < self.n else ""
        if nxt in self._COPY_IDIOM_NEXT or self._chain_link_copy(ins):
            return True
        return self._store_follows(ins.index + 1)

    def _chain_link_copy(self, ins: Instr) -> bool:
        """The middle operand of a chained comparison: `SWAP 2; COPY 2; COMPARE_OP` (3.11+),
        `DUP_TOP; ROT_THREE; COMPARE_OP` (3.9/3.10)."""
        i = ins.index
        if i + 2 >= self.n:
            return False
        if ins.argval == 2:
            shape = i >= 1 and self.ins[i - 1].op == "SWAP" and self.ins[i - 1].argval == 2
            after = self.ins[i + 1]
        else:
            shape = self.ins[i + 1].op == "ROT_THREE"
            after = self.ins[i + 2]
        return shape and after.op in ("COMPARE_OP", "IS_OP", "CONTAINS_OP")

    def _store_follows(self, j: int) -> bool:
        """Is the value a COPY leaves stored next, once a store target (names, attributes,
        subscripts, calls: `globals()[k] = v = x`) is built above it?"""
        extra = 0
        for k in range(j, self.n):
            ins = self.ins[k]
            op = ins.op
            if op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CONST", "PUSH_NULL"):
                extra += 1
            elif op == "LOAD_ATTR" and extra >= 1:
                pass
            elif op == "LOAD_METHOD" and extra >= 1:
                extra += 1
            elif op == "BINARY_SUBSCR" and extra >= 2:
                extra -= 1
            elif op == "KW_NAMES":
                pass
            elif op in _CALL_OPERANDS or op in _BUILDS or op in _POPS_TO_ONE:
                # an expression inside the target: pops what lies above the value, pushes one
                if op in _POPS_TO_ONE:
                    pops = _POPS_TO_ONE[op]
                elif not isinstance(ins.argval, int):
                    return False
                elif op in _BUILDS:
                    pops = ins.argval * _BUILDS[op]
                else:
                    pops = ins.argval + _CALL_OPERANDS[op]
                if extra < pops:
                    return False
                extra -= pops - 1
            elif op in ("STORE_FAST", "STORE_GLOBAL", "STORE_NAME", "STORE_DEREF", "UNPACK_SEQUENCE", "UNPACK_EX"):
                return extra == 0  # (an unpacking: `a, b = c = x`)
            elif op == "STORE_ATTR":
                return extra == 1
            elif op == "STORE_SUBSCR":
                return extra == 2
            else:
                return False
        return False

    def spill(self, stmt: ast.stmt | None, stack: list | None = None) -> None:
        """A statement in the middle of an expression (Dynamo emits these):
        values already on the stack were evaluated before it, so they are
        saved to temporaries first.  Fast locals the statement does not
        assign cannot change and stay as they are; with no statement (a
        whole block of code follows) every local may change.  The values of a parallel
        assignment already popped and waiting for their stores (`a, b = b, a`) were evaluated
        before it too."""
        stack = self.cur_stack if stack is None else stack
        base = self._own_base(stack)
        waiting = [v for v, _ in self.parallel] if self.parallel else []
        if len(stack) <= base and not waiting:
            return  # (most statements: nothing is on the stack)
        assigned: set[str] | None = None  # names the statement binds: found once, if needed
        local = self.varnames
        chosen: dict[int, Any] = {}  # id -> value to save, each once
        sliced: list[int] = []  # stack positions holding slices whose parts are saved
        for k, v in enumerate(chain(stack[base:], waiting), base):
            t = type(v)  # (exact types: no subclass of these is ever made)
            if t is _CONSTANT:
                continue
            if t is _NAME:  # (most of a deep Dynamo stack: earlier spills, locals)
                if getattr(v, "is_spill", False):
                    continue
                if assigned is None:
                    assigned = _stored_names(stmt) if stmt is not None else self._all_locals()
                if (
                    v.id not in assigned
                    and (v.id in local or v.id.startswith(_DYNAMO_OWNED))
                    and v.id not in self.code.co_freevars
                    and not getattr(v, "may_be_unbound", False)
                ):
                    # a local the statement leaves alone; a global only Dynamo writes (a free
                    # variable's cell is shared: code the statement calls may rebind it; a
                    # local that may be unbound raises when loaded: the statement comes after)
                    continue
            elif t is _TUPLE or t is _SLICE:
                if assigned is None:
                    assigned = _stored_names(stmt) if stmt is not None else self._all_locals()
                if _has_slice(v) and k < len(stack):
                    # a slice has no spelling outside a subscript: its parts are saved instead
                    for part in _slice_parts(v):
                        if not _pure(part, local - assigned):
                            chosen.setdefault(id(part), part)
                    sliced.append(k)
                    continue
                if _pure(v, local - assigned):  # (other values are never _pure)
                    continue
            elif not isinstance(v, ast.expr):
                continue  # NULLs, iterators and the like: nothing a statement can change
            # (the same value twice on the stack: one temporary)
            chosen.setdefault(id(v), v)
        if chosen and self.assign_chains:
            # a value stored to names when it was made (`(w := e)`: COPY then STORE), then
            # kept on the stack: its stores came before the values saved here that were made
            # after it, so it is saved in its turn, as the assignment expression it was
            latest = max(getattr(v, "_seq", -1) for v in chosen.values())
            on_stack = {id(v) for v in stack[base:]}
            for v, targets in list(self.assign_chains.values()):
                if (
                    targets
                    and id(v) in on_stack
                    and getattr(v, "_seq", latest) < latest
                    and all(isinstance(t, ast.Name) for t in targets)
                ):
                    chosen.setdefault(id(v), v)
        if not chosen:
            return  # nothing to save
        own = stmt.value if isinstance(stmt, ast.Assign) else None
        if (
            own is not None
            and hasattr(own, "_seq")
            and not _pure(own, set())
            and any(getattr(v, "_seq", -1) > own._seq for v in chosen.values())
        ):
            # the statement's own value was evaluated before values saved here (`v = z = e`
            # from `(v := e)` stored again after later values): it is saved in its turn too
            chosen[id(own)] = own
        # saved in the order they were evaluated, which SWAPs may have changed on the stack
        values = list(chosen.values())
        seqs = [getattr(v, "_seq", None) for v in values]
        if None not in seqs:
            values.sort(key=lambda v: v._seq)
        elif [q for q in seqs if q is not None] != sorted(q for q in seqs if q is not None):
            raise self.fail("values on the stack in an evaluation order that cannot be recovered", kind=Refusal.STACK)
        done: dict[int, ast.Name] = {}
        for v in values:
            tmp = f"__pellucid_tmp{self.spilled}"
            self.spilled += 1
            saved = self.as_expr(v, None)
            if done:
                saved = _reusing(saved, done)
            self.block.append(ast.Assign([name(tmp, _STORE)], saved, lineno=0))
            ref = name(tmp)
            ref.is_spill = True
            ref._seq = getattr(v, "_seq", 0)
            done[id(v)] = ref
            if v is own and len(stmt.targets) > 1:
                # the targets before the last were stored when the value was made (`(v := e)`,
                # COPY then STORE), before the values saved after it: assigned here
                self.block.append(ast.Assign(stmt.targets[:-1], name(tmp), lineno=0))
                stmt.targets = stmt.targets[-1:]
        for k in range(base, len(stack)):
            if id(stack[k]) in done:
                stack[k] = done[id(stack[k])]
        for k in sliced:
            stack[k] = _with_parts(stack[k], done)
        if self.parallel:
            self.parallel = [(done.get(id(v), v), t) for v, t in self.parallel]
        if own is not None and id(own) in done:
            stmt.value = done[id(own)]

    def _own_base(self, stack: list) -> int:
        """Where the values this block pushed begin: the block's base, or lower where it popped
        values it started with and pushed its own in their place (Dynamo's code does, after a
        branch); a value there made twice would be two objects."""
        base = self.cur_base
        snapshot = self.cur_snapshot
        for k in range(min(base, len(stack), len(snapshot))):
            if stack[k] is not snapshot[k]:
                return k
        return min(base, len(stack)) if len(stack) < base else base

    def _all_locals(self) -> set[str]:
        """What a whole block of code may assign (see spill)."""
        return set(self.code.co_varnames) | set(self.code.co_cellvars) | set(self.code.co_freevars)

    def store(self, target: ast.expr, stack: list, ins: Instr) -> None:
        if not stack:
            raise self.fail("store with an empty stack", ins, kind=Refusal.STACK)
        value = stack.pop()
        if isinstance(value, V.UnpackSlot):
            self._store_slot(value, target, stack, ins)
            return
        if isinstance(value, V.ForItem):
            for lp in reversed(self.loops):
                if lp.item is value:
                    lp.target = target
                    return
            raise self.fail("loop item stored outside its loop", ins, kind=Refusal.LOOP)
        if isinstance(value, V.SavedLocal):
            return  # 3.12+ comprehension restoring a shadowed local
        if isinstance(target, ast.Name) and (
            (target.id == "__classdict__" and isinstance(value, V.ClassNamespace))
            or (
                target.id == "__classdictcell__"
                and isinstance(value, ast.Name)
                and value.id == "__classdict__"
            )
        ):
            return  # 3.12+: a class body keeps its namespace for its annotation scopes
        # 3.14+: a class or module body's compiler-made __annotate__ function is kept for
        # class_body / module_body, which write its annotations where they ran
        slot = _ANNOTATE_SLOTS.get((getattr(target, "id", None), getattr(self, "mode", None)))
        if (
            slot is not None
            and isinstance(value, V.FunctionValue)
            and value.code.co_name == "__annotate__"
        ):
            setattr(self, slot, value.code)
            return
        if (
            isinstance(target, ast.Name)
            and target.id == "__conditional_annotations__"
            and isinstance(value, ast.Set)
            and not value.elts
            and getattr(self, "mode", None) in ("module", "class")
        ):
            # 3.14+: the set in which the scope records which annotations ran
            self.module_records_annotations = True
            return
        if isinstance(value, V.TypeAliasValue):
            if not (isinstance(target, ast.Name) and target.id == value.name):
                raise self.fail(f"type alias {value.name} stored as another name", ins, kind=Refusal.DEFINITION)
            node = ast.TypeAlias(  # type: ignore[attr-defined] - 3.12+, where it is made
                name=ast.Name(id=value.name, ctx=ast.Store()),
                type_params=value.type_params,
                value=value.value,
            )
            self.emit(node)
            return
        if isinstance(value, V.ImportedModule):
            self._store_import(value, target, ins)
            return
        if isinstance(value, V.ImportedName):
            mod = value.module
            if mod.fromlist in (None, ()) or "." in value.name:
                # import a.b.c as d
                if mod.level or not isinstance(target, ast.Name):
                    raise self.fail("unrecognized import", ins, kind=Refusal.EXPRESSION)
                self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=target.id)])))
                mod.done = True
                return
            value.module.names.append(
                ast.alias(name=value.name, asname=None if target.id == value.name else target.id)
            )
            return
        if isinstance(value, V.FunctionValue):
            if self._store_function(value, target, ins):
                return
        if isinstance(value, InPlace):
            loaded = value.target
            if getattr(loaded, "is_spill", False) and not (
                isinstance(target, ast.Name) and target.id == loaded.id
            ):
                # the place was read before a statement inside the value and saved (`b[k] -= e`
                # whose e holds a branch): operate on the saved value, then store it; reading
                # the place again would call its __getitem__ or getter twice
                self.emit(ast.AugAssign(target=name(loaded.id, _STORE), op=value.op, value=value.value))
                self.emit(ast.Assign([store_ctx(target)], name(loaded.id), lineno=0))
                return
            place = augmented_target(value, store_ctx(target))
            self.emit(ast.AugAssign(target=place, op=value.op, value=value.value))
            return
        # `a = b = value`: the same object is still on the stack
        if V.holds(stack, value):
            self.assign_chains.setdefault(id(value), (value, []))[1].append(target)
            return
        targets = self.assign_chains.pop(id(value), (None, []))[1] + [target]
        if len(targets) == 1 and (
            self.parallel or (self._more_values_pending(stack) and self._parallel_ahead(ins, stack))
        ):
            # `a, b = b, a`: several values pushed, then stored one by one
            self.parallel = (self.parallel or []) + [(value, target)]
            if self._more_values_pending(stack):
                return
            pairs = sorted(self.parallel, key=lambda p: getattr(p[0], "_seq", 0))
            self.parallel = None
            self.emit(
                ast.Assign(
                    targets=[ast.Tuple(elts=[store_ctx(t) for _, t in pairs], ctx=ast.Store())],
                    value=ast.Tuple(elts=[self.as_expr(v, ins) for v, _ in pairs], ctx=ast.Load()),
                    lineno=0,
                )
            )
            return
        self.emit(ast.Assign(targets, self.as_expr(value, ins), lineno=0))

    def _parallel_ahead(self, ins: Instr, stack: list) -> bool:
        """Are the values left on the stack stored by the instructions that follow
        (`a, b = b, a`), with nothing but store targets built in between?"""
        need = sum(map(isinstance, stack[self.cur_base :], repeat(ast.expr)))  # (values, no frame each)
        extra = 0
        for j in range(ins.index + 1, self.n):
            op = self.ins[j].op
            if op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CONST"):
                extra += 1
            elif op == "LOAD_ATTR" and extra >= 1:
                pass
            elif op == "BINARY_SUBSCR" and extra >= 2:
                extra -= 1
            elif op in ("SWAP", "ROT_THREE", "ROT_FOUR") and extra == 0:
                pass
            elif op in ("STORE_FAST", "STORE_GLOBAL", "STORE_NAME", "STORE_DEREF") and extra == 0:
                need -= 1
            elif op == "STORE_ATTR" and extra == 1:
                extra, need = 0, need - 1
            elif op == "STORE_SUBSCR" and extra == 2:
                extra, need = 0, need - 1
            elif op == "UNPACK_SEQUENCE" and extra == 0:
                need += self.ins[j].arg - 1  # `(a, b), c = x, y`: one value, several stores
            elif op == "UNPACK_EX" and extra == 0:
                need += (self.ins[j].arg & 0xFF) + (self.ins[j].arg >> 8)
            else:
                return False
            if need == 0:
                return extra == 0
        return False

    def _more_values_pending(self, stack: list) -> bool:
        return len(stack) > self.cur_base and isinstance(stack[-1], ast.expr)

    def _store_import(self, mod: V.ImportedModule, target: ast.expr, ins: Instr) -> None:
        if mod.fromlist not in (None, ()):
            raise self.fail("store of a from-import module", ins, kind=Refusal.EXPRESSION)
        top = mod.name.split(".")[0]
        if not isinstance(target, ast.Name):
            raise self.fail("import stored to a non-name", ins, kind=Refusal.EXPRESSION)
        if target.id == top and mod.level == 0:
            self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=None)])))
        else:
            if mod.level:
                raise self.fail("relative plain import", ins, kind=Refusal.EXPRESSION)
            self.emit(mod.statement(ast.Import(names=[ast.alias(name=mod.name, asname=target.id)])))

    def note_unpack(self, group: V.UnpackGroup) -> None:
        group.block = self.block
        group.after = self.block[-1] if self.block else None

    def unpacked_value(self, slot: V.UnpackSlot, ins: Instr | None) -> ast.expr:
        """An unpacked value used as an expression, not stored (Dynamo does this: `(x,) = f()`
        kept on the stack): the unpacking is written where it ran, into temporaries for the
        values not stored yet, and the value is its temporary."""
        group = slot.group
        if group.names is None:
            if group.parent is not None or group.block is not self.block:
                raise self.fail("cannot use UnpackSlot as an expression", ins, kind=Refusal.STACK)
            at = 0
            if group.after is not None:
                at = next((k + 1 for k, st in enumerate(self.block) if st is group.after), None)
                if at is None:
                    raise self.fail("cannot use UnpackSlot as an expression", ins, kind=Refusal.STACK)
            group.names = []
            elts = []
            for k, t in enumerate(group.targets):
                if t is not None:  # stored already: written in place, as the unpacking would
                    group.names.append(None)
                    elts.append(store_ctx(t))
                    continue
                tmp = f"__pellucid_tmp{self.spilled}"
                self.spilled += 1
                group.names.append(tmp)
                t = name(tmp, ast.Store())
                elts.append(ast.Starred(value=t, ctx=ast.Store()) if group.star_index == k else t)
            value = self.as_expr(group.source, ins)
            target = ast.Tuple(elts=elts, ctx=ast.Store())
            self.block.insert(at, ast.Assign(targets=[target], value=value, lineno=0))
        if group.names[slot.index] is None:
            raise self.fail("unpacked value used after it was stored", ins, kind=Refusal.EXPRESSION)
        ref = name(group.names[slot.index])
        ref.is_spill = True
        return ref

    def _store_slot(self, slot: V.UnpackSlot, target: ast.expr, stack: list, ins: Instr) -> None:
        group = slot.group
        if group.names is not None:  # unpacked into temporaries already
            if group.targets[slot.index] is not None:
                raise self.fail("unpacked value stored twice", ins, kind=Refusal.EXPRESSION)
            group.targets[slot.index] = target
            self.emit(ast.Assign(targets=[store_ctx(target)], value=self.unpacked_value(slot, ins), lineno=0))
            return
        if group.star_index == slot.index:
            target = ast.Starred(value=target, ctx=ast.Store())
        group.targets[slot.index] = target
        if not group.complete():
            return
        tup = ast.Tuple(elts=[store_ctx(t) for t in group.targets], ctx=ast.Store())
        if group.parent is not None:
            self._store_slot(group.parent, tup, stack, ins)
            return
        src = group.source
        if isinstance(src, V.ForItem):
            stack.append(src)
            self.store(tup, stack, ins)
            return
        stack.append(src)
        self.store(tup, stack, ins)

    def _pending(self, stack: list) -> bool:
        local = set(self.code.co_varnames)
        return any(
            isinstance(v, ast.expr) and not _pure(v, local) for v in stack[self.cur_base :]
        )
