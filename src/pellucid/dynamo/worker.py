"""A helper process that decompiles for the program while the program goes on: resume functions
(for the ``full_code`` files), guard parts, and Dynamo's transformed frames (their files' source,
made while Dynamo builds the frame's guards: see ``DumpSession._defer``).

Why: the ``full_code`` files show the code of every resume function Dynamo makes at a graph
break, decompiled.  That code is known as soon as the break is compiled; decompiled on exit
from ``prepare_debug``, on the program's own thread, it would be a good share of pellucid's
time on a small program.  Sent to a second Python process as soon as it is known (``marshal``: the same
interpreter reads its own code objects), it is decompiled on another core while torch.compile
goes on, and is ready when the exit needs it.

The helper is an optimisation, never a dependency: whatever it cannot do (it did not start, it
is still importing, it died, its answer is late, the code does not marshal) the caller does in
its own process, with the same functions (:func:`resume_source`, ``guards.translate_part``,
``recompile.transformed_template``), so the text is the same either way.  ``PELLUCID_WORKER=0`` switches it off.  One helper per process; a forked child starts its
own (it closes the pipes it inherited, so the parent's helper still sees its parent go).

Protocol on the helper's stdin/stdout: frames of a 4-byte little-endian length and a
``marshal`` payload.  The helper first sends ``("ready",)`` once its imports are done, then
answers each request ``(key, "resume", code)`` with ``(key, text, ok)``, each
``(key, "guards", parts)`` (a cache entry's guard parts, known once its frame is compiled,
translated by :mod:`guards` off the program's thread too) with ``(key, [(code, comment)...], True)``,
and each ``(key, "transform", request)`` (a frame Dynamo just transformed, made into its file's
source while Dynamo builds the frame's guards) with ``(key, *transform_answer(request))``.
"""

from __future__ import annotations

import atexit
import marshal
import os
import select
import struct
import subprocess
import sys
import threading
import time
import types
from typing import Any

_HEADER = struct.Struct("<I")
_READY = ("ready",)
_RESUME, _GUARDS, _TRANSFORM = "resume", "guards", "transform"  # what a request asks for

# How long the exit waits for an answer from a helper that has started and has the request:
# far more than a decompile takes (a fraction of a millisecond each), so it is only reached
# when the helper is stuck; the caller then decompiles itself and the helper is dropped.
ANSWER_TIMEOUT_S = 5.0

# Requests sent between two reads of the answers, and the answer pipe's size where it can be
# set: a resume function's source or an entry's guard terms are a few KiB, so the helper does
# not wait on a full pipe (64 KiB by default) before the program reads.
_READ_EVERY = 8
_ANSWER_PIPE_SIZE = 1 << 20

PLACEHOLDER = "__pellucid_name_placeholder__"


def transform_answer(request: tuple) -> tuple[Any, bool | None]:
    """The source of a transformed frame's file, made by
    :func:`recompile.transformed_template` from ``request = (code, new_code, usable, prefix,
    compile_id, placeholder)``: ``((source, [(const name, index in new_code.co_consts)]), True)``;
    ``((reason, blames the decompiler), False)`` when it cannot be made; ``(None, None)`` when
    the program's process must make it (a constant named for the source that is not one of
    ``new_code``'s own, which the program could not bind by its index)."""
    from pellucid.dynamo import recompile

    new_code = request[1]
    try:
        made = recompile.transformed_template(*request, validate=False)
    except Exception as e:  # noqa: BLE001 - the reason goes to the program, which records it
        return (f"{type(e).__name__}: {e}", recompile.blames_decompiler(e)), False
    spec = []
    for name, value in made.consts.items():
        index = next((i for i, c in enumerate(new_code.co_consts) if c is value), None)
        if index is None:
            return None, None
        spec.append((name, index))
    return (made.source, spec), True


def resume_source(code: types.CodeType) -> tuple[str, bool]:
    """``code`` decompiled as ``def <PLACEHOLDER>`` (inside a scope owning its free variables,
    as in its transformed-code file) and compiled once, ``(text, True)``; or ``(why, False)``."""
    from pellucid.decompiler.api import decompile_tree
    from pellucid.dynamo import recompile

    try:
        text = recompile.build(decompile_tree(code), code, code, PLACEHOLDER, "").source
        # compiled once here: full_code files need not compile again
        compile(text, "<resume>", "exec", dont_inherit=True)
        return text.rstrip(), True
    except Exception as e:  # noqa: BLE001 - the reason goes into the file
        return f"{type(e).__name__}: {e}", False


