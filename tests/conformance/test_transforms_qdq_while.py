"""Upstream's stablehlo_legalize_quantized_op_to_qdq.mlir: every chunk passes its RUN line verbatim but
one, whose single CHECK line expects upstream's lossy pretty form of a `while`.

The chunk `@while_per_tensor_quantization` has a while whose region arguments (`tensor<?x..>`) are
less specific than its operands (`tensor<4x..>`).  Upstream's pretty syntax
`stablehlo.while(%iterArg = %arg0) : <operand types>` has no place for the region argument types: the
text it prints parses back with `tensor<4x..>` arguments and results, and the function's return then
fails to verify (upstream's issue openxla/stablehlo#871, against its own style-guide rule that pretty
IR be lossless).  We print the generic form for that while only, so the text round-trips.

These tests pin exactly that: every other chunk passes, the while chunk fails only on its CHECK
line, and our output for it parses back to the same IR while the pretty form would not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stablehlo_py.errors import ParseError
from tests.conformance.chunks import Chunk, run_chunks, split_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conformance.transform_suite import TRANSFORMS, needs_transforms

FILE = TRANSFORMS / "stablehlo_legalize_quantized_op_to_qdq.mlir"
LOSSY_WHILE = "while_per_tensor_quantization"


def _known(chunk: Chunk) -> str | None:
    if chunk.name == LOSSY_WHILE:
        return "CHECK expects upstream's pretty while, which loses the region argument types (#871)"
    return None


@needs_transforms
def test_every_other_chunk_passes_verbatim(tmp_path: Path) -> None:
    (line,) = run_lines(FILE)
    report = run_chunks(FILE, line, tmp_path, _known)
    report.print_summary(FILE.name)
    assert not report.failures, report.failure_text()
    assert not report.known_passing, (
        "the while chunk passes now: list the file in test_transforms_qdq"
    )
    assert len(report.known) == 1 and len(report.passed) > 20, (report.known, len(report.passed))


@needs_transforms
def test_whole_file_run_line_fails_only_at_the_while_check(tmp_path: Path) -> None:
    (line,) = run_lines(FILE)
    opt_only = line.split("|")[0]
    r = execute(opt_only, FILE, tmp_path / "t")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    r = execute(line, FILE, tmp_path / "t")
    assert r.returncode != 0
    check_line = next(
        i + 1
        for i, text in enumerate(FILE.read_text().splitlines())
        if text.startswith("// CHECK: stablehlo.while(%iterArg")
    )
    assert f":{check_line}:" in r.stderr + r.stdout, (r.stdout + r.stderr)[-3000:]


def _while_chunk() -> Chunk:
    return next(c for c in split_chunks(FILE) if c.name == LOSSY_WHILE)


@needs_transforms
def test_our_while_output_round_trips_and_the_pretty_form_does_not() -> None:
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py.ir import parse, print_ir

    module = run_pipeline(
        parse(_while_chunk().text), [("stablehlo-legalize-quantized-op-to-qdq", {})]
    )
    text = print_ir(module)
    assert '"stablehlo.while"' in text and "tensor<?x!quant.uniform" in text
    assert print_ir(parse(text)) == text

    pretty = (
        "func.func @f(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0:17>>)"
        " -> tensor<?x!quant.uniform<i8:f32, 1.0:17>> {\n"
        "  %0 = stablehlo.while(%iterArg = %arg0) : tensor<4x!quant.uniform<i8:f32, 1.0:17>>\n"
        "  cond {\n    %c = stablehlo.constant dense<true> : tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n    stablehlo.return %iterArg : tensor<4x!quant.uniform<i8:f32, 1.0:17>>\n  }\n"
        "  return %0 : tensor<?x!quant.uniform<i8:f32, 1.0:17>>\n}\n"
    )
    # MLIR's words at the use (`return %0 : tensor<?x...>` where %0 is a tensor<4x...>)
    with pytest.raises(ParseError, match="use of value '%0' expects different type than prior uses"):
        parse(pretty)
