"""MLIR's `shape` dialect: its types and the ops beyond `shape.shape_of` (which is in
shape_computation.py), in MLIR's syntax (mlir/Dialect/Shape/IR/ShapeOps.td):

    %0 = shape.const_shape [4, 32] : tensor<2xindex>
    %1 = shape.const_shape {mhlo.sharding = "{replicated}"} [4, 8] : tensor<2xindex>
    %2 = shape.num_elements %0 : tensor<2xindex> -> index
    %3 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
    %4 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
    %5 = shape.assuming_all %4, %w
    %c10 = shape.const_size 10
    %6 = shape.const_witness true

Types: `!shape.shape`, `!shape.size`, `!shape.witness`, `!shape.value_shape`.

These ops are IR for reading, printing and legalizing (`shape-legalize-to-stablehlo`);
stablehlo-py does not interpret them.  Each op's operand and result constraints, and the verifiers
MLIR's Shape.cpp adds (error propagation, operand counts), are checked in MLIR's words.
`shape.const_shape` is a constant shape (ConstantLike in MLIR: its folded value is its `shape`, a
tensor of index).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect

from stablehlo_py.ir.ops.func import parse_return_operands, print_return
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import tensor_type

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser


# ------------------------------------------------------------------------------------- types
class _ShapeDialectType(ParametrizedAttribute, TypeAttribute):
    """A shape dialect type without parameters: written `!` and its name."""

    def mlir_text(self) -> str:
        return f"!{self.name}"


@irdl_attr_definition
class ShapeType(_ShapeDialectType):
    """`!shape.shape`: a shape, possibly unranked, possibly an error."""

    name = "shape.shape"


@irdl_attr_definition
class SizeType(_ShapeDialectType):
    """`!shape.size`: a non-negative extent, possibly an error."""

    name = "shape.size"


@irdl_attr_definition
class WitnessType(_ShapeDialectType):
    """`!shape.witness`: the result of a constraint (`shape.cstr_*`), consumed by `shape.assuming`."""

    name = "shape.witness"


@irdl_attr_definition
class ValueShapeType(_ShapeDialectType):
    """`!shape.value_shape`: a value together with its shape."""

    name = "shape.value_shape"


SHAPE_TYPES: dict[str, Attribute] = {
    "shape.shape": ShapeType(),
    "shape.size": SizeType(),
    "shape.witness": WitnessType(),
    "shape.value_shape": ValueShapeType(),
}
"""`!name` -> the type (none has parameters)."""


def is_extent_tensor(t: Attribute) -> bool:
    """A ranked 1-D tensor of index (MLIR's shape::isExtentTensorType)."""
    return (
        isinstance(t, TensorType)
        and isinstance(t.element_type, IndexType)
        and len(t.get_shape()) == 1
    )


def _is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


# A constraint: (MLIR's summary, predicate).  ODS says "operand #N must be <summary>, but got 'T'".
Constraint = tuple[str, Callable[[Attribute], bool]]
SHAPE_OR_EXTENT: Constraint = (
    "shape or extent tensor",
    lambda t: isinstance(t, ShapeType) or is_extent_tensor(t),
)
SIZE_OR_INDEX: Constraint = (
    "size or index",
    lambda t: isinstance(t, (SizeType, IndexType)),
)
INDEX: Constraint = ("index", lambda t: isinstance(t, IndexType))
SIZE: Constraint = ("size", lambda t: isinstance(t, SizeType))
SHAPE: Constraint = ("shape", lambda t: isinstance(t, ShapeType))
WITNESS: Constraint = ("", lambda t: isinstance(t, WitnessType))
I1: Constraint = ("1-bit signless integer", _is_i1)
INDEX_TENSOR: Constraint = (
    "tensor of index values",
    lambda t: (
        isinstance(t, (TensorType, UnrankedTensorType)) and isinstance(t.element_type, IndexType)
    ),
)
EXTENT_TENSOR: Constraint = ("1D tensor of index values", is_extent_tensor)


def _error_possible(types: list[Attribute]) -> bool:
    """MLIR's isErrorPropagationPossible: an operand of type size, shape or value_shape."""
    return any(isinstance(t, (SizeType, ShapeType, ValueShapeType)) for t in types)


def _error_propagation_rule(
    result_type: type[Attribute], word: str
) -> Callable[[Operation], str | None]:
    """MLIR's verifySizeOrIndexOp (`size`) and verifyShapeOrExtentTensorOp (`shape`): an op with an
    operand that can hold error values has a result of type ``result_type``."""

    def rule(op: Operation) -> str | None:
        if _error_possible([v.type for v in op.operands]) and not isinstance(
            op.results[0].type, result_type
        ):
            return (
                "if at least one of the operands can hold error values then the result must be of "
                f"type `{word}` to propagate them"
            )
        return None

    return rule


_size_or_index_rule = _error_propagation_rule(SizeType, "size")
_shape_or_extent_rule = _error_propagation_rule(ShapeType, "shape")


def _at_least_two(op: Operation) -> str | None:
    return "required at least 2 input shapes" if len(op.operands) < 2 else None


def _some_operand(op: Operation) -> str | None:
    return "no operands specified" if not op.operands else None


def verify_shape_of(op: Operation) -> None:
    """`shape.shape_of`'s verification (the op is defined in shape_computation.py): MLIR's operand
    and result constraints, verifyShapeOrExtentTensorOp and its inferred type's compatibility
    (a ranked operand gives `tensor<Rxindex>`, compatible with `tensor<?xindex>` and
    `!shape.shape`)."""
    from xdsl.utils.exceptions import VerifyException

    from stablehlo_py.ir.text.spelling import type_to_str

    arg, result = op.operands[0].type, op.results[0].type
    if not isinstance(arg, (TensorType, UnrankedTensorType, ValueShapeType)):
        raise VerifyException(
            "'shape.shape_of' op operand #0 must be shaped of any type values or value shape, "
            f"but got '{type_to_str(arg)}'"
        )
    if not SHAPE_OR_EXTENT[1](result):
        raise VerifyException(
            f"'shape.shape_of' op result #0 must be shape or extent tensor, but got "
            f"'{type_to_str(result)}'"
        )
    message = _shape_or_extent_rule(op)
    if message is not None:
        raise VerifyException(f"'shape.shape_of' op {message}")
    if isinstance(arg, TensorType) and isinstance(result, TensorType):
        rank = len(arg.get_shape())
        (n,) = result.get_shape()
        if n not in (-1, rank):
            raise VerifyException(
                f"'shape.shape_of' op inferred type(s) 'tensor<{rank}xindex>' are incompatible "
                f"with return type(s) of operation '{type_to_str(result)}'"
            )


# ---------------------------------------------------------------------------- op signatures
@dataclass(frozen=True)
class Signature:
    """An op's operands (one constraint each, or one constraint for all when ``variadic``), its
    result's constraint, its syntax and the verifier MLIR adds.

    ``syntax``:
      - "arrow":  `%a, %b {attrs} : A, B -> R`  (the operand types, then the result type)
      - "typed":  `%a, %b {attrs} : A, B`       (the result type is ``fixed_result``)
      - "bare":   `%a, %b {attrs}`              (operand types fixed, result ``fixed_result``)
    """

    operands: tuple[Constraint, ...]
    result: Constraint
    syntax: str
    variadic: bool = False
    fixed_operand: Attribute | None = None
    fixed_result: Attribute | None = None
    rule: Callable[[Operation], str | None] | None = None
    inherent: tuple[str, ...] = ()
    """Optional string properties (MLIR's inherent attributes; written in the attr-dict)."""


class ShapeOp(IRDLOperation):
    """The shared shape of the shape dialect's ops with operands and one result (undecorated:
    xDSL cannot subclass a decorated op).  ``SIGNATURE`` describes each concrete op."""

    SIGNATURE: ClassVar[Signature]

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        from stablehlo_py.ir.text.spelling import type_to_str

        sig = self.SIGNATURE
        n = len(self.operands)
        if not sig.variadic and n != len(sig.operands):
            raise VerifyException(
                f"'{self.name}' op expected {len(sig.operands)} operands, but found {n}"
            )
        for i, v in enumerate(self.operands):
            summary, ok = sig.operands[0 if sig.variadic else i]
            if not ok(v.type):
                what = f"variadic of {summary}" if sig.variadic else summary
                raise VerifyException(
                    f"'{self.name}' op operand #{i} must be {what}, but got '{type_to_str(v.type)}'"
                )
        summary, ok = sig.result
        t = self.results[0].type
        if not ok(t):
            raise VerifyException(
                f"'{self.name}' op result #0 must be {summary}, but got '{type_to_str(t)}'"
            )
        if sig.rule is not None:
            message = sig.rule(self)
            if message is not None:
                raise VerifyException(f"'{self.name}' op {message}")


def _shape_op(name: str, doc: str, sig: Signature, pure: bool = True) -> type[ShapeOp]:
    """Define the op class `name` (IRDL: variadic operands, one result), documented as
    "`name`: doc"."""
    body: dict[str, object] = {
        "__doc__": f"`{name}`: {doc}",
        "name": name,
        "args": var_operand_def(),
        "result": result_def(),
        "SIGNATURE": sig,
        "__annotations__": {"SIGNATURE": "ClassVar[Signature]"},
        "__module__": __name__,
    }
    if pure:
        body["traits"] = traits_def(Pure())
    for prop in sig.inherent:
        body[prop] = opt_prop_def(StringAttr)
    cls_name = "".join(w.capitalize() for w in name.split(".")[1].split("_")) + "Op"
    cls = irdl_op_definition(type(cls_name, (ShapeOp,), body))
    FOREIGN_SYNTAX[cls] = ForeignSyntax(_parse_for(cls), _print_shape_op)
    return cls


def _parse_for(cls: type[ShapeOp]) -> Callable[[Parser], Operation]:
    sig = cls.SIGNATURE

    def parse(p: Parser) -> Operation:
        p.ws()
        operands = p.parse_operand_list() if p.peek() == "%" else []
        # MLIR's current format writes an inherent attribute as `name = value` before the
        # attribute dictionary (jaxlib 0.12: `shape.broadcast %a, %b error = "..."`); older ones
        # (jaxlib 0.10) in the dictionary.  Both are read.
        written = {k: _parse_keyword_attr(p, k) for k in sig.inherent if p.try_keyword(k)}
        attrs = p.try_attr_dict()
        props = {**{k: attrs.pop(k) for k in sig.inherent if k in attrs}, **written}
        if sig.syntax == "bare":
            for v in operands:
                if v.type != sig.fixed_operand:
                    p.error(f"{cls.name}: the operands must be of type {sig.fixed_operand}")
            assert sig.fixed_result is not None
            return cls.create(
                operands=operands,
                result_types=[sig.fixed_result],
                attributes=attrs,
                properties=props,
            )
        p.parse_literal(":")
        p.ws()
        pos = p.pos
        types = p.parse_comma_list(p.parse_type) if operands else []
        if len(types) != len(operands):
            p.error(f"{len(operands)} operands present, but expected {len(types)}", pos)
        for v, t in zip(operands, types):
            if v.type != t:
                p.error(f"{cls.name}: an operand's type is not the written one", pos)
        if sig.syntax == "arrow":
            p.parse_literal("->")
            result = p.parse_type()
        else:
            assert sig.fixed_result is not None
            result = sig.fixed_result
        return cls.create(
            operands=operands, result_types=[result], attributes=attrs, properties=props
        )

    return parse


def _parse_keyword_attr(p: Parser, name: str) -> Attribute:
    """`name = "text"`: the inherent string attributes of shape ops (a string without a type)."""
    p.parse_literal("=", f"after '{name}'")
    return StringAttr(p.parse_string(f"a string for '{name}'"))


def _print_shape_op(op: Operation, pr) -> None:  # type: ignore[no-untyped-def]
    sig: Signature = op.SIGNATURE  # type: ignore[attr-defined]
    pr.write(pr.op_name(op.name))
    if op.operands:
        pr.write(" ")
        pr.operands(op.operands)
    for name in sig.inherent:  # MLIR's current format (see the parser)
        if name in op.properties:
            pr.write(f" {name} = ")
            pr.attr(op.properties[name])
    pr.attr_dict(dict(sorted(op.attributes.items())))
    if sig.syntax == "bare":
        return
    pr.write(" : ")
    pr.types([v.type for v in op.operands])
    if sig.syntax == "arrow":
        pr.write(" -> ")
        pr.type(op.results[0].type)


_VAR_SHAPES = (SHAPE_OR_EXTENT,)
_SHAPE_TO_SIZE = Signature((SHAPE_OR_EXTENT,), SIZE_OR_INDEX, "arrow", rule=_size_or_index_rule)
"""num_elements and rank: a size (or an index) of a shape."""
_SIZE_ARITHMETIC = Signature(
    (SIZE_OR_INDEX, SIZE_OR_INDEX), SIZE_OR_INDEX, "arrow", rule=_size_or_index_rule
)
"""add and mul: two sizes or indices to one."""
_TESTED_SHAPES = Signature(_VAR_SHAPES, I1, "typed", variadic=True, fixed_result=IntegerType(1))
"""shape_eq and is_broadcastable: an i1 from shapes."""

NumElementsOp = _shape_op(
    "shape.num_elements",
    "the number of elements of a shape (the product of its extents).",
    _SHAPE_TO_SIZE,
)
RankOp = _shape_op("shape.rank", "the rank of a shape (its number of extents).", _SHAPE_TO_SIZE)
ToExtentTensorOp = _shape_op(
    "shape.to_extent_tensor",
    "a shape as a 1-D tensor of its extents.",
    Signature((SHAPE_OR_EXTENT,), INDEX_TENSOR, "arrow"),
)
BroadcastOp = _shape_op(
    "shape.broadcast",
    "the broadcast shape of two or more shapes (an optional `error` string).",
    Signature(
        _VAR_SHAPES,
        SHAPE_OR_EXTENT,
        "arrow",
        variadic=True,
        rule=_shape_or_extent_rule,
        inherent=("error",),
    ),
)
AnyOp = _shape_op(
    "shape.any",
    "some combination of its input shapes (undefined when they disagree).",
    Signature(_VAR_SHAPES, SHAPE_OR_EXTENT, "arrow", variadic=True),
)
ConcatOp = _shape_op(
    "shape.concat",
    "the extents of `lhs` followed by those of `rhs`.",
    Signature((SHAPE_OR_EXTENT, SHAPE_OR_EXTENT), SHAPE_OR_EXTENT, "arrow"),
)
GetExtentOp = _shape_op(
    "shape.get_extent",
    "the extent of a shape at a dimension.",
    Signature((SHAPE_OR_EXTENT, SIZE_OR_INDEX), SIZE_OR_INDEX, "arrow", rule=_size_or_index_rule),
)
AddOp = _shape_op("shape.add", "the sum of two sizes or indices.", _SIZE_ARITHMETIC)
MulOp = _shape_op("shape.mul", "the product of two sizes or indices.", _SIZE_ARITHMETIC)
CstrBroadcastableOp = _shape_op(
    "shape.cstr_broadcastable",
    "a witness that its shapes (at least two) broadcast together.",
    Signature(
        _VAR_SHAPES,
        WITNESS,
        "typed",
        variadic=True,
        fixed_result=WitnessType(),
        rule=_at_least_two,
    ),
    pure=False,
)
CstrEqOp = _shape_op(
    "shape.cstr_eq",
    "a witness that all its shapes are equal.",
    Signature(_VAR_SHAPES, WITNESS, "typed", variadic=True, fixed_result=WitnessType()),
    pure=False,
)
ShapeEqOp = _shape_op("shape.shape_eq", "whether all its shapes are equal (an i1).", _TESTED_SHAPES)
IsBroadcastableOp = _shape_op(
    "shape.is_broadcastable",
    "whether its shapes broadcast together (an i1).",
    _TESTED_SHAPES,
    pure=False,
)
FromExtentTensorOp = _shape_op(
    "shape.from_extent_tensor",
    "a shape from a 1-D tensor of its extents.",
    Signature((EXTENT_TENSOR,), SHAPE, "typed", fixed_result=ShapeType()),
)
FromExtentsOp = _shape_op(
    "shape.from_extents",
    "a shape from its extents (sizes or indices).",
    Signature((SIZE_OR_INDEX,), SHAPE, "typed", variadic=True, fixed_result=ShapeType()),
)
SizeToIndexOp = _shape_op(
    "shape.size_to_index",
    "a size (or index) as an index.",
    Signature((SIZE_OR_INDEX,), INDEX, "typed", fixed_result=IndexType()),
)
IndexToSizeOp = _shape_op(
    "shape.index_to_size",
    "an index as a size.",
    Signature((INDEX,), SIZE, "bare", fixed_operand=IndexType(), fixed_result=SizeType()),
)
AssumingAllOp = _shape_op(
    "shape.assuming_all",
    "the conjunction of witnesses (at least one).",
    Signature(
        (WITNESS,),
        WITNESS,
        "bare",
        variadic=True,
        fixed_operand=WitnessType(),
        fixed_result=WitnessType(),
        rule=_some_operand,
    ),
)


# ------------------------------------------------------------------------------- constants
@irdl_op_definition
class ConstShapeOp(IRDLOperation):
    """`shape.const_shape`: a constant shape (its extents as a `tensor<Nxindex>`)."""

    name = "shape.const_shape"
    shape = prop_def(DenseIntOrFPElementsAttr)
    result = result_def()
    traits = traits_def(Pure())

    def extents(self) -> list[int]:
        return [int(v) for v in np.asarray(dense_values(self.shape)).reshape(-1)]

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        t = self.result.type
        if isinstance(t, ShapeType):
            return
        if not isinstance(t, TensorType) or not isinstance(t.element_type, IndexType):
            raise VerifyException(
                f"'shape.const_shape' op result #0 must be shape or extent tensor, but got '{t}'"
            )
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] not in (-1, len(self.extents())):
            raise VerifyException(
                f"'shape.const_shape' op inferred type(s) 'tensor<{len(self.extents())}xindex>' "
                f"are incompatible with return type(s) of operation '{t}'"
            )


