"""stablehlo_py/ir/infer/ (the result-type inference rules): what the mutation runs of the
`infer-rest` and `infer-linalg` groups found unchecked.

Two kinds of test:

* upstream's own verifier programs (``../shared/conformance/verify/*.mlir``), run in-process chunk by
  chunk with their RUN line's flags (``--verify-diagnostics``: every expected diagnostic in upstream's
  words at upstream's line) -- tests/conformance/test_verify.py runs the same files as subprocesses,
  which import the unmutated package and so cannot tell a mutant from the original;
* direct tests of the rules where those files do not reach: dynamic dimensions, ``#stablehlo.bounds``,
  quantized element types, tokens and tuples, and the error wording (from upstream's
  TypeInference.cpp / StablehloOps.cpp / ChloOps.cpp, /work/shared/reference/upstream/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ir.infer.helpers import ty
from tests.conformance.chunks import RunLine, run_chunks
from tests.conformance.runlines import run_lines
from tests.conftest import conformance_files

# ---------------------------------------------------------------------------------------------
# upstream's verifier programs, in-process
# ---------------------------------------------------------------------------------------------


def _verify_files() -> list[Path]:
    """The verify files whose (single) RUN line is one `stablehlo-opt ... [| FileCheck]` command."""
    out = []
    for p in conformance_files("verify"):
        lines = run_lines(p)
        try:
            if len(lines) == 1:
                RunLine.parse(lines[0])
                out.append(p)
        except ValueError:
            continue  # a pipe of two stablehlo-opt runs: test_verify.py runs it as lit does
    return out


VERIFY = _verify_files()


@pytest.mark.skipif(not VERIFY, reason="../shared/conformance/verify is absent")
@pytest.mark.parametrize("path", VERIFY, ids=lambda p: p.name)
def test_upstream_verify_file_in_process(path: Path, tmp_path: Path) -> None:
    """Every chunk of the file passes its RUN line with the package under test (diagnostics word
    for word, at upstream's lines, and the CHECK lines of the printed output)."""
    (line,) = run_lines(path)
    report = run_chunks(path, line, tmp_path)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()


# ---------------------------------------------------------------------------------------------
# direct tests of the rules
# ---------------------------------------------------------------------------------------------
from xdsl.dialects.builtin import (  # noqa: E402
    ArrayAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    f32,
    i32,
)

from stablehlo_py.ir import parse  # noqa: E402
from stablehlo_py.ir.infer import InferError, infer_result_types  # noqa: E402
from stablehlo_py.ir.infer import shapes as S  # noqa: E402
from stablehlo_py.ir.text.printer import type_to_str  # noqa: E402
from stablehlo_py.ir.types import TokenType  # noqa: E402

DYN = S.DYN


def infer(name: str, *types: str, **attrs) -> list[str]:  # type: ignore[no-untyped-def]
    return [type_to_str(t) for t in infer_result_types(name, [ty(x) for x in types], attrs)]


def infer_err(name: str, *types, **attrs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        infer_result_types(name, [ty(x) if isinstance(x, str) else x for x in types], attrs)
    return e.value.message


Q8 = "!quant.uniform<i8:f32, 1.000000e+00:3>"


# ------------------------------------------------------------------------------------- shapes.py
def test_bounds_of_and_encoding() -> None:
    assert S.bounds_of(ty("tensor<?x3xf32, #stablehlo.bounds<4, ?>>")) == (4, DYN)
    assert S.bounds_of(ty("tensor<2xf32>")) == ()
    assert S.bounds_of(ty("tensor<*xf32>")) == ()
    assert S.bounds_of(f32) == ()
    assert S.bounds_to_encoding([]) is None
    assert S.bounds_to_encoding([DYN, DYN]) is None
    assert S.bounds_to_encoding([DYN, 3]) is not None
    assert tuple(S.bounds_to_encoding([DYN, 3]).bounds) == (DYN, 3)  # type: ignore[union-attr]
    assert type_to_str(S.ranked((DYN, 2), f32, (5, DYN))) == "tensor<?x2xf32, #stablehlo.bounds<5, ?>>"
    assert type_to_str(S.ranked((DYN, 2), f32, (DYN, DYN))) == "tensor<?x2xf32>"
    assert S.is_dynamic(-1) and not S.is_dynamic(0)


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        ("tensor<?xf32, #stablehlo.bounds<3>>", "tensor<3xf32>", True),  # size == bound
        ("tensor<?xf32, #stablehlo.bounds<2>>", "tensor<3xf32>", False),
        ("tensor<3xf32>", "tensor<?xf32, #stablehlo.bounds<3>>", True),
        ("tensor<3xf32>", "tensor<?xf32, #stablehlo.bounds<2>>", False),
        ("tensor<2x?xf32, #stablehlo.bounds<?, 4>>", "tensor<2x4xf32>", True),
        ("tensor<2x?xf32, #stablehlo.bounds<?, 4>>", "tensor<2x5xf32>", False),
        ("tensor<?xf32, #stablehlo.bounds<2>>", "tensor<?xf32, #stablehlo.bounds<9>>", True),
        ("tensor<f32>", "tensor<f32>", True),
        ("tensor<f32>", "tensor<1xf32>", False),
        ("tensor<*xf32>", "tensor<2x3xf32>", True),
        ("tensor<2x3xf32>", "tensor<*xf32>", True),
        ("tensor<2x3xf32>", "tensor<3x2xf32>", False),
        ("tensor<2x?xf32>", "tensor<?x7xf32>", True),
        ("memref<2xf32>", "memref<?xf32>", True),
        ("memref<2xf32>", "memref<3xf32>", False),
    ],
)
def test_compatible_shape_with_bounds(a: str, b: str, ok: bool) -> None:
    assert S.compatible_shape_with_bounds(ty(a), ty(b)) is ok
    assert S.compatible_shape_with_bounds(ty(b), ty(a)) is ok
    assert S.is_compatible(ty(a), ty(b)) is ok


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        # quantized: storage type, signedness, storage range, expressed type and granularity count;
        # scale and zero point do not
        ("!quant.uniform<i8:f32, 1.0:3>", "!quant.uniform<i8:f32, 2.0:-1>", True),
        ("!quant.uniform<i8:f32, 1.0>", "!quant.uniform<i16:f32, 1.0>", False),
        ("!quant.uniform<i8:f32, 1.0>", "!quant.uniform<u8:f32, 1.0>", False),
        ("!quant.uniform<i8<-127:127>:f32, 1.0>", "!quant.uniform<i8:f32, 1.0>", False),
        ("!quant.uniform<i8<-128:126>:f32, 1.0>", "!quant.uniform<i8:f32, 1.0>", False),
        ("!quant.uniform<i8:f32, 1.0>", "!quant.uniform<i8:f16, 1.0>", False),
        ("!quant.uniform<i8:f32:0, {1.0, 2.0}>", "!quant.uniform<i8:f32, 1.0>", False),
        ("!quant.uniform<i8:f32:0, {1.0, 2.0}>", "!quant.uniform<i8:f32:1, {3.0:1, 2.0}>", True),
        ("!quant.uniform<i8:f32, 1.0>", "i8", False),
        ("i8", "!quant.uniform<i8:f32, 1.0>", False),
        ("f32", "f32", True),
        ("f32", "f16", False),
    ],
)
def test_element_type_compatible(a: str, b: str, ok: bool) -> None:
    ta, tb = ty(f"tensor<2x{a}>"), ty(f"tensor<2x{b}>")
    assert S.element_type_compatible(ta, tb) is ok
    assert S.element_type_compatible(tb, ta) is ok
    assert S.is_compatible(ta, tb) is ok
    assert S.element_type_compatible(ta.element_type, tb.element_type) is ok


def test_compatibility_of_tuples_tokens_and_ranges() -> None:
    tup = ty("tuple<tensor<2xf32>, !stablehlo.token>")
    assert S.is_compatible(tup, ty("tuple<tensor<2xf32>, !stablehlo.token>"))
    # a tuple is compared as a whole: its elements' dynamic sizes do not make it compatible
    assert not S.is_compatible(tup, ty("tuple<tensor<?xf32>, !stablehlo.token>"))
    assert not S.is_compatible(tup, ty("tensor<2xf32>"))
    assert not S.is_compatible(ty("tensor<2xf32>"), tup)
    assert S.is_compatible(TokenType(), TokenType())
    assert not S.is_compatible(TokenType(), ty("tensor<f32>"))
    # a shaped type against one that is not: their element types (upstream's getElementTypeOrSelf)
    assert S.is_compatible(ty("tensor<2xf32>"), f32) and S.is_compatible(f32, ty("tensor<*xf32>"))
    assert not S.is_compatible(ty("tensor<2xf32>"), ty("tensor<f16>").element_type)
    a, b = ty("tensor<2xf32>"), ty("tensor<?xf32>")
    assert S.types_compatible([a, b], [b, a])
    assert not S.types_compatible([a], [a, a])
    assert not S.types_compatible([a, a], [a])
    assert not S.types_compatible([a, a], [a, ty("tensor<3xf32>")])
    assert S.types_compatible([], [])


# upstream's inferMostSpecificDimAndBound table (Base.cpp) and its messages
@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ("tensor<2x?xf32>", "tensor<?x3xf32>", "tensor<2x3xf32>"),  # c0, c1
        ("tensor<3xf32>", "tensor<?xf32, #stablehlo.bounds<3>>", "tensor<3xf32>"),  # c2 (B == X)
        ("tensor<?xf32, #stablehlo.bounds<5>>", "tensor<4xf32>", "tensor<4xf32>"),
        ("tensor<?xf32>", "tensor<?xf32>", "tensor<?xf32>"),  # c4
        # c5; upstream's inferTypeWithCustomFn keeps bounds only when the first type has some
        ("tensor<?xf32>", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32>"),
        ("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32>", "tensor<?xf32, #stablehlo.bounds<4>>"),
        (
            "tensor<?x?xf32, #stablehlo.bounds<4, 9>>",
            "tensor<?x?xf32, #stablehlo.bounds<6, 2>>",
            "tensor<?x?xf32, #stablehlo.bounds<4, 2>>",
        ),  # c6: min
        (
            "tensor<2x?xf32, #stablehlo.bounds<?, 3>>",
            "tensor<?x?xf32>",
            "tensor<2x?xf32, #stablehlo.bounds<?, 3>>",
        ),
        ("tensor<*xf32>", "tensor<?x2xf32>", "tensor<?x2xf32>"),
        ("tensor<?x2xf32>", "tensor<*xf32>", "tensor<?x2xf32>"),
        ("tensor<*xf32>", "tensor<*xf32>", "tensor<*xf32>"),
        # no ranked type: the first, as it is
        (f"tensor<*x{Q8}>", "tensor<*x!quant.uniform<i8:f32, 2.0>>", f"tensor<*x{Q8}>"),
        # no bounds in the first type: its encoding as it is (boundsToEncoding(prototype, {})),
        # another dialect's or the `#stablehlo.bounds<>` of a rank-0 tensor; a `#stablehlo.bounds`
        # that bounds nothing is dropped, even between equal types (upstream rebuilds the type).
        # Checked against stablehlo.add's inferred type in jaxlib (StableHLO 1.17 and 1.22).
        ('tensor<?xf32, "foo">', 'tensor<2xf32, "foo">', 'tensor<2xf32, "foo">'),
        ('tensor<2xf32, "foo">', "tensor<?xf32>", 'tensor<2xf32, "foo">'),
        ("tensor<?xf32>", 'tensor<2xf32, "foo">', "tensor<2xf32>"),
        ("tensor<f32, #stablehlo.bounds<>>", "tensor<f32>", "tensor<f32, #stablehlo.bounds<>>"),
        ("tensor<f32>", "tensor<f32, #stablehlo.bounds<>>", "tensor<f32>"),
        ("tensor<?xf32, #stablehlo.bounds<?>>", "tensor<?xf32, #stablehlo.bounds<?>>", "tensor<?xf32>"),
        ("tensor<?x2xf32, #stablehlo.bounds<?, ?>>", "tensor<?x2xf32>", "tensor<?x2xf32>"),
    ],
)
def test_most_specific_type(a: str, b: str, want: str) -> None:
    assert type_to_str(S.infer_most_specific_type([ty(a), ty(b)])) == want
    assert infer("stablehlo.subtract", a, b) == [want]


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("tensor<2x3xf32>", "tensor<2x4xf32>", "Mismatched dimension sizes 3 and 4 in dimension 1"),
        ("tensor<5xf32>", "tensor<?xf32, #stablehlo.bounds<4>>", "Mismatched dimension size 5 and bound 4 in dimension 0"),
        ("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<5xf32>", "Mismatched dimension size 5 and bound 4 in dimension 0"),
        ("tensor<2xf32>", "tensor<2x3xf32>", "Mismatched ranks of types1 vs 2"),
        ("tensor<2x3xf32>", "tensor<2xf32>", "Mismatched ranks of types2 vs 1"),
    ],
)
def test_most_specific_type_errors(a: str, b: str, message: str) -> None:
    with pytest.raises(InferError) as e:
        S.infer_most_specific_type([ty(a), ty(b)])
    assert e.value.message == message
    assert infer_err("stablehlo.maximum", a, b) == message


def test_most_specific_of_three() -> None:
    # the third type refines what the first two left dynamic; its bound is checked against it
    types = [ty("tensor<?x?xf32>"), ty("tensor<?x3xf32>"), ty("tensor<2x?xf32>")]
    assert type_to_str(S.infer_most_specific_type(types)) == "tensor<2x3xf32>"
    with pytest.raises(InferError) as e:
        S.infer_most_specific_type(
            [ty("tensor<?xf32>"), ty("tensor<5xf32>"), ty("tensor<?xf32, #stablehlo.bounds<4>>")]
        )
    assert e.value.message == "Mismatched dimension size 5 and bound 4 in dimension 0"
    got = S.infer_most_specific_type(
        [ty("tensor<?xf32, #stablehlo.bounds<9>>"), ty("tensor<?xf32>"), ty("tensor<?xf32, #stablehlo.bounds<4>>")]
    )
    assert type_to_str(got) == "tensor<?xf32, #stablehlo.bounds<4>>"


# upstream's inferLeastSpecificDimAndBound table
@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ("tensor<2xf32>", "tensor<2xf32>", "tensor<2xf32>"),  # c0
        ("tensor<2xf32>", "tensor<?xf32>", "tensor<?xf32>"),  # c1
        ("tensor<?xf32>", "tensor<2xf32>", "tensor<?xf32>"),
        # c2 (bounds kept only when the first type has some, as upstream's inferTypeWithCustomFn)
        ("tensor<2xf32>", "tensor<?xf32, #stablehlo.bounds<5>>", "tensor<?xf32>"),
        ("tensor<?xf32, #stablehlo.bounds<2>>", "tensor<7xf32>", "tensor<?xf32, #stablehlo.bounds<7>>"),
        ("tensor<?xf32, #stablehlo.bounds<5>>", "tensor<7xf32>", "tensor<?xf32, #stablehlo.bounds<7>>"),
        ("tensor<?xf32, #stablehlo.bounds<5>>", "tensor<3xf32>", "tensor<?xf32, #stablehlo.bounds<5>>"),
        ("tensor<?xf32>", "tensor<?xf32>", "tensor<?xf32>"),  # c3
        ("tensor<?xf32>", "tensor<?xf32, #stablehlo.bounds<5>>", "tensor<?xf32>"),  # c4
        ("tensor<?xf32, #stablehlo.bounds<5>>", "tensor<?xf32>", "tensor<?xf32>"),
        (
            "tensor<?x?xf32, #stablehlo.bounds<3, 9>>",
            "tensor<?x?xf32, #stablehlo.bounds<6, 2>>",
            "tensor<?x?xf32, #stablehlo.bounds<6, 9>>",
        ),  # c5: max
        ("tensor<*xf32>", "tensor<2xf32>", "tensor<*xf32>"),
        ("tensor<2xf32>", "tensor<*xf32>", "tensor<*xf32>"),
        # the first type's encoding, as for the most specific type
        ('tensor<?xf32, "foo">', 'tensor<2xf32, "foo">', 'tensor<?xf32, "foo">'),
        ('tensor<2xf32, "foo">', "tensor<2xf32>", 'tensor<2xf32, "foo">'),
        ("tensor<2xf32>", 'tensor<2xf32, "foo">', "tensor<2xf32>"),
        ("tensor<f32, #stablehlo.bounds<>>", "tensor<f32>", "tensor<f32, #stablehlo.bounds<>>"),
        ("tensor<?xf32, #stablehlo.bounds<?>>", "tensor<?xf32, #stablehlo.bounds<?>>", "tensor<?xf32>"),
    ],
)
def test_least_specific_type(a: str, b: str, want: str) -> None:
    assert type_to_str(S.infer_least_specific_type([ty(a), ty(b)])) == want


@pytest.mark.parametrize(
    "t", ["tensor<2xf32>", "tensor<?xf32, #stablehlo.bounds<3>>", "tensor<*xf32>", "tuple<tensor<2xf32>>"]
)
def test_most_and_least_specific_type_of_one_type_is_that_type(t: str) -> None:
    # a case with one branch, a unary op
    assert type_to_str(S.infer_least_specific_type([ty(t)])) == t
    assert type_to_str(S.infer_most_specific_type([ty(t)])) == t


def test_least_specific_type_errors_and_tuples() -> None:
    with pytest.raises(InferError) as e:
        S.infer_least_specific_type([ty("tensor<2x3xf32>"), ty("tensor<2x4xf32>")])
    assert e.value.message == "Mismatched dimension sizes 3 and 4 in dimension 1"
    with pytest.raises(InferError) as e:
        S.infer_least_specific_type([ty("tensor<2x3xf32>"), ty("tensor<2xf32>")])
    assert e.value.message == "Mismatched ranks of types2 vs 1"
    got = S.infer_least_specific_type(
        [ty("tuple<tensor<2xf32>, tuple<tensor<3xi32>>>"), ty("tuple<tensor<?xf32>, tuple<tensor<3xi32>>>")]
    )
    assert type_to_str(got) == "tuple<tensor<?xf32>, tuple<tensor<3xi32>>>"
    got = S.infer_most_specific_type(
        [ty("tuple<tensor<2xf32>, !stablehlo.token>"), ty("tuple<tensor<?xf32>, !stablehlo.token>")]
    )
    assert type_to_str(got) == "tuple<tensor<2xf32>, !stablehlo.token>"
    for fn in (S.infer_most_specific_type, S.infer_least_specific_type):
        with pytest.raises(InferError) as e:
            fn([ty("tuple<tensor<2xf32>>"), ty("tuple<tensor<2xf32>, tensor<2xf32>>")])
        assert e.value.message == "Mismatched tuple sizes: all tuple sizes must be the same"
        with pytest.raises(InferError) as e:
            fn([ty("tuple<tensor<2xf32>>"), ty("tensor<2xf32>")])
        assert e.value.message == (
            "Mismatched type kinds: either all types must be tuples, or no types must be tuples"
        )
        with pytest.raises(InferError) as e:
            fn([ty("tensor<2xf32>"), ty("tuple<tensor<2xf32>>")])
        assert e.value.message == (
            "Mismatched type kinds: either all types must be tuples, or no types must be tuples"
        )


