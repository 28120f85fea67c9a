"""The shard plan: which values of a partitioned program each process may hold as its own tile only
(docs/plans/issue-29-mpi.md §3.4).

A shard_map program runs its regions (`sdy.manual_computation`; in JAX's GSPMD form `@Sharding` +
`@SPMDFullToShardShape` ... `@Sharding` + `@SPMDShardToFullShape`) once per device on tiles, and the
code around them on global values that every process holds.  The plan, found once per (module,
entry, grid) from the program's text alone, marks

- an entry argument **tile-fed** when every use of it is a region entry and all of them slice it
  the same way: an operand of `sdy.manual_computation` (the tile its in-sharding selects over the
  manual axes) or of `@SPMDFullToShardShape` (the shard its `@Sharding` selects).  Uses are followed
  through ops that only pass a value on (`@Sharding`, `sdy.sharding_constraint`, `sdy.reshard`,
  `sdy.propagation_barrier`) and into a private function called from one place only.  Each process
  is then given its own tile of it, and the regions take that as is (no slice);
- a region result **tile-kept** when every use is the entry's `return` or a region entry that slices
  it exactly as the region's out-sharding placed it: the region then skips its gather and the
  process keeps its tile; an entry result that comes from it is held as tiles.

Anything else is **whole**, as without a plan, with the reason (the op that needs the whole value:
"used by stablehlo.exponential at prog.mlir:23:10").  Regions inside other regions, loops and
branches, and in functions called from several places, run as without a plan.

Tiles are per partition (every replica holds what its partition holds); a tile's index is a tuple of
slices of the global value (`Tiling.index`), so a reader takes just that part (a memory-mapped
`.npy` reads only its pages) and a writer puts it back; of the processes holding equal tiles, the
lowest rank writes it (`Decision.writes`).  XLA pads an uneven GSPMD shard at its end with zeros:
the index is the part inside the value (`Tiling.crop` drops the padding of a kept shard).

The region impls (`impls/sdy.py`, `custom_calls/jax_targets.py`) read the plan from the process
context (`ProcessContext.shard_plan`, `plan.flags(op)`); every process runs the same plan, so all
skip the same gathers.  In-process: `custom_calls.spmd.call_spmd(..., tiles=True)` gives each
process its tiles and assembles the global results (`ShardPlan.local_args`,
`ShardPlan.assemble`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.jax_targets import op_sharding
from stablehlo_py.interpreter.custom_calls.sharding import HloSharding, shard_shape
from stablehlo_py.interpreter.impls.sdy import ManualRegion
from stablehlo_py.interpreter.module_code import functions
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, SymbolRefAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from stablehlo_py.errors import InterpreterError, StableHLOError
from stablehlo_py.ir import no_gc
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.sdy_attrs import sharding_body_text
from stablehlo_py.ir.verify import op_location
from stablehlo_py.ir.xdsl_compat.snapshot import Snapshot

__all__ = ["Decision", "RegionFlags", "ShardPlan", "Tiling", "shard_plan"]

Bounds = tuple[tuple[int, int], ...]
"""(start, stop) per dimension."""

# ops that hand their one operand on unchanged (in the global view): a tile passes through them
_PASS_ON = frozenset({"sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier"})
_PASS_ON_TARGETS = frozenset(
    {"Sharding", "xla.sdy.FuncResultSharding", "xla.sdy.PropagationBarrier"}
)
# ops that take a value and compute nothing from it
_NO_VALUE = frozenset({"sdy.sharding_group"})
_NO_VALUE_TARGETS = frozenset({"xla.sdy.ShardingGroup", "dce_sink"})

_PLANS = CONTEXT.identity_map("interpreter.shard_plans", 64)  # (module,), (entry, R, N) -> plan


# ---------------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Tiling:
    """How a value of global `shape` is held: partition p holds the part `bounds[p]` in an array of
    shape `local` (the same on every partition; larger than the part where XLA pads an uneven
    shard).  Equal tilings (`==`: shape, local shape and every bound) slice a value the same way;
    `how` says where the tiling comes from."""

    shape: tuple[int, ...]
    local: tuple[int, ...]
    bounds: tuple[Bounds, ...]
    how: str = field(default="", compare=False)

    def index(self, partition: int) -> tuple[slice, ...]:
        """The part of the global value that `partition` holds."""
        return tuple(slice(a, b) for a, b in self.bounds[partition])

    @property
    def replicated(self) -> bool:
        """Every partition holds all of the value."""
        full = tuple((0, n) for n in self.shape)
        return all(b == full for b in self.bounds)

    def writer(self, partition: int) -> int:
        """The lowest partition that holds the same part as `partition`."""
        return self.bounds.index(self.bounds[partition])

    def crop(self, tile: Any, partition: int) -> Any:
        """`partition`'s tile without the padding past the global value's end."""
        part = tuple(b - a for a, b in self.bounds[partition])
        tile = np.asarray(tile)
        return tile if tile.shape == part else tile[tuple(slice(0, n) for n in part)]

    def text(self) -> str:
        return f"{list(self.local)} of {list(self.shape)}"


@dataclass(frozen=True)
class Decision:
    """What one entry argument or result (`what`: "arg 0", "result 1") is: held as tiles
    (`tiling`, `kind` "tile") or whole (`kind` "whole"); `reason`: by which region, or why not."""

    what: str
    tiling: Tiling | None
    reason: str

    @property
    def kind(self) -> str:
        return "whole" if self.tiling is None else "tile"

    def index(self, replica: int, partition: int) -> tuple[slice, ...] | None:
        """The slices of the global value that process (replica, partition) holds (what its
        partition holds, whichever the replica); None when it holds the whole value."""
        return None if self.tiling is None else self.tiling.index(partition)

    def writes(self, replica: int, partition: int) -> bool:
        """Whether process (replica, partition) is the one that writes its part of a result: the
        lowest rank holding that part (rank 0 for a whole value)."""
        if self.tiling is None:
            return replica == 0 and partition == 0
        return replica == 0 and self.tiling.writer(partition) == partition

    def line(self) -> str:
        if self.tiling is None:
            return f"{self.what}: whole: {self.reason}"
        held = " (every process holds all of it)" if self.tiling.replicated else ""
        return f"{self.what}: tile {self.tiling.text()}{held} {self.reason}"


@dataclass(frozen=True)
class RegionFlags:
    """For one region op: per operand, whether it arrives as the process's tile already
    (`tile_in`: take it as is); per result, whether it stays the process's tile (`keep_out`: no
    gather)."""

    tile_in: tuple[bool, ...]
    keep_out: tuple[bool, ...]


class ShardPlan:
    """The plan of one entry on a `num_replicas` x `num_partitions` grid (module doc)."""

    def __init__(
        self,
        entry: str,
        num_replicas: int,
        num_partitions: int,
        args: Sequence[Decision],
        results: Sequence[Decision],
        flags: dict[Operation, RegionFlags],
    ) -> None:
        self.entry = entry
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.args = tuple(args)
        self.results = tuple(results)
        self._flags = flags
        self.flags = flags.get
        """`flags(op)`: the op's RegionFlags, None for an op the plan leaves alone."""

    def local_args(self, args: Sequence[Any], replica: int, partition: int) -> list[Any]:
        """What process (replica, partition) is given: its tile of each tile-fed argument (sliced
        before it is read: a view of an array or memory map), the others whole."""
        self._check_process(replica, partition)
        if len(args) != len(self.args):
            raise InterpreterError(
                f"@{self.entry} takes {len(self.args)} arguments, {len(args)} were given"
            )
        out = []
        for a, d in zip(args, self.args):
            index = d.index(replica, partition)
            out.append(a if index is None else np.asarray(a[index]))
        return out

    def assemble(self, per_process: Sequence[Sequence[Any]]) -> list[Any]:
        """The entry's global results from every process's results (by rank): a tile-kept result
        from the tiles (each part written by the lowest rank holding it), any other result as
        process (0, 0) computed it."""
        if len(per_process) != self.num_replicas * self.num_partitions:
            raise InterpreterError(
                f"assembling results needs those of all {self.num_replicas * self.num_partitions} "
                f"processes, got {len(per_process)}"
            )
        first = list(per_process[0] or [])
        out: list[Any] = []
        for i, d in enumerate(self.results):
            t = d.tiling
            if t is None:
                out.append(first[i])
                continue
            full = np.zeros(t.shape, np.asarray(first[i]).dtype)
            for p in range(self.num_partitions):
                if t.writer(p) == p:
                    full[t.index(p)] = t.crop(per_process[p][i], p)
            out.append(full)
        return out

    def report(self) -> str:
        """One line per argument and result: "tile" and by which region, or "whole" and why."""
        head = (
            f"shard plan of @{self.entry} ({self.num_replicas} replica"
            f"{'s' if self.num_replicas != 1 else ''} x {self.num_partitions} partitions):"
        )
        return "\n".join([head, *(d.line() for d in (*self.args, *self.results))])

    def _check_process(self, replica: int, partition: int) -> None:
        if not (0 <= replica < self.num_replicas and 0 <= partition < self.num_partitions):
            raise InterpreterError(
                f"process (replica {replica}, partition {partition}) is outside the "
                f"{self.num_replicas} x {self.num_partitions} grid of the shard plan"
            )


