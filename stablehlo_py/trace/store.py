"""A trace as a ``.npz`` file (``--trace-output=T.npz``; read back by ``--compare-to=T.npz``).

Members:

- ``__index__``: JSON text (a 0-d unicode array) ``{"format": "stablehlo-py trace", "version": 1,
  "level", "max_elements", "entry", "runs", "error", "entries": [...]}``, each entry with its
  ``key``, ``op``, ``types``, ``location``, ``source``, ``position``, ``scope``, ``depth``,
  ``count``, ``first_nonfinite``, ``results`` (summaries, `Summary.as_dict`) and ``values``: per
  result the member holding its value and the value's element type, or null; ``time`` (seconds)
  when the run was timed;
- ``v<entry>_<result>``: the kept values (level 2: the small ones, level 3: all).  NumPy-native
  dtypes (``i1`` as bool, complex, f16/f32/f64, integers) are stored as they are; ``ml_dtypes``
  types (bf16, f8/f6/f4, i2/i4/ui2/ui4) as their bits (unsigned integers of the same size), read
  back by the element type the index names (`interpreter/storage.py`, as probe files).

`load_trace` checks the index and reads every value it names; a value member the file lacks is
tolerated (the entry keeps its summaries, the value is None and its name is in ``trace.missing``);
anything else wrong is a `TraceFileError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np
from stablehlo_py.interpreter.storage import decode, storable
from stablehlo_py.interpreter.trace_stats import Summary
from stablehlo_py.semantics import dtypes

from stablehlo_py.errors import StableHLOError
from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["FORMAT", "VERSION", "TraceFileError", "load_trace", "save_trace"]

FORMAT = "stablehlo-py trace"
VERSION = 1
INDEX = "__index__"


class TraceFileError(StableHLOError):
    """A trace file that cannot be read (or written)."""


def save_trace(trace: Trace, path: str | os.PathLike[str], *, compress: bool = False) -> None:
    """Write ``trace`` to ``path`` (a ``.npz`` file; see the module doc)."""
    arrays: dict[str, np.ndarray] = {}
    entries = []
    for e in trace:
        stored: list[dict[str, str] | None] = []
        for k, v in enumerate(e.values):
            if v is None:
                stored.append(None)
                continue
            name = f"v{e.index}_{k}"
            arrays[name] = storable(v)
            stored.append({"member": name, "dtype": dtypes.name_of(v.dtype)})
        entries.append(
            {
                "key": e.key,
                "op": e.op,
                "types": list(e.types),
                "location": e.location,
                "source": e.source,
                "position": e.position,
                "scope": e.scope,
                "depth": e.depth,
                "count": e.count,
                "first_nonfinite": e.first_nonfinite,
                "results": [s.as_dict() for s in e.results],
                "values": stored,
                **({"time": e.time} if e.time is not None else {}),
            }
        )
    index = {
        "format": FORMAT,
        "version": VERSION,
        "level": trace.level,
        "max_elements": trace.max_elements,
        "entry": trace.entry,
        "runs": trace.runs,
        "error": trace.error,
        "entries": entries,
    }
    arrays[INDEX] = np.array(json.dumps(index))
    save = np.savez_compressed if compress else np.savez
    try:
        with open(path, "wb") as f:  # the path as given (np.savez adds .npz to a bare name)
            save(f, **arrays)  # type: ignore[arg-type]
    except OSError as e:
        raise TraceFileError(f"cannot write the trace to {os.fspath(path)}: {e}") from None


def load_trace(path: str | os.PathLike[str]) -> Trace:
    """The trace written to ``path`` by `save_trace` (see the module doc for what is checked)."""
    where = os.fspath(path)
    try:
        npz = np.load(where, allow_pickle=False)
    except FileNotFoundError:
        raise TraceFileError(f"no trace file {where}") from None
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise TraceFileError(
            f"cannot read {where} as a trace: {e}",
            note="a trace is the .npz file save_trace (--trace-output) writes",
        ) from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise TraceFileError(f"{where} is a single .npy array, not a trace (.npz)")
    with npz:
        if INDEX not in npz.files:
            raise TraceFileError(
                f"{where} has no {INDEX} member: it is not a trace file",
                note="traces are written by stablehlo_py.trace.save_trace (--trace-output)",
            )
        index = _index(npz, where)
        try:
            return _build(index, npz, where)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise TraceFileError(f"{where}: malformed {INDEX}: {type(e).__name__}: {e}") from None


def _index(npz: Any, where: str) -> dict[str, Any]:
    try:
        index = json.loads(str(npz[INDEX][()]))
    except (ValueError, TypeError, OSError) as e:
        raise TraceFileError(f"{where}: its {INDEX} member is not JSON text: {e}") from None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise TraceFileError(f"{where}: its {INDEX} member is not a stablehlo-py trace index")
    version = index.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise TraceFileError(
            f"{where}: trace format version {version!r}; this stablehlo-py reads up to {VERSION}",
            note="upgrade stablehlo-py to read it",
        )
    return index


def _build(index: dict[str, Any], npz: Any, where: str) -> Trace:
    trace = Trace(int(index["level"]), max_elements=int(index.get("max_elements", 16)))
    trace.entry = str(index.get("entry", ""))
    trace.runs = int(index.get("runs", 0))
    trace.error = index.get("error")
    for d in index["entries"]:
        e = TraceEntry(
            index=0,
            key=str(d["key"]),
            op=str(d["op"]),
            types=tuple(str(t) for t in d.get("types", ())),
            location=str(d.get("location", "")),
            source=str(d.get("source", "")),
            position=str(d.get("position", "")),
            scope=str(d.get("scope", "")),
            depth=int(d.get("depth", 0)),
            count=int(d.get("count", 1)),
            first_nonfinite=d.get("first_nonfinite"),
            results=[Summary.from_dict(s) for s in d.get("results", ())],
            time=None if d.get("time") is None else float(d["time"]),
        )
        for k, stored in enumerate(d.get("values", ())):
            e.values.append(None if stored is None else _value(npz, stored, e, k, trace, where))
        trace.add(e)
    return trace


def _value(
    npz: Any, stored: dict[str, str], e: TraceEntry, k: int, trace: Trace, where: str
) -> np.ndarray | None:
    member, dtype_name = str(stored["member"]), str(stored["dtype"])
    if member not in npz.files:
        trace.missing.append(f"{e.key} result {k} ({member})")
        return None
    try:
        dtype = dtypes.dtype_of(dtype_name)
    except StableHLOError:
        raise TraceFileError(
            f"{where}: value {member} of {e.key} has element type {dtype_name!r}, "
            "which this stablehlo-py does not know"
        ) from None
    try:
        raw = npz[member]
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        raise TraceFileError(f"{where}: cannot read member {member} ({e.key}): {err}") from None
    value = decode(raw, dtype, what=f"{where} member {member}")
    if value is None:
        raise TraceFileError(
            f"{where}: member {member} ({e.key}) holds {raw.dtype} values, not {dtype_name} "
            "or its bits"
        )
    shape = e.results[k].shape if k < len(e.results) else None
    if shape is not None and e.results[k].kind == "tensor" and tuple(value.shape) != shape:
        raise TraceFileError(
            f"{where}: member {member} ({e.key}) has shape {tuple(value.shape)}, "
            f"its summary says {shape}"
        )
    return value
