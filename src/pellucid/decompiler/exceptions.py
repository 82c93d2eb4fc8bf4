"""try/except/finally and with: regions derived from exception edges.

A mixin of the structure walker.  ``try_at(i)`` says whether a protected
region (3.9/3.10 SETUP_FINALLY/SETUP_WITH, 3.11+ exception-table entry) starts
at instruction ``i``; ``do_try`` structures it and returns the index where the
walk continues.
"""

from __future__ import annotations


class ExceptionStructure:
    def check_exception_support(self) -> None:
        if self.exc_entries and not self._only_comprehension_handlers():
            raise self.fail("exception handling (try/with) is not supported yet")

    def try_at(self, i: int) -> bool:
        return False

    def do_try(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        raise self.fail("exception handling (try/with) is not supported yet", self.ins[i])