def test_least_and_most_specific_keep_the_first_element_type_and_three_operands() -> None:
    got = S.infer_least_specific_type(
        [ty("tensor<?x2xf32, #stablehlo.bounds<3, ?>>"), ty("tensor<2x2xf32>"), ty("tensor<?x?xf32, #stablehlo.bounds<4, 6>>")]
    )
    assert type_to_str(got) == "tensor<?x?xf32, #stablehlo.bounds<4, 6>>"
    got = S.infer_least_specific_type([ty("tensor<2xf32>"), ty("tensor<?xf32>"), ty("tensor<2xf32>")])
    assert type_to_str(got) == "tensor<?xf32>"
    q = ty(f"tensor<?x{Q8}>")
    got = S.infer_most_specific_type([q, ty("tensor<2x!quant.uniform<i8:f32, 2.0>>")])
    assert type_to_str(got) == f"tensor<2x{Q8}>"


# -------------------------------------------------------------------------------- elementwise.py
def test_elementwise_rules_keep_encoding_and_refuse_bad_arity() -> None:
    from stablehlo_py.ir.infer.elementwise import compatible_operands_and_result

    b = "tensor<?x2xcomplex<f64>, #stablehlo.bounds<3, ?>>"
    assert infer("stablehlo.abs", b) == ["tensor<?x2xf64, #stablehlo.bounds<3, ?>>"]
    assert infer("stablehlo.real", "tensor<*xcomplex<f32>>") == ["tensor<*xf32>"]
    assert infer("stablehlo.imag", "tensor<2xf16>") == ["tensor<2xf16>"]
    assert infer("stablehlo.is_finite", "tensor<?xf32, #stablehlo.bounds<3>>") == [
        "tensor<?xi1, #stablehlo.bounds<3>>"
    ]
    assert infer("stablehlo.is_finite", "tensor<*xf32>") == ["tensor<*xi1>"]
    # compare: the lhs's shape and encoding, whatever the rhs's
    assert infer("stablehlo.compare", "tensor<?xf32, #stablehlo.bounds<3>>", "tensor<2xf32>") == [
        "tensor<?xi1, #stablehlo.bounds<3>>"
    ]
    assert infer("stablehlo.compare", "tensor<2xf32>", "tensor<?xf32>") == ["tensor<2xi1>"]
    for name in ("stablehlo.abs", "stablehlo.real", "stablehlo.imag", "stablehlo.is_finite"):
        assert infer_err(name, "tensor<2xf32>", "tensor<2xf32>") == "expected 1 operand, but got 2"
        assert infer_err(name) == "expected 1 operand, but got 0"
    assert infer_err("stablehlo.compare", "tensor<2xf32>") == "expected 2 operands, but got 1"
    assert infer_err("stablehlo.compare", *["tensor<2xf32>"] * 3) == "expected 2 operands, but got 3"
    for name in ("stablehlo.is_finite", "stablehlo.abs", "stablehlo.real", "stablehlo.imag"):
        assert infer_err(name, TokenType()) == "expected a tensor type, but got !stablehlo.token"
    assert infer_err("stablehlo.add") == "Expected non-empty operands for AddOp::inferReturnTypes"
    assert infer_err("stablehlo.multiply") == (
        "Expected non-empty operands for [CompatibleOperandsAndResultType]"
    )
    assert infer_err("chlo.acos") == (
        "Expected non-empty operands for [CompatibleOperandsAndResultType]"
    )
    a, d = ty("tensor<2xf32>"), ty("tensor<?xf32>")
    assert compatible_operands_and_result([a, d], [a])
    assert compatible_operands_and_result([], [a, d])
    assert compatible_operands_and_result([], [a])  # no operand: the first result is the reference
    assert not compatible_operands_and_result([], [a, ty("tensor<3xf32>")])
    assert not compatible_operands_and_result([a], [ty("tensor<3xf32>")])
    assert not compatible_operands_and_result([ty("tensor<3xf32>"), a], [])
    assert not compatible_operands_and_result([], [])


# ------------------------------------------------------------------------- misc / quantization
def test_constant_rule_and_its_compatibility() -> None:
    from stablehlo_py.ir.infer.misc import constant_types_compatible

    assert infer_err("stablehlo.constant") == "requires attribute 'value'"
    assert infer_err("stablehlo.constant", value=StringAttr("x")) == "attribute 'value' has no type"
    st = ty("tensor<2xi8>")
    q = ty(f"tensor<2x{Q8}>")
    assert constant_types_compatible(st, q)
    assert constant_types_compatible(st, st)
    assert constant_types_compatible(ty("tensor<*xi8>"), ty("tensor<*xi8>"))
    assert not constant_types_compatible(st, ty(f"tensor<3x{Q8}>"))
    assert not constant_types_compatible(ty("tensor<2xi16>"), q)
    assert not constant_types_compatible(st, ty("tensor<?xi8>"))  # equality, not compatibility
    assert not constant_types_compatible(st, TokenType())
    assert not constant_types_compatible(TokenType(), st)
    assert not constant_types_compatible(i32, i32)


def test_quantization_rules() -> None:
    assert infer("stablehlo.uniform_dequantize", f"tensor<?x2x{Q8}, #stablehlo.bounds<4, ?>>") == [
        "tensor<?x2xf32>"
    ]
    assert infer("stablehlo.uniform_dequantize", "tensor<*x!quant.uniform<i8:f16, 0.5>>") == [
        "tensor<*xf16>"
    ]
    assert infer_err("stablehlo.uniform_dequantize", f"tensor<2x{Q8}>", f"tensor<2x{Q8}>") == (
        "expected 1 operand, but got 2"
    )
    assert infer_err("stablehlo.uniform_dequantize", "tensor<2xf32>") == (
        "operand tensor<2xf32> must be a tensor of quantized type"
    )
    assert infer_err("stablehlo.uniform_dequantize", TokenType()) == (
        "operand !stablehlo.token must be a tensor of quantized type"
    )
    assert infer(
        "stablehlo.reduce_precision", "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
    ) == ["tensor<?x3xf32, #stablehlo.bounds<5, ?>>"]


# ------------------------------------------------------------------------- __init__ / interfaces
def test_registry_and_infer_error_flags() -> None:
    from stablehlo_py.ir import infer as I

    assert I.has_rule("stablehlo.add") and not I.has_rule("stablehlo.custom_call")
    table = I.rules()
    assert "chlo.top_k" in table and "stablehlo.while" in table
    table.pop("stablehlo.add")
    assert I.has_rule("stablehlo.add")  # rules() is a copy
    with pytest.raises(KeyError) as e:
        infer_result_types("stablehlo.custom_call", [])
    assert e.value.args[0] == "stablehlo.custom_call has no result-type inference rule"
    with pytest.raises(ValueError) as v:
        I.rule("stablehlo.add")(lambda inp: [])
    assert str(v.value) == "two inference rules for stablehlo.add"
    e1 = InferError("m")
    assert (e1.message, e1.op_prefixed, e1.invariant, e1.standalone) == ("m", False, False, False)
    e2 = InferError("m", invariant=True)
    assert (e2.op_prefixed, e2.invariant, e2.standalone) == (True, True, False)
    e3 = InferError("m", op_prefixed=True, standalone=True)
    assert (e3.op_prefixed, e3.invariant, e3.standalone) == (True, False, True)
    assert str(e3) == "m"
    inp = I.InferInput((f32,), {"k": i32})
    assert inp.attr("k") == i32 and inp.attr("x") is None and inp.regions == () and inp.operands is None


def test_infer_op_reads_properties_and_attributes() -> None:
    from stablehlo_py.ir.infer import infer_op, verify_inferred
    from xdsl.utils.exceptions import VerifyException

    m = parse(
        "func.func @f(%a: tensor<2x?xf32>, %b: tensor<?x3xf32>) {\n"
        "  %0 = stablehlo.add %a, %b : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<4x3xf32>\n"
        "  %1 = stablehlo.add %a, %b : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>\n"
        "  %2 = stablehlo.constant dense<1> : tensor<3xi32>\n"
        "  return\n}"
    )
    adds = [op for op in m.walk() if op.name == "stablehlo.add"]
    const = next(op for op in m.walk() if op.name == "stablehlo.constant")
    assert [type_to_str(t) for t in infer_op(adds[0])] == ["tensor<2x3xf32>"]
    assert [type_to_str(t) for t in infer_op(const)] == ["tensor<3xi32>"]
    with pytest.raises(VerifyException) as e:
        verify_inferred(adds[0])
    assert str(e.value) == (
        "inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation "
        "'tensor<4x3xf32>'"
    )
    verify_inferred(adds[1])
    verify_inferred(const)


def test_reports_inference_failure() -> None:
    from stablehlo_py.ir.infer.interfaces import INFER_TYPE_OP_INTERFACE, reports_inference_failure

    assert reports_inference_failure("stablehlo.add")
    assert reports_inference_failure("stablehlo.add", mismatch=True)
    assert not reports_inference_failure("stablehlo.sort")
    assert reports_inference_failure("stablehlo.sort", mismatch=True)
    assert not reports_inference_failure("stablehlo.convolution")
    assert not reports_inference_failure("stablehlo.convolution", mismatch=True)
    assert "chlo.top_k" in INFER_TYPE_OP_INTERFACE and "stablehlo.dot_general" not in INFER_TYPE_OP_INTERFACE


# --------------------------------------------------------------------------------- components.py
def test_components() -> None:
    from stablehlo_py.ir.infer.components import (
        Components,
        components_of_type,
        has_components,
        infer_components,
    )

    b = ty("tensor<?x2xf32, #stablehlo.bounds<3, ?>>")
    c = components_of_type(b)
    assert c.shape == (DYN, 2) and c.element == f32 and c.has_rank
    assert tuple(c.encoding.bounds) == (3, DYN)  # type: ignore[union-attr]
    c = components_of_type(b, with_element=False, with_encoding=False)
    assert c == Components((DYN, 2))
    assert components_of_type(ty("tensor<2xf32>")) == Components((2,), f32, None)
    assert components_of_type(ty("tensor<*xi8>")) == Components(None, ty("tensor<1xi8>").element_type)
    assert not components_of_type(ty("tensor<*xi8>")).has_rank
    assert components_of_type(ty("tensor<*xi8>"), with_element=False) == Components(None)
    assert components_of_type(TokenType()) == Components(None, TokenType())
    assert components_of_type(TokenType(), with_element=False) == Components(None, None)
    assert has_components("stablehlo.convert") and has_components("stablehlo.add")
    assert has_components("stablehlo.uniform_quantize")
    assert not has_components("stablehlo.custom_call")

    m = parse(
        "func.func @f(%a: tensor<?x3xf32, #stablehlo.bounds<4, ?>>, %b: tensor<3x5xf32>) {\n"
        "  %0 = stablehlo.convert %a : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x3xf64, #stablehlo.bounds<4, ?>>\n"
        f"  %1 = stablehlo.uniform_quantize %a : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x3x{Q8}, #stablehlo.bounds<4, ?>>\n"
        "  %2 = stablehlo.dot %a, %b : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<3x5xf32>) -> tensor<?x5xf64>\n"
        "  %3 = stablehlo.add %a, %a : tensor<?x3xf32, #stablehlo.bounds<4, ?>>\n"
        '  %4 = stablehlo.custom_call @foo(%a) : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<2xf32>\n'
        "  return\n}"
    )
    ops = {op.name: op for op in m.walk()}
    conv = infer_components(ops["stablehlo.convert"])
    assert len(conv) == 1 and conv[0].shape == (DYN, 3) and conv[0].element is None
    assert tuple(conv[0].encoding.bounds) == (4, DYN)  # type: ignore[union-attr]
    assert infer_components(ops["stablehlo.uniform_quantize"]) == [Components((DYN, 3))]
    dot = infer_components(ops["stablehlo.dot"])
    assert len(dot) == 1 and dot[0].shape == (DYN, 5) and dot[0].element is None
    add = infer_components(ops["stablehlo.add"])
    assert add[0].shape == (DYN, 3) and add[0].element == f32
    assert tuple(add[0].encoding.bounds) == (4, DYN)  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        infer_components(ops["stablehlo.custom_call"])


# ---------------------------------------------------------------------------------------- chlo.py
@pytest.mark.parametrize(
    ("x", "y", "want"),
    [
        # mlir::OpTrait::util::getBroadcastedShape (mlir/lib/Dialect/Traits.cpp), TensorFlow's rules
        # for a dynamic dimension: a size > 1 wins, 1 yields the other, else dynamic
        ((DYN,), (3,), (3,)),
        ((3,), (DYN,), (3,)),
        ((1,), (DYN,), (DYN,)),
        ((DYN,), (1,), (DYN,)),
        ((DYN,), (DYN,), (DYN,)),
        ((0,), (DYN,), (DYN,)),
        ((DYN,), (0,), (DYN,)),
        ((2,), (2,), (2,)),
        ((2,), (1,), (2,)),
        ((1,), (2,), (2,)),
        ((0,), (1,), (0,)),
        ((1,), (0,), (0,)),
        ((2,), (3,), None),
        ((0,), (2,), None),
        ((2,), (0,), None),
        ((2,), (DYN,), (2,)),
        ((DYN,), (2,), (2,)),
        ((2, 1, 4), (3, 1), (2, 3, 4)),
        ((3, 1), (2, 1, 4), (2, 3, 4)),
        ((), (2, 2), (2, 2)),
        ((2, 2), (), (2, 2)),
        ((), (), ()),
    ],
)
def test_broadcasted_shape(x, y, want) -> None:  # type: ignore[no-untyped-def]
    from stablehlo_py.ir.infer.chlo import broadcasted_shape

    assert broadcasted_shape(x, y) == want


def chlo_infer(name: str, a: str, b: str, dims: list[int] | None = None) -> list[str]:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    attrs = {} if dims is None else {"broadcast_dimensions": DenseArrayBase.from_list(i64, dims)}
    return infer(name, a, b, **attrs)


@pytest.mark.parametrize(
    ("a", "b", "dims", "want"),
    [
        # numpy broadcasting on the dynamic path (some operand neither static nor bounded)
        ("tensor<?x1xf32>", "tensor<3x?xf32>", None, "tensor<3x?xf32>"),
        ("tensor<?x2xf32>", "tensor<?x3xf32>", None, "tensor<*xf32>"),
        ("tensor<?x2xf32>", "tensor<4x1x2xf32>", None, "tensor<4x?x2xf32>"),
        # the bounded path: bounds carried through, a bounded dimension against 1
        (
            "tensor<2x?xf32, #stablehlo.bounds<?, 4>>",
            "tensor<1x?xf32, #stablehlo.bounds<?, 4>>",
            None,
            "tensor<2x?xf32, #stablehlo.bounds<?, 4>>",
        ),
        ("tensor<1xf32>", "tensor<?xf32, #stablehlo.bounds<4>>", None, "tensor<?xf32, #stablehlo.bounds<4>>"),
        ("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<1xf32>", None, "tensor<?xf32, #stablehlo.bounds<4>>"),
        ("tensor<3x1xf32>", "tensor<2x1x5xf32>", None, "tensor<2x3x5xf32>"),
        # a 1 against the other's missing (leading) dimension stays a static 1
        ("tensor<1x3xf32>", "tensor<3xf32>", None, "tensor<1x3xf32>"),
        # a static 0 in a bounded tensor is a static size, not its (absent) bound
        (
            "tensor<0x?xf32, #stablehlo.bounds<?, 4>>",
            "tensor<0x?xf32, #stablehlo.bounds<?, 4>>",
            None,
            "tensor<0x?xf32, #stablehlo.bounds<?, 4>>",
        ),
        # broadcast_dimensions (getBroadcastTypeWithBroadcastDimensions): the larger rank maps the
        # smaller's dimensions; equal ranks take y as the larger
        ("tensor<2x3xf32>", "tensor<3xf32>", [1], "tensor<2x3xf32>"),
        ("tensor<3xf32>", "tensor<2x3xf32>", [1], "tensor<2x3xf32>"),
        ("tensor<2x1xf32>", "tensor<2xf32>", [0], "tensor<2x1xf32>"),
        ("tensor<1x3xf32>", "tensor<3x1xf32>", [1, 0], "tensor<3x1xf32>"),
        ("tensor<2x?xf32>", "tensor<5xf32>", [1], "tensor<2x5xf32>"),
        ("tensor<2x3xf32>", "tensor<3xf32>", [0], "tensor<*xf32>"),  # 2 against 3
        ("tensor<2x3xf32>", "tensor<3xf32>", [2], "tensor<*xf32>"),  # out of range
        ("tensor<2x3xf32>", "tensor<3xf32>", [1, 0], "tensor<*xf32>"),  # too many
        ("tensor<2x3xf32>", "tensor<*xf32>", [1], "tensor<*xf32>"),
        ("tensor<*xf32>", "tensor<3xf32>", [0], "tensor<*xf32>"),
    ],
)
def test_chlo_broadcast_add(a: str, b: str, dims, want: str) -> None:  # type: ignore[no-untyped-def]
    assert chlo_infer("chlo.broadcast_add", a, b, dims) == [want]


