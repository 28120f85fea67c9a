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
  manual axes only, and the auto axes do not change the values;
- host callbacks (`jax.pure_callback`, `io_callback`, `jax.debug.callback`: `xla_ffi_python_cpu_callback`
  and kin) are refused: the Python function they call lives in the process that traced the program and
  is not part of the artifact."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.sharding import (
    HloSharding,
    assemble,
    parse_sharding,
    shard_of,
    shard_shape,
)
from xdsl.dialects.builtin import StringAttr

from stablehlo_py.errors import InterpreterError, NotSupportedError

# rendezvous channel of SPMDShardToFullShape (negative: never a program's channel_handle)
_GATHER_CHANNEL = -14


def _identity(ctx: Any) -> list[np.ndarray]:
    if len(ctx.operands) != len(ctx.result_types):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} passes its operands through: it needs as many results "
            f"as operands, got {len(ctx.operands)} operands and {len(ctx.result_types)} results"
        )
    return list(ctx.operands)


HOST_CALLBACKS = (
    "xla_ffi_python_cpu_callback",
    "xla_ffi_python_gpu_callback",
    "xla_ffi_partitioned_python_cpu_callback",
    "xla_ffi_partitioned_python_gpu_callback",
    "xla_python_cpu_callback",
    "xla_python_gpu_callback",
)


def _host_callback(ctx: Any) -> list[np.ndarray]:
    raise NotSupportedError(
        f"custom_call @{ctx.target_name} is a JAX host callback (jax.pure_callback, io_callback or "
        "jax.debug.callback/print): it calls a Python function of the process that traced the "
        "program, identified only by an opaque descriptor; that function is not part of the "
        "program or artifact, so it cannot run here. Export the program without the callback (or "
        "replace it with StableHLO ops) to interpret it"
    )


# ----------------------------------------------------------------------------------- shard_map


def _sharding_attr(op: Any, what: str) -> HloSharding:
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
    return _sharding_attr(owner, "the custom_call @Sharding before it")


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
    own = _sharding_attr(op, f"custom_call @{target}")
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
    value = np.asarray(args[0])
    want = tuple(op.results[0].type.get_shape())
    got = shard_shape(sharding, value.shape)
    if got != want:
        raise InterpreterError(
            f"custom_call @{target}: the shard of a {list(value.shape)} value under its sharding is "
            f"{list(got)}, the result type says {list(want)}"
        )
    return [shard_of(sharding, value, int(ev.process.partition_id))]


def spmd_shard_to_full(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    target = "SPMDShardToFullShape"
    if len(args) != 1 or len(op.results) != 1:
        raise InterpreterError(f"custom_call @{target} takes one operand and has one result")
    sharding = _sharding_attr(op, f"custom_call @{target}")
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
    from stablehlo_py.interpreter.impls.collectives import grid_of

    grid = grid_of(ev)
    replica = int(ev.process.replica_id)
    group = tuple((replica, p) for p in range(grid.num_partitions))
    got = grid.rendezvous(group, _GATHER_CHANNEL, (replica, int(ev.process.partition_id)), [piece])
    shards = {pid[1]: values[0] for pid, values in got.items()}
    devices = {int(d) for d in sharding.tiles.ravel()}  # type: ignore[union-attr]
    return [assemble(sharding, {d: v for d, v in shards.items() if d in devices}, shape)]


# name -> fn(ctx) (the plugin API) and name -> fn(evaluator, op, operands) (need the program)
JAX_TARGETS: dict[str, Callable[[Any], list[np.ndarray]]] = {
    "Sharding": _identity,
    "annotate_device_placement": _identity,
    **{name: _host_callback for name in HOST_CALLBACKS},
}
JAX_EVALUATOR_TARGETS: dict[str, Callable[[Any, Any, list[Any]], list[Any]]] = {
    "SPMDFullToShardShape": spmd_full_to_shard,
    "SPMDShardToFullShape": spmd_shard_to_full,
}

__all__ = ["HOST_CALLBACKS", "JAX_EVALUATOR_TARGETS", "JAX_TARGETS"]
