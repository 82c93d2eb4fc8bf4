"""Run one measurement in a fresh interpreter and read back the one line it reports."""

from __future__ import annotations

import json
import subprocess


def run_child(argv: list[str], env: dict[str, str], failure_key: str, timeout: int = 900) -> dict:
    """The JSON object the child printed after ``RESULT``, or ``{failure_key: why not}``."""
    try:
        p = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return {failure_key: "timeout"}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {failure_key: (p.stderr.strip().splitlines() or ["no output"])[-1][:200]}
