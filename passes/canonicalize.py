"""`canonicalize`: MLIR's Canonicalizer (mlir/lib/Transforms/Canonicalizer.cpp) for the dialects
stablehlo-py reads: the greedy driver (`drivers/greedy.py`, MLIR's applyPatternsGreedily) with every
op's folder and canonicalization patterns, dead-op erasure and constant uniquing.

What MLIR registers for these ops, and what runs here:

* ConstantLike ops (`stablehlo.constant`, `chlo.constant`, `arith.constant`, `func.constant`): their
  folder returns their value, so the driver uniques and hoists them (its OperationFolder); they never fold away.
* StableHLO: no other folder (upstream moved them to `stablehlo-aggressive-folder`); `case` has
  FoldConstantCaseOp (a constant index in range inlines its branch).
* CHLO: `chlo.constant_like` folds to a `chlo.constant` splat when its operand's shape is static;
  the ops with MLIR's Commutative trait (`broadcast_add/multiply/maximum/minimum/and/or/xor`,
  `mulhi`) move constant operands last (the trait's fold; StableHLO's commutative ops use
  upstream's IsCommutative, which has no fold).
* builtin: `unrealized_conversion_cast` folds an identity cast (all types equal) and a round trip
  `A -> B -> A` of casts to the original values.
* Cast ops (CastOpInterface): an identity `memref.cast`/`tensor.cast` folds to its operand;
  `memref.cast` also folds a ranked `memref.cast` operand into itself (foldMemRefCast);
  `tensor.cast` of `tensor.cast` becomes one cast when that loses no static information
  (ChainedTensorCast).
* bufferization: `to_tensor(to_buffer(t))` folds to `t` when the two are adjacent, `to_buffer`
  of a `to_tensor` of a buffer of its type folds to that buffer; ToBufferToTensorFolding (a buffer of
  another type: a `memref.cast` to the wanted type) and ToBufferOfCast (`to_buffer(tensor.cast(t))`
  -> `memref.cast(to_buffer(t))`).
* arith: `addf`/`subf`/`mulf`/`divf` of constants fold (the interpreter's IEEE math, through
  `patterns/folds/evaluate.py`), `addf(x, -0)`, `subf(x, +0)`, `mulf(x, 1)`, `divf(x, 1)` fold to
  `x`; else `addf`/`mulf` move a constant operand last (Commutative).
* func: `call_indirect` of a `func.constant` becomes a `func.call` (SimplifyIndirectCallWithKnownCallee).
* Every other op of stablehlo, chlo, check, interpreter, vhlo, and func.func/return/call,
  builtin.module, has nothing to canonicalize (MLIR registers no folder or pattern for them); nor
  has an unregistered op (read with `--allow-unregistered-dialect`; never erased: its effects are
  unknown).

An op that MLIR canonicalizes in ways not modelled here (arith's integer ops, cf, shape -- also
`shape.const_shape`, which MLIR uniques as a constant --, tensor.dim/extract/from_elements, llvm,
...: any op outside `MODELLED_DIALECTS` and `MODELLED_OPS`) makes the pass raise
NotSupportedError naming it, before anything changes, rather than give a different result than
upstream.

Options (MLIR's): `top-down`, `max-iterations`, `max-num-rewrites` are the driver's;
`test-convergence` fails the pass when the rewrite did not converge (otherwise, as MLIR,
non-convergence is not an error); `disable-patterns`/`enable-patterns` filter the patterns by
their labels (here: the pattern class names, e.g. `FoldConstantCaseOp`; folders are not
patterns); `region-simplify` (disabled/normal/aggressive): region simplification (unreachable
blocks, dead block arguments, block merging) concerns multi-block regions only, which are not
modelled: a multi-block region under a level other than `disabled` raises NotSupportedError.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stablehlo_py.passes.drivers._common import carry_location, create_op, gc_paused
from stablehlo_py.passes.drivers.options import PassOption
from stablehlo_py.passes.patterns.arith_float_folds import NEUTRAL_RIGHT, fold_float_binary
from stablehlo_py.passes.drivers.greedy import (
    IN_PLACE,
    Folder,
    FoldOutcome,
    GreedyConfig,
    GreedyRewriteError,
    apply_patterns_greedily,
    constant_value_of,
    materialize_constant,
)
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    SymbolRefAttr,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.errors import NotSupportedError, StableHLOError
from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import element_type, storage_dtype

__all__ = [
    "FOLDERS",
    "MODELLED_DIALECTS",
    "MODELLED_OPS",
    "PASS_NAME",
    "canonicalization_patterns",
    "canonicalize",
    "fold_hooks",
    "not_modelled",
    "run",
]

PASS_NAME = "canonicalize"
SUMMARY = (
    "Canonicalize operations (the StableHLO, CHLO and func ops' canonicalization patterns and "
    "folders)"
)
# MLIR's Canonicalizer options (mlir/Transforms/Passes.td), RewritePassUtils' last
OPTIONS = (
    PassOption("top-down", "bool", True, "Seed the worklist in general top-down order"),
    PassOption(
        "region-simplify",
        "string",
        "normal",
        "Perform control flow optimizations to the region tree (disabled, normal, aggressive)",
    ),
    PassOption(
        "max-iterations",
        "int",
        10,
        "Max. iterations between applying patterns / simplifying regions",
    ),
    PassOption(
        "max-num-rewrites",
        "int",
        -1,
        "Max. number of pattern rewrites within an iteration",
    ),
    PassOption(
        "test-convergence",
        "bool",
        False,
        "Test only: Fail pass on non-convergence to detect cyclic pattern",
    ),
    PassOption(
        "disable-patterns",
        "list",
        [],
        "Labels of patterns that should be filtered out during application",
    ),
    PassOption(
        "enable-patterns",
        "list",
        [],
        "Labels of patterns that should be used during application, all other patterns are "
        "filtered out",
    ),
)


def _defining(value: SSAValue, name: str) -> Operation | None:
    owner = value.owner
    return owner if isinstance(owner, Operation) and owner.name == name else None


# ------------------------------------------------------------------------------------ folders
def fold_constant_like(op: Operation) -> FoldOutcome:
    """ConstantLikeOp::fold: a splat of `value` shaped like the operand (static shapes only)."""
    t = op.operands[0].type
    value = op.properties.get("value")
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        return None
    if not isinstance(value, FloatAttr | IntegerAttr):
        return None  # refused before the rewrite (`not_modelled`)
    vt = value.type
    out = TensorType(vt, t.get_shape())
    arr = np.full(t.get_shape(), value.value.data).astype(storage_dtype(vt))
    return [make_dense(out, arr)]


def fold_unrealized_cast(op: Operation) -> FoldOutcome:
    """UnrealizedConversionCastOp::fold."""
    ins, outs = list(op.operands), list(op.results)
    if [v.type for v in ins] == [r.type for r in outs]:
        return ins
    if not ins:
        return None
    producer = ins[0].owner
    if not isinstance(producer, Operation) or producer.name != op.name:
        return None
    if list(producer.results) != ins:
        return None
    if [v.type for v in producer.operands] != [r.type for r in outs]:
        return None
    return list(producer.operands)


def _identity_cast(op: Operation) -> FoldOutcome:
    """CastOpInterface's foldTrait: operand types equal to result types fold to the operands."""
    if [v.type for v in op.operands] == [r.type for r in op.results]:
        return list(op.operands)
    return None


