"""Result-type inference of the collectives ops (issue 11): replica_id, partition_id, outfeed, send,
all_reduce, all_to_all, collective_permute, collective_broadcast, collective_reduce,
cross-replica-sum, async_start, async_done -- static, dynamic and bounded cases, upstream's errors,
and a differential check against infer_stablehlo.mlir and the conformance programs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerAttr, UnitAttr

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op, infer_result_types
from stablehlo_py.ir.ops.collectives import ChannelHandleAttr
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import TokenType
from tests.conftest import CONFORMANCE
from tests.unit.ir.infer.cases import Case, case, cases_test, check, op_case
from tests.unit.ir.infer.helpers import (
    agrees_with_declared,
    first_op,
    infer_check_chunks,
    infer_error,
    inferred,
)

OPS = (
    "stablehlo.replica_id",
    "stablehlo.partition_id",
    "stablehlo.outfeed",
    "stablehlo.send",
    "stablehlo.all_reduce",
    "stablehlo.all_to_all",
    "stablehlo.collective_permute",
    "stablehlo.collective_broadcast",
    "stablehlo.collective_reduce",
    "stablehlo.cross-replica-sum",
    "stablehlo.async_start",
    "stablehlo.async_done",
)


def func(body: str, args: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


def add_region(elem: str) -> str:
    return f"""({{
  ^bb0(%x: tensor<{elem}>, %y: tensor<{elem}>):
    %s = stablehlo.add %x, %y : tensor<{elem}>
    "stablehlo.return"(%s) : (tensor<{elem}>) -> ()
  }})"""


# ------------------------------------------------------------------------------ ids, tokens
def test_ids_and_tokens() -> None:
    for name in ("stablehlo.replica_id", "stablehlo.partition_id"):
        assert [type_to_str(t) for t in infer_result_types(name, [])] == ["tensor<ui32>"]
    assert infer_result_types("stablehlo.outfeed", [TokenType()]) == [TokenType()]


def test_send_channel_types() -> None:
    tok = TokenType()
    d2d = {"channel_handle": ChannelHandleAttr(1, 1)}
    assert infer_result_types("stablehlo.send", [tok], d2d) == [tok]
    host = {"channel_handle": ChannelHandleAttr(1, 2), "is_host_transfer": IntegerAttr(1, 1)}
    assert infer_result_types("stablehlo.send", [tok], host) == [tok]
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.send", [tok], {"channel_handle": ChannelHandleAttr(1, 2)})
    assert e.value.message == (
        "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false"
    )
    bad = {"channel_handle": ChannelHandleAttr(1, 1), "is_host_transfer": IntegerAttr(1, 1)}
    with pytest.raises(InferError, match="channel_type should be DEVICE_TO_HOST"):
        infer_result_types("stablehlo.send", [tok], bad)


# ------------------------------------------------------------------------ all_reduce family
@pytest.mark.parametrize(
    "t,want",
    [
        ("tensor<10xf32>", "tensor<10xf64>"),
        ("tensor<?x4xf32>", "tensor<?x4xf64>"),
        ("tensor<?xf32, #stablehlo.bounds<8>>", "tensor<?xf64, #stablehlo.bounds<8>>"),
        ("tensor<*xf32>", "tensor<*xf64>"),
    ],
)
def test_all_reduce_takes_the_computation_element_type(t: str, want: str) -> None:
    body = (
        f'  %0 = "stablehlo.all_reduce"(%a) {add_region("f64")} '
        f"{{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t}) -> {want}"
    )
    assert inferred(func(body, f"%a: {t}"), "stablehlo.all_reduce") == [want]


def test_collective_reduce_with_dynamic_root() -> None:
    body = (
        f'  %0 = "stablehlo.collective_reduce"(%a, %r) {add_region("f32")} '
        "{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} "
        ": (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?x4xf32>"
    )
    text = func(body, "%a: tensor<?x4xf32>, %r: tensor<1xi32>")
    assert inferred(text, "stablehlo.collective_reduce") == ["tensor<?x4xf32>"]


def test_collective_broadcast_and_permute() -> None:
    t = "tensor<?x8xf32, #stablehlo.bounds<16, ?>>"
    f32 = "tensor<f32>"
    attrs = {"has_dynamic_root": UnitAttr()}
    got = infer_result_types("stablehlo.collective_broadcast", [f32, "root"], attrs)  # type: ignore[list-item]
    assert got == [f32]
    text = func(
        f'  %0 = "stablehlo.collective_permute"(%a) {{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t}) -> {t}',
        f"%a: {t}",
    )
    assert inferred(text, "stablehlo.collective_permute") == [t]
    text = func(
        f'  %0 = "stablehlo.collective_broadcast"(%a) {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t}) -> {t}',
        f"%a: {t}",
    )
    assert inferred(text, "stablehlo.collective_broadcast") == [t]


def test_cross_replica_sum() -> None:
    text = func(
        '  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<?x2xf32>) -> tensor<?x2xf32>',
        "%a: tensor<?x2xf32>",
    )
    assert inferred(text, "stablehlo.cross-replica-sum") == ["tensor<?x2xf32>"]


# -------------------------------------------------------------------------------- all_to_all
def all_to_all(t: str, split: int, concat: int, count: int, groups: str, res: str) -> str:
    body = (
        f'  %0 = "stablehlo.all_to_all"(%a) {{split_dimension = {split} : i64, '
        f"concat_dimension = {concat} : i64, split_count = {count} : i64, "
        f"replica_groups = {groups}}} : ({t}) -> {res}"
    )
    return func(body, f"%a: {t}")


G4 = "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"


@pytest.mark.parametrize(
    "t,split,concat,want",
    [
        ("tensor<4x16xf32>", 1, 0, "tensor<16x4xf32>"),
        ("tensor<?x16xf32>", 1, 0, "tensor<?x4xf32>"),
        (
            "tensor<16x?xf32, #stablehlo.bounds<?, 5>>",
            0,
            1,
            "tensor<4x?xf32, #stablehlo.bounds<?, 20>>",
        ),
        ("tensor<8x3xf32>", 0, 0, "tensor<8x3xf32>"),
    ],
)
def test_all_to_all(t: str, split: int, concat: int, want: str) -> None:
    text = all_to_all(t, split, concat, 4, G4, "tensor<?x?xf32>")
    assert inferred(text, "stablehlo.all_to_all") == [want]


@pytest.mark.parametrize(
    "t,split,concat,count,groups,msg",
    [
        (
            "tensor<4x16xf32>",
            2,
            0,
            4,
            G4,
            "AllToAll split_dimension 2 is out-of-bounds for input rank 2",
        ),
        (
            "tensor<4x16xf32>",
            0,
            3,
            4,
            G4,
            "AllToAll concat_dimension 3 is out-of-bounds for input rank 2",
        ),
        (
            "tensor<6x16xf32>",
            0,
            1,
            4,
            G4,
            "split dimension has size 6, expected to be a multiple of split_count 4",
        ),
        ("tensor<4x16xf32>", 0, 1, 2, G4, "group size of replica_groups must be 2"),
        (
            "tensor<4x16xf32>",
            0,
            1,
            2,
            "dense<[[0, 0]]> : tensor<1x2xi64>",
            "replica id #0 seen more than once",
        ),
        (
            "tensor<4x16xf32>",
            0,
            1,
            2,
            "dense<[[0, 2]]> : tensor<1x2xi64>",
            "replica id #1 not seen in replica groups",
        ),
        (
            "tensor<4x16xf32>",
            0,
            1,
            2,
            "dense<[[0, -1]]> : tensor<1x2xi64>",
            "Invalid replica id -1",
        ),
        (
            "tensor<4x16xf32>",
            0,
            1,
            2,
            "dense<[0, 1]> : tensor<2xi64>",
            "replica groups should be a rank 2 tensor",
        ),
    ],
)
def test_all_to_all_errors(
    t: str, split: int, concat: int, count: int, groups: str, msg: str
) -> None:
    text = all_to_all(t, split, concat, count, groups, "tensor<?x?xf32>")
    assert infer_error(text, "stablehlo.all_to_all") == msg


# ------------------------------------------------------------------------------------- async
ASYNC = """func.func @f(%arg0: tensor<2x?xf32>) {
  %1 = "stablehlo.async_start"(%arg0) ({
  ^bb0(%a: tensor<2x?xf32>):
    %p = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x?xf32>) -> tensor<2x?xf32>
    "stablehlo.return"(%p) : (tensor<2x?xf32>) -> ()
  }) : (tensor<2x?xf32>) -> !stablehlo.future<tensor<2x?xf32>>
  %2 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<2x?xf32>>) -> tensor<2x?xf32>
  return
}
"""


def test_async_start_and_done() -> None:
    assert inferred(ASYNC, "stablehlo.async_start") == ["!stablehlo.future<tensor<2x?xf32>>"]
    assert inferred(ASYNC, "stablehlo.async_done") == ["tensor<2x?xf32>"]


def test_async_errors() -> None:
    not_collective = ASYNC.replace(
        '"stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}',
        '"stablehlo.abs"(%a)',
    )
    assert (
        infer_error(not_collective, "stablehlo.async_start")
        == "region must contain a collective or slice operation"
    )
    with pytest.raises(InferError, match="operand must be a future type"):
        infer_result_types("stablehlo.async_done", [TokenType()])


# ----------------------------------------------------------------------------- differential
@pytest.mark.skipif(not (CONFORMANCE / "infer").is_dir(), reason="no conformance data")
def test_infer_stablehlo_check_lines() -> None:
    text = Path(CONFORMANCE / "infer" / "infer_stablehlo.mlir").read_text()
    n = 0
    names = "|".join(re.escape(o) for o in OPS)
    for name, prog, want in infer_check_chunks(text, rf'"({names})"'):
        try:
            op = first_op(prog, name)
        except ParseError:
            continue
        agrees_with_declared(op)
        assert type_to_str(infer_op(op)[0]) == want.strip(), name
        n += 1
    assert n >= 4


@pytest.mark.skipif(not (CONFORMANCE / "verify").is_dir(), reason="no conformance data")
def test_verify_suites_valid_ops_agree() -> None:
    """Every op of the family in the verifier suites' chunks that parse and verify."""
    from stablehlo_py.errors import VerifyError
    from stablehlo_py.ir.verify import verify

    pat = re.compile("|".join(re.escape(o) for o in OPS))
    n = 0
    for path in sorted((CONFORMANCE / "verify").glob("*.mlir")):
        for chunk in path.read_text().split("// -----"):
            if not pat.search(chunk) or "expected-error" in chunk:
                continue
            try:
                m = parse(chunk)
                verify(m)
            except (ParseError, VerifyError):
                continue
            for op in m.walk():
                if op.name in OPS:
                    agrees_with_declared(op)
                    n += 1
    assert n > 0


