"""The control plane (interpreter/mpi/control.py, plan §3.3) on real ranks: a failing rank ends
the job within 10 s with one report on rank 0's stderr, whatever the other ranks are doing
(waiting in a collective, computing in Python, in one long numpy call, rank 0 included); the
broker's send/recv and infeed; a clean end.  Rank programs: tests/mpi/control_ranks.py.

Each failing case measures the time from the failure (the failing rank writes it just before
raising) to mpirun's exit; ``pytest -s`` prints the figures."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from tests.mpi.conftest import Mpi

#: the done-when bound (plan §5.3): from a failure to the end of the job
LIMIT = 10.0
ERROR = "prog.mlir:7:3: 'stablehlo.custom_call' op @foo: no implementation of this target"
NOTE = "note: register the target, or run it on a backend"
ABORT_NOTICE = "MPI_ABORT was invoked"


def _run(mpi: Mpi, n: int, scenario: str, out: Path) -> tuple[object, float, dict[int, dict]]:
    """Launch the scenario; (the launch, seconds from the failure to mpirun's exit (0 when none
    failed), each rank's record by rank (ranks killed by an Abort have none))."""
    started = time.time()
    done = mpi.run(n, ["-m", "tests.mpi.control_ranks", scenario, str(out)], timeout=90)
    ended = time.time()
    failed_at = out / "failed_at"
    seconds = ended - float(failed_at.read_text()) if failed_at.exists() else 0.0
    records = {}
    for path in out.glob("rank*.json"):
        record = json.loads(path.read_text())
        records[record["rank"]] = record
    figures = f"{scenario} ({n} ranks): launch {ended - started:.2f} s"
    if failed_at.exists():
        figures += f", failure to mpirun's exit {seconds:.2f} s"
        if 0 in records:  # rank 0 raised once its report was out and every rank had stopped
            figures += (f", to rank 0's RankFailed "
                        f"{records[0]['ended'] - float(failed_at.read_text()):.2f} s")
    print(figures)
    return done, seconds, records


def _lines(stderr: str) -> list[str]:
    return [line.rstrip() for line in stderr.splitlines()]


def _report(stderr: str, first: str) -> list[str]:
    """stderr's lines from the one starting with `first` (which must occur exactly once)."""
    lines = _lines(stderr)
    starts = [i for i, line in enumerate(lines) if line.startswith(first)]
    assert len(starts) == 1, stderr[-3000:]
    return lines[starts[0] :]


def _ours_then_notice(stderr: str, ours: list[str]) -> None:
    """`ours` are lines of stderr, in this order (lines of Open MPI may come between: its
    messages travel apart from the ranks' output), and Open MPI's abort notice, when it prints
    one (it sometimes fails to: "ORTE_ERROR_LOG: Out of resource in file .../show_help.c"),
    comes after all of them."""
    lines = _lines(stderr)
    where = [lines.index(line) if line in lines else -1 for line in ours]
    assert -1 not in where and where == sorted(where), stderr[-3000:]
    assert not any(ABORT_NOTICE in line for line in lines[: where[-1]]), stderr[-3000:]


def _stopped(rank: int) -> list[str]:
    return ["RankStopped", f"error: stopped: rank {rank} failed; rank 0 has the error"]


def test_a_rank_fails_while_the_others_wait_or_compute_with_checks(mpi: Mpi, tmp_path) -> None:
    """Rank 5 fails while rank 0 and five others wait in a collective and rank 3 computes in a
    loop that calls cp.check(): every rank stops cleanly (no Abort) and rank 0 prints the one
    report (root cause with its location and note) well within the limit."""
    done, seconds, records = _run(mpi, 8, "blocked", tmp_path)
    assert done.returncode != 0
    headline = f"error: rank 5 (replica 1, partition 1): {ERROR} (7 other ranks stopped)"
    assert _report(done.stderr, "error: rank 5")[:2] == [headline, NOTE]
    assert sum(line.startswith("error:") for line in _lines(done.stderr)) == 1
    assert done.stderr.count("no implementation of this target") == 1  # rank 0 alone prints
    assert ABORT_NOTICE not in done.stderr
    assert seconds < LIMIT
    assert sorted(records) == list(range(8))
    root = records[0]
    assert root["outcome"] == ["RankFailed", f"{headline}\n{NOTE}"]
    assert root["reported"] and root["report"] == f"{headline}\n{NOTE}\n"
    for rank in range(1, 8):
        assert records[rank]["outcome"] == _stopped(5), records[rank]
    assert records[5]["cause"] == "InterpreterError"  # its own error, chained
    assert records[3]["cause"] is None and records[3]["computing"]
    assert all(r["threads"] == 1 for r in records.values())  # the watchdogs have ended