def _parse_const_shape(p: Parser) -> Operation:
    attrs = p.try_attr_dict()
    p.parse_literal("[")
    extents: list[int] = []
    if not p.try_literal("]"):
        extents.append(p.parse_integer("an extent"))
        while p.try_literal(","):
            extents.append(p.parse_integer("an extent"))
        p.parse_literal("]")
    p.parse_literal(":")
    result = p.parse_type()
    t = tensor_type(IndexType(), (len(extents),))
    value = make_dense(t, np.array(extents, dtype=np.int64))
    return ConstShapeOp.create(properties={"shape": value}, result_types=[result], attributes=attrs)


def _print_const_shape(op: Operation, pr) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(op, ConstShapeOp)
    pr.write(pr.op_name(op.name) + " ")
    pr.attr_dict(dict(op.attributes))
    pr.write("[" + ", ".join(str(v) for v in op.extents()) + "] : ")
    pr.type(op.results[0].type)


@irdl_op_definition
class ConstSizeOp(IRDLOperation):
    """`shape.const_size 10`: a constant `!shape.size` (named `%c10` as MLIR names it)."""

    name = "shape.const_size"
    value = prop_def(IntegerAttr)
    result = result_def(SizeType)
    traits = traits_def(Pure())

    def asm_result_names(self) -> str:
        return f"c{self.value.value.data}"


