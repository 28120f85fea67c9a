"""`stablehlo.sqrt` of a complex: upstream's SqrtOp_ComplexElementType_ComplexMathExpander.

    sqrt(x + I*y) = u + I * y / (2u)          (x >= 0)
                  = |y| / (2u) + I * sgn(y) * u   (x < 0)

with u = sqrt((hypot(x, y) + |x|) / 2), which has no cancellation.  Where u underflows to 0 or
overflows to inf it is recomputed from sqrt(|x|) and sqrt(|y|) and the ratio r of the smaller to
the larger of |x| and |y|: for |x| == |y|, u = sqrt(|x|) * sqrt((1 + sqrt(2)) / 2); for |x| > |y|,
u = sqrt(|x|) * sqrt((1 + hypot(1, r)) / 2); for |x| < |y|, u = sqrt(|y|) * sqrt((r + hypot(1, r)) / 2).
"""

from __future__ import annotations

from collections.abc import Callable

from stablehlo_py.passes.patterns.complex_math.dekker import once
from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from xdsl.ir import SSAValue

__all__ = ["expand_sqrt"]


def _hypot(
    e: Emitter,
    mx: SSAValue,
    mn: SSAValue,
    sq_2: SSAValue,
    zero: SSAValue,
    one: Callable[[], SSAValue],
    two: Callable[[], SSAValue],
) -> SSAValue:
    """hypot of two non-negative values given their maximum `mx` and minimum `mn`: `sqrt(2) * mx`
    when equal, else `mx * sqrt(1 + (mn/mx)**2)`, or `mx + mx * r / 2` (r = (mn/mx)**2) when that
    square root rounds to 1 while r > 0."""
    return e.select(
        e.compare(mx, mn, "EQ"),
        e.mul(sq_2, mx),
        e.select(
            e.and_(
                e.compare(
                    sqa := e.sqrt(e.add(one(), r := e.mul(q := e.div(mn, mx), q))), one(), "EQ"
                ),
                e.compare(r, zero, "GT"),
            ),
            e.add(mx, e.div(e.mul(mx, r), two())),
            e.mul(mx, sqa),
        ),
    )


def expand_sqrt(e: Emitter, z: SSAValue) -> SSAValue:
    one = once(lambda: e.const(1, x))
    two = once(lambda: e.const(2, x))
    return e.complex(
        e.select(
            e.compare(x := e.real(z), zero := e.const(0, x), "GE"),
            u := e.select(
                eq := e.compare(ax := e.abs(x), ay := e.abs(y := e.imag(z)), "EQ"),
                e.div(
                    e.mul(sq_ax := e.sqrt(ax), e.const(1.5537739740300374, x)),
                    sq_2 := e.const(1.4142135623730951, x),
                ),
                e.select(
                    under_or_overflow := e.or_(
                        e.compare(
                            u_general := e.sqrt(
                                e.add(
                                    e.div(
                                        _hypot(
                                            e, e.max(ax, ay), e.min(ax, ay), sq_2, zero, one, two
                                        ),
                                        two(),
                                    ),
                                    e.div(ax, two()),
                                )
                            ),
                            zero,
                            "EQ",
                        ),
                        e.compare(u_general, e.posinf(x), "EQ"),
                    ),
                    e.select(
                        gt := e.compare(ax, ay, "GT"),
                        e.mul(
                            sq_ax,
                            e.div(
                                sq_1h := e.sqrt(
                                    e.add(
                                        one(),
                                        h := _hypot(
                                            e,
                                            e.max(
                                                one(),
                                                abs_r0 := e.abs(
                                                    r0 := e.select(
                                                        eq,
                                                        one(),
                                                        e.select(
                                                            lt := e.compare(ax, ay, "LT"),
                                                            e.div(ax, ay),
                                                            e.div(ay, ax),
                                                        ),
                                                    )
                                                ),
                                            ),
                                            e.min(one(), abs_r0),
                                            sq_2,
                                            zero,
                                            one,
                                            two,
                                        ),
                                    )
                                ),
                                sq_2,
                            ),
                        ),
                        e.mul(sq_ay := e.sqrt(ay), e.div(sq_rh := e.sqrt(e.add(r0, h)), sq_2)),
                    ),
                    u_general,
                ),
            ),
            ay_div_u := e.select(
                eq,
                e.div(sq_ay, e.const(2.19736822693562, x)),
                e.select(
                    under_or_overflow,
                    e.select(
                        gt,
                        e.div(
                            e.mul(
                                sq_ay,
                                e.select(
                                    eq,
                                    one(),
                                    e.select(lt, e.div(sq_ax, sq_ay), e.div(sq_ay, sq_ax)),
                                ),
                            ),
                            e.mul(sq_1h, sq_2),
                        ),
                        e.div(sq_ay, e.mul(sq_rh, sq_2)),
                    ),
                    e.div(ay, e.mul(u_general, two())),
                ),
            ),
        ),
        e.select(
            e.compare(x, zero, "LT"),
            e.select(lt_y := e.compare(y, zero, "LT"), e.neg(u), u),
            e.select(lt_y, e.neg(ay_div_u), ay_div_u),
        ),
    )
