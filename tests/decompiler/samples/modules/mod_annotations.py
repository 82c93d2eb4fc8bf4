"""Module-level annotations, docstring-less, with star-imports avoided."""

x: int = 1
y: "str"
z: list = [x, x + 1]
w: dict[str, int] = {}  # evaluated at runtime on 3.9+


def f(a: int, b: "float" = 2.0) -> "tuple":
    return a, b


def _check():
    return __annotations__, f(1), f.__annotations__, z, w
