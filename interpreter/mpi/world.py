"""MPI start-up facts: this process's rank among how many, which (replica, partition) a rank runs,
and how many processes a module needs (plan §3.1).

Rank r runs process (replica, partition) = divmod(r, num_partitions), i.e. rank = replica x N +
partition: the order of the threaded grid's `flattened_ids`, of the custom-call context's
`process_id` and of XLA's device assignment.  A module needs `mhlo.num_replicas` x
`mhlo.num_partitions` processes (each 1 when absent); when both are 1, the grid of its
`interpreter.run_parallel` ops (upstream's test op: `programs[i][j]` is (replica i, partition j)),
which must all be the same size.  Every rank checks that mpirun started exactly that many.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.mpi import require_mpi
from xdsl.dialects.builtin import IntegerAttr

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.verify import op_location

MHLO_SOURCE = "mhlo.num_replicas, mhlo.num_partitions"
RUN_PARALLEL_SOURCE = "interpreter.run_parallel's programs"


@dataclass(frozen=True)
class World:
    """This process's place in MPI's COMM_WORLD."""

    rank: int
    size: int


def world() -> World:
    """Rank and size of COMM_WORLD (initializes MPI through mpi4py: :func:`require_mpi`)."""
    comm = require_mpi().COMM_WORLD
    return World(rank=comm.Get_rank(), size=comm.Get_size())


def process_of(rank: int, num_partitions: int) -> tuple[int, int]:
    """(replica, partition) run by `rank`."""
    if num_partitions < 1 or rank < 0:
        raise InterpreterError(
            f"no process for rank {rank} with {num_partitions} partitions (rank >= 0 and at least "
            "one partition are needed)"
        )
    return divmod(rank, num_partitions)


def rank_of(replica: int, partition: int, num_partitions: int) -> int:
    """The rank running (replica, partition)."""
    if not 0 <= partition < num_partitions or replica < 0:
        raise InterpreterError(
            f"process (replica {replica}, partition {partition}) is outside a grid of "
            f"{num_partitions} partitions"
        )
    return replica * num_partitions + partition


@dataclass(frozen=True)
class Processes:
    """The process grid a module runs on, and where that was read (`source`)."""

    replicas: int
    partitions: int
    source: str = MHLO_SOURCE

    @property
    def count(self) -> int:
        return self.replicas * self.partitions

    def describe(self) -> str:
        """``1 replica x 8 partitions = 8 processes (mhlo.num_replicas, mhlo.num_partitions)``"""
        return (
            f"{_n(self.replicas, 'replica')} x {_n(self.partitions, 'partition')} = "
            f"{_n(self.count, 'process', 'processes')} ({self.source})"
        )


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k} {one if k == 1 else (many or one + 's')}"


def _module_int(module: Any, name: str) -> int:
    attr = module.attributes.get(name)
    if attr is None:
        return 1
    if not isinstance(attr, IntegerAttr) or int(attr.value.data) < 1:
        raise InterpreterError(
            f"module attribute {name} must be a positive integer, got {attr}",
            note=f"write e.g. {name} = 8 : i32, or leave it out for 1",
        )
    return int(attr.value.data)


def _run_parallel_grid(op: Any) -> tuple[int, int]:
    rows = list(getattr(A.attr(op, "programs"), "data", ()) or ())
    if not rows or not list(getattr(rows[0], "data", ())):
        raise InterpreterError("interpreter.run_parallel: `programs` cannot be empty")
    return len(rows), len(rows[0].data)


def _where(op: Any) -> str:
    loc = op_location(op)
    return f" at {loc}" if loc else ""


def required_processes(module: Any) -> Processes:
    """How many processes `module` runs on: `mhlo.num_replicas` x `mhlo.num_partitions`, or, when
    both are 1, the grid of its `interpreter.run_parallel` ops (all of one size)."""
    replicas = _module_int(module, "mhlo.num_replicas")
    partitions = _module_int(module, "mhlo.num_partitions")
    if replicas * partitions > 1:
        return Processes(replicas, partitions, MHLO_SOURCE)
    found: Processes | None = None
    first: Any = None
    for op in module.walk():
        if op.name != "interpreter.run_parallel":
            continue
        grid = Processes(*_run_parallel_grid(op), source=RUN_PARALLEL_SOURCE)
        if found is None:
            found, first = grid, op
        elif grid.count != found.count:
            raise InterpreterError(
                "the interpreter.run_parallel ops of the module need different numbers of "
                f"processes: {found.replicas} x {found.partitions} = {found.count}{_where(first)} "
                f"and {grid.replicas} x {grid.partitions} = {grid.count}{_where(op)}",
                note="an MPI run has one number of processes: give every run_parallel the same "
                "grid size, or put them in separate files (or --split-input-file chunks)",
            )
    return found or Processes(1, 1, MHLO_SOURCE)


def check_processes(
    required: Processes, size: int, *, program: str = "the program", who: str | None = None
) -> None:
    """Raise InterpreterError unless `size` (COMM_WORLD's size) is `required.count`:
    ``stablehlo-translate --engine=mpi: program.mlir runs on 1 replica x 8 partitions = 8
    processes (mhlo.num_replicas, mhlo.num_partitions), but mpirun started 4: run it with
    mpirun -n 8`` (`who` is the leading ``stablehlo-translate --engine=mpi``; none when None)."""
    if size == required.count:
        return
    prefix = f"{who}: " if who else ""
    raise InterpreterError(
        f"{prefix}{program} runs on {required.describe()}, but mpirun started {size}: "
        f"run it with mpirun -n {required.count}"
    )


__all__ = [
    "Processes",
    "World",
    "check_processes",
    "process_of",
    "rank_of",
    "required_processes",
    "world",
]
