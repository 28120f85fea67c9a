"""A dense layer over a batch of any size, built with stablehlo_py.builder: the argument is
``tensor<?x4xf32>``, so every broadcast to the batch's shape is a ``dynamic_broadcast_in_dim`` whose
shape operand is computed from ``get_dimension_size``.

    python examples/dynamic_batch.py

Returns ``relu(x @ w + b)``, its rows' sums, the row numbers (``dynamic_iota``) and the batch size.
One module runs on batches of every size in the interpreter and on IREE; XLA needs static shapes, so
``tests/oracle/consumers.py`` refines the module for the arguments' shapes first
(``stablehlo-refine-polymorphic-shapes``, as JAX has XLA do for a shape-polymorphic export).
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo

IN, OUT = 4, 3


def batch_shape(x, *trailing: int):  # type: ignore[no-untyped-def]
    """The shape tensor ``[x's dimension 0, *trailing]`` (``tensor<Nxi32>``)."""
    n = hlo.reshape(hlo.get_dimension_size(x, dimension=0), result_type=tensor((1,), "i32"))
    if not trailing:
        return n
    return hlo.concatenate([n, constant(np.array(trailing, np.int32))], dimension=0)


def build() -> Module:
    m = Module("dynamic_batch")

    @m.func(tensor((None, IN), "f32"), tensor((IN, OUT), "f32"), tensor((OUT,), "f32"), name="main")
    def dense(x, w, b):
        y = hlo.dot_general(
            x, w, {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
        )
        shape = batch_shape(x, OUT)
        y = hlo.add(
            y, hlo.dynamic_broadcast_in_dim(b, shape, broadcast_dimensions=[1], result_type=y.type)
        )
        # issue 26: a Python number does not broadcast against a dynamic shape yet (hlo.maximum(y,
        # 0.0) is refused): the 0-d constant is broadcast to y's shape by hand.
        zero = hlo.dynamic_broadcast_in_dim(
            constant(np.float32(0)), shape, broadcast_dimensions=[], result_type=y.type
        )
        h = hlo.maximum(y, zero)
        sums = hlo.reduce(h, 0.0, dimensions=[1], body=hlo.add)  # tensor<?xf32>
        rows = hlo.dynamic_iota(
            batch_shape(x), iota_dimension=0, result_type=tensor((None,), "i32")
        )
        return h, sums, rows, hlo.get_dimension_size(x, dimension=0)

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, IN)).astype(np.float32)
    w = rng.standard_normal((IN, OUT)).astype(np.float32)
    b = rng.standard_normal(OUT).astype(np.float32)
    return x, w, b


def numpy_dense(x, w, b):  # type: ignore[no-untyped-def]
    h = np.maximum(x @ w + b, 0)
    return h, h.sum(1), np.arange(len(x), dtype=np.int32), np.int32(len(x))


if __name__ == "__main__":
    m = build().verify()
    print(m)
    x, w, b = inputs()
    for batch in (1, 3, 5):  # one module for batches of every size
        for got, want in zip(m.run(x[:batch], w, b), numpy_dense(x[:batch], w, b)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
