"""The benchmarks group refusals by ``DecompilationError.kind`` beside the per-message lists; a
result written before refusals had kinds counts them as "unknown"."""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import random_programs  # noqa: E402
import roundtrip  # noqa: E402

from pellucid import DecompilationError, Refusal  # noqa: E402
from pellucid.decompiler import verify  # noqa: E402

CODE = compile("def f(x):\n    return x\n", "<t>", "exec").co_consts[0]


def _raising(kind):
    def decompile(code, verify=False):
        raise DecompilationError("no reading", kind=kind)

    return decompile


def test_random_programs_check_returns_the_kind():
    program = {"label": "test:0", "kind": "loop", "source": "def f(ks):\n    return 1\n"}
    for kind, name in [(Refusal.TRY, "try"), (None, "unknown")]:
        pellucid = types.SimpleNamespace(
            decompile=_raising(kind), DecompilationError=DecompilationError
        )
        assert random_programs.check(program, pellucid, verify)[::3] == ("refused", name)


def test_random_programs_report_reads_rows_without_kinds(capsys):
    row = {
        "family": "plain", "python": "3.9.18", "seconds": 1.0, "listed": [], "unverified": [],
        "counts": {"exact": 5, "refused": 3}, "refusals": [["no reading", 3]],
    }  # fmt: skip
    assert random_programs.refusal_kinds(row) == [("unknown", 3)]
    new = dict(row, refusal_kinds=[["try", 2], ["loop", 1]])
    assert random_programs.refusal_kinds(new) == [("try", 2), ("loop", 1)]
    args = types.SimpleNamespace(from_json=["old.json"], json=None)
    assert random_programs.report({"3.9": [row]}, args) == 0
    out = capsys.readouterr().out
    assert "refusals by kind\n  (not recorded: a run made before refusals had kinds)\n" in out
    assert "most frequent refusals\n      3  no reading" in out


def test_roundtrip_counts_refused_functions_by_kind():
    functions = []
    for kind in (Refusal.LOOP, Refusal.LOOP, None):
        record: dict = {"classes": []}
        record["outcome"] = roundtrip.run_one(
            CODE, _raising(kind), (DecompilationError,), verify, record, [0, 0]
        )
        functions.append(record)
    assert [r.get("refusal") for r in functions] == ["loop", "loop", None]
    module = {
        "kind": "module", "module": "m", "functions": functions, "module_row": {"outcome": "exact"},
        "compile_time": 0.0, "decompile_time": 0.0, "verify_time": 0.0,
    }  # fmt: skip
    res = roundtrip.aggregate([module], "ok", 0.0)
    assert res["error_kinds"] == [("loop", 2), ("unknown", 1)]
