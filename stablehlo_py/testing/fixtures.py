"""What the plugin's fixtures give a test (`plugin.py` makes them; nothing heavy is imported until
a method runs).

- :class:`InterpreterRuns` (``stablehlo_interpreter``): ``run(program, *args)`` with its files in
  the test's ``tmp_path``: ``trace=LEVEL`` records a trace (``.trace``, saved to ``.trace_path``),
  ``probes=True`` instruments the program with ``interpreter.probe`` ops and keeps their values
  (``.probes()``, files in ``.probe_dir``);
- :class:`ArtifactRoundTrip` (``stablehlo_artifact``, one test per format): ``round_trip(program,
  target=...)`` serializes a portable artifact for ``target`` in ``.format`` and reads it back;
- :class:`BackendRunner` (``stablehlo_backend``, one test per backend): ``run(program, *args)`` on
  XLA or IREE, and ``assert_matches`` with that backend.

A program is what `programs.py` takes: a JAX function, a builder Module, a ModuleOp or MLIR text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["FORMATS", "ArtifactRoundTrip", "BackendRunner", "InterpreterRuns"]

FORMATS = ("mlir", "msgpack")
"""The portable artifact formats: upstream's MLIR bytecode and this toolkit's archive."""


def _program(program: Any, args: Sequence[Any], entry: str) -> Any:
    from stablehlo_py.backends import BackendUnavailable
    from stablehlo_py.testing.programs import program_of
    from stablehlo_py.testing.skipping import skip_or_raise

    try:
        return program_of(program, args, entry)
    except BackendUnavailable as e:  # a JAX function without jax
        skip_or_raise(e)


class InterpreterRuns:
    """The interpreter, its files in ``directory`` (the test's ``tmp_path``)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.runs = 0
        self.trace: Any = None
        """The last run's `Trace` (with ``trace=LEVEL``), else None."""
        self.trace_path: Path | None = None
        self.probe_dir: Path | None = None
        """The last run's probe directory (with ``probes=True``), else None."""

    def __call__(
        self,
        program: Any,
        *args: Any,
        entry: str = "main",
        trace: int | None = None,
        probes: bool = False,
    ) -> list[Any]:
        """Run ``program``'s ``entry`` on ``args``; returns the results.  ``trace``: 1 (summaries),
        2 (small values too) or 3 (every value), saved to ``run<N>.trace.npz`` even when the run
        fails; ``probes``: every op's tensor results probed (ids from locations, as
        ``--interpreter-instrument-with-probe=useDebugInfo=true``) into ``probes<N>/``."""
        from stablehlo_py.interpreter import run

        prog = _program(program, args, entry)
        self.runs += 1
        module = prog.module
        self.probe_dir = None
        if probes:
            from stablehlo_py.passes.interpreter_instrument_with_probe import (
                instrument_with_probe,
            )

            module = instrument_with_probe(module.clone(), use_debug_info=True)
            self.probe_dir = self.directory / f"probes{self.runs}"
        recorder = None
        self.trace = self.trace_path = None
        if trace is not None:
            from stablehlo_py.trace import Trace

            recorder = self.trace = Trace(trace)
            self.trace_path = self.directory / f"run{self.runs}.trace.npz"
        try:
            return run(module, *prog.args, entry=entry, trace=recorder, probe_dir=self.probe_dir)
        finally:
            if recorder is not None and self.trace_path is not None:
                from stablehlo_py.trace import save_trace

                save_trace(recorder, self.trace_path)

    run = __call__

    def probes(self, iteration: int = 0) -> dict[str, Any]:
        """``probe_id -> value`` of the last run with ``probes=True`` (``iteration``: which run of
        a probe inside a loop)."""
        if self.probe_dir is None:
            raise RuntimeError("the last run had no probes: run it with probes=True")
        from stablehlo_py.io import read_probes

        return read_probes(self.probe_dir, iteration)


class ArtifactRoundTrip:
    """Portable artifacts of one ``format`` (``mlir`` or ``msgpack``)."""

    def __init__(self, format: str) -> None:
        if format not in FORMATS:
            raise ValueError(f"artifact format {format!r}: the formats are {', '.join(FORMATS)}")
        self.format = format

    def serialize(self, program: Any, *args: Any, target: Any = "current") -> bytes:
        """``program`` as a portable artifact for ``target`` (``"current"``, ``"1.0.0"``, a
        ``Version``); ``args`` only to lower a JAX function."""
        from stablehlo_py.api import serialize_portable_artifact
        from stablehlo_py.backends import BackendUnavailable
        from stablehlo_py.testing.programs import module_of
        from stablehlo_py.testing.skipping import skip_or_raise

        try:
            module = module_of(program, args)[0]
        except BackendUnavailable as e:
            skip_or_raise(e)
        return serialize_portable_artifact(module, target, format=self.format)

    def round_trip(self, program: Any, *args: Any, target: Any = "current") -> Any:
        """``program`` serialized for ``target`` and read back (a verified ``ModuleOp`` at the
        current version)."""
        from stablehlo_py.api import deserialize_portable_artifact

        return deserialize_portable_artifact(self.serialize(program, *args, target=target))

    __call__ = round_trip

    def __repr__(self) -> str:
        return f"ArtifactRoundTrip({self.format!r})"


class BackendRunner:
    """One backend (``xla`` or ``iree``) that is installed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, program: Any, *args: Any, entry: str = "main") -> list[Any]:
        """``program``'s ``entry`` compiled and run by the backend."""
        from stablehlo_py.backends import run_iree, run_xla

        prog = _program(program, args, entry)
        if self.name == "iree":
            return run_iree(prog.module, prog.args, entry)
        if entry != "main":
            raise ValueError(f"the XLA runner runs @main; got entry={entry!r} (use IREE)")
        return run_xla(prog.module, prog.args)

    def assert_matches(
        self,
        program: Any,
        *args: Any,
        rtol: float | None = None,
        atol: float | None = None,
        entry: str = "main",
    ) -> list[Any]:
        """``assert_matches(program, *args, backend=self.name, ...)``."""
        from stablehlo_py.testing.assertions import assert_matches

        return assert_matches(program, *args, backend=self.name, rtol=rtol, atol=atol, entry=entry)

    def __repr__(self) -> str:
        return f"BackendRunner({self.name!r})"
