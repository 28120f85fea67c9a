"""A greedy pattern rewrite driver: MLIR's `applyPatternsGreedily`
(mlir/lib/Transforms/Utils/GreedyPatternRewriteDriver.cpp, RegionPatternRewriteDriver) with its
`OperationFolder` constant uniquing (FoldUtils.cpp), over xDSL's `RewritePattern`/`PatternRewriter`.

API
---
    apply_patterns_greedily(op_or_region, patterns, *, folders=None, config=GreedyConfig(),
                            materialize=materialize_constant) -> bool   # True: converged
    raise_if_not_converged(converged, what, config)                    # GreedyRewriteError
    run_greedily(op, patterns, what, config=GreedyConfig()) -> op      # both: a pass's run

* ``patterns``: xDSL ``RewritePattern``s, tried on each op until one changes the IR, in MLIR's
  PatternApplicator order: higher ``benefit`` first (an optional int attribute of the pattern,
  default 1), then a pattern whose ``root`` attribute names the op before any-op patterns (no
  ``root``), then list order.  ``root`` also skips the pattern for other ops.  A pattern must make every change through the rewriter
  (``rewriter.replace/erase/insert/replace_all_uses_with``, ``rewriter.notify_op_modified(op)`` after an
  in-place change), as MLIR's patterns must, so the worklist learns about it.
* ``folders``: op name -> ``Folder`` (an op's `fold` hook).  A folder returns None (does not fold),
  ``IN_PLACE`` (it changed the op in place), or one ``Attribute | SSAValue`` per result.  Attributes are
  materialized by ``materialize(value, type, op)`` (the dialect's `materializeConstant`: a new,
  unlinked constant op, or None when it cannot) right before the op, with the op's location.
* ``config``: MLIR's GreedyRewriteConfig: ``top_down`` (default False: bottom-up, as MLIR),
  ``max_iterations`` (10; -1 = no limit), ``max_num_rewrites`` (-1), ``fold`` (True),
  ``cse_constants`` (True).
* An Operation argument rewrites each of its regions (MLIR's applyPatternsGreedily(Operation*)); the
  region is the scope: ops outside it are never put on the worklist.

The order, as upstream's driver:
1. Each iteration starts with a fresh worklist and OperationFolder.  The region's ops are walked
   (post-order; pre-order when ``top_down``, then the list is reversed); each constant is offered to
   the folder (`insertKnownConstant`): the first constant of a (dialect, value, type) in the enclosing
   isolated-from-above region (a function body) moves to the start of that region's entry block
   (unless it directly follows a constant the folder owns); a later equal one is replaced by it (its
   users re-enter the worklist) and erased.  Every other op goes on the worklist.
2. Ops are popped from the back (LIFO).  An op is erased when trivially dead (no uses, no effects, not
   a terminator or symbol); else, when folding is on and it is not a constant, its folder runs; else
   the patterns are tried.
3. Worklist bookkeeping (the rewriter's listener): inserted and modified ops are pushed (with their
   ancestors up to the scope); an erased op leaves the worklist, and the producer of each of its
   operands with at most one other user is pushed (it may be dead now); an op already on the worklist
   keeps its place.
4. The iteration repeats while something changed, at most ``max_iterations`` times; constants moved
   or deduplicated while populating the worklist do not count as a change.

Not modelled: region simplification (`simplifyRegions`: unreachable blocks, dead block arguments and
identical blocks of multi-block CFG regions; StableHLO's regions have one block), strict modes,
`cseBetweenIterations`, partial folds (a folder replaces all results or none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    ConstantLike,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)

from stablehlo_py.errors import StableHLOError

__all__ = [
    "IN_PLACE",
    "GreedyConfig",
    "GreedyRewriteError",
    "OperationFolder",
    "apply_patterns_greedily",
    "constant_value_of",
    "is_trivially_dead",
    "materialize_constant",
    "own_effects",
    "raise_if_not_converged",
    "run_greedily",
]


class _InPlace:
    def __repr__(self) -> str:
        return "IN_PLACE"


IN_PLACE = _InPlace()
"""A folder's result when it changed the op in place (MLIR: fold returned the op's own result)."""

FoldOutcome = Sequence[Attribute | SSAValue] | _InPlace | None
Folder = Callable[[Operation], FoldOutcome]
Materializer = Callable[[Attribute, Attribute, Operation], Operation | None]

NO_LIMIT = -1


@dataclass(frozen=True)
class GreedyConfig:
    """MLIR's GreedyRewriteConfig (the fields this driver models)."""

    top_down: bool = False
    max_iterations: int = 10
    max_num_rewrites: int = NO_LIMIT
    fold: bool = True
    cse_constants: bool = True


