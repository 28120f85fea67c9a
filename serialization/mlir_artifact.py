"""Upstream's portable artifacts (MLIR bytecode over VHLO) at the artifact level.

* :func:`write_mlir_artifact` -- a VHLO module at ``target`` -> bytes, exactly as upstream's
  ``serializePortableArtifact`` writes them (producer ``StableHLO_vX.Y.Z``, the target's bytecode
  version from ``specs/releases.toml``).
* :func:`read_mlir_artifact` -- bytes -> (version, VHLO module at that version).
* :func:`mlir_artifact_version` -- the version from the producer string alone (as upstream's
  ``getPortableArtifactVersion``: the bytes up to the first NUL; a failure when the producer names
  none).
* :func:`version_from_ops` -- the version of an artifact whose producer names none (``MLIR24.0.0git``,
  what ``ir.Module.write_bytecode`` writes for a VHLO module): the lowest release at which its VHLO
  ops, attributes and types all exist as written.  Upstream's ``deserializePortableArtifact`` reads
  any MLIR bytecode (it parses, then converts the VHLO forks it finds to the current ones); so do we.

Every failure is a :class:`~stablehlo_py.errors.SerializationError` with the byte offset.
"""

from __future__ import annotations

import re
from typing import Any

from stablehlo_py.serialization.format import artifact_error
from stablehlo_py.serialization.mlirbc.builtin import NotEncodable
from stablehlo_py.serialization.mlirbc.encoding import MAGIC, BytecodeError
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from stablehlo_py.errors import SerializationError
from stablehlo_py.version import Version, get_current_version, get_minimum_version

__all__ = [
    "MLIR_MAGIC",
    "holds_vhlo",
    "is_mlir_bytecode",
    "mlir_artifact_version",
    "producer_version",
    "read_mlir_artifact",
    "version_from_ops",
    "write_mlir_artifact",
]

MLIR_MAGIC = MAGIC
_PRODUCER = re.compile(rb"StableHLO_v([0-9]+)\.([0-9]+)\.([0-9]+)")


def is_mlir_bytecode(data: bytes) -> bool:
    return bytes(data[:4]) == MAGIC


def write_mlir_artifact(
    vhlo: Operation,
    target: Version,
    strip_debuginfo: bool = False,
    use_lists_as: Version | None = None,
    *,
    allow_other_dialects: bool = False,
) -> bytes:
    """``use_lists_as``: reproduce the use-list orders (meaningless, but part of the bytes) that
    upstream's serializer at that version leaves after its version conversion -- e.g. 1.17.0 for
    jaxlib 0.10 (up to 1.17); default: the newest upstream's (jaxlib 0.12, StableHLO 1.22.0).  ``allow_other_dialects``: ops and
    attributes of other dialects beside the VHLO are written too (``write_vhlo``)."""
    from stablehlo_py.serialization.mlirbc import write_vhlo

    try:
        return write_vhlo(vhlo, target, strip_debuginfo, use_lists_as, allow_other_dialects)
    except NotEncodable as e:
        raise SerializationError(
            f"cannot write an MLIR bytecode artifact for StableHLO {target}:\n  {e}"
        ) from None


