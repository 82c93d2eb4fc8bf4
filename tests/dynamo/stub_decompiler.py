"""A test-only stand-in for the decompiler, for Dynamo code of a straight-line graph call.

Dynamo's transformed code for a frame without graph breaks calls its graph once and returns
an output: ``graph_out_0 = __compiled_fn_<k>(<args>); return graph_out_0[0]`` (plus profiling
calls to ``record_pregraph_bytecode_enter/exit``, which torch 2.15 runs only under a profiler:
``if`` statements whose jumps and ``None`` constants sit between the graph's load and its call,
and which load no argument).  This stand-in refuses every other frame, so the torch side
(files, the code contract, debugging) is tested on frames of that one shape. Their source is
the real decompiler's: a file runs only once the translation validator has proven it
equivalent to Dynamo's code, which a hand-written stand-in that leaves out the profiling calls
is not.
"""

from __future__ import annotations

import dis
import types


def decompile(code: types.CodeType, verify: bool = False) -> str:
    import pellucid

    instrs = list(dis.get_instructions(code))
    graph = [
        i.argval for i in instrs if i.opname == "LOAD_GLOBAL" and "__compiled_fn_" in str(i.argval)
    ]
    gated_markers = "_is_profiler_enabled" in code.co_names  # (torch 2.15+)
    if len(graph) != 1 or (
        not gated_markers and any(i.opname.startswith(("POP_JUMP", "JUMP")) for i in instrs)
    ):
        raise pellucid.DecompilationError("stub handles straight-line graph calls only")
    seen_graph = False
    for i in instrs:
        if i.opname == "LOAD_GLOBAL" and i.argval == graph[0]:
            seen_graph = True
        elif seen_graph and i.opname == "STORE_FAST" and i.argval == "graph_out_0":
            break
        elif gated_markers and i.opname == "LOAD_CONST" and i.argval is None:
            continue  # (the markers' `cm = None`, `cm is not None` and templates' returns)
        elif seen_graph and i.opname in ("BINARY_SUBSCR", "LOAD_DEREF", "LOAD_CONST"):
            raise pellucid.DecompilationError(
                "stub handles graphs called with plain arguments only"
            )
    # The file must be proven equivalent to Dynamo's code before it runs (translation
    # validation), so the source is the real decompiler's: what this stand-in controls is which
    # frames get a file at all (plain graph calls only).
    from pellucid.decompiler.api import decompile as real_decompile

    return real_decompile(code, verify=False)
