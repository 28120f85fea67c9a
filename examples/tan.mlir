// stablehlo.tan exists from StableHLO 1.4.0: serializing for 1.0.0 needs --expand (sine / cosine).
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.tan %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
