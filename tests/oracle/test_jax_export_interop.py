"""jax.export interop (issue 9, "Done when"): what ``jax.export`` writes, we read.

For the shared JAX functions (``jax_functions.py``, >= 20): ``exported.serialize()`` (JAX's
flatbuffer) and ``exported.mlir_module_serialized`` (the VHLO portable artifact inside) are both
read by ``deserialize_portable_artifact``; the program interprets to XLA's results; converting the
artifact to msgpack and back to MLIR bytecode gives the same program (and, for the artifact we wrote
ourselves, the same bytes); and the CLI reads the flatbuffer as a subprocess.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")

from jax import export as jax_export
from stablehlo_py.interpreter import run
from stablehlo_py.serialization import (
    convert_artifact,
    deserialize_portable_artifact,
    get_portable_artifact_version,
)

from stablehlo_py.ir import print_ir
from tests.oracle.jax_functions import FUNCTIONS
from tests.oracle.test_interpreter_vs_xla import assert_matches_xla

# linalg lowers to LAPACK custom calls on CPU (issue 14); rng is covered bit-exactly elsewhere
NAMES = sorted(n for n in FUNCTIONS if n not in ("linalg",))


def _export(name: str):  # type: ignore[no-untyped-def]
    fn, args = FUNCTIONS[name]
    exp = jax_export.export(jax.jit(fn))(*args)
    return exp, args, jax.tree_util.tree_leaves(jax.jit(fn)(*args))


def test_enough_functions() -> None:
    assert len(NAMES) >= 20


@pytest.mark.parametrize("name", NAMES)
def test_jax_export_reads_interprets_and_converts(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    exp, args, expected = _export(name)
    blob = bytes(exp.serialize())
    module = deserialize_portable_artifact(blob, name=f"{name}.jax")
    inner = deserialize_portable_artifact(bytes(exp.mlir_module_serialized), name=name)
    assert print_ir(module) == print_ir(inner)
    assert get_portable_artifact_version(blob) == get_portable_artifact_version(
        bytes(exp.mlir_module_serialized)
    )
    if name != "rng":
        assert_matches_xla(run(module, *args), expected)
    # lossless both ways: JAX's artifact -> msgpack -> MLIR bytecode -> the same program
    packed = convert_artifact(blob, "msgpack")
    back = convert_artifact(packed, "mlir")
    assert print_ir(deserialize_portable_artifact(back)) == print_ir(module)
    assert convert_artifact(convert_artifact(back, "msgpack"), "mlir") == back
    # the CLI takes the flatbuffer as it is
    path = tmp_path / f"{name}.bin"
    path.write_bytes(blob)
    cli = subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.translate", "--deserialize", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == print_ir(module)
