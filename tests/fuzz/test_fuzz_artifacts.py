"""CI fuzz test: at least 10k mutated artifacts (truncations, byte flips, splices, size-fixed and
structure-aware edits) through the full `deserialize_portable_artifact`: each is accepted or raises
the toolkit's own error (StableHLOError), nothing else.  `bench/fuzz_artifacts.py` runs >= 1M."""

from __future__ import annotations

import os

from stablehlo_py.serialization import (
    deserialize_portable_artifact,
    serialize_portable_artifact_str,
)

from tests.fuzz import fuzzing
from tests.unit.serialization.helpers import PROGRAM

CASES = int(os.environ.get("STABLEHLO_PY_FUZZ_CASES", "10000"))

SMALL = """func.func @main(%a: tensor<2xi32>, %b: tensor<i1>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<[1, -3]> : tensor<2xi32>
  %0 = stablehlo.add %a, %c : tensor<2xi32>
  %1 = "stablehlo.if"(%b) ({
    stablehlo.return %0 : tensor<2xi32>
  }, {
    %2 = stablehlo.negate %0 : tensor<2xi32>
    stablehlo.return %2 : tensor<2xi32>
  }) : (tensor<i1>) -> tensor<2xi32>
  return %1 : tensor<2xi32>
}
"""


def seeds() -> list[bytes]:
    return [
        serialize_portable_artifact_str(PROGRAM, "current"),
        serialize_portable_artifact_str(PROGRAM, "current", strip_debuginfo=True),
        serialize_portable_artifact_str(PROGRAM, "1.10.0"),
        serialize_portable_artifact_str(SMALL, "current"),
        serialize_portable_artifact_str(SMALL, "0.9.0"),
    ]


def test_mutated_artifacts_raise_only_toolkit_errors() -> None:
    result = fuzzing.run(deserialize_portable_artifact, seeds(), CASES, seed=20260522)
    assert result.cases == CASES
    assert not result.findings, "\n".join(
        f"{why}\n  input: {data[:120]!r}" for data, why in result.findings[:5]
    )
    assert result.refused > CASES // 2  # most mutations are caught
    assert result.accepted > 0  # and some (e.g. a flipped constant byte) are still valid artifacts