def test_chlo_broadcast_errors_and_element_types() -> None:
    with pytest.raises(InferError) as e:
        chlo_infer("chlo.broadcast_add", "tensor<2x3xf32>", "tensor<4xf32>")
    assert e.value.message == "incompatible shapes for broadcasting 3 and 4"
    assert e.value.standalone and not e.value.op_prefixed
    # a static 0 is a static size (the bounded path, which refuses the op)
    with pytest.raises(InferError) as e:
        chlo_infer("chlo.broadcast_add", "tensor<0xf32>", "tensor<2xf32>")
    assert e.value.message == "incompatible shapes for broadcasting 0 and 2"
    with pytest.raises(InferError) as e:
        chlo_infer("chlo.broadcast_add", "tensor<4xf32>", "tensor<?xf32, #stablehlo.bounds<4>>")
    assert e.value.message == "cannot mix bounded and static dimensions in broadcast"
    assert not e.value.standalone
    with pytest.raises(InferError) as e:
        chlo_infer("chlo.broadcast_add", "tensor<2xf32>", "tensor<2xi32>")
    assert e.value.message == "mismatched operand types"
    # quantized operands need only compatible element types
    assert chlo_infer("chlo.broadcast_add", f"tensor<2x{Q8}>", "tensor<2x!quant.uniform<i8:f32, 2.0>>") == [
        f"tensor<2x{Q8}>"
    ]
    assert chlo_infer("chlo.broadcast_compare", "tensor<2x1xf32>", "tensor<3xf32>") == ["tensor<2x3xi1>"]
    assert chlo_infer("chlo.broadcast_complex", "tensor<2xf64>", "tensor<1xf64>") == [
        "tensor<2xcomplex<f64>>"
    ]
    assert chlo_infer("chlo.broadcast_and", "tensor<i1>", "tensor<2xi1>") == ["tensor<2xi1>"]
    assert infer(
        "chlo.broadcast_select", "tensor<2x1xi1>", "tensor<3xf32>", "tensor<1x1xf32>"
    ) == ["tensor<2x3xf32>"]
    assert infer("chlo.broadcast_select", "tensor<i1>", "tensor<*xf32>", "tensor<2xf32>") == [
        "tensor<*xf32>"
    ]
    assert infer_err("chlo.broadcast_select", "tensor<i1>", "tensor<2xf32>", "tensor<2xf16>") == (
        "mismatched operand types"
    )
    # getNumpyBroadcastType of one operand: its own shape
    from stablehlo_py.ir.infer.chlo import numpy_broadcast_type

    assert type_to_str(numpy_broadcast_type([ty("tensor<?x2xf32>")], f32)) == "tensor<?x2xf32>"


def test_chlo_unary_constant_and_top_k() -> None:
    from xdsl.dialects.builtin import FloatAttr

    assert infer("chlo.is_neg_inf", "tensor<?xf32, #stablehlo.bounds<3>>") == [
        "tensor<?xi1, #stablehlo.bounds<3>>"
    ]
    assert infer("chlo.is_inf", "tensor<*xf16>") == ["tensor<*xi1>"]
    assert infer("chlo.next_after", "tensor<?xf32>", "tensor<2xf32>") == ["tensor<2xf32>"]
    assert infer_err("chlo.constant") == "value must be a typed attribute"
    assert infer_err("chlo.constant", value=StringAttr("x")) == "value must be a typed attribute"
    assert infer_err("chlo.constant_like", "tensor<2xf32>") == (
        "value's type doesn't match element return type"
    )
    got = infer("chlo.constant_like", "tensor<*xf32>", value=FloatAttr(1.0, f32))
    assert got == ["tensor<*xf32>"]
    got = infer("chlo.constant_like", "tensor<?xi8, #stablehlo.bounds<2>>", value=IntegerAttr(3, i32))
    assert got == ["tensor<?xi32, #stablehlo.bounds<2>>"]
    k = IntegerAttr(3, 64)
    assert infer("chlo.top_k", "tensor<2x3xf32>", k=k) == ["tensor<2x3xf32>", "tensor<2x3xi32>"]
    assert infer("chlo.top_k", "tensor<?xbf16>", k=k) == ["tensor<3xbf16>", "tensor<3xi32>"]
    assert infer_err("chlo.top_k", "tensor<2xf32>", k=k) == "operand's last dimension must be at least 3"
    assert infer_err("chlo.top_k", "tensor<f32>", k=k) == "operand's rank must be at least 1"
    assert infer("chlo.top_k", "tensor<*xf32>", k=k) == ["tensor<*xf32>", "tensor<*xi32>"]
    got = infer("chlo.top_k", "tensor<?x?xf32, #stablehlo.bounds<6, 9>>", k=k)
    assert got == ["tensor<?x3xf32, #stablehlo.bounds<6, ?>>", "tensor<?x3xi32, #stablehlo.bounds<6, ?>>"]


# ---------------------------------------------------------------------------------------- reify.py
def _builder():  # type: ignore[no-untyped-def]
    from stablehlo_py.ir.infer.reify import ShapeBuilder

    m = parse(
        "func.func @f(%n: index, %m: index, %t: tensor<?x3xf32>) {\n"
        "  %0 = stablehlo.abs %t : tensor<?x3xf32>\n"
        "  return\n}"
    )
    f = next(op for op in m.walk() if op.name == "func.func")
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    n, mm, t = f.regions[0].blocks.first.args
    return ShapeBuilder.before_op(abs_op), n, mm, t, f


@pytest.mark.parametrize(
    ("a", "b", "q"),
    # arith.divsi folds to the quotient rounded toward zero
    [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (6, 3, 2), (-6, 3, -2), (0, 5, 0), (1, 2, 0), (-1, 2, 0)],
)
def test_shape_builder_divsi_folds_toward_zero(a: int, b: int, q: int) -> None:
    sb = _builder()[0]
    assert sb.divsi(a, b) == q
    assert sb.created == []


def test_shape_builder_folds_constants_as_mlir() -> None:
    sb, n, m, t, f = _builder()
    assert sb.add(2, 3) == 5 and sb.sub(2, 5) == -3 and sb.mul(4, -3) == -12
    assert sb.maxsi(-2, 1) == 1 and sb.maxsi(4, 1) == 4
    assert sb.less(1, 2) is True and sb.less(2, 2) is False and sb.less(3, 2) is False
    assert sb.select(True, 4, 5) == 4 and sb.select(False, 4, 5) == 5
    # x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 fold to x; x * 0 and 0 * x to 0
    assert sb.add(n, 0) is n and sb.add(0, n) is n
    assert sb.sub(n, 0) is n
    assert sb.mul(n, 1) is n and sb.mul(1, n) is n
    assert sb.mul(n, 0) == 0 and sb.mul(0, n) == 0
    assert sb.divsi(n, 1) is n
    assert sb.cast(5, ty("tensor<1xi32>").element_type) == 5
    assert sb.cast(n, n.type) is n
    assert sb.dim(t, 1) == 3
    assert sb.created == []  # nothing built
    # what does not fold is built before the op, with its constants at the start of the body
    body = f.regions[0].blocks.first
    s = sb.sub(0, n)
    assert s.owner.name == "arith.subi" and s.owner.operands[1] is n
    c0 = s.owner.operands[0].owner
    assert c0.name == "arith.constant" and c0.properties["value"].value.data == 0
    assert body.first_op is c0
    d = sb.divsi(n, 2)
    assert d.owner.name == "arith.divsi" and d.owner.operands[0] is n
    assert d.owner.operands[1].owner.properties["value"].value.data == 2
    assert sb.add(n, m).owner.name == "arith.addi"
    assert sb.mul(n, m).owner.name == "arith.muli"
    assert sb.maxsi(n, 0).owner.name == "arith.maxsi"
    lt = sb.less(n, 1)
    assert lt.owner.name == "arith.cmpi" and lt.owner.properties["predicate"].value.data == 2  # slt
    sel = sb.select(lt, 0, n)
    assert sel.owner.name == "arith.select" and sel.owner.operands[2] is n
    dim = sb.dim(t, 0)
    assert dim.owner.name == "tensor.dim"
    assert dim.owner.operands[1].owner.properties["value"].value.data == 0
    # constants are made once each
    assert sb.const(2) is sb.const(2)
    assert sb.const(2) is not sb.const(2, ty("tensor<1xi64>").element_type)
    # every built op sits before the op it serves, in order
    names = [op.name for op in body.ops]
    assert names.index("arith.subi") < names.index("arith.divsi") < names.index("stablehlo.abs")
    assert names.count("arith.constant") == 4  # 0, 2, 1 (index) and 2 : i64
    # an unused op is dropped, a kept one stays
    keep = sb.add(n, m)
    sb.drop_unused([keep])
    assert keep.owner.parent is not None
    assert sel.owner.parent is None and d.owner.parent is None
    assert all(op.parent is not None for op in sb.created)


def test_reify_refuses_what_it_cannot_do() -> None:
    from stablehlo_py.errors import NotSupportedError
    from stablehlo_py.ir.infer.reify import has_reify, reify_result_shapes

    sb, n, m, t, f = _builder()
    abs_op = next(op for op in f.walk() if op.name == "stablehlo.abs")
    assert not has_reify("stablehlo.abs") and has_reify("stablehlo.pad")
    with pytest.raises(NotSupportedError) as e:
        reify_result_shapes(abs_op, sb)
    assert "reifying the result shapes of stablehlo.abs is not supported" in str(e.value)
    with pytest.raises(NotSupportedError) as e:
        sb.shape_of(n)
    assert "has no tensor<Nxindex> form" in str(e.value)


# ------------------------------------------------------------------------------------ chlo.scan
SCAN = """func.func @f(%x: tensor<5x3xf32>, %c: tensor<3xf32>) {
  %0:2 = chlo.scan(%x) inits (%c) dimension=0 {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %1 = stablehlo.add %a, %b : tensor<3xf32>
    stablehlo.return %1, %b : tensor<3xf32>, tensor<3xf32>
  } : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
  return
}"""


def _scan(types: list[str], segments=(1, 1), regions=None, **attrs) -> list[str]:  # type: ignore[no-untyped-def]
    from xdsl.dialects.builtin import DenseArrayBase

    op = next(o for o in parse(SCAN).walk() if o.name == "chlo.scan")
    a = dict(op.properties)
    a.update(op.attributes)
    if segments is None:
        a.pop("operandSegmentSizes")
    else:
        a["operandSegmentSizes"] = DenseArrayBase.from_list(i32, list(segments))
    a.update(attrs)
    got = infer_result_types(
        "chlo.scan", [ty(t) for t in types], a, tuple(op.regions) if regions is None else regions
    )
    return [type_to_str(t) for t in got]


def test_scan_rule() -> None:
    assert _scan(["tensor<5x3xf32>", "tensor<3xf32>"]) == ["tensor<5x3xf32>", "tensor<3xf32>"]
    # the scan dimension's size: scan_dim_size, else the first input with a static one
    assert _scan(["tensor<?x3xf32>", "tensor<3xf32>"]) == ["tensor<?x3xf32>", "tensor<3xf32>"]
    assert _scan(["tensor<?x3xf32>", "tensor<3xf32>"], scan_dim_size=IntegerAttr(7, 64)) == [
        "tensor<7x3xf32>",
        "tensor<3xf32>",
    ]
    assert _scan(["tensor<4x3xf32>", "tensor<3xf32>"], scan_dim_size=IntegerAttr(7, 64)) == [
        "tensor<7x3xf32>",
        "tensor<3xf32>",
    ]
    two = ["tensor<?x3xf32>", "tensor<6x3xf32>", "tensor<3xf32>"]
    assert _scan(two, segments=(2, 1)) == ["tensor<6x3xf32>", "tensor<3xf32>"]
    two = ["tensor<2x3xf32>", "tensor<6x3xf32>", "tensor<3xf32>"]
    assert _scan(two, segments=(2, 1)) == ["tensor<2x3xf32>", "tensor<3xf32>"]
    # the dimension is where the size goes in
    assert _scan(["tensor<3x5xf32>", "tensor<3xf32>"], dimension=IntegerAttr(1, 64)) == [
        "tensor<3x5xf32>",
        "tensor<3xf32>",
    ]
    # carries: every returned value is a carry, or none is
    assert _scan(["tensor<5x3xf32>", "tensor<3xf32>"], segments=(1, 2)) == [
        "tensor<3xf32>",
        "tensor<3xf32>",
    ]
    assert _scan(["tensor<5x3xf32>"], segments=(1, 0)) == ["tensor<5x3xf32>", "tensor<5x3xf32>"]


def test_scan_errors() -> None:
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], segments=None)
    assert e.value.message == "requires attribute 'operandSegmentSizes' with 2 elements (inputs, inits)"
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], segments=(1, 1, 0))
    assert e.value.message == "requires attribute 'operandSegmentSizes' with 2 elements (inputs, inits)"
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], regions=())
    assert e.value.message == "ScanOp region is empty"
    from xdsl.ir import Region

    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], regions=(Region(),))
    assert e.value.message == "ScanOp region is empty"
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], segments=(0, 3))
    assert e.value.message == "ScanOp body must return at least 3 values (carries)"
    with pytest.raises(InferError) as e:
        _scan(["tensor<*xf32>", "tensor<3xf32>"])
    assert e.value.message == "operand 0 is not ranked"
    with pytest.raises(InferError) as e:
        _scan(["tensor<2x3xf32>", "tensor<*xf32>", "tensor<3xf32>"], segments=(2, 1))
    assert e.value.message == "operand 1 is not ranked"
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>"], dimension=IntegerAttr(2, 64))
    assert e.value.message == "scan dimension of operand 0 is out of bounds"
    with pytest.raises(InferError) as e:
        _scan(["tensor<5x3xf32>", "tensor<3xf32>", "tensor<3xf32>"], segments=(2, 1), dimension=IntegerAttr(1, 64))
    assert e.value.message == "scan dimension of operand 1 is out of bounds"


# ------------------------------------------------------------------------------ control_flow.py
WHILE = """func.func @f(%a: tensor<2xf32>, %t: !stablehlo.token) {
  %0:2 = "stablehlo.while"(%a, %t) ({
  ^bb0(%x: tensor<2xf32>, %y: !stablehlo.token):
    %c = stablehlo.constant dense<true> : tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<2xf32>, %y: !stablehlo.token):
    "stablehlo.return"(%x, %y) : (tensor<2xf32>, !stablehlo.token) -> ()
  }) : (tensor<2xf32>, !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  return
}"""


def _while_regions(text: str = WHILE):  # type: ignore[no-untyped-def]
    op = next(o for o in parse(text).walk() if o.name == "stablehlo.while")
    return op.regions[0], op.regions[1]


def _while_error(types: list, text: str = WHILE) -> str:  # type: ignore[type-arg]
    from stablehlo_py.ir.infer.control_flow import verify_while

    cond, body = _while_regions(text)
    with pytest.raises(InferError) as e:
        verify_while([ty(t) if isinstance(t, str) else t for t in types], cond, body)
    return e.value.message


def test_verify_while() -> None:
    from stablehlo_py.ir.infer.control_flow import verify_while

    cond, body = _while_regions()
    verify_while([ty("tensor<2xf32>"), TokenType()], cond, body)
    verify_while([ty("tensor<?xf32>"), TokenType()], cond, body)  # compatible, not equal
    assert _while_error(["tensor<3xf32>", TokenType()]) == (
        "expect operands to be compatible with condition block arguments but got "
        "'tensor<3xf32>', '!stablehlo.token' vs 'tensor<2xf32>', '!stablehlo.token'"
    )
    assert _while_error(["tensor<2xf32>"]) == (
        "expect operands to be compatible with condition block arguments but got "
        "'tensor<2xf32>' vs 'tensor<2xf32>', '!stablehlo.token'"
    )
    body_args = WHILE.replace(
        "  ^bb0(%x: tensor<2xf32>, %y: !stablehlo.token):\n    \"stablehlo.return\"(%x, %y)",
        "  ^bb0(%x: tensor<?xf32>, %y: !stablehlo.token, %z: tensor<f32>):\n    \"stablehlo.return\"(%a, %y)",
    )
    assert _while_error(["tensor<2xf32>", TokenType()], body_args) == (
        "expect operands to be compatible with body block arguments but got "
        "'tensor<2xf32>', '!stablehlo.token' vs 'tensor<?xf32>', '!stablehlo.token', 'tensor<f32>'"
    )
    body_ret = WHILE.replace('"stablehlo.return"(%x, %y) : (tensor<2xf32>, !stablehlo.token)', '"stablehlo.return"(%y) : (!stablehlo.token)')
    assert _while_error(["tensor<2xf32>", TokenType()], body_ret) == (
        "expect operands to be compatible with body block return types but got "
        "'tensor<2xf32>', '!stablehlo.token' vs '!stablehlo.token'"
    )
    two = WHILE.replace('"stablehlo.return"(%c) : (tensor<i1>)', '"stablehlo.return"(%c, %c) : (tensor<i1>, tensor<i1>)')
    assert _while_error(["tensor<2xf32>", TokenType()], two) == (
        "expect condition body returns a single value but got 2"
    )
    none = WHILE.replace('"stablehlo.return"(%c) : (tensor<i1>)', '"stablehlo.return"() : ()')
    assert _while_error(["tensor<2xf32>", TokenType()], none) == (
        "expect condition body returns a single value but got 0"
    )
    cond, body = _while_regions()
    for op in reversed(list(cond.blocks.first.ops)):  # an empty condition block
        op.detach()
        op.erase()
    with pytest.raises(InferError) as e:
        verify_while([ty("tensor<2xf32>"), TokenType()], cond, body)
    assert e.value.message == "expect condition body returns a single value but got 0"
    for pred, shown in (
        ("dense<[true]> : tensor<1xi1>", "tensor<1xi1>"),
        ("dense<1> : tensor<i32>", "tensor<i32>"),
    ):
        text = WHILE.replace("dense<true> : tensor<i1>", pred).replace(
            '"stablehlo.return"(%c) : (tensor<i1>)', f'"stablehlo.return"(%c) : ({shown})'
        )
        assert _while_error(["tensor<2xf32>", TokenType()], text) == (
            f"expect condition block return a zero-ranked tensor of i1 but got '{shown}'"
        )
    no_term = WHILE.replace(
        '    "stablehlo.return"(%x, %y) : (tensor<2xf32>, !stablehlo.token) -> ()\n',
        "    %z = stablehlo.abs %x : tensor<2xf32>\n",
    )
    assert _while_error(["tensor<2xf32>", TokenType()], no_term) == (
        "The while body-region expected to have a terminator"
    )
    assert infer("stablehlo.while", "tensor<2xf32>", "!stablehlo.token") == [
        "tensor<2xf32>",
        "!stablehlo.token",
    ]
    assert infer("stablehlo.optimization_barrier") == []
    assert infer("stablehlo.after_all", "!stablehlo.token", "!stablehlo.token") == ["!stablehlo.token"]
    assert infer("stablehlo.create_token") == ["!stablehlo.token"]


