"""Shardy's ops (stablehlo_py/ir/ops/sdy.py) and attributes (stablehlo_py/ir/sdy_attrs.py): the text
jaxlib prints round-trips byte for byte (the module below is jaxlib 0.10.2's printing of itself, see
tests/oracle/test_sharded_programs_shardy.py for the comparison), and the verifiers refuse what
Shardy's do."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import ParseError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.sdy_attrs import (
    AxisRef,
    DimSharding,
    Mesh,
    Sharding,
    parse_manual_axes,
    parse_mesh,
    parse_sharding,
    parse_sharding_per_value,
    sharding_text,
)
from stablehlo_py.ir.verify import verify

ALL_OPS = """module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  sdy.mesh @rev = <["a"=4], device_ids=[3, 2, 1, 0]>
  sdy.mesh @one = <[], device_ids=[0]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {?}]>}, %arg1: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {"y"}p1]> {foo = 1 : i64} : tensor<8x4xf32>
    %1 = sdy.reshard %0 <mesh<["z"=4]>, [{"z":(1)2}, {}], replicated={"z":(2)2}> : tensor<8x4xf32>
    %2 = sdy.propagation_barrier %1 allowed_direction=FORWARD : tensor<8x4xf32>
    sdy.sharding_group %2 group_id=3 : tensor<8x4xf32>
    %3:2 = sdy.manual_computation(%2, %arg1) in_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{}, {"y"}], unreduced={"x"}>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] manual_axes={"x", "y"} (%arg2: tensor<2x4xf32>, %arg3: tensor<4x2xf32>) {
      %5 = stablehlo.concatenate %arg2, %arg2, dim = 0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
      %6 = stablehlo.concatenate %arg3, %arg3, dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
      sdy.return %5, %6 : tensor<4x4xf32>, tensor<4x4xf32>
    } {xla.attr = "k"} : (tensor<8x4xf32>, tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>)
    %4 = stablehlo.custom_call @foo(%3#1) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=4} reduction={j} need_replication={i} blocked_propagation={j}, custom>} : (tensor<4x4xf32>) -> tensor<4xf32>
    return %3#0, %3#1 : tensor<8x4xf32>, tensor<4x4xf32>
  }
}
"""


def test_every_op_round_trips_as_jaxlib_prints_it() -> None:
    m = parse(ALL_OPS)
    verify(m)
    assert print_ir(m) == ALL_OPS
    generic = print_ir(m, generic=True)
    assert (
        '"sdy.manual_computation"(%2, %arg1) <{in_shardings = #sdy.sharding_per_value<[' in generic
    )
    assert 'manual_axes = #sdy<manual_axes{"x", "y"}>' in generic
    assert "allowed_direction = 1 : i32" in generic  # Shardy's I32 enum
    assert print_ir(parse(generic)) == ALL_OPS


def test_whitespace_in_attributes_prints_canonically() -> None:
    text = ALL_OPS.replace('<@mesh, [{"x"}, {"y"}p1]>', '< @mesh ,[ {"x"},\n {"y"}p1 ] >')
    text = text.replace(
        "{sdy.sharding = #sdy.sharding<@mesh, [", "{sdy.sharding = #sdy.sharding< @mesh,["
    )
    assert print_ir(parse(text)) == ALL_OPS


def test_attribute_structure() -> None:
    assert parse_mesh('<["x"=2, "y"=4], device_ids=[0, 1, 2, 3, 4, 5, 6, 7]>') == Mesh(
        (("x", 2), ("y", 4)), tuple(range(8))
    )
    s = parse_sharding('#sdy.sharding<@m, [{"x":(1)2, ?}p0, {}], replicated={"y"}>')
    assert s == Sharding(
        "m",
        (DimSharding((AxisRef("x", 1, 2),), closed=False, priority=0), DimSharding(())),
        replicated=(AxisRef("y"),),
    )
    assert sharding_text(s) == '#sdy.sharding<@m, [{"x":(1)2, ?}p0, {}], replicated={"y"}>'
    assert len(parse_sharding_per_value('[<@m, []>, <@m, [{"x"}]>]')) == 2
    assert parse_manual_axes('{"x", "y"}') == ("x", "y")


def _with(old: str, new: str) -> str:
    assert old in ALL_OPS
    return ALL_OPS.replace(old, new)


def _edits(table: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str, str]]:
    """(old, new, message) for each piece of ALL_OPS and the variants of it that give a message."""
    return [(old, new, message) for old, variants in table.items() for new, message in variants]


MESH_REF = '<@mesh, [{"x"}, {"y"}p1]>'

VERIFIER_ERRORS = {
    MESH_REF: [
        ('<@nomesh, [{"x"}, {"y"}p1]>', "unknown mesh: @nomesh"),
        ('<@mesh, [{"x"}]>', "doesn't match tensor rank: 1 != 2"),
        ('<@mesh, [{"x"}, {"w"}]>', 'unknown axis name: "w"'),
        ('<@mesh, [{"x"}, {"x"}]>', 'duplicate axis ref: "x"'),
    ],
    '[{"z":(1)2}, {}]': [('[{"z":(1)3}, {}]', 'sub-axis "z":(1)3 does not divide')],
    "device_ids=[3, 2, 1, 0]": [
        ("device_ids=[3, 2, 1]", "must match the number of device"),
        ("device_ids=[3, 2, 1, 1]", "sorted device ids must be an iota"),
    ],
    "allowed_direction=FORWARD": [("allowed_direction=BOTH", "cannot specify `BOTH`")],
    'in_shardings=[<@mesh, [{"x", "y"}, {}]>': [
        (
            'in_shardings=[<@mesh, [{"x"}, {}]>',
            "Expected shape: tensor<4x4xf32>, actual shape: tensor<2x4xf32>",
        ),
    ],
    'in_shardings=[<@mesh, [{"x", "y"}, {}]>, ': [
        ("in_shardings=[", "number of in shardings must match number of operands: 1 != 2"),
    ],
    'manual_axes={"x", "y"}': [('manual_axes={"x", "q"}', 'unknown axis name: "q"')],
}

SYNTAX_ERRORS = {
    MESH_REF: [
        ('<@mesh, [{"x"}, {"y"}p1], replicated={}>', "at least one axis"),
        ("<@mesh, [{x}]>", "expected an axis name string"),
    ],
    '<["x"=2, "y"=2]>': [('<["x"=2, "y"]>', "expected '='")],
    "allowed_direction=FORWARD": [("allowed_direction=SIDEWAYS", "expected one of NONE")],
    'manual_axes={"x", "y"}': [('manual_axes={"x":(1)2}', "must be a whole axis")],
}


@pytest.mark.parametrize(("old", "new", "message"), _edits(VERIFIER_ERRORS))
def test_verifier_errors(old: str, new: str, message: str) -> None:
    m = parse(_with(old, new))
    with pytest.raises(StableHLOError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify(m)


@pytest.mark.parametrize(("old", "new", "message"), _edits(SYNTAX_ERRORS))
def test_syntax_errors_are_located(old: str, new: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as e:
        parse(_with(old, new))
    assert str(e.value).startswith("-:")


def test_upstream_tests_mesh_holder_stays_as_written() -> None:
    """Upstream StableHLO's tests write `"sdy.mesh"` without Shardy's `mesh` (stablehlo-opt has no sdy
    dialect): it stays an op as written, holding the symbol and its `stablehlo.mesh`."""
    from stablehlo_py.ir.registry import is_unregistered

    line = (
        '  "sdy.mesh"() {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}, '
        'sym_name = "m"} : () -> ()'
    )
    m = parse("module {\n" + line + "\n}\n", allow_unregistered=True)
    verify(m)
    (op,) = list(m.body.ops)
    assert is_unregistered(op) and op.name == "sdy.mesh"
    assert line in print_ir(m)


def test_generic_form_with_inherent_attributes_in_the_dictionary() -> None:
    m = parse(
        'module {\n  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "m"} : () -> ()\n'
        "  func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        '    %0 = "sdy.sharding_constraint"(%a) {sharding = #sdy.sharding<@m, [{"x"}]>} '
        ": (tensor<2xf32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n"
    )
    verify(m)
    out = print_ir(m)
    assert 'sdy.mesh @m = <["x"=2]>' in out
    assert 'sdy.sharding_constraint %arg0 <@m, [{"x"}]> : tensor<2xf32>' in out
