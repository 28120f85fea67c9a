"""Portable artifacts: StableHLO programs as versioned files in two formats (DESIGN.md §5).

* ``msgpack`` (the default): this toolkit's format, ``serialization/FORMAT.md``;
* ``mlir``: upstream's MLIR bytecode over VHLO, byte-identical to upstream's writer, readable by JAX,
  XLA and upstream's tools (``serialization/mlirbc/``).

Readers detect the format from the first bytes (also JAX's serialized ``Exported``, whose module is
MLIR bytecode).  The API follows upstream's Python bindings (``stablehlo.serialize_portable_artifact``
...)::

    data = serialize_portable_artifact(module, "1.0.0")        # or "current"; also a Version
    data = serialize_portable_artifact(module, "1.0.0", format="mlir")   # upstream's bytecode
    module = deserialize_portable_artifact(data)                 # StableHLO at the current version
    get_portable_artifact_version(data)                          # Version(1, 0, 0), header only
    serialize_portable_artifact_str(text, "1.0.0") -> bytes      # text in
    deserialize_portable_artifact_str(data) -> str               # text out
    check_compat(data, "0.20.0") -> CompatReport                 # can that consumer load it?

Writing is ``stablehlo-legalize-to-vhlo`` -> ``vhlo-to-version{target}`` -> :func:`write_artifact`;
reading is :func:`read_artifact` -> ``vhlo-to-version{current}`` -> ``vhlo-legalize-to-stablehlo``.
In between, VHLO exists only as records (``vhlo/records.py``: :func:`vhlo_records` on the way out,
``read_vhlo_artifact(..., records=True)`` on the way in), never as an xDSL module; both formats encode
and decode the same records.  Fast paths give the same bytes and IR without the records where no
fork step is needed (DESIGN.md §2): ``direct_write`` encodes StableHLO ops straight to msgpack at
the current target, ``direct_read`` builds StableHLO ops straight from a current-version artifact
(either format); anything else takes the path above (``DIRECT`` switches them off, for tests and
benches).  The low-level pair works on VHLO modules (xDSL ops or records).  Every failure is a
:class:`~stablehlo_py.errors.StableHLOError` (:class:`SerializationError` for the bytes themselves,
with the byte offset).
"""

from __future__ import annotations

import re

from typing import Any

from stablehlo_py.serialization._detect import artifact_format, is_jax, jax_module_bytes
from stablehlo_py.serialization.compat import CompatReport, check_compat
from stablehlo_py.serialization.format import CURRENT_SCHEMA, FORMAT_VERSIONS, MAGIC
from stablehlo_py.serialization.reader import Header, read_artifact, read_header
from stablehlo_py.serialization.writer import write_artifact
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from stablehlo_py.errors import SerializationError, StableHLOError
from stablehlo_py.ir import no_gc
from stablehlo_py.version import Version, get_current_version, validate_target

__all__ = [
    "CURRENT_SCHEMA",
    "FORMATS",
    "FORMAT_VERSIONS",
    "MAGIC",
    "CompatReport",
    "Header",
    "artifact_format",
    "check_compat",
    "convert_artifact",
    "deserialize_portable_artifact",
    "deserialize_portable_artifact_str",
    "get_portable_artifact_version",
    "read_artifact",
    "read_header",
    "read_vhlo_artifact",
    "serialize_portable_artifact",
    "serialize_portable_artifact_str",
    "to_vhlo",
    "vhlo_records",
    "write_artifact",
]


def to_vhlo(
    module: Operation,
    target_version: Version | str,
    allow_other_dialects: bool = False,
    *,
    in_place: bool = True,
    strip_debuginfo: bool = False,
) -> Operation:
    """StableHLO module -> VHLO at ``target_version`` (converted in place, or into a new module
    leaving ``module`` untouched with ``in_place=False``).  With ``strip_debuginfo`` the locations
    are dropped first, so they cannot block an old target (location ranges need 1.9.0)."""
    from stablehlo_py.passes import PASSES
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo

    target = validate_target(target_version)
    vhlo = legalize_to_vhlo(module, allow_other_dialects, in_place=in_place)
    if strip_debuginfo:
        from stablehlo_py.ir.text.location import UNKNOWN

        for op in vhlo.walk():
            op.location = UNKNOWN  # type: ignore[assignment]
    if target == get_current_version():
        return vhlo  # the legalization writes the current forks: nothing to convert
    return PASSES["vhlo-to-version"].run(
        vhlo, {"target": str(target), "allow-other-dialects": str(allow_other_dialects).lower()}
    )


