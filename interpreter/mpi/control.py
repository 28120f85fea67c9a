"""The control plane of an MPI run (docs/plans/issue-29-mpi.md §3.3): a watchdog thread per rank
that carries a failure to rank 0, which reports it once and stops every rank; a clean end; and
rank 0's broker for send/recv without source_target_pairs and for the infeed queue.

Use (every rank, from the thread that runs the program)::

    with ControlPlane(MPI.COMM_WORLD, pid_of=lambda r: divmod(r, N), abort_after=3.0,
                      infeed=names) as cp:
        grid = MpiGrid(..., aborted=cp.aborted, broker=cp.broker)
        ...                               # the rank's run

Interface for the grid and the runner:

- ``cp.aborted``: an :class:`AbortFlag` (a ``threading.Event``; also true as a bool, and callable:
  an AbortedError once set, else None), set as soon as this rank fails or rank 0's ``stop``
  reaches it.  Pass it as ``abort=`` to ``wait.wait``/``wait_all``: a wait then raises
  ``WaitAborted``.  ``cp.check()`` raises when it is set (a runner may call it between ops, so
  that a rank busy computing stops without waiting for the Abort fallback).
- ``cp.broker``: a :class:`Broker`, rank 0's queues seen from this rank, same semantics as the
  threaded ``ProcessGrid``'s (impls/process_grid.py):
  ``send(channel_id, values)`` queues a list of arrays on the channel and never waits for a
  receiver (it returns once rank 0 holds the message, so a send that happens before another
  rank's send in the program's order is queued first); ``recv(channel_id) -> list[np.ndarray]``
  returns the oldest values sent on the channel by any rank (waiting for one: abort flag, and
  `timeout` with the threaded grid's message); ``infeed_next()`` pops rank 0's next infeed entry
  (the `infeed` given to rank 0's ControlPlane): a function name (str), a list of arrays, or
  None once the queue is empty.  Call them from the thread that entered the control plane.

What happens on an exception inside the ``with`` (any exception, on any rank, rank 0 included):

1. the rank sets its ``aborted`` flag and sends ``error`` (rank, (replica, partition), kind,
   message) to rank 0; a rank whose exception is the stop itself (``WaitAborted``,
   ``AbortedError``, ``RankStopped`` while ``aborted`` is set) sends ``ack`` instead;
2. rank 0's watchdog, which serves whatever rank 0's own thread is doing, sends ``stop`` to every
   rank on the first error, collects the other ranks' errors and acks for up to `collect` (1.5) s,
   prints one report on `stream` (stderr), root cause first::

       error: rank 3 (replica 0, partition 3): <message> (7 other ranks stopped)

   and sends ``end``; a rank that has not stopped `abort_after` (3) s after the stop (one long
   call that holds the interpreter) makes rank 0 print which, and call ``MPI_Abort`` (all ranks
   end; Open MPI's notice follows our lines).  `abort_after` None: never;
3. rank 0's ``with`` raises :class:`RankFailed` (its text is the report's first line, its
   `report` the whole report, already printed: a CLI must not print it again), every other rank's
   :class:`RankStopped` ("stopped: rank 3 failed; rank 0 has the error").  Leaving the process
   then is the caller's: a plain exit calls ``MPI_Finalize``, which waits for every rank.

A clean end: every rank sends ``done`` after its last message, rank 0 answers ``finish`` once all
have (a polled barrier that also drains the broker), the watchdogs stop, and the control
communicator is freed: nothing is left in flight for ``MPI_Finalize``.

Limits: a process killed by a signal is reported by mpirun, not here (Open MPI 4.1: "mpirun
noticed that process rank 3 with PID 0 on node ... exited on signal 9 (Killed)."; the other ranks
get SIGTERM about a second after the death; Open MPI 4.1 still forwards what rank 0 writes then,
5.0 does not, and rank 0 cannot tell which rank died: so it says nothing).  If rank
0's own thread holds the interpreter in one long C call, its watchdog cannot run: after
`abort_after` + :data:`END_GRACE` seconds without rank 0's ``end``, a failing rank prints its own
error and calls ``MPI_Abort`` itself.

Every wait here sleeps (no busy polling: 8 ranks may share 2 cores): watchdogs probe every
:data:`POLL` s, rank 0's every :data:`ROOT_POLL` s and every :data:`FAST_POLL` s for
:data:`BURST` s after a message (broker traffic comes in bursts).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np
from stablehlo_py.interpreter.impls.process_grid import AbortedError
from stablehlo_py.interpreter.mpi import require_mpi
from stablehlo_py.interpreter.mpi.messages import (
    TAG_DOWN,
    TAG_REPLY,
    TAG_UP,
    Failure,
    Message,
    describe,
    headline,
    pack,
    pack_values,
    root_cause,
    unpack,
    unpack_values,
)
from stablehlo_py.interpreter.mpi.supervisor import ABORT_AFTER, COLLECT, Actions, Out, Supervisor
from stablehlo_py.interpreter.mpi.wait import DEFAULT_TIMEOUT, WaitAborted, wait, wait_all

from stablehlo_py.errors import InterpreterError

#: seconds between two probes of a watchdog (rank 0's, when idle)
POLL = 0.05
ROOT_POLL = 0.02
#: rank 0's probe interval for BURST seconds after a message
FAST_POLL = 0.001
BURST = 0.2
#: seconds a failing rank gives rank 0 beyond `abort_after` to answer before it aborts itself
END_GRACE = 2.0
#: seconds between our last line and MPI_Abort: Open MPI's notice travels apart from the ranks'
#: forwarded output, so without a pause it may overtake our lines
ABORT_PAUSE = 0.3


class RankStopped(InterpreterError):
    """This rank stopped because rank `failed_rank` failed; rank 0 reports the error."""

    def __init__(self, failed_rank: int | None) -> None:
        self.failed_rank = failed_rank
        if failed_rank == 0:
            text = "stopped: rank 0 failed and has the error"
        else:
            who = "another rank" if failed_rank is None else f"rank {failed_rank}"
            text = f"stopped: {who} failed; rank 0 has the error"
        super().__init__(text)


class RankFailed(InterpreterError):
    """Rank 0's error after a failure: its text is the report's first line (the root cause);
    `report` is the whole report, already printed on the control plane's stream (`reported`)."""

    def __init__(self, failures: Sequence[Failure], size: int, running: Sequence[int],
                 report: str) -> None:
        root = root_cause(failures)
        super().__init__(headline(root, size, running), note=root.note)
        self.failure = root
        self.failures = list(failures)
        self.report = report
        self.reported = True


