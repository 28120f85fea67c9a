"""JAX's collectives written as custom calls (interpreter/custom_calls/collectives.py), without JAX:
`ragged_all_to_all` (programs in the form jax 0.12 exports: a shard_map region with the custom
call, api_version 4 and a dictionary backend_config) against JAX's own expected results and a numpy
model of XLA's semantics (tests/unit/collectives_model.py); the async collectives
(`@"all-gather-start"` ... `@"...-done"`, as jax 0.12 writes them) against the StableHLO
collectives run on the same processes; and the errors for malformed calls."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import run_spmd

from stablehlo_py.errors import InterpreterError
from tests.unit.collectives_model import ragged_all_to_all_model, ragged_case


def _tensor(shape: tuple[int, ...], dtype: str) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}x{dtype}>" if shape else f"tensor<{dtype}>"


def ragged_program(
    devices: int,
    rows_in: int,
    rows_out: int,
    entries: int,
    groups: list[list[int]],
    row: tuple[int, ...] = (),
    dtype: str = "f32",
    index: str = "i32",
    config: str | None = None,
) -> str:
    """A shard_map over `devices` devices calling ragged_all_to_all on each device's slice, as
    jax.export writes it (the per-device operands are the global arrays' rows)."""
    data_in, data_out = (rows_in, *row), (rows_out, *row)
    flat = [_tensor(data_in, dtype), _tensor(data_out, dtype)] + [_tensor((entries,), index)] * 4
    inner = [_tensor((1, *data_in), dtype), _tensor((1, *data_out), dtype)]
    inner += [_tensor((1, entries), index)] * 4
    outer = [_tensor((devices, *data_in), dtype), _tensor((devices, *data_out), dtype)]
    outer += [_tensor((devices, entries), index)] * 4
    spec = "<@mesh, [" + ", ".join(['{"i"}'] + ["{}"] * (1 + len(row))) + "]>"
    meta_spec = '<@mesh, [{"i"}, {}]>'
    in_shardings = ", ".join([spec, spec] + [meta_spec] * 4)
    rows = ", ".join("[" + ", ".join(str(d) for d in g) + "]" for g in groups)
    if config is None:
        config = (
            f"{{channel_id = 1 : i64, replica_groups = dense<[{rows}]> : "
            f"tensor<{len(groups)}x{len(groups[0])}xi64>}}"
        )
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(outer))
    block = ", ".join(f"%b{i}: {t}" for i, t in enumerate(inner))
    reshapes = "\n".join(
        f"      %r{i} = stablehlo.reshape %b{i} : ({inner[i]}) -> {flat[i]}" for i in range(6)
    )
    dims = ", ".join(str(d) for d in range(1, 2 + len(row)))
    return f"""
module @ragged attributes {{mhlo.num_partitions = {devices} : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["i"={devices}]>
  func.func public @main({params}) -> {outer[1]} {{
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) in_shardings=[{in_shardings}] out_shardings=[{spec}] manual_axes={{"i"}} ({block}) {{
{reshapes}
      %7 = stablehlo.custom_call @ragged_all_to_all(%r0, %r1, %r2, %r3, %r4, %r5) {{api_version = 4 : i32, backend_config = {config}}} : ({", ".join(flat)}) -> {flat[1]}
      %8 = stablehlo.broadcast_in_dim %7, dims = [{dims}] : ({flat[1]}) -> {inner[1]}
      sdy.return %8 : {inner[1]}
    }} : ({", ".join(outer)}) -> {outer[1]}
    return %0 : {outer[1]}
  }}
}}"""


def _i32(x: list[list[int]]) -> np.ndarray:
    return np.array(x, np.int32)


