"""Read JAX's serialized ``jax.export.Exported`` artifacts, without JAX.

What the format is
------------------
``jax.export.export(jax.jit(f))(*args).serialize()`` returns a `FlatBuffer
<https://flatbuffers.dev/>`_ whose schema is JAX's ``jax/_src/export/serialization.fbs``
(namespace ``jax_export.serialization``, ``root_type Exported``); JAX's writer and reader are in
``jax/_src/export/serialization.py``.  The slots below (``_EXPORTED`` ... ``_EFFECT``) transcribe
that schema field by field, in declaration order (a FlatBuffers slot is the field's index).  The
root table holds

* ``mlir_module_serialized`` -- the StableHLO program: MLIR bytecode of a VHLO portable artifact
  (starts with ``b"ML\\xefR"``), what :mod:`stablehlo_py.serialization` reads as MLIR bytecode;
* metadata: the function name, the argument and result pytrees and abstract values (shapes may be
  symbolic, e.g. ``("b", 3)``), shardings, device count, platforms, effects, disabled safety
  checks, the calling convention version of the module (``mlir_module_serialization_version``),
  the indices of the arguments the module kept, and optionally the ``vjp`` function as a nested
  ``Exported`` (``serialize(vjp_order=k)``).

FlatBuffers layout, as far as this reader needs it (all little-endian): bytes 0..4 hold the
``uoffset`` of the root table.  A table starts with an ``int32`` that points back to its vtable
(``vtable = table - soffset``); the vtable holds its own size (``uint16``), the table's size
(``uint16``) and one ``uint16`` per slot: the field's offset inside the table, 0 when the field is
absent (it then has its default).  A string, vector or sub-table field holds a ``uint32`` offset
relative to the field's own position; strings and vectors start with a ``uint32`` length (strings
are NUL-terminated), vectors of tables or strings hold one ``uint32`` offset per element, relative
to that element.  The schema declares no ``file_identifier``, so :func:`is_jax_exported` checks
this structure instead of a magic number.

Reading
-------
Every offset and length is checked against the buffer before it is followed, sizes are checked
before anything is allocated, references must point forward (FlatBuffers offsets are unsigned, so
a well-formed buffer has no cycles), pytree and ``vjp`` nesting is bounded and the number of
objects decoded is bounded by the buffer's size (shared offsets cannot blow up the work).  Bad
input raises :class:`~stablehlo_py.errors.SerializationError` located at the byte offset of the
offending field (``error.offset``); nothing else escapes.

Decisions (where JAX's own reader was the guide)
------------------------------------------------
* Values are plain Python: dtypes are JAX's names (``"float32"``, ``"bfloat16"``, ``"float0"``,
  ``"key<fry>"``), dimensions are ``int`` or, when symbolic, the string JAX stored (``"b"``,
  ``"2*b + 1"``); pytrees are :class:`JaxPyTree` nodes whose ``str`` is JAX's ``PyTreeDef`` text.
* Shardings: exports since jax 0.9 store ``NamedSharding`` (abstract mesh + partition spec), older
  ones an ``OpSharding`` proto.  :attr:`JaxExported.in_shardings` keeps the named sharding
  (:class:`JaxNamedSharding`), :attr:`JaxExported.in_shardings_hlo` holds what JAX's
  ``Exported.in_shardings_hlo`` holds, as plain values: the ``HloSharding`` text JAX derives from
  the named sharding (``"{devices=[2,1]<=[2]}"``, computed here exactly as JAX and XLA do), or
  the stored proto bytes for old artifacts, or ``None`` when unspecified.
* Where JAX reads the deduplicated tables (``unique_avals``/``unique_named_shardings`` with index
  vectors, v10+) it prefers them over the legacy per-argument vectors; so does this reader.  An
  aval's memory space follows its named sharding's memory kind, as in JAX; ``Missing`` (artifacts
  before Nov 2025) reads as ``"device"``.
* Consistency JAX relies on is checked: leaf counts of the pytrees match the avals, shardings
  match avals one to one, indices are in range, enums are known.

Versions: what is read, what is refused
---------------------------------------
The schema's history is :data:`SERIALIZATION_VERSIONS` (from the comments of JAX 0.12's
``serialization.py``).  The stored ``serialization_version`` is not that history one to one: JAX
wrote 1 and 2 early on, then 3 for every schema from 3 to 11 (so that old readers kept reading),
and the real version from 12 on (July 2026, which also added ``jax_version``).  JAX 0.12 never
looks at the stored number; it refuses what it cannot read any more by its *content*, and so does
this reader:

* **expired** (older than JAX's 6-month backward-compatibility window, refused by JAX 0.12 with
  ``_expired_error_msg``): an artifact that stores the device count only in the deprecated 16-bit
  ``nr_devices_short`` (schema < 5, before Nov 2025), or a sharding only as an ``OpSharding``
  proto (schema < 6, before Jan 2026).  The error names the stored version and, when present, the
  JAX version that wrote it.  ``read_jax_exported(..., allow_expired=True)`` reads them anyway
  (the device count from ``nr_devices_short``, shardings as the stored proto bytes), as JAX's
  ``jax_export_deserialize_expired_versions`` flag does for the device count;
* **1 .. 12** (:data:`SUPPORTED_SERIALIZATION_VERSION`) read field by field as transcribed below;
* **13 and newer** read too (forward tolerance): FlatBuffers tables only ever grow by appending
  fields (a new field takes the next slot, an old one keeps its slot even when deprecated), so a
  newer artifact's extra fields are skipped, exactly as JAX 0.12's generated reader skips them;
  :attr:`JaxExported.unknown_fields` names every field this reader skipped (``"Exported field
  27"``) so nothing is dropped silently.  What *is* refused, with a SerializationError naming what
  changed: a known field that no longer means what this reader knows -- an enum code it does not
  know (a new dtype, pytree kind, axis type, memory space...), a required field gone (the module,
  the function name, the pytrees), counts or indices that do not fit; and, when *running* the
  module, a ``calling_convention_version`` outside :data:`SUPPORTED_CALLING_CONVENTIONS` (the
  field JAX bumps when the module's signature changes meaning).
* ``0`` / missing: not an ``Exported`` (JAX has always stored a version).

Running an Exported: its calling convention
-------------------------------------------
JAX wraps the lowered function in a ``@main`` whose arguments are, in order: the platform index
(an ``i32`` scalar, only when ``len(platforms) > 1``), one ``!stablehlo.token`` per ordered
effect, then the *kept* array arguments (``module_kept_var_idx``: JAX drops arguments the function
does not use); dimension variables of shape-polymorphic exports are computed inside ``@main`` from
the arguments' shapes.  Its results are one token per ordered effect, then the array results.
``Exported.call`` takes one array per flattened input (``in_avals``) and builds that list
(``_call_exported_lowering``); :meth:`JaxExported.module_arguments` and
:meth:`JaxExported.module_results` do the same for the interpreter
(``stablehlo_py.api.run_exported`` runs an artifact this way).  The platform index is that of
``"cpu"`` when the export has it, else of the first platform, unless the caller names one.

The ``flatbuffers`` package (``pip install "stablehlo-py[jax]"``) does the scalar decoding;
:func:`is_jax_exported` works without it.  JAX itself is never imported.
"""

from __future__ import annotations

import ast
import re
import struct
from dataclasses import dataclass, field, replace
from math import prod
from typing import Any, NamedTuple, NoReturn

import ml_dtypes
import numpy as np

from stablehlo_py.serialization.format import artifact_error

from stablehlo_py.errors import InterpreterError, NotSupportedError

__all__ = [
    "SUPPORTED_SERIALIZATION_VERSION",
    "JaxAbstractDevice",
    "JaxAbstractMesh",
    "JaxAval",
    "JaxExported",
    "JaxNamedSharding",
    "JaxPyTree",
    "is_jax_exported",
    "read_jax_exported",
]

SUPPORTED_SERIALIZATION_VERSION = 12
"""The newest schema this reader transcribes: JAX 0.12's ``_SERIALIZATION_VERSION`` (v12 added
``jax_version``).  Newer versions are read too when their known fields keep their meaning (see
"Versions" above)."""

