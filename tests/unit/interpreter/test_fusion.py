"""Chains of elementwise ops run as one step (interpreter/fusion.py) give the bits the ops give one
by one: random chains over every kind of element type (bf16, f16, f32, f64, i8, ui32, i1,
complex64) with NaNs of both signs, infinities and signed zeros among the inputs, run fused and
unfused (`compiled.FUSE = False`) in both tiers (the plan of a block's first calls, which fuses
chains of large tensors only, and generated code, which fuses every chain); and an op failing
inside a chain is reported at its own location in both tiers."""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.interpreter import compiled, compiled_plan
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.fusion import FusedOps

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

N = 6


@pytest.fixture(autouse=True, scope="module")
def _tiers():
    """The first call of a block runs its plan, the second generated code; the plan fuses chains
    of tensors of 4 elements and more (the tensors here), as it does large ones."""
    saved = compiled_plan.GENERATE_AFTER_CALLS, compiled.PLAN_FUSE_MIN_ELEMENTS
    compiled_plan.GENERATE_AFTER_CALLS, compiled.PLAN_FUSE_MIN_ELEMENTS = 1, 4
    yield
    compiled_plan.GENERATE_AFTER_CALLS, compiled.PLAN_FUSE_MIN_ELEMENTS = saved
DTYPES = {
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i8": np.dtype(np.int8),
    "ui32": np.dtype(np.uint32),
    "i1": np.dtype(np.bool_),
    "complex<f32>": np.dtype(np.complex64),
}
FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"]
FLOAT_UNARY = ["negate", "abs", "exponential", "tanh", "sqrt", "log", "logistic", "floor"]
OPS = {
    "float": (FLOAT_BINARY, FLOAT_UNARY),
    "int": (["add", "subtract", "multiply", "maximum", "minimum", "and", "or", "xor"],
            ["not", "negate", "abs"]),
    "i1": (["and", "or", "xor", "add", "multiply", "maximum", "minimum"], ["not"]),
    "complex": (["add", "subtract", "multiply", "divide"], ["negate", "exponential", "sqrt"]),
}
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -7e-3]


def _family(t: str) -> str:
    d = DTYPES[t]
    return {"f": "float", "V": "float", "i": "int", "u": "int", "b": "i1", "c": "complex"}[d.kind]


def _values(draw: Any, t: str, shape: tuple[int, ...]) -> np.ndarray:
    d, size = DTYPES[t], int(np.prod(shape))
    fam = _family(t)
    if fam == "i1":
        bools = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        return np.array(bools, d).reshape(shape)
    if fam == "int":
        info = np.iinfo(d)
        ints = st.integers(int(info.min), int(info.max))
        return np.array(draw(st.lists(ints, min_size=size, max_size=size)), d).reshape(shape)
    vals = st.sampled_from(SPECIALS)
    re = np.array(draw(st.lists(vals, min_size=size, max_size=size)), np.float64)
    if fam == "complex":
        im = np.array(draw(st.lists(vals, min_size=size, max_size=size)), np.float32)
        z = np.empty(size, d)
        z.real, z.imag = re.astype(np.float32), im
        return z.reshape(shape)
    with np.errstate(over="ignore"):
        return re.astype(d).reshape(shape)


@st.composite
def chains(draw: Any) -> tuple[str, list[np.ndarray]]:
    t = draw(st.sampled_from(sorted(DTYPES)))
    fam = _family(t)
    binary, unary = OPS[fam]
    tt = f"tensor<{N}x{t}>"
    lines = ["  %b0 = stablehlo.broadcast_in_dim %s, dims = [] : "
             f"(tensor<{t}>) -> {tt}",
             "  %b1 = stablehlo.broadcast_in_dim %r, dims = [0] : "
             f"(tensor<1x{t}>) -> {tt}"]
    names = ["%x0", "%x1", "%x2", "%b0", "%b1"]
    for k in range(draw(st.integers(1, 7))):
        r = f"%v{k}"
        kind = draw(st.sampled_from(["binary", "unary", "select"] if fam == "float" else
                                    ["binary", "unary"]))
        if kind == "binary":
            op = draw(st.sampled_from(binary))
            a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            lines.append(f"  {r} = stablehlo.{op} {a}, {b} : {tt}")
        elif kind == "unary":
            op = draw(st.sampled_from(unary))
            lines.append(f"  {r} = stablehlo.{op} {draw(st.sampled_from(names))} : {tt}")
        else:  # a comparison (NaN does not propagate through it) choosing between two values
            a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            cmp = f"stablehlo.compare GT, {a}, {b} : ({tt}, {tt}) -> tensor<{N}xi1>"
            lines.append(f"  %p{k} = {cmp}")
            lines.append(f'  {r} = "stablehlo.select"(%p{k}, {a}, {b}) : '
                         f"(tensor<{N}xi1>, {tt}, {tt}) -> {tt}")
        names.append(r)
    escaping = draw(st.sampled_from(names))  # a value also read after the chain
    results = [names[-1], escaping]
    text = (
        f"func.func @main(%x0: {tt}, %x1: {tt}, %x2: {tt}, %s: tensor<{t}>, %r: tensor<1x{t}>)"
        f" -> ({tt}, {tt}) {{\n"
        + "\n".join(lines)
        + f"\n  return {', '.join(results)} : {tt}, {tt}\n}}"
    )
    args = [_values(draw, t, (N,)) for _ in range(3)]
    args += [_values(draw, t, ()), _values(draw, t, (1,))]
    return text, args