def test_verify_composite() -> None:
    from xdsl.dialects.builtin import FunctionType

    from stablehlo_py.ir.infer.control_flow import COMPOSITE_NAME, verify_composite

    a, b = ty("tensor<2xf32>"), ty("tensor<f32>")
    fn = FunctionType.from_lists([a, b], [a])
    verify_composite("my.op", "dec", fn, [a, b], [a])
    verify_composite("a1_b.c$d.e", "dec", fn, [a, b], [a])
    for bad in ("myop", "1my.op", "my.", "my.op-x", "_my.op", "my..op"):
        with pytest.raises(InferError) as e:
            verify_composite(bad, "dec", fn, [a, b], [a])
        assert e.value.message == (
            "name must be a valid namespaced op name, i.e. it must match the following regular "
            f'expression: {COMPOSITE_NAME} e.g. "my_namespace.my_op"'
        )
    assert COMPOSITE_NAME == r"^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$"
    cases = [
        (None, [a, b], [a], "'dec' does not reference a valid function"),
        (fn, [a], [a], "has 1 operand(s), but decomposition has 2"),
        (fn, [a, b, b], [a], "has 3 operand(s), but decomposition has 2"),
        (fn, [a, a], [a], "operand at index 1 has type 'tensor<2xf32>', but decomposition has type 'tensor<f32>'"),
        (fn, [b, b], [a], "operand at index 0 has type 'tensor<f32>', but decomposition has type 'tensor<2xf32>'"),
        (fn, [a, b], [], "has 0 result(s), but decomposition has 1"),
        (fn, [a, b], [b], "result at index 0 has type 'tensor<f32>', but decomposition has type 'tensor<2xf32>'"),
        # equality, not compatibility
        (fn, [ty("tensor<?xf32>"), b], [a], "operand at index 0 has type 'tensor<?xf32>', but decomposition has type 'tensor<2xf32>'"),
    ]
    for f, ins, outs, message in cases:
        with pytest.raises(InferError) as e:
            verify_composite("my.op", "dec", f, ins, outs)
        assert e.value.message == message


IF = """func.func @f(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<?xf32, #stablehlo.bounds<4>>) {
  %0:2 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%a, %p) : (tensor<2xf32>, tensor<i1>) -> ()
  }, {
    "stablehlo.return"(%b, %p) : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<i1>) -> ()
  }) : (tensor<i1>) -> (tensor<?xf32>, tensor<i1>)
  return
}"""


def test_conditional_rule() -> None:
    from xdsl.ir import Block, Region

    from stablehlo_py.ir.infer.control_flow import terminator_types

    op = next(o for o in parse(IF).walk() if o.name == "stablehlo.if")
    regions = tuple(op.regions)
    # the least specific type; bounds only when branch 0's type has some (inferTypeWithCustomFn)
    got = infer_result_types("stablehlo.if", [ty("tensor<i1>")], {}, regions)
    assert [type_to_str(t) for t in got] == ["tensor<?xf32>", "tensor<i1>"]
    # the operand may be a non-tensor or absent: only a ranked tensor's rank is checked
    got = infer_result_types("stablehlo.case", [], {}, regions[::-1])
    assert [type_to_str(t) for t in got] == ["tensor<?xf32, #stablehlo.bounds<4>>", "tensor<i1>"]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.if", [ty("tensor<1x1xi1>")], {}, regions)
    assert e.value.message == "operand should be rank 0 tensor but got rank 2"
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.case", [ty("tensor<i32>")], {}, (regions[0], Region()))
    assert e.value.message == "expect non-empty region"
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.case", [ty("tensor<i32>")], {}, (Region(), regions[0]))
    assert e.value.message == "expect non-empty region"
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.case", [ty("tensor<i32>")], {}, ())
    assert e.value.message == "expect at least one branch"
    empty = Region(Block())
    assert terminator_types(empty) == []
    assert terminator_types(Region()) == []
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.case", [ty("tensor<i32>")], {}, (regions[0], empty))
    assert e.value.message == (
        "branch 0 and branch 1 have mismatched return types: 'tensor<2xf32>', 'tensor<i1>' vs "
    )
    three = (regions[1], regions[0], regions[0])
    got = infer_result_types("stablehlo.case", [TokenType()], {}, three)
    assert [type_to_str(t) for t in got] == ["tensor<?xf32, #stablehlo.bounds<4>>", "tensor<i1>"]
    args = Region(Block(arg_types=[ty("tensor<f32>"), ty("tensor<f32>")]))
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.case", [ty("tensor<i32>")], {}, (regions[0], args))
    assert e.value.message == "branch 1 must have 0 arguments, but found 2"


# ---------------------------------------------------------------------------------------- linalg.py
def _op_result(name: str, operands: list[str], attrs: str = "", regions: str = "") -> list[str] | str:
    """The types the rule of the op gives (the declared result is a placeholder), or its error."""
    from stablehlo_py.ir.infer import infer_op

    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    uses = ", ".join(f"%a{i}" for i in range(len(operands)))
    ins = ", ".join(operands)
    text = (
        f"func.func @f({args}) {{\n"
        f'  %0 = "{name}"({uses}) {regions}{{{attrs}}} : ({ins}) -> tensor<*xf32>\n'
        "  return\n}"
    )
    op = next(o for o in parse(text).walk() if o.name == name)
    try:
        return [type_to_str(t) for t in infer_op(op)]
    except InferError as e:
        return e.message


def fft(t: str, kind: str, length: str) -> list[str] | str:
    return _op_result(
        "stablehlo.fft", [t], f"fft_type = #stablehlo<fft_type {kind}>, fft_length = array<i64{length}>"
    )


@pytest.mark.parametrize(
    ("operand", "kind", "length", "want"),
    [
        ("tensor<3x8xf32>", "RFFT", ": 8", ["tensor<3x5xcomplex<f32>>"]),
        ("tensor<3x9xf64>", "RFFT", ": 9", ["tensor<3x5xcomplex<f64>>"]),
        ("tensor<2x3x8xf32>", "RFFT", ": 3, 8", ["tensor<2x3x5xcomplex<f32>>"]),
        ("tensor<?x?xf32, #stablehlo.bounds<4, 8>>", "RFFT", ": 8",
         ["tensor<?x5xcomplex<f32>, #stablehlo.bounds<4, ?>>"]),
        ("tensor<?x?xcomplex<f32>, #stablehlo.bounds<4, 8>>", "FFT", ": 8",
         ["tensor<?x?xcomplex<f32>, #stablehlo.bounds<4, 8>>"]),
        ("tensor<3x0xf32>", "RFFT", ": 0", ["tensor<3x0xcomplex<f32>>"]),
        ("tensor<*xf32>", "RFFT", ": 8", ["tensor<*xcomplex<f32>>"]),
        ("tensor<*xcomplex<f64>>", "IRFFT", ": 8", ["tensor<*xf64>"]),
        ("tensor<*xcomplex<f64>>", "IFFT", ": 8", ["tensor<*xcomplex<f64>>"]),
        ("tensor<3x5xcomplex<f32>>", "IRFFT", ": 8", ["tensor<3x8xf32>"]),
        ("tensor<3x5xcomplex<f32>>", "IRFFT", ": 9", ["tensor<3x9xf32>"]),
        ("tensor<4x5xcomplex<f32>>", "IRFFT", ": 4, 8", ["tensor<4x8xf32>"]),
        # the last bound dropped (boundsToEncoding: no encoding when no bound is left)
        ("tensor<3x?xcomplex<f32>, #stablehlo.bounds<?, 5>>", "IRFFT", ": 8", ["tensor<3x8xf32>"]),
        ("tensor<?x?xcomplex<f32>, #stablehlo.bounds<3, 5>>", "IRFFT", ": 8",
         ["tensor<?x8xf32, #stablehlo.bounds<3, ?>>"]),
        ("tensor<3x0xcomplex<f32>>", "IRFFT", ": 0", ["tensor<3x0xf32>"]),
        ("tensor<3x1xcomplex<f32>>", "IRFFT", ": 0", ["tensor<3x0xf32>"]),
        ("tensor<3x8xcomplex<f32>>", "FFT", ": 8", ["tensor<3x8xcomplex<f32>>"]),
        ("tensor<8xf32>", "RFFT", "", "rank must be between 1 and 3, but got 0."),
        ("tensor<8x8x8x8xf32>", "RFFT", ": 8, 8, 8, 8", "rank must be between 1 and 3, but got 4."),
        ("tensor<8x8x8xcomplex<f32>>", "FFT", ": 8, 8, 8", ["tensor<8x8x8xcomplex<f32>>"]),
        ("tensor<8xf16>", "RFFT", ": 8", "RFFT requires f32 or f64 input type, but is given 'f16'."),
        ("tensor<8xf32>", "FFT", ": 8",
         "FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<8xf32>'."),
        ("tensor<8xf32>", "IRFFT", ": 8",
         "FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<8xf32>'."),
        ("tensor<8xcomplex<f32>>", "FFT", ": 2, 8",
         "operand rank must not be less than fft rank of 2 for operand of type 'tensor<8xcomplex<f32>>'."),
        ("tensor<3x8xf32>", "RFFT", ": 9",
         "RFFT requires innermost dimensions to be compatible with fft_length. Got: 3, 8 but wanted 9."),
        ("tensor<3x8xf32>", "RFFT", ": 4, 8",
         "RFFT requires innermost dimensions to be compatible with fft_length. Got: 3, 8 but wanted 4, 8."),
        ("tensor<3x5xcomplex<f32>>", "IRFFT", ": 4, 8",
         "IRFFT requires non-final dimensions to be compatible with fft_length. Got: 3, 5 but wanted 4, 8, and 3 != 4."),
        ("tensor<3x6xcomplex<f32>>", "IRFFT", ": 8",
         "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: 6 but fft_length is 8."),
        ("tensor<3x1xcomplex<f32>>", "IRFFT", ": 1", ["tensor<3x1xf32>"]),
        ("tensor<3x1xcomplex<f32>>", "IRFFT", ": 2",
         "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: 1 but fft_length is 2."),
        ("tensor<3x0xcomplex<f32>>", "IRFFT", ": 2",
         "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: 0 but fft_length is 2."),
        ("tensor<3x?xcomplex<f32>>", "IRFFT", ": 8", ["tensor<3x8xf32>"]),
    ],
)
def test_fft(operand: str, kind: str, length: str, want: list[str] | str) -> None:
    assert fft(operand, kind, length) == want


def tsolve(a: str, b: str, left: bool = True, transpose: str = "NO_TRANSPOSE") -> list[str] | str:
    attrs = (
        f"left_side = {str(left).lower()}, lower = true, unit_diagonal = false, "
        f"transpose_a = #stablehlo<transpose {transpose}>"
    )
    return _op_result("stablehlo.triangular_solve", [a, b], attrs)


def test_triangular_solve_and_cholesky() -> None:
    b = "tensor<2x3x4xf32, #stablehlo.bounds<?, ?, ?>>"
    assert tsolve("tensor<2x3x3xf32>", "tensor<2x3x4xf32>") == ["tensor<2x3x4xf32>"]
    assert tsolve("tensor<2x4x4xf32>", "tensor<2x3x4xf32>", left=False) == ["tensor<2x3x4xf32>"]
    assert tsolve("tensor<?x?x?xf32>", b) == [b]  # b's type as it is
    assert tsolve("tensor<*xf32>", "tensor<*xf32>") == ["tensor<*xf32>"]
    assert tsolve("tensor<3x3xf32>", "tensor<*xf32>") == ["tensor<*xf32>"]
    assert tsolve("tensor<3xf32>", "tensor<3xf32>") == (
        "operand 'a' must have rank >= 2, but got 'tensor<3xf32>'"
    )
    assert tsolve("tensor<3x4xf32>", "tensor<3x4xf32>") == (
        "two minor dimensions of operand 'a' must be compatible, but got 'tensor<3x4xf32>'"
    )
    assert tsolve("tensor<3x3xf32>", "tensor<2x3x4xf32>") == (
        "operands must have equal rank, but got 'tensor<3x3xf32>' and 'tensor<2x3x4xf32>'"
    )
    assert tsolve("tensor<3x3xf32>", "tensor<4x3xf32>") == (
        "shared dimension of operands 'a' and 'b' must be compatible, but got 'tensor<3x3xf32>' "
        "and 'tensor<4x3xf32>'"
    )
    assert tsolve("tensor<4x4xf32>", "tensor<4x3xf32>", left=False) == (
        "shared dimension of operands 'a' and 'b' must be compatible, but got 'tensor<4x4xf32>' "
        "and 'tensor<4x3xf32>'"
    )
    assert tsolve("tensor<2x3x3xf32>", "tensor<5x3x4xf32>") == (
        "batch dimensions of the operands must be compatible, but got 'tensor<2x3x3xf32>' and "
        "'tensor<5x3x4xf32>'"
    )
    assert tsolve("tensor<?x3x3xf32>", "tensor<5x3x4xf32>") == ["tensor<5x3x4xf32>"]
    assert tsolve("tensor<3x3xf32>", "tensor<3x4xf32>", transpose="TRANSPOSE_INVALID") == (
        "Invalid transpose option value for triangular solve"
    )
    assert tsolve("tensor<3x3xf32>", "tensor<3x4xf32>", transpose="ADJOINT") == ["tensor<3x4xf32>"]

    def chol(t: str) -> list[str] | str:
        return _op_result("stablehlo.cholesky", [t], "lower = true")

    bounded = "tensor<?x3x3xf32, #stablehlo.bounds<5, ?, ?>>"
    assert chol(bounded) == [bounded]
    assert chol("tensor<3x?xf32>") == ["tensor<3x?xf32>"]
    assert chol("tensor<*xf32>") == ["tensor<*xf32>"]
    assert chol("tensor<3xf32>") == "argument 'a' must have rank >= 2, got shape 3."
    assert chol("tensor<2x3xf32>") == "minor dimensions of 'a' must have equal size, got shape 2, 3."
    assert chol("tensor<?x2x3xf32>") == (
        "minor dimensions of 'a' must have equal size, got shape -9223372036854775808, 2, 3."
    )


def dot_general(lhs: str, rhs: str, lb="", rb="", lc="", rc="", extra="") -> list[str] | str:  # type: ignore[no-untyped-def]
    dims = (
        f"dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [{lb}], "
        f"rhs_batching_dimensions = [{rb}], lhs_contracting_dimensions = [{lc}], "
        f"rhs_contracting_dimensions = [{rc}]>"
    )
    return _op_result("stablehlo.dot_general", [lhs, rhs], dims + extra)


def test_dot_and_dot_general() -> None:
    def dot(a: str, b: str, extra: str = "") -> list[str] | str:
        return _op_result("stablehlo.dot", [a, b], extra)

    assert dot("tensor<3xf32>", "tensor<3xf32>") == ["tensor<f32>"]
    assert dot("tensor<2x3xf32>", "tensor<3xf32>") == ["tensor<2xf32>"]
    assert dot("tensor<3xf32>", "tensor<3x4xf32>") == ["tensor<4xf32>"]
    assert dot("tensor<2x3xf32>", "tensor<?x4xf32>") == ["tensor<2x4xf32>"]
    assert dot("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "tensor<3x?xf32, #stablehlo.bounds<?, 7>>") == [
        "tensor<?x?xf32, #stablehlo.bounds<5, 7>>"
    ]
    assert dot("tensor<3xf32>", "tensor<3x?xf32, #stablehlo.bounds<?, 7>>") == [
        "tensor<?xf32, #stablehlo.bounds<7>>"
    ]
    assert dot("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "tensor<3xf32>") == [
        "tensor<?xf32, #stablehlo.bounds<5>>"
    ]
    assert dot("tensor<*xf32>", "tensor<3xf32>") == ["tensor<*xf32>"]
    assert dot("tensor<3xi8>", "tensor<*xi8>") == ["tensor<*xi8>"]
    for a, b in (
        ("tensor<3xf32>", "tensor<4xf32>"),
        ("tensor<2x3xf32>", "tensor<4xf32>"),
        ("tensor<3xf32>", "tensor<4x3xf32>"),
        ("tensor<2x3xf32>", "tensor<2x3xf32>"),
        ("tensor<2x3x4xf32>", "tensor<4xf32>"),
        ("tensor<f32>", "tensor<f32>"),
    ):
        assert dot(a, b) == "expected both lhs/rhs ranks to be either 1 or 2"
    three = ", precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]"
    two = ", precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGH>]"
    assert dot("tensor<3xf32>", "tensor<3xf32>", three.lstrip(", ")) == (
        "expects precision config to be empty or have <= 2 elements, got 3"
    )
    assert dot("tensor<3xf32>", "tensor<3xf32>", two.lstrip(", ")) == ["tensor<f32>"]

    assert dot_general("tensor<2x3x4xf32>", "tensor<2x4x5xf32>", "0", "0", "2", "1") == [
        "tensor<2x3x5xf32>"
    ]
    assert dot_general("tensor<?x3x4xf32>", "tensor<2x4x5xf32>", "0", "0", "2", "1") == [
        "tensor<2x3x5xf32>"
    ]
    assert dot_general(
        "tensor<?x?x4xf32, #stablehlo.bounds<6, 3, ?>>",
        "tensor<?x4x?xf32, #stablehlo.bounds<8, ?, 9>>",
        "0", "0", "2", "1",
    ) == ["tensor<?x?x?xf32, #stablehlo.bounds<6, 3, 9>>"]
    assert dot_general("tensor<4x3xf32>", "tensor<5x4xf32>", "", "", "0", "1") == ["tensor<3x5xf32>"]
    assert dot_general("tensor<3xf32>", "tensor<5xf32>") == ["tensor<3x5xf32>"]
    assert dot_general("tensor<*xf32>", "tensor<5xf32>") == ["tensor<*xf32>"]
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "0", "", "", "") == (
        "lhs and rhs should have the same number of batching dimensions"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "", "", "1", "") == (
        "lhs and rhs should have the same number of contracting dimensions"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "0", "0", "0", "1") == (
        "has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions: 0"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "0, 0", "0, 1", "", "") == (
        "has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions: 0"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "0", "1", "1", "1") == (
        "has duplicated dimension from rhs_batching_dimensions and rhs_contracting_dimensions: 1"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "2", "0", "", "") == (
        "lhs_batching_dimensions value: 2 is out of range: [0, 2)"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "-1", "0", "", "") == (
        "lhs_batching_dimensions value: -1 is out of range: [0, 2)"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "", "", "2", "0") == (
        "lhs_contracting_dimensions value: 2 is out of range: [0, 2)"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "0", "2", "", "") == (
        "rhs_batching_dimensions value: 2 is out of range: [0, 2)"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x3xf32>", "", "", "0", "2") == (
        "rhs_contracting_dimensions value: 2 is out of range: [0, 2)"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<3x2xf32>", "0", "0", "", "") == (
        "batching dimension sizes must match for lhs/rhs"
    )
    assert dot_general("tensor<2x3xf32>", "tensor<2x2xf32>", "", "", "1", "1") == (
        "contracting dimension sizes must match for lhs/rhs"
    )
    assert dot_general("tensor<5x3xf32>", "tensor<5x3xf32>", "0", "0", "1", "1", ", " + three.lstrip(", ")) == (
        "expects precision config to be empty or have <= 2 elements, got 3"
    )
    assert dot_general("tensor<5xf32>", "tensor<?xf32, #stablehlo.bounds<4>>", "0", "0", "", "") == (
        "Mismatched dimension size 5 and bound 4 in dimension 0"
    )


