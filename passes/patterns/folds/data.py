"""The aggressive folder's data-movement folds: iota (FoldIotaOpPattern), reverse
(FoldReverseOpPattern), transpose (FoldTransposeOpPattern), with upstream's conditions; the values
are the interpreter's semantics (passes/patterns/folds/evaluate.py)."""

from __future__ import annotations

import numpy as np
from stablehlo_py.passes.patterns.folds.evaluate import iota, reverse, transpose
from stablehlo_py.passes.patterns.shape_folder import (
    Fold,
    FoldOptions,
    FoldResult,
    _element,
    _int_prop,
    _ints_prop,
    _is_float,
    _is_int,
    _static,
    _within_limit,
    constant_attr,
)
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation

from stablehlo_py.ir.text.dense import dense_values, is_splat, make_dense
from stablehlo_py.ir.types import num_elements, storage_dtype

__all__ = ["DATA_FOLDS"]


def _fold_iota(op: Operation, options: FoldOptions) -> FoldResult:
    """Integer iotas of at most one element (upstream: larger ones are left, "currently causes
    OOMs"), within the element limit."""
    rt = op.results[0].type
    if not _static(rt) or not _within_limit(rt, options) or not _is_int(_element(rt)):
        return None
    shape = rt.get_shape()  # type: ignore[union-attr]
    if num_elements(shape) > 1:
        return None
    dtype = np.dtype(storage_dtype(_element(rt)))
    return make_dense(rt, iota(_int_prop(op, "iota_dimension"), shape, dtype))  # type: ignore[arg-type]


def _int_or_float_constant(op: Operation) -> DenseIntOrFPElementsAttr | None:
    """The constant value of ``op``'s operand when its elements are integers or floats."""
    attr = constant_attr(op.operands[0])
    if attr is None:
        return None
    e = _element(op.operands[0].type)
    return attr if _is_int(e) or _is_float(e) else None


def _fold_reverse(op: Operation, options: FoldOptions) -> FoldResult:
    """Integer and float constants; a trivial reverse (no dimensions, at most one element, a splat,
    reversed dimensions of size 1) is left to the simplifier."""
    ot = op.operands[0].type
    if not _static(ot) or not _within_limit(ot, options):
        return None
    attr = _int_or_float_constant(op)
    if attr is None:
        return None
    dims = _ints_prop(op, "dimensions")
    shape = ot.get_shape()  # type: ignore[union-attr]
    if not dims or num_elements(shape) <= 1 or is_splat(attr) or all(shape[d] == 1 for d in dims):
        return None
    return make_dense(op.results[0].type, reverse(dense_values(attr), dims))  # type: ignore[arg-type]


def _fold_transpose(op: Operation, options: FoldOptions) -> FoldResult:
    """Any static constant of integers or floats (splats too); no element limit, as upstream."""
    rt = op.results[0].type
    if not _static(rt):
        return None
    attr = _int_or_float_constant(op)
    if attr is None:
        return None
    out = transpose(dense_values(attr), _ints_prop(op, "permutation"))
    return make_dense(rt, out.reshape(rt.get_shape()))  # type: ignore[union-attr]


DATA_FOLDS: dict[str, Fold] = {
    "stablehlo.iota": _fold_iota,
    "stablehlo.reverse": _fold_reverse,
    "stablehlo.transpose": _fold_transpose,
}
"""Entries of the one fold table (shape_folder.FOLDS) that only the aggressive folder applies."""