class GreedyRewriteError(StableHLOError):
    """A greedy rewrite did not converge within its iteration limit."""


def raise_if_not_converged(converged: bool, what: str, config: GreedyConfig) -> None:
    """Raise a clear error when ``converged`` is False (``what``: the pass or pattern set)."""
    if not converged:
        raise GreedyRewriteError(
            f"{what}: the greedy pattern rewrite did not converge after "
            f"{config.max_iterations} iterations (a pattern keeps changing the IR, or the IR "
            "needs more iterations)"
        )


# ------------------------------------------------------------------------------- effects
def _custom_call_has_effects(op: Operation) -> bool:
    flag = op.properties.get("has_side_effect")
    return bool(getattr(getattr(flag, "value", None), "data", 0))


CONDITIONAL_EFFECTS: dict[str, Callable[[Operation], bool]] = {
    "stablehlo.custom_call": _custom_call_has_effects,
}
"""Ops whose declared memory effects depend on their attributes (upstream's getEffects): name ->
whether this op has effects.  Our op classes carry no effect trait for them."""


def own_effects(op: Operation) -> bool | None:
    """Whether the op declares effects of its own other than reads (an allocation of its own result
    does not count); None when it declares nothing (no MemoryEffect trait)."""
    pred = CONDITIONAL_EFFECTS.get(op.name)
    if pred is not None:
        return pred(op)
    traits = [
        t for t in op.get_traits_of_type(MemoryEffect) if not isinstance(t, RecursiveMemoryEffect)
    ]
    if not traits and not op.has_trait(RecursiveMemoryEffect, value_if_unregistered=False):
        return None
    for t in traits:
        effects = t.get_effects(op)
        if effects is None:
            return None
        for e in effects:
            if e.kind == MemoryEffectKind.READ:
                continue
            if (
                e.kind == MemoryEffectKind.ALLOC
                and isinstance(e.value, SSAValue)
                and e.value.owner is op
            ):
                continue
            return True
    return False


def _effect_free(op: Operation) -> bool:
    """MLIR's wouldOpBeTriviallyDeadImpl: no effects but reads, nested ops included when the op has
    recursive effects; an op that declares nothing may have any effect."""
    own = own_effects(op)
    if own is None or own:
        return False
    if op.has_trait(RecursiveMemoryEffect, value_if_unregistered=False):
        return all(_effect_free(n) for r in op.regions for b in r.blocks for n in b.ops)
    return True


def is_trivially_dead(op: Operation) -> bool:
    """MLIR's isOpTriviallyDead: no uses, not a terminator or symbol, no effects."""
    if any(r.first_use is not None for r in op.results):
        return False
    if op.has_trait(IsTerminator, value_if_unregistered=False):
        return False
    if op.has_trait(SymbolOpInterface, value_if_unregistered=False):
        return False
    return _effect_free(op)


# ------------------------------------------------------------------------------- constants
_CONSTANT_NAMES = frozenset({"stablehlo.constant", "chlo.constant", "arith.constant"})


def constant_value_of(op: Operation) -> Attribute | None:
    """MLIR's m_Constant on an op: the value of a ConstantLike op, else None."""
    if op.name not in _CONSTANT_NAMES and not op.has_trait(
        ConstantLike, value_if_unregistered=False
    ):
        return None
    if len(op.results) != 1:
        return None
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    return value


