"""stablehlo_py/ir/infer/linalg.py, reduction.py and collectives.py (the inference rules and shared
verifiers of the convolution, batch norm, fft/rng, reduction and collective ops): what the mutation
run of the `infer-linalg` group found unchecked.

Two kinds of test:

* small programs, parsed and verified in-process (`stablehlo_py.ir.verify`), whose diagnostics are
  compared word for word with upstream's (TypeInference.cpp / StablehloOps.cpp in
  /work/shared/reference/upstream/): replica groups with the null id -1 and with
  `use_global_device_ids`, reducer bodies with floats of other precisions (upstream's
  `ignoreFpPrecision`), reducer element parameters with ranks and several inputs, hybrid quantized
  convolutions, sizes beyond 2**53 (integer, not float, division), infeed's result list;
* direct calls of the rules (`infer_result_types`, `infer_op`) and of the shared helpers where no
  parsed program reaches them -- the parser and the builder refuse an op without its required
  attributes, and the op's ODS checks run before its rule: missing attributes, an attribute of
  the wrong kind, a reducer without a block, the defaults of upstream's helper signatures, and the
  kind of an `InferError` (op-prefixed ODS check or inference failure).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import driver as verify_plan
from stablehlo_py.ir.infer import InferError, infer_op, infer_result_types
from stablehlo_py.ir.infer import reduction as R
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.verify import verify
from tests.unit.ir.infer.helpers import first_op, ty

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _fresh_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test verifies its programs afresh: verify_plan remembers the successful verdicts of
    VERIFY_BY_TYPES ops per process (by signature), and a verdict reached before -- by another test,
    or by the mutation tool's first pass in the parent of its forked runs -- would be reused
    instead of running the rules this file checks."""
    monkeypatch.setattr(verify_plan.CACHE, "verdicts", {})


def diag(text: str) -> str | None:
    """The first diagnostic of a program (parsed, then verified), or None when it verifies."""
    try:
        verify(parse(text))
    except StableHLOError as e:
        return e.message
    return None


def types(xs) -> list[str]:  # type: ignore[no-untyped-def]
    return [type_to_str(t) for t in xs]


# ---------------------------------------------------------------------------------------------
# collectives: replica groups
# ---------------------------------------------------------------------------------------------

MAX_BODY = """^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>"""


def all_gather(groups: str, extra: str = "") -> str:
    return f"""func.func @f(%x: tensor<8x2xf32>) -> tensor<8x8xf32> {{
  %0 = "stablehlo.all_gather"(%x) {{all_gather_dim = 1 : i64, replica_groups = {groups}{extra}}} : (tensor<8x2xf32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}}"""


def all_reduce(groups: str, extra: str = "") -> str:
    return f"""func.func @f(%x: tensor<10xf32>) -> tensor<10xf32> {{
  %0 = "stablehlo.all_reduce"(%x) ({{
  {MAX_BODY}
  }}) {{replica_groups = {groups}{extra}}} : (tensor<10xf32>) -> tensor<10xf32>
  func.return %0 : tensor<10xf32>
}}"""


def reduce_scatter(groups: str, extra: str = "", body: str = "f32", result: str = "f32") -> str:
    """A reduce_scatter of tensor<4x16xf32> with a maximum body over ``body`` elements."""
    return f"""func.func @f(%x: tensor<4x16xf32>) {{
  %0 = "stablehlo.reduce_scatter"(%x) ({{
  {MAX_BODY.replace("f32", body)}
  }}) {{replica_groups = {groups}, scatter_dimension = 1 : i64{extra}}} : (tensor<4x16xf32>) -> tensor<4x4x{result}>
  func.return
}}"""


def collective_reduce(
    groups: str, extra: str = "", args: tuple[str, ...] = ("tensor<10xf32>",)
) -> str:
    """A collective_reduce of ``args`` with an f32 maximum body; with has_dynamic_root (in
    ``extra``) the last argument is the roots and gives no result."""
    sig = ", ".join(f"%x{i}: {t}" for i, t in enumerate(args))
    operands = ", ".join(f"%x{i}" for i in range(len(args)))
    data = args[:-1] if "has_dynamic_root" in extra else args
    results = ", ".join(data)
    n = f":{len(data)}" if len(data) > 1 else ""
    return f"""func.func @f({sig}) {{
  %0{n} = "stablehlo.collective_reduce"({operands}) ({{
  {MAX_BODY}
  }}) {{replica_groups = {groups}{extra}}} : ({", ".join(args)}) -> ({results})
  func.return
}}"""


