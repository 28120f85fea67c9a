"""`stablehlo-translate`: translations between StableHLO text, portable artifacts and results.

    stablehlo-translate --interpret [--split-input-file] [--args=...|--inputs=run.npz|DIR] [--output=out.npz|out.npy|DIR/] [FILE|-]
    stablehlo-translate --interpret [--trace[=1|2|3]] [--trace-output=T.npz]
                        [--compare-to=xla|iree|T.npz [--rtol=R] [--atol=A]]
                        [--node-data-output=DIR] FILE
    stablehlo-translate --interpret --list-custom-calls        # targets, where from, API version
    mpirun -n P stablehlo-translate --interpret --engine=mpi [--mpi-timeout=S] [--mpi-report] ...
    stablehlo-translate --serialize --target=X|current [--format=msgpack|mlir] [--strip-debuginfo] [--expand] [FILE|-] [-o OUT]
    stablehlo-translate --deserialize [FILE|-] [-o OUT]          # either format, or JAX's Exported
    stablehlo-translate --convert-artifact --format=mlir|msgpack [--target=X] ARTIFACT -o OUT
    stablehlo-translate --print-stablehlo-version

Input and output conventions are stablehlo-opt's (`-` is stdin/stdout, `-o` names the output).
Modes are registered in `MODES`; a mode whose implementation is not installed says so.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import click

from stablehlo_py.cli import options
from stablehlo_py.cli.common import normalize_argv, tool_main
from stablehlo_py.errors import NotSupportedError, StableHLOError

_SHORT = {"-o", "-h"}

# mode flag -> (module, function, what delivers it)
MODES: dict[str, tuple[str, str, str]] = {
    "interpret": ("stablehlo_py.cli.translate_modes", "interpret", "the reference interpreter"),
    "serialize": ("stablehlo_py.cli.translate_modes", "serialize", "portable artifacts"),
    "deserialize": ("stablehlo_py.cli.translate_modes", "deserialize", "portable artifacts"),
    "check_compat": ("stablehlo_py.cli.translate_modes", "check_compat", "compatibility tooling"),
    "convert_artifact": (
        "stablehlo_py.cli.translate_modes",
        "convert_artifact",
        "portable artifacts",
    ),
}


@click.command(context_settings={"help_option_names": ["--help", "-h"]})
@options.INPUT_FILE
@options.OUTPUT
@click.option("--interpret", is_flag=True, help="Run the program with the reference interpreter.")
@click.option("--serialize", is_flag=True, help="Write a portable artifact (needs --target).")
@click.option("--deserialize", is_flag=True, help="Read a portable artifact and print StableHLO.")
@click.option("--check-compat", is_flag=True, help="Can --consumer-version load this artifact?")
@click.option(
    "--convert-artifact",
    is_flag=True,
    help="Rewrite an artifact in --format (at --target, default: its own version).",
)
@click.option(
    "--format",
    "format_",
    default=None,
    help="Artifact format: msgpack (default, this toolkit's) or mlir (upstream's MLIR bytecode); "
    "--serialize's default can be set with $STABLEHLO_PY_ARTIFACT_FORMAT.",
)
@click.option(
    "--print-stablehlo-version", is_flag=True, help="Print the current StableHLO version."
)
@options.TARGET
@click.option("--consumer-version", default=None, help="Consumer version for --check-compat.")
@options.STRIP_DEBUGINFO
@click.option(
    "--expand",
    is_flag=True,
    help="With --serialize: first rewrite features newer than --target into older ops "
    "(the stablehlo-compatibility-expander pass).",
)
@options.SPLIT_INPUT_FILE
@click.option(
    "--args",
    "args_",
    default=None,
    help="Arguments for `main` when interpreting: `[dense<1> : tensor<2xi32>, ...]`; `@FILE` "
    "holding that text; `@x.npy,@y.npy` (one entry per argument, inline dense attributes may be "
    "mixed in; a probe file is typed by the index.csv beside it); `@run.npz` (as --inputs).",
)
@click.option(
    "--inputs",
    default=None,
    help="Arguments for `main` from an .npz archive (members arg0, arg1, ... or the arguments' "
    "names: JAX's loc(\"x\") / jax.arg_info, an export's argument paths) or a probe directory "
    "(--probe-output-dir's; probe ids name the arguments).  A file's dtype must be the "
    "argument's element type (bf16/f8/i4 may be stored as their bits, as probes are).",
)
@click.option(
    "--output",
    "results_file",
    default=None,
    help="Write the results to FILE.npz (result0, result1, ..., result_types, and result_info "
    "with JAX's result names), FILE.npy (a single result) or a directory DIR/ (a path ending in "
    "'/', or an existing directory; created if missing: result0.npy, result1.npy, ..., "
    "result_types.npy, result_info.npy; files of an earlier run are replaced) instead of "
    "printing them (-o still prints them as text).",
)
@click.option(
    "--trace",
    type=click.IntRange(1, 3),
    default=None,
    metavar="[=LEVEL]",
    help="Report every op's results on stderr (with -o: in that file, after the results): "
    "--trace or --trace=1 one line per op (shape, element type, min/max/mean, NaN/Inf counts, "
    "JAX name stack key, source line), =2 adds values of up to 16 elements, =3 all values.  "
    "Shows progress on long runs (a tqdm bar on a terminal when tqdm is installed).",
)
@click.option(
    "--trace-output",
    default=None,
    metavar="T.npz",
    help="Write every op's values and summaries to T.npz, keyed by op key (name stack, op name, "
    "ordinal), also when the run fails; --compare-to=T.npz reads it back.",
)
@click.option(
    "--compare-to",
    default=None,
    metavar="xla|iree|T.npz",
    help="Run the program on XLA or IREE too (every top-level value returned: ops inside "
    "regions and called functions are compared at the op holding or calling them; more "
    "results may change the backend's fusion), or read a trace file of this program or the "
    "program it was derived from (ops matched by place and op key); report the first op whose "
    "results differ while its operands agree, with its source line, name stack, max abs/rel "
    "difference and operands, on stderr (with -o: in that file, after the results); exit 1 when "
    "any op differs.  XLA needs the oracle extra, IREE the iree extra.",
)
@click.option(
    "--node-data-output",
    default=None,
    metavar="DIR",
    help="Write Model Explorer node data of the run to DIR (stablehlo-viz FILE "
    "--node_data_paths=DIR shows it on the graph): each op's NaN and Inf elements (nan_count.json, "
    "inf_count.json) and time in microseconds (time_us.json), and with --compare-to its max abs "
    "and rel difference and elements beyond the tolerance (max_abs_diff.json, max_rel_diff.json, "
    "mismatched.json).",
)
@click.option(
    "--rtol",
    type=click.FloatRange(min=0),
    default=None,
    help="Relative tolerance of --compare-to for floats (default per type: f32 2e-4, f16/bf16 "
    "2e-2, f64 1e-10); integers and booleans compare exactly.",
)
@click.option(
    "--atol",
    type=click.FloatRange(min=0),
    default=None,
    help="Absolute tolerance of --compare-to for floats (default per type: f32 2e-5, f16/bf16 "
    "2e-2, f64 1e-12).",
)
@click.option("--probe-output-dir", default=None, help="Directory for interpreter.probe's tensors.")
@click.option(
    "--engine",
    type=click.Choice(["threads", "mpi"]),
    default="threads",
    help="How a partitioned program runs: threads (default: one thread per (replica, partition) "
    "in this process) or mpi (one MPI rank each: mpirun -n P stablehlo-translate --interpret "
    "--engine=mpi ...; needs the mpi extra and an MPI).",
)
@click.option(
    "--mpi-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="S",
    help="With --engine=mpi: seconds a rank waits for the others at a collective or the end "
    "(default 600).",
)
@click.option(
    "--mpi-report",
    is_flag=True,
    help="With --engine=mpi: say on stderr which arguments and results each rank holds as "
    "tiles or whole (and why), and each rank's peak RSS.",
)
@click.option("--interpreter-print-dense", is_flag=True, help="Print results as dense attributes.")
@click.option(
    "--list-custom-calls",
    is_flag=True,
    help="List the interpreter's custom-call targets (built-in, plugins, registered), where each "
    "comes from and its plugin API version, instead of running a program.",
)
@options.PRINT_GENERIC
@options.PRINT_DEBUGINFO
@options.PRINT_LOCAL_SCOPE
@click.option("--allow-unregistered-dialect", is_flag=True, hidden=True)
def cli(**options: object) -> int:
    """Translate StableHLO programs: interpret, serialize, deserialize."""
    if options.get("print_stablehlo_version") and not options.get("deserialize"):
        from stablehlo_py.version import get_current_version

        click.echo(str(get_current_version()))
        return 0
    chosen = [m for m in MODES if options.get(m)]
    if options.get("list_custom_calls") and not chosen:
        chosen = ["interpret"]  # the listing belongs to the interpreter; alone it needs no flag
    if len(chosen) != 1:
        raise StableHLOError(
            "choose exactly one of --interpret, --serialize, --deserialize, --check-compat, "
            "--convert-artifact (or --print-stablehlo-version)"
        )
    mode = chosen[0]
    module_name, fn_name, feature = MODES[mode]
    mpi = options.get("engine") == "mpi" and not options.get("list_custom_calls")
    if mpi and mode == "interpret":
        module_name, fn_name = "stablehlo_py.cli.translate_mpi", "interpret_mpi"
    elif mpi:
        raise StableHLOError(
            f"--engine=mpi runs programs: it goes with --interpret, not --{mode.replace('_', '-')} "
            "(serializing and converting need no MPI: run them without mpirun)"
        )
    elif options.get("mpi_timeout") is not None or options.get("mpi_report"):
        raise StableHLOError("--mpi-timeout and --mpi-report go with --interpret --engine=mpi")
    try:
        fn = getattr(importlib.import_module(module_name), fn_name)
    except (ImportError, AttributeError):
        raise NotSupportedError(
            f"--{mode.replace('_', '-')} needs {feature}, which is not implemented yet"
        ) from None
    return int(fn(options))


def main(argv: Sequence[str] | None = None) -> int:
    args = normalize_argv(sys.argv[1:] if argv is None else argv, _SHORT)
    args = ["--trace=1" if a == "--trace" else a for a in args]  # the level is optional

    return tool_main(
        "stablehlo-translate", argv, args,
        lambda a: cli.main(args=a, prog_name="stablehlo-translate", standalone_mode=False),
    )


if __name__ == "__main__":
    main()
