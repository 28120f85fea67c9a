"""A reduction: the program and its inputs, the test, the search, and what came of it.

    from stablehlo_py.reduce import FailsWith, reduce
    result = reduce(text, FailsWith("needs 1.4.0", on="serialize:1.0.0"), time_limit=60)
    print(result.summary())
    result.write("out.mlir")            # out.mlir and out.inputs.npz

:class:`Session` checks the start (the program verifies unless the test judges verification, the
test holds on it, the inputs fit the entry function: made up with a fixed seed when none are
given), decides whether candidates are cleaned up (not when the cleanup alone loses the failure:
a test about a dead op), records the values the interpreter computes for the stand-ins of the
current program (once per program, when a move asks), runs the search (:mod:`.ddmin`), and reports
(:class:`Result`): size before and after, tests run, invalid candidates, time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce.ddmin import Progress, Search, Stats
from stablehlo_py.reduce.edit import Recorded
from stablehlo_py.reduce.files import write_program
from stablehlo_py.reduce.moves import MOVES, Context, Move, dead_code
from stablehlo_py.reduce.program import Program, ReduceError, Size, describe_inputs
from stablehlo_py.reduce.tests import InterestingnessTest, as_test
from stablehlo_py.reduce.values import default_inputs, record

__all__ = ["RECORD_BUDGET", "NotInteresting", "Result", "Session", "reduce"]

RECORD_BUDGET = 60.0
"""CPU seconds the interpreter gets to record a program's values (no more than the time left)."""


class NotInteresting(ReduceError):
    """The test does not hold on the program to reduce (nothing to reduce): ``test`` is its
    description, ``details`` what the tool said or the test raised."""

    def __init__(self, test: str, details: list[str]) -> None:
        self.test, self.details = test, details
        super().__init__(
            f"the program is not interesting to start with: the test ({test}) does not hold on "
            "it" + "".join(f"; {d}" for d in details)
        )


@dataclass
class Result:
    program: Program
    """The smallest interesting program found."""
    before: Size
    after: Size
    stats: Stats
    elapsed: float
    stopped: str | None
    """Why the search stopped early (a limit), or None when it reached its fix point."""

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """``OUT.mlir`` and ``OUT.inputs.npz``."""
        return write_program(self.program, path)

    def summary(self) -> str:
        s = self.stats
        lines = [
            f"size: {self.before} -> {self.after}",
            f"tests: {s.tests} run, {s.kept} kept, {s.invalid} invalid candidates, "
            f"{s.not_applicable} not applicable, {s.memo_hits} seen before",
            f"time: {self.elapsed:.2f} s" + (f" (stopped: {self.stopped})" if self.stopped else ""),
        ]
        if s.move_errors:
            lines.append(f"move errors: {len(s.move_errors)} (first: {s.move_errors[0]})")
        if s.test_errors:
            lines.append(f"test errors: {len(s.test_errors)} (first: {s.test_errors[0]})")
        return "\n".join(lines)


def _verify_program(program: Program) -> None:
    verify(program.module)


class Session:
    """One reduction of ``program`` (text, a module or a Program) under ``test``."""

    def __init__(
        self,
        program: str | ModuleOp | Program,
        test: Any,
        *,
        inputs: Sequence[Any] | None = None,
        entry: str = "main",
        moves: Sequence[Move] = MOVES,
        time_limit: float | None = None,
        max_tests: int | None = None,
        progress: Callable[[Progress], None] | None = None,
        record_values: bool = True,
    ) -> None:
        self.test: InterestingnessTest = as_test(test)
        self.original = self._program(program, inputs, entry)
        self.moves = tuple(moves)
        self.time_limit = time_limit
        self.max_tests = max_tests
        self.progress = progress
        self.record_values = record_values
        self._recorded: tuple[Program, Recorded | None] | None = None
        self.search: Search | None = None

    @staticmethod
    def _program(program: Any, inputs: Sequence[Any] | None, entry: str) -> Program:
        if isinstance(program, Program):
            entry = program.entry
            inputs = program.inputs if inputs is None else inputs
            module = program.module
        elif isinstance(program, ModuleOp):
            module = program.clone()
        elif isinstance(program, str):
            module = Program.from_text(program, (), entry).module
        else:
            raise ReduceError(
                f"reduce: the program is text, a module or a Program, not {type(program).__name__}"
            )
        func = Program(module, (), entry).entry_function()
        if inputs is None:
            inputs = default_inputs(func)
        n = len(func.function_type.inputs.data)
        if len(inputs) != n:
            raise ReduceError(
                f"@{entry} takes {n} arguments, {len(inputs)} inputs were given "
                f"({describe_inputs(inputs)})"
            )
        return Program(module, inputs, entry)

    def recorded(self, program: Program) -> Recorded | None:
        """The values of ``program``'s top-level ops (computed once per program)."""
        if not self.record_values:
            return None
        if self._recorded is None or self._recorded[0] is not program:
            budget = RECORD_BUDGET
            if self.search is not None and self.time_limit is not None:
                budget = min(budget, max(0.0, self.time_limit - self.search.elapsed()))
            self._recorded = (program, record(program, budget))
        return self._recorded[1]

    def run(self) -> Result:
        start = time.monotonic()
        context = Context(recorded=self.recorded, focus=self.test.focus)
        search = self.search = Search(
            self.original,
            self.test,
            moves=self.moves,
            context=context,
            time_limit=self.time_limit,
            max_tests=self.max_tests,
            progress=self.progress,
            verify=_verify_program,
        )
        if not self.test.verifies:
            try:
                verify(self.original.module)
            except Exception as e:
                why = getattr(e, "message", None) or str(e)
                raise ReduceError(f"the program to reduce does not verify: {why}") from None
        if not search.judge(self.original, limited=False):
            why = getattr(self.test, "last_error", None)
            raised = search.stats.test_errors
            raise NotInteresting(
                self.test.describe(),
                ([f"the tool said: {why}"] if why else [])
                + ([f"the test raised: {raised[-1]}"] if raised else []),
            )
        cleaned = dead_code(self.original, (), context)
        if cleaned.text != self.original.text and not search.judge(cleaned, limited=False):
            context.cleanup = False  # the failure needs dead code: keep it
        result = search.run()
        return Result(
            result, self.original.size, result.size, search.stats, time.monotonic() - start,
            search.stopped,
        )


def reduce(program: str | ModuleOp | Program, test: Any, **options: Any) -> Result:
    """Reduce ``program`` while ``test`` holds (:class:`Session`'s options)."""
    return Session(program, test, **options).run()
