"""Types of the StableHLO opset: builtin element types (one table), `!stablehlo.token`, tuples,
bounded dynamic tensors and `!quant.uniform` quantized element types.

Builtin types are xDSL's own (`TensorType`, `IntegerType`, `Float32Type`, ...); StableHLO's extra types
are small xDSL `Data` attributes holding frozen Python values, so they are cheap to build and compare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

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
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attributes import TextData
from stablehlo_py.ir.context import CONTEXT

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser

DYNAMIC = -1
"""xDSL's marker for a dynamic dimension (`?`)."""

MLIR_DYNAMIC = -(1 << 63)
"""MLIR's ShapedType::kDynamic: how upstream writes a `?` dimension or bound in bytecode, in shape
operands (refine-arguments' wrappers) and in some diagnostics."""

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

_INT_CACHE = CONTEXT.table("ir.types.integer", 4096)  # `i32` -> its (interned) IntegerType


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
    if not digits.isdigit() or digits.startswith("0") and digits != "0" or int(digits) > 16777215:
        return None  # (MLIR's IntegerType::kMaxWidth; the parser says so)
    return _INT_CACHE.put(name, IntegerType(int(digits), sign))


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


class ReprTextData(TextData):
    """A TextData (the types and attributes of this module) whose xDSL parameter text is `repr(data)`."""

    PARSE_ERROR: ClassVar[str] = "stablehlo-py types are parsed by stablehlo_py.ir.text"

    def parameter_text(self) -> str:
        return repr(self.data)


@irdl_attr_definition
class TokenType(ReprTextData, TypeAttribute):
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
class UniformQuantizedType(ReprTextData, TypeAttribute):
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

    def mlir_text(self) -> str:
        """MLIR's quant printer: `!quant.uniform<i8<-127:127>:f32:1, {2.000000e+00:3,5.000000e-01}>`.

        The storage type is `iN`/`uN`, its range only when it is not the full range; scales are
        printed as MLIR prints an f64 (`printFloat`), zero points only when non-zero, per-axis
        parameters separated by a bare `,`."""
        q = self.params
        width = q.storage_type.width.data  # type: ignore[attr-defined]
        storage = q.storage_type
        unsigned_type = (
            isinstance(storage, IntegerType) and storage.signedness.data == Signedness.UNSIGNED
        )
        s = ("i" if q.signed else "ui" if unsigned_type else "u") + str(width)
        if (q.storage_min, q.storage_max) != storage_range(width, q.signed):
            s += f"<{q.storage_min}:{q.storage_max}>"
        s += ":" + str(element_type_name(q.expressed_type))
        if q.quantized_dimension is None:
            s += ", " + _quant_param_text(q.scales[0], q.zero_points[0])
        else:
            body = ",".join(_quant_param_text(sc, zp) for sc, zp in zip(q.scales, q.zero_points))
            s += f":{q.quantized_dimension}, {{{body}}}"
        return f"!quant.uniform<{s}>"


def storage_range(width: int, signed: bool) -> tuple[int, int]:
    """The default `[storage_min, storage_max]` of an iN (signed) or uN storage type."""
    if signed:
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    return 0, (1 << width) - 1


def _quant_param_text(scale: float, zero_point: int) -> str:
    from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float

    text = format_float(scale, FLOAT_SEMANTICS["f64"])
    return text if zero_point == 0 else f"{text}:{zero_point}"


@dataclass(frozen=True)
class Bounds:
    """`#stablehlo.bounds<8, ?>`: the static upper bound of each dynamic dimension (-1 for `?`)."""

    bounds: tuple[int, ...]


@irdl_attr_definition
class TypeExtensionsAttr(ReprTextData):
    """Tensor encoding carrying dimension bounds (`#stablehlo.bounds<...>`)."""

    name = "stablehlo.bounds"

    def __init__(self, bounds: tuple[int, ...]) -> None:
        super().__init__(Bounds(tuple(bounds)))

    @property
    def bounds(self) -> tuple[int, ...]:
        return self.data.bounds  # type: ignore[attr-defined]

    def verify_encoding(self, shape: tuple[int, ...]) -> str | None:
        """Upstream's verifyBounds for a tensor of `shape` with this encoding: a message, or None."""
        if len(self.bounds) != len(shape):
            return (
                f"Bounds length is {len(self.bounds)}, expected to be equal to rank({len(shape)}) "
                "of the tensor"
            )
        for dim, (bound, size) in enumerate(zip(self.bounds, shape)):
            if bound != DYNAMIC and size != DYNAMIC:
                return (
                    f"Static dimension {dim} cannot have a bound, use ShapedType::kDynamic to indicate "
                    "a missing bound"
                )
        return None

    def mlir_text(self) -> str:
        """Upstream's short form `#stablehlo.bounds<3, ?>` (also for `#stablehlo.type_extensions<...>`)."""
        return "#stablehlo.bounds<" + ", ".join("?" if b < 0 else str(b) for b in self.bounds) + ">"


def tensor_type(
    element: Attribute, shape: tuple[int, ...], encoding: Attribute | None = None
) -> TensorType:
    """Build (and intern) a ranked tensor type."""
    key = (element, shape, encoding)
    t = _TENSOR_CACHE.get(key)
    if t is None:
        t = TensorType(element, shape) if encoding is None else TensorType(element, shape, encoding)
        _TENSOR_CACHE.put(key, t)
    return t


_TENSOR_CACHE = CONTEXT.table("ir.types.tensor", 1 << 16)  # (element, shape, encoding) -> type


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