def test_rank_0_busy_in_python_reports_then_the_abort_fallback_ends_the_job(
    mpi: Mpi, tmp_path
) -> None:
    """Rank 0's thread computes in pure Python and never looks at the flag: its watchdog still
    reports rank 5's error (1.5 s after the stop at the latest), the others stop and leave, and 3 s
    after the stop rank 0 says it did not stop and calls MPI_Abort: our lines come before Open
    MPI's notice, and the job ends within the limit."""
    done, seconds, records = _run(mpi, 6, "busy_python", tmp_path)
    assert done.returncode != 0
    _report(done.stderr, "error: rank 5")  # once
    _ours_then_notice(done.stderr, [
        f"error: rank 5 (replica 1, partition 1): {ERROR} (4 other ranks stopped; rank 0 still "
        "running)",
        NOTE,
        "error: rank 0 did not stop within 3 s of the error: ending the job with MPI_Abort",
    ])
    assert 2.9 <= seconds < LIMIT
    assert 0 not in records  # killed by the Abort, inside its loop
    assert sorted(records) == [1, 2, 3, 4, 5]
    assert all(r["outcome"] == _stopped(5) for r in records.values())


def test_a_rank_in_one_long_numpy_call_is_ended_by_the_abort_fallback(mpi: Mpi, tmp_path) -> None:
    """Rank 2 is inside one numpy call that holds the interpreter (its watchdog cannot run, it
    never acks): rank 0 reports, then aborts 3 s after the stop; our lines first."""
    done, seconds, records = _run(mpi, 6, "busy_numpy", tmp_path)
    assert done.returncode != 0
    _report(done.stderr, "error: rank 5")  # once
    _ours_then_notice(done.stderr, [
        f"error: rank 5 (replica 1, partition 1): {ERROR} (4 other ranks stopped; rank 2 still "
        "running)",
        NOTE,
        "error: rank 2 did not stop within 3 s of the error: ending the job with MPI_Abort",
    ])
    assert 2.9 <= seconds < LIMIT
    # rank 2 is ended by the Abort; the others stopped.  Rank 0 (waiting for rank 2) is ended by
    # the Abort too under Open MPI; under MPICH it may first raise RankFailed with the report.
    stopped = {rank: r for rank, r in records.items() if rank != 0}
    assert sorted(stopped) == [1, 3, 4, 5]
    assert all(r["outcome"] == _stopped(5) for r in stopped.values())
    if 0 in records:
        assert records[0]["outcome"][0] == "RankFailed" and records[0]["reported"], records[0]


def test_rank_0_in_one_long_numpy_call_the_failing_rank_aborts_itself(mpi: Mpi, tmp_path) -> None:
    """Rank 0's watchdog cannot run (rank 0 holds the interpreter in one numpy call): the failing
    rank 3 gets no answer, says its own error and why, and calls MPI_Abort after abort_after +
    END_GRACE (5 s)."""
    done, seconds, records = _run(mpi, 4, "root_numpy", tmp_path)
    assert done.returncode != 0
    _report(done.stderr, "error: rank 3")  # once
    _ours_then_notice(done.stderr, [
        f"error: rank 3 (replica 0, partition 3): {ERROR}",
        "note: rank 0 did not answer within 5 s of this error: ending the job with MPI_Abort",
    ])
    assert 4.9 <= seconds < LIMIT


def test_an_error_on_rank_0_itself_goes_the_same_way(mpi: Mpi, tmp_path) -> None:
    """Rank 0's own thread raises a ValueError (a bug, not a toolkit error): the report has its
    traceback; rank 0 raises RankFailed chained to it, the others RankStopped."""
    done, seconds, records = _run(mpi, 3, "root_error", tmp_path)
    assert done.returncode != 0
    report = _report(done.stderr, "error: rank 0")
    assert report[0] == (
        "error: rank 0 (replica 0, partition 0): ValueError: a bug on rank 0 "
        "(2 other ranks stopped)"
    )
    assert report[1] == "Traceback (most recent call last):"
    assert 'raise ValueError("a bug on rank 0")' in "\n".join(report)
    assert seconds < LIMIT
    assert records[0]["outcome"][0] == "RankFailed" and records[0]["cause"] == "ValueError"
    for rank in (1, 2):
        assert records[rank]["outcome"] == [
            "RankStopped", "error: stopped: rank 0 failed and has the error"
        ]


