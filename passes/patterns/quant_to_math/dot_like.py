"""Quantized dot, dot_general and convolution as integer math (upstream's
ConvertUniformQuantized{Dot,DotGeneral,Convolution}Op): an i32 kernel on the storage values, the
zero-point offset computed from reductions of the operands, the combined scale, the result zero
point; hybrid ops (float lhs, quantized rhs) dequantize the rhs behind an optimization_barrier."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from stablehlo_py.passes.patterns.quant_to_math.emit import (
    DYNAMIC,
    F32,
    I8,
    I32,
    I64,
    Emitter,
    clone,
    i64_array,
    is_per_axis,
    is_per_tensor,
    quant_of,
    shape,
)
from stablehlo_py.passes.patterns.quant_to_math.patterns import Orig, quantization_params
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.op_attrs import DotDimensionNumbersAttr
from stablehlo_py.ir.verify.constraints import int_values
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import QuantParams, tensor_type


@dataclass(frozen=True)
class DotLikeDims:
    """DotLikeDimensionNumbers (for convolution: NHWC/NCHW/NDHWC/NCDHW only)."""

    lhs_batching: tuple[int, ...]
    lhs_spatial: tuple[int, ...]
    lhs_contracting: tuple[int, ...]
    rhs_batching: tuple[int, ...]
    rhs_spatial: tuple[int, ...]
    rhs_contracting: tuple[int, ...]


def _zero_point_is_zero(q: QuantParams) -> bool:
    return all(z == 0 for z in q.zero_points)


def is_hybrid(op: Operation, orig: Orig) -> bool | None:
    """isDotLikeOpHybrid: True (float lhs, quantized rhs, float result), False (quantized lhs, rhs
    and result), None (a match failure)."""
    ql, qr = quant_of(orig(op.operands[0])), quant_of(orig(op.operands[1]))
    qres = quant_of(op.results[0].type)
    if is_per_tensor(ql) and (
        (is_per_tensor(qr) and is_per_tensor(qres)) or (is_per_axis(qr) and is_per_axis(qres))
    ):
        return False
    if ql is None and qr is not None and qres is None:
        return True
    return None  # "Invalid input/output type for Dot/Convolution op"


def rewrite_hybrid(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue]:
    """matchAndRewriteDotLikeHybridOp: result = op(lhs, dequantize(barrier(rhs)))."""
    lhs, rhs = op.operands
    barrier = e.value("stablehlo.optimization_barrier", [rhs], [rhs.type])
    q = quant_of(orig(rhs))
    assert q is not None
    rhs_float_type = clone(orig(rhs), F32)
    scale, zp, dims = quantization_params(e, q, zero_point_in_fp=True)
    r = e.convert(barrier, rhs_float_type)
    if not _zero_point_is_zero(q):
        r = e.chlo("subtract", r, zp, rhs_float_type, dims)
    r = e.chlo("multiply", r, scale, rhs_float_type, dims)
    new = e.op(
        op.name, [lhs, r], [op.results[0].type], dict(op.properties), attributes=dict(op.attributes)
    )
    return [new.results[0]]


# ------------------------------------------------------------------------- zero-point offset
def _partial_offset(
    e: Emitter, x: SSAValue, other_zp: int, reduction_dims: Sequence[int]
) -> SSAValue:
    """createZeroPointPartialOffset: sum of `x` over `reduction_dims`, times the other zp."""
    x = e.convert(x, clone(x.type, I32))
    reduced = e.sum_reduce(x, reduction_dims)
    return e.chlo("multiply", reduced, e.i32(other_zp))


class _OutputDims:
    """calculateDynamicOutputDims, computed once per rewrite."""

    def __init__(self) -> None:
        self.value: SSAValue | None = None

    def get(self, e: Emitter, output: SSAValue) -> SSAValue:
        if self.value is None:
            pieces = []
            for i, d in enumerate(shape(output)):
                if d == DYNAMIC:
                    v = e.dimension_size(output, i)
                    v = e.convert(v, tensor_type(I64, ()))
                    pieces.append(e.value("stablehlo.reshape", [v], [tensor_type(I64, (1,))]))
                else:
                    pieces.append(e.constant([d], I64, (1,)))
            self.value = e.value(
                "stablehlo.concatenate",
                pieces,
                [tensor_type(I64, (len(pieces),))],
                {"dimension": IntegerAttr(0, I64)},
            )
        return self.value


def _broadcast_contribution(
    e: Emitter,
    zp: SSAValue,
    reduction_dims: Sequence[int],
    batching_dims: Sequence[int],
    non_batching_start: int,
    output: SSAValue,
    output_type: Attribute,
    dims_value: _OutputDims,
) -> SSAValue:
    """broadcastZpContribution: batching dims first, then this side's remaining dims."""
    dims = []
    batching_idx, non_batching_idx = 0, non_batching_start
    original = 0
    for _ in range(len(shape(zp))):
        while original in reduction_dims:
            original += 1
        if original in batching_dims:
            dims.append(batching_idx)
            batching_idx += 1
        else:
            dims.append(non_batching_idx)
            non_batching_idx += 1
        original += 1
    if DYNAMIC not in shape(output_type):
        return e.value(
            "stablehlo.broadcast_in_dim",
            [zp],
            [output_type],
            {"broadcast_dimensions": i64_array(dims)},
        )
    out_dims = dims_value.get(e, output)
    return e.value(
        "stablehlo.dynamic_broadcast_in_dim",
        [zp, out_dims],
        [output_type],
        {"broadcast_dimensions": i64_array(dims)},
    )


