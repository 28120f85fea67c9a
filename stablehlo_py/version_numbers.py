"""StableHLO version numbers: :class:`Version` (``major.minor.patch``, parsed, ordered, printed).

A leaf module: it knows nothing of the release log, so both :mod:`stablehlo_py.specs` (which reads
the log) and :mod:`stablehlo_py.version` (which answers questions about it) import it without
importing each other.  The public spelling is ``stablehlo_py.version.Version`` (re-exported there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stablehlo_py.errors import VersionError

__all__ = ["Version"]

_VERSION_RE = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)")


@dataclass(frozen=True, order=True)
class Version:
    """A StableHLO version ``major.minor.patch``; ordered, hashable, printed as ``X.Y.Z``."""

    major: int
    minor: int
    patch: int

    def __post_init__(self) -> None:
        for part in (self.major, self.minor, self.patch):
            if not isinstance(part, int) or isinstance(part, bool) or part < 0:
                raise VersionError(
                    f"invalid version ({self.major!r}, {self.minor!r}, {self.patch!r}): "
                    "each part must be a non-negative integer"
                )

    @classmethod
    def from_string(cls, text: str) -> Version:
        """Parse ``"X.Y.Z"`` (three decimal numbers, nothing else), like upstream's
        ``Version::fromString``.  Raises :class:`VersionError` on anything else."""
        if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise VersionError(f"invalid version {text!r}: expected a string like '1.20.0'")
        match = _VERSION_RE.fullmatch(text)
        if match is None:
            raise VersionError(
                f"invalid version '{text}': expected MAJOR.MINOR.PATCH with decimal numbers, "
                "e.g. '1.20.0'"
            )
        return cls(int(match[1]), int(match[2]), int(match[3]))

    parse = from_string

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    def with_zero_patch(self) -> Version:
        """``X.Y.0``: the release whose opset this version has."""
        return Version(self.major, self.minor, 0)
