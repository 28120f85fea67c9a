"""Types of the StableHLO opset: builtin element types (one table), `!stablehlo.token`, tuples,
bounded dynamic tensors and `!quant.uniform` quantized element types.

Builtin types are xDSL's own (`TensorType`, `IntegerType`, `Float32Type`, ...); StableHLO's extra types
are small xDSL `Data` attributes holding frozen Python values, so they are cheap to build and compare.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E3M4Type,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E4M3Type,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IndexType,
    IntegerType,
    NoneType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Data, TypeAttribute
from xdsl.irdl import irdl_attr_definition

DYNAMIC = -1
"""xDSL's marker for a dynamic dimension (`?`)."""

# ---------------------------------------------------------------------------------------------
# Element types: MLIR spelling -> xDSL instance, and instance -> numpy storage dtype.
# ---------------------------------------------------------------------------------------------

FLOAT_TYPES: dict[str, Attribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    "tf32": FloatTF32Type(),
    "f8E5M2": Float8E5M2Type(),
    "f8E4M3": Float8E4M3Type(),
    "f8E4M3FN": Float8E4M3FNType(),
    "f8E5M2FNUZ": Float8E5M2FNUZType(),
    "f8E4M3FNUZ": Float8E4M3FNUZType(),
    "f8E4M3B11FNUZ": Float8E4M3B11FNUZType(),
    "f8E3M4": Float8E3M4Type(),
    "f8E8M0FNU": Float8E8M0FNUType(),
    "f6E2M3FN": Float6E2M3FNType(),
    "f6E3M2FN": Float6E3M2FNType(),
    "f4E2M1FN": Float4E2M1FNType(),
}
FLOAT_NAME: dict[type, str] = {type(t): n for n, t in FLOAT_TYPES.items()}

_FLOAT_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
}

_INT_CACHE: dict[str, IntegerType] = {}


def integer_type(name: str) -> IntegerType | None:
    """`i32`, `ui8`, `si16` -> IntegerType (cached); None if `name` is not an integer type."""
    t = _INT_CACHE.get(name)
    if t is not None:
        return t
    if name.startswith("ui"):
        sign, digits = Signedness.UNSIGNED, name[2:]
    elif name.startswith("si"):
        sign, digits = Signedness.SIGNED, name[2:]
    elif name.startswith("i"):
        sign, digits = Signedness.SIGNLESS, name[1:]
    else:
        return None
    if not digits.isdigit() or digits.startswith("0") and digits != "0":
        return None
    t = _INT_CACHE[name] = IntegerType(int(digits), sign)
    return t


INDEX = IndexType()
NONE_TYPE = NoneType()


def simple_type(name: str) -> Attribute | None:
    """A keyword type: integer, float, index or none."""
    t = FLOAT_TYPES.get(name)
    if t is not None:
        return t
    if name == "index":
        return INDEX
    if name == "none":
        return NONE_TYPE
    return integer_type(name)


def element_type_name(t: Attribute) -> str | None:
    """MLIR spelling of a keyword element type, or None for a compound type."""
    if isinstance(t, IntegerType):
        s = t.signedness.data
        prefix = "i" if s == Signedness.SIGNLESS else ("ui" if s == Signedness.UNSIGNED else "si")
        return f"{prefix}{t.width.data}"
    name = FLOAT_NAME.get(type(t))
    if name is not None:
        return name
    if isinstance(t, IndexType):
        return "index"
    if isinstance(t, NoneType):
        return "none"
    return None


