"""Rank program of tests/mpi/test_harness.py::test_two_rank_waits (``mpirun -n 2``): rank 0 waits
on real nonblocking receives with `interpreter.mpi.wait` while rank 1 sends late, never (until told)
or after rank 0 gave up; rank 0 prints one JSON line with what happened and how long it took.

1. arrival: rank 1 sends tag 1 after sleeping 1 s; rank 0's wait returns (wall time, CPU time).
2. timeout: rank 0 waits 0.3 s on tag 2, which rank 1 sends only when told (tag 3) afterwards:
   the timeout's message, then the same request completes.
3. abort: rank 0 waits on tag 4 with an event that a timer sets after 0.3 s: WaitAborted's
   message, then rank 1 is told (tag 5) to send tag 4 and the request completes.
"""

from __future__ import annotations

import json
import threading
import time

import numpy as np

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi import require_mpi
from stablehlo_py.interpreter.mpi.wait import rendezvous_timeout, wait


def _rank0(comm, MPI) -> dict:  # noqa: N803 - mpi4py's module name
    report: dict = {"rank": 0}
    box = np.zeros(3, np.int64)

    t, c = time.monotonic(), time.process_time()
    wait(comm.Irecv([box, MPI.INT64_T], source=1, tag=1), timeout=60)
    report["arrival_wall"] = time.monotonic() - t
    report["arrival_cpu"] = time.process_time() - c
    report["arrival"] = box.tolist()

    box = np.zeros(3, np.int64)
    request = comm.Irecv([box, MPI.INT64_T], source=1, tag=2)
    t = time.monotonic()
    try:
        wait(request, timeout=0.3, timeout_message=rendezvous_timeout([(0, 0), (0, 1)]))
        report["timeout_error"] = None
    except InterpreterError as e:
        report["timeout_error"] = str(e)
    report["timeout_wall"] = time.monotonic() - t
    wait(comm.Isend([np.zeros(1, np.int64), MPI.INT64_T], dest=1, tag=3), timeout=60)
    wait(request, timeout=60)
    report["after_timeout"] = box.tolist()

    box = np.zeros(3, np.int64)
    request = comm.Irecv([box, MPI.INT64_T], source=1, tag=4)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t = time.monotonic()
    try:
        wait(request, timeout=60, abort=stop, what="a recv from rank 1")
        report["abort_error"] = None
    except InterpreterError as e:
        report["abort_error"] = str(e)
    report["abort_wall"] = time.monotonic() - t
    wait(comm.Isend([np.zeros(1, np.int64), MPI.INT64_T], dest=1, tag=5), timeout=60)
    wait(request, timeout=60)
    report["after_abort"] = box.tolist()
    return report


def _rank1(comm, MPI) -> None:  # noqa: N803
    def send(value: int, tag: int) -> None:
        wait(comm.Isend([np.full(3, value, np.int64), MPI.INT64_T], dest=0, tag=tag), timeout=60)

    def told(tag: int) -> None:
        wait(comm.Irecv([np.zeros(1, np.int64), MPI.INT64_T], source=0, tag=tag), timeout=60)

    time.sleep(1.0)
    send(5, 1)
    told(3)
    send(7, 2)
    told(5)
    send(9, 4)


def main() -> int:
    MPI = require_mpi()
    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise SystemExit("wait_ranks needs mpirun -n 2")
    if comm.Get_rank() == 0:
        print(json.dumps(_rank0(comm, MPI)), flush=True)
    else:
        _rank1(comm, MPI)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