# JAX's tests of ragged_all_to_all on GPU/TPU (jax-ml/jax tests/ragged_collective_test.py):
# (groups, operand, output, input_offsets, send_sizes, output_offsets, recv_sizes) -> results
JAX_CASES = {
    "two_devices": (
        [[0, 1]],
        [[1, 2, 2], [3, 4, 0]],
        [[0, 0, 0, 0]] * 2,
        [[0, 1], [0, 1]],
        [[1, 2], [1, 1]],
        [[0, 0], [1, 2]],
        [[1, 1], [2, 1]],
        [[1, 3, 0, 0], [2, 2, 4, 0]],
    ),
    "axis_index_groups": (
        [[0, 1], [2, 3]],
        [[1, 2, 2], [3, 4, 0], [10, 20, 20], [30, 40, 0]],
        [[0, 0, 0, 0]] * 4,
        [[0, 1]] * 4,
        [[1, 2], [1, 1]] * 2,
        [[0, 0], [1, 2]] * 2,
        [[1, 1], [2, 1]] * 2,
        [[1, 3, 0, 0], [2, 2, 4, 0], [10, 30, 0, 0], [20, 20, 40, 0]],
    ),
    "degenerate_groups": (
        [[0], [1]],
        [[1, 0, 0, 0], [2, 3, 4, 0]],
        [[0, 0, 0, 0]] * 2,
        [[0], [0]],
        [[1], [3]],
        [[2], [1]],
        [[1], [3]],
        [[0, 0, 1, 0], [0, 2, 3, 4]],
    ),
}


@pytest.mark.parametrize("name", sorted(JAX_CASES))
def test_ragged_all_to_all_gives_jaxs_expected_results(name: str) -> None:
    groups, operand, output, *meta, want = JAX_CASES[name]
    devices, rows_in = np.shape(operand)
    program = ragged_program(devices, rows_in, np.shape(output)[1], np.shape(meta[0])[1], groups)
    args = [np.array(operand, np.int32), np.array(output, np.int32), *map(_i32, meta)]
    program = program.replace("xf32", "xi32")
    (got,) = run_spmd(program, *args)
    np.testing.assert_array_equal(got, np.array(want, np.int32))
    # the model agrees with JAX's expectations too
    np.testing.assert_array_equal(ragged_all_to_all_model(groups, *args[:5]), want)


MODEL_CASES = [
    # (groups, updates per peer, row shape, element type, numpy type, offsets type)
    ([[0, 1, 2, 3]], 1, (), "f32", np.float32, "i32"),
    ([[0, 1, 2, 3]], 3, (2,), "f32", np.float32, "i64"),
    ([[0, 2], [1, 3]], 2, (2, 3), "i32", np.int32, "i32"),
    ([[3, 1, 0, 2]], 2, (), "f64", np.float64, "i64"),  # group order, not device order
]


@pytest.mark.parametrize("case", range(len(MODEL_CASES)))
def test_ragged_all_to_all_matches_the_model_of_xlas_semantics(case: int) -> None:
    groups, k, row, dtype, np_dtype, index = MODEL_CASES[case]
    rng = np.random.default_rng(case)
    index_type = np.int64 if index == "i64" else np.int32
    data = ragged_case(rng, groups, k, row, np_dtype, index_type)
    devices = sum(len(g) for g in groups)
    program = ragged_program(
        devices, data.operands.shape[1], data.outputs.shape[1], data.input_offsets.shape[1],
        groups, row, dtype, index,
    )
    (got,) = run_spmd(program, *data.args())
    want = ragged_all_to_all_model(groups, *data.args()[:5])
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(want, data.outputs)  # something was sent


def test_ragged_all_to_all_across_replicas_without_a_channel() -> None:
    # jax.pmap writes no channel_id: the groups name replicas (run_parallel, 2 replicas)
    body = """
func.func @p(%x: tensor<3xi32>, %o: tensor<4xi32>, %io: tensor<2xi32>, %ss: tensor<2xi32>, %oo: tensor<2xi32>, %rs: tensor<2xi32>) -> tensor<4xi32> {
  %r = stablehlo.custom_call @ragged_all_to_all(%x, %o, %io, %ss, %oo, %rs) {api_version = 4 : i32, backend_config = {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xi32>, tensor<4xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @main() -> (tensor<4xi32>, tensor<4xi32>) {
  %x0 = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi32>
  %x1 = stablehlo.constant dense<[3, 4, 0]> : tensor<3xi32>
  %o = stablehlo.constant dense<[-1, -1, -1, -1]> : tensor<4xi32>
  %io = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %ss0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %ss1 = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
  %oo0 = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %oo1 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %rs0 = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
  %rs1 = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"(%x0, %o, %io, %ss0, %oo0, %rs0, %x1, %o, %io, %ss1, %oo1, %rs1) {programs = [[@p], [@p]]} : (tensor<3xi32>, tensor<4xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<3xi32>, tensor<4xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xi32>
}"""
    got = run(body)
    np.testing.assert_array_equal(got[0], [1, 3, -1, -1])
    np.testing.assert_array_equal(got[1], [2, 2, 4, -1])