#: exceptions that mean "the run is stopping" once the abort flag is set (an ack, not an error)
STOP_KINDS = (AbortedError, WaitAborted, RankStopped)


class AbortFlag(threading.Event):
    """Set when the run is stopping.  A ``threading.Event`` (``wait.wait`` tests ``is_set()``),
    true as a bool once set, and callable: an AbortedError once set, else None."""

    def __bool__(self) -> bool:
        return self.is_set()

    def __call__(self) -> AbortedError | None:
        return AbortedError() if self.is_set() else None


class _Probe:
    """A matched probe as a request for ``wait``: Test() is true once a message from `source`
    with `tag` has arrived; receive() then takes it."""

    def __init__(self, MPI: Any, comm: Any, source: int, tag: int) -> None:  # noqa: N803
        self._MPI, self._comm, self._source, self._tag = MPI, comm, source, tag
        self.status = MPI.Status()
        self.message: Any = None

    def Test(self) -> bool:  # noqa: N802 - the request protocol's name
        if self.message is None:
            self.message = self._comm.Improbe(self._source, self._tag, self.status)
        return self.message is not None

    def receive(self) -> tuple[int, Message]:
        buf = bytearray(self.status.Get_count(self._MPI.BYTE))
        self.message.Recv([buf, self._MPI.BYTE])
        return self.status.Get_source(), unpack(buf)


