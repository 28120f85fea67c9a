"""`hlo-test-infer`: upstream's test pass of result-type inference (stablehlo/tests/TestUtils.cpp),
which exposes what an op's inference rule gives so that FileCheck can see it.

It rewrites ops of the unregistered `hlo_test_infer` dialect (so it needs --allow-unregistered-dialect)
whose single operand is the result of an op with an inference rule (`stablehlo_py.ir.infer`):

* `"hlo_test_infer.get_return_types"(%x)` becomes `"hlo_test_infer.return_types"(%x)` with the same
  operands, result types and attributes plus `types0 = T0`, `types1 = T1`, ...: the result types the
  rule infers for the op defining `%x`;
* `"hlo_test_infer.get_return_type_components"(%x)` becomes `"hlo_test_infer.return_type_components"`
  with `typesN` = the inferred shape and encoding as a tensor type; its element type is `index` for
  the ops whose upstream shape components carry none (`dot`, `dot_general`, `chlo.ragged_dot`, whose
  result element type is not inferred);
* `"hlo_test_infer.reify_return_type_shapes"(%x)` is replaced by the `tensor<Nxindex>` value that
  computes the shape of `%x` from the defining op's operands (`shape.shape_of`, `tensor.dim`,
  index arithmetic, `tensor.from_elements`: stablehlo_py.ir.infer.reify, upstream's
  reifyReturnTypeShapes, folded as MLIR's greedy driver folds it).  An op upstream cannot reify is
  left as it is, as upstream's pattern does.

As upstream's patterns, an op with another number of operands, or whose operand is a block argument
or comes from an op without a rule, is left as it is.  A rule that fails reports its message at the
defining op, as the verification that upstream runs before the pass does.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, NoneAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, OpResult
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import NotSupportedError, VerifyError
from stablehlo_py.ir.infer import InferError, has_rule, infer_op
from stablehlo_py.ir.registry import unregistered_op_class
from stablehlo_py.ir.types import tensor_type
from stablehlo_py.ir.verify import op_location
from stablehlo_py.ir.xdsl_compat.side_data import carry_place

PASS_NAME = "hlo-test-infer"
SUMMARY = (
    "Test pass: attach the result types inference gives to `hlo_test_infer.get_return_types` ops"
)

GET_RETURN_TYPES = "hlo_test_infer.get_return_types"
GET_RETURN_TYPE_COMPONENTS = "hlo_test_infer.get_return_type_components"
REIFY_RETURN_TYPE_SHAPES = "hlo_test_infer.reify_return_type_shapes"

_REPLACEMENT = {
    GET_RETURN_TYPES: "hlo_test_infer.return_types",
    GET_RETURN_TYPE_COMPONENTS: "hlo_test_infer.return_type_components",
}

# ops whose upstream inferReturnTypeComponents gives a shape without an element type
SHAPE_ONLY_COMPONENTS = frozenset({"stablehlo.dot", "stablehlo.dot_general", "chlo.ragged_dot"})


def run(op: Operation, options: dict[str, object]) -> Operation:
    for test_op in [
        o for o in op.walk() if o.name in _REPLACEMENT or o.name == REIFY_RETURN_TYPE_SHAPES
    ]:
        if test_op.name == REIFY_RETURN_TYPE_SHAPES:
            _reify(test_op)
            continue
        types = _inferred(test_op)
        if types is None:
            continue
        if test_op.name == GET_RETURN_TYPE_COMPONENTS:
            defining = test_op.operands[0].owner
            types = [_components(t, defining.name in SHAPE_ONLY_COMPONENTS) for t in types]  # type: ignore[union-attr]
        _replace(test_op, types)
    return op


def _reify(test_op: Operation) -> None:
    """Replace the test op by the shape of its operand's value, as reified from the defining op."""
    from stablehlo_py.ir.infer.reify import ShapeBuilder, has_reify, reify_result_shapes

    if len(test_op.operands) != 1 or not isinstance(test_op.operands[0], OpResult):
        return
    value = test_op.operands[0]
    defining = value.owner
    if not has_reify(defining.name):
        return  # upstream's pattern applies to ops implementing reifyReturnTypeShapes only
    try:
        shapes = reify_result_shapes(defining, ShapeBuilder.before_op(test_op))
    except NotSupportedError as e:
        raise NotSupportedError(e.message, location=op_location(test_op)) from None
    if shapes is None:
        return  # the op's reifyReturnTypeShapes fails (a shape-changing bitcast_convert)
    test_op.results[0].replace_all_uses_with(shapes[value.index])
    test_op.detach()
    test_op.erase()


def _inferred(test_op: Operation) -> list[Attribute] | None:
    """The rule's types for the op defining the test op's single operand; None when upstream's
    pattern would not apply."""
    if len(test_op.operands) != 1:
        return None
    value = test_op.operands[0]
    if not isinstance(value, OpResult) or not has_rule(value.owner.name):
        return None
    defining = value.owner
    try:
        return infer_op(defining)
    except InferError as e:
        # upstream never gets here: verification, which infers first, has already reported the
        # rule's error at the defining op (as `verify_inferred` words it); do the same
        raise VerifyError(
            f"'{defining.name}' op {e.message}", location=op_location(defining)
        ) from None


def _components(t: Attribute, shape_only: bool) -> Attribute:
    """A shaped type's components as upstream's test pass prints them: a tensor type of the shape and
    encoding, with `index` when the components have no element type."""
    if isinstance(t, TensorType):
        elem = IndexType() if shape_only else t.element_type
        encoding = None if isinstance(t.encoding, NoneAttr) else t.encoding
        return tensor_type(elem, tuple(t.get_shape()), encoding)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(IndexType() if shape_only else t.element_type)
    return t


def _replace(test_op: Operation, types: list[Attribute]) -> None:
    attributes = dict(test_op.attributes)
    for i, t in enumerate(types):
        attributes[f"types{i}"] = (
            t  # a type is an attribute: it prints as the type (MLIR's TypeAttr)
        )
    new = unregistered_op_class(_REPLACEMENT[test_op.name]).create(
        operands=list(test_op.operands),
        result_types=[r.type for r in test_op.results],
        attributes=attributes,
    )
    new.location = test_op.location
    carry_place(new, test_op)  # diagnostics and debuginfo keep the test op's place
    Rewriter.replace_op(test_op, new)
