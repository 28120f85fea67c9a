"""JAX's platform-independent, non-kernel custom calls (custom_calls/jax_targets.py: LayoutConstraint,
Pin/Unpin, AllocateBuffer/CreateBuffer, xla.sdy.FuncResultSharding, fused, CustomSPMDPartitioning and
the refusals) and `stablehlo.dynamic_approx_top_k` (impls/experimental.py), without JAX: hand-written
programs in the forms JAX writes (the forms are cited in those modules' docstrings)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls import jax_targets
from stablehlo_py.interpreter.custom_calls.jax_targets import split_shape_operands
from stablehlo_py.interpreter.custom_calls.registry import PLATFORMS, REGISTRY

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir import parse

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5

# ------------------------------------------------------------------------------ pass-throughs


def test_layout_constraint_is_the_value() -> None:
    text = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.custom_call @LayoutConstraint(%x) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
      result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.add %0, %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
"""
    (got,) = run(text, X)
    np.testing.assert_array_equal(got, X + X)


def test_layout_constraint_drops_its_result_shape_operand() -> None:
    # JAX's form for a dynamic result: the result shape follows the operand (mlir.py:3335-3346)
    text = """
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0 = stablehlo.custom_call @LayoutConstraint(%x, %s) {indices_of_shape_operands = dense<1> : tensor<1xi64>,
      operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>],
      result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""
    (got,) = run(parse(text), X)
    np.testing.assert_array_equal(got, X)


def test_pin_and_unpin_pass_the_value_through_a_memref() -> None:
    text = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.custom_call @Pin(%x) {api_version = 2 : i32} : (tensor<2x3xf32>) -> memref<2x3xf32>
  %1 = stablehlo.custom_call @Unpin(%0) {api_version = 2 : i32} : (memref<2x3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.negate %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
"""
    (got,) = run(text, X)
    np.testing.assert_array_equal(got, -X)


def test_shardy_round_trip_result_sharding_is_the_value() -> None:
    # the 2025 form of jax's annotate_data_placement test data
    text = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.custom_call @xla.sdy.FuncResultSharding(%x) {has_side_effect = true,
      mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@mesh, [{}, {}]>]>"}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
    (got,) = run(text, X)
    np.testing.assert_array_equal(got, X)


def test_pass_through_needs_one_result_per_operand() -> None:
    text = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @LayoutConstraint(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""
    with pytest.raises(InterpreterError, match="as many results as operands"):
        run(text, np.ones(3, np.float32))


def test_shape_operand_index_out_of_range_is_a_clear_error() -> None:
    with pytest.raises(InterpreterError, match="indices_of_shape_operands"):
        split_shape_operands([np.ones(2)], np.array([3]))
    ops, shapes = split_shape_operands([1, 2, 3], np.array([2, 0]))
    assert ops == [2] and shapes == [3, 1]


# ------------------------------------------------------------------------------ new buffers


@pytest.mark.parametrize("target", ["AllocateBuffer", "CreateBuffer"])
def test_new_buffer_is_zeros_of_the_result_type(target: str) -> None:
    text = f"""
func.func @main(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {{
  %0 = stablehlo.custom_call @{target}() : () -> tensor<2x3xi32>
  %1 = stablehlo.add %0, %x : tensor<2x3xi32>
  return %1 : tensor<2x3xi32>
}}
"""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    (got,) = run(text, x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, x)


def test_create_buffer_of_a_memref_type_then_unpin() -> None:
    text = """
func.func @main() -> tensor<4xf16> {
  %0 = stablehlo.custom_call @CreateBuffer() : () -> memref<4xf16>
  %1 = stablehlo.custom_call @Unpin(%0) : (memref<4xf16>) -> tensor<4xf16>
  return %1 : tensor<4xf16>
}
"""
    (got,) = run(text)
    assert got.dtype == np.float16 and got.shape == (4,)
    np.testing.assert_array_equal(got, np.zeros(4, np.float16))


def test_new_buffer_refuses_operands_and_dynamic_shapes() -> None:
    with_operand = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @AllocateBuffer(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""
    with pytest.raises(InterpreterError, match="takes no operands"):
        run(with_operand, np.ones(3, np.float32))
    dynamic = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.custom_call @AllocateBuffer() : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    with pytest.raises(InterpreterError, match="dynamic dimension"):
        run(parse(dynamic), np.ones(3, np.float32))


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("xla_buffer_python_cpu_callback", "buffer callback"),
        ("xla_buffer_python_gpu_callback", "buffer callback"),
        ("xla_buffer_python_gpu_callback_cmd_buffer", "buffer callback"),
        ("InspectSharding", "inspect_array_sharding"),
        ("tf.call_tf_function", "call_tf_graph=False"),
        ("xla_ffi_python_cpu_callback", "host callback"),
    ],
)
def test_calls_into_the_tracing_process_are_refused(target: str, words: str) -> None:
    text = f"""
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = stablehlo.custom_call @{target}(%x) {{backend_config = "7", has_side_effect = true}} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}}
"""
    with pytest.raises(NotSupportedError) as e:
        run(text, np.ones(3, np.float32))
    msg = str(e.value)
    assert f"@{target}" in msg and words in msg and "not part of the program or artifact" in msg


