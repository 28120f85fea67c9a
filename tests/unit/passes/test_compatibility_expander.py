"""stablehlo-compatibility-expander (passes/stablehlo_compatibility_expander.py): for every expansion
a program that needs it is serialized with ``expand=True`` for the oldest target (0.9.0), read
back, and interpreted to the same results as the original; the downgrade hint; the target checks;
the CLI's --expand."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.patterns.compat_expansions import EXPANSIONS
from stablehlo_py.serialization import (
    deserialize_portable_artifact,
    get_portable_artifact_version,
    serialize_portable_artifact,
    serialize_portable_artifact_str,
)

from stablehlo_py.errors import StableHLOError, VersionError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version

OLDEST = "0.9.0"
RNG = np.random.default_rng(13)


def _ints(shape: tuple[int, ...], hi: int, dtype: str = "int32") -> np.ndarray:
    return RNG.integers(0, hi, size=shape).astype(dtype)


def _floats(shape: tuple[int, ...], dtype: str = "float32", scale: float = 1.2) -> np.ndarray:
    return RNG.uniform(-scale, scale, size=shape).astype(dtype)


def _complex(shape: tuple[int, ...], dtype: str = "complex64") -> np.ndarray:
    return (_floats(shape, "float64") + 1j * _floats(shape, "float64")).astype(dtype)


@dataclass(frozen=True)
class Case:
    name: str
    expansion: str  # the EXPANSIONS row it needs
    text: str
    args: Callable[[], list[np.ndarray]]
    rtol: float = 0.0


GATHER = """
func.func @main(%operand: tensor<3x2x4x7x9xi32>, %indices: tensor<4x3x5x2xi32>) -> tensor<4x3x5x8xi32> {
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1, 3],
      operand_batching_dims = [0, 2], start_indices_batching_dims = [1, 0], start_index_map = [1, 3],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 1, 1, 8>, indices_are_sorted = false
  } : (tensor<3x2x4x7x9xi32>, tensor<4x3x5x2xi32>) -> tensor<4x3x5x8xi32>
  return %0 : tensor<4x3x5x8xi32>
}
"""

GATHER_NO_INDEX_VECTOR_DIM = """
func.func @main(%operand: tensor<3x2x4x9xf32>, %indices: tensor<4x3x5xi64>) -> tensor<4x3x5x8xf32> {
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1],
      operand_batching_dims = [0, 2], start_indices_batching_dims = [1, 0], start_index_map = [1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 1, 8>, indices_are_sorted = false
  } : (tensor<3x2x4x9xf32>, tensor<4x3x5xi64>) -> tensor<4x3x5x8xf32>
  return %0 : tensor<4x3x5x8xf32>
}
"""

# a batching dimension of 130 does not fit i8 indices: they are converted to i32 first
GATHER_I8_PROMOTED = """
func.func @main(%operand: tensor<130x5xf32>, %indices: tensor<130x1xi8>) -> tensor<130xf32> {
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0],
      start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1>, indices_are_sorted = true
  } : (tensor<130x5xf32>, tensor<130x1xi8>) -> tensor<130xf32>
  return %0 : tensor<130xf32>
}
"""

GATHER_UI8_PROMOTED = """
func.func @main(%operand: tensor<300x6xi16>, %indices: tensor<300xui8>) -> tensor<300x2xi16> {
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [0],
      start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = false
  } : (tensor<300x6xi16>, tensor<300xui8>) -> tensor<300x2xi16>
  return %0 : tensor<300x2xi16>
}
"""

SCATTER = """
func.func @main(%input: tensor<3x2x4x7x9xf32>, %indices: tensor<4x3x5x2xi32>, %updates: tensor<4x3x5x8xf32>) -> tensor<3x2x4x7x9xf32> {
  %0 = "stablehlo.scatter"(%input, %indices, %updates) <{
    indices_are_sorted = false,
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3],
      inserted_window_dims = [1, 3], input_batching_dims = [0, 2],
      scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [1, 3],
      index_vector_dim = 3>,
    unique_indices = false
  }> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<3x2x4x7x9xf32>, tensor<4x3x5x2xi32>, tensor<4x3x5x8xf32>) -> tensor<3x2x4x7x9xf32>
  return %0 : tensor<3x2x4x7x9xf32>
}
"""

SCATTER_NO_INDEX_VECTOR_DIM = """
func.func @main(%input: tensor<3x2x4x9xi32>, %indices: tensor<4x3x5xi8>, %updates: tensor<4x3x5x8xi32>) -> tensor<3x2x4x9xi32> {
  %0 = "stablehlo.scatter"(%input, %indices, %updates) <{
    indices_are_sorted = false,
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3],
      inserted_window_dims = [1], input_batching_dims = [0, 2],
      scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [1],
      index_vector_dim = 3>,
    unique_indices = false
  }> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.maximum %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) : (tensor<3x2x4x9xi32>, tensor<4x3x5xi8>, tensor<4x3x5x8xi32>) -> tensor<3x2x4x9xi32>
  return %0 : tensor<3x2x4x9xi32>
}
"""


def _tan(t: str) -> str:
    return f"""
