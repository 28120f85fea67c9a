"""`arith.constant` (xDSL's op), which upstream's tests use next to StableHLO ops:
`%cst = arith.constant dense<-1> : tensor<i32>`, `%c0_i32 = arith.constant 0 : i32`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation

from stablehlo_py.ir.ops.base import parse_attr_dict_and_typed_value
from stablehlo_py.ir.ops.operand_syntax import parse_flagged_binary, print_flagged_binary
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.xdsl_compat.class_attrs import give_mlir_text, give_result_names

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def parse_constant(p: Parser) -> Operation:
    attrs, value, t, _ = parse_attr_dict_and_typed_value(
        p, "arith.constant needs a typed value (e.g. `0 : i32` or `dense<0> : tensor<i32>`)"
    )
    return ConstantOp.create(result_types=[t], properties={"value": value}, attributes=attrs)


def print_constant(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name))
    pr.attr_dict(dict(op.attributes))
    pr.write(" ")
    pr.attr(op.properties["value"])


def asm_name(op: Operation) -> str:
    """MLIR's arith.constant result names: %true/%false, %c0 (index), %c42_i32, else %cst."""
    v = op.properties["value"]
    if isinstance(v, IntegerAttr):
        t = v.type
        n = v.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if n else "false"
        if isinstance(t, IndexType):
            return f"c{n}"
        from stablehlo_py.ir.types import element_type_name

        return f"c{n}_{element_type_name(t)}".replace("-", "m")
    return "cst"


give_result_names(ConstantOp, asm_name)
FOREIGN_SYNTAX[ConstantOp] = ForeignSyntax(parse_constant, print_constant)
OPS = (ConstantOp,)


# ------------------------------------------------------------------- float binary ops (arith.addf ...)
# Upstream's mixed-dialect tests interleave these with StableHLO ops:
# `%0 = arith.addf %a, %b : tensor<f32>` (generic: `<{fastmath = #arith.fastmath<none>}>`).
from xdsl.dialects.arith import AddfOp, DivfOp, FastMathFlag, FastMathFlagsAttr, MulfOp, SubfOp  # noqa: E402

_FLAG_ORDER = list(FastMathFlag)


def _fastmath_text(a: FastMathFlagsAttr) -> str:
    flags = a.data
    if not flags:
        return "none"
    if set(flags) == set(_FLAG_ORDER):
        return "fast"
    return ",".join(f.value for f in _FLAG_ORDER if f in flags)


def _parse_fastmath_body(p: Parser) -> FastMathFlagsAttr:
    p.parse_literal("<")
    words = p.parse_comma_list(p.parse_keyword, ">")
    p.parse_literal(">")
    if words in (["none"], []):
        return FastMathFlagsAttr("none")
    if words == ["fast"]:
        return FastMathFlagsAttr("fast")
    try:
        return FastMathFlagsAttr([FastMathFlag(w) for w in words])
    except ValueError:
        p.error(f"unknown fastmath flag in {words}; expected none, fast or {', '.join(f.value for f in _FLAG_ORDER)}")


give_mlir_text(FastMathFlagsAttr, lambda a: f"#arith.fastmath<{_fastmath_text(a)}>")


def _parse_float_binary(cls: type) -> object:
    def parse(p: Parser) -> Operation:
        (lhs, rhs), _, props, attrs = parse_flagged_binary(
            p, "fastmath", "fastmath", _parse_fastmath_body
        )
        t, pos = p.parse_written_type()
        if lhs.type != t or rhs.type != t:
            p.error(f"{cls.name} operands must have the written type", pos)  # type: ignore[attr-defined]
        return cls.create(operands=[lhs, rhs], result_types=[t], properties=props, attributes=attrs)  # type: ignore[attr-defined]

    return parse


def _print_float_binary(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name) + " ")
    fm = op.properties.get("fastmath")
    shown = isinstance(fm, FastMathFlagsAttr) and fm.data
    print_flagged_binary(pr, op, f"fastmath<{_fastmath_text(fm)}>" if shown else None)


FLOAT_BINARY = (AddfOp, SubfOp, MulfOp, DivfOp)
for _cls in FLOAT_BINARY:
    FOREIGN_SYNTAX[_cls] = ForeignSyntax(_parse_float_binary(_cls), _print_float_binary)  # type: ignore[arg-type]
OPS = (*OPS, *FLOAT_BINARY)


def register(reg) -> None:  # type: ignore[no-untyped-def]
    reg.attr_parsers["arith.fastmath"] = _parse_fastmath_body