# ----------------------------------------------------------------------------------- entry
def _module_int(module: Any, name: str) -> int:
    attr = module.attributes.get(name)
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else 1


def shard_plan(
    module: Operation,
    entry: str = "main",
    *,
    replicas: int | None = None,
    partitions: int | None = None,
) -> ShardPlan:
    """The shard plan of `entry` run on `replicas` x `partitions` processes (defaults: the
    module's `mhlo.num_replicas`, `mhlo.num_partitions`); found once per module state."""
    r = _module_int(module, "mhlo.num_replicas") if replicas is None else replicas
    n = _module_int(module, "mhlo.num_partitions") if partitions is None else partitions
    if r < 1 or n < 1:
        raise InterpreterError(f"a shard plan needs a grid of at least 1 x 1, got {r} x {n}")
    key = (entry, r, n)
    hit = _PLANS.get_seq((module,), extra=key)
    if hit is not None and hit[0].unchanged():
        return hit[1]  # type: ignore[no-any-return]
    plan = _Analysis(module, entry, r, n).plan()
    with no_gc():
        snapshot = Snapshot(module)
    _PLANS.put_seq((module,), (snapshot, plan), extra=key)
    return plan


# -------------------------------------------------------------------------------- analysis
def _target(op: Operation) -> str | None:
    if op.name != "stablehlo.custom_call":
        return None
    name = op.properties.get("call_target_name")
    return getattr(name, "data", None)


