"""The replica x partition process grid the distribution ops run on (spec.md "Distribution ops").

- `GridShape`: what is pure about a grid (its size, the spec's process-group builders, the rank of
  a process: rank = replica x num_partitions + partition, as `flattened_ids` numbers them) and the
  exchanges the ops make, each with a default built on `rendezvous`.  A grid provides
  `rendezvous`, `send`, `recv`, `infeed` and `add_outfeed`; it may override an exchange with a
  cheaper one (an MPI grid moving only what a process needs), which must give the same bits: the
  defaults fix the order in which contributions are read and reduced (process-group order).
- `ProcessGrid`: the in-process grid, one thread per process (`run_processes`), meeting at a
  rendezvous under one condition variable.

The ops (`collectives.py`) and the shard_map regions (`sdy.py`, `custom_calls/jax_targets.py`)
call the grid's methods only."""

from __future__ import annotations

import queue
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError

ProcessId = tuple[int, int]  # (replica_id, partition_id)
ProcessGroup = tuple[ProcessId, ...]
Combine = Callable[[list[list[Any]]], list[Any]]
"""Reduces the group's contributions (one list of values per member, in group order) to one list."""

#: seconds a process waits at a rendezvous (or for a send/recv partner) before giving up
TIMEOUT = 60.0


class AbortedError(InterpreterError):
    """A process gave up waiting because another process of the run_parallel failed."""

    def __init__(self) -> None:
        super().__init__("another process of the run_parallel failed")


