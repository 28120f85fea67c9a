"""The interpreter's convolution (`impls/conv_plan.py`: im2col copies and one matrix multiply)
against the spec's reference, `semantics.linalg.convolution`, over a sweep of dimension numbers,
strides, padding, dilations, reversal, feature/batch groups and element types; and the short
sums' schedule, bit for bit."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.impls import contraction
from stablehlo_py.interpreter.impls.conv_plan import ConvPlan
from stablehlo_py.interpreter.impls.conv_strategy import convolution
from stablehlo_py.semantics import linalg as la

DTYPES = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "c64": np.dtype(np.complex64),
    "i32": np.dtype(np.int32),
    "i8": np.dtype(np.int8),
}

# |got - reference| <= RTOL * (|lhs| conv |rhs|): sums in another order differ by a few ULP of the
# accumulation type times the number of terms; a narrow result type adds one rounding of its own
RTOL = {
    "f32": 2e-6 * 64,
    "c64": 2e-6 * 64,
    "f64": 4e-15 * 64,
    "bf16": 2.0**-7 + 2e-6 * 64,
    "f16": 2.0**-10 + 2e-6 * 64,
}


def _operand(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _assert_close(got: np.ndarray, lhs: np.ndarray, rhs: np.ndarray, key: str, kw: dict) -> None:
    """`got` is the spec's convolution of `lhs` and `rhs`: exactly for integers, else within
    the dtype's tolerance of the magnitudes summed."""
    want = la.convolution(lhs, rhs, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    if key not in RTOL:
        np.testing.assert_array_equal(got, want)
        return
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    magnitudes = la.convolution(
        np.abs(lhs.astype(wide)), np.abs(rhs.astype(wide)), **{**kw, "result_element_type": None}
    )
    err = np.abs(got.astype(wide) - want.astype(wide))
    excess = err - RTOL[key] * magnitudes
    assert np.all(excess <= 1e-30), float(np.max(excess))


@st.composite
def conv_cases(draw: Any) -> tuple[str, tuple[int, ...], tuple[int, ...], dict[str, Any]]:
    """A valid convolution: element type, operand shapes and the semantics' keyword arguments."""
    key = draw(st.sampled_from(sorted(DTYPES)))
    s = draw(st.sampled_from([1, 1, 2, 2, 2, 3]))
    fgc, bgc = draw(st.sampled_from([(1, 1), (1, 1), (1, 1), (2, 1), (3, 1), (1, 2), (1, 3)]))
    depthwise = fgc > 1 and draw(st.booleans())
    cg = 1 if depthwise else draw(st.integers(1, 3))
    c, f = cg * fgc, draw(st.integers(1, 3)) * fgc * bgc
    n = draw(st.integers(1, 2)) * bgc
    small = 4 if s == 3 else 7
    spatial = [draw(st.integers(1, small)) for _ in range(s)]
    kernel = [draw(st.integers(1, 3)) for _ in range(s)]
    strides = [draw(st.integers(1, 3)) for _ in range(s)]
    ldil = [draw(st.sampled_from([1, 1, 2, 3])) for _ in range(s)]
    rdil = [draw(st.sampled_from([1, 1, 2])) for _ in range(s)]
    pads = []
    for i in range(s):
        dilated = (spatial[i] - 1) * ldil[i] + 1
        lo, hi = draw(st.integers(-2, 3)), draw(st.integers(-2, 3))
        if dilated + lo + hi < (kernel[i] - 1) * rdil[i] + 1:  # at least one window
            hi = (kernel[i] - 1) * rdil[i] + 1 - dilated - lo
        pads.append([lo, hi])
    reversal = [draw(st.booleans()) for _ in range(s)]
    in_perm = draw(st.permutations(range(s + 2)))
    k_perm = draw(st.permutations(range(s + 2)))
    o_perm = draw(st.permutations(range(s + 2)))
    lhs_shape = [0] * (s + 2)
    for axis, size in zip(in_perm, [n, c, *spatial], strict=True):
        lhs_shape[axis] = size
    rhs_shape = [0] * (s + 2)
    for axis, size in zip(k_perm, [cg, f, *kernel], strict=True):
        rhs_shape[axis] = size
    kw = {
        "window_strides": strides,
        "padding": np.asarray(pads, dtype=np.int64),
        "lhs_dilation": ldil,
        "rhs_dilation": rdil,
        "window_reversal": reversal,
        "input_batch_dimension": in_perm[0],
        "input_feature_dimension": in_perm[1],
        "input_spatial_dimensions": list(in_perm[2:]),
        "kernel_input_feature_dimension": k_perm[0],
        "kernel_output_feature_dimension": k_perm[1],
        "kernel_spatial_dimensions": list(k_perm[2:]),
        "output_batch_dimension": o_perm[0],
        "output_feature_dimension": o_perm[1],
        "output_spatial_dimensions": list(o_perm[2:]),
        "feature_group_count": fgc,
        "batch_group_count": bgc,
        "result_element_type": DTYPES[key],
    }
    return key, tuple(lhs_shape), tuple(rhs_shape), kw


@settings(max_examples=300, deadline=None)
@given(conv_cases(), st.integers(0, 2**32 - 1))
def test_conv_plan_matches_the_spec_convolution_over_dimension_numbers_and_dtypes(case, seed):
    key, lhs_shape, rhs_shape, kw = case
    rng = np.random.default_rng(seed)
    lhs = _operand(rng, lhs_shape, DTYPES[key])
    rhs = _operand(rng, rhs_shape, DTYPES[key])
    got = convolution(lhs, rhs, **kw)
    _assert_close(got, lhs, rhs, key, kw)


@settings(max_examples=100, deadline=None)
@given(conv_cases(), st.integers(0, 2**32 - 1))
def test_short_float_convolutions_sum_in_upstreams_order_bit_for_bit(case, seed):
    """Up to `SEQUENTIAL_MAX_K` terms per output (and any number of outputs here), the im2col plan
    gives exactly the spec path whose windows are contracted by `contraction.contract`
    (upstream's in-order schedule): the im2col columns are in the spec's contraction order."""
    key, lhs_shape, rhs_shape, kw = case
    if key not in RTOL:
        key = "f32"
        kw = {**kw, "result_element_type": DTYPES[key]}
    rng = np.random.default_rng(seed)
    lhs = _operand(rng, lhs_shape, DTYPES[key])
    rhs = _operand(rng, rhs_shape, DTYPES[key])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(contraction, "SEQUENTIAL_MAX_TERMS", 1 << 40)
        got = convolution(lhs, rhs, **kw)
        want = la.convolution(lhs, rhs, contract=contraction.contract, **kw)
    terms = rhs.size // (rhs.shape[kw["kernel_output_feature_dimension"]])
    if terms <= contraction.SEQUENTIAL_MAX_K:
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()
        assert got.shape == want.shape and got.dtype == want.dtype


def test_small_contractions_keep_the_in_order_schedule_and_large_ones_take_blas():
    """The schedule is decided by the terms per sum and the products per matrix, the same for a
    convolution's groups as for `dot_general`'s batch."""
    assert contraction.is_sequential(1, 5, 32, 3)
    assert contraction.is_sequential(1000, 8, 16, 8)  # a batch of small matrices: in order
    assert not contraction.is_sequential(1, 5, 33, 3)
    assert not contraction.is_sequential(1, 512, 27, 8)  # the small CNN's first convolution


@pytest.mark.parametrize("key", ["f32", "bf16", "c64", "f64"])
def test_long_convolution_one_gemm_in_the_accumulation_type(key):
    """A 3x3x64 window (576 terms): BLAS, close to the spec's result."""
    rng = np.random.default_rng(3)
    lhs = _operand(rng, (2, 9, 8, 64), DTYPES[key])
    rhs = _operand(rng, (3, 3, 64, 5), DTYPES[key])
    kw = _nhwc(DTYPES[key], padding=np.array([[1, 1], [0, 2]]), window_strides=[2, 1])
    _assert_close(convolution(lhs, rhs, **kw), lhs, rhs, key, kw)


def _nhwc(dtype: np.dtype, **extra: Any) -> dict[str, Any]:
    return {
        "input_batch_dimension": 0,
        "input_spatial_dimensions": [1, 2],
        "input_feature_dimension": 3,
        "kernel_spatial_dimensions": [0, 1],
        "kernel_input_feature_dimension": 2,
        "kernel_output_feature_dimension": 3,
        "output_batch_dimension": 0,
        "output_spatial_dimensions": [1, 2],
        "output_feature_dimension": 3,
        "result_element_type": dtype,
        **extra,
    }


def test_one_by_one_convolution_multiplies_the_input_without_an_im2col_copy():
    x = np.random.default_rng(4).standard_normal((2, 5, 6, 40)).astype(np.float32)
    plan = ConvPlan.of(x.shape, (1, 1, 40, 3), None, np.dtype(np.float32), _nhwc(np.float32))
    cols = plan.columns(plan.windows(x))
    assert cols.shape == (1, 60, 40) and np.shares_memory(cols, x)


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "extra", "want_shape"),
    [
        ((1, 4, 4, 2), (5, 3, 2, 3), {}, (1, 0, 2, 3)),  # window taller than the input
        ((1, 0, 4, 2), (1, 1, 2, 3), {}, (1, 0, 4, 3)),  # no rows
        ((1, 4, 4, 0), (2, 2, 0, 3), {}, (1, 3, 3, 3)),  # no input features: sums of nothing
        ((1, 2, 2, 2), (1, 1, 2, 3), {"padding": np.array([[-1, -1], [0, 0]])}, (1, 0, 2, 3)),
    ],
)
def test_empty_convolutions_match_the_spec(lhs_shape, rhs_shape, extra, want_shape):
    rng = np.random.default_rng(5)
    lhs = _operand(rng, lhs_shape, DTYPES["f32"])
    rhs = _operand(rng, rhs_shape, DTYPES["f32"])
    kw = _nhwc(np.dtype(np.float32), **extra)
    got = convolution(lhs, rhs, **kw)
    assert got.shape == want_shape
    np.testing.assert_array_equal(got, la.convolution(lhs, rhs, **kw))


