"""A whole array reduced to one value (`reduction._one_lane`: a float/complex add or a float
multiply folded as one accumulate over `[init, *x]`) gives the general path's bits: the
semantics' `reduce` with the kind's body, over NaN, -0.0, inf, every float width and the kinds
and element types the path leaves to `folds.prepare_kind_reduce`."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.impls import reduction
from stablehlo_py.semantics import folds
from stablehlo_py.semantics import reduction as red
from stablehlo_py.semantics.regions import KIND_BODIES

from stablehlo_py.ir import parse

TYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "complex<f32>": np.dtype(np.complex64),
    "i32": np.dtype(np.int32),
    "i8": np.dtype(np.int8),
}
OPS = {"add": "stablehlo.add", "mul": "stablehlo.multiply", "max": "stablehlo.maximum",
       "min": "stablehlo.minimum"}
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 3.0, 1.0 / 3.0, -2.5]


def _program(kind: str, t: str, shape: tuple[int, ...]) -> str:
    dims = ", ".join(str(i) for i in range(len(shape)))
    tensor = f"tensor<{'x'.join(map(str, shape))}x{t}>"
    return f"""func.func @main(%x: {tensor}, %i: tensor<{t}>) -> tensor<{t}> {{
  %r = stablehlo.reduce(%x init: %i) applies {OPS[kind]} across dimensions = [{dims}]
    : ({tensor}, tensor<{t}>) -> tensor<{t}>
  return %r : tensor<{t}>
}}"""


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(sorted(OPS)))
    t = draw(st.sampled_from(sorted(TYPES)))
    if t == "complex<f32>" and kind != "add":
        t = "f32"
    shape = draw(st.sampled_from([(1,), (5,), (16,), (40,), (2, 3), (3, 2, 2)]))
    n = int(np.prod(shape))
    d = TYPES[t]
    if d.kind in "iu":
        values = draw(st.lists(st.integers(-100, 100), min_size=n + 1, max_size=n + 1))
    else:
        values = draw(st.lists(st.one_of(st.sampled_from(SPECIAL),
                                         st.floats(-1e4, 1e4, width=16)),
                               min_size=n + 1, max_size=n + 1))
    with np.errstate(all="ignore"):  # 1e30 is inf in f16/bf16
        real = np.array(values, dtype=np.float64 if d.kind != "i" else np.int64)
        if t == "complex<f32>":
            real = real + 1j * real[::-1]
        x, init = real[1:].astype(d), real[0].astype(d)
    return kind, t, x.reshape(shape), np.asarray(init)


@settings(max_examples=300, deadline=None)
@given(cases())
def test_one_value_reduced_gives_the_general_bits(case) -> None:
    kind, t, x, init = case
    want = red.reduce([x], [init], list(range(x.ndim)), KIND_BODIES[kind])[0]
    want = np.asarray(want).astype(x.dtype)
    ev = Evaluator(parse(_program(kind, t, x.shape)))
    for _ in range(2):
        (got,) = ev.call("main", [x, init])
        assert got.dtype == want.dtype and got.shape == ()
        assert got.tobytes() == want.tobytes(), (kind, t, x, init, got, want)


@pytest.mark.parametrize("t", ["f16", "f32", "f64", "complex<f32>"])
def test_the_path_is_taken_for_float_adds(t: str) -> None:
    d = TYPES[t]
    fn = folds.prepare_kind_reduce("add", d, 16)
    one = reduction._one_lane("add", d, (16,), fn, None)
    assert one is not None
    x = (np.arange(16) * 0.37 - 2.0).astype(d)
    init = np.array(-0.0).astype(d)
    assert one((), x, init)[0].tobytes() == fn(x.reshape(1, 16), init).reshape(()).tobytes()
    x[3] = np.nan  # the NaN goes through fn
    assert one((), x, init)[0].tobytes() == fn(x.reshape(1, 16), init).reshape(()).tobytes()


@pytest.mark.parametrize(("kind", "t"), [("max", "f32"), ("min", "f32"), ("add", "i32"),
                                          ("add", "bf16"), ("add", "f32")])
def test_other_kinds_keep_their_path(kind: str, t: str) -> None:
    d = TYPES[t]
    n = 16 if kind != "add" or t != "f32" else 64  # past the fold limit: ufunc.reduce
    fn = folds.prepare_kind_reduce(kind, d, n)
    assert fn is None or reduction._one_lane(kind, d, (n,), fn, None) is None
