"""Per-process inputs and outputs of a partitioned run (docs/plans/issue-29-mpi.md §3.4, §3.5).

Under a shard plan (``interpreter.shard_plan``) a process of an MPI run holds only its own tile of a
tile-fed argument and of a tile-kept result.  This module reads and writes just those parts; it is
engine-independent (the threaded engine's processes use it too, one after another).

**Arguments** (:func:`process_arguments`): the inputs as ``stablehlo_py.io.args`` reads them (a
``.npy`` file or a stored ``.npz`` member is a read-only memory map), each sliced by the process's
tile *before* it is read: a view of the map, so only the pages of the tile are read (a tile along
the leading dimension is one contiguous range; other tiles are strided views).  The Python API may
also give anything with ``.shape`` and slicing (``np.memmap``, h5py, zarr: sliced, then
``np.asarray``) or a :class:`~stablehlo_py.interpreter.tiles.Tile` when the process already holds
its own piece.  Replicated tiles (several processes holding the same part) are read by each.  A
compressed ``.npz`` member cannot be mapped, so every process reads it whole:
:func:`compressed_notice` says so in one line.

**Results into a directory** (``--output=DIR/``, ``results.py``'s layout): phase 1,
``results.create_result_dir``, on one process (rank 0) creates every ``result<k>.npy`` at its full
size; then (after a barrier, under MPI) phase 2, :func:`write_result_tiles`, on every process
writes the parts it owns (``Decision.writes``: of the processes holding equal parts, the lowest
rank; a whole result by rank 0); then a barrier before anyone reads the files.  In-process (the
threaded engine) both phases run in the one process: :func:`save_process_results_dir`.  Every
process must see the same file system (a cluster's shared one).

**Results into an ``.npz``**: rank 0 writes the archive member by member
(``results.write_results_npz``), a result whose tiles follow each other in C order
(:func:`stream_order`: tiled along the leading dimension only, or held whole by process 0) tile
by tile as it receives them (peak: one tile), any other result gathered whole first.  In-process:
:func:`save_process_results_npz`.
"""

from __future__ import annotations

import mmap
import os
import zipfile
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from stablehlo_py.interpreter.tiles import Tile, index_text, tiles_of
from stablehlo_py.io.errors import InputError, OutputError
from stablehlo_py.io.results import (
    ResultSpec,
    create_result_dir,
    open_result_file,
    write_part,
    write_results_npz,
)

if TYPE_CHECKING:
    from stablehlo_py.interpreter.shard_plan import Decision, ShardPlan

__all__ = [
    "Tile",
    "compressed_members",
    "compressed_notice",
    "input_archive",
    "is_mapped",
    "process_arguments",
    "result_specs",
    "save_process_results_dir",
    "save_process_results_npz",
    "stream_order",
    "tiles_of",
    "write_result_tiles",
]

COMPRESSED_FIX = "use np.savez, not savez_compressed, or .npy files"


# ------------------------------------------------------------------------------------ arguments
def is_mapped(value: Any) -> bool:
    """Whether ``value`` is (a view of) a memory-mapped file."""
    seen = 0
    while value is not None and seen < 64:
        if isinstance(value, (np.memmap, mmap.mmap)):
            return True
        value = getattr(value, "base", None)
        seen += 1
    return False


def _shape(value: Any) -> tuple[int, ...]:
    shape = getattr(value, "shape", None)
    return tuple(int(d) for d in (np.shape(value) if shape is None else shape))