EMPTY_GROUPS = "dense<0> : tensor<0x2xi64>"
GLOBAL = ", channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids"
EMPTY_WITH_GLOBAL = "if `use_global_device_ids` is set, the replica groups cannot be empty"


def test_replica_groups_cannot_be_empty_with_global_device_ids() -> None:
    """all_gather, all_reduce, reduce_scatter and collective_reduce each pass their
    use_global_device_ids on to verifyReplicaGroups; without the flag, empty groups are fine
    (all_reduce, collective_reduce)."""
    for program in (all_gather, all_reduce, reduce_scatter, collective_reduce):
        assert diag(program(EMPTY_GROUPS, GLOBAL)) == EMPTY_WITH_GLOBAL, program.__name__
    assert diag(all_reduce(EMPTY_GROUPS)) is None
    assert diag(collective_reduce(EMPTY_GROUPS)) is None


def test_null_replica_id_only_where_groups_may_differ_in_size() -> None:
    """-1 pads the non-uniform groups of all_reduce and collective_reduce; all_gather and
    reduce_scatter require groups of one size (allGroupsMustHaveSameSize) and refuse it."""
    padded = "dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>"
    assert diag(all_reduce(padded)) is None
    assert diag(collective_reduce(padded)) is None
    assert diag(all_gather("dense<[[0, -1, 2, 3]]> : tensor<1x4xi64>")) == "Invalid replica id -1"
    assert diag(reduce_scatter("dense<[[0, -1, 2, 3]]> : tensor<1x4xi64>")) == (
        "Invalid replica id -1"
    )


@pytest.mark.parametrize("program", [all_reduce, collective_reduce])
def test_ids_after_a_null_replica_id_are_still_checked(program: Callable[..., str]) -> None:
    """A -1 is skipped, not the end of the list: the ids after it are checked for repeats and
    gaps."""
    dup = "dense<[[0, -1], [1, 1]]> : tensor<2x2xi64>"
    gap = "dense<[[0, -1], [2, 3]]> : tensor<2x2xi64>"
    assert diag(program(dup)) == "replica id #1 seen more than once"
    assert diag(program(gap)) == "replica id #1 not seen in replica groups"


def test_collective_reduce_checks_its_replica_groups() -> None:
    assert diag(collective_reduce("dense<[[0, 1, 1]]> : tensor<1x3xi64>")) == (
        "replica id #1 seen more than once"
    )
    assert diag(collective_reduce("dense<[0, 1]> : tensor<2xi64>")) == (
        "replica groups should be a rank 2 tensor"
    )


# ---------------------------------------------------------------------------------------------
# collectives: reducer bodies
# ---------------------------------------------------------------------------------------------

GROUPS = "dense<[[0, 1]]> : tensor<1x2xi64>"
NOT_PROMOTABLE_I32 = (  # the init value of an operand is a 0-d tensor of its element type
    "The element-type of reduction-region's result type at index 0 is expected to be promotable "
    "from the op's corresponding init-value element-type: 'tensor<f32>' vs 'tensor<i32>'"
)


def test_collective_reduce_checks_every_data_operand_against_its_body() -> None:
    """The body is applied to each data operand: an i32 operand under an f32 body is refused
    wherever it stands; only the roots of has_dynamic_root are left out."""
    assert diag(collective_reduce(GROUPS, args=("tensor<10xf32>", "tensor<3xf32>"))) is None
    assert (
        diag(collective_reduce(GROUPS, args=("tensor<10xf32>", "tensor<3xi32>")))
        == NOT_PROMOTABLE_I32
    )
    roots = ", has_dynamic_root"
    ok = ("tensor<10xf32>", "tensor<3xf32>", "tensor<2xi32>")
    assert diag(collective_reduce(GROUPS, roots, args=ok)) is None
    bad = ("tensor<10xf32>", "tensor<3xi32>", "tensor<2xi32>")
    assert diag(collective_reduce(GROUPS, roots, args=bad)) == NOT_PROMOTABLE_I32


def test_reduce_scatter_result_takes_the_body_element_type() -> None:
    """reduce_scatter_c9: the result's element type is the body's (f64 over f32 data: promotable),
    not the operand's."""
    assert diag(reduce_scatter(GROUPS, body="f64", result="f64")) is None
    assert diag(reduce_scatter(GROUPS, body="f64")) == (
        "result element-type is expected to be 'f64', but got 'f32'"
    )


