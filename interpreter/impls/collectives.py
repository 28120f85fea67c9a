"""Distribution ops over a replica x partition process grid (spec.md "Distribution ops").

`interpreter.run_parallel` (impls/interpreter_ops.py) and a partitioned or replicated program
(`custom_calls/spmd.py`) run one thread per process; every process has its own `Evaluator` whose
`ProcessContext` points at the shared grid (`process_grid.py`).  Collectives call the grid's
exchanges: the processes of one process group, for one channel, each contribute their operands,
and every member computes its own result from the contributions in process-group order.  Outside
such a run the grid is 1 x 1.

Process groups follow the spec: `cross_replica`, `cross_partition`, `cross_replica_and_partition`
and `flattened_ids`, chosen from `channel_handle` and `use_global_device_ids`; `-1` entries of
`replica_groups` are padding and are skipped.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import TOKEN, ProcessContext
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.process_grid import (  # the grid's names, re-exported
    TIMEOUT,  # noqa: F401
    AbortedError,  # noqa: F401
    GridShape,
    ProcessGrid,
    ProcessGroup,
    ProcessId,
)
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.semantics.regions import tree_reduce

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.mesh import replica_groups_of_mesh_axes
from stablehlo_py.ir.ops.collectives import ReplicaGroupMeshAxesAttr


GRID_OPS = frozenset({
    "stablehlo.all_reduce", "stablehlo.cross-replica-sum", "stablehlo.collective_reduce",
    "stablehlo.all_gather", "stablehlo.reduce_scatter", "stablehlo.all_to_all",
    "stablehlo.collective_permute", "stablehlo.collective_broadcast",
    "stablehlo.replica_id", "stablehlo.partition_id",
})
"""The ops whose results depend on the other processes of the grid, or on which process runs
them (custom_calls/spmd.py runs a replicated program once per process when it has one)."""


def grid_of(ev: Any) -> GridShape:
    """The evaluator's process grid (a 1 x 1 grid outside a parallel run)."""
    process: ProcessContext = ev.process
    if process.grid is None:
        process.grid = ProcessGrid(
            process.num_replicas, process.num_partitions, list(process.infeed)
        )
    return process.grid


def _pid(ev: Any) -> ProcessId:
    return (ev.process.replica_id, ev.process.partition_id)


def _groups_attr(op: Any, name: str = "replica_groups") -> list[list[int]]:
    raw = op.properties.get(name)
    if isinstance(raw, ReplicaGroupMeshAxesAttr):  # the device groups of its mesh axes
        return replica_groups_of_mesh_axes(op, raw)
    return groups_of(A.get(op, name))


def groups_of(value: Any) -> list[list[int]]:
    """`replica_groups` / `source_target_pairs` given as a 2-d array (or nested lists): its rows,
    without the `-1` padding."""
    if value is None:
        return []
    arr = np.asarray(value, dtype=np.int64)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if arr.size else arr.reshape(0, 0)
    return [[int(x) for x in row if x != -1] for row in arr]


def _channel_id(op: Any) -> int:
    h = A.attr(op, "channel_handle")
    if h is None:
        return 0
    return int(A.field(h, "handle", 0))


@dataclass(frozen=True)
class Spec:
    """Who takes part in a collective: its `replica_groups` (or `source_target_pairs`) as written,
    its channel (0: none) and `use_global_device_ids`.  The ops read it from their attributes
    (`spec_of`); JAX's collective custom calls from their configs
    (`custom_calls/collectives.py`)."""

    groups: list[list[int]]
    channel_id: int = 0
    use_global: bool = False


def spec_of(op: Any, name: str = "replica_groups") -> Spec:
    return Spec(_groups_attr(op, name), _channel_id(op), A.bool_(op, "use_global_device_ids"))


def _all_if_empty(groups: list[list[int]], n: int) -> list[list[int]]:
    groups = [g for g in groups if g]
    return groups if groups else [list(range(n))]


def _reduce_groups(ev: Any, spec: Spec) -> list[ProcessGroup]:
    """Process groups of all_reduce / all_gather / reduce_scatter / collective_reduce."""
    grid = grid_of(ev)
    groups, channel_id = spec.groups, spec.channel_id
    if channel_id <= 0 and not spec.use_global:
        return grid.cross_replica(_all_if_empty(groups, grid.num_replicas))
    if channel_id > 0 and not spec.use_global:
        return grid.cross_replica_and_partition(_all_if_empty(groups, grid.num_replicas))
    return grid.flattened_ids(_all_if_empty(groups, grid.num_replicas * grid.num_partitions))