def _two_device_args(**changes: list[list[int]]) -> list[np.ndarray]:
    _, operand, output, io, ss, oo, rs, _ = JAX_CASES["two_devices"]
    meta = {"io": io, "ss": ss, "oo": oo, "rs": rs, **changes}
    return [
        np.array(operand, np.float32),
        np.array(output, np.float32),
        *(_i32(meta[k]) for k in ("io", "ss", "oo", "rs")),
    ]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"rs": [[1, 1], [1, 1]]}, "whose recv_sizes say [1]"),
        ({"io": [[0, 2], [0, 1]]}, "reaches outside the 3 rows of operand"),
        ({"oo": [[0, 3], [1, 2]]}, "reaches outside the 4 rows of output"),
        ({"ss": [[1, -2], [1, 1]]}, "reaches outside"),
    ],
)
def test_ragged_all_to_all_refuses_inconsistent_metadata(changes, words: str) -> None:
    program = ragged_program(2, 3, 4, 2, [[0, 1]])
    with pytest.raises(InterpreterError) as e:
        run_spmd(program, *_two_device_args(**changes))
    assert "custom_call @ragged_all_to_all" in str(e.value) and words in str(e.value)


def test_ragged_all_to_all_refuses_metadata_not_dividing_into_the_group() -> None:
    program = ragged_program(2, 3, 4, 3, [[0, 1]])
    args = _two_device_args()
    args[2:] = [np.zeros((2, 3), np.int32)] * 4
    with pytest.raises(InterpreterError, match="3 entries, not a multiple of the 2 processes"):
        run_spmd(program, *args)


def test_ragged_all_to_all_refuses_metadata_of_other_shapes_or_types() -> None:
    text = """
func.func @main(%x: tensor<3xf32>, %o: tensor<4xf32>, %m: tensor<1x2xi32>, %f: tensor<2xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @ragged_all_to_all(%x, %o, %m, %m, %m, %m) {api_version = 4 : i32, backend_config = {replica_groups = dense<[[0]]> : tensor<1x1xi64>}} : (tensor<3xf32>, tensor<4xf32>, tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    args = [np.ones(3, np.float32), np.zeros(4, np.float32)]
    args += [np.zeros((1, 2), np.int32), np.ones(2, np.float32)]
    with pytest.raises(InterpreterError, match="must be 1-d integer tensors of one shape"):
        run(text, *args)
    floats = text.replace("%m, %m, %m, %m)", "%f, %f, %f, %f)").replace("tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x2xi32>)", "tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)")
    with pytest.raises(InterpreterError, match="must be 1-d integer tensors"):
        run(floats, *args)
    rows = text.replace("%x: tensor<3xf32>", "%x: tensor<3x2xf32>").replace(
        "(tensor<3xf32>, tensor<4xf32>, tensor<1x2", "(tensor<3x2xf32>, tensor<4xf32>, tensor<1x2"
    )
    args[0] = np.ones((3, 2), np.float32)
    with pytest.raises(InterpreterError, match="the same shape after dimension 0"):
        run(rows, *args)


def test_ragged_all_to_all_needs_an_integer_channel() -> None:
    config = '{channel_id = "one", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}'
    program = ragged_program(2, 3, 4, 2, [[0, 1]], config=config)
    with pytest.raises(InterpreterError, match="backend_config needs an integer 'channel_id'"):
        run_spmd(program, *_two_device_args())


def test_ragged_all_to_all_needs_its_dictionary_config() -> None:
    # (a string backend_config with api_version 4 is already refused by the verifier)
    program = ragged_program(2, 3, 4, 2, [[0, 1]], config="{channel_id = 1 : i64}")
    with pytest.raises(InterpreterError, match=r"backend_config = \{replica_groups"):
        run_spmd(program, *_two_device_args())


# ------------------------------------------------------------------------ async collectives


def _async_program(sync: str, start: str, result: str, reducer: bool = False) -> str:
    """A 4-device shard_map over 8x4 rows computing one collective twice: as the StableHLO op
    (`sync`) and as jax 0.12's start/done custom calls (`start`, whose result type is `result`)."""
    calls = ", called_computations = [@add_float32_reducer]" if reducer else ""
    done = start.split('"')[0]
    body = f"""
      %s = {sync}
      %f = stablehlo.custom_call @"{done}-start"(%u) {{mhlo.frontend_attributes = {{async_collective_config = "{start.split('"', 1)[1]}"}}{calls}}} : (tensor<2x4xf32>) -> {result}
      %d = stablehlo.custom_call @"{done}-done"(%f) : ({result}) -> {result}"""
    return f"""
module @m attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["i"=4]>
  func.func public @main(%x: tensor<8x4xf32>) -> ({result.replace("tensor<", "tensor<4x")}, {result.replace("tensor<", "tensor<4x")}) {{
    %0:2 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{{"i"}}, {{}}]>] out_shardings=[<@mesh, [{{"i"}}, {{}}, {{}}]>, <@mesh, [{{"i"}}, {{}}, {{}}]>] manual_axes={{"i"}} (%u: tensor<2x4xf32>) {{{body}
      %a = stablehlo.broadcast_in_dim %s, dims = [1, 2] : ({result}) -> {result.replace("tensor<", "tensor<1x")}
      %b = stablehlo.broadcast_in_dim %d, dims = [1, 2] : ({result}) -> {result.replace("tensor<", "tensor<1x")}
      sdy.return %a, %b : {result.replace("tensor<", "tensor<1x")}, {result.replace("tensor<", "tensor<1x")}
    }} : (tensor<8x4xf32>) -> ({result.replace("tensor<", "tensor<4x")}, {result.replace("tensor<", "tensor<4x")})
    return %0#0, %0#1 : {result.replace("tensor<", "tensor<4x")}, {result.replace("tensor<", "tensor<4x")}
  }}
  func.func private @add_float32_reducer(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {{
    %0 = stablehlo.add %a, %b : tensor<f32>
    return %0 : tensor<f32>
  }}
}}"""


