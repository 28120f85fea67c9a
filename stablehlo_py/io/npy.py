"""NumPy ``.npy`` files and ``.npz`` archives in and out, typed by the program.

Reading never runs pickle and never copies a large file into memory: a ``.npy`` file, and every
member an ``.npz`` archive stores uncompressed (``np.savez``'s way), is memory-mapped read-only.
The header is read here (not by ``np.load``) so that a file whose dtype NumPy does not know
(upstream's 16-byte integers holding ``complex<f64>``) is still read, as raw ``V16`` bytes, and so
every failure names the file.  A stored array becomes a value of a parameter's element type with
:func:`typed` (the stored forms of ``stablehlo_py.interpreter.storage``); writing stores values as
the probe writer does (``storage.storable``).
"""

from __future__ import annotations

import ast
import os
import struct
import zipfile
from collections.abc import Iterator, Mapping
from typing import IO, Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter.storage import decode, storable
from stablehlo_py.io.errors import InputError, OutputError

__all__ = ["Npz", "read_npy", "typed", "write_npy", "write_npz"]

MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
_RAW_DTYPES = {"<i16": "V16", "<u16": "V16", "|i16": "V16", "|u16": "V16"}
"""descrs NumPy has no dtype for, read as raw bytes (upstream writes complex<f64> as `__int128`)."""


def _header(f: IO[bytes], where: str) -> tuple[np.dtype[Any], tuple[int, ...], bool]:
    """(dtype, shape, fortran order) from the header of the ``.npy`` data ``f`` is positioned at,
    leaving ``f`` at the first byte of the data."""
    start = f.read(8)
    if len(start) < 8 or not start.startswith(MAGIC):
        what = "an .npz archive" if start.startswith(ZIP_MAGIC) else "not a NumPy .npy file"
        raise InputError(f"is {what} (no '\\x93NUMPY' header)", location=where)
    major = start[6]
    size_format = "<H" if major == 1 else "<I"
    raw_size = f.read(struct.calcsize(size_format))
    if major not in (1, 2, 3) or len(raw_size) != struct.calcsize(size_format):
        raise InputError(f"has an unknown .npy format version {major}.{start[7]}", location=where)
    (size,) = struct.unpack(size_format, raw_size)
    text = f.read(size).decode("utf-8" if major == 3 else "latin1", "replace")
    try:
        header = ast.literal_eval(text)
        descr, fortran, shape = header["descr"], bool(header["fortran_order"]), header["shape"]
        shape = tuple(int(d) for d in shape)
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        raise InputError("has a malformed .npy header", location=where) from None
    try:
        if isinstance(descr, str) and descr in _RAW_DTYPES:
            dtype = np.dtype(_RAW_DTYPES[descr])
        else:
            dtype = np.lib.format.descr_to_dtype(descr)
    except (TypeError, ValueError):
        raise InputError(
            f"has dtype {descr!r}, which NumPy does not know", location=where
        ) from None
    if dtype.hasobject:
        raise InputError(
            "holds Python objects (a pickled array), which are not read: save numeric arrays",
            location=where,
        )
    if dtype.fields is not None:
        raise InputError(f"holds a structured array ({descr!r}): save one plain array per input",
                         location=where)
    return dtype, shape, fortran


def _native(arr: np.ndarray) -> np.ndarray:
    """``arr`` in this machine's byte order (a copy only when it is not)."""
    return arr if arr.dtype.isnative else arr.astype(arr.dtype.newbyteorder("="))


def _mapped(path: str, offset: int, dtype: np.dtype[Any], shape: tuple[int, ...], fortran: bool,
            where: str) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * dtype.itemsize
    have = os.path.getsize(path) - offset
    if have < nbytes:
        raise InputError(
            f"is truncated: its header says {dtype} of shape {list(shape)} ({nbytes} bytes of "
            f"data) but it holds {max(have, 0)}",
            location=where,
        )
    order = "F" if fortran else "C"
    if count == 0:
        return np.empty(shape, dtype, order=order)
    arr = np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
    return _native(arr.view(np.ndarray))


