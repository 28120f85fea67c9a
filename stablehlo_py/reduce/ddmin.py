"""The search: the moves (:mod:`.moves`) run in order, each to its own end, and again until a whole
round keeps nothing (a greedy fix point).

A candidate is kept when it is *interesting* (the test holds) and *smaller*
(:class:`~.program.Size`). Before it is tested it is cleaned up, printed and looked up in the memo
(text hash, plus the inputs' when the test reads them: a candidate seen before is never tested
again), then verified in-process (an invalid candidate is counted, never tested; a test that judges
verification itself, as ``FailsWith(on="verify")``, sees it). Moves search their atoms three ways:

- ``ddmin``: chunks of atoms at once, starting with all of them, halving the chunk size when no
  chunk of the current size is kept (down to single atoms); after a kept candidate the atoms are
  listed again from the new program and the search goes on at the same place;
- ``each``: one atom at a time (the atoms are alternatives);
- ``bisect``: the first atom, in order, whose candidate is interesting, found by bisection
  (``return-earlier``: the earliest op the failure survives returning from).

Limits: ``time_limit`` (seconds) and ``max_tests`` stop the search between candidates; the result
is then the smallest program found so far.  ``progress(event)`` is called after every test.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stablehlo_py.reduce.edit import NotApplicable
from stablehlo_py.reduce.moves import MOVES, Context, Move
from stablehlo_py.reduce.program import Program, Size

__all__ = ["Progress", "Search", "Stats", "Stop"]


class Stop(Exception):
    """A limit was reached."""


@dataclass
class Stats:
    tests: int = 0
    """Candidates the test ran on."""
    interesting: int = 0
    kept: int = 0
    """Candidates kept (interesting and smaller)."""
    invalid: int = 0
    """Candidates that did not verify (never tested)."""
    not_applicable: int = 0
    """Candidates a move could not make (no stand-in, types not inferable, a pass refusing)."""
    memo_hits: int = 0
    """Candidates seen before (their verdict reused, not tested again)."""
    move_errors: list[str] = field(default_factory=list)
    """Unexpected exceptions inside a move (a bug: the candidate is skipped)."""
    test_errors: list[str] = field(default_factory=list)
    """Exceptions the test raised (taken as 'not interesting')."""
    per_move: dict[str, list[int]] = field(default_factory=dict)
    """move name -> [candidates, kept, ops removed]."""


@dataclass(frozen=True)
class Progress:
    """What ``progress`` gets after each test."""

    move: str
    size: Size
    tests: int
    elapsed: float
    kept: bool


_INVALID = "invalid"


class Search:
    def __init__(
        self,
        program: Program,
        test: Any,
        *,
        moves: Sequence[Move] = MOVES,
        context: Context | None = None,
        time_limit: float | None = None,
        max_tests: int | None = None,
        progress: Callable[[Progress], None] | None = None,
        verify: Callable[[Program], None] | None = None,
    ) -> None:
        self.current = program
        self.test = test
        self.moves = tuple(moves)
        self.context = context or Context()
        self.time_limit = time_limit
        self.max_tests = max_tests
        self.progress = progress
        self._verify = verify
        self.stats = Stats()
        self.memo: dict[str, bool | str] = {}
        self.started = time.monotonic()
        self.stopped: str | None = None
        self._move = ""
        self._uses_inputs = bool(getattr(test, "uses_inputs", True))
        self._verifies = bool(getattr(test, "verifies", False))

    # ------------------------------------------------------------------ one candidate
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def _check_limits(self) -> None:
        if self.time_limit is not None and self.elapsed() > self.time_limit:
            self.stopped = f"time limit ({self.time_limit:g} s)"
            raise Stop
        if self.max_tests is not None and self.stats.tests >= self.max_tests:
            self.stopped = f"test limit ({self.max_tests} tests)"
            raise Stop

    def judge(self, candidate: Program, limited: bool = True) -> bool:
        """Whether ``candidate`` is interesting: memo, verification, then the test (which a limit
        reached prevents, unless not ``limited``)."""
        key = candidate.digest(self._uses_inputs)
        verdict = self.memo.get(key)
        if verdict is not None:
            self.stats.memo_hits += 1
            return verdict is True
        if not self._verifies and self._verify is not None:
            try:
                self._verify(candidate)
            except Exception:
                self.memo[key] = _INVALID
                self.stats.invalid += 1
                return False
        if limited:
            self._check_limits()
        self.stats.tests += 1
        try:
            ok = bool(self.test(candidate))
        except Exception as e:  # a test's own failure is not interesting, and is reported
            ok = False
            self.stats.test_errors.append(f"{type(e).__name__}: {e}")
        self.memo[key] = ok
        if ok:
            self.stats.interesting += 1
        return ok

    def attempt(
        self, move: Move, atoms: Sequence[Any], keep: bool = True
    ) -> tuple[bool, Program | None]:
        """Try ``move`` on ``atoms`` of the current program: (interesting, the candidate when it is
        interesting and smaller).  With ``keep`` such a candidate becomes the current program."""
        self._check_limits()
        counts = self.stats.per_move.setdefault(move.name, [0, 0, 0])
        try:
            candidate = move.apply(self.current, atoms, self.context)
            candidate.text  # noqa: B018 -- printing may fail on a broken edit
        except NotApplicable:
            self.stats.not_applicable += 1
            return False, None
        except Exception as e:  # a bug in a move: skip the candidate, report it
            self.stats.move_errors.append(
                f"{move.name} on {list(atoms)[:8]}: {type(e).__name__}: {e}"
            )
            return False, None
        counts[0] += 1
        interesting = self.judge(candidate)
        better = candidate if interesting and candidate.size < self.current.size else None
        if better is not None and keep:
            self.keep(move, better)
        elif self.progress is not None:
            self.progress(
                Progress(move.name, self.current.size, self.stats.tests, self.elapsed(), False)
            )
        return interesting, better

    def keep(self, move: Move, program: Program) -> None:
        counts = self.stats.per_move.setdefault(move.name, [0, 0, 0])
        counts[1] += 1
        counts[2] += self.current.size.ops - program.size.ops
        self.stats.kept += 1
        self.current = program
        if self.progress is not None:
            self.progress(Progress(move.name, program.size, self.stats.tests, self.elapsed(), True))

    # ------------------------------------------------------------------ searches
    def ddmin(self, move: Move) -> bool:
        atoms = move.atoms(self.current, self.context)
        chunk = len(atoms)
        progress = False
        while atoms and chunk >= 1:
            start = 0
            while start < len(atoms):
                _, kept = self.attempt(move, atoms[start : start + chunk])
                if kept is not None:
                    progress = True
                    atoms = move.atoms(self.current, self.context)
                    chunk = min(chunk, len(atoms)) or 1
                else:
                    start += chunk
            if chunk == 1:
                break
            chunk = (chunk + 1) // 2
        return progress

    def each(self, move: Move) -> bool:
        atoms = move.atoms(self.current, self.context)
        progress = False
        i = 0
        while i < len(atoms):
            _, kept = self.attempt(move, [atoms[i]])
            if kept is not None:
                progress = True
                atoms = move.atoms(self.current, self.context)
            else:
                i += 1
        return progress

    def bisect(self, move: Move) -> bool:
        atoms = move.atoms(self.current, self.context)
        smaller: dict[int, Program] = {}
        lo, hi = 0, len(atoms)  # hi: the first index known interesting (len: none)
        try:
            while lo < hi:
                mid = (lo + hi) // 2
                interesting, better = self.attempt(move, [atoms[mid]], keep=False)
                if better is not None:
                    smaller[mid] = better
                if interesting:
                    hi = mid
                else:
                    lo = mid + 1
        finally:  # a limit reached keeps what was found
            if smaller:
                self.keep(move, smaller.get(hi) or smaller[min(smaller)])
        return bool(smaller)

    def run_move(self, move: Move) -> bool:
        self._move = move.name
        return {"ddmin": self.ddmin, "each": self.each, "bisect": self.bisect}[move.search](move)

    def run(self) -> Program:
        """Run the moves to a fix point (or a limit); the smallest interesting program."""
        try:
            while True:
                changed = False
                for move in self.moves:
                    changed |= self.run_move(move)
                if not changed:
                    break
        except Stop:
            pass
        return self.current
