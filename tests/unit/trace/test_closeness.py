"""Whether two values agree (stablehlo_py/trace/closeness.py): per-dtype tolerances and their
overrides, exact integers and booleans, NaN patterns and infinities, shapes and element types,
the largest differences, and the weaker comparison of summaries."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter.trace_stats import Summary, summarize

from stablehlo_py.trace.closeness import compare_arrays, compare_summaries, tolerance_for

F32 = np.float32


def test_f32_within_the_default_tolerance_agrees_and_beyond_it_differs() -> None:
    ref = np.array([1.0, -2.0, 4.0], F32)
    near = ref * F32(1 + 1e-4)  # rtol 2e-4
    far = ref * F32(1 + 1e-3)
    ok = compare_arrays(near, ref)
    assert ok.agree is True and ok.mismatched == 0 and (ok.rtol, ok.atol) == (2e-4, 2e-5)
    bad = compare_arrays(far, ref)
    assert bad.agree is False and bad.mismatched == 3 and bad.size == 3
    assert bad.max_abs == pytest.approx(4e-3, rel=1e-3)
    assert bad.max_rel == pytest.approx(1e-3, rel=1e-3)
    assert "3 of 3 elements differ" in bad.format() and "max abs diff 0.004" in bad.format()


def test_rtol_and_atol_override_floats_but_not_integers() -> None:
    ref = np.array([1.0, 2.0], F32)
    assert compare_arrays(ref + F32(0.01), ref).agree is False
    assert compare_arrays(ref + F32(0.01), ref, rtol=0.0, atol=0.02).agree is True
    assert compare_arrays(ref * F32(1.05), ref, rtol=0.1).agree is True
    ints = np.array([1, 2], np.int32)
    assert compare_arrays(ints + 1, ints, rtol=10.0, atol=10.0).agree is False
    assert tolerance_for(np.int32, 1.0, 1.0) == (0.0, 0.0)
    assert tolerance_for(F32, None, 0.5) == (2e-4, 0.5)


def test_integers_and_booleans_compare_exactly() -> None:
    a = np.array([5, 7, 9], np.int64)
    c = compare_arrays(a, np.array([5, 8, 9], np.int64))
    assert c.agree is False and c.mismatched == 1 and c.max_abs == 1.0
    assert c.max_rel == pytest.approx(1 / 8)
    assert compare_arrays(a, a.copy()).agree is True
    big = np.array([2**64 - 1], np.uint64)
    assert compare_arrays(big, big - np.uint64(1)).agree is False  # no float rounding hides it
    t = np.array([True, False])
    assert compare_arrays(t, t.copy()).agree is True
    assert compare_arrays(t, ~t).mismatched == 2


def test_nan_must_sit_at_the_same_elements() -> None:
    nan = np.float32("nan")
    a = np.array([1.0, nan, 3.0], F32)
    assert compare_arrays(a, a.copy()).agree is True
    c = compare_arrays(a, np.array([1.0, 2.0, 3.0], F32))
    assert c.agree is False
    assert "NaN at 1 elements on one side only (1 here, 0 in the reference)" in c.reason
    assert c.max_abs == 0.0  # the finite elements agree


def test_infinities_must_be_equal() -> None:
    inf = np.float32("inf")
    a = np.array([inf, -inf, 1.0], F32)
    assert compare_arrays(a, a.copy()).agree is True
    c = compare_arrays(a, np.array([inf, inf, 1.0], F32))
    assert c.agree is False and "1 infinite elements differ" in c.reason
    assert compare_arrays(np.array([0.0], F32), np.array([-inf], F32)).agree is False


def test_shape_and_element_type_mismatches_say_so() -> None:
    c = compare_arrays(np.zeros((2, 3), F32), np.zeros((3, 2), F32))
    assert c.agree is False and c.reason == "shape [2,3] here, [3,2] in the reference"
    c = compare_arrays(np.zeros(2, F32), np.zeros(2, np.float16))
    assert c.agree is False and c.reason == "element type f32 here, f16 in the reference"


def test_narrow_floats_complex_and_scalars() -> None:
    bf = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    assert compare_arrays(bf, np.array([1.0078125, 2.0], ml_dtypes.bfloat16)).agree is True  # 2e-2
    assert compare_arrays(bf, np.array([1.25, 2.0], ml_dtypes.bfloat16)).agree is False
    f8 = ml_dtypes.float8_e4m3fn
    rtol, atol = tolerance_for(f8)
    assert rtol == atol == 2 * float(ml_dtypes.finfo(f8).eps)  # backends.tolerance leaves f8 exact
    assert compare_arrays(np.array([1.0], f8), np.array([1.125], f8)).agree is True
    assert compare_arrays(np.array([1.0], f8), np.array([2.0], f8)).agree is False
    z = np.array([1 + 1j, 2 - 1j], np.complex64)
    assert compare_arrays(z, z * np.complex64(1 + 1e-5)).agree is True
    c = compare_arrays(z, z + np.complex64(1j))
    assert c.agree is False and c.max_abs == pytest.approx(1.0)
    assert compare_arrays(np.float32(1.0), np.float32(1.5)).agree is False  # 0-d
    assert compare_arrays(np.zeros((0, 2), F32), np.zeros((0, 2), F32)).agree is True


def test_summaries_compare_when_values_were_not_kept() -> None:
    x = np.linspace(-1, 1, 50, dtype=F32)
    same = compare_summaries(summarize(x), summarize(x * F32(1 + 1e-6)))
    assert same.agree is True and same.how == "summaries"
    c = compare_summaries(summarize(x + F32(0.5)), summarize(x))
    assert c.agree is False and "mean" in c.reason and "[by summaries" in c.format()
    nan = compare_summaries(summarize(np.append(x, F32("nan"))), summarize(np.append(x, F32(0))))
    assert nan.agree is False and "NaN/Inf counts 1/0 here, 0/0" in nan.reason
    shape = compare_summaries(summarize(x[:10]), summarize(x[:20]))
    assert shape.agree is False and "shape [10] here, [20]" in shape.reason
    # two different tensors with one summary agree: the comparison is weaker than values
    assert compare_summaries(summarize(x), summarize(x[::-1].copy())).agree is True


def test_summaries_of_tokens_tuples_and_other_values() -> None:
    assert compare_summaries(Summary("token"), Summary("token")).agree is True
    pair = Summary("tuple", elements=(summarize(np.ones(2, F32)), Summary("token")))
    other = Summary("tuple", elements=(summarize(np.zeros(2, F32)), Summary("token")))
    assert compare_summaries(pair, pair).agree is True
    c = compare_summaries(pair, other)
    assert c.agree is False and c.reason.startswith("tuple element 0:")
    unknown = compare_summaries(summarize(np.ones(2, F32)), Summary("other", dtype="not returned"))
    assert unknown.agree is None and "not returned" in unknown.reason
    assert compare_summaries(Summary("token"), summarize(np.ones(2, F32))).agree is False
