"""The MPI grid's fast paths (interpreter/mpi/fast_paths.py) against its generic path: the cases,
and the rank program of tests/mpi/test_fast_paths.py.

``python -m tests.mpi.fast_path_cases OUT GRID`` under ``mpirun -n R*N`` (GRID "2x2" or "1x8",
tests/mpi/collective_cases.py's grids): rank k runs process divmod(k, N) of:

- every *exchange case* below (`grid.reduce`, `all_to_all`, `broadcast`, `permute` called
  directly with each rank's data: a non-associative, non-commutative combine ``a - 2*b``, NaN
  payloads, -0.0, infinities, bf16, complex64, int32 overflow, bool; element counts that do not
  divide by the group, empty and 0-d values; groups that are subsets of the world in scrambled
  order; pieces of other shapes per member; a 48-byte chunk and 64-byte combine blocks), once
  with the fast paths forced (mode "always") and once without ("never"), on one grid each,
  writing ``OUT/<mode>/<case>/rank<k>.json`` (results as `fingerprint`s) and the bytes received;
- the collective *programs* of tests/mpi/collective_cases.py that reduce, scatter, permute or
  broadcast, in both modes (the module switch `fast_paths.MODE`), writing
  ``OUT/programs/<mode>/<case>/rank<k>.npz``;
- the *figures*: bytes received per rank for 1 MiB values in both modes, and the peak extra
  allocation (tracemalloc) of an all_reduce of a 4 MiB f32 operand in both modes
  (``OUT/figures<k>.json``);
- the *checks*: members at different exchanges on one group get an error; a permute's late
  source and abort flag (``OUT/checks<k>.json``).

The exchange cases run in-process too (:func:`threaded`, on the threaded `ProcessGrid`, whose
exchanges are the generic defaults): the test compares all three.
"""

from __future__ import annotations

import gc
import hashlib
import json
import sys
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.impls.process_grid import GridShape, ProcessGrid, ProcessId
from stablehlo_py.ir import parse
from stablehlo_py.semantics.regions import make_body, tree_reduce
from tests.mpi import collective_cases as C

MODES = ("always", "never")
#: the collective_cases programs run in both modes (names starting so)
PROGRAMS = ("all_reduce", "reduce_scatter", "collective_reduce", "all_to_all",
            "collective_permute", "collective_broadcast", "sdy_", "gspmd_")

# ---------------------------------------------------------------------------------- the combine


def _sub2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - 2*b (bool: a and not b): neither associative nor commutative."""
    if a.dtype == np.bool_:
        return a & ~b
    with np.errstate(all="ignore"):
        return a - 2 * b


SUB2 = make_body(lambda a, b: (_sub2(a, b),))


def sub2(contributions: list[list[Any]]) -> list[Any]:
    """The group's contributions (group order) reduced per value with a balanced tree of
    ``a - 2*b``, as the interpreter's all_reduce reduces them."""
    out = []
    for i in range(len(contributions[0])):
        stacked = np.stack([np.asarray(c[i]) for c in contributions], axis=-1)
        (reduced,) = tree_reduce(SUB2, [stacked])
        out.append(np.asarray(reduced))
    return out


# ------------------------------------------------------------------------------------ the cases


def _rng(name: str, rank: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(name.encode()), rank, 29])


