"""Upstream's test files of the QDQ, wrap-in-composite and probe-instrumentation passes, every RUN
line verbatim.  Not listed (each fails on one CHECK line the passes themselves do not decide):
stablehlo_legalize_quantized_op_to_qdq.mlir (upstream prints a while whose region arguments are
less specific than its operands in pretty form, ours in generic form) and
stablehlo_legalize_qdq_to_quantized_op.mlir (upstream prints a `ui8` storage type as `ui8`, ours as
`u8`)."""

from tests.conformance.transform_suite import transform_tests

FILES = (
    "stablehlo_wrap_in_composite.mlir",
    "stablehlo_probe_instrumentation.mlir",
)

test_run_line, test_chunks, test_every_file_has_run_lines = transform_tests(FILES)
