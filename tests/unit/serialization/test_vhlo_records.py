"""VHLO as records (``vhlo/records.py``): the artifact paths build no VHLO xDSL module, and give
exactly what the passes over xDSL ops give -- the same bytes in both formats at every target, the
same diagnostics, the same modules read back, the same use-list orders."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import PASSES
from stablehlo_py.passes.vhlo_to_version import DowngradeError
from stablehlo_py.serialization import (
    deserialize_portable_artifact,
    read_vhlo_artifact,
    serialize_portable_artifact,
    to_vhlo,
    vhlo_records,
    write_artifact,
)
from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact
from stablehlo_py.vhlo.records import VOp, materialize

from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version, get_current_version
from tests.conformance.test_roundtrip import TESTDATA
from tests.unit.serialization.helpers import PROGRAM

TARGETS = [str(r.version) for r in specs.releases()]

# every fork family changes between these programs' forks and the older targets
FORKED = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %i: tensor<2x1xi32>, %t: !stablehlo.token) -> (tensor<2x2xf32>, tensor<1x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %2 = stablehlo.exponential %a : tensor<2x3xf32>
  %3 = stablehlo.cosine %2 : tensor<2x3xf32>
  %4 = "stablehlo.all_reduce"(%3) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = stablehlo.slice %4 [0:1, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %6 = stablehlo.custom_call @foo(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %5, %6 : tensor<2x2xf32>, tensor<1x3xf32>, tensor<2x3xf32>
}
"""

PROGRAMS = {"program": PROGRAM, "forked": FORKED}


def _via_xdsl(text: str, target: str, fmt: str, history: str | None = None) -> bytes | str:
    """The bytes of the passes over xDSL ops (``to_vhlo``), or the error text."""
    try:
        vhlo = to_vhlo(parse(text, "-"), target, in_place=False)
        t = Version.from_string(target)
        if fmt == "mlir":
            hist = None if history is None else Version.from_string(history)
            return write_mlir_artifact(vhlo, t, use_lists_as=hist)
        return write_artifact(vhlo, t)
    except StableHLOError as e:
        return e.render() if isinstance(e, DowngradeError) else e.message


def _via_records(text: str, target: str, fmt: str, history: str | None = None) -> bytes | str:
    try:
        return serialize_portable_artifact(
            parse(text, "-"), target, format=fmt, use_lists_as=history
        )
    except StableHLOError as e:
        return e.render() if isinstance(e, DowngradeError) else e.message


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("fmt", ["msgpack", "mlir"])
def test_records_write_what_the_passes_write(name: str, fmt: str) -> None:
    text = PROGRAMS[name]
    for target in TARGETS:
        assert _via_records(text, target, fmt) == _via_xdsl(text, target, fmt), target


def test_records_replay_upstreams_use_lists() -> None:
    for target in TARGETS:
        for history in ("1.17.0", None):
            assert _via_records(FORKED, target, "mlir", history) == _via_xdsl(
                FORKED, target, "mlir", history
            ), (target, history)


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
def test_records_on_upstream_programs() -> None:
    """A deterministic sample of upstream's programs, at the oldest, a middle and the newest target."""
    sample = [p for p in TESTDATA if "chlo." not in p.read_text()][::97]
    assert len(sample) >= 10
    for path in sample:
        text = path.read_text()
        for target in ("0.9.0", "1.5.0", str(get_current_version())):
            for fmt in ("msgpack", "mlir"):
                assert _via_records(text, target, fmt) == _via_xdsl(text, target, fmt), (
                    path.name,
                    target,
                    fmt,
                )


def test_blocked_downgrade_is_the_same_error() -> None:
    text = FORKED.replace(
        "contracting_dims = [1] x [0]",
        "contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, "
        "rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, "
        "rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>",
    )
    got = _via_records(text, "1.5.0", "mlir")
    assert isinstance(got, str) and "a dot algorithm needs 1.6.0" in got
    assert got == _via_xdsl(text, "1.5.0", "mlir")


@pytest.mark.parametrize("fmt", ["msgpack", "mlir"])
def test_reading_records_is_reading_ops(fmt: str) -> None:
    """Records read from an old artifact, upgraded and legalized, give the module the passes over
    xDSL ops give; ``materialize`` gives the VHLO module the xDSL reader gives."""
    for target in ("0.9.0", "1.5.0", "1.17.0", str(get_current_version())):
        data = serialize_portable_artifact(parse(FORKED, "-"), target, format=fmt)
        version, xdsl_vhlo = read_vhlo_artifact(data)
        _, records = read_vhlo_artifact(data, records=True)
        assert isinstance(records, VOp)
        assert print_ir(materialize(records)) == print_ir(xdsl_vhlo)
        current = PASSES["vhlo-to-version"].run(xdsl_vhlo, {"target": "current"})
        expected = print_ir(PASSES["vhlo-legalize-to-stablehlo"].run(current, {}))
        assert print_ir(deserialize_portable_artifact(data)) == expected, target


def test_records_leave_the_module_alone() -> None:
    module = parse(FORKED, "-")
    before = print_ir(module)
    root = vhlo_records(module, Version(0, 9, 0))
    assert print_ir(module) == before
    names = {op.name for op in root.walk()}
    assert "vhlo.dot_general_v1" in names and "vhlo.gather_v1" in names
    assert all(type(op) is VOp for op in root.walk())


def test_other_dialects_take_the_pass() -> None:
    """Without ``allow_other_dialects`` a chlo op is refused, naming it; with it the op is kept
    beside the VHLO and written as it is (upstream's mixed serialization), in both formats."""
    text = """func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = chlo.erf %a : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}
"""
    with pytest.raises(StableHLOError, match="chlo"):
        serialize_portable_artifact(parse(text, "-"), "1.0.0")
    for fmt in ("msgpack", "mlir"):
        data = serialize_portable_artifact(
            parse(text, "-"), "1.0.0", allow_other_dialects=True, format=fmt
        )
        assert print_ir(deserialize_portable_artifact(data)) == print_ir(parse(text, "-"))


def test_builtin_attributes_inside_vhlo_dictionaries() -> None:
    """A builtin attribute VHLO has no counterpart for (an `array<i32>`, a unit) inside a composite's
    attributes: refused without ``allow_other_dialects``; with it kept as it is and written in the
    builtin dialect's own encoding, as XLA's serializer writes jax 0.12's GPU `chlo.scan`
    composites (`operandSegmentSizes = array<i32: 1, 1>`), and read back as it was (upstream's
    VHLO-to-StableHLO conversion keeps attributes of other dialects)."""
    text = """func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.composite "my.op" %a {composite_attributes = {k = 1 : i64, seg = array<i32: 1, 1>, u}, decomposition = @impl} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @impl(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
"""
    with pytest.raises(StableHLOError, match="has no VHLO counterpart"):
        serialize_portable_artifact(parse(text, "-"), "1.18.0", format="mlir")
    for fmt in ("msgpack", "mlir"):
        data = serialize_portable_artifact(
            parse(text, "-"), "1.18.0", allow_other_dialects=True, format=fmt
        )
        assert print_ir(deserialize_portable_artifact(data)) == print_ir(parse(text, "-")), fmt
