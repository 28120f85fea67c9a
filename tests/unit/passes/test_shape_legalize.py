"""shape-legalize-to-stablehlo (upstream's ShapeLegalizeToStablehlo.cpp): legalized programs
compute the same shapes (through the interpreter), the ops left alone, locations, the errors of
unsupported forms (the module left as it was), and the syntax of the shape dialect's ops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.shape_legalize_to_stablehlo import PATTERNS, is_legal

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.passes.helpers import run_opt

PASS = "shape-legalize-to-stablehlo"


def _legalize(text: str) -> str:
    return print_ir(run_pipeline(parse(text, "s.mlir"), [(PASS, {})]))


def _op_lines(printed: str) -> list[str]:
    """The op lines of a printed one-function module, stripped."""
    return [ln.strip() for ln in printed.splitlines()[2:-2]]


def _error(text: str) -> str:
    module = parse(text, "s.mlir")
    before = print_ir(module)
    with pytest.raises(StableHLOError) as info:
        run_pipeline(module, [(PASS, {})])
    assert print_ir(module) == before  # a failed conversion leaves the module as it was
    return str(info.value)


BROADCAST = """
func.func @main(%x: tensor<?x3xf32>, %y: tensor<4x1x3xf32>)
    -> (tensor<3xi32>, tensor<?x?x3xf32>, tensor<1xi32>, tensor<2xi32>) {
  %0 = shape.shape_of %x : tensor<?x3xf32> -> tensor<2xindex>
  %1 = shape.shape_of %y : tensor<4x1x3xf32> -> tensor<3xindex>
  %2 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<3xindex> -> tensor<3xindex>
  %3 = arith.index_cast %2 : tensor<3xindex> to tensor<3xi32>
  %4 = stablehlo.dynamic_broadcast_in_dim %x, %2, dims = [1, 2]
      : (tensor<?x3xf32>, tensor<3xindex>) -> tensor<?x?x3xf32>
  %n = shape.num_elements %2 : tensor<3xindex> -> index
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %t = tensor.from_elements %m : tensor<1xindex>
  %5 = arith.index_cast %t : tensor<1xindex> to tensor<1xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.extract %1[%c1] : tensor<3xindex>
  %de = tensor.from_elements %d, %e : tensor<2xindex>
  %6 = arith.index_cast %de : tensor<2xindex> to tensor<2xi32>
  return %3, %4, %5, %6 : tensor<3xi32>, tensor<?x?x3xf32>, tensor<1xi32>, tensor<2xi32>
}
"""


@pytest.mark.parametrize("rows", [5, 1])
def test_legalized_shape_computations_interpret_to_the_shapes(rows: int) -> None:
    out = _legalize(BROADCAST)
    for name in ("shape.", "tensor.", "arith.index_cast", "arith.muli"):
        assert name not in out
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    y = np.zeros((4, 1, 3), np.float32)
    shape, broadcast, twice_count, dims = run(parse(out), x, y)
    want = np.broadcast_shapes(x.shape, y.shape)
    np.testing.assert_array_equal(shape, np.array(want, np.int32))
    np.testing.assert_array_equal(broadcast, np.broadcast_to(x, want))
    np.testing.assert_array_equal(twice_count, [2 * int(np.prod(want))])
    np.testing.assert_array_equal(dims, [rows, 1])


def test_const_shape_and_extract_of_i32_interpret() -> None:
    out = _legalize(
        """
func.func @main(%v: tensor<2x3xi32>) -> (tensor<2xi32>, tensor<1xi32>) {
  %0 = shape.const_shape [6, 4] : tensor<2xindex>
  %1 = arith.index_cast %0 : tensor<2xindex> to tensor<2xi32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.extract %v[%c1, %c2] : tensor<2x3xi32>
  %t = tensor.from_elements %e : tensor<i32>
  %r = stablehlo.reshape %t : (tensor<i32>) -> tensor<1xi32>
  return %1, %r : tensor<2xi32>, tensor<1xi32>
}
"""
    )
    assert "stablehlo.constant dense<[6, 4]> : tensor<2xi32>" in out
    assert "stablehlo.slice %arg0 [1:2, 2:3] : (tensor<2x3xi32>) -> tensor<1x1xi32>" in out
    v = np.arange(6, dtype=np.int32).reshape(2, 3)
    const, extracted = run(parse(out), v)
    np.testing.assert_array_equal(const, [6, 4])
    np.testing.assert_array_equal(extracted, [5])


def test_scalar_index_casts_go_through_tensor_i32() -> None:
    out = _legalize(
        """
