"""MLIR bytecode (``../shared/reference/mlir-bytecode.md``): upstream's portable-artifact format
(VHLO) and what ``stablehlo-opt -emit-bytecode`` writes (the stablehlo, chlo, func ... dialects).

``write_vhlo(module, target)`` writes a VHLO module (already at ``target``) byte for byte as upstream's
``serializePortableArtifact`` does; ``read_vhlo(data)`` reads one back into a VHLO module.
``write_dialect(module)`` writes a module of the toolkit's dialects byte for byte as MLIR's
``writeBytecodeToFile`` with default settings (version 6, producer ``MLIR24.0.0git``, as jaxlib
0.12 and IREE 3.13); ``read_dialect(data)`` reads such bytecode back into the IR the text parser builds.
"""

from __future__ import annotations

from stablehlo_py.serialization.mlirbc.encoding import MAGIC, BytecodeError

__all__ = [
    "DIALECT_BYTECODE_VERSION",
    "DIALECT_PRODUCER",
    "MAGIC",
    "BytecodeError",
    "bytecode_version",
    "read_dialect",
    "write_dialect",
    "write_vhlo",
]

DIALECT_BYTECODE_VERSION = 6
"""What ``stablehlo-opt -emit-bytecode`` (MLIR's default ``BytecodeWriterConfig``) writes."""
DIALECT_PRODUCER = "MLIR24.0.0git"
"""The producer MLIR writes by default ("MLIR" + LLVM's version), as the newest upstream's MLIR
does (jaxlib 0.12 and IREE 3.13; jaxlib 0.10.2 wrote ``MLIR23.0.0git``: pass ``producer=`` for it)."""


def bytecode_version(target) -> int:  # type: ignore[no-untyped-def]
    """MLIR bytecode version of a StableHLO release (upstream's Version::getBytecodeVersion)."""
    from stablehlo_py import specs

    for r in specs.releases():
        if r.version == target.with_zero_patch():
            return r.mlir_bytecode_version
    raise KeyError(str(target))


def write_vhlo(  # type: ignore[no-untyped-def]
    module, target, strip_debuginfo: bool = False, use_lists_as=None, allow_other_dialects=False
) -> bytes:
    """``allow_other_dialects``: the module may hold ops, attributes and types of other dialects
    beside the VHLO (upstream's serializer with allowOtherDialects: JAX's Shardy content), written
    as ``write_dialect`` writes them; otherwise anything not VHLO is refused, naming it."""
    from stablehlo_py.serialization.mlirbc.ops import VhloOpEncoder
    from stablehlo_py.serialization.mlirbc.writer import write_bytecode

    if allow_other_dialects:
        from stablehlo_py.serialization.mlirbc.dialect_ops import DialectOpEncoder

        enc: VhloOpEncoder = DialectOpEncoder(bytecode_version(target), strip_debuginfo)
    else:
        enc = VhloOpEncoder(bytecode_version(target), strip_debuginfo)
    return write_bytecode(module, enc, f"StableHLO_v{target}", use_lists_as)


def read_vhlo(data: bytes, name: str = "<artifact>", records: bool = False):  # type: ignore[no-untyped-def]
    """(bytecode version, producer string, VHLO module) of an MLIR bytecode artifact; with
    ``records`` the module is ``vhlo.records``, not xDSL ops."""
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op
    from stablehlo_py.serialization.mlirbc.reader import read_bytecode

    build = build_vhlo_op if records else _with_other_dialects(build_vhlo_op)
    art = read_bytecode(data, name, build, records=records)
    return art.version, art.producer, art.module


def _with_other_dialects(build_vhlo_op):  # type: ignore[no-untyped-def]
    """``build_vhlo_op`` (``ops``), except for the ops JAX's artifacts hold beside the VHLO (Shardy's,
    with casts between VHLO and builtin types), which ``dialect_ops`` builds as xDSL ops (records
    hold VHLO only: ``build_vhlo_op`` refuses them)."""
    from stablehlo_py.serialization.mlirbc.ops import OTHER_DIALECTS

    def build(rd, dialect: str, name: str, *parts):  # type: ignore[no-untyped-def]
        if dialect in OTHER_DIALECTS or (
            dialect == "builtin" and name == "unrealized_conversion_cast"
        ):
            from stablehlo_py.serialization.mlirbc.dialect_ops import build_dialect_op

            return build_dialect_op(rd, dialect, name, *parts)
        return build_vhlo_op(rd, dialect, name, *parts)

    return build


def write_dialect(
    module,  # type: ignore[no-untyped-def]
    version: int = DIALECT_BYTECODE_VERSION,
    producer: str = DIALECT_PRODUCER,
    strip_debuginfo: bool = False,
) -> bytes:
    """MLIR bytecode of a module of the toolkit's dialects (stablehlo, chlo, func, ...), byte for
    byte as ``stablehlo-opt -emit-bytecode`` / ``Operation.write_bytecode`` writes it."""
    from stablehlo_py.serialization.mlirbc.builtin import NotEncodable
    from stablehlo_py.serialization.mlirbc.dialect_ops import DialectOpEncoder
    from stablehlo_py.serialization.mlirbc.writer import write_bytecode

    from stablehlo_py.errors import SerializationError

    try:
        return write_bytecode(module, DialectOpEncoder(version, strip_debuginfo), producer)
    except NotEncodable as e:
        raise SerializationError(f"cannot write MLIR bytecode: {e}") from None


def read_dialect(data: bytes, name: str = "<bytecode>", verify: bool = True):  # type: ignore[no-untyped-def]
    """(bytecode version, producer, module) of MLIR bytecode of the toolkit's dialects (bytecode
    versions 0-6, any producer).  Malformed bytes raise SerializationError located at
    ``name: byte N``; a decoded module that does not verify (as MLIR's reader, which verifies
    after reading) raises VerifyError at the op's location, unless ``verify`` is false."""
    from stablehlo_py.serialization.format import artifact_error
    from stablehlo_py.serialization.mlirbc.dialect_ops import build_dialect_op, decode_entry
    from stablehlo_py.serialization.mlirbc.reader import read_bytecode

    from stablehlo_py.errors import SerializationError, StableHLOError
    from stablehlo_py.ir import no_gc

    try:
        with no_gc():
            art = read_bytecode(data, name, build_dialect_op, decode_entry)
    except BytecodeError as e:
        raise artifact_error(f"invalid MLIR bytecode: {e.message}", e.offset, name) from None
    except RecursionError:
        raise artifact_error("the MLIR bytecode nests too deeply to read", 0, name) from None
    if verify:
        from stablehlo_py.ir.verify import verify as verify_ir

        try:
            verify_ir(art.module)
        except StableHLOError as e:
            if e.location is None:  # an op read from bytecode has no parse position
                raise type(e)(e.message, location=name, note=e.note) from None
            raise
        except Exception as e:  # noqa: BLE001 - a malformed program must not escape as a crash
            raise SerializationError(
                f"the MLIR bytecode decodes, but its program is not valid "
                f"({type(e).__name__}: {e})",
                location=name,
            ) from None
    return art.version, art.producer, art.module
