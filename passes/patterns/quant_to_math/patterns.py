"""The quant-to-math patterns of upstream's StablehloLegalizeQuantToMath.cpp other than the dot-like
ones: uniform_quantize (quantize and requantize), uniform_dequantize, quantized add, and the
quantized-op -> (dequantize, float op, quantize) fallback.

A pattern is `fn(e, op, orig) -> list of values | None`: `e` emits before `op`; the op's operands
are already converted (storage types) and `orig(value)` gives a value's type before conversion
(upstream's `op.getX().getType()` next to the adaptor's `adaptor.getX()`).  None is a match
failure (the next pattern is tried); `Emitted` is an error upstream emits on the op before the
conversion fails."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stablehlo_py.passes.patterns.quant_to_math.emit import (
    F32,
    I32,
    Emitter,
    clone,
    is_per_axis,
    is_per_tensor,
    quant_of,
    storage_width,
)
from stablehlo_py.passes.stablehlo_legalize_quantized_op_to_qdq import (
    QDQ_OPS,
    expressed_type,
    is_quantized,
)
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.types import QuantParams

Orig = Callable[[SSAValue], Attribute]
Pattern = Callable[[Emitter, Operation, Orig], "list[SSAValue] | None"]


class Emitted(Exception):
    """An error upstream's pattern emits on the op (`op->emitError(...)`) before failing."""


# ------------------------------------------------------------------------------------- helpers
def quantization_params(
    e: Emitter, q: QuantParams, zero_point_in_fp: bool
) -> tuple[SSAValue, SSAValue, list[int] | None]:
    """getQuantizationParams: (scales, zero points, broadcast dims) constants."""
    if q.quantized_dimension is None:
        scales = e.f32(q.scales[0])
        zps = e.f32(float(q.zero_points[0])) if zero_point_in_fp else e.i32(q.zero_points[0])
        return scales, zps, None
    scales = e.f32_vector(q.scales)
    if zero_point_in_fp:
        zps = e.f32_vector([float(z) for z in q.zero_points])
    else:
        zps = e.i32_vector(q.zero_points)
    return scales, zps, [q.quantized_dimension]


def storage_bounds(e: Emitter, q: QuantParams) -> tuple[SSAValue, SSAValue]:
    """getQuantizationStorageInfo: the storage min and max as f32 constants."""
    return e.f32(float(q.storage_min)), e.f32(float(q.storage_max))


def _scale(q: QuantParams, i: int) -> float:
    return q.scales[i] if is_per_axis(q) else q.scales[0]


def _zp(q: QuantParams, i: int) -> int:
    return q.zero_points[i] if is_per_axis(q) else q.zero_points[0]


def apply_merged_scales_and_zps(
    e: Emitter, qin: QuantParams, qout: QuantParams, x: SSAValue
) -> SSAValue:
    """applyMergedScalesAndZps: x * (in_scale / out_scale) + (out_zp - in_zp * merged_scale)."""
    if is_per_tensor(qin) and is_per_tensor(qout):
        merged_scale = qin.scales[0] / qout.scales[0]
        x = e.chlo("multiply", x, e.f32(merged_scale))
        merged_zp = qout.zero_points[0] - qin.zero_points[0] * merged_scale
        if merged_zp != 0:
            x = e.chlo("add", x, e.f32(merged_zp))
        return x
    axis_q = qout if is_per_axis(qout) else qin
    n = len(axis_q.scales)
    dims = [axis_q.quantized_dimension or 0]
    scales = [_scale(qin, i) / _scale(qout, i) for i in range(n)]
    zps = [_zp(qout, i) - _zp(qin, i) * scales[i] for i in range(n)]
    x = e.chlo("multiply", x, e.f32_vector(scales), dims=dims)
    if any(np.float32(z) != 0 for z in zps):
        x = e.chlo("add", x, e.f32_vector(zps), dims=dims)
    return x


def requantize(
    e: Emitter, x: SSAValue, qin: QuantParams, qout: QuantParams, out_type: Attribute
) -> SSAValue:
    """requantize: `x` (storage values of `qin`) as storage values of `qout` in `out_type`."""
    if qin == qout:
        return e.convert(x, out_type)
    float_type = clone(out_type, F32)
    y = e.convert(x, float_type)
    y = apply_merged_scales_and_zps(e, qin, qout, y)
    if out_type.element_type.width.data < 32:  # type: ignore[attr-defined]
        lo, hi = storage_bounds(e, qout)
        y = e.clamp(lo, y, hi)
    y = e.round_even(y)
    return e.convert(y, out_type)


