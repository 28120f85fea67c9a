"""Float and complex contractions (`dot_general`, and the windows of `convolution`) as XLA's CPU
backend computes them: the accumulation type is f32 for floats narrower than 32 bits and the
result type otherwise (f32 in f32, f64 in f64, complex64 in complex64).

Small contractions (up to `SEQUENTIAL_MAX_K` terms per sum and `SEQUENTIAL_MAX_TERMS` products per
matrix) follow upstream's interpreter exactly: one rounded multiply and one rounded add per step, in
index order over the contracting dimensions (row-major over them, as listed), so small programs
match upstream bit for bit.  Anything larger is one BLAS call (`np.matmul`) in the accumulation
type, whose blocked sum order is implementation-defined, as XLA's is (on f32 they agree bit for
bit on the machines we measured; the exact schedule costs k passes over the result, 10-30x a
GEMM).  Integer and boolean contractions (exact, wrapping) use `semantics.linalg`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py import semantics as sem
from stablehlo_py.semantics import dtypes
from stablehlo_py.semantics import linalg as la

# Contractions up to this length, with at most SEQUENTIAL_MAX_TERMS products per matrix (m * n * k;
# a batch of small matrices stays in order: the in-order sum runs vectorized over the batch), follow
# upstream's exact schedule (one rounded multiply-add per step, in index order), so small programs
# match upstream bit for bit; the others use BLAS.
SEQUENTIAL_MAX_K = 32
SEQUENTIAL_MAX_TERMS = 1 << 14


def is_sequential(b: int, m: int, k: int, n: int) -> bool:
    """Whether a (b, m, k) x (b, k, n) contraction takes upstream's in-order schedule."""
    return k <= SEQUENTIAL_MAX_K and m * n * k <= SEQUENTIAL_MAX_TERMS

# Sequential sums with at most this many products in all (b * m * n * k) take their products in
# one numpy call (the adds stay one call per step, in order).
VECTOR_MAX_TERMS = 1 << 22


def work_dtype(out: np.dtype) -> np.dtype:
    """Accumulation type: f32 for real floats narrower than 32 bits (as XLA), else the result
    type."""
    if dtypes.is_float(out) and not dtypes.is_complex(out) and dtypes.bitwidth(out) < 32:
        return np.dtype(np.float32)
    return out


def is_inexact(out: np.dtype) -> bool:
    """Float or complex: sums whose order changes their rounding."""
    return bool(dtypes.is_float(out) or dtypes.is_complex(out))


