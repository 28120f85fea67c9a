"""Differential tests (`oracle` extra): our interpreter against XLA CPU (`jax.jit`) on random inputs,
for JAX functions covering every op family, within dtype-appropriate tolerances."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

from stablehlo_py.interpreter import run  # noqa: E402
from stablehlo_py.ir import parse  # noqa: E402
from tests.oracle.test_jax_text import FUNCTIONS as TEXT_FUNCTIONS  # noqa: E402

R = np.random.default_rng(1234)


def _f(*shape):
    return R.normal(size=shape).astype(np.float32)


def _i(*shape, lo=-50, hi=50):
    return R.integers(lo, hi, size=shape).astype(np.int32)


EXTRA = {
    "elementwise_float": (lambda x, y: (jnp.sin(x) * jnp.cos(y) + jnp.exp(-x * x) - jnp.log1p(jnp.abs(y))
                                        + jnp.tanh(x) / (1 + y * y) + jnp.sqrt(jnp.abs(x)) + jnp.arctan2(x, y)),
                          (_f(5, 6), _f(5, 6))),
    "elementwise_int": (lambda a, b: (a * b - a // jnp.where(b == 0, 1, b) + (a % jnp.where(b == 0, 1, b)),
                                      a & b, a | b, a ^ b, jnp.abs(a), jnp.sign(b), -a),
                        (_i(8), _i(8))),
    "shifts_popcnt": (lambda a: (a << 3, a >> 2, jax.lax.shift_right_logical(a, 1), jax.lax.population_count(a),
                                 jax.lax.clz(a)), (_i(10, lo=-1000, hi=1000),)),
    "compare_select": (lambda x, y: jnp.where(x > y, x, y * 2) + jnp.where(x == y, 1.0, 0.0), (_f(4, 4), _f(4, 4))),
    "convert": (lambda x: (x.astype(jnp.int32), x.astype(jnp.float16).astype(jnp.float32), x.astype(jnp.bfloat16),
                           (x > 0).astype(jnp.float32)), (_f(12) * 10,)),
    "bitcast": (lambda x: jax.lax.bitcast_convert_type(x, jnp.int32), (_f(6),)),
    "broadcast_reshape_transpose": (lambda x: (x.reshape(3, 4).T + jnp.arange(3.0)).reshape(-1), (_f(12),)),
    "concat_pad_slice_rev": (lambda x, y: jnp.pad(jnp.concatenate([x, y], 0)[1:5, ::2], ((1, 2), (0, 1)))[::-1],
                             (_f(3, 4), _f(3, 4))),
    "iota_dynamic_update": (lambda x, i: jax.lax.dynamic_update_slice(x, jnp.arange(6.0).reshape(2, 3), (i, 1)),
                            (_f(5, 5), np.int32(2))),
    "argmin_argmax": (lambda x: (jnp.argmin(x, axis=0), jnp.argmax(x, axis=1)), (_f(5, 7),)),
    "mean_var_norm": (lambda x: jnp.linalg.norm(x, axis=1) + x.var(axis=1), (_f(6, 9),)),
    "batched_matmul": (lambda a, b: a @ b, (_f(3, 4, 5), _f(3, 5, 2))),
    "clamp_round": (lambda x: (jnp.clip(x, -0.5, 0.5), jnp.round(x * 3), jnp.floor(x), jnp.ceil(x)), (_f(9),)),
    "cumprod_logcumsumexp": (lambda x: (jnp.cumprod(x, axis=0), jax.lax.cumlogsumexp(x, axis=1)), (_f(4, 5) * 0.5,)),
    "gather_take_along": (lambda x, i: jnp.take_along_axis(x, i, axis=1), (_f(4, 6), _i(4, 3, lo=0, hi=6))),
    "scatter_max": (lambda x, i, u: x.at[i].max(u), (_f(8), _i(5, lo=0, hi=8), _f(5))),
    "sort_multi": (lambda k, v: jax.lax.sort((k, v), num_keys=1), (_f(3, 7), _f(3, 7))),
    "fori_loop": (lambda x: jax.lax.fori_loop(0, 7, lambda i, c: c * 0.9 + i, x), (_f(4),)),
    "avg_pool": (lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0,
                 (_f(1, 6, 6, 2),)),
    "conv_grouped": (lambda x, k: jax.lax.conv_general_dilated(x, k, (1, 1), "VALID", feature_group_count=2),
                     (_f(1, 4, 7, 7), _f(6, 2, 3, 3))),
    "ifft_irfft": (lambda x: (jnp.fft.ifft(x), jnp.fft.irfft(x, n=14)), ((_f(8) + 1j * _f(8)).astype(np.complex64),)),
    "complex_arith": (lambda z, w: (z * w, z / w, jnp.sqrt(z), jnp.log(w)),
                      ((_f(5) + 1j * _f(5)).astype(np.complex64), (_f(5) + 1j * _f(5) + 3).astype(np.complex64))),
    "map_vmap": (lambda x: jax.vmap(lambda r: jnp.dot(r, r))(x), (_f(4, 3),)),
}

# "rng" is checked bit-exactly below; "linalg" lowers to LAPACK custom calls (lapack_strsm_ffi,
# lapack_spotrf_ffi) on CPU, not to triangular_solve/cholesky (those are covered by the testdata suite).
FUNCTIONS = {**{k: v for k, v in TEXT_FUNCTIONS.items() if k not in ("rng", "linalg")}, **EXTRA}


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    if dtype in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        return 2e-2, 2e-2
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating) or dtype.kind == "V":
        return 2e-4, 2e-5
    return 0.0, 0.0


def assert_matches_xla(ours: Sequence[Any], expected: Sequence[Any]) -> None:
    """Our results equal XLA's: as many, each of the same shape and dtype, equal (integers, booleans)
    or close within the dtype's tolerance (floats and complex, compared widened)."""
    assert len(ours) == len(expected)
    for got, want in zip(ours, expected):
        want, got = np.asarray(want), np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype, (
            got.shape,
            got.dtype,
            want.shape,
            want.dtype,
        )
        rtol, atol = _tolerance(want.dtype)
        if rtol == 0.0:
            np.testing.assert_array_equal(got, want)
        else:
            wide = np.complex128 if np.iscomplexobj(want) else np.float64
            np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_interpreter_matches_xla(name: str) -> None:
    fn, args = FUNCTIONS[name]
    text = jax.jit(fn).lower(*args).as_text()
    expected = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    assert_matches_xla(run(parse(text), *args), expected)


def test_rng_bit_generator_matches_xla() -> None:
    key = jax.random.key(42, impl="threefry2x32")
    fn = jax.jit(lambda k: jax.random.bits(k, (4, 5), dtype=jnp.uint32))
    want = np.asarray(fn(key))
    raw = jax.random.key_data(key)
    text = jax.jit(lambda k: jax.random.bits(jax.random.wrap_key_data(k, impl="threefry2x32"), (4, 5),
                                              dtype=jnp.uint32)).lower(raw).as_text()
    (got,) = run(parse(text), np.asarray(raw))
    np.testing.assert_array_equal(got, want)
