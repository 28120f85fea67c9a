"""The programs the graph view opens: StableHLO (or VHLO) text, gzipped text, portable artifacts
of either format (this toolkit's msgpack, upstream's MLIR bytecode), JAX's serialized ``Exported``
and stablehlo-py's IR bytecode, detected from their first bytes.

Two views: ``"stablehlo"`` (every input as StableHLO at the current version; text is parsed, not
verified, so a broken program can still be looked at) and ``"vhlo"`` (an artifact's or a JAX
export's VHLO module at the version it was written for, or VHLO text as it is).
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import no_gc, parse
from stablehlo_py.ir.bytecode import is_ir_bytecode, read_ir_bytecode
from stablehlo_py.serialization import (
    artifact_format,
    deserialize_portable_artifact,
    get_portable_artifact_version,
    read_vhlo_artifact,
)
from stablehlo_py.serialization.format import MAGIC as ARTIFACT_MAGIC
from stablehlo_py.serialization.jax_export import JaxExported, is_jax_exported, read_jax_exported
from stablehlo_py.serialization.mlir_artifact import is_mlir_bytecode
from stablehlo_py.version import Version

__all__ = ["FORMAT_NAMES", "VIEWS", "Program", "load_program", "read_program"]

VIEWS = ("stablehlo", "vhlo")

FORMAT_NAMES = {
    "text": "MLIR text",
    "msgpack": "portable artifact (stablehlo-py msgpack)",
    "mlir": "portable artifact (MLIR bytecode)",
    "jax": "JAX export (jax.export serialized)",
    "ir-bytecode": "stablehlo-py IR bytecode",
}


@dataclass
class Program:
    """A program read for the graph view."""

    module: Operation
    name: str
    """The file name (or the name given for bytes)."""
    format: str
    """A key of :data:`FORMAT_NAMES`."""
    view: str
    version: Version | None = None
    """The version an artifact was written for (None for text)."""
    jax: JaxExported | None = field(default=None, repr=False)

    def info(self) -> dict[str, str]:
        """What the graph view shows about the program when nothing is selected."""
        out = {"file": self.name, "format": FORMAT_NAMES[self.format], "view": self.view}
        if self.version is not None:
            out["version"] = str(self.version)
        if self.jax is not None:
            out["jax function"] = self.jax.function_name
            out["platforms"] = ", ".join(self.jax.platforms)
            out["jax inputs"] = ", ".join(str(a) for a in self.jax.in_avals) or "(none)"
            out["jax outputs"] = ", ".join(str(a) for a in self.jax.out_avals) or "(none)"
        for name, attr in getattr(self.module, "attributes", {}).items():
            out[name] = str(attr)
        return out

    @property
    def label(self) -> str:
        """The collection's label: the JAX function's name, the VHLO version."""
        parts = [self.jax.function_name] if self.jax is not None else []
        if self.view == "vhlo":
            parts.append(f"VHLO {self.version}" if self.version else "VHLO")
        return " ".join(parts)


def load_program(path: str | os.PathLike[str], view: str = "stablehlo") -> Program:
    """Read the file at ``path`` (see the module docstring)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise StableHLOError(f"cannot open '{path}': {e.strerror}") from None
    return read_program(data, str(path), view)


def read_program(data: bytes, name: str = "<program>", view: str = "stablehlo") -> Program:
    """Read a program from its bytes (see the module docstring)."""
    if view not in VIEWS:
        raise StableHLOError(
            f"unknown graph view '{view}'", note=f"use one of: {', '.join(VIEWS)}"
        )
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise StableHLOError(f"cannot decompress gzipped input: {e}", location=name) from None
    with no_gc():
        fmt = _format(data, name)
        if fmt == "text":
            return _text(data.decode("utf-8"), name, view)
        if fmt == "ir-bytecode":
            if view == "vhlo":
                raise _no_vhlo(name, "stablehlo-py IR bytecode")
            return Program(read_ir_bytecode(data, name), name, fmt, view)
        exported = read_jax_exported(data, name) if fmt == "jax" else None
        if view == "vhlo":
            version, module = read_vhlo_artifact(data, name)
            return Program(module, name, fmt, view, version, exported)
        module = deserialize_portable_artifact(data, name=name)
        return Program(module, name, fmt, view, _version(data), exported)


def _format(data: bytes, name: str) -> str:
    if data.startswith(ARTIFACT_MAGIC) or is_mlir_bytecode(data):
        return artifact_format(data, name)
    if is_ir_bytecode(data):
        return "ir-bytecode"
    try:
        data.decode("utf-8")
        return "text"
    except UnicodeDecodeError:
        if is_jax_exported(data):
            return "jax"
    raise StableHLOError(
        "not a program: neither UTF-8 MLIR text nor a portable artifact (msgpack or MLIR "
        "bytecode), a JAX export or stablehlo-py IR bytecode",
        location=name,
    )


def _version(data: bytes) -> Version | None:
    try:
        return get_portable_artifact_version(data)
    except StableHLOError:
        return None  # MLIR bytecode whose producer names no version


def _text(text: str, name: str, view: str) -> Program:
    module = parse(text, name, allow_unregistered=True)
    vhlo = any(op.name.startswith("vhlo.") for op in module.walk())
    if view == "vhlo":
        if not vhlo:
            raise _no_vhlo(name, "StableHLO text")
        return Program(module, name, "text", view)
    if vhlo:  # VHLO text: converted to StableHLO at the current version, as --deserialize does
        module = deserialize_portable_artifact(text.encode("utf-8"), name=name)
    return Program(module, name, "text", view)


def _no_vhlo(name: str, what: str) -> StableHLOError:
    return StableHLOError(
        f"the VHLO view is of a portable artifact, and this is {what}",
        location=name,
        note="write one first (stablehlo-translate --serialize --target=X.Y.Z "
        "--format=mlir FILE -o FILE.mlirbc) or open the StableHLO view",
    )

