"""VHLO attributes and enums, one class per row of ``specs/types.toml`` (``[[attr]]``).

Enums (`#vhlo<comparison_direction_v1 GT>`) are *generated* from the table's cases.  The structured
attributes are written out here because their text needs code; `ATTR_CLASSES` covers the table exactly
(checked by ``tests/unit/vhlo/test_vhlo_text.py``).  Text is upstream's (VhloAttrs.td, VhloOps.cpp):

    #vhlo.integer_v1<1 : i64>         #vhlo.float_v1<1.000000e-03 : !vhlo.f32_v1>
    #vhlo.bool_v1<true>               #vhlo.string_v1<"foo">
    #vhlo.array_v1<[#vhlo.bool_v1<true>]>
    #vhlo.dict_v1<{#vhlo.string_v1<"k"> = #vhlo.integer_v1<1 : i32>}>
    #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>   #vhlo.type_v1<!vhlo.f32_v1>
    #vhlo.type_extensions_v1<bounds = [16, ?]>
    #vhlo.output_operand_alias_v1<outputTupleIndices = [], operandIndex = 0, operandTupleIndices = []>
    #vhlo.result_accuracy_v1<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = #vhlo<result_accuracy_mode_v1 DEFAULT>>
    #vhlo.replica_group_mesh_axes_v1<mesh = #vhlo.string_v1<"mesh">, axes = #vhlo.array_v1<[...]>>
    #vhlo.axis_ref_v1<name = #vhlo.string_v1<"x">, sub_axis_info = #vhlo.sub_axis_info_v1<pre_size = 1, size = 2>>

`mesh_v1` and `mesh_axis_v1` do not occur in upstream's tests; their text follows the same pattern
(`#vhlo.mesh_axis_v1<name = #vhlo.string_v1<"x">, size = 2>`,
`#vhlo.mesh_v1<axes = #vhlo.array_v1<[...]>[, device_ids = <attr>]>`).

A `tensor_v1` keeps the builtin dense attribute it was made from (same bytes, zero-copy) next to its
VHLO type; integer and float attributes keep their value as a Python number and their VHLO type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from stablehlo_py.vhlo.types import VhloType, format_f64
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py import specs
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float
from stablehlo_py.vhlo.attr_base import (
    TypeExtensionsV1Attr,
    VhloAttr,
    _parse_fields,
    is_vhlo,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser


def _text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

    if isinstance(a, TypeAttribute):
        return type_to_str(a)
    return attr_to_str(a)


# --------------------------------------------------------------------------------------------
# Enums: generated from the table


class VhloEnumAttr(VhloAttr):
    """`#vhlo<comparison_direction_v1 GT>`; ``data`` is the case name."""

    CASES: ClassVar[tuple[str, ...]]
    VALUES: ClassVar[dict[str, int]]
    _cache: ClassVar[dict[str, VhloEnumAttr]]
    """Each class's own instances by case (`get`), made with the class."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._cache = {}

    @property
    def case(self) -> str:
        return self.data  # type: ignore[return-value]

    @property
    def value(self) -> int:
        return self.VALUES[self.case]

    def mlir_text(self) -> str:
        return f"#vhlo<{self.SPEC_NAME} {self.data}>"

    @classmethod
    def get(cls, case: str) -> VhloEnumAttr:
        a = cls._cache.get(case)
        if a is None:
            if case not in cls.VALUES:
                raise ValueError(f"{case!r} is not a case of #vhlo<{cls.SPEC_NAME}>")
            a = cls._cache[case] = cls(case)
        return a

    @classmethod
    def from_value(cls, value: int) -> VhloEnumAttr:
        for name, v in cls.VALUES.items():
            if v == value:
                return cls.get(name)
        raise ValueError(f"{value} is not a value of #vhlo<{cls.SPEC_NAME}>")

    @classmethod
    def parse_case(cls, p: Parser) -> Attribute:
        p.ws()
        pos = p.pos
        word = p.try_bare_id()
        if word not in cls.VALUES:
            p.error(
                f"expected a {cls.SPEC_NAME} case ({', '.join(cls.CASES)}), found "
                f"{repr(word) if word else 'nothing'}",
                pos,
            )
        return cls.get(word)  # type: ignore[arg-type]


