"""MLIR's partial dialect conversion (mlir/lib/Transforms/Utils/DialectConversion.cpp,
applyPartialConversion with pattern rollback), for passes that legalize ops by patterns.

    conversion = Conversion(legality, patterns, fold=fold, materialize=materialize)
    conversion.run(module)        # raises LegalizationError; the module is then unchanged

* ``legality(op)``: LEGAL, ILLEGAL or UNKNOWN (an op the ConversionTarget does not mention).
* ``patterns``: op name -> pattern ``(op, conversion) -> list[SSAValue]`` (the values replacing
  the op's results) or raising ``NoMatch(reason)``.  A pattern builds ops with
  ``conversion.create/cast/insert``: they go right before the op being legalized.
* ``fold(op)``: the op's fold (``patterns/mlir_folds.fold``: None, an in-place ``Rewrite``, or a
  value or constant per result); ``materialize(value, type, op)``: the op's dialect's
  materializeConstant (a new unlinked constant op, or None).

The order is MLIR's:

1. The ops are collected in pre-order (an op, then the ops of its regions, then the next op);
   each is legalized in turn; one already replaced is skipped.
2. Legalizing an op: a LEGAL op is done.  Otherwise (illegal or unknown) its fold is tried first
   (a constant-like op does not fold): replacement values are used as they are, constants are
   materialized right before the op and must themselves legalize, else the fold is undone; an
   in-place fold (the op changed, e.g. the Commutative trait moving constant operands last)
   legalizes the op again.  Then its pattern: the ops it creates must legalize too, else
   everything it built is undone.
3. An ILLEGAL op that neither folds nor matches fails the conversion with upstream's
   "failed to legalize operation '<name>' that was explicitly marked illegal" (and the reason);
   an UNKNOWN one is left as it is.
4. Replacements are lazy, as MLIR's: until the conversion commits, an op's operands are the
   original values (a pattern or fold sees the original defining ops); at the end each replaced
   value's uses go to its (final) replacement and the replaced ops are erased.  A failed
   conversion undoes everything (created ops erased, in-place changes reverted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import Enum

from stablehlo_py.passes.drivers._common import carry_location, gc_paused, legalize_error
from stablehlo_py.passes.patterns.mlir_folds import FoldResult, Rewrite
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue

from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.infer import InferError, infer_result_types
from stablehlo_py.ir.xdsl_compat.construct import new_op
from stablehlo_py.ir.xdsl_compat.side_data import carry_place

__all__ = [
    "Conversion",
    "Legality",
    "NoMatch",
    "Pattern",
    "Where",
    "locate",
]


class Legality(Enum):
    LEGAL = "legal"
    ILLEGAL = "illegal"
    UNKNOWN = "unknown"


class NoMatch(Exception):
    """A pattern does not apply (upstream's notifyMatchFailure / failure()); the reason."""


Where = Operation | SSAValue
"""What a new op's location comes from: an op (its location) or a value (its definition's)."""

Pattern = Callable[[Operation, "Conversion"], list[SSAValue]]
Materializer = Callable[[Attribute, Attribute, Operation], Operation | None]

MAX_DEPTH = 32
"""Nested legalizations (a fold's constant, an in-place fold legalized again) deeper than this
stop (MLIR recurses without a bound; a fold that keeps changing an op in place never ends)."""


def locate(new: Operation, where: Where) -> None:
    """Give ``new`` the location of an op, or of the value's definition (a block argument's own)."""
    if isinstance(where, Operation):
        carry_location(new, where)
    elif isinstance(where, OpResult):
        carry_location(new, where.owner)
    elif isinstance(where, BlockArgument):
        loc = getattr(where, "location", None)
        if loc is not None:
            new.location = loc
        carry_place(new, where)


class Conversion:
    """One partial conversion (MLIR's OperationConverter with its ConversionPatternRewriter): the
    target's legality, the patterns, the fold hook and constant materializer, and the journal of
    what it changed (see the module docstring)."""

    def __init__(
        self,
        legality: Callable[[Operation], Legality],
        patterns: Mapping[str, Pattern],
        fold: Callable[[Operation], FoldResult] | None = None,
        materialize: Materializer | None = None,
        no_pattern: Callable[[Operation], str] | None = None,
    ):
        self.legality = legality
        self.patterns = patterns
        self.fold = fold
        self.materialize = materialize
        self.no_pattern = no_pattern or (lambda op: "no pattern converts it")
        self.anchors: list[Operation] = []
        # the journal
        self.created: list[Operation] = []
        self.replaced: list[tuple[Operation, list[SSAValue]]] = []
        self.replaced_ops: set[Operation] = set()
        self.modified: list[tuple[Operation, list[SSAValue], dict[str, Attribute]]] = []
        self.depth = 0

    # ------------------------------------------------------------------------- building
    @contextmanager
    def at(self, op: Operation) -> Iterator[None]:
        """New ops go right before ``op`` inside the block."""
        self.anchors.append(op)
        try:
            yield
        finally:
            self.anchors.pop()

    def insert(self, op: Operation, where: Where) -> Operation:
        locate(op, where)
        anchor = self.anchors[-1]
        block = anchor.parent
        assert block is not None
        block.insert_op_before(op, anchor)
        self.created.append(op)
        return op

    def create(
        self,
        name: str,
        operands: Sequence[SSAValue],
        where: Where,
        properties: Mapping[str, Attribute] | None = None,
        result_type: Attribute | None = None,
    ) -> SSAValue:
        """A `name` op (its result type from its inference rule unless given); its one result."""
        props = dict(properties or {})
        if result_type is None:
            try:
                (result_type,) = infer_result_types(
                    name, [v.type for v in operands], props, operands=list(operands)
                )
            except InferError as e:
                raise NoMatch(f"'{name}' cannot be built: {e}") from None
        cls = default_registry().ops[name]
        op = new_op(cls, list(operands), [result_type], props)
        return self.insert(op, where).results[0]

    def cast(self, value: SSAValue, to: Attribute, where: Where) -> SSAValue:
        """`builtin.unrealized_conversion_cast value : T to <to>`."""
        op = UnrealizedConversionCastOp.create(operands=[value], result_types=[to])
        return self.insert(op, where).results[0]

    # -------------------------------------------------------------------------- journal
    def _snapshot(self) -> tuple[int, int, int]:
        return len(self.created), len(self.replaced), len(self.modified)

    def _restore(self, snapshot: tuple[int, int, int]) -> None:
        n_created, n_replaced, n_modified = snapshot
        while len(self.modified) > n_modified:
            op, operands, properties = self.modified.pop()
            op.operands = operands
            op.properties = properties
        while len(self.replaced) > n_replaced:
            op, _ = self.replaced.pop()
            self.replaced_ops.discard(op)
        while len(self.created) > n_created:
            op = self.created.pop()
            op.detach()
            op.erase()

    def _replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        self.replaced.append((op, list(values)))
        self.replaced_ops.add(op)

    def _rewrite_in_place(self, op: Operation, rewrite: Rewrite) -> None:
        """An in-place fold's change of ``op`` (undone if the conversion fails)."""
        self.modified.append((op, list(op.operands), dict(op.properties)))
        op.operands = list(rewrite.operands)
        op.properties = {**op.properties, **rewrite.properties}

    # ------------------------------------------------------------------------ legalizing
    def legalize(self, op: Operation) -> str | None:
        """None when ``op`` is legal or was legalized, else why it was not."""
        if op in self.replaced_ops or self.legality(op) is Legality.LEGAL:
            return None
        if self.depth >= MAX_DEPTH:
            return f"legalization nested deeper than {MAX_DEPTH} levels"
        self.depth += 1
        try:
            if self._fold(op):
                return None
            return self._apply_pattern(op)
        finally:
            self.depth -= 1

    def _fold(self, op: Operation) -> bool:
        if self.fold is None:
            return False
        snapshot = self._snapshot()
        outcome = self.fold(op)
        if outcome is None:
            return False
        if isinstance(outcome, Rewrite):
            self._rewrite_in_place(op, outcome)
            return self.legalize(op) is None
        values: list[SSAValue] = []
        constants: list[Operation] = []
        with self.at(op):
            for result, value in zip(op.results, outcome, strict=True):
                if isinstance(value, SSAValue):
                    values.append(value)
                    continue
                made = self.materialize(value, result.type, op) if self.materialize else None
                if made is None:
                    self._restore(snapshot)
                    return False
                self.insert(made, op)
                constants.append(made)
                values.append(made.results[0])
        self._replace(op, values)
        for c in constants:
            if self.legalize(c) is not None:
                self._restore(snapshot)
                return False
        return True

    def _apply_pattern(self, op: Operation) -> str | None:
        pattern = self.patterns.get(op.name)
        if pattern is None:
            return self.no_pattern(op)
        snapshot = self._snapshot()
        n_before = len(self.created)
        try:
            with self.at(op):
                values = pattern(op, self)
            if len(values) != len(op.results):
                raise NoMatch(f"the pattern gave {len(values)} values for {len(op.results)}")
            self._replace(op, values)
            for new in list(self.created[n_before:]):
                why = self.legalize(new) if new.parent is not None else None
                if why is not None:
                    raise NoMatch(
                        f"it would create '{new.name}', which cannot be legalized ({why})"
                    )
        except NoMatch as e:
            self._restore(snapshot)
            return str(e)
        return None

    # ---------------------------------------------------------------------------- driver
    def run(self, root: Operation) -> Operation:
        """Legalize every op nested in ``root`` (in place), or raise LegalizationError at the first
        illegal op that cannot be legalized and leave ``root`` as it was."""
        with gc_paused():
            ops = [o for o in root.walk() if o is not root]
            for op in ops:
                if op in self.replaced_ops:
                    continue
                reason = self.legalize(op)
                if reason is not None and self.legality(op) is Legality.ILLEGAL:
                    error = legalize_error(op, reason)
                    self._restore((0, 0, 0))
                    raise error
            self._commit()
        return root

    def _commit(self) -> None:
        final: dict[SSAValue, SSAValue] = {}
        for op, values in self.replaced:
            for r, v in zip(op.results, values, strict=True):
                final[r] = v

        def resolve(v: SSAValue) -> SSAValue:
            seen = 0
            while v in final and seen <= len(final):
                v = final[v]
                seen += 1
            return v

        for op, _ in self.replaced:
            for r in op.results:
                r.replace_all_uses_with(resolve(r))
        for op, _ in reversed(self.replaced):
            op.detach()
            op.erase()
        self.created.clear()
        self.replaced.clear()
        self.replaced_ops.clear()
        self.modified.clear()
