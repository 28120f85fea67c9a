"""stablehlo_py.passes.run_pipeline takes MLIR's textual pipeline as well as (name, options) pairs, and
anything else is a clear StableHLOError (was a ValueError from unpacking a string's characters)."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.passes import run_pipeline

PROGRAM = """func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""


def test_a_textual_pipeline_runs_as_its_pairs() -> None:
    by_text = print_ir(run_pipeline(parse(PROGRAM), "stablehlo-legalize-to-vhlo"))
    by_pairs = print_ir(
        run_pipeline(parse(PROGRAM), [("stablehlo-legalize-to-vhlo", {})])
    )
    assert by_text == by_pairs
    assert '"vhlo.add_v1"' in by_text


def test_a_textual_pipeline_with_options() -> None:
    text = print_ir(
        run_pipeline(parse(PROGRAM), "stablehlo-legalize-to-vhlo,vhlo-to-version{target=1.0.0}")
    )
    assert '"vhlo.add_v1"' in text


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        (["stablehlo-legalize-to-vhlo"], "expected a textual pipeline or (pass name, options dict) pairs, got 'stablehlo-legalize-to-vhlo'"),
        ([("inline",)], "got ('inline',)"),
        ("no-such-pass", "'no-such-pass' in --pass-pipeline does not refer to a registered pass"),
    ],
)
def test_a_malformed_pipeline_is_a_clear_error(pipeline, message: str) -> None:
    with pytest.raises(StableHLOError) as info:
        run_pipeline(parse(PROGRAM), pipeline)
    assert message in str(info.value)
