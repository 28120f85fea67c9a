"""``expose``: every top-level tensor value of the entry function becomes a result
(stablehlo_py/backends/expose.py)."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.backends.expose import expose
from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse

PROGRAM = '''
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
  %c = stablehlo.constant dense<2.0> : tensor<3xf32> loc("jit(f)/scale/mul")
  %0 = stablehlo.multiply %x, %c : tensor<3xf32> loc("jit(f)/scale/mul")
  %n = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.while(%i = %n, %v = %0) : tensor<i32>, tensor<3xf32>
   cond {
    %k = stablehlo.constant dense<3> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<3xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<3xf32>
  }
  %2 = func.call @g(%1#1) : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
func.func private @g(%y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}
'''


def test_every_top_level_value_is_returned_after_the_results() -> None:
    m = parse(PROGRAM)
    e = expose(m)
    assert e.results == 1
    assert e.keys == (
        ("jit(f)/scale/stablehlo.constant#0", 0),
        ("jit(f)/scale/stablehlo.multiply#0", 0),
        ("@main/stablehlo.constant#0", 0),
        ("@main/stablehlo.while#0", 0),
        ("@main/stablehlo.while#0", 1),
        ("@main/func.call#0", 0),
    )
    x = np.array([1.0, 2.0, 3.0], np.float32)
    outs = run(e.module, x)
    want_mul = x * 2
    for got, want in zip(
        outs, [-want_mul * 8, want_mul * 0 + 2, want_mul, np.int32(0), np.int32(3), want_mul * 8,
               -want_mul * 8]
    ):
        np.testing.assert_allclose(got, want)
    # the original is untouched and the copy keeps one result attribute per result
    assert len(m.body.block.first_op.function_type.outputs.data) == 1
    assert "jax.result_info" in str(e.module)
    assert len(e.module.body.block.first_op.res_attrs.data) == 7


def test_a_missing_entry_is_a_clear_error() -> None:
    with pytest.raises(StableHLOError, match="no function @nope"):
        expose(parse(PROGRAM), entry="nope")
