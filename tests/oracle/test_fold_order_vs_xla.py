"""Bit-for-bit against XLA CPU (`jax.jit`): reductions fold in XLA's order (semantics/folds.py) and
complex products use XLA's fused formula (semantics/fused.py).  Non-associative bodies (logaddexp,
float sums and products) expose any other order in the last bits.  Bodies are chosen so that only
the order can differ: f32 transcendental functions are excluded (XLA's own f32 approximations
differ from the interpreter's correctly rounded ones), f16 logaddexp rounds the same in both.
Padding and base dilation are exercised with the body's identity as init value only: XLA CPU skips
those positions, the spec (and upstream's interpreter) folds the init value in for each of them,
which gives the same result exactly when the init value is an identity of the body.

XLA's complex product contracts one of its two imaginary-part products into an FMA, and which one
can change inside a fusion (x * reverse(x) fuses the other); the interpreter's is the one XLA uses
for a plain multiply and in reductions."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse

R = np.random.default_rng(2024)


def _normal(shape, dtype):
    x = R.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * R.normal(size=shape)
    return (x * 0.9).astype(dtype)


CASES = {
    "cumprod_c64_axis0": (lambda x: jnp.cumprod(x, axis=0), (9, 7), np.complex64),
    "cumprod_c64_axis1": (lambda x: jnp.cumprod(x, axis=1), (5, 12), np.complex64),
    "prod_c64": (lambda x: jnp.prod(x, axis=0), (9, 7), np.complex64),
    "cumlogsumexp_f16": (lambda x: jax.lax.cumlogsumexp(x, axis=0), (12, 9), np.float16),
    "cumsum_f32": (lambda x: jnp.cumsum(x, axis=1), (6, 17), np.float32),
    "sum_f32_17": (lambda x: jnp.sum(x, axis=1), (40, 17), np.float32),
    "window_logaddexp_f16_strided_padded": (
        lambda x: jax.lax.reduce_window(x, np.float16(-np.inf), jnp.logaddexp, (2, 3), (1, 2), ((1, 0), (2, 1))),
        (7, 10), np.float16),
    # a*0.5 + b: exact multiply, one rounding per step, far from associative
    "window_halving_f32_dilated": (
        lambda x: jax.lax.reduce_window(x, 1.0, lambda a, b: a * 0.5 + b, (3, 2), (2, 1), "VALID",
                                        window_dilation=(2, 1)),
        (9, 6), np.float32),
    "window_logaddexp_f16_base_dilated": (
        lambda x: jax.lax.reduce_window(x, np.float16(-np.inf), jnp.logaddexp, (3, 2), (1, 1), ((1, 1), (0, 0)),
                                        base_dilation=(2, 1)),
        (6, 5), np.float16),
    "complex_product": (lambda x: x[:150] * x[150:], (300,), np.complex64),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bits_match_xla(name):
    fn, shape, dtype = CASES[name]
    x = _normal(shape, dtype)
    want = np.asarray(jax.jit(fn)(x))
    (got,) = run(parse(jax.jit(fn).lower(x).as_text()), x)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.atleast_1d(got).tobytes() == np.atleast_1d(want).tobytes(), np.argwhere(got != want)[:5]
