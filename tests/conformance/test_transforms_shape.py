"""Upstream's test file of `shape-legalize-to-stablehlo`, its RUN line verbatim."""

from tests.conformance.transform_suite import transform_tests

FILES = ("shape_legalize_to_stablehlo.mlir",)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