def _make_enum(spec: specs.AttrSpec) -> type[VhloEnumAttr]:
    cls_name = "".join(p[:1].upper() + p[1:] for p in spec.name.split("_")) + "Attr"
    cls = type(
        cls_name,
        (VhloEnumAttr,),
        {
            "name": f"vhlo.{spec.name}",
            "SPEC_NAME": spec.name,
            "CASES": tuple(c.name for c in spec.cases),
            "VALUES": {c.name: c.value for c in spec.cases},
        },
    )
    return irdl_attr_definition(cls)  # type: ignore[return-value]


ENUM_CLASSES: dict[str, type[VhloEnumAttr]] = {
    a.name: _make_enum(a) for a in specs.attrs() if a.kind == "enum"
}
"""Enum attribute classes by table name (`ENUM_CLASSES["comparison_direction_v1"]`)."""


def enum(name: str, case: str) -> VhloEnumAttr:
    """`#vhlo<name case>`, e.g. ``enum("precision_v1", "DEFAULT")``."""
    return ENUM_CLASSES[name].get(case)


# --------------------------------------------------------------------------------------------
# Scalars


def _builtin_type_text(t: Attribute) -> str:
    from stablehlo_py.vhlo.convert_types import to_builtin_type

    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(to_builtin_type(t))


@irdl_attr_definition
class IntegerV1Attr(VhloAttr):
    """`#vhlo.integer_v1<1 : i64>`: ``data`` is (VHLO integer type, value)."""

    name = "vhlo.integer_v1"
    SPEC_NAME = "integer_v1"

    @property
    def type(self) -> Attribute:
        return self.data[0]  # type: ignore[index]

    @property
    def value(self) -> int:
        return self.data[1]  # type: ignore[index]

    def children(self) -> tuple[Attribute, ...]:
        return (self.type,)

    def mlir_text(self) -> str:
        from stablehlo_py.vhlo.types import BOOL

        if self.type == BOOL:
            return f"#vhlo.integer_v1<{'true' if self.value else 'false'}>"
        return f"#vhlo.integer_v1<{self.value} : {_builtin_type_text(self.type)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        from stablehlo_py.vhlo.convert_types import to_vhlo_type
        from xdsl.dialects.builtin import IntegerAttr

        p.parse_literal("<")
        pos = p.pos
        a = p.parse_attribute()
        p.parse_literal(">", "to close #vhlo.integer_v1")
        if not isinstance(a, IntegerAttr):
            p.error("expected an integer attribute like `1 : i64` in #vhlo.integer_v1", pos)
        t = to_vhlo_type(a.type)
        if t is None:
            p.error("the type of #vhlo.integer_v1 has no VHLO counterpart", pos)
        return integer(a.value.data, t)


_INT_CACHE = CONTEXT.table("vhlo.integers", 1 << 16)  # (type, value) -> IntegerV1Attr


def integer(value: int, type_: Attribute | None = None) -> IntegerV1Attr:
    """`#vhlo.integer_v1<value : type>` (default i64), cached."""
    if type_ is None:
        from stablehlo_py.vhlo.types import I64

        type_ = I64
    key = (type_, int(value))
    a = _INT_CACHE.get(key)
    if a is None:
        a = _INT_CACHE.put(key, IntegerV1Attr(key))
    return a


