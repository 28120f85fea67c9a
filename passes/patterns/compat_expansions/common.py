"""What the compatibility expansions share: op classes by name, building an op with its inferred
result types at a location, and the location of a value (upstream's ``Value::getLoc``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from stablehlo_py.passes.drivers._common import carry_location, op_class
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from stablehlo_py.ir.infer import infer_result_types

__all__ = ["build_op", "located_like_value", "op_class"]


def build_op(
    name: str,
    operands: Sequence[SSAValue],
    properties: Mapping[str, Attribute] | None = None,
    result_types: Sequence[Attribute] | None = None,
) -> Operation:
    """An unlinked op; its result types come from the op's inference rule when not given (as
    upstream's builders without result types)."""
    props = dict(properties or {})
    if result_types is None:
        result_types = infer_result_types(
            name, [v.type for v in operands], props, operands=list(operands)
        )
    return op_class(name).create(
        operands=list(operands), result_types=list(result_types), properties=props
    )


def located_like_value(new: Operation, value: SSAValue) -> Operation:
    """Give ``new`` the location of ``value``: its defining op's, or the block argument's."""
    owner = value.owner
    if isinstance(owner, Operation):
        return carry_location(new, owner)
    if isinstance(value, BlockArgument):
        from stablehlo_py.ir.text.location import TextLoc
        from stablehlo_py.ir.text.printer import location_text

        text = location_text(value)
        if text != "unknown":
            new.location = TextLoc(text)  # type: ignore[assignment]
    return new
