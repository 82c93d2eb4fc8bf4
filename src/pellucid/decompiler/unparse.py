"""``ast.unparse``, the same text, faster: the decompiler unparses every tree it makes,
and ast's unparser spends most of its time finding methods and making context managers.

Also the 3.9-3.11 fallback for an f-string whose expression holds a backslash, which those
versions' f-strings cannot spell.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any

from pellucid.decompiler.errors import DecompilationError, Refusal

try:  # 3.14+: ast.unparse's unparser lives in a module of its own
    from _ast_unparse import Unparser as _AstUnparser  # type: ignore[import-not-found]
    from _ast_unparse import _Precedence  # type: ignore[import-not-found]
except ImportError:
    _AstUnparser = getattr(ast, "_Unparser", None)
    _Precedence = getattr(ast, "_Precedence", None)


if _AstUnparser is not None:

    class _Delimit:
        """What ``ast._Unparser.delimit`` makes with ``@contextmanager`` (a generator and a
        wrapper per bracket pair): ``start`` written on entry, ``end`` on exit."""

        __slots__ = ("_end", "_start", "_write")

        def __init__(self, write: Any, start: str, end: str) -> None:
            self._write, self._start, self._end = write, start, end

        def __enter__(self) -> None:
            self._write(self._start)

        def __exit__(self, *exc: object) -> None:
            self._write(self._end)

    _REPR_CONSTANTS = frozenset({int, bool, type(None)})
    _NUMBERS = (int, float, complex)

    def _signed(value: Any) -> bool:
        """Whether a constant is written with a leading sign (``-1``, ``-0.0``, ``-inf``,
        ``-1j``): then its text is a unary minus expression, not an atom."""
        return isinstance(value, _NUMBERS) and not isinstance(value, bool) and repr(value).startswith("-")

    class _Unparser(_AstUnparser):  # type: ignore[misc,valid-type]
        """``ast.unparse``'s own unparser, the same methods and output in about two thirds of
        the time: its per-node method lookup is cached by node class (``NodeVisitor.visit``
        builds the method name and looks it up for every node), names and simple constants
        are written without a method call, its bracket context managers are plain objects, and
        statements need no ``lineno`` (only read to look up type-ignore comments, of which a
        built tree has none)."""

        _methods: dict[type, Any] = {}

        def traverse(self, node: Any) -> None:
            cls = node.__class__
            if cls is ast.Name:  # (a third of the nodes: visit_Name, inline)
                self._source.append(node.id)
                return
            if cls is ast.Constant and node.kind is None:
                # visit_Constant's common case, inline: repr() of an int, bool, None, or a
                # str outside an f-string (where 3.9-3.12 avoid backslashes)
                value = node.value
                typ = type(value)
                if (typ in _REPR_CONSTANTS and not (typ is int and value < 0)) or (
                    typ is str and not getattr(self, "_avoid_backslashes", False)
                ):
                    self._source.append(repr(value))
                    return
            if cls is list:
                for item in node:
                    self.traverse(item)
                return
            method = self._methods.get(cls)
            if method is None:
                cls = type(self)
                method = getattr(cls, "visit_" + node.__class__.__name__, cls.generic_visit)
                self._methods[node.__class__] = method
            method(self, node)

        def visit_Constant(self, node: ast.Constant) -> None:
            # ast's unparser writes every constant as an atom; one written with a sign binds
            # like a unary minus, so it is bracketed where a tighter operand stands
            # (`(-1) ** n`, `(-0.0).hex()`), not read back as `-(1 ** n)`
            if _signed(node.value):
                with self.require_parens(_Precedence.FACTOR, node):
                    super().visit_Constant(node)
            else:
                super().visit_Constant(node)

        def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
            source = self._source
            mark = len(source)
            try:
                super().visit_JoinedStr(node)
            except ValueError:
                # 3.9-3.11 cannot put a backslash in an f-string's expression; CPython 3.11
                # compiles `'%s' % (a, '\\n'.join(b))` to f-string code: write that again
                # (the failed attempt may have left a buffer of its own as _source)
                self._source = source
                del source[mark:]
                text = _percent_format(node)
                self.set_precedence(self.get_precedence(node), text)
                self.traverse(text)

        def fill(self, text: str = "", *, allow_semicolon: bool = True) -> None:
            # (allow_semicolon, 3.14+: joins statements of an ast.Interactive, never unparsed here)
            source = self._source  # (maybe_newline and write, inline: once per statement)
            if source:
                source.append("\n")
            source.append("    " * self._indent + text)

        def delimit(self, start: str, end: str) -> _Delimit:
            return _Delimit(self.write, start, end)

        def delimit_if(self, start: str, end: str, condition: bool) -> Any:
            return _Delimit(self.write, start, end) if condition else contextlib.nullcontext()

        def get_type_comment(self, node: Any) -> str | None:
            ignores = self._type_ignores
            comment = (ignores.get(node.lineno) if ignores else None) or node.type_comment
            return None if comment is None else f" # type: {comment}"

    _PERCENT = {ord("s"): "%s", ord("r"): "%r", ord("a"): "%a"}

    def _percent_format(node: ast.JoinedStr) -> ast.BinOp:
        """``f'{a!s} {b!r}'`` as ``'%s %r' % (a, b)``, which compiles to the same code (the
        3.11+ compiler turns such %-formatting into f-string code), for an f-string no
        source can spell; a DecompilationError if it has parts %-formatting cannot say."""
        text: list[str] = []
        items: list[ast.expr] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text.append(part.value.replace("%", "%%"))
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion in _PERCENT:
                text.append(_PERCENT[part.conversion])
                items.append(part.value)
            else:
                raise DecompilationError(
                    "an f-string whose expression holds a backslash, which this Python's "
                    "f-strings cannot spell",
                    kind=Refusal.NO_SOURCE,
                )
        return ast.BinOp(
            left=ast.Constant(value="".join(text)), op=ast.Mod(), right=ast.Tuple(elts=items, ctx=ast.Load())
        )

    def unparse(tree: ast.AST) -> str:
        """``ast.unparse(tree)``, the same text, faster (see ``_Unparser``)."""
        return _Unparser().visit(tree)

else:  # pragma: no cover - a Python without ast's private unparser class

    def unparse(tree: ast.AST) -> str:
        return ast.unparse(with_statement_lines(tree))


def with_statement_lines(node: ast.AST) -> ast.AST:
    """``ast.unparse`` reads ``lineno`` of statements (for type comments) and nothing
    else: set it on statements only, far cheaper than ``fix_missing_locations``
    (:func:`unparse` needs none)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.stmt) and not hasattr(n, "lineno"):
            n.lineno = 0
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            items = getattr(n, field, None)
            if isinstance(items, list):
                todo.extend(items)
    return node