def fold_memref_cast(op: Operation) -> FoldOutcome:
    """memref::CastOp::fold (foldMemRefCast: a `memref.cast` operand of ranked source is bypassed),
    then the cast trait's identity fold."""
    source = op.operands[0]
    inner = _defining(source, "memref.cast")
    if inner is not None and not isinstance(inner.operands[0].type, UnrankedMemRefType):
        op.operands[0] = inner.operands[0]
        return IN_PLACE
    return _identity_cast(op)


def fold_to_tensor(op: Operation) -> FoldOutcome:
    """ToTensorOp::fold: to_tensor(to_buffer(t)) -> t when the two are adjacent in one block."""
    to_buffer = _defining(op.operands[0], "bufferization.to_buffer")
    if to_buffer is not None and to_buffer.parent is op.parent and to_buffer.next_op is op:
        return [to_buffer.operands[0]]
    return None


def fold_to_buffer(op: Operation) -> FoldOutcome:
    """ToBufferOp::fold: to_buffer(to_tensor(m)) -> m when m has the result's type."""
    to_tensor = _defining(op.operands[0], "bufferization.to_tensor")
    if to_tensor is not None and to_tensor.operands[0].type == op.results[0].type:
        return [to_tensor.operands[0]]
    return None


def fold_with_traits(op: Operation) -> FoldOutcome:
    """MLIR's fold hook of an op with the Commutative trait (`patterns/mlir_folds.py`: its own fold,
    else the trait's fold, which moves constant operands last, in place)."""
    from stablehlo_py.passes.patterns.mlir_folds import Rewrite, fold

    result = fold(op)
    if isinstance(result, Rewrite):
        op.operands = result.operands
        op.properties.update(result.properties)
        return IN_PLACE
    return result


