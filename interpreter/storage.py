"""How interpreter values are stored in NumPy files, and read back given their element type.

NumPy has no dtype for bf16, the f8/f6/f4 types or i2/i4/ui2/ui4 (``ml_dtypes`` provides them, but
``np.save`` writes them as raw bytes, ``'<V2'``), so ``interpreter.probe`` stores such a value as
its bits (:func:`storable`: ``uint8``/``uint16`` of the same item size); every other value is
stored as it is.  :func:`decode` turns a stored array back into the value of a given dtype: the same dtype as
it is; the bits (``uintN``) or raw bytes (``VN``) of an ``ml_dtypes`` type viewed as that type; and,
with ``foreign=True`` (a file whose type is known from elsewhere, e.g. a probe directory's
``index.csv``), the forms upstream's interpreter writes (stablehlo/reference/NumPy.cpp): ``i1`` as
``int8``, ``f16`` as ``uint16``, ``complex<f32>`` as ``float64`` (each element's 8 bytes),
``complex<f64>`` as a 16-byte integer (read as ``V16``), and ``i64``/``ui64`` with the other
signedness.  Those are refused for files of unknown origin: a ``uint64`` file for an ``i64``
parameter is more likely a mistake than a bit pattern.

One table (:data:`FOREIGN` and the rule in :func:`bits_dtype`) serves the probe writer and every
reader (``stablehlo_py.io``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError

__all__ = ["FOREIGN", "bits_dtype", "decode", "is_numpy_native", "storable", "stored_forms"]

_BITS = {n: np.dtype(f"uint{8 * n}") for n in (1, 2, 4, 8)}

FOREIGN: dict[np.dtype[Any], tuple[np.dtype[Any], ...]] = {
    np.dtype(np.bool_): (np.dtype(np.int8), np.dtype(np.uint8)),
    np.dtype(np.float16): (np.dtype(np.uint16),),
    np.dtype(np.complex64): (np.dtype(np.float64),),
    np.dtype(np.complex128): (np.dtype("V16"),),
    np.dtype(np.int64): (np.dtype(np.uint64),),
    np.dtype(np.uint64): (np.dtype(np.int64),),
}
"""element dtype -> the dtypes upstream's probe writer stores it as (NumPy.cpp's dispatchType)."""


def is_numpy_native(dtype: Any) -> bool:
    """Whether NumPy stores ``dtype`` in a ``.npy`` file as itself (not an ``ml_dtypes`` type)."""
    return np.dtype(dtype).type.__module__ == "numpy"


def bits_dtype(dtype: Any) -> np.dtype[Any]:
    """The dtype a value of ``dtype`` is stored as: itself when NumPy-native, else the unsigned
    integer of its item size (its bits)."""
    dt = np.dtype(dtype)
    return dt if is_numpy_native(dt) else _BITS[dt.itemsize]


def storable(arr: np.ndarray) -> np.ndarray:
    """``arr`` as written to a ``.npy`` file: NumPy-native arrays as they are, ``ml_dtypes`` arrays
    (bf16, f8, i4, ...) as their bits."""
    if is_numpy_native(arr.dtype):
        return arr
    return np.ascontiguousarray(arr).view(bits_dtype(arr.dtype))


def stored_forms(dtype: Any, *, foreign: bool = False) -> tuple[np.dtype[Any], ...]:
    """Every dtype :func:`decode` reads as ``dtype``."""
    dt = np.dtype(dtype)
    forms = [dt]
    if not is_numpy_native(dt):
        forms += [_BITS[dt.itemsize], np.dtype(f"V{dt.itemsize}")]
    if foreign:
        forms += [f for f in FOREIGN.get(dt, ()) if f not in forms]
    return tuple(forms)


def decode(
    stored: np.ndarray, dtype: Any, *, foreign: bool = False, what: str = "the file"
) -> np.ndarray | None:
    """``stored`` (as read from a ``.npy`` file) as a value of ``dtype``, without a copy when the
    bytes can be viewed; None when ``stored`` is no stored form of ``dtype`` (see the module
    docstring).  An ``int8``/``uint8`` array read as ``i1`` must hold only 0 and 1 (an
    InterpreterError naming ``what`` otherwise)."""
    dt = np.dtype(dtype)
    if stored.dtype == dt:
        return stored
    if stored.dtype not in stored_forms(dt, foreign=foreign):
        return None
    if dt == np.bool_:
        bad = np.flatnonzero((stored != 0) & (stored != 1))
        if bad.size:
            raise InterpreterError(
                f"{what} stores i1 as {stored.dtype} but element {int(bad[0])} is "
                f"{stored.reshape(-1)[bad[0]]}, not 0 or 1"
            )
        return stored.astype(np.bool_)
    return stored.view(dt)
