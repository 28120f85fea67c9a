"""Elementwise ops of one class, types and properties are checked once per program (a memo of
successes by identity); a failing op is checked, and reported, every time."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.context import IdentityMap
from stablehlo_py.ir.verify import driver as verify_plan
from stablehlo_py.ir.ops import elementwise
from stablehlo_py.ir.verify import verify

PROGRAM = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %0, %a : tensor<4xf32>
  %2 = stablehlo.add %1, %0 : tensor<4xf32>
  %3 = stablehlo.add %b, %b : tensor<4xi32>
  %4 = stablehlo.exponential %2 : tensor<4xf32>
  %5 = stablehlo.exponential %4 {result_accuracy = #stablehlo.result_accuracy<ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  return %5 : tensor<4xf32>
}
"""


def test_repeated_ops_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    check = elementwise._check_elementwise
    monkeypatch.setattr(
        verify_plan.CACHE, "verdicts", IdentityMap("verify.driver.verdicts", 1 << 14)
    )  # the driver's one memo of verdicts
    monkeypatch.setattr(elementwise, "_check_elementwise", lambda op: (seen.append(op), check(op)))
    verify(parse(PROGRAM))
    # add f32 once, add i32 once, exponential once per distinct result_accuracy
    assert [op.name for op in seen] == [
        "stablehlo.add",
        "stablehlo.add",
        "stablehlo.exponential",
        "stablehlo.exponential",
    ]


def test_a_failing_op_is_reported_each_time() -> None:
    bad = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf64> {\n  %0 = stablehlo.negate %a : (tensor<4xf32>) -> tensor<4xf64>\n  return %0 : tensor<4xf64>\n}\n"
    for _ in range(2):
        with pytest.raises(StableHLOError, match="requires compatible types"):
            verify(parse(bad))
