"""dynamic_update_slice on a vector (impls/data_movement.py `run_1d`, a scan's output buffer)
gives the general semantics' result: start indices below 0, past the end and of every integer
type (unsigned beyond int64's range clamp to the end), updates of any length up to the vector's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.semantics import data_movement as dm

from stablehlo_py.ir import parse

INDEX_TYPES = {"i8": np.int8, "i32": np.int32, "i64": np.int64, "ui32": np.uint32,
               "ui64": np.uint64}


@st.composite
def cases(draw):
    n = draw(st.integers(1, 9))
    k = draw(st.integers(1, n))
    it = draw(st.sampled_from(sorted(INDEX_TYPES)))
    info = np.iinfo(INDEX_TYPES[it])
    start = draw(st.one_of(st.integers(-3, n + 3), st.sampled_from([int(info.min), int(info.max)])))
    start = min(max(start, int(info.min)), int(info.max))
    return n, k, it, start


@settings(max_examples=200, deadline=None)
@given(cases())
def test_vector_update_gives_the_general_result(case) -> None:
    n, k, it, start = case
    text = f"""func.func @main(%a: tensor<{n}xf32>, %u: tensor<{k}xf32>, %i: tensor<{it}>)
    -> tensor<{n}xf32> {{
  %r = stablehlo.dynamic_update_slice %a, %u, %i
    : (tensor<{n}xf32>, tensor<{k}xf32>, tensor<{it}>) -> tensor<{n}xf32>
  return %r : tensor<{n}xf32>
}}"""
    a = np.arange(n, dtype=np.float32)
    u = -np.arange(1, k + 1, dtype=np.float32)
    i = np.array(start, INDEX_TYPES[it])
    ev = Evaluator(parse(text))
    want = dm.dynamic_update_slice(a, u, [i])
    for _ in range(2):
        (got,) = ev.call("main", [a, u, i])
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
    assert a.tolist() == list(range(n))  # the operand itself is not written
