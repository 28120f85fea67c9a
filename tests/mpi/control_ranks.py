"""Rank program of tests/mpi/test_control.py: ``python -m tests.mpi.control_ranks SCENARIO OUT``
under mpirun.  Every rank runs SCENARIO inside `interpreter.mpi.control.ControlPlane` and writes
``OUT/rank<r>.json``: how its ``with`` ended (``"clean"`` or the exception's type and text),
timings and what the scenario recorded; a rank that fails on purpose first writes
``OUT/failed_at`` (``time.time()``, so the test can time the end of the job from the failure).
Exit status 0 after a clean end, 1 after a toolkit error (nothing printed: rank 0's control plane
printed the report).

Scenarios (rank 5 fails with an interpreter-like error unless said otherwise):

- ``blocked`` (8 ranks): every other rank waits in a collective, rank 3 computes in a Python
  loop that calls ``cp.check()``: a clean stop, no Abort;
- ``busy_python`` (6): rank 0 computes in a pure-Python loop that never looks at the flag: the
  report comes from rank 0's watchdog, then the Abort fallback;
- ``busy_numpy`` (6): rank 2 is in one long numpy call that holds the interpreter (a product of
  Python ints: its watchdog cannot run either): report, then the Abort fallback;
- ``root_numpy`` (4): rank 0 is in that call, so nobody can report for it: rank 5 -> rank 3 here,
  which says its own error and aborts after abort_after + END_GRACE;
- ``root_error`` (3): rank 0's own thread raises a ValueError (a bug: the report has its
  traceback) while the others wait;
- ``late`` (4): ranks 0-2 finish, rank 3 fails a second later (the others are in the end
  barrier);
- ``broker`` (4): send/recv and infeed through rank 0's broker (see `_broker`);
- ``grid`` (4): an `MpiGrid` (1 x 4) given the plane's flag and broker: send/recv and infeed
  through the grid, one rendezvous of all four, then rank 3 fails while the others are in a
  second one;
- ``clean`` (8): broker traffic and a collective, then a clean end.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from stablehlo_py.errors import InterpreterError, StableHLOError
from stablehlo_py.interpreter.mpi import require_mpi
from stablehlo_py.interpreter.mpi.control import ControlPlane, RankFailed
from stablehlo_py.interpreter.mpi.grid import MpiGrid
from stablehlo_py.interpreter.mpi.wait import wait

FAILING = {"root_numpy": 3, "grid": 3}
ERROR_TEXT = "prog.mlir:7:3: 'stablehlo.custom_call' op @foo: no implementation of this target"


def _fail(out: Path, rank: int) -> None:
    (out / "failed_at").write_text(repr(time.time()))
    raise InterpreterError(ERROR_TEXT.split(": ", 1)[1], location=ERROR_TEXT.split(": ", 1)[0],
                           note="register the target, or run it on a backend")


def _collective(comm: Any, cp: ControlPlane) -> None:
    box = np.zeros(comm.Get_size(), np.int64)
    wait(comm.Iallgather(np.array([comm.Get_rank()], np.int64), box), abort=cp.aborted,
         timeout=120, what="an allgather")


def _barrier(comm: Any, cp: ControlPlane) -> None:
    wait(comm.Ibarrier(), abort=cp.aborted, timeout=120, what="a barrier")


def _long_numpy_call() -> None:
    # a product of Python ints: one numpy call that never lets another thread run (minutes here)
    np.prod(np.arange(1, 400_000, dtype=object))


def _pure_python(seconds: float, check=None) -> int:
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        n += sum(i * i for i in range(1000))
        if check is not None:
            check()
    return n


def _broker(comm: Any, cp: ControlPlane, rank: int, record: dict) -> None:
    """1. causal FIFO across senders: ranks 3, 2, 1 send on channel 5 in that order (barriers
    between), rank 0 receives three times; 2. a recv that waits: rank 1 receives on channel 9
    before rank 2 sends (0.3 s later); 3. rank 0 sends to itself; 4. channels are separate;
    5. infeed: ranks 3, 1, 2 ask in that order, then rank 0 gets None; 6. 60 messages: ranks 1-3
    send 20 each on channel 30, rank 0 receives them all (FIFO per sender)."""
    values = {
        3: [np.array([3.5, -0.0], np.float32), np.array(7, np.int8)],
        2: [np.array([[1 + 2j]], np.complex64)],
        1: [np.array([1.25, np.inf], ml_dtypes.bfloat16), np.array([True])],
    }
    for sender in (3, 2, 1):
        if rank == sender:
            cp.broker.send(5, values[sender])
        _barrier(comm, cp)
    if rank == 0:
        got = [cp.broker.recv(5) for _ in range(3)]
        record["fifo"] = [[[str(a.dtype), a.shape, a.tobytes().hex()] for a in vs] for vs in got]
        record["fifo_expected"] = [
            [[str(a.dtype), a.shape, a.tobytes().hex()] for a in values[s]] for s in (3, 2, 1)
        ]

    if rank == 1:
        t = time.monotonic()
        (x,) = cp.broker.recv(9)
        record["waited"] = [time.monotonic() - t, str(x.dtype), x.tolist()]
    if rank == 2:
        time.sleep(0.3)
        cp.broker.send(9, [np.array([2.5], ml_dtypes.bfloat16)])
    if rank == 0:
        cp.broker.send(11, [np.arange(4, dtype=np.uint16)])
        record["self"] = [v.tolist() for v in cp.broker.recv(11)]
        cp.broker.send(20, [np.array(20)])
        cp.broker.send(21, [np.array(21)])
    _barrier(comm, cp)
    if rank == 2:
        record["channel21"] = [v.tolist() for v in cp.broker.recv(21)]
    if rank == 3:
        record["channel20"] = [v.tolist() for v in cp.broker.recv(20)]

    for asker in (3, 1, 2):
        if rank == asker:
            record["infeed"] = cp.broker.infeed_next()
        _barrier(comm, cp)
    if rank == 0:
        record["infeed_empty"] = cp.broker.infeed_next()

    t = time.monotonic()
    if rank:
        for i in range(20):
            cp.broker.send(30, [np.array([rank, i], np.int32)])
    else:
        record["many"] = [cp.broker.recv(30)[0].tolist() for _ in range(60)]
    record["many_seconds"] = time.monotonic() - t


def _grid(comm: Any, cp: ControlPlane, out: Path, rank: int, record: dict) -> None:
    grid = MpiGrid(1, 4, aborted=cp.aborted, broker=cp.broker, timeout=60)
    pid, group = grid.pid_of(rank), tuple(grid.pid_of(r) for r in range(4))
    if rank == 1:
        grid.send(3, [np.array([1.5, -0.0], np.float16)])
    if rank == 2:
        (x,) = grid.recv(3)
        record["received"] = [str(x.dtype), x.tobytes().hex()]
    if rank == 3:
        record["infeed"] = grid.infeed()
    got = grid.rendezvous(group, 1, pid, [np.array(rank)])
    record["rendezvous"] = [int(got[p][0]) for p in group]
    if rank == 3:
        _fail(out, rank)
    grid.rendezvous(group, 1, pid, [np.array(rank)])


def _scenario(name: str, comm: Any, cp: ControlPlane, out: Path, record: dict) -> None:
    rank = comm.Get_rank()
    failing = FAILING.get(name, 5)
    if name == "grid":
        _grid(comm, cp, out, rank, record)
        return
    if name == "broker":
        _broker(comm, cp, rank, record)
        return
    if name == "clean":
        cp.broker.send(1, [np.array([rank])])
        _collective(comm, cp)
        record["received"] = int(cp.broker.recv(1)[0][0])
        _collective(comm, cp)
        record["leaving"] = time.time()
        return
    if name == "late":
        if rank == 3:
            time.sleep(1.0)
            _fail(out, rank)
        record["leaving"] = time.time()
        return
    if name == "root_error":
        if rank == 0:
            time.sleep(0.3)
            (out / "failed_at").write_text(repr(time.time()))
            raise ValueError("a bug on rank 0")
        _collective(comm, cp)
        return
    _barrier(comm, cp)  # everyone is inside before rank 5 fails
    if rank == failing:
        time.sleep(0.5)
        _fail(out, rank)
    if name == "blocked" and rank == 3:
        record["computing"] = True
        record["computed"] = _pure_python(60, cp.check)
    if name == "busy_python" and rank == 0:
        record["computed"] = _pure_python(60)
    if name == "busy_numpy" and rank == 2 or name == "root_numpy" and rank == 0:
        _long_numpy_call()
    _collective(comm, cp)


def main() -> int:
    name, out = sys.argv[1], Path(sys.argv[2])
    MPI = require_mpi()
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    record: dict[str, Any] = {"rank": rank, "size": comm.Get_size()}
    start = time.time()
    status = 0
    infeed = ["a", "b", "c"] if rank == 0 else []
    try:
        with ControlPlane(comm, pid_of=lambda r: divmod(r, 4), infeed=infeed) as cp:
            _scenario(name, comm, cp, out, record)
        record["outcome"] = "clean"
    except StableHLOError as e:
        record["outcome"] = [type(e).__name__, str(e)]
        record["cause"] = None if e.__cause__ is None else type(e.__cause__).__name__
        if isinstance(e, RankFailed):
            record["report"] = e.report
            record["reported"] = e.reported
        status = 1
    record["ended"] = time.time()
    record["seconds"] = record["ended"] - start
    record["threads"] = threading.active_count()
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