_CHANNEL = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
_ADD = """({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %t = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %t : tensor<f32>
      })"""
# (the StableHLO op, the start's name and JSON config as jax 0.12 writes them, the result type)
ASYNC_CASES = {
    "all-gather": (
        f'"stablehlo.all_gather"(%u) {{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, {_CHANNEL}, use_global_device_ids}} : (tensor<2x4xf32>) -> tensor<8x4xf32>',
        'all-gather"{\\22all_gather_dimension\\22: 0, \\22replica_groups\\22: [[0, 1, 2, 3]], \\22use_global_device_ids\\22: true, \\22channel_id\\22: 1}',
        "tensor<8x4xf32>",
    ),
    "all-reduce": (
        f'"stablehlo.all_reduce"(%u) {_ADD} {{replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, {_CHANNEL}, use_global_device_ids}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        'all-reduce"{\\22replica_groups\\22: [[0, 2], [1, 3]], \\22use_global_device_ids\\22: true, \\22channel_id\\22: 1}',
        "tensor<2x4xf32>",
    ),
    "reduce-scatter": (
        f'"stablehlo.reduce_scatter"(%u) {_ADD} {{scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, {_CHANNEL}, use_global_device_ids}} : (tensor<2x4xf32>) -> tensor<2x1xf32>',
        'reduce-scatter"{\\22scatter_dimension\\22: 1, \\22replica_groups\\22: [[0, 1, 2, 3]], \\22tiled\\22: true, \\22use_global_device_ids\\22: true, \\22channel_id\\22: 1}',
        "tensor<2x1xf32>",
    ),
    "all-to-all": (
        f'"stablehlo.all_to_all"(%u) {{split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, {_CHANNEL}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        'all-to-all"{\\22split_dimension\\22: 1, \\22concat_dimension\\22: 1, \\22split_count\\22: 4, \\22replica_groups\\22: [[0, 1, 2, 3]], \\22channel_id\\22: 1}',
        "tensor<2x4xf32>",
    ),
    "collective-permute": (
        f'"stablehlo.collective_permute"(%u) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>, {_CHANNEL}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        'collective-permute"{\\22permutation\\22: [[0, 1], [1, 2], [2, 3], [3, 0]], \\22channel_id\\22: 1}',
        "tensor<2x4xf32>",
    ),
}
X = np.arange(32, dtype=np.float32).reshape(8, 4) * 1.5 - 7


