"""Result checks as upstream's interpreter defines them (stablehlo/reference/Ops.cpp, CheckOps.cpp):
`check.expect_eq[_const]` exact; `check.expect_almost_eq[_const]` within an absolute tolerance
(default 1e-4); `check.expect_close` within [min, max] ULPs (defaults 0..1).  The testdata's
`custom_call @check.*` forms use max 3 ULPs and tolerance 1e-3; `@check.eq` returns an i1 tensor.
Each function returns None when the check holds, else a message naming the differing values."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.interpreter import dtypes

_MAX_SHOWN = 5


def _describe(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, what: str) -> str:
    idx = np.argwhere(bad)
    shown = []
    for i in idx[:_MAX_SHOWN]:
        t = tuple(int(x) for x in i)
        a = actual[t] if actual.ndim else actual[()]
        e = expected[t] if expected.ndim else expected[()]
        shown.append(f"at {list(t)}: got {a!r}, expected {e!r}")
    more = f" (and {len(idx) - _MAX_SHOWN} more)" if len(idx) > _MAX_SHOWN else ""
    return f"{len(idx)} element(s) differ{what}: " + "; ".join(shown) + more


def _shape_problem(actual: np.ndarray, expected: np.ndarray) -> str | None:
    if actual.shape != expected.shape:
        return f"shapes differ: got {list(actual.shape)}, expected {list(expected.shape)}"
    return None


def expect_eq(actual: Any, expected: Any) -> str | None:
    a, e = np.asarray(actual), np.asarray(expected)
    if (p := _shape_problem(a, e)) is not None:
        return p
    if dtypes.is_float(a.dtype) or dtypes.is_complex(a.dtype):
        af, ef = _wide(a), _wide(e)
        bad = ~((af == ef) | (np.isnan(af) & np.isnan(ef)))
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
    both_nan = np.isnan(a) & np.isnan(e)
    same = a == e
    return both_nan | same | (np.abs(a - e) <= tol)


def ulp_distance(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Number of representable values between a and e in their float type (0 for equal or both NaN)."""
    from stablehlo_py.interpreter.semantics._common import to_bits

    bits = dtypes.bitwidth(a.dtype)
    ua = to_bits(a).astype(np.uint64)
    ue = to_bits(e).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(bits - 1) if bits > 1 else np.uint64(1)
    mask = sign - np.uint64(1)

    def key(u: np.ndarray) -> np.ndarray:
        mag = (u & mask).astype(np.int64)
        return np.where((u & sign) != 0, -mag, mag)

    d = np.abs(key(ua) - key(ue))
    nan = np.isnan(a.astype(np.float64)) & np.isnan(e.astype(np.float64))
    return np.where(nan, 0, d)


def expect_close(actual: Any, expected: Any, max_ulp: int = 1, min_ulp: int = 0) -> str | None:
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
        d = ulp_distance(a, e)
    else:
        return expect_eq(a, e)
    bad = (d > max_ulp) | (d < min_ulp)
    return _describe(a, e, bad, f" by more than {max_ulp} ULP") if bad.any() else None
