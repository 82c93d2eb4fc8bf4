"""The ``pellucid`` command line (also ``python -m pellucid``).

Subcommands register themselves with a small function ``register_<name>(subparsers, common)``
listed in :data:`SUBCOMMANDS`; each sets ``handler`` to a function taking the parsed arguments
and returning an exit code. Exit codes: 0 ok, 1 decompilation error or bad input (one line on
stderr, the traceback only with ``--debug``), 2 usage errors (argparse).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import marshal
import os
import sys
import traceback
from types import CodeType, ModuleType
from typing import Any, Callable

__all__ = ["CLIError", "SUBCOMMANDS", "build_parser", "main", "pyc_python_version"]


class CLIError(Exception):
    """Bad input: reported as one line on stderr with exit code 1."""


# --------------------------------------------------------------------------------------------
# .pyc files

# importlib's magic numbers (Lib/importlib/_bootstrap_external.py), as ranges per version.
_MAGIC_RANGES = [
    (3360, 3379, "3.6"),
    (3390, 3399, "3.7"),
    (3400, 3419, "3.8"),
    (3420, 3429, "3.9"),
    (3430, 3449, "3.10"),
    (3450, 3499, "3.11"),
    (3500, 3549, "3.12"),
    (3550, 3599, "3.13"),
    (3600, 3649, "3.14"),
    (3650, 3699, "3.15"),
]


def pyc_python_version(magic: bytes) -> str | None:
    """The Python version ("3.11") that writes .pyc files with this 4-byte magic, or None."""
    if len(magic) != 4 or magic[2:] != b"\r\n":
        return None
    number = int.from_bytes(magic[:2], "little")
    for low, high, version in _MAGIC_RANGES:
        if low <= number <= high:
            return version
    if number == 62211:
        return "2.7"
    return None


def _running_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise CLIError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CLIError(f"{path}: is a directory") from None
    except OSError as exc:
        raise CLIError(f"{path}: cannot read: {exc.strerror or exc}") from None


def load_pyc(path: str) -> CodeType:
    """The module code object of a .pyc written by the running Python version."""
    data = _read_file(path)
    if not data:
        raise CLIError(f"{path}: empty file, not a .pyc")
    if len(data) < 16:
        raise CLIError(f"{path}: truncated .pyc ({len(data)} bytes, the header alone is 16)")
    magic = data[:4]
    expected = importlib.util.MAGIC_NUMBER
    if magic != expected:
        number = int.from_bytes(magic[:2], "little")
        version = pyc_python_version(magic)
        running = _running_version()
        if version is None:
            raise CLIError(
                f"{path}: not a .pyc of any known Python version (magic number {number}); "
                f"this is Python {running}"
            )
        raise CLIError(
            f"{path}: compiled by Python {version} (magic number {number}), but this is "
            f"Python {running}: run pellucid with Python {version}"
        )
    _check_unmarshal_in_child(path, data[16:])
    try:
        obj = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError) as exc:
        raise CLIError(f"{path}: corrupt or truncated .pyc: {exc}") from None
    if not isinstance(obj, CodeType):
        raise CLIError(f"{path}: .pyc holds a {type(obj).__name__}, not a code object")
    return obj


_UNMARSHAL = "import marshal, sys; marshal.loads(sys.stdin.buffer.read())"


def _check_unmarshal_in_child(path: str, payload: bytes) -> None:
    """Load ``payload`` once in a child interpreter before this process does.

    CPython's ``marshal.loads`` trusts its input: crafted bytes after a valid header can crash
    the interpreter itself. A crash in the child becomes a one-line error; the child's own
    Python exceptions are left for the in-process load to report.
    """
    import subprocess

    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _UNMARSHAL],
            input=payload,
            capture_output=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise CLIError(f"{path}: corrupt .pyc: loading it did not finish in 60 s") from None
    except OSError as exc:
        raise CLIError(f"{path}: cannot check the .pyc in a child process: {exc}") from None
    if proc.returncode < 0 or proc.returncode > 1:
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        raise CLIError(f"{path}: corrupt .pyc: its marshal data crashes Python's loader ({how})")


# --------------------------------------------------------------------------------------------
# Targets: path.py, path.py:qualname, package.module:qualname, package.module, file.pyc


def _looks_like_path(text: str) -> bool:
    return text.endswith((".py", ".pyw")) or os.sep in text or "/" in text or os.path.isfile(text)


def import_file(path: str) -> ModuleType:
    """Import a Python file as a module (not as ``__main__``), its directory on sys.path."""
    if not os.path.isfile(path):
        raise CLIError(f"{path}: no such file")
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else f"_pellucid_target_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CLIError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise CLIError(f"{path}: syntax error, line {exc.lineno}: {exc.msg}") from exc
    except Exception as exc:
        raise CLIError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    return module


def import_module(name: str) -> ModuleType:
    """Import ``package.module`` with the current directory on sys.path."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise CLIError(f"no module named {exc.name or name!r}") from exc
    except Exception as exc:
        raise CLIError(f"import of {name} failed: {type(exc).__name__}: {exc}") from exc


