"""reduce (compact and `reducer` syntax), reduce_window, select_and_scatter, sort, map: text and
verifiers."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.ir.test_control_flow import roundtrip, verify_error


def reduce_generic(
    body: str,
    dims: str = "1",
    in_t: str = "tensor<2x3xf32>",
    out_t: str = "tensor<2xf32>",
    e: str = "f32",
) -> str:
    return f"""func.func @f(%arg0: {in_t}, %arg1: tensor<{e}>) -> {out_t} {{
  %0 = "stablehlo.reduce"(%arg0, %arg1) ({{
  ^bb0(%a: tensor<{e}>, %b: tensor<{e}>):
{body}
  }}) {{dimensions = array<i64: {dims}>}} : ({in_t}, tensor<{e}>) -> {out_t}
  return %0 : {out_t}
}}
"""


ADD_BODY = '    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n    "stablehlo.return"(%s) : (tensor<f32>) -> ()'


@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "minimum"])
def test_reduce_compact(op: str) -> None:
    body = ADD_BODY.replace("stablehlo.add", f"stablehlo.{op}")
    out = roundtrip(reduce_generic(body))
    assert (
        f"    %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.{op} across dimensions = [1] : "
        "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n" in out
    )


def test_reduce_compact_logical_ops() -> None:
    for op in ("and", "or", "xor"):
        body = f"    %s = stablehlo.{op} %a, %b : tensor<i1>\n    stablehlo.return %s : tensor<i1>"
        out = roundtrip(reduce_generic(body, in_t="tensor<2x3xi1>", out_t="tensor<2xi1>", e="i1"))
        assert f"applies stablehlo.{op} across dimensions = [1]" in out


@pytest.mark.parametrize(
    "body",
    [
        # non-commutative inner op
        '    %s = "stablehlo.subtract"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n    "stablehlo.return"(%s) : (tensor<f32>) -> ()',
        # arguments not forwarded in order
        '    %s = "stablehlo.add"(%b, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n    "stablehlo.return"(%s) : (tensor<f32>) -> ()',
        # more than one op
        "    %s = stablehlo.add %a, %b : tensor<f32>\n    %t = stablehlo.add %s, %b : tensor<f32>\n    stablehlo.return %t : tensor<f32>",
        # the result is not what is returned
        "    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %a : tensor<f32>",
    ],
)
def test_reduce_long_form(body: str) -> None:
    out = roundtrip(reduce_generic(body))
    assert "applies" not in out
    assert (
        "    %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
        "     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {\n" in out
    )


def test_reduce_variadic_reducer_pairs() -> None:
    text = """func.func @f(%x: tensor<1x8xf32>, %y: tensor<1x8xi32>, %a: tensor<f32>, %b: tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %0:2 = stablehlo.reduce(%x init: %a), (%y init: %b) across dimensions = [0] : (tensor<1x8xf32>, tensor<1x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
    reducer(%p: tensor<f32>, %q: tensor<f32>) (%r: tensor<i32>, %s: tensor<i32>) {
    %1 = stablehlo.add %p, %q : tensor<f32>
    %2 = stablehlo.add %r, %s : tensor<i32>
    stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<8xf32>, tensor<8xi32>
}
"""
    out = roundtrip(text)
    assert (
        "     reducer(%arg4: tensor<f32>, %arg6: tensor<f32>) (%arg5: tensor<i32>, %arg7: tensor<i32>)  {\n"
        in out
    )
    # block arguments are (inputs' accumulators..., inits'...): the pairs interleave them
    g = print_ir(parse(text), generic=True)
    assert re.search(
        r"\^bb0\(%arg\d+: tensor<f32>, %arg\d+: tensor<i32>, %arg\d+: tensor<f32>, %arg\d+: tensor<i32>\):",
        g,
    )


def test_reduce_compact_parse_builds_body_and_locations() -> None:
    text = (
        "func.func @f(%x: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {\n"
        '  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0] {user = 1 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc("here")\n'
        "  return %0 : tensor<f32>\n}\n"
    )
    m = parse(text)
    verify(m)
    g = print_ir(m, generic=True, debuginfo=True)
    assert re.search(
        r'"stablehlo.add"\(%arg\d+, %arg\d+\) : \(tensor<f32>, tensor<f32>\) -> tensor<f32> loc\("here"\)',
        g,
    )
    assert re.search(
        r'\^bb0\(%arg\d+: tensor<f32> loc\("here"\), %arg\d+: tensor<f32> loc\("here"\)\):', g
    )
    assert "{user = 1 : i64}" in print_ir(m)


def test_reduce_parse_errors() -> None:
    with pytest.raises(
        ParseError,
        match=r"t\.mlir:2:\d+: error: expected the inner-op to be a commutative binary-op",
    ):
        parse(
            "func.func @f(%x: tensor<4xf32>, %i: tensor<f32>) {\n"
            "  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.subtract across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
            "  return\n}\n",
            "t.mlir",
        )
    with pytest.raises(
        ParseError, match=r"t\.mlir:2:\d+: error: custom op 'stablehlo.reduce' expected 'across'"
    ):
        parse(
            "func.func @f(%x: tensor<4xf32>, %i: tensor<f32>) {\n"
            "  %0 = stablehlo.reduce(%x init: %i) dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
            "  return\n}\n",
            "t.mlir",
        )


def test_reduce_verifier() -> None:
    assert "Out-of-bounds dimension 2, expected to be in range [0, 2)" in verify_error(
        reduce_generic(ADD_BODY, dims="2")
    )
    assert "Duplicate reduction dimension: 1" in verify_error(
        reduce_generic(ADD_BODY, dims="1, 1", out_t="tensor<2xf32>")
    )
    assert (
        "inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation "
        "'tensor<3xf32>'"
    ) in verify_error(reduce_generic(ADD_BODY, out_t="tensor<3xf32>"))
    bad_body = ADD_BODY.replace(
        '"stablehlo.return"(%s) : (tensor<f32>) -> ()',
        '"stablehlo.return"(%s, %s) : (tensor<f32>, tensor<f32>) -> ()',
    )
    assert "Reduction-region here must produce 1 tensors, but produces 2 instead" in verify_error(
        reduce_generic(bad_body)
    )


REDUCE_WINDOW = """func.func @f(%arg0: tensor<4x6xf32>, %init: tensor<f32>) -> tensor<{out}xf32> {{
  %0 = "stablehlo.reduce_window"(%arg0, %init) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }}) {{{attrs}}} : (tensor<4x6xf32>, tensor<f32>) -> tensor<{out}xf32>
  return %0 : tensor<{out}xf32>
}}
"""


def test_reduce_window_generic() -> None:
    text = REDUCE_WINDOW.format(
        out="2x2",
        attrs="window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>, padding = dense<0> : tensor<2x2xi64>",
    )
    out = roundtrip(text)
    assert (
        '    %0 = "stablehlo.reduce_window"(%arg0, %arg1) <{padding = dense<0> : tensor<2x2xi64>, '
        "window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({\n" in out
    )
    with pytest.raises(ParseError, match="has no pretty syntax"):
        parse("func.func @f(%a: tensor<4xf32>) {\n  stablehlo.reduce_window %a\n}\n")


def test_reduce_window_verifier() -> None:
    assert "inferred type(s) 'tensor<2x2xf32>' are incompatible" in verify_error(
        REDUCE_WINDOW.format(
            out="3x2",
            attrs="window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>",
        )
    )
    assert (
        "expects window-dimensions size == input rank, but got window-dimensions size: 1"
        in verify_error(REDUCE_WINDOW.format(out="2x2", attrs="window_dimensions = array<i64: 2>"))
    )
    assert (
        "expects window to have positive stride for 0-th window dimension, but got 0."
        in verify_error(
            REDUCE_WINDOW.format(
                out="2x2",
                attrs="window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 0, 3>",
            )
        )
    )
    # padding and dilations change the number of windows
    ok = REDUCE_WINDOW.format(
        out="4x4",
        attrs="window_dimensions = array<i64: 2, 3>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>",
    )
    roundtrip(ok)


SELECT_AND_SCATTER = """func.func @f(%operand: tensor<4x6xf32>, %source: tensor<{src}xf32>, %init: tensor<f32>) -> tensor<4x6xf32> {{
  %0 = "stablehlo.select_and_scatter"(%operand, %source, %init) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }}) {{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}} : (tensor<4x6xf32>, tensor<{src}xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}}
