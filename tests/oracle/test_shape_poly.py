"""Shape-polymorphic JAX exports (`oracle` extra): `jax.export` with symbolic dimensions ("b, 8",
"b, n") gives dynamic StableHLO (`?` dimensions, dimension-size arguments of private functions,
`@shape_assertion` custom calls, experimental `stablehlo.dynamic_*` custom calls).  Each function is
exported once and run at three concrete shapes; our interpreter's results equal XLA's (`exp.call`)
within the tolerances of test_interpreter_vs_xla.

Two variants per function: `direct` runs the dynamic module as exported; `refined` first runs
`stablehlo-refine-arguments{types=...}` and `stablehlo-refine-shapes` for the concrete argument types
(`refine`), checks that no dynamic type is left, and runs the static module.  A few programs need
what XLA runs on top of upstream's passes (`XLA_PIPELINE`: composites to calls, the inliner, XLA's
`stablehlo-ext-refine-shapes`); they are listed with the reason in `NEEDS_XLA_PIPELINE`, and a test
checks that upstream's passes alone indeed do not make them static.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
export = pytest.importorskip("jax.export")

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.printing import type_of_value

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.printer import type_to_str
from tests.oracle.test_interpreter_vs_xla import assert_matches_xla

R = np.random.default_rng(20240611)
SIZES = (1, 3, 6)  # the concrete value of each case's first symbolic dimension


def _f(*shape: int) -> np.ndarray:
    return R.normal(size=shape).astype(np.float32)


def _idx(n: int, hi: int) -> np.ndarray:
    return R.integers(0, hi, size=(n,)).astype(np.int32)


@dataclass(frozen=True)
class PolyCase:
    fn: Callable[..., Any]
    specs: tuple[str, ...]  # jax.export.symbolic_shape specifications, "" for a scalar
    make_args: Callable[[int], list[np.ndarray]]  # concrete arguments for the size b
    constraints: tuple[
        str, ...
    ] = ()  # symbolic constraints ("b >= 2"), checked by shape assertions


W1, W2 = _f(8, 16), _f(16, 4)
KERNEL = _f(3, 3, 2, 3)


def _mlp(x):
    return jnp.tanh(x @ W1 + 0.5) @ W2


def _attention(q, k, v):
    return jax.nn.softmax(q @ k.T / jnp.sqrt(4.0), axis=-1) @ v


def _conv(x):
    return jax.lax.conv_general_dilated(
        x, KERNEL, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def _while(x):
    return jax.lax.while_loop(
        lambda c: c[0] < x.shape[0], lambda c: (c[0] + 1, c[1] * 0.5 + 1.0), (0, x)
    )[1]


CASES: dict[str, PolyCase] = {
    "mlp": PolyCase(_mlp, ("b, 8",), lambda b: [_f(b, 8)]),
    "attention": PolyCase(
        _attention, ("n, 4", "m, 4", "m, 4"), lambda b: [_f(b, 4), _f(b + 2, 4), _f(b + 2, 4)]
    ),
    "conv": PolyCase(_conv, ("b, h, 5, 2",), lambda b: [_f(b, b + 2, 5, 2)]),
    "reductions": PolyCase(
        lambda x: (x.sum(0), x.max(1), x.mean(), jnp.argmax(x, axis=0), jnp.prod(x, axis=1)),
        ("b, n",),
        lambda b: [_f(b, b + 1)],
    ),
    "gather": PolyCase(lambda x, i: x[i], ("b, 3", "n"), lambda b: [_f(b, 3), _idx(b + 2, b)]),
    "take_along_axis": PolyCase(
        lambda x, i: jnp.take_along_axis(x, i[:, None], axis=1),
        ("b, n", "b"),
        lambda b: [_f(b, 5), _idx(b, 5)],
    ),
    "concatenate": PolyCase(
        lambda x, y: jnp.concatenate([x, y, x], axis=0),
        ("b, 3", "n, 3"),
        lambda b: [_f(b, 3), _f(b + 2, 3)],
    ),
    "reshape": PolyCase(
        lambda x: x.reshape(-1, 2).T.reshape(x.shape[0] * 2, -1), ("b, 4",), lambda b: [_f(b, 4)]
    ),
    "while": PolyCase(_while, ("b, 3",), lambda b: [_f(b, 3)]),
    "fori_loop": PolyCase(
        lambda x: jax.lax.fori_loop(
            0, x.shape[0], lambda i, c: c + x[i] * i, jnp.zeros(x.shape[1:])
        ),
        ("b, 3",),
        lambda b: [_f(b, 3)],
    ),
    "sort": PolyCase(
        lambda x: (jnp.sort(x, axis=0), jnp.argsort(x, axis=1)), ("b, n",), lambda b: [_f(b, b + 3)]
    ),
    "cumsum": PolyCase(
        lambda x: (jnp.cumsum(x, axis=0), jnp.cumprod(x, axis=1), jax.lax.cummax(x, axis=0)),
        ("b, n",),
        lambda b: [_f(b, 3)],
    ),
    "arange": PolyCase(
        lambda x: x + jnp.arange(x.shape[0], dtype=jnp.float32)[:, None],
        ("b, 3",),
        lambda b: [_f(b, 3)],
    ),
    "pad_slice": PolyCase(
        lambda x: jnp.pad(x[1:, ::2], ((1, 2), (0, 1))), ("b, n",), lambda b: [_f(b + 1, b + 2)]
    ),
    "layernorm": PolyCase(
        lambda x: (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5),
        ("b, n",),
        lambda b: [_f(b, b + 4)],
    ),
    "outer_broadcast": PolyCase(
        lambda x, y: x[:, None] * y[None, :] + 1.0, ("b", "n"), lambda b: [_f(b), _f(b + 1)]
    ),
    "dynamic_slice": PolyCase(
        lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 1, axis=0) * 2.0,
        ("b, 3", ""),
        lambda b: [_f(b, 3), np.int32(b // 2)],
    ),
    "scatter_add": PolyCase(
        lambda x, i, u: x.at[i].add(u),
        ("b, 3", "n", "n, 3"),
        lambda b: [_f(b, 3), _idx(b + 1, b), _f(b + 1, 3)],
    ),
    "einsum": PolyCase(
        lambda x, y: jnp.einsum("bij,bjk->bki", x, y),
        ("b, 3, n", "b, n, 2"),
        lambda b: [_f(b, 3, b + 1), _f(b, b + 1, 2)],
    ),
    "top_k": PolyCase(lambda x: jax.lax.top_k(x, 2), ("b, 5",), lambda b: [_f(b, 5)]),
    "top_k_symbolic_k": PolyCase(
        lambda x: jax.lax.top_k(x, x.shape[0]), ("b, b",), lambda b: [_f(b, b)]
    ),
    "approx_max_k": PolyCase(lambda x: jax.lax.approx_max_k(x, 2), ("b, 8",), lambda b: [_f(b, 8)]),
    "max_pool": PolyCase(
        lambda x: jax.lax.reduce_window(
            x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME"
        ),
        ("b, h, h, 2",),
        lambda b: [_f(2, b + 1, b + 1, 2)],
    ),
    "random_bits": PolyCase(
        lambda k, x: jax.random.bits(
            jax.random.wrap_key_data(k, impl="rbg"), x.shape, dtype=jnp.uint32
        ),
        ("4", "b, 3"),
        lambda b: [np.array([1, 2, 3, b], np.uint32), _f(b, 3)],
    ),
    "repeat_tile": PolyCase(
        lambda x: (jnp.repeat(x, 2, axis=0), jnp.tile(x, (2, 1)), x[::-1]),
        ("b, 3",),
        lambda b: [_f(b, 3)],
    ),
    "eye_triu": PolyCase(
        lambda x: (jnp.eye(x.shape[0]) @ x, jnp.triu(x)), ("b, b",), lambda b: [_f(b, b)]
    ),
    "one_hot": PolyCase(
        lambda i, x: jax.nn.one_hot(i, x.shape[0]), ("n", "b"), lambda b: [_idx(b + 1, b), _f(b)]
    ),
    "segment_sum": PolyCase(
        lambda d, s, x: jax.ops.segment_sum(d, s, num_segments=x.shape[0]),
        ("n, 2", "n", "b"),
        lambda b: [_f(b + 2, 2), _idx(b + 2, b), _f(b)],
    ),
    "fft": PolyCase(lambda x: jnp.fft.fft(x), ("b, 8",), lambda b: [_f(b, 8)]),
    "conv_transpose": PolyCase(
        lambda x, k: jax.lax.conv_transpose(
            x, k, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")
        ),
        ("b, w, 2", "3, 2, 4"),
        lambda b: [_f(b, b + 3, 2), _f(3, 2, 4)],
    ),
    "grad_mlp": PolyCase(
        lambda w, x: jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w),
        ("4, 3", "b, 4"),
        lambda b: [_f(4, 3), _f(b, 4)],
    ),
    "logsumexp": PolyCase(
        lambda x: jax.nn.logsumexp(x, axis=1), ("b, n",), lambda b: [_f(b, b + 2)]
    ),
    "scan": PolyCase(
        lambda x: jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x),
        ("b, 3",),
        lambda b: [_f(b, 3)],
    ),
    "divisible_dims": PolyCase(
        lambda x: x.reshape(x.shape[0] // 2, 2 * x.shape[1]), ("2*b, 3",), lambda b: [_f(2 * b, 3)]
    ),
    "dynamic_update_slice": PolyCase(
        lambda x, u, i: jax.lax.dynamic_update_slice(x, u, (i, 0)),
        ("b, 3", "2, 3", ""),
        lambda b: [_f(b + 1, 3), _f(2, 3), np.int32(b // 2)],
        constraints=("b >= 2",),
    ),
    "int_arith": PolyCase(
        lambda x: (x // 3 + x.shape[0], x.astype(jnp.float32) * 0.5),
        ("b",),
        lambda b: [R.integers(-9, 9, size=(b,)).astype(np.int32)],
    ),
}


@cache
def exported(name: str) -> tuple[Any, str]:
    """The case's `jax.export.Exported` and its StableHLO text (exported once)."""
    case = CASES[name]
    scope = export.SymbolicScope(case.constraints)
    example = case.make_args(2)
    specs = [
        jax.ShapeDtypeStruct(
            export.symbolic_shape(s, scope=scope) if s else (), np.asarray(a).dtype
        )
        for s, a in zip(case.specs, example)
    ]
    exp = export.export(jax.jit(case.fn))(*specs)
    return exp, exp.mlir_module()


