"""assert_matches and save_reference called directly: each kind of program and reference, the
report of a planted bug, tolerances, skips and clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.backends import BackendUnavailable, expose
from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.interpreter import run
from stablehlo_py.io import save_results
from stablehlo_py.ir import parse
from stablehlo_py.testing import ReferenceFileError, assert_matches, save_reference
from stablehlo_py.testing import assertions
from stablehlo_py.trace import load_trace
from tests.unit.testing.programs import BUGGY, MODEL, PLANTED_KEY

X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)


def runner_of(text: str):  # type: ignore[no-untyped-def]
    """A backend (module, args) -> results: the interpreter running ``text`` with every value
    exposed as `compare_to_backend` exposes the module it is given (same order: same program)."""

    def interpreter_of_variant(module, args):  # type: ignore[no-untyped-def]
        return run(expose(parse(text)).module, *args)

    return interpreter_of_variant


def built(scale: float = 2.0, *, locations: bool = True) -> Module:
    m = Module("scaled", locations=locations)

    @m.func(tensor((4,), "f32"))
    def main(x):  # type: ignore[no-untyped-def]
        y = hlo.multiply(x, scale)
        return hlo.tanh(y)

    return m


# ------------------------------------------------------------------------------ agreeing runs
def test_same_program_as_backend_passes_and_returns_our_results() -> None:
    out = assert_matches(MODEL, X, backend=runner_of(MODEL))
    np.testing.assert_allclose(out[0], run(MODEL, X)[0], rtol=0, atol=0)


@pytest.mark.parametrize("kind", ["text", "ModuleOp", "builder Module"])
def test_each_kind_of_program(kind: str, tmp_path: Path) -> None:
    m = built()
    program = {"text": m.text(), "ModuleOp": m.op, "builder Module": m}[kind]
    ref = tmp_path / "ref.npz"
    save_reference(ref, built(), X)
    assert_matches(program, X, backend=f"file:{ref}")
    assert_matches(program, X, backend=ref)  # a Path is a file reference too


# ------------------------------------------------------------------------------- planted bug
def test_planted_bug_names_the_diverging_op_with_name_stack_and_source() -> None:
    with pytest.raises(AssertionError) as info:
        assert_matches(MODEL, X, backend=runner_of(BUGGY))
    text = str(info.value)
    first = text.splitlines()[0]
    assert first == "the interpreter's run of the MLIR text differs from interpreter_of_variant:"
    assert f"first diverging op: {PLANTED_KEY} (stablehlo.subtract)" in text
    assert "at model.py:20" in text
    assert "name stack: jit(f)/block1" in text
    assert "max abs diff" in text and "max rel diff" in text
    assert "operands (all agree with the reference)" in text


def test_planted_bug_against_a_recorded_trace(tmp_path: Path) -> None:
    """The reference is the buggy program's recorded run; ours is the original."""
    ref = tmp_path / "buggy.npz"
    trace = save_reference(ref, BUGGY, X)
    assert len(load_trace(ref)) == len(trace)
    with pytest.raises(AssertionError, match=r"first diverging op: jit\(f\)/block1/stablehlo"):
        assert_matches(MODEL, X, backend=f"file:{ref}")
    assert_matches(BUGGY, X, backend=f"file:{ref}")


def test_builder_locations_give_the_python_line(tmp_path: Path) -> None:
    ref = tmp_path / "ref.npz"
    save_reference(ref, built(3.0), X)
    with pytest.raises(AssertionError) as info:
        assert_matches(built(2.0), X, backend=f"file:{ref}")
    text = str(info.value)
    assert "the builder module @scaled differs from the reference file" in text
    # the first diverging op is the constant 2.0 (3.0 in the reference), made on the multiply's line
    line = next(
        i for i, s in enumerate(Path(__file__).read_text().splitlines(), 1)
        if "y = hlo.multiply(x, scale)" in s
    )
    assert "first diverging op: @main/stablehlo.constant#0" in text
    assert f"test_assertions.py:{line}" in text


# ------------------------------------------------------------------------------- tolerance
def test_rtol_and_atol_widen_the_tolerance(tmp_path: Path) -> None:
    ref = tmp_path / "ref.npz"
    save_reference(ref, built(2.0), X)
    near = built(2.0 * (1 + 1e-3))
    with pytest.raises(AssertionError, match="rtol 0.0002"):
        assert_matches(near, X, backend=f"file:{ref}")
    assert_matches(near, X, backend=f"file:{ref}", rtol=1e-2)
    assert_matches(near, X, backend=f"file:{ref}", atol=1e-2)


# ------------------------------------------------------------------------------- results files
def test_results_file(tmp_path: Path) -> None:
    good, bad, npy = tmp_path / "good.npz", tmp_path / "bad.npz", tmp_path / "one.npy"
    expected = run(MODEL, X)
    save_results(good, expected)
    save_results(npy, expected)
    save_results(bad, [expected[0] + np.float32(0.5)])
    assert_matches(MODEL, X, backend=f"file:{good}")
    assert_matches(MODEL, X, backend=f"file:{npy}")
    with pytest.raises(AssertionError) as info:
        assert_matches(MODEL, X, backend=f"file:{bad}")
    text = str(info.value)
    assert "1 results here, 1 in the file; 1 differ" in text
    assert "result #0 (tensor<f32>): 1 of 1 elements differ; max abs diff 0.5" in text
    assert "compare with a trace" in text