def _at(op: Operation) -> str:
    """` at <location>` of `op`, or nothing when it has none."""
    loc = op_location(op)
    return f" at {loc}" if loc else ""


def _name(op: Operation) -> str:
    target = _target(op)
    if target is not None:
        return f"{op.name} @{target}"
    if op.name == "func.call":
        return f"func.call @{_callee(op)}"
    return op.name


def _callee(op: Operation) -> str:
    return op.properties["callee"].root_reference.data  # type: ignore[attr-defined, no-any-return]


def _passes_on(op: Operation) -> bool:
    """Whether `op` hands its one operand on unchanged."""
    return (
        (op.name in _PASS_ON or _target(op) in _PASS_ON_TARGETS)
        and len(op.operands) == 1
        and len(op.results) == 1
    )


def _describe(op: Operation) -> str:
    return _name(op) + _at(op)


def _sharding_text(op: Operation) -> str:
    attr = op.attributes.get("mhlo.sharding") or op.properties.get("mhlo.sharding")
    return str(getattr(attr, "data", "?"))


def _static_shape(value: SSAValue) -> tuple[int, ...] | None:
    t = value.type
    if not isinstance(t, TensorType):
        return None
    shape = tuple(t.get_shape())
    return shape if all(d >= 0 for d in shape) else None


def _symbol_refs(attr: Any, out: list[str]) -> None:
    if isinstance(attr, SymbolRefAttr):
        out.append(attr.root_reference.data)
    elif isinstance(attr, ArrayAttr):
        for a in attr.data:
            _symbol_refs(a, out)
    elif isinstance(attr, DictionaryAttr):
        for a in attr.data.values():
            _symbol_refs(a, out)


