"""`stablehlo.log` of a complex: upstream's LogOp_ComplexElementType_ComplexMathExpander.

    log(x + I*y) = log(hypot(x, y)) + I * atan2(y, x)

The real part:
* when s = -1 + x*x + y*y (summed by Fast2Sum over [-1, max(x*x, y*y), min(x*x, y*y)] and the low
  parts of Dekker's squares of y and x) has |s| < 0.5 (|z| near 1): 0.5 * log1p(s);
* otherwise log(mx) + 0.5 * log1p((mn/mx)**2), mx = max(|x|, |y|), mn = min(|x|, |y|), with
  mn/mx = 1 when mn == mx (both 0 or both inf).
"""

from __future__ import annotations

from stablehlo_py.passes.patterns.complex_math.dekker import (
    fast2sum_low,
    once,
    square_dekker_low,
    veltkamp_splitter,
)
from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from xdsl.ir import SSAValue

__all__ = ["expand_log"]


def expand_log(e: Emitter, z: SSAValue) -> SSAValue:
    splitter = once(lambda: veltkamp_splitter(e, e.largest(x), x))
    return e.complex(
        e.select(
            e.compare(
                e.abs(
                    s := e.add(
                        s4 := e.add(
                            s3 := e.add(
                                s2 := e.add(
                                    s1 := e.add(
                                        fneg1 := e.const(-1.0, x := e.real(z)),
                                        mxh := e.select(
                                            gt := e.compare(
                                                yyh := e.mul(y := e.imag(z), y),
                                                xxh := e.mul(x, x),
                                                "GT",
                                            ),
                                            yyh,
                                            xxh,
                                        ),
                                    ),
                                    mnh := e.select(gt, xxh, yyh),
                                ),
                                yyl := square_dekker_low(e, y, yyh, splitter),
                            ),
                            xxl := square_dekker_low(e, x, xxh, splitter),
                        ),
                        e.add(
                            e.add(
                                e.add(
                                    fast2sum_low(e, fneg1, mxh, s1), fast2sum_low(e, s1, mnh, s2)
                                ),
                                fast2sum_low(e, s2, yyl, s3),
                            ),
                            fast2sum_low(e, s3, xxl, s4),
                        ),
                    )
                ),
                half := e.const(0.5, x),
                "LT",
            ),
            e.mul(half, e.log1p(s)),
            e.add(
                e.log(mx := e.max(abs_x := e.abs(x), abs_y := e.abs(y))),
                e.mul(
                    half,
                    e.log1p(
                        e.mul(
                            mn_over_mx := e.select(
                                e.compare(mn := e.min(abs_x, abs_y), mx, "EQ"),
                                e.const(1.0, x),
                                e.div(mn, mx),
                            ),
                            mn_over_mx,
                        )
                    ),
                ),
            ),
        ),
        e.atan2(y, x),
    )
