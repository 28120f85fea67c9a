"""Random numbers: rng (implementation-defined values) and rng_bit_generator (XLA's bit streams)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.semantics import random as rnd


@impl("stablehlo.rng")
def _rng(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Draws from a PCG64 generator seeded per evaluator (reproducible within a run)."""
    seed = ev.__dict__.setdefault("_rng_calls", 0)
    ev.__dict__["_rng_calls"] = seed + 1
    shape = A.result_shape(op, 0, lambda: [int(n) for n in np.asarray(args[2]).reshape(-1)])
    out = rnd.rng(args[0], args[1], shape, A.enum(op, "rng_distribution"), seed=seed)
    return [out]


@impl("stablehlo.rng_bit_generator")
def _rng_bit_generator(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    state, output = rnd.rng_bit_generator(
        args[0],
        A.enum(op, "rng_algorithm", "DEFAULT"),
        A.result_shape(op, 1),
        A.result_dtype(op, 1),
    )
    return [state.astype(A.result_dtype(op, 0)), output]
