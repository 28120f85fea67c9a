"""stablehlo_py/ir/xdsl_compat/snapshot.py: every way xDSL (and our compat layer) edits a module in
place changes a field the snapshot records, and nothing else does (an unedited module, or one
whose edit was undone with the same objects, is unchanged).  If an xDSL upgrade moves an edit to a
field not read here, one of these fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, f32, i32, i64
from xdsl.ir import Block, Region

from stablehlo_py.ir import parse
from stablehlo_py.ir.xdsl_compat.fields import retype_values
from stablehlo_py.ir.xdsl_compat.snapshot import Snapshot
from stablehlo_py.ir.xdsl_compat.swap import retype_op, retype_value

PROGRAM = """
func.func @main(%x: tensor<2x2xf32>) -> tensor<2xf32> {
  %a = stablehlo.add %x, %x : tensor<2x2xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @f(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %n = stablehlo.negate %y : tensor<2x2xf32>
  return %n : tensor<2x2xf32>
}
"""


def _op(module: Any, name: str) -> Any:
    return next(op for op in module.walk() if op.name == name)


def _reduce_body(m: Any) -> Any:
    return _op(m, "stablehlo.reduce").regions[0].blocks.first


def _insert_op(m: Any) -> None:
    neg = _op(m, "stablehlo.negate")
    neg.parent.insert_op_after(neg.clone(), neg)


def _insert_first(m: Any) -> None:
    neg = _op(m, "stablehlo.negate")
    neg.parent.insert_op_before(neg.clone(), neg)


def _erase_op(m: Any) -> None:
    neg = _op(m, "stablehlo.negate")
    neg.results[0].replace_all_uses_with(neg.operands[0])
    neg.parent.erase_op(neg)


def _move_op(m: Any) -> None:
    t = _op(m, "stablehlo.transpose")
    c = _op(m, "stablehlo.constant")
    c.detach()
    t.parent.insert_op_before(c, t)


def _move_out_of_region(m: Any) -> None:
    """The body's first op moved to just before the region's op: the ops in walk order differ only
    in which block holds it (the parent links tell)."""
    red = _op(m, "stablehlo.reduce")
    add = _reduce_body(m).first_op
    add.detach()
    red.parent.insert_op_before(add, red)


def _region_body_op_replaced(m: Any) -> None:
    body = _reduce_body(m)
    add = body.first_op
    new = add.clone()
    body.insert_op_before(new, add)
    add.results[0].replace_all_uses_with(new.results[0])
    body.erase_op(add)


def _block_added(m: Any) -> None:
    region = _op(m, "stablehlo.reduce").regions[0]
    region.add_block(Block(arg_types=[TensorType(f32, [])]))


def _block_arg_inserted(m: Any) -> None:
    _reduce_body(m).insert_arg(TensorType(f32, []), 0)


def _region_detached(m: Any) -> None:
    red = _op(m, "stablehlo.reduce")
    red.detach_region(red.regions[0])
    red.add_region(Region(Block()))


EDITS: dict[str, Callable[[Any], None]] = {
    "property replaced": lambda m: _op(m, "stablehlo.transpose").properties.__setitem__(
        "permutation", DenseArrayBase.from_list(i64, [0, 1])
    ),
    "property removed": lambda m: _op(m, "stablehlo.transpose").properties.pop("permutation"),
    "attribute added": lambda m: _op(m, "stablehlo.add").attributes.__setitem__(
        "n", StringAttr("x")
    ),
    "properties dict replaced": lambda m: setattr(
        _op(m, "stablehlo.transpose"),
        "properties",
        {"permutation": DenseArrayBase.from_list(i64, [0, 1])},
    ),
    "operand set": lambda m: _op(m, "stablehlo.transpose").operands.__setitem__(
        0, _op(m, "func.func").body.blocks.first.args[0]
    ),
    "operands replaced": lambda m: setattr(
        _op(m, "stablehlo.add"), "operands", [_op(m, "stablehlo.transpose").results[0]] * 2
    ),
    "uses replaced": lambda m: _op(m, "stablehlo.add").results[0].replace_all_uses_with(
        _op(m, "func.func").body.blocks.first.args[0]
    ),
    "op inserted after": _insert_op,
    "op inserted first": _insert_first,
    "op erased": _erase_op,
    "op moved": _move_op,
    "op moved out of its region": _move_out_of_region,
    "region body op replaced": _region_body_op_replaced,
    "block added": _block_added,
    "block argument inserted": _block_arg_inserted,
    "region replaced": _region_detached,
    "result retyped (fields)": lambda m: retype_values(
        [_op(m, "stablehlo.add").results[0]], [TensorType(i32, [2, 2])]
    ),
    "argument retyped (swap)": lambda m: retype_value(
        _op(m, "func.func").body.blocks.first.args[0], TensorType(i32, [2, 2])
    ),
    "class swapped": lambda m: retype_op(
        _op(m, "stablehlo.negate"),
        type(_op(parse(PROGRAM.replace("negate", "abs")), "stablehlo.abs")),
        dict(_op(m, "stablehlo.negate").properties),
        dict(_op(m, "stablehlo.negate").attributes),
    ),
    "function renamed": lambda m: setattr(
        [op for op in m.body.ops][1], "sym_name", StringAttr("g")
    ),
    "function added": lambda m: m.body.blocks.first.add_op([op for op in m.body.ops][1].clone()),
    "function removed": lambda m: m.body.blocks.first.erase_op([op for op in m.body.ops][1]),
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_each_edit_changes_a_recorded_field(edit: str) -> None:
    module = parse(PROGRAM)
    snapshot = Snapshot(module)
    assert snapshot.unchanged()
    EDITS[edit](module)
    assert not snapshot.unchanged()


def test_an_unedited_module_is_unchanged() -> None:
    module = parse(PROGRAM)
    snapshot = Snapshot(module)
    assert snapshot.unchanged()
    assert snapshot.ops[0] is module
    assert len(snapshot.ops) == sum(1 for _ in module.walk())


def test_equal_attributes_and_an_undone_edit_are_unchanged() -> None:
    """Properties compare by content: an equal attribute written in place, or the original put back,
    is the same program."""
    module = parse(PROGRAM)
    t = _op(module, "stablehlo.transpose")
    original = t.properties["permutation"]
    snapshot = Snapshot(module)
    t.properties["permutation"] = DenseArrayBase.from_list(i64, [1, 0])
    assert snapshot.unchanged()
    t.properties["permutation"] = DenseArrayBase.from_list(i64, [0, 1])
    assert not snapshot.unchanged()
    t.properties["permutation"] = original
    assert snapshot.unchanged()


def test_deep_nesting_is_walked_without_recursion() -> None:
    module = parse(PROGRAM)
    template = _op(module, "stablehlo.reduce").clone()  # (2 ops in its body)
    before = sum(1 for _ in module.walk())
    block = _reduce_body(module)
    depth = 3000  # past Python's recursion limit
    for _ in range(depth):
        nested = template.clone()
        block.insert_op_before(nested, block.first_op)
        block = nested.regions[0].blocks.first
    snapshot = Snapshot(module)
    assert snapshot.unchanged()
    assert len(snapshot.ops) == before + 3 * depth
    block.first_op.attributes["n"] = StringAttr("deepest")
    assert not snapshot.unchanged()
