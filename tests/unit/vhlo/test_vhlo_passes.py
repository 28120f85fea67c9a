"""The three VHLO passes and minimum_version on small programs."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.vhlo_to_version import DowngradeError

from stablehlo_py import Version, minimum_version
from stablehlo_py.errors import StableHLOError, VersionError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify

LEGALIZE = ("stablehlo-legalize-to-vhlo", {})
BACK = ("vhlo-legalize-to-stablehlo", {})


def to_version(target: str) -> tuple[str, dict[str, str]]:
    return ("vhlo-to-version", {"target": target})


def run(text: str, *passes: tuple[str, dict[str, str]]) -> str:
    module = parse(text, "test.mlir")
    verify(module)
    module = run_pipeline(module, list(passes))
    verify(module)
    return print_ir(module)


PROGRAM = """func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xi1>, tensor<f32>) {
  %0 = stablehlo.compare  LT, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %2 = stablehlo.exponential %1 : tensor<f32>
  return %0, %2 : tensor<4xi1>, tensor<f32>
}
"""


def test_legalize_writes_every_default() -> None:
    out = run(PROGRAM, LEGALIZE)
    assert "compare_type = #vhlo<comparison_type_v1 NOTYPE>" in out
    assert "result_accuracy = #vhlo.result_accuracy_v1<atol = 0.000000e+00" in out
    assert (
        '{arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}'
        in out
    )
    assert "vhlo.func_v1 @main(" in out


def test_roundtrip_prints_the_original() -> None:
    assert run(PROGRAM, LEGALIZE, BACK) == run(PROGRAM)


@pytest.mark.parametrize("target", ["0.9.0", "1.0.0", "1.8.0", "1.9.0", "current", "minimum"])
def test_roundtrip_through_every_kind_of_target(target: str) -> None:
    assert run(PROGRAM, LEGALIZE, to_version(target), to_version("current"), BACK) == run(PROGRAM)


def test_downgrade_selects_the_old_fork() -> None:
    out = run(PROGRAM, LEGALIZE, to_version("1.8.0"))
    assert "vhlo.exponential_v1" in out and "result_accuracy" not in out


def test_old_vhlo_upgrades_and_legalizes() -> None:
    old = """vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<!vhlo.f32_v1>) -> (!vhlo.tensor_v1<!vhlo.f32_v1>) {
  %0 = "vhlo.exponential_v1"(%arg0) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>
  "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
"""
    with pytest.raises(StableHLOError, match="not the current fork"):
        run(old, BACK)
    out = run(old, to_version("current"), BACK)
    assert "stablehlo.exponential %arg0 : tensor<f32>" in out


def test_other_dialects_need_the_option() -> None:
    text = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = chlo.acos %a : tensor<f32> -> tensor<f32>\n  %1 = stablehlo.abs %0 : tensor<f32>\n  return %1 : tensor<f32>\n}\n"
    with pytest.raises(StableHLOError, match="failed to legalize operation 'chlo.acos'") as info:
        run(text, LEGALIZE)
    assert "test.mlir:2:" in str(info.value)
    out = run(text, ("stablehlo-legalize-to-vhlo", {"allow-other-dialects": "true"}))
    assert (
        "builtin.unrealized_conversion_cast %arg0 : !vhlo.tensor_v1<!vhlo.f32_v1> to tensor<f32>"
        in out
    )
    assert '"vhlo.abs_v1"' in out
    back = run(
        text,
        ("stablehlo-legalize-to-vhlo", {"allow-other-dialects": "true"}),
        ("vhlo-legalize-to-stablehlo", {"allow-other-dialects": "true"}),
    )
    assert back == run(text)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("", "No target version specified."),
        ("x.y.z", "Invalid target version argument 'x.y.z'"),
        ("100.10.10", "target version 100.10.10 is greater than current version 1.22.0"),
        ("0.0.0", "target version 0.0.0 is less than minimum supported 0.9.0"),
    ],
)
def test_bad_targets(target: str, message: str) -> None:
    with pytest.raises(VersionError) as info:
        run(PROGRAM, LEGALIZE, to_version(target))
    assert message in str(info.value)
    assert "0.9.0" in str(info.value) and "1.22.0" in str(info.value)


NEW_FEATURES = """func.func @f(%a: tensor<f32>, %b: tensor<4xf8E4M3>) -> tensor<f32> {
  %0 = stablehlo.tan %a : tensor<f32>
  %1 = stablehlo.cosine %0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<f32>
  return %1 : tensor<f32>
}
"""


def test_failed_downgrade_names_every_blocker_in_one_error() -> None:
    module = parse(NEW_FEATURES, "new.mlir")
    module = run_pipeline(module, [LEGALIZE])
    before = print_ir(module)
    with pytest.raises(DowngradeError) as info:
        run_pipeline(module, [to_version("1.3.0")])
    err = info.value
    text = str(err)
    assert "failed to convert VHLO to v1.3.0" in text
    assert len(err.blocked) == 3  # func (f8E4M3 argument), tan, cosine
    names = [b.op_name for b in err.blocked]
    assert names == ["vhlo.func_v1", "vhlo.tan_v2", "vhlo.cosine_v2"]
    assert "new.mlir:1:1: failed to legalize operation 'vhlo.func_v1'" in text
    assert "!vhlo.f8E4M3_v1" in text and "(needs 1.7.0)" in text
    assert "new.mlir:2:" in text and "op 'tan' (needs 1.4.0)" in text
    assert "new.mlir:3:" in text and "result accuracy needs 1.10.0" in text
    assert "the lowest target these operations allow is 1.10.0" in text
    assert print_ir(module) == before  # nothing was changed


def test_minimum_version_names_the_op_and_feature() -> None:
    floor = minimum_version(parse(NEW_FEATURES, "new.mlir"))
    assert floor.version == Version(1, 10, 0)
    assert floor.op == "stablehlo.cosine"
    assert "result accuracy" in (floor.feature or "")
    version, op, feature = floor
    assert (version, op, feature) == (floor.version, floor.op, floor.feature)


@pytest.mark.parametrize(
    ("body", "expected", "op"),
    [
        ("%0 = stablehlo.add %a, %a : tensor<f32>", "0.9.0", None),
        ("%0 = stablehlo.tan %a : tensor<f32>", "1.4.0", "stablehlo.tan"),
        (
            "%0 = stablehlo.exponential %a {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<f32>",
            "1.9.0",
            "stablehlo.exponential",
        ),
    ],
)
def test_minimum_version_of_single_ops(body: str, expected: str, op: str | None) -> None:
    text = f"func.func @f(%a: tensor<f32>) -> tensor<f32> {{\n  {body}\n  return %0 : tensor<f32>\n}}\n"
    floor = minimum_version(parse(text))
    assert str(floor.version) == expected
    assert floor.op == op


def test_minimum_version_of_a_range_location() -> None:
    text = 'func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %a : tensor<f32> loc("a.py":1:2 to 3:4)\n  return %0 : tensor<f32>\n}\n'
    floor = minimum_version(parse(text))
    assert str(floor.version) == "1.9.0"
    assert "range location" in (floor.feature or "")


def test_minimum_version_accepts_vhlo() -> None:
    module = run_pipeline(parse(NEW_FEATURES), [LEGALIZE])
    assert minimum_version(module).version == Version(1, 10, 0)


def test_minimum_version_is_the_exact_floor() -> None:
    module = parse(NEW_FEATURES)
    floor = minimum_version(module).version
    run(NEW_FEATURES, LEGALIZE, to_version(str(floor)))
    with pytest.raises(DowngradeError):
        run(NEW_FEATURES, LEGALIZE, to_version("1.9.0"))


DYNAMIC_CONV_V1 = """vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<1x8x8x2x!vhlo.f32_v1>, %arg1: !vhlo.tensor_v1<3x3x2x4x!vhlo.f32_v1>, %arg2: !vhlo.tensor_v1<2x2x!vhlo.i64_v1>) -> (!vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>) {
  %0 = "vhlo.dynamic_conv_v1"(%arg0, %arg1, %arg2) <{batch_group_count = #vhlo.integer_v1<1 : i64>, feature_group_count = #vhlo.integer_v1<1 : i64>, input_batch_dimension = #vhlo.integer_v1<0 : i64>, input_feature_dimension = #vhlo.integer_v1<3 : i64>, input_spatial_dimensions = #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>, kernel_input_feature_dimension = #vhlo.integer_v1<2 : i64>, kernel_output_feature_dimension = #vhlo.integer_v1<3 : i64>, kernel_spatial_dimensions = #vhlo.tensor_v1<dense<[0, 1]> : tensor<2xi64>>, lhs_dilation = #vhlo.tensor_v1<dense<1> : tensor<2xi64>>, output_batch_dimension = #vhlo.integer_v1<0 : i64>, output_feature_dimension = #vhlo.integer_v1<3 : i64>, output_spatial_dimensions = #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>, padding = #vhlo.tensor_v1<dense<PAD> : tensor<2x2xi64>>, precision_config = #vhlo.array_v1<[#vhlo<precision_v1 DEFAULT>, #vhlo<precision_v1 DEFAULT>]>, rhs_dilation = #vhlo.tensor_v1<dense<1> : tensor<2xi64>>, window_reversal = #vhlo.tensor_v1<dense<false> : tensor<2xi1>>, window_strides = #vhlo.tensor_v1<dense<1> : tensor<2xi64>>}> EXTRA: (!vhlo.tensor_v1<1x8x8x2x!vhlo.f32_v1>, !vhlo.tensor_v1<3x3x2x4x!vhlo.f32_v1>, !vhlo.tensor_v1<2x2x!vhlo.i64_v1>) -> !vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>
  "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>) -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
"""


def test_upgrade_refuses_to_lose_information() -> None:
    text = DYNAMIC_CONV_V1.replace("PAD", "1").replace("EXTRA", "")
    with pytest.raises(DowngradeError) as info:
        run(text, to_version("current"))
    assert "padding" in str(info.value) and "(only up to 0.19.0)" in str(info.value)
    assert "no newer than 0.19.0" in str(info.value)
    assert "vhlo.dynamic_conv_v2" in run(
        text.replace("dense<1> : tensor<2x2xi64>", "dense<0> : tensor<2x2xi64>"),
        to_version("current"),
    )


def test_non_vhlo_attributes_need_allow_other_dialects() -> None:
    text = DYNAMIC_CONV_V1.replace("PAD", "0").replace("EXTRA", "{foo = 1 : i32}")
    with pytest.raises(DowngradeError, match="attribute 'foo' is not a VHLO attribute"):
        run(text, to_version("0.19.0"))
    out = run(text, ("vhlo-to-version", {"target": "0.19.0", "allow-other-dialects": "true"}))
    assert "{foo = 1 : i32}" in out


def test_memref_is_buffer_v1() -> None:
    text = "func.func @f(%arg0: memref<2x?xf32>) -> memref<2x?xf32> {\n  return %arg0 : memref<2x?xf32>\n}\n"
    assert "!vhlo.buffer_v1<2x?x!vhlo.f32_v1>" in run(text, LEGALIZE)
    assert run(text, LEGALIZE, BACK) == run(text)
    with pytest.raises(DowngradeError, match=r"!vhlo.buffer_v1 .*\(needs 1.13.0\)"):
        run(text, LEGALIZE, to_version("1.12.0"))