def _value_syntax(
    cls: type[IRDLOperation],
    prop: str,
    result_type: Callable[[], Attribute],
    parse_value: Callable[[Parser], Attribute],
    value_text: Callable[[Any], str],
) -> ForeignSyntax:
    """The syntax `<op> VALUE {attrs}` of a constant op whose one property `prop` is VALUE and whose
    one result has the type `result_type()` (shape.const_size, shape.const_witness)."""

    def parse(p: Parser) -> Operation:
        value = parse_value(p)
        attrs = p.try_attr_dict()
        return cls.create(properties={prop: value}, result_types=[result_type()], attributes=attrs)

    def print_(op: Operation, pr) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(op, cls)
        pr.write(f"{pr.op_name(op.name)} {value_text(getattr(op, prop))}")
        pr.attr_dict(dict(op.attributes))

    return ForeignSyntax(parse, print_)


def _parse_size(p: Parser) -> Attribute:
    return IntegerAttr(p.parse_integer("a size"), IndexType())


@irdl_op_definition
class ConstWitnessOp(IRDLOperation):
    """`shape.const_witness true`: a statically known witness."""

    name = "shape.const_witness"
    passing = prop_def(IntegerAttr)
    result = result_def(WitnessType)
    traits = traits_def(Pure())


def _parse_witness(p: Parser) -> Attribute:
    p.ws()
    pos = p.pos
    word = p.parse_keyword()
    if word not in ("true", "false"):
        p.error(f"shape.const_witness: expected true or false, found '{word}'", pos)
    return IntegerAttr(int(word == "true"), IntegerType(1))


