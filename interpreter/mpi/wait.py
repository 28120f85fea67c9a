"""Waiting for nonblocking MPI requests without spinning.

MPI's blocking waits busy-poll: with 8 ranks on 2 cores, ranks that wait would take the CPU from
the rank that computes.  So every wait of the MPI engine is ``request.Test()`` followed by a sleep
that grows from :data:`FIRST_SLEEP` (0.1 ms) to :data:`LAST_SLEEP` (5 ms), until the request
completes, an abort flag is raised (another rank failed: the control plane sets it), or a timeout
passes.  The timeout's message for a collective is the threaded grid's (``ProcessGrid.rendezvous``,
impls/collectives.py): :func:`rendezvous_timeout`.

Requests are anything with ``Test() -> bool`` (mpi4py's ``MPI.Request`` and its subclasses; tests
use fakes).  Testing a completed request again is allowed (MPI turns it into ``REQUEST_NULL``,
whose test is true).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from stablehlo_py.errors import InterpreterError

#: first and longest sleep between two tests of a request (seconds)
FIRST_SLEEP = 1e-4
LAST_SLEEP = 5e-3
#: the MPI engine's default timeout of a wait (seconds; large tiles on real clusters are slow)
DEFAULT_TIMEOUT = 600.0


class Testable(Protocol):
    def Test(self) -> bool: ...  # noqa: N802 - mpi4py's name


class WaitAborted(InterpreterError):
    """A wait gave up because the run is stopping (another rank failed)."""

    def __init__(self, what: str = "a wait") -> None:
        super().__init__(f"{what} was abandoned: another process of the run failed")


#: an abort flag: a callable (true, or an exception to raise, once the run is stopping), an
#: object with ``is_set()`` (threading.Event), or None
Abort = Any


def rendezvous_timeout(members: Sequence[Any]) -> str:
    """The threaded grid's message for a collective whose group did not all arrive."""
    return (
        f"collective rendezvous of processes {list(members)} timed out: not every process of the "
        "group reached the same collective op"
    )


def _check_abort(abort: Abort, what: str) -> None:
    if abort is None:
        return
    flag = abort.is_set() if hasattr(abort, "is_set") else abort()
    if isinstance(flag, BaseException):
        raise flag
    if flag:
        raise WaitAborted(what)


def wait_all(
    requests: Sequence[Testable],
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    abort: Abort = None,
    timeout_message: str | Callable[[], str] = "an MPI transfer timed out",
    what: str = "an MPI transfer",
    sleep: Callable[[float], Any] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Return once every request has completed; test each, then sleep (0.1 ms doubling to 5 ms)
    and test again.  Raise the abort flag's exception (or :class:`WaitAborted`) as soon as it is
    set, and InterpreterError(`timeout_message`) when `timeout` seconds (None: never) pass first.
    The requests' completion is checked before the abort flag and the clock, so a request that has
    completed is never reported as aborted or late.  After an abort or a timeout the requests
    still pending stay the caller's (a collective cannot be cancelled: the run ends, or it waits
    again)."""
    pending = list(requests)
    deadline = None if timeout is None else clock() + timeout
    pause = FIRST_SLEEP
    while True:
        pending = [r for r in pending if not r.Test()]
        if not pending:
            return
        _check_abort(abort, what)
        if deadline is not None and clock() >= deadline:
            raise InterpreterError(
                timeout_message() if callable(timeout_message) else timeout_message
            )
        if deadline is not None:
            sleep(max(0.0, min(pause, deadline - clock())))
        else:
            sleep(pause)
        pause = min(pause * 2, LAST_SLEEP)


def wait(request: Testable, **kwargs: Any) -> None:
    """:func:`wait_all` for one request."""
    wait_all([request], **kwargs)


__all__ = [
    "DEFAULT_TIMEOUT",
    "FIRST_SLEEP",
    "LAST_SLEEP",
    "WaitAborted",
    "rendezvous_timeout",
    "wait",
    "wait_all",
]