def _replica_or_partition_groups(ev: Any, spec: Spec) -> list[ProcessGroup]:
    """cross_replica when channel_id <= 0, else cross_partition (all_to_all, collective_broadcast,
    collective_permute's pairs, ragged_all_to_all)."""
    grid = grid_of(ev)
    if spec.channel_id <= 0:
        return grid.cross_replica(_all_if_empty(spec.groups, grid.num_replicas))
    return grid.cross_partition(_all_if_empty(spec.groups, grid.num_partitions))


def _my_group(groups: list[ProcessGroup], pid: ProcessId) -> ProcessGroup | None:
    for g in groups:
        if pid in g:
            return g
    return None


def _require_group(groups: list[ProcessGroup], pid: ProcessId, what: str) -> ProcessGroup:
    g = _my_group(groups, pid)
    if g is None:
        raise InterpreterError(
            f"'{what}': process (replica {pid[0]}, partition {pid[1]}) is in no process group"
        )
    return g


def _name(op: Any) -> str:
    """How errors name `op`: the op, or the custom call by its target."""
    target = op.properties.get("call_target_name")
    return op.name if target is None else f"custom_call @{target.data}"


def _exchange(ev: Any, spec: Spec, group: ProcessGroup, values: list[Any]) -> list[list[Any]]:
    """Rendezvous with `group`; the contributions in process-group order."""
    return grid_of(ev).exchange(group, spec.channel_id, _pid(ev), values)


def _combine(body: Any, dtype: Any, contributions: list[list[Any]]) -> list[np.ndarray]:
    """Reduce the group's contributions elementwise with the binary computation `body` (its
    arguments of element type `dtype`), in group order (a balanced tree over the processes,
    vectorized over elements).  With several operands it reduces each one separately."""
    out = []
    for i in range(len(contributions[0])):
        stacked = np.stack([np.asarray(c[i]) for c in contributions], axis=-1)
        (stacked,) = A.to_types([stacked], [dtype])
        (reduced,) = tree_reduce(body, [stacked])
        out.append(np.asarray(reduced))
    return out


def _typed(op: Any, values: list[np.ndarray]) -> list[np.ndarray]:
    out = []
    for i, v in enumerate(values):
        want = A.result_dtype(op, i)
        out.append(v if v.dtype == want else v.astype(want))
    return out


# ------------------------------------------------------------------ the collectives, by their parts
# (the ops below, and JAX's custom calls in custom_calls/collectives.py, call these)


def all_reduce(ev: Any, op: Any, spec: Spec, body: Any, dtype: Any, args: list[Any]) -> list[Any]:
    pid = _pid(ev)
    group = _require_group(_reduce_groups(ev, spec), pid, _name(op))
    combine = functools.partial(_combine, body, dtype)
    reduced = grid_of(ev).reduce(group, spec.channel_id, pid, list(args), combine)
    assert reduced is not None  # only a reduction to the root leaves a member without one
    return _typed(op, reduced)


def _check_dims(op: Any, args: list[Any], dims: dict[str, int], parts: int = 1) -> None:
    """Each of `dims` (name -> dimension) names a dimension of every operand, and the first one's
    size divides into `parts` (what the ops' verifiers check; JAX's custom calls have no
    verifier)."""
    for a in args:
        shape = np.shape(a)
        for name, d in dims.items():
            if not 0 <= d < len(shape):
                raise InterpreterError(
                    f"'{_name(op)}': {name} = {d} is not a dimension of the operand of shape "
                    f"{list(shape)}"
                )
        first, d = next(iter(dims.items()))
        if shape[d] % parts:
            raise InterpreterError(
                f"'{_name(op)}': dimension {first} = {d} of the operand of shape {list(shape)} "
                f"does not split into {parts} equal parts"
            )