def _zero_point_offset(
    e: Emitter,
    lhs: SSAValue,
    rhs: SSAValue,
    output: SSAValue,
    lhs_zp: int,
    rhs_zp: int,
    output_type: Attribute,
    dims: DotLikeDims,
) -> SSAValue | None:
    """calculateZeroPointOffset: zp_r * sum(lhs) + zp_l * sum(rhs) - zp_l * zp_r * K."""
    result = None
    dims_value = _OutputDims()
    if rhs_zp != 0:
        reduction = (*dims.lhs_spatial, *dims.lhs_contracting)
        c = _partial_offset(e, lhs, rhs_zp, reduction)
        result = _broadcast_contribution(
            e,
            c,
            reduction,
            dims.lhs_batching,
            len(dims.lhs_batching),
            output,
            output_type,
            dims_value,
        )
    if lhs_zp != 0:
        reduction = (*dims.rhs_spatial, *dims.rhs_contracting)
        c = _partial_offset(e, rhs, lhs_zp, reduction)
        start = len(shape(lhs)) - len(dims.lhs_contracting)
        if dims.lhs_spatial and dims.rhs_spatial:
            start = dims.lhs_contracting[0]
        c = _broadcast_contribution(
            e, c, reduction, dims.rhs_batching, start, output, output_type, dims_value
        )
        result = c if result is None else e.binary("add", result, c)
    if lhs_zp != 0 and rhs_zp != 0:
        static_total = 1
        dynamic = False
        dynamic_total = e.i32(1)
        rhs_shape = shape(rhs)
        for i in (*dims.rhs_spatial, *dims.rhs_contracting):
            if rhs_shape[i] == DYNAMIC:
                dynamic = True
                dynamic_total = e.binary("multiply", dynamic_total, e.dimension_size(rhs, i))
            else:
                static_total *= rhs_shape[i]
        offset = e.i32(_wrap32(_wrap32(lhs_zp) * _wrap32(rhs_zp) * static_total))
        if dynamic:
            offset = e.binary("multiply", offset, dynamic_total)
        assert result is not None
        result = e.chlo("subtract", result, offset)
    return result


def _wrap32(x: int) -> int:
    return ((x + (1 << 31)) % (1 << 32)) - (1 << 31)


# --------------------------------------------------------------------------------- kernels
def _dot_general_kernel(
    e: Emitter, op: Operation, result_type: Attribute, lhs: SSAValue, rhs: SSAValue
) -> tuple[SSAValue, SSAValue]:
    props = dict(op.properties)
    if op.name == "stablehlo.dot":
        props["dot_dimension_numbers"] = DotDimensionNumbersAttr(
            lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,)
        )
    kernel = e.value(
        "stablehlo.dot_general", [lhs, rhs], [result_type], props, attributes=dict(op.attributes)
    )
    return kernel, lhs


