"""Upstream's portable artifacts (MLIR bytecode over VHLO) at the artifact level.

* :func:`write_mlir_artifact` -- a VHLO module at ``target`` -> bytes, exactly as upstream's
  ``serializePortableArtifact`` writes them (producer ``StableHLO_vX.Y.Z``, the target's bytecode
  version from ``specs/releases.toml``).
* :func:`read_mlir_artifact` -- bytes -> (version, VHLO module at that version).
* :func:`mlir_artifact_version` -- the version from the producer string alone (as upstream's
  ``getPortableArtifactVersion``: the bytes up to the first NUL).

Every failure is a :class:`~stablehlo_py.errors.SerializationError` with the byte offset.
"""

from __future__ import annotations

import re

from stablehlo_py.serialization.format import artifact_error
from stablehlo_py.serialization.mlirbc.builtin import NotEncodable
from stablehlo_py.serialization.mlirbc.encoding import MAGIC, BytecodeError
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from stablehlo_py.errors import SerializationError
from stablehlo_py.version import Version, get_current_version, get_minimum_version

__all__ = [
    "MLIR_MAGIC",
    "is_mlir_bytecode",
    "mlir_artifact_version",
    "read_mlir_artifact",
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
) -> bytes:
    """``use_lists_as``: reproduce the use-list orders (meaningless, but part of the bytes) that
    upstream's serializer at that version leaves after its version conversion -- e.g. 1.17.0 for
    jaxlib 0.10; default: this toolkit's own conversion."""
    from stablehlo_py.serialization.mlirbc import write_vhlo

    try:
        return write_vhlo(vhlo, target, strip_debuginfo, use_lists_as)
    except NotEncodable as e:
        raise SerializationError(
            f"cannot write an MLIR bytecode artifact for StableHLO {target}:\n  {e}"
        ) from None


def mlir_artifact_version(data: bytes, name: str = "<artifact>") -> Version:
    """The StableHLO version in the producer string (``StableHLO_vX.Y.Z``)."""
    data = bytes(data)
    if not data.startswith(MAGIC):
        raise artifact_error("not MLIR bytecode (no 'ML\\xefR' magic)", 0, name)
    end = data.find(b"\x00", 4)
    if end < 0:
        raise artifact_error("MLIR bytecode truncated inside its header", len(data), name)
    m = _PRODUCER.search(data, 4, end)
    if m is None or any(len(g) > 9 for g in m.groups()):  # no version has 10-digit numbers
        producer = data[5:end].decode("utf-8", "replace")
        if len(producer) > 80:
            producer = producer[:77] + "..."
        raise artifact_error(
            f"this MLIR bytecode was not written as a StableHLO portable artifact (its producer is "
            f"'{producer}', not 'StableHLO_vX.Y.Z')",
            5,
            name,
            note="MLIR bytecode of the stablehlo dialect (stablehlo-opt -emit-bytecode) is read by "
            "`stablehlo-opt FILE`, not by --deserialize",
        )
    return Version(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def read_mlir_artifact(
    data: bytes, name: str = "<artifact>", records: bool = False
) -> tuple[Version, ModuleOp]:
    """Decode an MLIR bytecode artifact into (its version, the VHLO module at that version); with
    ``records`` the module is ``vhlo.records``, not xDSL ops."""
    from stablehlo_py.serialization.mlirbc import read_vhlo

    from stablehlo_py.ir import no_gc

    data = bytes(data)
    version = mlir_artifact_version(data, name)
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
    if records and holds_other_dialects(data):
        records = False  # Shardy's ops are xDSL ops; their VHLO neighbours are built as ops too
    try:
        with no_gc():
            _, _, module = read_vhlo(data, name, records)
    except BytecodeError as e:
        raise artifact_error(e.message, e.offset, name) from None
    except RecursionError:
        raise artifact_error("the artifact nests too deeply to read", 0, name) from None
    return version, module


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
