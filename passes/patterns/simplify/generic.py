"""Simplification patterns that match any StableHLO op or custom calls: upstream's
ZeroExtentToEmptyConstant and CustomCallUnregisteredBackendConfigToFfi."""

from __future__ import annotations

from stablehlo_py.passes.patterns.simplify.common import (
    RootPattern,
    empty_constant,
    modified,
    num_elems,
    rebuild,
)
from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

EFFECTFUL = frozenset({"stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv"})
"""StableHLO ops that declare memory effects (MemoryEffects<[MemRead, MemWrite]> in
StablehloOps.td); a custom_call has them when `has_side_effect` is set."""


def has_memory_effect(op: Operation) -> bool:
    """MemoryEffectOpInterface's !hasNoEffect() for the ops that implement it."""
    if op.name in EFFECTFUL:
        return True
    if op.name == "stablehlo.custom_call":
        a = op.properties.get("has_side_effect")
        return isinstance(a, IntegerAttr) and a.value.data != 0
    return False


def _zero_extent(t) -> TensorType | None:
    return t if isinstance(t, TensorType) and num_elems(t) == 0 else None


def _empty_before(op: Operation, t: TensorType, rewriter: PatternRewriter) -> SSAValue:
    """A `stablehlo.constant dense<>` of type ``t`` inserted before ``op``, at its location."""
    c = empty_constant(t)
    c.location = op.location
    rewriter.insert(c, InsertPoint.before(op))
    return c.results[0]


class ZeroExtentToEmptyConstant(RootPattern):
    """op(X : zero-extent tensor) -> constant dense<> for results and operands of StableHLO ops
    without memory effects."""

    ROOT = None

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith("stablehlo.") or op.name == "stablehlo.constant":
            return
        if has_memory_effect(op):
            return
        for r in op.results:
            t = _zero_extent(r.type)
            if t is None or not r.uses:
                continue
            rewriter.replace_all_uses_with(r, _empty_before(op, t, rewriter))
        operands = list(op.operands)
        changed = False
        for i, v in enumerate(operands):
            t = _zero_extent(v.type)
            if t is None or (isinstance(v, OpResult) and v.owner.name == "stablehlo.constant"):
                continue
            operands[i] = _empty_before(op, t, rewriter)
            changed = True
        if not changed:
            return
        if op.regions:  # upstream sets the operands in place
            op.operands = operands
            modified(rewriter, op)
            return
        rebuild(rewriter, op, operands)


API_VERSION_ORIGINAL = 1
API_VERSION_TYPED_FFI = 4
MHLO_BACKEND_CONFIG = "mhlo.backend_config"


class CustomCallUnregisteredBackendConfigToFfi(RootPattern):
    """custom_call with API_VERSION_ORIGINAL, an empty backend_config and `mhlo.backend_config`
    -> API_VERSION_TYPED_FFI with that dictionary as its backend_config."""

    ROOT = "stablehlo.custom_call"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        version = op.properties.get("api_version")
        v = API_VERSION_ORIGINAL if version is None else version.value.data  # type: ignore[attr-defined]
        if v != API_VERSION_ORIGINAL:
            return
        config = op.attributes.get(MHLO_BACKEND_CONFIG)
        if config is None:
            return
        old = op.properties.get("backend_config", StringAttr(""))
        if not isinstance(old, StringAttr) or old.data:
            return
        props = dict(op.properties)
        props["backend_config"] = config
        props["api_version"] = IntegerAttr(API_VERSION_TYPED_FFI, IntegerType(32))
        attrs = {k: v for k, v in op.attributes.items() if k != MHLO_BACKEND_CONFIG}
        rebuild(rewriter, op, list(op.operands), props, attrs)