func.func @main(%x: tensor<{t}>) -> tensor<{t}> {{
  %0 = stablehlo.tan %x : tensor<{t}>
  %1 = stablehlo.add %0, %x : tensor<{t}>
  return %1 : tensor<{t}>
}}
"""


TAN_COMPLEX_DYNAMIC = """
func.func @main(%x: tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>> {
  %0 = stablehlo.tan %x : tensor<?xcomplex<f32>>
  return %0 : tensor<?xcomplex<f32>>
}
"""

RANGES = """
func.func @main(%x: tensor<3xf32> loc("f.py":1:5 to :9)) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32> loc("f.py":2:3 to 4:1)
  %1 = stablehlo.add %0, %x : tensor<3xf32> loc("fn"("f.py":3:7 to :8))
  return %1 : tensor<3xf32> loc(callsite("g"("f.py":5:1 to :2) at "f.py":6:1))
} loc("f.py":1:1 to 7:1)
"""

CASES = (
    Case(
        "gather",
        "batching-dims",
        GATHER,
        lambda: [_ints((3, 2, 4, 7, 9), 1000), _ints((4, 3, 5, 2), 4)],
    ),
    Case(
        "gather_no_index_vector_dim",
        "batching-dims",
        GATHER_NO_INDEX_VECTOR_DIM,
        lambda: [_floats((3, 2, 4, 9)), _ints((4, 3, 5), 2, "int64")],
    ),
    Case(
        "gather_i8_indices_promoted",
        "batching-dims",
        GATHER_I8_PROMOTED,
        lambda: [_floats((130, 5)), _ints((130, 1), 5, "int8")],
    ),
    Case(
        "gather_ui8_indices_promoted",
        "batching-dims",
        GATHER_UI8_PROMOTED,
        lambda: [_ints((300, 6), 999, "int16"), _ints((300,), 5, "uint8")],
    ),
    Case(
        "scatter",
        "batching-dims",
        SCATTER,
        lambda: [_floats((3, 2, 4, 7, 9)), _ints((4, 3, 5, 2), 7), _floats((4, 3, 5, 8))],
        rtol=1e-6,
    ),
    Case(
        "scatter_no_index_vector_dim",
        "batching-dims",
        SCATTER_NO_INDEX_VECTOR_DIM,
        lambda: [_ints((3, 2, 4, 9), 50), _ints((4, 3, 5), 2, "int8"), _ints((4, 3, 5, 8), 100)],
    ),
    Case("tan_f32", "tan", _tan("5x4xf32"), lambda: [_floats((5, 4))], rtol=1e-5),
    Case("tan_f64", "tan", _tan("6xf64"), lambda: [_floats((6,), "float64")], rtol=1e-12),
    Case("tan_c64", "tan", _tan("7xcomplex<f32>"), lambda: [_complex((7,))], rtol=1e-5),
    Case(
        "tan_c128",
        "tan",
        _tan("2x3xcomplex<f64>"),
        lambda: [_complex((2, 3), "complex128")],
        rtol=1e-12,
    ),
    Case(
        "tan_complex_dynamic",
        "tan",
        TAN_COMPLEX_DYNAMIC,
        lambda: [_complex((5,))],
        rtol=1e-5,
    ),
    Case("location_ranges", "location-ranges", RANGES, lambda: [_floats((3,))], rtol=0.0),
)


def _fresh(text: str):  # type: ignore[no-untyped-def]
    """A module parsed anew (the interpreter caches plans on ops)."""
    return parse(text, "case.mlir")


def _same(got: list[np.ndarray], want: list[np.ndarray], rtol: float) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if rtol:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_expanded_artifact_for_the_oldest_target_computes_the_same(case: Case) -> None:
    args = case.args()
    want = run(_fresh(case.text), *args)
    module = _fresh(case.text)
    with pytest.raises(VersionError) as info:  # without the expander: refused, with the hint
        serialize_portable_artifact(module, OLDEST)
    assert "stablehlo-compatibility-expander removes every one of these blockers" in str(info.value)
    assert f"--stablehlo-compatibility-expander='target={OLDEST}'" in str(info.value)
    before = print_ir(module)
    data = serialize_portable_artifact(module, OLDEST, expand=True)
    assert print_ir(module) == before  # the caller's module is not modified
    assert get_portable_artifact_version(data) == Version(0, 9, 0)
    back = deserialize_portable_artifact(data)
    text = print_ir(back)
    got = run(_fresh(text), *args)
    _same(got, want, case.rtol)
    # the expansion did its work: the feature is gone
    assert "batching_dims" not in text and "stablehlo.tan " not in text
    row = next(e for e in EXPANSIONS if e.name == case.expansion)
    assert Version(0, 9, 0) < row.introduced


def test_expanded_locations_keep_their_start() -> None:
    data = serialize_portable_artifact(_fresh(RANGES), "1.8.0", expand=True)
    text = print_ir(deserialize_portable_artifact(data), debuginfo=True)
    assert " to " not in text
    for loc in (
        'loc("f.py":1:5)',
        'loc("f.py":2:3)',
        'loc("fn"("f.py":3:7))',
        'loc(callsite("g"("f.py":5:1) at "f.py":6:1))',
        'loc("f.py":1:1)',
    ):
        assert loc in text
    # at 1.9.0 ranges are legal: nothing to expand, the ranges stay
    data = serialize_portable_artifact(_fresh(RANGES), "1.9.0", expand=True)
    assert '"f.py":2:3 to 4:1' in print_ir(deserialize_portable_artifact(data), debuginfo=True)


MESH = (
    '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
    '#stablehlo.mesh_axis<name = "y", size = 2>]>'
)


def _mesh_program(mesh: str, axes: str = '#stablehlo.axis_ref<name = "x">') -> str:
    """An all_reduce over mesh axes; the symbol @mesh is an unregistered op holding a
    `stablehlo.mesh` dictionary (upstream's test uses `"sdy.mesh"` unregistered; here the Shardy
    dialect is registered and its sdy.mesh has its own form)."""
    return f"""
