"""Our transcription of JAX's ``Exported`` flatbuffer schema against the installed JAX's generated
reader (``jax/_src/export/serialization_generated.py``): every table's fields (slot and kind) and
every enum's codes.

JAX's schema only grows by appended fields, so the installed JAX's fields must be ours with the same
slot and kind; a field of ours the installed JAX lacks must come after its last slot (jax 0.10 has
no ``jax_version``), and with JAX's schema 12 (jax 0.12) there is none.
"""

from __future__ import annotations

import inspect
import re

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")

from jax._src.export import serialization as jax_serialization
from jax._src.export import serialization_generated as generated
from stablehlo_py.serialization import jax_export

TABLES = {name: schema for schema, name in jax_export._TABLE_NAMES}

# accessor body -> our kind; the first that matches wins
_SCALARS = {
    "Int8Flags": "i8",
    "Uint8Flags": "u8",
    "BoolFlags": "bool",
    "Uint16Flags": "u16",
    "Int16Flags": "i16",
    "Uint32Flags": "u32",
}
_VECTORS = {
    "Int8Flags": "[byte]",
    "Uint8Flags": "[byte]",
    "Uint16Flags": "[u16]",
    "Uint32Flags": "[u32]",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _kind(source: str, element: bool) -> str:
    if "self._tab.String(" in source:
        return "[string]" if element else "string"
    if "Indirect(" in source:
        return "[table]" if element else "table"
    flags = re.search(r"number_types\.(\w+Flags)", source.split("Offset(", 1)[1])
    assert flags is not None, source
    return (_VECTORS if element else _SCALARS)[flags.group(1)]


def _generated_fields(cls: type) -> dict[str, tuple[int, str]]:
    """field -> (slot, kind) from the accessors of one generated table class."""
    out = {}
    for name, fn in vars(cls).items():
        if not callable(fn) or name.startswith(("_", "Init", "GetRootAs", "BufferHas")):
            continue
        if name.endswith(("Length", "IsNone", "AsNumpy")):
            continue
        source = inspect.getsource(fn)
        offset = re.search(r"self\._tab\.Offset\((\d+)\)", source)
        if offset is None:
            continue
        element = bool(re.search(r"def \w+\(self, j\)", source))
        out[_snake(name)] = ((int(offset.group(1)) - 4) // 2, _kind(source, element))
    return out


@pytest.mark.parametrize("table", sorted(TABLES))
def test_table_fields_match_jax(table: str) -> None:
    theirs = _generated_fields(getattr(generated, table))
    ours = TABLES[table]
    assert theirs, table
    for name, slot_kind in theirs.items():
        assert ours.get(name) == slot_kind, (table, name, slot_kind, ours.get(name))
    last = max(slot for slot, _ in theirs.values())
    extra = {n: s for n, s in ours.items() if n not in theirs}
    assert all(slot > last for slot, _ in extra.values()), extra
    if jax_serialization._SERIALIZATION_VERSION >= jax_export.SUPPORTED_SERIALIZATION_VERSION:
        assert extra == {}, f"{table}: fields JAX does not have: {extra}"


def _codes(cls: type) -> dict[str, int]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


def test_enums_match_jax() -> None:
    assert _codes(generated.PyTreeDefKind) == {v: k for k, v in jax_export._PYTREE_KINDS.items()}
    assert set(_codes(generated.MemorySpace).values()) == set(jax_export._MEMORY_SPACES)
    assert _codes(generated.AxisType) == {v: k for k, v in jax_export._AXIS_TYPES.items()}
    assert _codes(generated.DisabledSafetyCheckKind) == {
        v: k for k, v in jax_export._DISABLED_CHECK_KINDS.items()
    }
    assert set(_codes(generated.DType).values()) == set(jax_export._DTYPES)
    # the names: JAX's own map from codes to dtypes (PRNG keys and float0 are named by JAX too)
    for code, dtype in jax_serialization._dtype_kind_to_dtype.items():
        name = "float0" if dtype == jax.dtypes.float0 else str(dtype)
        assert jax_export._DTYPES[code] == name, (code, dtype)


def test_versions_table_is_jaxs() -> None:
    """Our record of the schema's versions reaches the installed JAX's version."""
    assert jax_serialization._SERIALIZATION_VERSION in jax_export.SERIALIZATION_VERSIONS
    assert jax_serialization._SERIALIZATION_VERSION <= jax_export.SUPPORTED_SERIALIZATION_VERSION
    comments = inspect.getsource(jax_serialization).split("_SERIALIZATION_VERSION =", 1)[0]
    for version in re.findall(r"^# Version (\d+)", comments, re.M):
        assert int(version) in jax_export.SERIALIZATION_VERSIONS, version