"""


def test_select_and_scatter() -> None:
    out = roundtrip(SELECT_AND_SCATTER.format(src="2x2"))
    assert (
        '"stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) <{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({'
        in out
    )
    assert "expects source-type to be 'tensor<2x2xf32>', but got'tensor<3x2xf32>'" in verify_error(
        SELECT_AND_SCATTER.format(src="3x2")
    )


SORT = """func.func @f(%k: tensor<5xf32>, %v: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>) {{
  %0:2 = "stablehlo.sort"(%k, %v) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %r = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%r) : (tensor<i1>) -> ()
  }}) {{{attrs}}} : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
}}
"""


def test_sort() -> None:
    out = roundtrip(SORT.format(attrs="dimension = 0 : i64, is_stable = true"))
    assert (
        '    %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({\n'
        in out
    )
    # defaults are optional properties: absent stays absent
    assert '"stablehlo.sort"(%arg0, %arg1) ({' in roundtrip(SORT.format(attrs=""))
    assert "dimension attribute value must be in range [-1, 1), but found 1" in verify_error(
        SORT.format(attrs="dimension = 1 : i64")
    )
    bad = SORT.format(attrs="").replace(
        "^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>)",
        "^bb0(%a: tensor<f32>, %b: tensor<f32>)",
    )
    assert "comparator block should have 4 arguments" in verify_error(bad)


MAP = """func.func @f(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {{
  %0 = "stablehlo.map"(%x, %y) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %a, %b : tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }}) {{dimensions = array<i64: {dims}>}} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}}
