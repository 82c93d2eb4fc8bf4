"""while/for with else, break/continue at every nesting (including in else branches)."""

from . import cases, lazy

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


@cases(
    (4,),
)
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


@cases(([3, 4, -1, 5],), ([1],), ([1, 2],))
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


@cases(
    ([1, 2, 3],),
)
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


@cases(
    (5,),
)
def loop_modify_loop_var(n):
    out = []
    for i in range(n):
        i *= 2
        out.append(i)
    return out, i


@cases(
    ([1, 2, 3, 4, 5, 6],),
)
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


@cases((3,), (11,))
def loop_while_else_return(n):
    while n > 0:
        n -= 1
        if n == 10:
            break
    else:
        return "exhausted"
    return "broke"


@cases(
    (4,),
)
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


@cases(
    (6,),
)
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


@cases(
    ("hello world",),
)
def loop_over_string_build(s):
    out = ""
    for ch in s:
        if ch == " ":
            out += "_"
            continue
        out += ch.upper()
    return out


@cases(
    (4,),
)
def loop_for_over_generator_call(n):
    total = 0
    for x in (i * i for i in range(n)):
        total += x
    return total


@cases(
    ([[1, 2], [3], []],),
)
def loop_flatten(rows):
    flat = []
    for row in rows:
        if not row:
            continue
        for v in row:
            flat.append(v)
    return flat


@cases((3,), (0,), (30,))
def loop_long_body_extended_arg(n):
    """Jumps longer than 255 instructions: EXTENDED_ARG on every version."""
    t = 0
    for i in range(n):
        t += i * 0 - (t % 7)
        t += i * 1 - (t % 8)
        t += i * 2 - (t % 9)
        t += i * 3 - (t % 10)
        t += i * 4 - (t % 11)
        t += i * 5 - (t % 12)
        t += i * 6 - (t % 13)
        t += i * 7 - (t % 14)
        t += i * 8 - (t % 15)
        t += i * 9 - (t % 16)
        t += i * 10 - (t % 17)
        t += i * 11 - (t % 18)
        t += i * 12 - (t % 19)
        t += i * 13 - (t % 20)
        t += i * 14 - (t % 21)
        t += i * 15 - (t % 22)
        t += i * 16 - (t % 23)
        t += i * 17 - (t % 24)
        t += i * 18 - (t % 25)
        t += i * 19 - (t % 26)
        t += i * 20 - (t % 27)
        t += i * 21 - (t % 28)
        t += i * 22 - (t % 29)
        t += i * 23 - (t % 30)
        t += i * 24 - (t % 31)
        t += i * 25 - (t % 32)
        t += i * 26 - (t % 33)
        t += i * 27 - (t % 34)
        t += i * 28 - (t % 35)
        t += i * 29 - (t % 36)
        t += i * 30 - (t % 37)
        t += i * 31 - (t % 38)
        t += i * 32 - (t % 39)
        t += i * 33 - (t % 40)
        t += i * 34 - (t % 41)
        t += i * 35 - (t % 42)
        t += i * 36 - (t % 43)
        t += i * 37 - (t % 44)
        t += i * 38 - (t % 45)
        t += i * 39 - (t % 46)
        t += i * 40 - (t % 47)
        t += i * 41 - (t % 48)
        t += i * 42 - (t % 49)
        t += i * 43 - (t % 50)
        t += i * 44 - (t % 51)
        t += i * 45 - (t % 52)
        t += i * 46 - (t % 53)
        t += i * 47 - (t % 54)
        t += i * 48 - (t % 55)
        t += i * 49 - (t % 56)
        t += i * 50 - (t % 57)
        t += i * 51 - (t % 58)
        t += i * 52 - (t % 59)
        t += i * 53 - (t % 60)
        t += i * 54 - (t % 61)
        t += i * 55 - (t % 62)
        t += i * 56 - (t % 63)
        t += i * 57 - (t % 64)
        t += i * 58 - (t % 65)
        t += i * 59 - (t % 66)
        t += i * 60 - (t % 67)
        t += i * 61 - (t % 68)
        t += i * 62 - (t % 69)
        t += i * 63 - (t % 70)
        t += i * 64 - (t % 71)
        t += i * 65 - (t % 72)
        t += i * 66 - (t % 73)
        t += i * 67 - (t % 74)
        t += i * 68 - (t % 75)
        t += i * 69 - (t % 76)
        t += i * 70 - (t % 77)
        t += i * 71 - (t % 78)
        t += i * 72 - (t % 79)
        t += i * 73 - (t % 80)
        t += i * 74 - (t % 81)
        t += i * 75 - (t % 82)
        t += i * 76 - (t % 83)
        t += i * 77 - (t % 84)
        t += i * 78 - (t % 85)
        t += i * 79 - (t % 86)
        t += i * 80 - (t % 87)
        t += i * 81 - (t % 88)
        t += i * 82 - (t % 89)
        t += i * 83 - (t % 90)
        t += i * 84 - (t % 91)
        t += i * 85 - (t % 92)
        t += i * 86 - (t % 93)
        t += i * 87 - (t % 94)
        t += i * 88 - (t % 95)
        t += i * 89 - (t % 96)
        if t > 10**6:
            break
    else:
        t = -t
    return t