# --------------------------------------------------------------------------------- assuming
@irdl_op_definition
class AssumingOp(IRDLOperation):
    """`shape.assuming %w -> (types) { ... }`: its region, executed assuming the witness holds;
    the region ends with `shape.assuming_yield` (elided when it yields nothing)."""

    name = "shape.assuming"
    witness = operand_def(WitnessType)
    outs = var_result_def()
    body = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        from stablehlo_py.ir.text.spelling import type_to_str

        blocks = list(self.body.blocks)
        if len(blocks) != 1:
            raise VerifyException(
                "'shape.assuming' op region #0 ('doRegion') failed to verify constraint: region "
                "with 1 blocks"
            )
        last = blocks[0].last_op
        if last is None or last.name != "shape.assuming_yield":
            raise VerifyException(
                "'shape.assuming' op expects regions to end with 'shape.assuming_yield'"
            )
        got = [type_to_str(v.type) for v in last.operands]
        want = [type_to_str(r.type) for r in self.results]
        if got != want:
            raise VerifyException(
                "'shape.assuming' op along control flow edge from Region #0 to parent results: "
                f"yields ({', '.join(got)}) but the op's results are ({', '.join(want)})"
            )


@irdl_op_definition
class AssumingYieldOp(IRDLOperation):
    """`shape.assuming_yield %a : T`: the values of the enclosing `shape.assuming`."""

    name = "shape.assuming_yield"
    args = var_operand_def()
    traits = traits_def(Pure(), IsTerminator())

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        parent = self.parent_op()
        if parent is None or parent.name != "shape.assuming":
            raise VerifyException("'shape.assuming_yield' op expects parent op 'shape.assuming'")


