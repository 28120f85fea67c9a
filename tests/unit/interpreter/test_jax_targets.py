"""JAX's non-numeric custom calls (custom_calls/jax_targets.py) and XLA's HloSharding text
(custom_calls/sharding.py), without JAX: hand-written programs in JAX's GSPMD lowering form."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.sharding import assemble, parse_sharding, shard_of
from stablehlo_py.interpreter.custom_calls.spmd import needs_spmd, run_spmd

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir import parse

# ----------------------------------------------------------------------------- HloSharding


def test_iota_tile_assignment_with_transpose() -> None:
    s = parse_sharding("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}")
    assert s.tile_shape == (1, 2) and s.subgroup_types == ("replicated",)
    # iota [[0,1],[2,3]] transposed -> [[0,2],[1,3]]: devices 0 and 2 hold column tile 0
    assert s.tile_index(0) == (0, 0) and s.tile_index(2) == (0, 0)
    assert s.tile_index(1) == (0, 1) and s.tile_index(3) == (0, 1)


def test_explicit_device_list_and_kinds() -> None:
    s = parse_sharding('{devices=[2,2]3,2,1,0 metadata={op_name="x"}}')
    assert s.tile_index(3) == (0, 0) and s.tile_index(0) == (1, 1)
    assert parse_sharding("{replicated}").kind == "replicated"
    assert parse_sharding("{manual}").is_manual
    assert parse_sharding("{maximal device=2}").device == 2
    partial = parse_sharding("{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}")
    assert partial.is_manual and partial.tile_shape == (1, 1)


@pytest.mark.parametrize(
    "text",
    ["{devices=[2,2]0,1,2}", "devices=[2]0,1", "{{replicated}, {manual}}", "{devices=[2]<=[4]x}"],
)
def test_bad_or_unsupported_sharding_is_a_clear_error(text: str) -> None:
    with pytest.raises((InterpreterError, NotSupportedError), match="mhlo.sharding"):
        parse_sharding(text)


def test_shards_reassemble_the_global_value() -> None:
    x = np.arange(40).reshape(5, 8)
    s = parse_sharding("{devices=[2,2]<=[4]}")
    shards = {d: shard_of(s, x, d) for d in range(4)}
    assert shards[0].shape == (3, 4)  # uneven: rounded up, zero padded
    np.testing.assert_array_equal(shards[1], x[0:3, 4:8])
    np.testing.assert_array_equal(assemble(s, shards, x.shape), x)


# ----------------------------------------------------------------------------- targets

IDENTITY = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1:2 = stablehlo.custom_call @annotate_device_placement(%0, %x) {has_side_effect = true,
      mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %1#0, %1#1 : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def test_sharding_and_placement_are_identities() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b = run(IDENTITY, x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x)


@pytest.mark.parametrize("target", ["xla_ffi_python_cpu_callback", "xla_python_cpu_callback"])
def test_host_callback_is_refused(target: str) -> None:
    text = f"""
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = stablehlo.custom_call @{target}(%x) {{backend_config = {{callback = 94000000 : ui64}},
      api_version = 4 : i32, has_side_effect = true}} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}}
"""
    with pytest.raises(NotSupportedError) as e:
        run(text, np.ones(3, np.float32))
    assert "host callback" in str(e.value) and "not part of the program" in str(e.value)


# A shard_map region over 2 devices, as JAX's GSPMD lowering writes it: each device adds its
# partition's rows to the sum of all rows (an all_reduce over both devices).
REGION = """
module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<2x2xf32>
    %2 = call @body(%1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x2xf32>) -> tensor<4x2xf32>
    return %4 : tensor<4x2xf32>
  }
  func.func private @body(%u: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %s = "stablehlo.all_reduce"(%u) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %r = stablehlo.add %u, %s : tensor<2x2xf32>
    return %r : tensor<2x2xf32>
  }
}
"""


def test_shard_map_region_runs_per_partition() -> None:
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    assert needs_spmd(parse(REGION))
    (out,) = run_spmd(REGION, x)
    total = x[:2] + x[2:]
    np.testing.assert_array_equal(out, np.concatenate([x[:2] + total, x[2:] + total]))


def test_region_in_one_process_is_not_supported() -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator

    module = parse(REGION)
    with pytest.raises(NotSupportedError, match="run_spmd"):
        Evaluator(module).call("main", [np.zeros((4, 2), np.float32)])


def test_run_switches_to_one_run_per_partition() -> None:
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    got = run(REGION, x)
    want = run_spmd(REGION, x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_full_to_shard_needs_the_sharding_before_it() -> None:
    text = REGION.replace("@SPMDFullToShardShape(%0)", "@SPMDFullToShardShape(%x)")
    with pytest.raises(InterpreterError, match="must be the result of custom_call @Sharding"):
        run_spmd(text, np.zeros((4, 2), np.float32))


def test_full_to_shard_checks_the_shard_shape() -> None:
    text = REGION.replace(
        '"{devices=[2,1]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>\n    %1',
        '"{devices=[1,2]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>\n    %1',
        1,
    )
    with pytest.raises(
        InterpreterError, match=r"the shard of a \[4, 2\] value under its sharding is \[4, 1\]"
    ):
        run_spmd(text, np.zeros((4, 2), np.float32))
