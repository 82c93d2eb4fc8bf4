"""Guards as readable Python that always compiles.

Dynamo (torch 2.13) evaluates guards in C++; its ``code_parts`` are descriptions, mostly Python
expressions over ``L`` (frame locals) and ``G`` (globals) plus helpers from the guard closure,
but some are not Python at all (``___check_global_state() against {...}``,
``... top_saved_tensors_hooks ids == None``, ``___check_obj_id(...), type=<class 'module'>``).
Each part becomes one term of the returned conjunction; the Python prefix of a part is kept as
code and the rest as a comment, and a part with no Python prefix becomes ``True`` with the
whole text as a comment.  The result is checked with ``compile``.
"""

from __future__ import annotations

import ast
import functools
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


def _is_expr(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return "\n" not in text


@functools.lru_cache(maxsize=4096)
def translate_part(part: str) -> GuardTerm:
    """One guard code part -> a Python term plus a comment for the untranslatable rest.
    Cached: every recompilation repeats most parts, and the index asks again."""
    text = part.strip()
    if text and _is_expr(text):
        return GuardTerm(text, "", part)
    for sep in _SPLITTERS:
        if sep in text:
            head, _, _ = text.partition(sep)
            if head.strip() and _is_expr(head.strip()):
                return GuardTerm(head.strip(), text[len(head) :].strip().lstrip(",").strip(), part)
    return GuardTerm("True", text, part)


def _comment(text: str) -> str:
    return " ".join(text.split())


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
            tail = f"  # {_comment(t.comment)}" if t.comment else ""
            if t.code == "True" and t.comment:
                tail = f"  # not Python in torch's description: {_comment(t.comment)}"
            joiner = "        " if i == 0 else "        and "
            lines.append(f"{joiner}{t.code}{tail}")
        lines.append("    )")
    src = "\n".join(lines) + "\n"
    try:
        compile(src, "<pellucid-guard>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError:
        # Belt and braces: keep every part as a comment.
        lines = [ln for ln in lines if not ln.startswith(("def ", "    "))]
        lines.append(f"def {name}(L, G, **___kwargs_ignored):")
        for t in terms:
            lines.append(f"    # {_comment(t.original)}")
        lines.append("    return True")
        src = "\n".join(lines) + "\n"
    return src
