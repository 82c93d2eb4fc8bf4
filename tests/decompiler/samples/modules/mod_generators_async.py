"""Module with generators and coroutines defined at top level."""

import types


def countdown(n):
    while n > 0:
        yield n
        n -= 1
    return "liftoff"


def relay(n):
    result = yield from countdown(n)
    yield result


@types.coroutine
def _suspend():
    yield "suspended"


async def compute(x):
    await _suspend()
    return x * 2


async def agen(n):
    for i in range(n):
        await _suspend()
        yield i


def _run(coro):
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value


def _check():
    async def collect():
        return [v async for v in agen(3)]

    return list(relay(3)), _run(compute(5)), _run(collect())
