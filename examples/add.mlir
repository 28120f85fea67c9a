// Adds two vectors: the README's `stablehlo-translate --interpret --args=...` example.
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}