def _parse_assuming(p: Parser) -> Operation:
    witness = p.parse_operand()
    if witness.type != WitnessType():
        p.error("shape.assuming: the witness must be of type !shape.witness")
    types: list[Attribute] = []
    if p.try_literal("->"):
        if p.try_literal("("):
            types = p.parse_comma_list(p.parse_type, ")")
            p.parse_literal(")")
        else:
            types = [p.parse_type()]
    region = p.parse_region()
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if block.last_op is None or block.last_op.name != "shape.assuming_yield":
        block.add_op(AssumingYieldOp.create())
    attrs = p.try_attr_dict()
    return AssumingOp.create(
        operands=[witness], result_types=types, regions=[region], attributes=attrs
    )


def _print_assuming(op: Operation, pr) -> None:  # type: ignore[no-untyped-def]
    pr.write(pr.op_name(op.name) + " ")
    pr.operand(op.operands[0])
    if op.results:
        pr.write(" -> (")
        pr.types([r.type for r in op.results])
        pr.write(")")
    pr.write(" ")
    pr.region(op.regions[0], print_entry_args=False, print_terminators=bool(op.results))
    pr.attr_dict(dict(op.attributes))


def _parse_assuming_yield(p: Parser) -> Operation:
    attrs, operands, types, pos = parse_return_operands(p)
    if [v.type for v in operands] != types:
        p.error("shape.assuming_yield: the operands' types are not the written ones", pos)
    return AssumingYieldOp.create(operands=operands, attributes=attrs)


