"""Each struct attribute's description (stablehlo_py/ir/attrs) round-trips through everything derived
from it: its text, the builder's converter and the MLIR bytecode codec; and a field added to a
description (a test-local copy of dot's) shows up in all three with no other edit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from stablehlo_py.serialization.mlirbc import read_dialect, stablehlo, write_dialect
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float32Type,
    SymbolRefAttr,
)
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.builder.attrs import Ctx, convert, struct_converter
from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse
from stablehlo_py.ir.attrs.axis_ref import AxisRef, AxisRefAttr
from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC, STRUCTS
from stablehlo_py.ir.attrs.channel_handle import ChannelHandle
from stablehlo_py.ir.attrs.conv import ConvDimensionNumbers
from stablehlo_py.ir.attrs.dot import DotDimensionNumbers
from stablehlo_py.ir.attrs.dot_algorithm import DotAlgorithm
from stablehlo_py.ir.attrs.gather import GatherDimensionNumbers
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAlias
from stablehlo_py.ir.attrs.replica_group_mesh_axes import MeshAxes
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracy
from stablehlo_py.ir.attrs.scatter import ScatterDimensionNumbers
from stablehlo_py.ir.attrs.struct import DIMS, NONEMPTY, DescribedAttr, describe, f64_bits, field
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.text.parser import Parser
from stablehlo_py.ir.text.printer import attr_to_str

VALUES: dict[str, list[Any]] = {
    "dot": [DotDimensionNumbers(), DotDimensionNumbers((0,), (0,), (2,), (1,))],
    "gather": [GatherDimensionNumbers(), GatherDimensionNumbers((1,), (0,), (2,), (1,), (0,), 1)],
    "scatter": [ScatterDimensionNumbers((1,), (0,), (), (), (0,), 2)],
    "conv": [
        ConvDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)),
        ConvDimensionNumbers(7, 0, (9,), 0, 0, (), 0, 0, ()),  # only the `raw` form can say it
    ],
    "output_operand_alias": [OutputOperandAlias((0,), 1, (2, -1)), OutputOperandAlias()],
    "dot_algorithm": [
        DotAlgorithm(BFloat16Type(), BFloat16Type(), Float32Type(), 1, 1, 3, False),
        DotAlgorithm(Float8E4M3FNType(), Float8E5M2Type(), Float32Type(), 1, 1, 1, True),
    ],
    "result_accuracy": [
        ResultAccuracy(),
        ResultAccuracy(f64_bits(1e-5), f64_bits(-0.0), 3, "TOLERANCE"),
    ],
    "channel_handle": [ChannelHandle(1, 2), ChannelHandle()],
    "axis_ref": [AxisRef("x"), AxisRef("y", (1, 2))],
    "replica_group_mesh_axes": [
        MeshAxes(SymbolRefAttr("mesh"), (AxisRefAttr("x"), AxisRefAttr("y", (2, 2)))),
        MeshAxes(SymbolRefAttr("m"), ()),
    ],
}

CASES = [(m, v) for m, vs in VALUES.items() for v in vs]


def test_every_description_is_exercised() -> None:
    assert set(VALUES) == set(BY_MNEMONIC) == {describe(c).mnemonic for c in STRUCTS}


def _parse_attr(text: str) -> Any:
    p = Parser(text, default_registry(), "t.mlir")
    a = p.parse_attribute()
    assert p.at_end()
    return a


@pytest.mark.parametrize(("mnemonic", "value"), CASES)
def test_text_round_trip(mnemonic: str, value: Any) -> None:
    d = BY_MNEMONIC[mnemonic]
    a = d.attr.new(value)
    text = a.mlir_text()
    assert text.startswith(f"#stablehlo.{mnemonic}<") and attr_to_str(a) == text
    back = _parse_attr(text)
    assert type(back) is d.attr and back == a


@pytest.mark.parametrize(("mnemonic", "value"), CASES)
def test_fields_and_build_agree(mnemonic: str, value: Any) -> None:
    d = BY_MNEMONIC[mnemonic]
    a = d.attr.new(value)
    assert d.build(**d.values(value)) == a
    # the fields every description names by upstream's parameter names (VHLO's, where flattened)
    assert list(d.values(value)) == [f.key for f in d.fields]


@pytest.mark.parametrize(
    ("mnemonic", "value"), [(m, v) for m, v in CASES if m not in ("result_accuracy",)]
)
def test_builder_round_trip(mnemonic: str, value: Any) -> None:
    d = BY_MNEMONIC[mnemonic]
    conv = struct_converter(d.attr)
    ctx = Ctx("stablehlo.op", "x", None, {})
    as_dict = {f.name: getattr(value, f.name) for f in d.fields}
    lists = {k: list(v) if isinstance(v, tuple) else v for k, v in as_dict.items()}
    assert convert(conv, lists, ctx) == d.attr.new(value)
    assert convert(conv, value, ctx) == d.attr.new(value)


def _bytecode_round_trip(attrs: list[Any]) -> list[Any]:
    args = ", ".join(f"%a{i}: tensor<f32>" for i in range(len(attrs)))
    m = parse(f"func.func @f({args}) {{\n  return\n}}", "m.mlir")
    func = m.body.block.first_op
    func.properties["arg_attrs"] = ArrayAttr([DictionaryAttr({"t.x": a}) for a in attrs])
    _, _, back = read_dialect(write_dialect(m))
    got = back.body.block.first_op.properties["arg_attrs"]
    return [d.data["t.x"] for d in got.data]


def test_bytecode_round_trip() -> None:
    attrs = [BY_MNEMONIC[m].attr.new(v) for m, v in CASES]
    assert _bytecode_round_trip(attrs) == attrs


def test_bytecode_codes_are_upstreams() -> None:
    """The descriptions' kind codes are StablehloBytecode.cpp's AttributeCode values."""
    codes = {describe(c).mnemonic: describe(c).bytecode for c in STRUCTS}
    assert codes == {
        "channel_handle": stablehlo.CHANNEL_HANDLE,
        "conv": stablehlo.CONV_DIMENSION_NUMBERS,
        "dot": stablehlo.DOT_DIMENSION_NUMBERS,
        "gather": stablehlo.GATHER_DIMENSION_NUMBERS,
        "scatter": stablehlo.SCATTER_DIMENSION_NUMBERS,
        "output_operand_alias": stablehlo.OUTPUT_OPERAND_ALIAS,
        "dot_algorithm": stablehlo.DOT_ALGORITHM,
        "result_accuracy": stablehlo.RESULT_ACCURACY,
        "replica_group_mesh_axes": stablehlo.REPLICA_GROUP_MESH_AXES,
        "axis_ref": stablehlo.AXIS_REF,
    }


def test_vhlo_names() -> None:
    """Where VHLO's flat attributes are named otherwise than the struct's fields (vhlo/flattened.py
    FIELD_OF), the description says so."""
    ch = BY_MNEMONIC["channel_handle"]
    assert [(f.key, f.vhlo) for f in ch.fields] == [
        ("handle", "channel_id"),
        ("type", "channel_type"),
    ]
    ra = BY_MNEMONIC["result_accuracy"]
    assert [(f.name, f.key) for f in ra.fields][:2] == [("atol_bits", "atol"), ("rtol_bits", "rtol")]


# ------------------------------------------------------------------ a field added to a description
@dataclass(frozen=True)
class _DotPlus(DotDimensionNumbers):
    """dot's description (its four fields, in order) and one new field."""

    lhs_ragged_dimensions: tuple[int, ...] = field(DIMS, (), printed=NONEMPTY)  # the new field