def _all_reduce_body(body: str, args: tuple[str, ...] = ("tensor<10xf32>",)) -> str:
    sig = ", ".join(f"%x{i}: {t}" for i, t in enumerate(args))
    operands = ", ".join(f"%x{i}" for i in range(len(args)))
    n = f":{len(args)}" if len(args) > 1 else ""
    return f"""func.func @f({sig}) {{
  %0{n} = "stablehlo.all_reduce"({operands}) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
  {body}
  }}) {{replica_groups = {GROUPS}}} : ({", ".join(args)}) -> ({", ".join(args)})
  func.return
}}"""


def test_reducer_without_terminator_or_returned_value() -> None:
    """verifyReducerShape's first checks, in upstream's words."""
    no_terminator = "%m = stablehlo.maximum %a, %b : tensor<f32>"
    assert diag(_all_reduce_body(no_terminator)) == (
        "The reduction-region expected to have a terminator"
    )
    assert diag(_all_reduce_body('"stablehlo.return"() : () -> ()')) == (
        "The reduction-region expected to return some value(s)"
    )


def test_all_reduce_inference_without_a_returned_value_takes_the_operands_element() -> None:
    """getAccumulatorTypesOrInputTypes: a body that returns nothing yet (or has no op yet) gives
    the first operand's element type to every result, as a body-less op does; the verifier
    reports the body."""
    args = ("tensor<10xf32>", "tensor<3xi32>")
    for body in ('"stablehlo.return"() : () -> ()', ""):
        op = first_op(_all_reduce_body(body, args), "stablehlo.all_reduce")
        assert types(infer_op(op)) == ["tensor<10xf32>", "tensor<3xf32>"]


def test_infeed_names_the_last_result_that_is_not_a_token() -> None:
    text = """func.func @f(%t: !stablehlo.token) {
  %0:3 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xf32>, tensor<3xi32>, tensor<4xf32>)
  func.return
}"""
    assert diag(text) == (
        "last element of result types is expected to be of token type, but got 'tensor<4xf32>'"
    )


# ---------------------------------------------------------------------------------------------
# reduction: verifyReducerShape
# ---------------------------------------------------------------------------------------------


def reduce1(x: str, init: str, acc: str, elem: str, ret: str, result: str, body: str) -> str:
    """A one-input reduce over dimension 0 with block arguments (acc, elem) returning ``ret``."""
    return f"""func.func @f(%x: {x}, %i: {init}) {{
  %0 = "stablehlo.reduce"(%x, %i) ({{
  ^bb0(%a: {acc}, %b: {elem}):
    {body}
  }}) {{dimensions = array<i64: 0>}} : ({x}, {init}) -> {result}
  func.return
}}"""


def test_reducer_element_parameter_ignores_float_precision() -> None:
    """An f32 element parameter under an f64 accumulator: upstream compares them with
    ignoreFpPrecision (but not the accumulator parameter)."""
    body = """%c = stablehlo.convert %b : (tensor<f32>) -> tensor<f64>
    %s = stablehlo.add %a, %c : tensor<f64>
    stablehlo.return %s : tensor<f64>"""
    ok = reduce1(
        "tensor<4xf32>", "tensor<f64>", "tensor<f64>", "tensor<f32>", "", "tensor<f64>", body
    )
    assert diag(ok) is None
    assert types(infer_op(first_op(ok, "stablehlo.reduce"))) == ["tensor<f64>"]
    # the accumulator parameter must match the returned type exactly
    body = """%c = stablehlo.convert %a : (tensor<f32>) -> tensor<f64>
    stablehlo.return %c : tensor<f64>"""
    bad = reduce1(
        "tensor<4xf32>", "tensor<f32>", "tensor<f32>", "tensor<f32>", "", "tensor<f64>", body
    )
    assert diag(bad) == (
        "The type of reduction-region's parameter at index 0 is different than the corresponding "
        "result type: 'tensor<f32>' vs 'tensor<f64>'"
    )


