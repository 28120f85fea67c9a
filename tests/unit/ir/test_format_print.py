"""The compiled format printers (`ir/format_print.py`) write exactly what the interpreted format
(`format.print_format`) writes, op by op, on upstream's dialect tests and the testdata programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import format as fmt
from stablehlo_py.ir import parse
from stablehlo_py.ir.format_print import compiled_printer, generated_source
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.text.printer import Printer, _Wrapper
from tests.conftest import conformance_files, split_input_file

REPO = Path(__file__).resolve().parents[3]


def _compare(module, generic_namer: bool = False) -> int:  # type: ignore[no-untyped-def]
    """Print every op with a format both ways (same names, same printer state); returns the count."""
    pr = Printer(_Wrapper(module), generic=generic_namer)
    n = 0
    for op in module.walk():
        cls = type(op)
        if getattr(cls, "FORMAT", None) is None or "print_pretty" in cls.__dict__:
            continue
        fn = compiled_printer(cls)
        assert fn is not None, f"{cls.name}: format not compiled"
        compiled = _run(fn, op, pr)
        interpreted = _run(lambda o, p: fmt.print_format(type(o).compiled_format(), o, p), op, pr)
        assert compiled == interpreted, (cls.name, generated_source(cls))
        named = _run(compiled_printer(cls, with_name=True), op, pr)
        expected = compiled if compiled.startswith("error ") else pr.op_name(cls.name) + compiled
        assert named == expected, generated_source(cls, with_name=True)
        n += 1
    return n


def _run(print_op, op, pr: Printer) -> str:  # type: ignore[no-untyped-def]
    """The text one way of printing writes, or the error it raises (IR a verifier would refuse)."""
    pr.out, pr.indent = [], 1
    try:
        print_op(op, pr)
    except Exception as e:  # noqa: BLE001 -- compared between the two printers
        return f"error {type(e).__name__}: {e}"
    return "".join(pr.out)


def _modules(paths: list[Path]):  # type: ignore[no-untyped-def]
    for path in paths:
        for _, chunk in split_input_file(path.read_text()):
            if "func" not in chunk and "module" not in chunk:
                continue
            try:
                yield parse(chunk)
            except StableHLOError:
                continue  # the negative tests' inputs


def test_every_format_compiles() -> None:
    formatted = [c for c in default_registry().ops.values() if getattr(c, "FORMAT", None)]
    assert formatted
    for cls in formatted:
        assert compiled_printer(cls) is not None, cls.name


@pytest.mark.parametrize("generic_namer", [False, True])
def test_compiled_matches_interpreted_dialect_tests(generic_namer: bool) -> None:
    paths = conformance_files("dialect") + sorted((REPO / "tests" / "filecheck").glob("*.mlir"))
    if not paths:
        pytest.skip("no dialect tests")
    n = sum(_compare(m, generic_namer) for m in _modules(paths))
    assert n > 500


def test_compiled_matches_interpreted_testdata() -> None:
    paths = conformance_files("testdata")[::7]
    if not paths:
        pytest.skip("../shared/conformance is absent")
    assert sum(_compare(m) for m in _modules(paths)) > 1000


def test_text_memo_is_bounded_and_skips_large_attributes() -> None:
    from stablehlo_py.ir import print_ir
    from stablehlo_py.ir.context import CONTEXT
    from stablehlo_py.ir.text import printer

    small = "func.func @f() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"
    big = small.replace("2xf32", "100xf32").replace("[1.0, 2.0]", "1.5")
    big = big.replace("dense<1.5>", "dense<[" + ", ".join(["1.5"] * 99 + ["2.5"]) + "]>")
    CONTEXT["text.attribute_text"].clear()  # (printer._TEXT_MEMO)
    first = print_ir(parse(small))
    assert len(printer._TEXT_MEMO) == 1
    assert print_ir(parse(small)) == first  # the remembered text is the same text
    print_ir(parse(big))  # 400 bytes: printed, not remembered
    assert len(printer._TEXT_MEMO) == 1
    assert "dense<[1.000000e+00, 2.000000e+00]>" in first