def test_dot_general_and_convolution_quantization() -> None:
    from stablehlo_py.ir.infer.linalg import (
        any_quantized,
        verify_convolution_quantization,
        verify_dot_general_quantization,
    )

    def t(e: str):  # type: ignore[no-untyped-def]
        return ty(f"tensor<2x2x{e}>")

    f = t("f32")
    q = t("!quant.uniform<i8:f32, 1.0>")
    q16 = t("!quant.uniform<i16:f32, 1.0>")
    qz = t("!quant.uniform<i8:f32, 1.0:2>")
    qf16 = t("!quant.uniform<i8:f16, 1.0>")
    pa0 = t("!quant.uniform<i8:f32:0, {1.0, 2.0}>")
    pa1 = t("!quant.uniform<i8:f32:1, {1.0, 2.0}>")
    paz = t("!quant.uniform<i8:f32:1, {1.0:0, 2.0:1}>")
    assert any_quantized(f, q) and not any_quantized(f, f) and any_quantized(pa0)

    def err(fn, *args) -> str:  # type: ignore[no-untyped-def]
        with pytest.raises(InferError) as e:
            fn(*args)
        return e.value.message

    verify_dot_general_quantization(q, q, q, [0])
    verify_dot_general_quantization(f, q, f, [0])
    verify_dot_general_quantization(q, pa1, pa1, [0])
    both = "rhs should be quantized for quantized operations and is_quantized(lhs)=is_quantized(result) should hold"
    assert err(verify_dot_general_quantization, q, f, q, [0]) == both
    assert err(verify_dot_general_quantization, q, q, f, [0]) == both
    assert err(verify_dot_general_quantization, f, q, q, [0]) == both
    assert err(verify_dot_general_quantization, q, qz, q, [0]) == "Zero point of rhs should be 0"
    assert err(verify_dot_general_quantization, q, paz, pa1, [0]) == "Zero points of rhs should be 0"
    assert err(verify_dot_general_quantization, q, pa1, pa1, [1]) == (
        "Quantization dimension of rhs should not be in the contracting dimension of rhs"
    )
    assert err(verify_dot_general_quantization, q16, q, q, [0]) == (
        "mismatched lhs and rhs quantization storage types"
    )
    assert err(verify_dot_general_quantization, qf16, q, q, [0]) == (
        "mismatched lhs, rhs and result quantization expressed types"
    )
    assert err(verify_dot_general_quantization, q, q, qf16, [0]) == (
        "mismatched lhs, rhs and result quantization expressed types"
    )
    assert err(verify_dot_general_quantization, q, q, pa0, [1]) == (
        "mismatched rhs and result quantization granularity"
    )
    assert err(verify_dot_general_quantization, ty("tensor<2x2xf16>"), q, f, [0]) == (
        "mismatched rhs quantization expressed type and lhs and result element type"
    )
    assert err(verify_dot_general_quantization, f, q, ty("tensor<2x2xf16>"), [0]) == (
        "mismatched rhs quantization expressed type and lhs and result element type"
    )
    verify_convolution_quantization(q, pa1, pa1, 1, 1)
    verify_convolution_quantization(q, pa0, q, 0, 1)
    assert err(verify_convolution_quantization, q, pa1, pa1, 0, 1) == (
        "quantization dimension of rhs should be same with kernel_output_feature_dimension"
    )
    assert err(verify_convolution_quantization, q, pa0, pa1, 0, 0) == (
        "quantization dimension of result should be same with output_feature_dimension"
    )
    assert err(verify_convolution_quantization, q, f, q, 0, 0) == both


# ------------------------------------------------------------------------------------ reduction.py
def _positions(size: int, w) -> int:  # type: ignore[no-untyped-def]
    """Window positions counted one by one: offsets o = 0, s, 2s, ... with the dilated window
    inside the padded, base-dilated array."""
    base = 0 if size == 0 else (size - 1) * w.base_dilation + 1
    padded = w.padding_low + base + w.padding_high
    extent = (w.size - 1) * w.window_dilation + 1
    if padded <= 0:
        return 0
    n, o = 0, 0
    while o + extent <= padded:
        n += 1
        o += w.stride
    return n


def test_window_output_shape_counts_positions() -> None:
    import itertools

    from stablehlo_py.ir.infer.reduction import window_dimensions, window_output_shape

    for size, win, stride, pad, dil in itertools.product(
        [0, 1, 2, 5, 7], [1, 2, 3], [1, 2, 3], [(0, 0), (1, 0), (0, 2), (1, 1)], [(1, 1), (2, 1), (1, 2), (3, 2)]
    ):
        (w,) = window_dimensions([win], [stride], [pad], [dil[0]], [dil[1]], [])
        got = (w.size, w.stride, (w.padding_low, w.padding_high), w.base_dilation, w.window_dilation)
        assert got == (win, stride, pad, dil[0], dil[1])
        assert window_output_shape([size], [w]) == [_positions(size, w)], (size, w)
        assert window_output_shape([DYN], [w]) == [DYN]


def test_window_dimensions_defaults_and_errors() -> None:
    from stablehlo_py.ir.infer.reduction import Window, window_dimensions, window_output_shape

    assert window_dimensions([2, 3], [], [], [], [], []) == [Window(2), Window(3)]
    (w,) = window_dimensions([2], [1], [(0, 0)], [1], [1], [1])
    assert w.reversal is True
    (w,) = window_dimensions([DYN], [], [], [], [], [], dynamic_sizes=True)
    assert w.size == DYN
    assert window_output_shape([5], [w]) == [DYN]

    def err(*args, **kw) -> str:  # type: ignore[no-untyped-def]
        with pytest.raises(InferError) as e:
            window_dimensions(*args, **kw)
        return e.value.message

    assert err([2, 3], [1], [], [], [], []) == (
        "expects window-strides to have same dimension-size as size of window dimensions (2), but got: 1."
    )
    assert err([2], [], [], [1, 1], [], []) == (
        "expects base-dilation factors to have same dimension-size as size of window dimensions (1), but got: 2."
    )
    assert err([2], [], [], [], [1, 1], []) == (
        "expects window-dilation factors to have same dimension-size as size of window dimensions (1), but got: 2."
    )
    assert err([2], [], [(0, 0), (0, 0)], [], [], []) == (
        "expects padding-entries to have same dimension-size as size of window dimensions (1), but got: 2."
    )
    assert err([2], [], [], [], [], [0, 0]) == (
        "expects window-reversal to have same dimension-size as size of window dimensions (1), but got: 2."
    )
    assert err([2, 0], [], [], [], [], []) == (
        "expects window to have positive value for 1-th window dimension, but got 0."
    )
    assert err([DYN], [], [], [], [], []) == (
        "expects window to have positive value for 0-th window dimension, but got -1."
    )
    assert err([2, 2], [1, 0], [], [], [], []) == (
        "expects window to have positive stride for 1-th window dimension, but got 0."
    )
    assert err([2], [], [], [-1], [], []) == (
        "expects window to have positive base dilation factor for 0-th window dimension, but got -1."
    )
    assert err([2], [], [], [], [0], []) == (
        "expects window to have positive window dilation factor for 0-th window dimension, but got 0."
    )


def test_element_widths_and_promotion() -> None:
    from stablehlo_py.ir.infer.reduction import bit_width, is_promotable_element, num_bits

    e = lambda s: ty(f"tensor<{s}>").element_type  # noqa: E731
    assert [num_bits(e(s)) for s in ("i1", "i8", "ui16", "f16", "bf16", "f32", "f64", "f8E4M3FN", "f4E2M1FN", "index")] == [
        1, 8, 16, 16, 16, 32, 64, 8, 4, 64
    ]
    assert num_bits(e("complex<f32>")) == 64 and num_bits(e("complex<f64>")) == 128
    assert num_bits(e("!quant.uniform<i8:f32, 1.0>")) == 8
    assert num_bits(e("!quant.uniform<i16:f32, 1.0>")) == 16
    assert num_bits(TokenType()) is None and bit_width(TokenType()) == 64
    assert bit_width(e("i8")) == 8

    def p(a: str, b: str, ignore_fp: bool = False) -> bool:
        return is_promotable_element(ty(f"tensor<{a}>"), ty(f"tensor<{b}>"), ignore_fp)

    assert p("i8", "i32") and p("i32", "i32") and not p("i32", "i8")
    assert p("f16", "f32") and not p("f32", "f16") and p("f32", "f16", True)
    assert not p("f32", "i32") and not p("i32", "f32") and not p("f32", "complex<f32>")
    assert p("complex<f32>", "complex<f64>") and not p("complex<f64>", "complex<f32>")
    assert not p("complex<f64>", "complex<f32>", True)
    assert p("!quant.uniform<i8:f32, 1.0>", "!quant.uniform<i16:f32, 2.0>")
    assert not p("!quant.uniform<i16:f32, 1.0>", "!quant.uniform<i8:f32, 1.0>")
    assert not p("!quant.uniform<i8:f32, 1.0>", "!quant.uniform<i8:f16, 1.0>")
    assert not p("!quant.uniform<i8:f32, 1.0>", "i8") and not p("i8", "!quant.uniform<i8:f32, 1.0>")
    assert not is_promotable_element(TokenType(), ty("tensor<i8>"))
    assert not is_promotable_element(ty("tensor<i8>"), TokenType())
    assert is_promotable_element(ty("tensor<*xi8>"), ty("tensor<2xi16>"))


def test_int_list_and_int_attr() -> None:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    from stablehlo_py.ir.infer.reduction import int_attr, int_list

    assert int_list(None) is None
    assert int_list(DenseArrayBase.from_list(i64, [3, -1])) == (3, -1)
    assert int_list(IntegerAttr(4, 64)) == (4,)
    const = next(o for o in parse("%0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>").walk() if o.name == "stablehlo.constant")
    assert int_list(const.properties.get("value") or const.attributes["value"]) == (1, 2, 3, 4)
    with pytest.raises(InferError) as e:
        int_list(StringAttr("x"))
    assert e.value.message.startswith("expected an array of integers, got ")
    assert int_attr(IntegerAttr(5, 64), 1) == 5 and int_attr(None, 7) == 7 and int_attr(StringAttr("x"), 2) == 2


MAP = """func.func @f(%a: {a}, %b: {b}) {{
  %0 = "stablehlo.map"(%a, %b) ({{
  ^bb0(%x: {xa}, %y: {xb}):
    %r = stablehlo.add %x, %x : {xa}
    "stablehlo.return"({ret}) : ({rt}) -> ()
  }}) {{dimensions = array<i64{dims}>}} : ({a}, {b}) -> tensor<*xf32>
  return
}}"""


def _map(a="tensor<2x3xf32>", b="tensor<2x3xf32>", xa="tensor<f32>", xb="tensor<f32>", ret="%r", rt=None, dims=": 0, 1"):  # type: ignore[no-untyped-def]
    from stablehlo_py.ir.infer import infer_op

    text = MAP.format(a=a, b=b, xa=xa, xb=xb, ret=ret, rt=rt or xa, dims=dims)
    op = next(o for o in parse(text).walk() if o.name == "stablehlo.map")
    try:
        return [type_to_str(t) for t in infer_op(op)]
    except InferError as e:
        return e.message


def test_map_rule() -> None:
    assert _map() == ["tensor<2x3xf32>"]
    assert _map(a="tensor<?x3xf32>", b="tensor<2x?xf32>") == ["tensor<2x?xf32>"]  # the last operand's
    assert _map(a="tensor<*xf32>", b="tensor<*xf32>") == ["tensor<*xf32>"]
    assert _map(b="tensor<*xf32>") == ["tensor<*xf32>"]
    assert _map(a="tensor<*xf32>") == ["tensor<2x3xf32>"]
    assert _map(a="tensor<3xf32>", b="tensor<3xf32>", dims=": 0") == ["tensor<3xf32>"]
    assert _map(xa="tensor<1xf32>", xb="tensor<f32>", ret="%x", rt="tensor<1xf32>") == (
        "computation arguments must be 0-rank tensor, but got: arg #0 of type 'tensor<1xf32>'"
    )
    assert _map(xb="tensor<2xf32>", ret="%x") == (
        "computation arguments must be 0-rank tensor, but got: arg #1 of type 'tensor<2xf32>'"
    )
    assert _map(xb="tensor<i32>", ret="%x") == (
        "element type of operands and computation arguments must match, but got: 'f32' and 'i32'"
    )
    assert _map(ret="%r, %r", rt="tensor<f32>, tensor<f32>") == (
        "computation must return single output, but got: 2"
    )
    assert _map(ret="", rt=" ") == "computation must return single output, but got: 0"
    assert _map(ret="%a", rt="tensor<2x3xf32>") == (
        "computation must return 0-rank tensor, but got: 'tensor<2x3xf32>'"
    )
    assert _map(dims=": 1, 0") == "requires monotonically increasing dimension numbers, but got: 1, 0"
    assert _map(dims=": 0, 2") == "requires monotonically increasing dimension numbers, but got: 0, 2"
    assert _map(dims=": 0") == (
        "applied to a subset of dimensions currently not supported: operand dimensions = 2, "
        "requested map dimensions size = 1"
    )
    assert _map(a="tensor<*xf32>", dims=": 0") == (
        "applied to a subset of dimensions currently not supported: operand dimensions = 2, "
        "requested map dimensions size = 1"
    )
    from stablehlo_py.ir.infer import infer_result_types as irt

    with pytest.raises(InferError) as e:
        irt("stablehlo.map", [ty("tensor<2xf32>")], {}, ())
    assert e.value.message == "expect non-empty region"
    one = MAP.replace("%x: {xa}, %y: {xb}", "%x: {xa}")
    text = one.format(a="tensor<2xf32>", b="tensor<2xf32>", xa="tensor<f32>", xb="", ret="%x", rt="tensor<f32>", dims=": 0").replace("%r = stablehlo.add %x, %x : tensor<f32>", "")
    op = next(o for o in parse(text).walk() if o.name == "stablehlo.map")
    from stablehlo_py.ir.infer import infer_op

    with pytest.raises(InferError) as e:
        infer_op(op)
    assert e.value.message == (
        "expects number of operands to match the arity of map computation, but got: 2 and 1"
    )


# ---------------------------------------------------------------------------------- collectives.py
def dense(text: str):  # type: ignore[no-untyped-def]
    """A dense elements attribute from its MLIR text (`dense<...> : tensor<...>`)."""
    op = next(o for o in parse(f"%0 = stablehlo.constant {text}").walk() if o.name == "stablehlo.constant")
    v = op.properties.get("value")
    return v if v is not None else op.attributes["value"]