def _convolution_kernel(
    e: Emitter,
    op: Operation,
    result_type: Attribute,
    lhs: SSAValue,
    rhs: SSAValue,
    dims: DotLikeDims,
    lhs_zp: int,
) -> tuple[SSAValue, SSAValue]:
    """The convolution on storage values; non-zero padding becomes an explicit pad of lhs with its
    zero point (upstream's int8 constant)."""
    props = dict(op.properties)
    padding = int_values(props.get("padding"))
    if any(p != 0 for p in padding):
        zp = e.constant(lhs_zp, I8, ())
        rank = len(shape(lhs))
        low, high = [0] * rank, [0] * rank
        for i, d in enumerate(dims.lhs_spatial):
            low[d], high[d] = padding[2 * i], padding[2 * i + 1]
        padded = tuple(
            s if s == DYNAMIC else s + lo + hi for s, lo, hi in zip(shape(lhs), low, high)
        )
        lhs = e.value(
            "stablehlo.pad",
            [lhs, zp],
            [tensor_type(lhs.type.element_type, padded)],  # type: ignore[attr-defined]
            {
                "edge_padding_low": i64_array(low),
                "edge_padding_high": i64_array(high),
                "interior_padding": i64_array([0] * rank),
            },
        )
        zeros_type = tensor_type(I64, (rank - 2, 2))
        props["padding"] = make_dense(zeros_type, np.zeros((rank - 2, 2), np.int64))
    kernel = e.value(
        "stablehlo.convolution", [lhs, rhs], [result_type], props, attributes=dict(op.attributes)
    )
    return kernel, lhs


def rewrite_dot_like(e: Emitter, op: Operation, orig: Orig, dims: DotLikeDims) -> list[SSAValue]:
    """matchAndRewriteDotLikeOp."""
    lhs, rhs = op.operands
    res_type = op.results[0].type
    ql, qr, qres = quant_of(orig(lhs)), quant_of(orig(rhs)), quant_of(res_type)
    assert ql is not None and qr is not None and qres is not None
    i32_type, f32_type = clone(res_type, I32), clone(res_type, F32)
    if op.name == "stablehlo.convolution":
        res, lhs = _convolution_kernel(e, op, i32_type, lhs, rhs, dims, ql.zero_points[0])
    else:
        res, lhs = _dot_general_kernel(e, op, i32_type, lhs, rhs)
    rhs_zp = qr.zero_points[0] if is_per_tensor(qr) else 0
    offset = _zero_point_offset(e, lhs, rhs, res, ql.zero_points[0], rhs_zp, i32_type, dims)
    # per-axis: result scales are taken as proportional to the rhs scales (checked for conv)
    combined = ql.scales[0] * qr.scales[0] / qres.scales[0]
    if abs(combined - 1.0) > 0.001:
        scale = e.f32(combined)
        r = e.convert(res, f32_type)
        r = e.chlo("multiply", r, scale, f32_type)
        res = e.convert(r, i32_type)
        if offset is not None:
            t = clone(offset.type, F32)
            o = e.convert(offset, t)
            o = e.chlo("multiply", o, scale, t)
            offset = e.convert(o, clone(t, I32))
    zp = e.i32(qres.zero_points[0] if is_per_tensor(qres) else 0)
    if offset is not None:
        zp = e.chlo("subtract", zp, offset, i32_type)
    added = e.chlo("add", res, zp, i32_type)
    return [e.convert(added, clone(i32_type, qres.storage_type))]


# --------------------------------------------------------------------------------- patterns
def _rewrite(
    e: Emitter,
    op: Operation,
    orig: Orig,
    dims_of: Callable[[Operation, Orig], DotLikeDims | None],
) -> list[SSAValue] | None:
    """A hybrid op (float lhs) by rewrite_hybrid, else the all-quantized op of the dims
    ``dims_of`` finds (None: upstream's pattern does not match)."""
    hybrid = is_hybrid(op, orig)
    if hybrid is None:
        return None
    if hybrid:
        return rewrite_hybrid(e, op, orig)
    dims = dims_of(op, orig)
    return None if dims is None else rewrite_dot_like(e, op, orig, dims)


