module @prog attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> loc("x"), %arg1: tensor<i32>) -> (tensor<4xf32> {jax.result_info = "out"}) {
    %cst = stablehlo.constant dense<[1.0, -0.0, 0x7FC00001, 3.5]> : tensor<4xf32> loc("f.py":3:1)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %c_1 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
    %0 = stablehlo.add %arg0, %cst : tensor<4xf32> loc("jit(f)/add"("f.py":4:2))
    %1:2 = stablehlo.while(%iterArg = %0, %iterArg_2 = %c) : tensor<4xf32>, tensor<i32>
    cond {
      %3 = stablehlo.compare  LT, %iterArg_2, %arg1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = stablehlo.multiply %iterArg, %iterArg : tensor<4xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_2, %c_3 : tensor<i32>
      stablehlo.return %3, %4 : tensor<4xf32>, tensor<i32>
    } loc(callsite("loop"("f.py":5:1) at "g.py":9:9))
    %2 = call @helper(%1#0) : (tensor<4xf32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.custom_call @foo(%1) {backend_config = "\08\03\1A\02", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
