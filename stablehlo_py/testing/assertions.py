"""``assert_matches``: a program run by the interpreter and by a backend (or compared with a
recorded run), failing with the first op where they part.

    from stablehlo_py.testing import assert_matches

    assert_matches(jax_fn, x, w)                            # lowered by jax, XLA as the reference
    assert_matches(build(), *inputs(), backend="iree")      # a builder Module
    assert_matches(module_text, x, backend="file:ref.npz")  # a recorded trace or results file
    assert_matches(module, x, backend=my_runner)            # my_runner(module, args) -> results

The program is a JAX function, a builder ``Module``, an xDSL ``ModuleOp`` or MLIR text
(`programs.py`).  The interpreter runs it with a full trace (every value); the reference is

- ``"xla"`` / ``"iree"``: the same program compiled by the backend with every top-level value
  returned (`trace.compare_to_backend`), or any function ``(module, args) -> results`` that runs a
  StableHLO module (it gets that program too);
- ``"file:PATH"`` (or a ``pathlib.Path``): a trace or results file (`references.py`).

On a difference beyond the tolerance (``rtol``/``atol`` for floats; the element type's defaults,
`trace.closeness`) it raises ``AssertionError`` whose message is the comparison's report: the
first diverging op (its op key, name stack, source line and location), how its results differ
(max abs/rel diff), and whether its operands agree.  It returns the interpreter's results.

A missing backend, or a missing jax for a JAX function, skips the test (``pytest.skip`` with the
reason) when called inside a pytest test, and raises ``BackendUnavailable`` otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stablehlo_py.backends import BackendUnavailable, require_iree, require_xla
from stablehlo_py.testing.references import compare_results, reference_kind
from stablehlo_py.testing.skipping import skip_or_raise

__all__ = ["Reference", "assert_matches", "reference_of"]

BACKEND_NAMES = {"xla": "XLA", "iree": "IREE"}


@dataclass(frozen=True)
class Reference:
    """What a run is compared with: ``kind`` is ``backend`` (``name`` xla/iree, or ``runner``),
    ``trace`` or ``results`` (``path``)."""

    kind: str
    name: str
    path: str = ""
    runner: Callable[..., Sequence[Any]] | None = None

    @property
    def label(self) -> str:
        if self.kind == "backend":
            return BACKEND_NAMES.get(self.name, self.name)
        return f"the reference file {self.path}"


def reference_of(backend: Any) -> Reference:
    """``backend`` (see the module doc) checked: a missing backend raises `BackendUnavailable`,
    a missing or unreadable file `ReferenceFileError`, anything else ``ValueError``."""
    if isinstance(backend, os.PathLike):
        backend = "file:" + os.fspath(backend)
    if isinstance(backend, str):
        name = backend.strip()
        if name.lower() == "xla":
            require_xla()
            return Reference("backend", "xla")
        if name.lower() == "iree":
            require_iree()
            return Reference("backend", "iree")
        if name.startswith("file:") and name[5:]:
            path = name[5:]
            return Reference(reference_kind(path), path, path)
    elif callable(backend):
        name = getattr(backend, "__name__", None) or type(backend).__name__
        return Reference("backend", name, runner=backend)
    raise ValueError(
        "backend is 'xla', 'iree', 'file:PATH' (a trace or results file) or a function "
        f"(module, args) -> results; got {backend!r}"
    )


def assert_matches(
    program: Any,
    *args: Any,
    backend: Any = "xla",
    rtol: float | None = None,
    atol: float | None = None,
    entry: str = "main",
) -> list[np.ndarray]:
    """Run ``program`` on ``args`` in the interpreter and compare with ``backend`` (see the module
    doc); returns the interpreter's results."""
    try:
        reference = reference_of(backend)
        from stablehlo_py.testing.programs import program_of

        prog = program_of(program, args, entry)
    except BackendUnavailable as e:
        skip_or_raise(e)
    from stablehlo_py.interpreter import run
    from stablehlo_py.trace import Trace

    trace = Trace(3)
    results = run(prog.module, *prog.args, entry=entry, trace=trace)
    comparison = _compare(trace, results, prog, reference, rtol, atol)
    if comparison.diverged:
        raise AssertionError(
            f"the interpreter's run of {prog.what} differs from {reference.label}:\n"
            + comparison.report()
        )
    return results


def _compare(
    trace: Any,
    results: list[np.ndarray],
    prog: Any,
    reference: Reference,
    rtol: float | None,
    atol: float | None,
) -> Any:
    if reference.kind == "results":
        return compare_results(results, reference.path, rtol, atol)
    if reference.kind == "trace":
        from stablehlo_py.trace import compare_traces, load_trace

        ref = load_trace(reference.path)
        return compare_traces(
            trace, ref, prog.module, against=reference.path, rtol=rtol, atol=atol
        )
    from stablehlo_py.trace import compare_to_backend

    runner = reference.runner if reference.runner is not None else reference.name
    try:
        return compare_to_backend(
            trace, prog.module, prog.args, runner, entry=prog.entry, rtol=rtol, atol=atol
        )
    except BackendUnavailable as e:
        skip_or_raise(e)
