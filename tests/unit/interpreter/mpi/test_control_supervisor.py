"""interpreter/mpi/supervisor.py without MPI: what rank 0's watchdog does with each message and
with time (stop, report, end, Abort, finish) and the broker's queues (FIFO per channel, any
sender and receiver, infeed order), driven by hand with a fake clock."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi import messages as M
from stablehlo_py.interpreter.mpi.supervisor import Supervisor


def _error(rank: int, message: str = "boom", **kw) -> M.Message:
    failure = M.Failure(rank, (0, rank), "InterpreterError", message, **kw)
    return M.unpack(M.pack("error", failure.fields()))


ACK, DONE = M.Message("ack", {}), M.Message("done", {})


def _kinds(outs) -> list[tuple[int, int, str]]:
    return [(o.dest, o.tag, M.unpack(o.data).kind) for o in outs]


def test_first_error_stops_every_rank_then_report_and_end_when_all_have_stopped() -> None:
    sup = Supervisor(4)
    outs = sup.receive(3, _error(3, "it broke"), now=10.0)
    assert _kinds(outs) == [(r, M.TAG_DOWN, "stop") for r in range(4)]
    assert all(M.unpack(o.data).fields == {"rank": 3} for o in outs)
    assert sup.stopping and sup.running == [0, 1, 2]
    assert sup.tick(10.1).report is None  # still collecting
    assert sup.receive(1, ACK, 10.2) == [] and sup.receive(0, ACK, 10.2) == []
    assert sup.tick(10.3).report is None
    sup.receive(2, ACK, 10.4)
    actions = sup.tick(10.4)
    assert actions.report == (
        "error: rank 3 (replica 0, partition 3): it broke (3 other ranks stopped)\n"
    )
    assert _kinds(actions.sends) == [(r, M.TAG_DOWN, "end") for r in range(4)]
    assert all(M.unpack(o.data).fields == {"rank": 3} for o in actions.sends)
    assert actions.abort is None and sup.over
    assert sup.tick(20.0).report is None  # once


def test_later_errors_are_collected_and_the_lowest_rank_before_the_stop_is_the_root() -> None:
    sup = Supervisor(4)
    sup.receive(3, _error(3, "three"), 0.0)
    assert sup.receive(1, _error(1, "one"), 0.01) == []  # no second stop
    sup.receive(2, _error(2, "late", after_stop=True), 0.02)
    sup.receive(0, ACK, 0.03)
    report = sup.tick(0.03).report
    assert report.splitlines() == [
        "error: rank 1 (replica 0, partition 1): one (3 other ranks stopped)",
        "note: rank 2 (replica 0, partition 2) failed too: late",
        "note: rank 3 (replica 0, partition 3) failed too: three",
    ]


def test_every_rank_failing_alike_gives_two_lines() -> None:
    """An argument file every rank misses: all eight errors arrive, the report is made once
    every rank has stopped and says the repeated error once."""
    sup = Supervisor(8)
    message = "cannot read 'x.npy': No such file or directory"
    sup.receive(2, _error(2, message), 0.0)
    for r in (0, 1, 3, 4, 5, 6):
        assert sup.receive(r, _error(r, message, after_stop=r == 0), 0.05) == []
    assert sup.tick(0.05).report is None  # rank 7 has not said anything yet
    sup.receive(7, _error(7, message), 0.06)
    actions = sup.tick(0.06)
    assert actions.report.splitlines() == [
        f"error: rank 1 (replica 0, partition 1): {message} (7 other ranks stopped)",
        "note: ranks 0, 2-7 failed too, with the same error",
    ]
    assert actions.abort is None and sup.over


def test_report_after_collect_seconds_then_abort_after_abort_after_seconds() -> None:
    sup = Supervisor(8, collect=1.5, abort_after=3.0)
    sup.receive(5, _error(5), 100.0)
    for r in (0, 1, 3, 4, 6, 7):
        sup.receive(r, ACK, 100.1)
    assert sup.tick(101.49).report is None
    actions = sup.tick(101.5)
    assert actions.report.startswith(
        "error: rank 5 (replica 0, partition 5): boom (6 other ranks stopped; rank 2 still running)"
    )
    assert _kinds(actions.sends) == [(r, M.TAG_DOWN, "end") for r in range(8)]
    assert actions.abort is None and not sup.over
    assert sup.tick(102.9).abort is None
    actions = sup.tick(103.0)
    assert actions.report is None and actions.sends == []
    assert actions.abort == (
        "error: rank 2 did not stop within 3 s of the error: ending the job with MPI_Abort\n"
    )
    assert sup.over


def test_a_late_ack_before_abort_after_avoids_the_abort() -> None:
    sup = Supervisor(3, collect=1.5, abort_after=3.0)
    sup.receive(1, _error(1), 0.0)
    sup.receive(0, ACK, 0.1)
    assert sup.tick(1.6).report is not None and not sup.over
    sup.receive(2, ACK, 2.0)
    actions = sup.tick(2.0)
    assert actions.abort is None and actions.report is None and sup.over


def test_abort_after_below_collect_reports_first_then_aborts_in_the_same_tick() -> None:
    sup = Supervisor(2, collect=1.5, abort_after=0.5)
    sup.receive(1, _error(1), 0.0)
    assert sup.tick(0.4).report is None
    actions = sup.tick(0.5)
    assert "rank 0 still running" in actions.report
    assert actions.abort.startswith("error: rank 0 did not stop within 0.5 s")


def test_no_abort_after_means_never() -> None:
    sup = Supervisor(3, collect=1.5, abort_after=None)
    sup.receive(1, _error(1), 0.0)
    actions = sup.tick(1.5)
    assert actions.report is not None and actions.abort is None and sup.over


def test_done_ranks_count_as_stopped() -> None:
    sup = Supervisor(3)
    sup.receive(0, DONE, 0.0)
    sup.receive(2, DONE, 0.0)
    sup.receive(1, _error(1), 0.5)
    assert sup.running == []
    assert sup.tick(0.5).report.endswith("(2 other ranks stopped)\n")
    sup2 = Supervisor(2)
    sup2.receive(1, _error(1), 0.0)
    sup2.receive(0, DONE, 0.1)  # done after the stop: stopped as well
    assert sup2.running == []


def test_all_done_finishes_every_rank() -> None:
    sup = Supervisor(3)
    assert sup.receive(2, DONE, 0.0) == [] and sup.receive(0, DONE, 0.0) == []
    assert not sup.finished
    outs = sup.receive(1, DONE, 0.1)
    assert _kinds(outs) == [(r, M.TAG_DOWN, "finish") for r in range(3)]
    assert sup.finished and sup.over
    assert sup.tick(50.0).report is None


def test_bad_messages_are_errors() -> None:
    sup = Supervisor(2)
    with pytest.raises(InterpreterError, match="from rank 2 of 2"):
        sup.receive(2, ACK, 0.0)
    with pytest.raises(InterpreterError, match="rank 1 sent an error message of rank 0"):
        sup.receive(1, _error(0), 0.0)
    with pytest.raises(InterpreterError, match="got a 'stop' control message from rank 1"):
        sup.receive(1, M.Message("stop", {}), 0.0)
    with pytest.raises(InterpreterError, match="without a channel"):
        sup.receive(1, M.Message("recv", {}), 0.0)
    with pytest.raises(InterpreterError, match="without values"):
        sup.receive(1, M.Message("send", {"c": 1}), 0.0)
    with pytest.raises(InterpreterError, match="at least one rank"):
        Supervisor(0)


# ------------------------------------------------------------------------------------- broker


def _send(channel: int, *values) -> M.Message:
    return M.unpack(M.pack_values("send", [np.asarray(v) for v in values], {"c": channel},
                                  what="send"))


def _recv(channel: int) -> M.Message:
    return M.unpack(M.pack("recv", {"c": channel}))


def _got(outs) -> list[tuple[int, list]]:
    """(receiver, values as lists) of REPLY messages."""
    result = []
    for o in outs:
        assert o.tag == M.TAG_REPLY
        m = M.unpack(o.data)
        assert m.kind == "values"
        result.append((o.dest, [v.tolist() for v in M.unpack_values(m)]))
    return result


def test_sends_before_receives_are_served_in_order_per_channel() -> None:
    sup = Supervisor(4)
    assert sup.receive(3, _send(5, [1, 2]), 0) == []
    assert sup.receive(1, _send(5, [3], 4.5), 0) == []
    assert sup.receive(1, _send(6, [9]), 0) == []
    assert _got(sup.receive(2, _recv(6), 0)) == [(2, [[9]])]
    assert _got(sup.receive(0, _recv(5), 0)) == [(0, [[1, 2]])]
    assert _got(sup.receive(0, _recv(5), 0)) == [(0, [[3], 4.5])]
    assert sup.receive(2, _recv(5), 0) == []  # empty: rank 2 waits
    assert sup.queues == {} and list(sup.waiting[5]) == [2]


def test_receivers_that_wait_are_answered_in_the_order_they_asked() -> None:
    sup = Supervisor(4)
    assert sup.receive(2, _recv(1), 0) == []
    assert sup.receive(0, _recv(1), 0) == []
    assert sup.receive(3, _recv(2), 0) == []
    assert _got(sup.receive(1, _send(1, 10), 0)) == [(2, [10])]
    assert _got(sup.receive(3, _send(2, 20), 0)) == [(3, [20])]  # a rank may receive its own
    assert _got(sup.receive(1, _send(1, 11), 0)) == [(0, [11])]
    assert sup.waiting == {}
    assert sup.receive(1, _send(1, 12), 0) == [] and len(sup.queues[1]) == 1


def test_values_pass_through_the_broker_bit_for_bit() -> None:
    sup = Supervisor(2)
    x = np.array([np.nan, -0.0], np.float64)
    x.view(np.uint64)[0] = 0x7FF8000000000ABC
    sup.receive(1, M.unpack(M.pack_values("send", [x], {"c": 0}, what="send")), 0)
    (out,) = sup.receive(0, _recv(0), 0)
    (y,) = M.unpack_values(M.unpack(out.data))
    assert y.tobytes() == x.tobytes()


def test_infeed_entries_in_order_then_none() -> None:
    sup = Supervisor(3, infeed=["first", [np.arange(2), np.float32(1.5)], "third"])

    def ask(rank: int):
        (out,) = sup.receive(rank, M.Message("infeed", {}), 0)
        assert (out.dest, out.tag) == (rank, M.TAG_REPLY)
        m = M.unpack(out.data)
        assert m.kind == "entry"
        return [v.tolist() for v in M.unpack_values(m)] if "v" in m.fields else m.fields["name"]

    assert ask(2) == "first"
    assert ask(0) == [[0, 1], 1.5]
    assert ask(1) == "third"
    assert ask(1) is None and ask(2) is None


def test_the_broker_answers_nothing_once_stopping() -> None:
    sup = Supervisor(3, infeed=["a"])
    sup.receive(1, _send(4, 1), 0)
    sup.receive(2, _error(2), 0)
    assert sup.receive(0, _recv(4), 0) == []
    assert sup.receive(0, M.Message("infeed", {}), 0) == []
    assert sup.receive(1, _send(4, 2), 0) == []
