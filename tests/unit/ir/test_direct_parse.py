"""The parser's direct paths (`OpParser._direct_parse`: ops read by their one-regex format path or
`ConstantOp.direct_parse` before the usual dispatch, finished by `_finish_direct`) give exactly
what the usual dispatch gives: the same IR printed pretty, generic and with debug info (locations
included), and the same diagnostic at the same place for every chunk of upstream's dialect tests,
our filecheck tests, testdata programs and inputs written to fail around the direct paths."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.parse_ops import OpParser
from tests.conftest import conformance_files, split_input_file

REPO = Path(__file__).resolve().parents[3]


@contextmanager
def usual_dispatch_only() -> Iterator[None]:
    """Parse with every direct path switched off."""
    saved = OpParser._direct_parse

    def none(self: OpParser, word: str) -> None:
        self.direct_ops[word] = None

    OpParser._direct_parse = none  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        OpParser._direct_parse = saved  # type: ignore[method-assign]


@contextmanager
def counting() -> Iterator[list[int]]:
    """Parse with the direct paths on, counting the ops they built."""
    count = [0]
    saved = OpParser._direct_parse

    def counted(self: OpParser, word: str):  # type: ignore[no-untyped-def]
        direct = saved(self, word)
        if direct is not None:

            def wrapped(p, f=direct):  # type: ignore[no-untyped-def]
                op = f(p)
                count[0] += op is not None
                return op

            self.direct_ops[word] = direct = wrapped
        return direct

    OpParser._direct_parse = counted  # type: ignore[assignment,method-assign]
    try:
        yield count
    finally:
        OpParser._direct_parse = saved  # type: ignore[method-assign]


def _outcome(chunk: str) -> str:
    try:
        m = parse(chunk, "input.mlir")
    except StableHLOError as e:
        return f"error {type(e).__name__} {getattr(e, 'location', '')}: {e}"
    texts = []
    for kw in ({}, {"generic": True}, {"debuginfo": True}):
        try:
            texts.append(print_ir(m, **kw))
        except Exception as e:  # noqa: BLE001 -- IR a verifier would refuse: compared both ways
            texts.append(f"print error {type(e).__name__}: {e}")
    return "\n".join(texts)


def _compare(chunks: list[str]) -> int:
    with counting() as count:
        for chunk in chunks:
            direct = _outcome(chunk)
            with usual_dispatch_only():
                usual = _outcome(chunk)
            assert direct == usual, chunk[:200]
    return count[0]


def _chunks(paths: list[Path]) -> list[str]:
    return [chunk for path in paths for _, chunk in split_input_file(path.read_text())]


def test_direct_matches_usual_dialect_tests() -> None:
    paths = conformance_files("dialect") + sorted((REPO / "tests" / "filecheck").glob("*.mlir"))
    if not paths:
        pytest.skip("no dialect tests")
    assert _compare(_chunks(paths)) > 100


def test_direct_matches_usual_testdata() -> None:
    paths = conformance_files("testdata")[3::13]
    if not paths:
        pytest.skip("../shared/conformance is absent")
    assert _compare(_chunks(paths)) > 300


@pytest.mark.parametrize(
    "text",
    [
        "%1 = stablehlo.add %0, %0 : tensor<2xf64> loc(\"here\":1:2)",
        "%1 = stablehlo.add %0, %0 : tensor<2xf64>\n  loc(\"next line\")",
        "%1 = stablehlo.add %0, %0 : tensor<2xf64>\n  %1 = stablehlo.add %0, %0 : tensor<2xf64>",
        "%1:2 = stablehlo.add %0, %0 : tensor<2xf64>",
        "stablehlo.add %0, %0 : tensor<2xf64>",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n"
        "  %2 = stablehlo.constant dense<1.0> : tensor<2xf64> loc(\"c\")",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n"
        "  %1 = stablehlo.constant dense<1.0> : tensor<2xf64>",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n"
        "  %2 = stablehlo.constant {a = 1 : i32} dense<1.0> : tensor<2xf64>",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n"
        "  %2 = stablehlo.constant dense<1.0> : tensor<2xf64> {a = 1 : i32}",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n  %2:2 = stablehlo.constant dense<1.0> : tensor<2xf64>",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n  stablehlo.constant dense<1.0> : tensor<2xf64>",
        "%1 = stablehlo.constant dense<1.0> : tensor<2xf64>\n  %2 = stablehlo.constant dense<1.0>",
    ],
)
def test_direct_finish_as_usual(text: str) -> None:
    # the second constant of a text is read by the direct path (the first one interns its value)
    chunk = f"func.func @f(%0: tensor<2xf64>) {{\n  {text}\n  return\n}}\n"
    assert _compare([chunk]) >= 0
