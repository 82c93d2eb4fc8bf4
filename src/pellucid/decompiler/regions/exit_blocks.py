"""Small exit blocks that compilers copy into each path reaching them.

3.10+ copy a short block ending in ``return`` (or ``raise``) into every predecessor instead
of jumping to it, and lay some copies out past the block that reaches them.  A reading
meets such a copy where a jump was expected; it says the copied code once, where control
leaves for it, and retires the other copies (marks them unreachable).
"""

from __future__ import annotations

import ast

from pellucid.decompiler.instructions import TABLE, TERMINAL, arg_key
from pellucid.decompiler.regions.exc_markers import _ends_in_jump

# 3.13 forms these after copying blocks: they count as the two they were
_FORMED_AFTER_COPIES = frozenset(
    {"RETURN_CONST", "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"}
)


class ExitBlockOps:
    """Walker mixin: small return blocks copied per path, said once and retired."""

    def _exit_key(self, i: int) -> tuple | None:
        """Key of a small `return <load>` block: 3.11+ copies these per predecessor."""
        ops = []
        for k in range(i, min(i + 3, self.n)):
            ins = self.ins[k]
            if k > i and self._is_target(k):
                return None
            ops.append((ins.op, arg_key(ins.argval)))
            if ins.op == "RETURN_VALUE":
                return tuple(ops)
            if ins.op not in ("LOAD_CONST", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF"):
                return None
        return None

    def _same_place(self, t: int) -> set[int]:
        """``t`` and, if it holds an unconditional jump, where that leads."""
        if t < self.n and self.ins[t].op == "JUMP":
            return {t, self.ins[t].target}
        return {t}

    def _terminal_len(self, X: int) -> int | None:
        """Length of the straight block at X ending in return/raise, if small."""
        for k in range(X, min(X + 8, self.n)):
            ins = self.ins[k]
            if ins.target is not None or (k > X and self._is_target(k)):
                return None
            if ins.op in TERMINAL:
                return k - X + 1
        return None

    def _exit_copy_len(self, target: int, jumps: set[int] | None = None) -> int | None:
        """Length of the small `return <load>` block at ``target`` when only
        ``jumps`` (None: any jumps) reach it, nothing falling into it: 3.10+ copy such
        exits into each path that ends the function, and lay some copies out after the
        enclosing block."""
        key = self._exit_key(target)
        if key is None or not self._reached_only_by(target, jumps):
            return None
        return len(key)

    def _reached_only_by(self, target: int, jumps: set[int] | None) -> bool:
        """Nothing falls into ``target``, and only ``jumps`` (None: any jumps) reach it."""
        if target > 0 and self.ins[target - 1].op not in TERMINAL | {"JUMP"}:
            return False
        return jumps is None or not any(i.target == target and i.index not in jumps for i in self.ins)

    def _exit_copy_stmts(self, target: int, size: int, stack: list) -> list[ast.stmt]:
        """The statements of the copied exit block [target, target + size)."""
        body, _ = self.walk(target, target + size, list(stack), frozenset())
        return body

    def _emit_exit_copy(self, target: int, size: int, stack: list) -> None:
        """Say the copied exit block where control leaves for it, and retire the copy."""
        body = self._exit_copy_stmts(target, size, stack)
        for stmt in body:
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                stmt.implicit_copy = True  # copied per path: the function's implicit return
            self.emit(stmt)
        for k in range(target, target + size):
            self.reachable[k] = False

    def _if_into_exit_copy(
        self, expr: ast.expr, T: int, F: int, stack: list, stop: int, exits: frozenset
    ) -> int | None:
        """``if t: <body ending the function>`` as the last statement of a block
        whose false exit is a copied `return` laid out past the block (3.10+)."""
        chain, _ = self.last_chain
        jumps = {b.jump for b in chain}
        size = self._exit_copy_len(F, jumps)
        if size is None:
            # (the copy of a try's normal exit, its finally body then the return: the
            # return is said here, the finally body runs on the way out)
            size = self._finally_exit_copy_len(F, jumps)
        if size is None:
            return None
        then_body, st = self.walk(T, stop, list(stack), exits)
        if not _ends_in_jump(then_body) or isinstance(then_body[-1], (ast.Break, ast.Continue)):
            return None
        self.emit(ast.If(test=expr, body=then_body, orelse=[]))
        self._emit_exit_copy(F, size, stack)
        return stop

    def _finally_exit_copy_len(self, F: int, jumps: set[int]) -> int | None:
        """3.12+: the length of a finally body's copy at F followed by a copied `return`,
        reached only by ``jumps``: the copy of a try statement's normal exit that ends the
        function, laid out past the block of the `if` whose false exit it is."""
        c = getattr(self, "_copies", {}).get(F)
        if not TABLE.copies_exits_without_line or c is None or c.kind != "finally" or not self._reached_only_by(F, jumps):
            return None
        key = self._exit_key(F + c.length)
        if key is None or len(key) != 2 or key[0][0] != "LOAD_CONST":
            return None  # (a constant: said before the finally body runs, the same value)
        return c.length + len(key)

    def _first_terminal(self, k: int) -> int:
        """Index of the first reachable return or raise at or after ``k`` (``n`` if none)."""
        while k < self.n and not (self.reachable[k] and self.ins[k].op in TERMINAL):
            k += 1
        return k

    def _is_finally_end_jump(self, k: int) -> bool:
        """Is k a re-raise ending a finally body's exception-path copy that
        ``_merge_finally_exits`` turned into a jump to the copy's last re-raise?"""
        i = self.ins[k]
        return i.op == "JUMP" and i.raw == "JUMP (finally end)" and i.target is not None and i.target > k

    def _copy_size(self, lo: int, hi: int) -> int:
        """Size of [lo, hi) as the compiler counts it when it copies blocks:
        3.12 has formed RETURN_CONST by then, 3.13 has not formed its
        super-instructions yet."""
        n = 0
        seen = set()
        for k in range(lo, hi):
            ins = self.ins[k]
            if ins.offset in seen and not (TABLE.forms_superinstructions_after_copies and ins.raw in _FORMED_AFTER_COPIES):
                continue  # one instruction split in two (LOAD_GLOBAL's NULL)
            seen.add(ins.offset)
            n += 1
        return n
