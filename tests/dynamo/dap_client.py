"""A minimal Debug Adapter Protocol client that plays VS Code's part against debugpy's adapter.

It starts ``python -m debugpy.adapter`` (DAP over stdin/stdout, as VS Code's Python extension
does), sends requests, collects events, and answers the adapter's ``runInTerminal`` reverse
request by starting the program itself, as VS Code's integrated terminal would.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any


class DapError(AssertionError):
    pass


class DapClient:
    def __init__(self, python: str = sys.executable) -> None:
        self.adapter = subprocess.Popen(
            [python, "-m", "debugpy.adapter"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.seq = 0
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # every message taken off the queue, in order
        self.debuggee: subprocess.Popen[bytes] | None = None
        self.debuggee_out: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    # -- wire ---------------------------------------------------------------------------------
    def _write(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode()
        with self._lock:
            self.adapter.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.adapter.stdin.flush()

    def _read(self) -> None:
        out = self.adapter.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if length is None:
                continue
            msg = json.loads(out.read(length))
            if msg.get("type") == "request" and msg.get("command") == "runInTerminal":
                self._run_in_terminal(msg)
            else:
                self.messages.put(msg)

    def _run_in_terminal(self, req: dict[str, Any]) -> None:
        args = req["arguments"]
        env = dict(os.environ)
        for k, v in (args.get("env") or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        self.debuggee = subprocess.Popen(
            args["args"],
            cwd=args.get("cwd") or None,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._pump_debuggee, daemon=True).start()
        self.seq += 1
        self._write(
            {
                "seq": self.seq,
                "type": "response",
                "request_seq": req["seq"],
                "command": "runInTerminal",
                "success": True,
                "body": {"processId": self.debuggee.pid},
            }
        )

    def _pump_debuggee(self) -> None:
        assert self.debuggee is not None and self.debuggee.stdout is not None
        for line in self.debuggee.stdout:
            self.debuggee_out.append(line)

    # -- requests -----------------------------------------------------------------------------
    def send(self, command: str, **arguments: Any) -> int:
        self.seq += 1
        self._write({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
        return self.seq

    def wait(self, pred: Any, timeout: float = 240, what: str = "a message") -> dict[str, Any]:
        end = time.time() + timeout
        while time.time() < end:
            try:
                msg = self.messages.get(timeout=max(0.1, end - time.time()))
            except queue.Empty:
                break
            if msg is None:
                raise DapError(f"the adapter closed while waiting for {what}: {self.log()}")
            self.seen.append(msg)
            if pred(msg):
                return msg
        raise DapError(f"timed out waiting for {what}: {self.log()}")

    def request(self, command: str, timeout: float = 240, **arguments: Any) -> dict[str, Any]:
        """Send a request and return its response; a failed response raises."""
        seq = self.send(command, **arguments)
        resp = self.wait(
            lambda m: m.get("type") == "response" and m.get("request_seq") == seq,
            timeout,
            f"the response to {command}",
        )
        if not resp.get("success"):
            raise DapError(f"{command} failed: {resp}")
        return resp

    def event(self, *names: str, timeout: float = 240) -> dict[str, Any]:
        return self.wait(
            lambda m: m.get("type") == "event" and m.get("event") in names,
            timeout,
            f"event {names}",
        )

    def top_frame(self, thread_id: int) -> dict[str, Any]:
        st = self.request("stackTrace", threadId=thread_id, levels=1)
        return st["body"]["stackFrames"][0]

    def log(self) -> str:
        events = [
            (m.get("event") or m.get("command"), m.get("body")) for m in self.seen[-15:]
        ]
        return f"last messages {events!r}; program output:\n{''.join(self.debuggee_out)[-3000:]}"

    def close(self) -> None:
        try:
            self.send("disconnect", terminateDebuggee=True)
        except (OSError, ValueError):
            pass
        for p in (self.debuggee, self.adapter):
            if p is None:
                continue
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(30)
        if self.adapter.stdin:
            self.adapter.stdin.close()
