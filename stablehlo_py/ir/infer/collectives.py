"""Result-type inference rules of the collectives ops (upstream's TypeInference.cpp `infer*Op` and
StablehloOps.cpp's async_start/async_done): replica_id, partition_id, outfeed, send, all_reduce,
all_to_all, collective_permute, collective_broadcast, collective_reduce, cross-replica-sum,
async_start, async_done.  all_gather, reduce_scatter, infeed and recv have no inference upstream."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Region

from stablehlo_py.ir.future_type import FutureType
from stablehlo_py.ir.infer.elementwise import most_specific_of
from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import DYN, bounds_of, ranked
from stablehlo_py.ir.types import TokenType, element_type, tensor_type

UI32 = IntegerType(32, Signedness.UNSIGNED)


def _int(a: Attribute | None, default: int = 0) -> int:
    return int(a.value.data) if isinstance(a, IntegerAttr) else default


def same_shape_with(t: Attribute, element: Attribute) -> Attribute:
    """upstream's getSameShapeTensorType: ``t`` with another element type (bounds kept)."""
    if isinstance(t, TensorType):
        enc = t.encoding
        return tensor_type(
            element, tuple(t.get_shape()), None if isinstance(enc, NoneAttr) else enc
        )
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(element)
    raise InferError("unsupported type")


def accumulator_element(region: Region | None, inputs: Sequence[Attribute]) -> Attribute:
    """upstream's getAccumulatorTypesOrInputTypes(...)[0]'s element type: what the computation
    returns first, or the first input's when the region is empty."""
    if region is None or not region.blocks:
        return element_type(inputs[0])
    last = region.blocks.first.last_op  # type: ignore[union-attr]
    if last is None or not last.operands:
        return element_type(inputs[0])
    return element_type(last.operands[0].type)


