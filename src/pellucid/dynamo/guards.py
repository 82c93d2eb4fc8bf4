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
import re
import warnings
from dataclasses import dataclass

# Suffixes Dynamo appends to a Python expression; what follows them is description.
_SPLITTERS = (" against ", ", type=", "  #", " # ")
_ENDS_PYTHON = (" against ", ", type=")  # (see _verdict)


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


def _term(text: str) -> tuple[bool, int] | None:
    """If ``text`` is one Python expression on one line that a plain function may contain:
    (whether it needs parentheses as an ``and`` operand, where its trailing comment starts or
    -1), else None."""
    if not text or "\n" in text or "\r" in text:
        return None
    try:
        with warnings.catch_warnings():  # (an invalid escape in a string: not the user's)
            warnings.simplefilter("ignore")
            node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if ("await" in text or "yield" in text) and any(
        isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(node)
    ):  # the substring test first: walking every part's tree costs as much as parsing it
        return None
    comment_at = -1
    if "#" in text:  # a comment would swallow the closing parenthesis or the next operand
        # After the expression only closing parentheses and blanks come before a comment, and
        # none of them is a string: the first "#" past its end starts the comment.
        end = node.end_col_offset or 0  # (in UTF-8 bytes)
        if not text.isascii():
            end = len(text.encode("utf-8")[:end].decode("utf-8", "ignore"))
        comment_at = text.find("#", end)
    tight = isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) or isinstance(node, _TIGHT)
    return not tight, comment_at


# A part's shape: its text with the contents of plain string literals, the decimal integers and
# the constants True, False and None made uniform, and a list display of decimal integers made
# one long.  Parts that differ only there (the same check on another local, another object id,
# a tensor of another rank) parse alike, so one parse serves them all: a fresh process meets
# dozens of parts of a few shapes (every tensor's check_tensor and hasattr checks, every
# module's id check), and a parse of a long part costs 50 us there.  Those tokens keep their
# kinds (True and False in a name stay in a name), a list display stays one, and no splitter
# or "#" can be made or lost in them, so the verdict, and where it splits, carries over.
# (Each quote's literals by a regex of its own with a fixed replacement: a template with a
# group reference costs several times more, and a fresh process shapes every part it meets.
# A plain literal holds no quote, so the two passes find the literals one pass with either
# quote would.)
_SINGLE_QUOTED = re.compile(r"'[A-Za-z0-9_.]*'")
_DOUBLE_QUOTED = re.compile(r'"[A-Za-z0-9_.]*"')
_DECIMAL = re.compile(r"(?<![\w.])[1-9][0-9]*(?![\w.])")
_INT_LIST = re.compile(r"\[1(?:, 1)+\]")
_VERDICTS: dict[str, tuple] = {}
_VERDICTS_MAX = 4096


def _shape(text: str) -> str | None:
    if "\\" in text or "'''" in text or '"""' in text:
        return None  # escapes and triple quotes: no shape, parsed as they are
    if "'" in text:
        text = _SINGLE_QUOTED.sub("'_'", text)
    if '"' in text:
        text = _DOUBLE_QUOTED.sub('"_"', text)
    text = _DECIMAL.sub("1", text).replace("True", "None").replace("False", "None")
    return _INT_LIST.sub("[1]", text) if "[1, 1" in text else text


def _verdict(text: str) -> tuple:
    """How ``text`` becomes a term: ("whole", parenthesize), ("comment", k, parenthesize) when
    its comment starts at its k-th "#", ("split", splitter, parenthesize), or ("none",)."""
    for sep in _ENDS_PYTHON:
        if sep in text:
            # After a complete expression with no comment, " against " (a name) or ", type="
            # not followed by "=" is a syntax error: the whole cannot parse, and its (failing)
            # parse is skipped.  The split is the one the loop below would find.
            head, _, rest = text.partition(sep)
            term = _term(head.strip())
            if term is not None and term[1] < 0 and not rest.startswith("="):
                return ("split", sep, term[0])
    whole = _term(text)
    if whole is not None:
        paren, comment_at = whole
        if comment_at >= 0:
            return ("comment", text.count("#", 0, comment_at), paren)
        return ("whole", paren)
    for sep in _SPLITTERS:
        if sep in text:
            head = text.partition(sep)[0].strip()
            term = _term(head)
            if term is not None and term[1] < 0:
                return ("split", sep, term[0])
    return ("none",)


def _apply(verdict: tuple, text: str, part: str) -> GuardTerm:
    """The term ``verdict`` makes of ``text`` (``part`` stripped)."""
    kind = verdict[0]
    if kind == "whole":
        return GuardTerm(f"({text})" if verdict[1] else text, "", part)
    if kind == "comment":
        at = -1
        for _ in range(verdict[1] + 1):
            at = text.index("#", at + 1)
        code = text[:at].rstrip()
        return GuardTerm(f"({code})" if verdict[2] else code, text[at:].lstrip("#").strip(), part)
    if kind == "split":
        head = text.partition(verdict[1])[0]
        code = head.strip()
        comment = text[len(head) :].strip().lstrip(",").strip()
        return GuardTerm(f"({code})" if verdict[2] else code, comment, part)
    return GuardTerm("True", text, part)


_TERMS: dict[str, GuardTerm] = {}
_TERMS_MAX = 4096


def translate_part(part: str) -> GuardTerm:
    """One guard code part -> a Python term plus a comment for the untranslatable rest.
    Cached: every recompilation repeats most parts, and the index asks again."""
    term = _TERMS.get(part)
    if term is None:
        text = part.strip()
        key = _shape(text)
        verdict = _VERDICTS.get(key) if key is not None else None
        if verdict is None:
            verdict = _verdict(text)
            if key is not None:
                if len(_VERDICTS) >= _VERDICTS_MAX:
                    _VERDICTS.clear()
                _VERDICTS[key] = verdict
        term = _apply(verdict, text, part)
        _remember(term)
    return term


def _remember(term: GuardTerm) -> None:
    if len(_TERMS) >= _TERMS_MAX:
        _TERMS.clear()
    _TERMS[term.original] = term


def remember_terms(parts: list[str], terms: list[tuple[str, str]]) -> None:
    """Take the terms another process translated ``parts`` into (the helper process runs this
    same module, so they are what :func:`translate_part` gives here)."""
    for part, (code, comment) in zip(parts, terms):
        if part not in _TERMS:
            _remember(GuardTerm(code, comment, part))


def clear_caches() -> None:
    """Forget every translation (tests: each part parsed on its own)."""
    _TERMS.clear()
    _VERDICTS.clear()


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