def materialize_constant(value: Attribute, type: Attribute, op: Operation) -> Operation | None:
    """The StableHLO dialect's materializeConstant: a `stablehlo.constant` of a dense value whose type
    is the result's type (None otherwise)."""
    if not isinstance(value, DenseIntOrFPElementsAttr) or value.type != type:
        return None
    from stablehlo_py.ir.ops.misc import ConstantOp

    return ConstantOp.create(properties={"value": value}, result_types=[type])


def _value_key(value: Attribute) -> object:
    """Equal constant values give equal keys (MLIR's attributes are uniqued; ours compare by their
    elements' bytes, so a splat and its expanded form are one value)."""
    if isinstance(value, DenseIntOrFPElementsAttr):
        from stablehlo_py.ir.text.dense import dense_values

        arr = dense_values(value)
        return ("dense", arr.dtype.str, arr.shape, arr.tobytes())
    return value


def _set_unknown_location(op: Operation) -> None:
    """MLIR's erasedFoldedLocation (UnknownLoc)."""
    from stablehlo_py.ir.text.location import UNKNOWN

    op.location = UNKNOWN  # type: ignore[attr-defined]


def insertion_region(block: Block) -> Region | None:
    """FoldUtils' getInsertionRegion: the closest enclosing region whose op is isolated from above
    (or is a top-level op)."""
    region = block.parent
    while region is not None:
        parent = region.parent
        if parent is None or parent.parent is None or parent.has_trait(IsolatedFromAbove):
            return region
        outer = parent.parent
        region = outer.parent
    return None


class OperationFolder:
    """MLIR's OperationFolder (the constant uniquing part): one constant per (dialect, value, type) in
    each insertion region, at the start of the region's entry block."""

    def __init__(self, rewriter_factory: Callable[[Operation], PatternRewriter]):
        self._rewriter = rewriter_factory
        self._scopes: dict[Region, dict[tuple[object, ...], Operation]] = {}
        self._owned: dict[Operation, tuple[Region, tuple[object, ...]]] = {}

    def is_owned(self, op: Operation | None) -> bool:
        return op is not None and op in self._owned

    def insert_known_constant(self, op: Operation, value: Attribute) -> bool:
        """True when ``op`` is kept (and possibly moved), False when an equal constant replaced it."""
        block = op.parent
        assert block is not None
        if op in self._owned:
            if block.first_op is not op and not self.is_owned(op.prev_op):
                self._move_to_front(op, block)
                _set_unknown_location(op)
            return True
        region = insertion_region(block)
        if region is None or not region.blocks:
            return True
        key = (op.name.split(".", 1)[0], _value_key(value), op.results[0].type)
        known = self._scopes.setdefault(region, {})
        existing = known.get(key)
        if existing is not None:
            rewriter = self._rewriter(op)
            rewriter.replace(op, [], new_results=list(existing.results))
            _set_unknown_location(existing)
            return False
        insert_block = region.blocks[0]
        if block is not insert_block:
            self._move_to_front(op, insert_block)
            _set_unknown_location(op)
        elif insert_block.first_op is not op and not self.is_owned(op.prev_op):
            self._move_to_front(op, insert_block)
        known[key] = op
        self._owned[op] = (region, key)
        return True

    @staticmethod
    def _move_to_front(op: Operation, block: Block) -> None:
        front = block.first_op
        if front is op:
            return
        op.detach()
        if front is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, front)


# ------------------------------------------------------------------------------- the worklist
class _Worklist:
    """MLIR's Worklist: LIFO with set semantics and O(1) removal (holes are None)."""

    def __init__(self) -> None:
        self.list: list[Operation | None] = []
        self.index: dict[Operation, int] = {}

    def clear(self) -> None:
        self.list.clear()
        self.index.clear()

    def __bool__(self) -> bool:
        return bool(self.index)

    def push(self, op: Operation) -> None:
        if op in self.index:
            return
        self.index[op] = len(self.list)
        self.list.append(op)

    def pop(self) -> Operation:
        lst = self.list
        while lst[-1] is None:
            lst.pop()
        op = lst.pop()
        assert op is not None
        del self.index[op]
        while lst and lst[-1] is None:
            lst.pop()
        return op

    def remove(self, op: Operation) -> None:
        i = self.index.pop(op, None)
        if i is not None:
            self.list[i] = None

    def reverse(self) -> None:
        self.list.reverse()
        self.index = {op: i for i, op in enumerate(self.list) if op is not None}


