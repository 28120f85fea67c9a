"""Compare our interpreter's result with XLA's: bit-exact for integers and booleans; floats within a
per-op ulp tolerance, NaN payload-insensitive (any NaN equals any NaN), the sign of zero checked, an
infinity only equal to itself.  Complex numbers compare their parts, each within the tolerance measured
against the larger part (so the error of the small part of a large number is judged on the number's
scale).

`tolerance(case)` is the one table of tolerances: 0 ulps for the ops IEEE rounds exactly (arithmetic,
sqrt, conversions, data movement, comparisons), a few ulps for the transcendental functions XLA computes
with its own approximations (the interpreter's are correctly rounded in float64)."""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

# ulps allowed per op at float32/float64; (ulps, absolute error in units of the type's epsilon) --
# the absolute part covers results near a zero of the function (sin(pi), lgamma(1)).
_TRANSCENDENTAL = {
    "exponential": (4, 0), "exponential_minus_one": (4, 1), "exp2": (4, 0), "log": (4, 1), "log_plus_one": (4, 1),
    "logistic": (4, 1), "sine": (4, 1), "cosine": (4, 1), "tan": (4, 1), "tanh": (4, 1), "atan": (4, 1),
    "asin": (4, 1), "acos": (4, 1), "sinh": (4, 1), "cosh": (4, 0), "asinh": (4, 1), "acosh": (4, 1),
    "atanh": (4, 1), "erf": (4, 1), "erfc": (8, 1), "erf_inv": (8, 1), "lgamma": (16, 16), "digamma": (16, 16),
    "bessel_i1e": (8, 1), "bessel_i0e": (8, 1), "power": (4, 0), "atan2": (4, 1), "cbrt": (4, 0),
    "rsqrt": (2, 0), "polygamma": (64, 4), "zeta": (64, 4), "igamma": (64, 4), "igammac": (64, 4),
    "cumulative_cumlogsumexp": (4, 1),
}


@dataclass(frozen=True)
class Tolerance:
    ulps: int = 0
    abs_eps: float = 0.0  # absolute error allowed, in units of the result type's epsilon

    def __add__(self, other: "Tolerance") -> "Tolerance":
        return Tolerance(self.ulps + other.ulps, self.abs_eps + other.abs_eps)


EXACT = Tolerance()


# complex ops whose result XLA computes with a formula of several roundings (ours: numpy's or another)
# (scatter_mul: each update is a complex multiply, which XLA contracts into FMAs)
_COMPLEX_INEXACT = {"sqrt", "rsqrt", "abs", "divide", "sign", "power", "multiply", "square", "scatter_mul"}


def tolerance(case) -> Tolerance:
    """The tolerance of a case's float results: the sum over its ops (a chain adds its ops' errors)."""
    tol = EXACT
    cplx = case.tags.get("dtype", "").startswith("complex")
    for op in case.ops:
        if cplx and op == "power":  # exp(y log x): the error grows with |y log x|
            tol = tol + Tolerance(2048, 1)
        elif cplx and op == "atan2":  # XLA's complex atan2 (-i log((x + iy) / sqrt(x^2 + y^2))) cancels
            tol = tol + Tolerance(256, 1)
        elif cplx and (op in _COMPLEX_INEXACT or op == "chain"):
            tol = tol + Tolerance(4, 1)
        elif op in _TRANSCENDENTAL:
            u, a = _TRANSCENDENTAL[op]
            # complex: a formula of several real functions (logistic 1 / (1 + e^-z): 16 ulps; ours is within
            # 10 ulps of the exact value beside its poles z = (2k+1) pi i, where 1 + e^-z cancels, XLA's 24)
            tol = tol + Tolerance(u * 4 if cplx else u, a)
        elif op in ("dot_general", "convolution"):
            k = int(case.tags.get("k", 1))
            tol = tol + Tolerance(2 * k, 2.0 * k)
    if "chain" in case.ops and tol != EXACT:
        tol = Tolerance(tol.ulps * 4, tol.abs_eps * 4 + 4)
    return tol


# ---------------------------------------------------------------------------------------------- diff


@dataclass
class LeafDiff:
    index: int
    reason: str                       # "" when equal
    bad: np.ndarray | None = None     # flat mask of the differing elements
    worst: str = ""


@dataclass
class Comparison:
    leaves: list[LeafDiff] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(not leaf.reason for leaf in self.leaves)

    def summary(self) -> str:
        return "; ".join(f"result {d.index}: {d.reason}{(' ' + d.worst) if d.worst else ''}"
                         for d in self.leaves if d.reason)