@pytest.mark.parametrize(
    ("target", "platforms"),
    [
        ("cusparse_coo_matvec_ffi", {"cuda"}),
        ("hipsparse_csr_matmat_ffi", {"rocm"}),
        ("cusparse_csr_todense", {"cuda"}),  # the name before jaxlib 0.5.1's FFI
        ("cpu_csr_sparse_dense_ffi", {"cpu"}),
        ("cusolver_csrlsvqr_ffi", {"cuda"}),
    ],
)
def test_experimental_sparse_kernels_are_not_supported_yet(target: str, platforms: set) -> None:
    text = f"""
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = stablehlo.custom_call @{target}(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}}
"""
    with pytest.raises(NotSupportedError) as e:
        run(text, np.ones(3, np.float32))
    msg = str(e.value)
    assert f"@{target}" in msg and "jax.experimental.sparse" in msg
    assert "does not support these kernels yet" in msg and "jax_bcoo_cusparse_lowering" in msg
    assert jax_targets.PLATFORMS[target] == frozenset(platforms)


# ------------------------------------------------------------------------------ bodies

FUSED = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @fused(%x) {called_computations = [@fused],
      mhlo.backend_config = {MUST_FUSE = true, inlineable = false, out_spaces = ["MemorySpace.Device"]}} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @fused(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<3xf32>
  %1 = stablehlo.subtract %0, %a : tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""


def test_fused_runs_its_body() -> None:
    x = np.array([1.5, -2.0, 3.0], np.float32)
    (got,) = run(FUSED, x)
    np.testing.assert_array_equal(got, x * x - x)


def test_fused_without_a_body_is_a_clear_error() -> None:
    text = FUSED.replace("called_computations = [@fused],", "")
    with pytest.raises(InterpreterError, match=r"called_computations = \[@body\]"):
        run(text, np.ones(3, np.float32))


PARTITIONED = """
func.func @main(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.custom_call @CustomSPMDPartitioning(%x) {api_version = 2 : i32, backend_config = "139700672410304"BODY} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func private @body(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.add %a, %a : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
"""


def test_custom_partitioning_as_jax_writes_it_is_refused() -> None:
    # jax's own form (custom_partitioning.py:647-656): no body, a key of a Python object
    with pytest.raises(NotSupportedError) as e:
        run(PARTITIONED.replace("BODY", ""), np.ones((4, 2), np.float32))
    msg = str(e.value)
    assert "custom_partitioning" in msg and "the body is not part of the program" in msg
    assert "one device" in msg


def test_custom_partitioning_with_a_body_runs_it() -> None:
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    (got,) = run(PARTITIONED.replace("BODY", ", called_computations = [@body]"), x)
    np.testing.assert_array_equal(got, 2 * x)


def test_called_body_must_give_one_value_per_result() -> None:
    text = FUSED.replace(
        "-> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\nfunc.func private",
        "-> (tensor<3xf32>, tensor<3xf32>)\n  return %0#0 : tensor<3xf32>\n}\nfunc.func private",
    ).replace("%0 = stablehlo.custom_call @fused", "%0:2 = stablehlo.custom_call @fused")
    with pytest.raises(InterpreterError, match="returns 1"):
        run(parse(text), np.ones(3, np.float32))


# ------------------------------------------------------------------------------ dynamic_approx_top_k

COMPARATOR = """
func.func private @cmp(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare DIR, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
"""


def _dynamic_top_k(direction: str, config: str = "aggregate_to_topk = true") -> str:
    """JAX's form (ann.py:351-358, TD stablehlo_dynamic_approx_top_k.py): k is an operand and the
    results' shapes follow as shape operands."""
    return (
        """
func.func @main(%x: tensor<3x?xf32>, %k: tensor<i32>) -> (tensor<3x?xf32>, tensor<3x?xi32>) {
  %n = stablehlo.get_dimension_size %x, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c3 = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %c3, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %iota = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi32>) -> tensor<3x?xi32>
  %k1 = stablehlo.reshape %k : (tensor<i32>) -> tensor<1xi32>
  %rs = stablehlo.concatenate %c3, %k1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m1 = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %iota, %init, %m1, %k, %rs, %rs) {
      called_computations = [@cmp], indices_of_shape_operands = dense<[5, 6]> : tensor<2xi64>,
      mhlo.backend_config = {CONFIG, is_fallback = true, recall_target = 0.949999988 : f32,
      reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64}}
      : (tensor<3x?xf32>, tensor<3x?xi32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<3x?xf32>, tensor<3x?xi32>)
  return %0#0, %0#1 : tensor<3x?xf32>, tensor<3x?xi32>
}
"""
        + COMPARATOR.replace("DIR", direction)
    ).replace("CONFIG", config)


Y = np.array([[3, 9, 1, 7, 5], [0, -2, 8, 4, 6], [2, 2.5, -1, 10, 0]], np.float32)


@pytest.mark.parametrize(("direction", "sign"), [("GT", -1), ("LT", 1)])
@pytest.mark.parametrize("k", [0, 2, 5])
def test_dynamic_approx_top_k_takes_k_from_its_operand(direction: str, sign: int, k: int) -> None:
    values, indices = run(parse(_dynamic_top_k(direction)), Y, np.int32(k))
    order = np.argsort(sign * Y, axis=1, kind="stable")[:, :k]
    assert indices.dtype == np.int32 and values.shape == (3, k)
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(Y, order, axis=1))


