"""parse_pass_options: MLIR's pass option syntax, including list options whose values hold commas."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from stablehlo_py.passes.drivers.options import (
    parse_pass_options,
    split_list_option,
    split_top_level,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("target=1.0.0", {"target": "1.0.0"}),
        ("'target=1.0.0'", {"target": "1.0.0"}),
        ('"target=minimum"', {"target": "minimum"}),
        (
            "{target=1.0.0 allow-other-dialects}",
            {"target": "1.0.0", "allow-other-dialects": "true"},
        ),
        (
            "target=1.0.0,allow-other-dialects=true",
            {"target": "1.0.0", "allow-other-dialects": "true"},
        ),
        ("a,b", {"a": "true", "b": "true"}),
        ("", {}),
        # list options: the commas belong to the value
        (
            "types=tensor<f32>,tensor<1x?xf32>,!stablehlo.token",
            {"types": "tensor<f32>,tensor<1x?xf32>,!stablehlo.token"},
        ),
        (
            "'types=tensor<?xf32, #stablehlo.bounds<4>>,tensor<*xf32>'",
            {"types": "tensor<?xf32, #stablehlo.bounds<4>>,tensor<*xf32>"},
        ),
        (
            "op-names=stablehlo.add,stablehlo.convolution,stablehlo.reduce version=1",
            {"op-names": "stablehlo.add,stablehlo.convolution,stablehlo.reduce", "version": "1"},
        ),
        ("except='foo.baz,foo.qux'", {"except": "foo.baz,foo.qux"}),
        ('name="a b" flag', {"name": "a b", "flag": "true"}),
        ("types=tensor<2xf32>,x=1", {"types": "tensor<2xf32>", "x": "1"}),
        (
            "types=tensor<2xf32>, tensor<f32> flag",
            {"types": "tensor<2xf32>,tensor<f32>", "flag": "true"},
        ),
        ("a=1, b=2", {"a": "1", "b": "2"}),
    ],
)
def test_parse_pass_options(text: str, expected: dict[str, str]) -> None:
    assert parse_pass_options(text) == expected


def test_split_list_option_keeps_bracketed_commas() -> None:
    assert split_list_option("tensor<2x?xf32, #stablehlo.bounds<?, 4>>,tensor<f32>") == [
        "tensor<2x?xf32, #stablehlo.bounds<?, 4>>",
        "tensor<f32>",
    ]
    assert split_list_option("(tensor<f32>, tensor<i32>) -> tensor<f32>,i32") == [
        "(tensor<f32>, tensor<i32>) -> tensor<f32>",
        "i32",
    ]
    assert split_list_option("") == []


def test_split_top_level_quotes_and_brackets() -> None:
    assert split_top_level("a [1, 2] 'x y' {k = v, w}", " ") == [
        "a",
        "[1, 2]",
        "'x y'",
        "{k = v, w}",
    ]


def test_cli_passes_a_list_option_through(tmp_path: Path) -> None:
    """stablehlo-opt --stablehlo-refine-arguments='types=...' (the shell removes the quotes; in-process
    the quotes stay and are removed by the option parser)."""
    from stablehlo_py.cli.opt import main

    src = tmp_path / "m.mlir"
    src.write_text("func.func @main(%arg0: tensor<?xf32>, %arg1: tensor<f32>) {\n  return\n}\n")
    for flag in (
        "--stablehlo-refine-arguments=types=tensor<3xf32>,tensor<f32>",
        "--stablehlo-refine-arguments='types=tensor<3xf32>,tensor<f32>'",
        "--stablehlo-refine-arguments={types=tensor<3xf32>,tensor<f32>}",
    ):
        out = tmp_path / "out.mlir"
        with contextlib.redirect_stderr(io.StringIO()):
            assert main([flag, str(src), "-o", str(out)]) == 0
        text = out.read_text()
        assert "func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>)" in text, text
        assert "stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper" in text
