// tests/mpi/test_failures.py: partition 2 takes a branch holding an op the interpreter has no
// implementation of (NotSupportedError when the branch is entered), the other partitions wait
// in an all_reduce.  mpirun -n 4.
module @unsupported attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %two = stablehlo.constant dense<2> : tensor<ui32>
      %is2 = stablehlo.compare EQ, %pid, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %idx = stablehlo.convert %is2 : (tensor<i1>) -> tensor<i32>
      %r = "stablehlo.case"(%idx) ({
        %s = "stablehlo.all_reduce"(%b) ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %z = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %z : tensor<f32>
        }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %s : tensor<1xf32>
      }, {
        %shape = shape.shape_of %b : tensor<1xf32> -> tensor<1xindex>
        stablehlo.return %b : tensor<1xf32>
      }) : (tensor<i32>) -> tensor<1xf32>
      sdy.return %r : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
