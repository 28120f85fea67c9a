"""The pre-FFI forms of JAX's GPU eigh targets (interpreter/custom_calls/gpu/legacy.py): the packed
descriptor in backend_config, the workspace result, and the errors.  The real 2024 ROCm artifacts:
tests/oracle/test_jax_back_compat.py."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

pytest.importorskip("scipy")

A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def _program(target: str, desc: bytes, work: int = 8) -> str:
    config = "".join(f"\\{b:02X}" for b in desc)
    return f"""
func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>) {{
  %0:4 = stablehlo.custom_call @{target}(%a) {{api_version = 2 : i32, backend_config = "{config}", operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>]}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>, tensor<{work}xf64>)
  return %0#0, %0#1, %0#2 : tensor<3x3xf64>, tensor<3xf64>, tensor<i32>
}}
"""


@pytest.mark.parametrize(("target", "lower"), [
    ("hipsolver_syevd", 122), ("hipsolver_syevj", 121), ("cusolver_syevd", 0), ("cusolver_syevj", 1),
])
def test_descriptor_form_decomposes(target: str, lower: int) -> None:
    desc = struct.pack("<5i", 1, lower, 1, 3, 8)  # f64, fill mode, batch 1, n 3, lwork 8
    v, w, info = run(parse(_program(target, desc)), A)
    assert int(info) == 0
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A), rtol=1e-12)
    np.testing.assert_allclose(A @ v, v * w, atol=1e-12)


def test_a_damaged_descriptor_and_a_wrong_type_are_clear_errors() -> None:
    with pytest.raises(InterpreterError, match="holds 16 bytes, JAX's syevd descriptor has 20"):
        run(parse(_program("hipsolver_syevd", struct.pack("<4i", 1, 122, 1, 3))), A)
    with pytest.raises(InterpreterError, match="names solver type 0, the operand is float64"):
        run(parse(_program("hipsolver_syevd", struct.pack("<5i", 0, 122, 1, 3, 8))), A)
    with pytest.raises(InterpreterError, match="fill mode 7 is not one of"):
        run(parse(_program("cusolver_syevd", struct.pack("<5i", 1, 7, 1, 3, 8))), A)
