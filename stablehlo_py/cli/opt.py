"""`stablehlo-opt`: parse, verify, run passes, print — with upstream's flags.

    stablehlo-opt [FILE|-] [-o OUT] [--split-input-file] [--mlir-print-op-generic]
                  [--mlir-print-debuginfo] [--verify-diagnostics] [--allow-unregistered-dialect]
                  [--<pass>[=<options>] ...] [--pass-pipeline='builtin.module(<pass>, ...)']

Passes run in command-line order (e.g. `--stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.0.0'`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from stablehlo_py.cli import options
from stablehlo_py.cli.common import (
    SPLIT_MARKER,
    DiagnosticVerifier,
    TextOptions,
    decode_text,
    is_binary,
    normalize_argv,
    read_input_bytes,
    split_chunks,
    tool_main,
    write_output,
)
from stablehlo_py.errors import StableHLOError

if TYPE_CHECKING:
    from xdsl.ir import Operation

_SHORT = {"-o", "-h"}


def _pass_pipeline(extra: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    from stablehlo_py.passes import PASSES, parse_pass_options
    from stablehlo_py.passes.drivers.pipeline import parse_pass_pipeline
    from stablehlo_py.passes.registry import PIPELINES

    pipeline: list[tuple[str, dict[str, str]]] = []
    for a in extra:
        if not a.startswith("--"):
            raise StableHLOError(f"unexpected argument '{a}' (one input file is accepted)")
        name, _, opts = a[2:].partition("=")
        if name == "pass-pipeline":
            pipeline.extend(parse_pass_pipeline(opts))
            continue
        if name in PIPELINES and not opts:
            pipeline.extend((n, dict(o)) for n, o in PIPELINES[name])
            continue
        if name not in PASSES:
            raise StableHLOError(
                f"unknown option or pass '--{name}'; passes: {', '.join('--' + p for p in sorted(PASSES))}; "
                "see stablehlo-opt --help"
            )
        if name == "view-op-graph" and opts.strip() in ("svg", "dot"):
            pipeline.append((name, {"format": opts.strip()}))  # `--view-op-graph=svg` (decision 9)
            continue
        pipeline.append((name, parse_pass_options(opts)))
    return pipeline


def process_text(
    text: str,
    name: str,
    pipeline: list[tuple[str, dict[str, str]]],
    options: TextOptions,
    line_offset: int = 0,
) -> str:
    """Parse, verify, run the passes and print one chunk."""
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes import run_pipeline

    module = parse(text, name, line_offset, options.allow_unregistered)
    verify(module)
    return options.print(run_pipeline(module, pipeline))


class _OptCommand(click.Command):
    """stablehlo-opt's command: `--help` ends with the passes and their options (from the pass
    table, as MLIR's `--help` lists them)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from stablehlo_py.passes.registry import help_text

        formatter.write("\nCompiler passes to run (in command-line order, `--<pass>=<options>`):\n")
        formatter.write(help_text())


@click.command(
    cls=_OptCommand,
    context_settings={
        "ignore_unknown_options": True,
        "allow_extra_args": True,
        "help_option_names": ["--help", "-h"],
    },
)
@options.INPUT_FILE
@options.OUTPUT
@options.SPLIT_INPUT_FILE
@options.PRINT_GENERIC
@options.PRINT_DEBUGINFO
@click.option("--verify-diagnostics", is_flag=True, help="Check `expected-error` annotations.")
@click.option(
    "--allow-unregistered-dialect",
    is_flag=True,
    help="Accept generic-form ops of unknown dialects (kept and printed back as written).",
)
@options.PRINT_LOCAL_SCOPE
@click.option(
    "--serialize", is_flag=True, help="Write the result as a portable artifact (needs --target)."
)
@click.option("--deserialize", is_flag=True, help="The input is a portable artifact.")
@click.option(
    "--format",
    "format_",
    default=None,
    help="--serialize's format: msgpack (default, this toolkit's) or mlir (upstream's MLIR "
    "bytecode, what XLA, IREE and upstream's tools read); the default can be set with "
    "$STABLEHLO_PY_ARTIFACT_FORMAT.",
)
@options.TARGET
@options.STRIP_DEBUGINFO
@click.option(
    "--emit-bytecode",
    is_flag=True,
    help="Write MLIR bytecode, as upstream's stablehlo-opt -emit-bytecode.",
)
@click.pass_context
def cli(
    ctx: click.Context,
    input_file: str,
    output: str | None,
    split_input_file: bool,
    generic: bool,
    debuginfo: bool,
    verify_diagnostics: bool,
    allow_unregistered_dialect: bool,
    local_scope: bool,
    serialize: bool = False,
    deserialize: bool = False,
    format_: str | None = None,
    target: str | None = None,
    strip_debuginfo: bool = False,
    emit_bytecode: bool = False,
) -> int:
    """Parse, verify, transform and print StableHLO programs."""
    pipeline = _pass_pipeline(list(ctx.meta.get("pass_args", ())) + list(ctx.args))
    options = TextOptions(allow_unregistered_dialect, generic, debuginfo, not local_scope)
    if format_ is not None and not serialize:
        raise StableHLOError("--format applies to --serialize only")
    if serialize or deserialize:
        from stablehlo_py.cli.artifacts import run_opt_artifact

        return run_opt_artifact(
            input_file,
            output,
            pipeline,
            options,
            serialize=serialize,
            deserialize=deserialize,
            target=target,
            strip_debuginfo=strip_debuginfo,
            format_=format_,
        )
    data, name = read_input_bytes(input_file)
    if _is_binary(data) or emit_bytecode:
        return _run_binary(data, name, output, pipeline, emit_bytecode, strip_debuginfo, options)
    text = decode_text(data, name)
    outputs: list[str] = []
    problems: list[str] = []
    for offset, chunk in split_chunks(text, split_input_file):
        args = (chunk, name, pipeline, options, offset)
        if verify_diagnostics:
            verifier = DiagnosticVerifier(chunk, name, offset)
            try:
                outputs.append(process_text(*args))
            except StableHLOError as e:
                for earlier in getattr(e, "preceding", ()):  # diagnostics emitted before `e`
                    verifier.process_error(earlier)
                verifier.process_error(e)
                for extra in getattr(e, "following", ()):  # emitted right after `e` upstream
                    verifier.process_error(extra)
            problems.extend(verifier.finish())
        else:
            try:
                outputs.append(process_text(*args))
            except StableHLOError as e:
                if not split_input_file:
                    raise
                print(str(e), file=sys.stderr)
                problems.append(str(e))
    write_output(output, (SPLIT_MARKER + "\n").join(outputs))
    if problems:
        if verify_diagnostics:
            for p in problems:
                print(p, file=sys.stderr)
        return 1
    return 0


