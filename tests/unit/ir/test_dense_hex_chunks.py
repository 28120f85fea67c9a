"""Hex dense literals are decoded and printed a chunk at a time (a 1 GB constant is 2 GB of text):
the chunk boundaries change nothing, neither the values nor which texts are refused and how."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text import dense


def _program(body: str, n: int) -> str:
    return (
        f"func.func @f() -> tensor<{n}xi8> {{\n"
        f"  %0 = stablehlo.constant dense<{body}> : tensor<{n}xi8>\n"
        f"  return %0 : tensor<{n}xi8>\n}}\n"
    )


def _outcome(text: str) -> str:
    try:
        return print_ir(parse(text))
    except ParseError as e:
        return f"error: {e}"


CASES = [
    ('"0x' + "".join(f"{i:02X}" for i in range(101)) + '"', 101),  # several chunks, printed hex
    ('"0x' + "".join(f"{i:02x}" for i in range(101)) + '"', 101),  # lower-case digits
    ('"0x' + "AB" * 50 + "A" + '"', 101),  # odd number of digits
    ('"0x' + "AB" * 20 + " " + "AB" * 30 + '"', 50),  # white space is not a hex literal
    ('"0x' + "AB" * 20 + "G" + "AB" * 30 + '"', 50),  # nor a non-hex digit
    ('"0x' + "AB" * 40 + "GA" + '"', 41),  # ... in the last chunk
    ('"0x' + "AB" * 40 + "G" + '"', 41),  # ... or as the odd last digit
    ('"0x"', 0),
    ('"0x' + "AB" * 101, 101),  # unterminated
]


@pytest.mark.parametrize("body,n", CASES)
def test_chunk_size_changes_nothing(monkeypatch: pytest.MonkeyPatch, body: str, n: int) -> None:
    text = _program(body, n)
    whole = _outcome(text)
    for chunk in (2, 6, 64):
        monkeypatch.setattr(dense, "_HEX_CHUNK", chunk)
        assert _outcome(text) == whole


def test_values_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense, "_HEX_CHUNK", 8)
    values = np.arange(-60, 61, dtype=np.int8)
    body = '"0x' + values.tobytes().hex().upper() + '"'
    module = parse(_program(body, values.size))
    const = next(op for op in module.walk() if op.name == "stablehlo.constant")
    assert np.array_equal(dense.dense_values(const.value), values)
    assert body in print_ir(module)