def _nested_code(code: CodeType, name: str, qualname: str) -> CodeType:
    for const in code.co_consts:
        if isinstance(const, CodeType) and const.co_name == name:
            if getattr(const, "co_qualname", qualname) == qualname:
                return const
    for const in code.co_consts:
        if isinstance(const, CodeType) and const.co_name == name:
            return const
    raise CLIError(f"no nested code object {name!r} in {code.co_name}")


def resolve_qualname(module: ModuleType, qualname: str) -> Any:
    """Follow a dotted qualname from a module; ``<locals>`` steps into nested code objects."""
    obj: Any = module
    parts = qualname.split(".")
    done: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "<locals>":
            if i + 1 >= len(parts):
                raise CLIError(f"{qualname}: nothing after <locals>")
            code = getattr(obj, "__code__", obj)
            if not isinstance(code, CodeType):
                raise CLIError(f"{'.'.join(done)} has no code to look into for <locals>")
            obj = _nested_code(code, parts[i + 1], ".".join(parts[: i + 2]))
            done += parts[i : i + 2]
            i += 2
            continue
        if isinstance(obj, CodeType):
            obj = _nested_code(obj, part, ".".join(parts[: i + 1]))
        else:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                where = ".".join(done) or module.__name__
                raise CLIError(f"{where} has no attribute {part!r}") from None
        done.append(part)
        i += 1
    return obj


def load_target(target: str) -> tuple[Any, str]:
    """(object to decompile, description) for a command-line target."""
    if target.endswith(".pyc"):
        return load_pyc(target), target
    head, sep, qualname = target.rpartition(":")
    if sep and head and qualname and not (len(head) == 1 and head.isalpha()):
        module = import_file(head) if _looks_like_path(head) else import_module(head)
        return resolve_qualname(module, qualname), target
    if _looks_like_path(target):
        source = _read_file(target)
        try:
            return compile(source, target, "exec", dont_inherit=True), target
        except SyntaxError as exc:
            raise CLIError(f"{target}: syntax error, line {exc.lineno}: {exc.msg}") from None
        except ValueError as exc:
            raise CLIError(f"{target}: cannot compile: {exc}") from None
        except (RecursionError, MemoryError) as exc:
            raise CLIError(
                f"{target}: too deeply nested for this Python's compiler ({type(exc).__name__})"
            ) from None
    # a module name alone: its whole source, found without importing anything
    origin = find_module_source(target)
    if origin is None:
        raise CLIError(
            f"{target!r} is neither a file, a .pyc, FILE.py:QUALNAME, MODULE:QUALNAME "
            "nor an importable module with Python source"
        )
    return load_target(origin)


