"""Upstream's ODS trait checks that ops verify before their own verifier, each in MLIR's words.

Each helper is one trait or predicate of StablehloOps.td, checking the named operands, results or
properties of an op; the names given are the ones the message lists (as ODS prints them):

* :func:`same_element_type` -- ``SameOperandsAndResultElementType``;
* :func:`compatible_element_types` -- ``HLO_CompatibleOperandsAndResultElementType``;
* :func:`all_element_types_match` -- ``AllElementTypesMatch<[...]>``;
* :func:`all_types_match` -- ``AllTypesMatch<[...]>``;
* :func:`all_ranks_match` -- ``AllRanksMatch<[...]>`` (unranked types are not checked);
* :func:`all_sizes_match` -- ``AllMatchSameOperatorTrait<[...], "$_self.size()", "size">``;
* :func:`confined_attribute` -- ``ConfinedAttr<I64Attr, [IntNonNegative]>`` and the like;
* :func:`upstream` -- runs one of the shared verifiers of ``ir.infer`` (which raise ``InferError``
  with upstream's words) as the op's verifier.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute

from stablehlo_py.ir.infer import InferError
from stablehlo_py.ir.infer.shapes import element_type_compatible
from stablehlo_py.ir.verify.constraints import fail, int_values, rank
from stablehlo_py.ir.verify.ods_types import (
    CONFINED_ATTRS,
    attr_constraint_failure,
    integer_attr_summary,
)
from stablehlo_py.ir.types import element_type


def upstream(check: Callable[..., Any], *args: Any) -> Any:
    """Run `check(*args)` (an `infer` verifier or rule) and return what it returns; its InferError
    becomes this op's diagnostic."""
    try:
        return check(*args)
    except InferError as e:
        fail(e.message)


def confined_attribute(op: Any, name: str) -> None:
    """upstream's `ConfinedAttr<I64Attr, [IntNonNegative]>` (and the like, ods_types.CONFINED_ATTRS)
    of property `name`: its value must satisfy the predicate, in MLIR's words.  (The attribute's
    type is the property's constraint; ODS checks attributes before operand and result types.)"""
    predicate = CONFINED_ATTRS.get((op.name, name))
    a = op.properties.get(name)
    if predicate is None or not isinstance(a, IntegerAttr):
        return
    v = a.value.data
    holds = v >= 0 if predicate.endswith("non-negative") else v > 0  # IntNonNegative, IntPositive
    if not holds:
        fail(attr_constraint_failure(name, f"{integer_attr_summary(a.type)} {predicate}"))


def same_element_type(*types: Attribute, what: str = "operands and results") -> None:
    """SameOperandsAndResultElementType (``what="operands"``: SameOperandsElementType)."""
    first = element_type(types[0])
    if any(element_type(t) != first for t in types[1:]):
        fail(f"requires the same element type for all {what}")


def compatible_element_types(*types: Attribute) -> None:
    """HLO_CompatibleOperandsAndResultElementType: element types equal up to quantization."""
    if not all(element_type_compatible(t, types[0]) for t in types):
        fail("requires compatible element types for all operands and results")


def pairwise_same(ins: list[Attribute], outs: list[Attribute], what: str = "type") -> None:
    """HLO_PairwiseSameOperandAndResultType (``what="element type"``: ...ElementType): operand i
    and result i agree, for as many operands as results."""
    if len(ins) != len(outs):
        fail("requires the same number of operands and results")
    for i, (a, b) in enumerate(zip(ins, outs)):
        if a != b and (what == "type" or element_type(a) != element_type(b)):
            fail(f"requires the same {what} for operand and result at index {i}")


def _types(op: Any, names: tuple[str, ...]) -> list[Attribute]:
    return [getattr(op, n).type for n in names]


def _all_of(names: tuple[str, ...], what: str) -> str:
    return f"failed to verify that all of {{{', '.join(names)}}} have same {what}"


def all_element_types_match(op: Any, *names: str) -> None:
    """AllElementTypesMatch<[names]> over operands and results named `names`."""
    types = _types(op, names)
    first = element_type(types[0])
    if any(element_type(t) != first for t in types[1:]):
        fail(_all_of(names, "element type"))


def all_types_match(op: Any, *names: str) -> None:
    """AllTypesMatch<[names]> over operands and results named `names`."""
    types = _types(op, names)
    if any(t != types[0] for t in types[1:]):
        fail(_all_of(names, "type"))


def all_ranks_match(op: Any, *names: str) -> None:
    """AllRanksMatch<[names]> over ranked operands and results named `names`."""
    if len({r for r in map(rank, _types(op, names)) if r is not None}) > 1:
        fail(_all_of(names, "rank"))


def all_sizes_match(op: Any, *names: str) -> None:
    """AllMatchSameOperatorTrait<[names], "$_self.size()", "size"> over array properties."""
    if len({len(int_values(getattr(op, n))) for n in names}) != 1:
        fail(_all_of(names, "size"))


__all__ = [
    "all_element_types_match",
    "all_ranks_match",
    "all_sizes_match",
    "all_types_match",
    "compatible_element_types",
    "confined_attribute",
    "pairwise_same",
    "same_element_type",
    "upstream",
]
