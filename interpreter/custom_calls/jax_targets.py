"""JAX's non-numeric custom calls, with their meaning in the global view JAX writes a program in (its
lowering before XLA partitions it; `jax/_src/interpreters/mlir.py` `wrap_with_*` and
`jax/_src/shard_map.py` `_shard_map_lowering`):

- `@Sharding(x) {mhlo.sharding = ...}` (a sharding annotation / `with_sharding_constraint`): x itself,
  the global value does not depend on where it lives;
- `@annotate_device_placement(x...)` (memory-kind placement): its operands;
- a `shard_map` region: JAX writes `@Sharding(x) {mhlo.sharding = S}` then
  `@SPMDFullToShardShape(...) {mhlo.sharding = "{manual}"}`, calls the body on the per-device shards,
  and writes `@Sharding(y) {"{manual}"}` then `@SPMDShardToFullShape(...) {mhlo.sharding = S'}`.  The
  body is per-device code (its collectives name devices), so it runs once per device: the program is
  run as `mhlo.num_partitions` processes (`spmd.run_spmd`; partition p is device p), each holding the
  same global values outside the region; `SPMDFullToShardShape` gives process p the tile of device p
  under S, `SPMDShardToFullShape` gathers every process's tile and places it as S' says.  A region
  manual over some mesh axes only (`last_tile_dims={manual, ...}`) reads the same way: S tiles the
  manual axes only, and the auto axes do not change the values.  Under a shard plan
  (`interpreter/shard_plan.py`) a tile-fed operand of `SPMDFullToShardShape` arrives as the
  process's shard already (taken as is) and a tile-kept `SPMDShardToFullShape` returns the
  process's shard (no gather);
- host callbacks (`jax.pure_callback`, `io_callback`, `jax.debug.callback`: `xla_ffi_python_cpu_callback`
  and kin), buffer callbacks, `InspectSharding`, `tf.call_tf_function` and a `CustomSPMDPartitioning`
  without its body are refused (`REFUSALS`, `NO_PARTITIONED_BODY`: one message): what they call lives in the process that
  traced the program (or in the TensorFlow program around it) and is not part of the artifact;
- markers with no effect on values: `@LayoutConstraint(x[, result shape])` (a layout request, x
  itself), `@Pin(x)`/`@Unpin(x)` (a value moved into / out of a pinned buffer, JAX's `new_ref(...,
  pin=True)`), and the markers of Shardy's round-trip form (XLA's `xla/service/spmd/shardy/
  constants.h`): `@xla.sdy.FuncResultSharding(x)` (a result's sharding), `@xla.sdy.PropagationBarrier(x)`
  and `@xla.sdy.ShardingGroup(x) -> ()` (as `sdy.propagation_barrier`/`sdy.sharding_group`,
  `interpreter/impls/sdy.py`); a shard_map region in that form (`xla.sdy.GlobalToLocalShape` /
  `LocalToGlobalShape`) is refused with a clear error; `@dce_sink(x) -> ()` (`lax.dce_sink(...,
  prevent_mlir_dce=True)`, a use that keeps x alive): nothing;
- `@AllocateBuffer()` (`lax.empty`/`jnp.empty` on TPU and GPU) and `@CreateBuffer()` (JAX's
  `create_linear`): a new buffer of the result type.  XLA leaves its contents uninitialized, so any
  value is a correct result; the interpreter returns zeros (deterministic, and what `lax.empty`
  gives on CPU, where JAX lowers it to a broadcast zero: `jax/_src/lax/lax.py:10560-10567`);
- `@fused(...) {called_computations = [@body]}` (`jax.experimental.fused`, a fusion request on CUDA)
  and `@CustomSPMDPartitioning(...)` with a body in `called_computations`: the body, called on the
  operands (how the values are computed does not depend on fusion or partitioning).

Evidence (jax 0.12.0.1, paths under `jax/_src/` unless `jax/...`; first jax release from the jax-ml/jax history in brackets):
`LayoutConstraint` `interpreters/mlir.py:3329-3350` (result-shape operand when dynamic) [0.4.31];
`AllocateBuffer` `lax/lax.py:10541-10559` (tpu and gpu lowerings only) [0.7.1]; `CreateBuffer`,
`Pin`, `Unpin` `state/primitives.py:1248-1316` (Pin/Unpin results/operands are `memref` types)
[0.8.0]; `fused` `jax/experimental/fused.py:55-78` (registered for cuda only) [0.7.2];
`CustomSPMDPartitioning` `custom_partitioning.py:647-656` (no `called_computations`: the body comes
from the user's `partition` callback at XLA partitioning time; with one device JAX inlines the body
instead, lines 584-614) [0.3.24]; `InspectSharding` `debugging.py:721-774` (backend_config is a
pointer to a Python callback) [0.3.18]; `xla_buffer_python_{cpu,gpu}_callback[_cmd_buffer]`
`buffer_callback.py:239-262` (`_cmd_buffer` for cuda/rocm only) [0.6.1]; `tf.call_tf_function`
`jax/experimental/jax2tf/call_tf.py:680-705` [0.4.9]; `xla.sdy.FuncResultSharding`: XLA's Shardy
round-trip export (`xla/service/spmd/shardy/constants.h`), in JAX artifacts of 2025-04..06
(`export_back_compat_test_data/annotate_data_placement.py`); `dce_sink` `lax/lax.py:10124-10129`
[0.10.0]."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.registry import ANY_PLATFORM
from stablehlo_py.interpreter.custom_calls.sharding import (
    HloSharding,
    assemble,
    parse_sharding,
    shard_of,
    shard_shape,
)
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr

from stablehlo_py.errors import InterpreterError, NotSupportedError

# rendezvous channel of SPMDShardToFullShape (negative: never a program's channel_handle)
_GATHER_CHANNEL = -14


def split_shape_operands(
    operands: Sequence[Any], indices: Any
) -> tuple[list[Any], list[Any]]:
    """(the operands proper, the result-shape operands): JAX passes the shapes of results with
    dynamic shapes as extra operands and lists their positions in `indices_of_shape_operands`
    (`jax/_src/interpreters/mlir.py:3532-3542`); `indices` is that attribute's value (or None)."""
    if indices is None:
        return list(operands), []
    drop = [int(i) for i in np.asarray(indices).reshape(-1)]
    if any(not 0 <= i < len(operands) for i in drop):
        raise InterpreterError(
            f"indices_of_shape_operands = {drop} names operands outside the {len(operands)} the "
            "custom_call has"
        )
    shapes = [operands[i] for i in drop]
    return [x for i, x in enumerate(operands) if i not in drop], shapes


