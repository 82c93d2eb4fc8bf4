"""Code objects swapped into torch functions that are imported by name in many modules.

``lazy_format_graph_code`` is called with every graph module that Dynamo, AOTAutograd and the
FX passes produce, from a dozen modules that each imported it by name; replacing the module
attribute would miss them, so :class:`~pellucid.dynamo.adapter.Patcher` swaps the function's
``__code__`` for the one below (restored on exit).  The code may only use names it imports
itself: it runs with torch's module globals.
"""

from __future__ import annotations


def lazy_format_graph_code(name, gm, maybe_id=None, **kwargs):  # noqa: ANN001, ANN201, ANN003
    from pellucid.dynamo import session as _pellucid_session

    return _pellucid_session.on_lazy_format_graph_code(name, gm, maybe_id, kwargs)
