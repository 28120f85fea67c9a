"""The shared inference helpers (upstream's Base.cpp): compatibility with bounds, the most and least
specific type of several (with upstream's rules tables and messages), tuples, and the registry."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ArrayAttr, TensorType, TupleType, UnrankedTensorType, f32, i32

from stablehlo_py.ir.infer import InferError, has_rule, infer_result_types, rules
from stablehlo_py.ir.infer.shapes import (
    DYN,
    bounds_of,
    infer_least_specific_type,
    infer_most_specific_type,
    is_compatible,
    ranked,
)


def t(*shape: int, bounds: tuple[int, ...] = (), elem=f32) -> TensorType:  # type: ignore[no-untyped-def]
    return ranked(shape, elem, bounds)


def test_compatibility_with_dynamic_dims_and_bounds() -> None:
    assert is_compatible(t(2, 3), t(2, 3))
    assert is_compatible(t(2, DYN), t(2, 3))
    assert not is_compatible(t(2, 3), t(2, 4))
    assert not is_compatible(t(2, 3), t(2, 3, elem=i32))
    assert is_compatible(UnrankedTensorType(f32), t(5))
    # a static size above the other's bound is incompatible
    assert is_compatible(t(DYN, bounds=(4,)), t(3))
    assert not is_compatible(t(DYN, bounds=(2,)), t(3))
    assert not is_compatible(t(2), t(2, 1))


def test_most_specific_type_follows_upstreams_table() -> None:
    # c0/c1: X with X or ? -> X; c5: ? with ?,B -> ?,B; c6: min of bounds
    assert infer_most_specific_type([t(2, DYN), t(DYN, 3)]) == t(2, 3)
    got = infer_most_specific_type([t(DYN, bounds=(8,)), t(DYN, bounds=(5,))])
    assert bounds_of(got) == (5,)
    assert infer_most_specific_type([t(DYN, bounds=(4,)), t(DYN)]) == t(DYN, bounds=(4,))
    # as upstream's inferTypeWithCustomFn: bounds are kept only when the FIRST type has some
    assert infer_most_specific_type([t(DYN), t(DYN, bounds=(4,))]) == t(DYN)
    with pytest.raises(InferError, match="Mismatched dimension sizes 2 and 3 in dimension 0"):
        infer_most_specific_type([t(2), t(3)])
    with pytest.raises(InferError, match="Mismatched dimension size 5 and bound 4 in dimension 0"):
        infer_most_specific_type([t(DYN, bounds=(4,)), t(5)])


def test_least_specific_type_follows_upstreams_table() -> None:
    assert infer_least_specific_type([t(2, 3), t(2, 3)]) == t(2, 3)
    assert infer_least_specific_type([t(2), t(DYN)]) == t(DYN)
    assert bounds_of(infer_least_specific_type([t(DYN, bounds=(7,)), t(2)])) == (7,)
    assert bounds_of(infer_least_specific_type([t(DYN, bounds=(1,)), t(2)])) == (2,)
    assert infer_least_specific_type([t(2), t(DYN, bounds=(7,))]) == t(DYN)  # first has none
    assert bounds_of(infer_least_specific_type([t(DYN, bounds=(3,)), t(DYN, bounds=(7,))])) == (7,)


def test_tuples_map_elementwise_into_a_proper_tuple() -> None:
    a = TupleType(ArrayAttr((t(2, DYN),)))
    b = TupleType(ArrayAttr((t(DYN, 3),)))
    got = infer_most_specific_type([a, b])
    assert got == TupleType(ArrayAttr((t(2, 3),)))
    hash(got)
    with pytest.raises(InferError, match="either all types must be tuples"):
        infer_most_specific_type([a, t(2, 3)])


def test_registry_has_rules_and_refuses_unknown_ops() -> None:
    assert has_rule("stablehlo.add") and "stablehlo.add" in rules()
    assert infer_result_types("stablehlo.add", [t(2, DYN), t(DYN, 3)]) == [t(2, 3)]
    with pytest.raises(KeyError):
        infer_result_types("stablehlo.no_such_op", [])
