"""Upstream's portable-artifact format: MLIR bytecode over VHLO (``../shared/reference/mlir-bytecode.md``).

``write_vhlo(module, target)`` writes a VHLO module (already at ``target``) byte for byte as upstream's
``serializePortableArtifact`` does; ``read_vhlo(data)`` reads one back into a VHLO module.
"""

from __future__ import annotations

from stablehlo_py.serialization.mlirbc.encoding import MAGIC, BytecodeError

__all__ = ["MAGIC", "BytecodeError", "bytecode_version", "write_vhlo"]


def bytecode_version(target) -> int:  # type: ignore[no-untyped-def]
    """MLIR bytecode version of a StableHLO release (upstream's Version::getBytecodeVersion)."""
    from stablehlo_py import specs

    for r in specs.releases():
        if r.version == target.with_zero_patch():
            return r.mlir_bytecode_version
    raise KeyError(str(target))


def write_vhlo(module, target, strip_debuginfo: bool = False) -> bytes:  # type: ignore[no-untyped-def]
    from stablehlo_py.serialization.mlirbc.ops import VhloOpEncoder
    from stablehlo_py.serialization.mlirbc.writer import write_bytecode

    enc = VhloOpEncoder(bytecode_version(target), strip_debuginfo)
    return write_bytecode(module, enc, f"StableHLO_v{target}")


def read_vhlo(data: bytes, name: str = "<artifact>"):  # type: ignore[no-untyped-def]
    """(bytecode version, producer string, VHLO module) of an MLIR bytecode artifact."""
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op
    from stablehlo_py.serialization.mlirbc.reader import read_bytecode

    art = read_bytecode(data, name, build_vhlo_op)
    return art.version, art.producer, art.module
