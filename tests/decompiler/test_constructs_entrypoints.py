"""`pellucid.decompile` entry points: what objects it accepts, and how it refuses the rest.

Decisions encoded here:
- bound methods, functools.partial, lru_cache- and wraps-wrapped functions decompile the
  function they stand for (``inspect.unwrap`` semantics, like ``inspect.signature``);
- a callable instance decompiles its class's ``__call__``;
- a code object decompiles to a ``def`` named after ``co_name`` (no defaults are known);
- objects without Python bytecode (an int, a builtin function, a class instance without
  ``__call__``) raise ``TypeError``; bytecode the decompiler cannot handle raises
  ``DecompilationError`` (an ``Exception`` subclass) naming the function and Python version.
"""

from __future__ import annotations

import ast
import dis
import functools
import sys
import types

import pytest
from samples._harness import DECOMPILE, recompile

from pellucid import DecompilationError


def target(a, b=2, *, c=3):
    if a > b:
        return a - b + c
    return [a, b, c]


def _plus_one(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@_plus_one
def wrapped_target(x, y=10):
    return x * y


@functools.lru_cache(maxsize=128)
def cached_target(n):
    return n * n + 1


class Holder:
    factor = 3

    def method(self, x, y=1):
        return (x + y) * self.factor

    @staticmethod
    def static(x):
        return x - 1

    @classmethod
    def klass(cls, x):
        return cls.factor * x


class CallableThing:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, *rest):
        return self.k + x + len(rest)


INPUTS = [(5,), (1,), (5, 1), (0, 0)]


def _exec_def(source: str, name: str):
    g = dict(globals())
    g.pop(name, None)
    exec(compile(source, "<decompiled>", "exec", dont_inherit=True), g)
    fn = g.get(name)
    assert isinstance(fn, types.FunctionType), f"no def {name}:\n{source}"
    return fn


def _defines(source: str, name: str) -> bool:
    tree = ast.parse(source)
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
        for n in ast.walk(tree)
    )


def _same_results(f, g, inputs):
    for args in inputs:
        assert f(*args) == g(*args), args


def test_plain_function():
    src = DECOMPILE(target, verify=True)
    _same_results(target, _exec_def(src, "target"), INPUTS + [(1, 2)])


def test_bound_method():
    obj = Holder()
    src = DECOMPILE(obj.method, verify=True)
    assert _defines(src, "method"), src
    fn = _exec_def(src, "method")
    for args in [(1,), (2, 5)]:
        assert fn(obj, *args) == obj.method(*args)


def test_staticmethod_and_classmethod_access():
    src = DECOMPILE(Holder.static, verify=True)
    assert _exec_def(src, "static")(4) == 3
    src = DECOMPILE(Holder.klass, verify=True)  # a bound method of the class
    assert _exec_def(src, "klass")(Holder, 2) == 6


def test_code_object():
    src = DECOMPILE(target.__code__, verify=True)
    assert _defines(src, "target"), src
    fn = _exec_def(src, "target")
    for a, b, c in [(5, 1, 3), (1, 2, 0)]:
        assert fn(a, b, c=c) == target(a, b, c=c)


def test_code_object_of_a_closure_keeps_free_variables():
    def outer(k):
        def inner(x):
            return x + k

        return inner

    inner = outer(7)
    src = DECOMPILE(inner.__code__, verify=True)
    code = recompile(src, inner.__code__)
    assert code.co_freevars == inner.__code__.co_freevars
    rebuilt = types.FunctionType(code, globals(), "inner", None, inner.__closure__)
    assert rebuilt(1) == 8


def test_functools_partial():
    p = functools.partial(target, 10, c=0)
    src = DECOMPILE(p, verify=True)
    assert _defines(src, "target"), src
    fn = _exec_def(src, "target")
    assert functools.partial(fn, 10, c=0)(3) == p(3)


def test_nested_partial():
    p = functools.partial(functools.partial(target, 1), 2)
    src = DECOMPILE(p, verify=True)
    assert _defines(src, "target"), src


def test_lru_cache_wrapped():
    src = DECOMPILE(cached_target, verify=True)
    assert _defines(src, "cached_target"), src
    fn = _exec_def(src, "cached_target")
    _same_results(cached_target.__wrapped__, fn, [(0,), (3,)])


def test_functools_wraps_wrapped():
    src = DECOMPILE(wrapped_target, verify=True)
    assert _defines(src, "wrapped_target"), src
    fn = _exec_def(src, "wrapped_target")
    _same_results(wrapped_target.__wrapped__, fn, [(2,), (2, 3)])


