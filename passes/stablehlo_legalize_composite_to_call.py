"""`stablehlo-legalize-composite-to-call{except=...}`: upstream's StablehloLegalizeCompositeToCall.cpp.

Every `stablehlo.composite` becomes a `func.call` of its `decomposition` with the same operands and
result types, except composites whose name is in the `except` list (comma-separated).  The
decomposition functions stay (`inline` can then inline them).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.dialects.func import CallOp
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["legalize_composite_to_call", "run"]

PASS_NAME = "stablehlo-legalize-composite-to-call"
SUMMARY = "Replaces composite ops with a call to their decomposition."
OPTIONS = (
    PassOption("except", "list", [], "Names of composites that should not be replaced with calls."),
)


def run(op: Operation, options: dict[str, object]) -> Operation:

    return legalize_composite_to_call(op, list(options["except"]))  # type: ignore[call-overload]


def legalize_composite_to_call(
    module: Operation, except_names: list[str] | tuple[str, ...] = ()
) -> Operation:
    """Replace the composites of ``module`` (in place) by calls of their decompositions."""
    excluded = set(except_names)
    for op in [o for o in module.walk() if o.name == "stablehlo.composite"]:
        name = op.properties.get("name")
        if isinstance(name, StringAttr) and name.data in excluded:
            continue
        decomposition = op.properties["decomposition"]
        callee = (
            decomposition
            if isinstance(decomposition, SymbolRefAttr)
            else SymbolRefAttr(decomposition)
        )
        call = CallOp.create(
            operands=list(op.operands),
            result_types=[r.type for r in op.results],
            properties={"callee": callee},
        )
        call.location = getattr(op, "location", None)
        Rewriter.replace_op(op, call)
    return module