def vhlo_records(module: ModuleOp, target: Version, strip_debuginfo: bool = False) -> Any:
    """The VHLO form of a StableHLO module at ``target`` as records (``vhlo.records``), what both
    writers encode: the legalization and the fork steps of :func:`to_vhlo`, with the same
    diagnostics, without building xDSL ops.  ``module`` is not modified."""
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo_records
    from stablehlo_py.passes.vhlo_to_version import to_version

    root = legalize_to_vhlo_records(module)
    if strip_debuginfo:
        from stablehlo_py.ir.text.location import UNKNOWN

        for op in root.walk():
            op.location = UNKNOWN
    if target != get_current_version():
        to_version(root, target)
    return root


FORMATS = ("msgpack", "mlir")
"""Artifact formats: this toolkit's msgpack (the default) and upstream's MLIR bytecode."""


def _check_format(format: str) -> str:
    if format not in FORMATS:
        raise SerializationError(
            f"unknown artifact format '{format}'", note=f"use one of: {', '.join(FORMATS)}"
        )
    return format


def _write(
    vhlo: Operation,
    target: Version,
    strip_debuginfo: bool,
    format: str,
    use_lists_as: Version | str | None = None,
    allow_other_dialects: bool = False,
) -> bytes:
    if format == "mlir":
        from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

        history = None if use_lists_as is None else validate_target(use_lists_as)
        return write_mlir_artifact(
            vhlo, target, strip_debuginfo, history, allow_other_dialects=allow_other_dialects
        )
    return write_artifact(  # type: ignore[arg-type]
        vhlo, target, strip_debuginfo=strip_debuginfo, allow_other_dialects=allow_other_dialects
    )


def serialize_portable_artifact(
    module: Operation,
    target_version: Version | str,
    allow_other_dialects: bool = False,
    *,
    strip_debuginfo: bool = False,
    format: str = "msgpack",
    use_lists_as: Version | str | None = None,
    expand: bool = False,
) -> bytes:
    """Write a StableHLO module as a portable artifact readable by consumers at ``target_version``
    (``"X.Y.Z"``, ``"current"`` or a :class:`Version`) and newer.  ``module`` is not modified.

    ``expand``: first rewrite, on a copy, the features newer than the target that upstream's
    ``stablehlo-compatibility-expander`` rewrites (gather/scatter batching dims, ``tan``, location
    ranges, mesh-axes replica groups; :func:`~stablehlo_py.passes.stablehlo_compatibility_expander.expanded_copy`).

    ``format`` is ``"msgpack"`` (this toolkit's format, the default) or ``"mlir"`` (upstream's MLIR
    bytecode, byte-identical to ``stablehlo.serialize_portable_artifact``).  ``use_lists_as``
    (MLIR bytecode only): the upstream version whose conversion history the (meaningless) use-list
    orders reproduce, for byte identity with that build (jaxlib 0.10: ``"1.17.0"``); by default
    the newest upstream's (jaxlib 0.12, StableHLO 1.22.0), as ``serialization/mlirbc/uselists.py``
    models them.
    ``allow_other_dialects`` is upstream's flag: ops, attributes and types of other dialects
    (Shardy's ``sdy`` in JAX's exports) are kept as they are through the legalization and the
    version conversion, and written beside the VHLO -- in MLIR bytecode as upstream's serializer
    writes them (Shardy's attributes in Shardy's own encoding), in msgpack as their MLIR text
    (``FORMAT.md``).  Without it such content is refused, naming it.
    """
    target = validate_target(target_version)
    _check_format(format)
    if not isinstance(module, ModuleOp):
        raise SerializationError(f"expected a builtin.module to serialize, got {module.name}")
    with no_gc():
        if expand:
            module = _expanded(module, target)
        if allow_other_dialects:  # the pass keeps other dialects' ops and attributes
            vhlo = to_vhlo(module, target, True, in_place=False, strip_debuginfo=strip_debuginfo)
        else:
            fast = (
                _write_direct(module, target, strip_debuginfo, format)
                if use_lists_as is None  # (the replayed orders are the slow path's)
                else None
            )
            if fast is not None:
                return fast
            vhlo = vhlo_records(module, target, strip_debuginfo)
        return _write(vhlo, target, strip_debuginfo, format, use_lists_as, allow_other_dialects)