module {{
  "test.mesh_holder"() {{sym_name = "mesh", stablehlo.mesh = {{axes = [{{name = "x", size = 2 : i64}}, {{name = "y", size = 2 : i64}}]}}}} : () -> ()
  func.func @step(%v: tensor<3xi64>) -> tensor<3xi64> {{
    %0 = "stablehlo.all_reduce"(%v) ({{
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }}) {{
      replica_groups = #stablehlo.replica_group_mesh_axes<mesh = {mesh}, axes = [{axes}]>
    }} : (tensor<3xi64>) -> tensor<3xi64>
    return %0 : tensor<3xi64>
  }}
}}
"""


MESH_COLLECTIVE = _mesh_program(MESH)


def _run_on_four_replicas(module_text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """@step of the module run on a 4-replica grid (interpreter.run_parallel added to the module)."""
    from stablehlo_py.ir.verify import verify

    consts = "\n".join(
        f"    %in{i} = stablehlo.constant dense<{list(map(int, x))}> : tensor<3xi64>"
        for i, x in enumerate(inputs)
    )
    t4 = ", ".join(["tensor<3xi64>"] * 4)
    main = f"""
  func.func @main() -> ({t4}) {{
{consts}
    %r:4 = "interpreter.run_parallel"(%in0, %in1, %in2, %in3) {{
      programs = [[@step], [@step], [@step], [@step]]
    }} : ({t4}) -> ({t4})
    return %r#0, %r#1, %r#2, %r#3 : {t4}
  }}
}}
"""
    end = module_text.rstrip().rindex("}")
    harness = parse(module_text[:end] + main, "harness.mlir", allow_unregistered=True)
    verify(harness)
    return run(harness)


@pytest.mark.parametrize("mesh", [MESH, "@mesh"], ids=["inline", "symbol"])
def test_mesh_axes_replica_groups_expand_and_compute_the_same(mesh: str) -> None:
    program = _mesh_program(mesh)
    inputs = [np.array([1, 2, 3]) * 10**i for i in range(4)]
    original = _run_on_four_replicas(program, inputs)
    # a 2x2 mesh numbers its devices x * 2 + y; reducing over x pairs the devices with the same y
    pairs = [inputs[0] + inputs[2], inputs[1] + inputs[3]]
    for g, w in zip(original, pairs * 2):
        np.testing.assert_array_equal(g, w)
    module = parse(program, "mesh.mlir", allow_unregistered=True)
    with pytest.raises(VersionError) as info:
        serialize_portable_artifact(module, OLDEST, allow_other_dialects=True)
    assert "mesh-axes replica groups" in str(info.value)
    expanded = run_pipeline(module, [("stablehlo-compatibility-expander", {"target": OLDEST})])
    text = print_ir(expanded)
    assert "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>" in text
    # an artifact holds no unregistered op: the (now unused) mesh holder is dropped
    data = serialize_portable_artifact_str(_without_mesh_symbol(text), OLDEST)
    back = print_ir(deserialize_portable_artifact(data))
    got = _run_on_four_replicas(back, inputs)
    for g, w in zip(got, original, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    ("mesh", "axes", "message"),
    [
        ("@nowhere", "", "mesh symbol 'nowhere' not found"),
        (
            '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 4>]>',
            '#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>',
            "Subaxes are not supported in flattenReplicaGroupMeshAxes",
        ),
    ],
)
def test_mesh_axes_that_cannot_be_flattened_are_clear_errors(
    mesh: str, axes: str, message: str
) -> None:
    from stablehlo_py.ir.verify import verify

    with pytest.raises(StableHLOError) as info:
        module = parse(_mesh_program(mesh, axes), "mesh.mlir", allow_unregistered=True)
        verify(module)
        run_pipeline(module, [("stablehlo-compatibility-expander", {"target": OLDEST})])
    assert message in str(info.value)
    assert "mesh.mlir:" in str(info.value)


def test_dynamic_indices_are_not_expanded_and_get_no_hint() -> None:
    text = """
