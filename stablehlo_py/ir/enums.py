"""StableHLO and CHLO enum attributes (StablehloEnums.td, ChloEnums.td): one table of dialect,
mnemonic and cases; one attribute class per enum generated from it.

Text: full form `#stablehlo<comparison_direction GT>`; inside an op's format the stripped form `GT`
(`stablehlo.compare GT, %a, %b, FLOAT`).  Older MLIR printed a leading space in the stripped form
(`stablehlo.compare  GT, ...`, as in the conformance testdata); current MLIR, which JAX and jaxlib use,
does not, and we print what current MLIR prints.  Both parse.
`#stablehlo.result_accuracy_mode<...>` has its own syntax and lives in `stablehlo_py.ir.op_attrs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.ir import Data, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser

ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("stablehlo", "comparison_direction"): ("EQ", "NE", "GE", "GT", "LE", "LT"),
    ("stablehlo", "comparison_type"): ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"),
    ("stablehlo", "precision"): ("DEFAULT", "HIGH", "HIGHEST"),
    ("stablehlo", "fft_type"): ("FFT", "IFFT", "RFFT", "IRFFT"),
    ("stablehlo", "rng_distribution"): ("UNIFORM", "NORMAL"),
    ("stablehlo", "rng_algorithm"): ("DEFAULT", "THREE_FRY", "PHILOX"),
    ("stablehlo", "transpose"): ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"),
    ("chlo", "comparison_direction"): ("EQ", "NE", "GE", "GT", "LE", "LT"),
    ("chlo", "comparison_type"): ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"),
    ("chlo", "precision"): ("DEFAULT", "HIGH", "HIGHEST"),
}


class EnumAttr(Data[str]):
    """Base of the generated enum attributes."""

    DIALECT: ClassVar[str]
    MNEMONIC: ClassVar[str]
    CASES: ClassVar[tuple[str, ...]]
    _cache: ClassVar[dict[str, EnumAttr]]
    """Each class's own instances by case (`get_case`), made with the class."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._cache = {}

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError("parsed by stablehlo_py.ir.text")

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        # xDSL's printer (still used by third-party code) writes `#stablehlo<comparison_direction`
        # for the generated classes (SpacedOpaqueSyntaxAttribute), then this, then `>`: MLIR's text
        printer.print_string(self.data)

    def mlir_text(self) -> str:
        return f"#{self.DIALECT}<{self.MNEMONIC} {self.data}>"

    def mlir_stripped(self) -> str:
        return self.data

    @classmethod
    def parse_stripped(cls, p: Parser) -> EnumAttr:
        # MLIR's generated enum attribute parser: parseKeyword, then the case lookup; both wrapped
        # by "failed to parse <Attr> parameter 'value'..." (OpAsmParser errors inside a custom op)
        p.ws()
        pos = p.pos
        word = p.try_bare_id()
        if word in cls.CASES:
            return cls.get_case(word)
        prefix = "StableHLO" if cls.DIALECT == "stablehlo" else cls.DIALECT.upper()
        enum = "".join(w.capitalize() for w in cls.MNEMONIC.split("_"))
        cpp = f"::mlir::{cls.DIALECT}::{enum}"
        wrapper = p.op_diagnostic(
            f"failed to parse {prefix}_{enum}Attr parameter 'value' which is to be a `{cpp}`", pos
        )
        if word is None:
            p.op_error(f"expected valid keyword, found {p._found()}", pos, preceding=(wrapper,))
        p.op_error(
            f"expected {cpp} to be one of: {', '.join(cls.CASES)}, found '{word}'",
            pos,
            preceding=(wrapper,),
        )

    @classmethod
    def can_start(cls, p: Parser) -> bool:
        save = p.pos
        word = p.try_bare_id()
        p.pos = save
        return word in cls.CASES

    @classmethod
    def get_case(cls, value: str) -> EnumAttr:
        a = cls._cache.get(value)
        if a is None:
            a = cls._cache[value] = cls(value)
        return a


def _make(dialect: str, mnemonic: str, cases: tuple[str, ...]) -> type[EnumAttr]:
    cls_name = "".join(w.capitalize() for w in mnemonic.split("_")) + "Attr"
    if dialect == "chlo":
        cls_name = "Chlo" + cls_name
    cls = type(
        cls_name,
        (EnumAttr, SpacedOpaqueSyntaxAttribute),
        {"name": f"{dialect}.{mnemonic}", "DIALECT": dialect, "MNEMONIC": mnemonic, "CASES": cases},
    )
    return irdl_attr_definition(cls)


ENUM_CLASSES: dict[tuple[str, str], type[EnumAttr]] = {k: _make(*k, v) for k, v in ENUMS.items()}

ComparisonDirectionAttr = ENUM_CLASSES[("stablehlo", "comparison_direction")]
ComparisonTypeAttr = ENUM_CLASSES[("stablehlo", "comparison_type")]
PrecisionAttr = ENUM_CLASSES[("stablehlo", "precision")]
FftTypeAttr = ENUM_CLASSES[("stablehlo", "fft_type")]
RngDistributionAttr = ENUM_CLASSES[("stablehlo", "rng_distribution")]
RngAlgorithmAttr = ENUM_CLASSES[("stablehlo", "rng_algorithm")]
TransposeAttr = ENUM_CLASSES[("stablehlo", "transpose")]
ChloComparisonDirectionAttr = ENUM_CLASSES[("chlo", "comparison_direction")]
ChloComparisonTypeAttr = ENUM_CLASSES[("chlo", "comparison_type")]
ChloPrecisionAttr = ENUM_CLASSES[("chlo", "precision")]


def register(reg: Registry) -> None:
    for (dialect, mnemonic), cls in ENUM_CLASSES.items():
        reg.enum_dialects.add(dialect)
        reg.attr_parsers[f"{dialect}.{mnemonic}"] = cls.parse_stripped
