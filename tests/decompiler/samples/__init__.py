"""Sample functions for the decompiler behaviour tests, grouped by construct class.

Each sample module is plain Python: module-level functions decorated with :func:`cases`, which
records (without wrapping the function) the inputs that take every path through it and any
extra checks.  ``CONSTRUCT`` at the top of a module names its construct class; a sample can
override it with ``cases(..., construct=...)``.

Modules whose syntax an older interpreter cannot parse (``match``: 3.10, ``except*``: 3.11,
type parameters: 3.12) are listed in :data:`SAMPLE_MODULES` with their minimum version and only
imported when ``sys.version_info`` allows, so the test files still parse on 3.9.
"""

from __future__ import annotations

import copy
import importlib
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

# (module name, minimum Python version).  Order is the order of the test ids.
SAMPLE_MODULES: list[tuple[str, tuple[int, int]]] = [
    # issue 2: the core
    ("constants", (3, 9)),
    ("operators", (3, 9)),
    ("boolops", (3, 9)),
    ("containers", (3, 9)),
    ("access", (3, 9)),
    ("fstrings", (3, 9)),
    ("lambdas", (3, 9)),
    ("assignments", (3, 9)),
    ("simple_statements", (3, 9)),
    ("imports", (3, 9)),
    ("closures", (3, 9)),
    ("control", (3, 9)),
    ("loops", (3, 9)),
    ("tricky", (3, 9)),
    ("stress", (3, 9)),
    ("comprehensions", (3, 9)),
    ("signatures", (3, 9)),
    # issue 3: exceptions and context managers
    ("exceptions", (3, 9)),
    ("exceptions_loops", (3, 9)),
    ("with_statements", (3, 9)),
    ("except_star", (3, 11)),
    # issue 4: generators, async, match, classes
    ("generators", (3, 9)),
    ("async_samples", (3, 9)),
    ("match_samples", (3, 10)),
    ("classes", (3, 9)),
    ("type_params", (3, 12)),
]

# Construct classes of issue 2: a DecompilationError on one of these is a plain failure.
CORE_CONSTRUCTS = frozenset(
    {
        "expressions",
        "fstrings",
        "lambdas",
        "statements",
        "imports",
        "closures",
        "control",
        "loops",
        "comprehensions",
        "signatures",
    }
)


class call:
    """One input: positional and keyword arguments (``cases(call(1, k=2))``)."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"call({', '.join(parts)})"


class lazy:
    """An input built fresh for every call (iterators, objects that cannot be deep-copied)."""

    __slots__ = ("factory",)

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        return "lazy(...)"


def materialize(case: Any) -> tuple[tuple, dict]:
    """Fresh ``(args, kwargs)`` for one call: deep copies, so mutations stay per run."""
    if isinstance(case, lazy):
        case = case.factory()
    if isinstance(case, call):
        return copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
    if isinstance(case, tuple):
        return copy.deepcopy(case), {}
    raise TypeError(f"a case is a tuple of arguments, call(...) or lazy(...), not {case!r}")


@dataclass
class Spec:
    inputs: tuple
    construct: str | None = None
    # global names the sample writes: reset to these values before each call, compared after
    state: dict = field(default_factory=dict)
    # build the function under test afresh (closures with mutable cells, bound methods...)
    factory: Callable[[], Any] | None = None
    # turn the result into something comparable (drive a generator with send(), call a closure)
    drive: Callable[[Any], Any] | None = None
    # signature check is meaningless (e.g. the sample is produced by a factory)
    check_signature: bool = True


def cases(*inputs: Any, **options: Any) -> Callable:
    """Mark a function as a sample, with the inputs to call it on.

    Options: ``construct`` (override the module's class), ``state`` (globals written),
    ``factory`` (fresh function per test), ``drive`` (result post-processing).
    """

    def mark(fn: Any) -> Any:
        fn.__pellucid_sample__ = Spec(inputs=inputs, **options)
        return fn

    return mark


@dataclass
class Sample:
    id: str
    module: Any
    name: str
    func: Any
    spec: Spec

    @property
    def construct(self) -> str:
        return self.spec.construct or self.module.CONSTRUCT

    def fresh(self) -> Any:
        """The function under test (a new closure when the sample has a factory)."""
        return self.spec.factory() if self.spec.factory is not None else self.func


def available_modules() -> list[Any]:
    mods = []
    for name, minver in SAMPLE_MODULES:
        if sys.version_info[:2] >= minver:
            mods.append(importlib.import_module(f"{__name__}.{name}"))
    return mods


def skipped_modules() -> list[tuple[str, tuple[int, int]]]:
    return [(n, v) for n, v in SAMPLE_MODULES if sys.version_info[:2] < v]


def all_samples() -> list[Sample]:
    """Every sample of every module this interpreter can import, in definition order."""
    out = []
    for mod in available_modules():
        short = mod.__name__.rsplit(".", 1)[1]
        for name, obj in vars(mod).items():
            spec = getattr(obj, "__pellucid_sample__", None)
            if not isinstance(spec, Spec) or name.startswith("_"):
                continue
            out.append(Sample(f"{short}.{name}", mod, name, obj, spec))
    return out
