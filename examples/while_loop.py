"""A while loop built with stablehlo_py.builder: Newton's iteration for the square root, run until
the update is below a tolerance (or 50 iterations), on a whole vector at once.

    python examples/while_loop.py
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo

N = 5


def build() -> Module:
    m = Module()

    @m.func(tensor((N,), "f32"))
    def main(a):
        def cond(i, x, delta):
            more = hlo.compare(i, 50, "LT")
            big = hlo.compare(delta, 1e-6, "GT")
            return hlo.and_(more, big)

        def body(i, x, delta):
            new_x = hlo.multiply(hlo.add(x, hlo.divide(a, x)), 0.5)
            change = hlo.reduce(
                hlo.abs(hlo.subtract(new_x, x)), 0.0, dimensions=[0], body=hlo.maximum
            )
            return hlo.add(i, 1), new_x, change

        start = hlo.add(a, 1.0)  # any positive start converges
        iterations, root, _ = hlo.while_(
            [constant(0), start, constant(np.float32(np.inf))], cond=cond, body=body
        )
        return root, iterations

    return m


def main() -> None:
    m = build()
    m.verify()
    print(m)
    a = np.array([2.0, 9.0, 0.25, 100.0, 1e-2], np.float32)
    root, iterations = m.run(a)
    print("sqrt", a, "=", root, f"after {int(iterations)} iterations")
    np.testing.assert_allclose(root, np.sqrt(a), rtol=1e-6)


if __name__ == "__main__":
    main()
