"""The module ends in an if/else whose first arm is a try/finally: 3.11+ copy the module's
implicit return into the try body."""

LOG = []


def step(name):
    LOG.append(name)
    return len(LOG)


def _check():
    return LOG


if step("test") > 0:
    try:
        step("body")
    finally:
        step("cleanup")
else:
    step("else")
