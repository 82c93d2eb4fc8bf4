"""``--markdown PATH``: a benchmark's printed table written as a page of the docs.

Every benchmark script prints its table on stdout.  With ``--markdown PATH`` the same text is
also kept and written to ``PATH`` as a markdown page that says where its numbers come from: the
commit (``git rev-parse --short HEAD``, marked when the working tree differs from it), the date,
the machine (platform, CPU count, load average when the run started), the interpreter and the
exact command.  The pages under ``docs/benchmarks/`` are made this way and never edited by hand:
a number quoted in the docs must be found on one of them.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import TextIO

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_option(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark's argument parser the ``--markdown PATH`` option."""
    parser.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write the table to PATH as a markdown page (commit, date, machine, command)",
    )


def _git(*args: str) -> str:
    try:
        p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def commit() -> str:
    """The short commit of this checkout, ``+ local changes`` when src/ or benchmarks/ differ."""
    head = _git("rev-parse", "--short", "HEAD") or "unknown"
    if _git("status", "--porcelain", "--", "src", "benchmarks"):
        head += " + local changes"
    return head


def command() -> str:
    """The command as typed from the checkout's root: ``python benchmarks/<script> args``."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return shlex.join(["python", script, *sys.argv[1:]])


def header(title: str) -> str:
    """The page's title and the lines saying where its numbers come from."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return "\n".join(
        [
            f"# {title}",
            "",
            "Written by the benchmark itself (`--markdown`); regenerate it, do not edit it.",
            "",
            f"- commit: `{commit()}`",
            f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, "
            f"load average {load:.1f} at the start",
            f"- interpreter: Python {platform.python_version()}",
            f"- command: `{command()}`",
            "",
        ]
    )


def about_from_doc(doc: str | None) -> str:
    """A script's docstring as the page's introduction: its usage block left out (the page
    gives the exact command), reST literals made markdown."""
    out: list[str] = []
    skipping = False
    for line in (doc or "").strip().splitlines():
        if line.startswith("Usage"):
            skipping = True
            if "``" in line and not line.rstrip().endswith("::"):
                skipping = False  # a one-line usage: nothing indented follows
            continue
        if skipping:
            if line.strip() and not line.startswith(" "):
                skipping = False
            else:
                continue
        out.append(line.replace(":func:", "").replace("``", "`").replace("\\ ", ""))
    return "\n".join(out).strip()


class _Tee(io.TextIOBase):
    """Writes go to the real stream and are kept for the page."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.kept = io.StringIO()

    def write(self, s: str) -> int:
        self.kept.write(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def markdown_page(path: str | None, title: str, about: str = "") -> Iterator[None]:
    """Inside the block, what the script prints is also written to ``path`` as a page.

    ``about`` is a paragraph put before the table (what the columns mean); the table itself
    goes in a fenced block exactly as printed, so the page and the terminal show the same text.
    Nothing is written when ``path`` is None.  The page is written even if the run fails
    half-way, so a partial table is not lost, and says so.
    """
    if not path:
        yield
        return
    head = header(title)  # taken before the run: the load average is the starting one
    tee = _Tee(sys.stdout)
    old = sys.stdout
    sys.stdout = tee
    finished = False
    try:
        yield
        finished = True
    finally:
        sys.stdout = old
        body = tee.kept.getvalue().rstrip("\n")
        parts = [head]
        if about:
            parts += [about.strip(), ""]
        if not finished:
            parts += ["**The run stopped before the end; the table is partial.**", ""]
        parts += ["```", body, "```", ""]
        if hasattr(os, "getloadavg"):  # other work on the machine shows in timings
            parts += [f"Load average at the end: {os.getloadavg()[0]:.1f}.", ""]
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(parts))
        print(f"markdown page written to {path}", file=sys.stderr)
