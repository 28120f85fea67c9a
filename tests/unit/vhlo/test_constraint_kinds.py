"""A fork's value-dependent legality check is named by the `constraint` key of its specs/ops.toml row
(one description per op); vhlo/legality.py holds one function per name."""

from __future__ import annotations

import dataclasses

import pytest

from stablehlo_py import specs
from stablehlo_py.vhlo import legality


def test_every_constraint_row_names_a_known_check() -> None:
    named = {o.name: o.constraint for o in specs.ops() if o.constraint is not None}
    assert named == {
        "all_reduce_v1": "reduction_type_promotion",
        "custom_call_v1": "custom_call_typed_ffi_and_future",
        "reduce_scatter_v1": "reduction_type_promotion",
        "reduce_v1": "reduction_type_promotion",
        "reduce_window_v1": "reduction_type_promotion",
        "scatter_v1": "reduction_type_promotion",
        "select_and_scatter_v1": "reduction_type_promotion",
    }
    for name, kind in named.items():
        assert legality.CONSTRAINTS[name] is legality.CONSTRAINT_KINDS[kind]


def test_an_unknown_constraint_name_is_refused_with_the_known_ones(monkeypatch) -> None:
    rows = list(specs.ops())
    i = next(i for i, o in enumerate(rows) if o.name == "reduce_v1")
    rows[i] = dataclasses.replace(rows[i], constraint="promotoin")
    monkeypatch.setattr(specs, "ops", lambda: tuple(rows))
    with pytest.raises(ValueError) as info:
        legality._constraints()
    assert str(info.value) == (
        "specs/ops.toml: reduce_v1 has constraint = 'promotoin'; known: "
        "custom_call_typed_ffi_and_future, reduction_type_promotion (vhlo/legality.py CONSTRAINT_KINDS)"
    )