FOREIGN_SYNTAX[ConstShapeOp] = ForeignSyntax(_parse_const_shape, _print_const_shape)
FOREIGN_SYNTAX[AssumingOp] = ForeignSyntax(_parse_assuming, _print_assuming)
# func.return's syntax: `shape.assuming_yield %a, %b : T, U`
FOREIGN_SYNTAX[AssumingYieldOp] = ForeignSyntax(_parse_assuming_yield, print_return)
FOREIGN_SYNTAX[ConstSizeOp] = _value_syntax(
    ConstSizeOp, "value", SizeType, _parse_size, lambda a: str(a.value.data)
)
FOREIGN_SYNTAX[ConstWitnessOp] = _value_syntax(
    ConstWitnessOp, "passing", WitnessType, _parse_witness, lambda a: "true" if a.value.data else "false"
)


def _type_parser(t: Attribute) -> Callable[[Parser], Attribute]:
    return lambda p: t


def register(reg: Registry) -> None:
    for name, t in SHAPE_TYPES.items():
        reg.type_parsers[name] = _type_parser(t)


OPS = (
    ConstShapeOp,
    ConstSizeOp,
    ConstWitnessOp,
    NumElementsOp,
    RankOp,
    ToExtentTensorOp,
    BroadcastOp,
    AnyOp,
    ConcatOp,
    GetExtentOp,
    AddOp,
    MulOp,
    CstrBroadcastableOp,
    CstrEqOp,
    ShapeEqOp,
    IsBroadcastableOp,
    FromExtentTensorOp,
    FromExtentsOp,
    SizeToIndexOp,
    IndexToSizeOp,
    AssumingAllOp,
    AssumingOp,
    AssumingYieldOp,
)

__all__ = [
    "OPS",
    "SHAPE_TYPES",
    "AnyOp",
    "AssumingAllOp",
    "AssumingOp",
    "AssumingYieldOp",
    "BroadcastOp",
    "ConstShapeOp",
    "ConstSizeOp",
    "ConstWitnessOp",
    "CstrBroadcastableOp",
    "NumElementsOp",
    "ShapeOp",
    "ShapeType",
    "Signature",
    "SizeType",
    "ValueShapeType",
    "WitnessType",
    "is_extent_tensor",
    "verify_shape_of",
]