def all_gather(ev: Any, op: Any, spec: Spec, dim: int, args: list[Any]) -> list[Any]:
    _check_dims(op, args, {"all_gather_dimension": dim})
    group = _require_group(_reduce_groups(ev, spec), _pid(ev), _name(op))
    contributions = _exchange(ev, spec, group, list(args))
    return [
        np.concatenate([np.asarray(c[i]) for c in contributions], axis=dim)
        for i in range(len(args))
    ]


def reduce_scatter(
    ev: Any, op: Any, spec: Spec, body: Any, dtype: Any, dim: int, args: list[Any]
) -> list[Any]:
    pid = _pid(ev)
    group = _require_group(_reduce_groups(ev, spec), pid, _name(op))
    _check_dims(op, args, {"scatter_dimension": dim}, len(group))
    combine = functools.partial(_combine, body, dtype)
    parts = grid_of(ev).reduce(group, spec.channel_id, pid, list(args), combine, scatter_dim=dim)
    assert parts is not None
    return _typed(op, parts)


def all_to_all(
    ev: Any, op: Any, spec: Spec, split_dim: int, concat_dim: int, split_count: int,
    args: list[Any],
) -> list[Any]:
    pid = _pid(ev)
    group = _require_group(_replica_or_partition_groups(ev, spec), pid, _name(op))
    if split_count != len(group):
        raise InterpreterError(
            f"'{_name(op)}': split_count = {split_count} must equal the size of the process "
            f"group {list(group)}"
        )
    dims = {"split_dimension": split_dim, "concat_dimension": concat_dim}
    _check_dims(op, args, dims, split_count)
    pieces = [np.split(np.asarray(a), split_count, axis=split_dim) for a in args]
    received = grid_of(ev).all_to_all(group, spec.channel_id, pid, pieces)
    return [np.concatenate(r, axis=concat_dim) for r in received]


def collective_permute(ev: Any, spec: Spec, args: list[Any]) -> list[Any]:
    """Each (source, target) pair of `spec.groups` is a group of two; the target receives the
    source's operand, a process that is no pair's target receives zeros."""
    if any(len(pair) != 2 for pair in spec.groups):
        raise InterpreterError(
            f"collective_permute: source_target_pairs must be pairs, got {spec.groups}"
        )
    pid = _pid(ev)
    pairs = _replica_or_partition_groups(ev, spec)
    result = grid_of(ev).permute(pairs, spec.channel_id, pid, list(args))
    if result is None:
        return [np.zeros(np.shape(a), np.asarray(a).dtype) for a in args]
    return list(result)


RAGGED_OPERANDS = (
    "operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes"
)


