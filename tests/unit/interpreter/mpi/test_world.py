"""interpreter/mpi/world.py without MPI: rank <-> (replica, partition), the processes a module
needs, and the P check's message (docs/plans/issue-29-mpi.md §3.1)."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.impls.collectives import ProcessGrid
from stablehlo_py.interpreter.mpi import world as Wd
from stablehlo_py.ir import parse


@pytest.mark.parametrize("replicas, partitions", [(1, 1), (1, 8), (2, 4), (3, 2), (4, 1)])
def test_ranks_number_processes_as_the_threaded_grids_flattened_ids(replicas, partitions) -> None:
    size = replicas * partitions
    flattened = ProcessGrid(replicas, partitions).flattened_ids([list(range(size))])[0]
    assert [Wd.process_of(r, partitions) for r in range(size)] == list(flattened)
    assert [Wd.rank_of(i, j, partitions) for i, j in flattened] == list(range(size))


def test_rank_mapping_refuses_what_is_outside_the_grid() -> None:
    with pytest.raises(InterpreterError, match="no process for rank 3 with 0 partitions"):
        Wd.process_of(3, 0)
    with pytest.raises(InterpreterError, match="no process for rank -1"):
        Wd.process_of(-1, 2)
    with pytest.raises(InterpreterError, match=r"partition 4\) is outside a grid of 4"):
        Wd.rank_of(0, 4, 4)


def _module(attrs: str = "", body: str = "") -> object:
    attributes = f" attributes {{{attrs}}}" if attrs else ""
    return parse(f"module{attributes} {{\n{body}\n}}")


RUN_PARALLEL = """
  func.func @p() -> tensor<ui32> {{
    %r = stablehlo.replica_id : tensor<ui32>
    return %r : tensor<ui32>
  }}
  func.func @{name}() {{
    %r:{n} = "interpreter.run_parallel"() {{programs = {programs}}} : () -> ({types})
    func.return
  }}
"""


def _run_parallel(name: str, rows: int, cols: int) -> str:
    programs = "[" + ", ".join("[" + ", ".join(["@p"] * cols) + "]" for _ in range(rows)) + "]"
    n = rows * cols
    return RUN_PARALLEL.format(
        name=name, n=n, programs=programs, types=", ".join(["tensor<ui32>"] * n)
    )


def test_mhlo_attributes_give_the_processes() -> None:
    got = Wd.required_processes(
        _module("mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32")
    )
    assert got == Wd.Processes(1, 8, Wd.MHLO_SOURCE) and got.count == 8
    got = Wd.required_processes(
        _module("mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 4 : i64")
    )
    assert (got.replicas, got.partitions, got.count) == (2, 4, 8)
    assert Wd.required_processes(_module("mhlo.num_replicas = 3 : i32")).count == 3
    assert Wd.required_processes(_module()) == Wd.Processes(1, 1, Wd.MHLO_SOURCE)


def test_run_parallel_grid_when_the_attributes_say_one_process() -> None:
    got = Wd.required_processes(_module(body=_run_parallel("main", 2, 3)))
    assert got == Wd.Processes(2, 3, Wd.RUN_PARALLEL_SOURCE) and got.count == 6
    got = Wd.required_processes(_module("mhlo.num_partitions = 1 : i32",
                                        _run_parallel("main", 1, 4)))
    assert got == Wd.Processes(1, 4, Wd.RUN_PARALLEL_SOURCE)
    # the same number of processes on another grid shape is fine (the first op's shape is named)
    got = Wd.required_processes(_module(body=_two_run_parallels((2, 3), (3, 2))))
    assert got == Wd.Processes(2, 3, Wd.RUN_PARALLEL_SOURCE)


def _two_run_parallels(a: tuple[int, int], b: tuple[int, int]) -> str:
    first = _run_parallel("main", *a)
    second = _run_parallel("second", *b)
    return first + second[second.index("func.func @second") - 2 :]


def test_run_parallel_ops_of_different_sizes_are_an_error_naming_both() -> None:
    with pytest.raises(InterpreterError) as e:
        Wd.required_processes(_module(body=_two_run_parallels((2, 3), (2, 2))))
    text = str(e.value)
    assert re.search(r"need different numbers of processes: 2 x 3 = 6 at -:\d+:\d+ and "
                     r"2 x 2 = 4 at -:\d+:\d+\n", text), text
    assert "give every run_parallel the same grid size" in text


def test_mhlo_attributes_win_over_run_parallel() -> None:
    module = _module("mhlo.num_partitions = 4 : i32", _run_parallel("main", 2, 3))
    assert Wd.required_processes(module) == Wd.Processes(1, 4, Wd.MHLO_SOURCE)


@pytest.mark.parametrize("value", ["0 : i32", "-2 : i32", '"8"'])
def test_bad_attribute_values_are_refused(value: str) -> None:
    with pytest.raises(InterpreterError) as e:
        Wd.required_processes(_module(f"mhlo.num_partitions = {value}"))
    assert "module attribute mhlo.num_partitions must be a positive integer" in str(e.value)


def test_the_p_check_message_of_the_plan() -> None:
    required = Wd.Processes(1, 8)
    with pytest.raises(InterpreterError) as e:
        Wd.check_processes(
            required, 4, program="program.mlir", who="stablehlo-translate --engine=mpi"
        )
    assert str(e.value) == (
        "error: stablehlo-translate --engine=mpi: program.mlir runs on 1 replica x 8 partitions = "
        "8 processes (mhlo.num_replicas, mhlo.num_partitions), but mpirun started 4: run it with "
        "mpirun -n 8"
    )
    Wd.check_processes(required, 8, program="program.mlir")  # the right number: no error


def test_the_p_check_message_without_a_prefix_and_for_run_parallel() -> None:
    with pytest.raises(InterpreterError) as e:
        Wd.check_processes(Wd.Processes(2, 1, Wd.RUN_PARALLEL_SOURCE), 1, program="send_recv.mlir")
    assert str(e.value) == (
        "error: send_recv.mlir runs on 2 replicas x 1 partition = 2 processes "
        "(interpreter.run_parallel's programs), but mpirun started 1: run it with mpirun -n 2"
    )
    with pytest.raises(InterpreterError, match=r"^error: the program runs on 1 replica x 1 "
                       r"partition = 1 process \(.*\), but mpirun started 3"):
        Wd.check_processes(Wd.Processes(1, 1), 3)
