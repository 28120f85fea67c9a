"""upstream's `transforms/` files of the shape passes, every RUN line verbatim (see
transform_suite.py).  `stablehlo_refine_shapes.mlir` and `stablehlo_legalize_composite_to_call.mlir`
have their own modules: a whole-file subtlety and a FileCheck difference are spelled out there; the
other passes' files are in the test_transforms_<group>.py modules."""

from __future__ import annotations

from tests.conformance.transform_suite import transform_tests

FILES = (
    "stablehlo_refine_parameters.mlir",  # --stablehlo-refine-arguments
    "stablehlo_canonicalize_dynamism.mlir",  # --stablehlo-canonicalize-dynamism
    "stablehlo_check_shape_assertions.mlir",  # --stablehlo-check-shape-assertions
)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
