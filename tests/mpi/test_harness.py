"""The MPI harness itself (conftest.py) and the MPI basics on real ranks: an 8-rank all-gather of
every element type through `wire` (tests/mpi/allgather_ranks.py), and `wait` on real nonblocking
requests (tests/mpi/wait_ranks.py)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.mpi import allgather_ranks
from tests.mpi.conftest import Launcher, LaunchTimeout, Mpi, launch, mpi_env, mpirun_command


def _reports(stdout: str) -> list[dict]:
    """The JSON lines of a launch in which one rank prints."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("chunk", [4096, None], ids=["small-chunks", "default-chunk"])
def test_eight_rank_allgather_through_wire(mpi: Mpi, chunk: int | None, tmp_path: Path) -> None:
    """Every rank receives every rank's arrays bit for bit: all element types (ml_dtypes' too),
    NaN payloads, -0.0, 0-d, empty, Fortran-ordered, strided and big-endian arrays; a header longer
    than one frame (second header round); with 4096-byte chunks, a 20 KB value takes ~40 rounds
    of 512 bytes per rank."""
    start = time.monotonic()
    argv = ["-m", "tests.mpi.allgather_ranks", str(tmp_path), *([str(chunk)] if chunk else [])]
    done = mpi.run(8, argv)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("rank*.json"))]
    assert sorted(r["rank"] for r in reports) == list(range(8)), done.stdout[-3000:]
    assert all(r["size"] == 8 and r["ok"] for r in reports), reports
    expected = allgather_ranks.digest([allgather_ranks.contribution(k) for k in range(8)])
    assert {r["digest"] for r in reports} == {expected}
    print(f"8-rank allgather (chunk {chunk or 'default'}): {seconds:.2f} s")


def test_world_on_three_ranks(mpi: Mpi, tmp_path: Path) -> None:
    """`world()` under mpirun: each rank its own rank of 3, THREAD_MULTIPLE, and the process
    divmod(rank, 3) of a 1 x 3 grid."""
    code = (
        "import json, sys; from pathlib import Path\n"
        "from stablehlo_py.interpreter.mpi import require_mpi\n"
        "from stablehlo_py.interpreter.mpi.world import world, process_of\n"
        "w = world(); MPI = require_mpi()\n"
        "Path(sys.argv[1], f'rank{w.rank}.json').write_text(json.dumps("
        "[w.rank, w.size, MPI.Query_thread() == MPI.THREAD_MULTIPLE, process_of(w.rank, 3)]))\n"
    )
    done = mpi.run(3, ["-c", code, str(tmp_path)])
    assert done.returncode == 0, done.stderr[-3000:]
    got = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("rank*.json"))]
    assert got == [[0, 3, True, [0, 0]], [1, 3, True, [0, 1]], [2, 3, True, [0, 2]]]


def test_two_rank_waits(mpi: Mpi) -> None:
    """`wait` on real requests: it returns when a message arrives a second later while using
    little CPU (no busy polling), times out with the given message and leaves the request usable,
    and gives up when its abort event is set."""
    done = mpi.run(2, ["-m", "tests.mpi.wait_ranks"], timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    (report,) = [r for r in _reports(done.stdout) if r["rank"] == 0]
    assert report["arrival"] == [5, 5, 5]
    assert 0.9 <= report["arrival_wall"] < 10
    # the wait slept: its CPU time is a small part of the second it waited (a busy wait ~ 1.0)
    assert report["arrival_cpu"] < 0.3 * report["arrival_wall"], report
    assert report["timeout_error"] == (
        "error: collective rendezvous of processes [(0, 0), (0, 1)] timed out: not every process "
        "of the group reached the same collective op"
    )
    assert 0.3 <= report["timeout_wall"] < 5
    assert report["after_timeout"] == [7, 7, 7]
    assert report["abort_error"] == (
        "error: a recv from rank 1 was abandoned: another process of the run failed"
    )
    assert 0.3 <= report["abort_wall"] < 5
    assert report["after_abort"] == [9, 9, 9]


def test_a_launch_that_hangs_is_killed_with_its_ranks(mpi: Mpi, tmp_path: Path) -> None:
    """A launch past its timeout: LaunchTimeout with the output so far, and no rank left running
    (each Open MPI rank sits in a process group of its own, each MPICH rank in a session of its
    own: the launch's session and the launcher's descendants are killed).  The ranks name their
    pids in files (MPICH's Hydra interleaves the ranks' unbuffered output)."""
    code = (
        "import os, sys, time; from mpi4py import MPI; "
        "print('started', flush=True); "
        "open(os.path.join(sys.argv[1], str(os.getpid())), 'w').close(); time.sleep(300)"
    )
    start = time.monotonic()
    with pytest.raises(LaunchTimeout) as caught:
        launch(2, ["-c", code, str(tmp_path)], timeout=6, launcher=mpi.launcher)
    assert time.monotonic() - start < 30
    assert "started" in str(caught.value)  # the output so far
    pids = [int(p.name) for p in tmp_path.iterdir()]
    assert len(pids) == 2, str(caught.value)
    # the message says which processes were left, and what they were doing
    left = str(caught.value).split("processes of the launch at the timeout:\n")[1]
    assert all(re.search(rf"^  {pid} \(parent \d+\) S .*python", left, re.M) for pid in pids), left
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_launch_settings_per_launcher() -> None:
    """Open MPI 4.x: vader, 5.x: sm (their shared-memory transports), ob1, no single copy; MPICH:
    HYDRA_IFACE=lo; what the environment already says wins; the repository is on PYTHONPATH."""
    base = {"PATH": "/usr/bin", "OMPI_MCA_pml": "ucx", "PYTHONPATH": "/elsewhere"}
    v4 = mpi_env(Launcher("mpirun", "openmpi", 4, "mpirun (Open MPI) 4.1.4"), base)
    assert v4["OMPI_MCA_btl"] == "self,vader"
    assert v4["OMPI_MCA_btl_vader_single_copy_mechanism"] == "none"
    assert v4["OMPI_MCA_pml"] == "ucx"  # the caller's
    assert v4["PYTHONPATH"].split(":")[1:] == ["/elsewhere"]
    v5 = mpi_env(Launcher("mpirun", "openmpi", 5, "mpirun (Open MPI) 5.0.11"), base)
    assert v5["OMPI_MCA_btl"] == "self,sm" and v5["OMPI_MCA_btl_sm_single_copy_mechanism"] == "none"
    assert "OMPI_MCA_oob_tcp_if_include" not in v5
    mpich = mpi_env(Launcher("mpiexec", "mpich", 4, "HYDRA build details:"), base)
    assert mpich["HYDRA_IFACE"] == "lo" and "OMPI_MCA_btl" not in mpich
    command = mpirun_command(8, ["python", "x.py"], Launcher("mpirun", "openmpi", 4, ""))
    assert command[-6:] == ["mpirun", "-n", "8", "--oversubscribe", "python", "x.py"]
    command = mpirun_command(3, ["python"], Launcher("mpiexec", "mpich", 4, ""))
    assert command[-4:] == ["mpiexec", "-n", "3", "python"]