def process_arguments(
    args: Sequence[Any], plan: ShardPlan | None, replica: int, partition: int
) -> list[Any]:
    """What process (replica, partition) is given of the entry's global ``args`` under ``plan``
    (module doc): its tile of each tile-fed argument, sliced before it is read (a view of a
    memory map), or the piece it was given as a ``Tile`` (checked to be that tile); every other
    argument as it is.  Without a plan every argument is whole."""
    if plan is None:
        for k, a in enumerate(args):
            if isinstance(a, Tile):
                raise InputError(
                    f"argument {k} is given as a Tile, but this run holds every argument whole "
                    "(no shard plan): give the whole array"
                )
        return list(args)
    if not (0 <= replica < plan.num_replicas and 0 <= partition < plan.num_partitions):
        raise InputError(
            f"process (replica {replica}, partition {partition}) is outside the "
            f"{plan.num_replicas} x {plan.num_partitions} grid of the shard plan"
        )
    if len(args) != len(plan.args):
        raise InputError(
            f"@{plan.entry} takes {len(plan.args)} arguments, {len(args)} were given"
        )
    out = []
    for k, (a, d) in enumerate(zip(args, plan.args)):
        index = d.index(replica, partition)
        if index is None:
            if isinstance(a, Tile):
                raise InputError(
                    f"argument {k} is given as a Tile, but every process needs all of it "
                    f"({d.reason}): give the whole array"
                )
            out.append(a if isinstance(a, (np.ndarray, np.generic)) else np.asarray(a))
            continue
        tiling = d.tiling
        assert tiling is not None
        if isinstance(a, Tile):
            out.append(_own_tile(k, a, tiling.shape, index, replica, partition))
            continue
        if not hasattr(a, "__getitem__") or not hasattr(a, "shape"):
            a = np.asarray(a)
        if _shape(a) != tiling.shape:
            raise InputError(
                f"argument {k} has shape {list(_shape(a))}, but @{plan.entry}'s parameter {k} is "
                f"{list(tiling.shape)}"
            )
        out.append(np.asarray(a[index]))
    return out


def _own_tile(
    k: int, tile: Tile, shape: tuple[int, ...], index: tuple[slice, ...], replica: int,
    partition: int,
) -> Any:
    if tile.global_shape != shape or tile.index != index:
        raise InputError(
            f"argument {k} is given as {tile!r}, but process (replica {replica}, partition "
            f"{partition}) holds {index_text(index)} of {list(shape)}"
        )
    return np.asarray(tile.data)


def compressed_members(path: str | os.PathLike[str]) -> list[str]:
    """The members of the ``.npz`` archive at ``path`` that are stored compressed (names without
    ``.npy``); [] for a file that is no zip archive (its reader says so)."""
    try:
        with zipfile.ZipFile(os.fspath(path)) as z:
            infos = z.infolist()
    except (OSError, zipfile.BadZipFile):
        return []
    return [
        i.filename[: -len(".npy")] if i.filename.endswith(".npy") else i.filename
        for i in infos
        if not i.is_dir() and i.compress_type != zipfile.ZIP_STORED
    ]


def input_archive(args_text: str | None, inputs: str | None) -> str | None:
    """The ``.npz`` archive ``--inputs`` or ``--args=@run.npz`` reads the arguments from, if any."""
    if inputs is not None:
        return inputs if inputs.endswith(".npz") else None
    if args_text is not None:
        text = args_text.strip()
        if text.startswith("@") and text.endswith(".npz") and "," not in text:
            return text[1:]
    return None


def compressed_notice(path: str | os.PathLike[str] | None, plan: ShardPlan | None) -> str | None:
    """The one-line notice when arguments come from compressed members of the archive at
    ``path`` while the plan gives processes tiles: those members cannot be memory-mapped, so
    every process reads them whole.  None when there is nothing to say."""
    if path is None or plan is None or all(d.tiling is None for d in plan.args):
        return None
    members = compressed_members(path)
    if not members:
        return None
    listed = ", ".join(members[:4]) + (f" and {len(members) - 4} more" if len(members) > 4 else "")
    them = "it" if len(members) == 1 else "them"
    return (
        f"note: {os.fspath(path)} stores {listed} compressed, which cannot be memory-mapped: "
        f"every process reads {them} whole; {COMPRESSED_FIX}"
    )


# -------------------------------------------------------------------------------------- results
def result_specs(results: Sequence[Any], plan: ShardPlan | None = None) -> list[ResultSpec]:
    """Every result's dtype and global shape, from one process's results under ``plan`` (a
    tile-kept result's global shape is the plan's; the others are held whole)."""
    if plan is not None and len(results) != len(plan.results):
        raise OutputError(
            f"the shard plan has {len(plan.results)} results, the process gave {len(results)}"
        )
    specs = []
    for k, r in enumerate(results):
        value = np.asarray(r)
        tiling = None if plan is None else plan.results[k].tiling
        shape = value.shape if tiling is None else tiling.shape
        specs.append(ResultSpec(value.dtype, tuple(shape)))
    return specs


def _decisions(plan: ShardPlan | None, n: int) -> Sequence[Decision | None]:
    return [None] * n if plan is None else plan.results


