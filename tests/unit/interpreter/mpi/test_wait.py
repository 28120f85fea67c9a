"""interpreter/mpi/wait.py with fake requests and a fake clock (no MPI): completion, backoff,
timeout (the threaded grid's message), abort flags."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi import wait as W


class FakeRequest:
    """Completes at its `done_after`-th test (never when None)."""

    def __init__(self, done_after: int | None) -> None:
        self.done_after = done_after
        self.tests = 0

    def Test(self) -> bool:  # noqa: N802 - mpi4py's name
        self.tests += 1
        return self.done_after is not None and self.tests >= self.done_after


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _wait(requests, t: FakeTime, **kwargs) -> None:
    W.wait_all(requests, sleep=t.sleep, clock=t.clock, **kwargs)


def test_a_completed_request_returns_without_sleeping() -> None:
    t, r = FakeTime(), FakeRequest(1)
    _wait([r], t)
    assert r.tests == 1 and t.sleeps == []


def test_sleeps_double_from_a_tenth_of_a_millisecond_to_five_milliseconds() -> None:
    t, r = FakeTime(), FakeRequest(12)
    _wait([r], t)
    assert r.tests == 12
    assert t.sleeps == pytest.approx([1e-4, 2e-4, 4e-4, 8e-4, 1.6e-3, 3.2e-3, 5e-3, 5e-3, 5e-3,
                                      5e-3, 5e-3])
    assert W.FIRST_SLEEP == 1e-4 and W.LAST_SLEEP == 5e-3


def test_wait_all_tests_each_request_until_it_completes() -> None:
    t = FakeTime()
    a, b, c = FakeRequest(1), FakeRequest(4), FakeRequest(2)
    _wait([a, b, c], t)
    assert (a.tests, b.tests, c.tests) == (1, 4, 2)  # a completed request is not tested again
    assert len(t.sleeps) == 3


def test_timeout_raises_the_given_message_after_the_timeout() -> None:
    t, r = FakeTime(), FakeRequest(None)
    members = [(0, 0), (0, 1)]
    with pytest.raises(InterpreterError) as e:
        _wait([r], t, timeout=2.0, timeout_message=W.rendezvous_timeout(members))
    assert str(e.value) == (
        "error: collective rendezvous of processes [(0, 0), (0, 1)] timed out: not every process "
        "of the group reached the same collective op"
    )
    assert 2.0 <= t.now - 100.0 <= 2.0 + 1e-9  # the last sleep stops at the deadline
    assert max(t.sleeps) == W.LAST_SLEEP


def test_timeout_message_may_be_computed_when_needed() -> None:
    asked = []

    def message() -> str:
        asked.append(1)
        return "recv on channel 3 timed out: nothing was sent on it"

    t = FakeTime()
    _wait([FakeRequest(3)], t, timeout=1.0, timeout_message=message)
    assert asked == []
    with pytest.raises(InterpreterError, match="recv on channel 3 timed out"):
        _wait([FakeRequest(None)], t, timeout=0.01, timeout_message=message)
    assert asked == [1]


def test_no_timeout_waits_as_long_as_it_takes() -> None:
    t, r = FakeTime(), FakeRequest(130_000)
    _wait([r], t, timeout=None)
    assert t.now - 100.0 > W.DEFAULT_TIMEOUT  # longer than any default timeout
    assert r.tests == 130_000


def test_default_timeout_is_ten_minutes() -> None:
    t = FakeTime()
    with pytest.raises(InterpreterError, match="an MPI transfer timed out"):
        _wait([FakeRequest(None)], t)
    assert t.now - 100.0 == pytest.approx(600.0)


def test_an_event_aborts_the_wait() -> None:
    t, r = FakeTime(), FakeRequest(None)
    stop = threading.Event()
    calls = []

    def sleep(s: float) -> None:
        t.sleep(s)
        if len(t.sleeps) == 5:
            stop.set()
        calls.append(s)

    with pytest.raises(W.WaitAborted) as e:
        W.wait_all([r], abort=stop, what="a recv from rank 3", sleep=sleep, clock=t.clock)
    assert str(e.value) == (
        "error: a recv from rank 3 was abandoned: another process of the run failed"
    )
    assert len(calls) == 5 and r.tests == 6
    assert isinstance(e.value, InterpreterError)


def test_an_abort_callable_may_give_the_exception_to_raise() -> None:
    class Stopped(InterpreterError):
        pass

    flags = iter([None, False, Stopped("stopped: rank 3 failed; rank 0 has the error")])
    t = FakeTime()
    with pytest.raises(Stopped, match="stopped: rank 3 failed"):
        _wait([FakeRequest(None)], t, abort=lambda: next(flags))
    assert len(t.sleeps) == 2

    t = FakeTime()
    with pytest.raises(W.WaitAborted, match="an MPI transfer was abandoned"):
        _wait([FakeRequest(None)], t, abort=lambda: True)
    assert t.sleeps == []


def test_completion_wins_over_abort_and_timeout() -> None:
    t = FakeTime()
    done = threading.Event()
    done.set()
    _wait([FakeRequest(1)], t, abort=done, timeout=0.0)
    _wait([FakeRequest(1)], t, abort=lambda: RuntimeError("never raised"), timeout=-1.0)


def test_rendezvous_timeout_is_the_threaded_grids_message(monkeypatch) -> None:
    """The same words as ProcessGrid.rendezvous when a member never arrives."""
    from stablehlo_py.interpreter.impls.collectives import ProcessGrid

    grid = ProcessGrid(1, 2)
    monkeypatch.setattr(sys.modules[ProcessGrid.__module__], "TIMEOUT", 0.05)
    with pytest.raises(InterpreterError) as e:
        grid.rendezvous(((0, 0), (0, 1)), 1, (0, 0), [np.zeros(1)])
    assert str(e.value) == "error: " + W.rendezvous_timeout([(0, 0), (0, 1)])


def test_real_time_wait_returns_soon_after_completion() -> None:
    """With the real clock and sleep: a request completed by another thread after 50 ms is seen
    within a few of the 5 ms sleeps."""

    class Flagged:
        def __init__(self) -> None:
            self.flag = threading.Event()

        def Test(self) -> bool:  # noqa: N802
            return self.flag.is_set()

    r = Flagged()
    timer = threading.Timer(0.05, r.flag.set)
    start = time.monotonic()
    timer.start()
    W.wait(r, timeout=10)
    assert 0.05 <= time.monotonic() - start < 2.0