# ------------------------------------------------------------------------------ coverage cases
T_S, T_D, T_B = "tensor<4x3xf32>", "tensor<?x3xf32>", "tensor<?x3xf32, #stablehlo.bounds<8, ?>>"
G2 = "{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}"


def _unary(op: str, attrs: str, t: str, want: str, region: str = "") -> Case:
    return op_case(f"stablehlo.{op}", [("%a", t)], want, attrs=f"{region}{attrs}")


def _with_token(op: str, attrs: str, t: str) -> Case:
    token = "!stablehlo.token"
    return op_case(f"stablehlo.{op}", [("%a", t), ("%t", token)], token, attrs=attrs)


def _collective_reduce(t: str) -> Case:
    line = (
        f'%0 = "stablehlo.collective_reduce"(%a, %r) {add_region("f32")} '
        "{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} "
        f": ({t}, tensor<1xi32>) -> {t}"
    )
    return case("stablehlo.collective_reduce", f"%a: {t}, %r: tensor<1xi32>", line, t)


def _async(t: str) -> list[Case]:
    start = f"""%1 = "stablehlo.async_start"(%a) ({{
  ^bb0(%b: {t}):
    %p = "stablehlo.collective_permute"(%b) {{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t}) -> {t}
    "stablehlo.return"(%p) : ({t}) -> ()
  }}) : ({t}) -> !stablehlo.future<{t}>
  %2 = "stablehlo.async_done"(%1) : (!stablehlo.future<{t}>) -> {t}"""
    return [
        case("stablehlo.async_start", f"%a: {t}", start, f"!stablehlo.future<{t}>"),
        case("stablehlo.async_done", f"%a: {t}", start, t),
    ]