def test_dynamic_approx_top_k_refuses_a_k_larger_than_the_dimension() -> None:
    with pytest.raises(InterpreterError, match="k = 6 along reduction_dim = 1"):
        run(parse(_dynamic_top_k("GT")), Y, np.int32(6))


def _static_top_k(target: str, config: str, x: str, r: str, dim: int) -> str:
    """`target` called with ApproxTopK's four operands (no k operand) on a `tensor<{x}xf32>`,
    results `tensor<{r}x...>`, comparator GT."""
    return f"""
func.func @main(%x: tensor<{x}xf32>) -> (tensor<{r}xf32>, tensor<{r}xi32>) {{
  %iota = stablehlo.iota dim = {dim} : tensor<{x}xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m1 = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @{target}(%x, %iota, %init, %m1) {{called_computations = [@cmp],
      mhlo.backend_config = {{{config}}}}}
      : (tensor<{x}xf32>, tensor<{x}xi32>, tensor<f32>, tensor<i32>) -> (tensor<{r}xf32>, tensor<{r}xi32>)
  return %0#0, %0#1 : tensor<{r}xf32>, tensor<{r}xi32>
}}
""" + COMPARATOR.replace("DIR", "GT")


def test_dynamic_approx_top_k_needs_its_k_operand() -> None:
    text = _static_top_k("stablehlo.dynamic_approx_top_k", "reduction_dim = 0 : i64", "5", "2", 0)
    with pytest.raises(InterpreterError, match="operands..., init_values..., k"):
        run(text, Y[0])


def test_approx_top_k_without_aggregation_keeps_the_result_size() -> None:
    # aggregate_to_topk = false: R = 4 elements (the result type's), the exact top R
    config = (
        "aggregate_to_topk = false, is_fallback = true, recall_target = 0.95 : f32, "
        "reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64"
    )
    values, indices = run(_static_top_k("ApproxTopK", config, "3x5", "3x4", 1), Y)
    order = np.argsort(-Y, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(Y, order, axis=1))


def test_dynamic_approx_top_k_without_aggregation_reads_its_shape_operand() -> None:
    # the shape operands say 3x4 (k = 2): the exact top 4
    text = _dynamic_top_k("GT", "aggregate_to_topk = false").replace(
        "%rs = stablehlo.concatenate %c3, %k1", "%rs = stablehlo.concatenate %c3, %c4"
    ).replace(
        "%k1 = stablehlo.reshape",
        "%c4 = stablehlo.constant dense<4> : tensor<1xi32>\n  %k1 = stablehlo.reshape",
    )
    values, _ = run(parse(text), Y, np.int32(2))
    np.testing.assert_array_equal(values, -np.sort(-Y, axis=1)[:, :4])


# ------------------------------------------------------------------------------ registration


