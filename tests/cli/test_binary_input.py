"""`cli.common.is_binary`: which input the tools read as binary.  Text is decided first, by UTF-8
alone and without importing the serialization package (each tool's start pays for that import
only when the input is binary); that is sound because every binary format's magic number holds a
byte that UTF-8 text cannot have at that place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stablehlo_py.cli.common import is_binary
from stablehlo_py.ir import parse
from stablehlo_py.ir.bytecode import MAGIC as IR_BYTECODE_MAGIC
from stablehlo_py.serialization import serialize_portable_artifact
from stablehlo_py.serialization.format import MAGIC as ARTIFACT_MAGIC
from stablehlo_py.serialization.mlirbc import MAGIC as MLIR_MAGIC

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TEXT = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.mark.parametrize("magic", [ARTIFACT_MAGIC, MLIR_MAGIC, IR_BYTECODE_MAGIC],
                         ids=["artifact", "mlir-bytecode", "ir-bytecode"])
def test_no_utf8_text_starts_with_a_magic_number(magic: bytes) -> None:
    """The invalid byte lies inside the magic number (not "unexpected end of data"): whatever
    follows, bytes that start with it are not UTF-8."""
    with pytest.raises(UnicodeDecodeError) as caught:
        magic.decode("utf-8")
    assert caught.value.reason != "unexpected end of data"
    assert caught.value.end <= len(magic)


def test_what_is_binary() -> None:
    module = parse(TEXT)
    assert not is_binary(TEXT.encode())
    assert not is_binary("// ünïcode comment\n".encode() + TEXT.encode())
    assert not is_binary(b"")
    assert is_binary(serialize_portable_artifact(module, "current"))
    assert is_binary(serialize_portable_artifact(module, "current", format="mlir"))
    assert is_binary(IR_BYTECODE_MAGIC + b"\x00\x01")
    assert is_binary((EXAMPLES / "mlp.jax_exported").read_bytes())
    assert not is_binary(b"\xff\xfe not text and no known format")


def test_text_input_does_not_import_the_serialization_package() -> None:
    code = (
        "import sys\n"
        "from stablehlo_py.cli.common import is_binary\n"
        f"assert not is_binary({TEXT.encode()!r})\n"
        "print(sorted(m for m in sys.modules if m.startswith('stablehlo_py.serialization')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
