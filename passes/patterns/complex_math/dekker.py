"""Pieces the log and log_plus_one expansions share (upstream's generator inlines them in both):
Dekker's exact square with Veltkamp's splitting, and the low parts of 2Sum and Fast2Sum.  Each
creates its ops in the order of upstream's DRR result DAG (see emitter.py)."""

from __future__ import annotations

from collections.abc import Callable

from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from xdsl.ir import SSAValue

__all__ = ["fast2sum_low", "once", "square_dekker_low", "two_sum_low", "veltkamp_splitter"]


def veltkamp_splitter(e: Emitter, largest: SSAValue, like: SSAValue) -> SSAValue:
    """Veltkamp's splitter `2**ceil(p/2) + 1` of the float format, chosen by its largest value:
    134217729 (f64), 4097 (f32), 65 (f16)."""
    return e.select(
        e.compare(largest, e.const(1e308, like), "GT"),
        e.const(134217729, like),
        e.select(
            e.compare(largest, e.const(1e38, like), "GT"),
            e.const(4097, like),
            e.const(65, like),
        ),
    )


def once(make: Callable[[], SSAValue]) -> Callable[[], SSAValue]:
    """A value made by the first call (where DRR creates a bound op) and reused by later ones."""
    made: list[SSAValue] = []

    def get() -> SSAValue:
        if not made:
            made.append(make())
        return made[0]

    return get


def square_dekker_low(
    e: Emitter, v: SSAValue, high: SSAValue, splitter: Callable[[], SSAValue]
) -> SSAValue:
    """The low part of Dekker's product `v * v` whose high part is `high`: with `vh + vl == v`
    split by Veltkamp (`splitter()` gives the splitter constant, created where DRR creates it),
    `((-high + vh*vh) + vh*vl) + vh*vl + vl*vl`."""
    return e.add(
        e.add(
            e.add(
                e.add(
                    e.neg(high),
                    e.mul(vh := e.add(m := e.mul(splitter(), v), e.sub(v, m)), vh),
                ),
                vhvl := e.mul(vh, vl := e.sub(v, vh)),
            ),
            vhvl,
        ),
        e.mul(vl, vl),
    )


def two_sum_low(e: Emitter, a: SSAValue, b: SSAValue, s: SSAValue) -> SSAValue:
    """Knuth's 2Sum error term of `s = a + b`: `(a - (s - (s - a))) + (b - (s - a))`."""
    return e.add(e.sub(a, e.sub(s, t := e.sub(s, a))), e.sub(b, t))


def fast2sum_low(e: Emitter, a: SSAValue, b: SSAValue, s: SSAValue) -> SSAValue:
    """Dekker's Fast2Sum error term of `s = a + b` (|a| >= |b|): `b - (s - a)`."""
    return e.sub(b, e.sub(s, a))