def _bits(x: np.ndarray) -> tuple[str, tuple[int, ...], list[int]]:
    x = np.asarray(x)
    return str(x.dtype), x.shape, x.view(f"u{x.dtype.itemsize}").ravel().tolist()


def _run_twice(text: str, args: list[np.ndarray]) -> list[list[Any]]:
    ev = Evaluator(parse(text))
    with np.errstate(all="ignore"):
        return [[_bits(r) for r in ev.call("main", list(args))] for _ in range(2)]


@settings(max_examples=300, deadline=None)
@given(chains())
def test_fused_chains_give_the_bits_of_the_ops_one_by_one(case: tuple[str, list[Any]]) -> None:
    text, args = case
    fused = _run_twice(text, args)
    old, compiled.FUSE = compiled.FUSE, False
    try:
        unfused = _run_twice(text, args)
    finally:
        compiled.FUSE = old
    assert fused[0] == unfused[0], text  # the plan of steps (first call)
    assert fused[1] == unfused[1], text  # generated code (later calls)


CHAIN = """func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.multiply %x, %b : tensor<4xf32>
  %t = stablehlo.tanh %m : tensor<4xf32>
  %a = stablehlo.add %t, %y : tensor<4xf32>
  return %a : tensor<4xf32>
}"""


def test_a_chain_is_one_step_reading_the_broadcast_scalar() -> None:
    func = next(op for op in parse(CHAIN).walk() if op.name == "func.func")
    block = func.body.blocks.first
    assert len(compiled.block_steps(block, fuse=False)[0]) == 6
    assert len(compiled.block_steps(block)[0]) == 3  # the plan: 4 elements, fused here
    old, compiled.PLAN_FUSE_MIN_ELEMENTS = compiled.PLAN_FUSE_MIN_ELEMENTS, 5
    try:
        assert len(compiled.block_steps(block)[0]) == 6  # a smaller chain than the plan fuses
    finally:
        compiled.PLAN_FUSE_MIN_ELEMENTS = old
    steps, missing = compiled.block_steps(func.body.blocks.first, fuse=True)
    assert missing is None
    names = [op.name for op, _ in steps]
    fused = "fused(stablehlo.multiply, stablehlo.tanh, stablehlo.add)"
    assert names == ["stablehlo.constant", fused, "func.return"]
    group = steps[1][0]
    assert isinstance(group, FusedOps)
    block = func.body.blocks.first
    x, y = block.args
    assert list(group.operands) == [steps[0][0].results[0], x, y]  # the 0-d %c, %x, %y
    x = np.array([1.0, -0.0, np.inf, np.nan], np.float32)
    y = np.array([0.5, -0.0, -np.inf, 1.0], np.float32)
    (want,) = _unfused(CHAIN, x, y)
    for _ in range(2):
        (got,) = Evaluator(parse(CHAIN)).call("main", [x, y])
        assert _bits(got) == _bits(want)


def _unfused(text: str, *args: np.ndarray) -> list[np.ndarray]:
    old = compiled.FUSE
    compiled.FUSE = False
    try:
        return Evaluator(parse(text)).call("main", list(args))
    finally:
        compiled.FUSE = old


def test_an_op_failing_inside_a_chain_is_located_at_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    real_step_for = compiled.step_for

    def failing_tanh(op: Any) -> Any:
        step = real_step_for(op)
        if op.name != "stablehlo.tanh":
            return step

        def boom(*args: Any) -> Any:
            raise ValueError("tanh went wrong")

        return dataclasses.replace(step, fn=boom)

    monkeypatch.setattr(compiled, "step_for", failing_tanh)
    ev = Evaluator(parse(CHAIN))
    for _ in range(2):  # the plan, then generated code
        with pytest.raises(InterpreterError) as info:
            ev.call("main", [np.ones(4, np.float32), np.ones(4, np.float32)])
        assert info.value.location == "-:5:8"
        assert info.value.message == "'stablehlo.tanh' failed: ValueError: tanh went wrong"


def test_a_traced_run_reports_every_op_of_a_chain() -> None:
    from stablehlo_py.interpreter import run
    from stablehlo_py.trace import Trace

    trace = Trace(1)
    run(parse(CHAIN), np.ones(4, np.float32), np.ones(4, np.float32), trace=trace)
    ops = [e.op for e in trace.entries]
    assert ops == ["stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.multiply",
                   "stablehlo.tanh", "stablehlo.add"]


