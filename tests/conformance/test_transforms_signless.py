"""Upstream's test files of the deprecated-ops legalization, the signless conversion and
`canonicalize`, every RUN line verbatim."""

from tests.conformance.transform_suite import transform_tests

FILES = (
    "stablehlo_legalize_deprecated_ops.mlir",
    "stablehlo_convert_to_signless.mlir",
)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
