"""The numpy references of the golden features XLA cannot run (``programs.py``), against our
interpreter on inputs harder than the goldens' -- whose values are easy: the per-axis golden
round-trips its input exactly and its promotable reduce would give the same result in f32.  Here the
rounding ties, the clamping, the quantization axis, f64 accumulation and a collective over several
replicas each decide the result, and each test first shows the reference tells the wrong
behaviour apart, so that it can fail."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from tests.golden.programs import (
    Feature,
    feature_module,
    promotable_reduce_body,
    spec_collective_broadcast,
    spec_promotable_reduce_add,
    spec_quantize_dequantize,
)

# quotients x / s + z: ties 2.5 -> 2 and 3.5 -> 4 (half to even; half away from zero gives 3 and 4),
# -2.5 -> -2, and 400 -> 127, -600 -> -128 (clamped; zero points chosen so that q - z stays in i8)
X = np.array(
    [[0.75, -1.125], [1.25, 100.0], [-1.75, -150.0], [199.5, 0.125]], dtype=np.float32
)


def _quantize_program(axis: int, params: str, shape: str) -> str:
    q = f"tensor<{shape}x!quant.uniform<i8:f32:{axis}, {{{params}}}>>"
    return f"""
func.func @main(%x: tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
  %0 = stablehlo.uniform_quantize %x : (tensor<{shape}xf32>) -> {q}
  %1 = stablehlo.uniform_dequantize %0 : ({q}) -> tensor<{shape}xf32>
  return %1 : tensor<{shape}xf32>
}}"""


def test_per_axis_quantization_along_axis_1() -> None:
    scales, zps = np.array([0.5, 0.25], np.float32), np.array([1, -2], np.int8)
    want = spec_quantize_dequantize(X, scales, zps, axis=1)
    # the reference tells apart: half away from zero, no clamping, the other axis' parameters
    assert want[0, 0] == 0.5  # 0.75 / 0.5 + 1 = 2.5 -> 2 (half to even) -> (2 - 1) * 0.5
    assert want[1, 1] == (127 + 2) * 0.25  # 100 / 0.25 - 2 = 398 -> 127
    assert want[2, 1] == (-128 + 2) * 0.25  # -150 / 0.25 - 2 = -602 -> -128
    assert want[3, 0] == (127 - 1) * 0.5  # 199.5 / 0.5 + 1 = 400 -> 127
    (got,) = run(_quantize_program(1, "0.5:1, 0.25:-2", "4x2"), X)
    np.testing.assert_array_equal(got, want, err_msg="interpreter vs spec_quantize_dequantize")
    assert got.tobytes() == want.tobytes()


def test_per_axis_quantization_along_axis_0() -> None:
    scales = np.array([0.5, 0.25, 2.0, 4.0], np.float32)
    zps = np.array([1, -2, 0, 3], np.int8)
    want = spec_quantize_dequantize(X, scales, zps, axis=0)
    assert want[0, 0] == 0.5 and want[2, 0] == -2.0  # -1.75 / 2 = -0.875 -> -1 -> -2.0
    (got,) = run(_quantize_program(0, "0.5:1, 0.25:-2, 2.0:0, 4.0:3", "4x2"), X)
    assert got.tobytes() == want.tobytes(), (got, want)


def test_promotable_reduce_accumulates_in_the_body_type() -> None:
    x = np.array([[16777216.0, 1.0], [1.0, 2.0], [1.0, -3.0]], dtype=np.float32)
    want = spec_promotable_reduce_add(x, np.float32(0.0), np.float64)
    assert want[0] == 16777218.0  # 2**24 + 1 + 1 in f64
    assert spec_promotable_reduce_add(x, np.float32(0.0), np.float32)[0] == 16777216.0  # f32 loses
    # the golden feature's program, on this x
    body = promotable_reduce_body(str(x.tolist()), "tensor<3x2xf32>", "tensor<2xf64>")
    (got,) = run(feature_module(Feature("promotable_reduce", "0.17.0", "tensor<2xf64>", body)))
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize(
    ("groups", "received"),
    [
        # replicas 0 and 2 receive replica 2's operand (the group's first); 1 and 3 are in no
        # group and receive zeros
        ([[2, 0]], [[21, 22], [0, 0], [21, 22], [0, 0]]),
        ([[2, 0], [3, 1]], [[21, 22], [31, 32], [21, 22], [31, 32]]),
    ],
)
def test_collective_broadcast_over_four_replicas(
    groups: list[list[int]], received: list[list[int]]
) -> None:
    operands = [np.array([10 * r + 1, 10 * r + 2], dtype=np.int64) for r in range(4)]
    want = spec_collective_broadcast(operands, groups)
    assert [w.tolist() for w in want] == received
    consts = "\n".join(
        f"  %c{r} = stablehlo.constant dense<{operands[r].tolist()}> : tensor<2xi64>"
        for r in range(4)
    )
    t = "tensor<2xi64>"
    shape = f"tensor<{len(groups)}x{len(groups[0])}xi64>"
    got = run(f"""
func.func @p(%x: {t}) -> {t} {{
  %r = "stablehlo.collective_broadcast"(%x) {{replica_groups = dense<{groups}> : {shape},
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>}} : ({t}) -> {t}
  return %r : {t}
}}
func.func @main() -> ({t}, {t}, {t}, {t}) {{
{consts}
  %r:4 = "interpreter.run_parallel"(%c0, %c1, %c2, %c3) {{programs = [[@p], [@p], [@p], [@p]]}}
      : ({t}, {t}, {t}, {t}) -> ({t}, {t}, {t}, {t})
  return %r#0, %r#1, %r#2, %r#3 : {t}, {t}, {t}, {t}
}}""")
    for r in range(4):
        np.testing.assert_array_equal(got[r], want[r], err_msg=f"replica {r}")