def test_new_targets_are_registered() -> None:
    for name in (
        "LayoutConstraint",
        "Pin",
        "Unpin",
        "AllocateBuffer",
        "CreateBuffer",
        "InspectSharding",
        "tf.call_tf_function",
        "xla_buffer_python_gpu_callback_cmd_buffer",
        "CustomSPMDPartitioning",
        "fused",
        "xla.sdy.FuncResultSharding",
        "xla.sdy.PropagationBarrier",
        "xla.sdy.ShardingGroup",
        "dce_sink",
        "stablehlo.dynamic_approx_top_k",
    ):
        assert REGISTRY.get(name) is not None, name


def test_platform_and_form_tables_name_known_targets() -> None:
    known = {*jax_targets.JAX_TARGETS, *jax_targets.JAX_EVALUATOR_TARGETS}
    assert set(jax_targets.PLATFORMS) <= known and set(jax_targets.FORMS) <= known
    for platforms in jax_targets.PLATFORMS.values():
        assert platforms and platforms <= set(PLATFORMS)
    assert jax_targets.PLATFORMS["AllocateBuffer"] == {"tpu", "cuda", "rocm"}
    assert jax_targets.PLATFORMS["xla_buffer_python_cpu_callback"] == {"cpu"}


def test_families_give_each_target_its_platforms_and_forms() -> None:
    # what builtins.load registers: one family per target, platforms from PLATFORMS (else any)
    families = {
        name: (platforms, forms)
        for table, platforms, forms in (*jax_targets.JAX_FAMILIES, *jax_targets.JAX_EVALUATOR_FAMILIES)
        for name in table
    }
    assert set(families) == {*jax_targets.JAX_TARGETS, *jax_targets.JAX_EVALUATOR_TARGETS}
    assert families["fused"][0] == {"cuda"} and families["LayoutConstraint"][0] == set(PLATFORMS)
    assert families["AllocateBuffer"][1] == jax_targets.FORMS["AllocateBuffer"]
    assert families["Sharding"][1] == jax_targets.FORMS["Sharding"] != ()
    assert families["tf.call_tf_function"][1] == ("refused: TensorFlow function",)
    assert families["xla_python_gpu_callback"][1] == ("refused: host callback",)
    # a refusal's platforms are its record's (jax/_src/callback.py:876-878: "gpu" for cuda/rocm)
    assert families["xla_ffi_python_gpu_callback"][0] == {"cuda", "rocm"}
    assert families["xla_ffi_partitioned_python_cpu_callback"][0] == {"cpu"}
    for name, refusal in jax_targets.REFUSALS.items():
        assert families[name][0] == refusal.platforms, name


# ------------------------------------------------------------------------------ Shardy round trip


def test_markers_without_effect_on_values() -> None:
    # dce_sink as jax writes it (lax.py:10124-10129); the Shardy markers in the forms of XLA's
    # round-trip import tests (xla/service/spmd/shardy/test)
    text = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  stablehlo.custom_call @dce_sink(%x) {has_side_effect = true, mhlo.backend_config = {},
      operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = []} : (tensor<2x3xf32>) -> ()
  stablehlo.custom_call @xla.sdy.ShardingGroup(%x) {has_side_effect = true,
      mhlo.frontend_attributes = {xla.sdy.sharding_group_id = "21 : i64"}} : (tensor<2x3xf32>) -> ()
  %0 = stablehlo.custom_call @xla.sdy.PropagationBarrier(%x) {has_side_effect = true,
      mhlo.frontend_attributes = {xla.sdy.allowed_direction = "2 : i32"}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
    (got,) = run(text, X)
    np.testing.assert_array_equal(got, X)


def test_shardy_round_trip_shard_map_is_refused_clearly() -> None:
    # jax's tpu_Sharding test data of 2025-05-28 (round-trip form), reduced to the first call
    text = """
module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\\22a\\22=2]>}"},
    mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2x4xf32>) -> tensor<1x4xf32> {
    %0 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%x) {has_side_effect = true,
        mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{\\22a\\22}, {}]>]>",
        xla.sdy.manual_axes = "#sdy<manual_axes{\\22a\\22}>"}} : (tensor<2x4xf32>) -> tensor<1x4xf32>
    return %0 : tensor<1x4xf32>
  }
}
"""
    with pytest.raises(NotSupportedError, match="round-trip form") as e:
        run(text, np.ones((2, 4), np.float32))
    assert "sdy.manual_computation" in str(e.value) and "current jax" in str(e.value)
