"""Reference files for ``assert_matches(..., backend="file:REF.npz")``.

A reference is either

- a **trace** (``save_trace``, ``stablehlo-translate --interpret --trace-output=REF.npz``, or
  :func:`save_reference`, which can record XLA's or IREE's values once so that later runs compare
  with them without the backend): compared op by op (`trace.compare_traces`), the report names the
  first diverging op;
- **results** (``save_results``, ``--output=REF.npz``, or an ``.npy`` file of a single result):
  compared result by result; a results file has no per-op values, so the report names the
  differing results only.

Which one a file is comes from its members (a trace has ``__index__``, results ``result_types``).

    save_reference("ref.npz", program, *args)                 # the interpreter's run
    save_reference("ref.npz", program, *args, backend="xla")  # XLA's values of the top-level ops
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.trace.closeness import Closeness, compare_arrays

__all__ = [
    "ReferenceFileError",
    "ResultsComparison",
    "compare_results",
    "reference_kind",
    "save_reference",
]


class ReferenceFileError(StableHLOError):
    """A reference file that is missing or is neither a trace nor results."""


RECORD = (
    "record one with stablehlo_py.testing.save_reference(PATH, program, *args) (a trace; "
    "backend='xla' records XLA's values), or stablehlo-translate --interpret --trace-output=PATH"
)


def reference_kind(path: str) -> str:
    """``trace`` or ``results`` (see the module doc)."""
    if not os.path.exists(path):
        raise ReferenceFileError(f"no reference file {path}", note=RECORD)
    if path.endswith(".npy"):
        return "results"
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile) as e:
        raise ReferenceFileError(
            f"cannot read {path} as an .npz archive: {e}", note=RECORD
        ) from None
    if "__index__.npy" in names:
        return "trace"
    if "result_types.npy" in names:
        return "results"
    raise ReferenceFileError(
        f"{path} is neither a trace (it has no __index__ member) nor results (no result_types "
        "member)",
        note=RECORD + "; results are written by save_results or --output=PATH",
    )


@dataclass
class ResultsComparison:
    """Results compared with a results file: what ``Comparison`` is for traces."""

    against: str
    ours: int
    reference: int
    closeness: list[Closeness] = field(default_factory=list)
    """One per result present on both sides, in order."""
    types: list[str] = field(default_factory=list)
    rtol: float | None = None
    atol: float | None = None

    @property
    def differing(self) -> list[int]:
        return [i for i, c in enumerate(self.closeness) if c.agree is not True]

    @property
    def diverged(self) -> bool:
        return self.ours != self.reference or bool(self.differing)

    def report(self) -> str:
        tol = [f"rtol {self.rtol:g}"] if self.rtol is not None else []
        tol += [f"atol {self.atol:g}"] if self.atol is not None else []
        head = f"compared with the results in {self.against}"
        head += f" (floats: {', '.join(tol)})" if tol else ""
        lines = [
            f"{head}: {self.ours} results here, {self.reference} in the file; "
            f"{len(self.differing)} differ"
        ]
        for i in self.differing:
            lines.append(f"  result #{i} ({self.types[i]}): {self.closeness[i].format()}")
        if self.ours != self.reference:
            lines.append(
                f"  the program returns {self.ours} results and the file holds {self.reference}: "
                "is it this program's?"
            )
        if self.diverged:
            lines.append(
                "a results file has no per-op values: compare with a trace (save_reference, "
                "--trace-output) to find the first diverging op"
            )
        return "\n".join(lines)


def compare_results(
    ours: Sequence[Any], path: str, rtol: float | None = None, atol: float | None = None
) -> ResultsComparison:
    """Our results compared with the results file ``path`` (`closeness.compare_arrays`)."""
    from stablehlo_py.io import load_results
    from stablehlo_py.io.results import tensor_type_text

    reference = load_results(path)
    out = ResultsComparison(path, len(ours), len(reference), rtol=rtol, atol=atol)
    for a, b in zip(ours, reference):
        value = np.asarray(a)
        out.closeness.append(compare_arrays(value, b, rtol, atol))
        out.types.append(tensor_type_text(value))
    return out


def save_reference(
    path: str | os.PathLike[str],
    program: Any,
    *args: Any,
    backend: Any = None,
    entry: str = "main",
) -> Any:
    """Record ``program``'s run on ``args`` as a trace file (compressed ``.npz``) for
    ``assert_matches(..., backend="file:PATH")``; returns the `Trace`.

    ``backend``: None records the interpreter's run (every op, every value); ``"xla"``, ``"iree"``
    or a function ``(module, args) -> results`` records that backend's values of the entry
    function's top-level ops (`trace.backend_trace`), so that tests compare with the backend
    without having it installed.  A missing backend (or jax, for a JAX function) skips the test
    inside pytest and raises ``BackendUnavailable`` elsewhere."""
    from stablehlo_py.backends import BackendUnavailable
    from stablehlo_py.testing.programs import program_of
    from stablehlo_py.testing.skipping import skip_or_raise
    from stablehlo_py.trace import Trace, backend_trace, save_trace

    where = os.fspath(path)
    if not where.endswith(".npz"):
        raise ReferenceFileError(f"a reference is an .npz file; got {where}")
    try:
        prog = program_of(program, args, entry)
        if backend is None:
            from stablehlo_py.interpreter import run

            trace = Trace(3)
            run(prog.module, *prog.args, entry=entry, trace=trace)
        else:
            trace = backend_trace(prog.module, prog.args, backend, entry)
    except BackendUnavailable as e:
        skip_or_raise(e)
    save_trace(trace, where, compress=True)
    return trace
