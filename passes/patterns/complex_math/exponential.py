"""`stablehlo.exponential` of a complex: upstream's ExpOp_ComplexElementType_ComplexMathExpander.

    exp(x + I*y) = exp(x) * (cos(y) + I * sin(y))

with imag = 0 when y == 0 (exp(x) * sin(0) would be nan for an overflowing exp(x)), and, when
exp(x) overflows to inf, `exp(x/2) * (cos(y) + I*sin(y)) * exp(x/2)` so that parts that ought to be
finite (y near a zero of cos or sin) are.
"""

from __future__ import annotations

from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from xdsl.ir import SSAValue

__all__ = ["expand_exponential"]


def expand_exponential(e: Emitter, z: SSAValue) -> SSAValue:
    return e.complex(
        e.select(
            overflow := e.compare(ex := e.exp(x := e.real(z)), e.posinf(x), "EQ"),
            e.mul(e.mul(e2 := e.exp(e.mul(x, e.const(0.5, x))), cs := e.cos(y := e.imag(z))), e2),
            e.mul(ex, cs),
        ),
        e.select(
            e.compare(y, zero := e.const(0, x), "EQ"),
            zero,
            e.select(overflow, e.mul(e.mul(e2, sn := e.sin(y)), e2), e.mul(ex, sn)),
        ),
    )
