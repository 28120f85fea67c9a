"""JAX's platform-independent, non-kernel custom calls and `stablehlo.dynamic_approx_top_k`, as JAX
itself writes them: `jax.export` of tiny functions (for the platforms whose lowering emits the target)
run by our interpreter and compared with JAX's own CPU result, and the back-compat artifact the jax
wheel ships for `stablehlo.dynamic_approx_top_k` (2024-05-30) compared with its expected outputs.

Both venvs: jax 0.12 and 0.10.2 write the same forms for these targets except `Pin`/`Unpin` (JAX's
`new_ref(..., pin=True)` appeared in 0.11); where a jax cannot write a form the test says so by what
the installed jax offers, and the hand-written form is in tests/unit/interpreter/test_jax_targets_more.py.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
export = pytest.importorskip("jax.export")

from stablehlo_py.interpreter import run  # noqa: E402
from stablehlo_py.serialization import deserialize_portable_artifact  # noqa: E402

from stablehlo_py.errors import NotSupportedError  # noqa: E402
from stablehlo_py.ir import parse  # noqa: E402

TD = "jax._src.internal_test_util.export_back_compat_test_data"


def _exported(
    fn: Callable[..., Any], *specs: Any, platform: str = "cpu", allow: tuple[str, ...] = ()
) -> str:
    checks = [export.DisabledSafetyCheck.custom_call(name) for name in allow]
    exp = export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(*specs)
    return exp.mlir_module()


def _distinct(*shape: int, seed: int = 0) -> np.ndarray:
    """Values without ties (the order of ties is not part of ApproxTopK's contract)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).astype(np.float32) - n / 2).reshape(shape)


def _assert_same(got: list[Any], want: Any) -> None:
    want = list(want) if isinstance(want, list | tuple) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


# ------------------------------------------------------------------- dynamic_approx_top_k


def test_back_compat_artifact_of_dynamic_approx_top_k() -> None:
    data = importlib.import_module(f"{TD}.stablehlo_dynamic_approx_top_k").data_2024_05_30
    assert "stablehlo.dynamic_approx_top_k" in data["custom_call_targets"]
    module = deserialize_portable_artifact(data["mlir_module_serialized"])
    _assert_same(run(module, *data["inputs"]), data["expected_outputs"])


@pytest.mark.parametrize("platform", ["cpu", "tpu", "cuda"])
@pytest.mark.parametrize("op", ["approx_max_k", "approx_min_k"])
def test_approx_k_with_a_symbolic_k(platform: str, op: str) -> None:
    def fn(x):
        return getattr(jax.lax, op)(x, x.shape[-1] - 4)

    (n,) = export.symbolic_shape("b + 4")
    text = _exported(fn, jax.ShapeDtypeStruct((3, n), np.float32), platform=platform)
    assert "@stablehlo.dynamic_approx_top_k" in text and "@ApproxTopK" not in text
    # the TPU's own lowering has no is_fallback (ann.py:419-422); ours is exact on every platform
    assert ("is_fallback = true" in text) == (platform != "tpu")
    for size in (5, 11):
        x = _distinct(3, size, seed=size)
        _assert_same(run(parse(text), x), jax.jit(fn)(x))


@pytest.mark.parametrize("platform", ["cpu", "tpu"])
def test_approx_top_k_without_aggregation_is_xla_cpus_answer(platform: str) -> None:
    def fn(x):
        return jax.lax.approx_max_k(x, 5, aggregate_to_topk=False)

    x = _distinct(2, 2000)
    text = _exported(fn, x, platform=platform)
    assert "aggregate_to_topk = false" in text
    want = jax.jit(fn)(x)
    assert want[0].shape[1] > 5  # XLA keeps R > k elements
    _assert_same(run(parse(text), x), want)


# ------------------------------------------------------------------- pass-throughs and buffers


def test_layout_constraint() -> None:
    from jax.experimental.layout import Layout, with_layout_constraint

    def fn(x):
        return with_layout_constraint(x * 2, Layout((0, 1))) + 1

    x = _distinct(2, 3)
    (b,) = export.symbolic_shape("b")
    for spec in (x, jax.ShapeDtypeStruct((b, 3), np.float32)):
        text = _exported(fn, spec, allow=("LayoutConstraint",))
        assert "@LayoutConstraint" in text
        _assert_same(run(parse(text), x), jax.jit(fn)(x))
    assert "indices_of_shape_operands" in text  # the symbolic export passes the result shape


def test_pin_and_unpin() -> None:
    def fn(x):
        return jax.freeze(jax.new_ref(x, pin=True)) * 2

    if "pin" not in inspect.signature(jax.new_ref).parameters:
        # jax < 0.11 writes no Pin/Unpin (new_ref has no pin=)
        assert tuple(int(p) for p in jax.__version__.split(".")[:2]) < (0, 11)
        return
    x = _distinct(3)
    text = _exported(fn, x, allow=("Pin", "Unpin"))
    assert "@Pin" in text and "@Unpin" in text and "memref<3xf32>" in text
    # XLA CPU has no Pin kernel ("No registered implementation"): the reference is the same
    # computation without the pinned buffer
    _assert_same(run(parse(text), x), jax.jit(lambda v: v * 2)(x))


@pytest.mark.parametrize("platform", ["tpu", "cuda", "rocm"])
def test_allocate_buffer_of_lax_empty(platform: str) -> None:
    def fn(x):
        return jax.lax.empty((2, 3), np.float32) + x

    x = _distinct(2, 3)
    text = _exported(fn, x, platform=platform)
    assert "@AllocateBuffer" in text
    # XLA leaves the buffer uninitialized; JAX's CPU lowering (and the interpreter) give zeros
    _assert_same(run(parse(text), x), jax.jit(fn)(x))


def test_fused_for_cuda_runs_its_body() -> None:
    from jax.experimental.fused import fused

    def body(x):
        return jnp.sin(x) * x + 1

    text = _exported(
        fused(out_spaces=(jax.memory.Space.Device,))(body),
        _distinct(4),
        platform="cuda",
        allow=("fused",),
    )
    assert "@fused" in text and "called_computations = [@fused]" in text
    x = _distinct(4)
    np.testing.assert_allclose(run(parse(text), x)[0], jax.jit(body)(x), rtol=1e-6)


def test_dce_sink_keeps_nothing_to_compute() -> None:
    from jax._src.lax.lax import dce_sink  # jax's own test helper (no public name)

    def fn(x):
        dce_sink(x * 2, prevent_mlir_dce=True)
        return x + 1

    x = _distinct(3)
    text = _exported(fn, x, allow=("dce_sink",))
    assert "@dce_sink" in text
    _assert_same(run(parse(text), x), jax.jit(fn)(x))


# ------------------------------------------------------------------- refusals


def test_buffer_callback_is_refused() -> None:
    from jax.experimental.buffer_callback import buffer_callback

    def callback(ctx, out, x):
        del ctx, out, x

    fn = buffer_callback(callback, jax.ShapeDtypeStruct((3,), np.float32))
    # jax.export refuses to serialize host callbacks: their lowering, as text
    text = jax.jit(fn).lower(np.ones(3, np.float32)).as_text()
    assert "@xla_buffer_python_cpu_callback" in text
    with pytest.raises(NotSupportedError) as e:
        run(parse(text), np.ones(3, np.float32))
    assert "buffer callback" in str(e.value) and "not part of the program" in str(e.value)