def find_module_source(name: str) -> str | None:
    """The ``.py`` file of module ``name`` on sys.path (the current directory first), found
    the way the import system would, but without importing its packages: their
    ``__init__`` code does not run."""
    from importlib.machinery import PathFinder

    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    search = [os.getcwd(), *sys.path]
    spec = None
    for part in parts:
        try:
            spec = PathFinder.find_spec(part, search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
    origin = spec.origin if spec is not None else None
    return origin if origin and origin.endswith(".py") else None


# --------------------------------------------------------------------------------------------
# Subcommands


def cmd_decompile(args: argparse.Namespace) -> int:
    from pellucid import decompile
    from pellucid.decompiler.api import NOT_VERIFIED

    obj, _ = load_target(args.target)
    try:
        source = decompile(obj, verify=args.verify, strict=args.strict)
    except TypeError as exc:
        raise CLIError(str(exc)) from exc
    if source.startswith(NOT_VERIFIED):
        warning = source.partition("\n")[0][len("# pellucid: ") :]
        print(f"pellucid: warning: {args.target}: {warning}", file=sys.stderr)
    if not source.endswith("\n"):
        source += "\n"
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(source)
        except OSError as exc:
            raise CLIError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(source)
    return 0


def register_decompile(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "decompile",
        parents=[common],
        help="print Python source for a .pyc, a module, or a function in one",
        description=(
            "Decompile TARGET back to Python source. TARGET is one of: FILE.pyc (written by "
            "this Python version), FILE.py (the whole module), FILE.py:QUALNAME or "
            "package.module:QUALNAME (the live object after import; QUALNAME may be dotted, "
            "e.g. Class.method or outer.<locals>.inner), or package.module (its source). "
            "Only the :QUALNAME forms import: they run the module's top-level code and its "
            "packages' __init__, as any import does; FILE.py, FILE.pyc and package.module are "
            "read without running anything (a .pyc is first loaded in a child process, so a "
            "crafted one cannot crash pellucid)."
        ),
    )
    p.add_argument("target", metavar="TARGET")
    verification = p.add_mutually_exclusive_group()
    verification.add_argument(
        "--strict",
        action="store_true",
        help="exit non-zero, printing no source, when the output is not verified",
    )
    verification.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="skip verification (by default the output is recompiled and its normalized "
        "bytecode compared with the original; a difference is reported on stderr and in a "
        "first-line comment)",
    )
    verification.add_argument("--verify", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("-o", "--output", metavar="FILE", help="write the source to FILE")
    p.set_defaults(handler=cmd_decompile, verify=True)


def cmd_run(args: argparse.Namespace) -> int:
    from pellucid import runner

    try:
        opts = runner.parse_run_args(args.program)
    except runner.UsageError as exc:
        sys.stderr.write(runner.USAGE.split("\n\n")[0] + "\n")
        print(f"pellucid run: error: {exc}", file=sys.stderr)
        return 2
    if opts.help:
        sys.stdout.write(runner.USAGE)
        return 0
    return runner.run(opts)


def register_run(subparsers: Any, common: argparse.ArgumentParser) -> None:
    # Options are parsed by pellucid.runner: everything after the script belongs to the program
    # verbatim (including "--" and options named like ours), which argparse cannot express.
    p = subparsers.add_parser(
        "run",
        prefix_chars="+",
        add_help=False,
        help="run a program under prepare_debug (like python script.py); --report writes HTML",
        description="Run `pellucid run --help` for the options.",
    )
    p.add_argument("program", nargs=argparse.REMAINDER)
    p.set_defaults(handler=cmd_run)


def cmd_report(args: argparse.Namespace) -> int:
    from pellucid.report import DumpError, build_report

    try:
        index = build_report(args.dump_dir, args.output, engine=args.engine)
    except DumpError as exc:
        raise CLIError(str(exc)) from None
    print(index)
    return 0


def register_report(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "report",
        parents=[common],
        help="write the HTML report of a dump directory",
        description="Build the static HTML report (offline, no server) of a prepare_debug dump.",
    )
    p.add_argument("dump_dir", metavar="DIR")
    p.add_argument("-o", "--output", metavar="OUT", help="report directory (default DIR/report)")
    p.add_argument(
        "--graphs",
        dest="engine",
        choices=["auto", "dot", "builtin"],
        default="auto",
        help="how to draw graphs: graphviz dot when installed (auto), or the built-in layout",
    )
    p.set_defaults(handler=cmd_report)


# Each registers one subcommand: register(subparsers, common_options_parent).
SUBCOMMANDS: list[Callable[[Any, argparse.ArgumentParser], None]] = [
    register_decompile,
    register_run,
    register_report,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand in :data:`SUBCOMMANDS` registered."""
    from pellucid import __version__

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser = argparse.ArgumentParser(
        prog="pellucid",
        description="Decompile CPython bytecode; make torch.compile readable and debuggable.",
    )
    parser.add_argument("--version", action="version", version=f"pellucid {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(subparsers, common)
    return parser


def _one_line(text: str) -> str:
    return " ".join(text.split())


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (argparse exits 2 on usage errors)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        print("pellucid: error: a command is required", file=sys.stderr)
        return 2
    debug = getattr(args, "debug", False)
    from pellucid import DecompilationError

    try:
        return handler(args)
    except (CLIError, DecompilationError) as exc:
        if debug:
            traceback.print_exc()
        print(f"pellucid: error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if debug:
            traceback.print_exc()
        hint = "" if debug else " (run with --debug for the traceback)"
        print(
            f"pellucid: internal error: {type(exc).__name__}: {_one_line(str(exc))}{hint}",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
