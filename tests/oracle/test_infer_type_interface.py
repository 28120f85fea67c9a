"""infer.interfaces.INFER_TYPE_OP_INTERFACE -- which ops implement InferTypeOpInterface upstream,
and so follow a failed result-type refinement with "failed to infer returned types" -- agrees with
jaxlib's MLIR (upstream's StableHLO and CHLO, the `oracle` extra) for every op both know."""

from __future__ import annotations

import importlib
import inspect

import pytest

pytest.importorskip("jaxlib")

from stablehlo_py.ir.dialects import OP_MODULES
from stablehlo_py.ir.infer.interfaces import INFER_TYPE_OP_INTERFACE

# our registered name -> upstream's, where they differ
_UPSTREAM_NAME: dict[str, str] = {}


def _ours() -> set[str]:
    names = set()
    for module in OP_MODULES:
        for op in getattr(importlib.import_module(module), "OPS", ()) or ():
            if op.name.startswith(("stablehlo.", "chlo.")):
                names.add(op.name)
    return names


def _jaxlib() -> tuple[set[str], set[str]]:
    """(every stablehlo/chlo op jaxlib registers, those implementing InferTypeOpInterface)."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import chlo, stablehlo

    ctx = jax_mlir.make_ir_context()
    known, inferring = set(), set()
    with ctx:
        for module in (stablehlo, chlo):
            for _, cls in inspect.getmembers(module, inspect.isclass):
                name = getattr(cls, "OPERATION_NAME", None)
                if not isinstance(name, str):
                    continue
                known.add(name)
                try:
                    ir.InferTypeOpInterface(cls, ctx)
                except Exception:  # noqa: BLE001, S112 - not implemented by this op
                    continue
                inferring.add(name)
    return known, inferring


def test_infer_type_op_interface_table_matches_jaxlib() -> None:
    known, inferring = _jaxlib()
    assert len(inferring) > 100
    checked = 0
    wrong = []
    for ours in sorted(_ours()):
        upstream = _UPSTREAM_NAME.get(ours, ours)
        if upstream not in known:
            continue  # newer than jaxlib's StableHLO (collective_reduce) or not upstream's
        checked += 1
        if (ours in INFER_TYPE_OP_INTERFACE) != (upstream in inferring):
            wrong.append(
                f"{ours}: ours {ours in INFER_TYPE_OP_INTERFACE}, upstream {upstream in inferring}"
            )
    assert checked > 150
    assert not wrong, "\n".join(wrong)
    assert INFER_TYPE_OP_INTERFACE <= _ours(), sorted(INFER_TYPE_OP_INTERFACE - _ours())
