"""JAX functions shared by the oracle tests: ``JAX_FUNCTIONS`` is a list of ``(name, fn, args)``
covering every op family (``FUNCTIONS`` is the same as a dict ``name -> (fn, args)``).

Used by test_jax_text (lowered text round-trips), test_interpreter_vs_xla (numerics) and
test_jax_export (serialized ``jax.export.Exported``).  Import it after
``pytest.importorskip("jax")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

f32 = jnp.float32


def _mlp(x, w1, b1, w2):
    return jnp.maximum(x @ w1 + b1, 0.0) @ w2


def _conv(x, k):
    return jax.lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def _conv_dilated(x, k):
    return jax.lax.conv_general_dilated(
        x, k, (2, 1), [(1, 1), (0, 2)], lhs_dilation=(1, 2), rhs_dilation=(2, 1)
    )


def _while(x):
    return jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]


def _scan(x):
    return jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x)


def _sort(x):
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0)


def _gather(x, i):
    return x[i, 1:3]


def _scatter(x, i, u):
    return x.at[i].add(u)


def _reductions(x):
    return x.sum(0), x.max(1), jnp.argmax(x, axis=1), x.prod(), jnp.any(x > 0)


def _complex(z):
    return jnp.abs(z) + jnp.angle(z), jnp.exp(z) * jnp.conj(z)


def _bf16(x):
    return (x.astype(jnp.bfloat16) * 3).astype(f32)


def _f8(x):
    return x.astype(ml_dtypes.float8_e4m3fn).astype(f32) + x.astype(ml_dtypes.float8_e5m2).astype(
        f32
    )


def _softmax_ln(x):
    y = jax.nn.softmax(x, axis=-1)
    return (y - y.mean(-1, keepdims=True)) / jnp.sqrt(y.var(-1, keepdims=True) + 1e-5)


def _cond(p, x):
    return jax.lax.cond(p, lambda v: v * 2, lambda v: v - 1, x)


def _switch(i, x):
    return jax.lax.switch(i, [lambda v: v, lambda v: v * 2, lambda v: -v], x)


def _cumsum(x):
    return jnp.cumsum(x, axis=0), jax.lax.cummax(x, axis=1)


def _pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def _fft(x):
    return jnp.fft.fft(x), jnp.fft.rfft(x.real)


def _linalg(a, b):
    return jax.scipy.linalg.solve_triangular(a, b, lower=True), jnp.linalg.cholesky(
        a @ a.T + 4 * jnp.eye(4)
    )


def _int_ops(a, b):
    return (a << 2) ^ b, a // jnp.maximum(b, 1), jnp.clip(a, -3, 3), a.astype(jnp.uint8)


def _rng(key):
    return jax.random.uniform(key, (3, 4)), jax.random.normal(jax.random.fold_in(key, 1), (2,))


def _topk(x):
    return jax.lax.top_k(x, 3)


def _special(x):
    return jax.scipy.special.erf(x), jax.lax.lgamma(x + 2.0), jnp.arcsinh(x)


def _einsum(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


def _dynamic(x, i):
    return jax.lax.dynamic_slice(x, (i, 0), (2, 3)), jax.lax.dynamic_update_slice(
        x, jnp.ones((1, 3)), (i, 1)
    )


R = np.random.default_rng(0)
FUNCTIONS = {
    "mlp": (_mlp, (R.normal(size=(4, 8)).astype(np.float32), np.ones((8, 16), np.float32), np.ones(16, np.float32), np.ones((16, 2), np.float32))),
    "conv": (_conv, (np.ones((1, 8, 8, 3), np.float32), np.ones((3, 3, 3, 4), np.float32))),
    "conv_dilated": (_conv_dilated, (np.ones((1, 2, 9, 9), np.float32), np.ones((3, 2, 2, 3), np.float32))),
    "while": (_while, (np.float32(1.5),)),
    "scan": (_scan, (np.ones((5, 3), np.float32),)),
    "sort": (_sort, (R.normal(size=(4, 6)).astype(np.float32),)),
    "gather": (_gather, (np.ones((5, 4), np.float32), np.array([0, 2, 4], np.int32))),
    "scatter": (_scatter, (np.zeros((6, 3), np.float32), np.array([1, 3], np.int32), np.ones((2, 3), np.float32))),
    "reductions": (_reductions, (R.normal(size=(3, 5)).astype(np.float32),)),
    "complex": (_complex, ((R.normal(size=4) + 1j * R.normal(size=4)).astype(np.complex64),)),
    "bf16": (_bf16, (np.ones((2, 3), np.float32),)),
    "f8": (_f8, (np.ones((4,), np.float32),)),
    "softmax_layernorm": (_softmax_ln, (R.normal(size=(2, 8)).astype(np.float32),)),
    "cond": (_cond, (True, np.ones(3, np.float32))),
    "switch": (_switch, (np.int32(1), np.ones(3, np.float32))),
    "cumulative": (_cumsum, (R.normal(size=(4, 5)).astype(np.float32),)),
    "max_pool": (_pool, (np.ones((1, 4, 4, 2), np.float32),)),
    "fft": (_fft, ((R.normal(size=8) + 0j).astype(np.complex64),)),
    "linalg": (_linalg, (np.tril(np.ones((4, 4), np.float32)) + 3 * np.eye(4, dtype=np.float32), np.ones((4, 2), np.float32))),
    "int_ops": (_int_ops, (np.arange(6, dtype=np.int32), np.arange(6, dtype=np.int32)[::-1].copy())),
    "rng": (_rng, (np.array([0, 42], np.uint32),)),
    "top_k": (_topk, (R.normal(size=(2, 7)).astype(np.float32),)),
    "special": (_special, (R.uniform(size=5).astype(np.float32),)),
    "einsum": (_einsum, (np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32))),
    "dynamic_slice": (_dynamic, (np.ones((5, 4), np.float32), np.int32(2))),
}  # fmt: skip

JAX_FUNCTIONS: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    (name, fn, args) for name, (fn, args) in FUNCTIONS.items()
]
