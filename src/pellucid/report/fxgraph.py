"""Read an FX graph back from the Python file pellucid dumped for it.

A dumped graph stage is the ``forward`` FX generated: parameters are placeholders, each
assignment is one node (``add: "f32[3]" = torch.add(x, y);  x = None``), ``return`` is the output.
This module turns that code into nodes and data-flow edges with :mod:`ast`, without importing
torch, so the report can draw any stage of any dump.  Inductor's output code is not an FX graph
and yields no nodes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

__all__ = ["FxGraph", "FxNode", "parse_fx_graph"]

_SOURCE_COMMENT = re.compile(
    r"#\s*File:\s*(?P<file>.+?):(?P<line>\d+) in (?P<fn>\S+), code: (?P<code>.*)$"
)
_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}


@dataclass
class FxNode:
    name: str
    op: str  # placeholder, call, output, getitem, get_attr, ...
    target: str  # what it calls ("aten.addmm", "cos", "+"), or the placeholder's name
    lineno: int  # line in the dumped file
    type: str | None = None  # the annotation FX printed, e.g. "f32[5, 16]"
    inputs: list[str] = field(default_factory=list)
    user_code: str | None = None  # "file.py:12: x = a + b" from FX's "# File:" comments


@dataclass
class FxGraph:
    nodes: list[FxNode]
    edges: list[tuple[str, str]]

    @property
    def op_count(self) -> int:
        return sum(1 for n in self.nodes if n.op not in ("placeholder", "output"))


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _target_label(value: ast.AST) -> tuple[str, str]:
    """(op, target) for the right-hand side of one FX assignment."""
    if isinstance(value, ast.Call):
        func = value.func
        name = _dotted(func)
        if name is not None:
            for prefix in ("torch.ops.", "torch._ops.ops."):
                if name.startswith(prefix):
                    parts = name[len(prefix) :].split(".")  # aten.addmm.default
                    return "call_function", ".".join(parts[:2])
            if name.startswith("self."):
                return "call_module", name[5:]
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id
                not in (
                    "torch",
                    "operator",
                    "math",
                    "builtins",
                    "fx_pytree",
                    "pytree",
                )
            ):
                return "call_method", func.attr
            return "call_function", name
        if isinstance(func, ast.Attribute):
            return "call_method", func.attr
        return "call_function", "call"
    if isinstance(value, ast.BinOp):
        return "call_function", _BINOPS.get(type(value.op), type(value.op).__name__)
    if isinstance(value, ast.UnaryOp):
        return "call_function", {
            ast.USub: "neg",
            ast.Not: "not",
            ast.Invert: "~",
            ast.UAdd: "+",
        }.get(type(value.op), "unary")
    if isinstance(value, ast.Compare):
        return "call_function", "compare"
    if isinstance(value, ast.Subscript):
        return "getitem", "getitem"
    if isinstance(value, ast.Attribute):
        name = _dotted(value) or value.attr
        return "get_attr", name[5:] if name.startswith("self.") else name
    if isinstance(value, ast.Constant):
        return "constant", repr(value.value)[:40]
    return "call_function", type(value).__name__


def _names(node: ast.AST) -> list[str]:
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in out:
            out.append(sub.id)
    return out


def _annotation(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def parse_fx_graph(source: str, max_nodes: int = 5000) -> FxGraph | None:
    """Nodes and edges of the first ``forward`` in ``source``; None if there is none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    fn = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("forward", "call")),
        None,
    )
    if fn is None or fn.name != "forward":
        return None
    lines = source.splitlines()
    comment_for_line: dict[int, str] = {}
    pending = None
    for i, text in enumerate(lines, 1):
        m = _SOURCE_COMMENT.search(text.strip())
        if m:
            pending = f"{m.group('file').strip()}:{m.group('line')}: {m.group('code').strip()}"
            continue
        if text.strip() and not text.strip().startswith("#") and pending:
            comment_for_line[i] = pending

    nodes: dict[str, FxNode] = {}
    alias: dict[str, str] = {}
    types: dict[str, str] = {}
    order: list[str] = []

    def resolve(name: str) -> str | None:
        seen = 0
        while name in alias and seen < 100:
            name = alias[name]
            seen += 1
        return name if name in nodes else None

    def add(node: FxNode) -> None:
        if node.name in nodes:
            node.name = f"{node.name}#{len(nodes)}"
        nodes[node.name] = node
        order.append(node.name)

    for a in fn.args.posonlyargs + fn.args.args:
        if a.arg != "self":
            add(FxNode(a.arg, "placeholder", a.arg, a.lineno, _annotation(a.annotation)))
    if fn.args.vararg:
        add(FxNode(fn.args.vararg.arg, "placeholder", fn.args.vararg.arg, fn.lineno))

    for stmt in fn.body:
        if len(nodes) > max_nodes:
            break
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            if isinstance(stmt.target, ast.Name):
                t = _annotation(stmt.annotation)
                if t:
                    types[stmt.target.id] = t
            continue
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            targets: list[ast.AST] = [stmt.target]
            value = stmt.value
            ann = _annotation(stmt.annotation)
        elif isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
            value = stmt.value
            ann = None
        elif isinstance(stmt, ast.Return):
            out = FxNode("output", "output", "output", stmt.lineno)
            out.inputs = (
                [r for r in (resolve(n) for n in _names(stmt.value)) if r] if stmt.value else []
            )
            add(out)
            continue
        else:
            continue
        assert value is not None
        if isinstance(value, ast.Constant) and value.value is None:
            continue  # "x = None": FX frees a value
        flat: list[str] = []
        for t in targets:
            if isinstance(t, ast.Name):
                flat.append(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                flat.extend(e.id for e in t.elts if isinstance(e, ast.Name))
        if not flat:
            continue
        if len(flat) == 1 and isinstance(value, ast.Name) and resolve(value.id):
            alias[flat[0]] = value.id  # "l_x_ = L_x_"
            continue
        inputs = [r for r in (resolve(n) for n in _names(value)) if r]
        if len(flat) > 1 and inputs and all(nodes[i].op == "placeholder" for i in inputs):
            # "a, b, = fx_pytree.tree_flatten_spec([primals, tangents], ...)": the real inputs
            for i in inputs:
                del nodes[i]
                order.remove(i)
            for n in flat:
                add(FxNode(n, "placeholder", n, stmt.lineno, types.get(n)))
            continue
        op, target = _target_label(value)
        for n in flat:
            node = FxNode(n, op, target, stmt.lineno, ann or types.get(n), list(inputs))
            node.user_code = comment_for_line.get(stmt.lineno)
            add(node)
    edges = [(i, n) for n in order for i in nodes[n].inputs if i in nodes]
    return FxGraph([nodes[n] for n in order], edges)