def producer_version(data: bytes, name: str = "<artifact>") -> Version | None:
    """The StableHLO version the producer string names (``StableHLO_vX.Y.Z``, as upstream's
    ``getPortableArtifactVersion`` finds it: anywhere in the bytes up to the first NUL), or None when
    the producer names none (``MLIR24.0.0git``: what ``ir.Module.write_bytecode`` writes, and what
    early JAX releases wrote).  Raises when the bytes are not MLIR bytecode."""
    data = bytes(data)
    if not data.startswith(MAGIC):
        raise artifact_error("not MLIR bytecode (no 'ML\\xefR' magic)", 0, name)
    end = data.find(b"\x00", 4)
    if end < 0:
        raise artifact_error("MLIR bytecode truncated inside its header", len(data), name)
    m = _PRODUCER.search(data, 4, end)
    if m is None or any(len(g) > 9 for g in m.groups()):  # no version has 10-digit numbers
        return None
    return Version(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _producer_text(data: bytes) -> str:
    end = data.find(b"\x00", 4)
    producer = data[5 : end if end >= 0 else 85].decode("utf-8", "replace")
    return producer if len(producer) <= 80 else producer[:77] + "..."


def mlir_artifact_version(data: bytes, name: str = "<artifact>") -> Version:
    """The StableHLO version in the producer string (``StableHLO_vX.Y.Z``), from the header alone.
    As upstream's ``getPortableArtifactVersion``, a producer that names no version is a failure
    (the artifact may still be readable: :func:`read_mlir_artifact` then establishes its version
    from the ops it holds)."""
    version = producer_version(data, name)
    if version is None:
        data = bytes(data)
        raise artifact_error(
            f"the producer of this MLIR bytecode is '{_producer_text(data)}', which names no "
            "StableHLO version (a portable artifact's is 'StableHLO_vX.Y.Z'), so the version "
            "cannot be read from its header",
            5,
            name,
            note=(
                "deserialize_portable_artifact / stablehlo-translate --deserialize read it all the "
                "same (VHLO is versioned by its ops); read_vhlo_artifact(data)[0] gives the lowest "
                "version its ops exist at"
                if holds_vhlo(data)
                else "it holds no VHLO: it is dialect bytecode (stablehlo-opt -emit-bytecode), "
                "which deserialize_portable_artifact and `stablehlo-opt FILE` read as it is"
            ),
        )
    return version


def holds_vhlo(data: bytes) -> bool:
    """Whether MLIR bytecode uses the VHLO dialect (a portable artifact) rather than only the
    stablehlo, chlo, func ... dialects (``stablehlo-opt -emit-bytecode``), from its dialect section
    (the IR is not read).  Malformed bytes count as VHLO: the full read reports what is wrong."""
    from stablehlo_py.serialization.mlirbc.reader import dialect_names

    try:
        return "vhlo" in dialect_names(bytes(data))
    except BytecodeError:
        return True


def version_from_ops(module: Operation) -> Version:
    """The lowest StableHLO release at which every VHLO op fork, attribute and type of ``module``
    (xDSL ops or ``vhlo.records``) exists as written -- the version of an artifact whose producer
    names none (upstream's deserializer never needs one: it converts whatever forks it finds to the
    current ones, and so do we).  Never below the minimum supported version; ops, attributes and
    types of other dialects (Shardy's) do not count."""
    from stablehlo_py.vhlo import attrs as va
    from stablehlo_py.vhlo import types as vt
    from stablehlo_py.vhlo.legality import attr_needs, type_needs

    current = get_current_version()
    best = get_minimum_version()

    def note(needs: Version) -> None:
        nonlocal best
        if best < needs <= current:  # above current: not VHLO at all (reported elsewhere)
            best = needs

    def types(values: Any) -> None:
        for v in values:
            t = v.type
            if isinstance(t, vt.VhloType):
                note(type_needs(t)[0])

    for op in module.walk():
        spec = getattr(op, "SPEC", None)
        if spec is None or not getattr(spec, "mnemonic", "").startswith("vhlo."):
            continue
        note(spec.min_version)
        for group in (op.properties, op.attributes):
            for a in group.values():
                if isinstance(a, (va.VhloAttr, vt.VhloType)):
                    note(attr_needs(a)[0])
        types(op.results)
        for region in op.regions:
            for block in region.blocks:
                types(block.args)
    return best


def read_mlir_artifact(
    data: bytes, name: str = "<artifact>", records: bool = False, *, check_version: bool = True
) -> tuple[Version, ModuleOp]:
    """Decode an MLIR bytecode artifact into (its version, the VHLO module at that version); with
    ``records`` the module is ``vhlo.records``, not xDSL ops.

    The version is the one the producer names (``StableHLO_vX.Y.Z``); a producer that names none
    (``MLIR24.0.0git``: jaxlib's ``ir.Module.write_bytecode`` of a VHLO module, early JAX) is read
    all the same, as upstream's ``deserializePortableArtifact`` reads any bytecode, and its version
    is :func:`version_from_ops`.  ``check_version=False`` reads an artifact whose producer names a
    version newer than this toolkit's as well (as upstream's ``stablehlo-opt`` parses it: only ops,
    attributes and types it does not know fail)."""
    from stablehlo_py.serialization.mlirbc import read_vhlo

    from stablehlo_py.ir import no_gc

    data = bytes(data)
    version = producer_version(data, name)
    if version is None and not holds_vhlo(data):
        from stablehlo_py.serialization.mlirbc.reader import dialect_names

        raise artifact_error(
            f"this MLIR bytecode holds no VHLO (its dialects: {', '.join(dialect_names(data))}; "
            f"its producer: '{_producer_text(data)}'): it is dialect bytecode as "
            "`stablehlo-opt -emit-bytecode` writes it, not a portable artifact",
            5,
            name,
            note="deserialize_portable_artifact and `stablehlo-opt FILE` read it as it is",
        )
    if version is not None and check_version:
        _check_range(data, version, name)
    if records and holds_other_dialects(data):
        records = False  # Shardy's ops are xDSL ops; their VHLO neighbours are built as ops too
    try:
        with no_gc():
            _, _, module = read_vhlo(data, name, records)
    except BytecodeError as e:
        raise artifact_error(e.message, e.offset, name) from None
    except RecursionError:
        raise artifact_error("the artifact nests too deeply to read", 0, name) from None
    if version is None:
        version = version_from_ops(module)
    return version, module


def _check_range(data: bytes, version: Version, name: str) -> None:
    """Refuse an artifact written for a version this toolkit does not read."""
    current = get_current_version()
    if version.with_zero_patch() > current:
        unknown = _unknown_ops(data)
        what = f"; ops this toolkit does not know: {', '.join(unknown)}" if unknown else ""
        raise artifact_error(
            f"the artifact was written for StableHLO {version}, newer than this consumer, which "
            f"reads StableHLO {get_minimum_version()} to {current}{what}",
            5,
            name,
            note=f"ask the producer to serialize with --target={current} (or older), or upgrade "
            "stablehlo-py",
        )
    if version < get_minimum_version():
        raise artifact_error(
            f"the artifact was written for StableHLO {version}, older than the oldest version this "
            f"consumer reads ({get_minimum_version()})",
            5,
            name,
        )


def holds_other_dialects(data: bytes) -> bool:
    """Whether the artifact uses a dialect other than VHLO and builtin (JAX's Shardy ops and
    attributes, `sdy`, which upstream's serializer keeps with allow_other_dialects)."""
    from stablehlo_py.serialization.mlirbc.ops import OTHER_DIALECTS
    from stablehlo_py.serialization.mlirbc.reader import dialect_names

    try:
        return any(d in OTHER_DIALECTS for d in dialect_names(bytes(data)))
    except BytecodeError:
        return False  # the full read reports what is wrong


def _unknown_ops(data: bytes) -> list[str]:
    """VHLO op names of the dialect section that this toolkit does not know (best effort)."""
    from stablehlo_py.serialization import codes
    from stablehlo_py.serialization.mlirbc.reader import op_names

    try:
        names = op_names(data)
    except BytecodeError:
        return []
    out = []
    for dialect, name in names:
        if dialect == "vhlo":
            try:
                codes.op_code(name)
            except KeyError:
                out.append(f"vhlo.{name}")
    return sorted(set(out))