class GridShape(ABC):
    """A grid of `num_replicas` x `num_partitions` processes: process groups, ranks, and the
    exchanges of the distribution ops.  Every exchange method is called by each member of its
    group with the same group and channel; `pid` is the calling process."""

    def __init__(self, num_replicas: int, num_partitions: int):
        if num_replicas < 1 or num_partitions < 1:
            raise InterpreterError(
                f"a process grid needs at least one replica and one partition, got "
                f"{num_replicas} x {num_partitions}"
            )
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions

    @property
    def num_processes(self) -> int:
        return self.num_replicas * self.num_partitions

    # ---------------------------------------------------------------------- process groups
    def cross_replica(self, groups: list[list[int]]) -> list[ProcessGroup]:
        return [
            tuple((r, p) for r in group) for group in groups for p in range(self.num_partitions)
        ]

    def cross_partition(self, groups: list[list[int]]) -> list[ProcessGroup]:
        return [tuple((r, p) for p in group) for group in groups for r in range(self.num_replicas)]

    def cross_replica_and_partition(self, groups: list[list[int]]) -> list[ProcessGroup]:
        return [
            tuple((r, p) for p in range(self.num_partitions) for r in group) for group in groups
        ]

    def flattened_ids(self, groups: list[list[int]]) -> list[ProcessGroup]:
        n = self.num_partitions
        return [tuple(divmod(i, n) for i in group) for group in groups]

    def check_group(self, group: ProcessGroup) -> None:
        for r, p in group:
            if not (0 <= r < self.num_replicas and 0 <= p < self.num_partitions):
                raise InterpreterError(
                    f"process (replica {r}, partition {p}) is outside the "
                    f"{self.num_replicas} x {self.num_partitions} process grid"
                )

    # ---------------------------------------------------------------------------- ranks
    def rank_of(self, pid: ProcessId) -> int:
        """The process's rank: replica x num_partitions + partition (its flattened id)."""
        self.check_group((pid,))
        return pid[0] * self.num_partitions + pid[1]

    def pid_of(self, rank: int) -> ProcessId:
        """The (replica, partition) of rank `rank`."""
        if not 0 <= rank < self.num_processes:
            raise InterpreterError(
                f"rank {rank} is outside the {self.num_replicas} x {self.num_partitions} process "
                f"grid (ranks 0..{self.num_processes - 1})"
            )
        r, p = divmod(rank, self.num_partitions)
        return (r, p)

    # ------------------------------------------------------------- what a grid provides
    @abstractmethod
    def rendezvous(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        """Contribute `values`; returns every member's contribution once all have arrived.  The
        n-th call of each member on one (group members, channel) meets the n-th of the others."""

    @abstractmethod
    def send(self, channel_id: int, values: list[Any]) -> None:
        """Queue `values` on the channel (any process may receive them; never blocks)."""

    @abstractmethod
    def recv(self, channel_id: int) -> list[Any]:
        """The oldest values sent on the channel (waits for one)."""

    @abstractmethod
    def infeed(self) -> Any:
        """The next entry of the infeed queue."""

    @abstractmethod
    def add_outfeed(self, pid: ProcessId, values: list[Any]) -> None:
        """Record the values process `pid` writes to the outfeed."""

    # ------------------------------------------------- exchanges (defaults on rendezvous)
    def exchange(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> list[list[Any]]:
        """Every member's contribution, in process-group order (an all-gather)."""
        got = self.rendezvous(group, channel_id, pid, values)
        return [got[p] for p in group]

    def gather_tiles(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, tiles: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        """The tiles of a shard_map region's results, by member (every member gets them all, to
        assemble the global values)."""
        return self.rendezvous(group, channel_id, pid, tiles)

    def reduce(
        self,
        group: ProcessGroup,
        channel_id: int,
        pid: ProcessId,
        values: list[Any],
        combine: Combine,
        *,
        scatter_dim: int | None = None,
        to_root: bool = False,
    ) -> list[Any] | None:
        """`combine` of the group's contributions (in group order).  With `scatter_dim`, the
        caller's part of each reduced value: split along that dimension into one part per member,
        part k for member k (reduce_scatter).  With `to_root`, only the group's first member gets
        the reduction; the others get None (collective_reduce).  An override must reduce each
        element in the same order (`combine` on the contributions of a range of elements gives
        those elements' bits)."""
        contributions = self.exchange(group, channel_id, pid, values)
        if to_root and pid != group[0]:
            return None
        reduced = combine(contributions)
        if scatter_dim is None:
            return reduced
        index = group.index(pid)
        return [np.split(r, len(group), axis=scatter_dim)[index] for r in reduced]

    def all_to_all(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, pieces: list[list[Any]]
    ) -> list[list[Any]]:
        """`pieces[i][k]`: the caller's piece of operand i for member k.  Returns, per operand,
        the pieces every member has for the caller, in group order."""
        contributions = self.exchange(group, channel_id, pid, pieces)
        index = group.index(pid)
        return [[c[i][index] for c in contributions] for i in range(len(pieces))]

    def permute(
        self, pairs: list[ProcessGroup], channel_id: int, pid: ProcessId, values: list[Any]
    ) -> list[Any] | None:
        """Each (source, target) pair, in list order, moves the source's values to the target.
        Returns what the caller received as a target, None when it is no pair's target."""
        received: list[Any] | None = None
        for pair in pairs:
            source, target = pair[0], pair[1]
            if pid not in (source, target):
                continue
            got = self.rendezvous(pair, channel_id, pid, values)
            if target == pid:
                received = got[source]
        return received

    def broadcast(
        self,
        group: ProcessGroup,
        channel_id: int,
        pid: ProcessId,
        values: list[Any],
        roots: Sequence[int],
    ) -> list[Any]:
        """Value k of the member at index `roots[k]` of the group, for every k."""
        contributions = self.exchange(group, channel_id, pid, values)
        return [contributions[root][k] for k, root in enumerate(roots)]


class ProcessGrid(GridShape):
    """Shared state of the processes of one in-process run (`run_parallel`, or a partitioned
    program run once per process): rendezvous rounds, send/recv channels, the infeed queue
    (function names) and the outfeed; one thread per process."""

    def __init__(self, num_replicas: int, num_partitions: int, infeed: Sequence[Any] = ()):
        super().__init__(num_replicas, num_partitions)
        self._cond = threading.Condition()
        self._rounds: dict[tuple[ProcessGroup, int, int], dict[str, Any]] = {}
        self._next_round: dict[tuple[ProcessGroup, int, ProcessId], int] = {}
        self._channels: dict[int, queue.Queue[list[Any]]] = {}
        self._infeed = deque(infeed)
        self.outfeed: list[list[Any]] = []
        self.aborted: BaseException | None = None

    # -------------------------------------------------------------------------- rendezvous
    def rendezvous(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        members = tuple(dict.fromkeys(group))
        if len(members) == 1:
            return {pid: values}
        self.check_group(members)
        with self._cond:
            slot = (members, channel_id, pid)
            n = self._next_round.get(slot, 0)
            self._next_round[slot] = n + 1
            key = (members, channel_id, n)
            state = self._rounds.setdefault(key, {"values": {}, "readers": len(members)})
            state["values"][pid] = values
            if len(state["values"]) == len(members):
                self._cond.notify_all()
            elif not self._cond.wait_for(
                lambda: len(state["values"]) == len(members) or self.aborted is not None,
                TIMEOUT,
            ):
                raise InterpreterError(
                    f"collective rendezvous of processes {list(members)} timed out: not every "
                    "process of the group reached the same collective op"
                )
            if self.aborted is not None and len(state["values"]) != len(members):
                raise AbortedError()
            result = dict(state["values"])
            state["readers"] -= 1
            if state["readers"] == 0:
                del self._rounds[key]
            return result

    def abort(self, error: BaseException) -> None:
        with self._cond:
            if self.aborted is None:
                self.aborted = error
            self._cond.notify_all()

    # --------------------------------------------------------------------------- send/recv
    def _channel(self, channel_id: int) -> queue.Queue[list[Any]]:
        with self._cond:
            return self._channels.setdefault(channel_id, queue.Queue())

    def send(self, channel_id: int, values: list[Any]) -> None:
        self._channel(channel_id).put(values)

    def recv(self, channel_id: int) -> list[Any]:
        ch = self._channel(channel_id)
        waited = 0.0
        while True:
            try:
                return ch.get(timeout=0.1)
            except queue.Empty:
                waited += 0.1
                if self.aborted is not None:
                    raise AbortedError() from None
                if waited >= TIMEOUT:
                    raise InterpreterError(
                        f"recv on channel {channel_id} timed out: nothing was sent on it"
                    ) from None

    # --------------------------------------------------------------------------- processes
    def run_processes(
        self, tasks: Sequence[Callable[[], Any]], names: Sequence[str] | None = None
    ) -> list[Any]:
        """Each task run in a thread of its own (one process of the grid); their results in
        order.  A task that fails aborts the others' waits; the first failure that is not such
        an abort is raised (so the root cause, not a process that gave up waiting)."""
        results: list[Any] = [None] * len(tasks)
        errors: list[tuple[int, BaseException]] = []

        def work(k: int) -> None:
            try:
                results[k] = tasks[k]()
            except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
                errors.append((k, e))
                self.abort(e)

        threads = [
            threading.Thread(
                target=work, args=(k,), name=None if names is None else names[k], daemon=True
            )
            for k in range(len(tasks))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            errors.sort(key=lambda e: (isinstance(e[1], AbortedError), e[0]))
            raise errors[0][1]
        return results

    # ------------------------------------------------------------------------------ feeds
    def infeed(self) -> Any:
        with self._cond:
            if not self._infeed:
                raise InterpreterError(
                    "infeed: the infeed queue is empty (give run_parallel an `infeed` list)"
                )
            return self._infeed.popleft()

    def add_outfeed(self, pid: ProcessId, values: list[Any]) -> None:
        with self._cond:
            self.outfeed.append(values)