def test_a_failure_after_the_others_finished(mpi: Mpi, tmp_path) -> None:
    """Ranks 0-2 finished and wait for the others at the end; rank 3 fails a second later: they
    stop too (the run failed), and the report counts them as stopped."""
    done, seconds, records = _run(mpi, 4, "late", tmp_path)
    assert done.returncode != 0
    assert _report(done.stderr, "error: rank 3")[0].endswith("(3 other ranks stopped)")
    assert seconds < LIMIT
    assert records[0]["outcome"][0] == "RankFailed"
    for rank in (1, 2, 3):
        assert records[rank]["outcome"] == _stopped(3)
    for rank in (0, 1, 2):  # they had finished their part before rank 3 failed
        assert records[rank]["leaving"] < float((tmp_path / "failed_at").read_text())


def test_broker_send_recv_and_infeed_across_ranks(mpi: Mpi, tmp_path) -> None:
    """Rank 0's broker: FIFO per channel in the order sends happened across ranks (bits, dtypes
    and shapes kept), a recv that waits for a later send, a rank receiving its own send, separate
    channels, infeed entries in the order asked then None, 60 messages in bursts."""
    done, _, records = _run(mpi, 4, "broker", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(r["outcome"] == "clean" for r in records.values()), records
    root = records[0]
    assert root["fifo"] == root["fifo_expected"]
    waited, dtype, value = records[1]["waited"]
    assert 0.2 <= waited < 10 and dtype == "bfloat16" and value == [2.5]
    assert root["self"] == [[0, 1, 2, 3]]
    assert records[2]["channel21"] == [21] and records[3]["channel20"] == [20]
    assert [records[r]["infeed"] for r in (3, 1, 2)] == ["a", "b", "c"]
    assert root["infeed_empty"] is None
    many = root["many"]
    assert sorted(map(tuple, many)) == [(r, i) for r in (1, 2, 3) for i in range(20)]
    for sender in (1, 2, 3):  # each sender's messages in its order
        assert [i for r, i in many if r == sender] == list(range(20))
    print(f"broker: 60 sends/recvs in {root['many_seconds']:.3f} s")


def test_the_mpi_grid_runs_on_the_control_planes_flag_and_broker(mpi: Mpi, tmp_path) -> None:
    """`MpiGrid` given `cp.aborted` and `cp.broker`: its send/recv and infeed go through rank 0,
    and a failure while the others are in one of its rendezvous stops them (they ack)."""
    done, seconds, records = _run(mpi, 4, "grid", tmp_path)
    assert done.returncode != 0
    assert _report(done.stderr, "error: rank 3")[0] == (
        f"error: rank 3 (replica 0, partition 3): {ERROR} (3 other ranks stopped)"
    )
    assert seconds < LIMIT
    assert records[2]["received"] == ["float16", np.array([1.5, -0.0], np.float16).tobytes().hex()]
    assert records[3]["infeed"] == "a"
    assert all(records[r]["rendezvous"] == [0, 1, 2, 3] for r in range(4))
    assert records[0]["outcome"][0] == "RankFailed"
    assert all(records[r]["outcome"] == _stopped(3) for r in (1, 2, 3))


def test_a_clean_end(mpi: Mpi, tmp_path) -> None:
    """No failure: every rank leaves the control plane quickly (a barrier through rank 0 that also
    drains the broker), its watchdog gone, and mpirun exits 0 with nothing on stderr from us."""
    done, _, records = _run(mpi, 8, "clean", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "error" not in done.stderr
    assert sorted(records) == list(range(8))
    assert all(r["outcome"] == "clean" and r["threads"] == 1 for r in records.values())
    assert sorted(r["received"] for r in records.values()) == list(range(8))
    lag = max(r["ended"] - r["leaving"] for r in records.values())
    print(f"clean end: slowest rank left the control plane {lag:.3f} s after its last op")
    assert lag < 5.0
