"""Upstream's `custom<...>` assembly directives (stablehlo/dialect/AssemblyFormat.cpp), one class each
with `print(pr, op, *args)` and `parse(p, state, *arg_specs)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import DenseArrayBase, FunctionType

from stablehlo_py.ir.format import custom_directive, get_slot, set_slot
from stablehlo_py.ir.text.spelling import function_type_to_str

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def _functional(pr: Printer, op: Any) -> None:
    pr.write(function_type_to_str([v.type for v in op.operands], [r.type for r in op.results]))


def assign_from_function_type(
    p: Parser,
    st: Any,
    operand_args: list[Any],
    result_arg: Any,
    ft: FunctionType,
    pos: int | None = None,
) -> None:
    """Upstream's assignFromFunctionType: the operand count must match the inputs, one result;
    errors at `pos` (where the type started)."""
    ins = list(ft.inputs.data)
    outs = list(ft.outputs.data)
    n_operands = sum(
        len(c) if isinstance(c, list) else 1 for c in (get_slot(st, a) for a in operand_args)
    )
    if n_operands != len(ins):
        p.op_error(f"{n_operands} operands present, but expected {len(ins)}", pos)
    # Operand slots may be variadic: split the inputs by the parsed operand counts.
    i = 0
    for a in operand_args:
        cur = get_slot(st, a)
        if isinstance(cur, list):
            n = len(cur)
            set_slot(st, a, ins[i : i + n])
            i += n
        else:
            set_slot(st, a, ins[i])
            i += 1
    target = result_arg.target if hasattr(result_arg, "target") else None
    if target is not None and getattr(target, "variadic", False):
        set_slot(st, result_arg, outs)
    else:
        if len(outs) != 1:
            p.op_error("expected single output", pos)
        set_slot(st, result_arg, outs[0])


@custom_directive("SameOperandsAndResultType")
class SameOperandsAndResultType:
    """`T` when every operand and the result have type T, else the op's functional type."""

    @staticmethod
    def print(pr: Printer, op: Any, *args: Any) -> None:
        result = args[-1]
        results = result if isinstance(result, list) else [result]
        if len(results) == 1:
            r = results[0]
            # every operand type (a variadic group's each; None for an absent one) equals r; `is`
            # first: the parser interns types, so equal types are usually one object
            for t in args[:-1]:
                if t is r or t is None:
                    continue
                if isinstance(t, list):
                    if all(x is r or x == r for x in t):
                        continue
                    break
                if not t == r:  # noqa: SIM201 -- the operand type's __eq__, as upstream compares
                    break
            else:
                pr.out.append(pr.type_text(r))
                return
        _functional(pr, op)

    @staticmethod
    def parse(p: Parser, st: Any, *args: Any) -> None:
        *operand_args, result_arg = args
        p.ws()
        pos = p.pos
        t = p.parse_type()
        if isinstance(t, FunctionType):
            assign_from_function_type(p, st, operand_args, result_arg, t, pos)
            return
        for a in operand_args:
            cur = get_slot(st, a)
            set_slot(st, a, [t] * len(cur) if isinstance(cur, list) else t)
        target = result_arg.target
        set_slot(st, result_arg, [t] if getattr(target, "variadic", False) else t)


@custom_directive("VariadicSameOperandsAndResultType")
class VariadicSameOperandsAndResultType(SameOperandsAndResultType):
    """`custom<VariadicSameOperandsAndResultType>(ref($inputs), type($inputs), type($result))` (after_all):
    SameOperandsAndResultType over the variadic operand group; the leading `ref($inputs)` only tells
    upstream's parser how many operand types to expect, which our parse state already knows."""

    @staticmethod
    def print(pr: Printer, op: Any, *args: Any) -> None:
        SameOperandsAndResultType.print(pr, op, *args[1:])

    @staticmethod
    def parse(p: Parser, st: Any, *args: Any) -> None:
        SameOperandsAndResultType.parse(p, st, *args[1:])


def _i64_values(attr: Any) -> tuple[int, ...]:
    """The integers of a DenseI64ArrayAttr (or, as upstream's GenericDenseI64Array also accepts, of a
    rank-1 dense integer elements attribute)."""
    from xdsl.dialects.builtin import DenseArrayBase

    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    get_values = getattr(attr, "get_values", None)
    if get_values is None:
        raise TypeError(f"expected an i64 array attribute, got {attr!r}")
    return tuple(int(v) for v in get_values())


def parse_i64_list(p: Parser) -> list[int]:
    """`[1, -2, 3]` (possibly empty)."""
    from stablehlo_py.errors import ParseError

    p.parse_literal("[")
    try:
        items = p.parse_comma_list(p.parse_integer, "]")
    except ParseError as e:
        # MLIR's DenseArrayAttr parser still asks for the closing `]` after a bad element
        p.ws()
        e.preceding = [
            ParseError(f"expected ']', found {p._found()}", location=p.location_of(p.pos))
        ]  # type: ignore[attr-defined]
        raise
    p.parse_literal("]")
    return items


@custom_directive("DenseI64Array")
class DenseI64Array:
    """`[1, 2]` for an `array<i64: 1, 2>` attribute (printDenseI64Array/parseDenseI64Array)."""

    @staticmethod
    def print(pr: Printer, op: Any, attr: Any) -> None:
        def text() -> str:
            return "[" + ", ".join(str(v) for v in _i64_values(attr)) + "]"

        if isinstance(attr, DenseArrayBase):
            elt = pr.type_text(attr.elt_type)
            pr.out.append(pr.memo_text("i64 array", elt, attr.data.data, text))
        else:
            pr.out.append(text())

    @staticmethod
    def parse(p: Parser, st: Any, arg: Any) -> None:
        from xdsl.dialects.builtin import DenseArrayBase, IntegerType

        set_slot(st, arg, DenseArrayBase.from_list(IntegerType(64), parse_i64_list(p)))


@custom_directive("VariadicOperandWithAttribute")
class VariadicOperandWithAttribute:
    """`%a, %b,` -- each operand followed by a comma, stopping at the first non-value (the attribute
    that follows, e.g. `dim = 0`)."""

    @staticmethod
    def print(pr: Printer, op: Any, operands: Any) -> None:
        pr.operands(operands)
        pr.write(",")

    @staticmethod
    def parse(p: Parser, st: Any, arg: Any) -> None:
        values = []
        while p.peek() == "%":
            values.append(p.parse_operand())
            p.parse_literal(",")
        if not values and p.peek() == ",":
            # no operand: upstream prints the comma alone (a 0-d dynamic_slice: `%x, , sizes = []`)
            # and cannot read it back; read it, so that what is printed parses
            p.parse_literal(",")
        set_slot(st, arg, values)
