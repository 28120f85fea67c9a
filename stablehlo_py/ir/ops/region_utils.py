"""Region helpers shared by the verifiers of the ops with regions and the collectives (control_flow,
reduction, collectives): region signatures and the scalar reducer check (reduce_c6, all_reduce_c5...).
Shape, type and attribute helpers are in `constraints`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.constraints import (  # noqa: F401  (DYN ... int_value: re-exported)
    DYN,
    dense_ints,
    dims_compatible,
    i64_array,
    int_value,
    is_promotable,
    is_scalar_tensor,
    rank,
    shapes_compatible,
    t2s,
    types2s,
    types_compatible,
)
from stablehlo_py.ir.types import element_type, shape_of

# Former names of helpers that now live in `constraints`.
shape = shape_of
elem = element_type
dim_eq = dims_compatible


# ----------------------------------------------------------------------------------- regions
def entry_arg_types(region: Region) -> list[Attribute]:
    if not region.blocks:
        return []
    return [a.type for a in region.blocks.first.args]  # type: ignore[union-attr]


def return_types(region: Region) -> list[Attribute] | None:
    """Operand types of the region's terminator (None when the region is empty)."""
    if not region.blocks:
        return None
    last = region.blocks.last
    if last is None or last.last_op is None:
        return []
    return [v.type for v in last.last_op.operands]


def require_single_block(op: Operation, region: Region, what: str, non_empty: bool = False) -> None:
    """ODS `SizedRegion<1>:$what` (MLIR's words); with `non_empty`, also the SingleBlock trait of
    the ops with SingleBlockImplicitTerminator (all_reduce, reduce, ...).  The terminator itself is
    left to the op's verifier, as upstream's verifiers take the block's last op for it."""
    if len(region.blocks) != 1:
        index = next(i for i, r in enumerate(op.regions) if r is region)
        raise VerifyException(
            f"region #{index} ('{what}') failed to verify constraint: region with 1 blocks"
        )
    if non_empty and region.blocks.first.first_op is None:  # type: ignore[union-attr]
        raise VerifyException("expects a non-empty block")


def check_scalar_reducer(
    region: Region,
    n: int,
    inputs: Sequence[Attribute],
    what: str,
    label: str,
    allowed_dims: Sequence[int] = (),
) -> list[Attribute]:
    """A reducer `(tensor<E0>..tensor<EN-1>, tensor<E0>..tensor<EN-1>) -> (tensor<E0>..tensor<EN-1>)`
    with `is_promotable(element_type(inputs[i]), Ei)` (reduce_c6, reduce_window_c13, all_reduce_c5...).

    As upstream's verifyReducerShape, an accumulator may also be a ranked tensor whose dimensions are
    a subsequence of `allowed_dims` (the result dimensions of reduce); with no allowed dimensions it
    must be 0-d.  Returns the accumulator types."""
    args = entry_arg_types(region)
    rets = return_types(region) or []
    if len(args) != 2 * n:
        raise VerifyException(
            f"{label}: {what} must take {2 * n} arguments, takes {len(args)} {types2s(args)}"
        )
    if len(rets) != n:
        raise VerifyException(
            f"{label}: {what} must return {n} values, returns {len(rets)} {types2s(rets)}"
        )
    accs = args[:n]
    for i in range(n):
        a, b, r = args[i], args[i + n], rets[i]
        if not isinstance(a, (TensorType, UnrankedTensorType)):
            raise VerifyException(f"{label}: argument #{i} of {what} must be a tensor, is {t2s(a)}")
        if not (types_compatible(a, b) and types_compatible(a, r)):
            raise VerifyException(
                f"{label}: {what} argument #{i} ({t2s(a)}), argument #{i + n} ({t2s(b)}) and result "
                f"#{i} ({t2s(r)}) must have the same type"
            )
        if i < len(inputs) and not is_promotable(element_type(inputs[i]), element_type(a)):
            raise VerifyException(
                f"{label}: element type {t2s(element_type(inputs[i]))} of input #{i} cannot be promoted to "
                f"the {what} type {t2s(element_type(a))}"
            )
        s = shape_of(b)
        if s is None or not s:
            continue
        k = 0
        for d in allowed_dims:
            if k < len(s) and dims_compatible(d, s[k]):
                k += 1
        if k != len(s):
            raise VerifyException(
                f"{label}: argument #{i + n} of {what} must be a 0-d tensor, is {t2s(b)}"
                if not allowed_dims
                else f"{label}: the shape of {what} argument #{i + n} ({t2s(b)}) is not compatible "
                f"with the result shape {list(allowed_dims)}"
            )
    return accs


# ----------------------------------------------------------------------------------- values
def values(vs: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in vs]
