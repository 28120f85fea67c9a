"""Collective and communication ops (spec.md "all_gather", "all_reduce", "all_to_all",
"reduce_scatter", "collective_permute", "collective_broadcast", "collective_reduce", "infeed",
"outfeed", "send", "recv", "replica_id", "partition_id") and their attributes:

- `#stablehlo.channel_handle<handle = 1, type = 0>` (`ChannelHandleAttr`);
- replica groups, either `dense<[[0, 1]]> : tensor<1x2xi64>` or the mesh-axes form
  `#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x",
  sub_axis_info = (1)2>]>` (`ReplicaGroupMeshAxesAttr`, `AxisRefAttr`).

Upstream has no pretty syntax for the collectives, infeed, outfeed, send and recv: they print
generically. `replica_id` and `partition_id` print `stablehlo.replica_id : tensor<ui32>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.attrs.axis_ref import AxisRef, AxisRefAttr  # noqa: F401  (re-exported)
from stablehlo_py.ir.attrs.channel_handle import ChannelHandle, ChannelHandleAttr  # noqa: F401
from stablehlo_py.ir.attrs.replica_group_mesh_axes import (  # noqa: F401  (re-exported)
    MeshAxes,
    ReplicaGroupMeshAxesAttr,
)
from stablehlo_py.ir.attrs.struct import register_parsers
from stablehlo_py.ir.future_type import FutureType
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import (
    ANY_ATTR,
    ARRAY_ATTR,
    BOOL_ATTR,
    I1,
    I64_ATTR,
    STR_ATTR,
    UNIT_ATTR,
    AttrSyntax,
    GenericSyntaxOp,
    PureOp,
    StableHLOOp,
    op_def,
    prop,
)
from stablehlo_py.ir.verify.constraints import (
    int_value,
)
from stablehlo_py.ir.verify.ods_traits import confined_attribute, pairwise_same, upstream
from stablehlo_py.ir.verify.region_utils import (
    require_single_block,
)
from stablehlo_py.ir.types import element_type

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser


# --------------------------------------------------------------------------------- attributes
# channel_handle, axis_ref and replica_group_mesh_axes are described in stablehlo_py/ir/attrs/.
CHANNEL_HANDLE = AttrSyntax(
    ChannelHandleAttr, lambda p: p.parse_attribute(), lambda p: p.peek() == "#"
)
"""ODS `StableHLO_ChannelHandle` (its summary is in ods_types.ATTR_SUMMARIES)."""


def parse_future_type(p: Parser) -> Attribute:
    p.parse_literal("<", "to open !stablehlo.future")
    types = p.parse_comma_list(p.parse_type, ">")
    p.parse_literal(">", "to close !stablehlo.future")
    return FutureType(types)


def register(reg: Registry) -> None:
    reg.type_parsers["stablehlo.future"] = parse_future_type
    register_parsers(reg, (ChannelHandleAttr, AxisRefAttr, ReplicaGroupMeshAxesAttr))


# ------------------------------------------------------------------------------ verification
def _check_replica_groups_attr(op: StableHLOOp) -> None:
    """ODS `StableHLO_ReplicaGroups`: AnyAttrOf<[I64ElementsAttr, ReplicaGroupMeshAxes]>."""
    rg = op.properties.get("replica_groups")
    if not isinstance(rg, ReplicaGroupMeshAxesAttr) and not ods.is_i64_elements(rg):
        raise VerifyException(
            "attribute 'replica_groups' failed to satisfy constraint: 64-bit signless integer "
            "elements attribute or mesh and axes based replica groups representation."
        )


def _ods_tensors(op: StableHLOOp, variadic: bool) -> None:
    """ODS of the collectives: `HLO_Tensor` operands and results (`Variadic<HLO_Tensor>` groups for
    all_gather, all_reduce, all_to_all, collective_broadcast and collective_reduce)."""
    ods.check_values("operand", [v.type for v in op.operands], ods.HLO_Tensor, variadic=variadic)
    ods.check_values("result", [r.type for r in op.results], ods.HLO_Tensor, variadic=variadic)


def verify_mesh_symbol(op: StableHLOOp) -> None:
    """upstream's ReplicaGroupMeshAxesAttr::verifySymbolUses: the mesh of mesh-axes replica groups
    must name a symbol visible from the op."""
    from xdsl.dialects.builtin import SymbolRefAttr

    rg = op.properties.get("replica_groups")
    if not isinstance(rg, ReplicaGroupMeshAxesAttr):
        return
    ref = rg.mesh
    if not isinstance(ref, SymbolRefAttr) or ref.nested_references.data:
        return
    if nearest_symbol_table(op) is None:
        return  # not (yet) inside a symbol table (an op being built): MLIR verifies uses within one
    if lookup_nearest_symbol(op, ref.root_reference.data) is None:
        raise VerifyException(f"replica_groups: mesh symbol '{ref.root_reference.data}' not found")


def nearest_symbol_table(op: Operation) -> Operation | None:
    """The nearest op enclosing ``op`` (or ``op`` itself) with the SymbolTable trait, or None."""
    from xdsl.traits import SymbolTable

    table: Operation | None = op
    while table is not None and not table.has_trait(SymbolTable, value_if_unregistered=False):
        table = table.parent_op()
    return table


def lookup_nearest_symbol(op: Operation, name: str) -> Operation | None:
    """MLIR's SymbolTable::lookupNearestSymbolFrom for a flat name: in the nearest enclosing symbol
    table, the op whose `sym_name` is ``name`` -- any op with that attribute, registered or not
    (an unregistered `"sdy.mesh"() {sym_name = ...}` is a symbol too, as in MLIR)."""
    from xdsl.dialects.builtin import StringAttr

    table = nearest_symbol_table(op)
    if table is None or not table.regions or not table.regions[0].blocks:
        return None
    for candidate in table.regions[0].blocks.first.ops:  # type: ignore[union-attr]
        sym = candidate.properties.get("sym_name") or candidate.attributes.get("sym_name")
        if isinstance(sym, StringAttr) and sym.data == name:
            return candidate
    return None


def channel_id(op: StableHLOOp) -> int:
    ch = op.properties.get("channel_handle")
    return ch.handle if isinstance(ch, ChannelHandleAttr) else 0


def _flag(op: StableHLOOp, name: str) -> bool:
    """Whether the optional unit property ``name`` (use_global_device_ids, has_dynamic_root) is set."""
    return isinstance(op.properties.get(name), UnitAttr)


def _verify_reducing_group(op: StableHLOOp, check: Callable[..., None], *flags: bool) -> None:
    """all_reduce and collective_reduce: ODS (replica_groups, the tensors, the one-block
    computation), then upstream's verifier ``check`` (operand types, replica groups, channel id,
    use_global_device_ids, ``flags``, the computation); the classes declare the InferTypeOpInterface
    check, which MLIR runs after it, and the SymbolUserOpInterface check after that."""
    _check_replica_groups_attr(op)
    _ods_tensors(op, variadic=True)
    require_single_block(op, op.computation, "computation", non_empty=True)  # type: ignore[attr-defined]
    upstream(
        check,
        [v.type for v in op.operands],
        op.properties.get("replica_groups"),
        channel_id(op),
        _flag(op, "use_global_device_ids"),
        *flags,
        op.computation,  # type: ignore[attr-defined]
    )


# ------------------------------------------------------------------------------ ids and feeds
class _ProcessIdOp(PureOp):
    """replica_id and partition_id: a `tensor<ui32>` result."""

    result = result_def()
    FORMAT: ClassVar[str | None] = "attr-dict `:` type(results)"

    def verify_(self) -> None:
        ods.check_values("result", [self.result.type], ods.UI32RankedTensor)  # ODS, then inference


@op_def
class ReplicaIdOp(_ProcessIdOp):
    """Produces `replica_id` of the current process (spec.md#replica_id)."""

    name = "stablehlo.replica_id"


@op_def
class PartitionIdOp(_ProcessIdOp):
    """Produces `partition_id` of the current process (spec.md#partition_id)."""

    name = "stablehlo.partition_id"


@op_def
class InfeedOp(GenericSyntaxOp):
    """Reads data from the infeed and produces `results` (spec.md#infeed)."""

    name = "stablehlo.infeed"
    token = operand_def()
    infeed_config = prop(STR_ATTR, default=StringAttr(""))

    # MLIR populates a non-optional DefaultValuedStrAttr when the op is created, so the generic form
    # prints it (`<{infeed_config = ""}>`) even when the input did not give it.
    POPULATED_DEFAULTS: ClassVar[dict[str, Attribute]] = {"infeed_config": StringAttr("")}

    layout = prop(ARRAY_ATTR, optional=True)
    results_ = var_result_def()

    def verify_(self) -> None:
        from stablehlo_py.ir.infer.collectives import verify_infeed

        # ODS (infeed_i1, results), then upstream's InfeedOp::verify (verifyInfeedOp)
        res = _check_incoming(self)
        upstream(verify_infeed, self.properties.get("layout"), res)


def _verify_outgoing(op: StableHLOOp) -> None:
    """outfeed and send: ODS `Variadic<HLO_TensorOrPerAxisQuantizedTensor>:$inputs`, then
    `HLO_Token:$token` (numbered as MLIR numbers operands) and the `HLO_Token` result (the
    classes declare the InferTypeOpInterface check, after these)."""
    inputs = [v.type for v in op.operands[:-1]]
    ods.check_values("operand", inputs, ods.HLO_TensorOrPerAxisQuantizedTensor, variadic=True)
    ods.check_values("operand", [op.operands[-1].type], ods.HLO_Token, first=len(inputs))
    ods.check_values("result", [op.results[0].type], ods.HLO_Token)


@op_def
class OutfeedOp(GenericSyntaxOp):
    """Writes `inputs` to the outfeed and produces a `result` token (spec.md#outfeed)."""

    name = "stablehlo.outfeed"
    inputs = var_operand_def()
    token = operand_def()
    outfeed_config = prop(STR_ATTR, default=StringAttr(""))

    # MLIR populates a non-optional DefaultValuedStrAttr when the op is created, so the generic form
    # prints it (`<{outfeed_config = ""}>`) even when the input did not give it.
    POPULATED_DEFAULTS: ClassVar[dict[str, Attribute]] = {"outfeed_config": StringAttr("")}

    result = result_def()
    # ODS (outfeed_i1, outfeed_i2, the token result), then InferTypeOpInterface
    ODS_CHECK = _verify_outgoing
    INFER_CHECK: ClassVar[str | None] = "after"


def _check_incoming(op: StableHLOOp) -> list[Attribute]:
    """infeed and recv: ODS `HLO_Token:$token` and the variadic results; the results' types."""
    ods.check_values("operand", [op.operands[0].type], ods.HLO_Token)
    res = [r.type for r in op.results]
    ods.check_values(
        "result", res, ods.HLO_StaticShapeTensorOrPerAxisQuantizedTensorOrToken, variadic=True
    )
    return res


class _ChannelTransferOp(GenericSyntaxOp):
    """send and recv: the `token` operand (after send's `inputs`: IRDL collects a family base's
    fields after the op's own) and the channel attributes."""

    token = operand_def()
    channel_handle = prop(CHANNEL_HANDLE)
    is_host_transfer = prop(BOOL_ATTR, default=IntegerAttr(0, I1))
    source_target_pairs = prop(ANY_ATTR, optional=True)


@op_def
class SendOp(_ChannelTransferOp):
    """Sends `inputs` to a channel `channel_id` and produces a `result` token (spec.md#send)."""

    name = "stablehlo.send"
    inputs = var_operand_def()
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        # ODS (attributes, send_i1, send_i2, the token result), then InferTypeOpInterface
        # (send_c1_i4: inferSendOp); upstream checks no more of source_target_pairs
        ods.check_i64_elements(self, "source_target_pairs")
        _verify_outgoing(self)


@op_def
class RecvOp(_ChannelTransferOp):
    """Receives data from a channel with `channel_id` and produces `results` (spec.md#recv)."""

    name = "stablehlo.recv"
    results_ = var_result_def()

    def verify_(self) -> None:
        from stablehlo_py.ir.infer.collectives import verify_recv

        # ODS (attributes, recv_i1, results), then upstream's RecvOp::verify (verifyRecvOp);
        # upstream checks no more of source_target_pairs
        ods.check_i64_elements(self, "source_target_pairs")
        res = _check_incoming(self)
        ch = self.properties.get("channel_handle")
        assert isinstance(ch, ChannelHandleAttr)
        upstream(
            verify_recv,
            ch.channel_type,
            int_value(self.properties.get("is_host_transfer"), 0) != 0,
            res,
        )


# -------------------------------------------------------------------------------- collectives
class _SymbolUser(GenericSyntaxOp):
    """A collective whose `replica_groups` may name a mesh: its SymbolUserOpInterface check
    (`verify_mesh_symbol`) comes last, after the op's own verifier and its inference check (MLIR
    checks symbol uses after the op's own verifier).  The family's common attributes are declared
    here (IRDL collects them after each op's own), and its default InferTypeOpInterface check."""

    replica_groups = prop(ANY_ATTR)
    channel_handle = prop(CHANNEL_HANDLE, optional=True)
    INFER_CHECK: ClassVar[str | None] = "after"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = ()
    """Upstream's ODS order of the op's attributes, where it differs from IRDL's (which lists these
    inherited ones after the op's own): the builder's parameters follow it."""
    verify_after_inference_ = verify_mesh_symbol


@op_def
class AllGatherOp(_SymbolUser):
    """Within each process group, concatenates the values of the `operands` from each process along
    `all_gather_dim` and produces `results` (spec.md#all_gather)."""

    name = "stablehlo.all_gather"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "all_gather_dim", "replica_groups", "channel_handle", "use_global_device_ids",
    )
    operands_ = var_operand_def()
    all_gather_dim = prop(I64_ATTR)
    use_global_device_ids = prop(UNIT_ATTR, optional=True)
    results_ = var_result_def()
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check

    def verify_(self) -> None:
        from stablehlo_py.ir.infer.collectives import verify_all_gather

        # ODS, in MLIR's order (by name): all_gather_dim's ConfinedAttr<I64Attr, [IntNonNegative]>
        # (all_gather_c1), replica_groups
        confined_attribute(self, "all_gather_dim")
        _check_replica_groups_attr(self)
        d = int_value(self.properties.get("all_gather_dim"))
        _ods_tensors(self, variadic=True)
        ins = [v.type for v in self.operands]
        outs = [r.type for r in self.results]
        # the trait (all_gather_c6), then upstream's AllGatherOp::verify
        pairwise_same(ins, outs, "element type")
        upstream(
            verify_all_gather,
            ins,
            outs,
            d,
            self.properties.get("replica_groups"),
            channel_id(self),
            _flag(self, "use_global_device_ids"),
        )


