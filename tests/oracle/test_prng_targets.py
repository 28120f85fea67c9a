"""JAX's GPU Threefry kernel (`cu_threefry2x32_ffi` / `hip_threefry2x32_ffi`) in programs exported
for CUDA and ROCm on this CPU-only machine (`jax_threefry_gpu_kernel_lowering`, which makes JAX call
the kernel): our interpretation equals XLA CPU running the CPU export -- the bits exactly, and the
numbers made from them within float tolerance where a transcendental is involved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
export = pytest.importorskip("jax.export")

from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse

FUNCTIONS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    # name -> (f(key data), exact)
    "bits": (lambda k: jax.random.bits(jax.random.wrap_key_data(k), (3, 5), jnp.uint32), True),
    "bits_u8": (lambda k: jax.random.bits(jax.random.wrap_key_data(k), (7,), jnp.uint8), True),
    "uniform": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (4, 4)), True),
    "randint": (lambda k: jax.random.randint(jax.random.wrap_key_data(k), (9,), 0, 100), True),
    "split": (lambda k: jax.random.key_data(jax.random.split(jax.random.wrap_key_data(k), 3)), True),
    "normal": (lambda k: jax.random.normal(jax.random.wrap_key_data(k), (6,)), False),
}


def _export(fn: Callable[[Any], Any], platform: str) -> Any:
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)
    with _config():
        return export.export(jax.jit(fn), platforms=[platform])(key)


class _config:
    """`jax_threefry_gpu_kernel_lowering` set for the block."""

    def __enter__(self) -> None:
        self.old = jax.config.jax_threefry_gpu_kernel_lowering
        jax.config.update("jax_threefry_gpu_kernel_lowering", True)

    def __exit__(self, *exc: object) -> None:
        jax.config.update("jax_threefry_gpu_kernel_lowering", self.old)


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gpu_export_equals_xla_cpu(name: str, platform: str) -> None:
    fn, exact = FUNCTIONS[name]
    exp = _export(fn, platform)
    text = exp.mlir_module()
    prefix = {"cuda": "cu", "rocm": "hip"}[platform]
    assert f"@{prefix}_threefry2x32_ffi" in text  # the kernel is what is checked
    cpu = export.export(jax.jit(fn), platforms=["cpu"])(jax.ShapeDtypeStruct((2,), jnp.uint32))
    for key in ([0, 42], [123456789, 987654321], [0xFFFFFFFF, 7]):
        k = np.array(key, np.uint32)
        (got,) = run(parse(text), k)
        want = np.asarray(cpu.call(k))
        assert got.dtype == want.dtype and got.shape == want.shape
        if exact:
            assert np.array_equal(got, want), (name, platform, key)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
