"""Programs shared by the trace tests."""

from __future__ import annotations

# JAX-style name locations: name stack "jit(f)/<scope>/<primitive>" with the Python source as child
NAMED = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = stablehlo.sine %x : tensor<3xf32> loc("jit(f)/block0/sin"("model.py":10:4))
  %b = stablehlo.cosine %a : tensor<3xf32> loc("jit(f)/block0/cos"("model.py":11:4))
  %c = stablehlo.sine %b : tensor<3xf32> loc("jit(f)/block1/sin"("model.py":20:4))
  %d = stablehlo.add %c, %a : tensor<3xf32> loc("jit(f)/block1/add"("model.py":21:4))
  return %d : tensor<3xf32>
}"""

# a loop whose body makes an infinity at its second iteration (x * x from 1e20 on)
LOOP = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %v1 = stablehlo.multiply %v, %v : tensor<2xf32>
      stablehlo.return %i1, %v1 : tensor<i32>, tensor<2xf32>
    }
  return %r#1 : tensor<2xf32>
}"""

# a check that fails on its second op (negate(x) != x for x = [1, 2])
FAILING_CHECK = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = stablehlo.negate %x : tensor<2xi32>
  stablehlo.custom_call @check.expect_eq(%y, %x) : (tensor<2xi32>, tensor<2xi32>) -> ()
  return %y : tensor<2xi32>
}"""