def _groups(grid: GridShape, kind: str) -> list[tuple[ProcessId, ...]]:
    """The world in scrambled order ("all"), two scrambled halves ("halves"), or three ranks of
    it ("three", the others in no group)."""
    p = grid.num_processes
    order = C._scramble(p)
    ranks = {"all": [order], "halves": [order[: p // 2], order[p // 2 :]],
             "three": [[p - 1, 0, 2]]}[kind]
    return [tuple(grid.pid_of(r) for r in g) for g in ranks]


def _my_group(grid: GridShape, kind: str, pid: ProcessId) -> tuple[ProcessId, ...] | None:
    return next((g for g in _groups(grid, kind) if pid in g), None)


@dataclass(frozen=True)
class Case:
    """`run(grid, pid, rng)`: what process `pid` gets from the exchange (None: takes no part);
    `chunk`: the grid's most bytes per MPI call; `block`: fast_paths.COMBINE_BLOCK_BYTES."""

    name: str
    run: Callable[[GridShape, ProcessId, np.random.Generator], Any]
    chunk: int | None = None
    block: int | None = None


def _values(rng: np.random.Generator, *inputs: tuple[str, tuple[int, ...]]) -> list[np.ndarray]:
    return [C.data(kind, shape, rng) for kind, shape in inputs]


def _reduce(groups: str, inputs: list[tuple[str, tuple[int, ...]]], channel: int,
            **kwargs: Any) -> Callable[..., Any]:
    def run(grid: GridShape, pid: ProcessId, rng: np.random.Generator) -> Any:
        group = _my_group(grid, groups, pid)
        if group is None:
            return None
        values = _values(rng, *inputs)
        return grid.reduce(group, channel, pid, values, sub2, **kwargs)

    return run


UNEVEN = [("f32", (1001,)), ("f32", (3, 7)), ("f32", ()), ("f32", (0, 4))]
MIXED = [("bf16", (13,)), ("complex<f32>", (5, 3)), ("i32", (17,)), ("i1", (11,))]


def _all_to_all(groups: str, channel: int, ragged: bool = False) -> Callable[..., Any]:
    def run(grid: GridShape, pid: ProcessId, rng: np.random.Generator) -> Any:
        group = _my_group(grid, groups, pid)
        if group is None:
            return None
        n, me = len(group), group.index(pid)
        if ragged:  # member me's piece for member j: (me + j) elements (other shapes per member)
            pieces = [[C.data("f32", (me + j,), rng) for j in range(n)],
                      [C.data("i32", (2, j), rng) for j in range(n)]]
        else:  # split along dimension 1 (pieces that are not contiguous) and 0
            a, b = _values(rng, ("f32", (3, 2 * n)), ("bf16", (n, 2)))
            pieces = [np.split(a, n, axis=1), np.split(b, n, axis=0)]
        return grid.all_to_all(group, channel, pid, pieces)

    return run


def _broadcast(groups: str, channel: int, roots: Callable[[int, int], list[int]]
               ) -> Callable[..., Any]:
    def run(grid: GridShape, pid: ProcessId, rng: np.random.Generator) -> Any:
        group = _my_group(grid, groups, pid)
        if group is None:
            return None
        values = _values(rng, ("f32", (5,)), ("complex<f32>", (2, 2)), ("i32", ()),
                         ("bf16", (0,)))
        return grid.broadcast(group, channel, pid, values, roots(len(group), group.index(pid)))

    return run


def _permute(pairs: Callable[[int], list[list[int]]], channel: int) -> Callable[..., Any]:
    def run(grid: GridShape, pid: ProcessId, rng: np.random.Generator) -> Any:
        ranks = pairs(grid.num_processes)
        as_pids = [tuple(grid.pid_of(r) for r in pair) for pair in ranks]
        values = _values(rng, ("f32", (2, 3)), ("complex<f32>", (3,)), ("i1", ()),
                         ("bf16", (0, 2)))
        return grid.permute(as_pids, channel, pid, values)

    return run


def cases() -> list[Case]:
    return [
        Case("reduce_uneven_0d_empty", _reduce("all", UNEVEN, 1)),
        Case("reduce_bf16_c64_i32_bool", _reduce("all", MIXED, 2)),
        Case("reduce_halves", _reduce("halves", UNEVEN[:2], 3)),
        Case("reduce_three", _reduce("three", MIXED[:3], 4)),
        Case("reduce_chunks_blocks", _reduce("all", UNEVEN + MIXED, 5), chunk=48, block=64),
        Case("reduce_scatter_dim0", _reduce("all", [("f32", (16, 3)), ("i32", (8,))], 6,
                                            scatter_dim=0)),
        Case("reduce_scatter_dim1", _reduce("halves", [("f32", (3, 8, 2)), ("bf16", (1, 4))],
                                            7, scatter_dim=1)),
        Case("reduce_scatter_chunks", _reduce("all", [("complex<f32>", (2, 8, 3))], 8,
                                              scatter_dim=1), chunk=48, block=32),
        Case("reduce_to_root", _reduce("all", UNEVEN, 9, to_root=True)),
        Case("reduce_to_root_three", _reduce("three", MIXED, 10, to_root=True), chunk=48),
        Case("reduce_to_root_scatter", _reduce("halves", [("f32", (4, 6))], 11, to_root=True,
                                               scatter_dim=0)),
        Case("all_to_all", _all_to_all("all", 12)),
        Case("all_to_all_three", _all_to_all("three", 13)),
        Case("all_to_all_ragged", _all_to_all("halves", 14, ragged=True)),
        Case("all_to_all_chunks", _all_to_all("all", 15), chunk=48),
        Case("broadcast_roots", _broadcast("all", 16, lambda n, me: [0, n - 1, 1, 2 % n])),
        Case("broadcast_three", _broadcast("three", 17, lambda n, me: [2, 0, 1, 0]),
             chunk=48),
        # roots that differ between members: the fast path does not apply (generic bits)
        Case("broadcast_roots_differ", _broadcast("halves", 18, lambda n, me: [me, 0, 1, 1])),
        Case("permute_ring", _permute(lambda p: [[k, (k + 3) % p] for k in range(p)], 19)),
        Case("permute_partial_self", _permute(lambda p: [[0, 2], [2, 1], [3, 3]], 20)),
        Case("permute_chunks", _permute(lambda p: [[k, (k + 1) % p] for k in range(p)], 0),
             chunk=48),
    ]


# ----------------------------------------------------------------------------------- running


def fingerprint(result: Any) -> Any:
    """A case's result as JSON data: equal iff the bits (dtypes, shapes, bytes) are."""
    if result is None:
        return None
    if isinstance(result, list | tuple):
        return [fingerprint(r) for r in result]
    return C.fingerprint([result])[0]


def threaded(case: Case, grid_name: str) -> list[Any]:
    """Every process's result of `case` on the threaded grid (the generic defaults), by rank."""
    replicas, partitions = C.GRIDS[grid_name]
    grid = ProcessGrid(replicas, partitions)
    ranks = range(grid.num_processes)
    results = grid.run_processes([
        lambda k=k: case.run(grid, grid.pid_of(k), _rng(case.name, k)) for k in ranks
    ])
    return [fingerprint(r) for r in results]


DEFAULT_BLOCK = 4 << 20  # fast_paths.COMBINE_BLOCK_BYTES


def _set_block(block: int | None) -> None:
    from stablehlo_py.interpreter.mpi import fast_paths

    fast_paths.COMBINE_BLOCK_BYTES = block or DEFAULT_BLOCK


def _run_cases(grid_name: str, rank: int, out: Path) -> None:
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = C.GRIDS[grid_name]
    for mode in MODES:
        for case in cases():
            _set_block(case.block)
            chunk = {} if case.chunk is None else {"chunk": case.chunk}
            grid = MpiGrid(replicas, partitions, timeout=60, fast_paths=mode, **chunk)
            try:
                t = time.monotonic()
                result = case.run(grid, grid.pid, _rng(case.name, rank))
                seconds = time.monotonic() - t
            finally:
                grid.close()
            where = out / mode / case.name
            where.mkdir(parents=True, exist_ok=True)
            (where / f"rank{rank}.json").write_text(json.dumps({
                "result": fingerprint(result), "traffic": dict(grid.traffic),
                "seconds": seconds,
            }))
    _set_block(None)


def _run_programs(grid_name: str, rank: int, out: Path) -> None:
    from stablehlo_py.interpreter.mpi import fast_paths
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = C.GRIDS[grid_name]
    for mode in MODES:
        fast_paths.MODE = mode  # the module switch: every grid of this rank
        try:
            for case in C.cases(grid_name):
                if not case.name.startswith(PROGRAMS):
                    continue
                chunk = {} if case.chunk is None else {"chunk": case.chunk}
                grid = MpiGrid(replicas, partitions, broker=C.LocalBroker(case.infeed),
                               timeout=60, **chunk)
                try:
                    results = C.run_process(Evaluator(parse(case.text)), case, grid, rank,
                                            failures=grid.failures, print_sink=grid.add_print)
                finally:
                    grid.close()
                where = out / "programs" / mode / case.name
                where.mkdir(parents=True, exist_ok=True)
                C.save_values(where / f"rank{rank}.npz", list(results))
                (where / f"traffic{rank}.json").write_text(json.dumps(dict(grid.traffic)))
        finally:
            fast_paths.MODE = "auto"


#: sizes of the figures: bytes per value, the all_reduce operand of the memory check
MIB = 1 << 20
MEMORY_ELEMENTS = 1 << 20  # f32: 4 MiB


def _figures(grid_name: str, rank: int) -> dict[str, Any]:
    """Bytes received by this rank for 1 MiB values, and the peak extra allocation of an
    all_reduce of a 4 MiB operand, per mode (the fast path with 4 MiB (the default) and 1 MiB
    combine blocks)."""
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = C.GRIDS[grid_name]
    figures: dict[str, Any] = {}
    for mode in MODES:
        grid = MpiGrid(replicas, partitions, timeout=60, fast_paths=mode)
        pid, p = grid.pid, grid.num_processes
        world = tuple(grid.pid_of(k) for k in range(p))
        x = np.full(MIB // 4, rank, np.float32)
        moved: dict[str, Any] = {}
        for name, call in [
            ("all_reduce", lambda: grid.reduce(world, 1, pid, [x], sub2)),
            ("reduce_scatter", lambda: grid.reduce(world, 2, pid, [x], sub2, scatter_dim=0)),
            ("collective_reduce", lambda: grid.reduce(world, 3, pid, [x], sub2, to_root=True)),
            ("all_to_all", lambda: grid.all_to_all(world, 4, pid, [np.split(x, p)])),
            ("broadcast", lambda: grid.broadcast(world, 5, pid, [x], [0])),
            ("permute_ring", lambda: grid.permute(
                [(grid.pid_of(k), grid.pid_of((k + 1) % p)) for k in range(p)], 6, pid, [x])),
        ]:
            grid.traffic.clear()
            t = time.monotonic()
            call()
            moved[name] = {"received": sum(grid.traffic.values()),
                           "seconds": time.monotonic() - t}
        memory = {}
        grid.reduce(world, 7, pid, [x[:4]], sub2)  # the communicator exists before measuring
        for block in (DEFAULT_BLOCK, 1 << 20) if mode == "always" else (DEFAULT_BLOCK,):
            _set_block(block)
            y = np.arange(MEMORY_ELEMENTS, dtype=np.float32) * (rank + 1)
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            t = time.monotonic()
            result = grid.reduce(world, 7, pid, [y], sub2)
            seconds = time.monotonic() - t
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            digest = hashlib.blake2b(json.dumps(fingerprint(result)).encode()).hexdigest()
            memory[str(block)] = {"operand": y.nbytes, "peak_extra": peak, "seconds": seconds,
                                  "result": digest}
            del result
        _set_block(None)
        grid.close()
        figures[mode] = {"moved_1MiB": moved, "all_reduce_4MiB": memory}
    return figures


def _checks(grid_name: str, rank: int) -> dict[str, Any]:
    """The grid's errors on the fast paths: an unknown mode; members of one group at different exchanges (even
    ranks reduce, odd ones gather) all get an error naming what each is at; a permute target
    whose source comes after the 0.5 s timeout gets the threaded grid's timeout message (the
    source, sending later, is not held up); a target whose source does not come is given up on
    when the abort flag is set (0.3 s)."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = C.GRIDS[grid_name]
    report: dict[str, Any] = {}

    def attempt(name: str, call: Callable[[], Any]) -> None:
        start = time.monotonic()
        try:
            got = call()
            report[name] = None if got is None else "returned"
        except StableHLOError as e:
            report[name] = [type(e).__name__, str(e)]
        report[f"{name}_wait"] = time.monotonic() - start

    attempt("bad_mode", lambda: MpiGrid(replicas, partitions, fast_paths="fast"))
    grid = MpiGrid(replicas, partitions, timeout=60, fast_paths="always")
    world = tuple(grid.pid_of(k) for k in range(grid.num_processes))
    x = [np.zeros(3, np.float32)]
    if rank % 2 == 0:
        attempt("mixed", lambda: grid.reduce(world, 30, grid.pid, x, sub2))
    else:
        attempt("mixed", lambda: grid.exchange(world, 30, grid.pid, x))
    grid.close()

    grid = MpiGrid(replicas, partitions, timeout=0.5, fast_paths="always")
    pair = [(grid.pid_of(0), grid.pid_of(1))]
    if rank in (0, 1):
        if rank == 0:
            time.sleep(1.5)
        attempt("late", lambda: grid.permute(pair, 40, grid.pid, x))
    grid.close()

    stop = threading.Event()
    grid = MpiGrid(replicas, partitions, timeout=60, aborted=stop, fast_paths="always")
    pair = [(grid.pid_of(3), grid.pid_of(1))]
    if rank == 1:  # rank 3 sends only after rank 1 has given up
        threading.Timer(0.3, stop.set).start()
        attempt("aborted", lambda: grid.permute(pair, 41, grid.pid, x))
    if rank == 3:
        time.sleep(1.0)
        attempt("aborted", lambda: grid.permute(pair, 41, grid.pid, x))
    grid.close()
    return report


def main(argv: list[str]) -> int:
    from stablehlo_py.interpreter.mpi import require_mpi

    out, grid_name = Path(argv[0]), argv[1]
    comm = require_mpi().COMM_WORLD
    rank = comm.Get_rank()
    replicas, partitions = C.GRIDS[grid_name]
    if comm.Get_size() != replicas * partitions:
        raise SystemExit(f"grid {grid_name} needs mpirun -n {replicas * partitions}")
    times = {}
    for name, step in [("cases", _run_cases), ("programs", _run_programs)]:
        t = time.monotonic()
        step(grid_name, rank, out)
        times[name] = time.monotonic() - t
    t = time.monotonic()
    figures = _figures(grid_name, rank)
    times["figures"] = time.monotonic() - t
    (out / f"figures{rank}.json").write_text(json.dumps(figures))
    (out / f"checks{rank}.json").write_text(json.dumps(_checks(grid_name, rank)))
    if rank == 0:
        (out / "times.json").write_text(json.dumps(times))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
