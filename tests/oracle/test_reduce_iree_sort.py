"""Issue 27's Done-when for the reducer, the backends' half (needs jax and IREE):

- a >= 2,000-op JAX program (dense layers, integer layers making keys with duplicates, a stable
  ``lax.sort`` of a payload by those keys, more layers) diverges from IREE because IREE 3.13
  reorders equal keys of a stable sort (plan risk 2); ``stablehlo-reduce --diverges-from=iree``
  ends with <= 5 ops, the sort (still stable) among them, and the result still diverges from
  IREE while XLA agrees with the interpreter on it;
- a >= 2,000-op builder program with one op IREE refuses (a select_and_scatter whose windows
  overlap: tests/oracle/test_builder_consumers.py IREE_LIMITS) reduced by ``--fails-with=...
  --on=iree`` to <= 5 ops.

Times are printed (``pytest -s``).  Skipped with the reason when IREE no longer reorders the
small case (the test pins the behaviour it was written for)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.io import load_inputs, save_inputs
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce import DivergesFrom, FailsWith, Program
from tests.cli.reduce_helpers import layers_with, run_reduce, show
from tests.oracle import consumers

LIMIT = "--time-limit=900"
N = 8


def _program(pre: int, keys: int, post: int) -> tuple[str, list[np.ndarray]]:
    """The JAX program (text with locations) and its inputs."""
    jax = consumers.require_xla()
    import jax.numpy as jnp
    from jax import lax

    def f(x, w, k):
        h = x
        for i in range(pre):
            with jax.named_scope(f"pre{i}"):
                h = jnp.tanh(h @ w + 0.01 * i) * 0.5 + h * 0.5
        kk = k
        for i in range(keys):
            with jax.named_scope(f"keys{i}"):
                kk = (kk * 5 + i) & 1023
        with jax.named_scope("sort"):
            _, v = lax.sort((kk % 3, h[0]), num_keys=1, is_stable=True)
        g = v[None, :] + h
        for i in range(post):
            with jax.named_scope(f"post{i}"):
                g = jnp.tanh(g @ w - 0.01 * i) * 0.5 + g * 0.5
        return g, v

    x = np.random.default_rng(0).standard_normal((4, N)).astype(np.float32)
    w = (np.random.default_rng(1).standard_normal((N, N)) * 0.3).astype(np.float32)
    k = np.arange(N, dtype=np.int32)
    text = jax.jit(f).lower(x, w, k).as_text(debug_info=True)
    return text, [x, w, k]


@pytest.fixture(scope="module")
def iree_reorders() -> None:
    """Skip unless IREE still reorders equal keys of a stable sort (a one-layer program)."""
    consumers.require_iree()
    text, inputs = _program(1, 0, 0)  # (no layer at all: jax drops the unused weights)
    test = DivergesFrom("iree")
    if not test(Program.from_text(text, inputs)):
        from importlib.metadata import version

        assert test.last_error is None, test.last_error
        pytest.skip(f"IREE {version('iree-base-compiler')} keeps equal keys of a stable sort in "
                    "order (3.13 did not): there is no divergence left to reduce")


def test_diverges_from_iree_reduces_to_the_stable_sort(iree_reorders, tmp_path: Path) -> None:
    text, inputs = _program(70, 50, 70)
    (tmp_path / "model.mlir").write_text(text)
    save_inputs(tmp_path / "model.npz", inputs)
    r = run_reduce("model.mlir", "--inputs=model.npz", "--diverges-from=iree", "-o", "sort.mlir",
                   LIMIT, cwd=tmp_path).ok()
    show("--diverges-from=iree", r)
    assert r.before is not None and r.before[0] >= 2000
    assert r.after is not None and r.after[0] <= 5 and r.after[1] == 1
    out = (tmp_path / "sort.mlir").read_text()
    verify(parse(out))
    assert "stablehlo.sort" in out and "is_stable = true" in out, out
    reduced = Program.from_text(out, load_inputs(str(tmp_path / "sort.inputs.npz"), parse(out)))
    iree = DivergesFrom("iree")
    assert iree(reduced), iree.last_error
    print(f"still diverges: {iree.last_difference}")
    # the keys the sort gets have equal ones: the reorder is the whole story
    keys = re.search(r"dense<\[([\d, ]+)\]> : tensor<8xi32>", out)
    if keys is not None:
        values = [int(v) for v in keys[1].split(",")]
        assert len(set(values)) < len(values)
    # XLA keeps equal keys in order, as the interpreter does: nothing to reduce against it
    err = run_reduce("sort.mlir", "--inputs=sort.inputs.npz", "--diverges-from=xla", "-o",
                     "x.mlir", cwd=tmp_path).error()
    assert "nothing to reduce: the test is not interesting on sort.mlir" in err


def test_fails_with_on_iree_reduces_to_the_refused_op(tmp_path: Path) -> None:
    consumers.require_iree()
    (tmp_path / "p.mlir").write_text(layers_with(260, 130, "select_and_scatter").text())
    refused = "failed to legalize operation 'stablehlo.select_and_scatter'"
    r = run_reduce("p.mlir", f"--fails-with={refused}", "--on=iree", "-o", "o.mlir", LIMIT,
                   cwd=tmp_path).ok()
    show("--fails-with --on=iree", r)
    assert r.before is not None and r.before[0] >= 2000
    assert r.after is not None and r.after[0] <= 5
    out = (tmp_path / "o.mlir").read_text()
    verify(parse(out))
    assert "stablehlo.select_and_scatter" in out
    reduced = Program.from_text(out, load_inputs(str(tmp_path / "o.inputs.npz"), parse(out)))
    assert FailsWith(refused, on="iree")(reduced)
