"""`shape.const_shape` in MLIR's syntax (stablehlo_py/ir/ops/shape_dialect.py)."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify


def test_const_shape_round_trips_in_mlir_syntax() -> None:
    text = """func.func @f() -> (tensor<2xindex>, tensor<?xindex>, tensor<0xindex>) {
  %0 = shape.const_shape [4, 32] : tensor<2xindex>
  %1 = shape.const_shape {mhlo.sharding = "{replicated}"} [1, 2, 3] : tensor<?xindex>
  %2 = shape.const_shape [] : tensor<0xindex>
  return %0, %1, %2 : tensor<2xindex>, tensor<?xindex>, tensor<0xindex>
}
"""
    m = parse(text)
    verify(m)
    out = print_ir(m)
    assert "shape.const_shape [4, 32] : tensor<2xindex>" in out
    # MLIR prints the attribute dictionary right after the op name's space, then the extents
    assert 'shape.const_shape  {mhlo.sharding = "{replicated}"}[1, 2, 3] : tensor<?xindex>' in out
    assert "shape.const_shape [] : tensor<0xindex>" in out
    assert print_ir(parse(out)) == out


def test_const_shape_result_must_hold_its_extents() -> None:
    m = parse(
        "func.func @f() -> tensor<3xindex> {\n"
        "  %0 = shape.const_shape [4, 32] : tensor<3xindex>\n"
        "  return %0 : tensor<3xindex>\n}\n"
    )
    with pytest.raises(StableHLOError, match="incompatible with return type"):
        verify(m)
