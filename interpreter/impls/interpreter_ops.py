"""The `interpreter` dialect (run_parallel, print, probe) and `check.expect_serialized_eq`.

- `interpreter.run_parallel` runs `programs[i][j]` as process (replica i, partition j), one thread
  per process, all sharing a `ProcessGrid` (impls/process_grid.py) for collectives, send/recv and
  the infeed queue.  Inputs and results are the processes' own, concatenated in row-major order.
  A process that fails aborts the others' pending rendezvous; the first error is re-raised.
  An evaluator given a `ParallelHost` (its `run_parallel_host` attribute: the MPI engine's,
  interpreter/mpi/parallel.py) hands the processes to it instead: each MPI rank runs one of them
  on a grid the host provides, and the host returns every process's results.
- `interpreter.print` writes `%name = <tensor>` (upstream's format) to the evaluator's print sink
  (stdout by default), one whole value at a time even from parallel processes.
- `interpreter.probe` serializes its operand as `probe<N>.npy` in the probe directory and appends
  `probe_id,type,path` to its `index.csv`; `check.expect_serialized_eq` reads the `iteration`-th
  entry of `probe_id` back and compares.  The directory is `Evaluator.probe_dir` (the CLI's
  `--probe-output-dir`), or a fresh temporary directory when none is given.
"""

from __future__ import annotations

import copy
import functools
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from stablehlo_py.interpreter import checks
from stablehlo_py.interpreter.evaluator import ProcessContext
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.process_grid import GridShape, ProcessGrid
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.interpreter.storage import storable

from stablehlo_py.errors import InterpreterError

INDEX_FILE = "index.csv"
_PRINT_LOCK = threading.Lock()


# ---------------------------------------------------------------------------------- run_parallel

#: the evaluator attribute holding its `ParallelHost` (None or absent: threads in this process)
PARALLEL_HOST = "run_parallel_host"

Process = Callable[[GridShape], list[Any]]
"""One process of a run_parallel: runs its program on the grid given, returns its results."""


class ParallelHost(Protocol):
    """Who runs the processes of an evaluator's run_parallel ops other than threads here."""

    def run_processes(
        self,
        ev: Any,
        num_replicas: int,
        num_partitions: int,
        infeed: Sequence[str],
        processes: Sequence[Process],
    ) -> list[list[Any] | None]:
        """Every process's results (`processes` and the answer in row-major order: process
        (i, j) at i x num_partitions + j).  `ev` is the evaluator running the op: the processes
        are copies of it made when they start (they share its check failures and print sink);
        `infeed` the op's infeed queue (function names)."""


def _symbols(a: Any) -> list[Any]:
    data = getattr(a, "data", a)
    return list(data)