@irdl_attr_definition
class FloatV1Attr(VhloAttr):
    """`#vhlo.float_v1<1.000000e-03 : !vhlo.f32_v1>`: ``data`` is (VHLO float type, value)."""

    name = "vhlo.float_v1"
    SPEC_NAME = "float_v1"

    @property
    def type(self) -> Attribute:
        return self.data[0]  # type: ignore[index]

    @property
    def value(self) -> float:
        return self.data[1]  # type: ignore[index]

    def children(self) -> tuple[Attribute, ...]:
        return (self.type,)

    def mlir_text(self) -> str:
        from stablehlo_py.vhlo.convert_types import to_builtin_type

        from stablehlo_py.ir.types import FLOAT_NAME

        sem = FLOAT_SEMANTICS[FLOAT_NAME[type(to_builtin_type(self.type))]]
        text = format_float(np.asarray(self.value, dtype=sem.dtype)[()], sem)
        return f"#vhlo.float_v1<{text} : {_text(self.type)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        from stablehlo_py.vhlo.convert_types import to_builtin_type

        from stablehlo_py.ir.text import dense as dense_text
        from stablehlo_py.ir.text.floats import NUMBER as _NUMBER

        p.parse_literal("<")
        p.ws()
        pos = p.pos
        m = _NUMBER.match(p.text, p.pos)
        if not m:
            p.error(f"expected a floating-point number, found {p._found()}")
        p.pos = m.end()
        p.parse_literal(":")
        t = p.parse_type()
        p.parse_literal(">", "to close #vhlo.float_v1")
        builtin = to_builtin_type(t)
        a = dense_text.scalar_attr(p, m.group(0), builtin, pos)
        return FloatV1Attr((t, a.value.data))  # type: ignore[attr-defined]


@irdl_attr_definition
class BooleanV1Attr(VhloAttr):
    """`#vhlo.bool_v1<true>`."""

    name = "vhlo.bool_v1"
    SPEC_NAME = "bool_v1"

    @property
    def value(self) -> bool:
        return self.data  # type: ignore[return-value]

    def mlir_text(self) -> str:
        return f"#vhlo.bool_v1<{'true' if self.data else 'false'}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        if p.try_keyword("true"):
            v = True
        else:
            p.parse_keyword("false")
            v = False
        p.parse_literal(">", "to close #vhlo.bool_v1")
        return TRUE if v else FALSE


TRUE = BooleanV1Attr(True)
FALSE = BooleanV1Attr(False)


def boolean(value: bool) -> BooleanV1Attr:
    return TRUE if value else FALSE


@irdl_attr_definition
class StringV1Attr(VhloAttr):
    """`#vhlo.string_v1<"foo">` (escaped as MLIR's printEscapedString)."""

    name = "vhlo.string_v1"
    SPEC_NAME = "string_v1"

    @property
    def value(self) -> str:
        return self.data  # type: ignore[return-value]

    def mlir_text(self) -> str:
        from stablehlo_py.ir.text.printer import string_literal

        return f"#vhlo.string_v1<{string_literal(self.value)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        s = p.parse_string()
        p.parse_literal(">", "to close #vhlo.string_v1")
        return string(s)


_STR_CACHE = CONTEXT.table("vhlo.strings", 65536)  # str -> StringV1Attr


def string(value: str) -> StringV1Attr:
    a = _STR_CACHE.get(value)
    if a is None:
        a = _STR_CACHE.put(value, StringV1Attr(value))
    return a


# --------------------------------------------------------------------------------------------
# Containers


