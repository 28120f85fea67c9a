"""Differential text tests against JAX/jaxlib (the `oracle` extra; skipped without it).

- For diverse JAX functions, `jax.jit(f).lower(...).as_text()` parsed and printed by us is
  byte-identical to JAX's text.
- jaxlib's MLIR parser accepts our printed text for every conformance testdata program.
"""

from __future__ import annotations

from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files
from tests.oracle.jax_functions import FUNCTIONS

__all__ = ["FUNCTIONS"]  # test_interpreter_vs_xla imports it from here


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jax_text_roundtrips_byte_identical(name: str) -> None:
    fn, args = FUNCTIONS[name]
    text = jax.jit(fn).lower(*args).as_text()
    assert print_ir(parse(text)) == text


TESTDATA = conformance_files("testdata")


@pytest.fixture(scope="module")
def jaxlib_context():
    from jax._src.interpreters import mlir

    return mlir.make_ir_context()


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_jaxlib_accepts_our_text(path: Path, jaxlib_context) -> None:
    from jaxlib.mlir import ir

    module = parse(path.read_text(), str(path))
    ours = print_ir(module)
    ours_generic = print_ir(module, generic=True)
    with jaxlib_context:
        theirs = ir.Module.parse(ours)
        assert str(theirs) == ours
        generic = ir.Module.parse(ours_generic).operation.get_asm(print_generic_op_form=True)
        assert generic == ours_generic