SERIALIZATION_VERSIONS: dict[int, str] = {
    1: "Nov 2023: first version",
    2: "Dec 2023: the float0 dtype",
    3: "Oct 2024: namedtuple and custom pytree nodes",
    4: "Apr 2025: PRNG key dtypes",
    5: "Nov 2025: aval memory_space; nr_devices as 32 bits (nr_devices_short deprecated)",
    6: "Jan 2026: shardings as NamedSharding (abstract mesh + partition spec), HloSharding kept",
    7: "(pulled back: broke compatibility)",
    8: "Mar 2026: AbstractMesh.abstract_device",
    9: "Mar 2026: HloSharding no longer written",
    10: "Apr 2026: deduplicated avals, abstract meshes and named shardings (index vectors)",
    11: "May 2026: AbstractDevice.platform",
    12: "Jul 2026: jax_version; the real serialization_version is stored (3 before)",
}
"""Each schema version of ``Exported`` and what it added (JAX 0.12's ``serialization.py``).
Schemas before 5 are beyond JAX 0.12's 6-month compatibility window (refused as expired)."""

SUPPORTED_CALLING_CONVENTIONS = range(9, 11)
"""The ``calling_convention_version`` values whose ``@main`` signature :meth:`JaxExported.
module_arguments` knows (JAX 0.10 and 0.12 export and call 9 and 10)."""

_COMPAT_DOC = "https://docs.jax.dev/en/latest/501/export.html#compatibility-guarantees"

MAX_PYTREE_DEPTH = 256
"""Deepest pytree nesting accepted (JAX's own reader recurses in Python too)."""

MAX_VJP_DEPTH = 32
"""Deepest chain of nested ``vjp`` functions accepted (``serialize(vjp_order=k)`` nests ``k``)."""


# --------------------------------------------------------------------------------------------
# The schema (serialization.fbs): field name -> (slot, kind).  Kinds: scalars "u8" "i8" "bool"
# "u16" "i16" "u32"; references "string", "table", "[string]", "[table]", "[byte]", "[u16]",
# "[u32]".

def _schema(*fields: str) -> dict[str, tuple[int, str]]:
    """A table of serialization.fbs: field name -> (slot, kind), from its fields in declaration
    order (``"name: kind"``; a field's slot is its position, as flatc numbers them)."""
    return {name: (slot, kind) for slot, (name, kind) in enumerate(f.split(": ") for f in fields)}


_PYTREEDEF = _schema(
    "kind: i8",
    "children: [table]",
    "children_names: [string]",
    "custom_name: string",
    "custom_auxdata: [byte]",
)
_ABSTRACT_DEVICE = _schema("device_kind: string", "num_cores: u32", "platform: string")
_ABSTRACT_MESH = _schema(
    "axis_sizes: [u32]",
    "axis_names: [string]",
    "axis_types: [byte]",
    "abstract_device: table",
)
_PARTITION_SPEC_ONE_AXIS = _schema("axes: [string]")
_PARTITION_SPEC = _schema("partitions: [table]", "reduced: [string]", "unreduced: [string]")
_NAMED_SHARDING = _schema(
    "mesh: table",
    "spec: table",
    "memory_kind: string",
    "abstract_mesh_idx: u32",
)
_ABSTRACT_VALUE = _schema("kind: i8", "shape: [string]", "dtype: i8", "memory_space: i8")
_SHARDING = _schema("kind: i8", "hlo_sharding_proto: [byte]", "named_sharding: table")
_EFFECT = _schema("type_name: string")
_DISABLED_SAFETY_CHECK = _schema("kind: i8", "custom_call_target: string")
_EXPORTED = _schema(
    "serialization_version: u16",
    "function_name: string",
    "in_tree: table",
    "in_avals: [table]",
    "out_tree: table",
    "out_avals: [table]",
    "nr_devices_short: i16",  # deprecated Nov 2025 (replaced by nr_devices)
    "in_shardings: [table]",
    "out_shardings: [table]",
    "platforms: [string]",
    "ordered_effects: [table]",
    "unordered_effects: [table]",
    "disabled_checks: [table]",
    "mlir_module_serialized: [byte]",
    "calling_convention_version: u16",
    "module_kept_var_idx: [u16]",
    "uses_global_constants: bool",
    "vjp: table",
    "nr_devices: u32",
    "unique_avals: [table]",
    "unique_abstract_meshes: [table]",
    "unique_named_shardings: [table]",
    "in_avals_idxs: [u32]",
    "out_avals_idxs: [u32]",
    "in_shardings_idxs: [u32]",  # 1-based into unique_named_shardings, 0 = unspecified
    "out_shardings_idxs: [u32]",
    "jax_version: string",  # added after schema version 11; absent from older artifacts
)

_TABLE_NAMES = (
    (_PYTREEDEF, "PyTreeDef"),
    (_ABSTRACT_DEVICE, "AbstractDevice"),
    (_ABSTRACT_MESH, "AbstractMesh"),
    (_PARTITION_SPEC_ONE_AXIS, "PartitionSpecOneAxis"),
    (_PARTITION_SPEC, "PartitionSpec"),
    (_NAMED_SHARDING, "NamedSharding"),
    (_ABSTRACT_VALUE, "AbstractValue"),
    (_SHARDING, "Sharding"),
    (_EFFECT, "Effect"),
    (_DISABLED_SAFETY_CHECK, "DisabledSafetyCheck"),
    (_EXPORTED, "Exported"),
)
"""Each table's schema and its name in serialization.fbs (for ``JaxExported.unknown_fields``)."""

# Enums of the schema, code -> the name JAX uses.
_PYTREE_KINDS = {0: "leaf", 1: "none", 2: "tuple", 3: "list", 4: "dict", 5: "custom"}
_DTYPES = {
    0: "bool",
    1: "int8",
    2: "int16",
    3: "int32",
    4: "int64",
    5: "uint8",
    6: "uint16",
    7: "uint32",
    8: "uint64",
    9: "float16",
    10: "float32",
    11: "float64",
    12: "complex64",
    13: "complex128",
    14: "bfloat16",
    15: "int4",
    16: "uint4",
    17: "float8_e4m3b11fnuz",
    18: "float8_e4m3fn",
    19: "float8_e4m3fnuz",
    20: "float8_e5m2",
    21: "float8_e5m2fnuz",
    22: "float0",
    23: "float8_e4m3",
    24: "float8_e3m4",
    25: "float8_e8m0fnu",
    26: "float4_e2m1fn",
    27: "key<fry>",
    28: "key<rbg>",
    29: "key<urbg>",
}
_MEMORY_SPACES = {0: "device", 1: "device", 2: "host", 3: "any"}  # 0 = Missing: JAX reads Device
_AXIS_TYPES = {0: "Missing", 1: "Auto", 2: "Explicit", 3: "Manual"}
_DISABLED_CHECK_KINDS = {0: "platform", 1: "custom_call", 2: "shape_assertions"}

_SCALAR_FORMATS = {"u8": "B", "i8": "b", "bool": "B", "u16": "H", "i16": "h", "u32": "I"}
_FIELD_SIZES = {"u8": 1, "i8": 1, "bool": 1, "u16": 2, "i16": 2, "u32": 4}  # references: 4
_VECTOR_ELEMENTS = {"[byte]": "B", "[u16]": "H", "[u32]": "I"}
_INT_DIM = re.compile(r"[0-9]{1,18}")

# --------------------------------------------------------------------------------------------
# Plain-Python values


