"""Helpers shared by the verifiers of every op family: shape and type compatibility that tolerates
dynamic dimensions (`?`, stored as -1) and unranked tensors, type text for messages, the spec's
baseline types, element-type predicates (with one table of the element-type classes op constraints
name), `is_promotable`, `in_range`, readers of integer attributes, and `fail`.

All checks are shape-level and cheap: nothing here looks at the data of large attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NoReturn

from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.infer.data_movement import ints
from stablehlo_py.ir.infer.reduction import num_bits
from stablehlo_py.ir.types import (
    FLOAT_NAME,
    TokenType,
    UniformQuantizedType,
    element_type,
    shape_of,
)

DYN = -1
"""A dynamic dimension (`?`)."""


def fail(msg: str) -> NoReturn:
    """Report a violated constraint."""
    raise VerifyException(msg)


def fail_as_rule(msg: str) -> NoReturn:
    """Report a violated constraint as upstream's hlo::verify*Op functions do (emitOptionalError
    at the op's location, no `'op' op` prefix): the VerifyException carries an InferError, which
    stablehlo_py.ir.verify words bare."""
    from stablehlo_py.ir.infer import InferError

    try:
        raise InferError(msg)
    except InferError as e:
        raise VerifyException(msg) from e


# ------------------------------------------------------------------------------------- text
def t2s(t: Attribute) -> str:
    """A type as MLIR writes it (`tensor<2x?xf32>`), for messages."""
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


def types2s(ts: Sequence[Attribute]) -> str:
    """`(tensor<f32>, tensor<i32>)`."""
    return "(" + ", ".join(t2s(t) for t in ts) + ")"


def shape_str(s: Sequence[int]) -> str:
    """`[2, ?]`."""
    return "[" + ", ".join("?" if d < 0 else str(d) for d in s) + "]"


# ----------------------------------------------------------------------------------- shapes
def rank(t: Attribute) -> int | None:
    """Rank of a ranked tensor; None when unranked or not a tensor."""
    s = shape_of(t)
    return None if s is None else len(s)


def dims_compatible(a: int, b: int) -> bool:
    """Are two dimension sizes compatible (equal, or either is dynamic)?"""
    return a == b or a < 0 or b < 0


def shapes_compatible(a: Sequence[int] | None, b: Sequence[int] | None) -> bool:
    """Same rank and compatible dimensions; an unknown (unranked) shape is compatible with any."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


def types_compatible(a: Attribute, b: Attribute) -> bool:
    """Same element type and compatible shapes (StableHLO's `isCompatibleForHloTypeInference`,
    without bounds); tokens are compatible with tokens only."""
    if a == b:
        return True
    if isinstance(a, TokenType) or isinstance(b, TokenType):
        return isinstance(a, TokenType) and isinstance(b, TokenType)
    if not isinstance(a, (TensorType, UnrankedTensorType)) or not isinstance(
        b, (TensorType, UnrankedTensorType)
    ):
        return False
    return element_type(a) == element_type(b) and shapes_compatible(shape_of(a), shape_of(b))


def is_scalar_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and len(t.get_shape()) == 0


# --------------------------------------------------------------------------- baseline types
def baseline_element(t: Attribute) -> Attribute | tuple:
    """spec.md baseline_element_type: a quantized element type without scales and zero points."""
    e = element_type(t)
    if isinstance(e, UniformQuantizedType):
        q = e.params
        return (
            "quant",
            q.storage_type,
            q.signed,
            q.storage_min,
            q.storage_max,
            q.expressed_type,
            q.quantized_dimension,
        )
    return e


def same_baseline_type(a: Attribute, b: Attribute) -> bool:
    """spec.md `baseline_type(a) = baseline_type(b)` (shapes compared up to dynamic dimensions)."""
    return baseline_element(a) == baseline_element(b) and shapes_compatible(
        shape_of(a), shape_of(b)
    )


def quantized_element(t: Attribute) -> UniformQuantizedType | None:
    """The quantized element type of `t`, or None when it is not quantized."""
    e = element_type(t)
    return e if isinstance(e, UniformQuantizedType) else None


# ---------------------------------------------------------------------------- element kinds
def is_float(e: Attribute) -> bool:
    return type(e) in FLOAT_NAME


def is_complex(e: Attribute) -> bool:
    return isinstance(e, ComplexType)


