"""Which plan a convolution takes, decided once per shape: `ConvPlan` (im2col and one matrix
multiply, or the in-order sum of depthwise-like groups), or, for transposed convolutions (lhs
dilation: the input gradient of a strided convolution), `PhasePlan`.

A transposed convolution's padded input is mostly the zeros lhs dilation inserts: with dilation d
along a dimension, output position o only meets input elements through the kernel taps
k = (lo - o) mod d, d, 2d, ...  `PhasePlan` splits the outputs into the d^s phases of
o mod d (s spatial dimensions) and runs each as an ordinary stride-1 convolution of the
undilated input with the taps it meets: the same terms without the zero ones, d^s times fewer
multiplies and an im2col matrix d^s times smaller.  Dropping a product 0 * w changes a sum only
when w is not finite (0 * inf is NaN), so a kernel with an infinity or a NaN takes the plain plan;
and small convolutions, which sum in upstream's order (zeros included), keep the plain plan too."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls.contraction import as_dtype, is_sequential
from stablehlo_py.interpreter.impls.conv_plan import ConvPlan

# the canonical layouts ConvPlan works in, as dimension numbers: (N, S..., C), (K..., I, O),
# (N, O..., F)


def _canonical(s: int) -> dict[str, Any]:
    return {
        "input_batch_dimension": 0,
        "input_spatial_dimensions": list(range(1, s + 1)),
        "input_feature_dimension": s + 1,
        "kernel_spatial_dimensions": list(range(s)),
        "kernel_input_feature_dimension": s,
        "kernel_output_feature_dimension": s + 1,
        "output_batch_dimension": 0,
        "output_spatial_dimensions": list(range(1, s + 1)),
        "output_feature_dimension": s + 1,
    }


@dataclass(frozen=True)
class Phase:
    """One output phase: where its outputs go in the canonical result, the kernel taps it meets
    (a strided slice of the canonical kernel) and its ordinary convolution (None: no tap meets
    these outputs, they stay zero)."""

    outputs: tuple[slice, ...]
    taps: tuple[slice, ...]
    plan: ConvPlan | None


@dataclass(frozen=True)
class PhasePlan:
    """A transposed convolution as one ordinary convolution per output phase."""

    base: ConvPlan  # the plain plan: layouts, result shape, and the fallback
    phases: tuple[Phase, ...]

    @property
    def result_shape(self) -> tuple[int, ...]:
        return self.base.result_shape

    @property
    def out_perm(self) -> tuple[int, ...]:
        return self.base.out_perm

    def run(self, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        base = self.base
        lhs, rhs = as_dtype(lhs, base.out), as_dtype(rhs, base.out)
        if base.inexact and not np.isfinite(rhs).all():
            return base.run(lhs, rhs)
        lc, rc = lhs.transpose(base.lhs_perm), rhs.transpose(base.rhs_perm)
        res = np.zeros(base.result_shape, dtype=base.out)
        for phase in self.phases:
            if phase.plan is not None:
                res[phase.outputs] = phase.plan.run(lc, rc[phase.taps])
        return res.transpose(base.out_perm)


def plan_convolution(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    padding: Any,
    out: np.dtype,
    attrs: dict[str, Any],
) -> ConvPlan | PhasePlan:
    """The plan for operands of these shapes (`ConvPlan.of`'s arguments)."""
    base = ConvPlan.of(lhs_shape, rhs_shape, padding, out, attrs)
    s = len(base.out_spatial)
    ldil = [1] * s if attrs.get("lhs_dilation") is None else [int(d) for d in attrs["lhs_dilation"]]
    if (
        base.empty
        or base.in_order
        or all(d == 1 for d in ldil)
        or any(w != 1 for w in base.window_steps)
        or any(d != 1 for d in base.rhs_dilation)
        or base.flips
        or _sums_in_order(base)
    ):
        return base
    pads = np.zeros((s, 2), np.int64) if padding is None else np.asarray(padding, np.int64)
    pads = pads.reshape(s, 2)
    sizes = [int(lhs_shape[d]) for d in base.lhs_perm[1:-1]]
    per_dim = [
        _dim_phases(sizes[i], base.kernel_spatial[i], ldil[i], int(pads[i, 0]), base.out_spatial[i])
        for i in range(s)
    ]
    lc_shape = tuple(int(lhs_shape[d]) for d in base.lhs_perm)
    rc_shape = tuple(int(rhs_shape[d]) for d in base.rhs_perm)
    canonical = {**attrs, **_canonical(s), "lhs_dilation": None, "window_reversal": None}
    phases = []
    for combo in _product(per_dim):
        outputs = (slice(None), *(c[0] for c in combo), slice(None))
        taps = (*(c[1] for c in combo), slice(None), slice(None))
        if any(c[2] is None for c in combo):
            phases.append(Phase(outputs, taps, None))
            continue
        kernel = tuple(c[3] for c in combo)
        phase_pads = np.asarray([c[2] for c in combo], np.int64)
        plan = ConvPlan.of(lc_shape, (*kernel, *rc_shape[-2:]), phase_pads, out, canonical)
        want = tuple(c[4] for c in combo)
        if plan.out_spatial != want:  # cannot happen (see _dim_phases); never run a wrong phase
            return base
        phases.append(Phase(outputs, taps, plan))
    return PhasePlan(base, tuple(phases))


def _sums_in_order(base: ConvPlan) -> bool:
    """Whether the plain plan sums in upstream's order (its small matrices), zero terms included:
    the phases would drop them, and an all-negative-zero sum would change sign."""
    g = max(base.feature_groups, base.batch_groups)
    n, f = base.result_shape[0], base.result_shape[-1]
    m = n * math.prod(base.out_spatial)
    c = base.lhs_shape[base.lhs_perm[-1]]
    k = math.prod(base.kernel_spatial) * (c // base.feature_groups)
    return base.inexact and is_sequential(g, m, k, f // g)


def _dim_phases(
    size: int, kernel: int, dilation: int, lo: int, outputs: int
) -> list[tuple[slice, slice, tuple[int, int] | None, int, int]]:
    """The phases of one spatial dimension (window stride 1, rhs dilation 1): for each phase p
    with an output, (its outputs p::d, its taps k0::d, the padding of its ordinary convolution or
    None when no tap meets it, its kernel size, its output count).

    Output o = p + d*t meets the dilated input at o + k - lo = d*i: the taps k = k0 + d*j with
    k0 = (lo - p) mod d, and the input i = t + j + c0 with c0 = (p + k0 - lo) / d; an ordinary
    convolution with low padding -c0 and the high padding that gives the phase's output count."""
    phases = []
    for p in range(min(dilation, outputs)):
        count = -(-(outputs - p) // dilation)
        k0 = (lo - p) % dilation
        taps = max(0, -(-(kernel - k0) // dilation))
        if taps == 0:
            phases.append((slice(p, None, dilation), slice(0, 0), None, 0, count))
            continue
        c0 = (p + k0 - lo) // dilation
        pad_lo = -c0
        pad_hi = count + taps - 1 - size - pad_lo
        phases.append(
            (slice(p, None, dilation), slice(k0, None, dilation), (pad_lo, pad_hi), taps, count)
        )
    return phases


def _product(per_dim: list[list[Any]]) -> list[tuple[Any, ...]]:
    combos: list[tuple[Any, ...]] = [()]
    for options in per_dim:
        combos = [(*c, o) for c in combos for o in options]
    return combos


def convolution(lhs: Any, rhs: Any, *, padding: Any = None, **attrs: Any) -> np.ndarray:
    """`convolution` of run-time arrays: a plan for their shapes, run once."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out = attrs.get("result_element_type")
    out = lhs.dtype if out is None else np.dtype(out)
    plan = plan_convolution(lhs.shape, rhs.shape, padding, out, attrs)
    with np.errstate(all="ignore"):
        return plan.run(lhs, rhs)