@op_def
class AllReduceOp(_SymbolUser):
    """Within each process group, applies a reduction function `computation` to the values of the
    `operands` from each process and produces `results` (spec.md#all_reduce)."""

    name = "stablehlo.all_reduce"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "replica_groups", "channel_handle", "use_global_device_ids",
    )
    operands_ = var_operand_def()
    use_global_device_ids = prop(UNIT_ATTR, optional=True)
    computation = region_def()
    results_ = var_result_def()

    def verify_(self) -> None:
        # upstream's AllReduceOp::verify (verifyAllReduceOp), then the InferTypeOpInterface check
        # (all_reduce_c6, all_reduce_c7), which MLIR runs after it
        from stablehlo_py.ir.infer.collectives import verify_all_reduce

        _verify_reducing_group(self, verify_all_reduce)


@op_def
class AllToAllOp(_SymbolUser):
    """Within each process group, splits the `operands` along `split_dimension`, scatters the parts
    between the processes, concatenates them along `concat_dimension` and produces `results`
    (spec.md#all_to_all)."""

    name = "stablehlo.all_to_all"
    operands_ = var_operand_def()
    split_dimension = prop(I64_ATTR)
    concat_dimension = prop(I64_ATTR)
    split_count = prop(I64_ATTR)
    results_ = var_result_def()
    # the family's INFER_CHECK: InferTensorType (inferAllToAllOp: all_to_all_c1 .. c3, c5, c7 .. c9)

    def verify_(self) -> None:
        # ODS, in MLIR's order (by name): concat_dimension >= 0, replica_groups, split_count > 0,
        # split_dimension >= 0 (all_to_all_c1, c3, c4)
        confined_attribute(self, "concat_dimension")
        _check_replica_groups_attr(self)
        confined_attribute(self, "split_count")
        confined_attribute(self, "split_dimension")
        _ods_tensors(self, variadic=True)
        # the traits in upstream's order: HLO_PairwiseSameOperandAndResultElementType (all_to_all_c9),
        # then InferTensorType (INFER_CHECK)
        ins, outs = [v.type for v in self.operands], [r.type for r in self.results]
        pairwise_same(ins, outs, "element type")


