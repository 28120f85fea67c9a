// @main calls a private function: `stablehlo-opt -inline` inlines the call and drops @square.
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @square(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.add %0, %x : tensor<3xf32>
  return %1 : tensor<3xf32>
}

func.func private @square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