def _identity(ctx: Any) -> list[np.ndarray]:
    shape_indices = ctx.attributes.get("indices_of_shape_operands")
    operands, _ = split_shape_operands(ctx.operands, shape_indices)
    if len(operands) != len(ctx.result_types):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} passes its operands through: it needs as many results "
            f"as operands, got {len(operands)} operands and {len(ctx.result_types)} results"
        )
    return list(operands)


def _no_results(ctx: Any) -> list[np.ndarray]:
    """A marker on its operands with no results (`xla.sdy.ShardingGroup`, `dce_sink`): nothing to
    compute."""
    if ctx.result_types:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} marks its operands and has no results, got "
            f"{len(ctx.result_types)}"
        )
    return []


ROUND_TRIP_SHARD_MAP = ("xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape")


def _new_buffer(ctx: Any) -> list[np.ndarray]:
    """A new buffer per result (`AllocateBuffer`, `CreateBuffer`): zeros (module docstring)."""
    if ctx.operands:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} allocates its results and takes no operands, got "
            f"{len(ctx.operands)}"
        )
    out = []
    for t in ctx.result_types:
        shape = tuple(t.get_shape())
        if any(d < 0 for d in shape):
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: result type {t} has a dynamic dimension and the "
                "call carries no shape; JAX writes it for static shapes only (refine the program's "
                "shapes first: stablehlo-refine-arguments + stablehlo-refine-shapes)"
            )
        out.append(np.zeros(shape, dtype_of_type(t.element_type)))
    return out


