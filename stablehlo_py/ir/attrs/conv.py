"""`#stablehlo.conv<...>`: the dimension numbers of convolution and dynamic_conv (spec.md#convolution).

Its text is a declared custom syntax (upstream's printConvolutionDimensions /
parseConvolutionDimensions): `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`, or
`#stablehlo.conv<raw input_batch_dimension = 0, ...>` (upstream's parseStruct over the fields; upstream
only reads it, this toolkit also writes it for numbers the compact form cannot express, where upstream
aborts).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import (
    DIMS,
    INT,
    PARSE_STRUCT,
    DescribedAttr,
    Description,
    entries_text,
    field,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


@dataclass(frozen=True)
class ConvDimensionNumbers:
    input_batch_dimension: int = field(INT, 0)
    input_feature_dimension: int = field(INT, 0)
    input_spatial_dimensions: tuple[int, ...] = field(DIMS, ())
    kernel_input_feature_dimension: int = field(INT, 0)
    kernel_output_feature_dimension: int = field(INT, 0)
    kernel_spatial_dimensions: tuple[int, ...] = field(DIMS, ())
    output_batch_dimension: int = field(INT, 0)
    output_feature_dimension: int = field(INT, 0)
    output_spatial_dimensions: tuple[int, ...] = field(DIMS, ())


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


class ConvSyntax:
    """The compact form, or `raw` and upstream's parseStruct over the described fields."""

    @staticmethod
    def print_body(d: Description, data: Any) -> str:
        text = conv_dims_text(data)
        if text is None:
            # Upstream aborts here (report_fatal_error); we write the `raw` form it can parse instead.
            return "raw " + entries_text(d, data)
        return text

    @staticmethod
    def parse(d: Description, p: Parser) -> ConvDimensionNumbers:
        p.parse_literal("<", "to open #stablehlo.conv")
        if p.try_keyword("raw"):
            return PARSE_STRUCT.parse_entries(d, p)  # type: ignore[no-any-return]
        dims = parse_conv_dims(p)
        p.parse_literal(">", "to close #stablehlo.conv")
        return dims


@irdl_attr_definition
class ConvDimensionNumbersAttr(DescribedAttr):
    """Dimension numbers of convolution and dynamic_conv (spec.md#convolution)."""

    name = "stablehlo.conv"
    STRUCT = ConvDimensionNumbers
    SYNTAX = ConvSyntax()
    BYTECODE = 4

    @property
    def dims(self) -> ConvDimensionNumbers:
        return self.data