DIRECT = [True]
"""Whether the writers and readers take their fast paths (``direct_write``) where they apply;
``tests/serialization/test_direct_paths.py`` turns them off to compare with the slow paths."""


def _write_direct(
    module: ModuleOp, target: Version, strip_debuginfo: bool, format: str
) -> bytes | None:
    """The artifact from a writer's fast path (msgpack: ``direct_write``, StableHLO ops straight
    to records; MLIR bytecode: ``mlirbc.direct``, StableHLO ops straight to VHLO bytecode; the same
    bytes), or None where it does not apply."""
    if not DIRECT[0]:
        return None
    from stablehlo_py.serialization.direct_write import NotDirect, write_direct

    try:
        if format == "mlir":
            from stablehlo_py.serialization.mlirbc.direct import write_direct_mlir

            return write_direct_mlir(module, target, strip_debuginfo)
        return write_direct(module, target, strip_debuginfo)
    except NotDirect:
        return None


def serialize_portable_artifact_str(
    module_str: str | bytes,
    target_version: Version | str,
    *,
    strip_debuginfo: bool = False,
    name: str = "-",
    format: str = "msgpack",
    expand: bool = False,
) -> bytes:
    """Upstream's ``serialize_portable_artifact_str``: StableHLO text in, artifact bytes out
    (``expand`` as :func:`serialize_portable_artifact`'s).  ``name``: the buffer's name in the
    locations, ``-`` as upstream's (``loc("-":1:2)``)."""
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    target = validate_target(target_version)
    _check_format(format)
    text = module_str.decode("utf-8") if isinstance(module_str, (bytes, bytearray)) else module_str
    with no_gc():
        module = parse(text, name)
        verify(module)
        if not isinstance(module, ModuleOp):
            raise SerializationError(f"expected a builtin.module to serialize, got {module.name}")
        if expand:
            module = _expanded(module, target)
        fast = _write_direct(module, target, strip_debuginfo, format)  # type: ignore[arg-type]
        if fast is not None:
            return fast
        return _write(
            vhlo_records(module, target, strip_debuginfo), target, strip_debuginfo, format
        )


def _expanded(module: ModuleOp, target: Version) -> ModuleOp:
    """The module with the compatibility expansions for ``target`` applied (a copy)."""
    from stablehlo_py.passes.stablehlo_compatibility_expander import expanded_copy

    return expanded_copy(module, target)  # type: ignore[return-value]


def deserialize_portable_artifact(artifact: bytes, *, name: str = "<artifact>") -> ModuleOp:
    """Read an artifact back as a StableHLO module at the current version (verified)."""

    with no_gc():
        return _deserialize(artifact, name)


def _deserialize(artifact: bytes, name: str) -> ModuleOp:
    from stablehlo_py.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
    from stablehlo_py.passes.vhlo_to_version import to_version
    from stablehlo_py.vhlo.sinks import sink_of

    from stablehlo_py.ir.verify import verify

    text = _mlir_text(artifact)
    if text is not None:
        return _text_module(text, name)
    dialect = _dialect_bytecode(artifact, name)
    if dialect is not None:
        return dialect
    fast = _read_direct(artifact, name)
    if fast is not None:
        return fast
    version, vhlo, named = _read_vhlo(artifact, name, records=True)
    # records hold VHLO only; xDSL ops come from an artifact with Shardy's ops beside VHLO
    other = sink_of(vhlo).holds_other_ops
    try:
        # an artifact that names its version holds that version's forks; one that does not (any
        # producer but StableHLO_vX.Y.Z) may hold any: convert whatever it holds, as upstream does
        if not named or version.with_zero_patch() != get_current_version():
            to_version(vhlo, get_current_version(), allow_other_dialects=other)
        module = legalize_to_stablehlo(vhlo, allow_other_dialects=other)
        verify(module)
    except StableHLOError as e:
        raise _invalid_program(e, name) from None
    except Exception as e:  # noqa: BLE001 - a malformed program must not escape as a crash
        raise SerializationError(
            f"the artifact decodes, but its program cannot be converted to StableHLO "
            f"({type(e).__name__}: {e})",
            location=name,
        ) from None
    return module  # type: ignore[return-value]


