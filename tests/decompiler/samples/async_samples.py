"""async def, await, async for (with else), async with, async comprehensions and generators.

Coroutines are driven by hand (the harness sends None at every suspension and records what
was yielded), so no event loop is needed; one sample runs under asyncio.run.
"""

from . import cases
from ._helpers import ACM, AIter, Pause, pause

CONSTRUCT = "async"


async def add_later(a, b):
    await pause("add")
    return a + b


async def fail_later(msg):
    await pause("fail")
    raise ValueError(msg)


@cases(
    (1, 2),
)
async def async_await_simple(a, b):
    x = await add_later(a, b)
    y = await Pause(x)
    return x, y


@cases((1,), (0,))
async def async_await_in_expressions(n):
    r = [await add_later(n, 1), (await add_later(n, 2)) * 2]
    if await add_later(n, 0):
        r.append("truthy")
    return r


@cases((1,), (0,))
async def async_await_try(n):
    try:
        if n:
            await fail_later("bad")
        return "ok"
    except ValueError as e:
        return "caught", str(e)


@cases(([1, 2, 3],), ([],))
async def async_for(items):
    out = []
    async for x in AIter(items):
        out.append(x)
    return out


@cases(([1, 2, 3],), ([1, 5],), ([],))
async def async_for_else_break(items):
    out = []
    async for x in AIter(items):
        if x == 5:
            break
        if x == 2:
            continue
        out.append(x)
    else:
        out.append("else")
    return out


@cases((0,), (1,))
async def async_with(k):
    log = []
    async with ACM(log, "a") as name:
        log.append(("body", name))
        if k:
            raise KeyError("in body")
    return log


@cases((0,), (1,))
async def async_with_swallow_and_nested(k):
    log = []
    async with ACM(log, "outer", swallow=True):
        async with ACM(log, "inner") as inner, ACM(log, "second"):
            log.append(inner)
            if k:
                raise ValueError("swallowed by outer")
    return log


@cases(
    ([1, 2, 3],),
)
async def async_comprehensions(items):
    a = [x async for x in AIter(items)]
    b = [await add_later(x, 1) for x in items]
    c = {x: y async for x, y in AIter(zip(items, items))}
    d = [x async for x in AIter(items) if await add_later(x, 0) > 1]
    return a, b, c, d


@cases(
    (3,),
)
async def async_generator(n):
    for i in range(n):
        await pause(i)
        yield i
    yield "last"


@cases(
    (3,),
)
async def async_generator_async_for_inside(n):
    async for x in AIter(range(n)):
        yield x * 10


@cases(
    (3,),
)
async def async_consume_async_generator(n):
    async def agen():
        for i in range(n):
            yield i

    return [x async for x in agen()]


@cases(
    (2,),
)
async def async_genexp_inside(n):
    g = (x async for x in AIter(range(n)))
    return [v async for v in g]


@cases(
    (2,),
)
async def async_await_lambda_result(n):
    f = lambda: add_later(n, n)  # noqa: E731
    return await f()


@cases(
    (2,),
)
def async_run_with_asyncio(n):
    import asyncio

    async def main():
        await asyncio.sleep(0)
        return n * 2

    return asyncio.run(main())


@cases(
    (3,),
)
async def async_closure_nonlocal(n):
    total = 0

    async def add(k):
        nonlocal total
        await pause(k)
        total += k

    for i in range(n):
        await add(i)
    return total


@cases(
    (2,),
)
async def async_return_await_in_finally(n):
    log = []
    try:
        return await add_later(n, 1)
    finally:
        log.append(await add_later(n, 2))
        print(log)


@cases(
    ([0, 1, 2],),
)
async def async_with_in_loop(items):
    log = []
    for i in items:
        async with ACM(log, str(i), swallow=True):
            if i == 1:
                continue
            if i == 2:
                raise ValueError("swallowed")
            log.append(("body", i))
    return log


@cases(
    ([1, 2, 3],),
)
async def async_for_with_try(items):
    out = []
    async for x in AIter(items):
        try:
            if x == 2:
                await fail_later("two")
            out.append(x)
        except ValueError as e:
            out.append(str(e))
    return out


