"""StableHLO struct attributes of the linear-algebra ops, the transcendental elementwise ops and
custom_call: `#stablehlo.dot<...>`, `#stablehlo.conv<...>`, `#stablehlo.dot_algorithm<...>`,
`#stablehlo.result_accuracy<...>` (with `#stablehlo.result_accuracy_mode<...>`) and
`#stablehlo.output_operand_alias<...>` (StablehloAttrs.td; printers and parsers of StablehloOps.cpp).

Text, as upstream writes it:

* `#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
  lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>`: upstream's printStruct (a list
  field only when it is not empty); parseStruct takes the fields in any order, each at most once.
* `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`, or `#stablehlo.conv<raw
  input_batch_dimension = 0, ...>` (parse only, as upstream).
* `#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32,
  accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,
  num_primitive_operations = 1, allow_imprecise_accumulation = false>`: `struct(params)`, every field
  required, any order when parsed.
* `#stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>`:
  `struct(params)` where `atol`, `rtol` (f64, printed as MLIR prints floats) and `ulps` are printed
  only when not 0.
* `#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0,
  operand_tuple_indices = [1]>`: fixed order.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attributes import StructAttr
from stablehlo_py.ir.enums import EnumAttr
from stablehlo_py.ir.types import parse_dim_size

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser


_StructAttr = StructAttr
"""An attribute holding a frozen dataclass; text via `mlir_text` and a registered parser."""


# ------------------------------------------------------------------------------- text helpers
def _ints_text(xs: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def parse_dims(p: Parser) -> tuple[int, ...]:
    """`[1, 2]` (upstream's parseDimSizes; `?` is a dynamic size)."""
    return tuple(p.parse_delimited("[", lambda: parse_dim_size(p, "a dimension or '?'"), "]"))


def parse_bool(p: Parser) -> bool:
    if p.try_keyword("true"):
        return True
    p.parse_keyword("false")
    return False


def parse_f64(p: Parser) -> float:
    """A float literal read as an f64 (MLIR's parseFloat: also integers and hex bit patterns)."""
    from stablehlo_py.ir.text.floats import NUMBER as _NUMBER

    p.ws()
    m = _NUMBER.match(p.text, p.pos)
    if not m:
        p.error(f"expected a floating-point number, found {p._found()}")
    tok = m.group(0)
    p.pos = m.end()
    if "x" in tok:
        neg = tok.startswith("-")
        bits = int(tok.lstrip("+-"), 16)
        if bits >= 1 << 64:  # more bits than an f64 has (MLIR's parseFloat)
            p.error("hexadecimal float constant out of range for type", m.start())
        v = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
        return -v if neg else v
    return float(tok)


def parse_struct(
    p: Parser, what: str, parsers: dict[str, Callable[[], object]], required: tuple[str, ...] = ()
) -> dict[str, object]:
    """Upstream's parseStruct after `<`: `key = value` entries in any order, each at most once,
    comma separated (a trailing comma is allowed), up to `>`."""
    values: dict[str, object] = {}
    while not p.try_literal(">"):
        p.ws()
        pos = p.pos
        key = p.try_bare_id()
        if key not in parsers:
            p.error(f"expected one of: {', '.join('`' + k + '`' for k in parsers)} in {what}", pos)
        if key in values:
            p.error(f"duplicated `{key}` entry in {what}", pos)
        p.parse_literal("=")
        values[key] = parsers[key]()
        if not p.try_literal(","):
            p.parse_literal(">", f"to close {what}")
            break
    missing = [k for k in required if k not in values]
    if missing:
        p.error(f"{what} is missing required parameter: {missing[0]}")
    return values


# ---------------------------------------------------------------------------------- #stablehlo.dot
@dataclass(frozen=True)
class DotDimensionNumbers:
    lhs_batching_dimensions: tuple[int, ...] = ()
    rhs_batching_dimensions: tuple[int, ...] = ()
    lhs_contracting_dimensions: tuple[int, ...] = ()
    rhs_contracting_dimensions: tuple[int, ...] = ()


@irdl_attr_definition
class DotDimensionNumbersAttr(_StructAttr):
    """Dimension numbers of dot_general (spec.md#dot_general)."""

    name = "stablehlo.dot"
    MNEMONIC = "dot"
    STRUCT = DotDimensionNumbers

    def __init__(self, data: DotDimensionNumbers | None = None, **kw: Any) -> None:
        if data is None:
            data = DotDimensionNumbers(**{k: tuple(v) for k, v in kw.items()})
        super().__init__(data)

    @property
    def dims(self) -> DotDimensionNumbers:
        return self.data

    def mlir_text(self) -> str:
        parts = [
            f"{f.name} = {_ints_text(getattr(self.data, f.name))}"
            for f in fields(self.data)
            if getattr(self.data, f.name)
        ]
        return f"#stablehlo.dot<{', '.join(parts)}>"

    @classmethod
    def parse_body(cls, p: Parser) -> DotDimensionNumbersAttr:
        p.parse_literal("<", "to open #stablehlo.dot")
        names = [f.name for f in fields(DotDimensionNumbers)]
        vals = parse_struct(p, "#stablehlo.dot", {n: (lambda: parse_dims(p)) for n in names})
        return cls(DotDimensionNumbers(**vals))  # type: ignore[arg-type]


# --------------------------------------------------------------------------------- #stablehlo.conv
@dataclass(frozen=True)
class ConvDimensionNumbers:
    input_batch_dimension: int = 0
    input_feature_dimension: int = 0
    input_spatial_dimensions: tuple[int, ...] = ()
    kernel_input_feature_dimension: int = 0
    kernel_output_feature_dimension: int = 0
    kernel_spatial_dimensions: tuple[int, ...] = ()
    output_batch_dimension: int = 0
    output_feature_dimension: int = 0
    output_spatial_dimensions: tuple[int, ...] = ()


_IO_BATCH, _IO_FEATURE, _KI_FEATURE, _KO_FEATURE = -1, -2, -3, -4
_NON_SPATIAL_CHAR = {_IO_BATCH: "b", _IO_FEATURE: "f", _KI_FEATURE: "i", _KO_FEATURE: "o"}


def _conv_group_text(
    spatial: tuple[int, ...], non_spatial: tuple[tuple[int, int], ...]
) -> str | None:
    n = len(spatial) + len(non_spatial)
    dims: list[int | None] = [None] * n
    for pos, tag in non_spatial:
        if not 0 <= pos < n:
            return None
        dims[pos] = tag
    for i, pos in enumerate(spatial):
        if not 0 <= pos < n:
            return None
        dims[pos] = i
    if any(d is None for d in dims):
        return None
    return "[" + ", ".join(str(d) if d >= 0 else _NON_SPATIAL_CHAR[d] for d in dims) + "]"  # type: ignore[operator]


def conv_dims_text(d: ConvDimensionNumbers) -> str | None:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (printConvolutionDimensions); None when the numbers
    cannot be written that way (a dimension out of range or unmentioned)."""
    groups = (
        _conv_group_text(
            d.input_spatial_dimensions,
            ((d.input_batch_dimension, _IO_BATCH), (d.input_feature_dimension, _IO_FEATURE)),
        ),
        _conv_group_text(
            d.kernel_spatial_dimensions,
            (
                (d.kernel_input_feature_dimension, _KI_FEATURE),
                (d.kernel_output_feature_dimension, _KO_FEATURE),
            ),
        ),
        _conv_group_text(
            d.output_spatial_dimensions,
            ((d.output_batch_dimension, _IO_BATCH), (d.output_feature_dimension, _IO_FEATURE)),
        ),
    )
    if any(g is None for g in groups):
        return None
    return f"{groups[0]}x{groups[1]}->{groups[2]}"


def _parse_conv_group(p: Parser, allowed: list[int]) -> tuple[tuple[int, ...], dict[int, int]]:
    """One `[...]` of upstream's parseConvolutionDimensions: spatial dimension numbers and the
    letters in `allowed` (each exactly once)."""
    p.parse_literal("[")
    allowed = list(allowed)
    spatial_at: dict[int, int] = {}
    non_spatial: dict[int, int] = {}
    index = 0
    while True:
        p.ws()
        pos = p.pos
        num = p.try_integer()
        if num is not None:
            if num < 0:
                p.error(f"Unexpected dimension {num}", pos)
            if num in spatial_at:
                p.error(f"Duplicate entries for spatial dimension {num}", pos)
            spatial_at[num] = index
        else:
            word = p.try_bare_id()
            if word is None:
                p.error(
                    f"expected a dimension number or one of {', '.join(_NON_SPATIAL_CHAR[a] for a in allowed)}, "
                    f"found {p._found()}",
                    pos,
                )
            if len(word) != 1 or not allowed:
                p.error(f"Unexpected keyword {word}", pos)
            tag = next((a for a in allowed if _NON_SPATIAL_CHAR[a] == word), None)
            if tag is None:
                p.error(
                    f"Unexpected dimension {word}, expecting "
                    f"{', '.join(_NON_SPATIAL_CHAR[a] for a in allowed)}",
                    pos,
                )
            non_spatial[tag] = index
            allowed.remove(tag)
        index += 1
        if not p.try_literal(","):
            break
    if allowed:
        p.error(
            f"Expected dimensions {', '.join(_NON_SPATIAL_CHAR[a] for a in allowed)} not specified"
        )
    p.parse_literal("]")
    n = max(spatial_at) + 1 if spatial_at else 0
    # the first missing numbers (lazily: a huge dimension number must not walk its whole range)
    missing = list(itertools.islice((d for d in range(n) if d not in spatial_at), 10))
    if missing:
        p.error(
            f"Expected spatial dimensions {', '.join(str(d) for d in missing[:10])} not specified"
        )
    return tuple(spatial_at[d] for d in range(n)), non_spatial


def parse_conv_dims(p: Parser) -> ConvDimensionNumbers:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`."""
    in_sp, in_ns = _parse_conv_group(p, [_IO_BATCH, _IO_FEATURE])
    p.parse_keyword("x")
    k_sp, k_ns = _parse_conv_group(p, [_KI_FEATURE, _KO_FEATURE])
    p.parse_literal("->")
    out_sp, out_ns = _parse_conv_group(p, [_IO_BATCH, _IO_FEATURE])
    return ConvDimensionNumbers(
        in_ns[_IO_BATCH],
        in_ns[_IO_FEATURE],
        in_sp,
        k_ns[_KI_FEATURE],
        k_ns[_KO_FEATURE],
        k_sp,
        out_ns[_IO_BATCH],
        out_ns[_IO_FEATURE],
        out_sp,
    )


@irdl_attr_definition
class ConvDimensionNumbersAttr(_StructAttr):
    """Dimension numbers of convolution and dynamic_conv (spec.md#convolution)."""

    name = "stablehlo.conv"
    MNEMONIC = "conv"
    STRUCT = ConvDimensionNumbers

    @property
    def dims(self) -> ConvDimensionNumbers:
        return self.data

    def mlir_text(self) -> str:
        text = conv_dims_text(self.data)
        if text is None:
            # Upstream aborts here (report_fatal_error); we write the `raw` form it can parse instead.
            parts = []
            for f in fields(self.data):
                v = getattr(self.data, f.name)
                parts.append(f"{f.name} = {_ints_text(v) if isinstance(v, tuple) else v}")
            return "#stablehlo.conv<raw " + ", ".join(parts) + ">"
        return f"#stablehlo.conv<{text}>"

    @classmethod
    def parse_body(cls, p: Parser) -> ConvDimensionNumbersAttr:
        p.parse_literal("<", "to open #stablehlo.conv")
        if p.try_keyword("raw"):
            parsers: dict[str, Callable[[], object]] = {}
            for f in fields(ConvDimensionNumbers):
                parsers[f.name] = (
                    (lambda: parse_dims(p)) if f.name.endswith("dimensions") else p.parse_integer
                )
            vals = parse_struct(p, "#stablehlo.conv", parsers)
            return cls(ConvDimensionNumbers(**vals))  # type: ignore[arg-type]
        d = parse_conv_dims(p)
        p.parse_literal(">", "to close #stablehlo.conv")
        return cls(d)


# ------------------------------------------------------------------------ #stablehlo.dot_algorithm
@dataclass(frozen=True)
class DotAlgorithm:
    lhs_precision_type: Attribute
    rhs_precision_type: Attribute
    accumulation_type: Attribute
    lhs_component_count: int
    rhs_component_count: int
    num_primitive_operations: int
    allow_imprecise_accumulation: bool


_ANY_F8 = frozenset(
    ("f8E3M4", "f8E4M3", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2FNUZ")
)
"""The f8 types of upstream's `isAnyF8` (getKnownDotAlgorithm): f8E8M0FNU is not one."""

KNOWN_DOT_ALGORITHMS: frozenset[tuple[str, str, str, int]] = frozenset(
    {
        ("f16", "f16", "f16", 1),
        ("f16", "f16", "f32", 1),
        ("bf16", "bf16", "bf16", 1),
        ("bf16", "bf16", "f32", 1),
        ("bf16", "bf16", "f32", 3),
        ("bf16", "bf16", "f32", 6),
        ("bf16", "bf16", "f32", 9),
        ("tf32", "tf32", "f32", 1),
        ("tf32", "tf32", "f32", 3),
        ("f32", "f32", "f32", 1),
        ("f64", "f64", "f64", 1),
    }
)
"""Upstream's table of dot algorithms known to be supported on some hardware (Base.cpp's
getKnownDotAlgorithm): (lhs precision type, rhs precision type, accumulation type, number of
primitive operations), each with one component per side and precise accumulation."""


def _is_known_dot_algorithm(a: DotAlgorithm, lhs: str, rhs: str, acc: str) -> bool:
    """upstream's isKnownDotAlgorithm (dot_general_i8, dot_general_i9, dot_general_i10)."""
    if a.lhs_component_count != 1 or a.rhs_component_count != 1:
        return False
    if lhs in _ANY_F8 and rhs in _ANY_F8 and acc == "f32" and a.num_primitive_operations == 1:
        return True
    if a.allow_imprecise_accumulation:
        return False
    return (lhs, rhs, acc, a.num_primitive_operations) in KNOWN_DOT_ALGORITHMS


def dot_algorithm_error(a: DotAlgorithm) -> str | None:
    """upstream's verifyDotAlgorithmAttr: its message when ``a`` is not a valid algorithm."""
    from stablehlo_py.ir.text.printer import type_to_str

    # dot_general_c22, dot_general_c23, dot_general_c24
    if a.lhs_component_count < 1:
        return "lhs component count must be positive"
    if a.rhs_component_count < 1:
        return "rhs component count must be positive"
    if a.num_primitive_operations < 1:
        return "num primitive operations must be positive"
    lhs = type_to_str(a.lhs_precision_type)
    rhs = type_to_str(a.rhs_precision_type)
    acc = type_to_str(a.accumulation_type)
    if _is_known_dot_algorithm(a, lhs, rhs, acc):
        return None
    return (
        "dot algorithm not known to be supported on any hardware: "
        f"{{lhs:'{lhs}', rhs:'{rhs}', accum:'{acc}', lhs_components:{a.lhs_component_count}, "
        f"rhs_components:{a.rhs_component_count}, primitive_ops:{a.num_primitive_operations}, "
        f"imprecise:{int(a.allow_imprecise_accumulation)}}}"
    )


@irdl_attr_definition
class DotAlgorithmAttr(_StructAttr):
    """The algorithm of a dot_general (spec.md#dot_general)."""

    name = "stablehlo.dot_algorithm"
    MNEMONIC = "dot_algorithm"

    def __init__(self, data: DotAlgorithm) -> None:
        super().__init__(data)

    @property
    def algorithm(self) -> DotAlgorithm:
        return self.data

    def mlir_stripped(self) -> str:
        from stablehlo_py.ir.text.printer import type_to_str

        parts = []
        for f in fields(self.data):
            v = getattr(self.data, f.name)
            if isinstance(v, bool):
                text = "true" if v else "false"
            elif isinstance(v, int):
                text = str(v)
            else:
                text = type_to_str(v)
            parts.append(f"{f.name} = {text}")
        return "<" + ", ".join(parts) + ">"

    def mlir_text(self) -> str:
        return "#stablehlo.dot_algorithm" + self.mlir_stripped()

    @classmethod
    def parse_body(cls, p: Parser) -> DotAlgorithmAttr:
        """`<lhs_precision_type = tf32, ...>` (after `#stablehlo.dot_algorithm` or `algorithm =`)."""
        p.ws()
        pos = p.pos
        p.parse_literal("<", "to open the dot algorithm")
        parsers: dict[str, Callable[[], object]] = {}
        for f in fields(DotAlgorithm):
            if f.name.endswith("_type"):
                parsers[f.name] = p.parse_type
            elif f.name == "allow_imprecise_accumulation":
                parsers[f.name] = lambda: parse_bool(p)
            else:
                parsers[f.name] = p.parse_integer
        names = tuple(parsers)
        vals = parse_struct(p, "#stablehlo.dot_algorithm", parsers, required=names)
        algorithm = DotAlgorithm(**vals)  # type: ignore[arg-type]
        # upstream's attribute verifier runs when the attribute is built: at its location
        msg = dot_algorithm_error(algorithm)
        if msg is not None:
            p.error(msg, pos)
        return cls(algorithm)


# ------------------------------------------------------------------- #stablehlo.result_accuracy
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


def _f64_bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def _bits_f64(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


@dataclass(frozen=True)
class ResultAccuracy:
    """Tolerances as f64 bit patterns (so that, as APFloat attributes, -0.0 differs from 0.0)."""

    atol_bits: int = 0
    rtol_bits: int = 0
    ulps: int = 0
    mode: str = "DEFAULT"

    @property
    def atol(self) -> float:
        return _bits_f64(self.atol_bits)

    @property
    def rtol(self) -> float:
        return _bits_f64(self.rtol_bits)


@irdl_attr_definition
class ResultAccuracyAttr(_StructAttr):
    """Requested accuracy of a transcendental unary op (result_accuracy of cbrt, cosine, ...)."""

    name = "stablehlo.result_accuracy"
    MNEMONIC = "result_accuracy"

    def __init__(
        self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0, mode: str = "DEFAULT"
    ) -> None:
        if mode not in ResultAccuracyModeAttr.CASES:
            raise ValueError(
                f"result accuracy mode must be one of {ResultAccuracyModeAttr.CASES}, not {mode!r}"
            )
        super().__init__(
            ResultAccuracy(_f64_bits(float(atol)), _f64_bits(float(rtol)), int(ulps), mode)
        )

    @property
    def accuracy(self) -> ResultAccuracy:
        return self.data

    def mlir_text(self) -> str:
        from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float

        d: ResultAccuracy = self.data
        f64 = FLOAT_SEMANTICS["f64"]
        parts = []
        if d.atol_bits:
            parts.append(f"atol = {format_float(d.atol, f64)}")
        if d.rtol_bits:
            parts.append(f"rtol = {format_float(d.rtol, f64)}")
        if d.ulps:
            parts.append(f"ulps = {d.ulps}")
        parts.append(f"mode = #stablehlo.result_accuracy_mode<{d.mode}>")
        return "#stablehlo.result_accuracy<" + ", ".join(parts) + ">"

    @classmethod
    def parse_body(cls, p: Parser) -> ResultAccuracyAttr:
        p.parse_literal("<", "to open #stablehlo.result_accuracy")

        def mode() -> str:
            p.ws()
            pos = p.pos
            a = p.parse_attribute()
            if not isinstance(a, ResultAccuracyModeAttr):
                p.error("expected a #stablehlo.result_accuracy_mode<...> attribute", pos)
            return a.data

        vals = parse_struct(
            p,
            "#stablehlo.result_accuracy",
            {
                "atol": lambda: parse_f64(p),
                "rtol": lambda: parse_f64(p),
                "ulps": p.parse_integer,
                "mode": mode,
            },
            required=("mode",),
        )
        return cls(**vals)  # type: ignore[arg-type]


DEFAULT_RESULT_ACCURACY = ResultAccuracyAttr()


# ------------------------------------------------------------------ #stablehlo.output_operand_alias
@dataclass(frozen=True)
class OutputOperandAlias:
    output_tuple_indices: tuple[int, ...] = ()
    operand_index: int = 0
    operand_tuple_indices: tuple[int, ...] = ()


@irdl_attr_definition
class OutputOperandAliasAttr(_StructAttr):
    """Which operand (part) a custom_call output (part) aliases (spec.md#custom_call)."""

    name = "stablehlo.output_operand_alias"
    MNEMONIC = "output_operand_alias"
    STRUCT = OutputOperandAlias

    @property
    def alias(self) -> OutputOperandAlias:
        return self.data

    def mlir_text(self) -> str:
        d: OutputOperandAlias = self.data
        return (
            f"#stablehlo.output_operand_alias<output_tuple_indices = {_dims_text(d.output_tuple_indices)}, "
            f"operand_index = {d.operand_index}, "
            f"operand_tuple_indices = {_dims_text(d.operand_tuple_indices)}>"
        )

    @classmethod
    def parse_body(cls, p: Parser) -> OutputOperandAliasAttr:
        p.parse_literal("<", "to open #stablehlo.output_operand_alias")
        p.parse_keyword("output_tuple_indices")
        p.parse_literal("=")
        out = parse_dims(p)
        p.parse_literal(",")
        p.parse_keyword("operand_index")
        p.parse_literal("=")
        idx = p.parse_integer()
        p.parse_literal(",")
        p.parse_keyword("operand_tuple_indices")
        p.parse_literal("=")
        opnd = parse_dims(p)
        p.parse_literal(">", "to close #stablehlo.output_operand_alias")
        return cls(OutputOperandAlias(out, idx, opnd))


def _dims_text(xs: tuple[int, ...]) -> str:
    """printDimSizes: `?` for a dynamic size."""
    return "[" + ", ".join("?" if x < 0 else str(x) for x in xs) + "]"


def register(reg: Registry) -> None:
    reg.attr_parsers["stablehlo.dot"] = DotDimensionNumbersAttr.parse_body
    reg.attr_parsers["stablehlo.conv"] = ConvDimensionNumbersAttr.parse_body
    reg.attr_parsers["stablehlo.dot_algorithm"] = DotAlgorithmAttr.parse_body
    reg.attr_parsers["stablehlo.result_accuracy"] = ResultAccuracyAttr.parse_body
    reg.attr_parsers["stablehlo.result_accuracy_mode"] = ResultAccuracyModeAttr.parse_body
    reg.attr_parsers["stablehlo.output_operand_alias"] = OutputOperandAliasAttr.parse_body
