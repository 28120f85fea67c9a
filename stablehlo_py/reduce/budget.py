"""A CPU-time budget for in-process runs that may not end: a reduced program's while loop whose
bound became a stand-in can loop forever, and the interpreter has no step limit.

:func:`cpu_budget` raises :class:`OutOfTime` after ``seconds`` of this process's CPU time
(``ITIMER_PROF``).  It is a BaseException, so the interpreter's own ``except Exception`` cannot
swallow it.  No budget off the main thread (the signal goes to the main thread) or without
``setitimer`` (Windows): there the run is not bounded.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["OutOfTime", "cpu_budget"]


class OutOfTime(BaseException):
    """The budget of :func:`cpu_budget` was used up."""


@contextmanager
def cpu_budget(seconds: float | None) -> Iterator[None]:
    if (
        seconds is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    if seconds <= 0:
        raise OutOfTime

    def on_alarm(signum: int, frame: Any) -> None:
        raise OutOfTime

    old = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
