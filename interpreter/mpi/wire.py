"""Numpy arrays <-> (header bytes, raw byte buffers), the form values take between MPI ranks.

MPI moves bytes (``MPI.BYTE``); what they mean travels in a small header.  :func:`encode` turns a
list of arrays into a header (compact JSON: per array its dtype, shape and byte count) and one
C-ordered byte buffer per array (the array's own memory when it is already C-contiguous, else a
C-ordered copy: Fortran-ordered, strided and broadcast views are sent as the values they show);
:func:`decode` turns a header and the received buffers back into arrays, bit for bit (NaN
payloads, -0.0, sub-byte and 8-bit float types included).

Dtypes: numpy's by their ``dtype.str`` (``<f4``, ``|b1``, ``>i8``: byte order kept), ml_dtypes'
(bfloat16, float8_*, float6_*, float4_e2m1fn, int2/int4/uint2/uint4, ...) by their name, which
``dtype.str`` cannot tell apart (``<V2``).  A header is plain JSON, not a pickle: reading one runs
no code, and ml_dtypes' dtypes pickle to ~80 bytes each where their names take ~10.

Sizes: a header travels in a fixed frame of :data:`HEADER_SIZE` bytes (:func:`frame`), the rest of a
longer header in a second exchange.  Byte buffers travel in pieces: no MPI count (nor, for
``Allgatherv``, displacement) may pass 2^31 - 1 on MPI-3 libraries such as Open MPI 4.1, so
:func:`pieces` and :func:`gather_rounds` split transfers at :data:`MAX_CHUNK` (1 GiB) bytes, a
parameter so that tests can use a small one.  Nothing here needs MPI.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from stablehlo_py.errors import InterpreterError

#: bytes of the fixed header frame every rank sends first (a longer header sends the rest after)
HEADER_SIZE = 256
#: bytes of the frame's length prefix (little-endian unsigned)
_LENGTH_BYTES = 4
#: the most bytes one MPI call moves (well under 2^31 - 1, MPI-3's int counts)
MAX_CHUNK = 1 << 30
#: numpy kinds sent by dtype.str: bool, signed and unsigned integers, floats, complex
_NUMPY_KINDS = "biufc"


@dataclass(frozen=True)
class Spec:
    """What one buffer holds: an array of `dtype` and `shape`, `nbytes` bytes in C order."""

    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    nbytes: int


# ------------------------------------------------------------------------------------- dtypes


def _ml_dtype(name: str) -> np.dtype[Any] | None:
    """ml_dtypes' dtype called `name` (``bfloat16``, ``float8_e5m2``, ``int4``), or None."""
    custom = getattr(ml_dtypes, name, None) if name.isidentifier() else None
    if not isinstance(custom, type):
        return None
    try:
        dtype = np.dtype(custom)
    except TypeError:
        return None
    return dtype if dtype.type is custom else None  # not a class np.dtype takes as object


def dtype_code(dtype: np.dtype[Any]) -> str:
    """The header's name of `dtype` (``<f4``, ``bfloat16``); InterpreterError for a dtype that is
    not a number (objects, strings, records, dates)."""
    if dtype.names is None and _ml_dtype(dtype.name) == dtype and dtype.type.__module__ != "numpy":
        return dtype.name  # ml_dtypes' (some have kind "f" and a numpy-like str: <f1 for f8E5M2)
    if dtype.kind in _NUMPY_KINDS:
        return dtype.str
    raise InterpreterError(
        f"a value of dtype {dtype} cannot be sent between MPI ranks: only numeric arrays "
        "(numpy's bool, integer, float and complex dtypes, and ml_dtypes' types) can"
    )


def dtype_from_code(code: str) -> np.dtype[Any]:
    """The dtype a header names (:func:`dtype_code`'s inverse)."""
    custom = _ml_dtype(code)
    if custom is not None:
        return custom
    try:
        dtype = np.dtype(code)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _NUMPY_KINDS or dtype.str != code:
        raise InterpreterError(f"MPI header names an unknown dtype {code!r}")
    return dtype


# ------------------------------------------------------------------------------ encode / decode


def _c_ordered(value: Any) -> np.ndarray:
    a = np.asarray(value)  # np.memmap and other subclasses become plain views; scalars 0-d arrays
    return a if a.flags.c_contiguous else a.copy(order="C")


