"""Shape and type helpers shared by the verifiers of the ops with regions and the collectives
(control_flow, reduction, collectives): region signatures, `is_promotable`, dimension comparison that
tolerates dynamic sizes, and reading small integer attributes.

All checks are shape-level and cheap: dynamic dimensions (`?`, stored as -1) and unranked tensors
compare equal to anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.types import FLOAT_NAME, TokenType, UniformQuantizedType

DYN = -1


# ------------------------------------------------------------------------------------ text
def t2s(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


def types2s(ts: Sequence[Attribute]) -> str:
    return "(" + ", ".join(t2s(t) for t in ts) + ")"


# ------------------------------------------------------------------------------------ shapes
def rank(t: Attribute) -> int | None:
    """Rank of a ranked tensor; None when unranked or not a tensor."""
    if isinstance(t, TensorType):
        return len(t.get_shape())
    return None


def shape(t: Attribute) -> tuple[int, ...] | None:
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return None


def elem(t: Attribute) -> Attribute:
    if isinstance(t, (TensorType, UnrankedTensorType)):
        return t.element_type
    return t


def dim_eq(a: int, b: int) -> bool:
    return a == b or a == DYN or b == DYN


def shapes_compatible(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(dim_eq(x, y) for x, y in zip(a, b))


def types_compatible(a: Attribute, b: Attribute) -> bool:
    """Same element type and compatible shapes (StableHLO's `isCompatibleForHloTypeInference`,
    without bounds)."""
    if a == b:
        return True
    if isinstance(a, TokenType) or isinstance(b, TokenType):
        return isinstance(a, TokenType) and isinstance(b, TokenType)
    if not isinstance(a, (TensorType, UnrankedTensorType)) or not isinstance(
        b, (TensorType, UnrankedTensorType)
    ):
        return False
    return elem(a) == elem(b) and shapes_compatible(shape(a), shape(b))


def is_scalar_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and len(t.get_shape()) == 0


# ------------------------------------------------------------------------------ element kinds
def _is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data != 1


def _is_float(t: Attribute) -> bool:
    return type(t) in FLOAT_NAME


def _float_bits(t: Attribute) -> int:
    name = FLOAT_NAME[type(t)]
    if name in ("f16", "bf16"):
        return 16
    if name == "f32":
        return 32
    if name == "f64":
        return 64
    if name == "tf32":
        return 19
    if name.startswith("f8"):
        return 8
    if name.startswith("f6"):
        return 6
    return 4


def _bits(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return _float_bits(t)


def is_promotable(x: Attribute, y: Attribute) -> bool:
    """spec.md `is_promotable(x, y)`: same kind and no narrower (storage type for quantized)."""
    if x == y:
        return True
    if _is_bool(x) and _is_bool(y):
        return True
    if _is_int(x) and _is_int(y):
        return _bits(x) <= _bits(y)
    if _is_float(x) and _is_float(y):
        return _bits(x) <= _bits(y)
    if isinstance(x, ComplexType) and isinstance(y, ComplexType):
        return _bits(x.element_type) <= _bits(y.element_type)
    if isinstance(x, UniformQuantizedType) and isinstance(y, UniformQuantizedType):
        px, py = x.params, y.params
        return px.expressed_type == py.expressed_type and _bits(px.storage_type) <= _bits(
            py.storage_type
        )
    return False


# ----------------------------------------------------------------------------------- regions
def entry_arg_types(region: Region) -> list[Attribute]:
    if not region.blocks:
        return []
    return [a.type for a in region.blocks.first.args]  # type: ignore[union-attr]


def return_types(region: Region) -> list[Attribute] | None:
    """Operand types of the region's terminator (None when the region is empty)."""
    if not region.blocks:
        return None
    last = region.blocks.last
    if last is None or last.last_op is None:
        return []
    return [v.type for v in last.last_op.operands]


def require_single_block(op: Operation, region: Region, what: str) -> None:
    n = len(region.blocks)
    if n != 1:
        raise VerifyException(f"expects {what} to have exactly one block, found {n}")
    last = region.blocks.first.last_op  # type: ignore[union-attr]
    if last is None or last.name not in ("stablehlo.return", "func.return"):
        raise VerifyException(f"expects {what} to end with stablehlo.return")


def check_scalar_reducer(
    region: Region,
    n: int,
    inputs: Sequence[Attribute],
    what: str,
    label: str,
    allowed_dims: Sequence[int] = (),
) -> list[Attribute]:
    """A reducer `(tensor<E0>..tensor<EN-1>, tensor<E0>..tensor<EN-1>) -> (tensor<E0>..tensor<EN-1>)`
    with `is_promotable(element_type(inputs[i]), Ei)` (reduce_c6, reduce_window_c13, all_reduce_c5...).

    As upstream's verifyReducerShape, an accumulator may also be a ranked tensor whose dimensions are
    a subsequence of `allowed_dims` (the result dimensions of reduce); with no allowed dimensions it
    must be 0-d.  Returns the accumulator types."""
    args = entry_arg_types(region)
    rets = return_types(region) or []
    if len(args) != 2 * n:
        raise VerifyException(
            f"{label}: {what} must take {2 * n} arguments, takes {len(args)} {types2s(args)}"
        )
    if len(rets) != n:
        raise VerifyException(
            f"{label}: {what} must return {n} values, returns {len(rets)} {types2s(rets)}"
        )
    accs = args[:n]
    for i in range(n):
        a, b, r = args[i], args[i + n], rets[i]
        if not isinstance(a, (TensorType, UnrankedTensorType)):
            raise VerifyException(f"{label}: argument #{i} of {what} must be a tensor, is {t2s(a)}")
        if not (types_compatible(a, b) and types_compatible(a, r)):
            raise VerifyException(
                f"{label}: {what} argument #{i} ({t2s(a)}), argument #{i + n} ({t2s(b)}) and result "
                f"#{i} ({t2s(r)}) must have the same type"
            )
        if i < len(inputs) and not is_promotable(elem(inputs[i]), elem(a)):
            raise VerifyException(
                f"{label}: element type {t2s(elem(inputs[i]))} of input #{i} cannot be promoted to "
                f"the {what} type {t2s(elem(a))}"
            )
        s = shape(b)
        if s is None or not s:
            continue
        k = 0
        for d in allowed_dims:
            if k < len(s) and dim_eq(d, s[k]):
                k += 1
        if k != len(s):
            raise VerifyException(
                f"{label}: argument #{i + n} of {what} must be a 0-d tensor, is {t2s(b)}"
                if not allowed_dims
                else f"{label}: the shape of {what} argument #{i + n} ({t2s(b)}) is not compatible "
                f"with the result shape {list(allowed_dims)}"
            )
    return accs


# ------------------------------------------------------------------------------ attributes
def int_value(a: Attribute | None, default: int = 0) -> int:
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    return default


def i64_array(a: Attribute | None) -> tuple[int, ...] | None:
    """Values of a DenseI64ArrayAttr (or a rank-1 dense integer elements attribute)."""
    if a is None:
        return None
    if isinstance(a, DenseArrayBase):
        return tuple(int(v) for v in a.get_values())
    if isinstance(a, DenseIntOrFPElementsAttr):
        return tuple(int(v) for v in dense_ints(a).reshape(-1))
    return None


def dense_ints(a: DenseIntOrFPElementsAttr) -> np.ndarray:
    from stablehlo_py.ir.text.dense import dense_values

    return dense_values(a)


def values(vs: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in vs]
