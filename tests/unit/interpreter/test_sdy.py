"""Shardy's ops in the interpreter (interpreter/impls/sdy.py): the annotations pass values through, and
`sdy.manual_computation` (JAX's shard_map) runs its body once per device of the mesh on the part of
each operand the device's mesh coordinates select, its collectives meeting across the partitions,
and places the results as the out-shardings say.  `interpreter.run` needs no flag for it."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import needs_spmd, run_spmd
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir import parse

ALL_REDUCE_X = """%s = "stablehlo.all_reduce"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %r = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) : (tensor<{shape}xf32>) -> tensor<{shape}xf32>"""

FULL_MANUAL = (
    """module @t attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4x6xf32>, tensor<2x6xf32>) {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x6xf32>
    %1:2 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}, {"y"}]>] manual_axes={"x", "y"} (%b: tensor<2x3xf32>) {
      """
    + ALL_REDUCE_X.replace("{shape}", "2x3")
    + """
      %pid = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %g = stablehlo.add %f, %one : tensor<f32>
      %k = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %m = stablehlo.multiply %b, %k : tensor<2x3xf32>
      sdy.return %m, %s : tensor<2x3xf32>, tensor<2x3xf32>
    } : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2x6xf32>)
    return %1#0, %1#1 : tensor<4x6xf32>, tensor<2x6xf32>
  }
}
"""
)

PARTIAL_MANUAL = (
    """module @t attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%b: tensor<2x2xf32>) {
      """
    + ALL_REDUCE_X.replace("{shape}", "2x2")
    + """
      %t = stablehlo.add %b, %s : tensor<2x2xf32>
      sdy.return %t : tensor<2x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
"""
)

REVERSED_DEVICES = """module @t attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @rev = <["i"=4], device_ids=[3, 2, 1, 0]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@rev, [{"i"}]>] out_shardings=[<@rev, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %m = stablehlo.multiply %b, %k : tensor<1xf32>
      sdy.return %m : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""

NESTED = """module @t attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<2x4xf32>) {
      %1 = sdy.manual_computation(%b) in_shardings=[<@mesh, [{}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"y"} (%c: tensor<2x2xf32>) {
        %pid = stablehlo.partition_id : tensor<ui32>
        %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
        %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
        %m = stablehlo.add %c, %k : tensor<2x2xf32>
        sdy.return %m : tensor<2x2xf32>
      } : (tensor<2x4xf32>) -> tensor<2x4xf32>
      sdy.return %1 : tensor<2x4xf32>
    } : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
"""

ANNOTATIONS = """module @t {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<2x3xi32>
    %1 = sdy.reshard %0 <@mesh, [{}, {}]> : tensor<2x3xi32>
    %2 = sdy.propagation_barrier %1 allowed_direction=NONE : tensor<2x3xi32>
    sdy.sharding_group %2 group_id=0 : tensor<2x3xi32>
    %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%b: tensor<2x3xi32>) {
      %c = stablehlo.add %b, %b : tensor<2x3xi32>
      sdy.return %c : tensor<2x3xi32>
    } : (tensor<2x3xi32>) -> tensor<2x3xi32>
    return %3 : tensor<2x3xi32>
  }
}
"""


def test_full_manual_region_with_collectives() -> None:
    module = parse(FULL_MANUAL)
    assert needs_spmd(module)
    a = np.arange(24, dtype=np.float32).reshape(4, 6) - 7
    got0, got1 = run(module, a)
    want0 = a.copy()
    for x in range(2):
        for y in range(2):
            want0[2 * x : 2 * x + 2, 3 * y : 3 * y + 3] *= 2 * x + y + 1  # device id 2x + y
    np.testing.assert_array_equal(got0, want0)
    np.testing.assert_array_equal(got1, a[0:2] + a[2:4])  # psum over "x"


def test_partial_manual_region_free_axis_holds_whole_values() -> None:
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    (got,) = run(parse(PARTIAL_MANUAL), a)
    total = a[0:2] + a[2:4]
    np.testing.assert_array_equal(got, np.concatenate([a[0:2] + total, a[2:4] + total]))


def test_mesh_device_order_is_its_device_ids() -> None:
    a = np.array([10.0, 20.0, 30.0, 40.0], np.float32)
    (got,) = run(parse(REVERSED_DEVICES), a)
    # position k of the mesh is device 3 - k, which scales its element by its partition id
    np.testing.assert_array_equal(got, a * np.array([3, 2, 1, 0], np.float32))


def test_annotations_pass_values_through_in_one_process() -> None:
    module = parse(ANNOTATIONS)
    assert not needs_spmd(module)
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    (got,) = run(module, a)
    np.testing.assert_array_equal(got, 2 * a)


def test_a_manual_region_run_as_one_process_says_how_to_run_it() -> None:
    module = parse(FULL_MANUAL)
    with pytest.raises(NotSupportedError, match="once per partition"):
        Evaluator(module).call("main", [np.zeros((4, 6), np.float32)])


def test_partition_count_must_be_the_mesh_size() -> None:
    module = parse(FULL_MANUAL)
    with pytest.raises(InterpreterError, match="the mesh has 4 devices but the program runs on 2"):
        run_spmd(module, np.zeros((4, 6), np.float32), partitions=2)


def test_nested_manual_regions() -> None:
    """An inner region manual over "y" inside one manual over "x": device 2x + y adds its id to the
    block at rows x, columns y."""
    (got,) = run(parse(NESTED), np.zeros((4, 4), np.float32))
    want = np.repeat(np.repeat(np.array([[0, 1], [2, 3]], np.float32), 2, axis=0), 2, axis=1)
    np.testing.assert_array_equal(got, want)


def test_unreduced_axes_are_not_supported() -> None:
    text = FULL_MANUAL.replace(
        'out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}, {"y"}]>]',
        'out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}, {"y"}], unreduced={"x"}>]',
    )
    with pytest.raises(NotSupportedError, match=r'out_shardings #1 has unreduced axes \("x"\)'):
        run(parse(text), np.zeros((4, 6), np.float32))
