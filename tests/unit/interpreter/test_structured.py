"""The structured-op import point re-exports every semantics function, documented."""

from __future__ import annotations

import inspect

import numpy as np

from stablehlo_py.semantics import structured


def test_every_export_resolves_and_is_documented():
    for name in structured.__all__:
        obj = getattr(structured, name)
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_spec_parameter_names():
    params = lambda f: list(inspect.signature(f).parameters)  # noqa: E731
    assert params(structured.broadcast_in_dim)[:2] == ["operand", "broadcast_dimensions"]
    assert params(structured.pad) == [
        "operand", "padding_value", "edge_padding_low", "edge_padding_high", "interior_padding"]
    assert params(structured.dot_general)[:6] == [
        "lhs", "rhs", "lhs_batching_dimensions", "rhs_batching_dimensions",
        "lhs_contracting_dimensions", "rhs_contracting_dimensions"]
    assert "start_index_map" in params(structured.gather)
    assert "scatter_dims_to_operand_dims" in params(structured.scatter)
    assert params(structured.sort) == ["inputs", "dimension", "is_stable", "comparator"]


def test_results_are_arrays_not_scalars():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    results = [
        structured.get_dimension_size(x, 0),
        structured.reduce([x], [np.array(0, np.int32)], [0, 1], structured.make_body(np.add, "add"))[0],
        structured.dot_general(x[0], x[0], lhs_contracting_dimensions=[0], rhs_contracting_dimensions=[0]),
        structured.dynamic_slice(x, [np.array(1), np.array(2)], [1, 1]),
    ]
    for r in results:
        assert isinstance(r, np.ndarray)
