"""`stablehlo-refine-polymorphic-shapes{types=T0,T1,...}`: a shape-polymorphic `jax.export` program
made static for concrete argument types, as JAX has XLA do it before compiling one
(`refine_polymorphic_shapes`, xla/python/refine_polymorphic_shapes.cc).

Upstream's `stablehlo-refine-shapes` alone leaves the experimental custom calls JAX writes for ops
StableHLO lacks (`@stablehlo.dynamic_reduce_window` for `cumsum` and pooling,
`@stablehlo.dynamic_top_k`, `@stablehlo.dynamic_rng_bit_generator`) and composites (`chlo.top_k`)
dynamic: it leaves them to its "additional patterns" hook, which XLA fills.  This pass runs what XLA
runs, in order:

1. `stablehlo-refine-arguments{types=...}` (skipped without `types`: the arguments are already the
   concrete ones);
2. `stablehlo-legalize-composite-to-call` (composites become calls of their decompositions);
3. `inline` (JAX's helper functions, called with different constant arguments, become one body);
4. `stablehlo-ext-refine-shapes` (upstream's refinement plus XLA's patterns for the custom calls);
5. `stablehlo-canonicalize-dynamism` (dynamic ops with constant shape operands become static ones).

Then it checks the result: a type still dynamic is an error naming the first op that has one, so a
program that did not become static is never passed on as if it had.

Python API: `refine_polymorphic_shapes(module, types)`, types as type strings or xDSL types.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.verify import op_location
from stablehlo_py.passes import (
    inline,
    stablehlo_canonicalize_dynamism,
    stablehlo_ext_refine_shapes,
    stablehlo_legalize_composite_to_call,
    stablehlo_refine_arguments,
)
from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["dynamic_values", "refine_polymorphic_shapes", "run"]

PASS_NAME = "stablehlo-refine-polymorphic-shapes"
SUMMARY = (
    "Makes a shape-polymorphic JAX export static for concrete argument types, as XLA does before "
    "compiling it (refine-arguments, composites to calls, inline, XLA's refine-shapes, "
    "canonicalize-dynamism), and checks that no dynamic type is left."
)
OPTIONS = (
    PassOption(
        "types",
        "list",
        [],
        "The concrete types of the main function's arguments, as an MLIR TypeRange "
        "'tensor<1x2xf32>, ...' (none: the arguments are already concrete)",
    ),
)

_STEPS = (
    stablehlo_legalize_composite_to_call,
    inline,
    stablehlo_ext_refine_shapes,
    stablehlo_canonicalize_dynamism,
)
"""The passes after stablehlo-refine-arguments, in XLA's order (each module's `run`)."""


class PolymorphicShapesError(StableHLOError):
    """A shape-polymorphic program did not become static for the given argument types."""


def run(op: Operation, options: dict[str, object]) -> Operation:
    if options.get("types"):
        op = stablehlo_refine_arguments.run(op, {"types": options["types"]})
    for step in _STEPS:
        op = step.run(op, {o.name: o.default for o in getattr(step, "OPTIONS", ())})
    left = dynamic_values(op)
    if left:
        where, what = left[0]
        raise PolymorphicShapesError(
            f"the program is not static after shape refinement: {what}"
            + (f" (and {len(left) - 1} more dynamic values)" if len(left) > 1 else "")
            + "; give every argument a static type (types=...), or check that the dynamic sizes "
            "of this op depend only on the arguments' shapes",
            location=where,
        )
    return op


def refine_polymorphic_shapes(
    module: Operation, types: Sequence[Attribute | str] | None = None
) -> Operation:
    """`module` refined in place for the argument types `types` (see the module's docstring);
    returns it.  Raises PolymorphicShapesError when a dynamic type is left."""
    texts = [t if isinstance(t, str) else type_to_str(t) for t in types or ()]
    return run(module, {"types": texts})


def _is_dynamic(t: Attribute) -> bool:
    if isinstance(t, UnrankedTensorType):
        return True
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())  # (`?`: negative)


def dynamic_values(module: Operation) -> list[tuple[str, str]]:
    """(location, "'op name' has type T") of each op result and block argument whose type is still
    dynamic (`?` dimension or unranked), in program order."""
    found = []
    for op in module.walk():
        for r in op.regions:
            for b in r.blocks:
                for a in b.args:
                    if _is_dynamic(a.type):
                        found.append((op_location(op), f"argument #{a.index} of '{op.name}' "
                                      f"has type {type_to_str(a.type)}"))
        for v in op.results:
            if _is_dynamic(v.type):
                found.append((op_location(op), f"result #{v.index} of '{op.name}' has type "
                              f"{type_to_str(v.type)}"))
    return found
