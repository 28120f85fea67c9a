// tests/mpi/test_failures.py: partition 5 runs a custom call nobody knows (after a short loop,
// so every rank is well inside the run), partition 2 is busy in a loop of small ops that would
// take minutes (the interpreter looks at the stop only in a collective's wait: the Abort fallback
// ends it), the other partitions wait in an all_reduce.  mpirun -n 8.
module @busy attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=8]>
  func.func public @main(%a: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %two = stablehlo.constant dense<2> : tensor<ui32>
      %five = stablehlo.constant dense<5> : tensor<ui32>
      %is2 = stablehlo.compare EQ, %pid, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %is5 = stablehlo.compare EQ, %pid, %five : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %k2 = stablehlo.convert %is2 : (tensor<i1>) -> tensor<i32>
      %k5 = stablehlo.convert %is5 : (tensor<i1>) -> tensor<i32>
      %k55 = stablehlo.add %k5, %k5 : tensor<i32>
      %idx = stablehlo.add %k55, %k2 : tensor<i32>
      %r = "stablehlo.case"(%idx) ({
        %s = func.call @sum(%b) : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %s : tensor<1xf32>
      }, {
        %long = stablehlo.constant dense<8000000> : tensor<i64>
        %x = func.call @spin(%b, %long) : (tensor<1xf32>, tensor<i64>) -> tensor<1xf32>
        %s = func.call @sum(%x) : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %s : tensor<1xf32>
      }, {
        %short = stablehlo.constant dense<20000> : tensor<i64>
        %x = func.call @spin(%b, %short) : (tensor<1xf32>, tensor<i64>) -> tensor<1xf32>
        %u = stablehlo.custom_call @no_such_target(%x) : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %u : tensor<1xf32>
      }) : (tensor<i32>) -> tensor<1xf32>
      sdy.return %r : tensor<1xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @sum(%x: tensor<1xf32>) -> tensor<1xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %z = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %z : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xf32>) -> tensor<1xf32>
    return %s : tensor<1xf32>
  }
  // %n iterations of two small ops on %x (x -> x / 2 + 1/2: stays finite)
  func.func private @spin(%x: tensor<1xf32>, %n: tensor<i64>) -> tensor<1xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %half = stablehlo.constant dense<0.5> : tensor<1xf32>
    %r:2 = stablehlo.while(%i = %zero, %y = %x) : tensor<i64>, tensor<1xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i64>
      %y1 = stablehlo.multiply %y, %half : tensor<1xf32>
      %y2 = stablehlo.add %y1, %half : tensor<1xf32>
      stablehlo.return %i1, %y2 : tensor<i64>, tensor<1xf32>
    }
    return %r#1 : tensor<1xf32>
  }
}
