"""Interestingness tests: does a candidate still show what is being reduced?

A test is any callable taking a :class:`~.program.Program` (``program.text``, ``program.inputs``,
``program.fresh_module()`` -- a parse of the text the test may change --, and
:func:`~.files.write_program` to put it in files) and returning True when it is interesting.  A
plain function is taken as it is (:func:`as_test`); subclasses of :class:`InterestingnessTest` also
say how the search may treat them:

- ``verifies``: the test judges invalid programs itself (``FailsWith(on="verify")``): candidates
  are not verified before it sees them (otherwise an invalid candidate is never tested);
- ``uses_inputs``: the verdict depends on the inputs, so the memo keys on them too (False when
  only the text matters: verification, serialization);
- ``focus(program)``: op keys (:func:`stablehlo_py.ir.text.name_stack.op_keys`) of the ops the
  failure is at, tried first;
- ``counts``: outcomes the test saw besides yes and no (a backend's compile errors, timeouts),
  which ``notes()`` puts in words for the report.

Here: :class:`FailsWith` (a tool's error matches a regex) on the in-process tools ``verify``,
``serialize:TARGET[:FORMAT]`` and ``interpret``, on the backends ``xla`` and ``iree`` (compiled
and run on the inputs: :mod:`.consumers`), or on a command (any ``on=`` whose first word is not a
tool: the candidate file appended, its stderr and stdout matched when it exits non-zero); its
focus is the ops at the error's ``-:LINE:COL`` positions.  Beside it: ``DivergesFrom``
(:mod:`.divergence`: the interpreter and XLA/IREE differ), ``Crashes`` and ``Script``
(:mod:`.commands`: a command's death by a signal, a script's exit status).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from stablehlo_py.ir.text.location import source_position
from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.reduce.budget import OutOfTime, cpu_budget
from stablehlo_py.reduce.consumers import (
    BACKEND_NAMES,
    COMMAND_TIMEOUT,
    check_backend,
    command_argv,
    run_backend,
    run_command,
)
from stablehlo_py.reduce.program import Program, ReduceError, walk_ops

__all__ = ["TOOLS", "CommandFailed", "FailsWith", "InterestingnessTest", "as_test"]


class InterestingnessTest:
    """Base of the tests: ``test(program) -> bool``."""

    verifies: bool = False
    uses_inputs: bool = True

    def __call__(self, program: Program) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__

    def focus(self, program: Program) -> Sequence[str]:
        return ()

    @property
    def counts(self) -> dict[str, int]:
        """Outcome -> how many candidates had it (beside interesting and not)."""
        c = self.__dict__.get("_counts")
        if c is None:
            c = self.__dict__["_counts"] = {}
        return c

    def count(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def notes(self) -> list[str]:
        """``counts`` in words, one line each (what a report adds to the search's figures)."""
        return [f"{n} candidate{'s' if n != 1 else ''}: {what}" for what, n in self.counts.items()]


class _Callable(InterestingnessTest):
    def __init__(self, fn: Callable[[Program], Any]) -> None:
        self.fn = fn

    def __call__(self, program: Program) -> bool:
        return bool(self.fn(program))

    def describe(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))


def as_test(test: Any) -> InterestingnessTest:
    """``test`` as an InterestingnessTest (a plain callable is wrapped: it verifies nothing and
    may read the inputs)."""
    if isinstance(test, InterestingnessTest):
        return test
    if not callable(test):
        raise ReduceError(
            f"an interestingness test is a callable taking the candidate program, not {test!r}"
        )
    return _Callable(test)


# ---------------------------------------------------------------------- tools and their errors
def _verify(program: Program, arg: str | None) -> None:
    from stablehlo_py.ir.verify import verify

    verify(program.fresh_module())


def _serialize(program: Program, arg: str | None) -> None:
    from stablehlo_py.serialization import serialize_portable_artifact_str

    target, _, fmt = (arg or "").partition(":")
    serialize_portable_artifact_str(program.text, target, format=fmt or "msgpack")


INTERPRET_BUDGET = 60.0
"""CPU seconds ``FailsWith(on="interpret")`` gives a run: a candidate whose loop no longer ends
fails with ``OutOfTime`` (which a regex about another error does not match)."""


def _interpret(program: Program, arg: str | None) -> None:
    from stablehlo_py.interpreter import run

    try:
        with cpu_budget(INTERPRET_BUDGET):
            run(program.fresh_module(), *program.inputs, entry=program.entry)
    except OutOfTime:
        raise TimeoutError(f"the run took more than {INTERPRET_BUDGET:g} s of CPU time") from None


def _xla(program: Program, arg: str | None) -> None:
    run_backend("xla", program)


def _iree(program: Program, arg: str | None) -> None:
    run_backend("iree", program)