func.func @f(%a: index, %b: i32) -> (i64, i32, index) {
  %0 = arith.index_cast %a : index to i64
  %1 = arith.index_cast %a : index to i32
  %2 = arith.index_cast %b : i32 to index
  return %0, %1, %2 : i64, i32, index
}
"""
    )
    lines = _op_lines(out)
    assert lines == [
        "%0 = builtin.unrealized_conversion_cast %arg0 : index to tensor<i32>",
        "%1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>",
        "%2 = builtin.unrealized_conversion_cast %1 : tensor<i64> to i64",
        "%3 = builtin.unrealized_conversion_cast %arg0 : index to tensor<i32>",
        "%4 = builtin.unrealized_conversion_cast %3 : tensor<i32> to i32",
        "%5 = builtin.unrealized_conversion_cast %arg1 : i32 to tensor<i32>",
        "%6 = builtin.unrealized_conversion_cast %5 : tensor<i32> to index",
        "return %2, %4, %6 : i64, i32, index",
    ]


def test_legal_ops_are_left_alone() -> None:
    text = """
func.func @f(%x: tensor<?xf32>, %s: tensor<1xi32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<?xf32>
  %c = arith.constant 3 : index
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}
"""
    assert _legalize(text) == print_ir(parse(text))


def test_new_ops_take_the_location_of_the_op_or_the_operand() -> None:
    text = """
func.func @f(%a: index loc("a")) -> index {
  %c2 = arith.constant 2 : index loc("two")
  %0 = arith.muli %a, %c2 : index loc("mul")
  return %0 : index
}
"""
    out = print_ir(run_pipeline(parse(text), [(PASS, {})]), debuginfo=True)
    assert 'unrealized_conversion_cast %arg0 : index to tensor<i32> loc("a")' in out
    assert 'stablehlo.constant dense<2> : tensor<i32> loc("two")' in out
    assert 'stablehlo.multiply %0, %c : tensor<i32> loc("mul")' in out
    assert 'unrealized_conversion_cast %1 : tensor<i32> to index loc("mul")' in out


ILLEGAL = "that was explicitly marked illegal"


@pytest.mark.parametrize(
    ("body", "op", "reason"),
    [
        (
            "%0 = shape.num_elements %s : !shape.shape -> !shape.size",
            "shape.num_elements",
            "statically shaped tensor of index",
        ),
        (
            "%0 = shape.num_elements %a : tensor<2xindex> -> !shape.size",
            "shape.num_elements",
            "cast to index failed",
        ),
        (
            "%0 = shape.shape_of %q : tensor<?x2xindex> -> tensor<2xindex>",
            "shape.shape_of",
            (
                "would create 'stablehlo.get_dimension_size', which cannot be legalized (this pass (as "
                "upstream's) has no pattern for 'stablehlo.get_dimension_size' with index-based "
                "operands"
            ),
        ),
        (
            "%0 = shape.const_shape [1, 2] : tensor<?xindex>",
            "shape.const_shape",
            "must have a static shape",
        ),
        (
            "%0 = shape.cstr_broadcastable %a, %a : tensor<2xindex>, tensor<2xindex>",
            "shape.cstr_broadcastable",
            "has no pattern for it; it converts arith.index_cast",
        ),
        (
            "%0 = stablehlo.dynamic_iota %a, dim = 0 : (tensor<2xindex>) -> tensor<?x?xi32>",
            "stablehlo.dynamic_iota",
            "with index-based operands",
        ),
        (
            (
                "%0 = stablehlo.dynamic_broadcast_in_dim %x, %d, dims = [1] "
                ": (tensor<?xf32>, tensor<?xindex>) -> tensor<?x?xf32>"
            ),
            "stablehlo.dynamic_broadcast_in_dim",
            "'tensor<?xindex>' must have a static shape",
        ),
        (
            "%c = arith.constant 7 : index\n  %0 = tensor.dim %x, %c : tensor<?xf32>",
            "tensor.dim",
            "requires dimension attribute in range [0, 1); found (7)",
        ),
        (
            "%c = arith.constant 0 : index\n  %0 = tensor.extract %x[%c] : tensor<?xf32>",
            "tensor.extract",
            "index out of range",
        ),
        (
            "%c = arith.constant 0 : index\n  %0 = tensor.extract %f[%c] : tensor<3xf32>",
            "tensor.extract",
            "must hold index or 32-bit integer elements",
        ),
        (
            "%0 = arith.index_cast %d : tensor<?xindex> to tensor<?xi32>",
            "arith.index_cast",
            "must have a static shape",
        ),
        ("%0 = arith.muli %i, %i : i32", "arith.muli", "expected index type"),
    ],
)
def test_unsupported_forms_fail_at_the_op_with_the_reason(body: str, op: str, reason: str) -> None:
    text = (
        "func.func @f(%a: tensor<2xindex>, %s: !shape.shape, %q: tensor<?x2xindex>, "
        "%x: tensor<?xf32>, %d: tensor<?xindex>, %f: tensor<3xf32>, %i: i32) {\n"
        f"  {body}\n  return\n}}\n"
    )
    message = _error(text)
    line = body.count("\n") + 2
    assert message.startswith(f"s.mlir:{line}:"), message
    assert f"failed to legalize operation '{op}' {ILLEGAL}" in message
    assert reason in message


def test_first_illegal_op_fails_after_earlier_ones_were_rewritten() -> None:
    text = """
