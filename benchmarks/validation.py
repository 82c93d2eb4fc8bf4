"""How many transformed frames are proven equivalent to Dynamo's bytecode, and at what cost.

Usage::

    python benchmarks/validation.py [--backend eager] [workload ...]

Runs each workload of ``tests/dynamo/workloads.py`` under ``prepare_debug`` (in this process)
and reads each session's ``compiles`` from ``index.json``: per workload, the frames, those
proven ``equivalent`` (and so run from their files), whether the outputs equal eager ones, and
the translation validator's time per frame (ms, measured around
``pellucid.decompiler.validate.validate``).  Not-verified frames are listed with their reason.
Needs the main venv (torch; transformers for the heavy workloads).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))
sys.path.insert(0, os.path.join(ROOT, "tests", "dynamo"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from page import about_from_doc, markdown_page  # noqa: E402
from page import add_option as add_markdown_option  # noqa: E402


def main() -> int:
    import workloads

    from pellucid.decompiler import validate as validator

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="eager")
    ap.add_argument("names", nargs="*", default=list(workloads.WORKLOADS))
    add_markdown_option(ap)
    args = ap.parse_args()
    title = f"Translation validation of Dynamo's frames ({args.backend} backend)"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        return run(args, workloads, validator)


def run(args: argparse.Namespace, workloads, validator) -> int:
    """Each workload in this process under prepare_debug; the verdicts from its index."""

    times: list[float] = []
    original = validator.validate

    def timed(*a, **k):  # (the validator's own time, each call)
        t0 = time.perf_counter()
        try:
            return original(*a, **k)
        finally:
            times.append(time.perf_counter() - t0)

    validator.validate = timed
    total = proven = 0
    all_times: list[float] = []
    print(f"{'workload':32s} {'frames':>6s} {'equiv':>6s} {'outputs':>8s} {'ms/frame':>9s}")
    for name in args.names:
        times.clear()
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "dump")
            # (what the workloads and torch's logging print stays out of the table)
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                try:
                    got, expected = workloads.run_workload(name, args.backend, d)
                    workloads.assert_same(got, expected, atol=1e-4)
                    outputs = "same"
                except Exception as e:  # noqa: BLE001 - reported, the next workload runs
                    outputs = type(e).__name__
            try:
                with open(os.path.join(d, "index.json"), encoding="utf-8") as f:
                    sessions = json.load(f)["sessions"]
            except OSError:
                sessions = []
        compiles = [c for s in sessions for c in s["compiles"] if c.get("transformed_code_file")]
        ok = [c for c in compiles if c.get("verification") == "equivalent"]
        total += len(compiles)
        proven += len(ok)
        all_times += times
        ms = 1000 * sum(times) / len(times) if times else 0.0
        print(f"{name:32s} {len(compiles):6d} {len(ok):6d} {outputs:>8s} {ms:9.2f}")
        for c in compiles:
            if c.get("verification") != "equivalent":
                print(f"    {c['function']}: {c.get('verification')}")
        sys.stdout.flush()
    mean = 1000 * sum(all_times) / len(all_times) if all_times else 0.0
    worst = 1000 * max(all_times, default=0.0)
    print(f"\n{proven}/{total} frames proven equivalent; validator {mean:.2f} ms/frame "
          f"on average, {worst:.1f} ms at most ({len(all_times)} validations)")
    return 0 if proven == total else 1


if __name__ == "__main__":
    sys.exit(main())