def ragged_all_to_all(ev: Any, op: Any, spec: Spec, args: list[Any]) -> list[Any]:
    """XLA's RaggedAllToAll (`jax.lax.ragged_all_to_all`).  In a group of n processes, the four
    metadata operands hold n * k entries each (k updates per peer; rank 1, as JAX writes them:
    XLA's verifier also admits rank 2, a form of its own passes, not read here).  Process s sends,
    for peer j and update u (entry e = j * k + u of its metadata), the rows
    `operand[input_offsets[e] : input_offsets[e] + send_sizes[e]]` (along dimension 0) to process
    j, which writes them into its result at rows `output_offsets[e] ...` (the sender's offsets).
    The result is the process's `output` operand with every received piece written in.  A
    receiver's `recv_sizes[s * k + u]` must equal what s sends it (XLA leaves a mismatch
    undefined; here it is an error), and every piece must lie inside `operand` and `output`.
    Groups as all_to_all's: cross_partition with a channel, else cross_replica."""
    what = _name(op)
    if len(args) != len(RAGGED_OPERANDS):
        raise InterpreterError(
            f"{what} takes {len(RAGGED_OPERANDS)} operands ({', '.join(RAGGED_OPERANDS)}), "
            f"got {len(args)}"
        )
    operand, output = np.asarray(args[0]), np.asarray(args[1])
    meta = [np.asarray(m) for m in args[2:]]
    if operand.ndim == 0 or operand.shape[1:] != output.shape[1:] or operand.dtype != output.dtype:
        raise InterpreterError(
            f"{what}: operand {operand.dtype}{list(operand.shape)} and output "
            f"{output.dtype}{list(output.shape)} must have one element type and the same shape "
            "after dimension 0 (the ragged dimension)"
        )
    if any(m.shape != meta[0].shape or m.ndim != 1 or m.dtype.kind not in "iu" for m in meta):
        raise InterpreterError(
            f"{what}: input_offsets, send_sizes, output_offsets and recv_sizes must be 1-d integer "
            "tensors of one shape, got "
            + ", ".join(f"{m.dtype}{list(m.shape)}" for m in meta)
        )
    pid = _pid(ev)
    group = _require_group(_replica_or_partition_groups(ev, spec), pid, what)
    n = len(group)
    input_offsets, send_sizes, output_offsets, recv_sizes = (m.astype(np.int64) for m in meta)
    if input_offsets.size % n:
        raise InterpreterError(
            f"{what}: the metadata operands have {input_offsets.size} entries, not a multiple of "
            f"the {n} processes of the group {list(group)}"
        )
    k = input_offsets.size // n
    _check_pieces(what, "operand", input_offsets, send_sizes, operand.shape[0], "input_offsets")
    contributions = _exchange(ev, spec, group, [operand, input_offsets, send_sizes, output_offsets])
    me = group.index(pid)
    result = output.copy()
    for s, (data, offsets, sizes, targets) in enumerate(contributions):
        mine = slice(me * k, (me + 1) * k)  # the sender's entries for this process
        expected = recv_sizes[s * k : (s + 1) * k]
        if not np.array_equal(sizes[mine], expected):
            raise InterpreterError(
                f"{what}: process {group[s]} sends {sizes[mine].tolist()} rows to process {pid}, "
                f"whose recv_sizes say {expected.tolist()} (send_sizes and recv_sizes must agree: "
                "send_sizes == all_to_all(recv_sizes))"
            )
        _check_pieces(what, "output", targets[mine], sizes[mine], result.shape[0], "output_offsets")
        for start, size, at in zip(offsets[mine], sizes[mine], targets[mine]):
            result[at : at + size] = data[start : start + size]
    return [result]


def _check_pieces(
    what: str, buffer: str, starts: np.ndarray, sizes: np.ndarray, rows: int, offsets: str
) -> None:
    bad = (sizes < 0) | ((sizes > 0) & ((starts < 0) | (starts + sizes > rows)))
    if bad.any():
        e = int(np.argmax(bad))
        raise InterpreterError(
            f"{what}: entry {e} ({offsets} {int(starts[e])}, size {int(sizes[e])}) reaches outside "
            f"the {rows} rows of {buffer}"
        )


def _region_reducer(ev: Any, op: Any, env: dict) -> tuple[Any, Any]:
    """The op's computation region as a vectorized body, and its arguments' element type."""
    region = op.regions[0]
    return ev.region_body(region, env), A.region_arg_dtypes(region)[-1]


