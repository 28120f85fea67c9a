"""``DivergesFrom``: the interpreter and a backend (XLA, IREE) compute different results.

A candidate is interesting when, run on its inputs by the interpreter and by the backend, some
result differs beyond the tolerance: :func:`stablehlo_py.trace.closeness.compare_arrays` (the
element type's tolerance, ``rtol``/``atol`` replacing it for floats; integers exactly; NaNs at the
same places), or the two return different numbers of results.  A program returning nothing is
never interesting (there is nothing to compare).

What is not a divergence, and is counted instead (``counts``, in the report's notes): the backend
refusing or failing on the candidate (a compile error: reducing a divergence must not drift into
a program the backend rejects; ``backend_errors=True`` makes such a candidate interesting), the
interpreter failing on it, or its run taking more than ``budget`` seconds of CPU time (a loop
that no longer ends).

``focus``: the op :func:`stablehlo_py.trace.backend_trace.compare_to_backend` names -- the first
top-level op whose results differ while its operands agree (the program run once more on each
side with every top-level value returned) --, which the search then cuts loose first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablehlo_py.backends import BackendUnavailable
from stablehlo_py.reduce.budget import OutOfTime, cpu_budget
from stablehlo_py.reduce.consumers import backend_arrays, check_backend, run_backend
from stablehlo_py.reduce.program import Program, ReduceError
from stablehlo_py.reduce.tests import INTERPRET_BUDGET, InterestingnessTest
from stablehlo_py.trace.closeness import compare_arrays

__all__ = ["DivergesFrom"]

_NAMES = {"xla": "XLA", "iree": "IREE"}
_REMEMBERED = 64  # foci kept by program

Runner = Callable[[Any, Sequence[np.ndarray]], Sequence[Any]]


class DivergesFrom(InterestingnessTest):
    """Interesting when the interpreter's results and ``backend``'s differ (module doc).

    ``backend``: ``"xla"``, ``"iree"``, or a function ``(module, arrays) -> results`` (a backend
    of one's own).  ``rtol``/``atol`` replace the element types' tolerances (floats, complex)."""

    uses_inputs = True

    def __init__(
        self,
        backend: str | Runner = "xla",
        rtol: float | None = None,
        atol: float | None = None,
        *,
        backend_errors: bool = False,
        budget: float | None = INTERPRET_BUDGET,
    ) -> None:
        if callable(backend):
            self.name = getattr(backend, "__name__", "the backend")
            self._runner: Runner | None = backend
        else:
            check_backend(backend)  # unknown: ReduceError; not installed: BackendUnavailable
            self.name, self._runner = backend, None
        for what, v in (("rtol", rtol), ("atol", atol)):
            if v is not None and not (isinstance(v, (int, float)) and v >= 0):
                raise ReduceError(f"DivergesFrom: {what} is a number >= 0, not {v!r}")
        self.backend = backend
        self.rtol, self.atol = rtol, atol
        self.backend_errors = backend_errors
        self.budget = budget
        self.last_difference: str | None = None
        """How the last candidate tested diverged (or why it was not compared)."""
        self.last_error: str | None = None
        """Why the last candidate could not be compared (a side failed), or None."""
        self._foci: dict[str, tuple[str, ...]] = {}

    @property
    def what(self) -> str:
        return _NAMES.get(self.name, self.name)

    def describe(self) -> str:
        tol = ""
        if self.rtol is not None or self.atol is not None:
            tol = f" (rtol {self.rtol}, atol {self.atol})"
        return f"diverges from {self.what}{tol}"

    # ------------------------------------------------------------------------------ runs
    def _ours(self, program: Program, module: Any, trace: Any = None) -> list[Any] | None:
        from stablehlo_py.interpreter import run

        try:
            with cpu_budget(self.budget):
                return list(run(module, *program.inputs, entry=program.entry, trace=trace))
        except OutOfTime:
            self.count(f"the interpreter took more than {self.budget:g} s of CPU time")
            self.last_error = f"the run took more than {self.budget:g} s of CPU time"
        except Exception as e:
            self.count("the interpreter failed (not a divergence)")
            self.last_error = f"the interpreter failed: {type(e).__name__}: {_first(e)}"
        return None

    def _theirs(self, program: Program, module: Any) -> list[np.ndarray]:
        if self._runner is not None:
            return [np.asarray(r) for r in self._runner(module, backend_arrays(program))]
        return run_backend(self.name, program, module)

    def __call__(self, program: Program) -> bool:
        self.last_difference = self.last_error = None
        module = program.fresh_module()
        if not program.entry_function().function_type.outputs.data:
            return False  # nothing to compare (IREE's runner gives one None for no results)
        ours = self._ours(program, module)
        if ours is None:
            return False
        try:
            theirs = self._theirs(program, module)
        except (BackendUnavailable, ReduceError):
            raise
        except Exception as e:  # the backend's own error (compile or run), in its own type
            kept = " (taken as a divergence)" if self.backend_errors else " (not a divergence)"
            self.count(f"{self.what} failed{kept}")
            self.last_error = f"{self.what} failed: {type(e).__name__}: {_first(e)}"
            return self.backend_errors
        self.last_difference = _difference(ours, theirs, self.rtol, self.atol, self.what)
        return self.last_difference is not None

    # ------------------------------------------------------------------------------ focus
    def focus(self, program: Program) -> Sequence[str]:
        """The first diverging op's key (module doc); none when it cannot be told."""
        key = program.digest(True)
        if key not in self._foci:
            if len(self._foci) >= _REMEMBERED:
                del self._foci[next(iter(self._foci))]
            self._foci[key] = self._first_diverging(program)
        return self._foci[key]

    def _first_diverging(self, program: Program) -> tuple[str, ...]:
        from stablehlo_py.trace import Trace
        from stablehlo_py.trace.backend_trace import compare_to_backend

        module = program.fresh_module()
        trace = Trace(3)
        if self._ours(program, module, trace) is None:
            return ()
        try:
            backend: str | Runner = self._runner if self._runner is not None else self.name
            comparison = compare_to_backend(
                trace, module, backend_arrays(program), backend, entry=program.entry,
                rtol=self.rtol, atol=self.atol,
            )
        except Exception:  # the backend fails with the values exposed: no focus, only search
            return ()
        first = comparison.first
        return (first.key,) if first is not None else ()


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""


def _difference(
    ours: Sequence[Any], theirs: Sequence[Any], rtol: float | None, atol: float | None, what: str
) -> str | None:
    """How the results differ (None when they agree)."""
    if len(ours) != len(theirs):
        return f"{len(ours)} results here, {len(theirs)} from {what}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if not isinstance(a, (np.ndarray, np.generic)):
            continue  # a token: nothing to compare
        c = compare_arrays(a, b, rtol, atol)
        if c.agree is False:
            return f"result {i}: {c.format()}"
    return None
