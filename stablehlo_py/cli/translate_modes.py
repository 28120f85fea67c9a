"""The modes of stablehlo-translate (each `fn(options) -> exit code`)."""

from __future__ import annotations

import sys
from typing import Any

from stablehlo_py.cli.common import artifact_format, read_input, split_chunks, write_output
from stablehlo_py.errors import StableHLOError


def interpret(options: dict[str, Any]) -> int:
    """Run `main` (or, without one, every function taking no arguments) of each chunk; report every
    failing check with its function, op and values; exit 1 if any failed.  A partitioned program
    with per-device regions (JAX's shard_map), or a replicated one with collectives, runs once per
    (replica, partition) (custom_calls/spmd.py).
    `--trace`, `--trace-output`, `--compare-to` (translate_trace.py): exit 1 also when an op
    diverges from the reference."""
    if options.get("list_custom_calls"):
        return list_custom_calls(options)
    from contextlib import nullcontext

    from stablehlo_py.cli.translate_trace import TraceSession
    from stablehlo_py.interpreter.custom_calls.spmd import call_spmd, grid_shape_of
    from stablehlo_py.interpreter.evaluator import Evaluator
    from stablehlo_py.interpreter.printing import format_value
    from stablehlo_py.interpreter.shapes import bind_arguments

    failures = 0
    out: list[str] = []
    results_file = options.get("results_file") or None
    if results_file:  # a path that cannot take results is said before the run, not after it
        from stablehlo_py.io.results import check_output_path

        check_output_path(str(results_file))
    saved: list[tuple[list[Any], list[str | None]]] = []  # --output: (results, names) per run
    print_results = not results_file or bool(options.get("output"))
    tracing = TraceSession.from_options(options)
    for module, exported in _programs(options):
        ev = Evaluator(module, observer=tracing.observer if tracing else None)
        replicas, partitions = grid_shape_of(module)
        ev.probe_dir = options.get("probe_output_dir") or None  # type: ignore[attr-defined]
        ev.print_sink = out.append  # type: ignore[attr-defined]  # interpreter.print, in order
        if "main" in ev.funcs:
            entries = ["main"]
        elif options.get("args_") or options.get("inputs"):
            names = ", ".join(f"@{n}" for n in ev.funcs) or "none"
            raise StableHLOError(
                f"--args/--inputs give @main's arguments, and the program has no @main "
                f"(its functions: {names}); name the entry function main"
            )
        else:
            entries = [n for n, f in ev.funcs.items() if not f.function_type.inputs.data]
        for entry in entries:
            args = _main_arguments(options, ev.funcs[entry], exported) if entry == "main" else []
            if args:
                # concrete argument shapes bind the `?` dimensions of @main's parameter types
                args = bind_arguments(ev.funcs[entry], args, entry)
            with tracing.run(module, entry) if tracing else nullcontext():
                if replicas * partitions > 1:
                    results = call_spmd(ev, entry, args, partitions, replicas=replicas)
                else:
                    results = ev.call(entry, args)
            types = ev.funcs[entry].function_type.outputs.data
            if exported is not None and entry == "main":
                results = exported.module_results(results)
                types = types[len(types) - len(results) :]
            if results_file:
                _keep_for_output(saved, results, ev.funcs[entry], entry)
            dense = bool(options.get("interpreter_print_dense"))
            for r, t in zip(results, types) if print_results else ():
                out.append(format_value(r, t, dense=dense) + "\n")
            if tracing:
                tracing.after(module, entry, args, out)
        for f in ev.failures:
            print(str(f), file=sys.stderr)
        failures += len(ev.failures)
    if results_file and saved:
        from stablehlo_py.io.results import save_results

        save_results(str(results_file), *saved[0])
    if out:
        write_output(options.get("output"), "".join(out))  # type: ignore[arg-type]
    return 1 if failures or (tracing and tracing.diverged) else 0