# ------------------------------------------------------------------------------------ patterns
def uniform_quantize(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """ConvertUniformQuantizeOp."""
    (x,) = op.operands
    in_type, out_type = orig(x), op.results[0].type
    in_el = in_type.element_type  # type: ignore[attr-defined]
    qout = quant_of(out_type)
    if in_el == F32 and qout is not None:
        scales, zps, dims = quantization_params(e, qout, zero_point_in_fp=True)
        lo, hi = storage_bounds(e, qout)
        float_type = clone(in_type, F32)
        y = e.chlo("divide", x, scales, float_type, dims)
        y = e.chlo("add", y, zps, float_type, dims)
        y = e.value("stablehlo.clamp", [lo, y, hi], [float_type])
        y = e.round_even(y)
        return [e.convert(y, clone(float_type, qout.storage_type))]
    qin = quant_of(in_type)
    if qin is not None and qout is not None:
        if (
            is_per_axis(qin)
            and is_per_axis(qout)
            and qin.quantized_dimension != qout.quantized_dimension
        ):
            raise Emitted("Cannot requantize while changing quantization_axis")
        return [requantize(e, x, qin, qout, clone(out_type, qout.storage_type))]
    raise Emitted("Unsupported input element type.")


def uniform_dequantize(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """ConvertUniformDequantizeOp."""
    (x,) = op.operands
    q = quant_of(orig(x))
    if q is None:
        return None
    scales, zps, dims = quantization_params(e, q, zero_point_in_fp=False)
    i32_type = clone(x.type, I32)
    y = e.convert(x, i32_type)
    y = e.chlo("subtract", y, zps, i32_type, dims)
    f32_type = clone(i32_type, F32)
    y = e.convert(y, f32_type)
    return [e.chlo("multiply", y, scales, f32_type, dims)]


def quantized_add(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """ConvertUniformQuantizedAddOp."""
    lhs, rhs = op.operands
    ql, qr, qres = quant_of(orig(lhs)), quant_of(orig(rhs)), quant_of(op.results[0].type)
    if ql is None or qr is None or qres is None:
        return None
    if is_per_axis(ql) or is_per_axis(qr) or is_per_axis(qres):
        if not (ql == qr == qres) or storage_width(ql) != 32:
            return None
        out = e.binary("add", lhs, rhs)
        if any(z != 0 for z in ql.zero_points):
            zps = e.i32_vector(ql.zero_points)
            out = e.chlo("subtract", out, zps, dims=[ql.quantized_dimension or 0])
        return [out]
    i32_type = clone(op.results[0].type, I32)
    lhs32 = requantize(e, lhs, ql, qres, i32_type)
    rhs32 = requantize(e, rhs, qr, qres, i32_type)
    zp = e.i32(qres.zero_points[0])
    out = e.chlo("add", lhs32, rhs32, i32_type)
    out = e.chlo("subtract", out, zp, i32_type)
    if storage_width(qres) == 32:
        return [out]
    lo, hi = e.i32(qres.storage_min), e.i32(qres.storage_max)
    out = e.value("stablehlo.clamp", [lo, out, hi], [i32_type])
    return [e.convert(out, clone(i32_type, qres.storage_type))]


def quantized_op_to_qdq(e: Emitter, op: Operation, orig: Orig) -> list[SSAValue] | None:
    """QuantizedStablehloOpConversion (upstream's populateStablehloLegalizeQuantizedOpToQDQPatterns,
    benefit 1, over the ops of `stablehlo-legalize-quantized-op-to-qdq`'s `QDQ_OPS`): dequantize the
    quantized operands, run the op on their expressed type, quantize the results; each new
    (de)quantize is lowered right away, as the conversion driver legalizes created ops."""
    if op.name not in QDQ_OPS:
        return None
    if not any(is_quantized(orig(v)) for v in op.operands) and not any(
        is_quantized(r.type) for r in op.results
    ):
        return None
    operands = []
    for v in op.operands:
        t = orig(v)
        if is_quantized(t):
            deq = e.build("stablehlo.uniform_dequantize", [v], [expressed_type(t)])
            operands.append(_lower_created(e, deq, {v: t}, uniform_dequantize))
        else:
            operands.append(v)
    result_types = [expressed_type(r.type) for r in op.results]
    new = e.op(
        op.name,
        operands,
        result_types,
        dict(op.properties),
        attributes=dict(op.attributes),
    )
    out = []
    for old, value in zip(op.results, new.results):
        if is_quantized(old.type):
            quant = e.build("stablehlo.uniform_quantize", [value], [old.type])
            out.append(_lower_created(e, quant, {}, uniform_quantize))
        else:
            out.append(value)
    return out


def _lower_created(
    e: Emitter, op: Operation, types: dict[SSAValue, Attribute], pattern: Pattern
) -> SSAValue:
    """Legalize an op a pattern created (its expansion goes where it would stand); the op itself
    is never inserted."""
    got = pattern(e, op, lambda v: types.get(v, v.type))
    assert got is not None
    op.drop_all_references()
    return got[0]