func.func @main(%operand: tensor<3x5xf32>, %indices: tensor<?x1xi32>) -> tensor<?xf32> {
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0],
      start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1>
  } : (tensor<3x5xf32>, tensor<?x1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    out = print_ir(
        run_pipeline(_fresh(text), [("stablehlo-compatibility-expander", {"target": "1.0.0"})])
    )
    assert "operand_batching_dims = [0]" in out
    with pytest.raises(VersionError) as info:
        serialize_portable_artifact(_fresh(text), "1.0.0", expand=True)
    assert "batching dimensions need 1.1.0" in str(info.value)
    assert "compatibility-expander" not in str(info.value)


def test_partial_hint_names_what_the_expander_removes() -> None:
    text = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf8E4M3>) -> tensor<4xf32> {
  %0 = stablehlo.tan %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    with pytest.raises(VersionError) as info:
        serialize_portable_artifact(_fresh(text), "1.0.0")
    message = str(info.value)
    assert "the lowest target these operations allow is" in message  # the existing note stays
    assert "removes the blockers of 1 of these operations (tan)" in message
    with pytest.raises(VersionError) as info:
        serialize_portable_artifact(_fresh(text), "1.0.0", expand=True)
    assert "vhlo.tan" not in str(info.value) and "f8E4M3" in str(info.value)


def test_tan_with_a_requested_accuracy_is_kept() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tan %x {result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    out = print_ir(
        run_pipeline(_fresh(text), [("stablehlo-compatibility-expander", {"target": "1.0.0"})])
    )
    assert "stablehlo.tan" in out and "stablehlo.sine" not in out


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("", "No target version specified. Target version must be of the form `#.#.#`."),
        ("1.x", "Invalid target version argument. Target version must be of the form `#.#.#`."),
        ("current", "Invalid target version argument. Target version must be of the form `#.#.#`."),
        ("0.1.0", "target version is less than minimum supported."),
        ("99.0.0", "target version is greater than current version."),
    ],
)
def test_target_is_validated_as_upstream(target: str, message: str) -> None:
    with pytest.raises(VersionError) as info:
        run_pipeline(
            _fresh(_tan("2xf32")), [("stablehlo-compatibility-expander", {"target": target})]
        )
    assert info.value.message == message


