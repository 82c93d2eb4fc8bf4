"""Round trip on third-party code: the Python that users put under torch.compile.

The stdlib round trip (``benchmarks/roundtrip.py``) run on another corpus: torch's own Python
packages (``torch._dynamo``, ``torch.nn``, ``torch.optim``, ``torch._functorch``, ``torch.fx``,
``torch.utils``, ...), transformers (the llama, gpt2, bert and mistral models, ``generation``,
``modeling_utils``, ...) and pure-Python packages models and training scripts lean on (attrs,
click, einops, jinja2, networkx, packaging, requests, a part of sympy).  The releases are pinned
in ``benchmarks/thirdparty.txt``; the benchmark fetches each wheel once (``pip download
--no-deps``) into ``${PELLUCID_CACHE:-~/.cache/pellucid}/thirdparty/`` and unpacks its ``.py``
files there.  The sources are only compiled, never imported, so one copy serves every Python.

Which modules are taken is fixed (``SELECTION``: a pattern per package area and at most so many
files of it, picked by a hash of their paths), so that one version runs in a few minutes.  Each
Python compiles every module (a module in syntax newer than that Python is skipped and counted),
and every function in it is decompiled with ``verify=False``, recompiled and its normalized
bytecode compared, exactly as the stdlib round trip does: columns *error* (refused:
``DecompilationError``), *internal* (a ``DecompilationError`` marked ``.internal``: an exception
inside the decompiler, a bug, listed one by one), *no-comp* (the source does not compile),
*exact*, *mismatch* and *crash* (any other exception or a hang: a bug, listed).  The whole
module is decompiled too (its row covers class bodies).  Mismatches are counted by construct
class and by the first differing instruction.

Usage::

    python benchmarks/thirdparty.py [--versions 3.11,3.12] [--limit N] [--json out.json]
                                    [--show-mismatches N] [--jobs N] [--markdown PATH]

The worker is ``roundtrip.py``'s and runs under Python 3.9, so this file avoids newer syntax.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import roundtrip  # noqa: E402
from page import about_from_doc, markdown_page  # noqa: E402
from page import add_option as add_markdown_option  # noqa: E402

PINS = os.path.join(HERE, "thirdparty.txt")

# (distribution, pattern of paths inside its wheel, at most this many files of it).  A pattern's
# files are ordered by the sha1 of their paths and the first ones taken: a fixed sample that a
# new file in a new release changes only a little.
SELECTION = [
    ("torch", "torch/_dynamo/*.py", 12),
    ("torch", "torch/_dynamo/variables/*.py", 6),
    ("torch", "torch/nn/*.py", 6),
    ("torch", "torch/nn/modules/*.py", 16),
    ("torch", "torch/nn/utils/*.py", 4),
    ("torch", "torch/optim/*.py", 30),
    ("torch", "torch/_functorch/*.py", 8),
    ("torch", "torch/fx/*.py", 8),
    ("torch", "torch/fx/experimental/*.py", 2),
    ("torch", "torch/utils/*.py", 8),
    ("torch", "torch/utils/data/*.py", 3),
    ("torch", "torch/distributions/*.py", 6),
    ("torch", "torch/_refs/*.py", 1),
    ("transformers", "transformers/models/llama/*.py", 10),
    ("transformers", "transformers/models/gpt2/*.py", 10),
    ("transformers", "transformers/models/bert/*.py", 10),
    ("transformers", "transformers/models/mistral/*.py", 10),
    ("transformers", "transformers/models/t5/*.py", 10),
    ("transformers", "transformers/models/vit/*.py", 10),
    ("transformers", "transformers/generation/*.py", 6),
    ("transformers", "transformers/modeling_utils.py", 1),
    ("transformers", "transformers/modeling_*.py", 3),
    ("transformers", "transformers/activations.py", 1),
    ("transformers", "transformers/cache_utils.py", 1),
    ("transformers", "transformers/utils/*.py", 6),
    ("transformers", "transformers/integrations/*.py", 4),
    ("attrs", "attr/*.py", 8),
    ("click", "click/*.py", 5),
    ("einops", "einops/*.py", 6),
    ("einops", "einops/layers/*.py", 4),
    ("jinja2", "jinja2/*.py", 6),
    ("networkx", "networkx/classes/*.py", 5),
    ("networkx", "networkx/algorithms/*.py", 8),
    ("networkx", "networkx/algorithms/shortest_paths/*.py", 3),
    ("packaging", "packaging/*.py", 5),
    ("requests", "requests/*.py", 8),
    ("sympy", "sympy/core/*.py", 5),
    ("sympy", "sympy/simplify/*.py", 3),
    ("sympy", "sympy/printing/*.py", 4),
]


def read_pins(path: str = PINS) -> list[tuple[str, str]]:
    """(name, version) of every ``name==version`` line; anything looser is refused."""
    pins = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+!-]+)", line)
            if m is None:
                raise ValueError(f"{path}: not an exact pin: {line!r}")
            pins.append((m.group(1), m.group(2)))
    return pins


def cache_dir() -> str:
    base = os.environ.get("PELLUCID_CACHE") or os.path.expanduser("~/.cache/pellucid")
    return os.path.join(base, "thirdparty")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _find_wheel(wheels: str, name: str, version: str) -> str | None:
    """The downloaded wheel of ``name==version`` (a local version such as ``+cpu`` matches)."""
    for fn in sorted(os.listdir(wheels)):
        if not fn.endswith(".whl"):
            continue
        dist, ver = fn.split("-")[:2]
        if _normal(dist) == _normal(name) and (ver == version or ver.startswith(version + "+")):
            return os.path.join(wheels, fn)
    return None


def install(log) -> dict[str, str]:
    """Unpacked sources of every pin, fetched and unpacked once: {name: directory}."""
    root = cache_dir()
    wheels = os.path.join(root, "wheels")
    os.makedirs(wheels, exist_ok=True)
    out = {}
    for name, version in read_pins():
        target = os.path.join(root, f"{_normal(name)}-{version}")
        stamp = os.path.join(target, ".unpacked")
        out[name] = target
        if os.path.exists(stamp):
            continue
        wheel = _find_wheel(wheels, name, version)
        if wheel is None:
            log(f"downloading {name}=={version}")
            # the pinned release only, its wheel only (the sources are all that is used); 3.11's
            # tags so that a platform wheel (torch) is found whatever Python runs this
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-input", "--no-deps"]
            cmd += ["--only-binary=:all:", "--python-version", "3.11", "-d", wheels]
            subprocess.run([*cmd, f"{name}=={version}"], check=True)
            wheel = _find_wheel(wheels, name, version)
            if wheel is None:
                raise RuntimeError(f"pip download left no wheel for {name}=={version}")
        log(f"unpacking the .py files of {os.path.basename(wheel)}")
        with zipfile.ZipFile(wheel) as z:
            for member in z.namelist():
                if member.endswith(".py") and ".dist-info/" not in member:
                    z.extract(member, target)
        with open(stamp, "w") as f:
            f.write(os.path.basename(wheel) + "\n")
    return out


def select_modules(dirs: dict[str, str]) -> list[tuple[str, str]]:
    """[module name, path] of the corpus, in SELECTION's order (no module twice)."""
    chosen, seen = [], set()
    for dist, pattern, most in SELECTION:
        base = dirs[dist]
        # glob's * stays within one folder
        found = [
            os.path.relpath(path, base).replace(os.sep, "/")
            for path in glob.glob(os.path.join(base, *pattern.split("/")))
        ]
        found.sort(key=lambda rel: hashlib.sha1(rel.encode()).hexdigest())
        for rel in sorted(found[:most]):
            if rel in seen:
                continue
            seen.add(rel)
            name = rel[: -len(".py")].replace("/", ".")
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            chosen.append((name, os.path.join(base, rel)))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", help="comma-separated, e.g. 3.11,3.12 (default: all)")
    parser.add_argument("--json", help="write all results to this file")
    parser.add_argument("--show-mismatches", type=int, default=20, metavar="N")
    parser.add_argument("--limit", type=int, default=0, help="code objects per version")
    parser.add_argument("--timeout", type=float, default=3600.0, help="per worker, seconds")
    parser.add_argument(
        "--function-timeout",
        type=float,
        default=10.0,
        help="per code object, CPU seconds; longer counts as a crash (0: none)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="versions run at once")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    title = "Round trip: third-party code (torch, transformers, pure-Python packages)"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """Install the corpus, a worker per version, then the tables; 1 on any internal error
    or crash."""

    def log(msg: str) -> None:
        print(f"[thirdparty] {msg}", file=sys.stderr, flush=True)

    dirs = install(log)
    modules = select_modules(dirs)
    fd, corpus = tempfile.mkstemp(prefix="thirdparty-corpus-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(modules, f)
    print("Corpus: " + ", ".join(f"{n}=={v}" for n, v in read_pins()))
    print(f"{len(modules)} modules (SELECTION in benchmarks/thirdparty.py)")
    versions = args.versions.split(",") if args.versions else roundtrip.VERSIONS

    def one(version: str) -> dict | None:
        python = roundtrip.pyenv_python(version)
        if python is None:
            log(f"Python {version}: interpreter not found, skipped")
            return None
        log(f"Python {version}: pellucid ({python})")
        return roundtrip.run_worker(
            python, "pellucid", args.limit, args.timeout, args.function_timeout, log, corpus
        )

    try:
        # each worker is a process of its own: threads only wait for them
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            done = list(pool.map(one, versions))
    finally:
        os.unlink(corpus)
    results = {v: {"pellucid": r} for v, r in zip(versions, done) if r is not None}

    bugs = 0
    for version, res in results.items():
        r = res["pellucid"]
        print()
        print(roundtrip.format_version_table(version, r, None))
        if r["skipped"]:
            names = ", ".join(name for name, _ in r["skipped"])
            print(f"skipped (syntax newer than Python {version}): {names}")
    print()
    print("Speed (decompile: verify off; +verify: decompile, recompile, compare;")
    print("compile(): CPython compiling the same module sources, same run)")
    print(roundtrip.format_speed_table(results))
    for version, res in results.items():
        r = res["pellucid"]
        bugs += len(r["internal"]) + len(r["crashes"])
        print()
        print(roundtrip.format_crashes(version, "pellucid", r, "internal"))
        print(roundtrip.format_crashes(version, "pellucid", r))
        print(roundtrip.format_mismatch_classes(version, r))
        if args.show_mismatches and r["mismatches"]:
            print(roundtrip.format_mismatches(version, r, args.show_mismatches))
        if r["no_compile"]:
            print(
                f"Python {version}: {len(r['no_compile'])} decompiled sources that do not compile"
            )
            for rec in r["no_compile"][: args.show_mismatches or 10]:
                print(f"    {rec['name']}: {rec.get('detail', '')[:200]}")
        if r["top_errors"]:
            print(f"Python {version}: most frequent refusals (DecompilationError)")
            for key, count in r["top_errors"]:
                print(f"  {count:6d}  {key}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if bugs else 0


if __name__ == "__main__":
    raise SystemExit(main())