def test_callable_instance():
    obj = CallableThing(5)
    src = DECOMPILE(obj, verify=True)
    assert _defines(src, "__call__"), src
    fn = _exec_def(src, "__call__")
    assert fn(obj, 1) == obj(1)
    assert fn(obj, 1, 2, 3) == obj(1, 2, 3)


def test_lambda():
    f = lambda x, y=3: x * y  # noqa: E731
    src = DECOMPILE(f, verify=True)
    compile(src, "<decompiled>", "exec", dont_inherit=True)


def test_verify_false_is_default_and_same_text():
    assert DECOMPILE(target) == DECOMPILE(target, verify=False)


def _counting(n):
    k = 0
    while k < n:
        yield k
        k += 1


async def _awaiting(x):
    return await x


async def _async_counting(n):
    for k in range(n):
        yield k


def test_running_objects_give_the_code_they_run():
    """A generator, coroutine, async generator or frame: the code object it runs."""
    gen = _counting(3)
    next(gen)  # also mid-run
    coro = _awaiting(None)
    try:
        for obj, fn in [(gen, _counting), (coro, _awaiting), (_async_counting(2), _async_counting)]:
            assert DECOMPILE(obj, verify=True) == DECOMPILE(fn, verify=True)
    finally:
        coro.close()
    assert DECOMPILE(_frame(), verify=True) == DECOMPILE(_frame, verify=True)


def _frame():
    return sys._getframe()


def test_names_no_source_can_spell_are_refused_clearly():
    """pytest rewrites this module's asserts into code using ``@py_assert1``-like names:
    no source spells them, so decompiling says so (before, an 'internal error')."""
    with pytest.raises(DecompilationError, match="@py_assert"):
        DECOMPILE(test_running_objects_give_the_code_they_run)


@pytest.mark.parametrize(
    "bad",
    [42, "def f(): pass", None, len, print, object(), [1, 2], types],
    ids=["int", "str", "None", "builtin-len", "builtin-print", "object", "list", "module-obj"],
)
def test_objects_without_bytecode_raise_type_error(bad):
    with pytest.raises(TypeError) as info:
        DECOMPILE(bad)
    assert str(info.value), "the TypeError needs a message"


def test_builtin_method_raises_type_error():
    with pytest.raises(TypeError):
        DECOMPILE([].append)


def test_decompilation_error_is_an_exception():
    assert issubclass(DecompilationError, Exception)
    err = DecompilationError("unsupported thing", code_name="f", opname="OP", offset=4)
    text = str(err)
    assert "unsupported thing" in text and "f" in text and "OP" in text and "4" in text
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in text


