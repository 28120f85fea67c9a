"""Result-type inference of the CHLO ops (issue 11): broadcasting binary ops (numpy, bounded and
broadcast_dimensions), broadcast_compare/complex/select, the CompatibleOperandsAndResultType ops,
is_inf, constant, constant_like, top_k, ragged_dot (its three modes) and scan; upstream's errors; a differential check against every
CHLO op of the conformance programs."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import TensorType

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op, rules
from stablehlo_py.ir.infer.shapes import types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from tests.conftest import CONFORMANCE
from tests.unit.ir.infer.cases import Case, case, cases_test, check, op_case, the_op


def op_of(text: str):
    for op in parse(text).walk():
        if op.name.startswith("chlo."):
            return op
    raise AssertionError("no chlo op")


def func(line: str, args: str) -> str:
    return f"func.func @f({args}) {{\n  {line}\n  return\n}}\n"


def inferred(line: str, args: str) -> list[str]:
    """The inferred result types (as text) of the CHLO op ``line`` in a function of ``args``."""
    return [type_to_str(t) for t in infer_op(op_of(func(line, args)))]


def binary(name: str, a: str, b: str, res: str = "tensor<*xf32>", attrs: str = "") -> list[str]:
    line = f"%0 = chlo.{name} %x, %y {attrs}: ({a}, {b}) -> {res}"
    return inferred(line, f"%x: {a}, %y: {b}")


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("tensor<2x3xf32>", "tensor<3xf32>", "tensor<2x3xf32>"),
        ("tensor<2x1xf32>", "tensor<1x4xf32>", "tensor<2x4xf32>"),
        ("tensor<?x3xf32>", "tensor<3xf32>", "tensor<?x3xf32>"),
        ("tensor<?x1xf32>", "tensor<1x4xf32>", "tensor<?x4xf32>"),
        ("tensor<*xf32>", "tensor<3xf32>", "tensor<*xf32>"),
        (
            "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
            "tensor<3xf32>",
            "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
        ),
    ],
)
def test_broadcast_add(a: str, b: str, want: str) -> None:
    assert binary("broadcast_add", a, b) == [want]


def test_broadcast_dimensions() -> None:
    got = binary(
        "broadcast_add",
        "tensor<2x3xf32>",
        "tensor<2xf32>",
        attrs="{broadcast_dimensions = array<i64: 0>} ",
    )
    assert got == ["tensor<2x3xf32>"]
    bad = binary(
        "broadcast_add",
        "tensor<2x3xf32>",
        "tensor<2xf32>",
        attrs="{broadcast_dimensions = array<i64: 5>} ",
    )
    assert bad == ["tensor<*xf32>"]  # upstream signals illegal broadcast_dimensions as unranked


def test_result_element_types() -> None:
    cmp = "%0 = chlo.broadcast_compare %x, %y {comparison_direction = #chlo<comparison_direction LT>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>"
    assert inferred(cmp, "%x: tensor<?xf32>, %y: tensor<f32>") == ["tensor<?xi1>"]
    assert binary(
        "broadcast_complex", "tensor<2xf32>", "tensor<2xf32>", "tensor<2xcomplex<f32>>"
    ) == ["tensor<2xcomplex<f32>>"]


def test_broadcast_errors() -> None:
    with pytest.raises(InferError) as e:
        binary("broadcast_add", "tensor<2x3xf32>", "tensor<4xf32>")
    assert e.value.message == "incompatible shapes for broadcasting 3 and 4"
    with pytest.raises(InferError, match="mismatched operand types"):
        binary("broadcast_add", "tensor<2xf32>", "tensor<2xf64>")
    with pytest.raises(InferError, match="cannot mix bounded and static dimensions in broadcast"):
        binary("broadcast_add", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<4xf32>")


def test_broadcast_select() -> None:
    line = "%0 = chlo.broadcast_select %p, %x, %y : (tensor<i1>, tensor<2x?xf32>, tensor<3xf32>) -> tensor<2x3xf32>"
    args = "%p: tensor<i1>, %x: tensor<2x?xf32>, %y: tensor<3xf32>"
    assert inferred(line, args) == ["tensor<2x3xf32>"]


@pytest.mark.parametrize(
    "name,t,want",
    [
        ("acos", "tensor<?x2xf32>", "tensor<?x2xf32>"),
        ("erf", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32, #stablehlo.bounds<4>>"),
        ("is_inf", "tensor<?x2xf32>", "tensor<?x2xi1>"),
        ("is_pos_inf", "tensor<*xf32>", "tensor<*xi1>"),
    ],
)
def test_unary(name: str, t: str, want: str) -> None:
    line = f"%0 = chlo.{name} %x : {t} -> {want}"
    assert inferred(line, f"%x: {t}") == [want]


def test_constant_like_and_constant() -> None:
    t = "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"
    line = f'%0 = "chlo.constant_like"(%x) {{value = 1.0 : f32}} : ({t}) -> {t}'
    assert inferred(line, f"%x: {t}") == [t]
    c = "%0 = chlo.constant dense<1> : tensor<2xi32>"
    assert inferred(c, "") == ["tensor<2xi32>"]


@pytest.mark.parametrize(
    "t,want",
    [
        ("tensor<16x16xf32>", ["tensor<16x8xf32>", "tensor<16x8xi32>"]),
        ("tensor<?x?xf32>", ["tensor<?x8xf32>", "tensor<?x8xi32>"]),
        (
            "tensor<?x?xf32, #stablehlo.bounds<4, 20>>",
            [
                "tensor<?x8xf32, #stablehlo.bounds<4, ?>>",
                "tensor<?x8xi32, #stablehlo.bounds<4, ?>>",
            ],
        ),
        ("tensor<*xf32>", ["tensor<*xf32>", "tensor<*xi32>"]),
    ],
)
def test_top_k(t: str, want: list[str]) -> None:
    line = f"%0:2 = chlo.top_k(%x, k = 8) : {t} -> (tensor<*xf32>, tensor<*xi32>)"
    assert inferred(line, f"%x: {t}") == want


def test_top_k_errors() -> None:
    line = "%0:2 = chlo.top_k(%x, k = 8) : tensor<4xf32> -> (tensor<8xf32>, tensor<8xi32>)"
    with pytest.raises(InferError, match="operand's last dimension must be at least 8"):
        infer_op(op_of(func(line, "%x: tensor<4xf32>")))


@pytest.mark.skipif(not (CONFORMANCE / "testdata").is_dir(), reason="no conformance data")
def test_conformance_programs_agree() -> None:
    names = {n for n in rules() if n.startswith("chlo.")}
    n = 0
    for path in sorted((CONFORMANCE / "testdata").glob("*.mlir")):
        text = path.read_text()
        if not re.search(r"chlo\.", text):
            continue
        for op in parse(text).walk():
            if op.name not in names:
                continue
            got = infer_op(op)
            declared = [r.type for r in op.results]
            assert types_compatible(got, declared), (path.name, op.name, got, declared)
            for g, d in zip(got, declared):
                if isinstance(d, TensorType) and all(s >= 0 for s in d.get_shape()):
                    assert g == d, (path.name, op.name, g, d)
            n += 1
    assert n > 50


# ------------------------------------------------------------------- ragged_dot and scan
def _ragged(lhs: str, rhs: str, gs: str, dims: str, res: str) -> str:
    return (
        f'%0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>}}'
        f" : ({lhs}, {rhs}, {gs}) -> {res}"
    )


_MODE1 = "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]"
_MODE2 = "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]"
_MODE3 = (
    "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
    "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]"
)


def ragged_case(lhs: str, rhs: str, gs: str, dims: str, want: str) -> Case:
    return case(
        "chlo.ragged_dot",
        f"%l: {lhs}, %r: {rhs}, %g: {gs}",
        _ragged(lhs, rhs, gs, dims, want),
        want,
    )


def scan_case(
    x: str, init: str, slice_: str, outs: str, want: tuple[str, str], attrs: str = ""
) -> Case:
    line = (
        f"%0:2 = chlo.scan(%x) inits (%c) dimension=0 {attrs}{{\n"
        f"  ^bb0(%a: {slice_}, %b: {init}):\n"
        f"    %1 = stablehlo.add %a, %b : {init}\n"
        f"    stablehlo.return %1, %1 : {init}, {init}\n"
        f"  }} : ({x}, {init}) -> ({outs}, {init})"
    )
    return case("chlo.scan", f"%x: {x}, %c: {init}", line, *want)


CASES = [
    # mode 1 (ragged non-contracting): [m,k], [g,k,n], [g] -> [m,n]
    ragged_case(
        "tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _MODE1, "tensor<11x7xf32>"
    ),
    ragged_case("tensor<?x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi64>", _MODE1, "tensor<?x7xf32>"),
    # upstream's ShapedTypeComponents carry no bounds
    ragged_case(
        "tensor<?x5xf32, #stablehlo.bounds<11, ?>>",
        "tensor<3x5x7xf32>",
        "tensor<3xi64>",
        _MODE1,
        "tensor<?x7xf32>",
    ),
    # mode 2 (ragged contracting): [m,k], [k,n], [g] -> [g,m,n]
    ragged_case(
        "tensor<11x5xf32>", "tensor<5x7xf32>", "tensor<3xi64>", _MODE2, "tensor<3x11x7xf32>"
    ),
    # mode 3 (ragged batch): [b,m,k], [b,k,n], [g] -> [b,m,n]
    ragged_case(
        "tensor<3x11x5xf32>", "tensor<3x5x?xf32>", "tensor<3xi64>", _MODE3, "tensor<3x11x?xf32>"
    ),
    scan_case(
        "tensor<2x3xf32>",
        "tensor<3xf32>",
        "tensor<3xf32>",
        "tensor<2x3xf32>",
        ("tensor<2x3xf32>", "tensor<3xf32>"),
    ),
    scan_case(
        "tensor<?x3xf32>",
        "tensor<3xf32>",
        "tensor<3xf32>",
        "tensor<?x3xf32>",
        ("tensor<?x3xf32>", "tensor<3xf32>"),
    ),
    # scan_dim_size gives the output's scan dimension when the inputs' is dynamic
    scan_case(
        "tensor<?x3xf32>",
        "tensor<3xf32>",
        "tensor<3xf32>",
        "tensor<2x3xf32>",
        ("tensor<2x3xf32>", "tensor<3xf32>"),
        attrs="attributes {scan_dim_size = 2 : i64} ",
    ),
    scan_case(
        "tensor<?x3xf32, #stablehlo.bounds<4, ?>>",
        "tensor<3xf32>",
        "tensor<3xf32>",
        "tensor<?x3xf32>",
        ("tensor<?x3xf32>", "tensor<3xf32>"),
    ),
]


# ------------------------------------------------------------ coverage cases of the other ops
_KIND_SHAPES = (("2x3", ""), ("?x3", ""), ("?x3", ", #stablehlo.bounds<5, ?>"))
"""A static, a dynamic and a bounded shape (with its encoding)."""
_INT_OPS = {"broadcast_and", "broadcast_or", "broadcast_xor", "mulhi"} | {
    f"broadcast_shift_{k}" for k in ("left", "right_arithmetic", "right_logical")
}
_COMPLEX_OPS = {"conj", "_asin_acos_kernel"}
_RESULT_ELEMENT = {
    "broadcast_compare": "i1",
    "broadcast_complex": "complex<f32>",
    "is_inf": "i1",
    "is_neg_inf": "i1",
    "is_pos_inf": "i1",
}
_ATTRS = {"broadcast_compare": "{comparison_direction = #chlo<comparison_direction LT>}"}


def _generic_cases() -> list[Case]:
    """Every broadcasting binary op (equal operand types), CompatibleOperandsAndResultType op and
    is_inf op, in the generic form: the operand's shape and bounds, its element type or the op's."""
    from stablehlo_py.ir.infer.chlo import BROADCAST_BINARY, COMPATIBLE_OPERANDS_AND_RESULT

    binary = {f"broadcast_{n}" for n in (*BROADCAST_BINARY, "compare", "complex")} | {
        "next_after",
        "polygamma",
        "zeta",
        "mulhi",
    }
    unary = set(COMPATIBLE_OPERANDS_AND_RESULT)
    ops = sorted(binary | unary | {"is_inf", "is_neg_inf", "is_pos_inf"})
    out: list[Case] = []
    for op in ops:
        n = 2 if op in binary else 1
        elem = "i32" if op in _INT_OPS else "complex<f32>" if op in _COMPLEX_OPS else "f32"
        for shape, enc in _KIND_SHAPES:
            t = f"tensor<{shape}x{elem}{enc}>"
            want = f"tensor<{shape}x{_RESULT_ELEMENT.get(op, elem)}{enc}>"
            operands = [(f"%a{i}", t) for i in range(n)]
            out.append(op_case(f"chlo.{op}", operands, want, attrs=_ATTRS.get(op, "")))
    return out


def _select_case(pred: str, t: str, want: str) -> Case:
    line = f"%0 = chlo.broadcast_select %p, %x, %x : ({pred}, {t}, {t}) -> {want}"
    return case("chlo.broadcast_select", f"%p: {pred}, %x: {t}", line, want)


def _constant_like_case(t: str) -> Case:
    return op_case("chlo.constant_like", [("%x", t)], t, attrs="{value = 1.0 : f32}")


def _top_k_case(t: str, *want: str) -> Case:
    line = f"%0:2 = chlo.top_k(%x, k = 8) : {t} -> ({want[0]}, {want[1]})"
    return case("chlo.top_k", f"%x: {t}", line, *want)


OTHER_CASES = [
    *_generic_cases(),
    # numpy broadcasting of different shapes: static, dynamic, bounded
    case(
        "chlo.broadcast_add",
        "%a: tensor<2x1xf32>, %b: tensor<4xf32>",
        '%0 = "chlo.broadcast_add"(%a, %b) : (tensor<2x1xf32>, tensor<4xf32>) -> tensor<2x4xf32>',
        "tensor<2x4xf32>",
    ),
    _select_case("tensor<2x3xi1>", "tensor<2x3xf32>", "tensor<2x3xf32>"),
    _select_case("tensor<i1>", "tensor<?x3xf32>", "tensor<?x3xf32>"),
    _select_case(
        "tensor<i1>",
        "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
        "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
    ),
    _constant_like_case("tensor<2x3xf32>"),
    _constant_like_case("tensor<?x3xf32>"),
    _constant_like_case("tensor<?x3xf32, #stablehlo.bounds<5, ?>>"),
    case("chlo.constant", "", "%0 = chlo.constant dense<1> : tensor<2xi32>", "tensor<2xi32>"),
    _top_k_case("tensor<16x16xf32>", "tensor<16x8xf32>", "tensor<16x8xi32>"),
    _top_k_case("tensor<?x?xf32>", "tensor<?x8xf32>", "tensor<?x8xi32>"),
    _top_k_case(
        "tensor<?x?xf32, #stablehlo.bounds<4, 20>>",
        "tensor<?x8xf32, #stablehlo.bounds<4, ?>>",
        "tensor<?x8xi32, #stablehlo.bounds<4, ?>>",
    ),
]

CASES += OTHER_CASES


test_cases = cases_test(CASES)


@pytest.mark.parametrize(
    "lhs,rhs,gs,dims,message",
    [
        (
            "tensor<11x5xf32>",
            "tensor<3x2x7xf32>",
            "tensor<3xi64>",
            _MODE1,
            "contracting dimension sizes must match for lhs/rhs",
        ),
        (
            "tensor<11x5xf32>",
            "tensor<3x5x7xf32>",
            "tensor<3x2xi64>",
            _MODE1,
            "expected group_sizes to have rank 1, got 2",
        ),
        (
            "tensor<11x5xf32>",
            "tensor<3x5x7xf32>",
            "tensor<3xi64>",
            _MODE1.replace("lhs_ragged_dimensions = [0]", "lhs_ragged_dimensions = [2]"),
            "Expects lhs_ragged_dim to be in range [0, lhs_rank) i.e. [0, 2). got: 2.",
        ),
        (
            "tensor<11x5xf32>",
            "tensor<2x5x7xf32>",
            "tensor<3xi64>",
            _MODE1,
            "rhs group dimension is expected to have size=3, got 2",
        ),
        (
            "tensor<11x5xf32>",
            "tensor<3x5x7xf32>",
            "tensor<3xi64>",
            _MODE1.replace(", rhs_group_dimensions = [0]", ""),
            "There must be exactly one group dimension in the rhs when the lhs ragged dimension is non-contracting.",
        ),
        (
            "tensor<2x11x5xf32>",
            "tensor<2x3x5x7xf32>",
            "tensor<3x3xi64>",
            (
                "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
                "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]"
            ),
            "group_sizes is expected to have shape [2, 3], got [3, 3]",
        ),
    ],
)
def test_ragged_dot_errors(lhs: str, rhs: str, gs: str, dims: str, message: str) -> None:
    c = ragged_case(lhs, rhs, gs, dims, "tensor<*xf32>")
    with pytest.raises(InferError) as e:
        infer_op(the_op(c))
    assert e.value.message == message


def test_scan_errors() -> None:
    c = scan_case("tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<2x3xf32>", ("", ""))
    bad = Case(c.op, c.args, c.line.replace("dimension=0", "dimension=2"), c.want)
    with pytest.raises(InferError, match="scan dimension of operand 0 is out of bounds"):
        infer_op(the_op(bad))
