"""Sorting and top-k, built with stablehlo_py.builder: a stable descending sort of scores that
carries record ids along (ties keep the ids' order), a lexicographic sort on two integer keys,
and the top 3 per row with ``chlo.top_k``.

    python examples/topk_sort.py

Exercises multi-operand ``sort`` with Python comparators (one of them a two-key comparison built
from ``compare``, ``and_``, ``or_``) and ``chlo.top_k``, which has no portable form:
``m.lower()`` turns it into StableHLO (a sort of the values with an iota) before
serializing.  The script checks
the interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo

ROWS, COLS, K = 3, 8, 3


def build() -> Module:
    m = Module("topk_sort")

    @m.func(
        tensor((ROWS, COLS), "f32"),
        tensor((ROWS, COLS), "i32"),
        tensor((COLS,), "i32"),
        tensor((COLS,), "i32"),
        tensor((ROWS, COLS), "f32"),
        name="main",
    )
    def sorts(scores, ids, major, minor, distinct):
        def descending(s1, s2, i1, i2):
            return hlo.compare(s1, s2, "GT", compare_type="TOTALORDER")

        by_score, ids_by_score = hlo.sort(
            [scores, ids], dimension=1, is_stable=True, comparator=descending
        )

        def lexicographic(a1, a2, b1, b2):
            less = hlo.compare(a1, a2, "LT")
            tie = hlo.and_(hlo.compare(a1, a2, "EQ"), hlo.compare(b1, b2, "LT"))
            return hlo.or_(less, tie)

        major_sorted, minor_sorted = hlo.sort(
            [major, minor], dimension=0, is_stable=False, comparator=lexicographic
        )
        top_values, top_indices = chlo.top_k(distinct, k=K)
        return by_score, ids_by_score, major_sorted, minor_sorted, top_values, top_indices

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(11)
    scores = rng.integers(0, 4, (ROWS, COLS)).astype(np.float32)  # many ties
    ids = np.arange(ROWS * COLS, dtype=np.int32).reshape(ROWS, COLS)
    major = rng.integers(0, 3, COLS).astype(np.int32)
    minor = rng.permutation(COLS).astype(np.int32)  # (major, minor) pairs are distinct
    distinct = rng.permutation(ROWS * COLS).reshape(ROWS, COLS).astype(np.float32)
    return scores, ids, major, minor, distinct


def numpy_sorts(scores, ids, major, minor, distinct):  # type: ignore[no-untyped-def]
    order = np.argsort(-scores, axis=1, kind="stable")
    lex = np.lexsort((minor, major))
    top = np.argsort(-distinct, axis=1, kind="stable")[:, :K]
    return (
        np.take_along_axis(scores, order, 1),
        np.take_along_axis(ids, order, 1),
        major[lex],
        minor[lex],
        np.take_along_axis(distinct, top, 1),
        top.astype(np.int32),
    )


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_sorts(*inputs())):
        np.testing.assert_array_equal(got, want)
