// A custom call to a target the caller provides: `my.axpy` computes alpha * x + y, alpha from the
// typed-FFI backend_config (register it with stablehlo_py.interpreter.register_custom_call).
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @my.axpy(%x, %y) {api_version = 4 : i32, backend_config = {alpha = 2.0 : f32}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
