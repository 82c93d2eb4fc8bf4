"""Module-level control flow: loops, try/except, with, comprehensions, conditional defs."""

import io

LOG = []

for i in range(4):
    if i == 2:
        continue
    LOG.append(i)
else:
    LOG.append("for-else")

n = 0
while n < 3:
    n += 1

try:
    int("not a number")
except ValueError as exc:
    LOG.append(("caught", type(exc).__name__))
else:
    LOG.append("no error")
finally:
    LOG.append("finally")

with io.StringIO("text") as fh:
    CONTENT = fh.read()

SQUARES = [k * k for k in range(5) if k % 2]
PAIRS = {k: v for k, v in zip("ab", range(2))}

if SQUARES:

    def pick(i):
        return SQUARES[i]
else:

    def pick(i):
        return None


lam = lambda v: v + n  # noqa: E731


def _check():
    return LOG, n, CONTENT, SQUARES, PAIRS, pick(0), lam(1)
