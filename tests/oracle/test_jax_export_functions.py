"""30+ functions through ``jax.export`` (issue 31): what the installed JAX writes, we read, run with
its calling convention, and convert losslessly.

For each function, ``jax.export.export(jax.jit(f))(...).serialize()`` is

* read by our Exported reader, whose metadata must be JAX's (``in_avals``/``out_avals``, pytrees,
  ``nr_devices``, ``platforms``, calling convention version, ``module_kept_var_idx``, and the
  arity of ``@main`` it implies, checked against the module JAX wrote);
* run by ``run_exported`` with one value per flattened input, as ``Exported.call`` takes them
  (unused arguments included), and compared with ``Exported.call``'s results from XLA: with a
  tolerance for floating point, exactly for integers and booleans, and for factorizations by their
  defining identities (``L L^T = A``, ``Q R = A``, ``A V = V diag(w)``, ``U S V^T = A``) plus the
  values LAPACK fixes;
* converted losslessly: JAX's artifact -> our msgpack -> MLIR bytecode -> msgpack, every step
  deserializing to the same printed program, and the second msgpack equal to the first.  JAX
  with Shardy (the default) writes ``sdy`` ops and attributes into some artifacts (sharded
  programs, ``sdy.sharding_rule`` on LAPACK custom calls, sharding constraints); they are kept
  as JAX writes them (``tests/oracle/test_shardy_artifacts.py`` checks them byte for byte).

Passes with jax 0.10 (Python 3.11) and jax 0.12 (Python 3.12).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("flatbuffers")
pytest.importorskip("scipy")
ml_dtypes = pytest.importorskip("ml_dtypes")

from jax import export, lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from stablehlo_py.api import run_exported
from stablehlo_py.errors import InterpreterError
from stablehlo_py.serialization import convert_artifact, deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported

from stablehlo_py.ir import print_ir
from tests.oracle.lapack_context import register_lapack_if_missing
from tests.oracle.test_interpreter_vs_xla import _tolerance
from tests.oracle.test_jax_export import _aval

f32, bf16 = np.float32, ml_dtypes.bfloat16
R = np.random.default_rng(31)


def _normal(*shape: int, dtype: Any = f32) -> np.ndarray:
    return R.normal(size=shape).astype(dtype)


def _spd(n: int) -> np.ndarray:
    a = R.normal(size=(n, n))
    return (a @ a.T + n * np.eye(n)).astype(f32)


# ------------------------------------------------------------------------------------------------
# Comparisons


def _close(got: np.ndarray, want: np.ndarray, what: str, scale: float = 1.0) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype), what
    rtol, atol = _tolerance(want.dtype)
    if rtol == 0.0:
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        kind = np.complex128 if np.iscomplexobj(want) else np.float64
        np.testing.assert_allclose(
            got.astype(kind), want.astype(kind), rtol=rtol * scale, atol=atol * scale, err_msg=what
        )


def _values(args: tuple[Any, ...], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _close(g, w, f"result {i}")


def _identity(lhs: np.ndarray, rhs: np.ndarray, what: str) -> None:
    np.testing.assert_allclose(lhs, rhs, rtol=1e-3, atol=1e-3, err_msg=what)


def _cholesky(args: tuple[Any, ...], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    (a,), (l,) = args, got
    _identity(np.tril(l) @ np.tril(l).T, a, "L L^T = A")
    _close(l, want[0], "L (unique)", 10)


def _qr(args: tuple[Any, ...], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    (a,), (q, r) = args, got
    _identity(q @ r, a, "Q R = A")
    _identity(q.T @ q, np.eye(q.shape[1]), "Q^T Q = I")
    assert np.allclose(r, np.triu(r)), "R is upper triangular"
    _close(np.abs(np.diag(r)), np.abs(np.diag(want[1])), "|diag R|", 10)


def _eigh(args: tuple[Any, ...], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    (a,), (w, v) = args, got
    _identity(a @ v, v * w, "A V = V diag(w)")
    _identity(v.T @ v, np.eye(len(w)), "V^T V = I")
    _close(w, want[0], "eigenvalues", 10)


def _svd(args: tuple[Any, ...], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    (a,), (u, s, vt) = args, got
    _identity((u * s) @ vt, a, "U S V^T = A")
    _close(s, want[1], "singular values", 10)


# ------------------------------------------------------------------------------------------------
# The functions


@dataclass
class Case:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    specs: tuple[Any, ...] | None = None  # what to export with (symbolic shapes); default: args
    jit: dict[str, Any] = field(default_factory=dict)
    export: dict[str, Any] = field(default_factory=dict)
    check: Callable[..., None] = _values


def _mlp(x, w1, b1, w2, b2):
    return jax.nn.relu(x @ w1 + b1) @ w2 + b2


def _batchnorm_model(x, w, b, gamma, beta, mean, var, num_batches_tracked, w2, b2):
    """A torchax-like flattened model: a batch-norm buffer (num_batches_tracked) is unused in
    eval mode, so JAX drops it (module_kept_var_idx has 9 of the 10 arguments)."""
    h = x @ w + b
    h = (h - mean) / jnp.sqrt(var + 1e-5) * gamma + beta
    return jax.nn.relu(h) @ w2 + b2


def _conv(x, k):
    return lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def _scan(xs):
    return lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(xs.shape[1:], xs.dtype), xs)


def _while(x):
    return lax.while_loop(lambda c: c[0] < 6, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))[1]


def _fori(x):
    return lax.fori_loop(0, 5, lambda i, a: a * 0.5 + i.astype(a.dtype), x)


def _sort(x, y):
    keys, vals = lax.sort((x, y), dimension=0, num_keys=1)
    return keys, vals, jnp.sort(x, axis=-1)


def _pytrees(params, x, *, scale):
    h = x @ params["w"] + params["b"][0]
    return {"out": h * scale, "aux": [h.sum(), None], "pair": (h.max(), params["b"][1])}


def _shard_map(x):
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    body = lambda a: a * 2.0 + a.sum()  # noqa: E731
    return jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)


def _sharded() -> Case:
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    row = NamedSharding(mesh, P("x", None))
    return Case(
        lambda a, b: (jnp.tanh(a) @ b, a.sum(axis=0)),
        (_normal(4, 3), _normal(3, 2)),
        jit={"in_shardings": (row, NamedSharding(mesh, P())), "out_shardings": (row, None)},
    )


def _poly_specs(spec: str, *shapes: tuple[Any, ...]) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        dims = dict(zip(re.findall(r"\w+", spec), export.symbolic_shape(spec)))
        return tuple(jax.ShapeDtypeStruct(tuple(dims.get(d, d) for d in s), f32) for s in shapes)

    return make


CASES: dict[str, Callable[[], Case]] = {
    "mlp": lambda: Case(_mlp, (_normal(4, 8), _normal(8, 16), _normal(16), _normal(16, 3), _normal(3))),
    "unused_args_batchnorm": lambda: Case(_batchnorm_model, (_normal(2, 5), _normal(5, 4), _normal(4), _normal(4), _normal(4), _normal(4), np.abs(_normal(4)) + 0.5, np.array(7, np.int32), _normal(4, 3), _normal(3))),
    "unused_first_arg": lambda: Case(lambda a, b, c: b * c, (_normal(3), _normal(2), _normal(2))),
    "conv": lambda: Case(_conv, (_normal(1, 6, 6, 2), _normal(3, 3, 2, 4))),
    "conv_strided": lambda: Case(lambda x, k: lax.conv_general_dilated(x, k, (2, 1), [(1, 1), (0, 2)], rhs_dilation=(2, 1)), (_normal(2, 3, 9, 8), _normal(4, 3, 2, 3))),
    "scan": lambda: Case(_scan, (_normal(5, 3),)),
    "while_loop": lambda: Case(_while, (_normal(4),)),
    "fori_loop": lambda: Case(_fori, (_normal(2, 3),)),
    "sort": lambda: Case(_sort, (_normal(6, 3), R.integers(0, 100, (6, 3)).astype(np.int32))),
    "argsort": lambda: Case(lambda x: (jnp.argsort(x, axis=-1), jnp.argsort(-x, axis=0)), (_normal(4, 5),)),
    "top_k": lambda: Case(lambda x: lax.top_k(x, 3), (_normal(3, 7),)),
    "gather": lambda: Case(lambda x, i: (x[i, 1:3], x[:, i]), (_normal(5, 5), np.array([4, 0, 2], np.int32))),
    "scatter_add": lambda: Case(lambda x, i, u: x.at[i].add(u), (_normal(5, 2), np.array([1, 3, 1], np.int32), _normal(3, 2))),
    "scatter_set_mul": lambda: Case(lambda x, i: x.at[i, 0].set(-1.0).at[2].multiply(3.0), (_normal(4, 3), np.array([0, 3], np.int32))),
    "cumsum": lambda: Case(lambda x: (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0), lax.cummax(x, axis=1)), (_normal(3, 4),)),
    "cholesky": lambda: Case(jnp.linalg.cholesky, (_spd(4),), check=_cholesky),
    "qr": lambda: Case(lambda a: tuple(jnp.linalg.qr(a)), (_normal(5, 3),), check=_qr),
    "eigh": lambda: Case(lambda a: tuple(jnp.linalg.eigh(a)), (_spd(4),), check=_eigh),
    "svd": lambda: Case(lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), (_normal(4, 3),), check=_svd),
    "solve": lambda: Case(jnp.linalg.solve, (_spd(4), _normal(4, 2))),
    "shape_poly": lambda: Case(lambda x, y: (jnp.concatenate([x, x * 2.0]), y.sum(axis=0) * x.shape[0]), (_normal(3, 4), _normal(5, 3)), specs=_poly_specs("b, n", ("b", 4), ("n", "b"))()),
    "shape_poly_matmul": lambda: Case(lambda a, b: jnp.tanh(a @ b).reshape(-1), (_normal(2, 3), _normal(3, 5)), specs=_poly_specs("m, k, n", ("m", "k"), ("k", "n"))()),
    "sharded": _sharded,
    "shard_map": lambda: Case(_shard_map, (_normal(4, 2),)),
    "random_typed_key": lambda: Case(lambda k, x: (jax.random.normal(k, (4,)) + x, jax.random.randint(k, (3,), 0, 10)), (jax.random.key(3), _normal(4))),
    "random_raw_key": lambda: Case(lambda k: (jax.random.uniform(k, (2, 3)), jax.random.bernoulli(k, 0.3, (5,))), (jax.random.PRNGKey(11),)),
    "bf16": lambda: Case(lambda x, y: (jnp.tanh(x * y + 1).astype(bf16), (x @ y.T).sum(-1)), (_normal(3, 4, dtype=bf16), _normal(3, 4, dtype=bf16))),
    "int8": lambda: Case(lambda a, b: (a * b + (a >> 1), jnp.maximum(a, b) // 3, a.astype(jnp.int32).sum()), (R.integers(-128, 127, (6,)).astype(np.int8), R.integers(-128, 127, (6,)).astype(np.int8))),
    "bool": lambda: Case(lambda p, q, x: (p & ~q, jnp.where(p ^ q, x, -x), jnp.any(p), jnp.all(q)), (R.random(5) > 0.5, R.random(5) > 0.5, _normal(5))),
    "complex64": lambda: Case(lambda z, w: (z * jnp.conj(w) + jnp.exp(z), jnp.abs(z), jnp.angle(w), (z @ w).real), (_normal(3, 3, dtype=f32) + 1j * _normal(3, 3, dtype=f32), (_normal(3, 3) + 1j * _normal(3, 3)).astype(np.complex64))),
    "pytrees": lambda: Case(lambda p, x: _pytrees(p, x, scale=2.0), ({"w": _normal(3, 2), "b": [_normal(2), _normal(1)]}, _normal(4, 3))),
    "multi_platform": lambda: Case(lambda x: jnp.sin(x) * 2, (_normal(5),), export={"platforms": ("cuda", "cpu")}),
    "softmax_layernorm": lambda: Case(lambda x: (jax.nn.softmax(x, axis=-1), (x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)), (_normal(3, 6),)),
    "cond_switch": lambda: Case(lambda i, x: (lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * 3], x), lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)), (np.array(2, np.int32), _normal(3))),
    "dynamic_slice": lambda: Case(lambda x, i, u: (lax.dynamic_slice(x, (i, 1), (2, 2)), lax.dynamic_update_slice(x, u, (1, i))), (_normal(5, 4), np.array(2, np.int32), _normal(2, 2))),
    "reductions": lambda: Case(lambda x: (x.max(0), jnp.argmax(x, axis=1), x.mean(), jnp.prod(x, axis=1)), (_normal(4, 5),)),
    "einsum": lambda: Case(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (_normal(2, 3, 4), _normal(2, 4, 5))),
}  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def _lapack_targets() -> None:
    register_lapack_if_missing()


def test_at_least_30_functions() -> None:
    assert len(CASES) >= 30


def _flat_for_us(args: tuple[Any, ...]) -> list[Any]:
    """One value per flattened input, as Exported.call takes them (PRNG keys as their data)."""
    out = []
    for leaf in jax.tree_util.tree_leaves((args, {})):
        if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        out.append(np.asarray(leaf))
    return out


def _main_arity(exp: Any) -> int:
    """How many arguments @main takes in the module JAX wrote (its own MLIR text)."""
    text = exp.mlir_module()
    signature = re.search(r"func\.func public @main\((.*?)\) ->", text, re.S)
    assert signature is not None
    return len(re.findall(r"%arg\d+:", signature.group(1)))


def _check_metadata(ours: Any, exp: Any) -> None:
    assert ours.function_name == exp.fun_name
    assert str(ours.in_tree) == str(exp.in_tree) and str(ours.out_tree) == str(exp.out_tree)
    assert ours.in_avals == tuple(_aval(a) for a in exp.in_avals)
    assert ours.out_avals == tuple(_aval(a) for a in exp.out_avals)
    assert ours.nr_devices == exp.nr_devices
    assert ours.platforms == tuple(exp.platforms)
    assert ours.calling_convention_version == exp.calling_convention_version
    assert ours.module_kept_var_idx == tuple(exp.module_kept_var_idx)
    assert ours.uses_global_constants == exp.uses_global_constants
    assert len(ours.ordered_effects) == len(exp.ordered_effects)
    assert ours.module_arity == _main_arity(exp)
    assert ours.unknown_fields == ()


@pytest.mark.parametrize("name", sorted(CASES))
def test_export_reads_runs_and_converts(name: str) -> None:
    case = CASES[name]()
    exp = export.export(jax.jit(case.fn, **case.jit), **case.export)(*(case.specs or case.args))
    blob = bytes(exp.serialize())

    ours = read_jax_exported(blob, f"{name}.jax")
    _check_metadata(ours, exp)
    assert ours.mlir_module_serialized == exp.mlir_module_serialized

    flat = _flat_for_us(case.args)
    assert len(flat) == len(exp.in_avals)
    got = run_exported(blob, *flat, name=f"{name}.jax")
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(exp.call(*case.args))]
    case.check(case.args, [np.asarray(g) for g in got], want)

    _check_lossless(blob)  # Shardy content too (allow_other_dialects, as JAX writes it)


def _check_lossless(blob: bytes) -> None:
    """JAX's artifact -> msgpack -> MLIR bytecode -> msgpack: the same program throughout."""
    text = print_ir(deserialize_portable_artifact(blob))
    packed = convert_artifact(blob, "msgpack")
    assert print_ir(deserialize_portable_artifact(packed)) == text
    bytecode = convert_artifact(packed, "mlir")
    assert print_ir(deserialize_portable_artifact(bytecode)) == text
    assert convert_artifact(bytecode, "msgpack") == packed
    assert print_ir(deserialize_portable_artifact(convert_artifact(blob, "mlir"))) == text


def test_unused_argument_count_names_both_conventions() -> None:
    """The torchax case of issue 31: every flattened argument works; the module's own arity is
    what the bare module takes, and a wrong count names both."""
    case = CASES["unused_args_batchnorm"]()
    exp = export.export(jax.jit(case.fn))(*case.args)
    assert len(exp.in_avals) == 10 and len(exp.module_kept_var_idx) == 9
    blob = bytes(exp.serialize())
    flat = _flat_for_us(case.args)
    with pytest.raises(InterpreterError, match=r"takes 10 flattened argument\(s\).*@main takes 9"):
        run_exported(blob, *flat[:9])