def test_each_expansion_is_gated_by_its_version() -> None:
    for e in EXPANSIONS:
        below = Version(e.introduced.major, e.introduced.minor - 1, 0)
        from stablehlo_py.passes.patterns.compat_expansions import expansions_for

        assert e in expansions_for(below)
        assert e not in expansions_for(e.introduced)


def _cli(tool: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", f"stablehlo_py.cli.{tool}", *args],
        input=stdin,
        capture_output=True,
        check=False,
    )


def test_cli_serialize_expand(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(GATHER + _tan("3xf32").replace("@main", "@other"))
    refused = _cli("translate", "--serialize", "--target=1.0.0", str(src))
    assert refused.returncode != 0
    err = refused.stderr.decode()
    assert "failed to convert VHLO to v1.0.0" in err
    assert "note: stablehlo-compatibility-expander removes every one of these blockers" in err
    assert "Traceback" not in err
    out = tmp_path / "p.shlo"
    ok = _cli("translate", "--serialize", "--target=1.0.0", "--expand", str(src), "-o", str(out))
    assert ok.returncode == 0, ok.stderr.decode()
    back = _cli("translate", "--deserialize", str(out))
    assert back.returncode == 0
    text = back.stdout.decode()
    assert "stablehlo.sine" in text and "stablehlo.iota" in text and "batching" not in text
    bad = _cli("opt", str(src), "--stablehlo-compatibility-expander=target=1.2")
    assert bad.returncode != 0
    assert "Invalid target version argument. Target version must be of the form `#.#.#`." in (
        bad.stderr.decode()
    )
    assert "Traceback" not in bad.stderr.decode()


def test_check_compat_notes_the_hint() -> None:
    from stablehlo_py.serialization import check_compat

    data = serialize_portable_artifact(_fresh(_tan("3xf32")), "current")
    report = check_compat(data, "1.2.0")
    assert not report.compatible
    assert any("stablehlo-compatibility-expander removes" in n for n in report.notes)


def test_mesh_in_upstreams_printed_form() -> None:
    """Upstream prints a mesh's axes without their mnemonic (`axes=[<name = "x", size = 2>]`)."""
    mesh = (
        '#stablehlo.mesh<axes=[<name = "x", size = 2>, <name = "y", size = 2>], '
        "device_ids=dense<[0, 2, 1, 3]> : tensor<4xi64>>"
    )
    text = _without_mesh_symbol(_mesh_program(mesh, '#stablehlo.axis_ref<name = "y">'))
    out = print_ir(
        run_pipeline(
            parse(text, "mesh.mlir"), [("stablehlo-compatibility-expander", {"target": "1.0.0"})]
        )
    )
    # devices laid out x-major: [[0, 2], [1, 3]]; over y, each x row is one group
    assert "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>" in out
    data = serialize_portable_artifact_str(text, "current")  # and VHLO reads that form too
    assert "device_ids = dense<[0, 2, 1, 3]>" in print_ir(deserialize_portable_artifact(data))


def _without_mesh_symbol(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if '"test.mesh_holder"' not in line)


def test_interpreter_refuses_unflattenable_mesh_axes_clearly() -> None:
    program = _mesh_program(
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 4>]>',
        '#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>',
    )
    with pytest.raises(StableHLOError) as info:
        _run_on_four_replicas(program, [np.arange(3)] * 4)
    assert "Subaxes are not supported in flattenReplicaGroupMeshAxes" in str(info.value)
    assert "TypeError" not in str(info.value)