@cases((2,), drive=None)
async def async_generator_with_asend(n):
    got = []
    for i in range(n):
        v = yield i
        got.append(v)
    yield tuple(got)


def asend_all(values):
    """Driver: step an async generator with asend() by hand, recording what comes back."""

    def step(awaitable):
        try:
            while True:
                awaitable.send(None)
        except StopIteration as stop:
            return ("returned", stop.value)
        except Exception as e:  # noqa: BLE001
            return ("raised", type(e).__name__, str(e))

    def drive(agen):
        drive_coroutine = step
        out = [drive_coroutine(agen.asend(None))]
        for v in values:
            res = drive_coroutine(agen.asend(v))
            out.append(res)
            if res[0] != "returned":
                break
        return out

    return drive


@cases((3,), drive=asend_all(["a", "b", "c", "d"]))
async def async_generator_asend(n):
    got = []
    for i in range(n):
        v = yield i
        await pause(v)
        got.append(v)
    yield tuple(got)


@cases(
    (2,),
)
async def async_generator_try_finally(n):
    try:
        for i in range(n):
            yield i
            await pause(i)
    finally:
        print("agen cleanup")


@cases(
    (3,),
)
async def async_await_in_comprehension_condition_and_ternary(n):
    vals = [x for x in range(n) if await add_later(x, 0)]
    pick = (await add_later(n, 1)) if n else (await add_later(0, 0))
    return vals, pick


@cases(
    (1,),
)
async def async_without_await(n):
    return n + 1


@cases(
    (2,),
)
async def async_generator_dead_yield(n):
    if False:
        yield  # unreachable
    await pause(n)


@cases(
    (2,),
)
async def async_await_in_fstring_and_call_args(n):
    s = f"{await add_later(n, 1)}-{await add_later(n, 2)!r:>4}"
    return s, max(await add_later(n, 0), await add_later(1, 1), key=abs)


@cases(
    (3,),
)
async def async_nested_async_def_with_closure(n):
    acc = []

    async def push(v):
        await pause(v)
        acc.append(v)

    async def run():
        for i in range(n):
            await push(i)
        async for v in AIter([10, 20]):
            await push(v)

    await run()
    return acc



class _RaisingAIter(AIter):
    """AIter that raises the items that are exceptions."""

    async def __anext__(self):
        x = await super().__anext__()
        if isinstance(x, Exception):
            raise x
        return x


@cases(([1, 2],), ([1, ValueError("bad"), 3],), ([],))
async def async_for_in_try_except(items):
    # 3.11: the async for's exhaustion handler is followed by the try's jump over its handlers
    log = []
    try:
        async for x in _RaisingAIter(items):
            log.append(x)
    except ValueError as e:
        log.append(str(e))
    return log


@cases(([1, 2],), ([1, None, 3],), ([1, ValueError("bad")],))
async def async_for_else_break_in_try_except(items):
    log = []
    try:
        async for x in _RaisingAIter(items):
            if x is None:
                break
            log.append(x)
        else:
            log.append("done")
    except ValueError as e:
        log.append(str(e))
    return log


@cases((0,), (2,))
async def async_with_retry_loop_return_except_finally(fails):
    log = []
    n = 0
    async with ACM(log):
        while True:
            try:
                n += 1
                if n <= fails:
                    raise TimeoutError(n)
                await pause("try")
                return n, log
            except TimeoutError as e:
                log.append(("retry", e.args))
            finally:
                log.append(("release", n))


@cases(([1, 2, 3],), ([],))
async def async_generator_expression(items):
    # 3.15: the generator expression makes its async iterator itself
    gen = (x * 2 async for x in AIter(items))
    return [y async for y in gen]


@cases(([1, 2],), ([1, -1],), ([],))
async def async_await_in_for_in_try(items):
    out = []
    try:
        for x in items:
            if x < 0:
                await fail_later("negative")
            out.append(await add_later(x, 1))
        async for y in AIter(items):
            out.append(await add_later(y, 2))
    except ValueError:
        out.append("caught")
    return out
