"""`str(module)` is text jaxlib's MLIR reads as the same module, and `str(op)` / `str(attr)` are what
MLIR's Python bindings print for the same op / attribute (ir/xdsl_compat/printing.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from tests.conftest import CONFORMANCE

pytest.importorskip("jax")

from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((CONFORMANCE / "testdata").glob("*.mlir"))[3::16] + [REPO / "examples/mlp.mlir"]

COMPARE = """func.func @main(%a: tensor<2xf32>) -> tensor<2xi1> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %0 = stablehlo.add %a, %c : tensor<2xf32>
  %1 = stablehlo.compare GT, %0, %a, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %1 : tensor<2xi1>
}
"""


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_jaxlib_reads_str_of_module_as_the_same_module(path: Path) -> None:
    text = path.read_text()
    try:
        ours = parse(text)
    except StableHLOError:
        pytest.skip("not read by stablehlo-py")
    with jax_mlir.make_ir_context():
        try:
            theirs = ir.Module.parse(text)
        except ir.MLIRError:
            pytest.skip("not read by this jaxlib (newer than its StableHLO)")
        assert str(ir.Module.parse(str(ours))) == str(theirs)


def test_str_of_ops_and_attributes_as_mlir_python() -> None:
    m = parse(COMPARE)
    func = m.body.block.first_op
    with jax_mlir.make_ir_context():
        theirs = ir.Module.parse(COMPARE)
        assert str(m) == str(theirs)
        tfunc = theirs.body.operations[0]
        assert str(func) == str(tfunc)
        t_ops = list(tfunc.regions[0].blocks[0].operations)
        ops = list(func.body.block.ops)
        assert [str(o) for o in ops] == [str(o) for o in t_ops]
        for name in ("comparison_direction", "compare_type"):
            assert str(ops[2].properties[name]) == str(t_ops[2].attributes[name])
        assert str(ops[0].properties["value"]) == str(t_ops[0].attributes["value"])
        assert str(ops[2].results[0].type) == str(t_ops[2].result.type)
