"""check.expect_* ops: upstream's formats (stablehlo/tests/CheckOps.td), defaults, verifiers."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import roundtrip as _roundtrip


def _func(body: str, args: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


F = "tensor<2xf64>"
ARGS = f"%arg0: {F}, %arg1: {F}"


@pytest.mark.parametrize(
    "line,printed",
    [
        (f"check.expect_eq %arg0, %arg1 : {F}", None),
        (
            "check.expect_eq_const %arg0, dense<[1.0, 2.0]> : tensor<2xf64>",
            "check.expect_eq_const %arg0, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>",
        ),
        (f"check.expect_almost_eq %arg0, %arg1 : {F}", None),
        (
            f"check.expect_almost_eq %arg0, %arg1, tolerance = 0.1 : {F}",
            f"check.expect_almost_eq %arg0, %arg1, tolerance = 1.000000e-01 : {F}",
        ),
        # the default tolerance (1e-4) is not printed
        (
            f"check.expect_almost_eq %arg0, %arg1, tolerance = 1.0e-4 : {F}",
            f"check.expect_almost_eq %arg0, %arg1 : {F}",
        ),
        (
            "check.expect_almost_eq_const %arg0, dense<5.1> : tensor<2xf64> {tolerance = 0.1 : f64}",
            "check.expect_almost_eq_const %arg0, dense<5.100000e+00> : tensor<2xf64>, tolerance = 1.000000e-01",
        ),
        (
            "check.expect_almost_eq_const %arg0, dense<5.1> : tensor<2xf64>, tolerance = 0.5",
            "check.expect_almost_eq_const %arg0, dense<5.100000e+00> : tensor<2xf64>, tolerance = 5.000000e-01",
        ),
        (f"check.expect_close %arg0, %arg1, max_ulp_difference = 3 : {F}, {F}", None),
        (
            f"check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 : {F}, {F}",
            None,
        ),
        (
            f"check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 0 : {F}, {F}",
            f"check.expect_close %arg0, %arg1, max_ulp_difference = 3 : {F}, {F}",
        ),
        (f'check.expect_serialized_eq %arg0, probe_id = "probe0" : {F}', None),
        (f'check.expect_serialized_eq %arg0, probe_id = "probe0", iter = 2 : {F}', None),
    ],
)
def test_roundtrip(line: str, printed: str | None) -> None:
    out = _roundtrip(_func("  " + line, ARGS))
    assert "    " + (printed or line) + "\n" in out


def test_generic_forms() -> None:
    body = (
        "  check.expect_almost_eq_const %arg0, dense<5.1> : tensor<2xf64>, tolerance = 0.5\n"
        f"  check.expect_close %arg0, %arg1, max_ulp_difference = 3 : {F}, {F}\n"
        f'  check.expect_serialized_eq %arg0, probe_id = "p", iter = 2 : {F}'
    )
    g = print_ir(parse(_func(body, ARGS)), generic=True)
    assert (
        '"check.expect_almost_eq_const"(%arg0) <{tolerance = 5.000000e-01 : f64, '
        "value = dense<5.100000e+00> : tensor<2xf64>}> : (tensor<2xf64>) -> ()"
    ) in g
    assert '"check.expect_close"(%arg0, %arg1) <{max_ulp_difference = 3 : ui64}>' in g
    assert '"check.expect_serialized_eq"(%arg0) <{iteration = 2 : ui32, probe_id = "p"}>' in g


def test_expect_close_generic_without_max_gets_default() -> None:
    body = f'  "check.expect_close"(%arg0, %arg1) : ({F}, {F}) -> ()'
    out = _roundtrip(_func(body, ARGS))
    assert f"check.expect_close %arg0, %arg1, max_ulp_difference = 1 : {F}, {F}" in out


@pytest.mark.parametrize(
    "line,msg",
    [
        (
            "check.expect_eq %arg0, %arg2 : tensor<2xf64>",
            "lhs type tensor<2xf64> and rhs type tensor<2xf32> must match",
        ),
        (
            "check.expect_eq_const %arg0, dense<[1, 2]> : tensor<2xi64>",
            "lhs type tensor<2xf64> and value type tensor<2xi64> must match",
        ),
        ("check.expect_almost_eq %arg3, %arg3 : tensor<2xi32>", "floating-point or complex"),
        (
            "check.expect_almost_eq_const %arg3, dense<1> : tensor<2xi32>",
            "floating-point or complex",
        ),
        (
            "check.expect_close %arg0, %arg2, max_ulp_difference = 1 : tensor<2xf64>, tensor<2xf32>",
            "must match",
        ),
        (
            "check.expect_close %arg0, %arg1, max_ulp_difference = 1, min_ulp_difference = 2 : tensor<2xf64>, tensor<2xf64>",
            "must not exceed",
        ),
        ('check.expect_serialized_eq %arg4, probe_id = "p" : i32', "must be a tensor"),
    ],
)
def test_verifiers(line: str, msg: str) -> None:
    args = f"{ARGS}, %arg2: tensor<2xf32>, %arg3: tensor<2xi32>, %arg4: i32"
    with pytest.raises(VerifyError, match=msg):
        verify(parse(_func("  " + line, args)))


@pytest.mark.parametrize(
    "line,msg",
    [
        (f"check.expect_close %arg0, %arg1 : {F}, {F}", "expected ','"),
        (
            f"check.expect_close %arg0, %arg1, max_ulp_difference = -1 : {F}, {F}",
            "-1 does not fit in ui64",
        ),
        (
            f"check.expect_almost_eq %arg0, %arg1, tolerance = x : {F}",
            "expected a floating-point number",
        ),
        (f"check.expect_serialized_eq %arg0, probe_id = 3 : {F}", "expected a string"),
    ],
)
def test_parse_errors(line: str, msg: str) -> None:
    with pytest.raises(ParseError, match=r"c\.mlir:2:\d+: error: " + msg):
        parse(_func("  " + line, ARGS), "c.mlir")
