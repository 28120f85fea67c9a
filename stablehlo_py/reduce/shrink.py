"""Shrinking shapes: arguments of the entry function sliced along one dimension, and the result
types of every op it reaches inferred again by upstream's rules (``stablehlo_py.ir.infer``).

An op reached whose types cannot be inferred (no rule, as ``reshape`` or ``broadcast_in_dim``, which
declare their result types; or operands that no longer fit together) makes the candidate not
applicable.  One help: a splat constant beside the shrunk operand, of its old type, is replaced
by a splat of its new type (``multiply(x, 0.5)``), for that op only.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import IsTerminator

from stablehlo_py.ir.infer import InferError, infer_op
from stablehlo_py.ir.text.dense import dense_values
from stablehlo_py.ir.xdsl_compat.fields import retype_values
from stablehlo_py.reduce.edit import Edit, NotApplicable

__all__ = ["shrink_arguments"]


def shrink_arguments(edit: Edit, indices: list[int], dim: int) -> None:
    """Arguments ``indices`` of the entry function (and their inputs) keep the first half of
    dimension ``dim``; the types downstream follow."""
    block = edit.entry.body.block
    old: dict[SSAValue, Attribute] = {}
    for index in indices:
        arg = block.args[index]
        t = arg.type
        if not isinstance(t, TensorType) or dim >= t.get_num_dims() or t.get_shape()[dim] <= 1:
            raise NotApplicable("nothing to halve")
        shape = list(t.get_shape())
        shape[dim] = shape[dim] // 2
        value = np.asarray(edit.inputs[index])
        sl = [slice(None)] * value.ndim
        sl[dim] = slice(0, shape[dim])
        edit.inputs[index] = np.ascontiguousarray(value[tuple(sl)])
        old[arg] = t
        retype_values([arg], [TensorType(t.element_type, shape, t.encoding)])
    for op in edit.entry.walk(region_first=True):
        if op is edit.entry or op.has_trait(IsTerminator, value_if_unregistered=False):
            continue
        if not _reached(op, old):
            continue
        _resize_splats(edit, op, old)
        try:
            types = infer_op(op)
        except (KeyError, InferError) as e:
            raise NotApplicable(f"{op.name}: result types not inferable ({e})") from None
        changed = [(r, nt) for r, nt in zip(op.results, types) if r.type != nt]
        for r, _ in changed:
            old[r] = r.type
        retype_values([r for r, _ in changed], [nt for _, nt in changed])
    edit.entry.update_function_type()


def _reached(op: Operation, old: dict[SSAValue, Attribute]) -> bool:
    """Whether an operand of ``op``, or a value its regions use or define, changed type."""
    if any(v in old for v in op.operands):
        return True
    for region in op.regions:
        for inner in region.walk():
            if any(v in old for v in inner.operands) or any(r in old for r in inner.results):
                return True
    return False


def _resize_splats(edit: Edit, op: Operation, old: dict[SSAValue, Attribute]) -> None:
    changed = {old[v]: v.type for v in op.operands if v in old}
    new_operands = list(op.operands)
    for j, v in enumerate(op.operands):
        owner = v.owner
        if v in old or not isinstance(owner, Operation) or owner.name != "stablehlo.constant":
            continue
        attr = owner.properties.get("value")
        new_t = changed.get(v.type)
        if new_t is None or not isinstance(attr, DenseIntOrFPElementsAttr):
            continue
        vals = np.asarray(dense_values(attr)).reshape(-1)
        if vals.size == 0 or not (vals == vals[0]).all():
            continue
        assert isinstance(new_t, TensorType)
        splat = np.broadcast_to(vals[:1], new_t.get_shape())
        new_operands[j] = edit.constant(new_t, splat, op)
    if new_operands != list(op.operands):
        op.operands = new_operands