# ------------------------------------------------------------------------------------ refusals


@dataclass(frozen=True)
class Refusal:
    """Why a custom call cannot run here, the one record of every refused target (the calls into
    the process that traced the program below, the user kernels of `kernels.py`): its kind (for
    the listing), what it is, why that cannot run here, how to get a program that runs, and the
    platforms whose programs carry it.  Build one with `outside_artifact` or `kernels.kernel`."""

    kind: str
    what: str
    why: str
    how: str
    platforms: frozenset[str] = ANY_PLATFORM
    label: str = ""
    """The listing's name for the kind, when not `kind` itself (e.g. "Pallas Triton kernel")."""

    def error(self, target: str) -> NotSupportedError:
        return NotSupportedError(f"custom_call @{target} is {self.what}; {self.why}. {self.how}")

    def form(self) -> str:
        """The listing's form: "refused: <kind>"."""
        return f"refused: {self.label or self.kind}"


def outside_artifact(
    kind: str, what: str, missing: str, how: str, platforms: frozenset[str] = ANY_PLATFORM
) -> Refusal:
    """A call of something that lives outside the artifact (`missing`: what it calls)."""
    why = f"{missing} is not part of the program or artifact, so it cannot run here"
    return Refusal(kind, what, why, how, platforms)


_CPU = frozenset({"cpu"})
_GPU = frozenset({"cuda", "rocm"})
HOST_CALLBACKS: dict[str, frozenset[str]] = {
    # f"xla_ffi{partition}_python_{device}_callback", device "gpu" for cuda/rocm, else "cpu"
    # (jax/_src/callback.py:876-878; TPU's callbacks are send/recv, no custom call)
    "xla_ffi_python_cpu_callback": _CPU,
    "xla_ffi_python_gpu_callback": _GPU,
    "xla_ffi_partitioned_python_cpu_callback": _CPU,
    "xla_ffi_partitioned_python_gpu_callback": _GPU,
    # before the typed FFI
    "xla_python_cpu_callback": _CPU,
    "xla_python_gpu_callback": _GPU,
}
BUFFER_CALLBACKS: dict[str, frozenset[str]] = {
    # jax/_src/buffer_callback.py:239-262 (`_cmd_buffer` for cuda/rocm only)
    "xla_buffer_python_cpu_callback": _CPU,
    "xla_buffer_python_gpu_callback": _GPU,
    "xla_buffer_python_gpu_callback_cmd_buffer": _GPU,
}
_WITHOUT_CALLBACK = (
    "Export the program without the callback (or replace it with StableHLO ops) to interpret it"
)
CUSTOM_PARTITIONING = "CustomSPMDPartitioning"
_SPARSE_OPS = ("coo_matvec", "coo_matmat", "coo_todense", "coo_fromdense", "csr_matvec",
               "csr_matmat", "csr_todense", "csr_fromdense")
EXPERIMENTAL_SPARSE: dict[str, frozenset[str]] = {
    # f"{prefix}sparse_{op}_ffi": jax/experimental/sparse/_lowerings.py:90-310 (jax >= 0.5.1);
    # the same without `_ffi` before (jaxlib's sparse kernels moved to the FFI in 0.5.1)
    **{f"{vendor}sparse_{op}{ffi}": platforms
       for vendor, platforms in (("cu", frozenset({"cuda"})), ("hip", frozenset({"rocm"})))
       for op in _SPARSE_OPS for ffi in ("_ffi", "")},
    "cpu_csr_sparse_dense_ffi": _CPU,  # _lowerings.py:276
    "cusolver_csrlsvqr_ffi": frozenset({"cuda"}),  # jax/experimental/sparse/linalg.py:539
}
"""jax.experimental.sparse's kernels (not in JAX's export stable list): not supported yet."""