@dataclass(frozen=True)
class JaxPyTree:
    """One node of a serialized ``PyTreeDef`` (JAX's ``PyTreeDef`` table, decoded).

    ``kind`` is ``"leaf"``, ``"none"``, ``"tuple"``, ``"list"``, ``"dict"`` (with ``keys``) or
    ``"custom"`` (a registered node type: ``custom_name`` and its opaque ``custom_auxdata``)."""

    kind: str
    children: tuple[JaxPyTree, ...] = ()
    keys: tuple[str, ...] | None = None
    custom_name: str | None = None
    custom_auxdata: bytes | None = None

    @property
    def num_leaves(self) -> int:
        """How many leaves (``*``) the tree has: the number of flat values it stands for."""
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __str__(self) -> str:
        """JAX's ``str(PyTreeDef)``, e.g. ``PyTreeDef(((*, *), {'a': *}))``."""
        return f"PyTreeDef({self._text()})"

    def _text(self) -> str:
        parts = [c._text() for c in self.children]
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind == "tuple":
            return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
        if self.kind == "list":
            return f"[{', '.join(parts)}]"
        if self.kind == "dict":
            keys = self.keys or ()
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts, strict=True)) + "}"
        aux = (self.custom_auxdata or b"").hex()
        return f"CustomNode({self.custom_name}[{aux}], [{', '.join(parts)}])"


class JaxAval(NamedTuple):
    """An abstract value (``ShapedArray``): dimensions are ``int`` or a symbolic expression as
    JAX wrote it (``"b"``, ``"2*b"``); ``dtype`` is JAX's name; ``memory_space`` is
    ``"device"``, ``"host"`` or ``"any"``."""

    shape: tuple[int | str, ...]
    dtype: str
    memory_space: str = "device"

    def __str__(self) -> str:
        """JAX's short form, ``float32[2,b]`` (plus ``<host>`` off the device)."""
        text = f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"
        return text if self.memory_space == "device" else f"{text}<{self.memory_space}>"


@dataclass(frozen=True)
class JaxAbstractDevice:
    """``AbstractDevice``: the kind of device a mesh was made for.  Artifacts older than schema
    version 11 store no ``platform``: it is then guessed from ``device_kind`` as JAX does
    (``None`` where JAX would fail to guess)."""

    device_kind: str
    num_cores: int | None
    platform: str | None


@dataclass(frozen=True)
class JaxAbstractMesh:
    """``AbstractMesh``: axis names and sizes, and each axis' type (``"Auto"``, ``"Explicit"``,
    ``"Manual"``)."""

    axis_sizes: tuple[int, ...]
    axis_names: tuple[str, ...]
    axis_types: tuple[str, ...]
    abstract_device: JaxAbstractDevice | None = None

    def __str__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        return f"AbstractMesh({axes}, axis_types=({', '.join(self.axis_types)}))"


@dataclass(frozen=True)
class JaxNamedSharding:
    """``NamedSharding`` over an abstract mesh.  ``spec`` is the partition spec, one entry per
    array dimension: ``None`` (replicated), an axis name, or a tuple of axis names."""

    mesh: JaxAbstractMesh
    spec: tuple[str | tuple[str, ...] | None, ...]
    reduced: tuple[str, ...] = ()
    unreduced: tuple[str, ...] = ()
    memory_kind: str | None = None

    def __str__(self) -> str:
        parts = [repr(p) for p in self.spec]
        if self.unreduced:
            parts.append("unreduced={" + ", ".join(repr(a) for a in sorted(self.unreduced)) + "}")
        if self.reduced:
            parts.append("reduced={" + ", ".join(repr(a) for a in sorted(self.reduced)) + "}")
        text = f"NamedSharding(mesh={self.mesh}, spec=P({', '.join(parts)})"
        if self.memory_kind is not None:
            text += f", memory_kind={self.memory_kind}"
        return text + ")"

    def hlo_sharding(self, ndim: int) -> str:
        """The ``HloSharding`` text JAX derives for an array of rank ``ndim`` (what
        ``str(exported.in_shardings_hlo[i])`` prints).  Raises ``ValueError`` when the spec does
        not fit the mesh or the rank."""
        return _named_to_hlo_sharding(self, ndim)