def _err(fn, *args, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        fn(*args, **kw)
    return e.value.message


@pytest.mark.parametrize(
    ("groups", "all_groups_same_size", "use_global_device_ids", "expected_size", "message"),
    [
        ("dense<[0, 1]> : tensor<2xi64>", True, False, None, "replica groups should be a rank 2 tensor"),
        ("dense<> : tensor<0x2xi64>", True, True, None,
         "if `use_global_device_ids` is set, the replica groups cannot be empty"),
        ("dense<> : tensor<1x0xi64>", False, True, None,
         "if `use_global_device_ids` is set, the replica groups cannot be empty"),
        ("dense<[[0, -1]]> : tensor<1x2xi64>", True, False, None, "Invalid replica id -1"),
        ("dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>", True, False, None, "replica id #1 seen more than once"),
        ("dense<[[0, 2]]> : tensor<1x2xi64>", True, False, None, "replica id #1 not seen in replica groups"),
        ("dense<[[1, 2]]> : tensor<1x2xi64>", True, False, None, "replica id #0 not seen in replica groups"),
        ("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>", True, False, 4, "group size of replica_groups must be 4"),
        ("dense<> : tensor<0x2xi64>", True, False, 2, "group size of replica_groups must be 2"),
    ],
)
def test_verify_replica_groups_errors(
    groups: str, all_groups_same_size: bool, use_global_device_ids: bool, expected_size: int | None, message: str
) -> None:
    from stablehlo_py.ir.infer.collectives import verify_replica_groups

    args = (dense(groups), all_groups_same_size, use_global_device_ids, expected_size)
    assert _err(verify_replica_groups, *args) == message


def test_verify_replica_groups() -> None:
    from stablehlo_py.ir.infer.collectives import verify_replica_groups as v

    v(None, True, True, 3)
    v(dense("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"), True, False, 2)
    v(dense("dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>"), False, False, None)
    v(dense("dense<> : tensor<0x0xi64>"), True, False, None)
    v(dense("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"), False, False, 4)  # sizes differ may


def test_verify_all_gather() -> None:
    from stablehlo_py.ir.infer.collectives import verify_all_gather as v

    g = dense("dense<[[0, 1]]> : tensor<1x2xi64>")
    v([ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>")], 1, g, 0, False)
    v([ty("tensor<2x?xf32>")], [ty("tensor<?x6xf32>")], 1, g, 1, True)
    v([ty("tensor<*xf32>")], [ty("tensor<2x6xf32>")], 1, g, 0, False)
    assert _err(v, [ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>")], 1, g, -1, True) == (
        "channel_id cannot be negative when useGlobalDeviceIds is set"
    )
    v([ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>")], 1, g, 0, True)
    assert _err(v, [ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>")], 2, g, 0, False) == (
        "all_gather_dim must be a valid index of operand"
    )
    assert _err(v, [ty("tensor<2x0xf32>")], [ty("tensor<2x6xf32>")], 1, g, 0, False) == (
        "dimension size of operand at 'all_gather_dim' cannot be zero"
    )
    assert _err(v, [ty("tensor<2x3xf32>")], [ty("tensor<6xf32>")], 1, g, 0, False) == (
        "operand and result must have the same rank"
    )
    assert _err(v, [ty("tensor<2x3xf32>")], [ty("tensor<3x6xf32>")], 1, g, 0, False) == (
        "operand and result should have the same shape except for the dimension size at 'all_gather_dim'"
    )
    assert _err(v, [ty("tensor<2x3xf32>")], [ty("tensor<2x7xf32>")], 1, g, 0, False) == (
        "result gather dimension has size 7, expected to be a multiple of operand gather dimension size 3"
    )
    v([ty("tensor<2x3xf32>")], [ty("tensor<2x3xf32>")], 1, g, 0, False)
    v([ty("tensor<2x3xf32>")], [ty("tensor<2x0xf32>")], 1, g, 0, False)


REDUCER = """func.func @f(%a: tensor<4xf32>) {
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}"""


def _reducer():  # type: ignore[no-untyped-def]
    op = next(o for o in parse(REDUCER).walk() if o.name == "stablehlo.all_reduce")
    return op.regions[0]


@pytest.mark.parametrize(
    ("operand", "result", "dim", "channel_id", "use_global", "message"),
    [
        ("tensor<2x8xf32>", "tensor<8xf32>", 1, 0, False, "operand and result should have same rank"),
        ("tensor<2x8xf32>", "tensor<2x4xf32>", 2, 0, False, "scatter dim should be less than operand/result rank"),
        ("tensor<2x8xf32>", "tensor<2x4xf32>", 1, 0, True,
         "channel_id must be positive when useGlobalDeviceIds is set but got: 0"),
        ("tensor<2x8xf32>", "tensor<2x0xf32>", 1, 0, False, "result dimension size at scatter_dimension cannot be zero"),
        ("tensor<2x0xf32>", "tensor<2x4xf32>", 1, 0, False, "operand dimension size at scatter_dimension cannot be zero"),
        ("tensor<2x8xf32>", "tensor<2x3xf32>", 1, 0, False,
         "operand scatter dimension has size 8, expected to be a multiple of result scatter dimension size 3"),
        ("tensor<2x8xf32>", "tensor<3x4xf32>", 1, 0, False,
         "non scatter dimensions should be same for operand (2) and result (3)"),
        ("tensor<2x8xf32>", "tensor<2x4xf64>", 1, 0, False, "result element-type is expected to be 'f32', but got 'f64'"),
    ],
)
def test_verify_reduce_scatter_errors(
    operand: str, result: str, dim: int, channel_id: int, use_global: bool, message: str
) -> None:
    from stablehlo_py.ir.infer.collectives import verify_reduce_scatter

    g = dense("dense<[[0, 1]]> : tensor<1x2xi64>")
    args = (ty(operand), ty(result), dim, g, channel_id, use_global, _reducer())
    assert _err(verify_reduce_scatter, *args) == message


def test_verify_reduce_scatter_and_all_reduce() -> None:
    from stablehlo_py.ir.infer.collectives import verify_all_reduce, verify_reduce_scatter as v

    g = dense("dense<[[0, 1]]> : tensor<1x2xi64>")
    r = _reducer()
    v(ty("tensor<2x8xf32>"), ty("tensor<2x4xf32>"), 1, g, 0, False, r)
    v(ty("tensor<2x?xf32>"), ty("tensor<?x4xf32>"), 1, g, 1, True, r)
    v(ty("tensor<*xf32>"), ty("tensor<2x4xf32>"), 5, g, 0, False, r)
    verify_all_reduce([ty("tensor<4xf32>"), ty("tensor<2xf32>")], g, 0, False, r)
    assert _err(verify_all_reduce, [ty("tensor<4xf32>")], g, -1, True, r) == (
        "channel_id must be positive when useGlobalDeviceIds is set but got: -1"
    )
    verify_all_reduce([ty("tensor<4xf32>")], g, 1, True, r)
    assert _err(verify_all_reduce, [ty("tensor<4xi32>")], g, 0, False, r) == (
        "The element-type of reduction-region's result type at index 0 is expected to be "
        "promotable from the op's corresponding init-value element-type: 'tensor<f32>' vs "
        "'tensor<i32>'"
    )


def test_collective_broadcast_reduce_and_permute() -> None:
    from stablehlo_py.ir.infer.collectives import (
        verify_collective_broadcast as vb,
        verify_collective_permute as vp,
        verify_collective_reduce as vr,
    )

    vb([ty("tensor<2xf32>")], dense("dense<[[0, 1]]> : tensor<1x2xi64>"), False)
    vb([ty("tensor<2xf32>")], None, False)
    assert _err(vb, [ty("tensor<2xf32>")], dense("dense<[0, 1]> : tensor<2xi64>"), False) == (
        "replica groups should be a rank 2 tensor,but instead it is of rank 1"
    )
    assert _err(vb, [ty("tensor<2xf32>")], dense("dense<[[0, -1]]> : tensor<1x2xi64>"), False) == (
        "replica_groups values must be positive, but was given -1"
    )
    assert _err(vb, [ty("tensor<2xf32>")], dense("dense<[[0, 0]]> : tensor<1x2xi64>"), False) == (
        "replica id #0 seen more than once"
    )
    assert _err(vb, [], None, False) == "collective_broadcast requires at least one data operand"
    assert _err(vb, [ty("tensor<1xi32>")], None, True) == (
        "collective_broadcast with has_dynamic_root=true requires at least two operands (data + root)"
    )
    vb([ty("tensor<2xf32>"), ty("tensor<1xi32>")], None, True)
    vb([ty("tensor<2xf32>"), ty("tensor<2xf32>"), ty("tensor<2xi32>")], None, True)
    for root in ("tensor<1xi64>", "tensor<i32>", "tensor<1x1xi32>", "tensor<*xi32>"):
        assert _err(vb, [ty("tensor<2xf32>"), ty(root)], None, True) == (
            "last operand of collective_broadcast with has_dynamic_root=true must be a rank-1 i32 "
            f"tensor, but got '{root}'"
        )
    assert _err(vb, [ty("tensor<2xf32>"), ty("tensor<2xi32>")], None, True) == (
        "last operand of collective_broadcast with has_dynamic_root=true must have the same number "
        "of elements as data operands (1), but got 2"
    )
    r = _reducer()
    vr([ty("tensor<2xf32>")], None, 0, False, False, r)
    vr([ty("tensor<2xf32>"), ty("tensor<1xi32>")], None, 0, False, True, r)
    assert _err(vr, [ty("tensor<2xf32>")], None, 0, True, False, r) == (
        "channel_id must be positive when useGlobalDeviceIds is set but got: 0"
    )
    assert _err(vr, [], None, 0, False, False, r) == "collective_reduce requires at least one data operand"
    assert _err(vr, [ty("tensor<2xf32>"), ty("tensor<1xi64>")], None, 0, False, True, r) == (
        "last operand of collective_reduce with has_dynamic_root=true must be a rank-1 i32 tensor, "
        "but got 'tensor<1xi64>'"
    )

    vp(None)
    vp(dense("dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>"))
    assert _err(vp, dense("dense<[0, 1]> : tensor<2xi64>")) == (
        "expect source_target_pairs attribute to be of rank 2, but got rank 1"
    )
    assert _err(vp, dense("dense<[[0, 1, 2]]> : tensor<1x3xi64>")) == (
        "expect source_target_pairs attribute of shape (N, 2), but got (1, 3)"
    )
    assert _err(vp, dense("dense<[[0, -1]]> : tensor<1x2xi64>")) == (
        "replica ids in source_target_pairs must be >= 0."
    )
    assert _err(vp, dense("dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>")) == "duplicate sources not allowed."
    assert _err(vp, dense("dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>")) == "duplicate targets not allowed."


def test_infeed_recv_send_and_ids() -> None:
    from xdsl.dialects.builtin import ArrayAttr

    from stablehlo_py.ir.infer.collectives import verify_infeed, verify_recv

    tok, t = TokenType(), ty("tensor<2xf32>")
    verify_infeed(None, [t, tok])
    verify_infeed(ArrayAttr([ArrayAttr([IntegerAttr(0, 64)])]), [t, tok])
    assert _err(verify_infeed, None, []) == "result is expected to be at least of size 1, but got 0"
    assert _err(verify_infeed, None, [tok, tok]) == (
        "all elements of result types, except the last element, are expected to be of tensor type, "
        "but got '!stablehlo.token'"
    )
    assert _err(verify_infeed, None, [t, t]) == (
        "last element of result types is expected to be of token type, but got 'tensor<2xf32>'"
    )
    assert _err(verify_infeed, IntegerAttr(0, 64), [t, tok]) == "layout-attribute expected to be of array-type."
    assert _err(verify_infeed, ArrayAttr([]), [t, tok]) == (
        "layout-attribute size must be 1 (which is the number of op-results - 1 (for token result)), but got 0"
    )
    assert _err(verify_infeed, ArrayAttr([IntegerAttr(0, 64)]), [t, tok]) == (
        "layout-attribute expected to have elements of type array, but got 0 : i64"
    )
    assert _err(verify_infeed, ArrayAttr([ArrayAttr([StringAttr("x")])]), [t, tok]) == (
        'layout-attribute\'s leaf elements are expected to be of type integer, but got "x"'
    )
    verify_recv(1, False, [t, tok])
    verify_recv(3, True, [tok])
    assert _err(verify_recv, 3, False, [tok]) == (
        "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false"
    )
    assert _err(verify_recv, 1, True, [tok]) == (
        "channel_type should be HOST_TO_DEVICE when is_host_transfer is true"
    )
    assert _err(verify_recv, 1, False, [tok, tok]) == (
        "everything but the last element of result types is expected to be of tensor type, but got "
        "'!stablehlo.token'"
    )
    assert infer("stablehlo.replica_id") == ["tensor<ui32>"]
    assert infer("stablehlo.partition_id") == ["tensor<ui32>"]
    assert infer("stablehlo.outfeed", "tensor<2xf32>", "!stablehlo.token") == ["!stablehlo.token"]

    def send(kind: int, host: bool) -> list[str] | str:
        attrs = (
            f"channel_handle = #stablehlo.channel_handle<handle = 1, type = {kind}>, "
            f"is_host_transfer = {str(host).lower()}"
        )
        return _op_result("stablehlo.send", ["tensor<2xf32>", "!stablehlo.token"], attrs)

    assert send(1, False) == ["!stablehlo.token"]
    assert send(2, True) == ["!stablehlo.token"]
    assert send(2, False) == "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false"
    assert send(3, True) == "channel_type should be DEVICE_TO_HOST when is_host_transfer is true"
    assert send(1, True) == "channel_type should be DEVICE_TO_HOST when is_host_transfer is true"


def test_all_to_all_and_reduce_rules() -> None:
    def a2a(t: str, split: int, concat: int, count: int, groups: str = "[[0, 1]]") -> list[str] | str:
        n = groups.count(",") + 1 if groups != "[]" else 0
        rows = groups.count("[") - 1
        attrs = (
            f"split_dimension = {split} : i64, concat_dimension = {concat} : i64, "
            f"split_count = {count} : i64, replica_groups = dense<{groups}> : tensor<{rows}x{n // max(rows, 1)}xi64>"
        )
        return _op_result("stablehlo.all_to_all", [t], attrs)

    assert a2a("tensor<4x3xf32>", 0, 1, 2) == ["tensor<2x6xf32>"]
    assert a2a("tensor<4x3xf32>", 0, 0, 2) == ["tensor<4x3xf32>"]
    assert a2a("tensor<?x3xf32>", 0, 1, 2) == ["tensor<?x6xf32>"]
    assert a2a("tensor<4x?xf32>", 0, 1, 2) == ["tensor<2x?xf32>"]
    assert a2a("tensor<?x?xf32, #stablehlo.bounds<8, 3>>", 0, 1, 2) == [
        "tensor<?x?xf32, #stablehlo.bounds<4, 6>>"
    ]
    assert a2a("tensor<?x3xf32, #stablehlo.bounds<8, ?>>", 1, 0, 3, "[[0, 1, 2]]") == [
        "tensor<?x1xf32, #stablehlo.bounds<24, ?>>"
    ]
    assert a2a("tensor<4x3xf32>", 2, 1, 2) == "AllToAll split_dimension 2 is out-of-bounds for input rank 2"
    assert a2a("tensor<4x3xf32>", 0, 2, 2) == "AllToAll concat_dimension 2 is out-of-bounds for input rank 2"
    assert a2a("tensor<5x3xf32>", 0, 1, 2) == (
        "split dimension has size 5, expected to be a multiple of split_count 2"
    )
    assert a2a("tensor<*xf32>", 0, 1, 2) == "AllToAll operands must be ranked tensors, got 'tensor<*xf32>'"
    assert a2a("tensor<4x3xf32>", 0, 1, 2, "[[0, 1, 2]]") == "group size of replica_groups must be 2"

    from stablehlo_py.ir.infer import infer_op

    op = next(o for o in parse(REDUCER).walk() if o.name == "stablehlo.all_reduce")
    r = (op.regions[0],)
    got = infer_result_types("stablehlo.all_reduce", [ty("tensor<?x4xf32, #stablehlo.bounds<3, ?>>"), ty("tensor<*xf32>")], {}, r)
    assert [type_to_str(x) for x in got] == ["tensor<?x4xf32, #stablehlo.bounds<3, ?>>", "tensor<*xf32>"]
    assert infer_result_types("stablehlo.all_reduce", [], {}, r) == []
    got = infer_result_types("stablehlo.all_reduce", [ty("tensor<2xf16>")], {}, ())
    assert [type_to_str(x) for x in got] == ["tensor<2xf16>"]
    assert [type_to_str(x) for x in infer_op(op)] == ["tensor<4xf32>"]
    from xdsl.dialects.builtin import UnitAttr

    got = infer_result_types(
        "stablehlo.collective_reduce", [ty("tensor<2xf32>"), ty("tensor<1xi32>")], {"has_dynamic_root": UnitAttr()}, r
    )
    assert [type_to_str(x) for x in got] == ["tensor<2xf32>"]
    got = infer_result_types("stablehlo.collective_reduce", [ty("tensor<2xf32>"), ty("tensor<3xf32>")], {}, r)
    assert [type_to_str(x) for x in got] == ["tensor<2xf32>", "tensor<3xf32>"]
    got = infer_result_types(
        "stablehlo.collective_broadcast", [ty("tensor<2xf32>"), ty("tensor<1xi32>")], {"has_dynamic_root": UnitAttr()}
    )
    assert [type_to_str(x) for x in got] == ["tensor<2xf32>"]
    got = infer_result_types("stablehlo.collective_broadcast", [ty("tensor<2xf32>"), ty("tensor<1xi32>")], {})
    assert [type_to_str(x) for x in got] == ["tensor<2xf32>", "tensor<1xi32>"]
    assert infer("stablehlo.cross-replica-sum", "tensor<?xf32>", "tensor<3xf32>") == ["tensor<3xf32>"]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.all_reduce", [TokenType()], {}, r)
    assert e.value.message == "unsupported type"


# ------------------------------------------------------------------------------ batch norm / rng
def _bn(name: str, types: list[str], fi: int = 1) -> list[str] | str:
    return _op_result(f"stablehlo.{name}", types, f"epsilon = 1.0e-05 : f32, feature_index = {fi} : i64")


def test_batch_norm_rules() -> None:
    x = "tensor<2x?x4xf32, #stablehlo.bounds<?, 3, ?>>"
    s = "tensor<3xf32>"
    assert _bn("batch_norm_training", [x, s, s]) == [
        x,
        "tensor<?xf32, #stablehlo.bounds<3>>",
        "tensor<?xf32, #stablehlo.bounds<3>>",
    ]
    s4 = "tensor<4xf32>"
    assert _bn("batch_norm_training", [x, s4, s4], fi=2) == [x, s4, s4]
    assert _bn("batch_norm_training", ["tensor<2x3xf32>", s, s]) == [
        "tensor<2x3xf32>",
        "tensor<3xf32>",
        "tensor<3xf32>",
    ]
    assert _bn("batch_norm_inference", [x, s, s, s, s]) == [x]
    assert _bn("batch_norm_grad", [x, s, s, s, x]) == [
        x,
        "tensor<?xf32, #stablehlo.bounds<3>>",
        "tensor<?xf32, #stablehlo.bounds<3>>",
    ]
    assert _bn("batch_norm_training", ["tensor<*xf32>", s, s]) == ["tensor<*xf32>"] * 3
    assert _bn("batch_norm_inference", ["tensor<*xf32>", s, s, s, s]) == ["tensor<*xf32>"]
    assert _bn("batch_norm_training", ["tensor<2x3xf32>", "tensor<*xf32>", s]) == [
        "tensor<2x3xf32>",
        "tensor<3xf32>",
        "tensor<3xf32>",
    ]
    assert _bn("batch_norm_training", ["tensor<2x3xf32>", s, s], fi=-1) == (
        "attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer attribute "
        "whose value is non-negative"
    )
    assert _bn("batch_norm_training", ["tensor<2x3xf32>", s, s], fi=2) == (
        "expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
        "featureIndex 2, and rank 2."
    )
    assert _bn("batch_norm_training", ["tensor<2x4xf32>", s, s]) == (
        "expects the size of single-dimensional operands to be compatible with feature count, but "
        "the size of single-dimensional operands is 3 and the feature count is 4."
    )
    assert _bn("batch_norm_training", ["tensor<2x?xf32>", s, s]) == [
        "tensor<2x?xf32>",
        "tensor<?xf32>",
        "tensor<?xf32>",
    ]
    assert _bn("batch_norm_training", ["tensor<2x4xf32>", "tensor<?xf32>", "tensor<?xf32>"]) == [
        "tensor<2x4xf32>",
        "tensor<4xf32>",
        "tensor<4xf32>",
    ]
    assert _bn("batch_norm_training", ["tensor<2x3xf32>", s, "tensor<4xf32>"]) == (
        "expects single-dimensional operands to have compatible shapes."
    )
    assert _bn("batch_norm_grad", ["tensor<2x3xf32>", s, s, s, "tensor<3x3xf32>"]) == (
        "expects multi-dimensional operands to have compatible shapes."
    )
    assert _bn("batch_norm_inference", ["tensor<2x3xf32>", s, s, s, "tensor<2xf32>"]) == (
        "expects single-dimensional operands to have compatible shapes."
    )
    assert _bn("batch_norm_inference", ["tensor<2x3xf32>", s, s, "tensor<2xf32>", s]) == (
        "expects single-dimensional operands to have compatible shapes."
    )
    assert _bn("batch_norm_grad", ["tensor<2x3xf32>", s, s, "tensor<2xf32>", "tensor<2x3xf32>"]) == (
        "expects single-dimensional operands to have compatible shapes."
    )


def test_rng_rule() -> None:
    from stablehlo_py.ir.infer import infer_op

    def rng(a: str, b: str, dist: str, shape: str = "%s") -> list[str] | str:
        text = (
            f"func.func @f(%a: {a}, %b: {b}, %s: tensor<3xi64>) {{\n"
            "  %c = stablehlo.constant dense<[2, 0, 5]> : tensor<3xi64>\n"
            f'  %0 = "stablehlo.rng"(%a, %b, {shape}) {{rng_distribution = #stablehlo<rng_distribution {dist}>}}'
            f" : ({a}, {b}, tensor<3xi64>) -> tensor<*xf32>\n  return\n}}"
        )
        op = next(o for o in parse(text).walk() if o.name == "stablehlo.rng")
        try:
            return [type_to_str(t) for t in infer_op(op)]
        except InferError as e:
            return e.message

    assert rng("tensor<f32>", "tensor<f32>", "NORMAL") == ["tensor<?x?x?xf32>"]
    assert rng("tensor<f32>", "tensor<f32>", "NORMAL", "%c") == ["tensor<2x0x5xf32>"]
    assert rng("tensor<i32>", "tensor<i32>", "UNIFORM") == ["tensor<?x?x?xi32>"]
    assert rng("tensor<i32>", "tensor<f16>", "UNIFORM", "%c") == ["tensor<2x0x5xf16>"]
    assert rng("tensor<i32>", "tensor<f32>", "NORMAL") == "mu and sigma must be floats"
    assert rng("tensor<f32>", "tensor<i32>", "NORMAL") == "mu and sigma must be floats"
    assert rng("tensor<bf16>", "tensor<f64>", "NORMAL") == ["tensor<?x?x?xf64>"]
    got = infer_result_types("stablehlo.rng", [ty("tensor<f32>"), ty("tensor<f32>"), ty("tensor<?xi64>")], {})
    assert [type_to_str(t) for t in got] == ["tensor<*xf32>"]
    got = infer_result_types("stablehlo.rng", [ty("tensor<f32>"), ty("tensor<f32>"), ty("tensor<2x2xi64>")], {})
    assert [type_to_str(t) for t in got] == ["tensor<*xf32>"]
    got = infer_result_types("stablehlo.rng", [ty("tensor<f32>"), ty("tensor<f32>"), ty("tensor<*xi64>")], {})
    assert [type_to_str(t) for t in got] == ["tensor<*xf32>"]


def test_rng_bit_generator_state_shapes() -> None:
    from stablehlo_py.ir.infer.linalg import verify_rng_bit_generator as v

    v(ty("tensor<2xui64>"), ty("tensor<?xui64>"))
    v(ty("tensor<*xui64>"), ty("tensor<2xui64>"))
    assert _err(v, ty("tensor<2xui64>"), ty("tensor<3xui64>")) == (
        "output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and "
        "'tensor<3xui64>'"
    )
    assert _err(v, ty("tensor<2xui64>"), ty("tensor<2x1xui64>")) == (
        "output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and "
        "'tensor<2x1xui64>'"
    )


# ------------------------------------------------------------------------- reduce / sort helpers
def test_reduce_shape_and_accumulators() -> None:
    from xdsl.ir import Block, Region

    from stablehlo_py.ir.infer.reduction import accumulator_types, reduce_shape

    b = ty("tensor<?x3x?xf32, #stablehlo.bounds<5, ?, 7>>")
    assert reduce_shape([b], [1]) == ([DYN, DYN], [5, 7])
    assert reduce_shape([b], [0, 2]) == ([3], [DYN])
    assert reduce_shape([ty("tensor<2x3xf32>")], []) == ([2, 3], [])
    assert reduce_shape([ty("tensor<*xf32>"), ty("tensor<2xf32>")], [0]) is None
    assert reduce_shape([ty("tensor<2x?xf32>"), ty("tensor<?x3xf32>")], [0]) == ([DYN], [])
    assert _err(reduce_shape, [], [0]) == "expects at least 1 input"
    assert _err(reduce_shape, [ty("tensor<2xf32>"), ty("tensor<2xf32>"), ty("tensor<3xf32>")], [0]) == (
        "expects all inputs to have compatible shapes. Shape at input-index 2 is not compatible with "
        "shape at input-index 0"
    )
    assert _err(reduce_shape, [ty("tensor<2x3xf32>")], [2]) == (
        "Out-of-bounds dimension 2, expected to be in range [0, 2)"
    )
    assert _err(reduce_shape, [ty("tensor<2x3xf32>")], [-1]) == (
        "Out-of-bounds dimension -1, expected to be in range [0, 2)"
    )
    assert _err(reduce_shape, [ty("tensor<2x3xf32>")], [1, 1]) == "Duplicate reduction dimension: 1"

    r = _reducer()
    ins = [ty("tensor<4xf16>")]
    assert accumulator_types([], 0, ins) == ins
    assert accumulator_types([Region()], 0, ins) == ins
    assert accumulator_types([r], 1, ins) == ins
    assert [type_to_str(t) for t in accumulator_types([r], 0, ins)] == ["tensor<f32>"]
    assert accumulator_types([Region(Block())], 0, []) == []
    assert _err(accumulator_types, [Region(Block())], 0, ins) == (
        "The reduction-region expected to return some value(s)"
    )
    assert _err(accumulator_types, [r], 0, ins * 2) == (
        "Reduction-region here must produce 2 tensors, but produces 1 instead"
    )
    two = REDUCER.replace("stablehlo.return %s : tensor<f32>", "stablehlo.return %s, %s : tensor<f32>, tensor<f32>")
    op = next(o for o in parse(two).walk() if o.name == "stablehlo.all_reduce")
    assert len(accumulator_types([op.regions[0]], 0, ins)) == 2
    tok = """func.func @f(%a: tensor<4xf32>, %t: !stablehlo.token) {
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %t : !stablehlo.token
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}"""
    op = next(o for o in parse(tok).walk() if o.name == "stablehlo.all_reduce")
    assert _err(accumulator_types, [op.regions[0]], 0, ins) == (
        "Reduction-region here must produce tensor-typed result(s), but produces '!stablehlo.token' instead"
    )


SORT = """func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  %0:2 = "stablehlo.sort"(%a, %b) ({
  ^bb0(%w: tensor<f32>, %x: tensor<f32>, %y: tensor<i32>, %z: tensor<i32>):
    %c = stablehlo.compare GT, %w, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return
}"""


def test_verify_sort() -> None:
    from stablehlo_py.ir.infer.reduction import verify_sort

    def comparator(text: str = SORT):  # type: ignore[no-untyped-def]
        return next(o for o in parse(text).walk() if o.name == "stablehlo.sort").regions[0]

    ins = [ty("tensor<2x3xf32>"), ty("tensor<2x3xi32>")]
    for d in (-2, -1, 0, 1):
        verify_sort(ins, d, comparator())
    for d in (2, -3):
        assert _err(verify_sort, ins, d, comparator()) == (
            f"dimension attribute value must be in range [-2, 2), but found {d}"
        )
    verify_sort([ty("tensor<*xf32>"), ty("tensor<*xi32>")], 9, comparator())
    assert _err(verify_sort, ins[:1], 0, comparator()) == "comparator block should have 2 arguments"
    assert _err(verify_sort, [ins[0], ins[0]], 0, comparator()) == (
        "comparator block argument #2 should be of type 'tensor<f32>' but got 'tensor<i32>'"
    )
    assert _err(verify_sort, [ins[1], ins[1]], 0, comparator()) == (
        "comparator block argument #0 should be of type 'tensor<i32>' but got 'tensor<f32>'"
    )
    odd = SORT.replace("%x: tensor<f32>, %y", "%x: tensor<f16>, %y").replace(
        "stablehlo.compare GT, %w, %x : (tensor<f32>, tensor<f32>)", "stablehlo.compare GT, %w, %w : (tensor<f32>, tensor<f32>)"
    )
    assert _err(verify_sort, ins, 0, comparator(odd)) == (
        "comparator block argument #1 should be of type 'tensor<f32>' but got 'tensor<f16>'"
    )
    two = SORT.replace("stablehlo.return %c : tensor<i1>", "stablehlo.return %c, %c : tensor<i1>, tensor<i1>")
    assert _err(verify_sort, ins, 0, comparator(two)) == "comparator must return single output but got 2"
    for ret, t in (("%w", "tensor<f32>"), ("%y", "tensor<i32>")):
        bad = SORT.replace("stablehlo.return %c : tensor<i1>", f"stablehlo.return {ret} : {t}")
        assert _err(verify_sort, ins, 0, comparator(bad)) == f"comparator must return tensor<i1> but got '{t}'"
    vec = SORT.replace(
        "%c = stablehlo.compare GT, %w, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "%c = stablehlo.constant dense<true> : tensor<1xi1>",
    ).replace("stablehlo.return %c : tensor<i1>", "stablehlo.return %c : tensor<1xi1>")
    assert _err(verify_sort, ins, 0, comparator(vec)) == "comparator must return tensor<i1> but got 'tensor<1xi1>'"
    assert infer("stablehlo.sort", "tensor<2xf32>", "tensor<?xi8>") == ["tensor<2xf32>", "tensor<?xi8>"]


# -------------------------------------------------------------------------- convolution / dynamic
def _dconv(lhs: str, rhs: str, pad: str, pad_value: str | None = None, extra: str = "") -> list[str] | str:
    from stablehlo_py.ir.infer import infer_op

    padding = f"%p = stablehlo.constant dense<{pad_value}> : {pad}" if pad_value is not None else ""
    use = "%p" if pad_value is not None else "%q"
    text = (
        f"func.func @f(%l: {lhs}, %r: {rhs}, %q: {pad}) {{\n  {padding}\n"
        f'  %0 = "stablehlo.dynamic_conv"(%l, %r, {use}) {{dimension_numbers = '
        "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, "
        f"batch_group_count = 1 : i64{extra}}} : ({lhs}, {rhs}, {pad}) -> tensor<*xf32>\n  return\n}}"
    )
    op = next(o for o in parse(text).walk() if o.name == "stablehlo.dynamic_conv")
    try:
        return [type_to_str(t) for t in infer_op(op)]
    except InferError as e:
        return e.message


def test_dynamic_conv_padding() -> None:
    lhs, rhs = "tensor<2x10x3xf32>", "tensor<3x3x4xf32>"
    assert _dconv(lhs, rhs, "tensor<1x2xi64>", "[[1, 2]]") == ["tensor<2x11x4xf32>"]
    assert _dconv(lhs, rhs, "tensor<1x2xi64>", "[[0, 0]]") == ["tensor<2x8x4xf32>"]
    assert _dconv(lhs, rhs, "tensor<1x2xi64>", "[[0, 0]]", ", window_strides = array<i64: 3>") == [
        "tensor<2x3x4xf32>"
    ]
    # a padding that is not a constant: the spatial sizes are dynamic
    assert _dconv(lhs, rhs, "tensor<1x2xi64>") == ["tensor<2x?x4xf32>"]
    assert _dconv(lhs, rhs, "tensor<*xi64>") == ["tensor<2x?x4xf32>"]
    assert _dconv("tensor<*xf32>", rhs, "tensor<1x2xi64>") == ["tensor<*xf32>"]
    assert _dconv(lhs, "tensor<*xf32>", "tensor<1x2xi64>") == ["tensor<*xf32>"]
    assert _dconv(lhs, rhs, "tensor<2xi64>") == "expects padding to be of rank 2 but got 1"
    assert _dconv(lhs, rhs, "tensor<2x2xi64>") == "expects padding to be of shape [1, 2], but got [2, 2]"
    assert _dconv(lhs, rhs, "tensor<1x3xi64>") == "expects padding to be of shape [1, 2], but got [1, 3]"
    got = infer_result_types("stablehlo.convolution", [ty("tensor<*xf32>"), ty(rhs)], {})
    assert [type_to_str(t) for t in got] == ["tensor<*xf32>"]
    got = infer_result_types("stablehlo.convolution", [ty(lhs), ty("tensor<*xf16>")], {})
    assert [type_to_str(t) for t in got] == ["tensor<*xf32>"]


# ------------------------------------------------------------------------------- chlo.ragged_dot
def _ragged(lhs: str, rhs: str, gs: str, dims: str) -> list[str] | str:
    from stablehlo_py.ir.infer import infer_op

    text = (
        f"func.func @f(%l: {lhs}, %r: {rhs}, %g: {gs}) {{\n"
        f'  %0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>}}'
        f" : ({lhs}, {rhs}, {gs}) -> tensor<*xf32>\n  return\n}}"
    )
    op = next(o for o in parse(text).walk() if o.name == "chlo.ragged_dot")
    try:
        return [type_to_str(t) for t in infer_op(op)]
    except InferError as e:
        return e.message


def _rdims(lb="", rb="", lc="", rc="", lr="", rg="") -> str:  # type: ignore[no-untyped-def]
    return (
        f"lhs_batching_dimensions = [{lb}], rhs_batching_dimensions = [{rb}], "
        f"lhs_contracting_dimensions = [{lc}], rhs_contracting_dimensions = [{rc}], "
        f"lhs_ragged_dimensions = [{lr}], rhs_group_dimensions = [{rg}]"
    )


# the three modes, by the kind of the lhs ragged dimension
RAGGED_NC = _rdims("0", "1", "2", "2", "1", "0")  # non-contracting: [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]
RAGGED_C = _rdims("", "", "1", "0", "1", "")  # contracting: [m,k], [k,n], [g] -> [g,m,n]
RAGGED_B = _rdims("0", "0", "2", "1", "0", "")  # batch: [b,m,k], [b,k,n], [g] -> [b,m,n]
KDYN = "-9223372036854775808"  # kDynamic, as std::to_string prints it


@pytest.mark.parametrize(
    ("lhs", "rhs", "gs", "dims", "want"),
    [
        ("tensor<2x11x5xf32>", "tensor<3x2x5x7xf32>", "tensor<2x3xi64>", RAGGED_NC, ["tensor<2x11x7xf32>"]),
        ("tensor<2x11x5xf32>", "tensor<3x2x5x7xf32>", "tensor<3xi64>", RAGGED_NC, ["tensor<2x11x7xf32>"]),
        ("tensor<2x11x5xf32>", "tensor<3x2x5x7xf32>", "tensor<4x3xi64>", RAGGED_NC,
         "group_sizes is expected to have shape [2, 3], got [4, 3]"),
        ("tensor<2x11x5xf32>", "tensor<?x2x5x7xf32>", "tensor<4x?xi64>", RAGGED_NC,
         f"group_sizes is expected to have shape [2, {KDYN}], got [4, {KDYN}]"),
        ("tensor<?x11x5xf32>", "tensor<3x2x5x7xf32>", "tensor<2x3xi64>", RAGGED_NC,
         f"group_sizes is expected to have shape [{KDYN}, 3], got [2, 3]"),
        ("tensor<2x11x5xf32>", "tensor<3x2x5x7xf32>", "tensor<1x2x3xi64>", RAGGED_NC,
         "expected group_sizes to have rank 2, got 3"),
        ("tensor<11x5xf32>", "tensor<5x7xf32>", "tensor<3xi64>", RAGGED_C, ["tensor<3x11x7xf32>"]),
        ("tensor<11x5xf32>", "tensor<5x7xf32>", "tensor<11x3xi64>", RAGGED_C,
         "expected group_sizes to have rank 1, got 2"),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "1", "0"),
         "There must be zero group dimensions in the rhs when the ragged dimension is batch or contracting."),
        ("tensor<2x11x5xf32>", "tensor<2x5x7xf32>", "tensor<3xi64>", RAGGED_B, ["tensor<2x11x7xf32>"]),
        ("tensor<2x11x5xf32>", "tensor<2x5x7xf32>", "tensor<3xi64>", _rdims("0", "0", "2", "1", "0", "2"),
         "There must be zero group dimensions in the rhs when the ragged dimension is batch or contracting."),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "", "0"),
         "There must be exactly one ragged dimension in the lhs."),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "0, 0", "0"),
         "There must be exactly one ragged dimension in the lhs."),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "-1", "0"),
         "Expects lhs_ragged_dim to be in range [0, lhs_rank) i.e. [0, 2). got: -1."),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "0", "3"),
         "Expects rhs_group_dim to be in range [0, rhs_rank) i.e. [0, 3). got: 3."),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "0", "1"),
         "has duplicated dimension from rhs_group_dimensions and rhs_contracting_dimensions: 1"),
        ("tensor<2x11x5xf32>", "tensor<2x5x7xf32>", "tensor<2x3xi64>", _rdims("0", "0", "2", "1", "1", "0"),
         "has duplicated dimension from rhs_group_dimensions and rhs_batching_dimensions: 0"),
        ("tensor<11x5xf32>", "tensor<?x5x7xf32>", "tensor<3xi64>", _rdims("", "", "1", "1", "0", "0"),
         ["tensor<11x7xf32>"]),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<i64>", _rdims("", "", "1", "1", "0", "0"),
         "expected group_sizes to have rank 1, got 0"),
        ("tensor<*xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", RAGGED_NC, ["tensor<*xf32>"]),
        ("tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<*xi64>", RAGGED_NC, ["tensor<*xf32>"]),
    ],
)
def test_ragged_dot_modes_and_messages(lhs: str, rhs: str, gs: str, dims: str, want: list[str] | str) -> None:
    assert _ragged(lhs, rhs, gs, dims) == want