REFUSALS: dict[str, Refusal] = {
    **{
        name: outside_artifact(
            "host callback",
            "a JAX host callback (jax.pure_callback, io_callback or jax.debug.callback/print): it "
            "calls a Python function of the process that traced the program, identified only by "
            "an opaque descriptor",
            "that function",
            _WITHOUT_CALLBACK,
            platforms,
        )
        for name, platforms in HOST_CALLBACKS.items()
    },
    **{
        name: outside_artifact(
            "buffer callback",
            "a JAX buffer callback (jax.experimental.buffer_callback): it calls a Python function "
            "of the process that traced the program on the raw buffers, identified only by its "
            "index in that process's list of callbacks",
            "that function",
            _WITHOUT_CALLBACK,
            platforms,
        )
        for name, platforms in BUFFER_CALLBACKS.items()
    },
    "InspectSharding": outside_artifact(
        "sharding inspection callback",
        "JAX's sharding inspection (jax.debug.inspect_array_sharding in a program for several "
        "devices): XLA's partitioner calls a Python function of the process that traced the "
        "program, named by a pointer in backend_config",
        "that function",
        "Remove the jax.debug.inspect_array_sharding call (it changes no value), or lower for one "
        "device, where JAX calls it while tracing and writes no custom call",
    ),
    "tf.call_tf_function": outside_artifact(
        "TensorFlow function",
        "a TensorFlow function called with jax2tf.call_tf(..., call_tf_graph=True): it runs a "
        "graph of the TensorFlow program around the artifact, named only by its index "
        "(tf.backend_config called_index), and needs TensorFlow",
        "that graph",
        "Use jax2tf.call_tf with call_tf_graph=False (the default), which writes the TensorFlow "
        "function into the program as StableHLO ops, or write the function in JAX",
    ),
    **{
        name: Refusal(
            "JAX experimental sparse kernel",
            "a kernel of jax.experimental.sparse (a COO/CSR product or conversion on cuSPARSE, "
            "hipSPARSE or the CPU, or cuSOLVER's sparse QR solve; outside JAX's export stable "
            "list)",
            "this interpreter does not support these kernels yet",
            "Export the program with jax_bcoo_cusparse_lowering off (the default: BCOO and BCSR "
            "operations then lower to StableHLO ops), or with dense arrays, to run it here",
            platforms,
        )
        for name, platforms in EXPERIMENTAL_SPARSE.items()
    },
    **dict.fromkeys(
        ROUND_TRIP_SHARD_MAP,
        Refusal(
            "shard_map in Shardy's round-trip form (2025-04..06)",
            "part of a shard_map region in Shardy's round-trip form (xla.sdy.GlobalToLocalShape, "
            "call @xla.sdy.manual_computation_body, xla.sdy.LocalToGlobalShape, shardings in "
            "mhlo.frontend_attributes; JAX artifacts of about 2025-04..06)",
            "the interpreter runs shard_map regions written as sdy.manual_computation (what "
            "jax.export writes today) or as SPMDFullToShardShape/SPMDShardToFullShape, not this form",
            "Export the function again with a current jax",
        ),
    ),
}
"""Targets refused outright, by name."""

NO_PARTITIONED_BODY = outside_artifact(
    "custom_partitioning without its body",
    "a jax.experimental.custom_partitioning function lowered for several devices: its body is made "
    "by the user's partition callback when XLA's partitioner calls back into the process that "
    "traced the program (backend_config is the key of that Python object)",
    "the body",
    "Lower the function for one device (JAX then writes its body as StableHLO ops), or write the "
    "body into called_computations = [@body]",
)


def _refuse(ctx: Any) -> list[np.ndarray]:
    raise REFUSALS[ctx.target_name].error(ctx.target_name)


# ------------------------------------------------------------------------ calls of a function


def called_function(ev: Any, op: Any) -> Any:
    """The one function `op` names in `called_computations` (a FuncOp with a body)."""
    target = op.properties["call_target_name"].data
    calls = op.properties.get("called_computations") or op.attributes.get("called_computations")
    refs = list(calls.data) if isinstance(calls, ArrayAttr) else []
    if len(refs) != 1 or not isinstance(refs[0], SymbolRefAttr):
        raise InterpreterError(
            f"custom_call @{target} needs called_computations = [@body] naming one function"
        )
    name = refs[0].root_reference.data
    func = ev.funcs.get(name)
    if func is None or not func.body.blocks:
        raise InterpreterError(
            f"custom_call @{target} calls @{name}, which is not a function with a body"
        )
    return func


