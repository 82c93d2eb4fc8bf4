"""The translation validator's symbolic executor, by job.

:mod:`pellucid.decompiler.validate` is the entry point and describes the method.  Here:
:mod:`.terms` (symbolic values), :mod:`.state` (a path's state), :mod:`.executor` (the driver:
paths, events, how values are seen outside), and the effects of instructions: :mod:`.stack`,
:mod:`.building`, :mod:`.access`, :mod:`.operators`, :mod:`.calls`, :mod:`.branches`,
:mod:`.loops` (cycles and induction) and :mod:`.exception_state` (handlers and the exception
being handled).
"""