_is_binary = is_binary


def is_portable_artifact_producer(producer: str) -> bool:
    """MLIR bytecode whose producer is `StableHLO_vX.Y.Z` is a VHLO portable artifact (upstream's
    getPortableArtifactVersion looks for that prefix).  Bytecode with any other producer
    (`MLIR23.0.0git`, ...) is told apart by its dialects: `read_binary`."""
    return producer.startswith("StableHLO_v")


def read_binary(data: bytes, name: str) -> Operation:
    """The module of binary input, as upstream's `stablehlo-opt` parses bytecode: MLIR bytecode of
    the stablehlo/chlo/func dialects as it is; a portable artifact (MLIR bytecode holding VHLO,
    whatever its producer, or msgpack, or the module of JAX's `Exported`) as the VHLO module it
    holds, at the version it was written for (`--deserialize`, or the passes
    `--vhlo-to-version=target=current --vhlo-legalize-to-stablehlo`, convert it to StableHLO);
    legacy IR bytecode."""
    from stablehlo_py.ir.bytecode import is_ir_bytecode, read_ir_bytecode
    from stablehlo_py.serialization.mlirbc import MAGIC as MLIR_MAGIC

    if is_ir_bytecode(data):
        return read_ir_bytecode(data, name)
    if data.startswith(MLIR_MAGIC):
        from stablehlo_py.serialization.format import artifact_error
        from stablehlo_py.serialization.mlir_artifact import holds_vhlo
        from stablehlo_py.serialization.mlirbc import BytecodeError, read_dialect
        from stablehlo_py.serialization.mlirbc.reader import read_producer

        try:
            _, producer = read_producer(data)
        except BytecodeError as e:
            raise artifact_error(f"invalid MLIR bytecode: {e.message}", e.offset, name) from None
        if not is_portable_artifact_producer(producer) and not holds_vhlo(data):
            return read_dialect(data, name, verify=False)[2]  # the caller verifies
    from stablehlo_py.serialization import read_vhlo_artifact

    return read_vhlo_artifact(data, name, check_version=False)[1]


def _run_binary(
    data: bytes,
    name: str,
    output: str | None,
    pipeline: list[tuple[str, dict[str, str]]],
    emit_bytecode: bool,
    strip_debuginfo: bool,
    options: TextOptions,
) -> int:
    """Binary input (see `read_binary`) and/or --emit-bytecode (MLIR bytecode)."""
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes import run_pipeline

    if _is_binary(data):
        module = read_binary(data, name)
    else:
        module = parse(decode_text(data, name), name, allow_unregistered=options.allow_unregistered)
    verify(module)
    module = run_pipeline(module, pipeline)
    if emit_bytecode:
        from stablehlo_py.serialization.mlirbc import write_dialect

        write_output(output, write_dialect(module, strip_debuginfo=strip_debuginfo))
    else:
        write_output(output, options.print(module))
    return 0


_OWN_FLAGS = {flag for param in cli.params for flag in param.opts if flag.startswith("-")} | {
    "--help",
    "-h",
}
"""The tool's own flags (the command's options); any other `--flag` names a pass."""


def split_pass_args(args: list[str], own: set[str]) -> tuple[list[str], list[str]]:
    """Separate `--<pass>[=opts]` flags (kept in order) from the tool's own options."""
    tool, passes = [], []
    i = 0
    while i < len(args):
        a = args[i]
        flag = a.split("=", 1)[0]
        if a.startswith("--") and flag not in own:
            passes.append(a)
        else:
            tool.append(a)
            if flag in own and "=" not in a and flag in ("-o", "--target", "--format") and i + 1 < len(args):
                tool.append(args[i + 1])
                i += 1
        i += 1
    return tool, passes


def main(argv: Sequence[str] | None = None) -> int:
    args = normalize_argv(sys.argv[1:] if argv is None else argv, _SHORT)
    args, pass_args = split_pass_args(args, _OWN_FLAGS)

    return tool_main("stablehlo-opt", argv, args, lambda a: _run_with_passes(a, pass_args))


def _run_with_passes(args: list[str], pass_args: list[str]) -> int:
    ctx = cli.make_context("stablehlo-opt", list(args))
    ctx.meta["pass_args"] = pass_args
    with ctx:
        rc = cli.invoke(ctx)
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    main()
