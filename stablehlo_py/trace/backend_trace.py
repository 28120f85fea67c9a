"""A backend's run as a trace, for ``--compare-to=xla|iree``.

`backends.expose` makes the entry function return every top-level tensor value; one run on the
backend gives those values, which become a `Trace` keyed as ours (one entry per top-level op, in
program order, with the values and their summaries).  Values inside regions and called functions
are not returned: such ops are compared at the op holding or calling them.  More results can change
what the backend fuses, so a divergence caused only by fusion may not show.

    reference = backend_trace(module, args, "xla")
    comparison = compare_to_backend(trace, module, args, "xla")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.trace_stats import Summary, summarize
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from stablehlo_py.backends import BackendUnavailable, expose, run_iree, run_xla
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.text.name_stack import name_stack, op_keys
from stablehlo_py.ir.text.spelling import type_to_str
from stablehlo_py.trace.compare import Comparison, compare_traces
from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["BACKEND_NAMES", "BackendRunError", "backend_trace", "compare_to_backend"]

BACKEND_NAMES = ("xla", "iree")

Runner = Callable[[ModuleOp, Sequence[np.ndarray]], Sequence[Any]]


class BackendRunError(StableHLOError):
    """The backend could not compile or run the program with its values exposed."""


def _runner(backend: str | Runner, entry: str) -> tuple[str, Runner]:
    if callable(backend):
        return getattr(backend, "__name__", "the backend"), backend
    if backend == "xla":
        if entry != "main":
            raise StableHLOError(
                f"the XLA runner runs @main, and this run's entry is @{entry}: compare a "
                "program with a @main, or with IREE"
            )
        return "XLA", run_xla
    if backend == "iree":
        return "IREE", lambda m, a: run_iree(m, a, entry)
    raise StableHLOError(
        f"unknown backend {backend!r}: the backends are {', '.join(BACKEND_NAMES)}"
    )


def backend_trace(
    module: ModuleOp, args: Sequence[Any], backend: str | Runner, entry: str = "main"
) -> Trace:
    """The values of ``entry``'s top-level ops as ``backend`` (``xla``, ``iree``, or a function
    ``(module, args) -> results``) computes them, as a level-3 trace (see the module doc).
    A missing backend raises `BackendUnavailable`; a failing one `BackendRunError`."""
    what, run = _runner(backend, entry)
    arrays = []
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray | np.generic):
            raise StableHLOError(
                f"argument {i} of @{entry} is a {type(a).__name__}, not an array, and a backend "
                "run takes arrays only: compare with a trace file instead (--trace-output=T.npz "
                "of a run, then --compare-to=T.npz)"
            )
        arrays.append(np.asarray(a))
    exposed = expose(module, entry)
    try:
        outs = list(run(exposed.module, arrays))
    except (BackendUnavailable, StableHLOError):
        raise
    except Exception as e:  # the backend's own errors (compile or runtime), in its own types
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise BackendRunError(
            f"{what} failed on the program with its intermediate values returned: "
            f"{type(e).__name__}: {first}"
        ) from None
    if len(outs) != exposed.results + len(exposed.keys):
        raise BackendRunError(
            f"{what} returned {len(outs)} results; the program with its values exposed has "
            f"{exposed.results + len(exposed.keys)}"
        )
    values: dict[str, dict[int, np.ndarray]] = {}
    for (key, k), value in zip(exposed.keys, outs[exposed.results :]):
        values.setdefault(key, {})[k] = np.asarray(value)
    return _as_trace(module, entry, values)


def _as_trace(module: ModuleOp, entry: str, values: dict[str, dict[int, np.ndarray]]) -> Trace:
    trace = Trace(3)
    trace.entry = entry
    keys = op_keys(module)
    func = next(
        (f for f in module.body.block.ops if isinstance(f, FuncOp) and f.sym_name.data == entry),
        None,
    )
    assert func is not None  # expose() found it
    for op in func.body.block.ops:
        key = keys.get(op)
        if key is None or key not in values:
            continue
        got = values[key]
        kept = [got.get(k) for k in range(len(op.results))]
        results = [
            summarize(v) if v is not None else Summary("other", dtype="not returned")
            for v in kept
        ]
        stack = name_stack(op)
        trace.add(
            TraceEntry(
                index=0,
                key=key,
                op=op.name,
                types=tuple(type_to_str(r.type) for r in op.results),
                source=stack.source,
                scope=stack.scope,
                count=1,
                results=results,
                values=kept,
            )
        )
        trace.runs += 1
    return trace


def compare_to_backend(
    ours: Trace,
    module: ModuleOp,
    args: Sequence[Any],
    backend: str | Runner,
    *,
    entry: str = "main",
    rtol: float | None = None,
    atol: float | None = None,
) -> Comparison:
    """Our trace (level 3, of ``module``'s ``entry`` on ``args``) compared with ``backend``'s run
    of the same program (`compare.py`; ops in regions and called functions are not compared)."""
    reference = backend_trace(module, args, backend, entry)
    name = backend if isinstance(backend, str) else getattr(backend, "__name__", "the backend")
    return compare_traces(
        ours, reference, module, against=name, rtol=rtol, atol=atol, top_level_only=True
    )