class Broker:
    """Rank 0's send/recv and infeed queues, used from any rank (see the module's docstring)."""

    def __init__(self, plane: ControlPlane) -> None:
        self._plane = plane

    def send(self, channel_id: int, values: Sequence[Any]) -> None:
        """Queue `values` on channel `channel_id`; returns once rank 0 holds them."""
        plane = self._plane
        plane._check_caller("send")
        what = f"send on channel {channel_id}"
        data = pack_values("send", list(values), {"c": int(channel_id)}, what=what)
        request = plane._send_up(data)
        wait(
            request, abort=plane.aborted, timeout=plane.timeout, what=f"a {what}",
            timeout_message=f"{what}: rank 0 did not take the values within {plane.timeout:g} s",
        )

    def recv(self, channel_id: int) -> list[np.ndarray]:
        """The oldest values sent on channel `channel_id` (waits for a send)."""
        plane = self._plane
        plane._check_caller("recv")
        plane._send_up(pack("recv", {"c": int(channel_id)}))
        message = plane._reply(
            what=f"a recv on channel {channel_id}",
            timeout_message=f"recv on channel {channel_id} timed out: nothing was sent on it",
        )
        if message.kind != "values":
            raise InterpreterError(f"recv on channel {channel_id}: rank 0 answered {message.kind}")
        return unpack_values(message)

    def infeed_next(self) -> str | list[np.ndarray] | None:
        """Rank 0's next infeed entry: a function name, a list of arrays, or None (empty)."""
        plane = self._plane
        plane._check_caller("infeed")
        plane._send_up(pack("infeed"))
        message = plane._reply(
            what="an infeed", timeout_message=f"infeed: rank 0 did not answer within "
            f"{plane.timeout:g} s",
        )
        if message.kind != "entry":
            raise InterpreterError(f"infeed: rank 0 answered {message.kind}")
        if "v" in message.fields:
            return unpack_values(message)
        name = message.fields.get("name")
        return None if name is None else str(name)


