"""`convolution` as one matrix multiply over an im2col matrix, decided once per shape.

The spec's convolution (`semantics.linalg.convolution`, the reference) pads and dilates the input,
reads every window through a strided view, and contracts the windows with the kernel over the
spatial dimensions and then the input feature.  `ConvPlan` does the same with at most two copies
of the input, both in the accumulation type:

1. padding and lhs dilation: one zero buffer `(N, S'..., C)` holding the input at its dilated
   positions (skipped when there is neither);
2. the windows of that buffer (window strides, rhs dilation and reversal are strides of one
   `as_strided` view, as `(N, O..., K..., C)`), copied once into the im2col matrix
   `(G, M, K*C)`, where `G` is the feature or batch group count (1 without groups), `M` the output
   positions of a group and `K*C` the contraction (kernel positions row-major, then the input
   feature: the spec's order);

then `contraction.accumulate` multiplies it with the kernel `(G, K*C, F/G)`: one BLAS call in the
accumulation type (grouped convolutions: one batched call), or, for small ones
(`contraction.is_sequential`, decided per group), upstream's in-order sum, bit for bit what the
spec's path with `contraction.contract` gives.  Feature groups of a few features each (depthwise
convolutions) skip im2col: `ConvPlan.sum_in_order` runs upstream's in-order sum straight over the
windows, vectorized over every output.  Integer and boolean convolutions use the same matrices
with numpy's exact, wrapping `matmul` in the result type."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided
from stablehlo_py.interpreter.impls.contraction import (
    accumulate,
    as_dtype,
    is_inexact,
    round_to,
    sequential_sum,
    work_dtype,
)


@dataclass(frozen=True)
class ConvPlan:
    """A convolution decided for its operand shapes, attributes and result type."""

    lhs_shape: tuple[int, ...]
    rhs_shape: tuple[int, ...]
    lhs_perm: tuple[int, ...]  # input -> (N, S..., C)
    rhs_perm: tuple[int, ...]  # kernel -> (K..., I, O)
    out_perm: tuple[int, ...]  # (N', O..., F) -> the result's layout
    padded_shape: tuple[int, ...] | None  # (N, S'..., C), None when nothing is padded or dilated
    place: tuple[slice, ...]  # where the input lands in the padded buffer
    crop: tuple[slice, ...]  # the part of the input that lands there (negative padding)
    window_steps: tuple[int, ...]  # window strides, per spatial dimension
    rhs_dilation: tuple[int, ...]
    flips: tuple[int, ...]  # the reversed kernel axes of the windows view
    out_spatial: tuple[int, ...]
    kernel_spatial: tuple[int, ...]
    feature_groups: int
    batch_groups: int
    out: np.dtype
    work: np.dtype
    inexact: bool  # float or complex: the accumulation type and schedule of `contraction`
    in_order: bool  # `sum_in_order` (depthwise-like feature groups) rather than im2col and BLAS
    empty: bool  # no windows (an output or kernel spatial size 0): the result is zeros

    @property
    def result_shape(self) -> tuple[int, ...]:
        """The result's shape in the canonical layout (N', O..., F)."""
        n = self.lhs_shape[self.lhs_perm[0]] // self.batch_groups
        f = self.rhs_shape[self.rhs_perm[-1]]
        return (n, *self.out_spatial, f)

    @staticmethod
    def of(
        lhs_shape: Sequence[int],
        rhs_shape: Sequence[int],
        padding: Any,
        out: np.dtype,
        attrs: dict[str, Any],
    ) -> ConvPlan:
        """The plan for operands of these shapes; `attrs` as `_conv_attrs` decodes them (the
        spec's defaults for absent ones); `padding` an (s, 2) array or None."""
        in_sp = [int(d) for d in attrs["input_spatial_dimensions"]]
        k_sp = [int(d) for d in attrs["kernel_spatial_dimensions"]]
        o_sp = [int(d) for d in attrs["output_spatial_dimensions"]]
        s = len(in_sp)
        strides = _ints_or(attrs.get("window_strides"), s, 1)
        ldil = _ints_or(attrs.get("lhs_dilation"), s, 1)
        rdil = _ints_or(attrs.get("rhs_dilation"), s, 1)
        rev = attrs.get("window_reversal")
        reversal = [bool(r) for r in rev] if rev is not None else [False] * s
        pads = (
            np.zeros((s, 2), dtype=np.int64)
            if padding is None
            else np.asarray(padding, dtype=np.int64).reshape(s, 2)
        )
        lhs_perm = (
            int(attrs["input_batch_dimension"]),
            *in_sp,
            int(attrs["input_feature_dimension"]),
        )
        rhs_perm = (
            *k_sp,
            int(attrs["kernel_input_feature_dimension"]),
            int(attrs["kernel_output_feature_dimension"]),
        )
        placement = [
            int(attrs["output_batch_dimension"]),
            *o_sp,
            int(attrs["output_feature_dimension"]),
        ]
        out_perm = [0] * len(placement)
        for canonical_axis, result_axis in enumerate(placement):
            out_perm[result_axis] = canonical_axis
        canon = [int(lhs_shape[d]) for d in lhs_perm]
        kernel = [int(rhs_shape[d]) for d in k_sp]
        padded = [canon[0]]
        place, crop = [slice(None)], [slice(None)]
        out_spatial = []
        for i in range(s):
            size, lo, hi, ld = canon[1 + i], int(pads[i, 0]), int(pads[i, 1]), ldil[i]
            full = lo + hi + ((size - 1) * ld + 1 if size > 0 else 0)
            padded.append(max(full, 0))
            # the input elements whose dilated position lo + j * ld lies inside the padded size
            first = max(0, -(lo // ld) if lo < 0 else 0)
            stop = min(size, (full - 1 - lo) // ld + 1) if full > lo else 0
            if stop > first:
                place.append(slice(lo + first * ld, lo + (stop - 1) * ld + 1, ld))
                crop.append(slice(first, stop))
            else:
                place.append(slice(0, 0))
                crop.append(slice(0, 0))
            extent = (kernel[i] - 1) * rdil[i] + 1 if kernel[i] > 0 else 0
            none = full <= 0 or extent > full or kernel[i] == 0
            out_spatial.append(0 if none else (full - extent) // strides[i] + 1)
        padded.append(canon[-1])
        plain = all(int(p) == 0 for p in pads.reshape(-1)) and all(d == 1 for d in ldil)
        return ConvPlan(
            lhs_shape=tuple(int(d) for d in lhs_shape),
            rhs_shape=tuple(int(d) for d in rhs_shape),
            lhs_perm=lhs_perm,
            rhs_perm=rhs_perm,
            out_perm=tuple(out_perm),
            padded_shape=None if plain else tuple(padded),
            place=tuple(place) + (slice(None),),
            crop=tuple(crop) + (slice(None),),
            window_steps=tuple(strides),
            rhs_dilation=tuple(rdil),
            flips=tuple(1 + s + i for i, r in enumerate(reversal) if r),
            out_spatial=tuple(out_spatial),
            kernel_spatial=tuple(kernel),
            feature_groups=int(attrs.get("feature_group_count", 1) or 1),
            batch_groups=int(attrs.get("batch_group_count", 1) or 1),
            out=np.dtype(out),
            work=work_dtype(np.dtype(out)) if is_inexact(np.dtype(out)) else np.dtype(out),
            inexact=is_inexact(np.dtype(out)),
            in_order=_in_order(attrs, canon[-1], int(rhs_shape[rhs_perm[-1]])),
            empty=0 in out_spatial or 0 in kernel,
        )

    def run(self, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """The convolution of `lhs` and `rhs` (of the shapes the plan was made for; any element
        types, converted to the result type first as `dot_general` converts its operands).
        Floating-point warnings are the caller's to silence."""
        out, work = self.out, self.work
        lhs, rhs = as_dtype(lhs, out), as_dtype(rhs, out)
        if self.empty:
            res = np.zeros(self.result_shape, dtype=out)
            return res.transpose(self.out_perm)
        windows = self.windows(lhs)
        res = self.sum_in_order(windows, rhs) if self.in_order else None
        if res is None:
            cols = self.columns(windows)
            kernel = self.kernel_matrix(rhs)
            # (G, M, F/G); exact integer and boolean sums (wrapping) in the result type
            if not self.inexact:
                res = np.matmul(cols, kernel)
            elif self.in_order:  # a NaN came out: the reference loop, at any size
                res = sequential_sum(cols, kernel, work)
            else:
                res = accumulate(cols, kernel, work)
            g = res.shape[0]
            if g == 1:
                res = res.reshape(self.result_shape)
            else:
                # group g's output features are the g-th block of F
                res = res.transpose(1, 0, 2).reshape(self.result_shape)
        return round_to(res, out).transpose(self.out_perm)

    def padded(self, lhs: np.ndarray) -> np.ndarray:
        """The input as (N, S'..., C) in the accumulation type: padded and dilated into a zero
        buffer, or the input itself (a transposed view, converted when its type is narrower)
        when neither applies.  Converting here costs one pass over the input, not over the
        windows (K times as many elements)."""
        x = lhs.transpose(self.lhs_perm)
        if self.padded_shape is None:
            return x if x.dtype == self.work else x.astype(self.work)
        buffer = np.zeros(self.padded_shape, dtype=self.work)
        buffer[self.place] = x[self.crop]
        return buffer

    def windows(self, lhs: np.ndarray) -> np.ndarray:
        """Every window of the padded input, as an (N, O..., K..., C) view (no copy): window
        strides, rhs dilation and reversal are its strides."""
        src = self.padded(lhs)
        sn, *ss, sc = src.strides
        n, c = src.shape[0], src.shape[-1]
        windows = as_strided(
            src,
            (n, *self.out_spatial, *self.kernel_spatial, c),
            (
                sn,
                *(st * w for st, w in zip(ss, self.window_steps, strict=True)),
                *(st * d for st, d in zip(ss, self.rhs_dilation, strict=True)),
                sc,
            ),
            writeable=False,
        )
        return np.flip(windows, axis=self.flips) if self.flips else windows

    def columns(self, windows: np.ndarray) -> np.ndarray:
        """The im2col matrix (G, M, K*C) in the accumulation type: one copy of the windows (none
        when they are a matrix already, as a 1x1 convolution's input is)."""
        n, c = windows.shape[0], windows.shape[-1]
        positions = math.prod(self.out_spatial)
        k = math.prod(self.kernel_spatial)
        if self.feature_groups > 1:
            g = self.feature_groups
            windows = windows.reshape(*windows.shape[:-1], g, c // g)
            windows = np.moveaxis(windows, -2, 0)  # (G, N, O..., K..., C/G)
            return windows.reshape(g, n * positions, k * (c // g))
        if self.batch_groups > 1:
            g = self.batch_groups
            return windows.reshape(g, (n // g) * positions, k * c)
        return windows.reshape(1, n * positions, k * c)

    def kernel_matrix(self, rhs: np.ndarray) -> np.ndarray:
        """The kernel as (G, K*I, F/G) in the accumulation type."""
        kt = rhs.transpose(self.rhs_perm)  # (K..., I, F)
        g = max(self.feature_groups, self.batch_groups)
        i, f = kt.shape[-2], kt.shape[-1]
        kt = kt.reshape(*kt.shape[:-1], g, f // g)
        kt = np.moveaxis(kt, -2, 0)  # (G, K..., I, F/G)
        shape = (g, math.prod(self.kernel_spatial) * i, f // g)
        if kt.dtype == self.work:
            return kt.reshape(shape)
        return kt.astype(self.work, order="C").reshape(shape)

    def sum_in_order(self, windows: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """Feature-grouped convolutions with few features per group (depthwise ones): upstream's
        schedule, `acc += window_term * kernel_term` over the K*C/G terms in the spec's order,
        each step vectorized over every output position, group and feature: as fast as the
        windows can be read, where im2col and G skinny matrix multiplies are not.  The
        (N, O..., F) sums in the accumulation type, or None when a NaN came out (the im2col
        path then recomputes them with `sequential_sum`'s loop: which NaN a multiply returns depends
        on numpy's loop)."""
        g = self.feature_groups
        n, c = windows.shape[0], windows.shape[-1]
        cg = c // g
        win = windows.reshape(*windows.shape[:-1], g, cg)  # (N, O..., K..., G, C/G)
        kt = rhs.transpose(self.rhs_perm)  # (K..., C/G, F)
        f = kt.shape[-1]
        kt = kt.reshape(*kt.shape[:-1], g, f // g).astype(self.work, copy=False)
        acc = np.zeros((n, *self.out_spatial, g, f // g), dtype=self.work)
        term = np.empty_like(acc)
        lead = (slice(None),) * (1 + len(self.out_spatial))
        for position in np.ndindex(*self.kernel_spatial):
            for i in range(cg):
                term_window = win[(*lead, *position, slice(None), i, None)]
                np.multiply(term_window, kt[(*position, i)], out=term)
                acc += term
        if self.inexact and np.isnan(acc).any():
            return None
        return acc.reshape(self.result_shape)


# feature-grouped convolutions with at most this many input x output features per group sum in
# order (`ConvPlan.sum_in_order`): K*C/G passes over the result beat G matrix multiplies this thin
IN_ORDER_MAX_GROUP_FEATURES = 4


def _in_order(attrs: dict[str, Any], features: int, out_features: int) -> bool:
    g = int(attrs.get("feature_group_count", 1) or 1)
    if g <= 1 or features % g or out_features % g:
        return False
    return (features // g) * (out_features // g) <= IN_ORDER_MAX_GROUP_FEATURES


def _ints_or(values: Any, n: int, default: int) -> list[int]:
    return [default] * n if values is None else [int(v) for v in values]