# ---------------------------------------------------------------------------------------------
# Text parsers of the types and encodings above (registered with the dialect registry)
# ---------------------------------------------------------------------------------------------

_STORAGE_WORD = re.compile(r"(si|ui|i|u)([0-9]+)\Z")
_MAX_STORAGE_BITS = 32  # MLIR's QuantizedType::MaxStorageBits


def parse_quant_uniform(p: Parser) -> UniformQuantizedType:
    """After `!quant.uniform`: `<storage[<min:max>]:expressed[:axis], scale[:zp]>` (per-tensor) or
    `<storage[<min:max>]:expressed:axis, {scale[:zp], ...}>` (per-axis), as MLIR's quant parser."""
    p.parse_literal("<", "to open !quant.uniform")
    p.ws()
    pos = p.pos
    word = p.try_bare_id() or ""
    m = _STORAGE_WORD.match(word)
    if not m:
        found = repr(word) if word else p._found()
        p.error(
            f"expected an integer storage type (i8, u8, i16, ...) in !quant.uniform, found {found}",
            pos,
        )
    signed = m.group(1) in ("i", "si")
    width = int(m.group(2))
    if not 0 < width <= _MAX_STORAGE_BITS:
        p.error(f"illegal storage type size: {width} (expected 1 to {_MAX_STORAGE_BITS} bits)", pos)
    lo, hi = storage_range(width, signed)
    smin, smax = lo, hi
    if p.text.startswith("<", p.pos):
        p.pos += 1
        smin = p.parse_integer("the storage minimum")
        p.parse_literal(":")
        smax = p.parse_integer("the storage maximum")
        p.parse_literal(">")
        if smin < lo or smax > hi or smin >= smax:
            p.error(
                f"illegal storage min and storage max: ({smin}:{smax}) for storage type {word}", pos
            )
    p.parse_literal(":", "after the storage type")
    p.ws()
    epos = p.pos
    expressed = p.parse_type()
    if type(expressed) not in FLOAT_NAME:
        p.error(
            f"expressed type must be a floating-point type, found {p.type_text(expressed)}", epos
        )
    axis: int | None = None
    if p.try_literal(":"):
        if p.peek() == "{":
            p.error(
                "sub-channel quantization (`:{dim:block, ...}`) is not supported by stablehlo-py"
            )
        axis = p.parse_integer("the quantized dimension")
        if axis < 0:
            p.error(f"illegal quantized dimension: {axis}")
    p.parse_literal(",", "before the quantization scale")
    if axis is not None:
        p.parse_literal("{", "to open the per-axis scales")
        params = p.parse_comma_list(lambda: _parse_scale_zero_point(p, expressed), "}")
        p.parse_literal("}")
        if not params:
            p.error("per-axis quantization needs at least one scale")
    else:
        params = [_parse_scale_zero_point(p, expressed)]
    p.parse_literal(">", "to close !quant.uniform")
    scales = tuple(s for s, _ in params)
    zero_points = tuple(z for _, z in params)
    # `ui8` is MLIR's unsigned integer type and stays one (it prints back as `ui8`); `u8` is the
    # quant parser's keyword for a signless storage type read as unsigned (it prints as `u8`)
    storage = IntegerType(width, Signedness.UNSIGNED) if m.group(1) == "ui" else IntegerType(width)
    return UniformQuantizedType(
        QuantParams(storage, smin, smax, expressed, scales, zero_points, axis, signed)
    )


def _parse_scale_zero_point(p: Parser, expressed: Attribute) -> tuple[float, int]:
    from stablehlo_py.ir.text.floats import hex_f64, parse_number_token

    m = parse_number_token(p, "a quantization scale")
    tok, pos = m.group(0), m.start()
    scale = hex_f64(tok) if "x" in tok else float(tok)
    if scale is None:
        p.error(f"hexadecimal float constant out of range for type f64, found {tok}", pos)
    if not (scale > 0.0 and np.isfinite(scale)):
        p.error(f"quantization scale must be a positive finite number, found {tok}", pos)
    zero_point = 0
    if p.try_literal(":"):
        zero_point = p.parse_integer("a zero point")
    return scale, zero_point


def parse_dim_size(p: Parser, what: str = "a dimension size or '?'") -> int:
    """`?` (dynamic, -1) or an integer (upstream's dimSizeFromString); `what` names it in errors."""
    if p.try_literal("?"):
        return DYNAMIC
    return p.parse_integer(what)


def parse_bounds(p: Parser) -> TypeExtensionsAttr:
    """After `#stablehlo.bounds`: `<3, ?>`."""
    p.parse_literal("<", "to open #stablehlo.bounds")
    bounds = p.parse_comma_list(lambda: parse_dim_size(p), ">")
    p.parse_literal(">", "to close #stablehlo.bounds")
    return TypeExtensionsAttr(tuple(bounds))


def parse_type_extensions(p: Parser) -> TypeExtensionsAttr:
    """After `#stablehlo.type_extensions`: `<bounds = [3, ?]>`."""
    p.parse_literal("<", "to open #stablehlo.type_extensions")
    p.parse_keyword("bounds")
    p.parse_literal("=")
    bounds = p.parse_delimited("[", lambda: parse_dim_size(p), "]")
    p.parse_literal(">", "to close #stablehlo.type_extensions")
    return TypeExtensionsAttr(tuple(bounds))


def register(reg: Registry) -> None:
    reg.type_parsers["quant.uniform"] = parse_quant_uniform
    reg.attr_parsers["stablehlo.bounds"] = parse_bounds
    reg.attr_parsers["stablehlo.type_extensions"] = parse_type_extensions
