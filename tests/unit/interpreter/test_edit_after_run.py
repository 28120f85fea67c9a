"""A module interpreted, then edited in place (as a pass does), then interpreted again runs the edited
program: what the interpreter prepares and keeps on an op is dropped when the op's attributes, types
or (for region ops) body changed."""

import numpy as np
from stablehlo_py.interpreter import run
from xdsl.dialects.builtin import DenseArrayBase, i64

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.dense import make_dense

PROGRAM = """
func.func @main(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  %c = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = stablehlo.add %a, %c : tensor<2x3xf32>
  %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %t, %r, %s : tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>
}
"""


def _ops(module, name):
    return [op for op in module.walk() if op.name == name]


def test_constant_value_edited_in_place() -> None:
    module = parse(PROGRAM)
    a = np.zeros((2, 3), np.float32)
    run(module, a)
    const = _ops(module, "stablehlo.constant")[0]
    const.properties["value"] = make_dense(const.results[0].type, np.full(6, 10.0, np.float32))
    _, r, s = run(module, a)
    np.testing.assert_array_equal(s, np.full((2, 3), 10.0, np.float32))
    np.testing.assert_array_equal(r, [30.0, 30.0])


def test_attribute_edited_in_place() -> None:
    module = parse(
        "func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
        "  return %t : tensor<2x2xf32>\n}"
    )
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(run(module, a)[0], a.T)
    transpose = _ops(module, "stablehlo.transpose")[0]
    transpose.properties["permutation"] = DenseArrayBase.from_list(i64, [0, 1])
    np.testing.assert_array_equal(run(module, a)[0], a)


def test_region_body_edited_in_place() -> None:
    module = parse(PROGRAM)
    a = np.ones((2, 3), np.float32)
    assert list(run(module, a)[1]) == [9.0, 18.0]
    reduce = _ops(module, "stablehlo.reduce")[0]
    body = reduce.regions[0].blocks.first
    add = next(op for op in body.ops if op.name == "stablehlo.add")
    mul = parse(
        "func.func @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {\n"
        "  %m = stablehlo.maximum %x, %y : tensor<f32>\n  return %m : tensor<f32>\n}"
    )
    maximum = _ops(mul, "stablehlo.maximum")[0]
    new = maximum.clone()
    new.operands = add.operands
    body.insert_op_before(new, add)
    add.results[0].replace_all_uses_with(new.results[0])
    body.erase_op(add)
    assert list(run(module, a)[1]) == [4.0, 7.0]
