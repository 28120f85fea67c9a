"""File locations (FileLineColRange) print as MLIR prints them -- `"f":8` as `"f":8:0`, a range
ending where it starts as its start, an end on the start line as `to :col`, strings with MLIR's
escapes -- from text and from MLIR bytecode, inline and as `#loc` aliases; the bytecode we write
for each spelling stays jaxlib's."""

from __future__ import annotations

import io

import pytest

jax = pytest.importorskip("jax")

from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir
from stablehlo_py.serialization.mlirbc import read_dialect, write_dialect

from stablehlo_py.ir import parse, print_ir

LOCATIONS = [
    'loc("f":8:0)',
    'loc("f":8)',
    'loc("f":8:3)',
    'loc("f":8:0 to :5)',
    'loc("f":8:0 to :0)',
    'loc("f":8:0 to 9:0)',
    'loc("f":8:2 to :2)',
    'loc("f":8:2 to 8:7)',
    'loc("n"("f":3))',
    'loc(callsite("a":1 at "b":2:2 to :2))',
    'loc(fused["a":1, "b":2:0 to 2:0])',
    'loc("weird\\":3"("f":4))',
]


@pytest.mark.parametrize("aliases", [False, True], ids=["inline", "aliases"])
@pytest.mark.parametrize("loc", LOCATIONS)
def test_file_locations_print_as_mlir(loc: str, aliases: bool) -> None:
    src = "module {\n func.func @f() { return } " + loc + "\n} "
    ctx = jax_mlir.make_ir_context()
    with ctx:
        module = ir.Module.parse(src)
        expected = module.operation.get_asm(enable_debug_info=True, use_local_scope=not aliases)
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
        after_bytecode = ir.Module.parse(buf.getvalue()).operation.get_asm(
            enable_debug_info=True, use_local_scope=not aliases
        )
    ours = print_ir(parse(src), debuginfo=True, location_aliases=aliases)
    assert ours.rstrip() == expected.rstrip()
    _, _, back = read_dialect(buf.getvalue())
    assert (
        print_ir(back, debuginfo=True, location_aliases=aliases).rstrip() == after_bytecode.rstrip()
    )
    data = buf.getvalue()  # with the installed MLIR's producer ("MLIR" + its LLVM version)
    producer = data[5 : data.index(b"\x00", 5)].decode()
    assert write_dialect(parse(src), producer=producer) == data
