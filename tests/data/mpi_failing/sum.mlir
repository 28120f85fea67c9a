// tests/mpi/test_failures.py: the sum over all partitions of each one's tile of @main's argument
// (given as --args=@x.npy); the tests make that file missing for every rank, or for one rank.
// mpirun -n 4.
module @sum attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]>
  func.func public @main(%a: tensor<8xf32>) -> tensor<2xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"i"} (%b: tensor<2xf32>) {
      %s = "stablehlo.all_reduce"(%b) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %z = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %z : tensor<f32>
      }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %s : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