def test_ragged_dot_needs_its_dimension_numbers() -> None:
    with pytest.raises(InferError) as e:
        infer_result_types("chlo.ragged_dot", [ty("tensor<2xf32>")] * 3, {})
    assert e.value.message == "requires attribute 'ragged_dot_dimension_numbers'"


def test_shape_builder_computes_in_the_given_integer_type() -> None:
    """dynamic_pad and real_dynamic_slice compute sizes in their operands' integer type: the
    constants of such a computation carry that type, not index."""
    from stablehlo_py.ir.infer.reify import ShapeBuilder

    m = parse(
        "func.func @f(%k: i32, %t: tensor<?xf32>) {\n  %0 = stablehlo.abs %t : tensor<?xf32>\n  return\n}"
    )
    f = next(op for op in m.walk() if op.name == "func.func")
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    (k, _t) = f.regions[0].blocks.first.args
    I32 = k.type
    sb = ShapeBuilder.before_op(abs_op)

    def const_of(v):  # type: ignore[no-untyped-def]
        op = v.owner
        assert op.name == "arith.constant", op.name
        return op.properties["value"].value.data, op.results[0].type

    s = sb.sub(3, k, I32)
    assert s.owner.name == "arith.subi" and const_of(s.owner.operands[0]) == (3, I32)
    assert s.type == I32
    a = sb.add(k, 4, I32)
    assert a.owner.name == "arith.addi" and const_of(a.owner.operands[1]) == (4, I32)
    mm = sb.mul(k, 5, I32)
    assert mm.owner.name == "arith.muli" and mm.type == I32
    lt = sb.less(1, k, I32)
    assert lt.owner.name == "arith.cmpi" and const_of(lt.owner.operands[0]) == (1, I32)
    gt = sb.less(k, 6, I32)
    assert const_of(gt.owner.operands[1]) == (6, I32)
    sel = sb.select(lt, 0, k, I32)
    assert sel.owner.name == "arith.select" and const_of(sel.owner.operands[1]) == (0, I32)
    sel = sb.select(lt, k, 7, I32)
    assert const_of(sel.owner.operands[2]) == (7, I32)
    fe = sb.from_elements([8, k], I32)
    assert type_to_str(fe.type) == "tensor<2xi32>"
    assert const_of(fe.owner.operands[0]) == (8, I32) and fe.owner.operands[1] is k
    # division: by one folds to the dividend, by zero is left to run time (no folding)
    assert sb.divsi(7, 1) == 7 and sb.divsi(-7, 1) == -7 and sb.divsi(0, 1) == 0
    d = sb.divsi(5, 0, I32)
    assert d.owner.name == "arith.divsi"
    assert const_of(d.owner.operands[0]) == (5, I32) and const_of(d.owner.operands[1]) == (0, I32)