def _invalid_program(e: StableHLOError, name: str) -> SerializationError:
    """The error for an artifact that decodes to a program that does not verify (either reader)."""
    return SerializationError(
        f"the artifact decodes, but its program is not valid: {e.message}",
        location=e.location or name,
        note=e.note,
    )


def _read_direct(artifact: bytes, name: str) -> ModuleOp | None:
    """The module from a reader's fast path (``direct_read``: msgpack op records, or MLIR bytecode,
    straight to StableHLO ops, the same IR), verified; None where it does not apply (JAX's
    ``Exported``, an artifact for an older version, content the fast path does not cover)."""
    if not DIRECT[0]:
        return None
    fmt = artifact_format(artifact, name)
    if fmt not in ("msgpack", "mlir"):
        return None
    from stablehlo_py.serialization.direct_read import read_direct, read_direct_mlir
    from stablehlo_py.serialization.direct_write import NotDirect
    from stablehlo_py.serialization.reader import check_version, read_raw

    try:
        if fmt == "mlir":
            return read_direct_mlir(artifact, name)
        raw = read_raw(artifact, name)
        check_version(raw.header, raw, name)
        if raw.header.version.with_zero_patch() != get_current_version():
            return None
        return read_direct(raw)
    except NotDirect:
        return None
    except SerializationError:
        raise  # the bytes themselves are refused: the reader's own error, as the slow path gives it
    except StableHLOError as e:
        raise _invalid_program(e, name) from None


def _mlir_text(artifact: bytes) -> str | None:
    """The text of an artifact that is MLIR text, not bytes of a portable format; else None."""
    from stablehlo_py.serialization.mlir_artifact import is_mlir_bytecode

    if not isinstance(artifact, (bytes, bytearray, memoryview)):
        return None
    head = bytes(artifact[: len(MAGIC)])
    if head == MAGIC or is_mlir_bytecode(artifact) or is_jax(artifact):
        return None
    try:
        text = bytes(artifact).decode("utf-8")
    except UnicodeDecodeError:
        return None
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
    return text if _MLIR_TEXT_START.match(body) else None


# what MLIR text starts with: an op (`module`, `func.func`, `"generic.op"`, `%x = ...`), an alias
# (`#a = ...`, `!t = ...`) or a resource block; anything else keeps the "not an artifact" error
_MLIR_TEXT_START = re.compile(r'\s*(module\b|[a-z_][\w$]*\.[\w$.]+|"|#\w|!\w|%|\{-#)')


def _text_module(text: str, name: str) -> ModuleOp:
    """Upstream's ``deserializePortableArtifact`` parses its input as MLIR, text included: a module
    of VHLO ops is converted to StableHLO at the current version, a StableHLO module is verified
    and returned as it is."""
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
    from stablehlo_py.passes.vhlo_to_version import to_version

    module = parse(text, name)
    if any(op.name.startswith("vhlo.") for op in module.walk()):
        to_version(module, get_current_version(), allow_other_dialects=True)
        module = legalize_to_stablehlo(module, allow_other_dialects=True)
    verify(module)
    return module  # type: ignore[return-value]


def _dialect_bytecode(artifact: bytes, name: str) -> ModuleOp | None:
    """The module of MLIR bytecode that holds no VHLO (``stablehlo-opt -emit-bytecode``, early JAX
    exports), verified; None for anything else.  Upstream's ``deserializePortableArtifact`` parses
    any bytecode and converts the VHLO it holds: a StableHLO module passes through unchanged."""
    fmt = artifact_format(artifact, name)
    if fmt == "jax":
        artifact = jax_module_bytes(artifact, name)
    elif fmt != "mlir":
        return None
    from stablehlo_py.serialization.mlir_artifact import holds_vhlo, producer_version

    if producer_version(artifact, name) is not None or holds_vhlo(artifact):
        return None
    from stablehlo_py.serialization.mlirbc import read_dialect

    return read_dialect(bytes(artifact), name)[2]  # type: ignore[no-any-return]


def deserialize_portable_artifact_str(artifact: bytes, *, name: str = "<artifact>") -> str:
    """Upstream's ``deserialize_portable_artifact_str``: artifact bytes in, StableHLO text out."""
    from stablehlo_py.ir import print_ir

    return print_ir(deserialize_portable_artifact(artifact, name=name))