@op_def
class ReduceScatterOp(_SymbolUser):
    """Within each process group, reduces the `operand` with `computation`, splits the result along
    `scatter_dimension` and scatters the parts between the processes (spec.md#reduce_scatter)."""

    name = "stablehlo.reduce_scatter"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "scatter_dimension", "replica_groups", "channel_handle", "use_global_device_ids",
    )
    operand = operand_def()
    scatter_dimension = prop(I64_ATTR)
    use_global_device_ids = prop(UNIT_ATTR, optional=True)
    computation = region_def()
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check

    def verify_(self) -> None:
        from stablehlo_py.ir.infer.collectives import verify_reduce_scatter

        # ODS, in MLIR's order (by name): replica_groups, then scatter_dimension's
        # ConfinedAttr<I64Attr, [IntNonNegative]> (reduce_scatter_c2)
        _check_replica_groups_attr(self)
        confined_attribute(self, "scatter_dimension")
        _ods_tensors(self, variadic=False)
        require_single_block(self, self.computation, "computation")
        upstream(
            verify_reduce_scatter,
            self.operand.type,
            self.result.type,
            int_value(self.properties.get("scatter_dimension")),
            self.properties.get("replica_groups"),
            channel_id(self),
            _flag(self, "use_global_device_ids"),
            self.computation,
        )


