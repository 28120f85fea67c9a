"""passes/patterns/mlir_folds.py: MLIR's fold hooks of shape/tensor/arith ops, one rule at a time
(what the op folds to: an existing value, a constant, an in-place rewrite, or nothing)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.passes.patterns.mlir_folds import Rewrite, fold, materialize
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType
from xdsl.ir import Operation

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.dense import dense_values

HEADER = (
    "func.func @f(%x: index, %y: index, %b: i1, %t: tensor<2x3xf32>, %u: tensor<?x3xf32>, "
    "%a: tensor<2xindex>) {\n"
    "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    "  %c7 = arith.constant 7 : index\n  %cm = arith.constant -9 : index\n"
    "  %max = arith.constant 9223372036854775807 : index\n"
    "  %true = arith.constant true\n  %false = arith.constant false\n"
    "  %s1 = shape.const_shape [2, 1] : tensor<2xindex>\n"
    "  %s2 = shape.const_shape [3, 1, 4] : tensor<3xindex>\n"
    "  %s3 = shape.const_shape [2, 5] : tensor<2xindex>\n"
)


def _op(line: str) -> Operation:
    module = parse(HEADER + f"  {line}\n  return\n}}\n")
    ops = [o for o in module.walk() if o.name not in ("builtin.module", "func.func", "func.return")]
    return ops[-1]


def _value_is(op: Operation, got: object, want: str) -> None:
    """``want``: the operand (`lhs`/`rhs`/`true`/`false`/`cond`) the fold forwards."""
    index = {"lhs": 0, "rhs": 1, "cond": 0, "true": 1, "false": 2}[want]
    assert isinstance(got, list) and got[0] is op.operands[index]


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("%r = arith.muli %x, %c1 : index", "lhs"),
        ("%r = arith.muli %x, %c0 : index", "rhs"),
        ("%r = arith.addi %x, %c0 : index", "lhs"),
        ("%r = arith.subi %x, %c0 : index", "lhs"),
        ("%r = arith.divsi %x, %c1 : index", "lhs"),
        ("%r = arith.maxsi %x, %x : index", "rhs"),
        ("%r = arith.maxsi %x, %max : index", "rhs"),
        ("%r = arith.select %true, %x, %y : index", "true"),
        ("%r = arith.select %false, %x, %y : index", "false"),
        ("%r = arith.select %b, %true, %false : i1", "cond"),
        ("%r = shape.broadcast %a : tensor<2xindex> -> tensor<2xindex>", "lhs"),
    ],
)
def test_folds_to_an_operand(line: str, want: str) -> None:
    op = _op(line)
    _value_is(op, fold(op), want)


def test_add_sub_pairs_and_cmpi_select() -> None:
    module = parse(
        "func.func @f(%a: index, %b: index) -> (index, index, index, index) {\n"
        "  %s = arith.subi %a, %b : index\n  %0 = arith.addi %s, %b : index\n"
        "  %p = arith.addi %a, %b : index\n  %1 = arith.subi %p, %a : index\n"
        "  %c = arith.cmpi ne, %a, %b : index\n  %2 = arith.select %c, %a, %b : index\n"
        "  %e = arith.cmpi eq, %a, %b : index\n  %3 = arith.select %e, %a, %b : index\n"
        "  return %0, %1, %2, %3 : index, index, index, index\n}\n"
    )
    args = list(module.walk())[1].regions[0].block.args
    ops = {o.results[0]: o for o in module.walk() if o.results}
    ret = next(o for o in module.walk() if o.name == "func.return")
    got = [fold(ops[v]) for v in ret.operands]
    assert [g[0] for g in got] == [args[0], args[1], args[0], args[1]]  # type: ignore[index]


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("%r = arith.muli %c7, %cm : index", -63),
        ("%r = arith.addi %max, %c1 : index", -(1 << 63)),  # wraps
        ("%r = arith.subi %x, %x : index", 0),  # a constant: the first rule decides
        ("%r = arith.divsi %cm, %c7 : index", -1),  # rounds toward zero
        ("%r = arith.index_cast %c7 : index to i8", 7),
        ("%r = shape.num_elements %s2 : tensor<3xindex> -> index", 12),
        ("%r = tensor.dim %t, %c1 : tensor<2x3xf32>", 3),
        ("%r = arith.cmpi slt, %cm, %c7 : index", 1),
        ("%r = arith.cmpi ult, %cm, %c7 : index", 0),  # -9 is large unsigned
    ],
)
def test_folds_to_a_constant(line: str, value: int) -> None:
    got = fold(_op(line))
    assert isinstance(got, list) and isinstance(got[0], IntegerAttr)
    got_value = got[0].value.data
    if got[0].type == IntegerType(1):  # i1 true is stored as -1
        got_value = int(got_value != 0)
    assert got_value == value


@pytest.mark.parametrize(
    ("line", "extents"),
    [
        ("%r = shape.shape_of %t : tensor<2x3xf32> -> tensor<2xindex>", [2, 3]),
        ("%r = shape.broadcast %s1, %s2 : tensor<2xindex>, tensor<3xindex> -> tensor<3xindex>",
         [3, 2, 4]),
    ],
)  # fmt: skip
def test_shape_folds_to_an_extent_tensor_materialized_as_const_shape(
    line: str, extents: list[int]
) -> None:
    op = _op(line)
    got = fold(op)
    assert isinstance(got, list) and isinstance(got[0], DenseIntOrFPElementsAttr)
    assert list(np.asarray(dense_values(got[0]))) == extents
    made = materialize(got[0], op.results[0].type, op)
    assert made is not None and made.name == "shape.const_shape"


@pytest.mark.parametrize(
    "line",
    [
        "%r = shape.shape_of %u : tensor<?x3xf32> -> tensor<2xindex>",  # dynamic
        "%r = shape.broadcast %s3, %s2 : tensor<2xindex>, tensor<3xindex> -> tensor<3xindex>",
        "%r = arith.divsi %x, %c0 : index",
        "%r = arith.muli %x, %c7 : index",  # constant already last
        "%r = tensor.dim %u, %c0 : tensor<?x3xf32>",
    ],
)
def test_no_fold(line: str) -> None:
    assert fold(_op(line)) is None


def test_commutative_and_cmpi_move_constants_right_in_place() -> None:
    op = _op("%r = arith.muli %c7, %x : index")
    got = fold(op)
    assert isinstance(got, Rewrite) and got.operands == [op.operands[1], op.operands[0]]
    op = _op("%r = arith.cmpi sle, %c7, %x : index")
    got = fold(op)
    assert isinstance(got, Rewrite) and got.operands == [op.operands[1], op.operands[0]]
    assert got.properties["predicate"].value.data == 5  # type: ignore[attr-defined]  # sge


def test_constants_do_not_fold() -> None:
    assert fold(_op("%r = shape.const_shape [1] : tensor<1xindex>")) is None