@impl("stablehlo.all_reduce")
def _all_reduce(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return all_reduce(ev, op, spec_of(op), *_region_reducer(ev, op, env), args)


@impl("stablehlo.cross-replica-sum")
def _cross_replica_sum(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Deprecated: an all_reduce with an add body over cross_replica(replica_groups)."""
    from stablehlo_py.semantics.regions import ADD

    def add(contributions: list[list[Any]]) -> list[Any]:
        stacked = np.stack([np.asarray(c[0]) for c in contributions], axis=-1)
        (reduced,) = tree_reduce(ADD, [stacked])
        return [np.asarray(reduced)]

    spec = Spec(_groups_attr(op))  # no channel: cross_replica
    pid = _pid(ev)
    group = _require_group(_reduce_groups(ev, spec), pid, _name(op))
    reduced = grid_of(ev).reduce(group, spec.channel_id, pid, list(args), add)
    assert reduced is not None
    return reduced


@impl("stablehlo.collective_reduce")
def _collective_reduce(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Like all_reduce, but only the group's first process (its root) receives the reduction;
    the others receive zeros."""
    pid = _pid(ev)
    spec = spec_of(op)
    group = _require_group(_reduce_groups(ev, spec), pid, _name(op))

    def combine(contributions: list[list[Any]]) -> list[Any]:
        return _combine(*_region_reducer(ev, op, env), contributions)

    reduced = grid_of(ev).reduce(group, spec.channel_id, pid, list(args), combine, to_root=True)
    if reduced is None:
        return [np.zeros(np.shape(a), A.result_dtype(op, i)) for i, a in enumerate(args)]
    return _typed(op, reduced)


@impl("stablehlo.all_gather")
def _all_gather(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return all_gather(ev, op, spec_of(op), A.int_(op, "all_gather_dim"), args)


@impl("stablehlo.reduce_scatter")
def _reduce_scatter(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    body, dtype = _region_reducer(ev, op, env)
    dim = A.int_(op, "scatter_dimension")
    return reduce_scatter(ev, op, spec_of(op), body, dtype, dim, args)


@impl("stablehlo.all_to_all")
def _all_to_all(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    dims = [A.int_(op, k) for k in ("split_dimension", "concat_dimension", "split_count")]
    return all_to_all(ev, op, spec_of(op), *dims, args)


@impl("stablehlo.collective_permute")
def _collective_permute(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return collective_permute(ev, spec_of(op, "source_target_pairs"), args)


@impl("stablehlo.collective_broadcast")
def _collective_broadcast(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Every process of a group receives the operands of the group's root: its first process, or
    with `has_dynamic_root` the process at index `root[k]` of the group for operand k.  A
    process in no group receives zeros."""
    pid = _pid(ev)
    dynamic = A.bool_(op, "has_dynamic_root")
    data = list(args[:-1]) if dynamic else list(args)
    spec = spec_of(op)
    group = _my_group(_replica_or_partition_groups(ev, spec), pid)
    if group is None:
        return [np.zeros(np.shape(a), np.asarray(a).dtype) for a in data]
    roots = [0] * len(data)
    if dynamic:
        roots = _dynamic_roots(np.asarray(args[-1]), len(data), group)
    return grid_of(ev).broadcast(group, spec.channel_id, pid, data, roots)


def _dynamic_roots(root: np.ndarray, n: int, group: ProcessGroup) -> list[int]:
    """collective_broadcast's `root` operand: per operand (or one for all) the index in the
    group of the process whose value everyone receives."""
    roots = [int(r) for r in root.reshape(-1)]
    if len(roots) == 1:
        roots = roots * n
    if len(roots) != n:
        raise InterpreterError(
            f"stablehlo.collective_broadcast: the root operand holds {len(roots)} roots for "
            f"{n} operands (give one, or one per operand)"
        )
    for r in roots:
        if not 0 <= r < len(group):
            raise InterpreterError(
                f"stablehlo.collective_broadcast: root {r} is not an index into the process "
                f"group {list(group)} (collective_broadcast_c6)"
            )
    return roots


@impl("stablehlo.replica_id")
def _replica_id(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [np.array(ev.process.replica_id, dtype=A.result_dtype(op))]


@impl("stablehlo.partition_id")
def _partition_id(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [np.array(ev.process.partition_id, dtype=A.result_dtype(op))]


@impl("stablehlo.after_all")
def _after_all(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [TOKEN]


@impl("stablehlo.create_token")
def _create_token(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [TOKEN]


@impl("stablehlo.infeed")
def _infeed(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Takes the next entry of the infeed queue: a function name (as `run_parallel`'s `infeed`
    attribute gives them; the function is called and its results are the values) or a list of
    values (`ProcessContext.infeed` given by an API user)."""
    entry = grid_of(ev).infeed()
    if isinstance(entry, str):
        values = ev.call(entry, [])
    else:
        values = list(entry) if isinstance(entry, list | tuple) else [entry]
    n = len(op.results) - 1
    if len(values) != n:
        raise InterpreterError(
            f"infeed: the queue entry has {len(values)} values, the op expects {n}"
        )
    return [*values, TOKEN]


@impl("stablehlo.outfeed")
def _outfeed(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    values = list(args[:-1])
    grid_of(ev).add_outfeed(_pid(ev), values)
    ev.process.outfeed.append(values)
    return [TOKEN]


@impl("stablehlo.send")
def _send(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    grid_of(ev).send(_channel_id(op), list(args[:-1]))
    return [TOKEN]


@impl("stablehlo.recv")
def _recv(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    values = grid_of(ev).recv(_channel_id(op))
    n = len(op.results) - 1
    if len(values) != n:
        raise InterpreterError(f"recv: received {len(values)} values, the op expects {n}")
    return [*values, TOKEN]