def is_float_or_complex(e: Attribute) -> bool:
    return is_float(e) or is_complex(e)


def is_pred(e: Attribute) -> bool:
    """i1 (of any signedness)."""
    return isinstance(e, IntegerType) and e.width.data == 1


def is_int(e: Attribute) -> bool:
    """An integer type other than i1."""
    return isinstance(e, IntegerType) and e.width.data != 1


ELEMENT_KINDS: dict[str, tuple[str, Callable[[Attribute], bool]]] = {
    "fp": ("floating-point", is_float),
    "fp_or_complex": ("floating-point or complex", is_float_or_complex),
    "complex": ("complex", is_complex),
    "pred": ("boolean (i1)", is_pred),
    "int": ("integer", is_int),
    "pred_or_int": ("boolean or integer", lambda e: is_pred(e) or is_int(e)),
    "any": ("any", lambda e: True),
}
"""Element-type classes of ODS tensor constraints (HLO_AnyFpTensor, HLO_AnyPredOrIntTensor, ...):
kind -> (description, predicate on the element type)."""


ODS_SUMMARIES: dict[str, str] = {
    "fp": "4/6/8/16/32/64-bit float",  # HLO_AnyFpTensor
    "fp_or_complex": "4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements",
    "complex": "complex type with 32/64-bit float elements",
    "pred": "bool",
    "int": "2/4/8/16/32/64-bit integer",
    "pred_or_int": "bool or 2/4/8/16/32/64-bit integer",  # HLO_AnyPredOrIntTensor
}
"""ELEMENT_KINDS kind -> the element part of MLIR's ODS summary (`tensor of <it> values`)."""


def check_element_kind(what: str, t: Attribute, kind: str, ranked: bool = False) -> None:
    """MLIR's ODS check of `what` ("operand #0", "result #0") of type `t`: a tensor (`ranked`: a
    ranked one) whose elements are of ELEMENT_KINDS[kind], worded as MLIR's generated verifier."""
    _desc, pred = ELEMENT_KINDS[kind]
    if not pred(element_type(t)):
        tensor = "ranked tensor" if ranked else "tensor"
        fail(f"{what} must be {tensor} of {ODS_SUMMARIES[kind]} values, but got '{t2s(t)}'")


def _precision_bits(t: Attribute) -> int:
    """Bits of an integer or floating-point type as promotion compares them (tf32 counts 19)."""
    if FLOAT_NAME.get(type(t)) == "tf32":
        return 19
    return num_bits(t)  # type: ignore[return-value]


def is_promotable(x: Attribute, y: Attribute) -> bool:
    """spec.md `is_promotable(x, y)`: same kind and no narrower (storage type for quantized)."""
    if x == y:
        return True
    if is_pred(x) and is_pred(y):
        return True
    if (is_int(x) and is_int(y)) or (is_float(x) and is_float(y)):
        return _precision_bits(x) <= _precision_bits(y)
    if isinstance(x, ComplexType) and isinstance(y, ComplexType):
        return _precision_bits(x.element_type) <= _precision_bits(y.element_type)
    if isinstance(x, UniformQuantizedType) and isinstance(y, UniformQuantizedType):
        px, py = x.params, y.params
        return px.expressed_type == py.expressed_type and _precision_bits(
            px.storage_type
        ) <= _precision_bits(py.storage_type)
    return False


# ------------------------------------------------------------------------------------ lists
def in_range(xs: Sequence[int], hi: int) -> bool:
    """Every x in [0, hi)."""
    return all(0 <= x < hi for x in xs)


# ------------------------------------------------------------------------------- attributes
def int_value(a: Attribute | None, default: int = 0) -> int:
    """The value of an IntegerAttr (`default` when absent)."""
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    return default


int_values = ints
"""Values of a DenseArrayBase or an integer dense elements attribute (flattened); () when absent:
the inference rules' reader (one function, named for the verifiers)."""


def i64_array(a: Attribute | None) -> tuple[int, ...] | None:
    """Values of a DenseI64ArrayAttr (or a rank-1 dense integer elements attribute); None when
    absent or of another kind (e.g. a float array)."""
    if isinstance(a, DenseArrayBase) and not isinstance(a.elt_type, IntegerType):
        return None
    if isinstance(a, (DenseArrayBase, DenseIntOrFPElementsAttr)):
        return int_values(a)
    return None
