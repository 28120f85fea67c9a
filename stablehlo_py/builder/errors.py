"""The builder's error: bad input to an op function (operand, attribute, result type, region)."""

from __future__ import annotations

from stablehlo_py.errors import StableHLOError


class BuildError(StableHLOError):
    """An op could not be built: the message names the op and the operand or attribute at fault,
    and says what was expected; ``location`` is the Python call site (file:line) that built it."""
