"""Issue 29's third done-when (docs/plans/issue-29-mpi.md §3.3, §5.3): a rank that fails -- a
check, an unsupported op, a killed process -- ends the whole run within 10 s with a clear error on
rank 0.  Through the command line, ``mpirun -n P stablehlo-translate --interpret --engine=mpi``
on the programs of tests/data/mpi_failing/, for the cases tests/mpi/test_engine_cli.py leaves
out (it has a wrong P, check failures on two partitions and an unknown custom call while the
others wait in an all_reduce):

- a rank busy in a loop of small ops when another fails: the Abort fallback ends it (8 ranks);
- a rank killed by SIGKILL: mpirun's own line names it (decision 7: nothing inside the job can
  report a SIGKILL; rank 0 gets mpirun's SIGTERM about a second later, and Open MPI 4.1 would
  still forward a line it wrote then, but rank 0 cannot tell which rank died: it adds nothing);
- an op the interpreter has no implementation of (NotSupportedError, not a custom call);
- an argument file that no rank, or one rank, can read (a failure inside the control plane: the
  same error on every rank is said once).

Times: a failing rank's error reaches rank 0 at once, and rank 0 writes its report when every
rank has stopped, or :data:`COLLECT` seconds after the stop at the latest; so failure to exit is
at most report line to exit + COLLECT (asserted <= 10 s).  For the kill, the time from the
kill to mpirun's exit.  ``pytest -s`` prints the figures.  Four ranks where eight add nothing
(each 8-rank start costs several seconds on two cores)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.interpreter.mpi.supervisor import ABORT_AFTER, COLLECT
from tests.mpi.conftest import LAUNCH_TIMEOUT, Mpi, launch_processes
from tests.mpi.timed import Run, launch, translate_argv

# beside tests/data/mpi, which holds only what tools/make_mpi_programs.py writes
FAILING = Path(__file__).parent.parent / "data" / "mpi_failing"
#: the done-when bound: from a failure to the end of the job
LIMIT = 10.0
ABORT_NOTICE = "MPI_ABORT was invoked"


def ranks_in(text: str) -> set[int]:
    """The ranks of ``rank 2`` / ``ranks 0, 2-4`` (messages.ranks_text's forms)."""
    ranks: set[int] = set()
    for part in text.split(" ", 1)[1].split(", "):
        first, _, last = part.partition("-")
        ranks.update(range(int(first), int(last or first) + 1))
    return ranks


def figures(case: str, run: Run, since: float, what: str) -> float:
    seconds = run.end - since
    print(f"{case} (Python {sys.version_info[0]}.{sys.version_info[1]}): {what} to mpirun's "
          f"exit {seconds:.2f} s")
    return seconds


# ------------------------------------------------------------------------------- a busy rank
def test_a_rank_busy_in_a_loop_is_ended_by_the_abort_fallback(mpi: Mpi) -> None:
    """Partition 5 runs a custom call nobody knows while partition 2 is in a loop of small ops
    (minutes of them: the interpreter looks at the stop only in a collective's wait) and the
    others wait in an all_reduce: rank 0 reports rank 5's error, naming rank 2 as still
    running, then says rank 2 did not stop and ends the job with MPI_Abort (our lines before
    Open MPI's notice); within 10 s of the failure."""
    eight = "--args=[dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>]"
    run = launch(mpi, 8, [*translate_argv(), "--interpret", "--engine=mpi", "busy.mlir", eight],
                 FAILING)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    ours = run.ours()
    errors = [line for line in ours if line.startswith("error:")]
    assert len(errors) == 2, run.stderr[-3000:]
    headline, abort = errors
    head = re.fullmatch(
        r"error: rank 5 \(replica 0, partition 5\): busy\.mlir:29:14: unsupported custom_call "
        r"target 'no_such_target'; .* \((\d) other ranks? stopped; (ranks? [0-9, -]+) still "
        r"running\)", headline,
    )
    assert head, headline
    running = ranks_in(head.group(2))
    assert 2 in running and 5 not in running
    assert int(head.group(1)) == 7 - len(running)
    tail = re.fullmatch(
        rf"error: (ranks? [0-9, -]+) did not stop within {ABORT_AFTER:g} s of the error: ending "
        r"the job with MPI_Abort", abort,
    )
    assert tail, abort
    aborted = ranks_in(tail.group(1))
    assert 2 in aborted and aborted <= running
    # in this order, and Open MPI's notice (when it manages to print one) after them
    lines = [line.rstrip("\n") for _, line in run.lines]
    assert lines.index(headline) < lines.index(abort)
    assert not any(ABORT_NOTICE in line for line in lines[: lines.index(abort)])
    reported = run.when(headline)
    print(f"busy rank: report to the abort line {run.when(abort) - reported:.2f} s")
    seconds = figures("busy rank", run, reported, "report line")
    # rank 2 never stops, so the report came COLLECT seconds after the stop
    print(f"busy rank: failure to mpirun's exit about {seconds + COLLECT:.2f} s")
    assert seconds + COLLECT <= LIMIT


# ------------------------------------------------------------------------------ a killed rank
def rank_process(session: int, rank: int) -> list[int]:
    """The processes of a launch (its rank processes included) whose environment says they are
    rank `rank` (Open MPI: OMPI_COMM_WORLD_RANK; MPICH: PMI_RANK)."""
    wanted = {f"OMPI_COMM_WORLD_RANK={rank}".encode(), f"PMI_RANK={rank}".encode()}
    found = []
    for pid in launch_processes(session):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        if wanted & set(environ):
            found.append(pid)
    return found


def test_a_killed_rank_ends_the_job_with_mpiruns_line(mpi: Mpi, tmp_path: Path) -> None:
    """Every rank does an all_reduce per iteration of a loop of minutes; once every rank is
    inside it (rank 3's probe file, written after the first all_reduce), the test SIGKILLs rank
    3's process: mpirun exits within 10 s of the kill, non-zero, with its line naming rank 3 and
    signal 9; no rank prints a traceback."""
    if not Path("/proc/self/environ").exists():
        pytest.skip("finds the rank's process through /proc")
    probes = tmp_path / "probes"
    started = probes / "rank3" / "index.csv"

    def kill_rank_3(proc: subprocess.Popen) -> tuple[float, int]:
        deadline = time.monotonic() + LAUNCH_TIMEOUT - 30
        while not started.exists():
            assert proc.poll() is None, "the job ended before rank 3 was inside its loop"
            assert time.monotonic() < deadline, "rank 3 did not reach its loop"
            time.sleep(0.05)
        time.sleep(0.5)  # a few iterations in
        (pid,) = rank_process(proc.pid, 3)
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        return killed, pid

    four = "--args=[dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>]"
    argv = [*translate_argv(), "--interpret", "--engine=mpi", str(FAILING / "killed.mlir"), four,
            f"--probe-output-dir={probes}"]
    run = launch(mpi, 4, argv, tmp_path, during=kill_rank_3)
    killed, pid = run.during  # type: ignore[misc]
    seconds = figures("killed rank", run, killed, "SIGKILL")
    assert seconds <= LIMIT
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    if mpi.launcher.family == "openmpi":
        # "mpirun noticed that process rank 3 with PID 0 on node vm exited on signal 9 (Killed)."
        assert re.search(r"process rank 3 with PID \d+ on node \S+ exited on signal 9\b",
                         run.stderr), run.stderr[-3000:]
    else:  # MPICH 5's Hydra, on stdout: "=   BAD TERMINATION OF ONE OF YOUR APPLICATION
        # PROCESSES", "=   PID 25056 RUNNING AT vm" (a pid of the job, not always the killed
        # one's), "=   EXIT CODE: 9", ... "... THE EXIT STRING: Killed (signal 9)"; no rank
        said = run.stdout + run.stderr
        assert "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES" in said, said[-3000:]
        assert re.search(r"EXIT CODE: 9\b", said), said[-3000:]
        assert "Killed (signal 9)" in said, said[-3000:]
    # every rank had written its probe: the kill came inside the run, not during start-up
    assert sorted(p.name for p in probes.iterdir()) == [f"rank{r}" for r in range(4)]


# ------------------------------------------------------------------------- an unsupported op
def test_an_op_without_an_implementation_on_one_rank(mpi: Mpi) -> None:
    """Partition 2 enters a branch holding `shape.shape_of`, which the interpreter cannot run
    (NotSupportedError), while the others wait in an all_reduce: rank 0's one line, with the
    op's location and the message the threaded engine gives, exit 1, within 10 s."""
    four = "--args=[dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>]"
    argv = ["--interpret", "unsupported.mlir", four]
    ref = subprocess.run([*translate_argv(), *argv], capture_output=True, text=True,
                         cwd=FAILING, timeout=300)
    assert ref.returncode == 1
    message = "unsupported.mlir:20:18: the interpreter does not support 'shape.shape_of' yet"
    assert ref.stderr.strip() == message.replace(": the", ": error: the", 1)
    run = launch(mpi, 4, [*translate_argv(), *argv, "--engine=mpi"], FAILING)
    assert run.returncode == 1
    line = f"error: rank 2 (replica 0, partition 2): {message} (3 other ranks stopped)"
    assert run.ours() == [line], run.stderr[-3000:]
    assert run.stdout == ""
    seconds = figures("unsupported op", run, run.when(line), "report line")
    assert seconds + COLLECT <= LIMIT


# --------------------------------------------------------------------- an argument file unread
SUM_ARGS = "--args=@x.npy"


def test_an_argument_file_no_rank_can_read_is_said_once(mpi: Mpi, tmp_path: Path) -> None:
    """--args=@x.npy names a file that is not there: every rank fails reading it, inside the
    control plane; rank 0 reports the error once, with the threaded engine's text, and the other
    ranks in one note (not one line per rank); exit 1, within 10 s."""
    argv = ["--interpret", str(FAILING / "sum.mlir"), SUM_ARGS]
    ref = subprocess.run([*translate_argv(), *argv], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert ref.returncode == 1
    assert ref.stderr.startswith("error: cannot read 'x.npy'"), ref.stderr
    message = ref.stderr.strip().removeprefix("error: ")
    run = launch(mpi, 4, [*translate_argv(), *argv, "--engine=mpi"], tmp_path)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and run.stdout == ""
    ours = run.ours()
    assert len(ours) == 2, run.stderr[-3000:]
    head = re.fullmatch(
        rf"error: rank (\d) \(replica 0, partition \1\): {re.escape(message)} "
        r"\(3 other ranks stopped\)", ours[0],
    )
    assert head, ours[0]
    root = int(head.group(1))
    note = re.fullmatch(r"note: (ranks? [0-9, -]+|rank \d \(.*\)) failed too, with the same "
                        r"error", ours[1])
    assert note, ours[1]
    # each other rank failed the same way, unless the stop reached it before its read did (it
    # then stopped without an error of its own)
    others = ranks_in(note.group(1).split(" (")[0])
    assert others and others <= set(range(4)) - {root}
    print(f"missing file, every rank: root rank {root}, noted {sorted(others)}")
    seconds = figures("missing file, every rank", run, run.when(ours[0]), "report line")
    assert seconds + COLLECT <= LIMIT


def test_an_argument_file_one_rank_cannot_read(mpi: Mpi, tmp_path: Path) -> None:
    """Rank 1 starts in a directory without x.npy (mpirun's per-rank working directory), the
    others read it and wait in the all_reduce: rank 0's one line names rank 1 and the file; exit
    1, within 10 s."""
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float32))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = [*translate_argv(), "--interpret", "--engine=mpi", str(FAILING / "sum.mlir"), SUM_ARGS]
    ref = subprocess.run([*translate_argv(), "--interpret", str(FAILING / "sum.mlir"), SUM_ARGS],
                         capture_output=True, text=True, cwd=elsewhere, timeout=300)
    message = ref.stderr.strip().removeprefix("error: ")
    assert ref.returncode == 1 and message.startswith("cannot read 'x.npy'")
    # rank 0 here, rank 1 in `elsewhere`, ranks 2-3 here
    run = launch(mpi, 1, [*argv, ":", "-n", "1", "-wdir", str(elsewhere), *argv,
                          ":", "-n", "2", *argv], tmp_path)
    assert run.returncode == 1
    line = f"error: rank 1 (replica 0, partition 1): {message} (3 other ranks stopped)"
    assert run.ours() == [line], run.stderr[-3000:]
    assert run.stdout == ""
    seconds = figures("missing file, rank 1", run, run.when(line), "report line")
    assert seconds + COLLECT <= LIMIT
