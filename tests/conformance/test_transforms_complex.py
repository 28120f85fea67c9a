"""Upstream's test file of stablehlo-complex-math-expander, every RUN line verbatim."""

from tests.conformance.transform_suite import transform_tests

FILES = ("stablehlo_complex_math_expander.mlir",)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
