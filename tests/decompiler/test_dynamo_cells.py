"""A cell object handed on as a value, as Dynamo's code does at a graph break.

Dynamo passes the cells of the frame it transformed to the resume function it calls
(``LOAD_CLOSURE``; from 3.13 a fast load of the cell's slot, ``LOAD_FAST_BORROW`` on 3.14), not
only to a closure being made.  No source compiles to that, so the program is compiled code with
one value read of a cell turned into a read of the cell itself.  It runs beside its decompiled
source, which must hand on the very same cell.
"""

from __future__ import annotations

import dis
import sys

import pellucid


def _source():
    def f(w, keep):
        def g():
            return w

        return keep((w,)), g

    return f


def _with_cell_handed_on(code):
    """``code`` with its one ``LOAD_DEREF`` (of ``w``, in ``(w,)``) loading ``w``'s cell instead:
    the same slot number, whose load of the cell is LOAD_CLOSURE up to 3.12, LOAD_FAST after."""
    cell_load = dis.opmap["LOAD_FAST" if sys.version_info >= (3, 13) else "LOAD_CLOSURE"]
    raw = bytearray(code.co_code)
    derefs = [k for k in range(0, len(raw), 2) if raw[k] == dis.opmap["LOAD_DEREF"]]
    assert len(derefs) == 1, dis.dis(code)
    raw[derefs[0]] = cell_load
    return code.replace(co_code=bytes(raw))


def test_a_cell_handed_to_a_call_stays_that_cell():
    original = _source()
    code = _with_cell_handed_on(original.__code__)
    dynamos = type(original)(code, original.__globals__, "f")
    source = pellucid.decompile(code, verify=False)  # (not compiler output: run side by side)
    scope: dict = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    ours = scope["f"]
    for fn in (dynamos, ours):
        cell, g = fn(5, lambda cells: cells[0])
        assert type(cell).__name__ == "cell", source
        assert cell is g.__closure__[0], source  # the frame's own cell, not a copy
        assert cell.cell_contents == 5 and g() == 5, source
        cell.cell_contents = 6
        assert g() == 6, source