@dataclass(frozen=True)
class JaxExported:
    """A JAX ``Exported`` read from its serialized form: the StableHLO module's bytes and all the
    metadata of the schema, as plain Python values (see the module docstring)."""

    function_name: str
    in_tree: JaxPyTree
    in_avals: tuple[JaxAval, ...]
    out_tree: JaxPyTree
    out_avals: tuple[JaxAval, ...]
    in_shardings_hlo: tuple[str | bytes | None, ...]
    """Per argument: HloSharding text, the stored OpSharding proto (old artifacts), or None."""
    out_shardings_hlo: tuple[str | bytes | None, ...]
    in_shardings: tuple[JaxNamedSharding | None, ...]
    """Per argument: the stored NamedSharding (None when unspecified or stored as a proto)."""
    out_shardings: tuple[JaxNamedSharding | None, ...]
    nr_devices: int
    platforms: tuple[str, ...]
    ordered_effects: tuple[str, ...]
    """Effect type names as JAX stores them (``str(type(effect))``)."""
    unordered_effects: tuple[str, ...]
    disabled_safety_checks: tuple[str, ...]
    """JAX's ``str(DisabledSafetyCheck)``: ``"platform"``, ``"custom_call:<target>"``."""
    mlir_module_serialized: bytes = field(repr=False)
    mlir_module_serialization_version: int
    """The calling convention version of the module (JAX: ``calling_convention_version``)."""
    module_kept_var_idx: tuple[int, ...]
    uses_global_constants: bool
    vjp: JaxExported | None
    serialization_version: int
    """The flatbuffer's ``serialization_version`` field as stored (JAX writes 3)."""
    jax_version: str | None = None
    """The exporting JAX's version, stored by newer JAX only."""
    unknown_fields: tuple[str, ...] = ()
    """Fields of a newer schema this reader skipped (``"Exported field 27"``); empty up to
    :data:`SUPPORTED_SERIALIZATION_VERSION`."""

    @property
    def calling_convention_version(self) -> int:
        """JAX's name for :attr:`mlir_module_serialization_version`."""
        return self.mlir_module_serialization_version

    @property
    def has_vjp(self) -> bool:
        """Whether the artifact carries the VJP function (``serialize(vjp_order>=1)``)."""
        return self.vjp is not None

    # ---------------------------------------------------------------------------------------
    # The calling convention (JAX's _call_exported_lowering and _wrap_main_func)

    @property
    def has_platform_index_argument(self) -> bool:
        """Whether ``@main`` takes the platform index first (exports for several platforms)."""
        return len(self.platforms) > 1

    @property
    def module_arity(self) -> int:
        """How many arguments ``@main`` takes: platform index, tokens, kept arrays."""
        return (
            int(self.has_platform_index_argument)
            + len(self.ordered_effects)
            + len(self.module_kept_var_idx)
        )

    def calling_convention_text(self) -> str:
        """Both conventions in words, for error messages and ``metadata_text``."""
        parts = []
        if self.has_platform_index_argument:
            parts.append(f"the platform index (of {', '.join(self.platforms)})")
        if self.ordered_effects:
            parts.append(f"{len(self.ordered_effects)} token(s) for the ordered effects")
        dropped = len(self.in_avals) - len(self.module_kept_var_idx)
        kept = f"the {len(self.module_kept_var_idx)} kept argument(s)"
        if dropped:
            kept += (
                f" (module_kept_var_idx {list(self.module_kept_var_idx)}; {dropped} unused dropped)"
            )
        parts.append(kept)
        return (
            f"the exported function takes {len(self.in_avals)} flattened argument(s) "
            f"(in_avals: {', '.join(map(str, self.in_avals)) or 'none'}); its module's @main "
            f"takes {self.module_arity}: {', '.join(parts)}"
        )

    def platform_index(self, platform: str | None = None) -> int | None:
        """The platform index ``@main`` takes first, or None when it takes none.  ``platform``
        names the platform to run as; by default ``"cpu"`` when the export has it, else the first.
        A platform the export lacks is refused (as ``Exported.call`` does) unless the platform
        check was disabled at export, when index 0 stands for it."""
        if platform is not None and platform not in self.platforms:
            if "platform" not in self.disabled_safety_checks:
                raise NotSupportedError(
                    f"{self.function_name} was exported for platforms {list(self.platforms)}, "
                    f"not {platform!r}; choose one of those"
                )
            return 0 if self.has_platform_index_argument else None  # as _call_exported_lowering
        if not self.has_platform_index_argument:
            return None
        if platform is None:
            return self.platforms.index("cpu") if "cpu" in self.platforms else 0
        return self.platforms.index(platform)

    def module_arguments(
        self, args: tuple[Any, ...] | list[Any], *, platform: str | None = None, token: Any = None
    ) -> list[Any]:
        """``@main``'s arguments from one value per flattened input (``in_avals``), as
        ``Exported.call`` builds them: the platform index, ``token`` once per ordered effect, then
        the kept arguments.  Each argument is checked against its aval (rank, constant
        dimensions, one size per dimension variable, dtype); Python scalars and lists take the
        aval's dtype.  Raises :class:`~stablehlo_py.errors.NotSupportedError` for a calling
        convention this reader does not know, and
        :class:`~stablehlo_py.errors.InterpreterError` for arguments that do not fit (the message
        names both conventions when the count is wrong)."""
        if self.calling_convention_version not in SUPPORTED_CALLING_CONVENTIONS:
            raise NotSupportedError(
                f"{self.function_name} uses calling convention version "
                f"{self.calling_convention_version}; running it needs one of "
                f"{SUPPORTED_CALLING_CONVENTIONS.start}..{SUPPORTED_CALLING_CONVENTIONS.stop - 1}"
                " (upgrade stablehlo-py, or export with an older JAX)"
            )
        if len(args) != len(self.in_avals):
            hint = ""
            if len(args) == self.module_arity:
                hint = "; to pass @main's own arguments, run the module itself"
            raise InterpreterError(
                f"{self.function_name} was called with {len(args)} argument(s): "
                f"{self.calling_convention_text()}; pass one value per in_aval{hint}"
            )
        values = _check_arguments(self, list(args))
        index = self.platform_index(platform)
        out: list[Any] = [] if index is None else [np.int32(index)]
        out += [token] * len(self.ordered_effects)
        out += [values[i] for i in self.module_kept_var_idx]
        return out

    def module_results(self, results: list[Any] | tuple[Any, ...]) -> list[Any]:
        """The flattened results (``out_avals``) from ``@main``'s: without the leading tokens of
        the ordered effects."""
        n = len(self.ordered_effects)
        if len(results) != n + len(self.out_avals):
            raise InterpreterError(
                f"{self.function_name}'s module returned {len(results)} result(s); its calling "
                f"convention says {n} token(s) then {len(self.out_avals)} array(s)"
            )
        return list(results[n:])

    def metadata_text(self) -> str:
        """The metadata, human-readable (one field per line; the vjp indented below)."""
        return "\n".join(self._metadata_lines(""))

    def _metadata_lines(self, indent: str) -> list[str]:
        def listing(values: tuple[Any, ...]) -> str:
            return ", ".join(str(v) for v in values) if values else "(none)"

        def avals(
            label: str,
            vals: tuple[JaxAval, ...],
            hlo: tuple[str | bytes | None, ...],
            named: tuple[JaxNamedSharding | None, ...],
        ) -> list[str]:
            out = [f"{indent}{label}:" + ("" if vals else " (none)")]
            for i, (aval, h, n) in enumerate(zip(vals, hlo, named, strict=True)):
                if h is None:
                    where = "sharding unspecified"
                elif isinstance(h, bytes):
                    where = f"sharding {len(h)}-byte OpSharding proto {h.hex()}"
                else:
                    where = f"sharding {h}"
                out.append(f"{indent}  [{i}] {aval}  {where}")
                if n is not None:
                    out.append(f"{indent}      {n}")
            return out

        module = self.mlir_module_serialized
        kind = "MLIR bytecode" if module.startswith(b"ML\xefR") else "not MLIR bytecode"
        lines = [
            f"{indent}function_name: {self.function_name}",
            f"{indent}serialization_version: {self.serialization_version}",
        ]
        if self.jax_version is not None:
            lines.append(f"{indent}jax_version: {self.jax_version}")
        if self.unknown_fields:
            lines.append(f"{indent}unknown_fields (skipped): {', '.join(self.unknown_fields)}")
        lines += [
            f"{indent}mlir_module_serialization_version: {self.mlir_module_serialization_version}",
            f"{indent}mlir_module_serialized: {len(module)} bytes ({kind})",
            f"{indent}platforms: {listing(self.platforms)}",
            f"{indent}nr_devices: {self.nr_devices}",
            f"{indent}in_tree: {self.in_tree}",
            *avals("in_avals", self.in_avals, self.in_shardings_hlo, self.in_shardings),
            f"{indent}out_tree: {self.out_tree}",
            *avals("out_avals", self.out_avals, self.out_shardings_hlo, self.out_shardings),
            f"{indent}module_kept_var_idx: {listing(self.module_kept_var_idx)}",
            f"{indent}uses_global_constants: {str(self.uses_global_constants).lower()}",
            f"{indent}ordered_effects: {listing(self.ordered_effects)}",
            f"{indent}unordered_effects: {listing(self.unordered_effects)}",
            f"{indent}disabled_safety_checks: {listing(self.disabled_safety_checks)}",
        ]
        if self.vjp is None:
            lines.append(f"{indent}vjp: (none)")
        else:
            lines.append(f"{indent}vjp:")
            lines += self.vjp._metadata_lines(indent + "  ")
        return lines


# --------------------------------------------------------------------------------------------
# Checking arguments against the avals (JAX's _call_exported_abstract_eval, for the interpreter)

_KEY_DATA = {"key<fry>": 2, "key<rbg>": 4, "key<urbg>": 4}
"""PRNG key dtypes -> the trailing uint32 dimension of their key data (the physical type)."""

_CANONICAL = {np.dtype(a): np.dtype(b) for a, b in [
    ("float64", "float32"), ("int64", "int32"), ("uint64", "uint32"), ("complex128", "complex64")
]}  # fmt: skip
"""JAX (without x64) canonicalizes these numpy dtypes on the way in: a float64 array passed for a
float32 aval is accepted, as ``Exported.call`` accepts it."""


def _numpy_dtype(name: str) -> np.dtype[Any]:
    if name == "float0":
        return np.dtype(bool)  # JAX lowers float0 arrays to i1
    if name in _KEY_DATA:
        return np.dtype(np.uint32)
    return np.dtype(getattr(ml_dtypes, name, None) or name)


_DIM_OPS: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}
_DIM_FUNCS: dict[str, Any] = {
    "max": max,
    "min": min,
    "mod": lambda a, b: a % b,
    "floordiv": lambda a, b: a // b,
    "non_negative": lambda a: max(a, 0),
}


def _eval_dim(expr: str, env: dict[str, int]) -> int | None:
    """A symbolic dimension's value (JAX's text: ``2*b + 1``, ``mod(b, 2)``) under ``env``; None
    when it uses an unbound variable or anything beyond the arithmetic JAX prints."""

    def ev(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return env.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = ev(node.operand)
            return None if v is None else -v
        if isinstance(node, ast.BinOp) and type(node.op) in _DIM_OPS:
            a, b = ev(node.left), ev(node.right)
            if a is None or b is None or (b == 0 and isinstance(node.op, (ast.FloorDiv, ast.Mod))):
                return None
            return int(_DIM_OPS[type(node.op)](a, b))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _DIM_FUNCS
            and not node.keywords
        ):
            vals = [ev(a) for a in node.args]
            divides = node.func.id in ("mod", "floordiv")
            if any(v is None for v in vals) or (divides and vals[-1] == 0):
                return None
            try:
                return int(_DIM_FUNCS[node.func.id](*vals))
            except TypeError:
                return None
        return None

    if len(expr) > 200:
        return None
    try:
        tree = ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None
    return ev(tree.body)


