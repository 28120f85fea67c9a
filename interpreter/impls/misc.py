"""Ops outside the spec's main families: einsum/unary_einsum (deprecated), async_start/async_done,
and the builtin/arith/tensor ops upstream's tests mix in (arith.constant, tensor.cast,
builtin.unrealized_conversion_cast)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from stablehlo_py.semantics import dtypes
from stablehlo_py import semantics as sem
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.semantics import conversion as conv
from stablehlo_py.interpreter.values import array_from_attr
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr

from stablehlo_py.errors import InterpreterError

_EINSUM = re.compile(r"^\s*([a-zA-Z]*)\s*(?:,\s*([a-zA-Z]*)\s*)?->\s*([a-zA-Z]*)\s*$")


def einsum(config: str, operands: list[Any], result_dtype: np.dtype) -> np.ndarray:
    """`lhs_labels,rhs_labels->result_labels` (or one operand): products summed over the labels
    missing from the result; operands are converted to the result type first, narrow floats sum
    in f32 (as dot_general), integers wrap."""
    m = _EINSUM.match(config)
    if m is None or (m.group(2) is None) != (len(operands) == 1):
        raise InterpreterError(f"einsum_config '{config}' is not `ab,bc->ac` (or `ab->a`) form")
    labels = [m.group(1)] + ([m.group(2)] if m.group(2) is not None else [])
    work = result_dtype
    if dtypes.is_float(result_dtype) and dtypes.bitwidth(result_dtype) < 32:
        work = np.dtype(np.float32)
    xs = []
    for x in operands:
        x = np.asarray(x)
        if x.dtype != result_dtype:
            x = conv.convert(x, result_dtype)
        xs.append(x.astype(work) if work != result_dtype else x)
    spec = ",".join(labels) + "->" + m.group(3)
    with np.errstate(all="ignore"):
        out = np.einsum(spec, *xs, dtype=work if not dtypes.is_bool(work) else None)
    out = np.asarray(out)
    return out if out.dtype == result_dtype else conv.convert(out, result_dtype)


@impl("stablehlo.einsum")
def _einsum(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [einsum(A.get(op, "einsum_config"), list(args), A.result_dtype(op))]


@impl("stablehlo.unary_einsum")
def _unary_einsum(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [einsum(A.get(op, "einsum_config"), list(args), A.result_dtype(op))]


@impl("stablehlo.async_start")
def _async_start(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Runs the body at once; the future is the tuple of its results."""
    return [tuple(ev.run_region(op.regions[0], list(args), {}))]


@impl("stablehlo.async_done")
def _async_done(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    future = args[0]
    if not isinstance(future, tuple):
        raise InterpreterError("async_done needs the future of an async_start")
    return list(future)


@impl("arith.constant")
def _arith_constant(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    value = A.attr(op, "value")
    if isinstance(value, DenseIntOrFPElementsAttr):
        return [array_from_attr(value)]
    if isinstance(value, IntegerAttr | FloatAttr):
        return [np.array(value.value.data, dtype=dtype_of_type(value.type))]
    raise InterpreterError(f"arith.constant with value {value} is not supported")


@impl("tensor.cast", "builtin.unrealized_conversion_cast")
def _cast(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Type-only casts: the values are unchanged."""
    return list(args)


# arith float binary ops (upstream's mixed-dialect tests): same semantics as the stablehlo ops.
def _arith_binary(name: str, fn: Any) -> None:
    @impl(name)
    def run(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        return [fn(args[0], args[1])]


for _n, _f in (("arith.addf", sem.add), ("arith.subf", sem.subtract), ("arith.mulf", sem.multiply),
               ("arith.divf", sem.divide)):
    _arith_binary(_n, _f)