@cases(([],), ([3, 4],), ("ab",))
def loop_body_never_goes_round(xs):
    # nothing jumps back to the FOR_ITER: the body always returns
    for w in xs:
        return w
    return None


@cases(([],), ([0],), ([5],))
def loop_body_returns_or_raises(xs):
    for w in xs:
        if w:
            return w * 2
        raise ValueError(w)
    else:
        print("empty")
    return -1


@cases(([0],), ([1, 2],), ([2, 3],))
def loop_for_ends_if_body(box):
    # the loop's exit is a copied `return None` laid out past the if (3.10/3.11)
    if box[0] != 0:
        box[0] = 0
        for i in range(len(box)):
            if box[i] == 3:
                continue
            box[i] = -i


@cases(([1, 2, 3], 1), ([1, 2, 3], 5), ([4, 5], None))
def loop_and_test_ending_body(items, limit):
    # 3.12+ copy the implicit back edge into each jump of `a and b`: no continue
    for x in items:
        if x > 1 and limit is not None:
            return x
    return -1


@cases(([1, 2, 3], 2), ([1, 2, 3], None), ([], 1))
def loop_break_into_copied_exit(items, limit):
    # 3.12+ copy the small exit block in place of the break's jump
    lines = []
    for i, x in enumerate(items, 1):
        if limit is not None and i > limit:
            break
        lines.append(x)
    return lines


@cases(([1, 0, 2], 0), ([1, 0, 2], 9), ([0, 1], 0), ([], 1))
def loop_for_else_breaking_out_of_if(items, new):
    # the break leaves the enclosing if: the loop's else is what the exhaustion reaches
    if new == 0:
        for a in items:
            for b in items:
                if b > 1:
                    new = b
                    break
            if new != 0:
                break
        else:
            new = 5
    new = new * 2
    return new


@cases(([1, 2, 3], 0), ([1, 2, 3], 2), ([], 0))
def loop_while_else_breaking_out_of_if(items, new):
    if new == 0:
        while items:
            a = items.pop()
            if a == 2:
                break
        else:
            new = 5
    return new, items


@cases(([1, 0, 2],), ([],))
def loop_while_test_then_continue(items):
    # 3.10+ repeat the test at the bottom: a jump back to the top is a written continue
    k = 0
    while k < len(items):
        k += 1
        continue
    return k


@cases(([3], 0), ([], 2), ([], 0), ([], None))
def loop_for_else_if_else_assert(items, k):
    # the break's copy of the return after the loop also ends the else's then-branch
    # (3.10+): the else is what runs before the copy nothing in it jumps past
    out = []
    for y in items:
        out.append(y)
        break
    else:
        if k:
            out.append(k)
        else:
            assert k == 0, "k"
    return out


@cases(([1], 1, 1), ([0], 1, 1), ([1], 1, 0), ([2, 3], 0, 0), ([], 0, 0))
def loop_nested_ifs_break_or_return(items, a, b):
    # the innermost if's false exit is threaded past its branch to the outer if's join
    # (3.12): the branch's if/else ends where the branch does
    out = []
    for v in items:
        if a:
            if b:
                if v:
                    break
            else:
                break
        else:
            out.append(v)
        return out, v


