"""Whether two values of one op agree: by value when both sides kept it, else by summary.

- :func:`tolerance_for`: the (rtol, atol) of an element type: `backends.tolerance` (f32 2e-4/2e-5,
  f16/bf16 2e-2, f64 1e-10/1e-12), two machine epsilons for the narrower floats (f8/f6/f4) that it
  leaves exact; ``rtol``/``atol`` given by the caller replace them for floats and complex numbers;
  integers and booleans are always compared exactly.
- :func:`compare_arrays`: element ``a`` (ours) agrees with ``b`` (the reference) when
  ``|a - b| <= atol + rtol * |b|``; NaNs must sit at the same elements, infinities be equal.  It
  measures the largest absolute and relative differences over the elements finite on both sides.
- :func:`compare_summaries`: for values a side did not keep (a level-1 or level-2 trace): shapes,
  element types and NaN/Inf counts equal, min/max within the tolerance of their own size, the mean
  within the tolerance of the largest magnitude.  Weaker than values: two different tensors can
  share a summary.

Each gives a :class:`Closeness`: ``agree`` is True, False, or None when nothing can be told (a
value of no element type, a result a backend did not return).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from stablehlo_py.interpreter.trace_stats import Summary
from stablehlo_py.semantics import dtypes

from stablehlo_py.backends.tolerance import tolerance
from stablehlo_py.errors import StableHLOError

__all__ = ["Closeness", "compare_arrays", "compare_summaries", "tolerance_for"]


@dataclass(frozen=True)
class Closeness:
    agree: bool | None
    """True: within tolerance; False: not; None: cannot be told (``reason`` says why)."""
    how: str = "values"
    """``values`` or ``summaries``: what was compared."""
    reason: str = ""
    """Why they differ, or cannot be compared (``""`` when they agree)."""
    max_abs: float | None = None
    """Largest ``|ours - reference|`` over the elements finite on both sides."""
    max_rel: float | None = None
    """Largest ``|ours - reference| / |reference|`` over those with a non-zero reference."""
    mismatched: int = 0
    """Elements beyond the tolerance (values only)."""
    size: int = 0
    rtol: float = 0.0
    atol: float = 0.0

    def format(self) -> str:
        """``max abs diff 0.5, max rel diff 2 (rtol 0.0002, atol 2e-05)`` after the reason."""
        parts = [self.reason] if self.reason else []
        if self.max_abs is not None:
            parts.append(f"max abs diff {self.max_abs:.6g}")
        if self.max_rel is not None:
            parts.append(f"max rel diff {self.max_rel:.6g}")
        text = "; ".join(parts[:1] + [", ".join(parts[1:])] if self.reason else [", ".join(parts)])
        text = text.rstrip("; ")
        if self.rtol or self.atol:
            text += f" (rtol {self.rtol:g}, atol {self.atol:g})"
        elif self.max_abs is not None and self.how == "values":
            text += " (compared exactly)"
        if self.how == "summaries":
            text += " [by summaries: no values kept]"
        return text.strip()


def _row(dtype: Any) -> Any:
    return dtypes.BY_DTYPE.get(np.dtype(dtype))


def tolerance_for(
    dtype: Any, rtol: float | None = None, atol: float | None = None
) -> tuple[float, float]:
    """(rtol, atol) for values of ``dtype`` (see the module doc)."""
    row = _row(dtype)
    if row is None or row.kind in ("bool", "sint", "uint"):
        return 0.0, 0.0
    base_rtol, base_atol = tolerance(np.dtype(dtype))
    if base_rtol == 0.0 and base_atol == 0.0 and row.kind == "float":
        eps = float(ml_dtypes.finfo(np.dtype(dtype)).eps)
        base_rtol = base_atol = 2 * eps
    return (base_rtol if rtol is None else rtol), (base_atol if atol is None else atol)


def _shape(shape: tuple[int, ...]) -> str:
    return "[" + ",".join(str(n) for n in shape) + "]"


def compare_arrays(
    ours: Any, reference: Any, rtol: float | None = None, atol: float | None = None
) -> Closeness:
    """How ``ours`` compares with ``reference`` (see the module doc)."""
    a, b = np.asarray(ours), np.asarray(reference)
    if a.shape != b.shape:
        return Closeness(
            False, reason=f"shape {_shape(a.shape)} here, {_shape(b.shape)} in the reference"
        )
    ra, rb = _row(a.dtype), _row(b.dtype)
    if ra is None or rb is None:
        equal = a.dtype == b.dtype and bool(np.array_equal(a, b))
        return Closeness(equal, reason="" if equal else "values differ", size=int(a.size))
    if ra.name != rb.name:
        return Closeness(
            False,
            reason=f"element type {ra.name} here, {rb.name} in the reference",
            size=int(a.size),
        )
    if a.size == 0:
        return Closeness(True)
    a, b = a.reshape(-1), b.reshape(-1)  # (0-d values too: masks index them)
    if ra.kind in ("bool", "sint", "uint"):
        return _exact(a, b, ra.kind)
    r, t = tolerance_for(a.dtype, rtol, atol)
    wide = np.complex128 if ra.kind == "complex" else np.float64
    return _inexact(a.astype(wide), b.astype(wide), r, t)


def _exact(a: np.ndarray, b: np.ndarray, kind: str) -> Closeness:
    if kind == "bool":
        bad = a != b
    else:
        wide = np.uint64 if kind == "uint" else np.int64
        a, b = a.astype(wide), b.astype(wide)
        bad = a != b
    n = int(np.count_nonzero(bad))
    if not n:
        return Closeness(True, max_abs=0.0, size=int(a.size))
    fa, fb = a[bad].astype(np.float64), b[bad].astype(np.float64)
    diff = np.abs(fa - fb)
    nz = fb != 0
    rel = float(np.max(diff[nz] / np.abs(fb[nz]))) if nz.any() else None
    return Closeness(
        False,
        reason=f"{n} of {a.size} elements differ",
        max_abs=float(np.max(diff)),
        max_rel=rel,
        mismatched=n,
        size=int(a.size),
    )


def _inexact(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> Closeness:
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    inf_a = np.isinf(a) & ~nan_a
    inf_b = np.isinf(b) & ~nan_b
    finite = ~(nan_a | nan_b | inf_a | inf_b)
    nan_bad = nan_a != nan_b
    inf_bad = (inf_a | inf_b) & ~(nan_a | nan_b) & (a != b)
    max_abs = max_rel = None
    bad = nan_bad | inf_bad
    if finite.any():
        fa, fb = a[finite], b[finite]
        diff = np.abs(fa - fb)
        scale = np.abs(fb)
        bad[finite] = diff > atol + rtol * scale
        max_abs = float(np.max(diff))
        nz = scale != 0
        if nz.any():
            max_rel = float(np.max(diff[nz] / scale[nz]))
    n = int(np.count_nonzero(bad))
    reasons = []
    if n:
        reasons.append(f"{n} of {a.size} elements differ")
    nan_n = int(np.count_nonzero(nan_bad))
    if nan_n:
        here, there = int(np.count_nonzero(nan_a)), int(np.count_nonzero(nan_b))
        reasons.append(
            f"NaN at {nan_n} elements on one side only ({here} here, {there} in the reference)"
        )
    inf_n = int(np.count_nonzero(inf_bad))
    if inf_n:
        reasons.append(f"{inf_n} infinite elements differ")
    return Closeness(
        n == 0,
        reason="; ".join(reasons),
        max_abs=max_abs,
        max_rel=max_rel,
        mismatched=n,
        size=int(a.size),
        rtol=rtol,
        atol=atol,
    )


# ------------------------------------------------------------------------------- summaries
def compare_summaries(
    ours: Summary, reference: Summary, rtol: float | None = None, atol: float | None = None
) -> Closeness:
    """How two summaries of a value compare (see the module doc)."""
    if "other" in (ours.kind, reference.kind):
        what = ours.dtype if ours.kind == "other" else reference.dtype
        return Closeness(None, "summaries", f"a value that cannot be compared ({what})")
    if ours.kind != reference.kind:
        return Closeness(
            False, "summaries", f"a {ours.kind} here, a {reference.kind} in the reference"
        )
    if ours.kind == "token":
        return Closeness(True, "summaries")
    if ours.kind == "tuple":
        if len(ours.elements) != len(reference.elements):
            return Closeness(False, "summaries", "tuples of different sizes")
        for k, (x, y) in enumerate(zip(ours.elements, reference.elements)):
            c = compare_summaries(x, y, rtol, atol)
            if c.agree is not True:
                return Closeness(c.agree, "summaries", f"tuple element {k}: {c.reason}")
        return Closeness(True, "summaries")
    if ours.shape != reference.shape:
        return Closeness(
            False,
            "summaries",
            f"shape {_shape(ours.shape)} here, {_shape(reference.shape)} in the reference",
        )
    if ours.dtype != reference.dtype:
        return Closeness(
            False,
            "summaries",
            f"element type {ours.dtype} here, {reference.dtype} in the reference",
        )
    try:
        dtype = dtypes.dtype_of(ours.dtype)
    except StableHLOError:
        return Closeness(None, "summaries", f"unknown element type {ours.dtype}")
    r, t = tolerance_for(dtype, rtol, atol)
    reasons = []
    if ours.nan != reference.nan or ours.inf != reference.inf:
        reasons.append(
            f"NaN/Inf counts {ours.nan}/{ours.inf} here, {reference.nan}/{reference.inf} "
            "in the reference"
        )
    scale = _magnitude(reference)
    diffs: list[float] = []
    for name in ("min", "max", "abs_max", "mean"):
        x, y = getattr(ours, name), getattr(reference, name)
        if x is None and y is None:
            continue
        if x is None or y is None:
            reasons.append(f"{name} known on one side only")
            continue
        if _nonfinite(x) or _nonfinite(y):
            same = x == y or (_isnan(x) and _isnan(y))
            if not same:
                reasons.append(f"{name} {x} here, {y} in the reference")
            continue
        d = abs(x - y)
        diffs.append(float(d))
        size = scale if name == "mean" else abs(y)
        if d > t + r * size:
            reasons.append(f"{name} {x:.6g} here, {y:.6g} in the reference")
    return Closeness(
        not reasons,
        "summaries",
        "; ".join(reasons),
        max_abs=max(diffs) if diffs else None,
        size=ours.size,
        rtol=r,
        atol=t,
    )


def _isnan(x: Any) -> bool:
    return isinstance(x, float | complex) and (x != x)


def _nonfinite(x: Any) -> bool:
    if isinstance(x, complex):
        return not (math.isfinite(x.real) and math.isfinite(x.imag))
    return isinstance(x, float) and not math.isfinite(x)


def _magnitude(s: Summary) -> float:
    values = [abs(v) for v in (s.min, s.max, s.abs_max) if v is not None and not _nonfinite(v)]
    return float(max(values)) if values else 0.0
