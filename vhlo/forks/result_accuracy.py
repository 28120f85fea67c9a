"""The transcendental elementwise ops v1 <-> v2: `result_accuracy` (exponential at 1.9.0, the others
at 1.10.0).  One pair serves all twelve ops (listed in ``OPS``)."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require

OPS = (
    "cbrt",
    "cosine",
    "exponential",
    "exponential_minus_one",
    "log",
    "log_plus_one",
    "logistic",
    "rsqrt",
    "sine",
    "sqrt",
    "tan",
    "tanh",
)


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: the default result accuracy (atol = rtol = 0, ulps = 0, mode DEFAULT)."""
    return op.to(2, set_props={"result_accuracy": va.default_result_accuracy()})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only with the default result accuracy."""
    since = op.spec.min
    require(op, "result_accuracy", va.default_result_accuracy(), f"a result accuracy needs {since}")
    return op.to(1, drop=("result_accuracy",))


FORKS = tuple(Fork(name, 1, upgrade_v1, downgrade_v2) for name in OPS)
