"""Class bodies (via the functions that define them) and methods decompiled on their own.

The sample functions below define classes inside their bodies, so decompiling them means
decompiling class-body code objects: methods, class attributes, decorators, nested classes,
zero-argument super() (the __class__ cell), __init_subclass__, class keywords and metaclasses.
"""

from . import cases, lazy

CONSTRUCT = "classes"


@cases((1,), (2,))
def cls_simple(x):
    class C:
        attr = x * 2
        other = attr + 1

        def method(self, y):
            return self.attr + y

    return C.attr, C.other, C().method(10), C.__name__, C.__qualname__


@cases(
    (1,),
)
def cls_docstring_and_annotations(x):
    class C:
        """Class doc."""

        a: int = 1
        b: str

        def m(self) -> int:
            return self.a

    return C.__doc__, C.__annotations__, C().m()


@cases(
    (1,),
)
def cls_super_zero_arg(x):
    class Base:
        def greet(self):
            return ["base"]

    class Child(Base):
        def greet(self):
            return super().greet() + ["child", x]

    class GrandChild(Child):
        def greet(self):
            r = super().greet()
            r.append("grand")
            return r

    return GrandChild().greet()


@cases(
    (1,),
)
def cls_dunder_class_reference(x):
    class C:
        def who(self):
            return __class__.__name__

    return C().who()


@cases(
    (1,),
)
def cls_decorators(x):
    class C:
        count = x

        @staticmethod
        def s(a):
            return a * 2

        @classmethod
        def c(cls, a):
            return cls.count + a

        @property
        def p(self):
            return self.count * 100

        @p.setter
        def p(self, value):
            self.count = value

    obj = C()
    obj.p = 5
    return C.s(2), C.c(3), obj.p, obj.count


@cases(
    (1,),
)
def cls_class_decorator(x):
    import dataclasses

    @dataclasses.dataclass
    class D:
        a: int
        b: int = x

    return D(5), D(1, 2) == D(1, 2)


@cases(
    (1,),
)
def cls_nested_classes(x):
    class Outer:
        class Inner:
            value = x

            class Deepest:
                value = x + 1

        ref = Inner.value

    return Outer.Inner.value, Outer.Inner.Deepest.value, Outer.ref, Outer.Inner.Deepest.__qualname__


@cases(
    (1,),
)
def cls_init_subclass(x):
    registry = []

    class Base:
        def __init_subclass__(cls, tag=None, **kwargs):
            super().__init_subclass__(**kwargs)
            registry.append((cls.__name__, tag))

    class A(Base, tag="a"):
        pass

    class B(A):
        pass

    return registry


@cases(
    (1,),
)
def cls_metaclass(x):
    class Meta(type):
        def __new__(mcls, name, bases, ns, **kw):
            ns["made_by"] = "Meta"
            ns["kw"] = kw
            return super().__new__(mcls, name, bases, ns)

        def __init__(cls, name, bases, ns, **kw):
            super().__init__(name, bases, ns)

    class C(metaclass=Meta, flavour=x):
        pass

    return C.made_by, C.kw, type(C).__name__


@cases(
    (1,),
)
def cls_star_bases(x):
    bases = (dict,)
    kw = {}

    class D(*bases, **kw):
        extra = x

    return D(a=1), D.__mro__[1].__name__


@cases(
    (2,),
)
def cls_closure_in_class_body(x):
    class C:
        y = x

        def get(self):
            return x * 10

        values = [i * 2 for i in range(3)]
        lam = staticmethod(lambda: x)

    return C.y, C().get(), C.values, C.lam()


@cases(
    (1,),
)
def cls_private_name_mangling(x):
    class C:
        __secret = x

        def reveal(self):
            return self.__secret

    return C().reveal(), hasattr(C, "_C__secret")


@cases((1,), (0,))
def cls_class_body_control_flow(x):
    class C:
        if x:
            kind = "truthy"
        else:
            kind = "falsy"
        for i in range(3):
            pass
        del i
        try:
            import math as m
        except ImportError:  # unreachable
            m = None  # unreachable

    return C.kind, C.m.__name__


@cases(
    (1,),
)
def cls_dunder_methods(x):
    class V:
        def __init__(self, v):
            self.v = v

        def __add__(self, other):
            return V(self.v + other.v)

        def __eq__(self, other):
            return self.v == other.v

        def __repr__(self):
            return f"V({self.v!r})"

        __hash__ = None

    return V(x) + V(2), V(1) == V(1)


@cases(
    (1,),
)
def cls_global_and_nonlocal_in_method(x):
    counter = 0

    class C:
        def bump(self):
            nonlocal counter
            counter += 1
            return counter

    c = C()
    c.bump()
    return c.bump(), counter


@cases((2,), (0,))
def cls_comprehension_scoping(n):
    class C:
        xs = list(range(n + 1))
        doubled = [x * 2 for x in xs]  # the iterable is evaluated in the class scope
        try:
            hidden = [x * len(xs) for x in range(2)]  # class names are invisible here
        except NameError as e:
            hidden = str(e)

    return C.doubled, C.hidden


@cases(
    (1,),
)
def cls_slots_and_class_getitem(x):
    class S:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a = x

        def __class_getitem__(cls, item):
            return (cls.__name__, item)

    s = S()
    try:
        s.c = 1
    except AttributeError:
        blocked = True
    return s.a, S[int], blocked


@cases((1,), state={"CLASS_GLOBAL": None})
def cls_global_in_class_body(x):
    class C:
        global CLASS_GLOBAL
        CLASS_GLOBAL = x * 7
        local = CLASS_GLOBAL + 1

    return C.local, CLASS_GLOBAL, "CLASS_GLOBAL" in vars(C)


@cases(
    (3,),
)
def cls_super_in_nested_function_and_lambda(x):
    class Base:
        def value(self):
            return x

    class Child(Base):
        def value(self):
            get = lambda: super(Child, self).value()  # noqa: E731

            def explicit():
                return super(Child, self).value() * 10

            return get(), explicit(), super().value()

    return Child().value()


# --- methods decompiled on their own


class Base:
    def describe(self):
        return "base"


class Derived(Base):
    label = "derived"

    def describe(self, extra=""):
        return super().describe() + "/" + self.label + extra

    def plain(self, a, *, b=2):
        return self.label, a, b

    @classmethod
    def build(cls, value):
        return cls.__name__, value


cls_method_with_super = cases(lazy(lambda: (Derived(),)), lazy(lambda: (Derived(), "!")))(
    Derived.describe
)

cls_method_plain = cases(lazy(lambda: (Derived(), 1)), lazy(lambda: (Derived(), 1)))(Derived.plain)

cls_classmethod_function = cases(
    (Derived, 5),
)(Derived.__dict__["build"].__func__)