def _check_arguments(exp: JaxExported, args: list[Any]) -> list[Any]:
    """Each argument as a numpy array of its aval's dtype, checked as ``Exported.call`` checks:
    rank, constant dimensions, one size per dimension variable (bound by the first argument that
    has it alone in a dimension, as JAX solves them), the sizes of symbolic expressions, dtype."""
    env: dict[str, int] = {}
    arrays: list[np.ndarray[Any, Any]] = []
    for i, (a, aval) in enumerate(zip(args, exp.in_avals, strict=True)):
        want = _numpy_dtype(aval.dtype)
        shape = aval.shape + ((_KEY_DATA[aval.dtype],) if aval.dtype in _KEY_DATA else ())
        given = a.dtype if isinstance(a, (np.ndarray, np.generic)) else None  # else: Python values
        arr = np.asarray(a)
        if aval.dtype == "float0":  # no data: JAX passes zeros of the physical type
            arr = np.zeros(arr.shape, want)
        elif given is not None and given != want and _CANONICAL.get(given) != want:
            raise InterpreterError(
                f"{exp.function_name}: argument {i} has dtype {given} but the export expects "
                f"{aval} (in_avals[{i}])"
            )
        if arr.ndim != len(shape):
            raise InterpreterError(
                f"{exp.function_name}: argument {i} has shape {arr.shape} but the export expects "
                f"{aval} (rank {len(shape)})"
            )
        for d, want_d in enumerate(shape):
            if isinstance(want_d, str) and want_d.isidentifier():
                if env.setdefault(want_d, arr.shape[d]) != arr.shape[d]:
                    raise InterpreterError(
                        f"{exp.function_name}: argument {i} dimension {d} is {arr.shape[d]} but "
                        f"{want_d} is {env[want_d]} from an earlier argument ({aval})"
                    )
        arrays.append(arr.astype(want, copy=False))
    for i, (arr, aval) in enumerate(zip(arrays, exp.in_avals)):
        for d, want_d in enumerate(aval.shape):
            size = want_d if isinstance(want_d, int) else _eval_dim(want_d, env)
            if size is not None and arr.shape[d] != size:
                raise InterpreterError(
                    f"{exp.function_name}: argument {i} has shape {arr.shape} but the export "
                    f"expects {aval} (dimension {d} is {want_d}"
                    + ("" if isinstance(want_d, int) else f" = {size}")
                    + ")"
                )
    return arrays


# --------------------------------------------------------------------------------------------
# Detection


_OTHER_MAGICS = (b"ML\xefR", b"\x89SHLO\r\n\x1a\n")