@irdl_attr_definition
class ArrayV1Attr(VhloAttr):
    """`#vhlo.array_v1<[a, b]>`."""

    name = "vhlo.array_v1"
    SPEC_NAME = "array_v1"

    @property
    def value(self) -> tuple[Attribute, ...]:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return self.value

    def mlir_text(self) -> str:
        return f"#vhlo.array_v1<[{', '.join(_text(a) for a in self.value)}]>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        p.parse_literal("[")
        items = p.parse_comma_list(p.parse_attribute, "]")
        p.parse_literal("]")
        p.parse_literal(">", "to close #vhlo.array_v1")
        return array(items)


EMPTY_ARRAY = ArrayV1Attr(())


def array(items: Sequence[Attribute]) -> ArrayV1Attr:
    return EMPTY_ARRAY if not items else ArrayV1Attr(tuple(items))


@irdl_attr_definition
class DictionaryV1Attr(VhloAttr):
    """`#vhlo.dict_v1<{#vhlo.string_v1<"k"> = v, ...}>`: ``data`` is a tuple of (key, value) pairs.

    Keys must be VHLO attributes ("expected VHLO key attribute", as upstream's verifier)."""

    name = "vhlo.dict_v1"
    SPEC_NAME = "dict_v1"

    @property
    def value(self) -> tuple[tuple[Attribute, Attribute], ...]:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return tuple(x for kv in self.value for x in kv)

    def mlir_text(self) -> str:
        body = ", ".join(f"{_text(k)} = {_text(v)}" for k, v in self.value)
        return f"#vhlo.dict_v1<{{{body}}}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        p.parse_literal("{")
        items: list[tuple[Attribute, Attribute]] = []

        def entry() -> None:
            p.ws()
            pos = p.pos
            key = p.parse_attribute()
            if not is_vhlo(key):
                p.error("expected VHLO key attribute", pos)
            p.parse_literal("=")
            items.append((key, p.parse_attribute()))

        p.parse_comma_list(entry, "}")
        p.parse_literal("}")
        p.parse_literal(">", "to close #vhlo.dict_v1")
        return dictionary(items)


EMPTY_DICT = DictionaryV1Attr(())


def dictionary(items: Sequence[tuple[Attribute, Attribute]]) -> DictionaryV1Attr:
    return EMPTY_DICT if not items else DictionaryV1Attr(tuple(items))


def _flat_ints(a: TensorV1Attr) -> tuple[int, ...]:
    """The elements as Python ints, flattened (cached: dimension lists are converted often)."""
    return tuple(int(x) for x in a.values().reshape(-1))


# a tensor attribute -> its ints, by identity; only short ones (dimension lists) are worth keeping
_INTS = CONTEXT.identity_map("vhlo.tensor_ints", 65536)


@irdl_attr_definition
class TensorV1Attr(VhloAttr):
    """`#vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>`: ``data`` is (VHLO tensor type, builtin dense
    attribute with the same bytes)."""

    name = "vhlo.tensor_v1"
    SPEC_NAME = "tensor_v1"

    @property
    def type(self) -> Attribute:
        return self.data[0]  # type: ignore[index]

    @property
    def dense(self) -> DenseIntOrFPElementsAttr:
        return self.data[1]  # type: ignore[index]

    @property
    def raw_data(self) -> bytes:
        """The element bytes (a splat holds one element, as MLIR's raw data)."""
        return self.dense.data.data

    @property
    def is_empty(self) -> bool:
        from stablehlo_py.ir.types import num_elements

        return num_elements(self.dense.type.get_shape()) == 0

    def values(self) -> np.ndarray:
        from stablehlo_py.ir.text.dense import dense_values

        return dense_values(self.dense)

    ints = _INTS.memoize(_flat_ints, keep=lambda got: len(got) <= 64)

    def children(self) -> tuple[Attribute, ...]:
        return (self.type,)

    def mlir_text(self) -> str:
        return f"#vhlo.tensor_v1<{_text(self.dense)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        p.ws()
        pos = p.pos
        a = p.parse_attribute()
        p.parse_literal(">", "to close #vhlo.tensor_v1")
        if not isinstance(a, DenseIntOrFPElementsAttr):
            p.error("expected a dense elements attribute in #vhlo.tensor_v1", pos)
        t = tensor_attr(a)
        if t is None:
            p.error("the type of the dense attribute has no VHLO counterpart", pos)
        return t


def tensor_attr(dense: DenseIntOrFPElementsAttr) -> TensorV1Attr | None:
    """`#vhlo.tensor_v1<dense>`; None when the element type has no VHLO counterpart."""
    from stablehlo_py.vhlo.convert_types import to_vhlo_type

    t = to_vhlo_type(dense.type)
    if t is None:
        return None
    return TensorV1Attr((t, dense))


def i64_tensor(values: Sequence[int], shape: Sequence[int] | None = None) -> TensorV1Attr:
    """`#vhlo.tensor_v1<dense<...> : tensor<Nxi64>>` from Python ints (cached: dimension lists repeat)."""
    key = (tuple(int(v) for v in values), None if shape is None else tuple(shape))
    got = _I64_TENSORS.get(key)
    if got is None:
        got = _I64_TENSORS.put(key, _i64_tensor(*key))
    return got


_I64_TENSORS = CONTEXT.table("vhlo.i64_tensors", 65536)  # (values, shape) -> TensorV1Attr


def _i64_tensor(values: tuple[int, ...], shape: tuple[int, ...] | None) -> TensorV1Attr:
    from xdsl.dialects.builtin import IntegerType

    from stablehlo_py.ir.text.dense import make_dense
    from stablehlo_py.ir.types import tensor_type

    arr = np.asarray(list(values), dtype=np.int64)
    shp = (len(arr),) if shape is None else tuple(shape)
    dense = make_dense(tensor_type(IntegerType(64), shp), arr.reshape(shp))
    return tensor_attr(dense)  # type: ignore[return-value]


def bool_tensor(values: Sequence[bool]) -> TensorV1Attr:
    from xdsl.dialects.builtin import IntegerType

    from stablehlo_py.ir.text.dense import make_dense
    from stablehlo_py.ir.types import tensor_type

    arr = np.asarray(list(values), dtype=np.bool_)
    dense = make_dense(tensor_type(IntegerType(1), (len(arr),)), arr)
    return tensor_attr(dense)  # type: ignore[return-value]


@irdl_attr_definition
class TypeV1Attr(VhloAttr):
    """`#vhlo.type_v1<!vhlo.f32_v1>`."""

    name = "vhlo.type_v1"
    SPEC_NAME = "type_v1"

    @property
    def value(self) -> Attribute:
        return self.data  # type: ignore[return-value]

    def children(self) -> tuple[Attribute, ...]:
        return (self.value,)

    def mlir_text(self) -> str:
        return f"#vhlo.type_v1<{_text(self.value)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        p.parse_literal("<")
        t = p.parse_type()
        p.parse_literal(">", "to close #vhlo.type_v1")
        return TypeV1Attr(t)


# --------------------------------------------------------------------------------------------
# Structured attributes


def _parse_int_list(p: Parser) -> tuple[int, ...]:
    return tuple(p.parse_delimited("[", p.parse_integer, "]"))


def _of(kind: type[Attribute] | tuple[type[Attribute], ...], what: str):  # type: ignore[no-untyped-def]
    """A field parser that accepts only attributes of ``kind`` (upstream's verifiers)."""

    def parse(p: Parser) -> Attribute:
        return p.parse_attribute_of(kind, f"expected {what}")

    return parse


def _array_of(kind: type[Attribute], what: str):  # type: ignore[no-untyped-def]
    def parse(p: Parser) -> Attribute:
        p.ws()
        pos = p.pos
        a = p.parse_attribute()
        if not isinstance(a, ArrayV1Attr) or not all(isinstance(x, kind) for x in a.value):
            p.error(f"expected a #vhlo.array_v1 of {what}", pos)
        return a

    return parse


@irdl_attr_definition
class OutputOperandAliasV1Attr(VhloAttr):
    """`#vhlo.output_operand_alias_v1<outputTupleIndices = [], operandIndex = 0, operandTupleIndices = []>`."""

    name = "vhlo.output_operand_alias_v1"
    SPEC_NAME = "output_operand_alias_v1"

    def mlir_text(self) -> str:
        out, idx, opnd = self.data  # type: ignore[misc]
        return (
            f"#vhlo.output_operand_alias_v1<outputTupleIndices = [{', '.join(map(str, out))}], "
            f"operandIndex = {idx}, operandTupleIndices = [{', '.join(map(str, opnd))}]>"
        )

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.output_operand_alias_v1",
            {
                "outputTupleIndices": _parse_int_list,
                "operandIndex": lambda p: p.parse_integer(),
                "operandTupleIndices": _parse_int_list,
            },
        )
        return OutputOperandAliasV1Attr(
            (f["outputTupleIndices"], f["operandIndex"], f["operandTupleIndices"])
        )


@irdl_attr_definition
class ResultAccuracyV1Attr(VhloAttr):
    """`#vhlo.result_accuracy_v1<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0,
    mode = #vhlo<result_accuracy_mode_v1 DEFAULT>>`: ``data`` is (atol, rtol, ulps, mode)."""

    name = "vhlo.result_accuracy_v1"
    SPEC_NAME = "result_accuracy_v1"

    @property
    def mode(self) -> Attribute:
        return self.data[3]  # type: ignore[index]

    def children(self) -> tuple[Attribute, ...]:
        return (self.mode,)

    @property
    def is_default(self) -> bool:
        atol, rtol, ulps, mode = self.data  # type: ignore[misc]
        return (
            atol == 0.0
            and rtol == 0.0
            and ulps == 0
            and mode == enum("result_accuracy_mode_v1", "DEFAULT")
        )

    def mlir_text(self) -> str:
        atol, rtol, ulps, mode = self.data  # type: ignore[misc]
        return (
            f"#vhlo.result_accuracy_v1<atol = {format_f64(atol)}, rtol = {format_f64(rtol)}, "
            f"ulps = {ulps}, mode = {_text(mode)}>"
        )

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        from stablehlo_py.vhlo.types import _parse_float

        mode = _of(ENUM_CLASSES["result_accuracy_mode_v1"], "VHLO result accuracy mode")
        f = _parse_fields(
            p,
            "#vhlo.result_accuracy_v1",
            {
                "atol": _parse_float,
                "rtol": _parse_float,
                "ulps": lambda p: p.parse_integer(),
                "mode": mode,
            },
        )
        return ResultAccuracyV1Attr((f["atol"], f["rtol"], f["ulps"], f["mode"]))


def default_result_accuracy() -> ResultAccuracyV1Attr:
    return ResultAccuracyV1Attr((0.0, 0.0, 0, enum("result_accuracy_mode_v1", "DEFAULT")))


@irdl_attr_definition
class SubAxisInfoV1Attr(VhloAttr):
    """`#vhlo.sub_axis_info_v1<pre_size = 1, size = 2>`."""

    name = "vhlo.sub_axis_info_v1"
    SPEC_NAME = "sub_axis_info_v1"

    def mlir_text(self) -> str:
        pre, size = self.data  # type: ignore[misc]
        return f"#vhlo.sub_axis_info_v1<pre_size = {pre}, size = {size}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.sub_axis_info_v1",
            {"pre_size": lambda p: p.parse_integer(), "size": lambda p: p.parse_integer()},
        )
        return SubAxisInfoV1Attr((f["pre_size"], f["size"]))


