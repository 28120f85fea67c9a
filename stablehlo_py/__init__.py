"""stablehlo-py."""
from stablehlo_py.version import CompatibilityRequirement as CompatibilityRequirement
from stablehlo_py.version import Version as Version
from stablehlo_py.version import get_current_version as get_current_version
from stablehlo_py.version import get_minimum_version as get_minimum_version
from stablehlo_py.version import get_smaller_version as get_smaller_version
from stablehlo_py.version import (
    get_version_from_compatibility_requirement as get_version_from_compatibility_requirement,
)
from stablehlo_py.version import validate_target as validate_target
from stablehlo_py.min_version import MinimumVersion as MinimumVersion
from stablehlo_py.min_version import minimum_version as minimum_version
from stablehlo_py import dialects as _dialects
from stablehlo_py import registry_hook as _registry_hook

# stablehlo_py.ir's default registry also reads VHLO, which ir must not import: the registry of
# every dialect is built above vhlo (stablehlo_py.dialects) and installed here, before any ir module
# runs, as a function reference (ir and vhlo are imported only when the registry is first built).
_registry_hook.set_registry_builder(_dialects.build_registry)

# Portable artifacts (stablehlo_py.api), loaded on first use so `import stablehlo_py` stays light.
_ARTIFACT_API = (
    "serialize_portable_artifact",
    "serialize_portable_artifact_str",
    "deserialize_portable_artifact",
    "deserialize_portable_artifact_str",
    "get_portable_artifact_version",
    "check_compat",
    "CompatReport",
    "run_exported",
    "load_inputs",
    "save_results",
)


def __getattr__(name: str) -> object:
    if name in _ARTIFACT_API:
        from stablehlo_py import api

        return getattr(api, name)
    raise AttributeError(f"module 'stablehlo_py' has no attribute {name!r}")
