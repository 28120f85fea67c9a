"""upstream's stablehlo-aggressive-folder tests (passes/stablehlo_aggressive_folder.py)."""

from tests.conformance.transform_suite import transform_tests

FILES = ("stablehlo_aggressive_folder.mlir", "config_assume_no_undeclared_side_effects.mlir")

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
