"""MLIR's verification order for ops with regions: an op's InferTypeOpInterface check runs with its
region invariants, after the ops nested in its regions are verified (the op's ODS checks, traits
and `verify()` run before them).  Our verifier walks outer ops first, so an op with regions whose
inference check fails first verifies its nested ops: a nested op's own failure is what upstream
reports (at the nested op), e.g. a `stablehlo.return` of a tuple inside an `if` whose branches then
mismatch."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.infer import verify_inferred


def after_regions(op: Operation, check: Callable[[Operation], None]) -> None:
    """Run `check(op)` -- a check MLIR makes after the ops nested in `op`'s regions (a region trait,
    the InferTypeOpInterface check) -- reporting a nested op's own failure first: when `check`
    fails, the first nested op that does not verify raises its VerifyError instead (only then are
    the nested ops verified here, so a valid program pays nothing)."""
    try:
        check(op)
    except VerifyException:
        from stablehlo_py.ir.verify import verify

        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    verify(nested)  # raises the nested op's VerifyError, if any
        raise


def verify_inferred_after_regions(op: Operation) -> None:
    """`verify_inferred(op)` in MLIR's order (see `after_regions`)."""
    after_regions(op, verify_inferred)