# ------------------------------------------------------------------------------- the driver
def _walk(region: Region, pre_order: bool, visit: Callable[[Operation], bool]) -> None:
    """MLIR's Region::walk with early-increment iteration (the visited op may move or be erased);
    ``visit`` returns False to skip an op's regions (pre-order only)."""
    for block in list(region.blocks):
        op = block.first_op
        while op is not None:
            nxt = op.next_op
            if pre_order:
                if visit(op):
                    for r in op.regions:
                        _walk(r, pre_order, visit)
            else:
                for r in op.regions:
                    _walk(r, pre_order, visit)
                visit(op)
            op = nxt


def _nested(op: Operation) -> Iterator[Operation]:
    return op.walk(region_first=True)


class _Driver:
    def __init__(
        self,
        scope: Region,
        patterns: Sequence[RewritePattern],
        folders: dict[str, Folder],
        config: GreedyConfig,
        materialize: Materializer,
    ):
        self.scope = scope
        self.patterns = list(patterns)
        self._by_name: dict[str, list[RewritePattern]] = {}
        self.folders = folders
        self.config = config
        self.materialize = materialize
        self.worklist = _Worklist()
        self.listener = PatternRewriterListener(
            operation_insertion_handler=[self._inserted],
            operation_removal_handler=[self._erased],
            operation_modification_handler=[self._modified],
        )

    # -- listener (MLIR's GreedyPatternRewriteDriver notifications)
    def add_to_worklist(self, op: Operation) -> None:
        """The op and its ancestors up to the scope region (none when the op is outside it)."""
        ancestors = []
        cur: Operation | None = op
        while cur is not None:
            ancestors.append(cur)
            block = cur.parent
            region = block.parent if block is not None else None
            if region is self.scope:
                for a in ancestors:
                    self.worklist.push(a)
                return
            if region is None:
                return
            cur = region.parent

    def _inserted(self, op: Operation) -> None:
        self.add_to_worklist(op)

    def _modified(self, op: Operation) -> None:
        self.add_to_worklist(op)

    def _erased(self, op: Operation) -> None:
        # xDSL notifies the erased op once (MLIR: each nested op, innermost first)
        for sub in list(_nested(op)):
            self._add_operands(sub)
            self.worklist.remove(sub)

    def _add_operands(self, op: Operation) -> None:
        for operand in op.operands:
            producer = operand.owner
            if not isinstance(producer, Operation):
                continue
            other: Operation | None = None
            many = False
            for use in operand.uses:
                user = use.operation
                if user is op or user is other:
                    continue
                if other is None:
                    other = user
                    continue
                many = True
                break
            if not many:
                self.add_to_worklist(producer)

    def patterns_for(self, name: str) -> list[RewritePattern]:
        """MLIR's PatternApplicator order: by benefit (highest first, stable), a pattern rooted at
        the op's name before an any-op pattern of the same benefit."""
        got = self._by_name.get(name)
        if got is None:
            rooted = [p for p in self.patterns if getattr(p, "root", None) == name]
            anyop = [p for p in self.patterns if getattr(p, "root", None) is None]
            rooted.sort(key=_benefit)
            anyop.sort(key=_benefit)
            got = []
            i = j = 0
            while i < len(rooted) or j < len(anyop):
                if j >= len(anyop) or (
                    i < len(rooted) and _benefit(rooted[i]) <= _benefit(anyop[j])
                ):
                    got.append(rooted[i])
                    i += 1
                else:
                    got.append(anyop[j])
                    j += 1
            self._by_name[name] = got
        return got

    def rewriter(self, op: Operation) -> PatternRewriter:
        rewriter = PatternRewriter(op)
        rewriter.extend_from_listener(self.listener)
        return rewriter

    # -- the iterations
    def simplify(self) -> bool:
        config = self.config
        iteration = 0
        go_on = False
        while True:
            iteration += 1
            if config.max_iterations != NO_LIMIT and iteration > config.max_iterations:
                break
            self.worklist.clear()
            folder = OperationFolder(self.rewriter)

            def visit(op: Operation, folder: OperationFolder = folder) -> bool:
                if config.cse_constants:
                    value = constant_value_of(op)
                    if value is not None and not folder.insert_known_constant(op, value):
                        return False
                self.add_to_worklist(op)
                return True

            _walk(self.scope, config.top_down, visit)
            if config.top_down:
                self.worklist.reverse()
            go_on = self.process_worklist()
            if not go_on:
                break
        return not go_on

    def process_worklist(self) -> bool:
        changed = False
        rewrites = 0
        limit = self.config.max_num_rewrites
        worklist = self.worklist
        while worklist and (limit == NO_LIMIT or rewrites < limit):
            op = worklist.pop()
            if op.parent is None:
                continue  # detached by a pattern without telling the rewriter
            rewriter = self.rewriter(op)
            if is_trivially_dead(op):
                rewriter.erase(op)
                changed = True
                continue
            if self.config.fold and self._try_fold(op, rewriter):
                changed = True
                continue
            for pattern in self.patterns_for(op.name):
                rewriter.has_done_action = False
                rewriter.insertion_point = InsertPoint.before(op)
                pattern.match_and_rewrite(op, rewriter)
                if rewriter.has_done_action:
                    changed = True
                    rewrites += 1
                    break
        return changed

    def _try_fold(self, op: Operation, rewriter: PatternRewriter) -> bool:
        folder = self.folders.get(op.name)
        if folder is None or constant_value_of(op) is not None:
            return False
        result = folder(op)
        if result is None:
            return False
        if isinstance(result, _InPlace):
            rewriter.notify_op_modified(op)
            return True
        assert len(result) == len(op.results), f"{op.name}'s folder gave a wrong result count"
        new_ops: list[Operation] = []
        values: list[SSAValue] = []
        for r, res in zip(result, op.results):
            if isinstance(r, SSAValue):
                values.append(r)
                continue
            const = self.materialize(r, res.type, op)
            if const is None:
                return False  # materialization failed: the op is left to the patterns
            _carry_location(const, op)
            new_ops.append(const)
            values.append(const.results[0])
        rewriter.replace(op, new_ops, new_results=values)
        return True


