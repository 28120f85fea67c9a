"""Rank 0's bookkeeping in the control plane (no MPI here): what its watchdog thread does with
each message that comes up, and when (control.py does the sending, printing and aborting).

**Failures** (plan §3.3).  On the first ``error`` the supervisor sends ``stop`` to every rank (rank
0 included: its watchdog applies that one itself).  It then counts the ranks whose main thread
has stopped: one that sent ``error`` or ``ack``, or ``done`` (finished, waiting for the others).
The report (:func:`messages.report`) is made when every rank has stopped, or `collect` seconds
after the stop (at the latest when `abort_after` passes), and ``end`` goes to every rank with it:
a stopped rank may now leave (had it left before, mpirun could end rank 0 before it printed).  If
some rank is still running `abort_after` seconds after the stop (a long call that never returns
to a wait), the supervisor asks for ``MPI_Abort``; with `abort_after` None it never does.

**A clean end**: every rank sends ``done`` after its last message, and the supervisor sends
``finish`` once all have: each rank's messages arrive in the order it sent them (one tag), so by
then every broker message has been received and no rank waits for anything.

**The broker** (send/recv without source_target_pairs, infeed): one FIFO of messages per channel
id, any sender, any receiver, as the threaded grid's queues (impls/process_grid.py).  A ``send``
is answered to the oldest receiver waiting on its channel, else queued; a ``recv`` is answered
with the channel's oldest message, else waits (receivers are served in the order they asked).
``infeed`` pops the next entry of rank 0's infeed list (a function name, or values), or answers
None when it is empty.  After the stop the broker answers nothing (every rank is stopping).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi.messages import (
    TAG_DOWN,
    TAG_REPLY,
    Failure,
    Message,
    abort_line,
    pack,
    pack_values,
    report,
    root_cause,
)

#: seconds rank 0 waits for the other ranks to stop before it reports
COLLECT = 1.5
#: seconds after the stop when ranks still running end the job (MPI_Abort)
ABORT_AFTER = 3.0


@dataclass(frozen=True)
class Out:
    """A message for rank `dest` on `tag`."""

    dest: int
    tag: int
    data: bytes


@dataclass
class Actions:
    """What the watchdog does after a message or a tick: send, print `report`, then (`abort`:
    the line to print first) end the job."""

    sends: list[Out] = field(default_factory=list)
    report: str | None = None
    abort: str | None = None


class Supervisor:
    """Rank 0's state: failures, stopped and finished ranks, the broker's queues."""

    def __init__(
        self,
        size: int,
        *,
        infeed: Sequence[Any] = (),
        collect: float = COLLECT,
        abort_after: float | None = ABORT_AFTER,
    ) -> None:
        if size < 1:
            raise InterpreterError(f"the control plane needs at least one rank, got {size}")
        self.size = size
        self.collect = collect
        self.abort_after = abort_after
        self.failures: list[Failure] = []
        self.stopped: set[int] = set()
        self.done: set[int] = set()
        self.stop_time: float | None = None
        #: the report once made, and the ranks still running then
        self.report: str | None = None
        self.report_running: list[int] = []
        #: every rank finished (``finish`` sent)
        self.finished = False
        #: nothing is left for the watchdog to do (finished, or the stop has run its course)
        self.over = False
        self.queues: dict[int, deque[Message]] = {}
        self.waiting: dict[int, deque[int]] = {}
        self.infeed: deque[Any] = deque(infeed)

    # --------------------------------------------------------------------------------- state
    @property
    def stopping(self) -> bool:
        return self.stop_time is not None

    @property
    def running(self) -> list[int]:
        """Ranks whose main thread has not stopped (meaningful once stopping)."""
        return [r for r in range(self.size) if r not in self.stopped]

    # ------------------------------------------------------------------------------ messages
    def receive(self, source: int, message: Message, now: float) -> list[Out]:
        """Take a message `source` sent up; the messages to send in answer."""
        if not 0 <= source < self.size:
            raise InterpreterError(f"control message from rank {source} of {self.size}")
        kind = message.kind
        if kind == "error":
            failure = Failure.from_fields(message.fields)
            if failure.rank != source:
                raise InterpreterError(
                    f"rank {source} sent an error message of rank {failure.rank}"
                )
            self.failures.append(failure)
            self.stopped.add(source)
            return [] if self.stopping else self._stop(now, source)
        if kind == "ack":
            self.stopped.add(source)
            return []
        if kind == "done":
            self.done.add(source)
            if self.stopping:
                self.stopped.add(source)
                return []
            if len(self.done) == self.size:
                self.finished = self.over = True
                return [Out(r, TAG_DOWN, pack("finish")) for r in range(self.size)]
            return []
        if kind in ("send", "recv", "infeed"):
            return [] if self.stopping else self._broker(source, message)
        raise InterpreterError(f"rank 0 got a {kind!r} control message from rank {source}")

    def _stop(self, now: float, rank: int) -> list[Out]:
        self.stop_time = now
        self.stopped |= self.done  # finished ranks wait in the control plane: they stop at once
        return [Out(r, TAG_DOWN, pack("stop", {"rank": rank})) for r in range(self.size)]

    def tick(self, now: float) -> Actions:
        """What time alone brings: the report, the end of the stop, the Abort."""
        actions = Actions()
        if not self.stopping or self.over:
            return actions
        assert self.stop_time is not None
        elapsed = now - self.stop_time
        everyone = not self.running
        if self.report is None:
            due = self.collect if self.abort_after is None else min(self.collect, self.abort_after)
            if not (everyone or elapsed >= due):
                return actions
            root = root_cause(self.failures)
            self.report_running = self.running
            self.report = report(self.failures, self.size, self.report_running)
            actions.report = self.report
            actions.sends = [
                Out(r, TAG_DOWN, pack("end", {"rank": root.rank})) for r in range(self.size)
            ]
        if everyone or self.abort_after is None:
            self.over = True
        elif elapsed >= self.abort_after:
            actions.abort = abort_line(self.running, self.abort_after)
            self.over = True
        return actions

    # -------------------------------------------------------------------------------- broker
    def _broker(self, source: int, message: Message) -> list[Out]:
        if message.kind == "infeed":
            if not self.infeed:
                return [Out(source, TAG_REPLY, pack("entry", {"name": None}))]
            entry = self.infeed.popleft()
            if isinstance(entry, str):
                return [Out(source, TAG_REPLY, pack("entry", {"name": entry}))]
            values = list(entry) if isinstance(entry, list | tuple) else [entry]
            data = pack_values("entry", values, what="an infeed entry")
            return [Out(source, TAG_REPLY, data)]
        channel = message.fields.get("c")
        if not isinstance(channel, int) or isinstance(channel, bool):
            raise InterpreterError(f"broker {message.kind} from rank {source} without a channel")
        if message.kind == "send":
            if not isinstance(message.fields.get("v"), str):
                raise InterpreterError(f"broker send from rank {source} without values")
            waiting = self.waiting.get(channel)
            if waiting:
                receiver = waiting.popleft()
                if not waiting:
                    del self.waiting[channel]
                return [_deliver(receiver, message)]
            self.queues.setdefault(channel, deque()).append(message)
            return []
        queued = self.queues.get(channel)  # a recv
        if queued:
            sent = queued.popleft()
            if not queued:
                del self.queues[channel]
            return [_deliver(source, sent)]
        self.waiting.setdefault(channel, deque()).append(source)
        return []


def _deliver(receiver: int, sent: Message) -> Out:
    """A ``send``'s values, as the reply to a receiver (the payload passes through unread)."""
    return Out(receiver, TAG_REPLY, pack("values", {"v": sent.fields["v"]}, [sent.payload]))


__all__ = ["ABORT_AFTER", "COLLECT", "Actions", "Out", "Supervisor"]
