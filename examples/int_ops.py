"""Integer semantics, built with stablehlo_py.builder: wrap-around arithmetic in i8, ui8 and i32,
shifts (including amounts of the bit width and more, which the spec defines), remainder and
division of negative numbers, bit counting, bitwise ops, narrowing conversions and unsigned order.

    python examples/int_ops.py

Every result is exact, so consumers must agree bit for bit.  Division by zero and ``INT_MIN / -1``
are left out: their values are implementation-defined in the spec.  The script checks the
interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

N = 12


def build() -> Module:
    m = Module("int_ops")

    @m.func(
        tensor((N,), "i32"),
        tensor((N,), "i32"),
        tensor((N,), "i8"),
        tensor((N,), "ui8"),
        tensor((N,), "ui8"),
        name="main",
    )
    def ints(a, b, small, u, v):
        amount = hlo.and_(b, 63)  # shift amounts 0..63: 32 and more are defined too
        nonzero = hlo.select(hlo.compare(b, 0, "EQ"), hlo.add(b, 7), b)
        return (
            hlo.multiply(a, b),  # wraps in i32
            hlo.add(small, small),  # wraps in i8
            hlo.subtract(u, v),  # wraps in ui8
            hlo.shift_left(a, amount),
            hlo.shift_right_arithmetic(a, amount),
            hlo.shift_right_logical(a, amount),
            hlo.divide(a, nonzero),  # rounds toward zero
            hlo.remainder(a, nonzero),  # takes the dividend's sign
            hlo.popcnt(a),
            hlo.count_leading_zeros(a),
            hlo.xor(hlo.and_(a, b), hlo.not_(hlo.or_(a, b))),
            hlo.convert(a, result_type=tensor((N,), "i8")),  # keeps the low 8 bits
            hlo.maximum(u, v),  # unsigned order
            hlo.compare(u, v, "LT", compare_type="UNSIGNED"),
            hlo.abs(small),  # abs(-128) is -128
            hlo.clamp(-5, a, 1000),
        )

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(17)
    info = np.iinfo(np.int32)
    a = rng.integers(info.min, info.max, N, dtype=np.int64).astype(np.int32)
    a[:3] = [info.min, -7, 7]
    b = rng.integers(-100, 100, N).astype(np.int32)
    b[:4] = [3, 2, -2, 0]
    small = rng.integers(-128, 128, N).astype(np.int8)
    small[0] = -128
    u = rng.integers(0, 256, N).astype(np.uint8)
    v = rng.integers(0, 256, N).astype(np.uint8)
    return a, b, small, u, v


def numpy_ints(a, b, small, u, v):  # type: ignore[no-untyped-def]
    a64, amount = a.astype(np.int64), (b & 63).astype(np.int64)
    nonzero = np.where(b == 0, b + 7, b).astype(np.int64)
    bits = a.view(np.uint32).astype(np.int64)
    quotient = np.trunc(a64 / nonzero).astype(np.int64)
    with np.errstate(over="ignore"):
        return (
            (a64 * b).astype(np.int32),
            small + small,
            u - v,
            np.where(amount < 32, (bits << np.minimum(amount, 31)) & 0xFFFFFFFF, 0)
            .astype(np.uint32)
            .view(np.int32),
            (a64 >> np.minimum(amount, 31)).astype(np.int32),
            np.where(amount < 32, bits >> np.minimum(amount, 31), 0).astype(np.int32),
            quotient.astype(np.int32),
            (a64 - quotient * nonzero).astype(np.int32),
            np.array([int(x).bit_count() for x in bits], np.int32),
            np.array([32 - int(x).bit_length() for x in bits], np.int32),
            (a & b) ^ ~(a | b),
            a.astype(np.int8),
            np.maximum(u, v),
            u < v,
            np.abs(small),
            np.clip(a, -5, 1000),
        )


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for i, (got, want) in enumerate(zip(m.run(*inputs()), numpy_ints(*inputs()))):
        np.testing.assert_array_equal(got, want, err_msg=f"result #{i}")
