"""The planted-bug models of issue 27 (``tests/data/trace/``) are what ``tools/make_trace_models.py``
writes with the installed JAX, and the original runs on the interpreter as on XLA."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.oracle.consumers import assert_close, require_xla

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "trace"


def _jax_version() -> tuple[int, ...]:
    jax = require_xla()
    return tuple(int(p) for p in jax.__version__.split(".")[:2])


def test_committed_models_are_current() -> None:
    if _jax_version() < (0, 12):
        pytest.skip("the models were written with jax 0.12; older JAX lowers them differently")
    run = subprocess.run(
        [sys.executable, str(REPO / "tools" / "make_trace_models.py"), "--check"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_interpreter_matches_xla_on_every_variant() -> None:
    require_xla()
    sys.path.insert(0, str(REPO))
    try:
        from tools.make_trace_models import BUGS, inputs, model
    finally:
        sys.path.remove(str(REPO))
    from stablehlo_py.interpreter import run

    args = inputs()
    for bug in (None, *BUGS):
        name = "model" if bug is None else f"model_{bug}"
        with gzip.open(DATA / f"{name}.mlir.gz", "rt") as fh:
            ours = run(fh.read(), *args)
        assert_close(ours, [np.asarray(model(bug)(*args))], name)
