"""Elementwise ops: one table from op name to its semantics function (operands in order).

Compiled: an elementwise op's step is its semantics function prepared for the operands' element
types (`stablehlo_py/semantics/prepared.py`: the numpy path for that dtype picked once,
bit-identical to the general function, which runs for anything else) or the general function
itself; compare and convert decode their direction, comparison type and result dtype once."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py import semantics as sem
from stablehlo_py.interpreter.registry import Step, compiler
from stablehlo_py.semantics import prepared
from stablehlo_py.semantics.ir_dtypes import dtype_of_type

# op name (without dialect) -> semantics function taking the operands positionally
ELEMENTWISE = {
    "abs": sem.abs,
    "add": sem.add,
    "and": sem.and_,
    "atan2": sem.atan2,
    "cbrt": sem.cbrt,
    "ceil": sem.ceil,
    "clamp": sem.clamp,
    "complex": sem.complex,
    "cosine": sem.cosine,
    "count_leading_zeros": sem.count_leading_zeros,
    "divide": sem.divide,
    "exponential": sem.exponential,
    "exponential_minus_one": sem.exponential_minus_one,
    "floor": sem.floor,
    "imag": sem.imag,
    "is_finite": sem.is_finite,
    "log": sem.log,
    "log_plus_one": sem.log_plus_one,
    "logistic": sem.logistic,
    "maximum": sem.maximum,
    "minimum": sem.minimum,
    "multiply": sem.multiply,
    "negate": sem.negate,
    "not": sem.not_,
    "or": sem.or_,
    "popcnt": sem.popcnt,
    "power": sem.power,
    "real": sem.real,
    "remainder": sem.remainder,
    "round_nearest_afz": sem.round_nearest_afz,
    "round_nearest_even": sem.round_nearest_even,
    "rsqrt": sem.rsqrt,
    "select": sem.select,
    "shift_left": sem.shift_left,
    "shift_right_arithmetic": sem.shift_right_arithmetic,
    "shift_right_logical": sem.shift_right_logical,
    "sign": sem.sign,
    "sine": sem.sine,
    "sqrt": sem.sqrt,
    "subtract": sem.subtract,
    "tan": sem.tan,
    "tanh": sem.tanh,
    "xor": sem.xor,
}


def operand_dtypes(op: Any) -> list[np.dtype[Any] | None]:
    """The numpy dtypes of the op's operand types (None for a type that is not a plain tensor
    element type, e.g. quantized: such operands run the general semantics)."""
    out: list[np.dtype[Any] | None] = []
    for v in op.operands:
        try:
            out.append(dtype_of_type(v.type))
        except Exception:  # noqa: BLE001 - an unusual type runs the general function
            out.append(None)
    return out


def _register(name: str, fn: Any) -> None:
    step = Step(fn)

    @compiler(f"stablehlo.{name}")
    def make(op: Any) -> Step:
        fast = prepared.prepare(name, operand_dtypes(op))
        return step if fast is None else Step(fast)


for _name, _fn in ELEMENTWISE.items():
    _register(_name, _fn)


@compiler("stablehlo.compare")
def _compare(op: Any) -> Step:
    direction = op.properties["comparison_direction"].data
    ct = op.properties.get("compare_type")
    compare_type = ct.data if ct is not None else None
    fast = prepared.prepare(
        "compare",
        operand_dtypes(op),
        comparison_direction=direction,
        compare_type=compare_type,
    )
    if fast is not None:
        return Step(fast)
    compare = sem.compare

    def run(lhs: Any, rhs: Any) -> Any:
        return compare(lhs, rhs, direction, compare_type)

    return Step(run)


@compiler("stablehlo.convert")
def _convert(op: Any) -> Step:
    dtype = dtype_of_type(op.results[0].type)
    fast = prepared.prepare("convert", operand_dtypes(op), result_dtype=dtype)
    if fast is not None:
        return Step(fast)
    convert = sem.convert

    def run(operand: Any) -> Any:
        return convert(operand, dtype)

    return Step(run)
