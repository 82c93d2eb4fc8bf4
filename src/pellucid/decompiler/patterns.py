"""``match`` statements (3.10+): cases, patterns and guards.

The walker asks :meth:`PatternOps.match_at` at every instruction where the value
on top of its stack could be a match subject; a match is recognised by parsing
it completely (:meth:`PatternOps._parse_match`), and anything that does not parse
leaves the instructions to the ordinary walk.  Each case's pattern is read by
:mod:`pattern_reader` and made an ``ast`` pattern by :mod:`pattern_ast`; this module
finds the cases, their guards and bodies, and the statement's extent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from itertools import islice

from pellucid.decompiler.errors import Refusal
from pellucid.decompiler.instructions import MAX_COPY_SIZE, TABLE, TERMINAL
from pellucid.decompiler.pattern_ast import build_pattern, wildcard
from pellucid.decompiler.pattern_reader import Fail, NoMatch, PatternReader, Slot


@dataclass
class Case:
    pattern: ast.pattern
    copy: bool
    start: int
    body: int  # first instruction of the body
    chain: int | None  # first instruction of the failure clean-up (None: irrefutable)
    next: int | None  # where the next case starts
    guard: ast.expr | None = None
    skip: tuple | None = None  # code the statement owns but nobody walks
    body_end: int | None = None  # the body ends before the failure clean-up
    extra_skip: int | None = None  # ... and the code up to here is skipped too
    guard_start: int | None = None  # last case: where a guard read from the body starts
    relocated: tuple | None = None  # [start, end) of an OR's success block laid out later


_VALUE_LOADS = frozenset(
    ("LOAD_CONST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF",
     "LOAD_ATTR", "NOP")
)


class PatternOps:
    """Walker mixin: ``match`` statements."""

    def match_at(self, i: int, stack: list) -> bool:
        cands = getattr(self, "_match_candidates", None)
        if cands is None:
            if not TABLE.has_match_statement:
                return False
            cands = self._match_candidates = self._find_match_candidates()
        if i not in cands:
            return False
        if len(stack) != self.cur_base + 1 or not isinstance(stack[-1], ast.expr):
            return False
        # parsing is a trial: it must leave no trace when it is not a match
        chains = dict(self.assign_chains)
        try:
            self._pending_match = (i, self._parse_match(i, stack))
        except NoMatch:
            self.assign_chains.clear()
            self.assign_chains.update(chains)
            return False
        return True

    def _subject_copy(self, k: int) -> bool:
        """COPY 1 of a match subject is followed by a pattern test, never a store."""
        nxt = self.ins[k + 1].op if k + 1 < self.n else ""
        return not nxt.startswith("STORE_") and nxt not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")

    def _value_test_follows(self, k: int) -> bool:
        """Without MATCH_* opcodes a subject copy starts literal/value/OR/as patterns: loads of
        the value, then a comparison (or a None test).  Dynamo copies stack values all the time;
        this keeps the trial parse away from its copies."""
        for x in islice(self.ins, k + 1, None):  # (no copy of the rest: Dynamo has many copies)
            if x.op in _VALUE_LOADS or (x.op == "COPY" and x.argval == 1):
                continue
            return x.op in ("COMPARE_OP", "IS_OP", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")
        return False

    def _find_match_candidates(self) -> set[int]:
        ins = self.ins
        has_match_ops = any(op.startswith("MATCH_") for op in {x.op for x in ins})
        out = set()
        for x in ins:
            if x.op == "COPY" and x.argval == 1 and self._subject_copy(x.index):
                if has_match_ops or self._value_test_follows(x.index):
                    out.add(x.index)
            elif has_match_ops and x.op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
                out.add(x.index)
            elif has_match_ops and x.op == "MATCH_CLASS":
                # the class expression: a name and attributes, then the names tuple
                k = x.index - 2
                while k > 0 and ins[k].op == "LOAD_ATTR":
                    k -= 1
                out.add(k)
        return out

    def _parse_match(self, i: int, stack: list) -> list[Case]:
        cases: list[Case] = []
        pos = i
        reader = PatternReader(self.ins)
        while True:
            case = None
            if self.ins[pos].op == "COPY" and self.ins[pos].argval == 1:
                try:
                    case = self._parse_case(reader, pos, True, stack)
                except NoMatch:
                    case = None
            if case is None:
                case = self._parse_case(reader, pos, False, stack)
            cases.append(case)
            if not case.copy:
                break
            pos = case.next
        copied = any(c.copy for c in cases)  # (an OR put back below copied the subject too)
        cases = self._merge_inlined_or(cases)
        if not any(c.chain is not None for c in cases):
            raise NoMatch("no refutable case")
        has_or = any(isinstance(n, ast.MatchOr) for c in cases for n in ast.walk(c.pattern))
        if not (copied or has_or) and not self._has_match_ops(i, cases[-1]):
            raise NoMatch("a single value test is an if statement")
        return cases

    def _merge_inlined_or(self, cases: list[Case]) -> list[Case]:
        """An OR pattern in the last case whose small end the compiler copied into
        every alternative reads as copy-cases with identical bodies followed by a
        lone ``POP_TOP`` (the OR's failure pop of the subject): put the OR back."""
        last = cases[-1]
        if not (
            len(cases) >= 3
            and not last.copy
            and last.chain is None
            and last.guard is None
            and last.body == last.start + 1
            and self.ins[last.start].op == "POP_TOP"
        ):
            return cases
        k = len(cases) - 2
        run: list[Case] = []
        while (
            k >= 0
            and cases[k].copy
            and cases[k].guard is None
            and self._same_body(cases[k], cases[-2])
        ):
            run.insert(0, cases[k])
            k -= 1
        if len(run) < 2:
            raise NoMatch("lone failure pop after the cases")
        first = run[0]
        merged = Case(
            ast.MatchOr(patterns=[c.pattern for c in run]),
            False,
            first.start,
            first.body,
            first.chain,
            last.body,
        )
        merged.skip = (first.chain, last.body)
        return cases[: k + 1] + [merged]

    def _same_body(self, a: Case, b: Case) -> bool:
        if a.chain is None or b.chain is None or a.chain - a.body != b.chain - b.body:
            return False
        for d in range(a.chain - a.body):
            x, y = self.ins[a.body + d], self.ins[b.body + d]
            if x.op != y.op or repr(x.argval) != repr(y.argval):
                return False
            if x.target is not None or y.target is not None:
                xin = x.target is not None and a.body <= x.target < a.chain
                if xin:
                    if y.target is None or x.target - a.body != y.target - b.body:
                        return False
                elif x.target != y.target:
                    return False
        return True

    def _has_match_ops(self, i: int, case: Case) -> bool:
        return any(self.ins[k].op.startswith("MATCH_") for k in range(i, case.body))

    def _parse_case(self, reader: PatternReader, pos: int, copy: bool, stack: list) -> Case:
        subject = Slot()
        st: list = [subject, subject] if copy else [subject]
        base = 1 if copy else 0
        fails: list[Fail] = []
        reader.inlined = reader.relocated = None
        q = reader.run(pos + 1 if copy else pos, st, base, fails)
        inlined, relocated = reader.inlined, reader.relocated
        pattern = build_pattern(subject)
        guard = None
        if copy:
            if self.ins[q].op != "POP_TOP":
                guard, q = self._guard(q, stack, fails)
            if self.ins[q].op != "POP_TOP":
                raise NoMatch("case without the subject's pop")
            body = q + 1
        else:
            body = q
        chain = min((f.target for f in fails), default=None)
        nxt = None
        if chain is not None:
            keep = 1 if copy else 0
            nxt = {f.target + f.height - keep for f in fails}
            if len(nxt) != 1:
                raise NoMatch("failures continue at different places")
            (nxt,) = nxt
            if any(self.ins[k].op != "POP_TOP" for k in range(chain, nxt)):
                raise NoMatch("failure clean-up is not a run of pops")
            if chain < body and relocated is None:
                raise NoMatch("failure jumps into the pattern")
        elif copy:
            raise NoMatch("irrefutable case before others")
        if not copy and chain is not None:
            # the last case's guard: a test whose failure goes where the pattern's does
            # (an `if` opening the body would jump to the end of the statement instead)
            cond = self.try_condition_at(body, stack[:-1])
            limit = inlined[0] if inlined else chain
            if cond is not None and cond[2] == nxt and cond[1] <= limit:
                guard_start = body
                guard, body = cond[0], cond[1]
        case = Case(pattern, copy, pos, body, chain, nxt, guard)
        if guard is not None and not copy:
            case.guard_start = guard_start
        if inlined is not None:
            if not body <= inlined[0] <= inlined[1] <= (chain if chain is not None else inlined[1]):
                raise NoMatch("inlined OR end outside its case")
            case.body_end, case.extra_skip = inlined
        if relocated is not None:
            if chain is None or not chain < relocated <= body:
                raise NoMatch("relocated OR success block outside its case")
            end = self._block_end(body)
            case.body_end = case.extra_skip = end
            case.relocated = (relocated, end)
        return case

    def _copied_after_match(self, cases: list[Case], after: int, stop: int) -> int | None:
        """3.10 and 3.12+ copy a small block ending the function (`return y`) that follows a
        match statement into each case body falling off its end; the default case's body
        (from ``after``) falls into the block itself.  Cut the copies off those bodies (they
        then end where the copy starts, the copy skipped) and return where the block starts,
        else None."""
        if not TABLE.copies_blocks_after_match:
            return None  # 3.11 jumps to the block instead
        ins = self.ins
        t = next((k for k in range(after, min(stop, self.n)) if ins[k].op in TERMINAL), None)
        if t is None or any(ins[k].target is not None for k in range(after, t)):
            return None
        tails = []
        for c in cases:
            b_end = c.body_end or c.chain
            if b_end is None or ins[b_end - 1].op not in TERMINAL:
                continue
            n = 0
            while (
                b_end - n - 1 >= c.body
                and t - n - 1 > after
                and self._same_code(b_end - n - 1, t - n, n + 1)
            ):
                n += 1
            if n:
                tails.append((c, b_end, n))
        if not tails:
            return None

        def starts_line(k: int, first: int) -> bool:  # (a copy holds whole statements)
            return k == first or ins[k].line != ins[k - 1].line

        size = min(n for _, _, n in tails)
        while size and not (
            starts_line(t - size + 1, after)
            and all(starts_line(b_end - size, c.body) for c, b_end, _ in tails)
        ):
            size -= 1
        X = t - size + 1
        if (
            not size
            or self._copy_size(X, t + 1) > MAX_COPY_SIZE
            or ins[X - 1].op in TERMINAL
            or ins[X - 1].op == "JUMP"
        ):
            return None
        if any(i.target is not None and X < i.target <= t for i in ins):
            return None
        for c, b_end, _ in tails:
            c.body_end = b_end - size
            c.extra_skip = c.extra_skip if c.extra_skip is not None and c.extra_skip > b_end else b_end
        return X

    def _block_end(self, k: int) -> int:
        """The end of the block at k that nothing falls out of: past its first return, raise
        or jump that every forward jump inside it has reached."""
        reach = k
        for j in range(k, self.n):
            t = self.ins[j].target
            if t is not None and t > j:
                reach = max(reach, t)
            if (self.ins[j].op in TERMINAL or self.ins[j].op == "JUMP") and j >= reach:
                return j + 1
        raise NoMatch("relocated case body runs off the end")

    def _guard(self, q: int, stack: list, fails: list) -> tuple[ast.expr, int]:
        cond = self.try_condition_at(q, stack)
        if cond is None:
            raise NoMatch("unrecognized guard")
        expr, T, F = cond
        fails.append(Fail(-1, F, 1))
        return expr, T

    def do_match(self, i: int, stack: list, stop: int, exits: frozenset) -> int:
        start, cases = self._pending_match
        if start != i:
            raise self.fail("match parsed elsewhere", self.ins[i], kind=Refusal.MATCH)
        ins = self.ins
        subject = self.as_expr(stack.pop(), ins[i])
        # where the statement ends: the jumps that end case bodies
        loop_targets = self._loop_targets()
        last = cases[-1]
        ends = []
        for c in cases:
            e = c.chain if c.chain is not None else None
            if c.relocated is not None:
                e = c.relocated[1]  # (the relocated body's own closing jump)
            if e is None:
                continue
            j = ins[e - 1]
            if (
                j.op == "JUMP"
                and j.target is not None
                and j.target > e
                and j.target not in loop_targets
            ):
                ends.append(j.target)
        after = last.next  # after the last case's clean-up: default body or the follow
        if ends:
            end = max(ends)
            if after is not None and end < after:
                raise self.fail("match case jumps into the cases", ins[i], kind=Refusal.MATCH)
        elif after is not None:
            end = self._copied_after_match(cases, after, stop) or after
        else:
            end = stop
        if end > stop and end not in exits:
            raise self.fail("match continues past its enclosing block", ins[i], kind=Refusal.MATCH)
        stop_at = min(end, stop)
        for c in cases:
            b_end = c.body_end or c.chain
            if c.guard_start is not None and c.next == end and ins[b_end - 1].op == "JUMP":
                # no default case: a guard and an `if` opening a body that ends by
                # jumping to the end of the statement both fail to that end; it is
                # the `if` that compiles the same way (locations, exception table).
                # A body ending in return/raise has no final jump after a guard.
                c.body, c.guard = c.guard_start, None
        inherited = exits if (end >= stop or end in exits) else frozenset()
        branch_exits = frozenset({end, stop_at}) | inherited
        out_cases = []
        # an OR's success block laid out later belongs to its case alone: other walks skip it
        reach = self.reachable
        saved = {k: reach[k] for c in cases if c.relocated is not None for k in range(*c.relocated)}
        for k in saved:
            reach[k] = False
        for c in cases:
            b_end = c.body_end or (c.chain if c.chain is not None else stop_at)
            own = range(*c.relocated) if c.relocated is not None else range(0)
            for k in own:
                reach[k] = saved[k]
            body, st = self.walk(c.body, b_end, list(stack), branch_exits)
            for k in own:
                reach[k] = False
            if len(st) != len(stack):
                raise self.fail("case body changes the stack", ins[c.body], kind=Refusal.MATCH)
            out_cases.append(
                ast.match_case(pattern=c.pattern, guard=c.guard, body=body or [ast.Pass()])
            )
        if after is not None and after < stop_at:
            body, st = self.walk(after, stop_at, list(stack), branch_exits)
            if len(st) != len(stack):
                raise self.fail("default case body changes the stack", ins[after], kind=Refusal.MATCH)
            out_cases.append(
                ast.match_case(pattern=wildcard(), guard=None, body=body or [ast.Pass()])
            )
        for c in cases:
            lo, hi = c.skip or (c.chain or c.body, c.next or c.body)
            for k in range(lo, hi):
                self.reachable[k] = False
            if c.body_end is not None:
                for k in range(c.body_end, c.extra_skip):
                    self.reachable[k] = False
        self.emit(ast.Match(subject=subject, cases=out_cases))
        return stop if end >= stop else end
