"""Result-type inference of the linalg ops (stablehlo_py/ir/infer/linalg.py): static, dynamic and
bounded cases, upstream's error messages, and differential checks against upstream's expectations
(infer_stablehlo.mlir's `types0 = ...` lines) and the conformance test data."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ComplexType, IntegerAttr, TensorType, f32, i1, i64

from stablehlo_py.ir import parse
from stablehlo_py.ir.enums import FftTypeAttr, TransposeAttr
from stablehlo_py.ir.infer import InferError, has_rule, infer_op, infer_result_types
from stablehlo_py.ir.infer.shapes import DYN, ranked, types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import TypeExtensionsAttr
from tests.unit.ir.infer.cases import Case, case, cases_test, op_case
from tests.unit.ir.infer.helpers import first_op_any as _op
from tests.unit.ir.infer.helpers import infer_error_any as _error
from tests.unit.ir.infer.helpers import op_verify_message
from tests.conftest import CONFORMANCE

FAMILY = {
    "stablehlo.dot",
    "stablehlo.dot_general",
    "stablehlo.convolution",
    "stablehlo.dynamic_conv",
    "stablehlo.fft",
    "stablehlo.triangular_solve",
    "stablehlo.cholesky",
    "stablehlo.batch_norm_grad",
    "stablehlo.batch_norm_inference",
    "stablehlo.batch_norm_training",
    "stablehlo.rng",
}
SHAPE_ONLY = {
    "stablehlo.dot",
    "stablehlo.dot_general",
    "stablehlo.convolution",
    "stablehlo.dynamic_conv",
}


def _one(text: str, name: str) -> str:
    return type_to_str(infer_op(_op(text, name))[0])


def t(s: str) -> TensorType:
    return parse(
        f"func.func @f(%a: {s}) {{\n  return\n}}\n"
    ).body.block.first_op.function_type.inputs.data[0]  # type: ignore[union-attr]


def bounded(shape: list[int], bounds: list[int]) -> TensorType:
    return ranked(shape, f32, bounds)


# ------------------------------------------------------------------------------------------ dot
def dot(lt: str, rt: str, out: str) -> str:
    return f"""func.func @f(%a: {lt}, %b: {rt}) -> {out} {{
  %0 = stablehlo.dot %a, %b : ({lt}, {rt}) -> {out}
  return %0 : {out}
}}
"""


def test_dot() -> None:
    D = "stablehlo.dot"
    assert (
        _one(dot("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>"), D) == "tensor<2x4xf32>"
    )
    assert _one(dot("tensor<3xf32>", "tensor<3x4xf32>", "tensor<4xf32>"), D) == "tensor<4xf32>"
    assert _one(dot("tensor<2x3xf32>", "tensor<3xf32>", "tensor<2xf32>"), D) == "tensor<2xf32>"
    assert _one(dot("tensor<3xf32>", "tensor<3xf32>", "tensor<f32>"), D) == "tensor<f32>"
    assert (
        _one(dot("tensor<?x3xf32>", "tensor<?x?xf32>", "tensor<?x?xf32>"), D) == "tensor<?x?xf32>"
    )
    b1 = "tensor<?x12xf32, #stablehlo.bounds<64, ?>>"
    b2 = "tensor<12x?xf32, #stablehlo.bounds<?, 64>>"
    out = "tensor<?x?xf32, #stablehlo.bounds<64, 64>>"
    assert _one(dot(b1, b2, out), D) == out
    assert _error(dot("tensor<2x3xf32>", "tensor<4x4xf32>", "tensor<2x4xf32>"), D) == (
        "expected both lhs/rhs ranks to be either 1 or 2"
    )


# ---------------------------------------------------------------------------------- dot_general
def dot_general(lt: str, rt: str, out: str, dims: str) -> str:
    return f"""func.func @f(%a: {lt}, %b: {rt}) -> {out} {{
  %0 = stablehlo.dot_general %a, %b, {dims} : ({lt}, {rt}) -> {out}
  return %0 : {out}
}}
"""


def test_dot_general() -> None:
    DG = "stablehlo.dot_general"
    dims = "batching_dims = [0] x [0], contracting_dims = [2] x [1]"
    assert (
        _one(dot_general("tensor<2x3x4xf32>", "tensor<2x4x5xf32>", "tensor<2x3x5xf32>", dims), DG)
        == "tensor<2x3x5xf32>"
    )
    assert (
        _one(dot_general("tensor<?x3x4xf32>", "tensor<2x4x?xf32>", "tensor<2x3x?xf32>", dims), DG)
        == "tensor<2x3x?xf32>"
    )
    lt = "tensor<10x?x12xf32, #stablehlo.bounds<?, 64, ?>>"
    rt = "tensor<10x12x?xf32, #stablehlo.bounds<?, ?, 64>>"
    out = "tensor<10x?x?xf32, #stablehlo.bounds<?, 64, 64>>"
    assert _one(dot_general(lt, rt, out, dims), DG) == out
    # a batching dimension takes the most specific size and bound of the two
    lt2 = "tensor<?x3x4xf32, #stablehlo.bounds<8, ?, ?>>"
    rt2 = "tensor<?x4x5xf32, #stablehlo.bounds<6, ?, ?>>"
    assert (
        _one(dot_general(lt2, rt2, "tensor<?x3x5xf32>", dims), DG)
        == "tensor<?x3x5xf32, #stablehlo.bounds<6, ?, ?>>"
    )
    bad = dot_general(
        "tensor<2x3x4xf32>",
        "tensor<2x5x5xf32>",
        "tensor<2x3x5xf32>",
        dims,
    )
    assert _error(bad, DG) == "contracting dimension sizes must match for lhs/rhs"
    bad = dot_general(
        "tensor<2x3x4xf32>",
        "tensor<3x4x5xf32>",
        "tensor<2x3x5xf32>",
        dims,
    )
    assert _error(bad, DG) == "batching dimension sizes must match for lhs/rhs"
    bad = dot_general(
        "tensor<2x3x4xf32>",
        "tensor<2x4x5xf32>",
        "tensor<2x3x5xf32>",
        "batching_dims = [0] x [0], contracting_dims = [3] x [1]",
    )
    assert _error(bad, DG) == "lhs_contracting_dimensions value: 3 is out of range: [0, 3)"
    bad = dot_general(
        "tensor<2x3x4xf32>",
        "tensor<2x4x5xf32>",
        "tensor<2x3x5xf32>",
        "batching_dims = [0] x [0], contracting_dims = [0] x [1]",
    )
    assert _error(bad, DG) == (
        "has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions: 0"
    )
    bad = dot_general(
        "tensor<2x3x4xf32>",
        "tensor<2x4x5xf32>",
        "tensor<2x3x5xf32>",
        "batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT, DEFAULT]",
    )
    assert _error(bad, DG) == "expects precision config to be empty or have <= 2 elements, got 3"


# ---------------------------------------------------------------------------------- convolution
def conv(lt: str, rt: str, out: str, window: str = "", attrs: str = "") -> str:
    return f"""func.func @f(%a: {lt}, %b: {rt}) -> {out} {{
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{{window}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64{attrs}}} : ({lt}, {rt}) -> {out}
  return %0 : {out}
}}
"""


def test_convolution() -> None:
    C = "stablehlo.convolution"
    lt, rt = "tensor<1x8x8x207xf32>", "tensor<3x3x207x16xf32>"
    assert _one(conv(lt, rt, "tensor<1x6x6x16xf32>"), C) == "tensor<1x6x6x16xf32>"
    w = "stride = [2, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2]"
    assert _one(conv(lt, rt, "tensor<1x4x6x16xf32>", w), C) == "tensor<1x4x6x16xf32>"
    assert (
        _one(conv("tensor<?x8x?x207xf32>", rt, "tensor<?x6x?x16xf32>"), C) == "tensor<?x6x?x16xf32>"
    )
    # no bounds are inferred for a convolution (upstream's components carry none)
    assert (
        _one(
            conv(
                "tensor<1x8x?x207xf32, #stablehlo.bounds<?, ?, 9, ?>>", rt, "tensor<1x6x?x16xf32>"
            ),
            C,
        )
        == "tensor<1x6x?x16xf32>"
    )
    assert _error(conv("tensor<1x8x8x206xf32>", rt, "tensor<1x6x6x16xf32>"), C) == (
        "expects input feature dimension (206) / feature_group_count = kernel input feature "
        "dimension (207). Got feature_group_count = 1."
    )
    assert _error(conv(lt, rt, "tensor<1x6x6x16xf32>", "stride = [0, 1]"), C) == (
        "expects window to have positive stride for 0-th window dimension, but got 0."
    )
    assert _error(conv(lt, "tensor<3x3x207xf32>", "tensor<1x6x6x16xf32>"), C) == (
        "expects convolution arguments to have same number of dimensions. Got: "
        "'tensor<1x8x8x207xf32>' and 'tensor<3x3x207xf32>'."
    )
    assert _error(conv(lt, "tensor<3x3x207x16xi32>", "tensor<1x6x6x16xf32>"), C) == (
        "expects lhs and rhs to have compatible element type. Got: 'f32' and 'i32'"
    )


def test_convolution_verifier_message() -> None:
    text = conv("tensor<1x8x8x207xf32>", "tensor<3x3x207x16xf32>", "tensor<1x6x7x16xf32>")
    assert (
        "inferred shape '[1, 6, 6, 16]' is incompatible with return type of operation "
        "'tensor<1x6x7x16xf32>'" in op_verify_message(text, "stablehlo.convolution", Exception)
    )


def test_dynamic_conv() -> None:
    base = """func.func @f(%a: tensor<1x8x8x207xf32>, %b: tensor<3x3x207x16xf32>{arg}) -> tensor<1x?x?x16xf32> {{
  {pad}%0 = "stablehlo.dynamic_conv"(%a, %b, %p) {{dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x8x8x207xf32>, tensor<3x3x207x16xf32>, tensor<{pt}xi64>) -> tensor<1x?x?x16xf32>
  return %0 : tensor<1x?x?x16xf32>
}}
"""
    DC = "stablehlo.dynamic_conv"
    # a padding operand that is not a constant: dynamic spatial sizes
    assert (
        _one(base.format(arg=", %p: tensor<2x2xi64>", pad="", pt="2x2"), DC)
        == "tensor<1x?x?x16xf32>"
    )
    const = "%p = stablehlo.constant dense<1> : tensor<2x2xi64>\n  "
    assert _one(base.format(arg="", pad=const, pt="2x2"), DC) == "tensor<1x8x8x16xf32>"
    assert _error(base.format(arg=", %p: tensor<3x2xi64>", pad="", pt="3x2"), DC) == (
        "expects padding to be of shape [2, 2], but got [3, 2]"
    )


# ---------------------------------------------------------------------------- fft and solvers
def _fft(operand: TensorType, kind: str, length: list[int]) -> list[str]:
    from xdsl.dialects.builtin import DenseArrayBase

    attrs = {"fft_type": FftTypeAttr(kind), "fft_length": DenseArrayBase.from_list(i64, length)}
    return [type_to_str(x) for x in infer_result_types("stablehlo.fft", [operand], attrs)]


def test_fft() -> None:
    c64 = ComplexType(f32)
    assert _fft(ranked([3, 9], c64), "FFT", [9]) == ["tensor<3x9xcomplex<f32>>"]
    assert _fft(ranked([3, 16], f32), "RFFT", [16]) == ["tensor<3x9xcomplex<f32>>"]
    assert _fft(ranked([3, 9], c64), "IRFFT", [16]) == ["tensor<3x16xf32>"]
    assert _fft(ranked([DYN, 9], c64, [3, DYN]), "FFT", [9]) == [
        "tensor<?x9xcomplex<f32>, #stablehlo.bounds<3, ?>>"
    ]
    assert _fft(ranked([3, DYN, DYN], f32, [DYN, 3, 10]), "RFFT", [9]) == [
        "tensor<3x?x5xcomplex<f32>, #stablehlo.bounds<?, 3, ?>>"
    ]
    with pytest.raises(InferError, match=r"^rank must be between 1 and 3, but got 4\.$"):
        _fft(ranked([3, 9], c64), "FFT", [1, 1, 1, 1])
    with pytest.raises(InferError) as e:
        _fft(ranked([3, 9], f32), "FFT", [9])
    assert e.value.message == (
        "FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<3x9xf32>'."
    )
    with pytest.raises(InferError) as e:
        _fft(ranked([3, 8], f32), "RFFT", [9])
    assert e.value.message == (
        "RFFT requires innermost dimensions to be compatible with fft_length. Got: 3, 8 but wanted 9."
    )


def _flag(v: bool) -> IntegerAttr:
    return IntegerAttr(-1 if v else 0, i1)


def test_triangular_solve_and_cholesky() -> None:
    attrs = {
        "left_side": _flag(True),
        "lower": _flag(True),
        "unit_diagonal": _flag(False),
        "transpose_a": TransposeAttr("NO_TRANSPOSE"),
    }
    a, b = ranked([10, 5, 4, 4], f32), ranked([10, 5, 4, 3], f32)
    assert infer_result_types("stablehlo.triangular_solve", [a, b], attrs) == [b]
    bb = ranked([10, 5, DYN, DYN], f32, [DYN, DYN, DYN, 7])
    assert infer_result_types(
        "stablehlo.triangular_solve", [ranked([10, 5, DYN, DYN], f32), bb], attrs
    ) == [bb]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.triangular_solve", [ranked([10, 5, 4, 3], f32), b], attrs)
    assert e.value.message == (
        "two minor dimensions of operand 'a' must be compatible, but got 'tensor<10x5x4x3xf32>'"
    )
    ca = ranked([2, DYN, DYN], f32, [DYN, 5, DYN])
    assert infer_result_types("stablehlo.cholesky", [ca]) == [ca]
    assert infer_result_types("stablehlo.cholesky", [ranked([2, 2], f32)]) == [ranked([2, 2], f32)]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.cholesky", [ranked([2, 3], f32)])
    assert e.value.message == "minor dimensions of 'a' must have equal size, got shape 2, 3."
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.cholesky", [ranked([DYN], f32)])
    assert e.value.message == "argument 'a' must have rank >= 2, got shape -9223372036854775808."


def test_batch_norm() -> None:
    fi = {"feature_index": IntegerAttr(1, i64)}
    x, s = ranked([2, DYN], f32, [DYN, 64]), ranked([DYN], f32, [64])
    assert infer_result_types("stablehlo.batch_norm_training", [x, s, s], fi) == [x, s, s]
    assert infer_result_types("stablehlo.batch_norm_grad", [x, s, s, s, x], fi) == [x, s, s]
    assert infer_result_types("stablehlo.batch_norm_inference", [x, s, s, s, s], fi) == [x]
    y = ranked([4, 256], f32)
    assert infer_result_types(
        "stablehlo.batch_norm_training", [y, ranked([256], f32)] * 1 + [ranked([256], f32)], fi
    ) == [
        y,
        ranked([256], f32),
        ranked([256], f32),
    ]
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.batch_norm_training", [y, ranked([3], f32), ranked([3], f32)], fi
        )
    assert e.value.message == (
        "expects the size of single-dimensional operands to be compatible with feature count, but "
        "the size of single-dimensional operands is 3 and the feature count is 256."
    )
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.batch_norm_training",
            [y, ranked([256], f32), ranked([256], f32)],
            {"feature_index": IntegerAttr(2, i64)},
        )
    assert e.value.message == (
        "expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
        "featureIndex 2, and rank 2."
    )


def test_rng() -> None:
    text = """func.func @f(%a: tensor<f32>, %b: tensor<f32>{arg}) -> tensor<{out}xf32> {{
  {shape}%0 = stablehlo.rng %a, %b, %s, distribution = {dist} : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<{out}xf32>
  return %0 : tensor<{out}xf32>
}}
"""
    const = "%s = stablehlo.constant dense<[2, 3, 5]> : tensor<3xi64>\n  "
    assert (
        _one(text.format(arg="", shape=const, out="2x3x5", dist="UNIFORM"), "stablehlo.rng")
        == "tensor<2x3x5xf32>"
    )
    assert (
        _one(
            text.format(arg=", %s: tensor<3xi64>", shape="", out="?x?x?", dist="NORMAL"),
            "stablehlo.rng",
        )
        == "tensor<?x?x?xf32>"
    )
    bad = (
        text.format(arg=", %s: tensor<3xi64>", shape="", out="?x?x?", dist="NORMAL")
        .replace("tensor<f32>", "tensor<i32>")
        .replace("xf32>", "xi32>")
    )
    assert _error(bad, "stablehlo.rng") == "mu and sigma must be floats"


def test_rng_bit_generator_has_no_rule() -> None:
    assert not has_rule("stablehlo.rng_bit_generator")
    assert all(has_rule(n) for n in FAMILY)


# ------------------------------------------------------------------------------- differential
def test_differential_conformance_testdata() -> None:
    paths = [
        p
        for p in sorted(glob.glob(f"{CONFORMANCE}/testdata/*.mlir"))
        if re.search(
            r"(dot|conv|fft|triangular|cholesky|batch_norm|einsum|matmul)", p.rsplit("/", 1)[1]
        )
    ]
    if not paths:
        pytest.skip("../shared/conformance/testdata is absent")
    seen = 0
    for path in paths:
        m = parse(Path(path).read_text())
        for op in m.walk():
            if op.name not in FAMILY:
                continue
            declared = [r.type for r in op.results]
            inferred = infer_op(op)
            if op.name in SHAPE_ONLY:
                assert [x.get_shape() for x in inferred] == [x.get_shape() for x in declared], path
            else:
                assert types_compatible(inferred, declared), path
                assert inferred == declared, path
            seen += 1
    assert seen > 30


INFER = f"{CONFORMANCE}/infer/infer_stablehlo.mlir"


def test_differential_infer_stablehlo() -> None:
    """infer_stablehlo.mlir's `types0 = ...` lines of this family's ops (get_return_type_components
    prints shape-only components with `index` elements)."""
    if not Path(INFER).is_file():
        pytest.skip("infer_stablehlo.mlir is absent")
    checked = 0
    for chunk in Path(INFER).read_text().split("// -----"):
        ops = [n for n in FAMILY if re.search(re.escape(n) + r'["\s(]', chunk)]
        if len(ops) != 1 or "expected-error" in chunk:
            continue
        want = re.findall(r"CHECK: types0 = (.*)", chunk)
        if len(want) != 1:
            continue
        got = type_to_str(infer_op(_op(chunk, ops[0]))[0])
        if "xindex" in want[0]:
            got = re.sub(r"x(f32|f64|i32|complex<f32>)", "xindex", got, count=1)
        assert got == want[0].strip(), (want, got)
        checked += 1
    assert checked >= 12


def test_bounds_encoding_type() -> None:
    assert isinstance(bounded([DYN], [4]).encoding, TypeExtensionsAttr)


# ------------------------------------------------------------------------------ coverage cases
def _binary(op: str, attrs: str, a: str, b: str, want: str) -> Case:
    return op_case(f"stablehlo.{op}", [("%a", a), ("%b", b)], want, attrs=attrs)


_DOT_GENERAL = (
    "{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
    "rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}"
)
_CONV = (
    "{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, "
    "feature_group_count = 1 : i64}"
)


def _dynamic_conv(lhs: str, want: str) -> Case:
    line = (
        "%p = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi64>\n"
        f'  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {_CONV} : ({lhs}, tensor<2x3x2xf32>, tensor<1x2xi64>) -> {want}'
    )
    return case("stablehlo.dynamic_conv", f"%a: {lhs}, %b: tensor<2x3x2xf32>", line, want)


def _unary(op: str, attrs: str, t: str, want: str) -> Case:
    return op_case(f"stablehlo.{op}", [("%a", t)], want, attrs=attrs)


_FFT = "{fft_length = array<i64: 9>, fft_type = #stablehlo<fft_type FFT>}"
_TRI = (
    "{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, "
    "unit_diagonal = false}"
)


def _bn(op: str, operands: str, fi: int, t: str, s: str, *want: str) -> Case:
    """A batch_norm_`op` case: its operands named ``x`` (of type `t`) or ``s`` (the scale's `s`)."""
    typed = [(f"%{n}", t if n == "x" else s) for n in operands]
    attrs = f"{{epsilon = 1.0e-3 : f32, feature_index = {fi} : i64}}"
    return op_case(f"stablehlo.batch_norm_{op}", typed, *want, attrs=attrs)


def _bn_inference(t: str, s: str, fi: int, want: str) -> Case:
    return _bn("inference", "xssss", fi, t, s, want)


def _bn_training(t: str, s: str, fi: int, want: str, single: str) -> Case:
    return _bn("training", "xss", fi, t, s, want, single, single)


def _bn_grad(t: str, s: str, fi: int, want: str, single: str) -> Case:
    return _bn("grad", "xsssx", fi, t, s, want, single, single)


def _rng(shape_operand: str, want: str) -> Case:
    line = (
        "%c = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
        f'  %0 = "stablehlo.rng"(%a, %a, {shape_operand}) {{rng_distribution = #stablehlo<rng_distribution UNIFORM>}} '
        f": (tensor<f32>, tensor<f32>, tensor<2xi64>) -> {want}"
    )
    return case("stablehlo.rng", "%a: tensor<f32>, %n: tensor<2xi64>", line, want)


B = "#stablehlo.bounds"
_BN_TRAINING_AND_GRAD = [
    # (operand, scale, feature_index, result, 1-d results): batch_norm_training's and _grad's
    ("tensor<2x3xf32>", "tensor<3xf32>", 1, "tensor<2x3xf32>", "tensor<3xf32>"),
    ("tensor<?x3xf32>", "tensor<?xf32>", 0, "tensor<?x3xf32>", "tensor<?xf32>"),
    # the feature dimension's bound goes to the 1-d results
    (
        f"tensor<?x3xf32, {B}<5, ?>>",
        "tensor<?xf32>",
        0,
        f"tensor<?x3xf32, {B}<5, ?>>",
        f"tensor<?xf32, {B}<5>>",
    ),
]
CASES = [
    _binary("dot", "", "tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>"),
    _binary("dot", "", "tensor<?x3xf32>", "tensor<3x4xf32>", "tensor<?x4xf32>"),
    _binary(
        "dot", "", f"tensor<?x3xf32, {B}<5, ?>>", "tensor<3x4xf32>", f"tensor<?x4xf32, {B}<5, ?>>"
    ),
    _binary(
        "dot_general", _DOT_GENERAL, "tensor<2x3x4xf32>", "tensor<2x4x5xf32>", "tensor<2x3x5xf32>"
    ),
    _binary(
        "dot_general", _DOT_GENERAL, "tensor<?x3x4xf32>", "tensor<?x4x5xf32>", "tensor<?x3x5xf32>"
    ),
    # the batch dimension: the most specific of the two, bounded by the smaller bound
    _binary(
        "dot_general",
        _DOT_GENERAL,
        f"tensor<?x3x4xf32, {B}<5, ?, ?>>",
        f"tensor<?x4x5xf32, {B}<4, ?, ?>>",
        f"tensor<?x3x5xf32, {B}<4, ?, ?>>",
    ),
    _binary("convolution", _CONV, "tensor<1x3x5xf32>", "tensor<2x3x2xf32>", "tensor<1x2x4xf32>"),
    _binary("convolution", _CONV, "tensor<?x3x5xf32>", "tensor<2x3x2xf32>", "tensor<?x2x4xf32>"),
    # inferConvolutionOp gives no bounds
    _binary(
        "convolution",
        _CONV,
        f"tensor<1x3x?xf32, {B}<?, ?, 5>>",
        "tensor<2x3x2xf32>",
        "tensor<1x2x?xf32>",
    ),
    _dynamic_conv("tensor<1x3x5xf32>", "tensor<1x2x6xf32>"),
    _dynamic_conv("tensor<?x3x5xf32>", "tensor<?x2x6xf32>"),
    _dynamic_conv(f"tensor<?x3x5xf32, {B}<4, ?, ?>>", "tensor<?x2x6xf32>"),
    _unary("fft", _FFT, "tensor<3x9xcomplex<f32>>", "tensor<3x9xcomplex<f32>>"),
    _unary("fft", _FFT, "tensor<?x9xcomplex<f32>>", "tensor<?x9xcomplex<f32>>"),
    _unary(
        "fft", _FFT, f"tensor<?x9xcomplex<f32>, {B}<3, ?>>", f"tensor<?x9xcomplex<f32>, {B}<3, ?>>"
    ),
    _binary("triangular_solve", _TRI, "tensor<4x4xf32>", "tensor<4x3xf32>", "tensor<4x3xf32>"),
    _binary("triangular_solve", _TRI, "tensor<?x?xf32>", "tensor<?x3xf32>", "tensor<?x3xf32>"),
    # the result is b's type, bounds and all
    _binary(
        "triangular_solve",
        _TRI,
        f"tensor<?x4xf32, {B}<4, ?>>",
        f"tensor<4x?xf32, {B}<?, 7>>",
        f"tensor<4x?xf32, {B}<?, 7>>",
    ),
    _unary("cholesky", "{lower = true}", "tensor<1x2x2xf32>", "tensor<1x2x2xf32>"),
    _unary("cholesky", "{lower = true}", "tensor<?x2x2xf32>", "tensor<?x2x2xf32>"),
    _unary(
        "cholesky",
        "{lower = true}",
        f"tensor<2x?x?xf32, {B}<?, 5, ?>>",
        f"tensor<2x?x?xf32, {B}<?, 5, ?>>",
    ),
    _bn_inference("tensor<2x3xf32>", "tensor<3xf32>", 1, "tensor<2x3xf32>"),
    _bn_inference("tensor<?x3xf32>", "tensor<3xf32>", 1, "tensor<?x3xf32>"),
    _bn_inference(f"tensor<?x3xf32, {B}<5, ?>>", "tensor<3xf32>", 1, f"tensor<?x3xf32, {B}<5, ?>>"),
    *(bn(*row) for bn in (_bn_training, _bn_grad) for row in _BN_TRAINING_AND_GRAD),
    # a constant shape gives the sizes; any other shape operand, one `?` per element
    _rng("%c", "tensor<2x3xf32>"),
    _rng("%n", "tensor<?x?xf32>"),
]


test_cases = cases_test(CASES)