@irdl_attr_definition
class _DotPlusAttr(DescribedAttr):
    name = "stablehlo.test_dot_plus"
    STRUCT = _DotPlus
    BYTECODE = 99


def test_added_field_shows_up_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    a = _DotPlusAttr.new(_DotPlus((0,), (0,), (2,), (1,), (3,)))
    # text
    text = a.mlir_text()
    assert text.endswith("rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [3]>")
    p = Parser(text, default_registry(), "t.mlir")
    p.pos = len("#stablehlo.test_dot_plus")
    assert _DotPlusAttr.parse_body(p) == a
    with pytest.raises(ParseError, match="`lhs_ragged_dimensions` in #stablehlo.test_dot_plus"):
        p = Parser("<foo = [1]>", default_registry(), "t.mlir")
        _DotPlusAttr.parse_body(p)
    # builder
    conv = struct_converter(_DotPlusAttr)
    ctx = Ctx("stablehlo.op", "x", None, {})
    built = convert(
        conv,
        {
            "lhs_batching_dimensions": [0],
            "rhs_batching_dimensions": [0],
            "lhs_contracting_dimensions": [2],
            "rhs_contracting_dimensions": [1],
            "lhs_ragged_dimensions": [3],
        },
        ctx,
    )
    assert built == a
    # bytecode: written after the four lists, read back once the code is known to the reader
    monkeypatch.setitem(stablehlo._STRUCT_BY_CODE, 99, _DotPlusAttr.DESC)
    assert _bytecode_round_trip([a]) == [a]


def test_messages_are_the_syntaxs() -> None:
    """Each syntax family keeps its own diagnostics (checked word for word by the suites)."""
    cases = {
        "#stablehlo.dot<lhs_batching_dimensions = [0], lhs_batching_dimensions = [0]>": (
            "t.mlir:1:47: error: duplicated `lhs_batching_dimensions` entry in #stablehlo.dot"
        ),
        "#stablehlo.gather<offset_dims = [1], offset_dims = [2]>": (
            "t.mlir:1:38: error: duplicated `offset_dims` entry"
        ),
        "#stablehlo.channel_handle<chan = 1>": (
            "t.mlir:1:27: error: unknown field 'chan' in #stablehlo.channel_handle "
            "(expected one of handle, type)"
        ),
        "#stablehlo.dot_algorithm<lhs_precision_type = tf32>": (
            "t.mlir:1:52: error: #stablehlo.dot_algorithm is missing required parameter: "
            "rhs_precision_type"
        ),
        "#stablehlo.axis_ref<sub_axis_info = (1)2>": (
            "t.mlir:1:42: error: #stablehlo.axis_ref needs a 'name'"
        ),
        "#stablehlo.result_accuracy<atol = 1.0>": (
            "t.mlir:1:39: error: #stablehlo.result_accuracy is missing required parameter: mode"
        ),
    }
    for text, message in cases.items():
        with pytest.raises(ParseError) as e:
            _parse_attr(text)
        assert str(e.value) == message



def test_vhlo_flattened_fields_are_the_descriptions() -> None:
    """vhlo/flattened.py's flat attributes, in order, are each flattened struct's VHLO field names
    (what WP6b derives them from)."""
    from stablehlo_py.vhlo.flattened import FIELD_OF, FLATTENED

    for entries in FLATTENED.values():
        for _attr, mnemonic, flat in entries:
            d = BY_MNEMONIC[mnemonic]
            assert tuple(f.vhlo for f in d.fields) == flat
            assert {f.vhlo: f.key for f in d.fields if f.vhlo != f.key}.items() <= FIELD_OF.items()
