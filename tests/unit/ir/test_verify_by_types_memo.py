"""Ops whose class declares VERIFY_BY_TYPES are checked once per signature (class, operand and
result types, properties, attributes; by identity); a failing op is checked, and reported, every
time; ops with regions and terminators are never remembered."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, verify_plan
from stablehlo_py.ir.ops.linalg import DotGeneralOp
from stablehlo_py.ir.verify import verify

PROGRAM = """
func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = stablehlo.dot_general %0, %b, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = stablehlo.dot_general %1, %b, contracting_dims = [0] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}
"""


def test_repeated_signatures_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    monkeypatch.setattr(verify_plan, "_BY_TYPES", {})
    original = verify_plan.VerifyPlan._check_definition

    def counting(self, op):  # type: ignore[no-untyped-def]
        seen.append(op.name)
        return original(self, op)

    monkeypatch.setattr(verify_plan.VerifyPlan, "_check_definition", counting)
    verify(parse(PROGRAM))
    # dot_general: two signatures (contracting dims differ); transpose: one; func.func and
    # return are not VERIFY_BY_TYPES (a region; a terminator) and are checked as always
    assert seen.count("stablehlo.dot_general") == 2
    assert seen.count("stablehlo.transpose") == 1
    assert seen.count("func.return") == 1
    assert len(verify_plan._BY_TYPES) == 3


def test_a_failing_op_is_reported_each_time() -> None:
    bad = PROGRAM.replace(
        "dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>\n  %4",
        "dims = [1, 1] : (tensor<4x4xf32>) -> tensor<4x4xf32>\n  %4",
    )
    for _ in range(2):
        with pytest.raises(StableHLOError, match="permutation"):
            verify(parse(bad))


def test_classes_with_regions_are_not_remembered() -> None:
    assert verify_plan.plan_for(DotGeneralOp).by_types  # type: ignore[union-attr]
    from stablehlo_py.ir.dialects import default_registry

    reduce_cls = default_registry().ops["stablehlo.reduce"]
    plan = verify_plan.plan_for(reduce_cls)
    assert plan is None or not plan.by_types