FOLDERS: dict[str, Folder] = {
    "chlo.constant_like": fold_constant_like,
    "builtin.unrealized_conversion_cast": fold_unrealized_cast,
    "memref.cast": fold_memref_cast,
    "tensor.cast": _identity_cast,
    "bufferization.to_tensor": fold_to_tensor,
    "bufferization.to_buffer": fold_to_buffer,
    **{name: fold_float_binary for name in NEUTRAL_RIGHT},
}
"""Op name -> its own folder (MLIR's `fold` methods, with the cast interface's trait fold)."""


def fold_hooks() -> dict[str, Folder]:
    """What the driver folds with: `FOLDERS`, and for the modelled ops with MLIR's Commutative trait
    (the CHLO broadcasting ops and `mulhi`, arith's `addf`/`mulf`) the trait's fold after theirs."""
    from stablehlo_py.passes.patterns.mlir_folds import COMMUTATIVE

    hooks = dict(FOLDERS)
    for name in COMMUTATIVE:
        if name.startswith("chlo.") or name in FOLDERS:
            hooks[name] = fold_with_traits
    return hooks


# ------------------------------------------------------------------------------------ constants
def materialize(value: Attribute, type: Attribute, op: Operation) -> Operation | None:
    """The folded op's dialect's materializeConstant."""
    dialect = op.name.split(".", 1)[0]
    if dialect == "stablehlo":
        return materialize_constant(value, type, op)
    if dialect == "chlo":
        if isinstance(value, DenseIntOrFPElementsAttr):
            return create_op("chlo.constant", [], [type], {"value": value})
        return None
    if dialect == "arith":  # arith::ConstantOp::isBuildableWith: the value has the result's type
        if getattr(value, "type", None) == type:
            return create_op("arith.constant", [], [type], {"value": value})
        return None
    return None


# ------------------------------------------------------------------------------------ patterns
class FoldConstantCaseOp(RewritePattern):
    """upstream's CaseOp canonicalization: a constant index in range inlines its branch (the
    branch's ops cloned before the case, its results the returned values)."""

    root = "stablehlo.case"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        owner = op.operands[0].owner
        value = constant_value_of(owner) if isinstance(owner, Operation) else None
        if not isinstance(value, DenseIntOrFPElementsAttr):
            return
        flat = np.asarray(dense_values(value)).reshape(-1)
        if flat.size == 0:
            return
        index = int(flat[0])
        if index < 0 or index >= len(op.regions):
            return
        block = op.regions[index].blocks.last
        assert block is not None
        terminator = block.last_op
        assert terminator is not None
        mapping: dict[SSAValue, SSAValue] = {}
        clones: list[Operation] = []
        for inner in block.ops:
            if inner is terminator:
                break
            clone = inner.clone(value_mapper=mapping)
            carry_location(clone, inner)
            clones.append(clone)
        results = [mapping.get(v, v) for v in terminator.operands]
        rewriter.replace(op, clones, new_results=results)


class _OfInner(RewritePattern):
    """A pattern of a ``root`` op whose first operand an ``INNER`` op defines."""

    root: str
    INNER: str

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        inner = _defining(op.operands[0], self.INNER)
        if inner is not None:
            self.rewrite_inner(op, inner, rewriter)

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        raise NotImplementedError


class ChainedTensorCast(_OfInner):
    """tensor.cast(tensor.cast(x)) -> tensor.cast(x) when joining the three shapes gives the same
    as joining the source's and the result's (no runtime check is dropped)."""

    root = "tensor.cast"
    INNER = "tensor.cast"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        source, middle, result = inner.operands[0].type, inner.results[0].type, op.results[0].type
        first = _join(source, middle)
        first = None if first is None else _join(first, result)
        if first is None or first != _join(source, result):
            return
        rewriter.replace(op, [create_op("tensor.cast", [inner.operands[0]], [result], like=op)])


