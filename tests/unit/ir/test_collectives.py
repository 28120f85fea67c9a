"""Collective and communication ops, #stablehlo.channel_handle, mesh-axes replica groups,
!stablehlo.future: text and verifiers."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.ops.collectives import (
    AxisRefAttr,
    ChannelHandleAttr,
    FutureType,
    ReplicaGroupMeshAxesAttr,
)
from tests.unit.ir.test_control_flow import roundtrip, verify_error


def _at_op(op: str, error: str, text: str) -> bool:
    """The diagnostic at the op is `error`: as upstream's hlo::verify*Op functions emit it (at the
    op's location, no op prefix) or as the op's own error (`'stablehlo.<op>' op ...`)."""
    return f"error: {error}" in text or f"error: 'stablehlo.{op}' op {error}" in text


ADD_REGION = """({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  })"""


def func(body: str, args: str = "%arg0: tensor<2x4xf32>") -> str:
    return f'func.func @f({args}) {{\n{body}\n  "stablehlo.return"() : () -> ()\n}}\n'


CH = "#stablehlo.channel_handle<handle = 1, type = 0>"
RG = "dense<[[0, 1]]> : tensor<1x2xi64>"


@pytest.mark.parametrize(
    "op,printed",
    [
        (
            f'%0 = "stablehlo.all_gather"(%arg0) {{all_gather_dim = 1 : i64, replica_groups = {RG}, channel_handle = {CH}, use_global_device_ids}} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
            f'%0 = "stablehlo.all_gather"(%arg0) <{{all_gather_dim = 1 : i64, channel_handle = {CH}, replica_groups = {RG}, use_global_device_ids}}> : (tensor<2x4xf32>) -> tensor<2x8xf32>',
        ),
        (
            f'%0:2 = "stablehlo.all_gather"(%arg0, %arg0) {{all_gather_dim = 0 : i64, replica_groups = {RG}}} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)',
            f'%0:2 = "stablehlo.all_gather"(%arg0, %arg0) <{{all_gather_dim = 0 : i64, replica_groups = {RG}}}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)',
        ),
        (
            f'%0 = "stablehlo.all_to_all"(%arg0) {{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<4x2xf32>',
            f'%0 = "stablehlo.all_to_all"(%arg0) <{{concat_dimension = 0 : i64, replica_groups = {RG}, split_count = 2 : i64, split_dimension = 1 : i64}}> : (tensor<2x4xf32>) -> tensor<4x2xf32>',
        ),
        (
            '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
            '%0 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        ),
        (
            f'%0 = "stablehlo.collective_broadcast"(%arg0) {{replica_groups = {RG}, channel_handle = {CH}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
            f'%0 = "stablehlo.collective_broadcast"(%arg0) <{{channel_handle = {CH}, replica_groups = {RG}}}> : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        ),
        (
            f'%0 = "stablehlo.cross-replica-sum"(%arg0) {{replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
            f'%0 = "stablehlo.cross-replica-sum"(%arg0) <{{replica_groups = {RG}}}> : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        ),
    ],
)
def test_collectives_print_generically(op: str, printed: str) -> None:
    out = roundtrip(func("  " + op))
    assert "    " + printed + "\n" in out


def test_all_reduce_and_reduce_scatter_regions() -> None:
    body = (
        f'  %0 = "stablehlo.all_reduce"(%arg0) {ADD_REGION} {{replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>\n'
        f'  %1 = "stablehlo.reduce_scatter"(%arg0) {ADD_REGION} {{scatter_dimension = 1 : i64, replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x2xf32>\n'
        f'  %2 = "stablehlo.collective_reduce"(%arg0) {ADD_REGION} {{replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>'
    )
    out = roundtrip(func(body))
    assert (
        f'    %0 = "stablehlo.all_reduce"(%arg0) <{{replica_groups = {RG}}}> ({{\n'
        "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n"
        "      %3 = stablehlo.add %arg1, %arg2 : tensor<f32>\n"
        "      stablehlo.return %3 : tensor<f32>\n"
        "    }) : (tensor<2x4xf32>) -> tensor<2x4xf32>\n" in out
    )


def test_ids_and_feeds() -> None:
    body = """  %0 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %1 = stablehlo.partition_id : tensor<ui32>
  %2:2 = "stablehlo.infeed"(%t) {layout = [[1, 0]]} : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
  %3 = "stablehlo.outfeed"(%x, %2#1) {outfeed_config = "c"} : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
  %4 = "stablehlo.send"(%x, %3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
  %5:2 = "stablehlo.recv"(%4) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)"""
    out = roundtrip(func(body, "%t: !stablehlo.token, %x: tensor<3x4xi32>"))
    assert (
        "    %0 = stablehlo.replica_id : tensor<ui32>\n    %1 = stablehlo.partition_id : tensor<ui32>\n"
        in out
    )
    # infeed_config is a non-optional default-valued attribute: MLIR materializes it
    assert '%2:2 = "stablehlo.infeed"(%arg0) <{infeed_config = "", layout = [[1, 0]]}>' in out
    assert '%3 = "stablehlo.outfeed"(%arg1, %2#1) <{outfeed_config = "c"}>' in out
    assert (
        '"stablehlo.send"(%arg1, %3) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}>'
        in out
    )


def test_attributes_text() -> None:
    assert ChannelHandleAttr(3, 1).mlir_text() == "#stablehlo.channel_handle<handle = 3, type = 1>"
    from xdsl.dialects.builtin import SymbolRefAttr

    mesh = ReplicaGroupMeshAxesAttr(
        SymbolRefAttr("mesh"), [AxisRefAttr("x", (1, 2)), AxisRefAttr("y")]
    )
    assert mesh.mlir_text() == (
        '#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x", '
        'sub_axis_info = (1)2>, #stablehlo.axis_ref<name = "y">]>'
    )
    from xdsl.dialects.builtin import Float32Type, TensorType

    assert (
        FutureType([TensorType(Float32Type(), [4])]).mlir_text()
        == "!stablehlo.future<tensor<4xf32>>"
    )


def test_channel_handle_fields_any_order_and_errors() -> None:
    text = func(
        '  %0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, '
        "channel_handle = #stablehlo.channel_handle<type = 0, handle = 2>} : (tensor<2x4xf32>) -> tensor<2x4xf32>"
    )
    assert "#stablehlo.channel_handle<handle = 2, type = 0>" in roundtrip(text)
    with pytest.raises(
        ParseError, match=r"t\.mlir:2:\d+: error: unknown field 'chan' in #stablehlo.channel_handle"
    ):
        parse(text.replace("type = 0, handle", "chan"), "t.mlir")


def test_mesh_axes_replica_groups_and_futures() -> None:
    body = f"""  %0 = "stablehlo.all_reduce"(%arg0) {ADD_REGION} {{
    replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>
  }} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = "stablehlo.async_start"(%arg0) ({{
  ^bb0(%a: tensor<2x4xf32>):
    %p = "stablehlo.collective_permute"(%a) {{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    "stablehlo.return"(%p) : (tensor<2x4xf32>) -> ()
  }}) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<2x4xf32>>
  %2 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<2x4xf32>>) -> tensor<2x4xf32>"""
    out = roundtrip("func.func private @mesh()\n" + func(body))
    assert (
        'replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>'
        in out
    )
    assert (
        '%2 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<2x4xf32>>) -> tensor<2x4xf32>'
        in out
    )


# the collectives' verifiers (and their inferred types)
COLLECTIVE_ERRORS = [
    (
        '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
        "all_gather_dim must be a valid index of operand",
    ),
    (
        '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
        "replica id #0 seen more than once",
    ),
    (
        '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = -1, type = 0>, use_global_device_ids} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
        "channel_id cannot be negative when useGlobalDeviceIds is set",
    ),
    (
        '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x7xf32>',
        "result gather dimension has size 7, expected to be a multiple of operand gather dimension size 4",
    ),
    (
        '%0 = "stablehlo.all_to_all"(%arg0) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 3 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2x4xf32>) -> tensor<6x1xf32>',
        "split dimension has size 4, expected to be a multiple of split_count 3",
    ),
    (
        '%0 = "stablehlo.all_to_all"(%arg0) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2x4xf32>) -> tensor<4x2xf32>',
        "group size of replica_groups must be 2",
    ),
    (
        '%0 = "stablehlo.all_to_all"(%arg0) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "inferred type(s) 'tensor<4x2xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "duplicate sources not allowed.",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "expect source_target_pairs attribute of shape (N, 2), but got (1, 3)",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xi32>',
        "requires the same element type for all operands and results",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x5xf32>',
        "inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'",
    ),
    (
        '%0 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<4x4xf32>',
        "inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'",
    ),
    (
        '%0 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "collective_broadcast with has_dynamic_root=true requires at least two operands (data + root)",
    ),
]


def test_region_collective_verifiers() -> None:
    bad_region = ADD_REGION.replace("f32", "i32")
    assert (
        "The element-type of reduction-region's result type at index 0 is expected to be "
        "promotable from the op's corresponding init-value element-type: 'tensor<i32>' vs "
        "'tensor<f32>'"
    ) in verify_error(
        func(
            f'  %0 = "stablehlo.all_reduce"(%arg0) {bad_region} {{replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>'
        )
    )
    assert "scatter dim should be less than operand/result rank" in verify_error(
        func(
            f'  %0 = "stablehlo.reduce_scatter"(%arg0) {ADD_REGION} {{scatter_dimension = 2 : i64, replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x2xf32>'
        )
    )
    assert (
        "operand scatter dimension has size 4, expected to be a multiple of result scatter dimension size 3"
        in verify_error(
            func(
                f'  %0 = "stablehlo.reduce_scatter"(%arg0) {ADD_REGION} {{scatter_dimension = 1 : i64, replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<2x3xf32>'
            )
        )
    )
    assert "inferred type(s) 'tensor<2x4xf32>' are incompatible" in verify_error(
        func(
            f'  %0 = "stablehlo.collective_reduce"(%arg0) {ADD_REGION} {{replica_groups = {RG}}} : (tensor<2x4xf32>) -> tensor<4x4xf32>'
        )
    )


def test_feed_and_channel_verifiers() -> None:
    args = "%t: !stablehlo.token, %x: tensor<3x4xi32>"
    assert (
        "last element of result types is expected to be of token type, but got 'tensor<3x4xi32>'"
    ) in verify_error(
        func(
            '  %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<3x4xi32>, tensor<3x4xi32>)',
            args,
        )
    )
    assert "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false" in verify_error(
        func(
            '  %0 = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>} : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token',
            args,
        )
    )
    assert "channel_type should be HOST_TO_DEVICE when is_host_transfer is true" in verify_error(
        func(
            '  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)',
            args,
        )
    )
    assert "operand #1 must be token, but got 'tensor<3x4xi32>'" in verify_error(
        func(
            '  %0 = "stablehlo.outfeed"(%x, %x) : (tensor<3x4xi32>, tensor<3x4xi32>) -> !stablehlo.token',
            args,
        )
    )
    assert "must be ranked tensor of 32-bit unsigned integer values" in verify_error(
        func('  %0 = "stablehlo.replica_id"() : () -> tensor<i32>', args)
    )
    assert "tensor<ui32>" in verify_error(
        func('  %0 = "stablehlo.partition_id"() : () -> tensor<2xui32>', args)
    )


PERM = """    %p = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    "stablehlo.return"(%p) : (tensor<2x4xf32>) -> ()"""


def test_future_verifiers() -> None:
    body = """  %1 = "stablehlo.async_start"(%arg0) ({
  ^bb0(%a: tensor<2x4xf32>):
PERM
  }) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<4xf32>>""".replace("PERM", PERM)
    assert (
        "inferred type(s) '!stablehlo.future<tensor<2x4xf32>>' are incompatible with return type(s) "
        "of operation '!stablehlo.future<tensor<4xf32>>'" in verify_error(func(body))
    )
    only_return = """  %1 = "stablehlo.async_start"(%arg0) ({
  ^bb0(%a: tensor<2x4xf32>):
    "stablehlo.return"(%a) : (tensor<2x4xf32>) -> ()
  }) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<2x4xf32>>"""
    assert "region must contain exactly one operation and a return" in verify_error(
        func(only_return)
    )
    done = '  %1 = "stablehlo.async_done"(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>'
    assert "operand #0 must be future, but got 'tensor<2x4xf32>'" in verify_error(func(done))


def test_collectives_have_no_pretty_form() -> None:
    with pytest.raises(
        ParseError, match=r"t\.mlir:2:\d+: error: 'stablehlo.all_gather' has no pretty syntax"
    ):
        parse("func.func @f(%a: tensor<4xf32>) {\n  %0 = stablehlo.all_gather %a\n}\n", "t.mlir")
    _ = print_ir


MESH_RG = (
    '#stablehlo.replica_group_mesh_axes<mesh = @{mesh}, axes = [#stablehlo.axis_ref<name = "x">]>'
)


@pytest.mark.parametrize(
    "op",
    [
        '%0 = "stablehlo.all_gather"(%arg0) {{all_gather_dim = 1 : i64, replica_groups = {rg}}} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
        '%0 = "stablehlo.all_reduce"(%arg0) '
        + ADD_REGION.replace("{", "{{").replace("}", "}}")
        + " {{replica_groups = {rg}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>",
        '%0 = "stablehlo.all_to_all"(%arg0) {{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = {rg}}} : (tensor<2x4xf32>) -> tensor<4x2xf32>',
        '%0 = "stablehlo.collective_broadcast"(%arg0) {{replica_groups = {rg}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
    ],
)
def test_mesh_axes_name_a_visible_symbol(op: str) -> None:
    # upstream's ReplicaGroupMeshAxesAttr::verifySymbolUses
    ok = "func.func private @mesh()\n" + func("  " + op.format(rg=MESH_RG.format(mesh="mesh")))
    roundtrip(ok)
    bad = func("  " + op.format(rg=MESH_RG.format(mesh="missing")))
    assert "op replica_groups: mesh symbol 'missing' not found" in verify_error(bad)


@pytest.mark.parametrize(
    "op,error",
    [
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = -1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
            "attribute 'all_gather_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative",
        ),
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xi32>',
            "requires the same element type for operand and result at index 0",
        ),
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<8xf32>',
            "operand and result must have the same rank",
        ),
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<3x8xf32>',
            "operand and result should have the same shape except for the dimension size at 'all_gather_dim'",
        ),
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x0xf32>) -> tensor<2x0xf32>',
            "dimension size of operand at 'all_gather_dim' cannot be zero",
        ),
        (
            '%0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xf32>',
            "replica id #1 not seen in replica groups",
        ),
    ],
)
def test_all_gather_verifier_as_upstream(op: str, error: str) -> None:
    args = "%arg0: tensor<2x0xf32>" if "tensor<2x0xf32>" in op else "%arg0: tensor<2x4xf32>"
    assert _at_op("all_gather", error, verify_error(func("  " + op, args)))


def test_all_gather_accepts_what_upstream_accepts() -> None:
    # use_global_device_ids with no channel (id 0) and a dynamic gather dimension
    roundtrip(
        func(
            '  %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<2x4xf32>) -> tensor<2x?xf32>'
        )
    )


@pytest.mark.parametrize("regions,count", [("", 0), (f"{ADD_REGION[1:-1]}, {ADD_REGION[1:-1]}", 2)])
def test_async_start_region_count_in_mlir_words(regions: str, count: int) -> None:
    body = f"({regions})" if regions else ""
    text = func(
        f'  %0 = "stablehlo.async_start"(%arg0) {body} : (tensor<2x4xf32>) -> !stablehlo.future<tensor<2x4xf32>>'
    )
    assert "'stablehlo.async_start' op requires one region" in verify_error(text)


def _reduce_scatter(attrs: str, types: str) -> str:
    return func(
        f'  %0 = "stablehlo.reduce_scatter"(%arg0) {ADD_REGION} {{{attrs}}} : {types}',
    )


@pytest.mark.parametrize(
    "attrs,types,error",
    [
        (
            f"scatter_dimension = -1 : i64, replica_groups = {RG}",
            "(tensor<2x4xf32>) -> tensor<2x2xf32>",
            (
                "attribute 'scatter_dimension' failed to satisfy constraint: 64-bit signless "
                "integer attribute whose value is non-negative"
            ),
        ),
        (
            f"scatter_dimension = 1 : i64, replica_groups = {RG}",
            "(tensor<2x4xf32>) -> tensor<8xf32>",
            "operand and result should have same rank",
        ),
        (
            f"scatter_dimension = 1 : i64, replica_groups = {RG}, use_global_device_ids",
            "(tensor<2x4xf32>) -> tensor<2x2xf32>",
            "channel_id must be positive when useGlobalDeviceIds is set but got: 0",
        ),
        (
            f"scatter_dimension = 1 : i64, replica_groups = {RG}",
            "(tensor<2x4xf32>) -> tensor<2x0xf32>",
            "result dimension size at scatter_dimension cannot be zero",
        ),
        (
            f"scatter_dimension = 1 : i64, replica_groups = {RG}",
            "(tensor<2x4xf32>) -> tensor<3x2xf32>",
            "non scatter dimensions should be same for operand (2) and result (3)",
        ),
        (
            f"scatter_dimension = 1 : i64, replica_groups = {RG}",
            "(tensor<2x4xf32>) -> tensor<2x2xf64>",
            "result element-type is expected to be 'f32', but got 'f64'",
        ),
        (
            "scatter_dimension = 1 : i64, replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>",
            "(tensor<2x4xf32>) -> tensor<2x2xf32>",
            "Invalid replica id -1",
        ),
    ],
)
def test_reduce_scatter_verifier_as_upstream(attrs: str, types: str, error: str) -> None:
    assert _at_op("reduce_scatter", error, verify_error(_reduce_scatter(attrs, types)))


def test_reduce_scatter_accepts_what_upstream_accepts() -> None:
    # the operand's scatter dimension need not be a multiple of the replica group size (upstream
    # checks it against the result's size only), and the dynamic case passes
    roundtrip(
        _reduce_scatter(
            "scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>",
            "(tensor<2x4xf32>) -> tensor<2x2xf32>",
        )
    )
    roundtrip(
        _reduce_scatter(
            f"scatter_dimension = 1 : i64, replica_groups = {RG}",
            "(tensor<2x?xf32>) -> tensor<2x2xf32>",
        ).replace("%arg0: tensor<2x4xf32>", "%arg0: tensor<2x?xf32>")
    )


@pytest.mark.parametrize(
    "attrs,error",
    [
        (
            f"replica_groups = {RG}, use_global_device_ids",
            "channel_id must be positive when useGlobalDeviceIds is set but got: 0",
        ),
        ("replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>", "replica id #0 seen more than once"),
        ("replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>", None),
    ],
)
def test_all_reduce_verifier_as_upstream(attrs: str, error: str | None) -> None:
    text = func(
        f'  %0 = "stablehlo.all_reduce"(%arg0) {ADD_REGION} {{{attrs}}} : (tensor<2x4xf32>) -> tensor<2x4xf32>'
    )
    if error is None:  # all_reduce allows -1 padding of uneven groups
        roundtrip(text)
    else:
        assert _at_op("all_reduce", error, verify_error(text))


# collective_broadcast and collective_permute: upstream's words
BROADCAST_PERMUTE_ERRORS = [
    (
        '%0 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "replica_groups values must be positive, but was given -1",
    ),
    (
        '%0 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "replica groups should be a rank 2 tensor,but instead it is of rank 1",
    ),
    (
        '%0 = "stablehlo.collective_broadcast"(%arg0, %arg0) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>',
        (
            "last operand of collective_broadcast with has_dynamic_root=true must be a rank-1 "
            "i32 tensor, but got 'tensor<2x4xf32>'"
        ),
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "duplicate targets not allowed.",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        "replica ids in source_target_pairs must be >= 0.",
    ),
    (
        '%0 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x5xf32>',
        "inferred type(s) 'tensor<2x4xf32>' are incompatible",
    ),
]


@pytest.mark.parametrize("op,error", [*COLLECTIVE_ERRORS, *BROADCAST_PERMUTE_ERRORS])
def test_collective_verifier_errors(op: str, error: str) -> None:
    assert error in verify_error(func("  " + op))


def test_collective_reduce_verifier_as_upstream() -> None:
    def reduce(operands: str, attrs: str, types: str) -> str:
        return func(
            f'  %0 = "stablehlo.collective_reduce"({operands}) {ADD_REGION} {{{attrs}}} : {types}',
            "%arg0: tensor<2x4xf32>, %arg1: tensor<1xi32>",
        )

    ok = reduce(
        "%arg0, %arg1",
        f"replica_groups = {RG}, has_dynamic_root",
        "(tensor<2x4xf32>, tensor<1xi32>) -> tensor<2x4xf32>",
    )
    roundtrip(ok)
    assert "channel_id must be positive when useGlobalDeviceIds is set but got: 0" in verify_error(
        reduce(
            "%arg0",
            f"replica_groups = {RG}, use_global_device_ids",
            "(tensor<2x4xf32>) -> tensor<2x4xf32>",
        )
    )
    assert (
        "last operand of collective_reduce with has_dynamic_root=true must have the same number "
        "of elements as data operands (1), but got 2"
    ) in verify_error(
        reduce(
            "%arg0, %arg1",
            f"replica_groups = {RG}, has_dynamic_root",
            "(tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>",
        ).replace("%arg1: tensor<1xi32>", "%arg1: tensor<2xi32>")
    )


@pytest.mark.parametrize(
    "attrs,result,error",
    [
        (
            "split_dimension = -1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64",
            "tensor<4x2xf32>",
            "attribute 'split_dimension' failed to satisfy constraint: 64-bit signless integer "
            + "attribute whose value is non-negative",
        ),
        (
            "split_dimension = 1 : i64, concat_dimension = -2 : i64, split_count = 2 : i64",
            "tensor<4x2xf32>",
            "attribute 'concat_dimension' failed to satisfy constraint: 64-bit signless integer "
            + "attribute whose value is non-negative",
        ),
        (
            "split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 0 : i64",
            "tensor<4x2xf32>",
            "attribute 'split_count' failed to satisfy constraint: 64-bit signless integer "
            + "attribute whose value is positive",
        ),
        (
            "split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64",
            "tensor<2x4xi32>",
            "requires the same element type for operand and result at index 0",
        ),
    ],
)
def test_all_to_all_ods_and_trait_messages(attrs: str, result: str, error: str) -> None:
    text = func(
        f'  %0 = "stablehlo.all_to_all"(%arg0) {{{attrs}, replica_groups = {RG}}} : '
        f"(tensor<2x4xf32>) -> {result}"
    )
    assert f"'stablehlo.all_to_all' op {error}" in verify_error(text)