def _dot_dims(op: Operation, orig: Orig) -> DotLikeDims:
    if op.name == "stablehlo.dot":
        return DotLikeDims((), (), (1,), (), (), (0,))
    dn = op.properties["dot_dimension_numbers"].dims  # type: ignore[attr-defined]
    return DotLikeDims(
        tuple(dn.lhs_batching_dimensions),
        (),
        tuple(dn.lhs_contracting_dimensions),
        tuple(dn.rhs_batching_dimensions),
        (),
        tuple(dn.rhs_contracting_dimensions),
    )


def dot(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """ConvertUniformQuantizedDotOp and ConvertUniformQuantizedDotGeneralOp."""
    return _rewrite(e, op, orig, _dot_dims)


# (input batch, feature, spatial), (kernel in feature, out feature, spatial), (output ...) ->
# the DotLikeDims of that layout
_CONV_LAYOUTS: dict[tuple[object, ...], DotLikeDims] = {
    # NHWC: lhs(b, 0, 1, f) x rhs(0, 1, i, o) -> res(b, 0, 1, f)
    (0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)): DotLikeDims((0,), (1, 2), (3,), (), (0, 1), (2,)),
    # NCHW: lhs(b, f, 0, 1) x rhs(o, i, 0, 1) -> res(b, f, 0, 1)
    (0, 1, (2, 3), 1, 0, (2, 3), 0, 1, (2, 3)): DotLikeDims((0,), (2, 3), (1,), (), (2, 3), (1,)),
    # NDHWC: lhs(b, 0, 1, 2, f) x rhs(0, 1, 2, i, o) -> res(b, 0, 1, 2, f)
    (0, 4, (1, 2, 3), 3, 4, (0, 1, 2), 0, 4, (1, 2, 3)): DotLikeDims(
        (0,), (1, 2, 3), (4,), (), (0, 1, 2), (3,)
    ),
    # NCDHW: lhs(b, f, 0, 1, 2) x rhs(o, i, 0, 1, 2) -> res(b, f, 0, 1, 2)
    (0, 1, (2, 3, 4), 0, 1, (2, 3, 4), 0, 1, (2, 3, 4)): DotLikeDims(
        (0,), (2, 3, 4), (1,), (), (2, 3, 4), (1,)
    ),
}


def _conv_dims(op: Operation, orig: Orig) -> DotLikeDims | None:
    """verifyAndConstructDims: None where upstream's pattern fails to match."""
    qr = quant_of(orig(op.operands[1]))
    qres = quant_of(op.results[0].type)
    assert qr is not None and qres is not None
    if is_per_tensor(qr):
        if qr.zero_points[0] != 0:
            return None  # "RHS/result UQ type must have zero zp."
    else:
        if any(z != 0 for z in (*qr.zero_points, *qres.zero_points)):
            return None
        if qr.quantized_dimension != len(shape(orig(op.operands[1]))) - 1:
            return None  # "Conv quantized axis must be out channel axis"
        ratios = [rs / r for rs, r in zip(qres.scales, qr.scales)]
        if any(abs((x - ratios[0]) / ratios[0]) > 0.001 for x in ratios):
            return None  # "... same RHS/Result scale ratio for each channel"
    if any(d != 1 for d in int_values(op.properties.get("lhs_dilation"))):
        return None  # "lhs_dilation must be 1."
    d = op.properties["dimension_numbers"].dims  # type: ignore[attr-defined]
    key = (
        d.input_batch_dimension,
        d.input_feature_dimension,
        tuple(d.input_spatial_dimensions),
        d.kernel_input_feature_dimension,
        d.kernel_output_feature_dimension,
        tuple(d.kernel_spatial_dimensions),
        d.output_batch_dimension,
        d.output_feature_dimension,
        tuple(d.output_spatial_dimensions),
    )
    return _CONV_LAYOUTS.get(key)  # None: "Convolution data format must be NHWC."


def convolution(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """ConvertUniformQuantizedConvolutionOp."""
    return _rewrite(e, op, orig, _conv_dims)
