"""The described StableHLO structs VHLO mirrors one to one (vhlo/convert.py, from the descriptions in
stablehlo_py/ir/attrs and the VHLO attributes named after them), the structs the IR keeps as text
(`#stablehlo.mesh`, `#stablehlo.mesh_axis`) included: no text round trip through a second parser."""

from __future__ import annotations

import pytest
from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import convert
from stablehlo_py.vhlo import types as vt
from stablehlo_py.vhlo.structs import parse_attr_text

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.attrs.catalog import DESCRIBED, TEXT_KEPT
from stablehlo_py.ir.attrs.mesh import Mesh, MeshAttr, MeshAxis
from stablehlo_py.ir.future_type import FutureType
from stablehlo_py.ir.text.printer import attr_to_str

LONG = (
    '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
    '#stablehlo.mesh_axis<name = "y", size = 2>], device_ids = dense<[3, 2, 1, 0]> : tensor<4xi64>>'
)
SHORT = (
    '#stablehlo.mesh<axes=[<name = "x", size = 2>, <name = "y", size = 2>], '
    "device_ids=dense<[3, 2, 1, 0]> : tensor<4xi64>>"
)


def test_the_mirrored_structs_are_the_described_ones_with_a_vhlo_attribute() -> None:
    assert set(convert._MIRRORS) == {
        "output_operand_alias",
        "result_accuracy",
        "replica_group_mesh_axes",
        "axis_ref",
        "mesh",
        "mesh_axis",
        "type_extensions",
    }
    for mnemonic, cls in convert._MIRRORS.items():
        assert cls.SPEC_NAME == f"{mnemonic}_v1"
        assert len(cls.spec().parameters) == len(DESCRIBED[mnemonic].fields)


def test_the_mesh_description_reads_both_spellings() -> None:
    d = MeshAttr.DESC
    assert d.text_kept and {c.DESC.mnemonic for c in TEXT_KEPT} == {"mesh", "mesh_axis"}
    a, b = convert.to_vhlo_attr(OpaqueAttr(LONG)), convert.to_vhlo_attr(OpaqueAttr(SHORT))
    assert isinstance(a, va.MeshV1Attr) and a == b
    back = convert.to_builtin_attr(a)
    assert isinstance(back, OpaqueAttr) and attr_to_str(back) == LONG
    assert d.text(Mesh((MeshAxis("x", 2),))) == (
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>]>'
    )


@pytest.mark.parametrize(
    "text",
    [
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>], bogus = 1>',
        '#stablehlo.mesh_axis<name = "x">',
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>]',
    ],
)
def test_an_unreadable_text_kept_struct_has_no_vhlo_counterpart(text: str) -> None:
    assert convert.to_vhlo_attr(OpaqueAttr(text)) is None


def test_a_replica_group_with_an_inline_mesh_round_trips() -> None:
    text = (
        f"#stablehlo.replica_group_mesh_axes<mesh = {LONG}, "
        'axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>'
    )
    a = parse_attr_text(text)
    v = convert.to_vhlo_attr(a)
    assert isinstance(v, va.ReplicaGroupMeshAxesV1Attr)
    assert isinstance(v.data[0], va.MeshV1Attr)
    assert convert.to_builtin_attr(v) == a
    by_name = parse_attr_text(
        '#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x">]>'
    )
    assert convert.to_builtin_attr(convert.to_vhlo_attr(by_name)) == by_name


@pytest.mark.parametrize(
    "text", ["#stablehlo.bounds<3, ?>", "#stablehlo.type_extensions<bounds = [3, ?]>"]
)
def test_bounds_kept_as_text_convert(text: str) -> None:
    want = va.TypeExtensionsV1Attr((3, -1))
    assert convert.to_vhlo_attr(OpaqueAttr(text)) == want
    assert convert.to_vhlo_encoding(OpaqueAttr(text)) == want
    assert attr_to_str(convert.to_builtin_attr(want)) == "#stablehlo.bounds<3, ?>"


def test_future_and_witness_types_convert_back_without_text() -> None:
    future = parse_attr_text("!stablehlo.future<tensor<4xf32>, tensor<i32>>")
    assert isinstance(future, FutureType)
    assert convert.to_builtin_type(convert.to_vhlo_type(future)) == future
    witness = convert.to_builtin_type(vt.SIMPLE["witness_v1"])
    assert witness.name == "shape.witness"
