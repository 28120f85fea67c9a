"""Reductions and other ops with region bodies (reduce, reduce_window, select_and_scatter, sort, map),
built from Python callables."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

RNG = np.random.default_rng(2)


def test_reduce_sum_and_max() -> None:
    m = Module()

    @m.func(tensor((3, 4), "f32"))
    def main(x):
        s = hlo.reduce(x, 0.0, dimensions=[1], body=hlo.add)
        mx = hlo.reduce([x], [-np.inf], dimensions=[0], body=lambda acc, v: hlo.maximum(acc, v))
        return s, mx

    x = RNG.standard_normal((3, 4)).astype(np.float32)
    text = check_program(m, [x], [x.sum(axis=1), x.max(axis=0)], rtol=1e-6)
    # the short form upstream prints for a one-op body
    assert "applies stablehlo.add across dimensions = [1]" in text


def test_variadic_reduce_argmax() -> None:
    m = Module()

    @m.func(tensor((2, 5), "f32"))
    def main(x):
        idx = hlo.iota(iota_dimension=1, result_type=tensor((2, 5), "i32"))

        def body(acc_v, acc_i, v, i):
            better = hlo.compare(v, acc_v, "GT")
            return hlo.select(better, v, acc_v), hlo.select(better, i, acc_i)

        _, arg = hlo.reduce([x, idx], [-np.inf, 0], dimensions=[1], body=body)
        return arg

    x = RNG.standard_normal((2, 5)).astype(np.float32)
    check_program(m, [x], [x.argmax(axis=1).astype(np.int32)])


def test_reduce_window_max_pool() -> None:
    m = Module()

    @m.func(tensor((1, 4, 4, 1), "f32"))
    def main(x):
        return hlo.reduce_window(
            x,
            -np.inf,
            window_dimensions=[1, 2, 2, 1],
            window_strides=[1, 2, 2, 1],
            padding=[[0, 0], [0, 0], [0, 0], [0, 0]],
            body=hlo.maximum,
        )

    x = RNG.standard_normal((1, 4, 4, 1)).astype(np.float32)
    expected = x.reshape(1, 2, 2, 2, 2, 1).max(axis=(2, 4))
    check_program(m, [x], [expected], spelt_defaults=True)  # padding of zeros is the default


def test_select_and_scatter() -> None:
    m = Module()

    @m.func(tensor((4,), "f32"), tensor((2,), "f32"))
    def main(x, src):
        return hlo.select_and_scatter(
            x,
            src,
            0.0,
            window_dimensions=[2],
            window_strides=[2],
            select=lambda a, b: hlo.compare(a, b, "GE"),
            scatter=hlo.add,
        )

    x = np.array([1, 5, 7, 2], np.float32)
    src = np.array([10, 20], np.float32)
    check_program(m, [x, src], [np.array([0, 10, 20, 0], np.float32)])


def test_sort_two_operands() -> None:
    m = Module()

    @m.func(tensor((6,), "f32"), tensor((6,), "i32"))
    def main(keys, vals):
        return hlo.sort(
            [keys, vals],
            dimension=0,
            is_stable=True,
            comparator=lambda k1, k2, v1, v2: hlo.compare(k1, k2, "LT", compare_type="TOTALORDER"),
        )

    keys = np.array([3, 1, 2, 1, 0, 5], np.float32)
    vals = np.arange(6, dtype=np.int32)
    order = np.argsort(keys, kind="stable")
    check_program(m, [keys, vals], [keys[order], vals[order]])


def test_map() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((2, 3), "f32"))
    def main(x, y):
        return hlo.map(
            [x, y], dimensions=[0, 1], computation=lambda a, b: hlo.multiply(hlo.add(a, b), a)
        )

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    y = RNG.standard_normal((2, 3)).astype(np.float32)
    check_program(m, [x, y], [(x + y) * x])
