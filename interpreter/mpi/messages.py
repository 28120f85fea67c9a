"""The control plane's messages and its error report (no MPI here; control.py sends them).

A message is bytes: a 4-byte little-endian length, that many bytes of JSON (an object whose ``"k"``
names the kind, plus the kind's fields), then a payload of raw bytes (the values of a broker
``send`` or reply, laid out by :mod:`wire`: a header in the JSON, the arrays' C-ordered bytes one
after the other).  JSON, not pickle: reading a message runs no code.

Tags (on the control plane's duplicate of COMM_WORLD, so nothing else can match them):

- :data:`TAG_UP` (any rank's main thread -> rank 0's watchdog): ``error``, ``ack``, ``done`` and the
  broker's ``send``/``recv``/``infeed``.  One tag for all of them, so MPI's non-overtaking rule
  delivers each rank's messages to rank 0 in the order they were sent (a rank's ``done`` after
  its ``send``s);
- :data:`TAG_DOWN` (rank 0's watchdog -> a rank's watchdog): ``stop``, ``end``, ``finish``;
- :data:`TAG_REPLY` (rank 0's watchdog -> a rank's main thread): the broker's answers.

A failure travels as :class:`Failure` (rank, (replica, partition), the exception's kind and text);
:func:`report` writes the lines rank 0 prints, root cause first, the other ranks' failures
grouped by message::

    error: rank 3 (replica 0, partition 3): <message> (7 other ranks stopped)
    note: ranks 4-6 failed too, with the same error
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError, StableHLOError
from stablehlo_py.interpreter.mpi import wire

TAG_UP = 1
TAG_DOWN = 2
TAG_REPLY = 3

#: kinds sent up to rank 0 / down to every rank / as a broker's reply
UP_KINDS = ("error", "ack", "done", "send", "recv", "infeed")
DOWN_KINDS = ("stop", "end", "finish")
REPLY_KINDS = ("values", "entry")

_LENGTH_BYTES = 4


@dataclass(frozen=True)
class Message:
    """A decoded message: its `kind`, its JSON `fields` (without the kind) and its `payload`."""

    kind: str
    fields: dict[str, Any]
    payload: bytes = b""


def pack(kind: str, fields: dict[str, Any] | None = None, payload: Iterable[Any] = ()) -> bytes:
    """The bytes of a message; `payload` is a sequence of buffers (bytes, uint8 arrays), joined."""
    if kind not in UP_KINDS + DOWN_KINDS + REPLY_KINDS:
        raise InterpreterError(f"MPI control message of unknown kind {kind!r}")
    body = {"k": kind, **(fields or {})}
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"".join([len(text).to_bytes(_LENGTH_BYTES, "little"), text, *payload])


def unpack(data: Any) -> Message:
    """The message in `data` (:func:`pack`'s inverse); InterpreterError when it is not one."""
    raw = memoryview(data).cast("B")
    if len(raw) < _LENGTH_BYTES:
        raise InterpreterError(f"MPI control message of {len(raw)} bytes is too short")
    n = int.from_bytes(raw[:_LENGTH_BYTES], "little")
    if _LENGTH_BYTES + n > len(raw):
        raise InterpreterError(
            f"MPI control message says its fields take {n} bytes, only "
            f"{len(raw) - _LENGTH_BYTES} arrived"
        )
    try:
        body = json.loads(bytes(raw[_LENGTH_BYTES : _LENGTH_BYTES + n]).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InterpreterError(f"MPI control message's fields are not JSON: {e}") from None
    if not isinstance(body, dict) or body.get("k") not in UP_KINDS + DOWN_KINDS + REPLY_KINDS:
        raise InterpreterError(f"MPI control message of unknown kind: {str(body)[:80]}")
    kind = body.pop("k")
    return Message(kind, body, bytes(raw[_LENGTH_BYTES + n :]))


# ------------------------------------------------------------------------------------- values


def pack_values(
    kind: str, values: Sequence[Any], fields: dict[str, Any] | None = None, *, what: str
) -> bytes:
    """A message carrying `values` (arrays): their wire header in field ``"v"``, their bytes as
    the payload.  A message over :data:`wire.MAX_CHUNK` bytes is refused (MPI-3 counts are 32-bit
    ints): `what` names the operation in that error."""
    header, buffers = wire.encode(values)
    nbytes = sum(b.nbytes for b in buffers)
    if nbytes > wire.MAX_CHUNK:
        raise InterpreterError(
            f"{what} carries {nbytes} bytes; under MPI a send/recv without source_target_pairs "
            f"passes through rank 0 in one message of at most {wire.MAX_CHUNK} bytes",
            note="give the send and recv source_target_pairs (point to point), or send smaller "
            "values",
        )
    return pack(kind, {**(fields or {}), "v": header.decode("ascii")}, buffers)


def unpack_values(message: Message) -> list[np.ndarray]:
    """The arrays a :func:`pack_values` message carries (copies: they own their memory)."""
    specs = wire.read_header(message.fields["v"].encode("ascii"))
    payload = memoryview(message.payload)
    buffers, start = [], 0
    for spec in specs:
        buffers.append(payload[start : start + spec.nbytes])
        start += spec.nbytes
    if start != len(message.payload):
        raise InterpreterError(
            f"MPI control message carries {len(message.payload)} bytes of values, its header "
            f"lists {start}"
        )
    return [a.copy() for a in wire.decode(message.fields["v"].encode("ascii"), buffers)]


# ----------------------------------------------------------------------------------- failures


@dataclass(frozen=True)
class Failure:
    """An exception of one rank's main thread, as rank 0 reports it.

    `message` is the error's text without the leading ``error:`` (``loc: message`` for a toolkit
    error with a location; ``ValueError: ...`` for any other exception), `note` a toolkit error's
    note, `details` the traceback of an exception that is not a toolkit error (a bug).
    `consequence`: the rank gave up because the run was stopping (not a root cause);
    `after_stop`: it failed after rank 0's stop had reached it."""

    rank: int
    pid: tuple[int, int]
    kind: str
    message: str
    note: str | None = None
    details: str | None = None
    consequence: bool = False
    after_stop: bool = False

    @classmethod
    def of(
        cls,
        error: BaseException,
        rank: int,
        pid: tuple[int, int],
        *,
        consequence: bool = False,
        after_stop: bool = False,
    ) -> Failure:
        if isinstance(error, StableHLOError):
            message = f"{error.location}: {error.message}" if error.location else error.message
            note, details = error.note, None
        else:
            text = str(error)
            message = f"{type(error).__name__}: {text}" if text else type(error).__name__
            note = None
            details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        return cls(rank, tuple(pid), type(error).__name__, message, note, details, consequence,
                   after_stop)

    def fields(self) -> dict[str, Any]:
        return {
            "rank": self.rank, "pid": list(self.pid), "kind": self.kind, "message": self.message,
            "note": self.note, "details": self.details, "consequence": self.consequence,
            "after_stop": self.after_stop,
        }

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> Failure:
        try:
            return cls(
                int(fields["rank"]), (int(fields["pid"][0]), int(fields["pid"][1])),
                str(fields["kind"]), str(fields["message"]), fields.get("note"),
                fields.get("details"), bool(fields.get("consequence")),
                bool(fields.get("after_stop")),
            )
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise InterpreterError(f"MPI error message lacks a field: {e}") from None


def describe(rank: int, pid: Sequence[int]) -> str:
    """``rank 3 (replica 0, partition 3)``"""
    return f"rank {rank} (replica {pid[0]}, partition {pid[1]})"


def ranks_text(ranks: Iterable[int]) -> str:
    """``rank 2`` / ``ranks 2, 6`` / ``ranks 0, 1, 3-7``: three or more consecutive ranks as a
    range."""
    ranks = sorted(set(ranks))
    parts: list[str] = []
    start = 0
    for k in range(1, len(ranks) + 1):
        if k < len(ranks) and ranks[k] == ranks[k - 1] + 1:
            continue
        run = ranks[start:k]
        parts += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(r) for r in run]
        start = k
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(parts)


def root_cause(failures: Sequence[Failure]) -> Failure:
    """The failure to report first: not a consequence of the stop, raised before the stop reached
    its rank, lowest rank (the order of the threaded grid's `run_processes`)."""
    if not failures:
        raise InterpreterError("no failure to report")
    return min(failures, key=lambda f: (f.consequence, f.after_stop, f.rank))


def headline(root: Failure, size: int, running: Iterable[int] = ()) -> str:
    """The report's first line without ``error: ``: the root cause and what the other ranks did
    (`running`: ranks that had not stopped when the report was written)."""
    running = sorted(r for r in set(running) if r != root.rank)
    others = size - 1
    if others < 1:
        tail = ""
    elif not running:
        tail = f" ({others} other rank{'s' if others != 1 else ''} stopped)"
    else:
        stopped = others - len(running)
        tail = (
            f" ({stopped} other rank{'s' if stopped != 1 else ''} stopped; "
            f"{ranks_text(running)} still running)"
        )
    return f"{describe(root.rank, root.pid)}: {root.message}{tail}"


def report(failures: Sequence[Failure], size: int, running: Iterable[int] = ()) -> str:
    """What rank 0 prints on stderr: the root cause's line, its note and traceback (a bug's),
    then the other ranks that failed on their own, grouped by message (every rank reading the
    same missing file says one thing once): first those with the root cause's message
    (``note: ranks 1-7 failed too, with the same error``), then one note per other message in
    the order of its lowest rank (``note: rank 6 (replica 0, partition 6) failed too: <message>``,
    ``note: ranks 4, 6 failed too, each with: <message>``)."""
    root = root_cause(failures)
    lines = [f"error: {headline(root, size, running)}"]
    if root.note:
        lines.append(f"note: {root.note}")
    if root.details:
        lines.append(root.details.rstrip("\n"))
    groups: dict[str, list[Failure]] = {}
    for f in sorted(failures, key=lambda f: f.rank):
        if f is not root and not f.consequence:
            groups.setdefault(f.message, []).append(f)
    same = groups.pop(root.message, [])
    if same:
        lines.append(f"note: {_who(same)} failed too, with the same error")
    for message, group in groups.items():
        each = ", each with" if len(group) > 1 else ""
        lines.append(f"note: {_who(group)} failed too{each}: {message}")
    return "\n".join(lines) + "\n"


def _who(group: Sequence[Failure]) -> str:
    """One rank with its (replica, partition), several as a list of ranks."""
    if len(group) == 1:
        return describe(group[0].rank, group[0].pid)
    return ranks_text(f.rank for f in group)


def abort_line(running: Iterable[int], seconds: float) -> str:
    """What rank 0 prints before ending the job with MPI_Abort."""
    return (
        f"error: {ranks_text(running)} did not stop within {seconds:g} s of the error: ending the "
        "job with MPI_Abort\n"
    )


__all__ = [
    "DOWN_KINDS",
    "REPLY_KINDS",
    "TAG_DOWN",
    "TAG_REPLY",
    "TAG_UP",
    "UP_KINDS",
    "Failure",
    "Message",
    "abort_line",
    "describe",
    "headline",
    "pack",
    "pack_values",
    "ranks_text",
    "report",
    "root_cause",
    "unpack",
    "unpack_values",
]
