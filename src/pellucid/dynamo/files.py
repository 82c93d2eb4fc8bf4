"""The dump directory: stable names, content dedup, and safety across processes.

A file name comes from a template with one ``{n}`` slot.  Writing content picks the smallest
``n`` whose file either does not exist or already holds exactly this content, so two runs of
the same program produce the same names (diffable dumps), identical content is written once,
and two processes writing different content under the same template get different files.
All of it happens under an exclusive ``flock`` on ``<dir>/.pellucid.lock``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
from typing import Any, Callable, Iterator

LOCK_NAME = ".pellucid.lock"
INDEX_NAME = "index.json"

_SAFE = re.compile(r"[^A-Za-z0-9_]")
_TMP_SERIAL = itertools.count()


# longest function-name part of a file name: the longest file name made of it (a read-only
# transformed-code file) stays far below the usual 255-byte limit
MAX_NAME = 120


def safe_name(name: str) -> str:
    """A file-name-safe spelling of a function name (``<lambda>`` -> ``_lambda_``); a very long
    name keeps its start and its end (``..._at_<line>`` of a resume function), no hash: names
    stay stable across runs, and the ``{n}``/``.<k>`` numbering tells apart names cut alike."""
    safe = _SAFE.sub("_", name) or "_"
    if len(safe) > MAX_NAME:
        safe = safe[: MAX_NAME - 40] + "___" + safe[-37:]
    return safe


class DumpDirError(OSError):
    """The dump directory cannot be created or written: raised before anything is compiled."""


class DumpDir:
    """A dump directory shared by any number of processes."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._depth = 0
        # The lock file, opened on first use and kept open.  A forked child opens its own:
        # flock locks belong to the open file, which fork shares.
        self._fd: int | None = None
        self._fd_pid = 0
        # JSON file -> (its stat when this object last wrote it, what it wrote): read again only
        # when another process (or object) has replaced it since
        self._json_cache: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}
        try:
            os.makedirs(self.path, exist_ok=True)
            # The lock file is the write probe: creating it (or opening it for writing) is
            # what every dump does first.  A directory that keeps an old lock file but
            # forbids new files is caught by its permissions.
            self._open_lock()
            if not os.access(self.path, os.W_OK | os.X_OK):
                raise PermissionError(13, "Permission denied")
        except OSError as e:
            raise DumpDirError(
                e.errno,
                f"pellucid cannot write its dump directory {self.path!r} "
                f"({e.strerror or type(e).__name__}); give prepare_debug() a writable directory",
            ) from e

    def __del__(self) -> None:
        if self._fd is not None and self._fd_pid == os.getpid():
            with contextlib.suppress(OSError):
                os.close(self._fd)

    def _open_lock(self) -> int:
        """This process's descriptor of the lock file (opened once per process)."""
        if self._fd is None or self._fd_pid != os.getpid():
            self._fd = os.open(os.path.join(self.path, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
            self._fd_pid = os.getpid()
        return self._fd

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the directory's exclusive lock (re-entrant within this object)."""
        import fcntl

        if self._depth == 0:
            fcntl.flock(self._open_lock(), fcntl.LOCK_EX)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def write_unique(self, template: str, render: Callable[[int], str]) -> tuple[str, int, bool]:
        """Write ``render(n)`` to ``template.format(n=n)`` for the first free-or-identical ``n``.

        Returns ``(absolute path, n, written)``; ``written`` is False when an identical file
        was already there.
        """
        with self.locked():
            n = 0
            while True:
                path = os.path.join(self.path, template.format(n=n))
                content = render(n)
                if self._create(path, content):
                    return path, n, True
                if self._holds(path, content):
                    return path, n, False
                n += 1

    def _named(self, name: str, n: int) -> str:
        """The path of the ``n``-th file called ``name``: ``name``, then ``name`` + ``.<k>``."""
        stem, ext = os.path.splitext(name)
        return os.path.join(self.path, name if n == 0 else f"{stem}.{n}{ext}")

    def find_named(self, name: str, content: str) -> str | None:
        """The path of ``name`` or ``name`` + ``.<k>`` that already holds ``content``, if any."""
        n = 0
        while True:
            path = self._named(name, n)
            if not os.path.exists(path):
                return None
            with open(path, encoding="utf-8") as f:
                if f.read() == content:
                    return path
            n += 1

    def write_named(self, name: str, content: str) -> tuple[str, bool]:
        """Write ``content`` to ``name``; if another content is there, to ``name`` + ``.<k>``."""
        with self.locked():
            n = 0
            while True:
                path = self._named(name, n)
                if self._create(path, content):
                    return path, True
                if self._holds(path, content):
                    return path, False
                n += 1

    @staticmethod
    def _holds(path: str, content: str) -> bool:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read() == content
        except (OSError, UnicodeDecodeError):
            return False

    @staticmethod
    def _create(path: str, content: str) -> bool:
        """Create ``path`` holding ``content``; False if it exists.  Called under the lock, so
        no other pellucid process reads it half-written; a file left short by a crash differs
        from any content and is passed over, never reused."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        try:
            view = memoryview(content.encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        os.close(fd)
        return True

    def update_json(self, name: str, update: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        """Read-modify-write a JSON file under the lock (missing or corrupt reads as ``{}``)."""
        path = os.path.join(self.path, name)
        with self.locked():
            data: dict[str, Any] = {}
            cached = self._json_cache.get(path)
            signature = _signature(path)
            if cached is not None and signature == cached[0]:
                data = cached[1]  # (update makes a new dict: this one is not changed)
            elif signature is not None:
                try:
                    with open(path, encoding="utf-8") as f:
                        data = json.load(f)
                except (OSError, ValueError):
                    data = {}
            data = update(data)
            # no indent: json's C encoder (the indenting one is pure Python, and this is
            # written after every event that adds files)
            self._atomic_write(path, json.dumps(data, default=str))
            signature = _signature(path)
            if signature is not None:
                self._json_cache[path] = (signature, data)

    def relpath(self, path: str) -> str:
        prefix = self.path + os.sep
        if path.startswith(prefix):  # the usual case, without os.path.relpath's normalizing
            return path[len(prefix) :]
        return os.path.relpath(path, self.path)

    @staticmethod
    def _atomic_write(path: str, content: str) -> None:
        """Write a private temporary file and rename it over ``path``: readers and other
        processes see the old file or the new one, never a part."""
        tmp = f"{os.path.dirname(path)}/.tmp-{os.getpid()}-{next(_TMP_SERIAL)}.part"
        data = content.encode("utf-8")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _signature(path: str) -> tuple[int, int, int] | None:
    """What tells one version of a file from another: an atomic write makes a new inode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)
