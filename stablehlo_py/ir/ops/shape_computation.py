"""The shape computations that upstream's `reifyReturnTypeShapes` builds (and that its inference
tests print, through `--hlo-test-infer`): `shape.shape_of`, `tensor.dim`, `tensor.extract`,
`tensor.from_elements` and the index arithmetic `arith.addi/subi/muli/divsi/maxsi/cmpi/select/
index_cast`, in
MLIR's syntax:

    %0 = shape.shape_of %arg0 : tensor<2x?xf32> -> tensor<2xindex>
    %dim = tensor.dim %arg0, %c1 : tensor<4x?xf32>
    %extracted = tensor.extract %arg1[%c0] : tensor<1xindex>
    %from_elements = tensor.from_elements %dim, %c3 : tensor<2xindex>
    %1 = arith.addi %dim, %dim_0 : index
    %2 = arith.cmpi slt, %dim, %c1 : index
    %3 = arith.select %2, %c0, %1 : index
    %4 = arith.index_cast %arg2 : tensor<2xi64> to tensor<2xindex>

The arith and tensor ops are xDSL's; `shape.shape_of` is defined here.  They are IR for printing and
re-reading; stablehlo-py does not interpret them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.ops.tensor import cast_syntax
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.xdsl_compat.class_attrs import give_mlir_text, give_result_names

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


@irdl_op_definition
class ShapeOfOp(IRDLOperation):
    """`shape.shape_of`: the shape of a tensor as a `tensor<Nxindex>`."""

    name = "shape.shape_of"
    arg = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        from stablehlo_py.ir.ops.shape_dialect import verify_shape_of

        verify_shape_of(self)


def _attrs_and_type(op: Operation, pr: Printer, t: Attribute) -> None:
    """The tail of MLIR's syntax of these ops: ` {attrs} : T`."""
    pr.attr_dict(dict(op.attributes))
    pr.write(" : ")
    pr.type(t)


def _print_plain(result_typed: bool) -> Callable[[Operation, Printer], None]:
    """`name %a, %b {attrs} : T`, with T the result's type (``result_typed``) or the first
    operand's."""

    def print_(op: Operation, pr: Printer) -> None:
        pr.write(pr.op_name(op.name) + " ")
        pr.operands(op.operands)
        _attrs_and_type(op, pr, (op.results if result_typed else op.operands)[0].type)

    return print_


# ------------------------------------------------------------------------------------ tensor
def _parse_dim(p: Parser) -> Operation:
    source = p.parse_operand()
    p.parse_literal(",")
    index = p.parse_operand()
    attrs = p.try_attr_dict()
    written, pos = p.parse_written_type()
    if written != source.type:
        p.error("tensor.dim: the source's type is not the written one", pos)
    return tensor.DimOp.create(
        operands=[source, index], result_types=[IndexType()], attributes=attrs
    )


def _parse_extract(p: Parser) -> Operation:
    source = p.parse_operand()
    indices = p.parse_delimited("[", p.parse_operand, "]")
    attrs = p.try_attr_dict()
    t, pos = p.parse_written_type()
    if t != source.type or not isinstance(t, TensorType):
        p.error("tensor.extract: the source's type is not the written ranked tensor type", pos)
    return tensor.ExtractOp.create(
        operands=[source, *indices], result_types=[t.element_type], attributes=attrs
    )


def _print_extract(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name) + " ")
    pr.operand(op.operands[0])
    pr.write("[")
    pr.operands(op.operands[1:])
    pr.write("]")
    _attrs_and_type(op, pr, op.operands[0].type)


def _parse_from_elements(p: Parser) -> Operation:
    elements = [p.parse_operand()]
    while p.try_literal(","):
        elements.append(p.parse_operand())
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    t = p.parse_type()
    return tensor.FromElementsOp.create(operands=elements, result_types=[t], attributes=attrs)


