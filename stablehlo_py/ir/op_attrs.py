"""The struct attributes of the linear-algebra ops, the transcendental elementwise ops and
custom_call: `#stablehlo.dot<...>`, `#stablehlo.conv<...>`, `#stablehlo.dot_algorithm<...>`,
`#stablehlo.result_accuracy<...>` (with `#stablehlo.result_accuracy_mode<...>`) and
`#stablehlo.output_operand_alias<...>`. Each is described in stablehlo_py/ir/attrs/<name>.py;
re-exported here (the names' former home)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablehlo_py.ir.attrs.conv import (
    ConvDimensionNumbers,
    ConvDimensionNumbersAttr,
    conv_dims_text,
    parse_conv_dims,
)
from stablehlo_py.ir.attrs.dot import DotDimensionNumbers, DotDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot_algorithm import (
    KNOWN_DOT_ALGORITHMS,
    DotAlgorithm,
    DotAlgorithmAttr,
    dot_algorithm_error,
)
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAlias, OutputOperandAliasAttr
from stablehlo_py.ir.attrs.result_accuracy import (
    DEFAULT_RESULT_ACCURACY,
    ResultAccuracy,
    ResultAccuracyAttr,
    ResultAccuracyModeAttr,
)
from stablehlo_py.ir.attrs.struct import parse_bool, parse_dims, parse_f64, register_parsers

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry

__all__ = [
    "DEFAULT_RESULT_ACCURACY",
    "KNOWN_DOT_ALGORITHMS",
    "ConvDimensionNumbers",
    "ConvDimensionNumbersAttr",
    "DotAlgorithm",
    "DotAlgorithmAttr",
    "DotDimensionNumbers",
    "DotDimensionNumbersAttr",
    "OutputOperandAlias",
    "OutputOperandAliasAttr",
    "ResultAccuracy",
    "ResultAccuracyAttr",
    "ResultAccuracyModeAttr",
    "conv_dims_text",
    "dot_algorithm_error",
    "parse_bool",
    "parse_conv_dims",
    "parse_dims",
    "parse_f64",
    "register",
]


def register(reg: Registry) -> None:
    register_parsers(
        reg,
        (
            DotDimensionNumbersAttr,
            ConvDimensionNumbersAttr,
            DotAlgorithmAttr,
            ResultAccuracyAttr,
            OutputOperandAliasAttr,
        ),
    )
    reg.attr_parsers["stablehlo.result_accuracy_mode"] = ResultAccuracyModeAttr.parse_body
