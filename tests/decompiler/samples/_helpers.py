"""Small helpers the sample functions use: comparable objects, awaitables, context managers."""

from __future__ import annotations

import types


class Obj:
    """An attribute bag that compares and prints by value (for attribute side effects)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __eq__(self, other):
        return type(other) is type(self) and vars(self) == vars(other)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()))
        return f"Obj({inner})"

    __hash__ = None


class Recorder:
    """Records every __getitem__/__setitem__/__delitem__ and attribute access it sees."""

    def __init__(self):
        self.log = []
        self.data = {}

    def __getitem__(self, key):
        self.log.append(("get", _key(key)))
        return self.data.get(_key(key), 0)

    def __setitem__(self, key, value):
        self.log.append(("set", _key(key), value))
        self.data[_key(key)] = value

    def __delitem__(self, key):
        self.log.append(("del", _key(key)))
        self.data.pop(_key(key), None)

    def __eq__(self, other):
        return type(other) is type(self) and (self.log, self.data) == (other.log, other.data)

    def __repr__(self):
        return f"Recorder({self.log!r}, {self.data!r})"

    __hash__ = None


def _key(key):
    # slices are unhashable before 3.12: make them printable and hashable
    if isinstance(key, slice):
        return ("slice", key.start, key.stop, key.step)
    if isinstance(key, tuple):
        return tuple(_key(k) for k in key)
    if key is Ellipsis:
        return "..."
    return key


class Pause:
    """An awaitable that suspends once, yielding ``value`` to whoever drives the coroutine."""

    def __init__(self, value=None):
        self.value = value

    def __await__(self):
        sent = yield self.value
        return sent if sent is not None else self.value


@types.coroutine
def pause(value=None):
    sent = yield value
    return value if sent is None else sent


class CM:
    """A context manager that logs enter/exit into a shared list and optionally swallows."""

    def __init__(self, log, name="cm", swallow=False, value=None):
        self.log = log
        self.name = name
        self.swallow = swallow
        self.value = value if value is not None else name

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self.value

    def __exit__(self, tp, val, tb):
        self.log.append(("exit", self.name, tp.__name__ if tp else None))
        return self.swallow


class ACM:
    """Async context manager counterpart of :class:`CM` (suspends in enter and exit)."""

    def __init__(self, log, name="acm", swallow=False):
        self.log = log
        self.name = name
        self.swallow = swallow

    async def __aenter__(self):
        self.log.append(("aenter", self.name))
        await pause("aenter")
        return self.name

    async def __aexit__(self, tp, val, tb):
        self.log.append(("aexit", self.name, tp.__name__ if tp else None))
        await pause("aexit")
        return self.swallow


class AIter:
    """An async iterator over ``items`` that suspends before each item."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        return self

    async def __anext__(self):
        if not self.items:
            raise StopAsyncIteration
        await pause("anext")
        return self.items.pop(0)


class Point:
    """For class patterns: positional via __match_args__."""

    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __eq__(self, other):
        return type(other) is type(self) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Point({self.x!r}, {self.y!r})"

    __hash__ = None


class Color:
    RED = 1
    GREEN = 2
    BLUE = 3


class Err(Exception):
    pass


class OtherErr(Exception):
    pass
