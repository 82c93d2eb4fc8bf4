"""Guards as readable Python that always compiles.

Dynamo (torch 2.13) evaluates guards in C++; its ``code_parts`` are descriptions, mostly Python
expressions over ``L`` (frame locals) and ``G`` (globals) plus helpers from the guard closure,
but some are not Python at all (``___check_global_state() against {...}``,
``... top_saved_tensors_hooks ids == None``, ``___check_obj_id(...), type=<class 'module'>``).
Each part becomes one term of the returned conjunction; the Python prefix of a part is kept as
code and the rest as a comment, and a part with no Python prefix becomes ``True`` with the
whole text as a comment.  A term that would bind looser than ``and`` (a ternary, ``or``, a
lambda, a tuple) is parenthesized, and a term containing ``await`` or ``yield`` stays a comment,
so the function compiles by construction: no parse of the whole on every cache entry.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass

# Suffixes Dynamo appends to a Python expression; what follows them is description.
_SPLITTERS = (" against ", ", type=", "  #", " # ")


@dataclass(frozen=True)
class GuardTerm:
    code: str  # a Python expression ("True" when the part is not Python)
    comment: str  # what was not Python (empty when the part was)
    original: str

    @property
    def is_python(self) -> bool:
        return not self.comment


# Expressions that can stand as an operand of ``and`` without parentheses, same meaning.
_TIGHT = (
    ast.Compare, ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.UnaryOp,
    ast.BinOp, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.JoinedStr,
)


def _term(text: str) -> tuple[str, str] | None:
    """(an ``and`` operand for ``text``, its trailing comment) if ``text`` is one Python
    expression on one line that a plain function may contain, else None."""
    if not text or "\n" in text or "\r" in text:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if ("await" in text or "yield" in text) and any(
        isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(node)
    ):  # the substring test first: walking every part's tree costs as much as parsing it
        return None
    comment = ""
    if "#" in text:  # a comment would swallow the closing parenthesis or the next operand
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    comment = text[tok.start[1] :].lstrip("#").strip()
                    text = text[: tok.start[1]].rstrip()
                    break
        except (tokenize.TokenError, SyntaxError):
            return None
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) or isinstance(node, _TIGHT):
        return text, comment
    return f"({text})", comment


# A part's shape: its text with the contents of plain string literals and the decimal integers
# made uniform.  Parts that differ only there (the same check on another local, another object
# id) parse alike, so one parse serves them all: a fresh process meets dozens of parts of a
# few shapes (every tensor's hasattr checks, every module's id check).  Those tokens keep their
# kinds and order, and no splitter can be made or lost in them, so the verdict carries over.
# (Each quote's literals by a regex of its own with a fixed replacement: a template with a group
# reference costs several times more, and a fresh process shapes every part it meets.  A plain
# literal holds no quote, so the two passes find the literals one pass with either quote would.)
_SINGLE_QUOTED = re.compile(r"'[A-Za-z0-9_.]*'")
_DOUBLE_QUOTED = re.compile(r'"[A-Za-z0-9_.]*"')
_DECIMAL = re.compile(r"(?<![\w.])[1-9][0-9]*(?![\w.])")
_VERDICTS: dict[str, tuple] = {}
_VERDICTS_MAX = 4096


def _shape(text: str) -> str | None:
    if "\\" in text or "'''" in text or '"""' in text:
        return None  # escapes and triple quotes: no shape, parsed as they are
    if "'" in text:
        text = _SINGLE_QUOTED.sub("'_'", text)
    if '"' in text:
        text = _DOUBLE_QUOTED.sub('"_"', text)
    return _DECIMAL.sub("1", text)


def _verdict(text: str) -> tuple:
    """How ``text`` becomes a term: ("whole", parenthesize), ("split", splitter, parenthesize),
    ("none",), or ("as_is", code, comment) when it carries its own comment (not shared)."""
    whole = _term(text)
    if whole is not None:
        code, comment = whole
        if comment:
            return ("as_is", code, comment)
        return ("whole", code != text)
    for sep in _SPLITTERS:
        if sep in text:
            head = text.partition(sep)[0].strip()
            term = _term(head)
            if term is not None and not term[1]:
                return ("split", sep, term[0] != head)
    return ("none",)


@functools.lru_cache(maxsize=4096)
def translate_part(part: str) -> GuardTerm:
    """One guard code part -> a Python term plus a comment for the untranslatable rest.
    Cached: every recompilation repeats most parts, and the index asks again."""
    text = part.strip()
    key = _shape(text)
    verdict = _VERDICTS.get(key) if key is not None else None
    if verdict is None:
        verdict = _verdict(text)
        if key is not None and verdict[0] != "as_is":
            if len(_VERDICTS) >= _VERDICTS_MAX:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
    kind = verdict[0]
    if kind == "as_is":
        return GuardTerm(verdict[1], verdict[2], part)
    if kind == "whole":
        return GuardTerm(f"({text})" if verdict[1] else text, "", part)
    if kind == "split":
        head = text.partition(verdict[1])[0]
        code = head.strip()
        comment = text[len(head) :].strip().lstrip(",").strip()
        return GuardTerm(f"({code})" if verdict[2] else code, comment, part)
    return GuardTerm("True", text, part)


def one_line(text: str) -> str:
    """``text`` fit for the rest of a comment line (line breaks would end the comment)."""
    return " ".join(str(text).split())


def guard_function_source(
    name: str, parts: list[str], *, title: str = "", failed: list[str] | None = None
) -> str:
    """``def name(L, G, **___kwargs_ignored): return <conjunction>`` with comments; always compiles."""
    terms = [translate_part(p) for p in parts]
    lines: list[str] = []
    if title:
        for t in title.splitlines():
            lines.append(f"# {t}".rstrip())
    if failed:
        lines.append("# This cache entry's guard failed on a later call:")
        for reason in failed:
            for t in reason.splitlines():
                lines.append(f"#   {t}".rstrip())
    lines.append(f"def {name}(L, G, **___kwargs_ignored):")
    if not terms:
        lines.append("    return True")
    else:
        lines.append("    return (")
        for i, t in enumerate(terms):
            tail = f"  # {one_line(t.comment)}" if t.comment else ""
            if t.code == "True" and t.comment:
                tail = f"  # not Python in torch's description: {one_line(t.comment)}"
            joiner = "        " if i == 0 else "        and "
            lines.append(f"{joiner}{t.code}{tail}")
        lines.append("    )")
    return "\n".join(lines) + "\n"  # compiles by construction (module docstring)
