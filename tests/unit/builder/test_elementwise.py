"""Elementwise ops built with the builder (stablehlo_py.builder), checked against numpy."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import ComparisonDirection, Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

RNG = np.random.default_rng(0)


def test_float_arithmetic_with_python_scalars() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((2, 3), "f32"))
    def main(x, y):
        a = hlo.add(x, y)
        b = hlo.multiply(a, 2.0)  # a splat constant of a's type
        c = hlo.subtract(b, hlo.divide(x, 4.0))
        d = hlo.maximum(hlo.minimum(c, 10.0), -10.0)
        return hlo.negate(hlo.abs(d)), hlo.power(hlo.abs(x), 2.0)

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    y = RNG.standard_normal((2, 3)).astype(np.float32)
    c = (x + y) * np.float32(2) - x / np.float32(4)
    d = np.maximum(np.minimum(c, np.float32(10)), np.float32(-10))
    text = check_program(m, [x, y], [-np.abs(d), np.abs(x) ** 2], rtol=1e-6)
    assert "stablehlo.constant dense<2.000000e+00> : tensor<2x3xf32>" in text


def test_transcendentals() -> None:
    m = Module()

    @m.func(tensor((5,), "f32"))
    def main(x):
        p = hlo.add(hlo.abs(x), 0.5)
        return (
            hlo.exponential(x),
            hlo.log(p),
            hlo.tanh(x),
            hlo.sqrt(p),
            hlo.rsqrt(p),
            hlo.logistic(x),
            hlo.sine(x),
            hlo.cosine(x, result_accuracy="HIGHEST"),
            hlo.atan2(x, p),
            hlo.log_plus_one(p),
            hlo.exponential_minus_one(x),
            hlo.cbrt(x),
        )

    x = RNG.standard_normal(5).astype(np.float32)
    p = np.abs(x) + np.float32(0.5)
    expected = [
        np.exp(x),
        np.log(p),
        np.tanh(x),
        np.sqrt(p),
        1 / np.sqrt(p),
        1 / (1 + np.exp(-x)),
        np.sin(x),
        np.cos(x),
        np.arctan2(x, p),
        np.log1p(p),
        np.expm1(x),
        np.cbrt(x),
    ]
    text = check_program(m, [x], [e.astype(np.float32) for e in expected], rtol=2e-6, atol=1e-7)
    assert "#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>" in text


def test_compare_and_select() -> None:
    m = Module()

    @m.func(tensor((4,), "f32"), tensor((4,), "f32"))
    def main(x, y):
        gt = hlo.compare(x, y, "GT", compare_type="FLOAT")
        le = hlo.compare(x, 0.0, ComparisonDirection.LE)  # an enum member works as the string
        return hlo.select(gt, x, y), hlo.select(le, 0.0, x), hlo.not_(gt)

    x = np.array([1, -2, 3, 0], np.float32)
    y = np.array([0, 5, 4, -1], np.float32)
    check_program(m, [x, y], [np.where(x > y, x, y), np.where(x <= 0, np.float32(0), x), ~(x > y)])


def test_integer_and_bit_ops() -> None:
    m = Module()

    @m.func(tensor((6,), "i32"), tensor((6,), "i32"))
    def main(a, b):
        s = hlo.and_(a, b), hlo.or_(a, b), hlo.xor(a, b), hlo.not_(a)
        sh = hlo.shift_left(a, 2), hlo.shift_right_arithmetic(a, 1), hlo.shift_right_logical(a, 1)
        return (
            *s,
            *sh,
            hlo.popcnt(a),
            hlo.count_leading_zeros(a),
            hlo.remainder(a, 7),
            hlo.sign(a),
        )

    a = np.array([1, -2, 3, 1024, -7, 0], np.int32)
    b = np.array([3, 5, -1, 12, 7, 9], np.int32)
    popcnt = np.array([(int(v) & 0xFFFFFFFF).bit_count() for v in a], np.int32)
    clz = np.array([32 - (int(v) & 0xFFFFFFFF).bit_length() for v in a], np.int32)
    expected = [
        a & b,
        a | b,
        a ^ b,
        ~a,
        a << 2,
        a >> 1,
        (a.view(np.uint32) >> 1).view(np.int32),
        popcnt,
        clz,
        np.fmod(a, 7).astype(np.int32),
        np.sign(a),
    ]
    check_program(m, [a, b], expected)


def test_convert_round_clamp_and_bitcast() -> None:
    m = Module()

    @m.func(tensor((5,), "f32"))
    def main(x):
        r = hlo.round_nearest_even(x)
        i = hlo.convert(r, result_type=tensor((5,), "i32"))
        bits = hlo.bitcast_convert(x, result_type="tensor<5xui32>")
        c = hlo.clamp(-1.0, x, 1.0)  # 0-d min and max
        return hlo.floor(x), hlo.ceil(x), hlo.round_nearest_afz(x), i, bits, c, hlo.is_finite(x)

    x = np.array([0.5, 1.5, -2.5, 3.7, np.inf], np.float32)
    expected = [
        np.floor(x),
        np.ceil(x),
        np.array([1, 2, -3, 4, np.inf], np.float32),
        np.array([0, 2, -2, 4, np.iinfo(np.int32).max], np.int32),
        x.view(np.uint32),
        np.clip(x, -1, 1),
        np.isfinite(x),
    ]
    got = m.run(x)
    # float->int conversion of inf is implementation-defined; compare the finite lanes
    np.testing.assert_array_equal(got[3][:4], expected[3][:4])
    expected[3] = got[3]
    check_program(m, [x], expected)


def test_complex_parts() -> None:
    m = Module()

    @m.func(tensor((3,), "f32"), tensor((3,), "f32"))
    def main(re, im):
        z = hlo.complex(re, im)
        return hlo.real(z), hlo.imag(z), hlo.abs(z), hlo.multiply(z, z)

    re = np.array([1, 2, -3], np.float32)
    im = np.array([0.5, -1, 2], np.float32)
    z = re + 1j * im
    check_program(
        m, [re, im], [re, im, np.abs(z).astype(np.float32), (z * z).astype(np.complex64)], rtol=1e-6
    )


def test_constants_from_numpy_and_python() -> None:
    m = Module()

    @m.func()
    def main():
        a = constant(np.arange(6, dtype=np.int64).reshape(2, 3))
        b = constant([[1.5, 2.5, 3.5]])  # Python floats: f32
        c = constant(7, dtype="i64", shape=(2, 3))  # a splat
        return hlo.add(a, c), b, constant(True)

    check_program(
        m,
        [],
        [np.arange(6).reshape(2, 3) + 7, np.array([[1.5, 2.5, 3.5]], np.float32), np.bool_(True)],
    )