@op_def
class CollectivePermuteOp(GenericSyntaxOp):
    """Within each process group, sends the value of `operand` from the source process to the target
    process and produces a `result` (spec.md#collective_permute)."""

    name = "stablehlo.collective_permute"
    operand = operand_def()
    source_target_pairs = prop(ANY_ATTR)
    channel_handle = prop(CHANNEL_HANDLE, optional=True)
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        # ODS, the SameOperandsAndResultElementType trait (collective_permute_c5), upstream's
        # CollectivePermuteOp::verify (verifyCollectivePermuteOp), then the InferTypeOpInterface
        # check (collective_permute_c5), which MLIR runs after it
        from stablehlo_py.ir.infer.collectives import verify_collective_permute

        ods.check_i64_elements(self, "source_target_pairs")
        _ods_tensors(self, variadic=False)
        if element_type(self.operand.type) != element_type(self.result.type):
            raise VerifyException("requires the same element type for all operands and results")
        upstream(verify_collective_permute, self.properties.get("source_target_pairs"))


@op_def
class CollectiveBroadcastOp(_SymbolUser):
    """Within each process group, sends the value of `operands` from the source process to the target
    processes and produces `results` (spec.md#collective_broadcast)."""

    name = "stablehlo.collective_broadcast"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "replica_groups", "channel_handle", "has_dynamic_root",
    )
    operands_ = var_operand_def()
    has_dynamic_root = prop(UNIT_ATTR, optional=True)
    results_ = var_result_def()

    def verify_(self) -> None:
        # upstream's CollectiveBroadcastOp::verify (verifyCollectiveBroadcastOp), then the
        # InferTypeOpInterface check (collective_broadcast_c3, c5), which MLIR runs after it
        from stablehlo_py.ir.infer.collectives import verify_collective_broadcast

        _check_replica_groups_attr(self)
        _ods_tensors(self, variadic=True)
        upstream(
            verify_collective_broadcast,
            [v.type for v in self.operands],
            self.properties.get("replica_groups"),
            _flag(self, "has_dynamic_root"),
        )