def test_reducer_promotion_ignores_float_precision() -> None:
    """isPromotableElementType(..., ignoreFpPrecision=true): an f64 init under an f32 body, and f64
    inputs under f32 element parameters, are accepted (integers are not: verify_reduce.mlir)."""
    body = """%s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>"""
    wide_init = reduce1(
        "tensor<4xf32>", "tensor<f64>", "tensor<f32>", "tensor<f32>", "", "tensor<f32>", body
    )
    assert diag(wide_init) is None
    wide_input = reduce1(
        "tensor<4xf64>", "tensor<f32>", "tensor<f32>", "tensor<f32>", "", "tensor<f32>", body
    )
    assert diag(wide_input) is None
    assert types(infer_op(first_op(wide_input, "stablehlo.reduce"))) == ["tensor<f32>"]


def reduce2(x1: str, i1: str, acc1: str, elem0: str, elem1: str, result1: str) -> str:
    """A two-input reduce of tensor<4x5xf32> and ``x1`` over dimension 0 (result dimensions [5]),
    the second accumulator and element parameters given."""
    return f"""func.func @f(%x0: tensor<4x5xf32>, %x1: {x1}, %i0: tensor<f32>, %i1: {i1}) {{
  %0:2 = "stablehlo.reduce"(%x0, %x1, %i0, %i1) ({{
  ^bb0(%a0: tensor<f32>, %a1: {acc1}, %b0: {elem0}, %b1: {elem1}):
    stablehlo.return %a0, %a1 : tensor<f32>, {acc1}
  }}) {{dimensions = array<i64: 0>}} : (tensor<4x5xf32>, {x1}, tensor<f32>, {i1}) -> (tensor<5xf32>, {result1})
  func.return
}}"""


def test_reducer_element_parameter_rank_and_shape_name_the_input() -> None:
    """The rank and shape checks of an element parameter name its index (n + i) and its input's
    (i), for every input -- also after an unranked element parameter, which has no shape to
    check."""
    for elem0 in ("tensor<f32>", "tensor<*xf32>"):
        rank = reduce2(
            "tensor<4x5xi32>", "tensor<2x2xi32>", "tensor<2x2xi32>", elem0, "tensor<2x2xi32>",
            "tensor<5xi32>",
        )
        assert diag(rank) == (
            "The rank of reduction-region's argument at index 3 is expected to be <= 1, got 2"
        )
        shape = reduce2(
            "tensor<4x5xi32>", "tensor<7xi32>", "tensor<7xi32>", elem0, "tensor<7xi32>",
            "tensor<5xi32>",
        )
        assert diag(shape) == (
            "The shape of reduction-region's argument at index 3 is not compatible with that of "
            "reduce-op's input-parameter at index 1"
        )
    ok = reduce2(
        "tensor<4x5xi32>", "tensor<5xi32>", "tensor<5xi32>", "tensor<f32>", "tensor<5xi32>",
        "tensor<5xi32>",
    )
    assert diag(ok) is None


def test_reducer_element_parameter_of_rank_two() -> None:
    """An element parameter may take several of the result's dimensions, in order."""
    ok = reduce1(
        "tensor<4x5x6xf32>", "tensor<5x6xf32>", "tensor<5x6xf32>", "tensor<5x6xf32>", "",
        "tensor<5x6xf32>",
        """%s = stablehlo.add %a, %b : tensor<5x6xf32>
    stablehlo.return %s : tensor<5x6xf32>""",
    )
    assert diag(ok) is None
    swapped = ok.replace("tensor<5x6xf32>", "tensor<6x5xf32>").replace(
        "-> tensor<6x5xf32>", "-> tensor<5x6xf32>"
    )
    assert diag(swapped) == (
        "The shape of reduction-region's argument at index 1 is not compatible with that of "
        "reduce-op's input-parameter at index 0"
    )


def test_verify_reducer_shape_without_a_block() -> None:
    """An empty region (no block): no parameters and no terminator, reported as such."""
    with pytest.raises(InferError) as e:
        R.verify_reducer_shape(None, [ty("tensor<2xf32>")], [ty("tensor<f32>")], ())
    assert e.value.message == "Reduction-region must take 2 parameters, but takes 0 parameter(s)"
    with pytest.raises(InferError) as e:
        R.verify_reducer_shape(None, [], [], ())
    assert e.value.message == "The reduction-region expected to have a terminator"


def test_helper_defaults_are_upstreams() -> None:
    """compatibleShapeAndElementType and isPromotableElementType default to
    ignoreFpPrecision=false."""
    a, b = ty("tensor<2xf32>"), ty("tensor<2xf64>")
    assert not R.compatible_shape_and_element(a, b)
    assert R.compatible_shape_and_element(a, b, ignore_fp=True)
    assert not R.is_promotable_element(b, a)
    assert R.is_promotable_element(b, a, ignore_fp=True)
    assert R.is_promotable_element(a, b)