def _join(a: Attribute, b: Attribute) -> Attribute | None:
    """tensor's joinShapes: the most static type both describe, None when they conflict."""
    if a == b:
        return a
    if isinstance(a, UnrankedTensorType):
        return b if element_type(b) == a.element_type else None
    if isinstance(b, UnrankedTensorType):
        return a if element_type(a) == b.element_type else None
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return None
    if a.element_type != b.element_type or len(a.get_shape()) != len(b.get_shape()):
        return None
    dims = []
    for x, y in zip(a.get_shape(), b.get_shape()):
        if x < 0:
            dims.append(y)
        elif y < 0 or x == y:
            dims.append(x)
        else:
            return None
    return TensorType(a.element_type, dims)


class ToBufferToTensorFolding(_OfInner):
    """foldToBufferToTensorPair: to_buffer(to_tensor(m)) -> m, or a `memref.cast` of m to the
    result's type."""

    root = "bufferization.to_buffer"
    INNER = "bufferization.to_tensor"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        buffer = inner.operands[0]
        src, dest = buffer.type, op.results[0].type
        if src == dest:
            rewriter.replace(op, [], new_results=[buffer])
            return
        if isinstance(src, MemRefType) and isinstance(dest, MemRefType):
            if not _guaranteed_cast_compatible(src, dest):
                raise NotSupportedError(
                    f"{PASS_NAME}: 'bufferization.to_buffer' of a 'bufferization.to_tensor' whose "
                    "buffer needs a copy to take the result's type (MLIR allocates a new buffer "
                    "and copies: memref.alloc and memref.copy are not modelled)"
                )
        elif isinstance(src, UnrankedMemRefType) and isinstance(dest, MemRefType):
            return  # unranked -> ranked: not implemented upstream either
        cast = create_op("memref.cast", [buffer], [dest], like=op)
        rewriter.replace(op, [cast])


def _guaranteed_cast_compatible(src: MemRefType, dest: MemRefType) -> bool:
    """castOrReallocMemRefValue's test: cast compatible, and no dynamic stride of the identity
    layout becomes static (every dimension after the first dynamic one must stay dynamic)."""
    from stablehlo_py.ir.ops.memref import are_cast_compatible

    if not are_cast_compatible(src, dest):
        return False
    s, d = src.get_shape(), dest.get_shape()
    for i in range(len(s)):
        # stride i is dynamic when a later dimension is dynamic
        src_dynamic = any(x < 0 for x in s[i + 1 :])
        dest_dynamic = any(x < 0 for x in d[i + 1 :])
        if src_dynamic and not dest_dynamic:
            return False
    return True


class ToBufferOfCast(_OfInner):
    """to_buffer(tensor.cast(t)) -> memref.cast(to_buffer(t)) for a ranked `t`."""

    root = "bufferization.to_buffer"
    INNER = "tensor.cast"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        source = inner.operands[0]
        st = source.type
        if not isinstance(st, TensorType):
            return
        out = op.results[0].type
        buffer_type = MemRefType(st.element_type, st.get_shape())
        if isinstance(out, MemRefType | UnrankedMemRefType):
            buffer_type = MemRefType(st.element_type, st.get_shape(), memory_space=out.memory_space)
        props = {"read_only": op.properties["read_only"]} if "read_only" in op.properties else {}
        to_buffer = create_op("bufferization.to_buffer", [source], [buffer_type], props, like=op)
        memref_cast = create_op("memref.cast", to_buffer.results, [out], like=op)
        rewriter.replace(op, [to_buffer, memref_cast])


class SimplifyIndirectCallWithKnownCallee(RewritePattern):
    """func.call_indirect of a `func.constant` becomes a direct `func.call`."""

    root = "func.call_indirect"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        callee = op.operands[0]
        owner = callee.owner if isinstance(callee, OpResult) else None
        if owner is None or owner.name != "func.constant":
            return
        ref = owner.properties.get("value")
        if not isinstance(ref, SymbolRefAttr):
            return
        call = create_op(
            "func.call",
            op.operands[1:],
            [r.type for r in op.results],
            {"callee": ref},
            like=op,
        )
        rewriter.replace(op, [call])


def canonicalization_patterns() -> list[RewritePattern]:
    """Every op's getCanonicalizationPatterns."""
    return [
        FoldConstantCaseOp(),
        ChainedTensorCast(),
        ToBufferOfCast(),
        ToBufferToTensorFolding(),
        SimplifyIndirectCallWithKnownCallee(),
    ]


# ------------------------------------------------------------------------------------ coverage
MODELLED_DIALECTS = ("stablehlo.", "chlo.", "check.", "interpreter.", "vhlo.")
"""Dialects whose every op's canonicalization is modelled (upstream registers only the folders and
patterns above)."""

