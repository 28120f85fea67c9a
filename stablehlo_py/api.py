"""The toolkit's Python API in one place (upstream's ``stablehlo`` Python module, plus our additions).

Portable artifacts (``stablehlo_py.serialization``)::

    serialize_portable_artifact(module, target_version, allow_other_dialects=False, *, strip_debuginfo=False) -> bytes
    serialize_portable_artifact_str(module_str, target_version) -> bytes
    deserialize_portable_artifact(artifact) -> ModuleOp
    deserialize_portable_artifact_str(artifact) -> str
    get_portable_artifact_version(artifact) -> Version      # header only
    check_compat(artifact, consumer_version) -> CompatReport

Versions (``stablehlo_py.version``): ``get_current_version``, ``get_minimum_version``,
``get_smaller_version``, ``get_version_from_compatibility_requirement``, ``Version``,
``CompatibilityRequirement``.

This module sits on top of the package and may import everything; ``import stablehlo_py`` exposes the
same names lazily (nothing heavy is imported until one is used).
"""

from __future__ import annotations

from stablehlo_py.serialization import (
    CompatReport,
    check_compat,
    deserialize_portable_artifact,
    deserialize_portable_artifact_str,
    get_portable_artifact_version,
    serialize_portable_artifact,
    serialize_portable_artifact_str,
)
from stablehlo_py.version import (
    CompatibilityRequirement,
    Version,
    get_current_version,
    get_minimum_version,
    get_smaller_version,
    get_version_from_compatibility_requirement,
)

__all__ = [
    "CompatReport",
    "CompatibilityRequirement",
    "Version",
    "check_compat",
    "deserialize_portable_artifact",
    "deserialize_portable_artifact_str",
    "get_current_version",
    "get_minimum_version",
    "get_portable_artifact_version",
    "get_smaller_version",
    "get_version_from_compatibility_requirement",
    "serialize_portable_artifact",
    "serialize_portable_artifact_str",
]