TOOLS: dict[str, tuple[Callable[[Program, str | None], None], bool]] = {
    "verify": (_verify, False),
    "serialize": (_serialize, False),
    "interpret": (_interpret, True),
    "xla": (_xla, True),
    "iree": (_iree, True),
}
"""``on=`` name -> (run the tool on a program, raising its error; whether its result depends on the
inputs).  ``serialize`` takes ``TARGET[:FORMAT]`` after a colon (``serialize:1.0.0``,
``serialize:1.0.0:mlir``); ``xla`` and ``iree`` compile the program and run it on its inputs."""

TOOL_NAMES = (
    "verify, serialize:TARGET[:FORMAT], interpret; backends: xla, iree; or a command (the "
    "candidate's path appended)"
)


class CommandFailed(Exception):
    """A command's failure on a candidate (``FailsWith(on=COMMAND)``): its exit status, then its
    stderr and stdout."""


FOCUS_LIMIT = 8
"""More ops than this at the matching lines of an error are no focus (the search finds the op)."""
_REMEMBERED = 256  # errors kept by program (the current program's is asked for again by focus)
_POSITION = re.compile(r"(?<![\w./-])-:(\d+):(\d+)")


class FailsWith(InterestingnessTest):
    """Interesting when the tool ``on`` fails and its error (``TypeName: message``) matches
    ``pattern`` (``re.search``)."""

    def __init__(
        self, pattern: str, on: str = "verify", *, timeout: float | None = COMMAND_TIMEOUT
    ) -> None:
        try:
            self.regex = re.compile(pattern)
        except re.error as e:
            raise ReduceError(f"FailsWith: {pattern!r} is not a regular expression: {e}") from None
        name, _, arg = on.partition(":")
        self.on = on
        self.timeout = timeout
        self._argv: list[str] | None = None
        if name in TOOLS:
            if name == "serialize" and not arg:
                raise ReduceError("FailsWith: on='serialize' needs a target: on='serialize:1.0.0'")
            if name in BACKEND_NAMES:
                check_backend(name)  # BackendUnavailable now, not as every candidate's error
            self._run, self.uses_inputs = TOOLS[name]
            self._arg = arg or None
        else:
            try:
                self._argv = command_argv(on, "FailsWith command")
            except ReduceError as e:
                if " " in on.strip():
                    raise
                raise ReduceError(
                    f"FailsWith: unknown tool on={on!r}; in-process tools: {TOOL_NAMES} "
                    f"({e.message})"
                ) from None
            self._run, self.uses_inputs, self._arg = self._command, True, None
        self.verifies = name == "verify"
        self.last_error: str | None = None
        """The error of the last program tested (None when the tool succeeded)."""
        self._errors: dict[str, str | None] = {}

    def error(self, program: Program) -> str | None:
        """The tool's error on ``program`` (``TypeName: message``), None when it succeeds."""
        key = program.digest(self.uses_inputs)
        if key in self._errors:
            return self._errors[key]
        try:
            self._run(program, self._arg)
            error = None
        except Exception as e:
            error = f"{type(e).__name__}: {e}"
        if len(self._errors) >= _REMEMBERED:
            del self._errors[next(iter(self._errors))]
        self._errors[key] = error
        return error

    def _command(self, program: Program, arg: str | None) -> None:
        assert self._argv is not None
        done = run_command(self._argv, program, self.timeout)
        if done.timed_out:
            self.count(f"{self._argv[0]} timed out (after {self.timeout:g} s)")
        if done.returncode != 0:
            raise CommandFailed(f"{done.status()}\n{done.output}".rstrip("\n"))

    def __call__(self, program: Program) -> bool:
        self.last_error = self.error(program)
        return self.last_error is not None and self.regex.search(self.last_error) is not None

    def focus(self, program: Program) -> Sequence[str]:
        """The ops the error is at, as op keys: the ``-:LINE:COL`` positions in the program's
        text (the tools read the text as ``-``) on the lines of the error the regex matches
        (an error naming every op, as a location newer than the target does, names the one that
        matters on its own line); none when those lines name more than FOCUS_LIMIT ops."""
        error = self.error(program)
        if error is None:
            return ()
        places = {
            (int(m[1]), int(m[2]))
            for line in error.splitlines() if self.regex.search(line)
            for m in _POSITION.finditer(line)
        }
        if not places or len(places) > FOCUS_LIMIT:
            return ()
        keys = op_keys(program.module)
        out = []
        for op, same in zip(walk_ops(program.fresh_module()), program.ops):
            pos = source_position(op)
            if pos is not None and pos[1:] in places and same in keys:
                out.append(keys[same])
        return out

    def describe(self) -> str:
        return f"fails with /{self.regex.pattern}/ on {self.on}"