@irdl_attr_definition
class AxisRefV1Attr(VhloAttr):
    """`#vhlo.axis_ref_v1<name = #vhlo.string_v1<"x">[, sub_axis_info = #vhlo.sub_axis_info_v1<...>]>`."""

    name = "vhlo.axis_ref_v1"
    SPEC_NAME = "axis_ref_v1"

    def children(self) -> tuple[Attribute, ...]:
        return tuple(a for a in self.data if a is not None)  # type: ignore[union-attr]

    def mlir_text(self) -> str:
        name, sub = self.data  # type: ignore[misc]
        tail = "" if sub is None else f", sub_axis_info = {_text(sub)}"
        return f"#vhlo.axis_ref_v1<name = {_text(name)}{tail}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.axis_ref_v1",
            {
                "name": _of(StringV1Attr, "a #vhlo.string_v1 axis name"),
                "sub_axis_info": _of(SubAxisInfoV1Attr, "a #vhlo.sub_axis_info_v1"),
            },
            optional=frozenset({"sub_axis_info"}),
        )
        return AxisRefV1Attr((f["name"], f.get("sub_axis_info")))


@irdl_attr_definition
class ReplicaGroupMeshAxesV1Attr(VhloAttr):
    """`#vhlo.replica_group_mesh_axes_v1<mesh = <attr>, axes = #vhlo.array_v1<[...]>>`."""

    name = "vhlo.replica_group_mesh_axes_v1"
    SPEC_NAME = "replica_group_mesh_axes_v1"

    def children(self) -> tuple[Attribute, ...]:
        return tuple(self.data)  # type: ignore[arg-type]

    def mlir_text(self) -> str:
        mesh, axes = self.data  # type: ignore[misc]
        return f"#vhlo.replica_group_mesh_axes_v1<mesh = {_text(mesh)}, axes = {_text(axes)}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.replica_group_mesh_axes_v1",
            {
                "mesh": _of(
                    (StringV1Attr, MeshV1Attr), "a #vhlo.string_v1 mesh name or a #vhlo.mesh_v1"
                ),
                "axes": _array_of(AxisRefV1Attr, "#vhlo.axis_ref_v1"),
            },
        )
        return ReplicaGroupMeshAxesV1Attr((f["mesh"], f["axes"]))


