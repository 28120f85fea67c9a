"""Elementwise ops: one table from op name to its semantics function (operands in order).

Compiled: an elementwise op's step is its semantics function itself (nothing to decode); compare
and convert decode their direction, comparison type and result dtype once."""

from __future__ import annotations

from typing import Any

from stablehlo_py.interpreter import semantics as sem
from stablehlo_py.interpreter.registry import Step, compiler
from stablehlo_py.interpreter.values import dtype_of_type

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


def _register(name: str, fn: Any) -> None:
    step = Step(fn)

    @compiler(f"stablehlo.{name}")
    def make(op: Any) -> Step:
        return step


for _name, _fn in ELEMENTWISE.items():
    _register(_name, _fn)


@compiler("stablehlo.compare")
def _compare(op: Any) -> Step:
    direction = op.properties["comparison_direction"].data
    ct = op.properties.get("compare_type")
    compare_type = ct.data if ct is not None else None
    compare = sem.compare

    def run(lhs: Any, rhs: Any) -> Any:
        return compare(lhs, rhs, direction, compare_type)

    return Step(run)


@compiler("stablehlo.convert")
def _convert(op: Any) -> Step:
    dtype = dtype_of_type(op.results[0].type)
    convert = sem.convert

    def run(operand: Any) -> Any:
        return convert(operand, dtype)

    return Step(run)