func.func @f(%a: tensor<2xindex>, %s: !shape.shape) -> (tensor<2xi32>, !shape.size) {
  %0 = arith.index_cast %a : tensor<2xindex> to tensor<2xi32>
  %1 = shape.num_elements %s : !shape.shape -> !shape.size
  return %0, %1 : tensor<2xi32>, !shape.size
}
"""
    message = _error(text)  # (and the rewritten index_cast is back)
    assert "s.mlir:4:8: error: failed to legalize operation 'shape.num_elements'" in message


def test_every_pattern_is_for_an_illegal_op_and_stablehlo_legality() -> None:
    module = parse(
        """
func.func @f(%a: tensor<2xindex>, %x: tensor<?xf32>, %i: tensor<1xi32>) {
  %0 = stablehlo.dynamic_reshape %x, %a : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %1 = stablehlo.dynamic_reshape %x, %i : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  %2 = tensor.cast %x : tensor<?xf32> to tensor<?xf32>
  return
}
"""
    )
    ops = {o.name + str(i): o for i, o in enumerate(module.walk())}
    assert not is_legal(ops["stablehlo.dynamic_reshape2"])
    assert is_legal(ops["stablehlo.dynamic_reshape3"])
    assert is_legal(ops["tensor.cast4"])
    assert set(PATTERNS) >= {"shape.shape_of", "shape.broadcast", "tensor.from_elements"}


SHAPE_OPS = """
func.func @f(%a: tensor<2xindex>, %b: tensor<2xindex>, %x: tensor<?x?xf32>, %i: index, %s: !shape.shape) -> (tensor<?x?xf32>, !shape.size, !shape.witness) {
  %0 = shape.cstr_broadcastable %a, %b : tensor<2xindex>, tensor<2xindex>
  %1 = shape.cstr_eq %a, %b : tensor<2xindex>, tensor<2xindex>
  %2 = shape.assuming_all %0, %1
  %3 = shape.const_witness false
  %c10 = shape.const_size 10
  %4 = shape.index_to_size %i
  %5 = shape.size_to_index %4 : !shape.size
  %6 = shape.num_elements %s : !shape.shape -> !shape.size
  %7 = shape.rank %a : tensor<2xindex> -> index
  %8 = shape.to_extent_tensor %s : !shape.shape -> tensor<?xindex>
  %9 = shape.broadcast %a, %b error = "incompatible" : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %10 = shape.const_shape [1, 2] : !shape.shape
  %11 = shape.shape_eq %a, %b : tensor<2xindex>, tensor<2xindex>
  %12 = shape.concat %a, %s : tensor<2xindex>, !shape.shape -> !shape.shape
  %13 = shape.get_extent %s, %4 : !shape.shape, !shape.size -> !shape.size
  %14 = shape.add %6, %c10 : !shape.size, !shape.size -> !shape.size
  %15 = shape.any %a, %b : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %16 = shape.from_extents %i, %4 : index, !shape.size
  %17 = shape.assuming %2 -> (tensor<?x?xf32>) {
    %18 = stablehlo.add %x, %x : tensor<?x?xf32>
    shape.assuming_yield %18 : tensor<?x?xf32>
  }
  shape.assuming %3 {
    %18 = stablehlo.add %x, %x : tensor<?x?xf32>
  }
  return %17, %14, %3 : tensor<?x?xf32>, !shape.size, !shape.witness
}
"""


def test_shape_dialect_syntax_round_trips() -> None:
    printed = print_ir(parse(SHAPE_OPS))
    body = _op_lines(printed)
    want = [ln.strip() for ln in SHAPE_OPS.strip().splitlines()[1:-1]]
    want = [w.replace("%a", "%arg0").replace("%b", "%arg1").replace("%x", "%arg2") for w in want]
    want = [w.replace("%i", "%arg3").replace("%s", "%arg4") for w in want]
    assert body == want
    assert print_ir(parse(printed)) == printed
    # MLIR before jaxlib 0.12's wrote the error in the attribute dictionary: read the same.
    old = SHAPE_OPS.replace('error = "incompatible"', '{error = "incompatible"}')
    assert old != SHAPE_OPS and print_ir(parse(old)) == printed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "%0 = shape.num_elements %s : !shape.shape -> index",
            (
                "'shape.num_elements' op if at least one of the operands can hold error values "
                "then the result must be of type `size` to propagate them"
            ),
        ),
        (
            "%0 = shape.broadcast %a, %s : tensor<2xindex>, !shape.shape -> tensor<2xindex>",
            (
                "'shape.broadcast' op if at least one of the operands can hold error values then "
                "the result must be of type `shape` to propagate them"
            ),
        ),
        (
            "%0 = shape.cstr_broadcastable %a : tensor<2xindex>",
            "'shape.cstr_broadcastable' op required at least 2 input shapes",
        ),
        (
            "%0 = shape.rank %v : tensor<2xi32> -> index",
            "'shape.rank' op operand #0 must be shape or extent tensor, but got 'tensor<2xi32>'",
        ),
        (
            "%0 = shape.cstr_eq %a, %v : tensor<2xindex>, tensor<2xi32>",
            (
                "'shape.cstr_eq' op operand #1 must be variadic of shape or extent tensor, but "
                "got 'tensor<2xi32>'"
            ),
        ),
        ("%0 = shape.assuming_all", "'shape.assuming_all' op no operands specified"),
        (
            "%0 = shape.shape_of %v : tensor<2xi32> -> tensor<3xindex>",
            (
                "'shape.shape_of' op inferred type(s) 'tensor<1xindex>' are incompatible with "
                "return type(s) of operation 'tensor<3xindex>'"
            ),
        ),
        (
            "%0 = shape.shape_of %v : tensor<2xi32> -> tensor<1xi32>",
            "'shape.shape_of' op result #0 must be shape or extent tensor, but got 'tensor<1xi32>'",
        ),
    ],
)
def test_shape_ops_verify_in_mlir_words(body: str, message: str) -> None:
    text = (
        "func.func @f(%a: tensor<2xindex>, %s: !shape.shape, %v: tensor<2xi32>) {\n"
        f"  {body}\n  return\n}}\n"
    )
    with pytest.raises(StableHLOError) as info:
        verify(parse(text, "v.mlir"))
    assert f"v.mlir:2:8: error: {message}" in str(info.value)


def test_cli_reports_the_error_without_a_traceback(tmp_path: Path) -> None:
    src = tmp_path / "in.mlir"
    src.write_text(
        "func.func @f(%a: tensor<2xindex>) -> !shape.witness {\n"
        "  %0 = shape.cstr_broadcastable %a, %a : tensor<2xindex>, tensor<2xindex>\n"
        "  return %0 : !shape.witness\n}\n"
    )
    done = run_opt(f"--{PASS}", str(src))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert (
        f"in.mlir:2:8: error: failed to legalize operation 'shape.cstr_broadcastable' {ILLEGAL}"
        in done.stderr
    )


FOLDS = """
func.func @f(%x: tensor<2x3xf32>, %a: tensor<2xindex>, %i: index)
    -> (tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, index, index, index, i1, index) {
  %0 = shape.shape_of %x : tensor<2x3xf32> -> tensor<2xindex>
  %cs = shape.const_shape [1, 3] : tensor<2xindex>
  %cs2 = shape.const_shape [4, 1] : tensor<2xindex>
  %1 = shape.broadcast %cs, %cs2 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %2 = shape.broadcast %cs, %a : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %3 = arith.muli %i, %c1 : index
  %4 = arith.muli %c2, %i : index
  %5 = arith.addi %i, %c0 : index
  %6 = arith.cmpi slt, %c0, %i : index
  %fe = tensor.from_elements %i, %c2 : tensor<2xindex>
  %7 = tensor.extract %fe[%c1] : tensor<2xindex>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, index, index, index, i1, index
}
"""


def test_ops_fold_before_their_patterns_as_in_mlir_dialect_conversion() -> None:
    out = _legalize(FOLDS)
    lines = _op_lines(out)
    assert lines == [
        # a static shape_of folds to a const_shape, which legalizes to a constant
        "%c = stablehlo.constant dense<[2, 3]> : tensor<2xi32>",
        "%0 = builtin.unrealized_conversion_cast %c : tensor<2xi32> to tensor<2xindex>",
        "%c_0 = stablehlo.constant dense<[1, 3]> : tensor<2xi32>",
        "%1 = builtin.unrealized_conversion_cast %c_0 : tensor<2xi32> to tensor<2xindex>",
        "%c_1 = stablehlo.constant dense<[4, 1]> : tensor<2xi32>",
        "%2 = builtin.unrealized_conversion_cast %c_1 : tensor<2xi32> to tensor<2xindex>",
        # a broadcast of constant shapes folds (its operands' original definitions are seen)
        "%c_2 = stablehlo.constant dense<[4, 3]> : tensor<2xi32>",
        "%3 = builtin.unrealized_conversion_cast %c_2 : tensor<2xi32> to tensor<2xindex>",
        # Commutative: the constant operand goes last before the pattern runs
        "%4 = builtin.unrealized_conversion_cast %arg1 : tensor<2xindex> to tensor<2xi32>",
        "%5 = builtin.unrealized_conversion_cast %1 : tensor<2xindex> to tensor<2xi32>",
        "%6 = stablehlo.maximum %4, %5 : tensor<2xi32>",
        "%7 = builtin.unrealized_conversion_cast %6 : tensor<2xi32> to tensor<2xindex>",
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%c2 = arith.constant 2 : index",
        # muli(x, 1) -> x; muli(2, x) -> muli(x, 2)
        "%8 = builtin.unrealized_conversion_cast %arg2 : index to tensor<i32>",
        "%c_3 = stablehlo.constant dense<2> : tensor<i32>",
        "%9 = stablehlo.multiply %8, %c_3 : tensor<i32>",
        "%10 = builtin.unrealized_conversion_cast %9 : tensor<i32> to index",
        # ops the conversion target does not mention fold too: addi(x, 0) -> x, cmpi's constant
        # goes right (with the swapped predicate)
        "%11 = arith.cmpi sgt, %arg2, %c0 : index",
        "%12 = builtin.unrealized_conversion_cast %arg2 : index to tensor<i32>",
        "%13 = stablehlo.reshape %12 : (tensor<i32>) -> tensor<1xi32>",
        "%c_4 = stablehlo.constant dense<2> : tensor<1xi32>",
        (
            "%14 = stablehlo.concatenate %13, %c_4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> "
            "tensor<2xi32>"
        ),
        "%15 = builtin.unrealized_conversion_cast %14 : tensor<2xi32> to tensor<2xindex>",
        # extract(from_elements) -> the element
        (
            "return %0, %3, %7, %arg2, %10, %arg2, %11, %c2 : tensor<2xindex>, tensor<2xindex>, "
            "tensor<2xindex>, index, index, index, i1, index"
        ),
    ]


def test_a_failed_conversion_undoes_folds_in_place_too() -> None:
    text = """
