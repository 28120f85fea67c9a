"""`stablehlo-compatibility-expander{target=X}`: rewrite features newer than a target version into
older ops, so the program can be serialized for that target (upstream's
StablehloCompatibilityExpander.cpp).  The expansions and their version gates are the table in
passes/patterns/compat_expansions/.

As upstream: the target is required and must be `#.#.#` between the minimum and the current version
(upstream asserts this; here it is a clear VersionError with upstream's wording); the module-level
rewrite (location ranges) runs first, then the op patterns greedily over the module, top-down
(GreedyRewriteConfig.useTopDownTraversal), with MLIR's constant uniquing and dead-op erasure; not
converging in 10 iterations is upstream's "Failed to converge StableHLOCompatibilityExpanderPass in
10 iterations".  Upstream's driver also tries each op's `fold` hook; StableHLO's only one is
`constant`'s (the others live in stablehlo-aggressive-folder), so there is nothing else to fold.

    expand_for_target(module, "1.0.0")    # the same, from Python (in place; returns the module)
"""

from __future__ import annotations

from stablehlo_py.passes.drivers._common import op_location
from stablehlo_py.passes.drivers.options import TARGET
from stablehlo_py.passes.patterns.compat_expansions import expansions_for
from stablehlo_py.passes.drivers.greedy import GreedyConfig, apply_patterns_greedily
from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError, VersionError
from stablehlo_py.version import Version, get_current_version, get_minimum_version

__all__ = ["PASS_NAME", "expand_for_target", "expanded_copy", "run", "validate_target_version"]

PASS_NAME = "stablehlo-compatibility-expander"
SUMMARY = "Compatibility expander for StableHLO operations."
OPTIONS = (TARGET,)

_FORM = "Target version must be of the form `#.#.#`."


def validate_target_version(text: str | Version | None) -> Version:
    """upstream's validateTargetVersion (its assertion messages, as errors)."""
    if isinstance(text, Version):
        version = text
    else:
        if not text:
            raise VersionError(
                f"No target version specified. {_FORM}",
                note=f"pass {PASS_NAME}='target=X.Y.Z' with X.Y.Z from {get_minimum_version()} "
                f"to {get_current_version()}",
            )
        try:
            version = Version.from_string(text)
        except VersionError:
            raise VersionError(
                f"Invalid target version argument. {_FORM}",
                note=f"got '{text}'; use X.Y.Z from {get_minimum_version()} to "
                f"{get_current_version()}",
            ) from None
    if version < get_minimum_version():
        raise VersionError(
            "target version is less than minimum supported.",
            note=f"the minimum supported version is {get_minimum_version()}",
        )
    if version > get_current_version():
        raise VersionError(
            "target version is greater than current version.",
            note=f"the current version is {get_current_version()}",
        )
    return version


class ConvergenceError(StableHLOError):
    """The expansions kept rewriting the module (upstream's pass failure)."""


def expand_for_target(module: Operation, target: str | Version) -> Operation:
    """Apply every expansion ``target`` needs to ``module`` (in place)."""
    version = validate_target_version(target)
    expansions = expansions_for(version)
    for e in expansions:
        if e.module_step is not None:
            e.module_step(module)
    # the driver runs even without patterns, as upstream's: it still uniques and hoists constants
    # and erases dead ops
    patterns = [p for e in expansions for p in e.patterns()]
    config = GreedyConfig(top_down=True)
    if not apply_patterns_greedily(module, patterns, config=config):
        raise ConvergenceError(
            f"Failed to converge StableHLOCompatibilityExpanderPass in {config.max_iterations} "
            "iterations",
            location=op_location(module),
        )
    return module


def run(op: Operation, options: dict[str, object]) -> Operation:
    return expand_for_target(op, str(options["target"]))


def _faithful_clone(module: Operation) -> Operation:
    """A deep copy that keeps what a diagnostic or a serialized location needs: each op's and block
    argument's location and parse position."""
    from stablehlo_py.passes.drivers._common import carry_arg_location, carry_location

    copy = module.clone()
    for a, b in zip(module.walk(), copy.walk(), strict=True):
        carry_location(b, a)
        for ra, rb in zip(a.regions, b.regions, strict=True):
            for ba, bb in zip(ra.blocks, rb.blocks, strict=True):
                for xa, xb in zip(ba.args, bb.args, strict=True):
                    carry_arg_location(xb, xa)
    return copy


def expanded_copy(module: Operation, target: str | Version) -> Operation:
    """``module`` (not modified) with every expansion ``target`` needs applied, as the serializers'
    ``expand=True`` writes it.  A `chlo.constant_like` the complex `tan` expansion makes for a
    dynamic shape becomes StableHLO right away (artifacts hold no CHLO): see
    :func:`lower_dynamic_constant_like`."""
    copy = _faithful_clone(module)
    expand_for_target(copy, target)
    for op in list(copy.walk()):
        if op.name == "chlo.constant_like":
            lower_dynamic_constant_like(op)
    return copy


def lower_dynamic_constant_like(op: Operation) -> None:
    """`chlo.constant_like` -> a scalar `stablehlo.constant` broadcast
    (`dynamic_broadcast_in_dim`) to the operand's shape, which `get_dimension_size`s build.
    (Upstream's CHLO lowering takes the shape through `shape.shape_of`, which no artifact can
    hold; these ops exist at every version.)"""
    import numpy as np
    from stablehlo_py.passes.drivers._common import carry_location
    from stablehlo_py.passes.patterns.compat_expansions.common import build_op
    from stablehlo_py.passes.patterns.simplify.common import i64_array
    from xdsl.dialects.builtin import IntegerAttr, TensorType, i32
    from xdsl.rewriter import Rewriter

    from stablehlo_py.ir.text.dense import make_dense
    from stablehlo_py.ir.types import storage_dtype

    operand = op.operands[0]
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    element = result_type.get_element_type()
    value = op.properties["value"]
    scalar = np.asarray(getattr(value, "value").data, dtype=storage_dtype(element))  # noqa: B009
    new: list[Operation] = [
        build_op(
            "stablehlo.constant",
            [],
            {"value": make_dense(TensorType(element, []), scalar.reshape(1))},
        )
    ]
    sizes = []
    for d in range(result_type.get_num_dims()):
        size = build_op(
            "stablehlo.get_dimension_size", [operand], {"dimension": IntegerAttr(d, 64)}
        )
        one = build_op("stablehlo.reshape", [size.results[0]], result_types=[TensorType(i32, [1])])
        new += [size, one]
        sizes.append(one.results[0])
    shape = build_op("stablehlo.concatenate", sizes, {"dimension": IntegerAttr(0, 64)})
    broadcast = build_op(
        "stablehlo.dynamic_broadcast_in_dim",
        [new[0].results[0], shape.results[0]],
        {"broadcast_dimensions": i64_array(())},
        result_types=[result_type],
    )
    new += [shape, broadcast]
    for n in new:
        carry_location(n, op)
    Rewriter.replace_op(op, new)