def contract(
    lhs: Any,
    rhs: Any,
    lhs_batching_dimensions: Sequence[int] = (),
    rhs_batching_dimensions: Sequence[int] = (),
    lhs_contracting_dimensions: Sequence[int] = (),
    rhs_contracting_dimensions: Sequence[int] = (),
    result_element_type: Any = None,
) -> np.ndarray:
    """`dot_general` with XLA's accumulation type: small contractions in index order
    (`sequential_sum`, see `is_sequential`), the others by BLAS in the accumulation type, rounded
    once to a narrower result type.  Integer and boolean dots (exact, wrapping) use
    `semantics.linalg`."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out = np.dtype(result_element_type) if result_element_type is not None else lhs.dtype
    lb, rb = list(lhs_batching_dimensions), list(rhs_batching_dimensions)
    lc, rc = list(lhs_contracting_dimensions), list(rhs_contracting_dimensions)
    if not is_inexact(out):
        return la.dot_general(lhs, rhs, lb, rb, lc, rc, result_element_type=out)
    plan = ContractionPlan.of(lhs.shape, rhs.shape, lb, rb, lc, rc, out)
    with np.errstate(all="ignore"):
        return plan.run(as_dtype(lhs, out), as_dtype(rhs, out))


@dataclass(frozen=True)
class ContractionPlan:
    """A float/complex `dot_general` decided for operand shapes: the transposes to (b, m, k) and
    (b, k, n), the accumulation type and the result shape (`contract` makes one per call; the
    compiled `dot_general` one per op of static shapes)."""

    lhs_perm: tuple[int, ...]
    rhs_perm: tuple[int, ...]
    b: int
    m: int
    k: int
    n: int
    out: np.dtype
    work: np.dtype
    result_shape: tuple[int, ...]

    @staticmethod
    def of(
        lhs_shape: Sequence[int],
        rhs_shape: Sequence[int],
        lb: list[int],
        rb: list[int],
        lc: list[int],
        rc: list[int],
        out: np.dtype,
    ) -> ContractionPlan:
        lf = [d for d in range(len(lhs_shape)) if d not in lb and d not in lc]
        rf = [d for d in range(len(rhs_shape)) if d not in rb and d not in rc]
        batch = [int(lhs_shape[d]) for d in lb]
        lfs, rfs = [int(lhs_shape[d]) for d in lf], [int(rhs_shape[d]) for d in rf]
        b, m, n = (math.prod(x) for x in (batch, lfs, rfs))
        k = math.prod(int(lhs_shape[d]) for d in lc)
        return ContractionPlan(
            tuple(lb + lf + lc),
            tuple(rb + rc + rf),
            b,
            m,
            k,
            n,
            out,
            work_dtype(out),
            tuple(batch + lfs + rfs),
        )

    def run(self, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """The contraction of `lhs` and `rhs` (arrays of the result element type; the caller
        has numpy's floating-point warnings off)."""
        b, m, k, n, work = self.b, self.m, self.k, self.n, self.work
        lt, rt = lhs.transpose(self.lhs_perm), rhs.transpose(self.rhs_perm)
        if b == 1 and not is_sequential(b, m, k, n):
            # one GEMM on the operands as they are when they are matrices already (numpy passes
            # transposed and row-strided matrices to BLAS without a copy)
            res = np.matmul(as_matrix(lt, m, k, work=work), as_matrix(rt, k, n, work=work))
        else:
            lt = as_matrix(lt, b, m, k, work=work)
            rt = as_matrix(rt, b, k, n, work=work)
            res = accumulate(lt, rt, work)
        return round_to(res, self.out).reshape(self.result_shape)


def as_matrix(x: np.ndarray, *shape: int, work: np.dtype) -> np.ndarray:
    """`x` reshaped to `shape` in the accumulation type, with at most one copy."""
    if x.dtype != work:
        # widening a narrow float to f32 is exact; straight to C order, in one pass
        return x.astype(work, order="C").reshape(shape)
    return x.reshape(shape)


def accumulate(lt: np.ndarray, rt: np.ndarray, work: np.dtype) -> np.ndarray:
    """The (b, m, n) contraction of (b, m, k) `lt` and (b, k, n) `rt` (arrays of the accumulation
    type): `sequential_sum` when `is_sequential`, else one BLAS call."""
    b, m, k = lt.shape
    if is_sequential(b, m, k, rt.shape[2]):
        return sequential_sum(lt, rt, work)
    return np.matmul(lt, rt)


def round_to(res: np.ndarray, out: np.dtype) -> np.ndarray:
    """The accumulated `res` in the result type: `res` itself, or f32 sums rounded once to a
    narrower float by one cast (what `convert` does from f32; its general path goes through f64
    and costs 10-50x more)."""
    if res.dtype == out:
        return res
    if res.dtype == np.float32:
        return res.astype(out)
    return sem.convert(res, out)


def sequential_sum(lt: np.ndarray, rt: np.ndarray, work: np.dtype) -> np.ndarray:
    """`acc = 0; acc += lt[:, :, i, None] * rt[:, None, i, :]` for i in order, each product and
    each sum rounded in `work`: the (b, m, n) result.  Small enough sums of real floats take all
    products in one multiply (a plain product rounds the same in any of numpy's loops, whatever
    the order of its operands) and add them as the loop does; when a NaN comes out, the loop
    itself recomputes the sum (which of two NaN operands a multiply returns depends on the loop
    numpy picks)."""
    b, m, k = lt.shape
    n = rt.shape[2]
    with np.errstate(all="ignore"):
        if work.kind == "f" and b * m * n * k <= VECTOR_MAX_TERMS:
            products = np.empty((k, b, m, n), dtype=work)
            np.multiply(
                lt.transpose(2, 0, 1)[:, :, :, None],
                rt.transpose(1, 0, 2)[:, :, None, :],
                out=products,
            )
            acc = np.zeros((b, m, n), dtype=work)
            for i in range(k):
                acc += products[i]
            if not np.isnan(acc).any():
                return acc
        acc = np.zeros((b, m, n), dtype=work)
        term = np.empty_like(acc)
        for i in range(k):
            np.multiply(lt[:, :, i, None], rt[:, None, i, :], out=term)
            acc += term
        return acc


def as_dtype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`x` converted to `dtype` by the spec's `convert` (no copy when it has that type)."""
    return x if x.dtype == dtype else sem.convert(x, dtype)
