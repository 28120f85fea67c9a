"""`stablehlo-translate --interpret`'s per-op traces and comparisons (issue 27):

    --trace[=LEVEL]          one line per op (LEVEL 1), with small values (2) or all values (3)
    --trace-output=T.npz     the run's every value, for a later --compare-to=T.npz (saved also when
                             the run fails)
    --compare-to=xla|iree|T.npz [--rtol=R] [--atol=A]
                             the first op whose results differ from XLA's, IREE's or the trace
                             file's while its operands agree (exit 1 when any op differs)
    --node-data-output=DIR   Model Explorer node data of the run (`viz/overlays.py`): NaN/Inf
                             counts and times per op, differences with --compare-to

The reports (trace, comparison) go to stderr, or into the ``-o`` file after the results.  A trace
file or a backend is checked before the program runs.  `TraceSession` holds one invocation's
state: the recorder (one `Trace` for every run: it restarts at each), what to compare with, and
the one run a file or a comparison may cover.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from stablehlo_py.errors import StableHLOError

__all__ = ["TraceSession"]


def _one_line(e: StableHLOError) -> StableHLOError:
    """``e``'s message and note as one line (the tool prints errors as one line each)."""
    text = e.message + (f" ({e.note})" if e.note else "")
    return StableHLOError(text, location=e.location)


class TraceSession:
    """The tracing options of one `--interpret` invocation (see the module doc)."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.level: int | None = options.get("trace")  # type: ignore[assignment]
        self.output_path: str | None = options.get("trace_output") or None
        self.compare_to: str | None = options.get("compare_to") or None
        self.node_data: str | None = options.get("node_data_output") or None
        self.rtol: float | None = options.get("rtol")
        self.atol: float | None = options.get("atol")
        self.to_file = bool(options.get("output"))  # -o: reports beside the results
        self.runs = 0
        self.diverged = False
        self.reference: Any = None
        if (self.rtol is not None or self.atol is not None) and not self.compare_to:
            raise StableHLOError("--rtol and --atol set the tolerance of --compare-to; add it")
        from stablehlo_py.trace import Trace

        full = self.output_path is not None or self.compare_to is not None
        timing = self.output_path is not None or self.node_data is not None
        self.trace = Trace(3 if full else (self.level or 1), progress=True, timing=timing)
        self._check_reference()

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> TraceSession | None:
        """A session when any tracing option is given, else None."""
        names = ("trace", "trace_output", "compare_to", "node_data_output")
        if any(options.get(k) is not None for k in names):
            return cls(options)
        if options.get("rtol") is not None or options.get("atol") is not None:
            raise StableHLOError("--rtol and --atol set the tolerance of --compare-to; add it")
        return None

    # ------------------------------------------------------------------------------ before
    def _backend(self) -> str | None:
        name = (self.compare_to or "").lower()
        return name if name in ("xla", "iree") else None

    def _check_reference(self) -> None:
        """Fail before the run: a missing backend, an unreadable trace file."""
        if self.compare_to is None:
            return
        backend = self._backend()
        if backend is not None:
            from stablehlo_py.backends import BackendUnavailable, require_iree, require_xla

            try:
                require_xla() if backend == "xla" else require_iree()
            except BackendUnavailable as e:
                raise StableHLOError(f"--compare-to={backend}: {e.message}; {e.note}") from None
            return
        import os

        if os.path.isdir(self.compare_to):
            raise StableHLOError(
                f"--compare-to={self.compare_to} is a directory; it takes xla, iree or a trace "
                "file (the .npz --trace-output writes)"
            )
        from stablehlo_py.trace import TraceFileError, load_trace

        try:
            self.reference = load_trace(self.compare_to)
        except TraceFileError as e:
            raise _one_line(e) from None

    # ------------------------------------------------------------------------------ the run
    @property
    def observer(self) -> Any:
        """What the Evaluator reports to."""
        return self.trace

    @contextmanager
    def run(self, module: Any, entry: str) -> Iterator[None]:
        """Around one run of ``entry``: the trace's begin/end; ``--trace-output`` written even
        when the run fails; an observer failure as a one-line error."""
        from stablehlo_py.interpreter.observe import ObserverError, observing

        self.runs += 1
        if self.runs > 1 and (self.output_path or self.compare_to or self.node_data):
            what = (
                "--trace-output and --compare-to cover"
                if self.output_path or self.compare_to
                else "--node-data-output covers"
            )
            raise StableHLOError(
                f"{what} one run, but @{entry} runs too (each "
                "`// -----` chunk runs its @main, a module without one every function taking no "
                "arguments): run them one at a time"
            )
        try:
            with observing(self.trace, module, entry):
                yield
        except ObserverError as e:
            raise StableHLOError(str(e)) from None
        finally:
            if self.output_path is not None:
                self._save()

    def _save(self) -> None:
        from stablehlo_py.trace import TraceFileError, save_trace

        try:
            save_trace(self.trace, str(self.output_path))
        except TraceFileError as e:
            raise _one_line(e) from None

    # ------------------------------------------------------------------------------- after
    def after(self, module: Any, entry: str, args: Sequence[Any], out: list[str]) -> None:
        """After a run that finished: the trace report (--trace) and the comparison."""
        if self.level is not None:
            from stablehlo_py.trace import format_trace

            self._emit(format_trace(self.trace, values=self.level > 1), out)
        if self.compare_to is None:
            self._node_data(module, None)
            return
        from stablehlo_py.trace.compare import compare_traces

        backend = self._backend()
        if backend is not None:
            from stablehlo_py.trace.backend_trace import compare_to_backend

            comparison = compare_to_backend(
                self.trace, module, args, backend, entry=entry, rtol=self.rtol, atol=self.atol
            )
        else:
            comparison = compare_traces(
                self.trace,
                self.reference,
                module,
                against=str(self.compare_to),
                rtol=self.rtol,
                atol=self.atol,
            )
        self.diverged = self.diverged or comparison.diverged
        self._emit(comparison.report(), out)
        self._node_data(module, comparison)

    def _node_data(self, module: Any, comparison: Any) -> None:
        if self.node_data is None:
            return
        from stablehlo_py.viz.overlays import write_overlays

        try:
            write_overlays(self.node_data, module, self.trace, comparison)
        except StableHLOError as e:
            raise _one_line(e) from None

    def _emit(self, text: str, out: list[str]) -> None:
        if self.to_file:
            out.append(text + "\n")
        else:
            sys.stdout.flush()
            print(text, file=sys.stderr, flush=True)
