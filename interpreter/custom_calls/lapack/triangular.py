"""Triangular solve (`jax.scipy.linalg.solve_triangular`, `cho_solve`, and the solves after `getrf` in
`inv`/`solve`/`expm`): `lapack_{s,d,c,z}trsm_ffi` (BLAS `?trsm`).

Operands: the triangular matrices `A`, the right-hand sides `B` (and, from JAX versions that pass it, a
scalar `alpha`; otherwise 1).  Result: `X` with `op(A) X = alpha B` (`side` 'L') or `X op(A) = alpha B`
(`side` 'R').  Attributes: `side` ('L'/'R'), `uplo` ('L'/'U'), `trans_x` ('N', 'T', 'C': `op(A)` is
`A`, `A^T`, `A^H`), `diag` ('U': unit diagonal, not read; 'N')."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    blas_routine,
    char_attr,
    operand,
    results,
    uplo_lower,
)

from stablehlo_py.errors import InterpreterError

_TRANS = {"N": 0, "T": 1, "C": 2}


def trsm(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    b = operand(ctx, 1, MATRIX, dtype)
    alpha = (
        operand(ctx, 2, VECTOR, dtype).reshape(()) if len(ctx.operands) > 2 else np.ones((), dtype)
    )
    left = char_attr(ctx, "side", "LR") == "L"
    lower = uplo_lower(ctx)
    trans = _TRANS[char_attr(ctx, "trans_x", "NTC")]
    unit = char_attr(ctx, "diag", "UN") == "U"
    m, n = b.shape[-2:]
    order = m if left else n
    if a.shape[:-2] != b.shape[:-2] or a.shape[-2:] != (order, order):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: with side '{'L' if left else 'R'}' the triangular operand must "
            f"be {order} x {order} matrices batched like the right-hand sides, got shapes {list(a.shape)} "
            f"and {list(b.shape)}"
        )
    fn = blas_routine("trsm", dtype)
    out = b.copy()
    for idx in batch_indices(b):
        out[idx] = fn(
            alpha,
            a[idx],
            b[idx],
            side=int(not left),
            lower=int(lower),
            trans_a=trans,
            diag=int(unit),
        )
    return results(ctx, [(out, MATRIX)])


TARGETS = bind_targets(trsm, "trsm")
