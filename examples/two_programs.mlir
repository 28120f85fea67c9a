// Two programs in one file: `stablehlo-opt --split-input-file` handles each `// -----` chunk on its own.
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negate(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.negate %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}