@op_def
class CollectiveReduceOp(_SymbolUser):
    """Within each process group, reduces the `operands` of every process with `computation` and keeps
    the results on the source process (spec.md#collective_reduce)."""

    name = "stablehlo.collective_reduce"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "replica_groups", "channel_handle", "use_global_device_ids", "has_dynamic_root",
    )
    operands_ = var_operand_def()
    use_global_device_ids = prop(UNIT_ATTR, optional=True)
    has_dynamic_root = prop(UNIT_ATTR, optional=True)
    computation = region_def()
    results_ = var_result_def()

    def verify_(self) -> None:
        # upstream's CollectiveReduceOp::verify (verifyCollectiveReduceOp), then the
        # InferTypeOpInterface check, which MLIR runs after it
        from stablehlo_py.ir.infer.collectives import verify_collective_reduce

        _verify_reducing_group(self, verify_collective_reduce, _flag(self, "has_dynamic_root"))


@op_def
class CrossReplicaSumOp(GenericSyntaxOp):
    """Sums `operand` across the replicas of each replica group (an all_reduce with an add body; not in
    the spec, kept for compatibility)."""

    name = "stablehlo.cross-replica-sum"
    operand = operand_def()
    replica_groups = prop(ANY_ATTR)
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        from stablehlo_py.ir.ops.elementwise import verify_compatible_types

        # ODS (I64ElementsAttr replica_groups, HLO_Tensor operand and result), then
        # HLO_CompatibleOperandsAndResultType: the trait, then its inference; upstream verifies
        # nothing else (no replica-group checks)
        ods.check_i64_elements(self, "replica_groups")
        ods.check_values("operand", [self.operand.type], ods.HLO_Tensor)
        ods.check_values("result", [self.result.type], ods.HLO_Tensor)
        verify_compatible_types(self)


