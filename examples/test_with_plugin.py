"""Testing StableHLO programs with stablehlo-py's pytest plugin, as a user writes the tests.

    python -m pytest examples/test_with_plugin.py     # with the plugin installed (pytest11)
    python -m pytest examples/test_with_plugin.py -p stablehlo_py.testing.plugin

``assert_matches(program, *args, backend=...)`` runs the program in the reference interpreter and
on the backend, and fails with the first op whose results differ (its name stack, source line,
max abs/rel difference).  A program is a builder ``Module`` (here ``examples/classifier.py``), a
JAX function, a ``ModuleOp`` or MLIR text.

Without jax, the XLA cases skip and the comparison with ``classifier.xla.npz`` still runs: that
file is XLA's run of the classifier's training step recorded once (every top-level op's values),
so the interpreter is checked against XLA everywhere.  ``python examples/test_with_plugin.py``
records it again (needs jax); ``test_the_recorded_run_is_xla_s`` checks it is current.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from classifier import build, inputs  # examples/classifier.py (pytest puts examples/ on sys.path)

from stablehlo_py.testing import assert_matches, save_reference

RECORDED = Path(__file__).with_name("classifier.xla.npz")


def test_classifier_matches_the_recorded_xla_run() -> None:
    """Runs everywhere, jax or not: the interpreter against XLA's recorded values."""
    results = assert_matches(build(), *inputs(), backend=f"file:{RECORDED}")
    loss = results[-1]
    assert loss.shape == () and np.isfinite(loss)


def test_classifier_matches_each_backend(stablehlo_backend) -> None:  # type: ignore[no-untyped-def]
    """Once on XLA, once on IREE; each skips with the reason when it is not installed."""
    assert_matches(build(), *inputs(), backend=stablehlo_backend.name)


def test_an_old_artifact_runs_the_same(stablehlo_artifact) -> None:  # type: ignore[no-untyped-def]
    """The classifier written as a StableHLO 1.0.0 artifact (MLIR bytecode, then msgpack) and
    read back still matches XLA's recorded run."""
    module = stablehlo_artifact.round_trip(build(), target="1.0.0")
    assert_matches(module, *inputs(), backend=f"file:{RECORDED}")


def test_jax_function_matches_xla() -> None:
    """A JAX function, lowered with its name stacks and source lines (skips without jax)."""
    jax = pytest.importorskip("jax")

    def mlp(x, w1, w2):  # type: ignore[no-untyped-def]
        with jax.named_scope("hidden"):
            h = jax.nn.gelu(x @ w1)
        with jax.named_scope("out"):
            return jax.nn.softmax(h @ w2)

    rng = np.random.default_rng(0)
    x, w1, w2 = (rng.normal(size=s).astype(np.float32) for s in ((8, 4), (4, 16), (16, 3)))
    (probabilities,) = assert_matches(mlp, x, w1, w2, backend="xla")
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)


def test_the_recorded_run_is_xla_s(tmp_path: Path) -> None:
    """XLA's run today agrees with the recorded one (skips without jax)."""
    pytest.importorskip("jax")
    from stablehlo_py.trace import compare_traces, load_trace

    fresh = tmp_path / "fresh.npz"
    save_reference(fresh, build(), *inputs(), backend="xla")
    comparison = compare_traces(load_trace(fresh), load_trace(RECORDED), against=RECORDED.name)
    assert not comparison.diverged, (
        "record it again with `python examples/test_with_plugin.py`:\n" + comparison.report()
    )


if __name__ == "__main__":
    save_reference(RECORDED, build(), *inputs(), backend="xla")
    print(f"wrote {RECORDED}")
