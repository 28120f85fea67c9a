"""Tests that run a command on each candidate (:func:`.consumers.run_command`: the candidate
written to a temporary ``candidate.mlir``, its inputs to ``candidate.inputs.npz`` beside it, the
file's path appended as the last argument, a timeout after which the process group is killed):

- :class:`Crashes`: the command dies by a signal, or exits with a status >= 128 (a shell's way of
  reporting a child's signal);
- :class:`Script`: a user's interestingness script, judged by its exit status.  creduce's
  convention by default (exit status 0 = interesting); ``exit_zero_is_interesting=False`` takes
  ``mlir-reduce``'s opposite one (0 = not interesting, any other status = interesting).

A timeout is never interesting (a hang is neither the crash nor the answer asked for); timeouts
are counted (``counts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stablehlo_py.reduce.consumers import COMMAND_TIMEOUT, Completed, command_argv, run_command
from stablehlo_py.reduce.program import Program, ReduceError
from stablehlo_py.reduce.tests import InterestingnessTest

__all__ = ["Crashes", "Script"]


class _CommandTest(InterestingnessTest):
    def __init__(
        self, argv: list[str], timeout: float | None, uses_inputs: bool
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ReduceError(f"a command's timeout is a number of seconds > 0, not {timeout!r}")
        self.argv = argv
        self.timeout = timeout
        self.uses_inputs = uses_inputs
        self.last: Completed | None = None
        """How the command ended on the last candidate."""

    def run(self, program: Program) -> Completed | None:
        """The command on ``program``; None on a timeout (counted)."""
        self.last = done = run_command(self.argv, program, self.timeout)
        if done.timed_out:
            self.count(f"{Path(self.argv[0]).name} timed out (after {self.timeout:g} s)")
            return None
        return done

    @property
    def last_error(self) -> str | None:
        """How the command ended on the last candidate, with the start of its output (what a
        report says when the input is not interesting)."""
        if self.last is None:
            return None
        first = self.last.output.strip().splitlines()[:3]
        return self.last.status() + (": " + " | ".join(first) if first else "")


class Crashes(_CommandTest):
    """Interesting when ``command`` (text split into words, or a list) run on the candidate dies
    by a signal or exits with a status >= 128."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float | None = COMMAND_TIMEOUT,
        uses_inputs: bool = True,
    ) -> None:
        super().__init__(command_argv(command, "crash command"), timeout, uses_inputs)

    def __call__(self, program: Program) -> bool:
        done = self.run(program)
        return done is not None and done.crashed

    def describe(self) -> str:
        return f"crashes {' '.join(self.argv)}"


class Script(_CommandTest):
    """A user's interestingness script: ``path *args CANDIDATE`` -- interesting when it exits
    with status 0 (creduce), or with any other status when ``exit_zero_is_interesting`` is False
    (mlir-reduce)."""

    def __init__(
        self,
        path: str | Path,
        args: Sequence[str] = (),
        *,
        exit_zero_is_interesting: bool = True,
        timeout: float | None = COMMAND_TIMEOUT,
        uses_inputs: bool = True,
    ) -> None:
        path = str(path)
        if Path(path).is_dir():
            raise ReduceError(f"the test script {path} is a directory")
        argv = command_argv([path, *args], "test script")
        super().__init__(argv, timeout, uses_inputs)
        self.exit_zero_is_interesting = exit_zero_is_interesting

    def __call__(self, program: Program) -> bool:
        done = self.run(program)
        if done is None:
            return False
        return (done.returncode == 0) == self.exit_zero_is_interesting

    def describe(self) -> str:
        rule = "exit status 0" if self.exit_zero_is_interesting else "a non-zero exit status"
        return f"{' '.join(self.argv)} (interesting: {rule})"
