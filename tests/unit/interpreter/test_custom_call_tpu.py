"""JAX's TPU decompositions (interpreter/custom_calls/tpu.py) without jax: the current form, 2023's
tuple-typed result (dispatch packs a target's results into the op's one tuple result), and the
errors.  Real TPU exports and artifacts: tests/oracle/test_gpu_linalg_targets.py,
tests/oracle/test_jax_back_compat.py."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

pytest.importorskip("scipy")

A = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]], np.float32)

QR = """
func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0:2 = stablehlo.custom_call @Qr(%a) : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  %1 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %1 : tensor<3x3xf32>
}
"""

QR_TUPLE = """
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>) {
  %0 = stablehlo.custom_call @Qr(%a) : (tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xf32>>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<3x3xf32>, tensor<3xf32>>) -> tensor<3x3xf32>
  %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xf32>>) -> tensor<3xf32>
  return %1, %2 : tensor<3x3xf32>, tensor<3xf32>
}
"""


def test_qr_then_the_product_of_reflectors_is_orthonormal_q() -> None:
    (q,) = run(parse(QR), A)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    r = q.T @ A
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-5)  # Q^T A is upper triangular


def test_a_tuple_typed_result_takes_the_targets_results_as_its_elements() -> None:
    packed, tau = run(parse(QR_TUPLE), A)
    flat = run(parse(QR.replace("%1 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>\n  return %1", "return %0#0")), A)
    np.testing.assert_array_equal(packed, flat[0])
    assert tau.shape == (3,)


def test_a_tuple_of_the_wrong_arity_is_a_clear_error() -> None:
    text = QR_TUPLE.replace("tuple<tensor<3x3xf32>, tensor<3xf32>>", "tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>")
    with pytest.raises(InterpreterError, match="returned 2 values, the op has a tuple result of 3 elements"):
        run(parse(text), A)


def test_lu_decomposition_pivots_and_permutation() -> None:
    text = """
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0:3 = stablehlo.custom_call @LuDecomposition(%a) {api_version = 2 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>)
  return %0#0, %0#1, %0#2 : tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>
}
"""
    b = A[[2, 0, 1]]
    lu, pivots, perm = run(parse(text), b)
    l_ = np.tril(lu, -1) + np.eye(3)
    u = np.triu(lu)
    np.testing.assert_allclose(l_ @ u, b[perm], rtol=1e-5)
    assert sorted(perm.tolist()) == [0, 1, 2] and pivots.min() >= 0


@pytest.mark.parametrize("config", ['"1,1,100,1e-6"', '"0,0,15,0.000010"'])
def test_eigh_reads_jaxs_config(config: str) -> None:
    text = f"""
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>) {{
  %0:2 = stablehlo.custom_call @Eigh(%a) {{backend_config = {config}}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<3xf32>
}}
"""
    v, w = run(parse(text), A)
    np.testing.assert_allclose(A @ v, v * w, atol=1e-4)
    with pytest.raises(InterpreterError, match="is not JAX's"):
        run(parse(text.replace(config, '"lower"')), A)