# ---------------------------------------------------------------------------------------------
# reduction: reduce_window, select_and_scatter, map
# ---------------------------------------------------------------------------------------------


def test_reduce_window_without_inputs() -> None:
    text = """func.func @f() {
  "stablehlo.reduce_window"() ({
  ^bb0:
    "stablehlo.return"() : () -> ()
  }) {window_dimensions = array<i64>} : () -> ()
  func.return
}"""
    assert diag(text) == "requires at least 1 input value"


def test_padding_that_is_not_dense_elements() -> None:
    """The ODS check refuses it in a program; the rule called directly names it."""
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.reduce_window",
            [ty("tensor<4x4xf32>"), ty("tensor<f32>")],
            {
                "window_dimensions": DenseArrayBase.from_list(i64, [2, 2]),
                "padding": DenseArrayBase.from_list(i64, [0, 0, 0, 0]),
            },
        )
    assert e.value.message == (
        "expects padding to be a dense integer elements attribute, got array<i64: 0, 0, 0, 0>"
    )


def test_select_and_scatter_of_an_unranked_operand() -> None:
    """The result is the operand's shape (unranked) with the scatter body's element type."""
    text = """func.func @f(%x: tensor<*xf32>, %s: tensor<2xf32>, %i: tensor<f64>) {
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %c = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %c : tensor<f64>
  }) {window_dimensions = array<i64: 2>} : (tensor<*xf32>, tensor<2xf32>, tensor<f64>) -> tensor<*xf64>
  func.return
}"""
    assert types(infer_op(first_op(text, "stablehlo.select_and_scatter"))) == ["tensor<*xf64>"]


def test_map_dimension_numbers_print_as_given() -> None:
    """upstream streams the dimensions (ArrayRef<int64_t>): -1 prints as -1."""
    text = """func.func @f(%x: tensor<4xf32>) {
  %0 = "stablehlo.map"(%x) ({
  ^bb0(%a: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {dimensions = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}"""
    assert diag(text) == "requires monotonically increasing dimension numbers, but got: -1"


# ---------------------------------------------------------------------------------------------
# linalg: convolution
# ---------------------------------------------------------------------------------------------


def conv(lhs: str, rhs: str, result: str, bgc: int = 1, fgc: int = 1) -> str:
    """A 1-d convolution, layout [b, f, 0] x [o, i, 0] -> [b, f, 0]."""
    return f"""func.func @f(%l: {lhs}, %r: {rhs}) {{
  %0 = "stablehlo.convolution"(%l, %r) {{batch_group_count = {bgc} : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = {fgc} : i64}} : ({lhs}, {rhs}) -> {result}
  func.return
}}"""


Q = "!quant.uniform<i8:f32, 1.000000e+00:3>"


def test_hybrid_quantized_convolution() -> None:
    """A float lhs with a quantized rhs (hybrid quantization) skips the element type compatibility
    check of inferConvolutionOp; so does a quantized lhs with a float rhs, which the quantization
    constraints then refuse."""
    hybrid = conv("tensor<1x2x5xf32>", f"tensor<3x2x2x{Q}>", "tensor<1x3x4xf32>")
    assert diag(hybrid) is None
    op = first_op(hybrid, "stablehlo.convolution")
    assert types(infer_op(op)) == ["tensor<1x3x4xf32>"]
    backwards = conv(f"tensor<1x2x5x{Q}>", "tensor<3x2x2xf32>", f"tensor<1x3x4x{Q}>")
    assert types(infer_op(first_op(backwards, "stablehlo.convolution"))) == [f"tensor<1x3x4x{Q}>"]
    assert diag(backwards) == (
        "rhs should be quantized for quantized operations and "
        "is_quantized(lhs)=is_quantized(result) should hold"
    )
    plain = conv("tensor<1x2x5xf32>", "tensor<3x2x2xf16>", "tensor<1x3x4xf32>")
    assert diag(plain) == (
        "expects lhs and rhs to have compatible element type. Got: 'f32' and 'f16'"
    )


BIG = 2**53 + 1  # not a double: float division would round it


