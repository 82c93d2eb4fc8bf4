"""The module ends in an if whose arm is an if/else with a with statement (shlex's
`if __name__ == '__main__':` block): 3.10 copies the module's implicit return into the arms."""

import contextlib

LOG = []


@contextlib.contextmanager
def opened(name):
    LOG.append(("open", name))
    try:
        yield name.upper()
    finally:
        LOG.append(("close", name))


def _check():
    return LOG


ARGV = ["prog", "tokens.txt"]

if __name__ in ("__main__", "mod_end_if_with"):
    if len(ARGV) == 1:
        LOG.append("no file")
    else:
        fn = ARGV[1]
        with opened(fn) as f:
            LOG.append(("read", f))
