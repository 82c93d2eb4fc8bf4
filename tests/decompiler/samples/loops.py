"""while/for with else, break/continue at every nesting (including in else branches)."""

from . import cases

CONSTRUCT = "loops"


@cases((0,), (3,))
def loop_for_simple(n):
    total = 0
    for i in range(n):
        total += i
    return total


@cases((0,), (5,))
def loop_while_simple(n):
    i = 0
    while i < n:
        i += 2
    return i


@cases(([1, 2, 3], 2), ([1, 2, 3], 5), ([], 1))
def loop_for_else_break(items, target):
    for x in items:
        if x == target:
            r = "found"
            break
    else:
        r = "missing"
    return r


@cases((3, 10), (3, 1), (0, 0))
def loop_while_else_break(n, limit):
    i = 0
    while i < n:
        if i >= limit:
            break
        i += 1
    else:
        i = -i
    return i


@cases((5,), (0,))
def loop_continue(n):
    out = []
    for i in range(n):
        if i % 2:
            continue
        out.append(i)
    j = 0
    while j < n:
        j += 1
        if j == 2:
            continue
        out.append(-j)
    return out


@cases((3,), (4,))
def loop_nested_break_continue(n):
    out = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            out.append((i, j))
        else:
            out.append("inner-else")
        if i == 2:
            continue
        out.append(i)
    return out


@cases(([1, 2, 3],), ([4, 5],))
def loop_break_in_else_of_inner(items):
    out = []
    for x in items:
        for y in items:
            if y > x:
                break
        else:
            out.append(("no break", x))
            if x == 3:
                break
            continue
        out.append(("broke", x))
    else:
        out.append("outer completed")
    return out


@cases((4,), (0,))
def loop_while_true_break(n):
    i = 0
    while True:
        if i >= n:
            break
        i += 1
    return i


@cases((4,),)
def loop_while_true_return(n):
    i = 0
    while True:
        i += 1
        if i == n:
            return i * 10


@cases((4,), (0,))
def loop_while_1(n):
    i = 0
    while 1:
        i += 1
        if i > n:
            break
    return i


@cases(([3, 4, -1, 5],), ([],), ([1],))
def loop_return_from_for(items):
    for x in items:
        if x < 0:
            return "negative", x
    return "none"


@cases(([3, 4, -1, 5],), ([1],))
def loop_return_from_nested(items):
    for x in items:
        for y in items:
            while x > 0:
                if x + y == 3:
                    return x, y
                x -= 10
    return None


@cases((3,), (0,))
def loop_for_else_no_break(n):
    for i in range(n):
        pass
    else:
        i = "else ran"
    return i if n else "no iterations"


@cases((3,), (5,))
def loop_while_else_with_continue(n):
    i = 0
    seen = []
    while i < n:
        i += 1
        if i == 2:
            continue
        if i == 4:
            break
        seen.append(i)
    else:
        seen.append("else")
    return seen


@cases((2,), (3,))
def loop_triple_nested(n):
    out = []
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if c == 1:
                    continue
                if a == b == c:
                    break
                out.append((a, b, c))
            else:
                continue
            break
    return out


@cases(([1, 2, 3],),)
def loop_over_dict_and_enumerate(xs):
    d = {x: x * x for x in xs}
    out = []
    for k, v in d.items():
        out.append(k + v)
    for i, x in enumerate(xs, 1):
        out.append(i * x)
    for a, b in zip(xs, reversed(xs)):
        out.append(a - b)
    return out


@cases((10,), (1,))
def loop_while_condition_complex(n):
    a, b = 0, 1
    seq = []
    while a < n and (b < 100 or not seq):
        seq.append(a)
        a, b = b, a + b
    return seq


@cases((5,),)
def loop_modify_loop_var(n):
    out = []
    for i in range(n):
        i *= 2
        out.append(i)
    return out, i


@cases(([1, 2, 3, 4, 5, 6],),)
def loop_break_continue_in_if_else(items):
    out = []
    for x in items:
        if x % 3 == 0:
            if x > 3:
                break
            else:
                continue
        elif x == 2:
            out.append("two")
        else:
            out.append(x)
    return out


@cases(([1, 2], 1), ([1, 2], 9))
def loop_else_returns(items, t):
    for x in items:
        if x == t:
            break
    else:
        return "not found"
    return "found"


@cases((3,),)
def loop_while_else_return(n):
    while n > 0:
        n -= 1
        if n == 10:
            break
    else:
        return "exhausted"
    return "broke"


@cases((4,),)
def loop_nested_while_for(n):
    out = []
    i = 0
    while i < n:
        for j in range(i):
            if j == 2:
                break
            out.append((i, j))
        else:
            out.append(("else", i))
        i += 1
    return out


@cases((3,), (0,))
def loop_empty_body_continue_only(n):
    for i in range(n):
        continue
    k = 0
    while k < n:
        k += 1
        continue
    return k


@cases((6,),)
def loop_if_continue_else_stuff(n):
    out = []
    for i in range(n):
        if i == 1:
            continue
        elif i == 3:
            out.append("three")
            continue
        elif i == 5:
            break
        out.append(i)
    return out


@cases(("hello world",),)
def loop_over_string_build(s):
    out = ""
    for ch in s:
        if ch == " ":
            out += "_"
            continue
        out += ch.upper()
    return out


@cases((4,),)
def loop_for_over_generator_call(n):
    total = 0
    for x in (i * i for i in range(n)):
        total += x
    return total


@cases(([[1, 2], [3], []],),)
def loop_flatten(rows):
    flat = []
    for row in rows:
        if not row:
            continue
        for v in row:
            flat.append(v)
    return flat
