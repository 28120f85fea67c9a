"""Upstream's tests of stablehlo-compatibility-expander (passes/stablehlo_compatibility_expander.py)."""

from tests.conformance.transform_suite import transform_tests

FILES = (
    "stablehlo_compatibility_expander.mlir",
    "stablehlo_compatibility_expander_locations.mlir",
    "mesh_axes_replica_group_compatibility.mlir",
)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