def _code_tree(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_tree(const)


def _provoked_errors():
    """Code objects the decompiler must refuse, each under a name of its own: an opcode byte
    no interpreter defines, and bodies cut off before their return."""
    co = target.__code__
    cases = {"cut_off_body": co.co_code[: len(co.co_code) // 2], "no_return": co.co_code[:-2]}
    for op in range(255, 0, -1):
        if op in dis.opmap.values():
            continue
        # 3.11+ read undefined opcodes back from co_code as CACHE: no such case there
        if co.replace(co_code=bytes([op, 0]) + co.co_code).co_code[0] == op:
            cases["with_unknown_opcode"] = bytes([op, 0]) + co.co_code
            break
    for name, raw in cases.items():
        try:
            built = co.replace(co_code=raw, co_name=name)
            if sys.version_info >= (3, 11):
                built = built.replace(co_qualname=name)
        except ValueError:  # an interpreter that refuses to build it is not a decompiler case
            continue
        yield built


def test_decompilation_errors_name_function_and_version():
    """Every DecompilationError names the function and the Python version: the provoked ones,
    and any the samples still provoke."""
    from samples import all_samples

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    provoked = list(_provoked_errors())
    assert provoked, "this Python built none of the provoking code objects"
    for code in provoked:
        with pytest.raises(DecompilationError) as info:
            DECOMPILE(code)
        text = str(info.value)
        assert code.co_name in text and f"(Python {version})" in text, text
        assert info.value.code_name == code.co_name
    for sample in all_samples():
        try:
            DECOMPILE(sample.func)
        except DecompilationError as exc:
            text = str(exc)
            # the function named may be the nested one where the problem is
            names = {c.co_name for c in _code_tree(sample.func.__code__)}
            assert any(n in text for n in names), text
            assert f"(Python {version})" in text, text
        except Exception:  # noqa: BLE001 - other errors are test_constructs' business
            pass


def test_unknown_opcode_error_names_the_opcode_and_offset():
    codes = [c for c in _provoked_errors() if c.co_name == "with_unknown_opcode"]
    if not codes:
        assert sys.version_info >= (3, 11)
        pytest.skip("3.11+ code objects read undefined opcodes back as CACHE")
    (code,) = codes
    with pytest.raises(DecompilationError) as info:
        DECOMPILE(code)
    assert info.value.offset == 0, str(info.value)
    assert "offset 0" in str(info.value), str(info.value)


def _malformed(kind: str):
    co = target.__code__
    raw = co.co_code
    makers = {
        "truncated": lambda: co.replace(co_code=raw[: len(raw) // 2]),
        "no-return": lambda: co.replace(co_code=raw[:-2]),
        "garbage": lambda: co.replace(co_code=bytes([255, 255] * 8)),
        "empty": lambda: co.replace(co_code=b""),
        "underflow": lambda: co.replace(co_code=bytes([dis.opmap["POP_TOP"], 0]) + raw),
        "last-return-dropped": lambda: co.replace(
            co_code=raw[:-2] + bytes([dis.opmap["POP_TOP"], 0])
        ),
    }
    try:
        return makers[kind]()
    except ValueError:  # newer interpreters refuse to build some of these
        pytest.skip(f"this Python refuses to build a {kind} code object")


@pytest.mark.parametrize(
    "kind", ["truncated", "no-return", "garbage", "empty", "underflow", "last-return-dropped"]
)
def test_malformed_bytecode_raises_decompilation_error(kind):
    """Bytecode no compiler emits is refused with DecompilationError, never another crash and
    never a function that would do something else (``pass`` for a body that runs off its end)."""
    code = _malformed(kind)
    for verify in (False, True):
        with pytest.raises(DecompilationError) as info:
            DECOMPILE(code, verify=verify, strict=verify)
        assert "target" in str(info.value), str(info.value)


def test_renamed_code_object_and_varnames():
    co = target.__code__
    renamed = co.replace(co_name="renamed", co_varnames=("x", "y", "z") + co.co_varnames[3:])
    if sys.version_info >= (3, 11):
        renamed = renamed.replace(co_qualname="renamed")
    src = DECOMPILE(renamed, verify=True)
    assert _defines(src, "renamed"), src
    fn = _exec_def(src, "renamed")
    assert fn(5, 1, z=3) == target(5, 1, c=3)


def test_decompile_leaves_the_function_alone():
    def f(a, b=[1], *, c={"k": 1}):  # noqa: B006
        return a, b, c

    f.attr = "kept"
    before = (f.__code__, f.__defaults__, f.__kwdefaults__, dict(f.__dict__), f.__qualname__)
    DECOMPILE(f)
    try:
        DECOMPILE(f, verify=True)
    except DecompilationError:
        pass
    after = (f.__code__, f.__defaults__, f.__kwdefaults__, dict(f.__dict__), f.__qualname__)
    assert before == after
    assert f(0) == (0, [1], {"k": 1})


COMPREHENSION_PROGRAM = '''
def f(xs, a):
    b = 2
    return ([x + a for x in xs if x], {k: v * b for k, v in xs}, (y for y in xs),
            {z for z in xs for w in z if w}, [lambda: iterable for q in xs])
async def g(xs):
    return [x async for x in xs], [await x for x in xs], (x async for x in xs)
class C:
    r = [i for i in range(3)]
t = [i * 2 for i in range(4)]
'''


def _nested_codes(code):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c
            yield from _nested_codes(c)


def test_comprehension_code_objects_decompile_inside_an_enclosing_function():
    # A comprehension's own code object (generator expressions on every version, all kinds up
    # to 3.11) -- what a frame inside a genexpr shows -- comes back as the comprehension inside
    # a function taking its iterator and closed-over variables, verified exact.
    module = compile(COMPREHENSION_PROGRAM, "<comprehensions>", "exec")
    comps = [c for c in _nested_codes(module) if c.co_name.startswith("<") and c.co_name != "<lambda>"]
    assert len(comps) == (10 if sys.version_info < (3, 12) else 2)
    for code in comps:
        source = DECOMPILE(code, verify=True)
        ast.parse(source)
        if code.co_flags & 0x10:  # nested: a def around the comprehension
            assert source.lstrip().startswith(("def ", "async def ")), source
            assert "return " in source
    genexpr = next(c for c in comps if c.co_name == "<genexpr>")
    assert "(y for y in iterable)" in DECOMPILE(genexpr)
    if sys.version_info >= (3, 12):
        return  # list comprehensions are inlined
    # the name given to the iterator never captures a name the comprehension uses
    lam = next(c for c in comps if any(getattr(k, "co_name", "") == "<lambda>" for k in c.co_consts))
    assert "for q in iterable_0" in DECOMPILE(lam)
