"""Result-type inference of the reduction ops (stablehlo_py/ir/infer/reduction.py): static, dynamic
and bounded cases, upstream's error messages, and differential checks against upstream's
expectations (infer_stablehlo.mlir's `types0 = ...` lines) and the conformance test data."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import infer_op
from stablehlo_py.ir.infer.shapes import types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from tests.unit.ir.infer.cases import Case, case, cases_test
from tests.unit.ir.infer.helpers import first_op_any as _op
from tests.unit.ir.infer.helpers import infer_error_any as _error
from tests.unit.ir.infer.helpers import inferred_any as _infer
from tests.unit.ir.infer.helpers import op_verify_message
from tests.conftest import CONFORMANCE

FAMILY = {
    "stablehlo.reduce",
    "stablehlo.reduce_window",
    "stablehlo.select_and_scatter",
    "stablehlo.sort",
    "stablehlo.map",
}


# --------------------------------------------------------------------------------------- reduce
def reduce_text(in_t: str, out_t: str, dims: str, acc: str = "f32", init: str = "f32") -> str:
    return f"""func.func @f(%x: {in_t}, %i: tensor<{init}>) -> {out_t} {{
  %0 = "stablehlo.reduce"(%x, %i) ({{
  ^bb0(%a: tensor<{acc}>, %b: tensor<{acc}>):
    %s = "stablehlo.add"(%a, %b) : (tensor<{acc}>, tensor<{acc}>) -> tensor<{acc}>
    "stablehlo.return"(%s) : (tensor<{acc}>) -> ()
  }}) {{dimensions = array<i64: {dims}>}} : ({in_t}, tensor<{init}>) -> {out_t}
  return %0 : {out_t}
}}
"""


def test_reduce_static_dynamic_bounded() -> None:
    assert _infer(reduce_text("tensor<7x5xf32>", "tensor<5xf32>", "0"), "stablehlo.reduce") == [
        "tensor<5xf32>"
    ]
    assert _infer(reduce_text("tensor<4x?xf32>", "tensor<?xf32>", "0"), "stablehlo.reduce") == [
        "tensor<?xf32>"
    ]
    bounded = "tensor<?x?x5xf32, #stablehlo.bounds<3, 7, ?>>"
    assert _infer(
        reduce_text(bounded, "tensor<?x5xf32, #stablehlo.bounds<7, ?>>", "0"), "stablehlo.reduce"
    ) == ["tensor<?x5xf32, #stablehlo.bounds<7, ?>>"]
    assert _infer(
        reduce_text("tensor<?xf32, #stablehlo.bounds<3>>", "tensor<f32>", "0"), "stablehlo.reduce"
    ) == ["tensor<f32>"]
    # the element type is the body's (reduce_c8)
    assert _infer(
        reduce_text("tensor<4x4xf32>", "tensor<4xf64>", "0", acc="f64"), "stablehlo.reduce"
    ) == ["tensor<4xf64>"]
    # unranked input: unranked result
    assert _infer(reduce_text("tensor<*xf32>", "tensor<*xf32>", "0"), "stablehlo.reduce") == [
        "tensor<*xf32>"
    ]


def test_reduce_errors() -> None:
    assert (
        _error(reduce_text("tensor<2x3xf32>", "tensor<2xf32>", "2"), "stablehlo.reduce")
        == "Out-of-bounds dimension 2, expected to be in range [0, 2)"
    )
    assert (
        _error(reduce_text("tensor<2x3xf32>", "tensor<2xf32>", "-1"), "stablehlo.reduce")
        == "Out-of-bounds dimension -1, expected to be in range [0, 2)"
    )
    assert (
        _error(reduce_text("tensor<2x3xf32>", "tensor<2xf32>", "1, 1"), "stablehlo.reduce")
        == "Duplicate reduction dimension: 1"
    )


def test_reduce_verifier_uses_the_rule() -> None:
    text = reduce_text("tensor<7x5xf32>", "tensor<6xf32>", "0")
    assert (
        "inferred type(s) 'tensor<5xf32>' are incompatible with return type(s) of operation "
        "'tensor<6xf32>'" in op_verify_message(text, "stablehlo.reduce")
    )


# -------------------------------------------------------------------------------- reduce_window
def reduce_window_text(in_t: str, out_t: str, attrs: str) -> str:
    return f"""func.func @f(%x: {in_t}, %i: tensor<f32>) -> {out_t} {{
  %0 = "stablehlo.reduce_window"(%x, %i) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }}) {{{attrs}}} : ({in_t}, tensor<f32>) -> {out_t}
  return %0 : {out_t}
}}
"""


RW = "stablehlo.reduce_window"


def test_reduce_window_static_dynamic_bounded() -> None:
    attrs = "window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>"
    assert _infer(reduce_window_text("tensor<4x6xf32>", "tensor<2x2xf32>", attrs), RW) == [
        "tensor<2x2xf32>"
    ]
    assert _infer(reduce_window_text("tensor<?x6xf32>", "tensor<?x2xf32>", attrs), RW) == [
        "tensor<?x2xf32>"
    ]
    # padding, base and window dilations
    attrs2 = (
        "window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, "
        "window_dilations = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>"
    )
    assert _infer(reduce_window_text("tensor<4x6xf32>", "tensor<7x5xf32>", attrs2), RW) == [
        "tensor<7x5xf32>"
    ]
    bounded = "tensor<4x?x?x?xf32, #stablehlo.bounds<?, ?, 4, 2>>"
    attrs3 = "window_dimensions = array<i64: 1, 1, 2, 2>, padding = dense<0> : tensor<4x2xi64>"
    assert _infer(reduce_window_text(bounded, "tensor<4x?x?x?xf32>", attrs3), RW) == [
        "tensor<4x?x?x?xf32, #stablehlo.bounds<?, ?, 3, 1>>"
    ]


def test_reduce_window_errors() -> None:
    t = "tensor<4x6xf32>"
    assert _error(reduce_window_text(t, t, "window_dimensions = array<i64: 2>"), RW) == (
        "expects window-dimensions size == input rank, but got window-dimensions size: 1 and "
        "input: 'tensor<4x6xf32>' with rank = 2."
    )
    assert _error(reduce_window_text(t, t, "window_dimensions = array<i64: 2, 0>"), RW) == (
        "expects window to have positive value for 1-th window dimension, but got 0."
    )
    assert _error(
        reduce_window_text(
            t, t, "window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1>"
        ),
        RW,
    ) == (
        "expects window-strides to have same dimension-size as size of window dimensions (2), "
        "but got: 1."
    )
    assert (
        _error(
            reduce_window_text(
                t, t, "window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 1, -1>"
            ),
            RW,
        )
        == "expects window to have positive base dilation factor for 1-th window dimension, but got -1."
    )
    assert (
        _error(
            reduce_window_text(
                t, t, "window_dimensions = array<i64: 2, 2>, padding = dense<0> : tensor<2x3xi64>"
            ),
            RW,
        )
        == "expects the shape of padding-attribute to be {N, 2}, but got {2, 3}."
    )


# --------------------------------------------------------------------------- select_and_scatter
def sas_text(op_t: str, src_t: str, out_t: str, acc: str = "f32") -> str:
    return f"""func.func @f(%o: {op_t}, %s: {src_t}, %i: tensor<f32>) -> {out_t} {{
  %0 = "stablehlo.select_and_scatter"(%o, %s, %i) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction GE>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
  ^bb0(%a: tensor<{acc}>, %b: tensor<{acc}>):
    %r = "stablehlo.add"(%a, %b) : (tensor<{acc}>, tensor<{acc}>) -> tensor<{acc}>
    "stablehlo.return"(%r) : (tensor<{acc}>) -> ()
  }}) {{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}} : ({op_t}, {src_t}, tensor<f32>) -> {out_t}
  return %0 : {out_t}
}}
"""


def test_select_and_scatter() -> None:
    SAS = "stablehlo.select_and_scatter"
    assert _infer(sas_text("tensor<4x6xf32>", "tensor<2x2xf32>", "tensor<4x6xf32>"), SAS) == [
        "tensor<4x6xf32>"
    ]
    assert _infer(sas_text("tensor<?x6xf32>", "tensor<?x2xf32>", "tensor<?x6xf32>"), SAS) == [
        "tensor<?x6xf32>"
    ]
    b = "tensor<?x6xf32, #stablehlo.bounds<10, ?>>"
    assert _infer(sas_text(b, "tensor<?x2xf32>", b), SAS) == [b]
    # the element type is the scatter body's
    assert _infer(
        sas_text("tensor<4x6xf32>", "tensor<2x2xf32>", "tensor<4x6xf64>", acc="f64"), SAS
    ) == ["tensor<4x6xf64>"]


# ------------------------------------------------------------------------------------ sort, map
def sort_text(t1: str, t2: str) -> str:
    return f"""func.func @f(%k: {t1}, %v: {t2}) -> ({t1}, {t2}) {{
  %0:2 = "stablehlo.sort"(%k, %v) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %r = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction LT>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%r) : (tensor<i1>) -> ()
  }}) {{dimension = 0 : i64}} : ({t1}, {t2}) -> ({t1}, {t2})
  return %0#0, %0#1 : {t1}, {t2}
}}
"""


def test_sort() -> None:
    assert _infer(sort_text("tensor<5xf32>", "tensor<5xi32>"), "stablehlo.sort") == [
        "tensor<5xf32>",
        "tensor<5xi32>",
    ]
    assert _infer(sort_text("tensor<?xf32>", "tensor<?xi32>"), "stablehlo.sort") == [
        "tensor<?xf32>",
        "tensor<?xi32>",
    ]
    b = "tensor<?xf32, #stablehlo.bounds<5>>"
    assert _infer(sort_text(b, "tensor<?xi32>"), "stablehlo.sort")[0] == b


def map_text(t: str, out: str, dims: str, arg: str = "f32") -> str:
    return f"""func.func @f(%x: {t}, %y: {t}) -> {out} {{
  %0 = "stablehlo.map"(%x, %y) ({{
  ^bb0(%a: tensor<{arg}>, %b: tensor<{arg}>):
    %m = "stablehlo.multiply"(%a, %b) : (tensor<{arg}>, tensor<{arg}>) -> tensor<{arg}>
    "stablehlo.return"(%m) : (tensor<{arg}>) -> ()
  }}) {{dimensions = array<i64: {dims}>}} : ({t}, {t}) -> {out}
  return %0 : {out}
}}
"""


def test_map() -> None:
    M = "stablehlo.map"
    assert _infer(map_text("tensor<4x5xf32>", "tensor<4x5xf32>", "0, 1"), M) == ["tensor<4x5xf32>"]
    assert _infer(map_text("tensor<?x5xf32>", "tensor<?x5xf32>", "0, 1"), M) == ["tensor<?x5xf32>"]
    # map drops the bounds (upstream builds the result from the shape and element type only)
    b = "tensor<?xf32, #stablehlo.bounds<5>>"
    assert _infer(map_text(b, b, "0"), M) == ["tensor<?xf32>"]
    assert _error(map_text("tensor<4x5xf32>", "tensor<4x5xf32>", "1, 0"), M) == (
        "requires monotonically increasing dimension numbers, but got: 1, 0"
    )
    assert _error(map_text("tensor<4x5xf32>", "tensor<4x5xf32>", "0"), M) == (
        "applied to a subset of dimensions currently not supported: operand dimensions = 2, "
        "requested map dimensions size = 1"
    )
    assert _error(map_text("tensor<4x5xf32>", "tensor<4x5xf32>", "0, 1", arg="i32"), M) == (
        "element type of operands and computation arguments must match, but got: 'f32' and 'i32'"
    )


# ------------------------------------------------------------------------------- differential
def _conformance_ops():  # type: ignore[no-untyped-def]
    for path in sorted(glob.glob(f"{CONFORMANCE}/testdata/*.mlir")):
        name = path.rsplit("/", 1)[1]
        if not re.match(r"(reduce_|reduce_window|select_and_scatter|sort_|map_)", name) and not (
            "argmax" in name or "argmin" in name or "cumsum" in name or "cumprod" in name
        ):
            continue
        yield path


def test_differential_conformance_testdata() -> None:
    paths = list(_conformance_ops())
    if not paths:
        pytest.skip("../shared/conformance/testdata is absent")
    seen = 0
    for path in paths:
        with open(path) as f:
            m = parse(f.read())
        for op in m.walk():
            if op.name in FAMILY:
                declared = [r.type for r in op.results]
                inferred = infer_op(op)
                assert types_compatible(inferred, declared), (path, op.name)
                assert inferred == declared, (path, [type_to_str(t) for t in inferred])
                seen += 1
    assert seen > 50


INFER = f"{CONFORMANCE}/infer/infer_stablehlo.mlir"


def test_differential_infer_stablehlo() -> None:
    """infer_stablehlo.mlir's `types0 = ...` (get_return_types) lines of this family's ops."""
    if not Path(INFER).is_file():
        pytest.skip("infer_stablehlo.mlir is absent")
    text = Path(INFER).read_text()
    checked = 0
    for chunk in text.split("// -----"):
        ops = [n for n in FAMILY if f'"{n}"' in chunk]
        if len(ops) != 1 or "expected-error" in chunk or "get_return_types" not in chunk:
            continue
        want = re.findall(r"CHECK: types0 = (.*)", chunk)
        if len(want) != 1:
            continue
        op = _op(chunk, ops[0])
        got = ", ".join(
            f"types{i} = {type_to_str(t)}" if i else type_to_str(t)
            for i, t in enumerate(infer_op(op))
        )
        assert got.startswith(want[0].strip()), (want, got)
        checked += 1
    assert checked >= 6


# ------------------------------------------------------------------------------ coverage cases
T_S, T_D, T_B = "tensor<4x3xf32>", "tensor<?x3xf32>", "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
_ADD_BODY = """^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()"""


def _reduce(t: str, want: str) -> Case:
    line = (
        f'%0 = "stablehlo.reduce"(%x, %i) ({{\n  {_ADD_BODY}\n  }}) '
        f"{{dimensions = array<i64: 1>}} : ({t}, tensor<f32>) -> {want}"
    )
    return case("stablehlo.reduce", f"%x: {t}, %i: tensor<f32>", line, want)


def _reduce_window(t: str, want: str) -> Case:
    line = (
        f'%0 = "stablehlo.reduce_window"(%x, %i) ({{\n  {_ADD_BODY}\n  }}) '
        f"{{window_dimensions = array<i64: 2, 1>}} : ({t}, tensor<f32>) -> {want}"
    )
    return case("stablehlo.reduce_window", f"%x: {t}, %i: tensor<f32>", line, want)


def _select_and_scatter(t: str, src: str, want: str) -> Case:
    line = f"""%0 = "stablehlo.select_and_scatter"(%x, %s, %i) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction GE>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
  {_ADD_BODY}
  }}) {{window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>}} : ({t}, {src}, tensor<f32>) -> {want}"""
    return case("stablehlo.select_and_scatter", f"%x: {t}, %s: {src}, %i: tensor<f32>", line, want)


def _sort(t: str) -> Case:
    line = f"""%0 = "stablehlo.sort"(%x) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction LT>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}) {{dimension = 0 : i64}} : ({t}) -> {t}"""
    return case("stablehlo.sort", f"%x: {t}", line, t)


def _map(t: str, want: str) -> Case:
    line = f"""%0 = "stablehlo.map"(%x, %x) ({{
  {_ADD_BODY}
  }}) {{dimensions = array<i64: 0, 1>}} : ({t}, {t}) -> {want}"""
    return case("stablehlo.map", f"%x: {t}", line, want)


CASES = [
    _reduce(T_S, "tensor<4xf32>"),
    _reduce(T_D, "tensor<?xf32>"),
    _reduce(T_B, "tensor<?xf32, #stablehlo.bounds<5>>"),
    _reduce_window(T_S, "tensor<3x3xf32>"),
    _reduce_window(T_D, "tensor<?x3xf32>"),
    _reduce_window(T_B, "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"),
    _select_and_scatter(T_S, "tensor<2x3xf32>", T_S),
    _select_and_scatter(T_D, "tensor<?x3xf32>", T_D),
    _select_and_scatter(T_B, "tensor<?x3xf32>", T_B),
    _sort(T_S),
    _sort(T_D),
    _sort(T_B),
    _map(T_S, T_S),
    _map(T_D, T_D),
    _map(T_B, T_D),
]


test_cases = cases_test(CASES)
