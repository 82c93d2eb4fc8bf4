"""Module-level classes: inheritance, super(), decorators, metaclass, __init_subclass__."""

import functools

REGISTRY = []


class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        cls = super().__new__(mcls, name, bases, ns)
        cls.meta_kw = kw
        return cls


class Base(metaclass=Meta):
    kind = "base"

    def __init_subclass__(cls, tag=None, **kw):
        super().__init_subclass__(**kw)
        REGISTRY.append((cls.__name__, tag))

    def __init__(self, value):
        self.value = value

    def describe(self):
        return f"{self.kind}:{self.value}"


class Child(Base, tag="child"):
    kind = "child"

    def describe(self):
        return super().describe().upper()

    @property
    def double(self):
        return self.value * 2

    @staticmethod
    def helper(x):
        return -x

    @functools.cached_property
    def expensive(self):
        return [self.value] * 3


class Outer:
    class Inner:
        def who(self):
            return __class__.__qualname__


def _check():
    c = Child(4)
    return (
        REGISTRY,
        c.describe(),
        c.double,
        Child.helper(3),
        c.expensive,
        Outer.Inner().who(),
        Child.meta_kw,
        type(Child).__name__,
    )
