"""Ops whose class declares VERIFY_BY_TYPES are checked once per signature (class, operand and
result types, properties, attributes; by identity); a failing op is checked, and reported, every
time; terminators and region ops other than `VERIFY_BY_TYPES = "regions"` ones (their
signature includes their bodies' block arguments and terminators) are never remembered."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.context import IdentityMap
from stablehlo_py.ir.verify import driver as verify_plan
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


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the ops whose definitions the verifier checks (the memo starts empty)."""
    seen: list[str] = []
    monkeypatch.setattr(
        verify_plan.CACHE, "verdicts", IdentityMap("verify.driver.verdicts", 1 << 14)
    )
    original = verify_plan.VerifyPlan._check_definition

    def counting(self, op, *rest):  # type: ignore[no-untyped-def]
        seen.append(op.name)
        return original(self, op, *rest)

    monkeypatch.setattr(verify_plan.VerifyPlan, "_check_definition", counting)
    return seen


def test_repeated_signatures_are_checked_once(seen: list[str]) -> None:
    verify(parse(PROGRAM))
    # dot_general: two signatures (contracting dims differ); transpose: one; func.func and
    # return are not VERIFY_BY_TYPES (a region; a terminator) and are checked as always
    assert seen.count("stablehlo.dot_general") == 2
    assert seen.count("stablehlo.transpose") == 1
    assert seen.count("func.return") == 1
    assert len(verify_plan.CACHE.verdicts) == 3


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

    while_cls = default_registry().ops["stablehlo.while"]
    plan = verify_plan.plan_for(while_cls)
    assert plan is None or not plan.by_types


BODY = """({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return RET
  }) {dimensions = array<i64: 1>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>"""
REDUCE = f"""
func.func @main(%a: tensor<4x4xf32>, %z: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {{
  %0 = "stablehlo.reduce"(%a, %z) {BODY.replace("RET", "%m : tensor<f32>")}
  %1 = "stablehlo.reduce"(%a, %z) {BODY}
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}}
"""


def test_region_signature_ops_are_remembered_with_their_bodies(seen: list[str]) -> None:
    """reduce is checked once per signature, and its signature includes its body's block arguments
    and terminator: a reduce of the same types whose body returns the wrong type still fails."""
    verify(parse(REDUCE.replace("RET", "%m : tensor<f32>")))
    assert seen.count("stablehlo.reduce") == 1  # the second reduce has the first one's signature
    with pytest.raises(StableHLOError, match="(?i)reduction-region"):
        verify(parse(REDUCE.replace("RET", "%x, %y : tensor<f32>, tensor<f32>")))


def test_elementwise_ops_are_remembered_by_signature() -> None:
    from stablehlo_py.ir.ops.elementwise import OPS

    assert len(OPS) > 40
    for cls in OPS:
        plan = verify_plan.plan_for(cls)
        assert plan is not None and plan.by_types, cls.name
