"""`#stablehlo.result_accuracy<...>` (with `#stablehlo.result_accuracy_mode<...>`): the requested
accuracy of a transcendental unary op (result_accuracy of cbrt, cosine, ...).

`#stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>`:
`struct(params)` where `atol`, `rtol` (f64, printed as MLIR prints floats) and `ulps` are printed
only when not 0; `mode` is required.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import (
    F64,
    INT,
    NONDEFAULT,
    DescribedAttr,
    bits_f64,
    enum_kind,
    f64_bits,
    field,
)
from stablehlo_py.ir.enums import EnumAttr

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


@irdl_attr_definition
class ResultAccuracyModeAttr(EnumAttr):
    """`#stablehlo.result_accuracy_mode<TOLERANCE>` (an EnumAttr with format "`<` $value `>`")."""

    name = "stablehlo.result_accuracy_mode"
    DIALECT = "stablehlo"
    MNEMONIC = "result_accuracy_mode"
    CASES = ("DEFAULT", "HIGHEST", "TOLERANCE")

    def mlir_text(self) -> str:
        return f"#stablehlo.result_accuracy_mode<{self.data}>"

    def mlir_stripped(self) -> str:
        return f"<{self.data}>"

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        # after xDSL's printer wrote `#stablehlo.result_accuracy_mode`
        printer.print_string(f"<{self.data}>")

    @classmethod
    def parse_body(cls, p: Parser) -> EnumAttr:
        p.parse_literal("<", "to open #stablehlo.result_accuracy_mode")
        v = cls.parse_stripped(p)
        p.parse_literal(">", "to close #stablehlo.result_accuracy_mode")
        return v


@dataclass(frozen=True)
class ResultAccuracy:
    """Tolerances as f64 bit patterns (so that, as APFloat attributes, -0.0 differs from 0.0)."""

    atol_bits: int = field(F64, 0, printed=NONDEFAULT, key="atol")
    rtol_bits: int = field(F64, 0, printed=NONDEFAULT, key="rtol")
    ulps: int = field(INT, 0, printed=NONDEFAULT)
    mode: str = field(enum_kind(ResultAccuracyModeAttr), "DEFAULT", required=True)

    @property
    def atol(self) -> float:
        return bits_f64(self.atol_bits)

    @property
    def rtol(self) -> float:
        return bits_f64(self.rtol_bits)


@irdl_attr_definition
class ResultAccuracyAttr(DescribedAttr):
    """Requested accuracy of a transcendental unary op (result_accuracy of cbrt, cosine, ...)."""

    name = "stablehlo.result_accuracy"
    STRUCT = ResultAccuracy
    BYTECODE = 17

    def __init__(
        self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0, mode: str = "DEFAULT"
    ) -> None:
        if mode not in ResultAccuracyModeAttr.CASES:
            raise ValueError(
                f"result accuracy mode must be one of {ResultAccuracyModeAttr.CASES}, not {mode!r}"
            )
        super().__init__(
            ResultAccuracy(f64_bits(float(atol)), f64_bits(float(rtol)), int(ulps), mode)
        )

    @property
    def accuracy(self) -> ResultAccuracy:
        return self.data


DEFAULT_RESULT_ACCURACY = ResultAccuracyAttr()
