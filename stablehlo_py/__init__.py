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
