"""The decompiler snapshot's own logic: one result per code object (hash and verdict, or the
refusal), and a comparison that names every changed code object and nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import snapshot  # noqa: E402

import pellucid  # noqa: E402
from pellucid.decompiler import verify  # noqa: E402


def plain(a, b):
    return a + b


def refused():
    pass


def test_a_result_is_the_hash_and_verdict_or_the_refusal(monkeypatch):
    ok = snapshot.result_of(plain.__code__, pellucid, verify)
    kind, digest, check = ok.split(" ")
    assert (kind, len(digest), check) == ("ok", 16, "exact")
    assert snapshot.result_of(plain.__code__, pellucid, verify) == ok  # deterministic
    assert snapshot.result_of(plain.__code__, pellucid) == f"ok {digest} -"

    def refuse(code, verify=False):
        raise pellucid.DecompilationError("no reading", code_name="refused", offset=4)

    monkeypatch.setattr(pellucid, "decompile", refuse)
    # the reason alone: no offset, name or version that would change with unrelated edits
    assert snapshot.result_of(refused.__code__, pellucid) == "refused no reading"


def test_compare_lists_changed_appeared_and_disappeared_labels(tmp_path):
    old = {"a": "ok 1111 exact", "b": "refused x", "c": "ok 2222 exact"}
    new = {"a": "ok 1111 exact", "b": "ok 3333 exact", "d": "refused y"}
    lines = snapshot.compare_files(old, new, show=10)
    text = "\n".join(lines)
    assert "3 of 3 changed" in lines[0]
    assert "refused -> ok/exact 1" in lines[0]
    assert "ok/exact -> absent 1" in lines[0] and "absent -> refused 1" in lines[0]
    assert "  a\n" not in text and "b\n      was refused x\n      now ok 3333 exact" in text
    assert snapshot.compare_files(old, dict(old), show=10) == []
    # files round-trip through load
    path = tmp_path / "3.11.tsv"
    path.write_text("".join(f"{k}\t{v}\n" for k, v in old.items()))
    assert snapshot.load(str(path)) == old


def test_compare_from_the_command_line_exits_1_on_a_difference(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "3.11.tsv").write_text("stdlib:m:f\tok 1 exact\n")
    assert snapshot.main(["compare", str(a), str(b), "--versions", "3.11"]) == 0
    (b / "3.11.tsv").write_text("stdlib:m:f\trefused why\n")
    assert snapshot.main(["compare", str(a), str(b), "--versions", "3.11"]) == 1
    out = capsys.readouterr().out
    assert "3.11: DIFFERS" in out and "ok/exact -> refused 1" in out