def has_called_computations(op: Any) -> bool:
    calls = op.properties.get("called_computations") or op.attributes.get("called_computations")
    return isinstance(calls, ArrayAttr) and len(calls.data) > 0


def call_body(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    """`fused`, `CustomSPMDPartitioning`: the function in `called_computations` on the operands."""
    results = ev.run_func(called_function(ev, op), list(args))
    if len(results) != len(op.results):
        raise InterpreterError(
            f"custom_call @{op.properties['call_target_name'].data} has {len(op.results)} results, "
            f"the function it calls returns {len(results)}"
        )
    return list(results)


def custom_partitioning(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if not has_called_computations(op):
        raise NO_PARTITIONED_BODY.error(CUSTOM_PARTITIONING)
    return call_body(ev, op, args)


# ----------------------------------------------------------------------------------- shard_map


def op_sharding(op: Any, what: str) -> HloSharding:
    """The `mhlo.sharding` string of `op` read (`what` names the op in the error when it has none)."""
    attr = op.attributes.get("mhlo.sharding") or op.properties.get("mhlo.sharding")
    if not isinstance(attr, StringAttr):
        raise InterpreterError(f"{what} carries no mhlo.sharding string attribute")
    return parse_sharding(attr.data)


def _operand_sharding(op: Any, target: str) -> HloSharding:
    """The sharding JAX puts right before an SPMD* call: its operand is `@Sharding(x) {mhlo.sharding}`."""
    owner = getattr(op.operands[0], "op", None)
    name = getattr(owner, "properties", {}).get("call_target_name") if owner is not None else None
    if (
        owner is None
        or owner.name != "stablehlo.custom_call"
        or getattr(name, "data", None) != "Sharding"
    ):
        raise InterpreterError(
            f"custom_call @{target}: its operand must be the result of custom_call @Sharding (the "
            "sharding of the value, as JAX writes it), found "
            f"{'a block argument' if owner is None else owner.name}"
        )
    return op_sharding(owner, "the custom_call @Sharding before it")


def _device_count_check(ev: Any, sharding: HloSharding, target: str) -> None:
    n = int(getattr(ev.process, "num_partitions", 1))
    devices = sharding.num_devices()
    if sharding.kind == "tiled" and devices > 1 and n == 1:
        raise NotSupportedError(
            f"custom_call @{target} (a shard_map region over {devices} devices) runs per device; a "
            "single-process run cannot give each device its shard: run the program with "
            "stablehlo_py.interpreter.custom_calls.spmd.run_spmd(module, *args) (one process per "
            "partition, mhlo.num_partitions)"
        )
    if sharding.kind == "tiled" and int(sharding.tiles.max()) >= n:  # type: ignore[union-attr]
        raise InterpreterError(
            f"custom_call @{target}: the sharding names device {int(sharding.tiles.max())} but the "  # type: ignore[union-attr]
            f"program runs on {n} partitions"
        )


def _check_manual(op: Any, target: str) -> None:
    own = op_sharding(op, f"custom_call @{target}")
    if not own.is_manual:
        raise InterpreterError(
            f"custom_call @{target} must carry a manual sharding ({{manual}}, or last_tile_dims "
            f"naming manual for a shard_map over some mesh axes), got {op.attributes.get('mhlo.sharding')}"
        )


def spmd_full_to_shard(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    target = "SPMDFullToShardShape"
    if len(args) != 1 or len(op.results) != 1:
        raise InterpreterError(f"custom_call @{target} takes one operand and has one result")
    _check_manual(op, target)
    sharding = _operand_sharding(op, target)
    _device_count_check(ev, sharding, target)
    want = tuple(op.results[0].type.get_shape())
    partition = int(ev.process.partition_id)
    flags = _plan_flags(ev, op)
    if flags is not None and flags.tile_in[0]:
        return [_own_shard(op, sharding, args[0], want, partition)]
    value = np.asarray(args[0])
    got = shard_shape(sharding, value.shape)
    if got != want:
        raise InterpreterError(
            f"custom_call @{target}: the shard of a {list(value.shape)} value under its sharding is "
            f"{list(got)}, the result type says {list(want)}"
        )
    return [shard_of(sharding, value, partition)]


def _plan_flags(ev: Any, op: Any) -> Any:
    """The shard plan's flags for this region op (`interpreter/shard_plan.py`), None without a plan."""
    plan = getattr(getattr(ev, "process", None), "shard_plan", None)
    return None if plan is None else plan.flags(op)


def _own_shard(
    op: Any, sharding: HloSharding, value: Any, want: tuple[int, ...], partition: int
) -> np.ndarray:
    """The operand given as this process's shard already (the shard plan): taken as is, padded
    with zeros as `shard_of` pads when it is the clipped end of an uneven tiling."""
    piece = np.asarray(value)
    if piece.shape == want:
        return piece
    shape = tuple(op.operands[0].type.get_shape())
    if sharding.kind == "tiled":
        index = sharding.tile_index(partition)
        clipped = tuple(
            max(0, min((i + 1) * s, d) - min(i * s, d)) for i, s, d in zip(index, want, shape)
        )
        if piece.shape == clipped:
            padded = np.zeros(want, piece.dtype)
            padded[tuple(slice(0, n) for n in clipped)] = piece
            return padded
    raise InterpreterError(
        f"custom_call @SPMDFullToShardShape: its operand should arrive as this process's shard "
        f"{list(want)} of {list(shape)} (the shard plan), but has shape {list(piece.shape)}"
    )


def spmd_shard_to_full(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    target = "SPMDShardToFullShape"
    if len(args) != 1 or len(op.results) != 1:
        raise InterpreterError(f"custom_call @{target} takes one operand and has one result")
    sharding = op_sharding(op, f"custom_call @{target}")
    if sharding.kind == "manual":
        raise InterpreterError(
            f"custom_call @{target}: its own sharding must say how the result is laid out, not {{manual}}"
        )
    inner = _operand_sharding(op, target)
    if not inner.is_manual:
        raise InterpreterError(
            f"custom_call @{target}: the custom_call @Sharding before it must be manual (the "
            "per-device value of a shard_map region)"
        )
    _device_count_check(ev, sharding, target)
    shape = tuple(op.results[0].type.get_shape())
    piece = np.asarray(args[0])
    if sharding.kind != "tiled":
        return [piece]
    flags = _plan_flags(ev, op)
    if flags is not None and flags.keep_out[0]:
        return [piece]  # the shard plan keeps it as this process's shard: nothing gathered
    from stablehlo_py.interpreter.impls.collectives import grid_of

    grid = grid_of(ev)
    replica = int(ev.process.replica_id)
    group = tuple((replica, p) for p in range(grid.num_partitions))
    me = (replica, int(ev.process.partition_id))
    got = grid.gather_tiles(group, _GATHER_CHANNEL, me, [piece])
    shards = {pid[1]: values[0] for pid, values in got.items()}
    devices = {int(d) for d in sharding.tiles.ravel()}  # type: ignore[union-attr]
    return [assemble(sharding, {d: v for d, v in shards.items() if d in devices}, shape)]


# name -> fn(ctx) (the plugin API) and name -> fn(evaluator, op, operands) (need the program)
JAX_TARGETS: dict[str, Callable[[Any], list[np.ndarray]]] = {
    "Sharding": _identity,
    "annotate_device_placement": _identity,
    "LayoutConstraint": _identity,
    "Pin": _identity,
    "Unpin": _identity,
    "xla.sdy.FuncResultSharding": _identity,
    "xla.sdy.PropagationBarrier": _identity,
    "xla.sdy.ShardingGroup": _no_results,
    "dce_sink": _no_results,
    "AllocateBuffer": _new_buffer,
    "CreateBuffer": _new_buffer,
    **dict.fromkeys(REFUSALS, _refuse),
}
JAX_EVALUATOR_TARGETS: dict[str, Callable[[Any, Any, list[Any]], list[Any]]] = {
    "SPMDFullToShardShape": spmd_full_to_shard,
    "SPMDShardToFullShape": spmd_shard_to_full,
    "fused": call_body,
    CUSTOM_PARTITIONING: custom_partitioning,
}

PLATFORMS: dict[str, frozenset[str]] = {
    "AllocateBuffer": frozenset({"tpu"}) | _GPU,
    "fused": frozenset({"cuda"}),
    **{name: r.platforms for name, r in REFUSALS.items() if r.platforms != ANY_PLATFORM},
}
"""The targets JAX emits for some platforms only (every other target here: any platform)."""

FORMS: dict[str, tuple[str, ...]] = {
    "Sharding": ("x -> x, mhlo.sharding string (GSPMD sharding annotation)",),
    "annotate_device_placement": (
        "x -> x, has_side_effect, mhlo.frontend_attributes {_xla_buffer_placement} "
        "(jax >= 0.4.15)",
    ),
    "SPMDFullToShardShape": (
        "global x -> shard, mhlo.sharding = \"{manual}\", after @Sharding (shard_map, jax >= 0.3.0)",
    ),
    "SPMDShardToFullShape": (
        "shard -> global x, mhlo.sharding of the result, after a manual @Sharding (shard_map, "
        "jax >= 0.3.0)",
    ),
    **{name: (r.form(),) for name, r in REFUSALS.items()},
    "LayoutConstraint": ("x [, result shape i32[r]] -> x, api 1, result_layouts (jax >= 0.4.31)",),
    "AllocateBuffer": ("() -> tensor, static shape (jax >= 0.7.1)",),
    "CreateBuffer": ("() -> memref, static shape (jax >= 0.8.0)",),
    "Pin": ("tensor -> memref [, backend_config JSON memory-space color] (jax >= 0.8.0)",),
    "Unpin": ("memref -> tensor (jax >= 0.8.0)",),
    "xla.sdy.FuncResultSharding": ("x -> x, Shardy round-trip form (jax artifacts 2025-04..06)",),
    "xla.sdy.PropagationBarrier": ("x -> x, Shardy round-trip form",),
    "xla.sdy.ShardingGroup": ("x -> (), Shardy round-trip form",),
    "dce_sink": ("x -> (), typed FFI, has_side_effect (jax >= 0.10.0)",),
    "fused": (
        "operands -> results of called_computations = [@body], mhlo.backend_config "
        "{out_spaces, inlineable, MUST_FUSE} (jax >= 0.7.2)",
    ),
    CUSTOM_PARTITIONING: (
        "with called_computations = [@body]: the body; JAX's own form (backend_config = key of a "
        "Python object, no body; jax >= 0.3.24) is refused",
    ),
}
"""The forms each target accepts, with the JAX releases that wrote them (for the listing)."""

Family = tuple[dict[str, Callable[..., Any]], frozenset[str], tuple[str, ...]]


def _families(table: dict[str, Callable[..., Any]]) -> tuple[Family, ...]:
    return tuple(
        ({name: fn}, PLATFORMS.get(name, ANY_PLATFORM), FORMS.get(name, ()))
        for name, fn in table.items()
    )


JAX_FAMILIES = _families(JAX_TARGETS)
JAX_EVALUATOR_FAMILIES = _families(JAX_EVALUATOR_TARGETS)
"""(targets, their platforms, the forms they accept), as `builtins.load` registers families."""

__all__ = [
    "BUFFER_CALLBACKS",
    "FORMS",
    "HOST_CALLBACKS",
    "JAX_EVALUATOR_FAMILIES",
    "JAX_EVALUATOR_TARGETS",
    "JAX_FAMILIES",
    "JAX_TARGETS",
    "NO_PARTITIONED_BODY",
    "PLATFORMS",
    "REFUSALS",
    "Refusal",
    "call_body",
    "called_function",
    "op_sharding",
    "split_shape_operands",
]
