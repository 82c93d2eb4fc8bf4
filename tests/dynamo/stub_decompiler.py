"""A test-only stand-in for the decompiler, for Dynamo code of a straight-line graph call.

Dynamo's transformed code for a frame without graph breaks calls its graph once and returns
an output: ``graph_out_0 = __compiled_fn_<k>(<args>); return graph_out_0[0]`` (plus profiling
calls to ``record_pregraph_bytecode_enter/exit``, which torch 2.15 runs only under a profiler:
``if`` statements whose jumps and ``None`` constants sit between the graph's load and its call,
and which load no argument).  This stub writes exactly that source, so the torch side (files,
the code contract, debugging) is tested independently of the decompiler.
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
    nargs = code.co_argcount
    args = list(code.co_varnames[:nargs])
    call_args = []
    seen_graph = False
    for i in instrs:
        if i.opname == "LOAD_GLOBAL" and i.argval == graph[0]:
            seen_graph = True
        elif seen_graph and i.opname == "LOAD_FAST" and i.argval in args:
            call_args.append(i.argval)
        elif seen_graph and i.opname == "STORE_FAST" and i.argval == "graph_out_0":
            break
        elif gated_markers and i.opname == "LOAD_CONST" and i.argval is None:
            continue  # (the markers' `cm = None`, `cm is not None` and templates' returns)
        elif seen_graph and i.opname in ("BINARY_SUBSCR", "LOAD_DEREF", "LOAD_CONST"):
            raise pellucid.DecompilationError(
                "stub handles graphs called with plain arguments only"
            )
    return (
        f"def {code.co_name}({', '.join(args)}):\n"
        f"    graph_out_0 = {graph[0]}({', '.join(call_args)})\n"
        f"    return graph_out_0[0]\n"
    )