class ControlPlane:
    """One rank's side of the control plane (see the module's docstring); a context manager.

    `comm`: the run's communicator (default COMM_WORLD; its rank 0 reports); `pid_of(rank)`: the
    (replica, partition) of a rank, for the report (default (0, rank)); `abort_after`, `collect`:
    seconds after the stop (see above); `infeed`: rank 0's infeed entries; `timeout`: seconds a
    broker call or the start may wait; `stream`: where rank 0 reports (default sys.stderr)."""

    def __init__(
        self,
        comm: Any = None,
        *,
        pid_of: Callable[[int], Sequence[int]] | None = None,
        abort_after: float | None = ABORT_AFTER,
        collect: float = COLLECT,
        infeed: Sequence[Any] = (),
        timeout: float | None = DEFAULT_TIMEOUT,
        stream: TextIO | None = None,
    ) -> None:
        self._base = comm
        self._pid_of = pid_of or (lambda r: (0, r))
        self.abort_after = abort_after
        self.collect = collect
        self.timeout = timeout
        self._infeed = list(infeed)
        self._stream = stream
        self.aborted = AbortFlag()
        self.broker = Broker(self)
        self.rank = -1
        self.size = 0
        self._MPI: Any = None
        self._ctrl: Any = None
        self._owner: int | None = None
        self._thread: threading.Thread | None = None
        self._supervisor: Supervisor | None = None
        self._cond = threading.Condition()
        self._stop_rank: int | None = None
        self._end_rank: int | None = None
        self._finished = False
        self._over = False
        self._quit = False
        self._pending: list[tuple[Any, bytes]] = []  # the main thread's sends
        self._sent: list[tuple[Any, bytes]] = []  # the watchdog's

    @property
    def root(self) -> bool:
        return self.rank == 0

    @property
    def pid(self) -> tuple[int, int]:
        """This rank's (replica, partition), for the report ((0, rank) if `pid_of` fails: the
        report must not fail)."""
        try:
            replica, partition = self._pid_of(self.rank)
            return int(replica), int(partition)
        except Exception:  # noqa: BLE001
            return 0, self.rank

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def check(self) -> None:
        """Raise WaitAborted when the run is stopping (for a runner, between ops)."""
        if self.aborted.is_set():
            raise WaitAborted("the computation")

    # ------------------------------------------------------------------------------ start
    def __enter__(self) -> ControlPlane:
        if self._owner is not None:
            raise InterpreterError("a ControlPlane can be entered only once")
        MPI = require_mpi("the MPI control plane")
        self._MPI = MPI
        self._base = self._base if self._base is not None else MPI.COMM_WORLD
        self.rank, self.size = self._base.Get_rank(), self._base.Get_size()
        ctrl, request = self._base.Idup()
        wait(
            request, timeout=self.timeout, what="starting the MPI control plane",
            timeout_message="the MPI control plane did not start: not every rank reached it "
            f"within {self.timeout} s (did a rank fail before the run began?)",
        )
        self._ctrl = ctrl
        if self.root:
            self._supervisor = Supervisor(
                self.size, infeed=self._infeed, collect=self.collect, abort_after=self.abort_after
            )
        self._owner = threading.get_ident()
        self._thread = threading.Thread(
            target=self._watch, name=f"mpi-watchdog-rank{self.rank}", daemon=True
        )
        self._thread.start()
        return self

    def _check_caller(self, what: str) -> None:
        if self._owner is None or self._ctrl is None:
            raise InterpreterError(f"broker {what}: the control plane is not running")
        if threading.get_ident() != self._owner:
            raise InterpreterError(
                f"broker {what} from a thread other than the one that entered the control plane"
            )

    # ----------------------------------------------------------------------- main thread
    def _send_up(self, data: bytes) -> Any:
        """Send a message to rank 0's watchdog; the request completes once rank 0 has taken it
        (a synchronous send: no receiver waits for it, rank 0's watchdog takes it promptly)."""
        self._pending = [(r, d) for r, d in self._pending if not r.Test()]
        request = self._ctrl.Issend([data, self._MPI.BYTE], dest=0, tag=TAG_UP)
        self._pending.append((request, data))
        return request

    def _reply(self, *, what: str, timeout_message: str) -> Message:
        probe = _Probe(self._MPI, self._ctrl, 0, TAG_REPLY)
        wait(probe, abort=self.aborted, timeout=self.timeout, what=what,
             timeout_message=timeout_message)
        return probe.receive()[1]

    def __exit__(self, error_type: Any, error: BaseException | None, tb: Any) -> None:
        if self._ctrl is None:
            return None
        if error is None:
            self._finish()
            return None
        self._fail(error)  # raises

    def _finish(self) -> None:
        self._send_up(pack("done"))
        self._await(lambda: self._finished or self._stop_rank is not None)
        if not self._finished:  # another rank failed while this one waited for the others
            self._stopped(None, consequence=True, sent_error=False)
        self._join()
        wait_all([r for r, _ in self._pending], timeout=self.timeout, what="the last messages",
                 timeout_message="the control plane's last messages were not taken by rank 0")
        self._pending.clear()
        self._ctrl.Free()
        self._ctrl = None

    def _fail(self, error: BaseException) -> None:
        stopping = self.aborted.is_set()
        consequence = stopping and isinstance(error, STOP_KINDS)
        self.aborted.set()
        if consequence:
            self._send_up(pack("ack"))
        else:
            failure = Failure.of(error, self.rank, self.pid, after_stop=stopping)
            self._send_up(pack("error", failure.fields()))
        self._stopped(error, consequence=consequence, sent_error=not consequence)

    def _stopped(self, error: BaseException | None, *, consequence: bool,
                 sent_error: bool) -> None:
        """Wait for rank 0's verdict, then raise this rank's exception."""
        cause = None if consequence else error
        if self.root:
            self._await(lambda: self._over)
            self._join()
            sup = self._supervisor
            assert sup is not None and sup.report is not None
            failed = RankFailed(sup.failures, self.size, sup.report_running, sup.report)
            mine = failed.failure.rank == self.rank and not failed.failure.consequence
            raise failed from (cause if mine else None)
        grace = None if self.abort_after is None else self.abort_after + END_GRACE
        if not self._await(lambda: self._end_rank is not None, grace) and sent_error:
            self._abort_alone(error)
        self._join()
        failed_rank = self._end_rank if self._end_rank is not None else self._stop_rank
        raise RankStopped(self.rank if failed_rank is None else failed_rank) from cause

    def _abort_alone(self, error: BaseException | None) -> None:
        """Rank 0 did not answer (its thread holds the interpreter): say our own error, end."""
        failure = Failure.of(error or InterpreterError("unknown"), self.rank, self.pid)
        self.stream.write(
            f"error: {describe(self.rank, self.pid)}: {failure.message}\n"
            f"note: rank 0 did not answer within {self.abort_after + END_GRACE:g} s of this "
            "error: ending the job with MPI_Abort\n"
        )
        self._abort()

    def _abort(self) -> None:
        self.stream.flush()
        time.sleep(ABORT_PAUSE)
        self._base.Abort(1)

    def _await(self, ready: Callable[[], bool], timeout: float | None = None) -> bool:
        """Wait (sleeping) until `ready()` or the watchdog has gone; whether ready."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not ready():
                if self._thread is None or not self._thread.is_alive():
                    return ready()
                left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def _join(self) -> None:
        """End the watchdog (it may still wait for a message that will not come) and wait for
        it: no thread of ours may be inside MPI when the process finalizes it."""
        with self._cond:
            self._quit = True
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)

    # ---------------------------------------------------------------------------- watchdog
    def _watch(self) -> None:
        try:
            if self.root:
                self._watch_root()
            else:
                self._watch_rank()
        except BaseException:  # noqa: BLE001 - a bug here must not leave the job hanging
            self.stream.write(
                f"error: internal error in the MPI control plane's watchdog on rank {self.rank}; "
                "ending the job with MPI_Abort\n" + traceback.format_exc()
            )
            self._abort()

    def _take(self, source: int, tag: int) -> tuple[int, Message] | None:
        probe = _Probe(self._MPI, self._ctrl, source, tag)
        return probe.receive() if probe.Test() else None

    def _watch_rank(self) -> None:
        while not self._quit:
            got = self._take(0, TAG_DOWN)
            if got is not None:
                self._on_down(got[1])
            else:
                time.sleep(POLL)

    def _watch_root(self) -> None:
        sup = self._supervisor
        assert sup is not None
        last = -BURST
        while True:
            got = self._take(self._MPI.ANY_SOURCE, TAG_UP)
            now = time.monotonic()
            if got is not None:
                last = now
                self._send(sup.receive(got[0], got[1], now))
            self._act(sup.tick(now))
            if sup.over or self._quit:
                break
            if got is None:
                time.sleep(FAST_POLL if now - last < BURST else ROOT_POLL)
        # END and FINISH are small (sent eagerly); wait a little for them, never for a rank
        # that does not answer
        try:
            wait_all([r for r, _ in self._sent], timeout=5.0 if sup.finished else 0.5)
        except InterpreterError:
            pass
        with self._cond:
            self._over = True
            self._cond.notify_all()

    def _send(self, outs: Sequence[Out]) -> None:
        self._sent = [(r, d) for r, d in self._sent if not r.Test()]
        for out in outs:
            if out.dest == self.rank and out.tag == TAG_DOWN:
                self._on_down(unpack(out.data))
            else:
                request = self._ctrl.Isend([out.data, self._MPI.BYTE], dest=out.dest, tag=out.tag)
                self._sent.append((request, out.data))

    def _act(self, actions: Actions) -> None:
        if actions.report is not None:
            self.stream.write(actions.report)
            self.stream.flush()
        self._send(actions.sends)
        if actions.abort is not None:
            self.stream.write(actions.abort)
            self._abort()

    def _on_down(self, message: Message) -> None:
        with self._cond:
            if message.kind == "stop":
                if self._stop_rank is None:
                    self._stop_rank = int(message.fields["rank"])
                self.aborted.set()
            elif message.kind == "end":
                self._end_rank = int(message.fields["rank"])
                self._quit = not self.root
            elif message.kind == "finish":
                self._finished = True
                self._quit = not self.root
            else:
                raise InterpreterError(f"rank {self.rank} got a {message.kind!r} from rank 0")
            self._cond.notify_all()


__all__ = [
    "ABORT_PAUSE",
    "BURST",
    "END_GRACE",
    "FAST_POLL",
    "POLL",
    "ROOT_POLL",
    "STOP_KINDS",
    "AbortFlag",
    "Broker",
    "ControlPlane",
    "RankFailed",
    "RankStopped",
]