def get_portable_artifact_version(artifact: bytes) -> Version:
    """The StableHLO version an artifact was written for, from its header alone (the body is not
    decoded, nor needed: the first few dozen bytes of the file are enough).  Either format; for
    JAX's ``Exported`` the version of the module inside.

    As upstream's ``getPortableArtifactVersion``, MLIR bytecode whose producer names no version
    (``MLIR24.0.0git``: ``ir.Module.write_bytecode`` of a VHLO module, early JAX exports, dialect
    bytecode) is a SerializationError saying so; such an artifact still deserializes, and
    ``read_vhlo_artifact(artifact)[0]`` gives the version its ops establish."""
    fmt = artifact_format(artifact)
    if fmt == "mlir":
        from stablehlo_py.serialization.mlir_artifact import mlir_artifact_version

        return mlir_artifact_version(artifact)
    if fmt == "jax":
        return get_portable_artifact_version(jax_module_bytes(artifact, "<artifact>"))
    return read_header(artifact, check_body=False).version


def _artifact_version(artifact: bytes, name: str) -> Version:
    """The version an artifact names in its header, else (MLIR bytecode whose producer names none)
    the version its ops establish; dialect bytecode (no VHLO) is at the current version."""
    try:
        return get_portable_artifact_version(artifact)
    except SerializationError:
        if _dialect_bytecode(artifact, name) is not None:
            return get_current_version()
        return read_vhlo_artifact(artifact, name, records=True)[0]


def read_vhlo_artifact(
    artifact: bytes, name: str = "<artifact>", *, records: bool = False, check_version: bool = True
) -> tuple[Version, ModuleOp]:
    """Either format -> (the version it was written for, its VHLO module at that version); with
    ``records`` the module is ``vhlo.records`` (what the artifact paths pass between the readers,
    the fork steps and the legalization), not xDSL ops.  MLIR bytecode whose producer names no
    version (``ir.Module.write_bytecode`` of a VHLO module) is read too; its version is the lowest
    release its ops, attributes and types all exist at (``mlir_artifact.version_from_ops``).
    ``check_version=False`` (MLIR bytecode): read one whose producer names a version newer than
    this toolkit's too, as upstream's ``stablehlo-opt`` parses any bytecode (only ops, attributes
    and types unknown here fail)."""
    version, module, _ = _read_vhlo(
        artifact, name, records=records, check_version=check_version
    )
    return version, module


def _read_vhlo(
    artifact: bytes, name: str, *, records: bool = False, check_version: bool = True
) -> tuple[Version, ModuleOp, bool]:
    """``read_vhlo_artifact`` and whether the artifact named its version (a msgpack artifact
    always does; MLIR bytecode when its producer is ``StableHLO_vX.Y.Z``)."""
    fmt = artifact_format(artifact, name)
    if fmt == "jax":
        artifact = jax_module_bytes(artifact, name)
        fmt = "mlir"
    if fmt == "mlir":
        from stablehlo_py.serialization.mlir_artifact import producer_version, read_mlir_artifact

        named = producer_version(artifact, name) is not None
        version, module = read_mlir_artifact(
            artifact, name, records, check_version=check_version
        )
        return version, module, named
    header, vhlo = read_artifact(artifact, name, records=records)
    return header.version, vhlo, True


def convert_artifact(
    artifact: bytes,
    format: str,
    target_version: Version | str | None = None,
    *,
    name: str = "<artifact>",
    strip_debuginfo: bool = False,
) -> bytes:
    """Rewrite an artifact (either format, or JAX's ``Exported``) in ``format`` for
    ``target_version`` (default: the version it was written for).  What the artifact holds beside
    VHLO (Shardy's ``sdy`` ops and attributes in JAX's exports) is kept: the artifact is written
    with ``allow_other_dialects`` when it has such content."""
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import holds_other_dialects

    _check_format(format)
    if target_version is None:
        target_version = _artifact_version(artifact, name).with_zero_patch()
    module = deserialize_portable_artifact(artifact, name=name)
    return serialize_portable_artifact(
        module,
        target_version,
        holds_other_dialects(module),
        strip_debuginfo=strip_debuginfo,
        format=format,
    )


_ = Any