def read_npy(path: str | os.PathLike[str]) -> np.ndarray:
    """The array of a ``.npy`` file, memory-mapped read-only (InputError naming the file when it
    cannot be read, is not a ``.npy`` file, is truncated or holds objects)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            dtype, shape, fortran = _header(f, path)
            offset = f.tell()
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror or e}") from None
    return _mapped(path, offset, dtype, shape, fortran, path)


class Npz(Mapping[str, np.ndarray]):
    """The members of an ``.npz`` archive by name (without ``.npy``), each read on access:
    memory-mapped when stored uncompressed, else decompressed into memory."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        try:
            with zipfile.ZipFile(self.path) as z:
                self._infos = {
                    i.filename[: -len(".npy")] if i.filename.endswith(".npy") else i.filename: i
                    for i in z.infolist()
                    if not i.is_dir()
                }
        except OSError as e:
            raise InputError(f"cannot read '{self.path}': {e.strerror or e}") from None
        except zipfile.BadZipFile:
            raise InputError(
                "is not an .npz archive (not a zip file): write one with numpy.savez",
                location=self.path,
            ) from None

    def __getitem__(self, name: str) -> np.ndarray:
        info = self._infos[name]
        where = f"{self.path}[{name}]"
        try:
            with zipfile.ZipFile(self.path) as z, z.open(info) as f:
                dtype, shape, fortran = _header(f, where)
                if info.compress_type == zipfile.ZIP_STORED:
                    return _mapped(
                        self.path, _data_offset(self.path, info) + f.tell(), dtype, shape, fortran,
                        where,
                    )
                count = int(np.prod(shape, dtype=np.int64))
                data = f.read(count * dtype.itemsize)
        except (OSError, zipfile.BadZipFile, EOFError) as e:
            raise InputError(f"cannot read member '{name}': {e}", location=self.path) from None
        if len(data) < count * dtype.itemsize:
            raise InputError(f"is truncated ({len(data)} of {count * dtype.itemsize} bytes)",
                             location=where)
        arr = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
        return _native(arr)

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)


def _data_offset(path: str, info: zipfile.ZipInfo) -> int:
    """Where a member's data starts in the archive: after its local file header (whose name and
    extra field lengths may differ from the central directory's)."""
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        local = f.read(30)
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len


def typed(
    stored: np.ndarray,
    dtype: np.dtype[Any],
    *,
    where: str,
    target: str,
    foreign: bool = False,
    fix: str | None = None,
) -> np.ndarray:
    """``stored`` as a value of ``dtype`` (itself, or one of its stored forms: ``storage.decode``);
    else an InputError naming ``where`` (the file), its dtype and ``target`` (what wants which
    type, e.g. "parameter 0 of @main is tensor<2xf32>"), and ``fix``."""
    try:
        value = decode(stored, dtype, foreign=foreign, what=where)
    except StableHLOError as e:
        raise InputError(e.message) from None
    if value is None:
        if fix is None:
            convert = (
                f"np.asarray(a, np.{dtype.name})"
                if dtype.type.__module__ == "numpy"
                else f"a.astype(ml_dtypes.{dtype.name})"
            )
            fix = f"save it with that element type ({convert})"
        raise InputError(f"holds {stored.dtype} but {target}: {fix}", location=where)
    return value


def write_npy(path: str | os.PathLike[str], value: Any) -> None:
    """Write one array (``ml_dtypes`` values as their bits, as the probe writer does)."""
    try:
        np.save(os.fspath(path), storable(np.asarray(value)), allow_pickle=False)
    except OSError as e:
        raise OutputError(f"cannot write '{os.fspath(path)}': {e.strerror or e}") from None


def write_npz(path: str | os.PathLike[str], members: Mapping[str, Any]) -> None:
    """Write an uncompressed ``.npz`` (``np.savez``), each array stored as by :func:`write_npy`."""
    arrays = {k: storable(np.asarray(v)) for k, v in members.items()}
    try:
        with open(os.fspath(path), "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
    except OSError as e:
        raise OutputError(f"cannot write '{os.fspath(path)}': {e.strerror or e}") from None
