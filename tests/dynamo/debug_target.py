"""Program driven by the debugger tests: compile under prepare_debug, then run under debug()."""

from __future__ import annotations

import os
import sys
import warnings

import torch

import pellucid

HERE = os.path.dirname(os.path.abspath(__file__))


def f(x):
    y = torch.relu(x)
    return y * 2 + 1


def g(x):
    return torch.cond(x.sum() >= 0, lambda t: t * 2 + 1, lambda t: t - 1, (x,))


def main() -> None:
    dump_dir, backend, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "stub":
        sys.path.insert(0, HERE)
        import stub_decompiler

        import pellucid.decompiler as pd

        pd.decompile = stub_decompiler.decompile
    warnings.simplefilter("ignore")
    compiled = torch.compile(g if mode == "cond" else f, backend=backend)
    x = torch.arange(-2.0, 3.0)
    with pellucid.prepare_debug(dump_dir):
        compiled(x)
    print("READY", flush=True)
    with pellucid.debug():
        out = compiled(x)
    print("RESULT", out.tolist(), flush=True)


if __name__ == "__main__":
    main()