def _main_arguments(options: dict[str, Any], func: Any, exported: Any) -> list[Any]:
    """@main's arguments from `--args` / `--inputs` (stablehlo_py.io.args).  A JAX export's are
    the exported function's (one per in_aval), mapped to @main's by its calling convention, as
    Exported.call (and run_exported) do; without either option it takes none."""
    from stablehlo_py.io.args import resolve_arguments
    from stablehlo_py.io.params import exported_params, function_params

    args_text = options.get("args_") or None
    inputs = options.get("inputs") or None
    if exported is None:
        return resolve_arguments(args_text, inputs, function_params(func)) or []
    from stablehlo_py.interpreter.evaluator import TOKEN

    given = resolve_arguments(
        "[]" if args_text is None and inputs is None else args_text,
        inputs,
        exported_params(exported, func),
        what="the exported function",
        note=exported.calling_convention_text(),
    )
    return exported.module_arguments(given, token=TOKEN)


def _keep_for_output(
    saved: list[tuple[list[Any], list[str | None]]], results: list[Any], func: Any, entry: str
) -> None:
    """Keep one function's results (and their jax.result_info names) for `--output`, which holds
    the results of one run."""
    from stablehlo_py.io.errors import OutputError
    from stablehlo_py.io.params import result_names

    if saved:
        raise OutputError(
            f"--output holds the results of one function, but @{entry} runs too (each "
            "`// -----` chunk runs its @main, a module without one every function taking no "
            "arguments): run them one at a time"
        )
    saved.append((list(results), result_names(func, len(results))))


def _programs(options: dict[str, Any]) -> Any:
    """The verified modules `--interpret` runs, each with the JAX `Exported` it came from (or
    None): each `// -----` chunk of text (with `--split-input-file`), or the program of binary
    input -- a portable artifact of either format or a JAX `Exported`, deserialized to StableHLO
    first, or MLIR bytecode of StableHLO.  A JAX export's `--args` are the exported function's
    (JAX's calling convention is applied, as `Exported.call` does)."""
    from stablehlo_py.cli.common import (
        decode_text,
        is_binary,
        read_input_bytes,
        read_stablehlo_binary,
    )
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    data, name = read_input_bytes(str(options["input_file"]))
    if data[:2] == b"\x1f\x8b":  # gzip'd text (or artifact): `model.mlir.gz`
        data = _gunzip(data, name)
    if is_binary(data):  # one program (no `// -----` to split on, as upstream's splitter finds)
        from stablehlo_py.serialization.jax_export import is_jax_exported, read_jax_exported

        exported = read_jax_exported(data, name) if is_jax_exported(data) else None
        module = read_stablehlo_binary(data, name)
        verify(module)  # type: ignore[arg-type]
        yield module, exported
        return
    text = decode_text(data, name)
    for offset, chunk in split_chunks(text, bool(options.get("split_input_file"))):
        if not chunk.strip():
            continue
        module = parse(chunk, name, offset)
        verify(module)
        yield module, None


def _gunzip(data: bytes, name: str) -> bytes:
    import gzip
    import zlib

    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as e:
        raise StableHLOError(f"{name}: cannot decompress it as gzip: {e}") from None


def list_custom_calls(options: dict[str, Any]) -> int:
    """`--interpret --list-custom-calls`: every registered custom-call target, the platforms whose
    programs call it, where it comes from, its plugin API version and the forms of the call it
    accepts; plugins that failed to load are reported (exit 1)."""
    from stablehlo_py.interpreter.custom_calls.context import API_VERSION
    from stablehlo_py.interpreter.custom_calls.entry_points import GROUP
    from stablehlo_py.interpreter.custom_calls.registry import REGISTRY

    targets = REGISTRY.targets()
    width = max((len(t.name) for t in targets), default=4) + 2
    source_width = max((len(t.source) for t in targets), default=6) + 2
    platform_width = max([len("PLATFORMS"), *(len(t.platform_text()) for t in targets)]) + 2
    header = f"# custom-call plugin API {API_VERSION[0]}.{API_VERSION[1]}; plugins: entry point group '{GROUP}'"
    lines = [
        header,
        f"{'TARGET':<{width}}{'PLATFORMS':<{platform_width}}{'SOURCE':<{source_width}}API",
    ]
    lines += [
        f"{t.name:<{width}}{t.platform_text():<{platform_width}}{t.source:<{source_width}}"
        f"{t.api_text()}" + (f"  [{'; '.join(t.forms)}]" if t.forms else "")
        for t in targets
    ]
    write_output(options.get("output"), "\n".join(lines) + "\n")  # type: ignore[arg-type]
    for _, message in REGISTRY.plugin_errors:
        print(message, file=sys.stderr)
    return 1 if REGISTRY.plugin_errors else 0


