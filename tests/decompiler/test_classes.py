"""Class statements and whole modules: decompile with verification, run both, compare.

Class cases are module sources whose ``result()`` exercises the classes they define; module
cases are whole modules compared by what they print and the names they leave behind, run
both as ``__main__`` and as an imported module.  Both are decompiled from the module code
object, so every class body, method and nested function goes through the decompiler.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import sys

import pytest

import pellucid

CLASS_CASES = {
    "bases_keywords_metaclass": """
class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        ns["made_by"] = "Meta"
        ns["kw"] = kw
        return super().__new__(mcls, name, bases, ns)

    def __init__(cls, name, bases, ns, **kw):
        super().__init__(name, bases, ns)

class Base:
    tag = "base"

class C(Base, metaclass=Meta, flavour=1):
    pass

bases = (dict,)
class D(*bases, **{}):
    extra = 2

def result():
    return C.made_by, C.kw, type(C).__name__, C.tag, D(a=1), D.__mro__[1].__name__
""",
    "methods_decorators_properties": '''
import functools

def deco(cls):
    cls.decorated = True
    return cls

@deco
class C:
    """Doc of C."""
    count = 3
    items = [i * 2 for i in range(count)]

    def __init__(self, v):
        self.v = v

    @staticmethod
    def s(a):
        return a * 2

    @classmethod
    def c(cls, a):
        return cls.count + a

    @property
    def p(self):
        return self.v * 100

    @p.setter
    def p(self, value):
        self.v = value

    @functools.lru_cache(maxsize=None)
    def cached(self):
        return self.v + 1

    def __repr__(self):
        return f"C({self.v!r})"

    __hash__ = None

def result():
    o = C(2)
    o.p = 5
    return C.__doc__, C.decorated, C.items, C.s(2), C.c(3), o.p, o.cached(), repr(o), C.__hash__
''',
    "super_and_class_cell": """
