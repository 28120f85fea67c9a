"""Pretty syntax for xDSL's own `builtin.module`, `func.func`, `func.call` and `func.return`, as MLIR
prints them (function_interface_impl::printFunctionOp, ModuleOp's `($sym_name^)? attr-dict-with-keyword
$bodyRegion`).  The op classes are xDSL's; only their text lives here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.text.location import TextLoc

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


# ------------------------------------------------------------------------------------ module
def parse_module(p: Parser) -> Operation:
    props: dict[str, Attribute] = {}
    p.ws()
    if p.text.startswith("@", p.pos):
        props["sym_name"] = StringAttr(p.parse_symbol_name())
    attrs: dict[str, Attribute] = {}
    if p.try_keyword("attributes"):
        attrs = p.parse_attr_dict_body()
    region = p.parse_region(default_dialect="", isolated=True)
    if not region.blocks:
        region.add_block(Block())
    return ModuleOp.create(properties=props, attributes=attrs, regions=[region])


def print_module_op(op: Operation, pr: Printer) -> None:
    from stablehlo_py.ir.text.printer import symbol_text

    pr.write(pr.op_name(op.name))
    name = op.properties.get("sym_name")
    if isinstance(name, StringAttr):
        pr.write(" " + symbol_text(name.data))
    pr.attr_dict(dict(op.attributes), keyword=True)
    pr.write(" ")
    pr.region(op.regions[0], print_entry_args=False, print_terminators=False, default_dialect="")


# -------------------------------------------------------------------------------------- func
def parse_func(p: Parser) -> Operation:
    visibility = None
    for kw in ("public", "private", "nested"):
        if p.try_keyword(kw):
            visibility = kw
            break
    name = p.parse_symbol_name()
    args: list[tuple[str, Attribute, TextLoc | None]] = []
    arg_attrs: list[dict[str, Attribute]] = []
    external = False

    def one_arg() -> None:
        nonlocal external
        p.ws()
        if p.text.startswith("%", p.pos):
            n = p.parse_value_def_name()
            p.parse_literal(":")
            t = p.parse_type()
        else:
            external = True
            n, t = "", p.parse_type()
        a = p.try_attr_dict()
        loc = p.try_location()
        args.append((n, t, loc))
        arg_attrs.append(a)

    p.parse_delimited("(", one_arg, ")")
    results: list[Attribute] = []
    res_attrs: list[dict[str, Attribute]] = []
    if p.try_literal("->"):
        if p.peek() == "(":
            save = p.pos
            p.pos += 1
            p.ws()
            # `(T {attrs}, ...)` result list, or a function type as the single result.
            try:

                def one_res() -> None:
                    results.append(p.parse_type())
                    res_attrs.append(p.try_attr_dict())

                p.parse_comma_list(one_res, ")")
                p.parse_literal(")")
                if p.peek(2) == "->":
                    raise ValueError
            except (ValueError, Exception) as e:
                from stablehlo_py.errors import ParseError

                if isinstance(e, ParseError) and p.peek(2) != "->":
                    raise
                p.pos = save
                results.clear()
                res_attrs.clear()
                results.append(p.parse_type())
                res_attrs.append({})
        else:
            # A single unparenthesised result type carries no attributes (`-> T {` opens the body).
            results.append(p.parse_type())
            res_attrs.append({})
    attrs: dict[str, Attribute] = {}
    if p.try_keyword("attributes"):
        attrs = p.parse_attr_dict_body()
    props: dict[str, Attribute] = {
        "sym_name": StringAttr(name),
        "function_type": FunctionType.from_lists([t for _, t, _ in args], results),
    }
    if visibility is not None:
        props["sym_visibility"] = StringAttr(visibility)
    if any(arg_attrs):
        props["arg_attrs"] = ArrayAttr([DictionaryAttr(a) for a in arg_attrs])
    if any(res_attrs):
        props["res_attrs"] = ArrayAttr([DictionaryAttr(a) for a in res_attrs])
    for k in [k for k in attrs if k in ("sym_visibility", "arg_attrs", "res_attrs")]:
        props[k] = attrs.pop(k)
    if p.peek() == "{":
        if external:
            p.error("a function with a body needs named arguments (%arg0: type)")
        body = p.pos
        region = p.parse_region(entry_args=args, default_dialect="func", isolated=True)
        if not region.blocks:  # `{}`: MLIR's parseFunctionOp refuses it (a declaration has none)
            p.op_error("expected non-empty function body", body)
    else:
        region = Region()
    return FuncOp.create(properties=props, attributes=attrs, regions=[region])


def print_func(op: Operation, pr: Printer) -> None:
    from stablehlo_py.ir.text.printer import symbol_text, type_to_str

    assert isinstance(op, FuncOp)
    pr.write(pr.op_name(op.name) + " ")
    vis = op.properties.get("sym_visibility")
    if isinstance(vis, StringAttr):
        pr.write(vis.data + " ")
    pr.write(symbol_text(op.sym_name.data))
    ftype = op.function_type
    inputs, outputs = ftype.inputs.data, ftype.outputs.data
    arg_attrs = op.properties.get("arg_attrs")
    res_attrs = op.properties.get("res_attrs")
    body = op.body
    external = not body.blocks
    pr.write("(")
    for i, t in enumerate(inputs):
        if i:
            pr.write(", ")
        if not external:
            arg = body.blocks.first.args[i]  # type: ignore[union-attr]
            pr.write(f"{pr.value(arg)}: {type_to_str(t)}")
        else:
            pr.write(type_to_str(t))
        if isinstance(arg_attrs, ArrayAttr):
            pr.attr_dict(dict(arg_attrs.data[i].data))  # type: ignore[attr-defined]
        if not external and pr.debuginfo:
            text = pr.arg_location(body.blocks.first.args[i])  # type: ignore[union-attr]
            pr.write(f" loc({text})")  # MLIR prints every argument's, `loc(unknown)` too
    pr.write(")")
    if outputs:
        pr.write(" -> ")
        ra = [dict(d.data) for d in res_attrs.data] if isinstance(res_attrs, ArrayAttr) else None  # type: ignore[attr-defined]
        parens = len(outputs) > 1 or isinstance(outputs[0], FunctionType) or bool(ra and ra[0])
        if parens:
            pr.write("(")
        for i, t in enumerate(outputs):
            if i:
                pr.write(", ")
            pr.write(type_to_str(t))
            if ra:
                pr.attr_dict(ra[i])
        if parens:
            pr.write(")")
    pr.attr_dict(dict(op.attributes), keyword=True)
    if not external:
        pr.write(" ")
        pr.region(body, print_entry_args=False, print_terminators=True, default_dialect="func")


# ---------------------------------------------------------------------------- call / return
def parse_call(p: Parser) -> Operation:
    callee = p.parse_symbol_ref()
    p.ws()
    start = p.pos + 1  # after `(`
    operands = p.parse_delimited("(", p.parse_operand, ")")
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    ft = p.parse_function_type()
    _check_types(p, operands, ft.inputs.data, start)
    # upstream's inherent `arg_attrs`, `res_attrs` and `no_inline` are not properties of xDSL's
    # func.call: they stay in the attribute dictionary, which prints them as upstream does (sorted)
    props: dict[str, Attribute] = {"callee": callee}
    return CallOp.create(
        operands=operands, result_types=list(ft.outputs.data), properties=props, attributes=attrs
    )


def print_call(op: Operation, pr: Printer) -> None:
    from stablehlo_py.ir.text.printer import attr_to_str, function_type_to_str

    pr.write(pr.op_name(op.name) + " ")
    callee = op.properties["callee"]
    pr.write(attr_to_str(callee))
    pr.write("(")
    pr.operands(op.operands)
    pr.write(")")
    extra = {k: v for k, v in op.properties.items() if k != "callee"}
    extra.update(op.attributes)
    pr.attr_dict(dict(sorted(extra.items())))  # one dictionary, as MLIR's: sorted by name
    pr.write(
        " : " + function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
    )


def parse_return_operands(
    p: Parser,
) -> tuple[dict[str, Attribute], list[SSAValue], list[Attribute], int]:
    """`{attrs} %a, %b : T, U` (the operands and their types optional) of func.return and the
    terminators written like it: the attributes, the operands, the written types and where the
    types start (for the caller's check of them)."""
    attrs = p.try_attr_dict()
    operands: list[SSAValue] = []
    types: list[Attribute] = []
    if p.peek() == "%":
        operands = p.parse_operand_list()
        p.parse_literal(":")
        p.ws()
    pos = p.pos
    if operands:
        types = p.parse_comma_list(p.parse_type)
    return attrs, operands, types, pos


def parse_return(p: Parser) -> Operation:
    p.ws()
    start = p.pos
    attrs, operands, types, _ = parse_return_operands(p)
    if operands:
        _check_types(p, operands, types, start)
    return ReturnOp.create(operands=operands, attributes=attrs)


def print_return(op: Operation, pr: Printer) -> None:
    """`name {attrs} %a, %b : T, U`: func.return and the terminators written like it."""
    pr.write(pr.op_name(op.name))
    pr.attr_dict(dict(op.attributes))
    if op.operands:
        pr.write(" ")
        pr.operands(op.operands)
        pr.write(" : ")
        pr.types(v.type for v in op.operands)


def _check_types(p: Parser, operands, types, start: int) -> None:
    """MLIR's OpAsmParser::resolveOperands: a count mismatch at the first operand, a type mismatch
    at the operand's use."""
    if len(operands) != len(types):
        first = p.value_use_position(operands[0], start) if operands else start
        p.op_error(
            f"number of operands and types do not match: got {len(operands)} operands and "
            f"{len(types)} types",
            first,
        )
    for v, t in zip(operands, types):
        if v.type != t:
            p.use_type_error(v, t, start)


FOREIGN_SYNTAX[ModuleOp] = ForeignSyntax(parse_module, print_module_op, isolated=True)
FOREIGN_SYNTAX[FuncOp] = ForeignSyntax(parse_func, print_func, isolated=True)
FOREIGN_SYNTAX[CallOp] = ForeignSyntax(parse_call, print_call)
FOREIGN_SYNTAX[ReturnOp] = ForeignSyntax(parse_return, print_return)

OPS = (ModuleOp, FuncOp, CallOp, ReturnOp)

_ = SymbolRefAttr, Region
