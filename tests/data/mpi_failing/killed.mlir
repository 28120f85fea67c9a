// tests/mpi/test_failures.py: every partition takes part in an all_reduce per iteration of a
// loop that would take minutes; the probe after the first all_reduce (written on every rank
// with --probe-output-dir) tells the test that every rank is inside the run, and the test then
// kills rank 3.  mpirun -n 4.
module @killed attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %s = func.call @mean(%b) : (tensor<1xf32>) -> tensor<1xf32>
      %started = interpreter.probe %s, probe_id = "started" : tensor<1xf32>
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %n = stablehlo.constant dense<10000000> : tensor<i64>
      %r:2 = stablehlo.while(%i = %zero, %y = %started) : tensor<i64>, tensor<1xf32>
      cond {
        %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %i1 = stablehlo.add %i, %one : tensor<i64>
        %y1 = func.call @mean(%y) : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %i1, %y1 : tensor<i64>, tensor<1xf32>
      }
      sdy.return %r#1 : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @mean(%x: tensor<1xf32>) -> tensor<1xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %z = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %z : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xf32>) -> tensor<1xf32>
    %quarter = stablehlo.constant dense<0.25> : tensor<1xf32>
    %m = stablehlo.multiply %s, %quarter : tensor<1xf32>
    return %m : tensor<1xf32>
  }
}
