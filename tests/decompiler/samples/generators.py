"""Generators: yield, yield as expression, send, throw, yield from, return values."""

from . import cases

CONSTRUCT = "generators"


def send_all(values):
    """A driver: prime the generator, then send each value; record every yield and the end."""

    def drive(gen):
        out = []
        try:
            out.append(("first", next(gen)))
            for v in values:
                out.append(("sent", v, gen.send(v)))
        except StopIteration as stop:
            out.append(("stop", stop.value))
        except Exception as e:  # noqa: BLE001
            out.append(("raised", type(e).__name__, str(e)))
        return out

    return drive


def throw_at(index, exc_type):
    """A driver: take ``index`` items, then throw ``exc_type`` in; record what happens."""

    def drive(gen):
        out = []
        try:
            for _ in range(index):
                out.append(next(gen))
            out.append(("after throw", gen.throw(exc_type("thrown"))))
            out.extend(gen)
        except StopIteration as stop:
            out.append(("stop", stop.value))
        except Exception as e:  # noqa: BLE001
            out.append(("raised", type(e).__name__, str(e)))
        return out

    return drive


def close_after(index):
    def drive(gen):
        out = [next(gen) for _ in range(index)]
        gen.close()
        return out

    return drive


@cases((3,), (0,))
def gen_simple(n):
    for i in range(n):
        yield i * 2


@cases(
    (3,),
)
def gen_yield_values_and_none(n):
    yield
    yield n
    yield n, n
    yield [n]


@cases((3,), (0,))
def gen_return_value(n):
    for i in range(n):
        yield i
    return "done", n


@cases((2,), (0,), drive=send_all([10, 20, 30, None]))
def gen_yield_expression(n):
    total = 0
    while True:
        got = yield total
        if got is None:
            return total
        total += got * n
        if total > 50:
            return "limit"


@cases((1,), drive=send_all(["a", "b", "c"]))
def gen_yield_expression_forms(n):
    x = yield n
    y = (yield x) or "default"
    print("got", x, y)
    z = [(yield "in list")]
    return x, y, z


@cases(
    (3,),
)
def gen_yield_from(n):
    r = yield from gen_return_value(n)
    yield ("inner returned", r)
    yield from range(n)
    yield from [10, 20]


@cases((2,), drive=send_all([1, 2, None, 5]))
def gen_yield_from_forwards_send(n):
    result = yield from gen_yield_expression(n)
    yield ("delegate result", result)


@cases((3,), drive=throw_at(1, ValueError))
def gen_throw_caught(n):
    for i in range(n):
        try:
            yield i
        except ValueError as e:
            yield ("caught", str(e))


@cases((3,), drive=throw_at(2, KeyError))
def gen_throw_uncaught(n):
    for i in range(n):
        yield i


@cases((3,), drive=close_after(1))
def gen_close_runs_finally(n):
    try:
        for i in range(n):
            yield i
    finally:
        print("cleanup")


@cases((4,), (0,))
def gen_conditional_yields(n):
    i = 0
    while i < n:
        if i % 2:
            yield "odd", i
        else:
            yield "even", i
        i += 1
    else:
        yield "exhausted"


@cases(
    (3,),
)
def gen_break_in_generator(n):
    for i in range(10):
        if i == n:
            break
        yield i
    yield "after"


@cases((3,), (1,))
def gen_early_return(n):
    yield 1
    if n > 2:
        return
    yield 2


@cases(
    (4,),
)
def gen_nested_generator_function(n):
    def inner(k):
        for j in range(k):
            yield j * j

    for v in inner(n):
        yield v
    yield sum(inner(n))


@cases(
    (3,),
)
def gen_closure_in_generator(n):
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    while bump() <= n:
        yield count


@cases(
    (3,),
)
def gen_generator_expression_inside(n):
    squares = (i * i for i in range(n))
    yield list(squares)
    yield sum(x for x in range(n) if x)


@cases(
    (3,),
)
def gen_yield_in_with(n):
    from ._helpers import CM

    log = []
    with CM(log):
        yield from range(n)
    yield log


@cases((2,), (1,))
def gen_yield_inside_try_except_else(n):
    try:
        yield "try"
        if n > 1:
            raise ValueError
    except ValueError:
        yield "except"
    else:
        yield "else"
    finally:
        yield "finally"


@cases(
    (3,),
)
def gen_stop_iteration_becomes_runtime_error(n):
    yield 1
    raise StopIteration


@cases(
    (5,),
)
def gen_infinite_with_islice(n):
    import itertools

    def counter():
        i = 0
        while True:
            yield i
            i += 1

    return list(itertools.islice(counter(), n))


@cases(
    (2,),
)
def gen_yield_as_call_argument(n):
    print((yield n))
    x = str((yield n + 1))
    yield x


@cases(
    (3,),
)
def gen_lambda_generator(n):
    g = lambda: (yield n)  # noqa: E731
    return list(g())


@cases(
    (3,),
)
def gen_dead_yield(n):
    """A generator only because of a yield the compiler removes: the flag must survive."""
    if False:
        yield  # unreachable
    return n


@cases(
    (2,),
)
def gen_yield_in_while_false_else(n):
    while False:
        yield "never"  # unreachable
    else:
        yield n


@cases(([1, None, 2], ["a", "b"], ["c"]), ([], [], []))
def gen_while_or_ends_for_body(flags, fl, tl):
    # 3.12+: a while ending the for body, its exit threaded to the for's head
    for flag in flags:
        if flag is None:
            yield flag
            continue
        while fl or tl:
            a = fl.pop(0) if fl else ""
            b = tl.pop(0) if tl else ""
            yield a, b, flag


@cases(([1, 2],), ([],), ([0],))
def gen_forever_until_stop_iteration(items):
    # sympy's _all_models: 3.10 made the clause's end a jump of the decompiler's own,
    # which an if test once compared by its (missing) bytecode offset
    models = iter(items)
    satisfiable = False
    try:
        while True:
            yield next(models)
            satisfiable = True
    except StopIteration:
        if not satisfiable:
            yield False