# ----------------------------------------------------------------------- portable artifacts
def serialize(options: dict[str, Any]) -> int:
    """`--serialize --target=X|current [--strip-debuginfo] [--expand]`: StableHLO text -> portable
    artifact (with --expand, the compatibility expander for X runs first)."""
    from stablehlo_py.serialization import serialize_portable_artifact_str

    target = options.get("target")
    if not target:
        raise StableHLOError(
            "--serialize needs --target=X.Y.Z (or --target=current): the version the consumer runs"
        )
    if options.get("split_input_file"):
        raise StableHLOError("--serialize writes one artifact; it does not take --split-input-file")
    text, name = read_input(str(options["input_file"]))
    data = serialize_portable_artifact_str(
        text,
        str(target),
        strip_debuginfo=bool(options.get("strip_debuginfo")),
        name=name,
        format=artifact_format(options.get("format_")),
        expand=bool(options.get("expand")),
    )
    write_output(options.get("output"), data)  # type: ignore[arg-type]
    return 0


def convert_artifact(options: dict[str, Any]) -> int:
    """`--convert-artifact --format=F [--target=X]`: an artifact (either format, or JAX's Exported)
    rewritten in format F for version X (default: the version it was written for)."""
    from stablehlo_py.cli.common import read_input_bytes
    from stablehlo_py.serialization import convert_artifact as convert

    fmt = options.get("format_")
    if not fmt:
        raise StableHLOError("--convert-artifact needs --format=msgpack or --format=mlir")
    data, name = read_input_bytes(str(options["input_file"]))
    target = options.get("target")
    out = convert(
        data,
        str(fmt),
        None if not target else str(target),
        name=name,
        strip_debuginfo=bool(options.get("strip_debuginfo")),
    )
    write_output(options.get("output"), out)  # type: ignore[arg-type]
    return 0


def deserialize(options: dict[str, Any]) -> int:
    """`--deserialize`: portable artifact -> StableHLO text at the current version."""
    from stablehlo_py.cli.common import read_input_bytes
    from stablehlo_py.ir import print_ir
    from stablehlo_py.serialization import deserialize_portable_artifact

    data, name = read_input_bytes(str(options["input_file"]))
    if options.get("print_stablehlo_version"):
        # upstream's stablehlo-translate --deserialize --print-stablehlo-version: a comment line on
        # stdout naming the artifact's version (from its header), then the program as usual
        from stablehlo_py.serialization import get_portable_artifact_version

        try:
            found = f"Reading portable artifact with StableHLO version: {get_portable_artifact_version(data)}"
        except StableHLOError:
            found = "Failed parsing StableHLO version from portable artifact"
        write_output(None, f"// {found}\n")
    module = deserialize_portable_artifact(data, name=name)
    text = print_ir(
        module,
        generic=bool(options.get("generic")),
        debuginfo=bool(options.get("debuginfo")),
        location_aliases=not options.get("local_scope"),
    )
    write_output(options.get("output"), text)  # type: ignore[arg-type]
    return 0


def check_compat(options: dict[str, Any]) -> int:
    """`--check-compat --consumer-version=X ARTIFACT`: can a consumer at X load the artifact?  Prints
    the answer and every blocker; exit 0 when compatible, 1 when not."""
    from stablehlo_py.cli.common import read_input_bytes
    from stablehlo_py.serialization import check_compat as check

    consumer = options.get("consumer_version")
    if not consumer:
        raise StableHLOError("--check-compat needs --consumer-version=X.Y.Z (or current)")
    data, name = read_input_bytes(str(options["input_file"]))
    report = check(data, str(consumer), name)
    write_output(options.get("output"), report.render() + "\n")  # type: ignore[arg-type]
    return 0 if report.compatible else 1