# ------------------------------------------------------------------------------------- arith
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""arith.cmpi's predicates by their enum value (MLIR's arith::CmpIPredicate)."""


def _parse_operands_and_type(
    p: Parser, count: int
) -> tuple[list[SSAValue], dict[str, Attribute], Attribute]:
    """`%a, %b {attrs} : T` of the arith ops here: ``count`` operands, the attributes and the
    written type."""
    operands = [p.parse_operand()]
    for _ in range(count - 1):
        p.parse_literal(",")
        operands.append(p.parse_operand())
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    return operands, attrs, p.parse_type()


def _parse_binary(cls: type) -> Callable[[Parser], Operation]:
    """`%a, %b [overflow<nsw, nuw>] {attrs} : T` (the overflow flags where the op has them)."""
    with_flags = "overflowFlags" in cls.get_irdl_definition().properties  # type: ignore[attr-defined]

    def parse(p: Parser) -> Operation:
        lhs = p.parse_operand()
        p.parse_literal(",")
        rhs = p.parse_operand()
        flags = None
        if with_flags and p.try_keyword("overflow"):
            flags = _parse_overflow_body(p)
        attrs = p.try_attr_dict()
        p.parse_literal(":")
        op = cls(lhs, rhs, p.parse_type())  # type: ignore[call-arg]
        if flags is not None:
            op.properties["overflowFlags"] = flags
        return _with(op, attrs)

    return parse


def _with(op: Operation, attrs: dict[str, Attribute]) -> Operation:
    op.attributes.update(attrs)
    return op


def _print_binary(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name) + " ")
    pr.operands(op.operands)
    flags = op.properties.get("overflowFlags")
    if isinstance(flags, arith.IntegerOverflowAttr) and flags.data:
        pr.write(f" overflow<{_overflow_text(flags)}>")
    _attrs_and_type(op, pr, op.results[0].type)


def _parse_cmpi(p: Parser) -> Operation:
    p.ws()
    pos = p.pos
    word = p.parse_keyword()
    if word not in CMPI_PREDICATES:
        p.error(
            f"arith.cmpi: unknown predicate '{word}'; expected one of {', '.join(CMPI_PREDICATES)}",
            pos,
        )
    p.parse_literal(",")
    (lhs, rhs), attrs, _ = _parse_operands_and_type(p, 2)
    return _with(arith.CmpiOp(lhs, rhs, CMPI_PREDICATES.index(word)), attrs)


def _print_cmpi(op: Operation, pr: Printer) -> None:
    pred = op.properties["predicate"]
    assert isinstance(pred, IntegerAttr)
    pr.write(f"{pr.op_name(op.name)} {CMPI_PREDICATES[pred.value.data]}, ")
    pr.operands(op.operands)
    _attrs_and_type(op, pr, op.operands[0].type)


def _parse_select(p: Parser) -> Operation:
    (cond, a, b), attrs, _ = _parse_operands_and_type(p, 3)
    return _with(arith.SelectOp(cond, a, b), attrs)


_OVERFLOW_ORDER = list(arith.IntegerOverflowFlag)


def _overflow_text(a: arith.IntegerOverflowAttr) -> str:
    return ", ".join(f.value for f in _OVERFLOW_ORDER if f in a.data) or "none"


def _parse_overflow_body(p: Parser) -> arith.IntegerOverflowAttr:
    """`#arith.overflow<none>`, `#arith.overflow<nsw, nuw>` after the name."""
    p.parse_literal("<")
    words = p.parse_comma_list(p.parse_keyword, ">")
    p.parse_literal(">")
    if words in (["none"], []):
        return arith.IntegerOverflowAttr("none")
    try:
        return arith.IntegerOverflowAttr([arith.IntegerOverflowFlag(w) for w in words])
    except ValueError:
        p.error(f"unknown overflow flag in {words}; expected none, nsw or nuw")


give_mlir_text(arith.IntegerOverflowAttr, lambda a: f"#arith.overflow<{_overflow_text(a)}>")


@irdl_op_definition
class IndexCastOp(IRDLOperation):
    """`arith.index_cast` as MLIR's: between index and integer scalars or tensors of them (of one
    shape).  xDSL's arith.IndexCastOp takes scalars only, so a tensor cast (as upstream's
    stablehlo-aggressive-simplification creates) would not verify."""

    name = "arith.index_cast"
    input = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        from xdsl.dialects.builtin import IntegerType
        from xdsl.utils.exceptions import VerifyException

        a, b = self.input.type, self.result.type
        shaped = isinstance(a, TensorType), isinstance(b, TensorType)
        if shaped[0] != shaped[1] or (shaped[0] and a.get_shape() != b.get_shape()):  # type: ignore[union-attr]
            raise VerifyException(
                f"'arith.index_cast' op operand type '{a}' and result type '{b}' are cast incompatible"
            )
        ea = a.element_type if isinstance(a, TensorType) else a
        eb = b.element_type if isinstance(b, TensorType) else b
        ok = (isinstance(ea, IndexType) and isinstance(eb, IntegerType)) or (
            isinstance(ea, IntegerType) and isinstance(eb, IndexType)
        )
        if not ok:
            raise VerifyException(
                f"'arith.index_cast' op operand type '{a}' and result type '{b}' are cast incompatible"
            )


INTEGER_BINARY = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.MaxSIOp)

FOREIGN_SYNTAX[ShapeOfOp] = cast_syntax(
    ShapeOfOp, "->", "shape.shape_of: the operand's type is not the written one"
)
FOREIGN_SYNTAX[tensor.DimOp] = ForeignSyntax(_parse_dim, _print_plain(result_typed=False))
FOREIGN_SYNTAX[tensor.ExtractOp] = ForeignSyntax(_parse_extract, _print_extract)
FOREIGN_SYNTAX[tensor.FromElementsOp] = ForeignSyntax(
    _parse_from_elements, _print_plain(result_typed=True)
)
FOREIGN_SYNTAX[arith.CmpiOp] = ForeignSyntax(_parse_cmpi, _print_cmpi)
FOREIGN_SYNTAX[arith.SelectOp] = ForeignSyntax(_parse_select, _print_plain(result_typed=True))
# arith.index_cast: `%r = arith.index_cast %x : T to R`, read as the IndexCastOp above
FOREIGN_SYNTAX[arith.IndexCastOp] = FOREIGN_SYNTAX[IndexCastOp] = cast_syntax(
    IndexCastOp, "to", "arith.index_cast: the operand's type is not the written one"
)
for _cls in INTEGER_BINARY:
    FOREIGN_SYNTAX[_cls] = ForeignSyntax(_parse_binary(_cls), _print_binary)

# MLIR's result names: %dim, %extracted, %from_elements
give_result_names(tensor.DimOp, "dim")
give_result_names(tensor.ExtractOp, "extracted")
give_result_names(tensor.FromElementsOp, "from_elements")

OPS = (
    ShapeOfOp,
    tensor.DimOp,
    tensor.ExtractOp,
    tensor.FromElementsOp,
    arith.CmpiOp,
    arith.SelectOp,
    IndexCastOp,
    *INTEGER_BINARY,
)


def register(reg) -> None:  # type: ignore[no-untyped-def]
    reg.attr_parsers["arith.overflow"] = _parse_overflow_body


__all__ = ["CMPI_PREDICATES", "INTEGER_BINARY", "OPS", "IndexCastOp", "ShapeOfOp"]