@cases((3, 2), (0, 0), (2, 5))
def loop_while_ends_in_while(n, m):
    # 3.14+: the inner loop's exit is the outer loop's only jump back, threaded to its head
    while n > 0:
        n -= 1
        while m > 0:
            m -= 1
    return n, m


@cases(([1, 0, 2, 0],), ([],))
def loop_if_else_after_break(items):
    # 3.9 keeps the dead jump over the else after a break
    out = []
    for x in items:
        if x == 2:
            break
        else:
            out.append(x)
    return out


@cases(("b", "ab:"), ("x", "ab"), (":", "a:"))
def loop_chained_test_continue(opt, shortopts):
    # the chained comparison's clean-up jumps to the loop head (3.10/3.11)
    for i in range(len(shortopts)):
        if opt == shortopts[i] != ":":
            return shortopts.startswith(":", i + 1)
    return None


@cases(([5, 3, 1, 2], 0, 3), ([1, 2, 3], 0, 2), ([2], 0, 0))
def loop_continue_then_final_break(heap, startpos, pos):
    # the final break falls into the exit: its if jumps straight out of the loop
    newitem = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if newitem < parent:
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = newitem
    return heap


@cases(([1, 2, 2, 1], 3), ([1, 5, 2, 9], 3), ([9], 0))
def loop_forever_continue_then_break(heap, pos):
    while True:
        parent = heap[pos]
        if parent < 3 and pos > 0:
            pos -= 1
            continue
        break
    return pos


@cases(("a/b/c", 3), ("abc/defg", 3), ("abcdef", 2))
def loop_for_else_raise_break_into_copied_tail(name, n):
    # the break's target is copied in its place (3.10+); the else raises
    components = name.split("/")
    for i in range(1, len(components)):
        prefix = "/".join(components[:i])
        name = "/".join(components[i:])
        if len(prefix) <= n and len(name) <= n:
            break
    else:
        raise ValueError("name is too long")
    return prefix, name


@cases(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 1))
def loop_break_after_statement_with_comprehension(actions, limit):
    # the break's copied exit follows an expression statement's POP_TOP
    result = []
    for i in range(len(actions), 0, -1):
        part = actions[:i]
        if sum(part) <= limit:
            result.extend([x * 2 for x in part])
            break
    return result


@cases(([(1,), (), (2, 3)], True), ([(1,), (), (2, 3)], False), ([(), ()], False))
def loop_inner_break_in_if_else_ending_body(classes, unique):
    # an if/elif ending the loop body whose branch holds a loop that breaks
    children = {}
    roots = []
    for c in classes:
        if c:
            for parent in c:
                if parent not in children:
                    children[parent] = []
                if unique and parent in (1, 2):
                    break
        elif c not in roots:
            roots.append(c)
    return children, roots


@cases(([1, 2, 3], 2), ([], 2), ([1], 5), ([1, 2], 0))
def loop_while_and_ending_function(items, n):
    # 3.10/3.11 copy the implicit `return None` to each jump out of both tests
    while items and n > 0:
        items.pop()
        n -= 1


@cases(([None, "ab", 2.5, 1],), (["x", 3],), ([],))
def loop_elif_and_test_then_continue(items):
    # the and-test's jump goes to the loop's last jump back, past the continue
    # ending the branch (enum._proto_member.__set_name__)
    found = None
    for v in items:
        if v is not None:
            if isinstance(v, int):
                found = v
                break
            elif hasattr(v, "upper") and hasattr(v, "lower"):
                found = v
                continue
    return found


@cases(([1, 2], [3], []), ([], [], [0]), ([5], [], [1, 2]))
def loop_while_or_ends_for_body(rows, fl, tl):
    # 3.12+: the while's false exit is threaded to the for's head and its test
    # copied at the bottom (difflib.HtmlDiff._line_wrapper)
    out = []
    for flag in rows:
        while fl or tl:
            if fl:
                out.append((fl.pop(0), flag))
            else:
                out.append((tl.pop(0), flag))
    return out, fl, tl


