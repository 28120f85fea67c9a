"""Writing an ``.npz`` archive member by member, each member from parts given one after another.

The archive is numpy's (what ``np.savez`` writes and ``np.load`` reads): a zip file, every member an
``.npy`` file named ``<name>.npy``, stored uncompressed (so :class:`stablehlo_py.io.npy.Npz`
memory-maps it), with zip64 records (members and archives past 4 GiB).  A member's bytes go to the
file as its parts arrive, so writing holds one part at a time: an MPI run's rank 0 writes a result
tiled along its leading dimension tile by tile as it receives them (``stablehlo_py.io.shards``).
Values of types NumPy has no dtype for (bf16, f8, i4, ...) are stored as their bits, as everywhere
in ``stablehlo_py.io`` (``interpreter.storage.storable``).
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Iterable
from types import TracebackType
from typing import Any

import numpy as np

from stablehlo_py.interpreter.storage import storable
from stablehlo_py.io.errors import OutputError

__all__ = ["NpzStream", "npy_header", "stored_dtype"]


def stored_dtype(dtype: Any) -> np.dtype[Any]:
    """The dtype a value of ``dtype`` is stored with (its bits' for ml_dtypes types)."""
    return storable(np.empty(0, dtype)).dtype


def npy_header(dtype: Any, shape: tuple[int, ...]) -> bytes:
    """The ``.npy`` header ``np.save`` writes for a C-ordered array of stored ``dtype`` and
    ``shape`` (format 1.0, or 2.0 when the header needs it)."""
    fields = {
        "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
        "fortran_order": False,
        "shape": tuple(int(d) for d in shape),
    }
    out = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(out, fields)
    except ValueError:  # more than 65535 bytes of header
        out = io.BytesIO()
        np.lib.format.write_array_header_2_0(out, fields)
    return out.getvalue()


def part_bytes(part: Any, dtype: np.dtype[Any], where: str) -> memoryview:
    """The bytes of ``part`` in C order, stored as ``dtype`` (a flat byte view; a copy only when
    ``part`` is not C-contiguous or is no numpy array)."""
    value = storable(np.asarray(part))
    if value.dtype != dtype:
        raise OutputError(f"{where}: a part holds {value.dtype}, the member {dtype}")
    flat = np.ascontiguousarray(value).reshape(-1)
    return memoryview(flat.view(np.uint8))


class NpzStream:
    """An ``.npz`` archive being written (module doc); use as a context manager.  When writing
    fails the partial archive is removed."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._names: set[str] = set()
        try:
            self._file = open(self.path, "wb")  # noqa: SIM115 (closed by close())
            self._zip = zipfile.ZipFile(self._file, "w", zipfile.ZIP_STORED, allowZip64=True)
        except OSError as e:
            raise OutputError(f"cannot write '{self.path}': {e.strerror or e}") from None

    def add(self, name: str, value: Any) -> None:
        """Add one whole array as member ``name``."""
        value = np.asarray(value)
        self.add_parts(name, value.dtype, value.shape, (value,))

    def add_parts(
        self, name: str, dtype: Any, shape: tuple[int, ...], parts: Iterable[Any]
    ) -> int:
        """Add member ``name``, an array of ``dtype`` and ``shape``, from ``parts``: arrays whose
        elements, one part after another in C order, are the array's (taken one at a time, so
        ``parts`` may be a generator receiving them).  Returns the bytes of data written."""
        if name in self._names:
            raise OutputError(f"member '{name}' is written twice", location=self.path)
        self._names.add(name)
        dt = stored_dtype(dtype)
        shape = tuple(int(d) for d in shape)
        want = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        where = f"{self.path}[{name}]"
        written = 0
        try:
            with self._zip.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(npy_header(dt, shape))
                for part in parts:
                    data = part_bytes(part, dt, where)
                    if written + data.nbytes > want:
                        raise OutputError(
                            f"{where}: its parts hold more than the {want} bytes of "
                            f"{dt}{list(shape)}"
                        )
                    f.write(data)
                    written += data.nbytes
        except OSError as e:
            raise OutputError(f"cannot write '{self.path}': {e.strerror or e}") from None
        if written != want:
            raise OutputError(
                f"{where}: its parts hold {written} of the {want} bytes of {dt}{list(shape)}"
            )
        return written

    def close(self) -> None:
        try:
            self._zip.close()
        finally:
            self._file.close()

    def __enter__(self) -> NpzStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close()
        finally:
            if kind is not None:
                try:
                    os.remove(self.path)
                except OSError:
                    pass

