"""`stablehlo-translate --interpret --engine=mpi`: one rank of ``mpirun -n P stablehlo-translate
--interpret --engine=mpi program.mlir ...`` (the MPI engine: interpreter/mpi/runner.py).

Every rank reads the program and runs its process; rank 0 prints the results, the
`interpreter.print` lines (every rank's, in rank order) and the check failures (as the threaded
engine does), and writes ``--output=out.npz``/``.npy`` (tiles streamed to it one at a time where a
result allows); ``--output=DIR/`` is written by the ranks, each its own tiles, after rank 0 has
created the files.  ``--mpi-report`` adds, on stderr, each argument and result as tile or whole
and why, and each rank's peak RSS.  Errors are said once: an error before the run by the lowest
rank that has it (every rank checks the program and P alike), a failure during the run by rank
0's report (the control plane); the other ranks exit 1 silently.  Exit 0, or 1 on any error or
failed check.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from stablehlo_py.cli.common import write_output
from stablehlo_py.cli.translate_modes import _main_arguments, _programs
from stablehlo_py.errors import StableHLOError

WHO = "stablehlo-translate --engine=mpi"
#: options of the threaded engine only: they need every value of the run in one process
THREADS_ONLY = {
    "trace": "--trace",
    "trace_output": "--trace-output",
    "compare_to": "--compare-to",
    "node_data_output": "--node-data-output",
}


def interpret_mpi(options: dict[str, Any]) -> int:
    """`--interpret --engine=mpi` (module doc)."""
    from stablehlo_py.interpreter.mpi import require_mpi
    from stablehlo_py.interpreter.mpi.runner import quiet

    given = [flag for key, flag in THREADS_ONLY.items() if options.get(key) is not None]
    if given:
        raise StableHLOError(
            f"{', '.join(given)} {'observes' if len(given) == 1 else 'observe'} a run in one "
            "process: use --engine=threads (the "
            "default) for them; under --engine=mpi each rank holds only its own tiles"
        )
    if str(options.get("input_file", "-")) == "-":
        raise StableHLOError(
            "--engine=mpi reads the program on every rank, and mpirun gives stdin to rank 0 only: "
            "name the program's file (one every rank can open)"
        )
    require_mpi("--engine=mpi")
    try:
        return _interpret(options)
    except StableHLOError as e:
        if quiet(e):
            sys.stdout.flush()
            return 1
        raise


def _entries(module: Any, options: dict[str, Any]) -> list[str]:
    """The functions `--interpret` runs: @main, or every function taking no arguments."""
    from stablehlo_py.interpreter.module_code import functions

    funcs = functions(module)
    if "main" in funcs:
        return ["main"]
    if options.get("args_") or options.get("inputs"):
        names = ", ".join(f"@{n}" for n in funcs) or "none"
        raise StableHLOError(
            f"--args/--inputs give @main's arguments, and the program has no @main (its "
            f"functions: {names}); name the entry function main"
        )
    return [n for n, f in funcs.items() if not f.function_type.inputs.data]


def _interpret(options: dict[str, Any]) -> int:
    from stablehlo_py.interpreter.mpi.runner import before_run, report_text, run_rank
    from stablehlo_py.interpreter.mpi.wait import DEFAULT_TIMEOUT
    from stablehlo_py.interpreter.printing import format_value

    timeout = options.get("mpi_timeout") or DEFAULT_TIMEOUT
    results_file = options.get("results_file") or None
    if results_file:  # a path that cannot take results is said before the run, not after it
        from stablehlo_py.io.results import check_output_path

        before_run(lambda: check_output_path(str(results_file)), timeout=timeout)
    print_results = not results_file or bool(options.get("output"))
    source = str(options["input_file"])
    program = "<stdin>" if source == "-" else source
    programs: Iterator[Any] = iter(_programs(options))
    out: list[str] = []
    failed = False
    rank = 0
    ran = 0
    while True:
        got = before_run(lambda: _next_program(programs, options), timeout=timeout)
        if got is None:
            break
        module, exported, entries = got
        for entry in entries:
            ran += 1
            if results_file and ran > 1:
                from stablehlo_py.io.errors import OutputError

                def refuse(entry: str = entry) -> None:
                    raise OutputError(
                        f"--output holds the results of one function, but @{entry} runs too "
                        "(each `// -----` chunk runs its @main, a module without one every "
                        "function taking no arguments): run them one at a time"
                    )

                before_run(refuse, timeout=timeout)
            writer = None
            if results_file:
                writer = ResultWriter(str(results_file), module, entry, exported)
            run = run_rank(
                module,
                _reader(options, module, entry, exported),
                entry=entry,
                gather="root" if print_results or (writer and writer.via_root) else "none",
                timeout=timeout,
                program=program,
                who=WHO,
                deliver=writer,
                probe_dir=options.get("probe_output_dir") or None,
                measure=bool(options.get("mpi_report")),
            )
            rank = run.rank
            failed = failed or run.failed_rank is not None
            if run.rank != 0:
                continue
            out.extend(run.prints)
            results = list(run.results or [])
            func = _function(module, entry)
            types = func.function_type.outputs.data
            if exported is not None and entry == "main":
                results = exported.module_results(results)
                types = types[len(types) - len(results):]
            dense = bool(options.get("interpreter_print_dense"))
            for r, t in zip(results, types) if print_results else ():
                out.append(format_value(r, t, dense=dense) + "\n")
            for f in run.failures:
                print(str(f), file=sys.stderr)
            if options.get("mpi_report"):
                sys.stderr.write(report_text(run))
                sys.stderr.flush()
    if rank == 0 and out:
        write_output(options.get("output"), "".join(out))  # type: ignore[arg-type]
    return 1 if failed else 0


def _next_program(programs: Iterator[Any], options: dict[str, Any]) -> Any:
    """The next (module, exported, entries) to run, or None after the last."""
    got = next(programs, None)
    if got is None:
        return None
    module, exported = got
    return module, exported, _entries(module, options)


def _function(module: Any, entry: str) -> Any:
    from stablehlo_py.interpreter.module_code import functions

    return functions(module)[entry]


def _reader(options: dict[str, Any], module: Any, entry: str, exported: Any) -> Any:
    """The run's argument reader (called by the ranks that run, inside the control plane): @main's
    arguments from --args/--inputs (memory maps where they can be: each rank reads only its
    tiles), rank 0 saying when compressed members make every rank read them whole."""

    def read(context: Any) -> list[Any]:
        if entry != "main":
            return []
        args = _main_arguments(options, _function(module, entry), exported)
        if context.rank == 0:
            from stablehlo_py.io.shards import compressed_notice, input_archive

            notice = compressed_notice(
                input_archive(options.get("args_") or None, options.get("inputs") or None),
                context.plan,
            )
            if notice:
                print(notice, file=sys.stderr)
        return args

    return read


class ResultWriter:
    """`--output` under MPI, called on every rank at the end of the run (`run_rank`'s
    `deliver`): ``DIR/`` in two phases (rank 0 creates the files; barrier; every rank writes
    the tiles it owns; barrier), ``.npz`` streamed by rank 0 (tiles received one at a time where
    the result's layout allows), anything else (``.npy``; a JAX export's effect tokens among the
    results) gathered whole to rank 0 and saved there."""

    def __init__(self, path: str, module: Any, entry: str, exported: Any) -> None:
        from stablehlo_py.io.results import is_directory_output

        self.path = path
        self.func = _function(module, entry)
        self.exported = exported if entry == "main" else None
        tokens = bool(self.exported is not None and self.exported.ordered_effects)
        self.directory = is_directory_output(path)
        self.via_root = tokens or not (self.directory or path.endswith(".npz"))

    def __call__(self, outputs: Any) -> None:
        from stablehlo_py.io.params import result_names

        if self.via_root:
            results = outputs.gather_root()
            if results is None:
                return
            if self.exported is not None:
                results = self.exported.module_results(results)
            from stablehlo_py.io.results import save_results

            save_results(self.path, results, result_names(self.func, len(results)))
            return
        if self.directory:
            self._directory(outputs)
        else:
            self._npz(outputs)

    def _directory(self, outputs: Any) -> None:
        from stablehlo_py.io.params import result_names
        from stablehlo_py.io.results import create_result_dir
        from stablehlo_py.io.shards import result_specs, write_result_tiles

        held = outputs.results
        specs = None if held is None else result_specs(held, outputs.plan)
        if outputs.root:
            assert specs is not None
            create_result_dir(self.path, specs, result_names(self.func, len(specs)))
        outputs.barrier(f"creating the result files in {self.path}")
        if held is not None:
            assert specs is not None
            write_result_tiles(self.path, specs, held, outputs.plan, outputs.replica,
                               outputs.partition)
        outputs.barrier(f"writing the results into {self.path}")

    def _npz(self, outputs: Any) -> None:
        from stablehlo_py.io.params import result_names
        from stablehlo_py.io.results import write_results_npz
        from stablehlo_py.io.shards import result_specs, stream_order

        if not outputs.root:
            outputs.send_tiles()
            return
        specs = result_specs(outputs.results, outputs.plan)
        plan = outputs.plan

        def parts_of(k: int) -> Any:
            decision = None if plan is None else plan.results[k]
            return outputs.parts(k, stream_order(decision, outputs.num_partitions))

        write_results_npz(self.path, specs, parts_of, result_names(self.func, len(specs)))


__all__ = ["THREADS_ONLY", "WHO", "ResultWriter", "interpret_mpi"]
