"""A small training loop as a user writes one: logging with ``print(...item()...)`` (two graph
breaks on one line, an f-string formatting a value from before a break), ``backward`` and an
optimizer step.  Imported by the tests, and run as a script by the ones that kill it:

    python training_loop.py DUMP_DIR STEPS [BACKEND] [--ready FILE]

runs STEPS steps under ``prepare_debug(DUMP_DIR)`` (forever with STEPS 0), after the third
writing FILE: by then every compile has happened (the second step recompiles), and a test
knows the loop runs on without compiling.
"""

from __future__ import annotations

import sys

import torch


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(4, 8)
        self.b = torch.nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.relu(self.a(x)))


def step(model, opt, x, y):
    loss = ((model(x) - y) ** 2).mean()
    print(f"loss {loss.item():.4f}")
    loss.backward()
    print("loss", loss.item(), "max", x.max().item())
    opt.step()
    opt.zero_grad()
    return loss


FSTRING_LINE = step.__code__.co_firstlineno + 2  # the f-string: two breaks (item(), print)
TWO_ITEMS_LINE = step.__code__.co_firstlineno + 4  # three breaks (two item()s, print)


def train(steps: int, backend: str = "aot_eager", ready: str | None = None) -> None:
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(step, backend=backend)
    i = 0
    # The second step recompiles the f-string's resume frame (its guard on the float .item()
    # gave fails) and Dynamo gives up on it: torch 2.13 says so and falls back; torch 2.14
    # raises an internal error instead, which suppress_errors turns into the same fallback.
    with torch._dynamo.config.patch(suppress_errors=True):
        while steps == 0 or i < steps:
            compiled(model, opt, torch.randn(8, 4), torch.randn(8, 1))
            sys.stdout.flush()
            if i == 2 and ready:
                with open(ready, "w") as f:
                    f.write("compiled\n")
            i += 1


def main(argv: list[str]) -> None:
    import pellucid

    ready = None
    if "--ready" in argv:
        at = argv.index("--ready")
        ready = argv[at + 1]
        argv = argv[:at] + argv[at + 2 :]
    dump, steps = argv[0], int(argv[1])
    backend = argv[2] if len(argv) > 2 else "aot_eager"
    with pellucid.prepare_debug(dump):
        train(steps, backend, ready)


if __name__ == "__main__":
    main(sys.argv[1:])