# `while c:` whose body starts with `while True:`: 3.10+ put both loops' heads at the same
# instruction once the NOP between them is dropped; the inner loop's back edge must not be read
# as the outer loop's `continue` (which would test `c` again: different behaviour below).
@cases((1,), (0,), (5,))
def loop_while_then_inner_forever(size):
    out = []
    while size > 0:
        while True:
            size -= 1
            out.append(size)
            if size < -3:
                break
        size -= 10
    return out


@cases((3, [0, 1, 0, 1, 1, 0]), (0, [1]), (2, [1, 1]))
def loop_while_inner_forever_if_else_break(n, flags):
    flags = list(flags)
    steps = []
    while n > 0:
        while True:
            f = flags.pop(0) if flags else 1
            if f:
                break
            else:
                steps.append("skip")
        n -= 1
        steps.append(n)
    return steps


@cases((5,), (1,), (0,))
def loop_while_inner_forever_continues(n):
    log = []
    while n > 0:
        while True:
            n -= 1
            if n % 2:
                log.append(("odd", n))
                continue
            if n < 3:
                break
            log.append(("even", n))
        if n == 0:
            log.append("zero")
            continue
        log.append(("after", n))
    return log


@cases((2,), (0,), (3,))
def loop_while_two_forever_levels(n):
    log = []
    while n > 0:
        while True:
            while True:
                n -= 1
                log.append(n)
                if n % 3 == 0:
                    break
            if n < 3:
                break
        log.append("out")
    return log


@cases((3,), (1,), (0,))
def loop_while_inner_forever_returns(n):
    while n > 0:
        while True:
            n -= 1
            if n == 1:
                return "one"
            if n <= 0:
                break
    return "done"


@cases(([(0, 2), (2, 5), (5, 9)], 7), ([(0, 9)], 3), ([], 0))
def loop_inner_forever_chain_break_else(spans, size):
    # tarfile._FileInFile.read's shape: 3.9 threads the jump into `break` to the break's target
    pos, index, seen = 0, 0, []
    while size > 0:
        while True:
            start, stop = spans[index]
            if start <= pos < stop:
                break
            else:
                index += 1
        seen.append(index)
        size -= 1
        pos += 1
    return seen


# `while True:` whose body starts with `while c:`: 3.10+ give both loops the inner test as head
@cases((0,), (4,), (9,))
def loop_forever_then_inner_while(n):
    out = []
    while True:
        while n < 3:
            n += 1
        out.append(n)
        if n > 5:
            return out
        n += 2


@cases(lazy(lambda: (iter("ab-cX"),)), lazy(lambda: (iter(""),)))
def loop_forever_inner_while_continues(it):
    lines, out = [], []
    while True:
        while len(lines) < 2:
            c = next(it, "X")
            if c == "-":
                continue
            lines.append(c)
        s = lines.pop(0)
        if s == "X":
            return out
        if s == "a":
            out.append("A")
            continue
        out.append(s)


@cases(lazy(lambda: (iter([1, 2, 3]),)), lazy(lambda: (iter([]),)))
def loop_forever_inner_while_try_return(it):
    got = []
    while True:
        while len(got) % 2 == 0:
            try:
                x = next(it)
            except StopIteration:
                return got
            got.append(x)
        got.append(-1)


@cases((0, 3), (2, 6), (5, 5))
def loop_forever_inner_while_else_break(n, limit):
    log = []
    while True:
        while n < limit:
            n += 1
            if n == 4:
                break
        else:
            log.append(("else", n))
            break
        log.append(("broke", n))
        n += 1
    return log


# argparse's consume_optional: a `while True` body that is one if/else, every arm ending in a
# break, a raise or (falling off the if) a jump to the loop's closing jump back
@cases((1, 1), (1, 0), (0, 1), (0, 0))
def loop_forever_if_else_all_leave(a, b):
    log = []
    while True:
        log.append(a)
        if a:
            if b:
                a = 0
            else:
                stop = 1
                break
        else:
            stop = 2
            break
    return stop, log


