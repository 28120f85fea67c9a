"""`stablehlo-legalize-deprecated-ops`: deprecated StableHLO ops become well-supported ones
(upstream's ``stablehlo/transforms/StablehloLegalizeDeprecatedOps.cpp`` and its DRR patterns in
``StablehloLegalizeDeprecatedOpsPatterns.td``).

Upstream runs a partial dialect conversion; this is the same conversion written out:

- Illegal: `broadcast`, `create_token`, `cross-replica-sum`, `dot`, `unary_einsum`, and with
  ``fail-on-unused`` (the default) also `map` and `rng`, which have no replacement.  Every other op is
  left alone.
- Each illegal op is rewritten by its pattern (`PATTERNS`, one per op):
  broadcast -> broadcast_in_dim (the operand's dimensions are the result's trailing ones),
  create_token -> after_all with no inputs, cross-replica-sum -> all_reduce with an `add` body
  (no channel handle, `use_global_device_ids` false), dot -> dot_general (lhs contracting dimension
  its last, rhs contracting dimension 0, the precision config kept), unary_einsum -> einsum of a
  scalar `1` constant of the operand's element type and the operand, the config prefixed by `,`.
  New ops take the result types and the location of the op they replace.
- An illegal op without a pattern fails the pass with upstream's "failed to legalize operation
  '<name>' that was explicitly marked illegal" at the op (the first one, in pre-order).  Every op is
  checked before anything is rewritten, so a failed pass leaves the module as it was (upstream
  rolls the conversion back).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stablehlo_py.passes.drivers._common import (
    LegalizationError,
    create_op,
    gc_paused,
    op_location,
)
from xdsl.dialects.builtin import ComplexType, IntegerType, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.op_attrs import DotDimensionNumbersAttr
from stablehlo_py.ir.ops.base import i64_array_attr
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import FLOAT_NAME, storage_dtype, tensor_type
from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["PASS_NAME", "PATTERNS", "UNUSED_OPS", "illegal_ops", "run"]

PASS_NAME = "stablehlo-legalize-deprecated-ops"
SUMMARY = "Legalize deprecated ops to well-supported ops."
OPTIONS = (
    PassOption(
        "fail-on-unused",
        "bool",
        True,
        "Fail on (mostly) unused ops that are deprecated without any fallback.",
    ),
)

Pattern = Callable[[Operation], list[Operation]]
"""Builds the replacement ops of a deprecated op (the last one gives its results)."""


# ------------------------------------------------------------------------------------ patterns
def broadcast_to_broadcast_in_dim(op: Operation) -> list[Operation]:
    """BroadcastToBroadcastInDim: getBroadcastDimensionsFromBroadcastSizes."""
    result = op.results[0].type
    assert isinstance(result, TensorType)
    sizes = op.properties["broadcast_sizes"].get_values()  # type: ignore[attr-defined]
    n = len(sizes)
    operand_rank = len(result.get_shape()) - n
    dims = i64_array_attr(list(range(n, n + operand_rank)))
    return [
        create_op(
            "stablehlo.broadcast_in_dim",
            op.operands,
            [result],
            {"broadcast_dimensions": dims},
            like=op,
        )
    ]


def create_token_to_after_all(op: Operation) -> list[Operation]:
    """CreateTokenToAfterAll."""
    return [create_op("stablehlo.after_all", [], [r.type for r in op.results], like=op)]


def cross_replica_sum_to_all_reduce(op: Operation) -> list[Operation]:
    """CrossReplicaSumToAllReducePattern: an all_reduce whose body adds its two scalars."""
    t = op.results[0].type
    elem = t.element_type if isinstance(t, TensorType) else t  # type: ignore[attr-defined]
    scalar = tensor_type(elem, ())
    block = Block(arg_types=[scalar, scalar])
    for a in block.args:
        _carry_arg_location(a, op)
    add = create_op("stablehlo.add", list(block.args), [scalar], like=op)
    ret = create_op("stablehlo.return", add.results, [], like=op)
    block.add_ops([add, ret])
    all_reduce = create_op(
        "stablehlo.all_reduce",
        op.operands,
        [t],
        {"replica_groups": op.properties["replica_groups"]},
        regions=[Region(block)],
        like=op,
    )
    return [all_reduce]


def _carry_arg_location(arg: object, op: Operation) -> None:
    arg.location = op.location  # type: ignore[attr-defined]


def dot_to_dot_general(op: Operation) -> list[Operation]:
    """DotToDotGeneral: getDefaultDotDimensionNumbers(lhs)."""
    lhs = op.operands[0].type
    assert isinstance(lhs, TensorType)
    dims = DotDimensionNumbersAttr(
        lhs_contracting_dimensions=(len(lhs.get_shape()) - 1,), rhs_contracting_dimensions=(0,)
    )
    props: dict[str, Attribute] = {"dot_dimension_numbers": dims}
    precision = op.properties.get("precision_config")
    if precision is not None:
        props["precision_config"] = precision
    return [
        create_op("stablehlo.dot_general", op.operands, [r.type for r in op.results], props, like=op)
    ]


def scalar_of_type(elem: Attribute, value: int, where: Operation) -> Attribute:
    """upstream's getScalarOfType: a `tensor<elem>` dense value (floats, integers of any signedness,
    complex floats with a zero imaginary part)."""
    t = tensor_type(elem, ())
    if type(elem) in FLOAT_NAME or isinstance(elem, IntegerType):
        return make_dense(t, np.array(value).astype(storage_dtype(elem)))
    if isinstance(elem, ComplexType) and type(elem.element_type) in FLOAT_NAME:
        return make_dense(t, np.array(complex(value, 0)).astype(storage_dtype(elem)))
    from stablehlo_py.ir.text.spelling import type_to_str

    raise StableHLOError(
        f"{PASS_NAME}: cannot make a constant {value} of element type '{type_to_str(elem)}' for "
        f"'{where.name}' (upstream's getScalarOfType supports float, integer and complex float "
        "element types only)",
        location=op_location(where),
    )


def unary_einsum_to_einsum(op: Operation) -> list[Operation]:
    """UnaryEinsumToEinsum: einsum(constant 1, operand) with the config `,<config>`."""
    operand = op.operands[0]
    t = operand.type
    elem = t.element_type if isinstance(t, TensorType) else t  # type: ignore[attr-defined]
    value = scalar_of_type(elem, 1, op)
    const = create_op("stablehlo.constant", [], [value.type], {"value": value}, like=op)  # type: ignore[attr-defined]
    config = op.properties["einsum_config"]
    assert isinstance(config, StringAttr)
    einsum = create_op(
        "stablehlo.einsum",
        [const.results[0], operand],
        [r.type for r in op.results],
        {"einsum_config": StringAttr("," + config.data)},
        like=op,
    )
    return [const, einsum]


PATTERNS: dict[str, Pattern] = {
    "stablehlo.broadcast": broadcast_to_broadcast_in_dim,
    "stablehlo.create_token": create_token_to_after_all,
    "stablehlo.cross-replica-sum": cross_replica_sum_to_all_reduce,
    "stablehlo.dot": dot_to_dot_general,
    "stablehlo.unary_einsum": unary_einsum_to_einsum,
}
"""The illegal ops with their replacement (upstream: the DRR patterns and the C++ one)."""

UNUSED_OPS = frozenset({"stablehlo.map", "stablehlo.rng"})
"""Deprecated ops without a replacement: illegal with ``fail-on-unused``."""


def _check_before_rewrite(op: Operation) -> None:
    """Fail as the pattern would, before any op is rewritten (the element type of a unary_einsum's
    constant)."""
    if op.name == "stablehlo.unary_einsum":
        t = op.operands[0].type
        scalar_of_type(t.element_type if isinstance(t, TensorType) else t, 1, op)  # type: ignore[attr-defined]


def illegal_ops(root: Operation, fail_on_unused: bool) -> list[Operation]:
    """The illegal ops under ``root`` in pre-order; raises at the first one no pattern rewrites."""
    found: list[Operation] = []
    for op in root.walk():
        if op.name in PATTERNS:
            _check_before_rewrite(op)
            found.append(op)
        elif fail_on_unused and op.name in UNUSED_OPS:
            raise LegalizationError(
                f"failed to legalize operation '{op.name}' that was explicitly marked illegal",
                location=op_location(op),
            )
    return found


def legalize(root: Operation, fail_on_unused: bool = True) -> None:
    for op in illegal_ops(root, fail_on_unused):
        new_ops = PATTERNS[op.name](op)
        Rewriter.replace_op(op, new_ops, list(new_ops[-1].results))


def run(op: Operation, options: dict[str, object]) -> Operation:
    with gc_paused():
        legalize(op, bool(options["fail-on-unused"]))
    return op