class Base:
    def greet(self):
        return ["base"]

    def __init_subclass__(cls, tag=None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.tag = tag

class Child(Base, tag="child"):
    def greet(self):
        return super().greet() + ["child"]

    def who(self):
        return __class__.__name__

class Grand(Child, tag="grand"):
    def greet(self):
        r = super().greet()
        r.append("grand")
        return r

def result():
    return Grand().greet(), Grand().who(), Child.tag, Grand.tag
""",
    "nested_and_private": """
class Outer:
    class Inner:
        value = 1

        class Deepest:
            value = 2

    ref = Inner.value
    __secret = "hidden"

    def reveal(self):
        return self.__secret

    def __private_method(self):
        return "pm"

    def call_private(self):
        return self.__private_method()

def result():
    o = Outer()
    return (Outer.Inner.value, Outer.Inner.Deepest.__qualname__, Outer.ref, o.reveal(),
            o.call_private(), hasattr(Outer, "_Outer__secret"))
""",
    "annotations_and_dataclass": """
import dataclasses

@dataclasses.dataclass
class P:
    x: int
    y: int = 0
    tags: list = dataclasses.field(default_factory=list)

class A:
    a: int = 1
    b: str

    def m(self) -> int:
        return self.a

def result():
    return P(1), P(1, 2) == P(1, 2), A.__annotations__, A().m()
""",
    "class_body_control_flow": """
import sys

class C:
    if sys.version_info >= (3, 0):
        kind = "py3"
    else:
        kind = "old"
    for i in range(3):
        pass
    del i
    total = 0
    while total < 5:
        total += 2

def result():
    return C.kind, C.total
""",
    "class_body_try": """
class C:
    try:
        import math as m
    except ImportError:
        m = None
    with open(__file__ if "__file__" in globals() else "/dev/null") as fh:
        first = fh.read(0)

def result():
    return C.m.__name__, C.first
""",
    "class_in_function_closure": """
def make(x):
    class C:
        y = x

        def get(self):
            return x * 10

        lam = staticmethod(lambda: x)

    return C

def result():
    C = make(3)
    return C.y, C().get(), C.lam()
""",
}

MODULE_CASES = {
    "imports_globals_main": '''
"""A module docstring."""
from __future__ import annotations

import math
import os.path as osp
from collections import OrderedDict as OD, deque

__all__ = ["area", "VERSION"]

VERSION = (1, 2)
_state = 0
TABLE = {n: i for i, n in enumerate("ab")}

def area(r: float, *, precision: int = 2) -> float:
    return round(math.pi * r * r, precision)

def bump(k=1):
    global _state
    _state += k
    return _state

for _i in range(3):
    bump(_i)
del _i

if __name__ == "__main__":
    mode = "main"
    print(mode, area(2), osp.basename("/x/y"), list(OD(a=1)), deque([1]))
else:
    mode = "imported"
    print("imported as", __name__)

def _check():
    return area(1.5), bump(), VERSION, __all__, sorted(TABLE)
''',
    "annotations_module": """
x: int = 5
y: str
z: "list[int]" = []

class Config:
    debug: bool = False
    name: str

def _check():
    return __annotations__, Config.__annotations__, x, z
""",
    "global_declared_in_function_only": """
_cache = {}

def remember(k, v):
    global _cache
    _cache[k] = v
    return len(_cache)

def _check():
    return remember("a", 1), remember("b", 2), sorted(_cache)
""",
}


def _run(code, name: str) -> dict:
    ns = {"__name__": name, "__builtins__": builtins}
    out = io.StringIO()
    rec: dict = {}
    with contextlib.redirect_stdout(out):
        try:
            exec(code, ns)
            for fn in ("result", "_check"):
                if callable(ns.get(fn)):
                    rec[fn] = repr(ns[fn]())
        except Exception as exc:  # noqa: BLE001 - behaviour, compared
            rec["raised"] = (type(exc).__name__, str(exc))
    rec["stdout"] = out.getvalue()
    rec["names"] = sorted(k for k in ns if k != "__builtins__")
    rec["doc"] = ns.get("__doc__")
    return rec


@pytest.mark.parametrize("case_id", sorted(CLASS_CASES) + sorted(MODULE_CASES))
@pytest.mark.parametrize("run_as", ["__main__", "sample_module"])
def test_module_source(case_id, run_as):
    src = CLASS_CASES.get(case_id) or MODULE_CASES[case_id]
    code = compile(src, f"<{case_id}>", "exec", dont_inherit=True)
    out = pellucid.decompile(code, strict=True)
    rebuilt = compile(out, f"<decompiled {case_id}>", "exec", dont_inherit=True)
    assert _run(code, run_as) == _run(rebuilt, run_as), out


def test_class_body_code_object_alone():
    src = "class C(object):\n    x = 1\n\n    def m(self):\n        return self.x\n"
    code = compile(src, "<c>", "exec")
    body = next(c for c in code.co_consts if hasattr(c, "co_code"))
    out = pellucid.decompile(body, strict=True)
    assert out.startswith("class C")


def test_method_with_super_alone():
    class Base:
        def f(self):
            return 1

    class Child(Base):
        def f(self):
            return super().f() + 1

    out = pellucid.decompile(Child.f, strict=True)
    assert "super().f()" in out


@pytest.mark.skipif(sys.version_info < (3, 13), reason="__static_attributes__ is 3.13+")
def test_static_attributes_not_in_source():
    src = "class C:\n    def __init__(self):\n        self.a = 1\n        if self.a:\n            self.b = 2\n"
    out = pellucid.decompile(compile(src, "<c>", "exec"), verify=True)
    assert "__static_attributes__" not in out and "__firstlineno__" not in out


def test_class_body_alone_under_future_annotations():
    """A class body compiled under ``from __future__ import annotations``, decompiled on its
    own, keeps its annotations as the text they were written as (unquoted, the future import
    kept), including attribute targets, which store nothing but create ``__annotations__``."""
    src = "from __future__ import annotations\nclass C:\n    x: list[int]\n    y: 'C' | None = None\n"
    code = next(c for c in compile(src, "<m>", "exec").co_consts if hasattr(c, "co_code"))
    out = pellucid.decompile(code, verify=True)
    assert out.startswith("from __future__ import annotations")
    ns_orig: dict = {}
    exec(compile(src, "<m>", "exec"), ns_orig)
    ns_new: dict = {}
    exec(compile(out, "<d>", "exec"), ns_new)
    assert ns_new["C"].__annotations__ == ns_orig["C"].__annotations__ == {"x": "list[int]", "y": "'C' | None"}