def _benefit(pattern: RewritePattern) -> int:
    """Sort key: higher benefit first."""
    return -int(getattr(pattern, "benefit", 1))


def _carry_location(new: Operation, old: Operation) -> None:
    from stablehlo_py.passes.drivers._common import carry_location

    carry_location(new, old)


def apply_patterns_greedily(
    target: Operation | Region,
    patterns: Sequence[RewritePattern],
    *,
    folders: dict[str, Folder] | None = None,
    config: GreedyConfig = GreedyConfig(),
    materialize: Materializer = materialize_constant,
) -> bool:
    """Rewrite ``target``'s regions (or the region) to a fixpoint; True when it converged."""
    regions = [target] if isinstance(target, Region) else list(target.regions)
    converged = True
    for region in regions:
        driver = _Driver(region, patterns, folders or {}, config, materialize)
        converged &= driver.simplify()
    return converged


def run_greedily(
    op: Operation,
    patterns: Sequence[RewritePattern],
    what: str,
    config: GreedyConfig = GreedyConfig(),
) -> Operation:
    """A greedy pass's run: rewrite ``op`` with ``patterns`` to a fixpoint, raising a
    GreedyRewriteError when it does not converge (``what``: the pass's name)."""
    raise_if_not_converged(apply_patterns_greedily(op, patterns, config=config), what, config)
    return op
