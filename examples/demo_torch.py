"""pellucid + torch.compile: compile a small model, dump everything it runs, show the files.

Run: ``python examples/demo_torch.py [dump_dir] [--backend eager|aot_eager|inductor] [--debug]``.

It trains a small MLP for two steps under ``pellucid.prepare_debug`` (forward, loss, backward),
with a graph break in the forward (a data-dependent branch), then prints the dump directory:
the decompiled transformed code Dynamo runs, the guards as Python, the graphs of every stage,
and what the index says about graph breaks, recompilations and decompilation failures.
With ``--debug`` it runs once more under ``pellucid.debug()`` so you can set breakpoints in
the dumped files.
"""

from __future__ import annotations

import argparse
import json
import os
import warnings

import torch

import pellucid
from pellucid.dynamo import PellucidWarning


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 2)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if h.mean() > 0.5:  # data-dependent branch: a graph break
            h = h * 0.5
        return self.fc2(h)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump_dir", nargs="?", default="./pellucid_dump")
    ap.add_argument("--backend", default="aot_eager")
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args()

    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(model, backend=args.backend)
    x, y = torch.randn(4, 8), torch.randn(4, 2)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PellucidWarning)
        with pellucid.prepare_debug(args.dump_dir):
            for step in range(2):
                loss = torch.nn.functional.mse_loss(compiled(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                print(f"step {step}: loss {loss.item():.4f}")
    eager_loss = torch.nn.functional.mse_loss(model(x), y).item()
    compiled_loss = torch.nn.functional.mse_loss(compiled(x), y).item()
    print(f"eager and compiled agree: {abs(eager_loss - compiled_loss) < 1e-5}")

    d = os.path.abspath(args.dump_dir)
    print(f"\nfiles in {d}:")
    for name in sorted(os.listdir(d)):
        if not name.startswith("."):
            print("  ", name)
    index = json.load(open(os.path.join(d, "index.json")))
    session = index["sessions"][-1]
    print("\ngraph breaks:")
    for b in session["graph_breaks"]:
        print(f"   {os.path.basename(b['filename'])}:{b['lineno']}: {b['reason'].splitlines()[0]}")
    print("frames:")
    for c in session["compiles"]:
        how = (
            f"runs from {c['transformed_code_file']}"
            if c["executed_from_file"]
            else f"Dynamo's bytecode ({c['failure']})"
        )
        print(f"   {c['compile_id']} {c['function'].split('@')[0]}: {how}")
    for w in caught:
        print("warning:", str(w.message)[:160])
    full = [f["full_code_file"] for f in session["functions"] if f["name"] == "forward"]
    if full:
        print(f"\nthe whole story: {os.path.join(d, full[0])}")
        print(open(os.path.join(d, full[0])).read()[:1500])

    if args.debug:
        with pellucid.debug():
            compiled(x)


if __name__ == "__main__":
    main()