@cases((None, None, 0, []), (1, None, 0, []), (1, "x", 0, ["x"]), (1, "x", 1, []), (1, "x", 0, []), (1, "x", 2, []))
def loop_forever_option_arms(action, explicit_arg, arg_count, extras):
    tuples = []
    while True:
        if action is None:
            extras.append(1)
            return 0, tuples
        if explicit_arg is not None:
            if arg_count == 0:
                tuples.append(action)
                if explicit_arg in extras:
                    action = 2
                    explicit_arg = None
                else:
                    raise ValueError("ignored explicit argument")
            elif arg_count == 1:
                stop = 1
                break
            else:
                raise ValueError("bad count")
        else:
            stop = 2
            break
    return stop, tuples


@cases(([1, 2, 0, 3], 0), ([0, 0], 1), ([1], 0), ([], 5))
def loop_elif_arm_jumps_over_else(items, i):
    # html.parser.HTMLParser.goahead: an if arm ending in `break`, whose nested elif arm is
    # what jumps over the outer else (3.11 sends it straight to the loop's bottom test)
    out = []
    while i < len(items):
        if items[i] % 2:
            if items[i] > 2:
                out.append("big")
                break
            elif i + 1 < len(items):
                out.append("odd")
                i += 1
            else:
                break
        else:
            out.append("even")
            i += 1
    return out, i


@cases(([1, 2, 3, 4, 0], [1, 1]), ([2, 1], [0]), ([0, 0, 5], []), ([], []))
def loop_nested_elif_jumps_past_chain(items, flags):
    # tokenize._tokenize: an elif arm whose if jumps over the whole chain's else to the
    # loop's bottom test, its else leaving the loop
    out = []
    pos = 0
    while pos < len(items):
        m = items[pos]
        if m:
            pos += 1
            if m == 1:
                out.append("one")
            elif m == 2:
                if flags and flags.pop():
                    out.append("two")
                else:
                    out.append("stop")
                    break
            elif m == 3:
                out.append("three")
            else:
                out.append("many")
        else:
            out.append("zero")
            pos += 1
    return out, pos


@cases(([1, 2, 3, 9],), ([2, 1, 3],), ([4, 2],), ([3, 3, 4, 1, 5],))
def loop_elif_if_without_else_falls_to_back_edge(codes):
    # shlex.shlex.read_token (3.12): an elif arm ending in an if without an else, whose arms
    # break or continue; its false exit goes straight to the loop's closing jump back
    out = []
    it = iter(codes)
    while True:
        c = next(it, None)
        if c == 1:
            out.append("one")
        elif c == 2:
            out.append("two")
            if len(out) > 1:
                out.append("posix")
                if out[0] == "one":
                    break
                else:
                    continue
        elif c == 3:
            out.append("three")
        else:
            out.append(c)
            if c is None or c > 4:
                break
            else:
                continue
    return out


class _Source:
    def __init__(self, source, items):
        self.source, self.items = source, list(items)

    def next(self):
        return self.items.pop(0) if self.items else "end"


@cases((_Source(None, []), "a"), (_Source("a", ["a", "b"]), "a"), (_Source("a", []), "b"))
def loop_while_as_if_body(reader, raw):
    # shlex.get_token's shape: the if's false jump and the while's exit go to one place (3.9
    # tests the while at its head, which read as a second test of the if until the fifteenth
    # session: refused)
    if reader.source is not None:
        while raw == reader.source:
            raw = reader.next()
    return raw


@cases(([[1, 2], [3], [4, 5]], False, True), ([[1, 2], [3]], False, False), ([[1]], True, False), ([], False, False))
def loop_if_else_continue_in_if_arm(pairs, strict, keep):
    # urllib.parse.parse_qsl's shape: 3.9 turns `else: continue` into the test's own jump to
    # the loop's head and leaves the arm's continue, dead, after the true arm's jump over it
    r = []
    for nv in pairs:
        if len(nv) != 2:
            if strict:
                raise ValueError("bad")
            if keep:
                nv = nv + [0]
            else:
                continue
        if nv[1] or keep:
            r.append(nv)
    return r


