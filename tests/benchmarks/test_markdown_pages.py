"""``--markdown PATH``: a benchmark's table written as a page that says where it comes from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_roundtrip_writes_its_table_as_a_page(tmp_path):
    page = tmp_path / "roundtrip.md"
    argv = ["benchmarks/roundtrip.py", "--versions", "3.11", "--no-depyf", "--limit", "5"]
    proc = subprocess.run(
        [sys.executable, *argv, "--markdown", str(page)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = page.read_text(encoding="utf-8")
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    assert text.startswith("# Round trip")
    assert f"- commit: `{head}" in text
    assert "- date: " in text and " UTC" in text
    assert f"{os.cpu_count()} CPUs" in text
    assert "- command: `python benchmarks/roundtrip.py --versions 3.11 --no-depyf --limit 5" in text
    # the table on the page is exactly what the script printed
    fenced = text.split("```\n", 1)[1].rsplit("\n```", 1)[0]
    assert fenced.strip() == proc.stdout.strip()
    assert "5 code objects" in fenced
