"""The errors of reading inputs from files and writing results to them."""

from __future__ import annotations

from stablehlo_py.errors import StableHLOError

__all__ = ["InputError", "OutputError"]


class InputError(StableHLOError):
    """Arguments cannot be read (a file is missing or unreadable) or do not fit the parameters
    they are given for (count, names, dtype, shape).  ``location`` names the file."""


class OutputError(StableHLOError):
    """Results cannot be written where asked (the file's suffix, one ``.npy`` for several results,
    a value that is not an array, an unwritable path)."""
