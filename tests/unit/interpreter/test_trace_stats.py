"""Per-value summaries of traces (interpreter/trace_stats.py): every element type's min/max/mean
and NaN/Inf counts, empty tensors, tokens, tuples, quantized values, merging over runs, and the
dict form a trace file stores."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter.evaluator import TOKEN
from stablehlo_py.interpreter.trace_stats import Summary, merge, summarize


def test_floats_count_nan_and_inf_and_average_the_finite_values() -> None:
    s = summarize(np.array([1, np.nan, np.inf, -2, -np.inf], np.float32))
    assert (s.kind, s.shape, s.dtype, s.size) == ("tensor", (5,), "f32", 5)
    assert (s.nan, s.inf, s.finite) == (1, 2, 2)
    assert s.min == -math.inf and s.max == math.inf
    assert s.mean == pytest.approx(-0.5)
    assert s.format() == "f32[5] min -inf max inf mean -0.5 nan 1 inf 2"


def test_all_nan_has_no_min_max_or_mean() -> None:
    s = summarize(np.full((2, 2), np.nan, np.float64))
    assert (s.min, s.max, s.mean, s.nan, s.finite) == (None, None, None, 4, 0)
    assert s.format() == "f64[2,2] nan 4"


@pytest.mark.parametrize(
    ("dtype", "name"),
    [
        (ml_dtypes.bfloat16, "bf16"),
        (ml_dtypes.float8_e4m3fn, "f8E4M3FN"),
        (ml_dtypes.float8_e5m2, "f8E5M2"),
        (ml_dtypes.float4_e2m1fn, "f4E2M1FN"),
        (np.float16, "f16"),
    ],
)
def test_narrow_floats_are_widened(dtype: object, name: str) -> None:
    s = summarize(np.array([1.5, -3, 0.5], dtype))
    assert (s.dtype, s.min, s.max) == (name, -3.0, 1.5)
    assert s.mean == pytest.approx(-1 / 3)


def test_bf16_nan_is_counted() -> None:
    s = summarize(np.array([1, np.nan], ml_dtypes.bfloat16))
    assert (s.nan, s.min, s.max, s.mean) == (1, 1.0, 1.0, 1.0)


def test_integers_are_exact_python_ints() -> None:
    s = summarize(np.array([2**64 - 1, 3], np.uint64))
    assert (s.dtype, s.min, s.max) == ("ui64", 3, 2**64 - 1)
    assert type(s.max) is int
    s = summarize(np.array([-(2**63), 5], np.int64))
    assert (s.min, s.max) == (-(2**63), 5)
    s = summarize(np.array([-8, 7, 1], ml_dtypes.int4))
    assert (s.dtype, s.min, s.max, s.mean) == ("i4", -8, 7, 0.0)
    assert (s.nan, s.inf) == (0, 0)


def test_bools_count_true_as_one() -> None:
    s = summarize(np.array([True, False, True, True]))
    assert (s.dtype, s.min, s.max, s.mean) == ("i1", 0, 1, 0.75)
    assert summarize(np.array([True, True])).min == 1
    assert summarize(np.array([False])).max == 0


def test_complex_has_a_mean_and_largest_magnitude() -> None:
    s = summarize(np.array([3 + 4j, 1 - 1j, complex(np.nan, 0), complex(0, np.inf)], np.complex64))
    assert (s.dtype, s.min, s.max, s.nan, s.inf, s.finite) == ("complex<f32>", None, None, 1, 1, 2)
    assert s.mean == pytest.approx(2 + 1.5j)
    assert s.abs_max == pytest.approx(5.0)
    assert "|max| 5" in s.format() and "mean (2+1.5j)" in s.format()


def test_empty_scalar_token_tuple_and_other_values() -> None:
    empty = summarize(np.zeros((0, 3), np.float32))
    assert (empty.size, empty.min, empty.mean) == (0, None, None)
    assert empty.format() == "f32[0,3] empty"
    assert summarize(np.float32(2)).format() == "f32[] min 2 max 2 mean 2"
    assert summarize(TOKEN) == Summary("token")
    t = summarize((np.int32(1), TOKEN))
    assert t.kind == "tuple" and [e.kind for e in t.elements] == ["tensor", "token"]
    assert summarize("x") == Summary("other", dtype="str")
    assert summarize(np.array(["a"])).kind == "other"


def test_quantized_values_are_described_by_their_stored_integers() -> None:
    s = summarize(np.array([-3, 5], np.int8), "!quant.uniform<i8:f32, 1.000000e-01>")
    assert (s.dtype, s.min, s.max) == ("i8", -3, 5)
    assert "(!quant.uniform<i8:f32, 1.000000e-01>, stored values)" in s.format()


def test_merge_takes_extremes_totals_and_the_weighted_mean() -> None:
    a = summarize(np.array([1.0, 2.0]))
    b = summarize(np.array([np.nan, 6.0, np.inf]))
    m = merge(a, b)
    assert (m.min, m.max, m.nan, m.inf, m.finite, m.size) == (1.0, np.inf, 1, 1, 3, 5)
    assert m.mean == pytest.approx(3.0)
    assert m.shape == (3,)  # the later run's
    assert merge(summarize(np.zeros(0)), a).mean == a.mean
    assert merge(a, summarize(np.zeros(0))).mean == a.mean
    pair = merge(summarize((np.int32(1),)), summarize((np.int32(4),)))
    assert (pair.elements[0].min, pair.elements[0].max) == (1, 4)
    assert merge(a, summarize(TOKEN)).kind == "token"


@pytest.mark.parametrize(
    "value",
    [
        np.array([1, np.nan, -np.inf], np.float32),
        np.array([1 + 2j, 3], np.complex128),
        np.array([2**64 - 1], np.uint64),
        np.array([True]),
        np.zeros((2, 0), ml_dtypes.bfloat16),
        (np.int8(3), TOKEN),
        TOKEN,
    ],
)
def test_the_dict_form_round_trips(value: object) -> None:
    s = summarize(value)
    assert Summary.from_dict(s.as_dict()) == s