def storage_dtype(t: Attribute) -> np.dtype:
    """numpy dtype our dense attributes use to store one element of type `t`.

    i1 is a byte 0/1 (as MLIR's hex form); sub-byte integers take one byte each, sign-extended for
    signless/signed and zero-extended for unsigned; sub-byte floats are ml_dtypes' one-byte types.
    """
    if isinstance(t, IntegerType):
        w = t.width.data
        unsigned = t.signedness.data == Signedness.UNSIGNED
        if w == 1:
            return np.dtype(np.bool_)
        for bits in (8, 16, 32, 64):
            if w <= bits:
                return np.dtype(f"{'u' if unsigned else ''}int{bits}")
        raise _unsupported(f"integer type {element_type_name(t)} wider than 64 bits")
    name = FLOAT_NAME.get(type(t))
    if name is not None:
        dt = _FLOAT_DTYPES.get(name)
        if dt is None:
            raise _unsupported(f"element type {name} has no numpy storage")
        return dt
    if isinstance(t, ComplexType):
        inner = element_type_name(t.element_type)
        if inner == "f32":
            return np.dtype(np.complex64)
        if inner == "f64":
            return np.dtype(np.complex128)
        raise _unsupported(f"complex<{inner}> elements")
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    raise _unsupported(f"dense elements of type {t}")


def _unsupported(what: str) -> Exception:
    from stablehlo_py.errors import NotSupportedError

    return NotSupportedError(f"{what} is not supported by stablehlo-py")


# ---------------------------------------------------------------------------------------------
# StableHLO types
# ---------------------------------------------------------------------------------------------


class _TextData(Data[object]):
    """Base of our Data attributes: xDSL's own parser/printer are never used for them."""

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError("stablehlo-py types are parsed by stablehlo_py.ir.text")

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        printer.print_string(repr(self.data))


@irdl_attr_definition
class TokenType(_TextData, TypeAttribute):
    """`!stablehlo.token`: orders side effects (spec.md#types)."""

    name = "stablehlo.token"

    def __init__(self) -> None:
        super().__init__(None)


TOKEN = TokenType()


@dataclass(frozen=True)
class QuantParams:
    """`!quant.uniform<storage<min:max>:expressed:axis, {scale:zp, ...}>` parameters."""

    storage_type: Attribute
    storage_min: int
    storage_max: int
    expressed_type: Attribute
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    quantized_dimension: int | None  # None: per-tensor
    signed: bool


@irdl_attr_definition
class UniformQuantizedType(_TextData, TypeAttribute):
    """A `!quant.uniform` element type, per-tensor or per-axis (spec.md#types)."""

    name = "quant.uniform"

    def __init__(self, params: QuantParams) -> None:
        super().__init__(params)

    @property
    def params(self) -> QuantParams:
        return self.data  # type: ignore[return-value]

    @property
    def is_per_axis(self) -> bool:
        return self.params.quantized_dimension is not None


@dataclass(frozen=True)
class Bounds:
    """`#stablehlo.bounds<8, ?>`: the static upper bound of each dynamic dimension (-1 for `?`)."""

    bounds: tuple[int, ...]


@irdl_attr_definition
class TypeExtensionsAttr(_TextData):
    """Tensor encoding carrying dimension bounds (`#stablehlo.bounds<...>`)."""

    name = "stablehlo.bounds"

    def __init__(self, bounds: tuple[int, ...]) -> None:
        super().__init__(Bounds(tuple(bounds)))

    @property
    def bounds(self) -> tuple[int, ...]:
        return self.data.bounds  # type: ignore[attr-defined]


def tensor_type(element: Attribute, shape: tuple[int, ...], encoding: Attribute | None = None) -> TensorType:
    """Build (and intern) a ranked tensor type."""
    key = (element, shape, encoding)
    t = _TENSOR_CACHE.get(key)
    if t is None:
        t = TensorType(element, shape) if encoding is None else TensorType(element, shape, encoding)
        _TENSOR_CACHE[key] = t
    return t


_TENSOR_CACHE: dict[tuple, TensorType] = {}


def is_tensor(t: Attribute) -> bool:
    return isinstance(t, (TensorType, UnrankedTensorType))


def element_type(t: Attribute) -> Attribute:
    """Element type of a tensor type (the type itself for a scalar type)."""
    if isinstance(t, (TensorType, UnrankedTensorType)):
        return t.element_type
    return t


def shape_of(t: Attribute) -> tuple[int, ...] | None:
    """Static shape with -1 for dynamic dims; None when unranked."""
    if isinstance(t, TensorType):
        return t.get_shape()
    return None


def num_elements(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