@dataclass
class _Sinks:
    """Where a value ends up (followed through pass-on ops and one-site calls)."""

    regions: list[tuple[Operation, int, Tiling | str]] = field(default_factory=list)
    returns: list[int] = field(default_factory=list)
    needs_whole: list[str] = field(default_factory=list)


class _Analysis:
    def __init__(self, module: Operation, entry: str, replicas: int, partitions: int) -> None:
        self.replicas, self.partitions, self.entry = replicas, partitions, entry
        funcs = functions(module)
        func = funcs.get(entry)
        if func is None:
            raise InterpreterError(
                f"no function @{entry} in the module (have: {', '.join('@' + f for f in funcs)})"
            )
        block = func.body.blocks.first
        if block is None:
            raise InterpreterError(f"function @{entry} has no body (external functions cannot run)")
        self.entry_block: Block = block
        self.refs: dict[str, list[Operation]] = {}
        for op in module.walk():
            names: list[str] = []
            for attr in (*op.properties.values(), *op.attributes.values()):
                _symbol_refs(attr, names)
            for name in names:
                self.refs.setdefault(name, []).append(op)
        self.funcs = funcs
        # the blocks whose ops run once per call of the entry, on global values: the entry's and
        # those of private functions called from one place only (from such a block)
        self.callee_of: dict[Operation, Block] = {}
        self.call_of: dict[Block, Operation] = {}
        todo = [block]
        while todo:
            for op in todo.pop().ops:
                callee = self._one_site_callee(op)
                if callee is not None and callee not in self.call_of:
                    self.callee_of[op] = callee
                    self.call_of[callee] = op
                    todo.append(callee)
        self.global_blocks = {block, *self.call_of}
        self.flags: dict[Operation, tuple[list[bool], list[bool]]] = {}

    def _one_site_callee(self, op: Operation) -> Block | None:
        if op.name != "func.call":
            return None
        name = _callee(op)
        func = self.funcs.get(name)
        if func is None or len(self.refs.get(name, ())) != 1:
            return None
        visibility = func.sym_visibility
        if visibility is None or visibility.data != "private":
            return None
        body = func.body.blocks
        if len(body) != 1 or len(body.first.args) != len(op.operands):  # type: ignore[union-attr]
            return None
        return body.first

    # ---------------------------------------------------------------------------- tilings
    def _full(self, shape: tuple[int, ...], how: str) -> Tiling:
        full = tuple((0, n) for n in shape)
        return Tiling(shape, shape, (full,) * self.partitions, how)

    def _sdy_tiling(self, op: Operation, side: str, k: int) -> Tiling | str:
        value = op.operands[k] if side == "in" else op.results[k]
        shape = _static_shape(value)
        where = _describe(op)
        if shape is None:
            return f"{where}: its {side}-value #{k} has no static shape"
        try:
            region = ManualRegion(op)
        except StableHLOError as e:
            return f"{where}: {e}"
        sharding = (region.ins if side == "in" else region.outs)[k]
        axes = ", ".join(f'"{a}"' for a in sorted(region.manual))
        how = (
            f"sdy.manual_computation {side}-sharding {sharding_body_text(sharding)} "
            f"(manual axes {{{axes}}}){_at(op)}"
        )
        if region.parts == 1:
            return self._full(shape, how)
        if region.mesh.num_devices != self.partitions:
            return (
                f"{where}: the mesh has {region.mesh.num_devices} devices but the program runs on "
                f"{self.partitions} partitions"
            )
        bounds = []
        try:
            for p in range(self.partitions):
                index = region.tile_slices(sharding, region.coords(p), shape)
                bounds.append(tuple((s.start, s.stop) for s in index))
        except StableHLOError as e:
            return f"{where}: {e}"
        local = tuple(b - a for a, b in bounds[0])
        return Tiling(shape, local, tuple(bounds), how)

    def _hlo_tiling(
        self, sharding: HloSharding, shape: tuple[int, ...], local: tuple[int, ...] | None,
        how: str,
    ) -> Tiling | str:
        """The tiling of a `shape` value under an HloSharding; `local`: the per-device shape the
        op's type says (must be the shard's)."""
        if sharding.kind != "tiled":
            return self._full(shape, how)
        try:
            own = shard_shape(sharding, shape)
        except StableHLOError as e:
            return f"{how}: {e}"
        if local is not None and own != local:
            return (
                f"{how}: the shard of {list(shape)} is {list(own)}, the op's type says "
                f"{list(local)}"
            )
        bounds = []
        for p in range(self.partitions):
            try:
                index = sharding.tile_index(p)
            except StableHLOError:
                return f"{how}: the sharding gives partition {p} no shard"
            bounds.append(
                tuple((min(i * s, d), min((i + 1) * s, d)) for i, s, d in zip(index, own, shape))
            )
        return Tiling(shape, own, tuple(bounds), how)

    def _full_to_shard_tiling(self, op: Operation) -> Tiling | str:
        where = _describe(op)
        owner = op.operands[0].owner if op.operands else None
        if not isinstance(owner, Operation) or _target(owner) != "Sharding":
            return f"{where}: its operand is not the result of custom_call @Sharding"
        shape, local = _static_shape(op.operands[0]), _static_shape(op.results[0])
        if shape is None or local is None:
            return f"{where}: no static shape"
        try:
            sharding = op_sharding(owner, "custom_call @Sharding")
        except StableHLOError as e:
            return f"{where}: {e}"
        how = f"{_name(op)} under @Sharding {_sharding_text(owner)}{_at(op)}"
        return self._hlo_tiling(sharding, shape, local, how)

    def _shard_to_full_tiling(self, op: Operation) -> Tiling | str:
        where = _describe(op)
        shape, local = _static_shape(op.results[0]), _static_shape(op.operands[0])
        if shape is None or local is None:
            return f"{where}: no static shape"
        try:
            sharding = op_sharding(op, f"custom_call @{_target(op)}")
        except StableHLOError as e:
            return f"{where}: {e}"
        if sharding.kind == "manual":
            return f"{where}: its sharding is {{manual}}"
        how = f"{_name(op)} {_sharding_text(op)}{_at(op)}"
        return self._hlo_tiling(sharding, shape, local, how)

    # ------------------------------------------------------------------------------- flow
    def _sinks(self, value: SSAValue) -> _Sinks:
        out = _Sinks()
        todo = [value]
        while todo:
            v = todo.pop()
            for use in list(v.uses):
                op, k = use.operation, use.index
                block = op.parent_block()
                if block not in self.global_blocks:
                    outer = op
                    while outer.parent_block() not in self.global_blocks:
                        parent = outer.parent_op()
                        if parent is None:
                            break
                        outer = parent
                    out.needs_whole.append(f"used by {op.name} inside {_describe(outer)}")
                    continue
                target = _target(op)
                if op.name == "sdy.manual_computation":
                    out.regions.append((op, k, self._sdy_tiling(op, "in", k)))
                elif target == "SPMDFullToShardShape":
                    out.regions.append((op, k, self._full_to_shard_tiling(op)))
                elif _passes_on(op):
                    todo.append(op.results[0])
                elif op.name in _NO_VALUE or target in _NO_VALUE_TARGETS:
                    continue
                elif op in self.callee_of:
                    todo.append(self.callee_of[op].args[k])
                elif op.name == "func.return" and block is self.entry_block:
                    out.returns.append(k)
                elif op.name == "func.return" and block in self.call_of:
                    todo.append(self.call_of[block].results[k])  # type: ignore[index]
                else:
                    out.needs_whole.append(f"used by {_describe(op)}")
        return out

    def _flag(self, op: Operation, side: int, k: int) -> None:
        flags = self.flags.get(op)
        if flags is None:
            flags = self.flags[op] = ([False] * len(op.operands), [False] * len(op.results))
        flags[side][k] = True

    def _arg(self, k: int, arg: SSAValue, results: list[Decision | None]) -> Decision:
        what = f"arg {k}"
        sinks = self._sinks(arg)
        for i in sinks.returns:
            results[i] = Decision(f"result {i}", None, f"the entry's argument #{k}, returned as is")
        if _static_shape(arg) is None:
            return Decision(what, None, "not a tensor of static shape")
        if sinks.needs_whole:
            return Decision(what, None, sinks.needs_whole[0])
        if sinks.returns:
            return Decision(what, None, f"returned as is (result {sinks.returns[0]})")
        if not sinks.regions:
            return Decision(what, None, "not used by a shard_map region")
        tilings = [t for _, _, t in sinks.regions]
        for t in tilings:
            if isinstance(t, str):
                return Decision(what, None, t)
        first = tilings[0]
        assert isinstance(first, Tiling)
        for t in tilings:
            if t != first:
                assert isinstance(t, Tiling)
                return Decision(what, None, f"{first.how} and {t.how} slice it differently")
        for op, j, _ in sinks.regions:
            self._flag(op, 0, j)
        return Decision(what, first, f"by {first.how}")

    def _region_result(self, value: SSAValue, op: Operation, j: int, tiling: Tiling | str,
                       results: list[Decision | None]) -> None:
        sinks = self._sinks(value)
        why = None
        if isinstance(tiling, str):
            why = tiling
            tiling = None
        elif sinks.needs_whole:
            why = f"gathered: {sinks.needs_whole[0]} (from {tiling.how})"
        else:
            for _, _, t in sinks.regions:
                if t != tiling:
                    how = t if isinstance(t, str) else t.how
                    why = f"gathered: {how} slices it differently from {tiling.how}"
                    break
        for i in sinks.returns:
            if tiling is not None and why is None:
                results[i] = Decision(f"result {i}", tiling, f"from {tiling.how}")
            else:
                results[i] = Decision(f"result {i}", None, why or "")
        if why is None:
            self._flag(op, 1, j)
            for sink, k, _ in sinks.regions:
                self._flag(sink, 0, k)

    def _origin(self, value: SSAValue) -> str:
        """Why a result that comes from no region is whole: what computes it."""
        while True:
            owner = value.owner
            if isinstance(owner, Block):
                call = self.call_of.get(owner)
                if call is None:
                    return "computed outside any shard_map region"
                value = call.operands[value.index]  # type: ignore[attr-defined]
                continue
            if _passes_on(owner):
                value = owner.operands[0]
                continue
            callee = self.callee_of.get(owner)
            if callee is not None and callee.last_op is not None:
                value = callee.last_op.operands[value.index]  # type: ignore[attr-defined]
                continue
            return f"computed by {_describe(owner)}"

    def plan(self) -> ShardPlan:
        ret = self.entry_block.last_op
        n_results = len(ret.operands) if ret is not None else 0
        results: list[Decision | None] = [None] * n_results
        if self.refs.get(self.entry):
            why = f"@{self.entry} is also called from within the module"
            args = [Decision(f"arg {k}", None, why) for k in range(len(self.entry_block.args))]
            outs = [Decision(f"result {i}", None, why) for i in range(n_results)]
            return ShardPlan(self.entry, self.replicas, self.partitions, args, outs, {})
        args = [self._arg(k, a, results) for k, a in enumerate(self.entry_block.args)]
        for block in (self.entry_block, *self.call_of):
            for op in block.ops:
                if op.name == "sdy.manual_computation":
                    for j, r in enumerate(op.results):
                        self._region_result(r, op, j, self._sdy_tiling(op, "out", j), results)
                elif _target(op) == "SPMDShardToFullShape" and len(op.results) == 1:
                    tiling = self._shard_to_full_tiling(op)
                    self._region_result(op.results[0], op, 0, tiling, results)
        outs = []
        for i, d in enumerate(results):
            if d is None:
                assert ret is not None
                d = Decision(f"result {i}", None, self._origin(ret.operands[i]))
            outs.append(d)
        flags = {
            op: RegionFlags(tuple(tile_in), tuple(keep_out))
            for op, (tile_in, keep_out) in self.flags.items()
        }
        return ShardPlan(self.entry, self.replicas, self.partitions, args, outs, flags)
