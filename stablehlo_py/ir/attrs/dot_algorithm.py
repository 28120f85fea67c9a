"""`#stablehlo.dot_algorithm<...>`: the algorithm of a dot_general (spec.md#dot_general).

`#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32,
accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,
num_primitive_operations = 1, allow_imprecise_accumulation = false>`: `struct(params)`, every field
required, any order when read; upstream's attribute verifier (verifyDotAlgorithmAttr) runs when it
is read. dot_general writes the body alone (`algorithm = <...>`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import BOOL, INT, PARSE_STRUCT, TYPE, DescribedAttr, field
from stablehlo_py.ir.text.spelling import type_to_str


@dataclass(frozen=True)
class DotAlgorithm:
    lhs_precision_type: Attribute = field(TYPE)
    rhs_precision_type: Attribute = field(TYPE)
    accumulation_type: Attribute = field(TYPE)
    lhs_component_count: int = field(INT)
    rhs_component_count: int = field(INT)
    num_primitive_operations: int = field(INT)
    allow_imprecise_accumulation: bool = field(BOOL)


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
class DotAlgorithmAttr(DescribedAttr):
    """The algorithm of a dot_general (spec.md#dot_general)."""

    name = "stablehlo.dot_algorithm"
    STRUCT = DotAlgorithm
    SYNTAX = dataclasses.replace(PARSE_STRUCT, open="to open the dot algorithm")
    BYTECODE = 15
    VERIFY = dot_algorithm_error

    def __init__(self, data: DotAlgorithm) -> None:
        super().__init__(data)

    @property
    def algorithm(self) -> DotAlgorithm:
        return self.data