MODELLED_OPS = frozenset(
    {
        "builtin.module",
        "builtin.unrealized_conversion_cast",
        "func.func",
        "func.return",
        "func.call",
        "func.constant",
        "func.call_indirect",
        "arith.constant",
        *NEUTRAL_RIGHT,
        "memref.cast",
        "tensor.cast",
        "bufferization.to_tensor",
        "bufferization.to_buffer",
    }
)
"""Ops of other dialects whose folders and canonicalization patterns are all modelled (or that
have none)."""

NOT_MODELLED_HINT = (
    "MLIR folds or canonicalizes it in ways stablehlo-py does not model; canonicalize programs "
    "without it, or run a pass that lowers it first"
)


def not_modelled(root: Operation) -> list[str]:
    """The names of ops under ``root`` whose canonicalization is not modelled."""
    names = set()
    for op in root.walk():
        name = op.name
        if name == "chlo.constant_like" and not isinstance(
            op.properties.get("value"), FloatAttr | IntegerAttr
        ):
            names.add(f"{name} (a value other than an integer or float scalar)")
        elif (
            name not in MODELLED_OPS
            and not name.startswith(MODELLED_DIALECTS)
            and not getattr(op, "UNREGISTERED", False)  # MLIR knows no folder for it either
        ):
            names.add(name)
    return sorted(names)


# ------------------------------------------------------------------------------------ the pass
REGION_SIMPLIFY_LEVELS = ("disabled", "normal", "aggressive")


def _check_regions(root: Operation, level: str) -> None:
    if level not in REGION_SIMPLIFY_LEVELS:
        raise StableHLOError(
            f"option 'region-simplify' of pass '{PASS_NAME}' expects one of "
            f"{', '.join(REGION_SIMPLIFY_LEVELS)}, got '{level}'"
        )
    if level == "disabled":
        return
    for op in root.walk():
        for region in op.regions:
            if len(region.blocks) > 1:
                raise NotSupportedError(
                    f"{PASS_NAME}: region simplification (region-simplify={level}) of the "
                    f"multi-block region of '{op.name}' is not supported by stablehlo-py; use "
                    "region-simplify=disabled"
                )


def _select(
    patterns: Sequence[RewritePattern], disabled: Sequence[str], enabled: Sequence[str]
) -> list[RewritePattern]:
    """FrozenRewritePatternSet's filtering by pattern label (our labels: the class names)."""
    out = []
    for p in patterns:
        label = type(p).__name__
        if label in disabled:
            continue
        if enabled and label not in enabled:
            continue
        out.append(p)
    return out


def canonicalize(
    root: Operation,
    config: GreedyConfig | None = None,
    patterns: Sequence[RewritePattern] | None = None,
    folders: dict[str, Folder] | None = None,
) -> bool:
    """Canonicalize ``root``'s regions (``config``: MLIR's canonicalizer defaults, top-down, when
    None); True when the rewrite converged."""
    missing = not_modelled(root)
    if missing:
        raise NotSupportedError(
            f"{PASS_NAME}: the canonicalization of {', '.join(repr(n) for n in missing)} is not "
            f"supported by stablehlo-py ({NOT_MODELLED_HINT})"
        )
    return apply_patterns_greedily(
        root,
        canonicalization_patterns() if patterns is None else patterns,
        folders=fold_hooks() if folders is None else folders,
        config=GreedyConfig(top_down=True) if config is None else config,
        materialize=materialize,
    )


def run(op: Operation, options: dict[str, object]) -> Operation:
    _check_regions(op, str(options["region-simplify"]))
    config = GreedyConfig(
        top_down=bool(options["top-down"]),
        max_iterations=int(options["max-iterations"]),  # type: ignore[call-overload]
        max_num_rewrites=int(options["max-num-rewrites"]),  # type: ignore[call-overload]
    )
    patterns = _select(
        canonicalization_patterns(),
        list(options["disable-patterns"]),  # type: ignore[call-overload]
        list(options["enable-patterns"]),  # type: ignore[call-overload]
    )
    with gc_paused():
        converged = canonicalize(op, config, patterns)
    if bool(options["test-convergence"]) and not converged:
        raise GreedyRewriteError(
            f"{PASS_NAME}: the greedy pattern rewrite did not converge after "
            f"{config.max_iterations} iterations (test-convergence)"
        )
    return op
