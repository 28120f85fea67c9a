// A 2-layer MLP classifier with softmax, run by `stablehlo-translate --interpret`.
// The expected probabilities were computed with numpy; check.expect_almost_eq_const verifies them.
func.func @main() -> tensor<2x3xf32> {
  %x = stablehlo.constant dense<[[0.00123015337, 0.298745543, -0.274137855, -0.89059186], [-0.454670787, -0.991646528, 6.014360e-02, 1.34021521]]> : tensor<2x4xf32>
  %w1 = stablehlo.constant dense<[[-0.246103257, -0.310237437, 0.244921029, 0.178443506, 0.0527071245, -4.652340e-01, -0.0146259116, 0.347651601], [-0.672107279, -0.228807881, -0.950611352, -0.644768893, -0.920867502, -0.117545567, -0.633723259, 0.135632172], [0.0783755406, -0.0934654697, -1.25837982, -0.269346446, -0.024250472, 0.0566544943, -0.765067875, -0.238876641], [-0.489259541, -0.404418617, 0.530449331, -0.403767347, -0.016260853, 0.442194939, -0.291800231, -0.0558509752]]> : tensor<4x8xf32>
  %b1 = stablehlo.constant dense<[0.0110464143, 0.00637817755, -0.122505583, 0.00761402305, 0.135882348, -0.154714465, 0.0859382674, 0.0119354026]> : tensor<8xf32>
  %w2 = stablehlo.constant dense<[[-0.320735186, 1.00020826, 0.381129861], [-0.599644423, 0.0372581147, 0.2883448], [-0.0943910629, 0.341455132, -0.0332586616], [0.333623767, 0.719261289, -0.33783114], [0.101569302, -0.231653795, 0.0636342093], [-0.593597293, -0.289650798, -0.0980979874], [0.449381948, 5.726110e-01, -0.661763906], [-0.397321194, 0.323451698, -0.996209919]]> : tensor<8x3xf32>
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x8xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<2x8xf32>
  %4 = stablehlo.dot_general %3, %w2, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %5 = stablehlo.reduce(%4 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %7 = stablehlo.subtract %4, %6 : tensor<2x3xf32>
  %8 = stablehlo.exponential %7 : tensor<2x3xf32>
  %fzero = stablehlo.constant dense<0.0> : tensor<f32>
  %9 = stablehlo.reduce(%8 init: %fzero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %11 = stablehlo.divide %8, %10 : tensor<2x3xf32>
  check.expect_almost_eq_const %11, dense<[[2.536710e-01, 0.544773757, 0.201555282], [0.235245019, 0.47703582, 0.28771919]]> : tensor<2x3xf32>
  return %11 : tensor<2x3xf32>
}