_SEND = "{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}"
_A2A = (
    "{split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 4 : i64, "
    "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}"
)
_PAIRS = "{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}"
CASES = [
    case(
        "stablehlo.replica_id",
        "",
        '%0 = "stablehlo.replica_id"() : () -> tensor<ui32>',
        "tensor<ui32>",
    ),
    case(
        "stablehlo.partition_id",
        "",
        '%0 = "stablehlo.partition_id"() : () -> tensor<ui32>',
        "tensor<ui32>",
    ),
    *(_with_token("outfeed", '{outfeed_config = ""}', t) for t in (T_S, T_D, T_B)),
    *(_with_token("send", _SEND, t) for t in (T_S, T_D, T_B)),
    # all_reduce: the operand's shape and bounds, the computation's element type
    _unary("all_reduce", G2, T_S, "tensor<4x3xf64>", add_region("f64") + " "),
    _unary("all_reduce", G2, T_D, "tensor<?x3xf64>", add_region("f64") + " "),
    _unary(
        "all_reduce", G2, T_B, "tensor<?x3xf64, #stablehlo.bounds<8, ?>>", add_region("f64") + " "
    ),
    *(_collective_reduce(t) for t in (T_S, T_D, T_B)),
    # all_to_all: the split dimension divided by split_count, the concat dimension multiplied
    _unary("all_to_all", _A2A, "tensor<8x3xf32>", "tensor<2x12xf32>"),
    _unary("all_to_all", _A2A, T_D, "tensor<?x12xf32>"),
    _unary("all_to_all", _A2A, T_B, "tensor<?x12xf32, #stablehlo.bounds<2, ?>>"),
    *(_unary("collective_permute", _PAIRS, t, t) for t in (T_S, T_D, T_B)),
    *(_unary("collective_broadcast", G2, t, t) for t in (T_S, T_D, T_B)),
    *(_unary("cross-replica-sum", G2, t, t) for t in (T_S, T_D, T_B)),
    *(c for t in (T_S, T_D, T_B) for c in _async(t)),
]


test_cases = cases_test(CASES)