def verify_replica_groups(
    groups: Attribute | None,
    all_groups_same_size: bool,
    use_global_device_ids: bool,
    expected_group_size: int | None,
) -> None:
    """upstream's verifyReplicaGroups (dense groups only; mesh axes pass)."""
    if not isinstance(groups, DenseIntOrFPElementsAttr):
        return
    shape = groups.type.get_shape()
    # all_gather_i3, all_to_all_i5
    if len(shape) != 2:
        raise InferError("replica groups should be a rank 2 tensor")
    if use_global_device_ids and shape[0] * shape[1] == 0:
        raise InferError("if `use_global_device_ids` is set, the replica groups cannot be empty")
    from stablehlo_py.ir.text.dense import dense_values

    ids = [int(v) for v in np.asarray(dense_values(groups)).reshape(-1).tolist()]
    seen: set[int] = set()
    for rid in ids:
        if rid == -1:
            if not all_groups_same_size:
                continue
            raise InferError("Invalid replica id -1")
        if rid in seen:
            raise InferError(f"replica id #{rid} seen more than once")
        seen.add(rid)
    for rid in range(len(seen)):
        if rid not in seen:
            raise InferError(f"replica id #{rid} not seen in replica groups")
    # all_to_all_c8
    if (
        all_groups_same_size
        and expected_group_size is not None
        and (shape[0] == 0 or len(ids) // shape[0] != expected_group_size)
    ):
        raise InferError(f"group size of replica_groups must be {expected_group_size}")


def verify_all_gather(
    ins: Sequence[Attribute],
    outs: Sequence[Attribute],
    all_gather_dim: int,
    replica_groups: Attribute | None,
    channel_id: int,
    use_global_device_ids: bool,
) -> None:
    """upstream's verifyAllGatherOp (all_gather has no inference rule)."""
    # all_gather_i3, all_gather_c2, all_gather_c4
    verify_replica_groups(replica_groups, True, use_global_device_ids, None)
    # all_gather_c5
    if use_global_device_ids and channel_id < 0:
        raise InferError("channel_id cannot be negative when useGlobalDeviceIds is set")
    d = all_gather_dim
    for a, b in zip(ins, outs):
        if not isinstance(a, TensorType) or not isinstance(b, TensorType):
            continue
        sa, sb = a.get_shape(), b.get_shape()
        # all_gather_c1
        if d >= len(sa):
            raise InferError("all_gather_dim must be a valid index of operand")
        if sa[d] == 0:
            raise InferError("dimension size of operand at 'all_gather_dim' cannot be zero")
        # all_gather_c6
        if len(sb) != len(sa):
            raise InferError("operand and result must have the same rank")
        for i in range(len(sa)):
            if i != d and sa[i] != DYN and sb[i] != DYN and sa[i] != sb[i]:
                raise InferError(
                    "operand and result should have the same shape except for the dimension "
                    "size at 'all_gather_dim'"
                )
        if sa[d] == DYN or sb[d] == DYN:
            return
        if sb[d] % sa[d] != 0:
            raise InferError(
                f"result gather dimension has size {sb[d]}, expected to be a multiple of "
                f"operand gather dimension size {sa[d]}"
            )


def _channel_id_positive(use_global_device_ids: bool, channel_id: int) -> None:
    # all_reduce_c4, reduce_scatter_c6, collective_reduce
    if use_global_device_ids and channel_id <= 0:
        raise InferError(
            f"channel_id must be positive when useGlobalDeviceIds is set but got: {channel_id}"
        )


def _verify_reducer(region: Region, t: Attribute) -> None:
    from stablehlo_py.ir.infer.reduction import verify_reducer_shape

    verify_reducer_shape(region.blocks.first, [t], [tensor_type(element_type(t), ())], ())


def verify_all_reduce(
    ins: Sequence[Attribute],
    replica_groups: Attribute | None,
    channel_id: int,
    use_global_device_ids: bool,
    computation: Region,
) -> None:
    """upstream's verifyAllReduceOp (all_reduce_c1 .. c5; the op's inference, c6 and c7, follows)."""
    verify_replica_groups(replica_groups, False, use_global_device_ids, None)
    _channel_id_positive(use_global_device_ids, channel_id)
    for t in ins:
        # all_reduce_c5
        _verify_reducer(computation, t)


def verify_reduce_scatter(
    operand: Attribute,
    result: Attribute,
    scatter_dimension: int,
    replica_groups: Attribute | None,
    channel_id: int,
    use_global_device_ids: bool,
    computation: Region,
) -> None:
    """upstream's verifyReduceScatterOp (reduce_scatter has no inference rule)."""
    verify_replica_groups(replica_groups, True, use_global_device_ids, None)
    # reduce_scatter_c7
    _verify_reducer(computation, operand)
    if not isinstance(operand, TensorType) or not isinstance(result, TensorType):
        return
    sa, sb = operand.get_shape(), result.get_shape()
    d = scatter_dimension
    # reduce_scatter_c8
    if len(sa) != len(sb):
        raise InferError("operand and result should have same rank")
    # reduce_scatter_c2
    if d >= len(sa):
        raise InferError("scatter dim should be less than operand/result rank")
    # reduce_scatter_c6
    _channel_id_positive(use_global_device_ids, channel_id)
    if sa[d] == DYN or sb[d] == DYN:
        return
    if sb[d] == 0:
        raise InferError("result dimension size at scatter_dimension cannot be zero")
    if sa[d] == 0:
        raise InferError("operand dimension size at scatter_dimension cannot be zero")
    # reduce_scatter_c8
    if sa[d] % sb[d] != 0:
        raise InferError(
            f"operand scatter dimension has size {sa[d]}, expected to be a multiple of result "
            f"scatter dimension size {sb[d]}"
        )
    for i in range(len(sa)):
        if i != d and sa[i] != DYN and sb[i] != DYN and sa[i] != sb[i]:
            raise InferError(
                f"non scatter dimensions should be same for operand ({sa[i]}) and result ({sb[i]})"
            )
    # reduce_scatter_c9
    acc = accumulator_element(computation, [operand])
    if element_type(result) != acc:
        from stablehlo_py.ir.text.printer import type_to_str

        raise InferError(
            f"result element-type is expected to be '{type_to_str(acc)}', but got "
            f"'{type_to_str(element_type(result))}'"
        )


def _dense_ids(groups: DenseIntOrFPElementsAttr) -> list[int]:
    from stablehlo_py.ir.text.dense import dense_values

    return [int(v) for v in np.asarray(dense_values(groups)).reshape(-1).tolist()]


def _verify_dynamic_root(op_name: str, ins: Sequence[Attribute], dynamic_root: bool) -> None:
    """The data operands and the root operand of collective_broadcast / collective_reduce."""
    from stablehlo_py.ir.text.printer import type_to_str

    if not dynamic_root and not ins:
        raise InferError(f"{op_name} requires at least one data operand")
    if not dynamic_root:
        return
    if len(ins) < 2:
        raise InferError(
            f"{op_name} with has_dynamic_root=true requires at least two operands (data + root)"
        )
    root = ins[-1]
    e = element_type(root)
    if (
        not isinstance(root, TensorType)
        or not (isinstance(e, IntegerType) and e.width.data == 32)
        or len(root.get_shape()) != 1
    ):
        raise InferError(
            f"last operand of {op_name} with has_dynamic_root=true must be a rank-1 i32 tensor, "
            f"but got '{type_to_str(root)}'"
        )
    n = len(ins) - 1
    if root.get_shape()[0] != n:
        raise InferError(
            f"last operand of {op_name} with has_dynamic_root=true must have the same number of "
            f"elements as data operands ({n}), but got {root.get_shape()[0]}"
        )


def verify_collective_broadcast(
    ins: Sequence[Attribute], replica_groups: Attribute | None, dynamic_root: bool
) -> None:
    """upstream's verifyCollectiveBroadcastOp (its inference, c3 and c5, follows)."""
    if isinstance(replica_groups, DenseIntOrFPElementsAttr):
        r = len(replica_groups.type.get_shape())
        if r != 2:
            raise InferError(
                f"replica groups should be a rank 2 tensor,but instead it is of rank {r}"
            )
        seen: set[int] = set()
        for rid in _dense_ids(replica_groups):
            # collective_broadcast_c2
            if rid < 0:
                raise InferError(f"replica_groups values must be positive, but was given {rid}")
            # collective_broadcast_c1
            if rid in seen:
                raise InferError(f"replica id #{rid} seen more than once")
            seen.add(rid)
    _verify_dynamic_root("collective_broadcast", ins, dynamic_root)


def verify_collective_reduce(
    ins: Sequence[Attribute],
    replica_groups: Attribute | None,
    channel_id: int,
    use_global_device_ids: bool,
    dynamic_root: bool,
    computation: Region,
) -> None:
    """upstream's verifyCollectiveReduceOp (its inference follows)."""
    verify_replica_groups(replica_groups, False, use_global_device_ids, None)
    _channel_id_positive(use_global_device_ids, channel_id)
    _verify_dynamic_root("collective_reduce", ins, dynamic_root)
    for t in ins[:-1] if dynamic_root else ins:
        _verify_reducer(computation, t)


def verify_collective_permute(pairs: Attribute | None) -> None:
    """upstream's verifyCollectivePermuteOp (its inference, c5, follows)."""
    if not isinstance(pairs, DenseIntOrFPElementsAttr):
        return
    shape = pairs.type.get_shape()
    # collective_permute_i2
    if len(shape) != 2:
        raise InferError(
            f"expect source_target_pairs attribute to be of rank 2, but got rank {len(shape)}"
        )
    # collective_permute_c1
    if shape[1] != 2:
        raise InferError(
            "expect source_target_pairs attribute of shape (N, 2), but got "
            f"({', '.join(str(d) for d in shape)})"
        )
    sources: set[int] = set()
    targets: set[int] = set()
    for i, v in enumerate(_dense_ids(pairs)):
        # collective_permute_c4
        if v < 0:
            raise InferError("replica ids in source_target_pairs must be >= 0.")
        seen, what = (sources, "sources") if i % 2 == 0 else (targets, "targets")
        # collective_permute_c2, collective_permute_c3
        if v in seen:
            raise InferError(f"duplicate {what} not allowed.")
        seen.add(v)


def _check_tensors_then_token(results: Sequence[Attribute], not_tensor: str) -> None:
    """infeed_c1 .. c3 and recv_c2 .. c4: at least one result, tensors but the last (``not_tensor``:
    upstream's words before the offending type), a token last."""
    if not results:
        raise InferError("result is expected to be at least of size 1, but got 0")
    for t in results[:-1]:
        if not isinstance(t, (TensorType, UnrankedTensorType)):
            raise InferError(f"{not_tensor}, but got '{_text(t)}'")
    if not isinstance(results[-1], TokenType):
        raise InferError(
            "last element of result types is expected to be of token type, but got "
            f"'{_text(results[-1])}'"
        )


def verify_infeed(layout: Attribute | None, results: Sequence[Attribute]) -> None:
    """upstream's verifyInfeedOp (infeed_c1 .. c3 and the layout's shape)."""
    from xdsl.dialects.builtin import ArrayAttr

    from stablehlo_py.ir.text.printer import attr_to_str

    # infeed_c1 .. c3
    _check_tensors_then_token(
        results,
        "all elements of result types, except the last element, are expected to be of tensor type",
    )
    if layout is None:
        return
    if not isinstance(layout, ArrayAttr):
        raise InferError("layout-attribute expected to be of array-type.")
    if len(layout.data) != len(results) - 1:
        raise InferError(
            f"layout-attribute size must be {len(results) - 1} (which is the number of op-results "
            f"- 1 (for token result)), but got {len(layout.data)}"
        )
    for child in layout.data:
        if not isinstance(child, ArrayAttr):
            raise InferError(
                "layout-attribute expected to have elements of type array, but got "
                f"{attr_to_str(child)}"
            )
        for leaf in child.data:
            if not isinstance(leaf, IntegerAttr):
                raise InferError(
                    "layout-attribute's leaf elements are expected to be of type integer, but got "
                    f"{attr_to_str(leaf)}"
                )


def verify_recv(channel_type: int, is_host_transfer: bool, results: Sequence[Attribute]) -> None:
    """upstream's verifyRecvOp (recv_c1 .. c4)."""
    # recv_c1_i3
    if not is_host_transfer and channel_type != 1:
        raise InferError("channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false")
    if is_host_transfer and channel_type != 3:
        raise InferError("channel_type should be HOST_TO_DEVICE when is_host_transfer is true")
    # recv_c2 .. c4
    _check_tensors_then_token(
        results, "everything but the last element of result types is expected to be of tensor type"
    )


# ----------------------------------------------------------------------------- ids and tokens
@rule("stablehlo.replica_id", "stablehlo.partition_id")
def infer_process_id(inp: InferInput) -> list[Attribute]:
    return [ranked((), UI32)]


@rule("stablehlo.outfeed")
def infer_outfeed(inp: InferInput) -> list[Attribute]:
    return [TokenType()]


@rule("stablehlo.send")
def infer_send(inp: InferInput) -> list[Attribute]:
    """upstream's inferSendOp: the channel type must fit is_host_transfer (send_c1_i4)."""
    channel = getattr(inp.attr("channel_handle"), "channel_type", None)
    host = _int(inp.attr("is_host_transfer")) != 0
    if not host and channel != 1:
        raise InferError("channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false")
    if host and channel != 2:
        raise InferError("channel_type should be DEVICE_TO_HOST when is_host_transfer is true")
    return [TokenType()]


# -------------------------------------------------------------------------------- collectives
@rule("stablehlo.all_reduce")
def infer_all_reduce(inp: InferInput) -> list[Attribute]:
    """all_reduce_c6, all_reduce_c7: each operand's shape, the computation's element type."""
    ins = list(inp.operand_types)
    if not ins:
        return []
    e = accumulator_element(inp.regions[0] if inp.regions else None, ins)
    return [same_shape_with(t, e) for t in ins]


@rule("stablehlo.collective_reduce")
def infer_collective_reduce(inp: InferInput) -> list[Attribute]:
    """upstream's inferCollectiveReduceOp: like all_reduce, without the root operand of a
    dynamic root."""
    ins = list(inp.operand_types)
    if isinstance(inp.attr("has_dynamic_root"), UnitAttr):
        ins = ins[:-1]
    region = inp.regions[0] if inp.regions else None
    return [same_shape_with(t, accumulator_element(region, [t])) for t in ins]


@rule("stablehlo.all_to_all")
def infer_all_to_all(inp: InferInput) -> list[Attribute]:
    """upstream's inferAllToAllOp."""
    split_dim = _int(inp.attr("split_dimension"))
    concat_dim = _int(inp.attr("concat_dimension"))
    count = _int(inp.attr("split_count"))
    # all_to_all_c5, all_to_all_c7, all_to_all_c8, all_to_all_i5
    verify_replica_groups(inp.attr("replica_groups"), True, False, count)
    out: list[Attribute] = []
    for t in inp.operand_types:
        if not isinstance(t, TensorType):
            raise InferError(f"AllToAll operands must be ranked tensors, got '{_text(t)}'")
        shape = list(t.get_shape())
        rank = len(shape)
        # all_to_all_c1
        if split_dim >= rank:
            raise InferError(
                f"AllToAll split_dimension {split_dim} is out-of-bounds for input rank {rank}"
            )
        # all_to_all_c3
        if concat_dim >= rank:
            raise InferError(
                f"AllToAll concat_dimension {concat_dim} is out-of-bounds for input rank {rank}"
            )
        # all_to_all_c2
        if shape[split_dim] != DYN and shape[split_dim] % count != 0:
            raise InferError(
                f"split dimension has size {shape[split_dim]}, expected to be a multiple of "
                f"split_count {count}"
            )
        if shape[split_dim] != DYN:
            shape[split_dim] //= count
        if shape[concat_dim] != DYN:
            shape[concat_dim] *= count
        bounds = list(bounds_of(t))
        if bounds:
            if bounds[split_dim] != DYN:
                bounds[split_dim] //= count
            if bounds[concat_dim] != DYN:
                bounds[concat_dim] *= count
        out.append(ranked(shape, t.element_type, bounds))
    return out


@rule("stablehlo.collective_permute")
def infer_collective_permute(inp: InferInput) -> list[Attribute]:
    return list(inp.operand_types)


@rule("stablehlo.collective_broadcast")
def infer_collective_broadcast(inp: InferInput) -> list[Attribute]:
    """The data operands' types (a dynamic root's last operand is the roots)."""
    ins = list(inp.operand_types)
    if isinstance(inp.attr("has_dynamic_root"), UnitAttr):
        ins = ins[:-1]
    return ins


@rule("stablehlo.cross-replica-sum")
def infer_cross_replica_sum(inp: InferInput) -> list[Attribute]:
    """HLO_CompatibleOperandsAndResultType: the most specific type of the operands."""
    return most_specific_of(inp.operand_types)


# -------------------------------------------------------------------------------------- async
_ASYNC_BODY_OPS = frozenset(
    "stablehlo." + n
    for n in (
        "all_gather",
        "all_reduce",
        "all_to_all",
        "collective_broadcast",
        "collective_permute",
        "collective_reduce",
        "dynamic_slice",
        "dynamic_update_slice",
        "reduce_scatter",
        "slice",
    )
)


def _text(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


@rule("stablehlo.async_start")
def infer_async_start(inp: InferInput) -> list[Attribute]:
    """StablehloOps.cpp AsyncStartOp::inferReturnTypes: a future of what the body returns."""
    # upstream words these as the op's own ("'stablehlo.async_start' op ..."): op_prefixed
    if not inp.regions:
        raise InferError("expected at least one region", op_prefixed=True)
    body = inp.regions[0]
    if not body.blocks:
        raise InferError("region must not be empty", op_prefixed=True)
    block = body.blocks.first
    assert block is not None
    ops = list(block.ops)
    if len(ops) != 2:
        raise InferError("region must contain exactly one operation and a return", op_prefixed=True)
    if ops[0].name not in _ASYNC_BODY_OPS:
        raise InferError("region must contain a collective or slice operation", op_prefixed=True)
    args = list(block.args)
    if len(inp.operand_types) != len(args):
        raise InferError(
            f"number of operands ({len(inp.operand_types)}) must match number of "
            f"region arguments ({len(args)})",
            op_prefixed=True,
        )
    for i, (t, a) in enumerate(zip(inp.operand_types, args)):
        if t != a.type:
            raise InferError(
                f"operand type '{_text(t)}' at index {i} must match region argument "
                f"type '{_text(a.type)}'",
                op_prefixed=True,
            )
    term = ops[-1]
    if len(term.operands) != 1:
        raise InferError(
            f"region must return exactly one value, but got {len(term.operands)}", op_prefixed=True
        )
    return [FutureType([term.operands[0].type])]


@rule("stablehlo.async_done")
def infer_async_done(inp: InferInput) -> list[Attribute]:
    """StablehloOps.cpp AsyncDoneOp::inferReturnTypes: the future's single value."""
    fut = inp.operand_types[0] if inp.operand_types else None
    types = getattr(fut, "types", None)
    if getattr(fut, "name", None) != "stablehlo.future" or types is None:
        raise InferError("operand must be a future type")
    if len(types) != 1:
        raise InferError(f"future must have exactly one type parameter, but got {len(types)}")
    return [types[0]]
