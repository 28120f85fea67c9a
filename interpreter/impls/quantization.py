"""Quantization: uniform_quantize, uniform_dequantize, and every other op on quantized tensors.

A quantized tensor's value is its storage integers (`bitcast_convert` sees them).  An op with
quantized operands or results runs as the spec's `dequantize_op_quantize`: operands are dequantized
to their expressed type, the op's ordinary impl runs on those floats, and results are quantized to
the result types.  Data-movement ops whose quantized types are all the same move storage values
directly (the same result, bit for bit), and structural ops (calls, control flow, tuples, checks)
pass values through untouched.  Region-bodied ops (reduce, sort, scatter, map, ...) on quantized
types pass storage values to and from their bodies, whose ops are quantized ops in their turn
(`_region_op`).

The wrapping is installed with `evaluator.IMPL_WRAPPERS` and decided once per op.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import IMPL_WRAPPERS
from stablehlo_py.interpreter.registry import Impl, impl
from stablehlo_py.semantics import quantization as q
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import TensorType

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.types import QuantParams, UniformQuantizedType

# ops whose values pass through (or that look only at storage bits)
_PASSTHROUGH = frozenset(
    {
        "stablehlo.uniform_quantize",
        "stablehlo.uniform_dequantize",
        "stablehlo.bitcast_convert",
        "stablehlo.constant",
        "stablehlo.call",
        "func.call",
        "stablehlo.while",
        "stablehlo.if",
        "stablehlo.case",
        "stablehlo.composite",
        "stablehlo.optimization_barrier",
        "stablehlo.tuple",
        "stablehlo.get_tuple_element",
        "stablehlo.custom_call",
        "stablehlo.get_dimension_size",
    }
)
_PASSTHROUGH_PREFIXES = ("check.", "interpreter.")

# ops that only move elements: on storage values when every quantized type is the same
_MOVEMENT = frozenset(
    {
        "stablehlo.broadcast_in_dim",
        "stablehlo.broadcast",
        "stablehlo.concatenate",
        "stablehlo.slice",
        "stablehlo.dynamic_slice",
        "stablehlo.dynamic_update_slice",
        "stablehlo.gather",
        "stablehlo.dynamic_gather",
        "stablehlo.pad",
        "stablehlo.reshape",
        "stablehlo.dynamic_reshape",
        "stablehlo.reverse",
        "stablehlo.transpose",
        "stablehlo.dynamic_broadcast_in_dim",
        "stablehlo.real_dynamic_slice",
        "stablehlo.select",
        "stablehlo.all_gather",
        "stablehlo.all_to_all",
        "stablehlo.collective_permute",
        "stablehlo.collective_broadcast",
        "stablehlo.send",
        "stablehlo.recv",
        "stablehlo.infeed",
        "stablehlo.outfeed",
        "stablehlo.optimization_barrier",
    }
)


def quant_params(t: Any) -> QuantParams | None:
    """The quantization parameters of a tensor type with a `!quant.uniform` element type."""
    if isinstance(t, TensorType) and isinstance(t.element_type, UniformQuantizedType):
        return t.element_type.params
    return None


def dequantize(storage: Any, t: Any) -> np.ndarray:
    p = quant_params(t)
    assert p is not None
    return q.uniform_dequantize(
        storage,
        np.asarray(p.scales, dtype=np.float64),
        np.asarray(p.zero_points, dtype=np.int64),
        p.storage_min,
        p.storage_max,
        p.quantized_dimension,
        expressed_type=dtype_of_type(p.expressed_type),
    )


def quantize(values: Any, t: Any) -> np.ndarray:
    p = quant_params(t)
    assert p is not None
    expressed = dtype_of_type(p.expressed_type)
    x = np.asarray(values)
    if x.dtype != expressed:
        x = x.astype(expressed)
    return q.uniform_quantize(
        x,
        np.asarray(p.scales, dtype=np.float64).astype(expressed),
        np.asarray(p.zero_points, dtype=np.int64),
        p.storage_min,
        p.storage_max,
        p.quantized_dimension,
        storage_type=dtype_of_type(t),
    )


@impl("stablehlo.uniform_quantize")
def _uniform_quantize(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    operand_type = op.operands[0].type
    x = args[0]
    if quant_params(operand_type) is not None:  # requantize
        x = dequantize(x, operand_type)
    return [quantize(x, op.results[0].type)]


@impl("stablehlo.uniform_dequantize")
def _uniform_dequantize(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    out = dequantize(args[0], op.operands[0].type)
    want = dtype_of_type(op.results[0].type)
    return [out if out.dtype == want else out.astype(want)]


def _region_op(op: Any, fn: Impl) -> Impl:
    """A region-bodied op (reduce, sort, scatter, map, all_reduce, ...) on quantized tensors runs
    as the spec defines it: its body is applied to the quantized elements, each op of the body
    being itself a quantized op (dequantize -> op -> quantize, this hook again), and the values
    moved between the op and its body are storage values.  The evaluator does not take numpy's
    reductions for such a body (`region_kind` is None on quantized arguments), so every step
    requantizes as upstream's lowering of the body does.

    Converting an operand to a region argument of other quantization parameters
    (`to_destination_type` between quantized types) is not supported."""
    operand_elements = {quant_params(v.type) for v in op.operands} - {None}
    region_elements = {
        quant_params(arg.type)
        for region in op.regions
        for block in region.blocks
        for arg in block.args
    } - {None}
    if not region_elements <= operand_elements:
        return _refuse(
            f"'{op.name}' on quantized tensors whose region arguments have other quantization "
            "parameters than its operands (a quantized promotion) is not supported by the "
            "interpreter"
        )
    # Region arguments and results of quantized types are storage dtypes (`_attrs._arg_dtype`,
    # `result_dtype`); the conversion below only guards an impl that returns another dtype.
    storage = [
        dtype_of_type(r.type) if quant_params(r.type) is not None else None for r in op.results
    ]
    inner = fn

    def storage_results(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        results = inner(ev, op, args, env)
        return [
            r if d is None else np.asarray(r).astype(d, copy=False)
            for r, d in zip(results, storage, strict=True)
        ]

    return storage_results


def _refuse(message: str) -> Impl:
    def unsupported(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        raise NotSupportedError(message)

    return unsupported


def _dequantize_op_quantize(op: Any, fn: Impl | None) -> Impl | None:
    """IMPL_WRAPPERS hook: wrap `fn` for `op` when it computes on quantized tensors."""
    if fn is None or op.name in _PASSTHROUGH or op.name.startswith(_PASSTHROUGH_PREFIXES):
        return fn
    operand_types = [v.type for v in op.operands]
    result_types = [r.type for r in op.results]
    quantized = [t for t in operand_types + result_types if quant_params(t) is not None]
    if not quantized:
        return fn
    if op.name in _MOVEMENT and all(
        quant_params(t) == quant_params(quantized[0]) for t in quantized
    ):
        return fn
    if op.regions:
        return _region_op(op, fn)
    inner = fn

    def wrapped(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        values = [
            dequantize(a, t) if quant_params(t) is not None else a
            for a, t in zip(args, operand_types)
        ]
        results = inner(ev, op, values, env)
        return [
            quantize(r, t) if quant_params(t) is not None else r
            for r, t in zip(results, result_types)
        ]

    return wrapped


IMPL_WRAPPERS.append(_dequantize_op_quantize)
