"""Sorting built with stablehlo_py.builder: a stable sort of records by key (descending), carrying a
payload along, with a comparator written as a Python function; then the top-3 per row with chlo.top_k.

    python examples/sort.py
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo


def build() -> Module:
    m = Module()

    @m.func(tensor((8,), "f32"), tensor((8,), "i32"), tensor((2, 5), "f32"))
    def main(keys, payload, scores):
        def descending(k1, k2, p1, p2):
            return hlo.compare(k1, k2, "GT", compare_type="TOTALORDER")

        sorted_keys, sorted_payload = hlo.sort(
            [keys, payload], dimension=0, is_stable=True, comparator=descending
        )
        top_values, top_indices = chlo.top_k(scores, k=3)
        return sorted_keys, sorted_payload, top_values, top_indices

    return m


def main() -> None:
    m = build()
    m.verify()
    print(m)
    keys = np.array([0.5, 2.0, -1.0, 2.0, 0.0, 3.5, 0.5, -2.0], np.float32)
    payload = np.arange(8, dtype=np.int32)
    scores = np.array([[0.1, 0.9, 0.3, 0.7, 0.5], [5, 4, 3, 2, 1]], np.float32)
    k, p, tv, ti = m.run(keys, payload, scores)
    print("keys   ", k)
    print("payload", p)
    print("top-3  ", tv.tolist(), ti.tolist())
    order = np.argsort(-keys, kind="stable")
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(p, payload[order])
    np.testing.assert_array_equal(ti, np.argsort(-scores, axis=1, kind="stable")[:, :3])


if __name__ == "__main__":
    main()
