"""StableHLO versions: parsing, ordering, the supported range and compatibility targets.

Everything here is derived from the dated release log in ``specs/releases.toml``
(:func:`stablehlo_py.specs.releases`): the current version is the newest release (1.22.0), the
minimum version the oldest (0.9.0), and the WEEK_4 / WEEK_12 targets are the newest upstream tags
(vX.Y.0 or a patch tag vX.Y.Z) at least 28 / 84 days old on a given day — computed, not hand-kept.

Untagged releases.  A minor version upstream never tagged (0.20.0, 1.17.0) or has not tagged as far
as we know (1.20.0, 1.21.0, 1.22.0) is ``tagged = false`` in the log, has no date, and is never a
WEEK_4 / WEEK_12 answer.  This is what upstream does: ``Version::fromCompatibilityRequirement``
measures "from the date that the release was tagged on, not merged" (the tag is when a version has
been verified and exported to XLA), and its anchors are picked from the tag list, patch tags
included.  Upstream's anchors are frozen in each build: jaxlib 0.12 answers WEEK_4 = 1.18.0 and
WEEK_12 = 1.16.3 on any day, which is this module's answer for the days its anchors were chosen
(2026-08-14 ... 2026-09-10); on a later day this module moves on (on 2026-11-28 both are 1.19.0,
tagged 2026-08-13), where a jaxlib build keeps its anchors until its next update.  An untagged
release is still a valid target (``validate_target``) and the current version (``NONE``) when it is
newest.

Patches.  As upstream does, a target keeps its patch (``1.16.3`` is written as the producer
``StableHLO_v1.16.3``) while its opset is X.Y.0's (patch versions never change the opset); a target
above the current version (``1.22.1``) or below the minimum is refused.  A target inside the range
that is not itself a release (there are none today) behaves like the newest release before it, since
legality is a range test.
"""

from __future__ import annotations

import datetime
import enum
from typing import TYPE_CHECKING

from stablehlo_py.errors import VersionError
from stablehlo_py.version_numbers import Version

if TYPE_CHECKING:
    from stablehlo_py.specs import Release

__all__ = [
    "CompatibilityRequirement",
    "Version",
    "get_current_version",
    "get_minimum_version",
    "get_smaller_version",
    "get_version_from_compatibility_requirement",
    "validate_target",
]


def _coerce(version: Version | str) -> Version:
    return version if isinstance(version, Version) else Version.from_string(version)


def _release_log() -> tuple[Release, ...]:
    # Imported here, on first use: reading the tables is not needed by `import stablehlo_py`.
    # (stablehlo_py.specs takes Version from the leaf version_numbers, not from this module.)
    from stablehlo_py.specs import releases

    return releases()


def get_current_version() -> Version:
    """The newest version in the release log (1.22.0)."""
    return _release_log()[-1].version


def get_minimum_version() -> Version:
    """The oldest supported version (0.9.0)."""
    return _release_log()[0].version


def get_smaller_version(a: Version | str, b: Version | str) -> Version:
    """The smaller of two versions (strings are parsed)."""
    va, vb = _coerce(a), _coerce(b)
    return min(va, vb)


def validate_target(target: Version | str) -> Version:
    """Check a serialization / downgrade target and return it as ``X.Y.0``.

    Accepts a :class:`Version`, ``"X.Y.Z"``, ``"current"`` or ``"minimum"``.  The patch is kept, as
    upstream keeps it (the producer string of an artifact for ``1.7.3`` says ``StableHLO_v1.7.3``);
    the opset is X.Y.0's (``Version.with_zero_patch``).  A target below the minimum or above the
    current version (``1.22.1`` included, as upstream compares whole versions) raises
    :class:`VersionError` with upstream's wording ("target version 0.0.0 is less than minimum
    supported 0.9.0") and a note naming the valid range.
    """
    if isinstance(target, str) and target == "current":
        return get_current_version()
    if isinstance(target, str) and target == "minimum":
        return get_minimum_version()
    version = _coerce(target)
    minimum, current = get_minimum_version(), get_current_version()
    if version < minimum:
        raise VersionError(
            f"target version {target} is less than minimum supported {minimum}",
            note=f"choose a target from {minimum} to {current} (or 'current', 'minimum')",
        )
    if version > current:
        raise VersionError(
            f"target version {target} is greater than current version {current}",
            note=f"choose a target from {minimum} to {current} (or 'current', 'minimum')",
        )
    return version


class CompatibilityRequirement(enum.Enum):
    """How far back a portable artifact must stay readable (upstream's enum, same values)."""

    NONE = 0
    """No requirement: the current version."""
    WEEK_4 = 1
    """About one month: the newest release at least 28 days old."""
    WEEK_12 = 2
    """About three months: the newest release at least 84 days old."""
    MAX = 3
    """Maximum compatibility: the minimum supported version."""


_MIN_AGE_DAYS = {CompatibilityRequirement.WEEK_4: 28, CompatibilityRequirement.WEEK_12: 84}


def get_version_from_compatibility_requirement(
    requirement: CompatibilityRequirement | str,
    today: datetime.date | None = None,
) -> Version:
    """A target version meeting ``requirement`` on ``today`` (default: the current date).

    WEEK_4 / WEEK_12 give the newest upstream tag (vX.Y.0 or a patch tag vX.Y.Z) made at least 28 /
    84 days before ``today`` (untagged releases are skipped, see the module docstring); when no tag
    is that old (a ``today`` before 0.9.0 was four weeks old) the minimum version is the best
    available and is returned.  ``requirement`` may also be given by name (``"WEEK_4"``).  Pass ``today`` for a
    deterministic answer.
    """
    if isinstance(requirement, str):
        try:
            requirement = CompatibilityRequirement[requirement.upper()]
        except KeyError:
            names = ", ".join(r.name for r in CompatibilityRequirement)
            raise VersionError(
                f"unknown compatibility requirement '{requirement}'", note=f"use one of {names}"
            ) from None
    if requirement is CompatibilityRequirement.NONE:
        return get_current_version()
    if requirement is CompatibilityRequirement.MAX:
        return get_minimum_version()
    day = today if today is not None else datetime.date.today()
    cutoff = day - datetime.timedelta(days=_MIN_AGE_DAYS[requirement])
    log = _release_log()
    old_enough = [tag for r in log for tag, made in r.tags() if made <= cutoff]
    return max(old_enough) if old_enough else log[0].version