def test_mixed_operand_types_convert_to_the_result_type_first():
    rng = np.random.default_rng(6)
    lhs = rng.standard_normal((1, 5, 5, 3)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    kw = _nhwc(np.dtype(ml_dtypes.bfloat16))
    _assert_close(convolution(lhs, rhs, **kw), lhs, rhs, "bf16", kw)


PROGRAM = """
func.func @main(%x: tensor<2x6x9x8xf32>, %k: tensor<4x3x3x3xf32>, %p: tensor<2x2xi64>)
    -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>) {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
      window = {stride = [2, 3], pad = [[1, 0], [0, 1]], rhs_dilate = [2, 1], reverse = [true, false]}
      {batch_group_count = 1 : i64, feature_group_count = 2 : i64}
      : (tensor<2x6x9x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x3x3xf32>
  %d = "stablehlo.dynamic_conv"(%x, %k, %p) {window_strides = array<i64: 2, 3>,
      rhs_dilation = array<i64: 2, 1>, window_reversal = array<i1: true, false>,
      dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>,
      batch_group_count = 1 : i64, feature_group_count = 2 : i64}
      : (tensor<2x6x9x8xf32>, tensor<4x3x3x3xf32>, tensor<2x2xi64>) -> tensor<2x4x3x3xf32>
  return %r, %d : tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>
}"""


def test_compiled_and_dynamic_convolutions_match_the_spec():
    """The compiled op (a plan made once for its static shapes) and `dynamic_conv` (a plan per
    call), on an NCHW/OIHW grouped, strided, dilated, reversed, padded convolution."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 6, 9, 8)).astype(np.float32)
    k = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    pads = np.array([[1, 0], [0, 1]], np.int64)
    kw = {
        "window_strides": [2, 3],
        "padding": pads,
        "rhs_dilation": [2, 1],
        "window_reversal": [True, False],
        "input_batch_dimension": 0,
        "input_feature_dimension": 1,
        "input_spatial_dimensions": [2, 3],
        "kernel_output_feature_dimension": 0,
        "kernel_input_feature_dimension": 1,
        "kernel_spatial_dimensions": [2, 3],
        "output_batch_dimension": 0,
        "output_feature_dimension": 1,
        "output_spatial_dimensions": [2, 3],
        "feature_group_count": 2,
    }
    compiled, dynamic = run(PROGRAM, x, k, pads)
    want = la.convolution(x, k, contract=contraction.contract, **kw)
    assert compiled.tobytes() == np.ascontiguousarray(want).tobytes()  # 27 terms: in order
    assert dynamic.tobytes() == compiled.tobytes()


@pytest.mark.parametrize("key", ["f32", "bf16", "c64", "f64", "i32"])
@pytest.mark.parametrize(("cg", "fg"), [(1, 1), (1, 2), (2, 2)])
def test_depthwise_convolutions_sum_in_order_bit_for_bit(key, cg, fg):
    """Feature groups of at most 4 input x output features take `sum_in_order` (no im2col):
    upstream's schedule at any size, so exactly the spec path with `contraction.contract`
    (its product cap lifted); NaNs included (the im2col path recomputes those sums)."""
    g = 6
    rng = np.random.default_rng(cg * 10 + fg)
    lhs = _operand(rng, (2, 9, 10, g * cg), DTYPES[key])
    rhs = _operand(rng, (3, 2, cg, g * fg), DTYPES[key])
    if key != "i32":
        lhs[0, 3, 4, 1] = np.nan
        rhs[1, 0, 0, -1] = np.inf
    kw = _nhwc(DTYPES[key], padding=np.array([[1, 1], [2, 0]]), window_reversal=[False, True])
    kw["feature_group_count"] = g
    plan = ConvPlan.of(lhs.shape, rhs.shape, kw["padding"], DTYPES[key], kw)
    assert plan.in_order
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(contraction, "SEQUENTIAL_MAX_TERMS", 1 << 40)
        want = la.convolution(lhs, rhs, contract=contraction.contract, **kw)
    got = convolution(lhs, rhs, **kw)
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@st.composite
def transposed_cases(draw: Any) -> tuple[str, tuple[int, ...], tuple[int, ...], dict[str, Any]]:
    """Convolutions the phases apply to: lhs dilation, window stride 1, no rhs dilation or
    reversal (other dimension numbers, padding, groups and types as `conv_cases`)."""
    key, lhs_shape, rhs_shape, kw = draw(conv_cases())
    s = len(kw["window_strides"])
    ldil = [draw(st.integers(1, 3)) for _ in range(s)]
    if all(d == 1 for d in ldil):
        ldil[0] = 2
    pads = kw["padding"].copy()
    sizes = [lhs_shape[d] for d in kw["input_spatial_dimensions"]]
    kernel = [rhs_shape[d] for d in kw["kernel_spatial_dimensions"]]
    for i in range(s):
        dilated = (sizes[i] - 1) * ldil[i] + 1
        if dilated + pads[i, 0] + pads[i, 1] < kernel[i]:
            pads[i, 1] = kernel[i] - dilated - pads[i, 0]
    return key, lhs_shape, rhs_shape, {
        **kw,
        "window_strides": [1] * s,
        "rhs_dilation": [1] * s,
        "window_reversal": [False] * s,
        "lhs_dilation": ldil,
        "padding": pads,
    }


@settings(max_examples=150, deadline=None)
@given(transposed_cases(), st.integers(0, 2**32 - 1), st.booleans())
def test_transposed_convolutions_by_phases_match_the_spec(case, seed, infinite):
    """`PhasePlan` (one ordinary convolution per output phase of the lhs dilation) gives the
    spec's result within the dtype's tolerance (integers exactly); a kernel with an infinity
    takes the plain plan (0 * inf is NaN: the phases would drop those products)."""
    from stablehlo_py.interpreter.impls.conv_strategy import PhasePlan, plan_convolution

    key, lhs_shape, rhs_shape, kw = case
    rng = np.random.default_rng(seed)
    lhs = _operand(rng, lhs_shape, DTYPES[key])
    rhs = _operand(rng, rhs_shape, DTYPES[key])
    infinite = infinite and key in RTOL and key != "c64"  # complex products of inf: BLAS's own
    if infinite:
        rhs.reshape(-1)[0] = np.inf
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(contraction, "SEQUENTIAL_MAX_TERMS", -1)  # every sum by BLAS: phases apply
        plan = plan_convolution(lhs_shape, rhs_shape, kw["padding"], DTYPES[key], kw)
        got = convolution(lhs, rhs, **kw)
    assert isinstance(plan, PhasePlan) or plan.in_order
    if infinite:
        with np.errstate(invalid="ignore"):
            want = la.convolution(lhs, rhs, **kw)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        return
    _assert_close(got, lhs, rhs, key, kw)


def test_small_transposed_convolutions_keep_upstreams_order():
    from stablehlo_py.interpreter.impls.conv_strategy import plan_convolution

    kw = _nhwc(np.dtype(np.float32), lhs_dilation=[2, 2], padding=np.array([[1, 1], [1, 1]]))
    plan = plan_convolution((1, 4, 4, 3), (3, 3, 3, 2), kw["padding"], np.dtype(np.float32), kw)
    assert isinstance(plan, ConvPlan)