def _pairs(t: str, nan: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every special value against every other (-0 against +0, inf against inf...); with `nan`
    NaNs too (a NaN anywhere in a result sends the whole chain down the unfused path)."""
    v = np.array([x for x in SPECIALS if nan or x == x], np.float64).astype(DTYPES[t])
    n = len(v)
    return np.repeat(v, n), np.tile(v, n)


@pytest.mark.parametrize("t", ["f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("op", FLOAT_BINARY)
@pytest.mark.parametrize("after", ["negate", "compare"])
@pytest.mark.parametrize("nan", [True, False])
def test_every_special_pair_through_a_fused_op(t: str, op: str, after: str, nan: bool) -> None:
    """x86's -NaN of an invalid operation and numpy's zero of a (+0, -0) max/min must not leak
    out of a chain, whether the next op propagates NaN (negate) or not (compare)."""
    x, y = _pairs(t, nan)
    tt = f"tensor<{len(x)}x{t}>"
    if after == "negate":
        tail = f"  %n = stablehlo.negate %r : {tt}\n  return %n : {tt}"
    else:
        tail = (f"  %p = stablehlo.compare EQ, %r, %r : ({tt}, {tt}) -> tensor<{len(x)}xi1>\n"
                f'  %n = "stablehlo.select"(%p, %x, %r) : '
                f"(tensor<{len(x)}xi1>, {tt}, {tt}) -> {tt}\n"
                f"  %s = stablehlo.subtract %n, %r : {tt}\n"
                f"  return %s : {tt}")
    text = (f"func.func @main(%x: {tt}, %y: {tt}) -> {tt} {{\n"
            f"  %r = stablehlo.{op} %x, %y : {tt}\n{tail}\n}}")
    fused = _run_twice(text, [x, y])
    old, compiled.FUSE = compiled.FUSE, False
    try:
        unfused = _run_twice(text, [x, y])
    finally:
        compiled.FUSE = old
    assert fused == unfused


def test_ordinary_values_take_the_fused_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unfused steps of the bare-ufunc ops (multiply, add; maximum) are not called on finite
    values without a zero of the wrong sign: the chain's own function computes them."""
    real_step_for = compiled.step_for
    called: list[str] = []

    def counting(op: Any) -> Any:
        step = real_step_for(op)
        if op.name not in ("stablehlo.multiply", "stablehlo.add", "stablehlo.maximum"):
            return step
        fn = step.fn

        def count(*args: Any) -> Any:
            called.append(op.name)
            return fn(*args)

        return dataclasses.replace(step, fn=count)

    monkeypatch.setattr(compiled, "step_for", counting)
    relu = CHAIN.replace("stablehlo.add %t, %y", "stablehlo.maximum %t, %y")
    x = np.array([1.0, -0.5, 3.0, 0.25], np.float32)
    for text in (CHAIN, relu):
        ev = Evaluator(parse(text))
        for _ in range(2):  # the plan, then generated code
            ev.call("main", [x, np.zeros(4, np.float32)])
    assert called == []
    ev = Evaluator(parse(CHAIN))
    ev.call("main", [np.array([np.nan, 1.0, 2.0, 3.0], np.float32), x])  # a NaN: one by one
    assert called == ["stablehlo.multiply", "stablehlo.add"]


ROWS = """func.func @main(%x: tensor<4x3xf32>, %m: tensor<4x1xf32>) -> tensor<4x3xf32> {
  %b = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
  %d = stablehlo.subtract %x, %b : tensor<4x3xf32>
  %e = stablehlo.exponential %d : tensor<4x3xf32>
  return %e : tensor<4x3xf32>
}"""


def test_a_row_broadcast_is_read_by_numpy_broadcasting() -> None:
    """softmax's `x - max` over rows: the 4x1 maximum is not broadcast to 4x3 first."""
    func = next(op for op in parse(ROWS).walk() if op.name == "func.func")
    steps, _ = compiled.block_steps(func.body.blocks.first, fuse=True)
    assert [op.name for op, _ in steps] == [
        "fused(stablehlo.subtract, stablehlo.exponential)", "func.return"]
    assert list(steps[0][0].operands) == list(func.body.blocks.first.args)[::-1]
    x = np.array([[1.0, np.inf, -0.0], [2.0, 3.0, np.nan], [0.5, -1.0, 4.0], [7.0, 8.0, 9.0]],
                 np.float32)
    m = np.array([[np.inf], [3.0], [-0.0], [9.0]], np.float32)
    (want,) = _unfused(ROWS, x, m)
    ev = Evaluator(parse(ROWS))
    for _ in range(2):
        assert _bits(ev.call("main", [x, m])[0]) == _bits(want)
