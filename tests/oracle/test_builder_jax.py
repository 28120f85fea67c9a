"""The builder against JAX (the `oracle` extra; skipped without it): for each computation, the module
built with ``stablehlo_py.builder`` prints exactly what ``jax.jit(f).lower(*args).as_text()`` prints,
after :func:`normalize`, and computes what XLA computes.

The normalization is deliberately small.  ``as_text()`` prints no debug information, so in practice it
changes nothing; it exists so that the comparison stays valid if locations appear:

- ``loc(...)`` suffixes and ``#loc...`` alias lines are removed (the builder attaches locations only
  when asked, and JAX's name/call-site locations are not the builder's business);
- nothing else: the builder gives the module JAX's name (``jit_<function>``), JAX's module attributes
  (``mhlo.num_partitions``/``mhlo.num_replicas``), ``public`` visibility and the ``jax.result_info``
  result attribute itself (:func:`jax_like_module`), so names and attributes are compared too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = pytest.importorskip("jax.lax")

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo

_LOC_SUFFIX = re.compile(r" loc\((?:[^()]|\([^()]*\))*\)")


def normalize(text: str) -> str:
    """Drop ``loc(...)`` suffixes and ``#loc`` alias lines (see the module docstring)."""
    lines = [_LOC_SUFFIX.sub("", line) for line in text.splitlines() if not line.startswith("#loc")]
    return "\n".join(lines).rstrip() + "\n"


def jax_like_module(name: str) -> Module:
    """A module named and attributed as ``jax.jit(name).lower(...)`` names its module."""
    return Module(
        f"jit_{name}", {"mhlo.num_partitions": np.int32(1), "mhlo.num_replicas": np.int32(1)}
    )


def jax_main(m: Module, *arg_types: Any, n_results: int = 1) -> Callable[[Callable[..., Any]], Any]:
    """``@main`` as JAX emits it: public, with ``jax.result_info`` on each result."""
    infos = ["result"] if n_results == 1 else [f"result[{i}]" for i in range(n_results)]
    return m.func(
        *arg_types,
        name="main",
        visibility="public",
        res_attrs=[{"jax.result_info": s} for s in infos],
    )


def twin(
    name: str, *arg_types: Any, n_results: int = 1
) -> Callable[[Callable[..., Any]], Callable[[], Module]]:
    """The builder twin of the JAX function ``name``: a function returning the JAX-like module whose
    @main (of ``arg_types``) is the decorated function."""

    def decorate(main: Callable[..., Any]) -> Callable[[], Module]:
        def build() -> Module:
            m = jax_like_module(name)
            jax_main(m, *arg_types, n_results=n_results)(main)
            return m

        return build

    return decorate


F23 = tensor((2, 3), "f32")
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5
Y = np.arange(12, dtype=np.float32).reshape(3, 4) / 8 + 0.25
Z = np.ones((2, 3), np.float32) * 0.3


# --------------------------------------------------------------------- JAX functions + builder twins
def add(a, b):  # type: ignore[no-untyped-def]
    return a + b


@twin("add", F23, F23)
def build_add(a, b):  # type: ignore[no-untyped-def]
    return hlo.add(a, b)


def matmul_tanh(a, b):  # type: ignore[no-untyped-def]
    return jnp.tanh(a @ b)


@twin("matmul_tanh", F23, tensor((3, 4), "f32"))
def build_matmul_tanh(a, b):  # type: ignore[no-untyped-def]
    dims = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
    return hlo.tanh(hlo.dot_general(a, b, dims, precision_config=["DEFAULT", "DEFAULT"]))


def row_sum(a):  # type: ignore[no-untyped-def]
    return jnp.sum(a, axis=1)


@twin("row_sum", F23)
def build_row_sum(a):  # type: ignore[no-untyped-def]
    return hlo.reduce(a, constant(0.0), dimensions=[1], body=hlo.add)


def col_max(a):  # type: ignore[no-untyped-def]
    return jnp.max(a, axis=0)


@twin("col_max", F23)
def build_col_max(a):  # type: ignore[no-untyped-def]
    return hlo.reduce(a, constant(-np.inf), dimensions=[0], body=hlo.maximum)


def scale(a):  # type: ignore[no-untyped-def]
    return a * 2.0


@twin("scale", F23)
def build_scale(a):  # type: ignore[no-untyped-def]
    two = hlo.broadcast_in_dim(constant(2.0), [], result_type=a.type)
    return hlo.multiply(a, two)


def relu(a):  # type: ignore[no-untyped-def]
    return jnp.maximum(a, 0.0)


@twin("relu", F23)
def build_relu(a):  # type: ignore[no-untyped-def]
    return hlo.maximum(a, hlo.broadcast_in_dim(constant(0.0), [], result_type=a.type))


def transpose_reshape(a):  # type: ignore[no-untyped-def]
    return jnp.reshape(a.T, (6,))


@twin("transpose_reshape", F23)
def build_transpose_reshape(a):  # type: ignore[no-untyped-def]
    return hlo.reshape(hlo.transpose(a, [1, 0]), result_type=tensor((6,), "f32"))


def exp_log(a, b):  # type: ignore[no-untyped-def]
    return jnp.exp(a) - jnp.log(b)


@twin("exp_log", F23, F23)
def build_exp_log(a, b):  # type: ignore[no-untyped-def]
    return hlo.subtract(hlo.exponential(a), hlo.log(b))


