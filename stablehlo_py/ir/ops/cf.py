"""Pretty syntax and successor checks for xDSL's own `cf` dialect ops, as MLIR's ControlFlowOps.td
writes them:

  cf.br ^bb1(%a : tensor<f32>)
  cf.cond_br %c, ^bb1(%a : tensor<f32>), ^bb2

(generic form: `"cf.br"(%a)[^bb1] : (tensor<f32>) -> ()`, `"cf.cond_br"(%c, %a)[^bb1, ^bb2]
<{operandSegmentSizes = array<i32: 1, 1, 0>}> : ...`).  The op classes are xDSL's; only their text
and MLIR's BranchOpInterface checks live here.  `cf.switch` and `cf.assert` are not registered (not
supported: no upstream StableHLO test uses them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.dialects.cf import BranchOp, ConditionalBranchOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.operand_syntax import check_operand_types, parse_operands_with_positions
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

I1_CONDITION = "i1"


# ------------------------------------------------------------------------- successor lists
def parse_successor_and_operands(p: Parser) -> tuple[Block, list[SSAValue]]:
    """`^bb1` or `^bb1(%a, %b : T1, T2)` (MLIR's parseSuccessorAndUseList)."""
    block = p.parse_successor()
    operands: list[SSAValue] = []
    if p.try_literal("("):
        operands, positions = parse_operands_with_positions(p)
        p.parse_literal(":", "before the types of the successor operands")
        types = p.parse_comma_list(p.parse_type)
        p.parse_literal(")", "to close the successor operands")
        check_operand_types(p, operands, positions, types)
    return block, operands


def print_successor_and_operands(pr: Printer, block: Block, operands: Sequence[SSAValue]) -> None:
    pr.write(pr.block_name(block))
    if operands:
        pr.write("(")
        pr.operands(operands)
        pr.write(" : ")
        pr.types(v.type for v in operands)
        pr.write(")")


# ------------------------------------------------------------------------------------ cf.br
def parse_br(p: Parser) -> Operation:
    block, operands = parse_successor_and_operands(p)
    attrs = p.try_attr_dict()
    return BranchOp.create(operands=operands, successors=[block], attributes=attrs)


def print_br(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name) + " ")
    print_successor_and_operands(pr, op.successors[0], op.operands)
    pr.attr_dict(dict(op.attributes))


# ------------------------------------------------------------------------------- cf.cond_br
SEGMENTS = "operandSegmentSizes"


def parse_cond_br(p: Parser) -> Operation:
    from stablehlo_py.ir.text.printer import type_to_str

    p.ws()
    pos = p.pos
    cond = p.parse_operand()
    if type_to_str(cond.type) != I1_CONDITION:
        p.error(f"the condition of 'cf.cond_br' must be i1, got {type_to_str(cond.type)}", pos)
    p.parse_literal(",")
    then_block, then_ops = parse_successor_and_operands(p)
    p.parse_literal(",")
    else_block, else_ops = parse_successor_and_operands(p)
    attrs = p.try_attr_dict()
    return ConditionalBranchOp.create(
        operands=[cond, *then_ops, *else_ops],
        successors=[then_block, else_block],
        properties={SEGMENTS: DenseArrayBase.from_list(i32, [1, len(then_ops), len(else_ops)])},
        attributes=attrs,
    )


def print_cond_br(op: Operation, pr: Printer) -> None:
    assert isinstance(op, ConditionalBranchOp)
    pr.write(pr.op_name(op.name) + " ")
    pr.operand(op.cond)
    pr.write(", ")
    print_successor_and_operands(pr, op.then_block, op.then_arguments)
    pr.write(", ")
    print_successor_and_operands(pr, op.else_block, op.else_arguments)
    pr.attr_dict(dict(op.attributes))


# ------------------------------------------------------------------- BranchOpInterface checks
def successor_operands(op: Operation) -> list[Sequence[SSAValue]]:
    """The operands an op forwards to each of its successors (BranchOpInterface)."""
    if isinstance(op, ConditionalBranchOp):
        return [op.then_arguments, op.else_arguments]
    return [op.operands]


def verify_successors(op: Operation) -> None:
    """MLIR's verifyBranchSuccessorOperands (count, then types, per successor) and two rules of
    MLIR's region verifier, reported here at the branch: nothing branches to an entry block, and a
    block it branches to is not empty (a block of a func.func ends with a terminator)."""
    from stablehlo_py.ir.text.printer import type_to_str

    for n, (block, operands) in enumerate(zip(op.successors, successor_operands(op))):
        region = block.parent
        if region is not None and region.blocks.first is block:
            raise VerifyException("entry block of region may not have predecessors")
        if block.first_op is None:
            raise VerifyException(f"successor #{n} is an empty block: expect at least a terminator")
        if len(operands) != len(block.args):
            raise VerifyException(
                f"branch has {len(operands)} operands for successor #{n}, but target block has {len(block.args)}"
            )
        for i, (v, a) in enumerate(zip(operands, block.args)):
            if v.type != a.type:
                raise VerifyException(
                    f"type mismatch for bb argument #{i} of successor #{n} "
                    f"({type_to_str(v.type)} is passed to {type_to_str(a.type)})"
                )


class BranchSuccessorOperands(OpTrait):
    """MLIR's BranchOpInterface verification (`verify_successors`), which xDSL's cf ops lack; added
    to their traits with xDSL's `OpTraits.add_trait`, so their own `verify_` stays xDSL's."""

    def verify(self, op: Operation) -> None:
        verify_successors(op)


for _cls in (BranchOp, ConditionalBranchOp):
    if not _cls.has_trait(BranchSuccessorOperands):
        _cls.traits.add_trait(BranchSuccessorOperands())

FOREIGN_SYNTAX[BranchOp] = ForeignSyntax(parse_br, print_br)
FOREIGN_SYNTAX[ConditionalBranchOp] = ForeignSyntax(parse_cond_br, print_cond_br)

OPS = (BranchOp, ConditionalBranchOp)
