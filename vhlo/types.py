"""VHLO types (`!vhlo.f32_v1`, `!vhlo.tensor_v1<4x!vhlo.f32_v1>`, ...), one class per row of
``specs/types.toml``.

Every type without parameters (`bool_v1`, `f32_v1`, `token_v1`, ...) is *generated* from the table: its
class, mnemonic and version range come from the row.  The nine parametric types (tensor, unranked
tensor, buffer, complex, tuple, func, future, quant, quant_per_axis) are written out here because their
text needs code; `COVERAGE` below and ``tests/unit/vhlo/test_vhlo_text.py`` check that the table and
the classes name the same types.

Text is upstream's (VhloTypes.td assembly formats):

    !vhlo.tensor_v1<4x?x!vhlo.f32_v1, #vhlo.type_extensions_v1<bounds = [?, 16]>>
    !vhlo.func_v1<(!vhlo.token_v1) -> !vhlo.token_v1>      !vhlo.func_v1<(()) -> ()>
    !vhlo.tuple_v1<>   !vhlo.future_v1<!a, !b>   !vhlo.complex_v1<!vhlo.f32_v1>
    !vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>
    !vhlo.quant_per_axis_v1<!vhlo.i8_v1:!vhlo.f32_v1, 0, [3.400000e+01], [16], -128:127, 1>

Types are small frozen xDSL ``Data`` attributes (hashable, compared by value) built through cached
constructors, so converting a 100k-op module allocates each distinct type once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py import specs
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float
from stablehlo_py.vhlo.attr_base import VhloData

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser

_F64 = FLOAT_SEMANTICS["f64"]
_DIMS = re.compile(r"(?:(?:[0-9]+|\?)x)*")


def format_f64(value: float) -> str:
    """APFloat(double) printed as MLIR does (`3.400000e+01`)."""
    return format_float(np.float64(value), _F64)


class VhloType(VhloData, TypeAttribute):
    """Base of every VHLO type."""

    PARSE_ERROR = "VHLO types are parsed by stablehlo_py.ir.text"

    @classmethod
    def spec(cls) -> specs.TypeSpec:
        return specs.type_spec(cls.SPEC_NAME)


def _text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

    if isinstance(a, TypeAttribute):
        return type_to_str(a)
    return attr_to_str(a)


# --------------------------------------------------------------------------------------------
# Parameterless types: generated from the table


class SimpleVhloType(VhloType):
    """A VHLO type without parameters (`!vhlo.f32_v1`)."""

    def __init__(self) -> None:
        super().__init__(None)

    def mlir_text(self) -> str:
        return "!" + self.name


def _make_simple(spec: specs.TypeSpec) -> type[SimpleVhloType]:
    base = spec.name.removesuffix("_v1")
    cls_name = "".join(p[:1].upper() + p[1:] for p in base.split("_")) + "V1Type"
    cls = type(cls_name, (SimpleVhloType,), {"name": f"vhlo.{spec.name}", "SPEC_NAME": spec.name})
    return irdl_attr_definition(cls)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Parametric types


def _dims_text(shape: Sequence[int]) -> str:
    return "".join(("?" if d < 0 else str(d)) + "x" for d in shape)


def _parse_dims(p: Parser) -> tuple[int, ...]:
    p.ws()
    m = _DIMS.match(p.text, p.pos)
    dims = m.group(0) if m else ""
    p.pos += len(dims)
    return tuple(-1 if d == "?" else int(d) for d in dims[:-1].split("x")) if dims else ()


class _ShapedType(VhloType):
    """A type with a shape and an element type: ``data`` is (shape, element type, ...)."""

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data[0]  # type: ignore[index]

    @property
    def element_type(self) -> Attribute:
        return self.data[1]  # type: ignore[index]


@irdl_attr_definition
class TensorV1Type(_ShapedType):
    """`!vhlo.tensor_v1<4x?x!vhlo.f32_v1>`, optionally with an encoding (type_extensions_v1)."""

    name = "vhlo.tensor_v1"
    SPEC_NAME = "tensor_v1"

    @property
    def encoding(self) -> Attribute | None:
        return self.data[2]  # type: ignore[index]

    def children(self) -> tuple[Attribute, ...]:
        enc = self.encoding
        return (self.element_type,) if enc is None else (self.element_type, enc)

    def mlir_text(self) -> str:
        enc = self.encoding
        tail = "" if enc is None else ", " + _text(enc)
        return f"!vhlo.tensor_v1<{_dims_text(self.shape)}{_text(self.element_type)}{tail}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        shape = _parse_dims(p)
        elem = p.parse_type()
        enc = p.parse_attribute() if p.try_literal(",") else None
        p.parse_literal(">", "to close !vhlo.tensor_v1")
        return tensor_type(shape, elem, enc)


@irdl_attr_definition
class BufferV1Type(_ShapedType):
    """`!vhlo.buffer_v1<2x!vhlo.f32_v1>` (StableHLO's `memref<2xf32>`, 1.13.0+)."""

    name = "vhlo.buffer_v1"
    SPEC_NAME = "buffer_v1"

    def children(self) -> tuple[Attribute, ...]:
        return (self.element_type,)

    def mlir_text(self) -> str:
        return f"!vhlo.buffer_v1<{_dims_text(self.shape)}{_text(self.element_type)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        shape = _parse_dims(p)
        elem = p.parse_type()
        p.parse_literal(">", "to close !vhlo.buffer_v1")
        return BufferV1Type((shape, elem))


class _OneType(VhloType):
    """A type with one nested type: `!vhlo.<name><T>`."""

    @property
    def element_type(self) -> Attribute:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return (self.element_type,)

    def mlir_text(self) -> str:
        return f"!{self.name}<{_text(self.element_type)}>"

    @classmethod
    def parse_body(cls, p: Parser) -> Attribute:
        p.parse_literal("<")
        elem = p.parse_type()
        p.parse_literal(">", f"to close !{cls.name}")
        return cls(elem)


@irdl_attr_definition
class ComplexV1Type(_OneType):
    """`!vhlo.complex_v1<!vhlo.f32_v1>`."""

    name = "vhlo.complex_v1"
    SPEC_NAME = "complex_v1"


@irdl_attr_definition
class UnrankedTensorV1Type(_OneType):
    """`!vhlo.unranked_tensor_v1<!vhlo.f32_v1>`."""

    name = "vhlo.unranked_tensor_v1"
    SPEC_NAME = "unranked_tensor_v1"


class _TypeList(VhloType):
    """A type holding a list of types: `!vhlo.<name><A, B>`."""

    @property
    def types(self) -> tuple[Attribute, ...]:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return self.types

    def mlir_text(self) -> str:
        return f"!{self.name}<{', '.join(_text(t) for t in self.types)}>"

    @classmethod
    def parse_body(cls, p: Parser) -> Attribute:
        p.parse_literal("<")
        items = p.parse_comma_list(p.parse_type, ">")
        p.parse_literal(">", f"to close !{cls.name}")
        return cls(tuple(items))


@irdl_attr_definition
class TupleV1Type(_TypeList):
    """`!vhlo.tuple_v1<!vhlo.token_v1>` (`!vhlo.tuple_v1<>` when empty)."""

    name = "vhlo.tuple_v1"
    SPEC_NAME = "tuple_v1"


@irdl_attr_definition
class FutureV1Type(_TypeList):
    """`!vhlo.future_v1<!vhlo.tensor_v1<4x4x!vhlo.f32_v1>>` (StableHLO's `!stablehlo.future`, 1.15.0+)."""

    name = "vhlo.future_v1"
    SPEC_NAME = "future_v1"


def _type_array_text(types: Sequence[Attribute]) -> str:
    # VhloTypes.cpp printTypeArray: "()" when empty, else the types separated by commas.
    return "()" if not types else ", ".join(_text(t) for t in types)


def _parse_type_array(p: Parser, stop: str) -> list[Attribute]:
    save = p.pos
    if p.try_literal("(") and p.try_literal(")"):
        return []
    p.pos = save
    return p.parse_comma_list(p.parse_type)


@irdl_attr_definition
class FuncV1Type(VhloType):
    """`!vhlo.func_v1<(!vhlo.token_v1) -> !vhlo.token_v1>`; no inputs print as `(())`."""

    name = "vhlo.func_v1"
    SPEC_NAME = "func_v1"

    @property
    def inputs(self) -> tuple[Attribute, ...]:
        return self.data[0]  # type: ignore[index]

    @property
    def outputs(self) -> tuple[Attribute, ...]:
        return self.data[1]  # type: ignore[index]

    def children(self) -> tuple[Attribute, ...]:
        return (*self.inputs, *self.outputs)

    def mlir_text(self) -> str:
        return (
            f"!vhlo.func_v1<({_type_array_text(self.inputs)}) -> {_type_array_text(self.outputs)}>"
        )

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        p.parse_literal("(")
        inputs = _parse_type_array(p, ")")
        p.parse_literal(")")
        p.parse_literal("->")
        outputs = _parse_type_array(p, ">")
        p.parse_literal(">", "to close !vhlo.func_v1")
        return FuncV1Type((tuple(inputs), tuple(outputs)))


@dataclass(frozen=True)
class QuantParams:
    """Parameters of `!vhlo.quant_v1` / `!vhlo.quant_per_axis_v1` (upstream's order and meaning:
    ``flags`` is 1 for a signed storage type; per-tensor types have one scale and zero point and
    ``quantized_dimension`` None)."""

    flags: int
    storage_type: Attribute
    expressed_type: Attribute
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    storage_min: int
    storage_max: int
    quantized_dimension: int | None = None


class _QuantBase(VhloType):
    """`!vhlo.<name><storage:expressed, <middle>, min:max, flags>`; the middle (the scales and
    zero points, and the quantized dimension) is each class's ``_middle_text`` and
    ``_parse_middle``."""

    @property
    def params(self) -> QuantParams:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return (self.params.storage_type, self.params.expressed_type)

    def mlir_text(self) -> str:
        q = self.params
        return (
            f"!{self.name}<{_text(q.storage_type)}:{_text(q.expressed_type)}, "
            f"{self._middle_text(q)}, {q.storage_min}:{q.storage_max}, {q.flags}>"
        )

    @staticmethod
    def _middle_text(q: QuantParams) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @staticmethod
    def _parse_middle(p: Parser) -> tuple[tuple[float, ...], tuple[int, ...], int | None]:
        raise NotImplementedError  # pragma: no cover - every subclass overrides

    @classmethod
    def parse_body(cls, p: Parser) -> Attribute:
        p.parse_literal("<")
        storage = p.parse_type()
        p.parse_literal(":")
        expressed = p.parse_type()
        p.parse_literal(",")
        scales, zps, dim = cls._parse_middle(p)
        p.parse_literal(",")
        lo = p.parse_integer()
        p.parse_literal(":")
        hi = p.parse_integer()
        p.parse_literal(",")
        flags = p.parse_integer()
        p.parse_literal(">", f"to close !{cls.name}")
        return cls(QuantParams(flags, storage, expressed, scales, zps, lo, hi, dim))


@irdl_attr_definition
class QuantV1Type(_QuantBase):
    """`!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>`."""

    name = "vhlo.quant_v1"
    SPEC_NAME = "quant_v1"

    @staticmethod
    def _middle_text(q: QuantParams) -> str:
        return f"{format_f64(q.scales[0])}:{q.zero_points[0]}"

    @staticmethod
    def _parse_middle(p: Parser) -> tuple[tuple[float, ...], tuple[int, ...], int | None]:
        scale = _parse_float(p)
        p.parse_literal(":")
        return (scale,), (p.parse_integer(),), None


@irdl_attr_definition
class QuantPerAxisV1Type(_QuantBase):
    """`!vhlo.quant_per_axis_v1<!vhlo.i8_v1:!vhlo.f32_v1, 0, [3.400000e+01, ...], [16, ...], -128:127, 1>`."""

    name = "vhlo.quant_per_axis_v1"
    SPEC_NAME = "quant_per_axis_v1"

    @staticmethod
    def _middle_text(q: QuantParams) -> str:
        scales = ", ".join(format_f64(s) for s in q.scales)
        zps = ", ".join(str(z) for z in q.zero_points)
        return f"{q.quantized_dimension}, [{scales}], [{zps}]"

    @staticmethod
    def _parse_middle(p: Parser) -> tuple[tuple[float, ...], tuple[int, ...], int | None]:
        dim = p.parse_integer()
        p.parse_literal(",")
        scales = p.parse_delimited("[", lambda: _parse_float(p), "]")
        p.parse_literal(",")
        zps = p.parse_delimited("[", p.parse_integer, "]")
        return tuple(scales), tuple(zps), dim


_FLOAT_TOKEN = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|inf|nan)")


