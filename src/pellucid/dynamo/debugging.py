"""``debug()``: pause once, then run the already compiled code from the dumped files.

Inside the block, ``torch.compiler.set_stance("eager_on_recompile")`` keeps Dynamo from
compiling anything new: calls whose guards pass run the code compiled under ``prepare_debug``
(loaded from the dump files, so breakpoints there hit); others run eagerly.  With the default
``breakpoint()`` hook the pause uses a ``pdb.Pdb`` that skips torch's and the standard
library's frames, so ``step`` from transformed code lands in the graph's ``forward`` file
rather than in Dynamo's wrappers.  Under another debugger (debugpy/VS Code) its own
``breakpoint()`` hook is used.
"""

from __future__ import annotations

import os
import pdb
import sys
from types import TracebackType
from typing import Any

from pellucid.dynamo import adapter, session

# Modules whose frames stepping passes through without stopping.
SKIP_MODULES = (
    "torch",
    "torch.*",
    "pellucid.dynamo",
    "pellucid.dynamo.*",
    "contextlib",
    "functools",
    "typing",
    "weakref",
    "threading",
    "logging",
    "logging.*",
    "importlib",
    "importlib.*",
    "abc",
    "copy",
    "inspect",
    "dis",
    "enum",
    "sympy",
    "sympy.*",
    "numpy",
    "numpy.*",
    "warnings",
)


def make_pdb(**kwargs: Any) -> pdb.Pdb:
    """A ``pdb.Pdb`` that does not stop in torch's or the standard library's plumbing."""
    return pdb.Pdb(skip=list(SKIP_MODULES), **kwargs)


class debug:  # noqa: N801 - depyf-compatible lower-case name
    """Context manager: ``with pellucid.debug(): compiled_fn(...)`` (after ``prepare_debug``)."""

    def __init__(self, pause: bool = True) -> None:
        self.pause = pause
        self._stance: Any = None

    def __enter__(self) -> debug:
        if session.current() is not None:
            raise RuntimeError(
                "pellucid.debug() cannot be used inside pellucid.prepare_debug(): first run the "
                "code under prepare_debug to compile and dump it, then run it again under debug()"
            )
        adapter.check_supported()
        where = session.last_dump_dir()
        if where:
            msg = (
                f"pellucid: the dumped code is in {where}. Set breakpoints in its "
                "__transformed_code_*, __compiled_fn_* and full_code_for_* files, then continue."
            )
        else:
            msg = (
                "pellucid: no prepare_debug() has run in this process, so nothing was dumped; "
                "the compiled code runs as usual."
            )
        print(msg, file=sys.stderr)
        self._stance = adapter.set_stance("eager_on_recompile")
        self._stance.__enter__()
        if self.pause and os.environ.get("PYTHONBREAKPOINT") != "0":
            caller = sys._getframe(1)
            if sys.breakpointhook is sys.__breakpointhook__ and not os.environ.get(
                "PYTHONBREAKPOINT"
            ):
                make_pdb().set_trace(caller)
            else:
                sys.breakpointhook()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._stance is not None:
            self._stance.__exit__(exc_type, exc, tb)
            self._stance = None