def test_results_file_of_another_arity(tmp_path: Path) -> None:
    two = tmp_path / "two.npz"
    save_results(two, run(MODEL, X) * 2)
    with pytest.raises(AssertionError, match="returns 1 results and the file holds 2"):
        assert_matches(MODEL, X, backend=f"file:{two}")


# ------------------------------------------------------------------------------- bad input
def test_missing_reference_says_how_to_record_one(tmp_path: Path) -> None:
    with pytest.raises(ReferenceFileError, match="(?s)no reference file .*save_reference"):
        assert_matches(MODEL, X, backend=f"file:{tmp_path / 'absent.npz'}")


def test_an_npz_that_is_no_reference(tmp_path: Path) -> None:
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(2))
    with pytest.raises(ReferenceFileError, match="neither a trace .* nor results"):
        assert_matches(MODEL, X, backend=f"file:{other}")
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    with pytest.raises(ReferenceFileError, match="cannot read .* as an .npz archive"):
        assert_matches(MODEL, X, backend=f"file:{text}")


@pytest.mark.parametrize("backend", ["cuda", "file:", 3])
def test_unknown_backend(backend: object) -> None:
    with pytest.raises(ValueError, match="backend is 'xla', 'iree', 'file:PATH'"):
        assert_matches(MODEL, X, backend=backend)


def test_programs_that_are_not_programs() -> None:
    with pytest.raises(TypeError, match="a program is a JAX function, a builder Module"):
        assert_matches(3, X, backend=runner_of(MODEL))
    with pytest.raises(TypeError, match="pass its Module"):
        assert_matches(built().functions["main"], X, backend=runner_of(MODEL))


def test_wrong_entry_and_arguments() -> None:
    with pytest.raises(Exception, match=r"no function @other \(functions: @main\)"):
        assert_matches(MODEL, X, backend=runner_of(MODEL), entry="other")
    with pytest.raises(Exception, match="takes 1 arguments, 2 were given"):
        assert_matches(MODEL, X, X, backend=runner_of(MODEL))


def test_save_reference_wants_npz(tmp_path: Path) -> None:
    with pytest.raises(ReferenceFileError, match="an .npz file"):
        save_reference(tmp_path / "ref.npy", MODEL, X)


# ------------------------------------------------------------------------------- skipping
def _no_backend(*_args: object) -> None:
    raise BackendUnavailable("XLA (jax and jaxlib) is not installed", note="pip install x")


def test_missing_backend_skips_inside_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assertions, "require_xla", _no_backend)
    with pytest.raises(pytest.skip.Exception, match=r"XLA .* is not installed \(pip install x\)"):
        assert_matches(MODEL, X, backend="xla")


def test_missing_backend_raises_outside_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assertions, "require_iree", _no_backend)
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    with pytest.raises(BackendUnavailable, match="is not installed"):
        assert_matches(MODEL, X, backend="iree")


# ------------------------------------------------------------------------------- jax
def _jax_model(swap: bool):  # type: ignore[no-untyped-def]
    """The same JAX function (one name, one structure: the same op keys), with the subtract's
    operands swapped when ``swap``."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def f(x, w, b):  # type: ignore[no-untyped-def]
        with jax.named_scope("dense"):
            h = x @ w
            y = jnp.tanh(b - h if swap else h - b)
        return jnp.sum(y * y)

    return f


def test_jax_function_against_xla_and_a_recorded_planted_bug(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    w = np.full((3, 2), 0.3, np.float32)
    b = np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2)
    out = assert_matches(_jax_model(False), x, w, b)  # XLA
    np.testing.assert_allclose(out[0], np.sum(np.tanh(x @ w - b) ** 2), rtol=1e-5)

    ref = tmp_path / "xla_of_the_bug.npz"
    save_reference(ref, _jax_model(True), x, w, b, backend="xla")
    with pytest.raises(AssertionError) as info:
        assert_matches(_jax_model(False), x, w, b, backend=f"file:{ref}")
    text = str(info.value)
    line = next(
        i for i, s in enumerate(Path(__file__).read_text().splitlines(), 1)
        if "y = jnp.tanh(b - h if swap else h - b)" in s
    )
    assert "the interpreter's run of the JAX function f differs from the reference file" in text
    assert "first diverging op: jit(f)/dense/stablehlo.subtract#0" in text
    assert "name stack: jit(f)/dense" in text
    assert f"at {__file__}:{line}" in text
    assert "operands (all agree with the reference)" in text
    assert "stablehlo_py/testing" not in text  # the helpers' frames are not the source


def test_jax_function_without_jax_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_jax(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name == "jax" or name.startswith("jax."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jax)
    monkeypatch.delitem(__import__("sys").modules, "jax", raising=False)

    def f(x):  # type: ignore[no-untyped-def]
        return x

    with pytest.raises(pytest.skip.Exception, match="jax is not installed"):
        assert_matches(f, X, backend=runner_of(MODEL))