@cases((["a", "", "b", "", ""], True, "x"), (["", "c"], False, None), (["", ""], True, None), ([], True, "x"))
def loop_if_else_then_continue_in_if_arm(lines, in_values, name):
    # configparser.RawConfigParser._read's shape: an if/else followed by `continue` in an if
    # arm; 3.9 threads the jump over the else to the loop's head, and a test in the first
    # arm jumps to the continue itself
    out = []
    level = 0
    for line in lines:
        if not line:
            if in_values:
                if name is not None and out:
                    out[-1] += "+"
            else:
                level += 1
            continue
        out.append(line)
    return out, level


@cases(([1, 2, 3],), ([2, 4],), ([],), ([5],))
def loop_while_continue_then_return(ks):
    # every version lays the body out with `continue` as the loop's last jump back and the
    # return after it, past the body's end: the return was dropped (wrong code: the loop
    # went round instead of returning)
    items = list(ks)
    seen = []
    while items:
        k = items.pop()
        seen.append(k)
        if k % 2:
            continue
        return k, seen
    return None, seen


@cases(([1, 2, 3], {1: 0, 2: 0}), ([4, -1], {}), ([-2, 5], {}), ([], {}))
def loop_if_arm_ends_in_raise_before_else(items, seen):
    # the arm's if falls off to the loop's head (its false exit, 3.12 jumps there straight)
    # and the else goes on to the head too (torch's handle_saved_tensors_wiring)
    out = []
    for x in items:
        if x > 0:
            if x not in seen:
                out.append(("raise", x))
                if x > 3:
                    raise KeyError(x)
        else:
            out.append(x)
            seen[x] = 1
    return out, seen


@cases(([1, 2, 3], 2), ([4, -1, 2], 4), ([], 0))
def loop_if_arm_ends_in_if_before_else(items, same):
    # as above, the inner if's body going on to the arm's end (Module._load_from_state_dict)
    out = []
    for x in items:
        if x > 0:
            if x is not same:
                out.append(x)
        else:
            out.append(-x)
    return out


@cases(([1, 2, 0, 5],), ([],), ([0, 0],))
def loop_if_elif_else_pass_ending_body(items):
    # `else: pass` ending a loop body: 3.12+ keep the pass's dead jump back
    a = b = 0
    for x in items:
        if x == 1:
            a += 1
        elif x > 1:
            b += x
        else:
            pass
    return a, b


@cases((["m", "n", "x", "y"],), ([],))
def loop_elif_continues_each(items):
    # two `elif t: continue` arms one after the other (transformers' caching_allocator_warmup)
    out = []
    for d in items:
        if d == "x":
            out.append(1)
        elif d == "m":
            continue
        elif d == "n":
            continue
        out.append(d)
    return out


@cases((1, 1, 5), (1, 0, 5), (0, 0, 5))
def loop_while_else_return_in_if_arm_break_past_else(a, b, c):
    # 3.9: the while's breaks jump past the if's else (its follow): the loop's else, a
    # return, ends the arm, and the if's else is no code of it
    v = 0
    if a:
        while b:
            break
        else:
            return 1
    else:
        v = c
    return 2, v


@cases((3, 1, [1, 1]), (3, 0, [1]), (0, 1, [1]))
def loop_while_continue_then_break_past_else(n, b, out):
    # `if c: continue` is laid out as the loop's jump back, with the break after it behind:
    # that break jumps past the while-else to code the compiler does not copy
    while n:
        n -= 1
        if b:
            b = 0
            continue
        break
    else:
        out.append(n)
    return [x for x in out if x], n, b


@cases((3, 1, 0), (3, 5, 2), (3, 5, 3), (3, 5, 0), (0, 0, 0))
def loop_while_elif_break_falls_into_follow(a, b, c):
    # 3.14: the elif's false path is the loop's jump back; its arm, laid out after it,
    # ends in a break that falls into the code after the loop
    out = []
    n = 0
    while a > n:
        n += 1
        if b == n:
            out.append("b")
            break
        elif c > n:
            out.append("c")
            if c == 2:
                out.append("x")
            else:
                out.append("y")
            break
    return [x for x in out], n
