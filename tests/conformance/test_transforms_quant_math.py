"""Upstream's `stablehlo-legalize-quant-to-math` test file, every RUN line verbatim."""

from tests.conformance.transform_suite import transform_tests

FILES = ("stablehlo_legalize_quant_to_int.mlir",)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