def test_group_count_divisions_are_integer() -> None:
    """Sizes beyond 2**53: the feature and batch group divisions are exact (upstream's int64)."""
    by_features = conv(
        f"tensor<1x{2 * BIG}x5xf32>", f"tensor<2x{BIG}x2xf32>", "tensor<1x2x4xf32>", fgc=2
    )
    assert diag(by_features) is None
    by_batch = conv(
        f"tensor<{2 * BIG}x3x5xf32>", "tensor<2x3x2xf32>", f"tensor<{BIG}x2x4xf32>", bgc=2
    )
    inferred = infer_op(first_op(by_batch, "stablehlo.convolution"))
    assert types(inferred) == [f"tensor<{BIG}x2x4xf32>"]
    assert diag(by_batch) is None


def _conv_attrs(text: str):  # type: ignore[no-untyped-def]
    op = first_op(text, "stablehlo.convolution")
    attrs = dict(op.attributes)
    attrs.update(op.properties)
    return [v.type for v in op.operands], attrs


def test_convolution_rule_without_group_counts_reads_one() -> None:
    """Called directly (the parser and the builder require them), the rule takes absent group
    counts as 1, the counts of an ungrouped convolution."""
    program = conv("tensor<4x6x5xf32>", "tensor<6x6x2xf32>", "tensor<4x6x4xf32>")
    operands, attrs = _conv_attrs(program)
    del attrs["batch_group_count"], attrs["feature_group_count"]
    assert types(infer_result_types("stablehlo.convolution", operands, attrs)) == [
        "tensor<4x6x4xf32>"
    ]


# ---------------------------------------------------------------------------------------------
# linalg: batch norm, rng
# ---------------------------------------------------------------------------------------------


def bn_inference(x: str, scale: str, offset: str) -> str:
    return f"""func.func @f(%x: {x}, %s: {scale}, %o: {offset}) {{
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %s, %s) {{epsilon = 1.0e-3 : f32, feature_index = 1 : i64}} : ({x}, {scale}, {offset}, {scale}, {scale}) -> {x}
  func.return
}}"""


def test_batch_norm_feature_count_is_checked_on_the_first_single_operand() -> None:
    """The single-dimensional operands' shapes are compatible with each other (a static size and
    ?), and the first one's size is compared with the feature count."""
    assert diag(bn_inference("tensor<4x3xf32>", "tensor<3xf32>", "tensor<?xf32>")) is None
    assert diag(bn_inference("tensor<4x3xf32>", "tensor<2xf32>", "tensor<?xf32>")) == (
        "expects the size of single-dimensional operands to be compatible with feature count, "
        "but the size of single-dimensional operands is 2 and the feature count is 3."
    )


def test_batch_norm_rule_attributes() -> None:
    """Called directly: an absent feature_index is 0; a negative one is the ODS constraint's error
    (op-prefixed, not an inference failure)."""
    x, s = ty("tensor<4x3xf32>"), ty("tensor<4xf32>")
    assert types(infer_result_types("stablehlo.batch_norm_training", [x, s, s])) == [
        "tensor<4x3xf32>",
        "tensor<4xf32>",
        "tensor<4xf32>",
    ]
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.batch_norm_training",
            [x, s, s],
            {"feature_index": IntegerAttr(-1, i64)},
        )
    assert e.value.message == (
        "attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer "
        "attribute whose value is non-negative"
    )
    assert e.value.invariant is True and e.value.op_prefixed is True


def test_rng_distribution_that_is_not_an_enum() -> None:
    """An rng_distribution of another kind is not UNIFORM: integer bounds are refused, no
    traceback."""
    b = ty("tensor<i32>")
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.rng", [b, b, ty("tensor<1xi64>")], {"rng_distribution": IntegerAttr(1, i64)}
        )
    assert e.value.message == "mu and sigma must be floats"


def test_num_bits_of_complex_types() -> None:
    """Twice the part's width; None (unknown) when the part's width is unknown -- f80, which
    xDSL's complex admits and StableHLO's types do not -- rather than an error."""
    from xdsl.dialects.builtin import ComplexType, Float80Type, IntegerType

    assert R.num_bits(ty("complex<f32>")) == 64
    assert R.num_bits(ty("complex<f64>")) == 128
    assert R.num_bits(ComplexType(IntegerType(8))) == 16
    assert R.num_bits(ComplexType(Float80Type())) is None
    assert R.bit_width(ComplexType(Float80Type())) == 64
