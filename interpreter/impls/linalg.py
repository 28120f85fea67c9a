"""Linear algebra: dot, dot_general, convolution, dynamic_conv, fft, triangular_solve, cholesky and
the batch_norm ops (by the spec's decompositions, evaluated with the elementwise semantics so every
intermediate rounds in the element type)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py.semantics import dtypes
from stablehlo_py import semantics as sem
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import Step, compiler, impl
from stablehlo_py.semantics import data_movement as dm
from stablehlo_py.semantics import fft as fft_sem
from stablehlo_py.semantics import linalg as la
from stablehlo_py.semantics import reduction as red
from stablehlo_py.semantics.regions import ADD

from stablehlo_py.errors import InterpreterError


def _work_dtype(out: np.dtype) -> np.dtype:
    """Accumulation type: f32 for floats narrower than 32 bits (as XLA), else the result type."""
    if dtypes.is_float(out) and dtypes.bitwidth(out) < 32:
        return np.dtype(np.float32)
    return out


# Contractions up to this length follow upstream's exact schedule (one rounded multiply-add per step,
# in index order), so small programs match upstream bit for bit; longer ones use BLAS (see below).
SEQUENTIAL_MAX_K = 32


def contract(
    lhs: Any,
    rhs: Any,
    lhs_batching_dimensions: Sequence[int] = (),
    rhs_batching_dimensions: Sequence[int] = (),
    lhs_contracting_dimensions: Sequence[int] = (),
    rhs_contracting_dimensions: Sequence[int] = (),
    result_element_type: Any = None,
) -> np.ndarray:
    """`dot_general` whose float/complex sums of up to `SEQUENTIAL_MAX_K` terms run in index order
    over the contracting dimensions (row-major over them, as listed), one rounded multiply and add
    per step in the accumulation type: the schedule of upstream's interpreter and XLA's CPU backend,
    which BLAS's blocked sums do not reproduce to a few ULP.  That loop runs over the contraction,
    vectorized over the batch and free dimensions.  Longer sums use BLAS in double precision,
    rounded once.  Integer and boolean dots (exact, wrapping) use `semantics.linalg`."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out = np.dtype(result_element_type) if result_element_type is not None else lhs.dtype
    lb, rb = list(lhs_batching_dimensions), list(rhs_batching_dimensions)
    lc, rc = list(lhs_contracting_dimensions), list(rhs_contracting_dimensions)
    if not (dtypes.is_float(out) or dtypes.is_complex(out)):
        return la.dot_general(lhs, rhs, lb, rb, lc, rc, result_element_type=out)
    plan = ContractionPlan.of(lhs.shape, rhs.shape, lb, rb, lc, rc, out)
    return plan.run(_as(lhs, out), _as(rhs, out))


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
            _work_dtype(out),
            tuple(batch + lfs + rfs),
        )

    def run(self, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """The contraction of `lhs` and `rhs` (arrays of the result element type)."""
        b, m, k, n, out, work = self.b, self.m, self.k, self.n, self.out, self.work
        if k > SEQUENTIAL_MAX_K:
            # straight to the wide type in C order: one copy (widening through `work` is exact)
            wide = _wide(work)
            lt = lhs.transpose(self.lhs_perm).astype(wide, order="C").reshape(b, m, k)
            rt = rhs.transpose(self.rhs_perm).astype(wide, order="C").reshape(b, k, n)
            return _contract(lt, rt, k, out, work).reshape(self.result_shape)
        lt = lhs.transpose(self.lhs_perm).astype(work).reshape(b, m, k)
        rt = rhs.transpose(self.rhs_perm).astype(work).reshape(b, k, n)
        return _contract(lt, rt, k, out, work).reshape(self.result_shape)


def _wide(work: np.dtype) -> np.dtype:
    return np.dtype(np.complex128 if dtypes.is_complex(work) else np.float64)


def _contract(lt: np.ndarray, rt: np.ndarray, k: int, out: np.dtype, work: np.dtype) -> np.ndarray:
    if k > SEQUENTIAL_MAX_K:
        # Long contractions: the summation order is implementation-defined (XLA's CPU backend uses
        # blocked sums too); BLAS in double (complex128) precision, rounded once, is within an ULP
        # of the exact sum and is as fast as the hardware allows.
        wide = _wide(work)
        with np.errstate(all="ignore"):
            res = np.matmul(lt.astype(wide, copy=False), rt.astype(wide, copy=False))
        # One rounding from double to the result type (convert rounds narrow floats exactly once).
        return sem.convert(res, out)
    return sequential_sum(lt, rt, work).astype(out)


# Sequential sums with at most this many products in all (b * m * n * k) take their products in
# one numpy call (the adds stay one call per step, in order).
VECTOR_MAX_TERMS = 1 << 22


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


def _as(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return x if x.dtype == dtype else sem.convert(x, dtype)


def _precision(op: Any) -> list[str] | None:
    p = A.get(op, "precision_config")
    if p is None:
        return None
    return [str(getattr(x, "data", x)) for x in p]


@compiler("stablehlo.dot")
def _dot(op: Any) -> Step:
    """Deprecated `dot`: contracts lhs's last dimension with rhs's first."""
    result_element_type = A.result_dtype(op)

    def run(lhs: Any, rhs: Any) -> Any:
        lhs, rhs = np.asarray(lhs), np.asarray(rhs)
        return contract(
            lhs,
            rhs,
            lhs_contracting_dimensions=[lhs.ndim - 1],
            rhs_contracting_dimensions=[0],
            result_element_type=result_element_type,
        )

    return Step(run)


@compiler("stablehlo.dot_general")
def _dot_general(op: Any) -> Step:
    """Dimension numbers and the result type decoded once per op."""
    d = A.struct(op, "dot_dimension_numbers")
    dims = {
        "lhs_batching_dimensions": A.field(d, "lhs_batching_dimensions", []),
        "rhs_batching_dimensions": A.field(d, "rhs_batching_dimensions", []),
        "lhs_contracting_dimensions": A.field(d, "lhs_contracting_dimensions", []),
        "rhs_contracting_dimensions": A.field(d, "rhs_contracting_dimensions", []),
        "result_element_type": A.result_dtype(op),
    }

    def run(lhs: Any, rhs: Any) -> Any:
        return contract(lhs, rhs, **dims)

    out = dims["result_element_type"]
    shapes = [A.static_shape(v.type) for v in op.operands]
    if (
        shapes[0] is None
        or shapes[1] is None
        or not dtypes.is_float(out)
        and not (dtypes.is_complex(out))
    ):
        return Step(run)
    ls, rs = shapes
    plan = ContractionPlan.of(
        ls,
        rs,
        *(
            list(dims[key])
            for key in (
                "lhs_batching_dimensions",
                "rhs_batching_dimensions",
                "lhs_contracting_dimensions",
                "rhs_contracting_dimensions",
            )
        ),
        out,
    )
    nd, run_plan = np.ndarray, plan.run

    def run_static(lhs: Any, rhs: Any) -> Any:
        if (
            type(lhs) is nd
            and type(rhs) is nd
            and lhs.dtype is out
            and rhs.dtype is out
            and lhs.shape == ls
            and rhs.shape == rs
        ):
            return run_plan(lhs, rhs)
        return contract(lhs, rhs, **dims)

    return Step(run_static)


def _conv_attrs(op: Any) -> dict[str, Any]:
    d = A.struct(op, "dimension_numbers")
    return {
        "window_strides": A.ints(op, "window_strides"),
        "lhs_dilation": A.ints(op, "lhs_dilation"),
        "rhs_dilation": A.ints(op, "rhs_dilation"),
        "window_reversal": A.bools(op, "window_reversal"),
        "input_batch_dimension": A.field(d, "input_batch_dimension"),
        "input_feature_dimension": A.field(d, "input_feature_dimension"),
        "input_spatial_dimensions": A.field(d, "input_spatial_dimensions"),
        "kernel_input_feature_dimension": A.field(d, "kernel_input_feature_dimension"),
        "kernel_output_feature_dimension": A.field(d, "kernel_output_feature_dimension"),
        "kernel_spatial_dimensions": A.field(d, "kernel_spatial_dimensions"),
        "output_batch_dimension": A.field(d, "output_batch_dimension"),
        "output_feature_dimension": A.field(d, "output_feature_dimension"),
        "output_spatial_dimensions": A.field(d, "output_spatial_dimensions"),
        "feature_group_count": A.int_(op, "feature_group_count", 1),
        "batch_group_count": A.int_(op, "batch_group_count", 1),
        "precision_config": _precision(op),
        "result_element_type": A.result_dtype(op),
    }


def convolution(lhs: Any, rhs: Any, **attributes: Any) -> np.ndarray:
    """`semantics.linalg.convolution` with the windows contracted by `contract` (spatial
    dimensions, then the input feature, in order), so float sums round as upstream's
    interpreter and XLA round them."""
    return la.convolution(lhs, rhs, contract=contract, **attributes)


@compiler("stablehlo.convolution")
def _convolution(op: Any) -> Step:
    """Padding, layout and grouping decoded once per op."""
    p = A.get(op, "padding")
    padding = None if p is None else np.asarray(p, dtype=np.int64).reshape(-1, 2)
    attrs = _conv_attrs(op)

    def run(lhs: Any, rhs: Any) -> Any:
        return convolution(lhs, rhs, padding=padding, **attrs)

    return Step(run)


@impl("stablehlo.dynamic_conv")
def _dynamic_conv(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    padding = np.asarray(args[2], dtype=np.int64).reshape(-1, 2)
    return [convolution(args[0], args[1], padding=padding, **_conv_attrs(op))]


def _check_fft_lengths(kind: str, shape: tuple[int, ...], lengths: list[int]) -> None:
    """fft_c3/c4 on the operand's run-time shape (the verifier cannot check a `?` dimension):
    RFFT transforms trailing dimensions of exactly ``fft_length``, IRFFT reads
    ``fft_length[-1] // 2 + 1`` complex entries of the last one."""
    if kind not in ("RFFT", "IRFFT") or not lengths:
        return
    want = list(lengths) if kind == "RFFT" else [*lengths[:-1], lengths[-1] // 2 + 1]
    have = list(shape[-len(want):]) if len(shape) >= len(want) else list(shape)
    if have != want:
        raise InterpreterError(
            f"the operand of this {kind} has trailing dimensions {have} at run time, but its "
            f"fft_length {list(lengths)} needs {want}"
        )


@impl("stablehlo.fft")
def _fft(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    lengths = A.ints(op, "fft_length")
    _check_fft_lengths(str(A.enum(op, "fft_type")).upper(), np.shape(args[0]), list(lengths))
    out = fft_sem.fft(args[0], A.enum(op, "fft_type"), lengths)
    want = A.result_dtype(op)
    return [out if out.dtype == want else out.astype(want)]


@impl("stablehlo.triangular_solve")
def _triangular_solve(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [
        la.triangular_solve(
            args[0],
            args[1],
            A.bool_(op, "left_side"),
            A.bool_(op, "lower"),
            A.bool_(op, "unit_diagonal"),
            A.enum(op, "transpose_a", "NO_TRANSPOSE"),
        )
    ]


@impl("stablehlo.cholesky")
def _cholesky(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [la.cholesky(args[0], A.bool_(op, "lower"))]


# ---------------------------------------------------------------------------------- batch_norm


def _bcast(x: Any, feature_index: int, shape: tuple[int, ...]) -> np.ndarray:
    return dm.broadcast_in_dim(x, [feature_index], shape)


def _splat(value: Any, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    return np.full(shape, sem.convert(np.asarray(value, dtype=np.float64), dtype), dtype=dtype)


def _reduce_but(x: np.ndarray, feature_index: int) -> np.ndarray:
    dims = [d for d in range(x.ndim) if d != feature_index]
    (out,) = red.reduce([x], [np.zeros((), x.dtype)], dims, ADD)
    return out


def _normalize(
    operand: np.ndarray, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: float, fi: int
) -> np.ndarray:
    """The spec's batch_norm_inference decomposition."""
    shape, dtype = operand.shape, operand.dtype
    centered = sem.subtract(operand, _bcast(mean, fi, shape))
    stddev = sem.sqrt(sem.add(_bcast(variance, fi, shape), _splat(epsilon, dtype, shape)))
    normalized = sem.divide(centered, stddev)
    return sem.add(sem.multiply(_bcast(scale, fi, shape), normalized), _bcast(offset, fi, shape))


def _mean(x: np.ndarray, fi: int) -> np.ndarray:
    total = _reduce_but(x, fi)
    divisor = np.asarray(x.size // x.shape[fi] if x.shape[fi] else 0)
    return sem.divide(total, _splat(divisor, x.dtype, total.shape))


@impl("stablehlo.batch_norm_inference")
def _batch_norm_inference(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    operand, scale, offset, mean, variance = (np.asarray(a) for a in args)
    fi = A.int_(op, "feature_index")
    return [_normalize(operand, scale, offset, mean, variance, A.float_(op, "epsilon"), fi)]


@impl("stablehlo.batch_norm_training")
def _batch_norm_training(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    operand, scale, offset = (np.asarray(a) for a in args)
    fi = A.int_(op, "feature_index")
    shape = operand.shape
    mean = _mean(operand, fi)
    centered = sem.subtract(operand, _bcast(mean, fi, shape))
    variance = _mean(sem.multiply(centered, centered), fi)
    output = _normalize(operand, scale, offset, mean, variance, A.float_(op, "epsilon"), fi)
    return [output, mean, variance]


@impl("stablehlo.batch_norm_grad")
def _batch_norm_grad(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    operand, scale, mean, variance, grad_output = (np.asarray(a) for a in args)
    fi = A.int_(op, "feature_index")
    eps = A.float_(op, "epsilon")
    shape, dtype = operand.shape, operand.dtype
    scale_b = _bcast(scale, fi, shape)
    mean_b = _bcast(mean, fi, shape)
    variance_b = _bcast(variance, fi, shape)
    epsilon_b = _splat(eps, dtype, shape)
    centered = sem.subtract(operand, mean_b)
    stddev = sem.sqrt(sem.add(variance_b, epsilon_b))
    normalized = sem.divide(centered, stddev)
    per_feature = operand.size // operand.shape[fi] if operand.shape[fi] else 0
    elements_per_feature = _splat(per_feature, grad_output.dtype, shape)
    i1 = sem.multiply(grad_output, elements_per_feature)
    i2 = _bcast(_reduce_but(grad_output, fi), fi, shape)
    i3 = _bcast(_reduce_but(sem.multiply(grad_output, centered), fi), fi, shape)
    i4 = sem.multiply(i3, centered)
    i5 = sem.divide(i4, sem.add(variance_b, epsilon_b))
    i6 = sem.subtract(sem.subtract(i1, i2), i5)
    grad_operand = sem.multiply(sem.divide(sem.divide(scale_b, stddev), elements_per_feature), i6)
    grad_scale = _reduce_but(sem.multiply(grad_output, normalized), fi)
    grad_offset = _reduce_but(grad_output, fi)
    return [grad_operand, grad_scale, grad_offset]
