"""upstream's stablehlo-aggressive-simplification and stablehlo-target-independent-optimization
tests (transforms/), every RUN line verbatim."""

from tests.conformance.transform_suite import transform_tests

FILES = (
    "stablehlo_aggressive_simplification.mlir",
    "stablehlo_target_independent_optimization.mlir",
)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
