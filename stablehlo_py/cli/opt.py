"""`stablehlo-opt`: parse, verify, run passes, print — with upstream's flags.

    stablehlo-opt [FILE|-] [-o OUT] [--split-input-file] [--mlir-print-op-generic]
                  [--mlir-print-debuginfo] [--verify-diagnostics] [--<pass>[=<options>] ...]

Passes run in command-line order (e.g. `--stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.0.0'`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from stablehlo_py.cli.common import (
    SPLIT_MARKER,
    decode_text,
    read_input_bytes,
    check_diagnostic,
    expected_diagnostics,
    normalize_argv,
    read_input,
    run_guarded,
    split_chunks,
    unmet,
    write_output,
)
from stablehlo_py.errors import StableHLOError

_SHORT = {"-o", "-h"}


def _pass_pipeline(extra: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    from stablehlo_py.passes import PASSES, parse_pass_options

    pipeline: list[tuple[str, dict[str, str]]] = []
    for a in extra:
        if not a.startswith("--"):
            raise StableHLOError(f"unexpected argument '{a}' (one input file is accepted)")
        name, _, opts = a[2:].partition("=")
        if name not in PASSES:
            raise StableHLOError(
                f"unknown option or pass '--{name}'; passes: {', '.join('--' + p for p in sorted(PASSES))}; "
                "see stablehlo-opt --help"
            )
        pipeline.append((name, parse_pass_options(opts)))
    return pipeline


def process_text(
    text: str,
    name: str,
    pipeline: list[tuple[str, dict[str, str]]],
    generic: bool,
    debuginfo: bool,
    line_offset: int = 0,
) -> str:
    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes import run_pipeline

    module = parse(text, name, line_offset)
    verify(module)
    module = run_pipeline(module, pipeline)
    return print_ir(module, generic=generic, debuginfo=debuginfo)


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["--help", "-h"]}
)
@click.argument("input_file", default="-", required=False)
@click.option("-o", "output", default=None, help="Output file (default: stdout).")
@click.option("--split-input-file", is_flag=True, help="Process each `// -----` chunk separately.")
@click.option("--mlir-print-op-generic", "generic", is_flag=True, help="Print ops in generic form.")
@click.option("--mlir-print-debuginfo", "debuginfo", is_flag=True, help="Print locations.")
@click.option("--verify-diagnostics", is_flag=True, help="Check `expected-error` annotations.")
@click.option("--allow-unregistered-dialect", is_flag=True, hidden=True)
@click.option("--mlir-print-local-scope", is_flag=True, hidden=True, help="Accepted; locations are always inline.")
@click.option("--serialize", is_flag=True, help="Write the result as a portable artifact (needs --target).")
@click.option("--deserialize", is_flag=True, help="The input is a portable artifact.")
@click.option("--target", default=None, help="Target version for --serialize (X.Y.Z or 'current').")
@click.option("--strip-debuginfo", is_flag=True, help="Drop locations when serializing.")
@click.option("--emit-bytecode", is_flag=True, help="Write stablehlo-py IR bytecode (read back by stablehlo-opt).")
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
    mlir_print_local_scope: bool,
    serialize: bool = False,
    deserialize: bool = False,
    target: str | None = None,
    strip_debuginfo: bool = False,
    emit_bytecode: bool = False,
) -> int:
    """Parse, verify, transform and print StableHLO programs."""
    pipeline = _pass_pipeline(list(ctx.meta.get("pass_args", ())) + list(ctx.args))
    if serialize or deserialize:
        from stablehlo_py.cli.artifacts import run_opt_artifact

        return run_opt_artifact(
            input_file, output, pipeline, serialize=serialize, deserialize=deserialize, target=target,
            strip_debuginfo=strip_debuginfo, generic=generic, debuginfo=debuginfo,
        )
    data, name = read_input_bytes(input_file)
    if _is_binary(data) or emit_bytecode:
        return _run_binary(data, name, output, pipeline, emit_bytecode, generic, debuginfo)
    text = decode_text(data, name)
    outputs: list[str] = []
    problems: list[str] = []
    for offset, chunk in split_chunks(text, split_input_file):
        if verify_diagnostics:
            expected = expected_diagnostics(chunk, offset)
            try:
                outputs.append(process_text(chunk, name, pipeline, generic, debuginfo, offset))
            except StableHLOError as e:
                problems.extend(check_diagnostic(expected, e, name))
            problems.extend(unmet(expected, name))
        else:
            try:
                outputs.append(process_text(chunk, name, pipeline, generic, debuginfo, offset))
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


def _is_binary(data: bytes) -> bool:
    """IR bytecode or a portable artifact (recognised by their magic numbers)."""
    from stablehlo_py.ir.bytecode import is_ir_bytecode
    from stablehlo_py.serialization.format import MAGIC as ARTIFACT_MAGIC

    return is_ir_bytecode(data) or data.startswith(ARTIFACT_MAGIC)


def _run_binary(
    data: bytes,
    name: str,
    output: str | None,
    pipeline: list[tuple[str, dict[str, str]]],
    emit_bytecode: bool,
    generic: bool,
    debuginfo: bool,
) -> int:
    """Binary input (IR bytecode or a portable artifact, detected by its magic) and/or --emit-bytecode."""
    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.bytecode import is_ir_bytecode, read_ir_bytecode, write_ir_bytecode

    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes import run_pipeline

    if is_ir_bytecode(data):
        module = read_ir_bytecode(data, name)
    elif _is_binary(data):
        from stablehlo_py.serialization import deserialize_portable_artifact

        module = deserialize_portable_artifact(data, name=name)
    else:
        module = parse(decode_text(data, name), name)
    verify(module)
    module = run_pipeline(module, pipeline)
    if emit_bytecode:
        write_output(output, write_ir_bytecode(module))
    else:
        write_output(output, print_ir(module, generic=generic, debuginfo=debuginfo))
    return 0


_OWN_FLAGS = {
    "--split-input-file",
    "--mlir-print-op-generic",
    "--mlir-print-debuginfo",
    "--verify-diagnostics",
    "--allow-unregistered-dialect",
    "--mlir-print-local-scope",
    "--serialize",
    "--deserialize",
    "--target",
    "--strip-debuginfo",
    "--emit-bytecode",
    "--help",
    "-h",
    "-o",
}


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
            if flag in own and "=" not in a and flag in ("-o", "--target") and i + 1 < len(args):
                tool.append(args[i + 1])
                i += 1
        i += 1
    return tool, passes


def main(argv: Sequence[str] | None = None) -> int:
    args = normalize_argv(sys.argv[1:] if argv is None else argv, _SHORT)
    args, pass_args = split_pass_args(args, _OWN_FLAGS)

    def body() -> int:
        try:
            rc = _run_with_passes(args, pass_args)
        except click.exceptions.Exit as e:
            return e.exit_code
        except click.UsageError as e:
            raise StableHLOError(f"{e.format_message()}; see stablehlo-opt --help") from None
        return rc

    code = run_guarded(body)
    if argv is None:
        sys.exit(code)
    return code


def _run_with_passes(args: list[str], pass_args: list[str]) -> int:
    ctx = cli.make_context("stablehlo-opt", list(args))
    ctx.meta["pass_args"] = pass_args
    with ctx:
        rc = cli.invoke(ctx)
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    main()