def select_greater(a, b):  # type: ignore[no-untyped-def]
    return lax.select(a > b, a, b)


@twin("select_greater", F23, F23)
def build_select_greater(a, b):  # type: ignore[no-untyped-def]
    return hlo.select(hlo.compare(a, b, "GT", "FLOAT"), a, b)


def concat_slice(a, b):  # type: ignore[no-untyped-def]
    return jnp.concatenate([a, b], axis=0)[1:3]


@twin("concat_slice", F23, F23)
def build_concat_slice(a, b):  # type: ignore[no-untyped-def]
    c = hlo.concatenate([a, b], dimension=0)
    return hlo.slice(c, start_indices=[1, 0], limit_indices=[3, 3], strides=[1, 1])


def to_int(a):  # type: ignore[no-untyped-def]
    return a.astype(jnp.int32)


@twin("to_int", F23)
def build_to_int(a):  # type: ignore[no-untyped-def]
    return hlo.convert(a, result_type=tensor((2, 3), "i32"))


def add_iota(a):  # type: ignore[no-untyped-def]
    return a + jnp.arange(3, dtype=jnp.float32)


@twin("add_iota", F23)
def build_add_iota(a):  # type: ignore[no-untyped-def]
    io = hlo.iota(iota_dimension=0, result_type=tensor((3,), "f32"))
    row = hlo.broadcast_in_dim(io, [1], result_type=tensor((1, 3), "f32"))
    return hlo.add(a, hlo.broadcast_in_dim(row, [0, 1], result_type=a.type))


def triangle(n):  # type: ignore[no-untyped-def]
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + c[0]), (0, 0))[1]


def build_triangle() -> Module:
    m = jax_like_module("triangle")
    i32 = tensor((), "i32")

    @jax_main(m, i32)
    def main(n):
        def cond(limit, i, acc):
            return hlo.compare(hlo.convert(i, result_type=i32), limit, "LT", "SIGNED")

        def body(limit, i, acc):
            return limit, hlo.add(i, constant(1)), hlo.add(acc, i)

        _, _, total = hlo.while_([n, constant(0), constant(0)], cond=cond, body=body)
        return total

    return m


def sort_rows(a):  # type: ignore[no-untyped-def]
    return jnp.sort(a)


def build_sort_rows() -> Module:
    m = jax_like_module("sort_rows")

    @jax_main(m, F23)
    def main(a):
        # defined while main is built, so it follows @main in the module, as JAX orders them
        @m.func(F23, name="sort", visibility="private")
        def sort(a):
            def canonical(v):  # -0.0 -> 0.0 and every NaN -> the canonical NaN, as jnp.sort does
                z = hlo.select(hlo.compare(v, constant(0.0), "EQ", "FLOAT"), constant(0.0), v)
                return hlo.select(hlo.compare(v, v, "NE", "FLOAT"), constant(np.float32(np.nan)), z)

            def less(x, y):
                return hlo.compare(canonical(x), canonical(y), "LT", "TOTALORDER")

            return hlo.sort(a, dimension=1, is_stable=True, comparator=less)

        return sort(a)

    return m


def split_stats(a):  # type: ignore[no-untyped-def]
    return jnp.abs(a), -a


@twin("split_stats", F23, n_results=2)
def build_split_stats(a):  # type: ignore[no-untyped-def]
    return hlo.abs(a), hlo.negate(a)


CASES: dict[str, tuple[Callable[..., Any], Callable[[], Module], tuple[Any, ...]]] = {
    "add": (add, build_add, (X, Z)),
    "matmul_tanh": (matmul_tanh, build_matmul_tanh, (X, Y)),
    "row_sum": (row_sum, build_row_sum, (X,)),
    "col_max": (col_max, build_col_max, (X,)),
    "scale": (scale, build_scale, (X,)),
    "relu": (relu, build_relu, (X,)),
    "transpose_reshape": (transpose_reshape, build_transpose_reshape, (X,)),
    "exp_log": (exp_log, build_exp_log, (X, Z)),
    "select_greater": (select_greater, build_select_greater, (X, Z)),
    "concat_slice": (concat_slice, build_concat_slice, (X, Z)),
    "to_int": (to_int, build_to_int, (X * 4,)),
    "add_iota": (add_iota, build_add_iota, (X,)),
    "triangle": (triangle, build_triangle, (np.int32(6),)),
    "sort_rows": (sort_rows, build_sort_rows, (X[:, ::-1].copy(),)),
    "split_stats": (split_stats, build_split_stats, (X,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_prints_what_jax_lowers(name: str) -> None:
    fn, build, args = CASES[name]
    theirs = normalize(jax.jit(fn).lower(*args).as_text())
    m = build()
    m.verify()
    assert normalize(m.text()) == theirs


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_computes_what_xla_computes(name: str) -> None:
    fn, build, args = CASES[name]
    expected = jax.jit(fn)(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = build().run(*args)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, np.asarray(e), rtol=1e-6, atol=1e-6)


def test_normalize_drops_only_locations() -> None:
    text = (
        'module {\n  %0 = stablehlo.add %a, %b : tensor<f32> loc("f.py":1:2)\n}\n#loc1 = loc("x")\n'
    )
    assert normalize(text) == "module {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n}\n"
