"""JAX 0.12 exports a real `cumsum` for CUDA and ROCm as a `chlo.scan` composite whose
`composite_attributes` hold builtin `array<i32: 1, 1>` segment sizes: XLA's serializer keeps that
attribute of another dialect inside the VHLO dictionary (allow-other-dialects, since the backend
serializes with Shardy).  We read such an artifact, run it as XLA CPU runs the CPU export, and
write the same bytes again when allowed to keep other dialects; without that, the writer refuses
it as upstream's does.  (jax 0.10 writes the associative scan in StableHLO: the same checks hold
for its artifacts, there is just no `chlo.scan` in them.)"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax_export = pytest.importorskip("jax.export")

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter import run
from stablehlo_py.serialization import (
    deserialize_portable_artifact,
    get_portable_artifact_version,
    serialize_portable_artifact,
)
from stablehlo_py.serialization.jax_export import read_jax_exported

from stablehlo_py.ir import print_ir

SHAPES = [(8,), (5, 3)]


def _exported(platform: str, shape: tuple[int, ...]) -> jax_export.Exported:
    f = jax.jit(lambda x: jnp.cumsum(x, axis=0))
    return jax_export.export(f, platforms=[platform])(jax.ShapeDtypeStruct(shape, np.float32))


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_gpu_cumsum_artifact(platform: str, shape: tuple[int, ...]) -> None:
    exp = _exported(platform, shape)
    artifact = read_jax_exported(exp.serialize()).mlir_module_serialized
    version = get_portable_artifact_version(artifact)
    module = deserialize_portable_artifact(artifact)
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    (got,) = run(module, x)
    want = np.asarray(_exported("cpu", shape).call(x))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    text = print_ir(module)
    if '"chlo.scan"' in exp.mlir_module():
        assert "operandSegmentSizes = array<i32: 1, 1>" in text
        with pytest.raises(StableHLOError, match="has no VHLO counterpart"):
            serialize_portable_artifact(module, version, format="mlir")
    again = serialize_portable_artifact(module, version, allow_other_dialects=True, format="mlir")
    assert again == exp.mlir_module_serialized
