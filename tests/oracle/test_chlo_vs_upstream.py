"""Differential test (`oracle` extra): our `chlo-legalize-to-stablehlo` against upstream's, the one
compiled into jaxlib, on every CHLO program of the conformance testdata.  Both lowered programs run
on this interpreter and must give the same bits; how many are also textually identical is printed
(a measure of op-for-op fidelity, not a requirement: equal results are).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")
ir = pytest.importorskip("jaxlib.mlir.ir")
passmanager = pytest.importorskip("jaxlib.mlir.passmanager")

from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.passes import run_pipeline

from stablehlo_py.ir import parse, print_ir
from tests.conformance.test_interpret import CHLO_TESTDATA


def _upstream_lowering(text: str) -> str:
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir.dialects import stablehlo

    stablehlo.register_stablehlo_passes()
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        pm = passmanager.PassManager.parse("builtin.module(func.func(chlo-legalize-to-stablehlo))")
        pm.run(module.operation)
        return str(module)


def _bits(module: object) -> tuple[list[bytes], list[str]]:
    ev = Evaluator(module)  # type: ignore[arg-type]
    out = ev.call("main", [])
    return [np.asarray(r).tobytes() for r in out], [str(f) for f in ev.failures]


@pytest.mark.skipif(not CHLO_TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", CHLO_TESTDATA, ids=lambda p: p.name)
def test_same_bits_as_upstream_lowering(path: Path) -> None:
    text = path.read_text()
    upstream = parse(_upstream_lowering(text), f"upstream:{path.name}")
    ours = run_pipeline(parse(text, str(path)), [("chlo-legalize-to-stablehlo", {})])
    ours_bits, ours_failures = _bits(ours)
    assert not ours_failures
    assert ours_bits == _bits(upstream)[0]
    if print_ir(ours) == print_ir(upstream):
        print(f"{path.name}: textually identical to upstream's lowering")
