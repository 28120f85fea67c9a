"""CHLO ops built with the builder (their own inference rules), run by the interpreter."""

from __future__ import annotations

import math

import numpy as np

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program


def check_legalized_artifact(
    m: Module, args: list, expected: list, rtol: float, atol: float
) -> None:  # type: ignore[type-arg]
    """Portable artifacts hold StableHLO only (as upstream's): the module, legalized with
    chlo-legalize-to-stablehlo, round-trips through an artifact at its minimum version and still
    computes ``expected``."""
    from stablehlo_py.interpreter import run
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py import minimum_version
    from stablehlo_py.api import deserialize_portable_artifact, serialize_portable_artifact
    from stablehlo_py.ir import print_ir

    legal = run_pipeline(m.op.clone(), [("chlo-legalize-to-stablehlo", {})])
    assert "chlo." not in print_ir(legal)
    back = deserialize_portable_artifact(
        serialize_portable_artifact(legal, minimum_version(legal).version)
    )
    assert print_ir(back) == print_ir(legal)
    for g, e in zip(run(back, *args), expected):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def test_chlo_math_broadcasting_and_top_k() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((3,), "f32"))
    def main(x, row):
        e = chlo.erf(x)
        lg = chlo.lgamma(hlo.add(hlo.abs(x), 1.0))
        b = chlo.broadcast_add(x, row)  # numpy-style broadcasting: result type inferred as 2x3
        bd = chlo.broadcast_multiply(x, row, broadcast_dimensions=[1])
        values, indices = chlo.top_k(x, k=2)
        return e, lg, b, bd, values, indices, chlo.is_inf(x)

    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]], np.float32)
    row = np.array([1, 2, 3], np.float32)
    erf = np.vectorize(math.erf)(x).astype(np.float32)
    lg = np.vectorize(math.lgamma)(np.abs(x) + 1).astype(np.float32)
    order = np.argsort(-x, axis=1, kind="stable")[:, :2]
    expected = [
        erf,
        lg,
        x + row,
        x * row,
        np.take_along_axis(x, order, 1),
        order.astype(np.int32),
        np.isinf(x),
    ]
    text = check_program(m, [x, row], expected, rtol=1e-5, atol=1e-6, artifact=False)
    check_legalized_artifact(m, [x, row], expected, rtol=1e-5, atol=1e-6)
    assert (
        "chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"
        in text
    )


def test_chlo_scan_cumulative_sum() -> None:
    m = Module()

    @m.func(tensor((2, 3), "i32"), tensor((2,), "i32"))
    def main(x, init):
        def body(column, carry):  # a slice without the scanned dimension, then the carry
            total = hlo.add(column, carry)
            return total, total  # the output slice, then the new carry

        return chlo.scan([x], [init], dimension=1, body=body)  # result types and groups inferred

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    text = check_program(
        m,
        [x, np.zeros(2, np.int32)],
        [np.cumsum(x, axis=1, dtype=np.int32), x.sum(1, dtype=np.int32)],
        artifact=False,
    )
    assert "-> (tensor<2x3xi32>, tensor<2xi32>)" in text
    check_legalized_artifact(
        m,
        [x, np.zeros(2, np.int32)],
        [np.cumsum(x, axis=1, dtype=np.int32), x.sum(1, dtype=np.int32)],
        0,
        0,
    )


def test_chlo_constant_like_broadcast_compare_and_ragged_dot() -> None:
    m = Module()

    @m.func(
        tensor((4, 3), "f32"), tensor((2, 3, 5), "f32"), tensor((2,), "i64"), tensor((3,), "f32")
    )
    def main(a, b, groups, row):
        two = chlo.constant_like(a, value=2.5)
        gt = chlo.broadcast_compare(a, row, "GT", compare_type="FLOAT")
        rd = chlo.ragged_dot(
            a,
            b,
            groups,
            ragged_dot_dimension_numbers={
                "lhs_contracting_dimensions": [1],
                "rhs_contracting_dimensions": [1],
                "lhs_ragged_dimensions": [0],
                "rhs_group_dimensions": [0],
            },
            result_type=tensor((4, 5), "f32"),
        )
        return two, gt, rd

    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3, 5)).astype(np.float32)
    groups = np.array([1, 3], np.int64)
    row = np.zeros(3, np.float32)
    rd = np.concatenate([a[:1] @ b[0], a[1:] @ b[1]])
    check_program(
        m,
        [a, b, groups, row],
        [np.full((4, 3), 2.5, np.float32), a > row, rd],
        rtol=1e-5,
        atol=1e-6,
        artifact=False,
    )
    check_legalized_artifact(
        m, [a, b, groups, row], [np.full((4, 3), 2.5, np.float32), a > row, rd], 1e-5, 1e-6
    )
