"""User kernels in real artifacts (`oracle` extra): the Pallas programs JAX ships as export
back-compatibility test data inside its wheel
(`jax/_src/internal_test_util/export_back_compat_test_data/pallas/*.py`: Mosaic TPU, Mosaic GPU and
Triton kernels, serialized on the real devices) are read with our deserializer, run on their
recorded inputs, and refused with the one error naming the kind of kernel.  Also checked against
the installed jax: every fused-attention name its cuDNN lowering can write is refused, and a
`cudnn_fusion` exported for CUDA runs its body and agrees with XLA CPU."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from stablehlo_py.interpreter.custom_calls.kernels import kernel_kind
from stablehlo_py.interpreter.custom_calls.registry import REGISTRY
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from stablehlo_py.serialization import deserialize_portable_artifact

from stablehlo_py.errors import NotSupportedError

PALLAS = "jax._src.internal_test_util.export_back_compat_test_data.pallas"


def _pallas_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec(PALLAS)
    except ModuleNotFoundError:
        return None
    return None if spec is None or spec.origin is None else Path(spec.origin).parent


def _artifacts() -> list[Any]:
    """One param per data dict of every file in the installed wheel's pallas/ directory."""
    directory = _pallas_dir()
    if directory is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{PALLAS} is not installed"))]
    params = []
    for path in sorted(directory.glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = importlib.import_module(f"{PALLAS}.{path.stem}")
        for var, value in vars(module).items():
            if isinstance(value, dict) and "mlir_module_serialized" in value:
                params.append(pytest.param(value, id=f"{path.stem}.{var}"))
    return params


def _zeros(ctx: Any) -> list[np.ndarray]:
    """A buffer of each result type (a stand-in for `AllocateBuffer`: its contents are
    unspecified)."""
    return [np.zeros(t.get_shape(), dtype_of_type(t)) for t in ctx.result_types]


def test_the_wheel_ships_pallas_artifacts() -> None:
    directory = _pallas_dir()
    if directory is None:
        pytest.skip(f"{PALLAS} is not installed with jax {jax.__version__}")
    assert len(_artifacts()) >= 5  # Mosaic TPU (3 files), Mosaic GPU, Triton


@pytest.mark.parametrize("data", _artifacts())
def test_a_pallas_artifact_is_refused_naming_its_kernel(data: dict[str, Any]) -> None:
    targets = list(data["custom_call_targets"])
    kernels = [t for t in targets if kernel_kind(t) is not None]
    assert len(kernels) == 1, targets
    (kernel,) = kernels
    kind = kernel_kind(kernel)
    assert data["platform"] in kind.platforms
    module = deserialize_portable_artifact(bytes(data["mlir_module_serialized"]))
    # non-kernel targets the interpreter has no target for yet (AllocateBuffer in the 2025-09-07
    # Mosaic GPU artifact) get a stand-in so that the run reaches the kernel
    stand_ins = {t: _zeros for t in targets if t != kernel and REGISTRY.get(t) is None}
    ev = Evaluator(module, custom_calls=stand_ins)
    with pytest.raises(NotSupportedError) as info:
        ev.call("main", [np.asarray(x) for x in data["inputs"]])
    message = str(info.value)
    assert f"custom_call @{kernel} is a {kind.kind} kernel: " in message
    assert "it cannot be interpreted" in message
    assert "Traceback" not in message and "\n" not in message


def test_every_fused_attention_name_jax_writes_is_refused() -> None:
    fa = pytest.importorskip("jax._src.cudnn.fused_attention_stablehlo")
    names = set(getattr(fa, "_custom_name_maps", {}).values())
    if not names:
        pytest.skip(f"jax {jax.__version__} keeps its fused-attention names elsewhere")
    for name in names:
        assert kernel_kind(name).kind == "cuDNN fused attention", name


def test_a_cudnn_fusion_exported_for_cuda_runs_its_body() -> None:
    fusion = pytest.importorskip("jax._src.cudnn.fusion")
    jnp = jax.numpy

    def f(x, y, z):
        return jnp.float32(jax.lax.batch_matmul(jnp.bfloat16(x), y)) + z

    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 8)).astype(np.float32)
    y = rng.normal(size=(2, 8, 4)).astype(jnp.bfloat16)
    z = rng.normal(size=(2, 4, 4)).astype(np.float32)
    exp = jax.export.export(
        jax.jit(fusion.cudnn_fusion(f)),
        platforms=["cuda"],
        disabled_checks=[jax.export.DisabledSafetyCheck.custom_call("__cudnn$fusion")],
    )(x, y, z)
    assert "stablehlo.custom_call @__cudnn$fusion" in exp.mlir_module()
    module = deserialize_portable_artifact(bytes(exp.mlir_module_serialized))
    (ours,) = Evaluator(module).call("main", [x, y, z])
    want = np.asarray(jax.jit(f)(x, y, z))
    # the dot's result is bfloat16: XLA CPU may accumulate in another order or precision (jaxlib
    # 0.10 differs from us by up to one bfloat16 rounding of the largest value, 0.12 not at all)
    eps = float(jnp.finfo(jnp.bfloat16).eps)
    np.testing.assert_allclose(ours, want, rtol=eps, atol=eps * float(np.abs(want).max()))
