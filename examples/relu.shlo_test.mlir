// A StableHLO test file: stablehlo-py's pytest plugin collects each `// RUN:` line of a
// `*.shlo_test.mlir` file as one test and runs it as lit does (`python -m pytest examples/`).
// RUN: stablehlo-translate --interpret %s
// RUN: stablehlo-opt %s --inline | FileCheck %s
// RUN: not stablehlo-translate --serialize --target=1.0.0 %s 2>&1 | FileCheck %s --check-prefix=ERROR

func.func private @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %y = stablehlo.maximum %x, %zero : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// The interpreter runs @main, whose check op compares @relu's result.
// CHECK-LABEL: func.func @main
// CHECK-NOT: call
// CHECK: stablehlo.maximum
// Test ops are not portable: serializing the file fails, and says why.
// ERROR: 'check' ops have no VHLO counterpart
func.func @main() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 1.5]> : tensor<4xf32>
  %y = func.call @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_eq_const %y, dense<[0.0, 0.0, 0.0, 1.5]> : tensor<4xf32>
  func.return
}
