"""The VHLO passes convert ops in place (``vhlo.in_place``): the same ops, the same printed text as
a rebuild, and the rebuild kept where in place would not be the same."""

from __future__ import annotations

from stablehlo_py.passes import run_pipeline
from stablehlo_py.ir.xdsl_compat import swap as in_place
from stablehlo_py.vhlo.ops import VhloOp, op_class
from xdsl.dialects.builtin import ModuleOp

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.dialects import default_registry

LEGALIZE = ("stablehlo-legalize-to-vhlo", {})
BACK = ("vhlo-legalize-to-stablehlo", {})
DOWN = ("vhlo-to-version", {"target": "1.0.0"})
UP = ("vhlo-to-version", {"target": "current"})

PROGRAM = """func.func @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.exponential %arg0 : tensor<4x4xf32>
  %1 = stablehlo.dot_general %0, %arg0, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}
"""


def _ops(module: ModuleOp) -> list[object]:
    return list(module.walk())


def test_every_pass_keeps_the_ops() -> None:
    module = parse(PROGRAM)
    text = print_ir(module)
    before = _ops(module)
    for step in (LEGALIZE, DOWN, UP, BACK):
        module = run_pipeline(module, [step])
        assert [id(o) for o in _ops(module)] == [id(o) for o in before], step
    assert print_ir(module) == text


def test_legalized_ops_are_vhlo_forks() -> None:
    module = run_pipeline(parse(PROGRAM), [LEGALIZE, DOWN])
    names = [type(o).name for o in _ops(module)[1:]]
    assert "vhlo.exponential_v1" in names and "vhlo.dot_general_v1" in names
    assert all(isinstance(o, VhloOp) for o in _ops(module)[1:])
    replaced = [o.name for o in _ops(module) if o.__dict__.get("_vhlo_replaced")]
    assert replaced == ["vhlo.exponential_v1", "vhlo.dot_general_v1"]


def test_every_stablehlo_counterpart_swaps_with_its_forks() -> None:
    """Each VHLO fork's class takes the instance layout of its StableHLO class (no rebuild)."""
    classes = default_registry().ops
    for name in ("add_v1", "dot_general_v2", "dot_v1", "reduce_v1", "func_v1", "return_v1"):
        cls = op_class(name)
        for target in cls.SPEC.stablehlo:
            assert in_place._swappable(classes[target], cls), (name, target)
            assert in_place._swappable(cls, classes[target]), (name, target)


def test_use_before_definition_keeps_the_rebuild() -> None:
    module = parse(PROGRAM)
    func = module.body.block.first_op
    block = func.regions[0].block
    first, second = block.first_op, block.first_op.next_op
    second.detach()
    block.insert_op_before(second, first)  # the dot_general now uses %0 before its definition
    assert in_place.ordered_ops(module, lambda op: True) is None
    assert in_place.ordered_ops(parse(PROGRAM), lambda op: True) is not None


def test_retype_value_drops_what_a_rebuild_would_not_carry() -> None:
    module = parse(PROGRAM)
    op = module.body.block.first_op.regions[0].block.first_op
    result = op.results[0]
    result.__dict__["_use_order"] = [0]
    in_place.retype_value(result, result.type)
    assert "_use_order" not in result.__dict__


def test_an_unswappable_class_is_rebuilt_in_place_of_the_op() -> None:
    """A class CPython refuses to swap to gets a new op at the same place, with the old uses."""

    class Plain:
        pass

    cls = type(
        "PlainAdd", (Plain, VhloOp), {"name": "vhlo.add_v1", "SPEC": op_class("add_v1").SPEC}
    )
    module = parse(PROGRAM)
    block = module.body.block.first_op.regions[0].block
    old = block.first_op
    users = [u.operation for u in old.results[0].uses]
    new = in_place.retype_op(old, cls, {}, {})
    assert new is not old and type(new) is cls
    assert block.first_op is new
    assert all(u.operation in users for u in new.results[0].uses)


def test_retype_drops_a_results_name_hint_and_use_order() -> None:
    """`swap.retype` (the in-place sink's op) drops what a rebuilt result would not carry -- a name
    hint, a use-list order (side_data.USE_ORDER, spelled in swap.py too) -- and keeps a plain
    result's fields."""
    from stablehlo_py.ir.xdsl_compat import side_data, swap

    assert swap._USE_ORDER == side_data.USE_ORDER
    module = parse(PROGRAM)
    ops = list(module.body.block.first_op.regions[0].block.ops)
    named, ordered, plain = ops[0].results[0], ops[1].results[0], ops[2].results[0]
    named.name_hint = "x"
    ordered.__dict__[side_data.USE_ORDER] = [0]
    for op in ops[:3]:
        t = op.results[0].type
        swap.retype(op, type(op), (), [t], dict(op.properties), dict(op.attributes))
    assert named.name_hint is None and "_name" not in named.__dict__
    assert side_data.USE_ORDER not in ordered.__dict__
    assert set(plain.__dict__) == set(swap._RESULT_KEEP)