UPSTREAM_PIPELINE = ("stablehlo-refine-shapes",)
"""After `stablehlo-refine-arguments{types=...}`: upstream's shape refinement alone."""

XLA_PIPELINE = ("stablehlo-legalize-composite-to-call", "inline", "stablehlo-ext-refine-shapes")
"""After `stablehlo-refine-arguments{types=...}`: what XLA runs on a shape-polymorphic export
(xla/python/refine_polymorphic_shapes.cc: the inliner, then `stablehlo-ext-refine-shapes` -- upstream's
pass plus the refinement of the experimental `stablehlo.dynamic_*` custom calls); composites become
calls of their decompositions first so that they inline."""

# cases upstream's refine-shapes alone cannot make static (a property of upstream's pass, checked below)
NEEDS_XLA_PIPELINE: dict[str, str] = {
    "cumsum": "custom_call @stablehlo.dynamic_reduce_window (refined by XLA's extension only)",
    "max_pool": "JAX's helper functions called in several contexts, and @stablehlo.dynamic_reduce_window",
    "random_bits": "custom_call @stablehlo.dynamic_rng_bit_generator (refined by XLA's extension only)",
    "top_k": 'stablehlo.composite "chlo.top_k" (upstream refines no composite)',
    "top_k_symbolic_k": "custom_call @stablehlo.dynamic_top_k (refined by XLA's extension only)",
    "divisible_dims": "JAX's @_where called with different constant arguments: upstream's 'incompatible refinement keys'",
    "pad_slice": "JAX's @_where called with different constant arguments: upstream's 'incompatible refinement keys'",
}