@irdl_attr_definition
class MeshAxisV1Attr(VhloAttr):
    """`#vhlo.mesh_axis_v1<name = #vhlo.string_v1<"x">, size = 2>`."""

    name = "vhlo.mesh_axis_v1"
    SPEC_NAME = "mesh_axis_v1"

    def children(self) -> tuple[Attribute, ...]:
        return (self.data[0],)  # type: ignore[index]

    def mlir_text(self) -> str:
        name, size = self.data  # type: ignore[misc]
        return f"#vhlo.mesh_axis_v1<name = {_text(name)}, size = {size}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.mesh_axis_v1",
            {
                "name": _of(StringV1Attr, "a #vhlo.string_v1 axis name"),
                "size": lambda p: p.parse_integer(),
            },
        )
        return MeshAxisV1Attr((f["name"], f["size"]))


@irdl_attr_definition
class MeshV1Attr(VhloAttr):
    """`#vhlo.mesh_v1<axes = #vhlo.array_v1<[...]>[, device_ids = <attr>]>`."""

    name = "vhlo.mesh_v1"
    SPEC_NAME = "mesh_v1"

    def children(self) -> tuple[Attribute, ...]:
        return tuple(a for a in self.data if a is not None)  # type: ignore[union-attr]

    def mlir_text(self) -> str:
        axes, ids = self.data  # type: ignore[misc]
        tail = "" if ids is None else f", device_ids = {_text(ids)}"
        return f"#vhlo.mesh_v1<axes = {_text(axes)}{tail}>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.mesh_v1",
            {
                "axes": _array_of(MeshAxisV1Attr, "#vhlo.mesh_axis_v1"),
                "device_ids": _of(TensorV1Attr, "a #vhlo.tensor_v1 of device ids"),
            },
            optional=frozenset({"device_ids"}),
        )
        return MeshV1Attr((f["axes"], f.get("device_ids")))


