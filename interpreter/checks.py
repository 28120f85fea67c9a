"""Result checks as upstream's interpreter defines them (stablehlo/reference/Ops.cpp, CheckOps.cpp):
`check.expect_eq[_const]` exact; `check.expect_almost_eq[_const]` within an absolute tolerance
(default 1e-4); `check.expect_close` within [min, max] ULPs (defaults 0..1).  The testdata's
`custom_call @check.*` forms use max 3 ULPs and tolerance 1e-3; `@check.eq` returns an i1 tensor.
Each function returns None when the check holds, else a message naming the differing values."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.semantics import dtypes

_MAX_SHOWN = 5


def _describe(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, what: str) -> str:
    idx = np.argwhere(bad)
    shown = []
    for i in idx[:_MAX_SHOWN]:
        t = tuple(int(x) for x in i)
        a = actual[t] if actual.ndim else actual[()]
        e = expected[t] if expected.ndim else expected[()]
        shown.append(f"at {list(t)}: got {_show(a)}, expected {_show(e)}")
    more = f" (and {len(idx) - _MAX_SHOWN} more)" if len(idx) > _MAX_SHOWN else ""
    return f"{len(idx)} element(s) differ{what}: " + "; ".join(shown) + more


def _show(v: Any) -> str:
    """An element as a number (``2.0000005``, ``(1+2j)``, ``-3``), not numpy's ``np.float32(...)``."""
    return str(v.item() if isinstance(v, np.ndarray) else v)


def _shape_problem(actual: np.ndarray, expected: np.ndarray) -> str | None:
    if actual.shape != expected.shape:
        return f"shapes differ: got {list(actual.shape)}, expected {list(expected.shape)}"
    return None


def expect_eq(actual: Any, expected: Any) -> str | None:
    a, e = np.asarray(actual), np.asarray(expected)
    if (p := _shape_problem(a, e)) is not None:
        return p
    if dtypes.is_float(a.dtype) or dtypes.is_complex(a.dtype):
        # upstream's evalExpectEqOp compares with APFloat's `==`: NaN equals nothing, -0 == +0
        bad = ~(_wide(a) == _wide(e))
    else:
        bad = a != e
    bad = np.asarray(bad)
    return _describe(a, e, bad, "") if bad.any() else None


def _wide(x: np.ndarray) -> np.ndarray:
    if dtypes.is_complex(x.dtype):
        return x.astype(np.complex128)
    if dtypes.is_float(x.dtype):
        return x.astype(np.float64)
    return x


def expect_almost_eq(actual: Any, expected: Any, tolerance: float = 1e-4) -> str | None:
    a, e = np.asarray(actual), np.asarray(expected)
    if (p := _shape_problem(a, e)) is not None:
        return p
    if not (dtypes.is_float(a.dtype) or dtypes.is_complex(a.dtype)):
        return expect_eq(a, e)
    af, ef = _wide(a), _wide(e)
    with np.errstate(invalid="ignore", over="ignore"):
        if np.iscomplexobj(af):
            ok = _close_real(af.real, ef.real, tolerance) & _close_real(af.imag, ef.imag, tolerance)
        else:
            ok = _close_real(af, ef, tolerance)
    bad = ~ok
    return _describe(a, e, bad, f" by more than {tolerance:g}") if bad.any() else None


def _close_real(a: np.ndarray, e: np.ndarray, tol: float) -> np.ndarray:
    """Upstream's ``areApproximatelyEqual`` (stablehlo/reference/Element.cpp): equal values (+0 and
    -0 too) and two NaNs match; otherwise both must be finite and |a - e| <= tol (in f64)."""
    both_nan = np.isnan(a) & np.isnan(e)
    same = a == e
    finite = np.isfinite(a) & np.isfinite(e)
    return both_nan | same | (finite & (np.abs(a - e) <= tol))


_ULP_INFINITE = np.uint64(np.iinfo(np.uint64).max)


def ulp_distance(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """uint64 ULP difference of a and e in their float type, as upstream's ``ULPDifference``
    (stablehlo/tests/CheckOps.cpp): 0 when bitwise equal or both NaN (any payload); for two finite
    values the number of representable values from one to the other (|a| and |e| counted from
    zero, added when the signs differ, so +0 and -0 are 0 apart); any other pair (a non-finite value
    against a different value) is the largest uint64, never within a bound."""
    from stablehlo_py.semantics._common import to_bits

    a, e = np.asarray(a), np.asarray(e)
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        neg_a = np.signbit(a64) & np.isfinite(a64)
        neg_e = np.signbit(e64) & np.isfinite(e64)
        mag_a = to_bits(np.where(neg_a, -a, a).astype(a.dtype)).astype(np.uint64)
        mag_e = to_bits(np.where(neg_e, -e, e).astype(e.dtype)).astype(np.uint64)
    same_sign = np.maximum(mag_a, mag_e) - np.minimum(mag_a, mag_e)
    d = np.where(neg_a == neg_e, same_sign, mag_a + mag_e)
    finite = np.isfinite(a64) & np.isfinite(e64)
    d = np.where(finite, d, _ULP_INFINITE)
    d = np.where(np.isnan(a64) & np.isnan(e64), np.uint64(0), d)
    d = np.where(to_bits(a) == to_bits(e), np.uint64(0), d)
    return np.asarray(d, dtype=np.uint64)


def expect_close(actual: Any, expected: Any, max_ulp: int = 1, min_ulp: int = 0) -> str | None:
    """Each element's ULP difference (:func:`ulp_distance`; complex: the larger of the parts') must
    lie in [min_ulp, max_ulp]; non-float elements must be equal."""
    a, e = np.asarray(actual), np.asarray(expected)
    if (p := _shape_problem(a, e)) is not None:
        return p
    if dtypes.is_complex(a.dtype):
        part = dtypes.complex_element_type(a.dtype)
        d = np.maximum(
            ulp_distance(a.real.astype(part), e.real.astype(part)),
            ulp_distance(a.imag.astype(part), e.imag.astype(part)),
        )
    elif dtypes.is_float(a.dtype):
        d = ulp_distance(a, e.astype(a.dtype))
    else:
        return expect_eq(a, e)
    bad = (d > np.uint64(max_ulp)) | (d < np.uint64(min_ulp))
    if not bad.any():
        return None
    bound = f"{max_ulp} ULP" if min_ulp == 0 else f"[{min_ulp}, {max_ulp}] ULP"
    worst = int(d[bad].max())
    shown = "non-finite" if worst == int(_ULP_INFINITE) else f"{worst} ULP"
    return _describe(a, e, bad, f" by more than {bound} (largest difference: {shown})")
