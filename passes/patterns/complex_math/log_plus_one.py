"""`stablehlo.log_plus_one` of a complex: upstream's Log1pOp_ComplexElementType_ComplexMathExpander.

    log1p(x + I*y) = 0.5 * log((x + 1)**2 + y**2) + I * atan2(y, x + 1)

The real part, accurate on the whole complex plane:
* max(|x|, |y|) > sqrt(largest) * 0.01 (squares would overflow): log(mx) + 0.5 * log1p((mn/mx)**2)
  (with mn/mx = 1 when mn == mx);
* |x + 1| + |y| < 0.2 (x near -1): 0.5 * log((x + 1)**2 + y**2);
* otherwise 0.5 * log1p(x + x + x*x + y*y), the sum taken as 2Sum of [x + x, y*y, x*x] and the
  low parts of Dekker's squares of y and x (which avoids the cancellation near x = -y*y/2).
"""

from __future__ import annotations

from stablehlo_py.passes.patterns.complex_math.dekker import (
    once,
    square_dekker_low,
    two_sum_low,
    veltkamp_splitter,
)
from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from xdsl.ir import SSAValue

__all__ = ["expand_log_plus_one"]


def expand_log_plus_one(e: Emitter, z: SSAValue) -> SSAValue:
    splitter = once(lambda: veltkamp_splitter(e, largest, x))
    return e.complex(
        e.select(
            e.compare(
                mx := e.max(ax := e.abs(x := e.real(z)), ay := e.abs(y := e.imag(z))),
                e.mul(e.sqrt(largest := e.largest(x)), e.const(0.01, x)),
                "GT",
            ),
            e.add(
                e.log(mx),
                e.mul(
                    half := e.const(0.5, x),
                    e.log1p(
                        e.select(
                            e.compare(mn := e.min(ax, ay), mx, "EQ"),
                            one := e.const(1, x),
                            e.mul(r := e.div(mn, mx), r),
                        )
                    ),
                ),
            ),
            e.select(
                e.compare(e.add(e.abs(xp1 := e.add(x, one)), ay), e.const(0.2, x), "LT"),
                e.mul(half, e.log(e.add(e.mul(xp1, xp1), yyh := e.mul(y, y)))),
                e.mul(
                    half,
                    e.log1p(
                        e.add(
                            s4 := e.add(
                                s3 := e.add(
                                    s2 := e.add(
                                        s1 := e.add(x2h := e.add(x, x), yyh), xxh := e.mul(x, x)
                                    ),
                                    yyl := square_dekker_low(e, y, yyh, splitter),
                                ),
                                xxl := square_dekker_low(e, x, xxh, splitter),
                            ),
                            e.add(
                                e.add(
                                    e.add(
                                        two_sum_low(e, x2h, yyh, s1), two_sum_low(e, s1, xxh, s2)
                                    ),
                                    two_sum_low(e, s2, yyl, s3),
                                ),
                                two_sum_low(e, s3, xxl, s4),
                            ),
                        )
                    ),
                ),
            ),
        ),
        e.atan2(y, xp1),
    )
