"""JAX's cuSOLVER / hipSOLVER targets (interpreter/custom_calls/gpu/) without jax: hand-written calls
in JAX's form (the exports themselves: tests/oracle/test_gpu_linalg_targets.py)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

pytest.importorskip("scipy")  # (the LAPACK kernels: the `linalg` extra)

POTRF = """
func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @VENDORsolver_potrf_ffi(%a) {mhlo.backend_config = {lower = LOWER}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf64>, tensor<i32>
}
"""

A = np.array([[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]])


@pytest.mark.parametrize("vendor", ["cu", "hip"])
@pytest.mark.parametrize("lower", [True, False])
def test_potrf_writes_the_asked_triangle(vendor: str, lower: bool) -> None:
    text = POTRF.replace("VENDOR", vendor).replace("LOWER", "true" if lower else "false")
    factor, info = run(parse(text), A)
    assert int(info) == 0
    l_ = np.linalg.cholesky(A)
    if lower:
        np.testing.assert_allclose(np.tril(factor), l_, rtol=1e-12)
        np.testing.assert_allclose(np.triu(factor, 1), np.triu(A, 1))  # the other triangle stays
    else:
        np.testing.assert_allclose(np.triu(factor), l_.T, rtol=1e-12)


def test_potrf_reports_a_matrix_that_is_not_positive_definite() -> None:
    text = POTRF.replace("VENDOR", "cu").replace("LOWER", "true")
    _, info = run(parse(text), np.diag([1.0, -1.0, 1.0]))
    assert int(info) == 2  # the order of the failing leading minor


def test_a_missing_attribute_and_a_wrong_element_type_are_clear_errors() -> None:
    text = POTRF.replace("VENDOR", "cu").replace("{lower = LOWER}", "{}")
    with pytest.raises(InterpreterError, match="missing boolean attribute 'lower'"):
        run(parse(text), A)
    bad = POTRF.replace("VENDOR", "cu").replace("LOWER", "true").replace("f64", "f16")
    with pytest.raises(InterpreterError, match="f32, f64, complex64 or complex128"):
        run(parse(bad), A.astype(np.float16))


PIVOTS = """
func.func @main(%p: tensor<2x3xi32>) -> tensor<2x5xi32> {
  %0 = stablehlo.custom_call @cu_lu_pivots_to_permutation(%p) {mhlo.backend_config = {}} : (tensor<2x3xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}
"""


def test_lu_pivots_to_permutation_applies_the_swaps_in_order() -> None:
    pivots = np.array([[2, 2, 4], [0, 1, 2]], np.int32)
    (perm,) = run(parse(PIVOTS), pivots)
    # row 0: swap 0<->2 -> [2,1,0,3,4]; swap 1<->2 -> [2,0,1,3,4]; swap 2<->4 -> [2,0,4,3,1]
    assert perm.tolist() == [[2, 0, 4, 3, 1], [0, 1, 2, 3, 4]]
    with pytest.raises(InterpreterError, match="pivots must be i32"):
        run(parse(PIVOTS.replace("2x3xi32", "3x3xi32")), np.zeros((3, 3), np.int32))
