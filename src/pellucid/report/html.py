"""Escaping by construction: HTML is built from :class:`Markup` pieces, text is escaped.

``h("a", "x < y", href=url)`` escapes the child text and every attribute value; only
:class:`Markup` (produced by ``h``, :func:`esc` or :func:`raw` for trusted constants) is inserted
as is.  Pages never format user strings into HTML with f-strings, so an identifier such as
``</script><img onerror=alert(1)>`` shows up as text.
"""

from __future__ import annotations

import html
import os
import re
from typing import Any, Iterable
from urllib.parse import quote

__all__ = ["Markup", "esc", "h", "join", "raw", "href_to", "file_href", "slug"]


class Markup(str):
    """A string that is already HTML."""

    __slots__ = ()


def esc(value: Any) -> Markup:
    """Escape text for element content and quoted attribute values."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


def raw(text: str) -> Markup:
    """Mark a trusted constant (never user data) as HTML."""
    return Markup(text)


def _children(items: Iterable[Any]) -> Iterable[str]:
    for item in items:
        if item is None or item is False:
            continue
        if isinstance(item, (list, tuple)) or (
            hasattr(item, "__iter__") and not isinstance(item, (str, bytes, dict))
        ):
            yield from _children(item)
        else:
            yield esc(item)


_VOID = {"br", "hr", "img", "meta", "link", "input", "col", "wbr"}
_ATTR_NAME = re.compile(r"^[a-zA-Z_:][-a-zA-Z0-9_:.]*$")


def h(tag: str, *children: Any, **attrs: Any) -> Markup:
    """An element. ``class_`` and ``for_`` spell reserved words; ``data_x`` becomes ``data-x``.

    Attributes whose value is None or False are left out; True writes a bare attribute.
    """
    parts = [f"<{tag}"]
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        if not _ATTR_NAME.match(name):
            raise ValueError(f"bad attribute name {name!r}")
        if value is True:
            parts.append(f" {name}")
        else:
            parts.append(f' {name}="{esc(value)}"')
    parts.append(">")
    if tag in _VOID:
        return Markup("".join(parts))
    parts.extend(_children(children))
    parts.append(f"</{tag}>")
    return Markup("".join(parts))


def join(items: Iterable[Any], sep: Any = "") -> Markup:
    """Concatenate pieces (text escaped) with a separator."""
    return Markup(esc(sep).join(_children(items)))


_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def slug(text: str, limit: int = 60) -> str:
    """A file-name and id safe spelling of ``text`` (never empty)."""
    s = _SLUG.sub("_", text).strip("._")[:limit]
    return s or "_"


def href_to(target_path: str, from_dir: str) -> str:
    """A relative URL from a page in ``from_dir`` to a file (both absolute paths)."""
    rel = os.path.relpath(target_path, from_dir)
    return quote(rel.replace(os.sep, "/"), safe="/._-~")


def file_href(path: str) -> str:
    """A ``file://`` URL for an absolute path (the user's sources)."""
    return "file://" + quote(os.path.abspath(path).replace(os.sep, "/"), safe="/._-~")