def is_jax_exported(data: bytes) -> bool:
    """Whether ``data`` looks like a serialized JAX ``Exported`` (cheap: a few reads near the start).

    The schema has no file identifier, so this checks the FlatBuffers structure: the root offset
    points to an aligned table inside the data, whose vtable is in bounds and well-formed and has
    the two fields every ``Exported`` has (``serialization_version`` and
    ``mlir_module_serialized``).  MLIR bytecode, our msgpack artifacts and text all fail the first
    check (their first four bytes, read as an offset, point past any plausible file end or are
    misaligned).  Works without the ``flatbuffers`` package."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return False
    if bytes(data[:8]).startswith(_OTHER_MAGICS):
        return False
    size = len(data)
    if size < 16:
        return False
    view = memoryview(data)

    def u16(pos: int) -> int:
        return int.from_bytes(view[pos : pos + 2], "little")

    root = int.from_bytes(view[0:4], "little")
    if root < 4 or root % 4 or root + 4 > size:
        return False
    vtable = root - int.from_bytes(view[root : root + 4], "little", signed=True)
    if vtable < 4 or vtable % 2 or vtable + 4 > size:
        return False
    vtable_size, object_size = u16(vtable), u16(vtable + 2)
    if (
        vtable_size % 2
        or vtable + vtable_size > size
        or object_size < 8
        or root + object_size > size
    ):
        return False
    slots = (vtable_size - 4) // 2
    wanted = (_EXPORTED["serialization_version"][0], _EXPORTED["mlir_module_serialized"][0])
    if max(wanted) >= slots:
        return False
    for slot, width in zip(wanted, (2, 4)):
        offset = u16(vtable + 4 + 2 * slot)
        if offset < 4 or offset + width > object_size:
            return False
    return u16(root + u16(vtable + 4)) != 0  # serialization_version is set


# --------------------------------------------------------------------------------------------
# Reading


def _flatbuffers() -> Any:
    try:
        import flatbuffers  # type: ignore[import-untyped]
        import flatbuffers.encode  # type: ignore[import-untyped]
        import flatbuffers.packer  # type: ignore[import-untyped]
    except ImportError as e:
        raise NotSupportedError(
            "reading a JAX Exported artifact needs the 'flatbuffers' package, which is not "
            'installed; install it with: pip install "stablehlo-py[jax]"'
        ) from e
    return flatbuffers


class _Buffer:
    """Bounds-checked access to the bytes; every failure is a located SerializationError."""

    def __init__(self, data: bytes, name: str, fb: Any) -> None:
        self.data = data
        self.size = len(data)
        self.name = name
        self._get = fb.encode.Get
        self._packers = {
            "B": fb.packer.uint8,
            "b": fb.packer.int8,
            "H": fb.packer.uint16,
            "h": fb.packer.int16,
            "I": fb.packer.uint32,
            "i": fb.packer.int32,
        }
        # Every table, vector element and string or blob byte decoded is charged by the bytes it
        # occupies.  A well-formed artifact has each byte charged at most once, so running out
        # means shared offsets are being walked again and again (an amplification attack).
        self.budget = 2 * self.size + 1024
        self.unknown_fields: dict[str, None] = {}  # "Table field N" of newer schemas, in order
        self._vtables_seen: set[tuple[int, str]] = set()  # each vtable scanned once per table

    def fail(self, message: str, offset: int | None) -> NoReturn:
        raise artifact_error(f"JAX Exported artifact: {message}", offset, self.name)

    def need(self, pos: int, n: int, what: str) -> None:
        if pos < 0 or n < 0 or pos + n > self.size:
            self.fail(
                f"{what} needs {n} bytes at byte {pos} but the data is {self.size} bytes long "
                "(truncated or corrupted)",
                min(max(pos, 0), self.size),
            )

    def scalar(self, fmt: str, pos: int, what: str) -> int:
        self.need(pos, struct.calcsize("<" + fmt), what)
        return int(self._get(self._packers[fmt], self.data, pos))

    def spend(self, nbytes: int, what: str, pos: int) -> None:
        self.budget -= nbytes
        if self.budget < 0:
            self.fail(
                f"{what}: more objects than a buffer of {self.size} bytes can hold (offsets are "
                "shared or cyclic; the artifact is corrupted)",
                pos,
            )

    def reference(self, pos: int, what: str) -> int:
        """Follow the uoffset stored at ``pos``."""
        offset = self.scalar("I", pos, what)
        if offset == 0:
            self.fail(f"{what}: null offset", pos)
        target = pos + offset
        if target >= self.size:
            self.fail(
                f"{what}: offset {offset} points past the end of the data ({self.size} bytes)", pos
            )
        return target

    def vector(self, pos: int, width: int, what: str) -> tuple[int, int]:
        """(start of the elements, count) of the vector at ``pos``."""
        count = self.scalar("I", pos, what)
        self.need(pos + 4, count * width, f"{what} ({count} elements)")
        return pos + 4, count

    def string(self, pos: int, what: str) -> str:
        start, n = self.vector(pos, 1, what)
        self.need(start, n + 1, f"{what} (string and its NUL terminator)")
        self.spend(n + 4, what, pos)
        if self.data[start + n] != 0:
            self.fail(f"{what}: string of {n} bytes is not NUL-terminated", start + n)
        try:
            return self.data[start : start + n].decode("utf-8")
        except UnicodeDecodeError as e:
            self.fail(f"{what}: string is not valid UTF-8 ({e.reason})", start + e.start)

    def table(self, pos: int, schema: dict[str, tuple[int, str]], what: str) -> _Table:
        self.spend(4, what, pos)
        soffset = self.scalar("i", pos, what)
        vtable = pos - soffset
        if vtable < 0 or vtable + 4 > self.size:
            self.fail(f"{what}: the table's vtable (byte {vtable}) lies outside the data", pos)
        vtable_size = self.scalar("H", vtable, what)
        object_size = self.scalar("H", vtable + 2, what)
        if vtable_size < 4 or vtable_size % 2:
            self.fail(f"{what}: invalid vtable size {vtable_size}", vtable)
        self.need(vtable, vtable_size, f"{what} (vtable)")
        if object_size < 4:
            self.fail(f"{what}: invalid table size {object_size}", vtable + 2)
        self.need(pos, object_size, f"{what} (table)")
        self._note_unknown_fields(vtable, vtable_size, schema)
        return _Table(self, pos, vtable, vtable_size, object_size, schema, what)

    def _note_unknown_fields(
        self, vtable: int, vtable_size: int, schema: dict[str, tuple[int, str]]
    ) -> None:
        """Record the present fields beyond the schema's last slot (a newer JAX's additions)."""
        table = next(n for sch, n in _TABLE_NAMES if sch is schema)
        if (vtable, table) in self._vtables_seen:
            return
        self._vtables_seen.add((vtable, table))
        known = 1 + max(slot for slot, _ in schema.values())
        for slot in range(known, (vtable_size - 4) // 2):
            if self.scalar("H", vtable + 4 + 2 * slot, "vtable") != 0:
                self.unknown_fields.setdefault(f"{table} field {slot}")


@dataclass(slots=True, eq=False)
class _Table:
    """One table: typed accessors by field name (the schema dicts above give slot and kind)."""

    buf: _Buffer
    pos: int
    vtable: int
    vtable_size: int
    object_size: int
    schema: dict[str, tuple[int, str]]
    what: str

    def _field(self, name: str, kinds: tuple[str, ...]) -> tuple[int, str] | None:
        """(absolute position, kind) of a present field, or None when absent."""
        slot, kind = self.schema[name]
        assert kind in kinds, (name, kind)
        entry = 4 + 2 * slot
        if entry + 2 > self.vtable_size:
            return None
        offset = self.buf.scalar("H", self.vtable + entry, f"{self.what} (vtable)")
        if offset == 0:
            return None
        width = _FIELD_SIZES.get(kind, 4)
        if offset < 4 or offset + width > self.object_size:
            self.buf.fail(
                f"{self.what}.{name}: field offset {offset} lies outside the table's "
                f"{self.object_size} bytes",
                self.vtable + entry,
            )
        return self.pos + offset, kind

    def scalar(self, name: str, default: int = 0) -> int:
        found = self._field(name, tuple(_SCALAR_FORMATS))
        if found is None:
            return default
        pos, kind = found
        return self.buf.scalar(_SCALAR_FORMATS[kind], pos, f"{self.what}.{name}")

    def _target(self, name: str, kinds: tuple[str, ...]) -> int | None:
        found = self._field(name, kinds)
        return None if found is None else self.buf.reference(found[0], f"{self.what}.{name}")

    def reference(self, name: str) -> int | None:
        """Where a present table field points (for reading it later), or None."""
        return self._target(name, ("table",))

    def string(self, name: str) -> str | None:
        target = self._target(name, ("string",))
        return None if target is None else self.buf.string(target, f"{self.what}.{name}")

    def required_string(self, name: str) -> str:
        value = self.string(name)
        if value is None:
            self.buf.fail(f"{self.what}.{name} is missing", self.pos)
        return value

    def table(self, name: str, schema: dict[str, tuple[int, str]]) -> _Table | None:
        target = self._target(name, ("table",))
        return None if target is None else self.buf.table(target, schema, f"{self.what}.{name}")

    def required_table(self, name: str, schema: dict[str, tuple[int, str]]) -> _Table:
        value = self.table(name, schema)
        if value is None:
            self.buf.fail(f"{self.what}.{name} is missing", self.pos)
        return value

    def _elements(self, name: str, kind: str) -> list[tuple[int, str]]:
        """(position of each element's offset, its path) for a vector of tables or strings."""
        target = self._target(name, (kind,))
        if target is None:
            return []
        what = f"{self.what}.{name}"
        start, count = self.buf.vector(target, 4, what)
        self.buf.spend(4 * count, what, target)
        return [(start + 4 * i, f"{what}[{i}]") for i in range(count)]

    def tables(self, name: str, schema: dict[str, tuple[int, str]]) -> list[_Table]:
        b = self.buf
        return [b.table(b.reference(p, w), schema, w) for p, w in self._elements(name, "[table]")]

    def strings(self, name: str) -> tuple[str, ...]:
        b = self.buf
        return tuple(b.string(b.reference(p, w), w) for p, w in self._elements(name, "[string]"))

    def ints(self, name: str) -> tuple[int, ...]:
        """A vector of unsigned integers ([byte] as uint8, [u16], [u32])."""
        kind = self.schema[name][1]
        target = self._target(name, tuple(_VECTOR_ELEMENTS))
        if target is None:
            return ()
        fmt = _VECTOR_ELEMENTS[kind]
        width = struct.calcsize(fmt)
        start, count = self.buf.vector(target, width, f"{self.what}.{name}")
        self.buf.spend(width * count, f"{self.what}.{name}", target)
        return struct.unpack_from(f"<{count}{fmt}", self.buf.data, start)

    def blob(self, name: str) -> bytes | None:
        target = self._target(name, ("[byte]",))
        if target is None:
            return None
        start, count = self.buf.vector(target, 1, f"{self.what}.{name}")
        self.buf.spend(count, f"{self.what}.{name}", target)
        return self.buf.data[start : start + count]

    def enum(self, name: str, names: dict[int, str], enum_name: str) -> str:
        code = self.scalar(name)
        if code not in names:
            self.buf.fail(
                f"{self.what}.{name}: unknown {enum_name} code {code} (known: "
                f"{min(names)}..{max(names)}; written by a newer JAX?)",
                self.pos,
            )
        return names[code]


def read_jax_exported(
    data: bytes, name: str = "<artifact>", *, allow_expired: bool = False
) -> JaxExported:
    """Read a serialized JAX ``Exported`` (``Exported.serialize()``), vjp included.

    ``name`` is used in error locations (``name: byte N``).  Raises
    :class:`~stablehlo_py.errors.SerializationError` for anything malformed or truncated, for a
    known field whose content this reader does not know, and for an artifact JAX 0.12 refuses as
    expired (older than its 6-month compatibility window) unless ``allow_expired`` is true; and
    :class:`~stablehlo_py.errors.NotSupportedError` when ``flatbuffers`` is not installed.  See
    "Versions" in the module docstring."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise artifact_error(
            f"a JAX Exported artifact is bytes, not {type(data).__name__}", None, name
        )
    fb = _flatbuffers()
    buf = _Buffer(bytes(data), name, fb)
    if buf.size < 8:
        buf.fail(f"{buf.size} bytes is too short for a flatbuffer", 0)
    root = buf.reference(0, "root table offset")
    exported = _read_exported(buf, root, "Exported", 0, allow_expired)
    if buf.unknown_fields:
        exported = replace(exported, unknown_fields=tuple(buf.unknown_fields))
    return exported


class _Expiry:
    """JAX 0.12's refusal of an expired artifact (``_expired_error_msg``), unless allowed."""

    def __init__(self, t: _Table, version: int, jax_version: str | None, allow: bool) -> None:
        self.t, self.version, self.jax_version, self.allow = t, version, jax_version, allow

    def __call__(self, why: str) -> None:
        if self.allow:
            return
        written = f", written by JAX {self.jax_version}" if self.jax_version else ""
        self.t.buf.fail(
            f"{self.t.what} seems older than JAX's 6-month backward-compatibility window and "
            f"JAX 0.12 refuses to read it ({why}); it uses serialization version "
            f"{self.version}{written}.  Export it again with a current JAX, or read it anyway "
            f"with read_jax_exported(..., allow_expired=True).  See {_COMPAT_DOC}",
            self.t.pos,
        )


def _read_exported(
    buf: _Buffer, pos: int, what: str, depth: int, allow_expired: bool
) -> JaxExported:
    t = buf.table(pos, _EXPORTED, what)
    version = t.scalar("serialization_version")
    if version == 0:
        buf.fail(f"{what}.serialization_version is missing (not a JAX Exported artifact?)", pos)
    jax_version = t.string("jax_version")
    expired = _Expiry(t, version, jax_version, allow_expired)

    unique_avals = [_read_aval(a) for a in t.tables("unique_avals", _ABSTRACT_VALUE)]
    unique_meshes = [_read_mesh(m) for m in t.tables("unique_abstract_meshes", _ABSTRACT_MESH)]
    unique_shardings = [
        _read_named_sharding(s, unique_meshes)
        for s in t.tables("unique_named_shardings", _NAMED_SHARDING)
    ]

    function_name = t.required_string("function_name")
    nr_devices = t.scalar("nr_devices")
    if nr_devices == 0:
        nr_devices = t.scalar("nr_devices_short")
        if nr_devices < 0:
            buf.fail(f"{what}.nr_devices_short is negative ({nr_devices})", t.pos)
        if nr_devices > 0:
            expired("it stores the device count only in nr_devices_short, as before Nov 2025")

    sides = {
        side: _read_side(t, side, unique_avals, unique_shardings, unique_meshes, expired)
        for side in ("in", "out")
    }
    trees: dict[str, JaxPyTree] = {}
    for side in ("in", "out"):
        tree = _read_pytree(t.required_table(f"{side}_tree", _PYTREEDEF), 0)
        n_avals = len(sides[side][0])
        if tree.num_leaves != n_avals:
            buf.fail(
                f"{what}.{side}_tree has {tree.num_leaves} leaves but there are {n_avals} {side}_avals",
                t.pos,
            )
        trees[side] = tree

    module = t.blob("mlir_module_serialized")
    if module is None:
        buf.fail(f"{what}.mlir_module_serialized is missing", t.pos)

    vjp = None
    vjp_pos = t.reference("vjp")
    if vjp_pos is not None:
        if depth >= MAX_VJP_DEPTH:
            buf.fail(f"{what}: vjp functions nested deeper than {MAX_VJP_DEPTH}", vjp_pos)
        vjp = _read_exported(buf, vjp_pos, f"{what}.vjp", depth + 1, allow_expired)

    return JaxExported(
        function_name=function_name,
        in_tree=trees["in"],
        in_avals=sides["in"][0],
        out_tree=trees["out"],
        out_avals=sides["out"][0],
        in_shardings_hlo=sides["in"][1],
        out_shardings_hlo=sides["out"][1],
        in_shardings=sides["in"][2],
        out_shardings=sides["out"][2],
        nr_devices=nr_devices,
        platforms=t.strings("platforms"),
        ordered_effects=tuple(_read_effect(e) for e in t.tables("ordered_effects", _EFFECT)),
        unordered_effects=tuple(_read_effect(e) for e in t.tables("unordered_effects", _EFFECT)),
        disabled_safety_checks=tuple(
            _read_disabled_check(c) for c in t.tables("disabled_checks", _DISABLED_SAFETY_CHECK)
        ),
        mlir_module_serialized=module,
        mlir_module_serialization_version=t.scalar("calling_convention_version"),
        module_kept_var_idx=t.ints("module_kept_var_idx"),
        uses_global_constants=t.scalar("uses_global_constants") != 0,
        vjp=vjp,
        serialization_version=version,
        jax_version=jax_version,
    )


_Side = tuple[
    tuple[JaxAval, ...], tuple[str | bytes | None, ...], tuple[JaxNamedSharding | None, ...]
]


def _read_side(
    t: _Table,
    side: str,
    unique_avals: list[JaxAval],
    unique_shardings: list[JaxNamedSharding],
    unique_meshes: list[JaxAbstractMesh],
    expired: _Expiry,
) -> _Side:
    """(avals, HloSharding per aval, NamedSharding per aval) of the arguments or the results,
    chosen among the stored vectors as JAX does."""
    shardings = _read_shardings(t, side, unique_shardings, unique_meshes, expired)
    has_named = not any(isinstance(s, bytes) for s in shardings)
    idxs = t.ints(f"{side}_avals_idxs") if has_named else ()
    if idxs:
        avals = [_by_index(t, f"{side}_avals_idxs", i, unique_avals, "unique_avals") for i in idxs]
    else:
        avals = [_read_aval(a) for a in t.tables(f"{side}_avals", _ABSTRACT_VALUE)]
    if len(shardings) != len(avals):
        t.buf.fail(
            f"{t.what}: {len(avals)} {side}_avals but {len(shardings)} {side}_shardings", t.pos
        )
    hlo: list[str | bytes | None] = []
    named: list[JaxNamedSharding | None] = []
    for i, (s, aval) in enumerate(zip(shardings, avals)):
        if isinstance(s, JaxNamedSharding):
            # core.update_aval_with_sharding: the memory space follows the memory kind
            space = "host" if s.memory_kind == "pinned_host" else "device"
            avals[i] = aval._replace(memory_space=space)
            try:
                hlo.append(s.hlo_sharding(len(aval.shape)))
            except ValueError as e:
                t.buf.fail(f"{t.what}.{side}_shardings[{i}]: {e}", t.pos)
            named.append(s)
        else:
            hlo.append(s)
            named.append(None)
    return tuple(avals), tuple(hlo), tuple(named)


def _by_index(t: _Table, name: str, index: int, values: list[Any], into: str) -> Any:
    if index >= len(values):
        t.buf.fail(
            f"{t.what}.{name}: index {index} is out of range for {into} ({len(values)} entries)",
            t.pos,
        )
    return values[index]


def _read_shardings(
    t: _Table,
    side: str,
    unique: list[JaxNamedSharding],
    unique_meshes: list[JaxAbstractMesh],
    expired: _Expiry,
) -> list[JaxNamedSharding | bytes | None]:
    """The shardings of one side, as JAX picks them: the v10 index vector when present, else the
    legacy vector of ``Sharding`` tables (named, or an OpSharding proto, or unspecified)."""
    idxs = t.ints(f"{side}_shardings_idxs")
    if idxs:
        return [
            None
            if i == 0
            else _by_index(t, f"{side}_shardings_idxs", i - 1, unique, "unique_named_shardings")
            for i in idxs
        ]
    out: list[JaxNamedSharding | bytes | None] = []
    for s in t.tables(f"{side}_shardings", _SHARDING):
        named = s.table("named_sharding", _NAMED_SHARDING)
        if named is not None:
            out.append(_read_named_sharding(named, unique_meshes))
        else:
            proto = s.blob("hlo_sharding_proto")
            if proto is not None:
                expired(f"{side}_shardings hold an OpSharding proto, as before Jan 2026")
            out.append(proto)
    return out


def _read_aval(t: _Table) -> JaxAval:
    dims: list[int | str] = []
    for i, d in enumerate(t.strings("shape")):
        if _INT_DIM.fullmatch(d):
            dims.append(int(d))
        elif d.strip():
            dims.append(d)
        else:
            t.buf.fail(f"{t.what}.shape[{i}] is an empty dimension", t.pos)
    dtype = t.enum("dtype", _DTYPES, "DType")
    space = t.enum("memory_space", _MEMORY_SPACES, "MemorySpace")
    return JaxAval(tuple(dims), dtype, space)


def _read_pytree(t: _Table, depth: int) -> JaxPyTree:
    if depth > MAX_PYTREE_DEPTH:
        t.buf.fail(f"{t.what}: pytree nested deeper than {MAX_PYTREE_DEPTH}", t.pos)
    kind = t.enum("kind", _PYTREE_KINDS, "PyTreeDefKind")
    children_list = []
    for child in t.tables("children", _PYTREEDEF):  # a loop, not a generator: one frame a level
        children_list.append(_read_pytree(child, depth + 1))
    children = tuple(children_list)
    if kind in ("leaf", "none") and children:
        t.buf.fail(f"{t.what}: a {kind} node has {len(children)} children", t.pos)
    keys = None
    if kind == "dict":
        keys = t.strings("children_names")
        if len(keys) != len(children):
            t.buf.fail(
                f"{t.what}: dict node has {len(keys)} keys for {len(children)} children", t.pos
            )
        if len(set(keys)) != len(keys):
            t.buf.fail(f"{t.what}: dict node has duplicate keys", t.pos)
    custom_name = custom_auxdata = None
    if kind == "custom":
        custom_name = t.required_string("custom_name")
        custom_auxdata = t.blob("custom_auxdata") or b""
    return JaxPyTree(kind, children, keys, custom_name, custom_auxdata)


def _read_mesh(t: _Table) -> JaxAbstractMesh:
    sizes = t.ints("axis_sizes")
    names = t.strings("axis_names")
    types = []
    for code in t.ints("axis_types"):
        if code not in _AXIS_TYPES:
            t.buf.fail(f"{t.what}.axis_types: unknown AxisType code {code}", t.pos)
        types.append(_AXIS_TYPES[code])
    if not len(sizes) == len(names) == len(types):
        t.buf.fail(
            f"{t.what}: {len(sizes)} axis sizes, {len(names)} axis names and {len(types)} axis "
            "types (they must match)",
            t.pos,
        )
    if len(set(names)) != len(names):
        t.buf.fail(f"{t.what}: duplicate axis names {names}", t.pos)
    device = None
    d = t.table("abstract_device", _ABSTRACT_DEVICE)
    if d is not None:
        cores = d.scalar("num_cores", -1)
        kind = d.required_string("device_kind")
        platform = d.string("platform") or _platform_from_device_kind(kind)
        device = JaxAbstractDevice(kind, None if cores < 0 else cores, platform)
    return JaxAbstractMesh(sizes, names, tuple(types), device)


_DEVICE_KIND_PLATFORMS = (("cpu", ("cpu",)), ("tpu", ("tpu",)), ("gpu", ("nvidia", "tesla", "amd")))
"""JAX's ``get_platform_from_device_kind`` (for meshes of schema < 11, without a platform): the
first platform one of whose words is in the lower-cased device kind."""


def _platform_from_device_kind(device_kind: str) -> str | None:
    kind = device_kind.lower()
    return next((p for p, words in _DEVICE_KIND_PLATFORMS if any(w in kind for w in words)), None)


def _read_named_sharding(
    t: _Table, unique_meshes: list[JaxAbstractMesh] | None
) -> JaxNamedSharding:
    if unique_meshes:
        mesh = _by_index(
            t,
            "abstract_mesh_idx",
            t.scalar("abstract_mesh_idx"),
            unique_meshes,
            "unique_abstract_meshes",
        )
    else:
        mesh = _read_mesh(t.required_table("mesh", _ABSTRACT_MESH))
    spec = t.required_table("spec", _PARTITION_SPEC)
    partitions: list[str | tuple[str, ...] | None] = []
    for p in spec.tables("partitions", _PARTITION_SPEC_ONE_AXIS):
        axes = p.strings("axes")
        partitions.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return JaxNamedSharding(
        mesh,
        tuple(partitions),
        reduced=spec.strings("reduced"),
        unreduced=spec.strings("unreduced"),
        memory_kind=t.string("memory_kind"),
    )


def _read_effect(t: _Table) -> str:
    return t.required_string("type_name")


def _read_disabled_check(t: _Table) -> str:
    kind = t.enum("kind", _DISABLED_CHECK_KINDS, "DisabledSafetyCheckKind")
    if kind == "custom_call":
        return f"custom_call:{t.required_string('custom_call_target')}"
    return kind


# --------------------------------------------------------------------------------------------
# NamedSharding -> HloSharding text: JAX's named_sharding_to_xla_hlo_sharding
# (jax/_src/named_sharding.py) feeding XLA's HloSharding::IotaTile / Subgroup and printed by
# HloSharding::ToString (xla/hlo/ir/hlo_sharding.cc, tile_assignment.cc).

# xla::OpSharding::Type values: JAX orders the subgroup dimensions by them ...
_OP_SHARDING_TYPE = {"replicated": 0, "manual": 4, "unreduced": 6}
# ... and HloSharding::Subgroup re-orders them like this when there is more than one.
_XLA_SUBGROUP_ORDER = {"manual": 0, "unreduced": 1, "replicated": 2}


def _named_to_hlo_sharding(s: JaxNamedSharding, ndim: int) -> str:
    mesh = s.mesh
    size = dict(zip(mesh.axis_names, mesh.axis_sizes))
    manual = {n for n, ty in zip(mesh.axis_names, mesh.axis_types) if ty == "Manual"}
    spec_axes = [a for p in s.spec if p is not None for a in ((p,) if isinstance(p, str) else p)]
    for axis in [*spec_axes, *s.unreduced, *s.reduced]:
        if axis not in size:
            raise ValueError(f"axis {axis!r} of {s} is not in the mesh")
    if len(set(spec_axes)) != len(spec_axes):
        raise ValueError(f"{s} uses a mesh axis twice")
    # get_non_one_sized_mesh_spec: size-1 mesh axes take no part.
    names = [n for n in mesh.axis_names if size[n] != 1]
    sizes = [size[n] for n in names]
    index = {n: i for i, n in enumerate(names)}
    array_mapping: dict[str, int] = {}  # mesh axis -> array dimension, in spec order
    for dim, p in enumerate(s.spec):
        for axis in () if p is None else (p,) if isinstance(p, str) else p:
            if size[axis] != 1:
                array_mapping[axis] = dim
    special = {index[n]: "manual" for n in names if n in manual}
    special.update({index[u]: "unreduced" for u in s.unreduced if size[u] != 1})
    replicated = [i for i, n in enumerate(names) if n not in array_mapping]
    if len(replicated) == len(names) and not special:
        return "{replicated}"
    if replicated and not set(special) <= set(replicated):  # JAX asserts this
        raise ValueError(f"{s}: a manual or unreduced mesh axis also shards a dimension")
    # One group of mesh axes per tile dimension: the array's dimensions, then one per subgroup type.
    groups: list[list[int]] = [[] for _ in range(ndim)]
    for axis, dim in sorted(array_mapping.items(), key=lambda item: item[1]):
        if dim >= ndim:
            raise ValueError(f"{s} shards dimension {dim} of a rank-{ndim} array")
        groups[dim].append(index[axis])
    by_type: dict[str, list[int]] = {}
    for i in replicated:
        by_type.setdefault(special.get(i, "replicated"), []).append(i)
    types = sorted(by_type, key=_OP_SHARDING_TYPE.__getitem__)
    if len(types) > 1:  # HloSharding::Subgroup merges: a transpose of whole tile dimensions
        types.sort(key=_XLA_SUBGROUP_ORDER.__getitem__)
    groups += [by_type[ty] for ty in types]
    dims = [prod(sizes[i] for i in g) for g in groups]
    perm = [i for g in groups for i in g]
    tiles = _iota_tile_text(dims, sizes, perm)
    if not types:
        return "{" + tiles + "}"
    if len(types) == 1 and prod(dims[: len(dims) - 1]) == 1:
        return "{" + types[0] + "}"  # HloSharding::Manual / Replicate / Unreduced
    if types == ["replicated"]:
        return "{" + tiles + " last_tile_dim_replicate}"  # HloSharding::PartialTile
    return "{" + tiles + " last_tile_dims={" + ", ".join(types) + "}}"


def _iota_tile_text(dims: list[int], reshape_dims: list[int], perm: list[int]) -> str:
    """IotaTileAssignment::Create + ToString: ``devices=[dims]<=[reshape]T(perm)``."""
    reshape, transpose = _canonicalize_iota(list(reshape_dims), list(perm))
    if not reshape:
        reshape, transpose = [1], [0]
    text = f"devices=[{','.join(map(str, dims))}]<=[{','.join(map(str, reshape))}]"
    if len(reshape) > 1:
        text += f"T({','.join(map(str, transpose))})"
    return text


def _canonicalize_iota(dims: list[int], perm: list[int]) -> tuple[list[int], list[int]]:
    """XLA's CanonicalizeIotaDims: drop size-1 dimensions, merge runs that the transpose keeps in
    order, until nothing changes."""
    if len(dims) <= 1:
        return dims, perm
    while True:
        if 1 in dims:
            new_index: list[int] = []
            for d in dims:
                new_index.append(-1 if d == 1 else len(new_index) - new_index.count(-1))
            perm = [new_index[p] for p in perm if new_index[p] >= 0]
            dims = [d for d in dims if d != 1]
        changed = False
        base = 0
        for i in range(1, len(dims)):
            if perm[base] + (i - base) == perm[i]:
                dims[perm[base]] *= dims[perm[i]]
                dims[perm[i]] = 1
                changed = True
            else:
                base = i
        if not changed:
            return dims, perm
