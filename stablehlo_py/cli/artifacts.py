"""Portable artifacts in stablehlo-opt: `--deserialize` reads one as the input, `--serialize
--target=X [--format=msgpack|mlir] [--strip-debuginfo]` writes the pipeline's result as one
(binary, to `-o FILE` or stdout).

    stablehlo-opt prog.mlir --serialize --target=1.0.0 --format=msgpack -o prog.shlo
    stablehlo-opt prog.shlo --deserialize --inline
    stablehlo-opt prog.mlir --stablehlo-legalize-to-vhlo --vhlo-to-version=target=1.0.0 --serialize --target=1.0.0

The pipeline's result may be StableHLO (it is legalized to VHLO at the target) or VHLO already at the
target (written as it is).  The format is `--format`'s, else $STABLEHLO_PY_ARTIFACT_FORMAT, else
msgpack (`mlir`: upstream's MLIR bytecode).  Without `--deserialize` an artifact input is the VHLO module it holds, as upstream's
`stablehlo-opt` parses it (opt.read_binary).
"""

from __future__ import annotations

from xdsl.ir import Operation

from stablehlo_py.cli.common import (
    TextOptions,
    artifact_format,
    read_input,
    read_input_bytes,
    write_output,
)
from stablehlo_py.errors import StableHLOError


def _is_vhlo(module: Operation) -> bool:
    return any(op.name.startswith("vhlo.") for op in module.walk())


def run_opt_artifact(
    input_file: str,
    output: str | None,
    pipeline: list[tuple[str, dict[str, str]]],
    text: TextOptions,
    *,
    serialize: bool,
    deserialize: bool,
    target: str | None,
    strip_debuginfo: bool,
    format_: str | None = None,
) -> int:
    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes import run_pipeline
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
        write_artifact,
    )
    from stablehlo_py.version import validate_target

    if serialize and not target:
        raise StableHLOError("--serialize needs --target=X.Y.Z (or --target=current)")
    if deserialize:
        data, name = read_input_bytes(input_file)
        module = deserialize_portable_artifact(data, name=name)
    else:
        text, name = read_input(input_file)
        module = parse(text, name)
        verify(module)
    module = run_pipeline(module, pipeline)
    if not serialize:
        write_output(output, print_ir(module, generic=text.generic, debuginfo=text.debuginfo))
        return 0
    version = validate_target(str(target))
    fmt = artifact_format(format_)  # --format, else $STABLEHLO_PY_ARTIFACT_FORMAT, else msgpack
    if _is_vhlo(module) and fmt == "mlir":
        from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

        data = write_mlir_artifact(module, version, strip_debuginfo)
    elif _is_vhlo(module):
        data = write_artifact(module, version, strip_debuginfo=strip_debuginfo)  # type: ignore[arg-type]
    else:
        data = serialize_portable_artifact(
            module, version, strip_debuginfo=strip_debuginfo, format=fmt
        )
    write_output(output, data)
    return 0
