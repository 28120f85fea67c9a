"""Control flow built with the builder: while, if, case, several functions and call, composite,
optimization_barrier."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, call, constant, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

I32 = tensor((), "i32")


def test_while_sum_of_first_n() -> None:
    m = Module()

    @m.func(I32)
    def main(n):
        def cond(i, acc):
            return hlo.compare(i, n, "LT")

        def body(i, acc):
            return hlo.add(i, 1), hlo.add(acc, i)

        _, total = hlo.while_([constant(0), constant(0)], cond=cond, body=body)
        return total

    check_program(m, [np.int32(10)], [np.int32(45)])


def test_if_and_case() -> None:
    m = Module()

    @m.func(tensor((3,), "f32"), I32)
    def main(x, k):
        pos = hlo.compare(hlo.reduce(x, 0.0, dimensions=[0], body=hlo.add), 0.0, "GT")
        y = hlo.if_(
            pos, true_branch=lambda: hlo.multiply(x, 2.0), false_branch=lambda: hlo.negate(x)
        )
        z = hlo.case(
            k,
            branches=[lambda: hlo.add(x, 1.0), lambda: hlo.add(x, 2.0), lambda: hlo.add(x, 3.0)],
        )
        return y, z

    x = np.array([1, -2, 3], np.float32)
    check_program(m, [x, np.int32(1)], [x * 2, x + 2])
    check_program(m, [-x, np.int32(7)], [x, -x + 3])  # an index out of range takes the last branch


def test_functions_call_and_attributes() -> None:
    m = Module(
        "jit_g", attributes={"mhlo.num_partitions": np.int32(1), "mhlo.num_replicas": np.int32(1)}
    )

    @m.func(tensor((2,), "f32"), visibility="private")
    def square(v):
        return hlo.multiply(v, v)

    @m.func(
        tensor((2,), "f32"),
        visibility="public",
        arg_attrs=[{"mhlo.sharding": "{replicated}"}],
        res_attrs=[{"jax.result_info": "result"}, None],
    )
    def main(x):
        return call(square, x), square(hlo.add(x, 1.0))  # a Function is callable too

    x = np.array([1.5, -2], np.float32)
    text = check_program(m, [x], [x * x, (x + 1) * (x + 1)])
    assert text.startswith(
        "module @jit_g attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {"
    )
    assert (
        'func.func public @main(%arg0: tensor<2xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<2xf32> {jax.result_info = "result"}, tensor<2xf32>)'
        in text
    )
    assert "func.func private @square" in text
    assert "%0 = call @square(%arg0) : (tensor<2xf32>) -> tensor<2xf32>" in text


def test_composite_with_decomposition_callable() -> None:
    m = Module()

    @m.func(tensor((4,), "f32"))
    def main(x):
        return hlo.composite(
            [x],
            name="my.softplus",
            composite_attributes={"beta": np.float32(1.0)},
            decomposition=lambda v: hlo.log_plus_one(hlo.exponential(v)),
        )

    x = np.array([-1, 0, 1, 2], np.float32)
    text = check_program(m, [x], [np.log1p(np.exp(x)).astype(np.float32)], rtol=1e-6)
    assert (
        'stablehlo.composite "my.softplus" %arg0 {composite_attributes = {beta = 1.000000e+00 : f32}, decomposition = @my.softplus}'
        in text
    )
    assert "func.func private @my.softplus(" in text


def test_optimization_barrier_and_tuples() -> None:
    m = Module()

    @m.func(tensor((2,), "f32"), I32)
    def main(x, i):
        a, b = hlo.optimization_barrier([x, i])
        t = hlo.tuple([a, b])
        return hlo.get_tuple_element(t, index=0), hlo.get_tuple_element(t, index=1)

    x = np.array([1, 2], np.float32)
    check_program(m, [x, np.int32(3)], [x, np.int32(3)])
