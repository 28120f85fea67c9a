"""The LLVM dialect ops that upstream's tests write next to StableHLO ops: `llvm.add`.

Upstream's `stablehlo-opt` registers MLIR's LLVM dialect, so its tests may use LLVM ops (e.g.
verify_select_and_scatter.mlir writes `"llvm.add"(%a, %b) : (f32, f32) -> f32` inside a body, and
expects select_and_scatter's own diagnostic, which MLIR reports before it verifies the nested op).
Only the ops those tests use are here, with MLIR's syntax and verifier (LLVMOps.td):

* `llvm.add %a, %b : i32`, `llvm.add %a, %b overflow<nsw, nuw> : vector<4xi32>`; generic form
  `"llvm.add"(%a, %b) <{overflowFlags = #llvm.overflow<none>}> : (i32, i32) -> i32` (the default
  property is populated when the op is built, as MLIR does).
* operands and result: a signless integer or a vector of signless integers, all of one type.

No other LLVM op or type is supported: any other `llvm.*` op is an unknown operation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IntegerType, Signedness, VectorType
from xdsl.ir import Attribute, Data, Operation
from xdsl.irdl import irdl_attr_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.base import StableHLOOp, op_def
from stablehlo_py.ir.ops.operand_syntax import (
    check_operand_types,
    parse_flagged_binary,
    print_flagged_binary,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

OVERFLOW_FLAGS = ("nsw", "nuw")
"""MLIR's IntegerOverflowFlags, in the order it prints them."""


@irdl_attr_definition
class IntegerOverflowFlagsAttr(Data[tuple[str, ...]]):
    """`#llvm.overflow<none>`, `#llvm.overflow<nsw, nuw>` (the flags in MLIR's order)."""

    name = "llvm.overflow"

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[no-untyped-def, override]
        raise NotImplementedError("parsed by stablehlo_py.ir.text")

    def print_parameter(self, printer) -> None:  # type: ignore[no-untyped-def, override]
        printer.print_string(self.body())

    def body(self) -> str:
        return ", ".join(self.data) if self.data else "none"

    def mlir_text(self) -> str:
        return f"#llvm.overflow<{self.body()}>"


NO_OVERFLOW_FLAGS = IntegerOverflowFlagsAttr(())


def parse_overflow_flags(p: Parser) -> IntegerOverflowFlagsAttr:
    """`<none>` or `<nsw, nuw>` (after `#llvm.overflow` or the keyword `overflow`)."""
    p.parse_literal("<", "to open the overflow flags")
    p.ws()
    pos = p.pos
    words: list[str] = []
    while True:
        p.ws()
        wpos = p.pos
        w = p.try_bare_id()
        if w is None or (w not in OVERFLOW_FLAGS and w != "none"):
            p.error(
                f"expected one of [none, nsw, nuw] for integer overflow flags, found {p._found()}",
                wpos,
            )
        words.append(w)
        if not p.try_literal(","):
            break
    p.parse_literal(">", "to close the overflow flags")
    if "none" in words and len(words) > 1:
        p.error("'none' cannot be combined with other integer overflow flags", pos)
    return IntegerOverflowFlagsAttr(tuple(f for f in OVERFLOW_FLAGS if f in words))


def _is_signless_int_or_vector(t: Attribute) -> bool:
    if isinstance(t, VectorType):
        t = t.element_type
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS


_INT_OR_VECTOR = "signless integer or LLVM dialect-compatible vector of signless integer"


@op_def
class AddOp(StableHLOOp):
    """Integer addition (MLIR's `llvm.add`; the arguments wrap, unless a flag says they do not)."""

    name = "llvm.add"
    lhs = operand_def()
    rhs = operand_def()
    overflowFlags = opt_prop_def(IntegerOverflowFlagsAttr)
    res = result_def()
    traits = traits_def(Pure())
    POPULATED_DEFAULTS: ClassVar[dict[str, Attribute]] = {"overflowFlags": NO_OVERFLOW_FLAGS}

    def verify_(self) -> None:
        from stablehlo_py.ir.text.printer import type_to_str

        # ODS operand and result constraints, then AllTypesMatch<["lhs", "rhs", "res"]>
        for what, v in (
            ("operand #0", self.lhs),
            ("operand #1", self.rhs),
            ("result #0", self.res),
        ):
            if not _is_signless_int_or_vector(v.type):
                raise VerifyException(
                    f"{what} must be {_INT_OR_VECTOR}, but got '{type_to_str(v.type)}'"
                )
        if not self.lhs.type == self.rhs.type == self.res.type:
            raise VerifyException("failed to verify that all of {lhs, rhs, res} have same type")

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        operands, positions, props, attrs = parse_flagged_binary(
            p, "overflow", "overflowFlags", parse_overflow_flags
        )
        p.parse_literal(":")
        t = p.parse_type()
        # MLIR resolves the operands against the written type
        check_operand_types(p, operands, positions, [t, t])
        return cls.build_generic(
            operands=operands, result_types=[t], properties=props, attributes=attrs, regions=[]
        )

    def print_custom(self, pr: Printer) -> None:
        pr.write(" ")
        flags = self.properties.get("overflowFlags")
        shown = isinstance(flags, IntegerOverflowFlagsAttr) and flags.data
        print_flagged_binary(pr, self, f"overflow<{flags.body()}>" if shown else None)


OPS = (AddOp,)


def register(reg: Registry) -> None:
    reg.attr_parsers["llvm.overflow"] = parse_overflow_flags
