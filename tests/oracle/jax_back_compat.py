"""JAX's export back-compat test data, read from the installed jax wheel without importing jax.

The wheel ships `jax/_src/internal_test_util/export_back_compat_test_data/*.py` (and
`pallas/*.py`): each file is plain Python that imports only `datetime` and `numpy` and defines one
or more dicts, possibly nested by dtype or variant (`data_2024_05_31 = {"f32": dict(...)}`), with
the keys `platform`, `custom_call_targets`, `serialized_date`, `inputs`, `expected_outputs`,
`mlir_module_text`, `mlir_module_serialized` (and `xla_call_module_version`, `nr_devices`,
`testdata_version`).  They are real `jax.export` artifacts serialized on CPU, CUDA, ROCm and TPU,
with the outputs computed on that device.  A few files (`export_with_*.py`) hold instead a list
`serializations` of serialized `Exported` flatbuffers (`serialization_version`,
`exported_serialized`).

Each file is executed as a module of its own (`importlib`, not registered in `sys.modules`), so
neither jax nor its test utilities are imported.  `find_spec("jax")` locates the package without
importing it either.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

DATA_SUBDIR = ("_src", "internal_test_util", "export_back_compat_test_data")

# the keys of one test-data dict (export_back_compat_test_util.CompatTestData, the fields every
# file's dicts fill in)
REQUIRED_KEYS = frozenset(
    {
        "platform",
        "custom_call_targets",
        "serialized_date",
        "inputs",
        "expected_outputs",
        "mlir_module_text",
        "mlir_module_serialized",
    }
)


def data_dir() -> Path | None:
    """The test-data directory of the installed jax; None when jax or the directory is absent."""
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        d = Path(root).joinpath(*DATA_SUBDIR)
        if d.is_dir():
            return d
    return None


@dataclass(frozen=True)
class Entry:
    """One test-data dict; `id` is `<file>::<name>[/<key>...]`, e.g.
    `cpu_qr_lapack_geqrf.py::data_2025_04_02/f32`."""

    file: str
    path: tuple[str, ...]
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}::{'/'.join(self.path)}"

    @property
    def inputs(self) -> tuple[np.ndarray, ...]:
        return tuple(np.asarray(x) for x in self.data["inputs"])

    @property
    def expected(self) -> tuple[np.ndarray, ...]:
        return tuple(np.asarray(x) for x in self.data["expected_outputs"])

    @property
    def serialized(self) -> bytes:
        return bytes(self.data["mlir_module_serialized"])

    @property
    def text(self) -> str:
        return str(self.data["mlir_module_text"])

    @property
    def nr_devices(self) -> int:
        # absent from data written before JAX recorded it (2023): one device
        return int(self.data.get("nr_devices") or 1)


@dataclass(frozen=True)
class Serialization:
    """One serialized `Exported` of an `export_with_*.py` file."""

    file: str
    index: int
    version: int
    exported: bytes

    @property
    def id(self) -> str:
        return f"{self.file}::serializations/{self.index}(v{self.version})"


def data_files(directory: Path) -> list[str]:
    """Every data file (relative path, `/`-separated), `__init__.py` left out."""
    return sorted(
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def load_file(directory: Path, file: str) -> ModuleType:
    """Execute one data file as a fresh module (never imported through the jax package)."""
    path = directory / file
    name = "jax_back_compat_data." + file.removesuffix(".py").replace("/", ".")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _walk(obj: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    if isinstance(obj, Mapping):
        if "mlir_module_serialized" in obj:
            yield path, obj
            return
        for key, value in obj.items():
            yield from _walk(value, (*path, str(key)))


def _public(module: ModuleType) -> Iterator[tuple[str, Any]]:
    return ((k, v) for k, v in vars(module).items() if not k.startswith("_"))


def entries_of(module: ModuleType, file: str) -> list[Entry]:
    """The test-data dicts a loaded data file defines (nested dicts walked in definition order)."""
    return [
        Entry(file, path, data)
        for name, value in _public(module)
        for path, data in _walk(value, (name,))
    ]


def serializations_of(module: ModuleType, file: str) -> list[Serialization]:
    """The serialized `Exported`s of a loaded `export_with_*.py` file (none for other files)."""
    items = getattr(module, "serializations", None)
    if not isinstance(items, list):
        return []
    return [
        Serialization(file, i, int(s["serialization_version"]), bytes(s["exported_serialized"]))
        for i, s in enumerate(items)
    ]


def load(directory: Path) -> tuple[dict[str, int], list[Entry], list[Serialization]]:
    """Per data file the number of items it holds; all test-data dicts; all `Exported`s."""
    counts: dict[str, int] = {}
    entries: list[Entry] = []
    serializations: list[Serialization] = []
    for file in data_files(directory):
        module = load_file(directory, file)
        found = entries_of(module, file)
        exported = serializations_of(module, file)
        counts[file] = len(found) + len(exported)
        entries += found
        serializations += exported
    return counts, entries, serializations


__all__ = [
    "REQUIRED_KEYS",
    "Entry",
    "Serialization",
    "data_dir",
    "data_files",
    "entries_of",
    "load",
    "load_file",
    "serializations_of",
]