def test_shape_builder_extract_folds_only_inside_a_constant() -> None:
    from stablehlo_py.ir.infer.reify import ShapeBuilder, constant_ints

    m = parse(
        "func.func @f(%t: tensor<?xf32>, %s: tensor<2xi64>) {\n"
        "  %c = stablehlo.constant dense<[4, 9]> : tensor<2xi64>\n"
        "  %0 = stablehlo.abs %t : tensor<?xf32>\n  return\n}"
    )
    f = next(op for op in m.walk() if op.name == "func.func")
    c = next(op for op in m.walk() if op.name == "stablehlo.constant").results[0]
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    s = f.regions[0].blocks.first.args[1]
    sb = ShapeBuilder.before_op(abs_op)
    assert constant_ints(c) == (4, 9) and constant_ints(s) is None
    assert sb.extract(c, 0) == 4 and sb.extract(c, 1) == 9
    e = sb.extract(c, 2)  # past the end: not folded (the folder would not either)
    assert e.owner.name == "tensor.extract" and e.owner.operands[0] is c
    e = sb.extract(s, 0)
    assert e.owner.name == "tensor.extract" and e.owner.operands[0] is s


def test_rule_registers_the_function_under_every_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from stablehlo_py.ir import infer as I
    from stablehlo_py.ir.infer import registry

    I.rules()  # the families are loaded before the registry is swapped
    # one copy, where `rule` writes it (registry) and where the package reads it
    table = dict(I._RULES)
    monkeypatch.setattr(registry, "_RULES", table)
    monkeypatch.setattr(I, "_RULES", table)

    def fn(inp):  # type: ignore[no-untyped-def]
        return [TokenType()]

    assert I.rule("test.a", "test.b")(fn) is fn
    assert I.rules()["test.a"] is fn and I.rules()["test.b"] is fn
    assert infer_result_types("test.b", []) == [TokenType()]


NESTED = """func.func @f(%t: tensor<?xf32>, %p: tensor<i1>) {
  %w = "stablehlo.while"(%t) ({
  ^bb0(%x: tensor<?xf32>):
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<?xf32>):
    %v = "stablehlo.while"(%x) ({
    ^bb0(%y: tensor<?xf32>):
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%y: tensor<?xf32>):
      %a = stablehlo.abs %y : tensor<?xf32>
      "stablehlo.return"(%a) : (tensor<?xf32>) -> ()
    }) : (tensor<?xf32>) -> tensor<?xf32>
    "stablehlo.return"(%v) : (tensor<?xf32>) -> ()
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return
}"""


def test_shape_builder_puts_constants_at_the_start_of_the_function() -> None:
    from stablehlo_py.ir.infer.reify import ShapeBuilder

    # an op two regions deep: its constants go to the function's entry block, not the loop's
    m = parse(NESTED)
    f = next(op for op in m.walk() if op.name == "func.func")
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    sb = ShapeBuilder.before_op(abs_op)
    c = sb.const(5)
    assert c.owner.parent_block() is f.regions[0].blocks.first
    assert f.regions[0].blocks.first.first_op is c.owner
    d = sb.dim(abs_op.operands[0], 0)
    assert d.owner.parent_block() is abs_op.parent_block()  # the computation stays before the op
    assert d.owner.next_op is abs_op

    # top-level ops of a module (no function): the module's body
    m = parse("%c = stablehlo.constant dense<1.0> : tensor<2xf32>\n%0 = stablehlo.abs %c : tensor<2xf32>")
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    c = ShapeBuilder.before_op(abs_op).const(6)
    assert c.owner.parent_block() is abs_op.parent_block()
    assert abs_op.parent_block().first_op is c.owner

    # a loop at the top level of a module: the module's body
    top = NESTED.replace("func.func @f(%t: tensor<?xf32>, %p: tensor<i1>) {\n", "").replace("  return\n}", "")
    m = parse("%t = stablehlo.constant dense<1.0> : tensor<2xf32>\n%p = stablehlo.constant dense<true> : tensor<i1>\n"
              + top.replace("tensor<?xf32>", "tensor<2xf32>"))
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    body = m.regions[0].blocks.first
    c = ShapeBuilder.before_op(abs_op).const(7)
    assert c.owner.parent_block() is body and body.first_op is c.owner

    # a loop not (yet) in any block: its own body
    outer = next(op for op in m.walk() if op.name == "stablehlo.while")
    inner = [op for op in m.walk() if op.name == "stablehlo.while"][1]
    inner.detach()
    sb = ShapeBuilder.before_op(abs_op)
    assert sb is not None
    c = sb.const(8)
    assert c.owner.parent_block() is abs_op.parent_block()
    assert outer.parent_block() is body


def test_shape_builder_reuses_only_arith_constants() -> None:
    from stablehlo_py.ir.infer.reify import ShapeBuilder

    m = parse(
        "func.func @f(%t: tensor<0x?xf32>) {\n"
        '  %k = "chlo.constant_like"(%t) {value = 3 : index} : (tensor<0x?xf32>) -> tensor<0x?xindex>\n'
        "  %c = arith.constant 4 : index\n"
        "  %0 = stablehlo.abs %t : tensor<0x?xf32>\n  return\n}"
    )
    f = next(op for op in m.walk() if op.name == "func.func")
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    existing = next(op for op in m.walk() if op.name == "arith.constant")
    sb = ShapeBuilder.before_op(abs_op)
    three = sb.const(3)
    assert three.owner.name == "arith.constant" and three.owner.properties["value"].value.data == 3
    four = sb.const(4)
    assert four.owner is existing and f.regions[0].blocks.first.first_op is existing
    # a static size of 0 folds as any other static size
    t = f.regions[0].blocks.first.args[0]
    assert sb.dim(t, 0) == 0
    assert sb.dim(t, 1).owner.name == "tensor.dim"


def test_reify_refuses_unranked_operands_with_the_ops_name() -> None:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    from stablehlo_py.errors import NotSupportedError
    from stablehlo_py.ir.infer import reify as R

    m = parse(
        "func.func @f(%t: tensor<*xf32>) {\n"
        "  %0 = stablehlo.transpose %t, dims = [1, 0] : (tensor<*xf32>) -> tensor<*xf32>\n  return\n}"
    )
    op = next(o for o in m.walk() if o.name == "stablehlo.transpose")
    with pytest.raises(NotSupportedError) as e:
        R.reify_result_shapes(op, R.ShapeBuilder.before_op(op))
    assert "reifying the result shape of stablehlo.transpose: its operand is not ranked" in str(e.value)
    assert R.int_list(DenseArrayBase.from_list(i64, [1, 0])) == (1, 0)


def test_reify_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    from stablehlo_py.ir.infer import reify as R

    monkeypatch.setattr(R, "REIFY", dict(R.REIFY))

    def fn(op, b):  # type: ignore[no-untyped-def]
        return None

    assert R._reify("test.x", "test.y")(fn) is fn
    assert R.has_reify("test.x") and R.has_reify("test.y") and R.REIFY["test.y"] is fn


def test_collective_reduce_checks_its_replica_groups_and_results_name_the_last_type() -> None:
    from stablehlo_py.ir.infer.collectives import verify_collective_reduce as vr, verify_infeed

    r = _reducer()
    t = [ty("tensor<2xf32>")]
    # non-uniform groups are allowed (-1 pads a shorter group), repeated ids are not
    vr(t, dense("dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>"), 0, False, False, r)
    assert _err(vr, t, dense("dense<[[0, 0]]> : tensor<1x2xi64>"), 0, False, False, r) == (
        "replica id #0 seen more than once"
    )
    assert _err(vr, t, dense("dense<> : tensor<0x2xi64>"), 1, True, False, r) == (
        "if `use_global_device_ids` is set, the replica groups cannot be empty"
    )
    vr(t, dense("dense<> : tensor<0x2xi64>"), 1, False, False, r)
    tok = TokenType()
    assert _err(verify_infeed, None, [ty("tensor<2xf32>"), ty("tensor<3xi8>"), ty("tensor<4xf16>")]) == (
        "last element of result types is expected to be of token type, but got 'tensor<4xf16>'"
    )
    verify_infeed(None, [ty("tensor<2xf32>"), ty("tensor<3xi8>"), tok])


def test_collective_reduce_verifies_the_reducer_for_each_data_operand() -> None:
    from stablehlo_py.ir.infer.collectives import verify_collective_reduce as vr

    r = _reducer()  # an f32 reducer
    f, i = ty("tensor<2xf32>"), ty("tensor<2xi32>")
    root = ty("tensor<2xi32>")
    msg = (
        "The element-type of reduction-region's result type at index 0 is expected to be "
        "promotable from the op's corresponding init-value element-type: 'tensor<f32>' vs "
        "'tensor<i32>'"
    )
    assert _err(vr, [f, i], None, 0, False, False, r) == msg
    assert _err(vr, [f, i, root], None, 0, False, True, r) == msg
    vr([f, f, root], None, 0, False, True, r)  # the root (i32) is not reduced


def test_batch_norm_defaults_and_which_operand_gives_the_size() -> None:
    s3, s4, d = ty("tensor<3xf32>"), ty("tensor<4xf32>"), ty("tensor<?xf32>")
    x = ty("tensor<3x2xf32>")
    # feature_index absent (a rule input without the attribute): dimension 0
    got = infer_result_types("stablehlo.batch_norm_training", [x, s3, s3], {})
    assert [type_to_str(t) for t in got] == ["tensor<3x2xf32>", "tensor<3xf32>", "tensor<3xf32>"]
    # the size checked against the feature count is the first single-dimensional operand's
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.batch_norm_training", [x, s4, d], {})
    assert e.value.message == (
        "expects the size of single-dimensional operands to be compatible with feature count, but "
        "the size of single-dimensional operands is 4 and the feature count is 3."
    )
    got = infer_result_types("stablehlo.batch_norm_training", [x, d, s4], {})
    assert [type_to_str(t) for t in got] == ["tensor<3x2xf32>", "tensor<3xf32>", "tensor<3xf32>"]
    # a negative feature_index breaks the attribute's ODS constraint: reported as the op's own
    # error, before inference (no "failed to infer returned types" follows)
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.batch_norm_training", [x, s3, s3], {"feature_index": IntegerAttr(-1, 64)})
    assert e.value.invariant is True and e.value.op_prefixed is True


def test_all_gather_all_reduce_reduce_scatter_replica_groups_and_results() -> None:
    from stablehlo_py.ir.infer.collectives import (
        verify_all_gather as ag,
        verify_all_reduce as ar,
        verify_reduce_scatter as rs,
    )

    r = _reducer()  # an f32 reducer
    padded = dense("dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>")
    empty = dense("dense<> : tensor<0x2xi64>")
    a, b = [ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>")]
    assert _err(ag, a, b, 1, padded, 0, False) == "Invalid replica id -1"
    assert _err(ag, a, b, 1, empty, 1, True) == (
        "if `use_global_device_ids` is set, the replica groups cannot be empty"
    )
    ar([ty("tensor<4xf32>")], padded, 0, False, r)
    assert _err(ar, [ty("tensor<4xf32>")], empty, 1, True, r) == (
        "if `use_global_device_ids` is set, the replica groups cannot be empty"
    )
    assert _err(rs, ty("tensor<2x8xf32>"), ty("tensor<2x4xf32>"), 1, empty, 1, True, r) == (
        "if `use_global_device_ids` is set, the replica groups cannot be empty"
    )
    # an unranked pair is skipped, the next pair is still checked
    assert _err(
        ag, [ty("tensor<*xf32>"), ty("tensor<2x3xf32>")], [ty("tensor<2x6xf32>"), ty("tensor<2x7xf32>")], 1, None, 0, False
    ) == "result gather dimension has size 7, expected to be a multiple of operand gather dimension size 3"
    # reduce_scatter's result has the reducer's element type (f32 here), not the operand's
    assert _err(rs, ty("tensor<2x8xf16>"), ty("tensor<2x4xf16>"), 1, None, 0, False, r) == (
        "result element-type is expected to be 'f32', but got 'f16'"
    )
    rs(ty("tensor<2x8xf16>"), ty("tensor<2x4xf32>"), 1, None, 0, False, r)


def test_messages_print_negative_attribute_values_as_given() -> None:
    # upstream streams an attribute's int64 values: -1 prints as -1 (only shape sizes print kDynamic)
    assert _map(a="tensor<3xf32>", b="tensor<3xf32>", dims=": -1") == (
        "requires monotonically increasing dimension numbers, but got: -1"
    )


def test_select_and_scatter_unranked_and_reduce_window_without_inputs() -> None:
    got = infer_result_types(
        "stablehlo.select_and_scatter", [ty("tensor<*xf16>"), ty("tensor<2xf16>"), ty("tensor<f16>")], {}
    )
    assert [type_to_str(t) for t in got] == ["tensor<*xf16>"]
    got = infer_result_types(
        "stablehlo.select_and_scatter",
        [ty("tensor<?x4xf16, #stablehlo.bounds<3, ?>>"), ty("tensor<2xf16>"), ty("tensor<f16>")],
        {},
    )
    assert [type_to_str(t) for t in got] == ["tensor<?x4xf16, #stablehlo.bounds<3, ?>>"]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.reduce_window", [], {})
    assert e.value.message == "requires at least 1 input value"


def test_constant_ints_reads_arith_constants_in_both_forms() -> None:
    """m_Constant matches arith.constant as stablehlo.constant, its value a property (the custom
    form) or an attribute (the generic form with an attribute dictionary)."""
    from stablehlo_py.ir.infer.reify import ShapeBuilder, constant_ints

    m = parse(
        "func.func @f(%t: tensor<?xf32>) {\n"
        "  %a = arith.constant dense<[4, 9]> : tensor<2xi64>\n"
        '  %b = "arith.constant"() {value = dense<[5, 6]> : tensor<2xi64>} : () -> tensor<2xi64>\n'
        "  %c = arith.constant 7 : i32\n"
        "  %0 = stablehlo.abs %t : tensor<?xf32>\n  return\n}"
    )
    a, b, c = (op.results[0] for op in m.walk() if op.name == "arith.constant")
    assert constant_ints(a) == (4, 9) and constant_ints(b) == (5, 6) and constant_ints(c) == (7,)
    sb = ShapeBuilder.before_op(next(op for op in m.walk() if op.name == "stablehlo.abs"))
    assert sb.extract(a, 1) == 9 and sb.extract(b, 0) == 5
    assert sb.created == []


def test_a_fresh_interpreter_loads_the_rule_families_on_first_use() -> None:
    """The rule modules are imported by the first call that needs them: in a new interpreter (with
    this one's import path), the first call finds the rules of every family."""
    import os
    import subprocess
    import sys

    from stablehlo_py.ir.infer import FAMILIES, rules

    def families(found: dict) -> list[str]:  # type: ignore[type-arg]
        return sorted({fn.__module__.rsplit(".", 1)[1] for fn in found.values()})

    assert families(rules()) == sorted(FAMILIES)
    code = (
        "from xdsl.dialects.builtin import TensorType, f32\n"
        "from stablehlo_py.ir.infer import has_rule, infer_result_types, rules\n"
        "from stablehlo_py.ir.text.printer import type_to_str\n"
        "print(has_rule('chlo.broadcast_add'), has_rule('chlo.no_such_op'))\n"
        "print(type_to_str(infer_result_types('stablehlo.add', [TensorType(f32, [2])] * 2)[0]))\n"
        "print(' '.join(sorted({fn.__module__.rsplit('.', 1)[1] for fn in rules().values()})))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["True False", "tensor<2xf32>", " ".join(sorted(FAMILIES))]