def _float_kind(dt: np.dtype) -> bool:
    return dt.kind == "f" or (dt.kind == "V" and dt.name.startswith("float")) or dt.name.startswith(
        ("float", "bfloat"))


def _nbits(dt: np.dtype) -> int:
    return int(ml_dtypes.finfo(dt).bits)


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|ordinal(a) - ordinal(b)| for two arrays of the same float type (no NaN), as uint64."""
    dt = a.dtype
    nb = _nbits(dt)
    u = np.dtype(f"u{dt.itemsize}")
    ba = a.view(u).astype(np.uint64)
    bb = b.view(u).astype(np.uint64)
    if dt.name == "float8_e8m0fnu":  # no sign bit: the bits are the order
        return np.where(ba > bb, ba - bb, bb - ba)
    sign = np.uint64(1) << np.uint64(nb - 1)
    mag_mask = sign - np.uint64(1)
    ma, mb = ba & mag_mask, bb & mag_mask
    sa, sb = (ba & sign) != 0, (bb & sign) != 0
    same = np.where(ma > mb, ma - mb, mb - ma)
    return np.where(sa == sb, same, ma + mb)


def _compare_real(got: np.ndarray, want: np.ndarray, tol: Tolerance,
                  scale: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """Flat mask of differing elements of two real float arrays of the same type."""
    g = got.reshape(-1)
    w = want.reshape(-1)
    with np.errstate(all="ignore"):
        g64 = g.astype(np.float64)
        w64 = w.astype(np.float64)
        gn, wn = np.isnan(g64), np.isnan(w64)
        bad = gn != wn
        both = ~gn & ~wn
        eq = both & (g64 == w64)
        # signed zeros (types without -0 never produce one)
        bad |= eq & (g64 == 0) & (np.signbit(g64) != np.signbit(w64))
        diff = both & (g64 != w64)
        inf = diff & (np.isinf(g64) | np.isinf(w64))
        bad |= inf
        rest = diff & ~inf
        worst = ""
        if rest.any():
            dist = _ulp_distance(np.where(rest, g, w.dtype.type(0)).astype(w.dtype),
                                 np.where(rest, w, w.dtype.type(0)).astype(w.dtype))
            over = rest & (dist > np.uint64(tol.ulps))
            if tol.abs_eps or scale is not None:
                eps = float(ml_dtypes.finfo(w.dtype).eps)
                err = np.abs(g64 - w64)
                allowed = np.full(err.shape, tol.abs_eps * eps)
                if scale is not None:  # complex parts: ulps of the larger part
                    allowed = np.maximum(allowed, tol.ulps * np.abs(np.spacing(scale)).astype(np.float64))
                over &= err > allowed
            bad |= over
            if over.any():
                worst = f"max {int(dist[over].max())} ulps (allowed {tol.ulps})"
    return bad, worst


def compare_leaf(index: int, got, want, tol: Tolerance) -> LeafDiff:
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return LeafDiff(index, f"type {got.dtype}{list(got.shape)} vs XLA {want.dtype}{list(want.shape)}")
    dt = want.dtype
    if dt.kind == "c":
        part = np.float32 if dt == np.complex64 else np.float64
        scale = np.maximum(np.abs(want.real), np.abs(want.imag)).reshape(-1).astype(part)
        br, wr = _compare_real(got.real.astype(part), want.real.astype(part), tol, scale)
        bi, wi = _compare_real(got.imag.astype(part), want.imag.astype(part), tol, scale)
        bad = br | bi
        return LeafDiff(index, "values differ" if bad.any() else "", bad, wr or wi)
    if _float_kind(dt):
        bad, worst = _compare_real(got, want, tol)
        return LeafDiff(index, "values differ" if bad.any() else "", bad, worst)
    u = np.dtype(f"u{dt.itemsize}") if dt != np.dtype(bool) else np.dtype(np.uint8)
    bad = got.reshape(-1).view(u) != want.reshape(-1).view(u)
    return LeafDiff(index, "values differ" if bad.any() else "", bad)


def compare(ours: list, theirs: list, tol: Tolerance) -> Comparison:
    if len(ours) != len(theirs):
        return Comparison([LeafDiff(-1, f"{len(ours)} results vs XLA's {len(theirs)}")])
    return Comparison([compare_leaf(i, o, t, tol) for i, (o, t) in enumerate(zip(ours, theirs))])


def show(values, mask: np.ndarray | None, limit: int = 6) -> str:
    """A few differing elements of a result, for reports."""
    v = np.asarray(values).reshape(-1)
    idx = np.flatnonzero(mask) if mask is not None else np.arange(min(v.size, limit))
    return ", ".join(f"[{i}]={v[i]!r}" for i in idx[:limit])