@op_def
class AsyncStartOp(GenericSyntaxOp):
    """Starts the collective in region `body` on `operands` asynchronously and produces a
    `!stablehlo.future` of its results (not in the spec; since 1.15). The body is isolated from
    above: it sees the operands only through its block arguments."""

    name = "stablehlo.async_start"
    operands_ = var_operand_def()
    body = region_def()  # VHLO calls it `collective`
    result = result_def()
    traits = traits_def(IsolatedFromAbove())
    ISOLATED: ClassVar[bool] = True
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        # ODS (Variadic<HLO_Tensor> operands, an HLO_Future result, the body), then
        # AsyncStartOp::inferReturnTypes
        ods.check_values("operand", [v.type for v in self.operands], ods.HLO_Tensor, variadic=True)
        ods.check_values("result", [self.result.type], ods.HLO_Future)
        require_single_block(self, self.body, "body", non_empty=True)


@op_def
class AsyncDoneOp(GenericSyntaxOp):
    """Waits for the `!stablehlo.future` `operand` and produces its value (not in the spec; since
    1.15)."""

    name = "stablehlo.async_done"
    operand = operand_def()
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        # ODS (HLO_Future operand, HLO_Tensor result), then AsyncDoneOp::inferReturnTypes
        ods.check_values("operand", [self.operand.type], ods.HLO_Future)
        ods.check_values("result", [self.result.type], ods.HLO_Tensor)


OPS = (
    AsyncStartOp,
    AsyncDoneOp,
    ReplicaIdOp,
    PartitionIdOp,
    InfeedOp,
    OutfeedOp,
    SendOp,
    RecvOp,
    AllGatherOp,
    AllReduceOp,
    AllToAllOp,
    ReduceScatterOp,
    CollectivePermuteOp,
    CollectiveBroadcastOp,
    CollectiveReduceOp,
    CrossReplicaSumOp,
)