@impl("interpreter.run_parallel")
def _run_parallel(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    programs = [[A.sym_name(f) for f in _symbols(row)] for row in _symbols(A.attr(op, "programs"))]
    if not programs or not programs[0]:
        raise InterpreterError("interpreter.run_parallel: `programs` cannot be empty")
    infeed_attr = A.attr(op, "infeed")
    infeed = [A.sym_name(f) for f in _symbols(infeed_attr)] if infeed_attr is not None else []
    num_replicas, num_partitions = len(programs), len(programs[0])
    jobs: list[tuple[int, int, str, list[Any]]] = []
    position = 0
    for i, row in enumerate(programs):
        if len(row) != num_partitions:
            raise InterpreterError(
                "interpreter.run_parallel: every row of `programs` needs the same length"
            )
        for j, name in enumerate(row):
            func = ev.funcs.get(name)
            if func is None:
                raise InterpreterError(f"interpreter.run_parallel: no function @{name}")
            n = len(func.function_type.inputs.data)
            jobs.append((i, j, name, list(args[position : position + n])))
            position += n
    if position != len(args):
        raise InterpreterError(
            f"interpreter.run_parallel has {len(args)} inputs but its programs take {position}"
        )
    shared_state(ev)  # created before the copies, so the processes share it

    def work(i: int, j: int, name: str, fargs: list[Any], grid: GridShape) -> list[Any]:
        child = copy.copy(ev)
        setattr(child, PARALLEL_HOST, None)  # a run_parallel inside a process: threads here
        child.process = ProcessContext(
            replica_id=i,
            partition_id=j,
            num_replicas=num_replicas,
            num_partitions=num_partitions,
            grid=grid,
        )
        return child.call(name, fargs)

    processes = [functools.partial(work, *job) for job in jobs]
    host: ParallelHost | None = getattr(ev, PARALLEL_HOST, None)
    if host is not None:
        results = host.run_processes(ev, num_replicas, num_partitions, infeed, processes)
    else:
        grid = ProcessGrid(num_replicas, num_partitions, infeed)
        results = grid.run_processes(
            [functools.partial(p, grid) for p in processes],
            names=[f"process-{i}-{j}" for i, j, _, _ in jobs],
        )
    return [v for r in results for v in (r or [])]


# ----------------------------------------------------------------------------------------- print


def _ssa_prefix(op: Any) -> str:
    """`%name = ` as upstream prints the operand's defining op (names local to that op)."""
    from xdsl.ir import OpResult

    v = op.operands[0]
    if not isinstance(v, OpResult):
        return "<"  # upstream prints a block argument as `<block argument> ...` and cuts at '='
    owner = v.op
    name = "0"
    names = getattr(owner, "asm_result_names", None)
    if callable(names):
        try:
            got = names()
        except Exception:  # noqa: BLE001 - naming is cosmetic
            got = None
        if isinstance(got, str) and got:
            name = got
    if len(owner.results) > 1:
        name = f"{name}:{len(owner.results)}"
    return f"%{name} = "


def emit(ev: Any, text: str) -> None:
    """Write `text` to the evaluator's print sink (stdout unless `ev.print_sink` is set)."""
    sink = getattr(ev, "print_sink", None)
    with _PRINT_LOCK:
        if sink is not None:
            sink(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()


@impl("interpreter.print")
def _print(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    from stablehlo_py.interpreter.printing import format_tensor

    emit(ev, _ssa_prefix(op) + format_tensor(args[0], op.operands[0].type) + "\n")
    return []


# ----------------------------------------------------------------------------------------- probe


class ProbeState:
    """The probe directory of one evaluation and its file counter (shared by parallel processes)."""

    def __init__(self, directory: str | None):
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if not directory:
            self._tmp = tempfile.TemporaryDirectory(prefix="stablehlo-probe-")
            directory = self._tmp.name
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.counter = 0
        self.lock = threading.Lock()
        index = os.path.join(directory, INDEX_FILE)
        if os.path.exists(index):
            os.remove(index)

    @property
    def index(self) -> str:
        return os.path.join(self.directory, INDEX_FILE)


def shared_state(ev: Any) -> dict[str, Any]:
    """State shared by an evaluator and the processes of its run_parallel ops (copies of it)."""
    return ev.__dict__.setdefault("_shared_state", {})


def probe_state(ev: Any) -> ProbeState:
    shared = shared_state(ev)
    with _PRINT_LOCK:
        state = shared.get("probe")
        if state is None:
            state = shared["probe"] = ProbeState(getattr(ev, "probe_dir", None))
    return state


@impl("interpreter.probe")
def _probe(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    from stablehlo_py.ir.text.printer import type_to_str

    value = np.asarray(args[0])
    state = probe_state(ev)
    probe_id = A.get(op, "probe_id")
    with state.lock:
        state.counter += 1
        path = os.path.join(state.directory, f"probe{state.counter}.npy")
        np.save(path, storable(value), allow_pickle=False)
        with open(state.index, "a", encoding="utf-8") as f:
            f.write(f"{probe_id},{type_to_str(op.operands[0].type)},{path}\n")
    return [args[0]]


def _find_probe(state: ProbeState, probe_id: str, iteration: int) -> tuple[str, str] | None:
    """The `iteration`-th line of index.csv that mentions `probe_id`, as (type, path)."""
    if not os.path.exists(state.index):
        return None
    with open(state.index, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    matches = 0
    for line in lines:
        if probe_id in line:
            if matches == iteration:
                parts = line.split(",", 2)
                if len(parts) != 3:
                    return None
                return parts[1], parts[2]
            matches += 1
    return None


@impl("check.expect_serialized_eq")
def _expect_serialized_eq(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    from stablehlo_py.ir.text.printer import type_to_str

    probe_id = A.get(op, "probe_id")
    iteration = A.int_(op, "iteration", 0)
    state = probe_state(ev)
    found = _find_probe(state, probe_id, iteration)
    if found is None:
        ev.fail(op, f"Failed to find serialized data for probe {probe_id} (iteration {iteration}).")
        return []
    type_text, path = found
    expected = np.asarray(args[0])
    expected_type = type_to_str(op.operands[0].type)
    if type_text != expected_type:
        ev.fail(
            op,
            f"Serialized types don't match: {expected_type} (actual) vs {type_text} (expected) "
            f"for probe {probe_id}.",
        )
        return []
    stored = np.load(path, allow_pickle=False)
    if stored.dtype != expected.dtype:
        stored = stored.view(expected.dtype)
    problem = checks.expect_eq(expected, stored.reshape(expected.shape))
    if problem is not None:
        ev.fail(op, problem)
    return []
