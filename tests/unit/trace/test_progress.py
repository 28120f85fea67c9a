"""Progress on stderr (stablehlo_py/trace/progress.py): plain lines at most every `interval`
seconds (none for a short job), a tqdm bar when tqdm imports and the stream is a terminal."""

from __future__ import annotations

import io
import sys
import types
from typing import Any

import pytest

from stablehlo_py.trace import progress as progress_module
from stablehlo_py.trace.progress import PLAIN_INTERVAL, Progress, start_progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(progress_module, "_now", c)
    return c


def test_plain_lines_at_most_every_interval(clock: Clock) -> None:
    out = io.StringIO()
    p = start_progress(10, "trace @main", unit="op", stream=out)
    assert type(p) is Progress and PLAIN_INTERVAL == 5.0
    p.update(1, "1 runs")
    clock.now += 4.9
    p.update(2, "2 runs")
    assert out.getvalue() == ""
    clock.now += 0.2
    p.update(3, "7 runs")
    clock.now += 1
    p.update(4, "9 runs")
    assert out.getvalue() == "trace @main: 3/10 op, 7 runs, 5 s\n"
    clock.now += 2
    p.close()
    assert out.getvalue().splitlines()[-1] == "trace @main: 4/10 op, 9 runs, 8 s"


def test_a_short_job_prints_nothing(clock: Clock) -> None:
    out = io.StringIO()
    p = start_progress(None, "reduce", stream=out)
    p.update(5)
    clock.now += 1
    p.close()
    assert out.getvalue() == ""
    p = start_progress(None, "reduce", stream=out, interval=0.0)
    p.update(5)
    assert out.getvalue() == "reduce: 5 it, 0 s\n"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeTqdm:
    made: list[FakeTqdm] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs, self.n, self.postfix, self.closed = kwargs, 0, "", False
        FakeTqdm.made.append(self)

    def update(self, n: int) -> None:
        self.n += n

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        self.postfix = s

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch: pytest.MonkeyPatch) -> type[FakeTqdm]:
    FakeTqdm.made = []
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    return FakeTqdm


def test_tqdm_on_a_terminal(fake_tqdm: type[FakeTqdm], clock: Clock) -> None:
    stream = Tty()
    p = start_progress(7, "trace @main", unit="op", stream=stream)
    (bar,) = fake_tqdm.made
    assert bar.kwargs == {
        "total": 7, "desc": "trace @main", "unit": "op", "file": stream, "leave": False
    }
    p.update(2, "3 runs")
    assert bar.n == 0  # redrawn at most every 0.1 s
    clock.now += 0.2
    p.update(3, "5 runs")
    assert (bar.n, bar.postfix) == (3, "5 runs")
    p.update(7, "9 runs")
    p.close()
    assert (bar.n, bar.postfix, bar.closed) == (7, "9 runs", True)
    assert stream.getvalue() == ""


def test_tqdm_is_not_used_off_a_terminal(fake_tqdm: type[FakeTqdm]) -> None:
    assert type(start_progress(3, "x", stream=io.StringIO())) is Progress
    assert fake_tqdm.made == []


def test_without_tqdm_a_terminal_gets_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import fails
    assert type(start_progress(3, "x", stream=Tty())) is Progress