def refine(
    module: Any, arg_types: Sequence[str], pipeline: Sequence[str] = UPSTREAM_PIPELINE
) -> Any:
    """`stablehlo-refine-arguments{types=...}` then ``pipeline`` on ``module`` (from the pass table)."""
    from stablehlo_py.passes.registry import PASSES

    module = PASSES["stablehlo-refine-arguments"].run(module, {"types": ",".join(arg_types)})
    for name in pipeline:
        module = PASSES[name].run(module, {})
    return module


def dynamic_types(module: Any) -> list[str]:
    """Every dynamic (`?` or unranked) type left in the module's ops and block arguments."""
    from stablehlo_py.interpreter.shapes import is_dynamic_type

    found = []
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        found += [f"{op.name}: {type_to_str(v.type)}" for v in values if is_dynamic_type(v.type)]
    return found


def test_at_least_fifteen_cases() -> None:
    assert len(CASES) >= 15


def test_exports_are_shape_polymorphic() -> None:
    _, text = exported("mlp")
    assert (
        "jax.uses_shape_polymorphism = true" in text
        and "@shape_assertion" in text
        and "?x8xf32" in text
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_direct(name: str, size: int) -> None:
    exp, text = exported(name)
    args = CASES[name].make_args(size)
    expected = jax.tree_util.tree_leaves(exp.call(*args))
    assert_matches_xla(run(parse(text), *args), expected)


def _arg_types(args: Sequence[Any]) -> list[str]:
    return [type_to_str(type_of_value(np.asarray(a))) for a in args]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_refined(name: str, size: int) -> None:
    """Refined for the concrete shapes (upstream's passes, or XLA's pipeline where upstream's cannot),
    no dynamic type is left and the static module computes what XLA computes."""
    exp, text = exported(name)
    args = CASES[name].make_args(size)
    pipeline = XLA_PIPELINE if name in NEEDS_XLA_PIPELINE else UPSTREAM_PIPELINE
    module = refine(parse(text), _arg_types(args), pipeline)
    assert dynamic_types(module) == []
    expected = jax.tree_util.tree_leaves(exp.call(*args))
    assert_matches_xla(run(module, *args), expected)


@pytest.mark.parametrize("name", sorted(NEEDS_XLA_PIPELINE))
def test_needs_xla_pipeline_is_true(name: str) -> None:
    """The cases listed in NEEDS_XLA_PIPELINE are not made static by upstream's passes alone (raised
    or left dynamic); one that is, is to be taken off the list."""
    from stablehlo_py.errors import StableHLOError

    _, text = exported(name)
    args = CASES[name].make_args(3)
    try:
        module = refine(parse(text), _arg_types(args))
    except StableHLOError:
        return
    assert dynamic_types(module) != [], f"{name} refines with upstream's passes alone: unlist it"


def test_at_least_fifteen_cases_refine_with_upstream_passes_alone() -> None:
    assert len(set(CASES) - set(NEEDS_XLA_PIPELINE)) >= 15


def test_shape_assertion_failure_is_jax_message() -> None:
    """A shape that violates the specification fails the exported `@shape_assertion`, with JAX's
    message formatted as upstream formats it."""
    from stablehlo_py.errors import InterpreterError

    _, text = exported("top_k_symbolic_k")
    with pytest.raises(
        InterpreterError, match=r"Input shapes do not match the polymorphic shapes specification"
    ):
        run(parse(text), _f(3, 4))


def test_multi_platform_export_takes_platform_index() -> None:
    """`platforms=(...)` adds JAX's `_platform_index` argument to @main; the caller passes it."""
    from stablehlo_py.errors import InterpreterError

    exp = export.export(jax.jit(lambda x: jnp.sin(x) * x.shape[0]), platforms=("cpu", "cuda"))(
        jax.ShapeDtypeStruct(export.symbolic_shape("b, 3"), np.float32)
    )
    module = parse(exp.mlir_module())
    for b in SIZES:
        x = _f(b, 3)
        assert_matches_xla(run(module, np.int32(0), x), [exp.call(x)])
    with pytest.raises(InterpreterError, match="_platform_index"):
        run(module, _f(2, 3))


@pytest.mark.parametrize("size", SIZES)
def test_translate_interpret_runs_export(tmp_path: Any, size: int) -> None:
    """`stablehlo-translate --interpret --args=...` binds the export's `?` dimensions as `run` does
    (an integer function, so the printed values equal XLA's exactly)."""
    import subprocess
    import sys
    from pathlib import Path

    from stablehlo_py.interpreter.printing import format_dense

    exp, text = exported("int_arith")
    args = CASES["int_arith"].make_args(size)
    path = tmp_path / "export.mlir"
    path.write_text(text)
    tool = Path(sys.executable).parent / "stablehlo-translate"
    cmd = [str(tool)] if tool.exists() else [sys.executable, "-m", "stablehlo_py.cli.translate"]
    arg_text = "[" + ", ".join(format_dense(a) for a in args) + "]"
    r = subprocess.run(
        [*cmd, "--interpret", "--interpreter-print-dense", str(path), f"--args={arg_text}"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    expected = [format_dense(np.asarray(w)) for w in jax.tree_util.tree_leaves(exp.call(*args))]
    assert r.stdout.splitlines() == expected


def test_symbolic_constraint_is_checked() -> None:
    """A shape that violates a symbolic constraint ("b >= 2") fails its shape assertion."""
    from stablehlo_py.errors import InterpreterError

    _, text = exported("dynamic_update_slice")
    with pytest.raises(
        InterpreterError, match=r"symbolic shape constraint b >= 2\. .*but found -1"
    ):
        run(parse(text), _f(1, 3), _f(2, 3), np.int32(0))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_refine_polymorphic_shapes(name: str, size: int) -> None:
    """`stablehlo-refine-polymorphic-shapes{types=...}` (XLA's refinement of a JAX export, one pass)
    makes every case static, and the static module computes what XLA computes."""
    from stablehlo_py.passes.stablehlo_refine_polymorphic_shapes import refine_polymorphic_shapes

    exp, text = exported(name)
    args = CASES[name].make_args(size)
    module = refine_polymorphic_shapes(parse(text), _arg_types(args))
    assert dynamic_types(module) == []
    assert_matches_xla(run(module, *args), jax.tree_util.tree_leaves(exp.call(*args)))


@pytest.mark.parametrize("size", (1, 3, 7))
def test_cumsum_export_refines_static_from_the_cli(tmp_path: Any, size: int) -> None:
    """Issue 25's example: a `cumsum` export refined at batch sizes 1, 3 and 7 by
    `stablehlo-opt --stablehlo-refine-polymorphic-shapes=types=...` has no dynamic type left;
    without concrete types the pass says what stayed dynamic (no traceback)."""
    import subprocess
    import sys

    b = export.symbolic_shape("b")
    exp = export.export(jax.jit(lambda x: jnp.cumsum(x, axis=0)))(
        jax.ShapeDtypeStruct((b[0], 4), np.float32)
    )
    path = tmp_path / "cumsum.mlir"
    path.write_text(exp.mlir_module())
    opt = [sys.executable, "-m", "stablehlo_py.cli.opt", str(path)]
    done = subprocess.run([*opt, f"--stablehlo-refine-polymorphic-shapes=types=tensor<{size}x4xf32>"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "?" not in done.stdout and f"tensor<{size}x4xf32>" in done.stdout
    assert "dynamic_reduce_window" in done.stdout  # (static now: the interpreter runs it as is)
    x = _f(size, 4)
    module = parse(done.stdout)
    assert_matches_xla(run(module, x), [exp.call(x)])
    bad = subprocess.run([*opt, "--stablehlo-refine-polymorphic-shapes"], capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "not static after shape refinement" in bad.stderr and "tensor<?x4xf32>" in bad.stderr
