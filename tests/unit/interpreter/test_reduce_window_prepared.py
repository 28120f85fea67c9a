"""The prepared reduce_window (impls/reduction.py `_prepared_reduce_window`, static shapes, no
padding) gives the bits of the general `semantics.reduction.reduce_window`: random windows,
strides and dilations over values holding signed zeros (both signs in one window, where numpy's
max/min picks either zero), NaNs of both signs and infinities."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.semantics import reduction as red
from stablehlo_py.semantics.regions import KIND_BODIES

from stablehlo_py.ir import parse

TYPES = {
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f64": np.dtype(np.float64),
    "i32": np.dtype(np.int32),
    "ui8": np.dtype(np.uint8),
    "i1": np.dtype(np.bool_),
}
OPS = {"max": "maximum", "min": "minimum", "add": "add", "mul": "multiply", "and": "and",
       "or": "or"}
FLOAT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, -2.25]


def _program(t: str, shape, out_shape, wd, ws, wdil, op: str) -> str:
    def tt(s):
        return "tensor<" + "".join(f"{n}x" for n in s) + t + ">"

    def arr(v):
        return "array<i64: " + ", ".join(map(str, v)) + ">"

    return f"""func.func @main(%a: {tt(shape)}, %i: tensor<{t}>) -> {tt(out_shape)} {{
  %r = "stablehlo.reduce_window"(%a, %i) <{{window_dimensions = {arr(wd)},
      window_strides = {arr(ws)}, window_dilations = {arr(wdil)}}}> ({{
    ^bb0(%x: tensor<{t}>, %y: tensor<{t}>):
      %z = stablehlo.{op} %x, %y : tensor<{t}>
      stablehlo.return %z : tensor<{t}>
    }}) : ({tt(shape)}, tensor<{t}>) -> {tt(out_shape)}
  return %r : {tt(out_shape)}
}}"""


@st.composite
def cases(draw):
    t = draw(st.sampled_from(sorted(TYPES)))
    kinds = ["and", "or", "max", "min"] if t == "i1" else ["max", "min", "add", "mul"]
    kind = draw(st.sampled_from(kinds))
    rank = draw(st.integers(1, 3))
    shape, wd, ws, wdil, out = [], [], [], [], []
    for _ in range(rank):
        n = draw(st.integers(1, 6))
        dl = draw(st.integers(1, 2))
        w = draw(st.integers(1, max(1, (n - 1) // dl + 1)))
        s = draw(st.integers(1, 3))
        shape.append(n), wd.append(w), ws.append(s), wdil.append(dl)
        out.append((n - (w - 1) * dl - 1) // s + 1)
    d = TYPES[t]
    size = int(np.prod(shape))
    if d.kind == "b":
        x = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), d)
        init = np.array(draw(st.booleans()), d)
    elif d.kind in "iu":
        info = np.iinfo(d)
        ints = st.integers(int(info.min), int(info.max))
        x = np.array(draw(st.lists(ints, min_size=size, max_size=size)), d)
        init = np.array(draw(ints), d)
    else:
        vals = st.sampled_from(FLOAT_SPECIALS)
        x = np.array(draw(st.lists(vals, min_size=size, max_size=size)), np.float64).astype(d)
        init = np.array(draw(vals), np.float64).astype(d)
    return t, kind, x.reshape(shape), init, wd, ws, wdil, out


@settings(max_examples=150, deadline=None)
@given(cases())
def test_prepared_reduce_window_gives_the_general_bits(case) -> None:
    t, kind, x, init, wd, ws, wdil, out = case
    ev = Evaluator(parse(_program(t, x.shape, out, wd, ws, wdil, OPS[kind])))
    (got,) = ev.call("main", [x, init])
    with np.errstate(all="ignore"):
        (want,) = red.reduce_window(
            [x], [init], window_dimensions=wd, window_strides=ws, window_dilations=wdil,
            body=KIND_BODIES[kind],
        )
    assert got.dtype == want.dtype and got.shape == want.shape
    u = f"u{got.dtype.itemsize}" if got.dtype.kind != "b" else "u1"
    assert got.view(u).tolist() == np.asarray(want).view(u).tolist()


@pytest.mark.parametrize("kind", ["max", "min"])
def test_both_zero_signs_in_a_window_take_the_ieee_zero(kind) -> None:
    x = np.array([[0.0, -0.0], [-0.0, 0.0]], np.float32)
    init = np.array(-np.inf if kind == "max" else np.inf, np.float32)
    ev = Evaluator(parse(_program("f32", (2, 2), (1, 1), [2, 2], [1, 1], [1, 1], OPS[kind])))
    (got,) = ev.call("main", [x, init])
    assert bool(np.signbit(got[0, 0])) == (kind == "min")
