"""The compiled fast parse path (`ir/format_parse.py`) gives exactly what the interpreted format
(`format.parse_format`) gives: the same IR (printed pretty, generic and with debug info) for every
chunk of upstream's dialect tests, our filecheck tests and the testdata programs, and the same
diagnostic, at the same place, for every chunk that fails to parse."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.format_parse import compile_fast_parse
from stablehlo_py.ir.dialects import default_registry
from tests.conftest import conformance_files, split_input_file

REPO = Path(__file__).resolve().parents[3]
FORMATTED = [c for c in default_registry().ops.values() if getattr(c, "FORMAT", None)]


@contextmanager
def interpreted_only() -> Iterator[None]:
    """Parse with the fast path switched off in every op class."""
    saved = {
        c: c.__dict__.get("_FAST_PARSE", None) for c in FORMATTED if "_FAST_PARSE" in c.__dict__
    }
    for c in FORMATTED:
        c._FAST_PARSE = None
    try:
        yield
    finally:
        for c in FORMATTED:
            if c in saved:
                c._FAST_PARSE = saved[c]
            else:
                del c._FAST_PARSE


@contextmanager
def counting() -> Iterator[list[int]]:
    """Parse with the fast path on, counting the ops it built."""
    count = [0]
    saved = {c: c.fast_parse() for c in FORMATTED}
    for c, f in saved.items():
        if f is not None:

            def wrapped(p, f=f):  # type: ignore[no-untyped-def]
                op = f(p)
                if op is not None:
                    count[0] += 1
                return op

            # the parser calls a direct path before parse_pretty (OpParser._direct_parse)
            wrapped.direct = getattr(f, "direct", False)  # type: ignore[attr-defined]
            c._FAST_PARSE = wrapped
    try:
        yield count
    finally:
        for c, f in saved.items():
            c._FAST_PARSE = f


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


def _compare(paths: list[Path]) -> int:
    with counting() as count:
        for path in paths:
            for _, chunk in split_input_file(path.read_text()):
                fast = _outcome(chunk)
                with interpreted_only():
                    slow = _outcome(chunk)
                assert fast == slow, path.name
    return count[0]


def test_common_formats_compile() -> None:
    ops = default_registry().ops
    for name in (
        "stablehlo.add",
        "stablehlo.abs",
        "stablehlo.broadcast_in_dim",
        "stablehlo.transpose",
    ):
        assert ops[name].fast_parse() is not None, name
    # an optional group is interpreted between the segments the regexes match
    compare = ops["stablehlo.compare"]
    source = compile_fast_parse(compare.compiled_format(), compare).source  # type: ignore[union-attr]
    assert "_parse_one(_E[5], p, st)" in source and "_RX1" in source


def test_fast_matches_interpreted_dialect_tests() -> None:
    paths = conformance_files("dialect") + sorted((REPO / "tests" / "filecheck").glob("*.mlir"))
    if not paths:
        pytest.skip("no dialect tests")
    assert _compare(paths) > 100


def test_fast_matches_interpreted_testdata() -> None:
    paths = conformance_files("testdata")[::11]
    if not paths:
        pytest.skip("../shared/conformance is absent")
    assert _compare(paths) > 300


@pytest.mark.parametrize(
    "text",
    [
        "%1 = stablehlo.add %0, %0 : tensor<2xf32>",  # operand type differs from its value's
        "%1 = stablehlo.add %0, %9 : tensor<2xf64>",  # undefined name
        "%1 = stablehlo.add %0#1, %0 : tensor<2xf64>",  # index out of range
        "%1 = stablehlo.add %0, %0 : tensor<2xf99>",  # unknown element type
        "%1 = stablehlo.add %0, %0 {a = 1} : tensor<2xf64>",  # attribute dictionary
        "%1 = stablehlo.add %0, /* */ %0 : tensor<2xf64>",
        "%1 = stablehlo.add %0, // comment\n %0 : tensor<2xf64>",
        "%1 = stablehlo.broadcast_in_dim %0, dims = [99999999999999999999] : (tensor<2xf64>) -> tensor<2xf64>",
        "%1 = stablehlo.broadcast_in_dim %0, dims = [0x1] : (tensor<2xf64>) -> tensor<2x2xf64>",
        "%1 = stablehlo.broadcast_in_dim %0, dimsx = [0] : (tensor<2xf64>) -> tensor<2x2xf64>",
        "%1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>",
        "%1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>",
        # formats with interpreted elements between the segments
        "%1 = stablehlo.compare GT, %0, %0 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.compare GT, %0, %0, TOTALORDER : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.compare GT, %0, %9 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.compare GT, %0, %0 : (tensor<2xf64>, tensor<2xf32>) -> tensor<2xi1>",
        "%1 = stablehlo.compare GT, %0, %0 {x = 1} : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.compare XX, %0, %0 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.compare GT, %0 %0 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>",
        "%1 = stablehlo.dot_general %0, %0, contracting_dims = [0] x [0] : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>",
        "%1 = stablehlo.dot_general %0, %0, contracting_dims = [0] x [0], precision = [DEFAULT, HIGH] : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>",
        "%1 = stablehlo.dot_general %0, %0, contracting_dims = [0] x [0], precision = [BAD] : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>",
        "%1 = stablehlo.dot_general %0, %9, contracting_dims = [0] x [0] : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>",
        "%1 = stablehlo.dot_general %0, %0, contracting_dims = [0] x [0] : (tensor<2xf64>) -> tensor<f64>",
    ],
)
def test_fallback_gives_the_interpreted_result(text: str) -> None:
    chunk = f"func.func @f(%0: tensor<2xf64>) {{\n  {text}\n  return\n}}\n"
    fast = _outcome(chunk)
    with interpreted_only():
        assert fast == _outcome(chunk)


def test_append_ops_links_as_add_ops() -> None:
    from xdsl.ir import Block

    from stablehlo_py.ir.xdsl_compat.construct import append_ops

    def ops() -> list:  # type: ignore[type-arg]
        m = parse(
            "func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a : tensor<f32>\n  return\n}\n"
        )
        body = list(m.walk())[2:]
        for op in body:
            op.detach()
        return body

    for existing in (0, 1):
        a, b = Block(), Block()
        for block in (a, b):
            for _ in range(existing):
                block.add_op(default_registry().ops["stablehlo.create_token"].create())
        xs, ys = ops(), ops()
        a.add_ops(xs)
        append_ops(b, ys)
        for block, new in ((a, xs), (b, ys)):
            got = list(block.ops)
            assert got[existing:] == new and block.last_op is new[-1]
            assert all(o.parent is block for o in got)
            assert [o.prev_op for o in got] == [None, *got[:-1]]
            assert [o.next_op for o in got] == [*got[1:], None]