func.func @f(%i: index, %a: tensor<2xindex>) -> (i1, !shape.witness) {
  %c0 = arith.constant 0 : index
  %0 = arith.cmpi slt, %c0, %i : index
  %w = shape.cstr_broadcastable %a, %a : tensor<2xindex>, tensor<2xindex>
  return %0, %w : i1, !shape.witness
}
"""
    assert "failed to legalize operation 'shape.cstr_broadcastable'" in _error(text)


def test_a_fold_whose_constant_cannot_be_legalized_falls_back_to_the_pattern() -> None:
    # muli of two constants folds to an arith.constant, which this conversion cannot legalize
    out = _legalize(
        """
func.func @f() -> index {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %0 = arith.muli %c3, %c4 : index
  return %0 : index
}
"""
    )
    assert "stablehlo.multiply %c, %c_0 : tensor<i32>" in out


def test_each_function_is_converted_alone_and_every_failure_is_reported() -> None:
    text = """
func.func @bad1(%a: tensor<2xindex>) -> !shape.witness {
  %0 = shape.cstr_broadcastable %a, %a : tensor<2xindex>, tensor<2xindex>
  return %0 : !shape.witness
}
func.func @good(%a: tensor<2xindex>) -> tensor<2xi32> {
  %0 = arith.index_cast %a : tensor<2xindex> to tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @bad2(%a: tensor<2xindex>) -> !shape.witness {
  %0 = shape.cstr_eq %a, %a : tensor<2xindex>, tensor<2xindex>
  return %0 : !shape.witness
}
"""
    module = parse(text, "s.mlir")
    with pytest.raises(StableHLOError) as info:
        run_pipeline(module, [(PASS, {})])
    first = info.value.preceding  # type: ignore[attr-defined]
    assert [e.location for e in [*first, info.value]] == ["s.mlir:3:8", "s.mlir:11:8"]
    assert "'shape.cstr_eq'" in info.value.message  # type: ignore[attr-defined]
    out = print_ir(module)
    assert "shape.cstr_broadcastable" in out and "shape.cstr_eq" in out  # failed ones unchanged
    assert "arith.index_cast" not in out  # the good one converted
    assert "builtin.unrealized_conversion_cast %arg0 : tensor<2xindex> to tensor<2xi32>" in out


def test_shape_ops_without_a_pattern_legalize_when_they_fold() -> None:
    out = _legalize(
        """
func.func @f(%a: tensor<2xindex>, %i: index) -> (tensor<2xindex>, tensor<4xindex>, tensor<2xindex>, index) {
  %s = shape.const_shape [1, 2] : tensor<2xindex>
  %0 = shape.to_extent_tensor %a : tensor<2xindex> -> tensor<2xindex>
  %1 = shape.concat %s, %s : tensor<2xindex>, tensor<2xindex> -> tensor<4xindex>
  %2 = shape.any %a, %s : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %3 = shape.size_to_index %i : index
  return %0, %1, %2, %3 : tensor<2xindex>, tensor<4xindex>, tensor<2xindex>, index
}
"""
    )
    assert "shape." not in out
    assert "stablehlo.constant dense<[1, 2, 1, 2]> : tensor<4xi32>" in out
    assert "return %arg0, %1, %2, %arg1 :" in out