class Worker:
    """The main process's end of one helper process."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        boot = f"import sys; sys.path.insert(0, {root!r}); from pellucid.dynamo.worker import main; main()"
        # -I -S: none of the user's environment or site-packages (the helper needs only pellucid)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", boot],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            close_fds=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._w = self.proc.stdin.fileno()
        self._r = self.proc.stdout.fileno()
        os.set_blocking(self._w, False)
        os.set_blocking(self._r, False)
        try:  # (Linux) room for many answers: they are read when asked for (see _submit)
            import fcntl

            fcntl.fcntl(self._r, getattr(fcntl, "F_SETPIPE_SZ", 1031), _ANSWER_PIPE_SIZE)
        except (ImportError, OSError):
            pass
        self._out = bytearray()
        self._in = bytearray()
        self._lock = threading.Lock()
        self._serial = 0
        self._unread = 0  # requests sent since answers were last read
        self.ready = False
        self.broken = False
        self.sent: set[int] = set()
        self.answers: dict[int, Any] = {}  # key -> (result, ok)
        self.answered = 0  # answers answer() handed to the caller (tests)

    def up(self) -> bool:
        """Has the helper said it is ready?  (What it sent is read now if that is not known yet:
        one select, until it is.)"""
        if not self.ready and not self.broken:
            with self._lock:
                self._pump(0.0)
        return self.ready and not self.broken

    def submit(self, code: types.CodeType) -> int | None:
        """Send ``code`` to be decompiled; its key, or None if it cannot go (then the caller
        decompiles it itself when it needs it)."""
        return self._submit(_RESUME, code)

    def submit_guards(self, parts: list[str]) -> int | None:
        """Send a cache entry's guard parts to be translated (:mod:`guards`); the answer is a
        list of ``(code, comment)``, one per part."""
        return self._submit(_GUARDS, tuple(parts))

    def submit_transform(self, request: tuple) -> int | None:
        """Send a transformed frame to be made into its file's source (:func:`transform_answer`
        says what the request holds and what comes back)."""
        return self._submit(_TRANSFORM, request)

    def _submit(self, kind: str, data: Any) -> int | None:
        with self._lock:
            if self.broken:
                return None
            self._serial += 1
            key = self._serial
            try:
                payload = marshal.dumps((key, kind, data))
            except ValueError:  # a constant marshal cannot write
                return None
            self._out += _HEADER.pack(len(payload)) + payload
            self.sent.add(key)
            # Answers are read when they are asked for.  Reading them as they come cost
            # 40-90 us per request here (a select, then reading and unmarshalling what came);
            # every few requests they still are, so the helper never waits on a full pipe.
            self._unread += 1
            if self._unread >= _READ_EVERY:
                self._pump(0.0)
            else:
                self._write()
            return key

    def answer(self, key: int, within: float | None = None) -> tuple[str, bool] | None:
        """The helper's answer for ``key``: waited for only if the helper is up and has the
        request; None when the caller should decompile itself.  Waited for at most ``within``
        seconds if given (a late answer is then dropped, the helper kept), else until
        :data:`ANSWER_TIMEOUT_S` (a helper that late is stuck, and dropped)."""
        with self._lock:
            self._pump(0.0)
            if key not in self.answers and not self.broken and self.ready:
                deadline = time.monotonic() + (ANSWER_TIMEOUT_S if within is None else within)
                while key not in self.answers and not self.broken:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        if within is None:
                            self._drop()
                        break
                    self._pump(left)
            self.sent.discard(key)
            got = self.answers.pop(key, None)
            self.answered += got is not None
            return got

    def answers_ready(self, keys: list[int]) -> dict[int, Any]:
        """The answers among ``keys`` that have come (never waited for); the others are
        forgotten (the caller does them itself)."""
        with self._lock:
            self._pump(0.0)
            got = {}
            for key in keys:
                self.sent.discard(key)
                if key in self.answers:
                    got[key] = self.answers.pop(key)
            return got

    def forget(self, key: int) -> None:
        """The caller no longer needs ``key`` (its answer, if it comes, is dropped)."""
        with self._lock:
            self.sent.discard(key)
            self.answers.pop(key, None)

    def _write(self) -> None:
        """Write what the pipe takes now: one system call, no select."""
        try:
            del self._out[: os.write(self._w, self._out)]
        except BlockingIOError:
            pass  # (the pipe is full: the rest goes with the next write)
        except (OSError, ValueError):
            self._drop()

    def _pump(self, timeout: float) -> None:
        """Write what the pipe takes, read what has come; block at most ``timeout`` for one of
        them (never for a write alone: the helper reads whenever it is not answering)."""
        if self.broken:
            return
        try:
            wanted_w = [self._w] if self._out else []
            readable, writable, _ = select.select([self._r], wanted_w, [], timeout)
            if writable:
                self._write()
            if readable and not self.broken:
                self._unread = 0
                chunk = os.read(self._r, 1 << 16)
                if not chunk:  # the helper is gone
                    self._drop()
                    return
                self._in += chunk
                self._parse()
        except (OSError, ValueError):
            self._drop()

    def _parse(self) -> None:
        while len(self._in) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._in)
            if len(self._in) < _HEADER.size + size:
                return
            message = marshal.loads(bytes(self._in[_HEADER.size : _HEADER.size + size]))
            del self._in[: _HEADER.size + size]
            if message == _READY:
                self.ready = True
            else:
                key, text, ok = message
                if key in self.sent:
                    self.answers[key] = (text, ok)

    def _drop(self) -> None:
        """Stop using the helper (what it had is decompiled in this process instead)."""
        self.broken = True
        self.close()

    def close_pipes(self) -> None:
        """Close this end of both pipes (each once: the file objects own the descriptors)."""
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def close(self) -> None:
        """End the helper: it exits when its input closes."""
        self.close_pipes()
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_worker: Worker | None = None
_worker_lock = threading.Lock()
_cannot_start = False  # starting failed once in this process: not tried again


def enabled() -> bool:
    """On unless ``PELLUCID_WORKER=0``; only where ``sys.executable`` is a Python (an
    application embedding Python names itself there); not under VS Code's debugger (debugpy
    attaches itself to every Python subprocess, so the helper would show up as a second
    program being debugged)."""
    name = os.path.basename(sys.executable or "").lower()
    return (
        os.environ.get("PELLUCID_WORKER", "1") != "0"
        and name.startswith(("python", "pypy"))
        and "pydevd" not in sys.modules
        and not _cannot_start
    )


def get() -> Worker | None:
    """This process's helper, started on first use; None if it is off or cannot run."""
    global _worker, _cannot_start
    if not enabled():
        return None
    with _worker_lock:
        w = _worker
        if w is not None and (w.pid != os.getpid() or w.broken):
            w = _worker = None
        if w is None:
            try:
                w = _worker = Worker()
            except Exception:  # noqa: BLE001 - no helper: everything is done in this process
                _cannot_start = True
                return None
        return w


