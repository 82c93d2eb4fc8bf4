"""The README example: a tensor-dependent branch makes torch.compile break the graph.

Run: ``python examples/toy.py [dump_dir]`` then read ``dump_dir/full_code_for_toy_example.py``.
Add ``--debug`` to step through the dumped files with pdb (``b <file>:<line>``, ``c``, ``s``).
"""

from __future__ import annotations

import sys

import torch

import pellucid


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    dump_dir = args[0] if args else "./pellucid_dump"
    compiled = torch.compile(toy_example, backend="eager")
    with pellucid.prepare_debug(dump_dir):
        for _ in range(3):
            a, b = torch.randn(10), torch.randn(10)
            torch.testing.assert_close(compiled(a, b), toy_example(a, b))
    print(f"dumped to {dump_dir}")
    if "--debug" in sys.argv:
        with pellucid.debug():
            compiled(torch.randn(10), torch.randn(10))


if __name__ == "__main__":
    main()