def _bytes_of(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array's memory as a 1-d uint8 array (no copy)."""
    return a.reshape(-1).view(np.uint8)


def encode(values: Sequence[Any]) -> tuple[bytes, list[np.ndarray]]:
    """(header, one uint8 buffer per value) for `values` (arrays or numpy scalars)."""
    arrays = [_c_ordered(v) for v in values]
    entries = [[dtype_code(a.dtype), list(a.shape), a.nbytes] for a in arrays]
    header = json.dumps(entries, separators=(",", ":")).encode("ascii")
    return header, [_bytes_of(a) for a in arrays]


def read_header(header: bytes) -> list[Spec]:
    """The specs a header lists (InterpreterError when it is not one :func:`encode` wrote)."""
    try:
        entries = json.loads(bytes(header).decode("ascii"))
        specs = [
            Spec(dtype_from_code(code), tuple(int(d) for d in shape), int(nbytes))
            for code, shape, nbytes in entries
        ]
    except (ValueError, TypeError, UnicodeDecodeError) as e:
        raise InterpreterError(f"MPI header is not a list of arrays: {e}") from None
    for s in specs:
        if any(d < 0 for d in s.shape) or s.nbytes != math.prod(s.shape) * s.dtype.itemsize:
            raise InterpreterError(
                f"MPI header is inconsistent: {s.nbytes} bytes for {s.dtype} of shape {s.shape}"
            )
    return specs


def receive_buffers(header: bytes) -> list[np.ndarray]:
    """Empty uint8 buffers of the sizes a header lists, to receive the values into."""
    return [np.empty(s.nbytes, np.uint8) for s in read_header(header)]


def decode(header: bytes, buffers: Sequence[Any]) -> list[np.ndarray]:
    """The arrays of `header` over the received `buffers` (anything with the buffer protocol;
    no copy unless a buffer is misaligned for its dtype)."""
    specs = read_header(header)
    if len(buffers) != len(specs):
        raise InterpreterError(f"MPI header lists {len(specs)} arrays but {len(buffers)} arrived")
    out = []
    for s, buf in zip(specs, buffers, strict=True):
        raw = np.frombuffer(buf, np.uint8)
        if raw.size != s.nbytes:
            raise InterpreterError(
                f"MPI buffer holds {raw.size} bytes, its header says {s.nbytes} ({s.dtype} of "
                f"shape {s.shape})"
            )
        a = np.empty(s.shape, s.dtype) if s.nbytes == 0 else raw.view(s.dtype).reshape(s.shape)
        out.append(a if a.flags.aligned else a.copy())
    return out


# -------------------------------------------------------------------------------- header frames


def frame(header: bytes, size: int = HEADER_SIZE) -> tuple[bytes, bytes]:
    """(`size` bytes: the header's length and as much of it as fits, the rest of the header)."""
    room = size - _LENGTH_BYTES
    if room < 1:
        raise InterpreterError(f"MPI header frame of {size} bytes has no room for a header")
    head = len(header).to_bytes(_LENGTH_BYTES, "little") + header[:room]
    return head.ljust(size, b"\0"), bytes(header[room:])


def rest_length(fixed: bytes, size: int = HEADER_SIZE) -> int:
    """How many header bytes follow a frame (0: the frame holds the whole header)."""
    return max(0, int.from_bytes(bytes(fixed[:_LENGTH_BYTES]), "little") - (size - _LENGTH_BYTES))


def unframe(fixed: bytes, rest: bytes = b"", size: int = HEADER_SIZE) -> bytes:
    """The header a frame and its rest carry (:func:`frame`'s inverse)."""
    n = int.from_bytes(bytes(fixed[:_LENGTH_BYTES]), "little")
    stop = _LENGTH_BYTES + min(n, size - _LENGTH_BYTES)
    header = bytes(fixed[_LENGTH_BYTES:stop]) + bytes(rest)
    if len(header) != n:
        raise InterpreterError(f"MPI header frame says {n} bytes, {len(header)} arrived")
    return header


# ------------------------------------------------------------------------------------- chunking


def pieces(nbytes: int, chunk: int = MAX_CHUNK) -> list[tuple[int, int]]:
    """(start, stop) byte ranges of at most `chunk` bytes covering [0, nbytes) in order (none for
    an empty buffer)."""
    if chunk < 1:
        raise InterpreterError(f"MPI chunk size must be at least one byte, got {chunk}")
    return [(start, min(start + chunk, nbytes)) for start in range(0, nbytes, chunk)]


@dataclass(frozen=True)
class Round:
    """One ``Allgatherv`` of a chunked exchange: rank k sends bytes ``ranges[k]`` of its buffer;
    they arrive at ``displs[k]`` of a ``total``-byte receive buffer, ``counts[k]`` bytes each."""

    ranges: tuple[tuple[int, int], ...]
    counts: tuple[int, ...]
    displs: tuple[int, ...]
    total: int


def gather_rounds(sizes: Sequence[int], chunk: int = MAX_CHUNK) -> list[Round]:
    """The rounds of an all-gather of buffers of `sizes` bytes (one per rank) in which no count,
    displacement or receive buffer passes `chunk` bytes: each rank sends at most chunk // n bytes
    (at least one) per round; ranks whose buffer is used up send nothing.  No rounds when every
    buffer is empty.  Every rank computes the same rounds from the same sizes."""
    n = len(sizes)
    if n == 0:
        return []
    if chunk < n:
        raise InterpreterError(f"MPI chunk size {chunk} is below the {n} ranks of the gather")
    share = chunk // n
    rounds = []
    for k in range(math.ceil(max(sizes) / share)):
        ranges = tuple((min(k * share, s), min((k + 1) * share, s)) for s in sizes)
        counts = tuple(b - a for a, b in ranges)
        displs = tuple(sum(counts[:i]) for i in range(n))
        rounds.append(Round(ranges, counts, displs, sum(counts)))
    return rounds


__all__ = [
    "HEADER_SIZE",
    "MAX_CHUNK",
    "Round",
    "Spec",
    "decode",
    "dtype_code",
    "dtype_from_code",
    "encode",
    "frame",
    "gather_rounds",
    "pieces",
    "read_header",
    "receive_buffers",
    "rest_length",
    "unframe",
]