STRUCT_CLASSES: dict[str, type[VhloAttr]] = {
    c.SPEC_NAME: c
    for c in (
        ArrayV1Attr,
        BooleanV1Attr,
        DictionaryV1Attr,
        FloatV1Attr,
        IntegerV1Attr,
        OutputOperandAliasV1Attr,
        StringV1Attr,
        TensorV1Attr,
        TypeV1Attr,
        TypeExtensionsV1Attr,
        ResultAccuracyV1Attr,
        SubAxisInfoV1Attr,
        AxisRefV1Attr,
        ReplicaGroupMeshAxesV1Attr,
        MeshAxisV1Attr,
        MeshV1Attr,
    )
}

ATTR_CLASSES: dict[str, type[VhloAttr]] = {**STRUCT_CLASSES, **ENUM_CLASSES}
"""Every VHLO attribute class by table name; covers the ``[[attr]]`` rows exactly."""


def register(reg: Registry) -> None:
    reg.enum_dialects.add("vhlo")
    for name, cls in STRUCT_CLASSES.items():
        reg.attr_parsers[f"vhlo.{name}"] = cls.parse_body  # type: ignore[attr-defined]
    for name, ecls in ENUM_CLASSES.items():
        reg.attr_parsers[f"vhlo.{name}"] = ecls.parse_case


_ = VhloType
