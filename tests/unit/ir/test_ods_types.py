"""upstream's ODS tensor constraints: MLIR's summaries (`ranked tensor of <a> or <b> values`) and
which element types each accepts."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.builder.types import to_type
from stablehlo_py.ir.verify import ods_types as ods


def t(text: str):
    return to_type(text)


def test_summaries_are_mlirs() -> None:
    # upstream's own test (ops_chlo.mlir) quotes HLO_IntTensor's summary
    assert ods.HLO_IntTensor.summary == "ranked tensor of 2/4/8/16/32/64-bit integer values"
    assert (
        ods.HLO_PredOrIntTensor.summary
        == "ranked tensor of bool or 2/4/8/16/32/64-bit integer values"
    )
    assert ods.HLO_FpComplexOrQuantizedIntTensor.summary == (
        "ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or "
        "per-tensor integer quantized values"
    )


@pytest.mark.parametrize(
    ("constraint", "accepted", "refused"),
    [
        (
            ods.HLO_IntTensor,
            ["tensor<2xi32>", "tensor<ui8>", "tensor<2xi4>"],
            ["tensor<2xi1>", "tensor<2xf32>", "tensor<2xsi32>"],
        ),
        (
            ods.HLO_FpTensor,
            ["tensor<2xf32>", "tensor<bf16>", "tensor<f8E4M3FN>"],
            ["tensor<2xi32>", "tensor<complex<f32>>"],
        ),
        (ods.HLO_PredOrIntTensor, ["tensor<i1>", "tensor<2xi64>"], ["tensor<f32>"]),
        (
            ods.HLO_FpComplexOrQuantizedIntTensor,
            ["tensor<complex<f64>>", "tensor<2x!quant.uniform<i8:f32, 1.0>>"],
            ["tensor<i32>", "tensor<2x!quant.uniform<i8:f32:0, {1.0, 2.0}>>", "tensor<*xf32>"],
        ),
        (ods.SIntFpComplexOrQuantizedIntTensor, ["tensor<i32>"], ["tensor<ui32>", "tensor<i1>"]),
    ],
)
def test_accepts(constraint: ods.RankedTensorOf, accepted: list[str], refused: list[str]) -> None:
    for text in accepted:
        assert constraint.accepts(t(text)), text
    for text in refused:
        assert not constraint.accepts(t(text)), text


def test_check_values_message() -> None:
    with pytest.raises(VerifyException) as e:
        ods.check_values("operand", [t("tensor<2xi32>"), t("tensor<2xf32>")], ods.HLO_IntTensor)
    assert str(e.value) == (
        "operand #1 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'"
    )
