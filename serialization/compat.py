"""Compatibility questions about an artifact: can a consumer at version X load it, and if not, why.

A consumer at StableHLO version X reads artifacts written for any version P <= X (backward
compatibility: it upgrades P -> X).  An artifact written for P > X is refused by that consumer,
whatever it contains; what matters then is whether the program *could* be written for X (forward
compatibility: the producer re-serializes with ``--target=X``).  :func:`check_compat` answers both:
it decodes the artifact, and when P > X dry-runs ``vhlo-to-version{target=X}`` on the program to list
every op, type or attribute that does not exist at X (with its location and the first version that
has it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stablehlo_py.serialization.reader import unknown_codes

from stablehlo_py.errors import StableHLOError, VersionError
from stablehlo_py.version import Version, get_current_version, get_minimum_version

__all__ = ["CompatReport", "check_compat", "unknown_codes"]


@dataclass(frozen=True)
class CompatReport:
    """The answer of :func:`check_compat`."""

    artifact_version: Version
    """The version the artifact was written for (its header's producer)."""
    consumer_version: Version
    producer: str
    toolkit: str
    blockers: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())

    @property
    def compatible(self) -> bool:
        return not self.blockers

    def __bool__(self) -> bool:
        return self.compatible

    def render(self) -> str:
        head = (
            f"artifact written for StableHLO {self.artifact_version} by {self.toolkit or 'an unknown toolkit'}; "
            f"consumer at StableHLO {self.consumer_version}: "
        )
        if self.compatible:
            text = head + "compatible"
        else:
            text = (
                head
                + f"NOT compatible ({len(self.blockers)} blocker{'s' if len(self.blockers) != 1 else ''})"
            )
            text += "".join(f"\n  blocker: {b}" for b in self.blockers)
        text += "".join(f"\n  note: {n}" for n in self.notes)
        return text

    __str__ = render


def _consumer(version: Version | str) -> Version:
    if isinstance(version, str) and version == "current":
        return get_current_version()
    v = version if isinstance(version, Version) else Version.from_string(version)
    if v < get_minimum_version():
        raise VersionError(
            f"consumer version {v} is older than the first stable version {get_minimum_version()}",
            note="portable artifacts exist from StableHLO 0.9.0",
        )
    return v.with_zero_patch()


@dataclass
class _Source:
    """An artifact of either format: its version, producer, writer and (lazily) its VHLO module."""

    version: Version
    producer: str
    toolkit: str
    unknown: Any
    module: Any


def _open(data: bytes, name: str) -> _Source:
    from stablehlo_py.serialization._detect import artifact_format

    fmt = artifact_format(data, name)
    if fmt == "jax":
        from stablehlo_py.serialization.jax_export import read_jax_exported

        data = read_jax_exported(bytes(data), name).mlir_module_serialized
        fmt = "mlir"
    if fmt == "mlir":
        from stablehlo_py.serialization.mlir_artifact import (
            _unknown_ops,
            mlir_artifact_version,
            producer_version,
            read_mlir_artifact,
        )
        from stablehlo_py.serialization.mlirbc.reader import read_producer

        if producer_version(data, name) is None:  # the version its ops establish
            version, module = read_mlir_artifact(data, name)
            _, producer = read_producer(bytes(data))
            return _Source(version, producer, "an MLIR bytecode writer", list, lambda: module)
        version = mlir_artifact_version(data, name)
        _, producer = read_producer(bytes(data))
        return _Source(
            version,
            producer,
            "an MLIR bytecode writer",
            lambda: [f"op {o}" for o in _unknown_ops(bytes(data))],
            lambda: read_mlir_artifact(data, name)[1],
        )
    from stablehlo_py.serialization.reader import build_module, read_raw

    raw = read_raw(data, name)
    h = raw.header
    return _Source(
        h.version, h.producer, h.toolkit, lambda: unknown_codes(raw), lambda: build_module(raw)
    )


def check_compat(
    data: bytes, consumer_version: Version | str, name: str = "<artifact>"
) -> CompatReport:
    """Can a consumer at ``consumer_version`` load this artifact?  Raises SerializationError when the
    bytes are not a readable artifact at all; otherwise reports every blocker."""
    consumer = _consumer(consumer_version)
    source = _open(data, name)
    produced = source.version.with_zero_patch()
    current = get_current_version()
    base = {
        "artifact_version": source.version,
        "consumer_version": consumer,
        "producer": source.producer,
        "toolkit": source.toolkit,
    }
    if produced > current:
        # Written by a newer toolkit: name what this toolkit cannot even decode.
        blockers = [
            (
                f"the artifact was written for StableHLO {source.version}; a consumer at {consumer} "
                f"reads artifacts written for {get_minimum_version()} to {consumer}"
            )
        ]
        blockers += [
            f"{u} is unknown to this toolkit (StableHLO {current})" for u in source.unknown()
        ]
        return CompatReport(**base, blockers=tuple(blockers))
    module = source.module()
    if produced <= consumer:
        notes = ()
        if consumer > current:
            notes = (
                f"{consumer} is newer than this toolkit ({current}); assuming its backward compatibility",
            )
        return CompatReport(**base, notes=notes)
    blockers = [
        (
            f"the artifact was written for StableHLO {source.version}; a consumer at {consumer} reads "
            f"artifacts written for {get_minimum_version()} to {consumer}"
        )
    ]
    from stablehlo_py.passes import PASSES

    try:
        PASSES["vhlo-to-version"].run(module, {"target": str(consumer)})
    except StableHLOError as e:
        blocked = getattr(e, "blocked", None)  # vhlo-to-version's DowngradeError: every op and why
        if blocked:
            blockers.extend(f"cannot be written for {consumer}: {b.line()}" for b in blocked)
        else:
            blockers.append(f"the program cannot be written for {consumer}: {e.message}")
        notes = tuple(n for n in (e.note, getattr(e, "hint", None)) if n)
        return CompatReport(**base, blockers=tuple(blockers), notes=notes)
    return CompatReport(
        **base,
        blockers=tuple(blockers),
        notes=(
            (
                f"every op of the program exists at {consumer}: re-serialize it with "
                f"--target={consumer} for this consumer"
            ),
        ),
    )
