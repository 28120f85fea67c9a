"""Correctly rounded fused multiply-add on numpy arrays, and the complex product built on it.

XLA CPU computes a complex product as ``re = fma(a, c, -(b*d))``, ``im = fma(b, c, a*d)`` for
``(a+bi)(c+di)`` (LLVM contracts the multiply-add; measured bit for bit against ``jax.jit`` for
complex64 and complex128 on an FMA machine), so cumulative products and every other chain of
complex multiplications drift from the plain formula in the last bits. numpy has no ``fma``
ufunc; these functions compute it exactly with error-free transformations:

* ``float32``: the product of two f32 is exact in f64; ``p + c`` is rounded to f64 *to odd*
  (the sum's rounding error from TwoSum decides the last bit), and rounding to odd in a format
  with at least two more bits than f32 makes the final f64 -> f32 rounding the correct one.
* ``float64``: Boldo and Melquiond's emulation (IEEE Trans. Computers 57(4), 2008): the exact
  product as a pair (Dekker's TwoProduct), TwoSum with the addend, the two low parts added
  with rounding to odd, then one rounding to nearest.

Overflow, infinities and NaN follow the plain expression ``a * b + c`` (the corrections are
skipped where it is not finite); products in the subnormal range of f64 may be off by one ulp.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["complex_multiply", "fma"]

_F32_DROPPED = np.int64((1 << 29) - 1)  # the f64 mantissa bits an f32 does not keep
_F32_HALF = np.int64(1 << 28)
_F32_TINY = np.float64(2.0**-126)  # below: f32 subnormals keep fewer bits
_SPLIT = np.float64(134217729.0)  # 2**27 + 1: Veltkamp's split of a double into 26 + 27 bits


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """``s`` = RN(x) with ``x = s + err`` exactly -> RO(x): where ``x`` was not representable
    and ``s``'s last mantissa bit is even, step one ulp towards ``x``."""
    even = (s.view(np.int64) & 1) == 0
    fix = (err != 0) & even & np.isfinite(s)
    if not fix.any():
        return s
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def _fma32(p: np.ndarray, c64: np.ndarray) -> np.ndarray:
    """``p + c64`` rounded once to f32, for an exact f64 product ``p`` of two f32 and an f32
    addend ``c64`` held in f64 (1-d arrays)."""
    s = p + c64
    # Rounding s to f32 is wrong only where s sits on an f32 rounding boundary (its 29 dropped
    # bits are exactly half an ulp) or in f32's subnormal range: only there is the sum rounded
    # to odd first.
    tiny = np.abs(s) < _F32_TINY
    tiny &= s != 0  # an exact zero needs no correction
    near = ((s.view(np.int64) & _F32_DROPPED) == _F32_HALF) | tiny
    if near.any():
        s[near] = _round_to_odd(*_two_sum(p[near], c64[near]))
    return s.astype(np.float32)


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` with one rounding, for float32 or float64 arrays (broadcast together)."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    shape, dtype = a.shape, a.dtype
    a, b, c = a.reshape(-1), b.reshape(-1), c.reshape(-1)  # 1-d: numpy keeps arrays, not scalars
    with np.errstate(all="ignore"):
        if dtype == np.float32:
            p = a.astype(np.float64) * b.astype(np.float64)
            return _fma32(p, c.astype(np.float64)).reshape(shape)
        if dtype == np.float64:
            uh, ul = _two_product(a, b)
            th, tl = _two_sum(c, uh)
            v, verr = _two_sum(ul, tl)
            out = th + _round_to_odd(v, verr)
            # not finite: the plain expression's inf/NaN; zero: its sign (an exact zero sum
            # is +0 unless both terms are -0, which the plain expression gets right)
            return np.where(np.isfinite(out) & (out != 0), out, a * b + c).reshape(shape)
    raise TypeError(f"fma is defined here for float32 and float64, not {dtype}")


def complex_multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """XLA's complex product: ``fma(a, c, -(b*d)) + fma(b, c, a*d) i`` in the parts' type.

    complex64 of one shape: :func:`_complex64_multiply`.  Otherwise both parts in one pass:
    ``[a, b]`` (the left operand's storage) times ``[c, c]`` plus ``[-(b*d), a*d]``, written
    straight into the result's storage.
    """
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    if lhs.dtype == np.complex64 and rhs.dtype == np.complex64 and lhs.shape == rhs.shape:
        fast = _complex64_multiply(lhs, rhs)
        if fast is not None:
            return fast
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    left = np.ascontiguousarray(lhs).view(lhs.real.dtype).reshape(lhs.shape + (2,))
    right = np.ascontiguousarray(rhs).view(rhs.real.dtype).reshape(rhs.shape + (2,))
    a, b = left[..., 0], left[..., 1]
    c, d = right[..., 0:1], right[..., 1]
    with np.errstate(all="ignore"):
        addend = np.stack([-(b * d), a * d], axis=-1)
        parts = fma(left, np.broadcast_to(c, left.shape), addend)
    return np.ascontiguousarray(parts).view(lhs.dtype).reshape(lhs.shape)


def _complex64_multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """The complex64 product with the parts in float64 from the start: ``a*c`` and ``b*c`` are
    exact there, ``b*d`` and ``a*d`` are rounded to f32 as f32's own product rounds them, then
    :func:`_fma32` as :func:`fma` does -- the same roundings, with a third of the passes and
    temporaries.  None when a NaN comes out: which of two NaN operands a multiply or an add
    returns depends on the loop numpy picks (strided or not), so the caller computes those
    products the general way, bit for bit as before."""
    shape = lhs.shape
    f64 = np.float64
    with np.errstate(all="ignore"):
        a = lhs.real.astype(f64).reshape(-1)
        b = lhs.imag.astype(f64).reshape(-1)
        c = rhs.real.astype(f64).reshape(-1)
        d = rhs.imag.astype(f64).reshape(-1)
        neg_bd = -(b * d).astype(np.float32)
        ad = (a * d).astype(np.float32)
        re = _fma32(a * c, neg_bd.astype(f64))
        im = _fma32(b * c, ad.astype(f64))
    if np.isnan(re).any() or np.isnan(im).any():
        return None
    out = np.empty(shape, dtype=np.complex64)
    out.real = re.reshape(shape)
    out.imag = im.reshape(shape)
    return out
