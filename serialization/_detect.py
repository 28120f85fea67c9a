"""Which format an artifact is in, from its first bytes: what the package's readers and
``compat.check_compat`` both ask first.  A leaf below them: it imports no module that imports it."""

from __future__ import annotations

from stablehlo_py.serialization.format import MAGIC
from stablehlo_py.serialization.reader import read_header

from stablehlo_py.errors import SerializationError

__all__ = ["artifact_format", "is_jax", "jax_module_bytes"]


def artifact_format(data: bytes, name: str = "<artifact>") -> str:
    """``"msgpack"``, ``"mlir"`` or ``"jax"`` (JAX's serialized ``Exported``), from the first
    bytes; anything else is a SerializationError saying what the bytes look like."""
    from stablehlo_py.serialization.mlir_artifact import is_mlir_bytecode

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SerializationError(f"a portable artifact is bytes, not {type(data).__name__}")
    if bytes(data[: len(MAGIC)]) == MAGIC:
        return "msgpack"
    if is_mlir_bytecode(data):
        return "mlir"
    if is_jax(data):
        return "jax"
    read_header(data, name)  # raises the msgpack reader's explanation (empty, text, truncated ...)
    return "msgpack"  # pragma: no cover - read_header always raises here


def is_jax(data: bytes) -> bool:
    try:
        from stablehlo_py.serialization.jax_export import is_jax_exported
    except ImportError:  # pragma: no cover - the module is part of the package
        return False
    return is_jax_exported(bytes(data))


def jax_module_bytes(data: bytes, name: str) -> bytes:
    from stablehlo_py.serialization.jax_export import read_jax_exported

    return read_jax_exported(bytes(data), name).mlir_module_serialized