def _parse_float(p: Parser) -> float:
    return float(p.parse_token(_FLOAT_TOKEN, "a floating-point number"))


# --------------------------------------------------------------------------------------------
# Constructors (interned)

_TENSOR_CACHE = CONTEXT.table("vhlo.tensor_types", 1 << 16)  # (shape, element, encoding) -> type


def tensor_type(
    shape: Sequence[int], element: Attribute, encoding: Attribute | None = None
) -> TensorV1Type:
    """`!vhlo.tensor_v1<shape x element[, encoding]>` (cached)."""
    key = (tuple(shape), element, encoding)
    t = _TENSOR_CACHE.get(key)
    if t is None:
        t = _TENSOR_CACHE.put(key, TensorV1Type(key))
    return t


def func_type(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> FuncV1Type:
    return FuncV1Type((tuple(inputs), tuple(outputs)))


# --------------------------------------------------------------------------------------------
# The classes by table name

PARAMETRIC_CLASSES: dict[str, type[VhloType]] = {
    c.SPEC_NAME: c
    for c in (
        TensorV1Type,
        UnrankedTensorV1Type,
        BufferV1Type,
        ComplexV1Type,
        TupleV1Type,
        FuncV1Type,
        FutureV1Type,
        QuantV1Type,
        QuantPerAxisV1Type,
    )
}
"""The parametric types (written out above); every other row of the table is a parameterless type,
generated here."""

SIMPLE_CLASSES: dict[str, type[SimpleVhloType]] = {
    t.name: _make_simple(t) for t in specs.types() if t.name not in PARAMETRIC_CLASSES
}
SIMPLE: dict[str, SimpleVhloType] = {n: c() for n, c in SIMPLE_CLASSES.items()}
"""The one instance of each parameterless type, by table name (`SIMPLE["f32_v1"]`)."""

BOOL = SIMPLE["bool_v1"]
TOKEN = SIMPLE["token_v1"]
INDEX = SIMPLE["index_v1"]
NONE = SIMPLE["none_v1"]
I64 = SIMPLE["i64_v1"]
I32 = SIMPLE["i32_v1"]
F32 = SIMPLE["f32_v1"]



TYPE_CLASSES: dict[str, type[VhloType]] = {**SIMPLE_CLASSES, **PARAMETRIC_CLASSES}
"""Every VHLO type class by table name; covers ``specs.types()`` exactly."""


def element_type(t: Attribute) -> Attribute:
    """Element type of a VHLO tensor/buffer type (the type itself otherwise)."""
    if isinstance(t, (TensorV1Type, UnrankedTensorV1Type, BufferV1Type)):
        return t.element_type
    return t


# --------------------------------------------------------------------------------------------
# Registration in the text layer


def register(reg: Registry) -> None:
    for name, inst in SIMPLE.items():
        reg.type_parsers[f"vhlo.{name}"] = _constant(inst)
    for name, cls in PARAMETRIC_CLASSES.items():
        reg.type_parsers[f"vhlo.{name}"] = cls.parse_body  # type: ignore[attr-defined]


def _constant(inst: Attribute) -> Callable[[Parser], Attribute]:
    return lambda p: inst


__all__ = [
    "BOOL",
    "F32",
    "I32",
    "I64",
    "INDEX",
    "NONE",
    "PARAMETRIC_CLASSES",
    "SIMPLE",
    "SIMPLE_CLASSES",
    "TOKEN",
    "TYPE_CLASSES",
    "BufferV1Type",
    "ComplexV1Type",
    "FuncV1Type",
    "FutureV1Type",
    "QuantParams",
    "QuantPerAxisV1Type",
    "QuantV1Type",
    "SimpleVhloType",
    "TensorV1Type",
    "TupleV1Type",
    "UnrankedTensorV1Type",
    "VhloType",
    "element_type",
    "format_f64",
    "func_type",
    "register",
    "tensor_type",
]
