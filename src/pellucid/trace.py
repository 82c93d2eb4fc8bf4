"""pellucid's source in PyTorch's structured trace (``TORCH_TRACE``), for tlparse.

When the structured trace is on, :class:`TraceEmitter` adds pellucid's files as
``torch._logging.trace_structured`` artifacts, under the compile id they belong to, so a tlparse
report of the run shows them next to Dynamo's own graphs and guards:

* ``pellucid_transformed_code_<fn>``: the decompiled transformed code of each frame, emitted from
  a Dynamo bytecode hook (``torch._dynamo.convert_frame.register_bytecode_hook``) registered after
  ``prepare_debug``'s, so it sees the code compiled from the dumped file, while the frame's
  compile context is current;
* ``pellucid_guard_<fn>`` and ``pellucid_full_code_<fn>``: the guard functions and the whole
  story of each function, emitted after ``prepare_debug`` wrote them, inside a compile context
  rebuilt with the same compile id and attempt.

Every torch call is guarded: a failure here never stops the user's program.
"""

from __future__ import annotations

import os
import re
import types
from typing import Any

__all__ = ["TraceEmitter", "trace_enabled"]

_SAFE = re.compile(r"[^A-Za-z0-9_]")


def trace_enabled() -> bool:
    """True when the structured trace goes somewhere: ``TORCH_TRACE`` is set, or the trace log
    has a handler other than the one torch installs by default, which writes nothing without a
    directory (torch 2.13's ``LazyTraceHandler`` with no ``root_dir``)."""
    if os.environ.get("TORCH_TRACE"):
        return True
    try:
        from torch._logging._internal import trace_log

        return any(
            not (type(h).__name__ == "LazyTraceHandler" and getattr(h, "root_dir", 0) is None)
            for h in trace_log.handlers
        )
    except Exception:  # noqa: BLE001
        return False


# emitters whose bytecode hook is registered: while one is, prepare_debug makes every frame's file
# in its own bytecode hook (the emitter reads the file from the code that hook returns)
_installed: set[int] = set()


def emitter_installed() -> bool:
    return bool(_installed)


def _safe(name: str) -> str:
    return _SAFE.sub("_", name) or "_"


class TraceEmitter:
    """Emits pellucid artifacts into the structured trace for one dump directory."""

    def __init__(self, dump_dir: str) -> None:
        self.dump_dir = os.path.abspath(dump_dir)
        self.handle: Any = None
        self.attempts: dict[str, int] = {}  # compile id "f/c" -> Dynamo's attempt number
        self.emitted: list[tuple[str, str]] = []  # (compile id, artifact name)
        self.errors: list[str] = []

    # ------------------------------------------------------------------ install / remove
    def install(self) -> None:
        """Register the bytecode hook (call after prepare_debug started, so ours runs second)."""
        try:
            from torch._dynamo.convert_frame import register_bytecode_hook

            self.handle = register_bytecode_hook(self._on_bytecode)
            _installed.add(id(self))
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"bytecode hook: {type(e).__name__}: {e}")

    def remove(self) -> None:
        _installed.discard(id(self))
        if self.handle is not None:
            try:
                self.handle.remove()
            finally:
                self.handle = None

    # ------------------------------------------------------------------ emitting
    @staticmethod
    def _emit(name: str, payload: str) -> None:
        from torch._logging import trace_structured

        trace_structured(
            "artifact",
            metadata_fn=lambda: {"name": name, "encoding": "string"},
            payload_fn=lambda: payload,
        )

    def _on_bytecode(self, code: types.CodeType, new_code: types.CodeType) -> None:
        try:
            import torch._guards

            trace_id = torch._guards.CompileContext.current_trace_id()
            cid = str(trace_id.compile_id) if trace_id is not None else None
            if trace_id is not None and cid:
                self.attempts[cid] = int(trace_id.attempt or 0)
            path = new_code.co_filename
            name = f"pellucid_transformed_code_{_safe(code.co_name)}"
            if os.path.isfile(path) and os.path.abspath(path).startswith(self.dump_dir + os.sep):
                with open(path, encoding="utf-8") as f:
                    payload = f.read()
            else:
                payload = (
                    f"# pellucid could not decompile Dynamo's code for {code.co_name} "
                    f"({code.co_filename}:{code.co_firstlineno}); Dynamo's own bytecode runs.\n"
                )
            self._emit(name, payload)
            self.emitted.append((cid or "?", name))
        except Exception as e:  # noqa: BLE001 - never break compilation
            self.errors.append(f"transformed code: {type(e).__name__}: {e}")
        return None

    def _in_compile_context(self, compile_id: str, fn: Any) -> None:
        import torch._guards

        m = re.fullmatch(r"(\d+)/(\d+)", compile_id or "")
        if not m:
            fn()
            return
        cid = torch._guards.CompileId(frame_id=int(m.group(1)), frame_compile_id=int(m.group(2)))
        ctx = torch._guards.CompileContext(cid)
        ctx.attempt = self.attempts.get(compile_id, 0)
        with torch._guards.compile_context(ctx):
            fn()

    def emit_session(self, session: dict[str, Any]) -> None:
        """Guards and full code of one index session (after prepare_debug wrote them)."""
        for fn in session.get("functions") or []:
            name = _safe(str(fn.get("name", "?")))
            first_cid = None
            for ce in fn.get("cache_entries") or []:
                cid = ce.get("compile_id") or ""
                first_cid = first_cid or cid
                self._emit_file(cid, f"pellucid_guard_{name}", ce.get("guard_file"))
            if fn.get("full_code_file"):
                self._emit_file(
                    first_cid or "", f"pellucid_full_code_{name}", fn.get("full_code_file")
                )

    def _emit_file(self, compile_id: str, name: str, rel: Any) -> None:
        if not rel:
            return
        try:
            with open(os.path.join(self.dump_dir, str(rel)), encoding="utf-8") as f:
                payload = f.read()
            self._in_compile_context(compile_id, lambda: self._emit(name, payload))
            self.emitted.append((compile_id, name))
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"{name}: {type(e).__name__}: {e}")
