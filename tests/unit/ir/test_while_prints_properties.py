"""stablehlo.while's custom printer prints the op's properties that differ from their default in its
`attributes {...}` dictionary (as MLIR's printOptionalAttrDictWithKeyword prints inherent attributes),
so a property a new StableHLO version adds to `while` needs no printer edit (docs/adding-a-version.md).
Checked on a test-local subclass with one extra property."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.irdl import irdl_op_definition, opt_prop_def, region_def, var_operand_def, var_result_def

from stablehlo_py.ir import parse
from stablehlo_py.ir.ops.base import StableHLOOp
from stablehlo_py.ir.ops.control_flow import WhileOp
from stablehlo_py.ir import print_ir

PROGRAM = """func.func @main(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64> attributes {probe = 1 : i32}
  cond {
    %1 = stablehlo.compare  LT, %iterArg, %iterArg : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    stablehlo.return %iterArg : tensor<i64>
  }
  return %0 : tensor<i64>
}"""


@irdl_op_definition
class _WhileWithTrip(StableHLOOp):
    """WhileOp's fields and its own printer, plus a property (xDSL op definitions cannot be
    subclassed with extra fields)."""

    name = "stablehlo.while"
    operand = var_operand_def()
    cond = region_def()
    body = region_def()
    results_ = var_result_def()
    trip = opt_prop_def(IntegerAttr, default_value=IntegerAttr(0, IntegerType(64)))
    print_custom = WhileOp.print_custom
    asm_block_arg_name = WhileOp.asm_block_arg_name


def _as_subclass(module):
    op = next(o for o in module.walk() if isinstance(o, WhileOp))
    new = _WhileWithTrip.build_generic(
        list(op.operands), [r.type for r in op.results], {}, dict(op.attributes),
        [op.detach_region(r) for r in list(op.regions)],
    )
    op.parent.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()
    return new


def _printed_with_trip(trip: int) -> str:
    """PROGRAM printed with its while as the subclass, its ``trip`` property set to ``trip``."""
    module = parse(PROGRAM)
    op = _as_subclass(module)
    op.properties["trip"] = IntegerAttr(trip, IntegerType(64))
    return print_ir(module)


def test_a_non_default_property_prints_in_the_attribute_dictionary() -> None:
    text = _printed_with_trip(7)
    assert "attributes {probe = 1 : i32, trip = 7 : i64}" in text


def test_a_default_property_is_elided() -> None:
    text = _printed_with_trip(0)
    assert "attributes {probe = 1 : i32}" in text
    assert "trip" not in text