def write_result_tiles(
    directory: str | os.PathLike[str],
    specs: Sequence[ResultSpec],
    results: Sequence[Any],
    plan: ShardPlan | None,
    replica: int,
    partition: int,
) -> int:
    """Phase 2 of writing results into a directory (module doc), on process (replica,
    partition): write each part of ``results`` (this process's) that it owns into the files
    phase 1 created.  Without a plan, results are whole and process (0, 0) writes them.
    Returns the bytes written."""
    if len(results) != len(specs):
        raise OutputError(f"{len(specs)} results were created, the process gave {len(results)}")
    written = 0
    for k, (spec, r, d) in enumerate(zip(specs, results, _decisions(plan, len(specs)))):
        if d is None or d.tiling is None:
            if (replica, partition) != (0, 0):
                continue
            index = tuple(slice(0, n) for n in spec.shape)
            value = r
        else:
            if not d.writes(replica, partition):
                continue
            index = d.tiling.index(partition)
            value = d.tiling.crop(np.asarray(r), partition)
        path, offset = open_result_file(directory, k, spec)
        written += write_part(path, offset, spec, index, value)
    return written


def stream_order(decision: Decision | None, num_partitions: int) -> list[int] | None:
    """The partitions (of replica 0) whose parts of a result, one after another, are its elements
    in C order: [0] for a whole result (or one every process holds all of), the writers in order
    of their rows for a result tiled along its leading dimension only; None when it is tiled
    otherwise (gather it).  Empty parts are left out."""
    if decision is None or decision.tiling is None:
        return [0]
    t = decision.tiling
    writers = [p for p in range(num_partitions) if t.writer(p) == p]
    rest = tuple((0, n) for n in t.shape[1:])
    if not t.shape or any(t.bounds[p][1:] != rest for p in writers):
        return [0] if len(writers) == 1 and t.replicated else None
    parts = sorted((t.bounds[p][0], p) for p in writers if t.bounds[p][0][1] > t.bounds[p][0][0])
    at = 0
    for (start, stop), _ in parts:
        if start != at:
            return None
        at = stop
    return [p for _, p in parts] if at == t.shape[0] else None


def _by_rank(per_process: Sequence[Sequence[Any]], plan: ShardPlan | None) -> int:
    processes = 1 if plan is None else plan.num_replicas * plan.num_partitions
    if len(per_process) != processes:
        raise OutputError(
            f"writing results needs those of all {processes} processes, got {len(per_process)}"
        )
    return 1 if plan is None else plan.num_partitions


def save_process_results_dir(
    directory: str | os.PathLike[str],
    per_process: Sequence[Sequence[Any]],
    plan: ShardPlan | None,
    names: Sequence[str | None] | None = None,
) -> list[str]:
    """In-process (threads): write the results of every process (by rank) into ``directory``,
    phase 1 then phase 2 for each process in rank order.  Returns the result files."""
    partitions = _by_rank(per_process, plan)
    specs = result_specs(per_process[0], plan)
    paths = create_result_dir(directory, specs, names)
    for rank, results in enumerate(per_process):
        replica, partition = divmod(rank, partitions)
        write_result_tiles(directory, specs, results, plan, replica, partition)
    return paths


def save_process_results_npz(
    path: str | os.PathLike[str],
    per_process: Sequence[Sequence[Any]],
    plan: ShardPlan | None,
    names: Sequence[str | None] | None = None,
) -> None:
    """In-process (threads): write the results of every process (by rank) to an ``.npz``, as an
    MPI run's rank 0 does: tile by tile where :func:`stream_order` allows, else assembled whole."""
    partitions = _by_rank(per_process, plan)
    specs = result_specs(per_process[0], plan)
    decisions = _decisions(plan, len(specs))

    def parts_of(k: int) -> Iterator[Any]:
        d = decisions[k]
        order = stream_order(d, partitions)
        if order is None:
            assert d is not None and d.tiling is not None
            t = d.tiling
            full = np.zeros(t.shape, specs[k].dtype)
            for p in range(partitions):
                if t.writer(p) == p:
                    full[t.index(p)] = t.crop(np.asarray(per_process[p][k]), p)
            yield full
            return
        for p in order:
            value = np.asarray(per_process[p][k])
            yield value if d is None or d.tiling is None else d.tiling.crop(value, p)

    write_results_npz(path, specs, parts_of, names)
