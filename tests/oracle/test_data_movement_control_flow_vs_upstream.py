"""Differential check of the data-movement and control-flow verifiers against upstream's: random
small programs (seeded, so every run sees the same ones) -- attribute and shape variations of pad,
slice, dynamic_slice, concatenate, broadcast_in_dim, reshape, iota and the dynamic ops with constant
shape operands; one- and two-field mutations of valid gather, dynamic_gather and scatter dimension
numbers; if, case and while with varied operand, block-argument, return and result types -- are
verified by jaxlib's MLIR (upstream's StableHLO, the `oracle` extra) and by us.  Both must accept
the same programs and, for a refused one, report the same first error (text, as upstream words it).

About a quarter of the programs are valid; the rest break one constraint or several (then the
order of upstream's checks decides the first error)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

pytest.importorskip("jaxlib")

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from tests.oracle.upstream_diagnostics import upstream_errors

CASES_PER_FAMILY = 250


def _ours(text: str) -> str | None:
    """Our first error for `text` (None when it parses and verifies)."""
    try:
        verify(parse(text, "chunk.mlir"))
    except StableHLOError as e:
        return e.message
    return None


# ------------------------------------------------------------------------------------ helpers
def _ts(shape: list, element: str = "f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _arr(xs: list[int]) -> str:
    return ("array<i64: " + ", ".join(map(str, xs)) + ">") if xs else "array<i64>"


def _lst(xs: list[int]) -> str:
    return "[" + ", ".join(map(str, xs)) + "]"


def _dense(xs: list[int]) -> str:
    return f"stablehlo.constant dense<{_lst(xs) if xs else ''}> : tensor<{len(xs)}xi64>"


def _func(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


# ----------------------------------------------------------------------------- data movement
def _data_movement(rnd: random.Random) -> str:
    def shape(rank: int) -> list:
        return ["?" if rnd.random() < 0.15 else rnd.randrange(0, 4) for _ in range(rank)]

    def ints(n: int, lo: int, hi: int) -> list[int]:
        return [rnd.randrange(lo, hi) for _ in range(n)]

    r = rnd.randrange(0, 4)
    s, e = shape(r), rnd.choice(["f32", "i32"])
    n = r if rnd.random() < 0.8 else rnd.randrange(0, 4)  # attribute sizes, usually the rank
    out = s if rnd.random() < 0.5 else shape(rnd.choice([r, r, rnd.randrange(0, 4)]))
    t, to = _ts(s, e), _ts(out, e)
    kind = rnd.randrange(9)
    if kind == 0:
        lo, hi, it = ints(n, -2, 3), ints(n, -2, 3), ints(n, -1, 3)
        op = (
            f'"stablehlo.pad"(%a, %p) {{edge_padding_low = {_arr(lo)}, edge_padding_high = '
            f"{_arr(hi)}, interior_padding = {_arr(it)}}} : ({t}, tensor<{e}>) -> {to}"
        )
        return _func(f"%a: {t}, %p: tensor<{e}>", f"  %0 = {op}")
    if kind == 1:
        st, li, sd = ints(n, -1, 4), ints(n, 0, 5), ints(n, 0, 3)
        op = (
            f'"stablehlo.slice"(%a) {{start_indices = {_arr(st)}, limit_indices = {_arr(li)}, '
            f"strides = {_arr(sd)}}} : ({t}) -> {to}"
        )
        return _func(f"%a: {t}", f"  %0 = {op}")
    if kind == 2:
        m = r if rnd.random() < 0.8 else rnd.randrange(0, 4)
        idx = "".join(f", %i{j}" for j in range(m))
        op = (
            f'"stablehlo.dynamic_slice"(%a{idx}) {{slice_sizes = {_arr(ints(n, -1, 4))}}} : '
            f"({t}{', tensor<i64>' * m}) -> {to}"
        )
        return _func(
            f"%a: {t}" + "".join(f", %i{j}: tensor<i64>" for j in range(m)), f"  %0 = {op}"
        )
    if kind == 3:
        t2 = _ts(shape(rnd.choice([r, r, rnd.randrange(0, 4)])), e)
        d = rnd.randrange(-1, r + 1)
        op = f'"stablehlo.concatenate"(%a, %b) {{dimension = {d} : i64}} : ({t}, {t2}) -> {to}'
        return _func(f"%a: {t}, %b: {t2}", f"  %0 = {op}")
    if kind == 4:
        res = _ts(shape(rnd.randrange(0, 4)), e)
        dims = ints(n, -1, 4)
        op = f'"stablehlo.broadcast_in_dim"(%a) {{broadcast_dimensions = {_arr(dims)}}} : ({t}) -> {res}'
        return _func(f"%a: {t}", f"  %0 = {op}")
    if kind == 5:
        res = _ts(shape(rnd.randrange(0, 4)), rnd.choice([e, e, "f64"]))
        return _func(f"%a: {t}", f"  %0 = stablehlo.reshape %a : ({t}) -> {res}")
    if kind == 6:
        d = rnd.randrange(-1, r + 1)
        if rnd.random() < 0.5:
            return _func("", f"  %0 = stablehlo.iota dim = {d} : {t}")
        vals = ints(rnd.choice([r, r, r + 1]), -1, 4)
        return _func(
            "",
            f"  %s = {_dense(vals)}\n  %0 = stablehlo.dynamic_iota %s, dim = {d} : "
            f"(tensor<{len(vals)}xi64>) -> {t}",
        )
    if kind == 7:
        vals = ints(rnd.choice([r, r + 1, rnd.randrange(0, 4)]), -1, 4)
        res = _ts(shape(len(vals)) if rnd.random() < 0.8 else shape(r), e)
        return _func(
            f"%a: {t}",
            f"  %s = {_dense(vals)}\n  %0 = stablehlo.dynamic_reshape %a, %s : "
            f"({t}, tensor<{len(vals)}xi64>) -> {res}",
        )
    rr = rnd.randrange(0, 4)
    vals, dims = ints(rr, -1, 4), ints(n, -1, rr + 1)
    return _func(
        f"%a: {t}",
        f"  %s = {_dense(vals)}\n  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = "
        f"{_lst(dims)} : ({t}, tensor<{rr}xi64>) -> {_ts(shape(rr), e)}",
    )


# -------------------------------------------------------------------------- gather / scatter
_GATHER: dict = {
    "operand": [3, 4, 5],
    "indices": [2, 3, 2],
    "offset_dims": [2, 3],
    "collapsed_slice_dims": [0],
    "operand_batching_dims": [],
    "start_indices_batching_dims": [],
    "start_index_map": [0, 1],
    "index_vector_dim": 2,
    "slice_sizes": [1, 2, 5],
    "result": [2, 3, 2, 5],
}
"""A valid gather (and dynamic_gather, its slice sizes a constant); the cases mutate it."""
_SCATTER: dict = {
    "operand": [3, 4, 5],
    "indices": [2, 3, 2],
    "updates": [2, 3, 5],
    "update_window_dims": [2],
    "inserted_window_dims": [0, 1],
    "input_batching_dims": [],
    "scatter_indices_batching_dims": [],
    "scatter_dims_to_operand_dims": [0, 1],
    "index_vector_dim": 2,
}
"""A valid scatter; the cases mutate it."""


def _mutate(rnd: random.Random, base: dict) -> dict:
    g = {k: (list(v) if isinstance(v, list) else v) for k, v in base.items()}
    for _ in range(rnd.choice([1, 1, 2])):
        key = rnd.choice(list(g))
        if key == "index_vector_dim":
            g[key] = rnd.randrange(-1, 5)
            continue
        xs = g[key]
        how = rnd.randrange(5)
        if how == 0 and xs:
            xs.pop(rnd.randrange(len(xs)))
        elif how == 1:
            xs.insert(rnd.randrange(len(xs) + 1), rnd.randrange(0 if key in _SHAPES else -1, 6))
        elif how == 2 and xs:
            xs[rnd.randrange(len(xs))] = rnd.randrange(0 if key in _SHAPES else -1, 6)
        elif how == 3:
            xs.reverse()
        elif xs:
            xs.append(xs[0])
    return g


_SHAPES = ("operand", "indices", "updates", "result")


def _gather_scatter(rnd: random.Random) -> str:
    which = rnd.randrange(3)
    if which < 2:
        g = _mutate(rnd, _GATHER)
        fields = ", ".join(
            f"{k} = {_lst(g[k])}"
            for k in ("offset_dims", "collapsed_slice_dims", "operand_batching_dims")
            + ("start_indices_batching_dims", "start_index_map")
            if g[k] or k in ("offset_dims", "collapsed_slice_dims", "start_index_map")
        )
        dims = f"#stablehlo.gather<{fields}, index_vector_dim = {g['index_vector_dim']}>"
        t, i, res = _ts(g["operand"]), _ts(g["indices"], "i32"), _ts(g["result"])
        if which == 0:
            op = (
                f'"stablehlo.gather"(%a, %i) {{dimension_numbers = {dims}, slice_sizes = '
                f"{_arr(g['slice_sizes'])}}} : ({t}, {i}) -> {res}"
            )
            return _func(f"%a: {t}, %i: {i}", f"  %0 = {op}")
        n = len(g["slice_sizes"])
        op = (
            f'"stablehlo.dynamic_gather"(%a, %i, %s) {{dimension_numbers = {dims}}} : '
            f"({t}, {i}, tensor<{n}xi64>) -> {res}"
        )
        return _func(f"%a: {t}, %i: {i}", f"  %s = {_dense(g['slice_sizes'])}\n  %0 = {op}")
    g = _mutate(rnd, _SCATTER)
    fields = ", ".join(
        f"{k} = {_lst(g[k])}"
        for k in ("update_window_dims", "inserted_window_dims", "input_batching_dims")
        + ("scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
        if g[k]
        or k in ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims")
    )
    dims = f"#stablehlo.scatter<{fields}, index_vector_dim = {g['index_vector_dim']}>"
    t, i, u = _ts(g["operand"]), _ts(g["indices"], "i32"), _ts(g["updates"])
    body = rnd.choice(
        ["^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %y : tensor<f32>"] * 6
        + [
            "^bb0(%x: tensor<f32>):\n    stablehlo.return %x : tensor<f32>",
            "^bb0(%x: tensor<f32>, %y: tensor<i32>):\n    stablehlo.return %x : tensor<f32>",
        ]
    )
    op = (
        f'"stablehlo.scatter"(%a, %i, %u) ({{\n  {body}\n  }}) {{scatter_dimension_numbers = '
        f"{dims}}} : ({t}, {i}, {u}) -> {t}"
    )
    return _func(f"%a: {t}, %i: {i}, %u: {u}", f"  %0 = {op}")


# ------------------------------------------------------------------------------ control flow
_TYPES = ["tensor<2xf32>", "tensor<?xf32>", "tensor<i32>", "tensor<i1>", "!stablehlo.token"]
_TYPES += ["tensor<2xi1>", "tensor<3xf32>", "tuple<tensor<2xf32>>"]


def _control_flow(rnd: random.Random) -> str:
    def pick(n: int) -> list[str]:
        return [rnd.choice(_TYPES) for _ in range(n)]

    def ret(names: list[str], types: list[str]) -> str:
        return (
            f"stablehlo.return {', '.join(names)} : {', '.join(types)}"
            if names
            else "stablehlo.return"
        )

    def results(types: list[str]) -> str:
        return "" if not types else "%0 = " if len(types) == 1 else f"%0:{len(types)} = "

    if rnd.random() < 0.4:  # while: cond's result is a tensor (upstream crashes on a token)
        ops = pick(rnd.randrange(0, 3))
        cond_args = ops if rnd.random() < 0.7 else pick(rnd.randrange(0, 3))
        body_args = ops if rnd.random() < 0.7 else pick(rnd.randrange(0, 3))
        body_ret = ops if rnd.random() < 0.7 else pick(rnd.randrange(0, 3))
        cond_ret = rnd.choice(["tensor<i1>"] * 4 + ["tensor<2xi1>", "tensor<i32>"])
        res = ops if rnd.random() < 0.8 else pick(rnd.randrange(0, 3))
        args = [f"%o{i}: {t}" for i, t in enumerate(ops)] + [f"%c: {cond_ret}"]
        args += [f"%b{i}: {t}" for i, t in enumerate(body_ret)]
        cond = ", ".join(f"%x{i}: {t}" for i, t in enumerate(cond_args))
        body = ", ".join(f"%y{i}: {t}" for i, t in enumerate(body_args))
        bret = ret([f"%b{i}" for i in range(len(body_ret))], body_ret)
        op = (
            f'{results(res)}"stablehlo.while"({", ".join(f"%o{i}" for i in range(len(ops)))}) '
            f"({{\n  ^bb0({cond}):\n    {ret(['%c'], [cond_ret])}\n  }}, {{\n  ^bb0({body}):\n"
            f"    {bret}\n  }}) : ({', '.join(ops)}) -> ({', '.join(res)})"
        )
        return _func(", ".join(args), f"  {op}")
    is_if = rnd.random() < 0.5
    base = pick(rnd.randrange(0, 3))
    branches = [
        base if rnd.random() < 0.75 else pick(rnd.randrange(0, 3))
        for _ in range(2 if is_if else rnd.randrange(0, 4))
    ]
    res = base if rnd.random() < 0.8 else pick(rnd.randrange(0, 3))
    index = (
        ("tensor<i1>" if is_if else "tensor<i32>") if rnd.random() < 0.85 else rnd.choice(_TYPES)
    )
    args, regions = [f"%p: {index}"], []
    for j, types in enumerate(branches):
        names = [f"%v{j}_{i}" for i in range(len(types))]
        args += [f"{v}: {t}" for v, t in zip(names, types)]
        regions.append(f"{{\n    {ret(names, types)}\n  }}")
    name = "stablehlo.if" if is_if else "stablehlo.case"
    rg = f"({', '.join(regions)}) " if regions else ""
    op = f'{results(res)}"{name}"(%p) {rg}: ({index}) -> ({", ".join(res)})'
    return _func(", ".join(args), f"  {op}")


FAMILIES: dict[str, Callable[[random.Random], str]] = {
    "data_movement": _data_movement,
    "gather_scatter": _gather_scatter,
    "control_flow": _control_flow,
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_same_acceptance_and_first_error_as_upstream(family: str) -> None:
    rnd = random.Random(f"h1-{family}")
    differ, valid = [], 0
    for _ in range(CASES_PER_FAMILY):
        text = FAMILIES[family](rnd)
        theirs = upstream_errors(text)
        ours = _ours(text)
        valid += not theirs
        first = theirs[0].message.rstrip() if theirs else None
        if (ours is None) != (first is None) or (ours is not None and ours.rstrip() != first):
            differ.append(f"{text}  upstream: {first!r}\n  ours:     {ours!r}")
    assert not differ, f"{len(differ)} of {CASES_PER_FAMILY} differ:\n" + "\n".join(differ[:5])
    assert CASES_PER_FAMILY // 10 < valid < CASES_PER_FAMILY  # both outcomes are exercised