@pytest.mark.parametrize("name", sorted(ASYNC_CASES))
def test_async_collective_equals_the_stablehlo_collective(name: str) -> None:
    sync, start, result = ASYNC_CASES[name]
    program = _async_program(sync, start, result, reducer="reduce" in name)
    op_result, async_result = run_spmd(program, X)
    np.testing.assert_array_equal(async_result, op_result)
    # it did something: no device's result is its own shard
    assert not any(np.array_equal(op_result[i], X[2 * i : 2 * i + 2]) for i in range(4))


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (None, "needs mhlo.frontend_attributes = {async_collective_config"),
        ("{not json", "async_collective_config is not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{\\22replica_groups\\22: [[0, 1, 2, 3]], \\22channel_id\\22: 1}', "needs an integer 'all_gather_dimension'"),
        ('{\\22all_gather_dimension\\22: 0, \\22replica_groups\\22: 7, \\22channel_id\\22: 1}', "'replica_groups' must be a list of lists"),
        ('{\\22all_gather_dimension\\22: 0, \\22replica_groups\\22: [[0, 1, 2, 3]], \\22channel_id\\22: \\22one\\22}', "needs an integer 'channel_id'"),
    ],
)
def test_async_start_with_a_bad_config_is_a_clear_error(config: str | None, words: str) -> None:
    sync, start, result = ASYNC_CASES["all-gather"]
    program = _async_program(sync, start, result)
    text = 'all-gather"' + start.split('"', 1)[1]
    if config is None:
        attribute = f'{{async_collective_config = "{start.split(chr(34), 1)[1]}"}}'
        program = program.replace("{mhlo.frontend_attributes = " + attribute + "}", "")
    else:
        program = program.replace(text.split('"', 1)[1], config)
    with pytest.raises(InterpreterError) as e:
        run_spmd(program, X)
    assert 'custom_call @all-gather-start' in str(e.value) and words in str(e.value)


@pytest.mark.parametrize(
    ("name", "old", "new", "words"),
    [
        ("all-gather", "\\22all_gather_dimension\\22: 0", "\\22all_gather_dimension\\22: 2", "all_gather_dimension = 2 is not a dimension"),
        ("all-to-all", "\\22split_count\\22: 4", "\\22split_count\\22: 2", "split_count = 2 must equal the size of the process group"),
        ("all-to-all", "\\22concat_dimension\\22: 1", "\\22concat_dimension\\22: -1", "concat_dimension = -1 is not a dimension"),
        ("reduce-scatter", "\\22scatter_dimension\\22: 1", "\\22scatter_dimension\\22: 0", "scatter_dimension = 0 of the operand of shape [2, 4] does not split into 4"),
    ],
)
def test_async_start_with_impossible_dimensions_is_a_clear_error(
    name: str, old: str, new: str, words: str
) -> None:
    # (the StableHLO ops' verifiers check these; the custom calls are checked when they run)
    sync, start, result = ASYNC_CASES[name]
    program = _async_program(sync, start.replace(old, new), result, reducer="reduce" in name)
    with pytest.raises(InterpreterError) as e:
        run_spmd(program, X)
    assert f"custom_call @{name}-start" in str(e.value) and words in str(e.value)


def test_async_start_checks_its_value_against_its_result_type() -> None:
    sync, start, result = ASYNC_CASES["all-gather"]
    program = _async_program(sync, start, result)
    program = program.replace(
        '(tensor<2x4xf32>) -> tensor<8x4xf32>\n      %d = stablehlo.custom_call @"all-gather-done"(%f) : (tensor<8x4xf32>)',
        '(tensor<2x4xf32>) -> tensor<2x4xf32>\n      %d = stablehlo.custom_call @"all-gather-done"(%f) : (tensor<2x4xf32>)',
    )
    assert "-> tensor<2x4xf32>\n      %d" in program
    with pytest.raises(InterpreterError, match=r"gives a value of shape \[8, 4\], the result type"):
        run_spmd(program, X)


def test_collective_permute_start_needs_pairs() -> None:
    sync, start, result = ASYNC_CASES["collective-permute"]
    bad = start.replace("[[0, 1], [1, 2], [2, 3], [3, 0]]", "[[0, 1, 2], [2, 3, 0]]")
    with pytest.raises(InterpreterError, match="source_target_pairs must be pairs"):
        run_spmd(_async_program(sync, bad, result), X)


def test_async_done_passes_its_future_through_and_checks_its_arity() -> None:
    text = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @"all-reduce-done"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"""
    x = np.array([1.0, -2.0, 3.5], np.float32)
    (got,) = run(text, x)
    np.testing.assert_array_equal(got, x)
    bad = text.replace('(%x) : (tensor<3xf32>)', '(%x, %x) : (tensor<3xf32>, tensor<3xf32>)')
    with pytest.raises(InterpreterError, match='future of @all-reduce-start'):
        run(bad, x)