"""


def test_map() -> None:
    out = roundtrip(MAP.format(dims="0"))
    assert '    %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0>}> ({\n' in out
    assert "requires monotonically increasing dimension numbers, but got: 1" in verify_error(
        MAP.format(dims="1")
    )


def test_verify_error_has_location() -> None:
    with pytest.raises(
        VerifyError,
        match=r"t\.mlir:2:\d+: error: (?:'stablehlo.map' op )?requires monotonically",
    ):
        verify(parse(MAP.format(dims="1"), "t.mlir"))


def test_uneven_operand_count_splits_as_mlir() -> None:
    # SameVariadicOperandSize: 3 operands give one input and one init value (MLIR's ODS accessors
    # round down; the last operand is in no group), so the body's 4 parameters are too many
    text = """func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %i: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = "stablehlo.reduce"(%a, %b, %i) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %r: tensor<f32>, %s: tensor<f32>):
    "stablehlo.return"(%q, %s) : (tensor<f32>, tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}
"""
    assert "Reduction-region must take 2 parameters, but takes 4 parameter(s)" in verify_error(text)
    # the leftover operand is in no group: MLIR never looks at it
    odd = text.replace("%i: tensor<f32>", "%i: f32").replace(
        "(tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>)", "(tensor<2x2xf32>, tensor<2x2xf32>, f32)"
    )
    assert "Reduction-region must take 2 parameters, but takes 4 parameter(s)" in verify_error(odd)


def test_even_operand_counts_keep_the_compiled_plan() -> None:
    from stablehlo_py.ir.verify import driver as vp
    from stablehlo_py.ir.ops.reduction import ReduceOp, ReduceWindowOp

    assert vp.why_no_plan(ReduceOp) is None
    assert vp.why_no_plan(ReduceWindowOp) is None