def shutdown() -> None:
    """End this process's helper (at interpreter exit; a test can call it)."""
    global _worker
    with _worker_lock:
        w, _worker = _worker, None
    if w is not None and w.pid == os.getpid():
        w.close()


def _after_fork_in_child() -> None:
    """A forked child must not talk to its parent's helper, nor keep its pipes open (the
    helper would not see its parent go)."""
    global _worker
    w, _worker = _worker, None
    if w is not None:
        w.broken = True
        w.close_pipes()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(shutdown)


# ---------------------------------------------------------------------------------------------
# The helper's side.


def _read_exact(fd: int, n: int) -> bytes | None:
    data = bytearray()
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _send(fd: int, message: tuple) -> None:
    payload = marshal.dumps(message)
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def main() -> None:
    """Serve requests until the input closes.  Whatever the decompiler prints goes nowhere:
    stdout is the answer channel."""
    import signal

    # Ctrl-C reaches the whole process group: the program may handle it and go on, so its
    # helper stays (it ends when its input closes)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    import pellucid.decompiler.api  # noqa: F401 - imports done before saying ready
    import pellucid.dynamo.recompile  # noqa: F401
    import pellucid.dynamo.tidy  # noqa: F401
    from pellucid.dynamo.guards import translate_part

    _send(out, _READY)
    while True:
        head = _read_exact(0, _HEADER.size)
        if head is None:
            return
        body = _read_exact(0, _HEADER.unpack(head)[0])
        if body is None:
            return
        key, kind, data = marshal.loads(body)
        if kind == _GUARDS:
            _send(out, (key, [(t.code, t.comment) for t in map(translate_part, data)], True))
        elif kind == _TRANSFORM:
            _send(out, (key, *transform_answer(data)))
        else:
            text, ok = resume_source(data)
            _send(out, (key, text, ok))
