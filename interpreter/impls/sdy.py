"""Shardy's ops (`stablehlo_py/ir/ops/sdy.py`) in the global view JAX writes a program in (before a
partitioner makes it per-device):

- `sdy.sharding_constraint`, `sdy.reshard`, `sdy.propagation_barrier`: their operand (where a value
  lives, or how sharding propagates, does not change it); `sdy.sharding_group`: nothing;
- `sdy.manual_computation` (JAX's `shard_map`): its body is per-device code over the manual axes
  (its collectives name devices), so the program runs as one process per device of the mesh
  (`custom_calls/spmd.py`: partition p is device p, each process holding the same global values
  outside the region).  Process p takes the part of each operand its mesh coordinates select under
  the operand's in-sharding (the manual axes of each dimension, major to minor; sub-axes
  `"x":(pre)size` too), runs the body on it, and the results are gathered from the processes that
  share its coordinates on the free (non-manual) axes and placed as the out-shardings say.

Under a shard plan (`interpreter/shard_plan.py`, `ProcessContext.shard_plan`), an operand the plan
feeds as tiles arrives as the process's part already and is taken as is, and a result the plan
keeps stays the process's part (not gathered); every process runs the same plan."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.registry import Step, compiler
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir.sdy_attrs import AxisRef, Mesh, Sharding

# rendezvous channel of the result gather (negative: never a program's channel_handle;
# custom_calls/jax_targets.py's SPMDShardToFullShape uses -14)
_GATHER_CHANNEL = -15


def _identity(x: Any) -> Any:
    return x


@compiler("sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier")
def _pass_through(op: Any) -> Step:
    return Step(_identity)


def _nothing(x: Any) -> list[Any]:
    return []


@compiler("sdy.sharding_group")
def _sharding_group(op: Any) -> Step:
    return Step(_nothing, multi=True)


# ------------------------------------------------------------------------- manual_computation
def _coordinate(ref: AxisRef, coords: dict[str, int], sizes: dict[str, int]) -> tuple[int, int]:
    """(the device's index along `ref`, the size of `ref`)."""
    if ref.size is None:
        return coords[ref.name], sizes[ref.name]
    return (coords[ref.name] // ref.pre_size) % ref.size, ref.size


def _tile(
    sharding: Sharding, manual: frozenset[str], coords: dict[str, int], sizes: dict[str, int]
) -> list[tuple[int, int]]:
    """Per dimension: (which part, how many parts) the device holds over the manual axes."""
    out = []
    for dim in sharding.dims:
        index, count = 0, 1
        for ref in dim.axes:
            if ref.name in manual:
                c, s = _coordinate(ref, coords, sizes)
                index, count = index * s + c, count * s
        out.append((index, count))
    return out


def _slices(tile: list[tuple[int, int]], shape: tuple[int, ...]) -> tuple[slice, ...]:
    out = []
    for (index, count), n in zip(tile, shape):
        if n % count:
            raise InterpreterError(
                f"sdy.manual_computation: a dimension of size {n} does not split into {count} parts"
            )
        step = n // count
        out.append(slice(index * step, (index + 1) * step))
    return tuple(out)


class ManualRegion:
    """One `sdy.manual_computation`: its shardings, mesh and manual axes, read once."""

    def __init__(self, op: Any):
        from stablehlo_py.ir.ops.sdy import lookup_mesh

        self.op = op
        ins, outs, manual = op.shardings()
        self.ins, self.outs, self.manual = ins, outs, frozenset(manual)
        meshes = set()
        for s in (*ins, *outs):
            try:
                meshes.add(lookup_mesh(op, s))
            except VerifyException as e:
                raise InterpreterError(f"sdy.manual_computation: {e}") from None
        if len(meshes) > 1:
            raise NotSupportedError(
                "sdy.manual_computation whose shardings name different meshes is not supported"
            )
        for what, side in (("in", ins), ("out", outs)):
            for k, sh in enumerate(side):
                if sh.unreduced:
                    axes = ", ".join(a.text() for a in sh.unreduced)
                    raise NotSupportedError(
                        f"sdy.manual_computation: {what}_shardings #{k} has unreduced axes "
                        f"({axes}): values held as partial sums across devices are not supported "
                        "by the interpreter"
                    )
        self.mesh: Mesh = meshes.pop() if meshes else Mesh(())
        self.sizes = self.mesh.sizes
        self.names = [n for n, _ in self.mesh.axes]
        self.parts = 1
        for ax in manual:
            self.parts *= self.sizes.get(ax, 1)
        self.result_shapes = [tuple(r.type.get_shape()) for r in op.results]

    def coords(self, device: int) -> dict[str, int]:
        devices = self.mesh.devices()
        if device not in devices:
            raise InterpreterError(
                f"sdy.manual_computation: partition {device} is not a device of the mesh "
                f"(devices {list(devices)})"
            )
        flat = devices.index(device)
        out: dict[str, int] = {}
        for name in reversed(self.names):
            size = self.sizes[name]
            out[name] = flat % size
            flat //= size
        return out

    def tile_slices(
        self, sharding: Sharding, coords: dict[str, int], shape: tuple[int, ...]
    ) -> tuple[slice, ...]:
        """The part of a `shape` value the device at mesh `coords` holds under `sharding` (its
        manual axes only)."""
        return _slices(_tile(sharding, self.manual, coords, self.sizes), shape)

    def run(self, ev: Any, regions: tuple[Any, ...], *args: Any) -> list[Any]:
        (body,) = regions
        n = int(getattr(ev.process, "num_partitions", 1))
        if self.parts == 1:
            return list(body(*args))
        if n == 1:
            raise NotSupportedError(
                f"sdy.manual_computation (a shard_map region over {self.parts} devices) runs per "
                "device; a single-process run cannot give each device its part: run the program "
                "with stablehlo_py.interpreter.run (or custom_calls.spmd.run_spmd), which runs it "
                "once per partition (mhlo.num_partitions)"
            )
        if n != self.mesh.num_devices:
            raise InterpreterError(
                f"sdy.manual_computation: the mesh has {self.mesh.num_devices} devices but the "
                f"program runs on {n} partitions"
            )
        me = int(ev.process.partition_id)
        coords = self.coords(me)
        plan = getattr(ev.process, "shard_plan", None)
        flags = None if plan is None else plan.flags(self.op)
        local = []
        for k, (a, s) in enumerate(zip(args, self.ins)):
            if flags is not None and flags.tile_in[k]:
                local.append(self._own_tile(k, a, s, coords))
            else:
                local.append(np.asarray(a)[self.tile_slices(s, coords, np.shape(a))])
        results = [np.asarray(r) for r in body(*local)]
        return self._gather(ev, me, coords, results, None if flags is None else flags.keep_out)

    def _own_tile(self, k: int, value: Any, sharding: Sharding, coords: dict[str, int]) -> Any:
        """Operand #k given as this process's tile already (the shard plan): taken as is."""
        shape = tuple(self.op.operands[k].type.get_shape())
        want = tuple(s.stop - s.start for s in self.tile_slices(sharding, coords, shape))
        if np.shape(value) != want:
            raise InterpreterError(
                f"sdy.manual_computation: operand #{k} should arrive as this process's tile "
                f"{list(want)} of {list(shape)} (the shard plan), but has shape "
                f"{list(np.shape(value))}"
            )
        return np.asarray(value)

    def _gather(
        self,
        ev: Any,
        me: int,
        coords: dict[str, int],
        results: list[np.ndarray],
        keep: tuple[bool, ...] | None = None,
    ) -> list[Any]:
        """The global value of each result, from the tiles of the devices sharing this one's
        free-axis coordinates; a result the shard plan keeps (`keep[k]`) stays this process's
        tile (every process runs the same plan, so all skip the same results)."""
        from stablehlo_py.interpreter.impls.collectives import grid_of

        wanted = [k for k in range(len(results)) if keep is None or not keep[k]]
        out: list[Any] = list(results)
        if not wanted:
            return out
        replica = int(ev.process.replica_id)
        free = [a for a in self.names if a not in self.manual]
        members = sorted(
            d for d in self.mesh.devices() if all(self.coords(d)[a] == coords[a] for a in free)
        )
        group = tuple((replica, d) for d in members)
        sent = [results[k] for k in wanted]
        got = grid_of(ev).gather_tiles(group, _GATHER_CHANNEL, (replica, me), sent)
        for j, k in enumerate(wanted):
            sharding, shape = self.outs[k], self.result_shapes[k]
            full = np.empty(shape, dtype=results[k].dtype)
            done: set[tuple[int, ...]] = set()
            for d in members:
                tile = _tile(sharding, self.manual, self.coords(d), self.sizes)
                key = tuple(i for i, _ in tile)
                if key in done:
                    continue  # replicated over a manual axis: every device holds the same part
                done.add(key)
                full[_slices(tile, shape)] = got[(replica, d)][j]
            out[k] = full
        return out


@compiler("sdy.manual_computation")
def _manual_computation(op: Any) -> Step:
    return Step(ManualRegion(op).run, ev=True, regions=True, multi=True)
