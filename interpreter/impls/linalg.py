"""Linear algebra: dot, dot_general, convolution, dynamic_conv, fft, triangular_solve, cholesky and
the batch_norm ops (by the spec's decompositions, evaluated with the elementwise semantics so every
intermediate rounds in the element type)."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.interpreter import semantics as sem
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.interpreter.semantics import data_movement as dm
from stablehlo_py.interpreter.semantics import fft as fft_sem
from stablehlo_py.interpreter.semantics import linalg as la
from stablehlo_py.interpreter.semantics import reduction as red
from stablehlo_py.interpreter.semantics.regions import ADD


def _precision(op: Any) -> list[str] | None:
    p = A.get(op, "precision_config")
    if p is None:
        return None
    return [str(getattr(x, "data", x)) for x in p]


@impl("stablehlo.dot")
def _dot(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Deprecated `dot`: contracts lhs's last dimension with rhs's first."""
    lhs, rhs = np.asarray(args[0]), np.asarray(args[1])
    return [
        la.dot_general(
            lhs,
            rhs,
            lhs_contracting_dimensions=[lhs.ndim - 1],
            rhs_contracting_dimensions=[0],
            result_element_type=A.result_dtype(op),
        )
    ]


@impl("stablehlo.dot_general")
def _dot_general(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    d = A.struct(op, "dot_dimension_numbers")
    return [
        la.dot_general(
            args[0],
            args[1],
            lhs_batching_dimensions=A.field(d, "lhs_batching_dimensions", []),
            rhs_batching_dimensions=A.field(d, "rhs_batching_dimensions", []),
            lhs_contracting_dimensions=A.field(d, "lhs_contracting_dimensions", []),
            rhs_contracting_dimensions=A.field(d, "rhs_contracting_dimensions", []),
            precision_config=_precision(op),
            result_element_type=A.result_dtype(op),
        )
    ]


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


@impl("stablehlo.convolution")
def _convolution(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    p = A.get(op, "padding")
    padding = None if p is None else np.asarray(p, dtype=np.int64).reshape(-1, 2)
    return [la.convolution(args[0], args[1], padding=padding, **_conv_attrs(op))]


@impl("stablehlo.dynamic_conv")
def _dynamic_conv(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [la.dynamic_conv(args[0], args[1], args[2], **_conv_attrs(op))]


@impl("stablehlo.fft")
def _fft(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    out = fft_sem.fft(args[0], A.enum(op, "fft_type"), A.ints(op, "fft_length"))
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
    grad_operand = sem.multiply(
        sem.divide(sem.divide(scale_b, stddev), elements_per_feature), i6
    )
    grad_scale = _reduce_but(sem.multiply(grad_output, normalized), fi)
    grad_offset = _reduce_but(grad_output, fi)
    return [grad_operand, grad_scale, grad_offset]
