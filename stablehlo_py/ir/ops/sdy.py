"""Shardy's `sdy` ops that JAX writes in its sharded programs (shardy/dialect/sdy/ir/ops.td), in
Shardy's assembly formats, as jaxlib prints them:

    sdy.mesh @mesh = <["x"=2, "y"=2]> {attrs}
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    %1 = sdy.reshard %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    %1 = sdy.propagation_barrier %0 allowed_direction=NONE : tensor<8x4xf32>
    sdy.sharding_group %0 group_id=3 : tensor<8x4xf32>
    %2 = sdy.manual_computation(%0, %1) in_shardings=[<@mesh, [{"x"}, {}]>, ...]
           out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x4xf32>, ...) {
      ...
      sdy.return %v : tensor<4x4xf32>
    } : (tensor<8x4xf32>, ...) -> tensor<8x4xf32>

The sdy attributes are kept as their text (`OpaqueAttr`, full `#sdy.<mnemonic><...>` form; the ops'
syntax prints the stripped `<...>` form); `stablehlo_py.ir.sdy_attrs` reads their structure for the
verifiers here and for the interpreter (`interpreter/impls/sdy.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.ops.func import parse_return_operands, print_return
from stablehlo_py.ir.ops.operand_syntax import parse_entry_args
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.sdy_attrs import (
    Mesh,
    SdyAttrError,
    Sharding,
    manual_axes_text,
    mesh_text,
    parse_manual_axes,
    parse_mesh,
    parse_sharding,
    parse_sharding_per_value,
    sharding_per_value_text,
    sharding_text,
)
from stablehlo_py.ir.xdsl_compat.construct import create_generic

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

PROPAGATION_DIRECTIONS = ("NONE", "FORWARD", "BACKWARD", "BOTH")


def _opaque_text(a: Attribute) -> str:
    if not isinstance(a, OpaqueAttr):
        raise VerifyException(f"expected an sdy attribute, got {a}")
    return a.data


def _stripped(a: Attribute, mnemonic: str) -> str:
    text = _opaque_text(a)
    prefix = f"#sdy.{mnemonic}"
    return text.removeprefix(prefix)


def _scan_group(p: Parser, what: str) -> str:
    """The balanced `<...>`, `[...]` or `{...}` group at the parser's position, as written
    (whitespace runs outside strings collapsed)."""
    p.ws()
    start = p.pos
    if p.peek() not in ("<", "[", "{"):
        p.error(f"expected {what}")
    p._skip_balanced()
    return p.normalize_opaque(p.text[start : p.pos])


def _checked(p: Parser, text: str, reader, pos: int):  # type: ignore[no-untyped-def]
    try:
        return reader(text)
    except SdyAttrError as e:
        p.error(str(e), pos)


# ------------------------------------------------------------------------------- mesh lookup
def lookup_mesh(op: Operation, sharding: Sharding) -> Mesh:
    """The mesh a sharding names: its inline mesh, or the `sdy.mesh` symbol of the enclosing module."""
    if isinstance(sharding.mesh, Mesh):
        return sharding.mesh
    module = op
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is not None:
        for candidate in module.ops:
            if isinstance(candidate, MeshOp) and candidate.sym_name.data == sharding.mesh:
                return parse_mesh(_opaque_text(candidate.mesh))
    raise VerifyException(f"unknown mesh: @{sharding.mesh}")


def _verify_sharding(op: Operation, sharding: Sharding, rank: int | None, what: str) -> Mesh:
    """Shardy's verifyTensorShardingAttr essentials: the mesh exists, the rank matches, every axis
    is an axis of the mesh and is used once."""
    mesh = lookup_mesh(op, sharding)
    sizes = mesh.sizes
    if rank is not None and len(sharding.dims) != rank:
        raise VerifyException(
            f"{what} - sharding doesn't match tensor rank: {len(sharding.dims)} != {rank}"
        )
    seen: set[tuple[str, int, int | None]] = set()
    for ref in (
        *(a for d in sharding.dims for a in d.axes),
        *sharding.replicated,
        *sharding.unreduced,
    ):
        if ref.name not in sizes:
            raise VerifyException(f'{what} - unknown axis name: "{ref.name}"')
        if ref.size is not None and (
            ref.pre_size < 1 or ref.size < 1 or sizes[ref.name] % (ref.pre_size * ref.size)
        ):
            raise VerifyException(
                f'{what} - sub-axis {ref.text()} does not divide axis "{ref.name}" of size '
                f"{sizes[ref.name]}"
            )
        key = (ref.name, ref.pre_size, ref.size)
        if key in seen or (ref.size is None and any(k[0] == ref.name for k in seen)):
            raise VerifyException(f"{what} - duplicate axis ref: {ref.text()}")
        seen.add(key)
    return mesh


# -------------------------------------------------------------------------------------- ops
class _SdyOp(IRDLOperation):
    @classmethod
    def build_generic(
        cls,
        operands: list,  # type: ignore[type-arg]
        result_types: list[Attribute],
        properties: dict[str, Attribute],
        attributes: dict[str, Attribute],
        regions: list,  # type: ignore[type-arg]
    ) -> Operation:
        """The generic form: inherent attributes written in the attribute dictionary are the op's
        properties, as MLIR reads them."""
        declared = cls.get_irdl_definition().properties
        return create_generic(
            cls, operands, result_types, properties, attributes, regions, declared
        )


@irdl_op_definition
class MeshOp(_SdyOp):
    name = "sdy.mesh"
    sym_name = prop_def(StringAttr)
    mesh = prop_def(OpaqueAttr)

    @classmethod
    def build_generic(cls, operands, result_types, properties, attributes, regions):  # type: ignore[no-untyped-def,override]
        """Upstream StableHLO's tests write `"sdy.mesh"() {sym_name = ..., stablehlo.mesh = {...}}`
        for a tool without the sdy dialect (stablehlo-opt): no `mesh`, so not Shardy's op.  Such
        an op stays as written (an unregistered op holding the symbol and its `stablehlo.mesh`)."""
        if "mesh" not in properties and "mesh" not in attributes:
            from stablehlo_py.ir.registry import unregistered_op_class

            return unregistered_op_class(cls.name).create(
                operands=operands,
                result_types=result_types,
                properties=properties,
                attributes=attributes,
                regions=regions,
            )
        return super().build_generic(operands, result_types, properties, attributes, regions)

    def verify_(self) -> None:
        try:
            m = parse_mesh(_opaque_text(self.mesh))
        except SdyAttrError as e:
            raise VerifyException(str(e)) from None
        names = [n for n, _ in m.axes]
        if len(set(names)) != len(names):
            raise VerifyException("duplicate axis name in mesh")
        for n, s in m.axes:
            if s <= 0:
                raise VerifyException(f"axis size must be at least 1, got: {s}")
        if m.device_ids is not None:
            if m.axes and len(m.device_ids) != m.num_devices:
                raise VerifyException(
                    f"total product of axis sizes must match the number of device ids: "
                    f"{m.num_devices} != {len(m.device_ids)}"
                )
            if any(d < 0 for d in m.device_ids):
                raise VerifyException("device id must be non-negative")
            if m.axes and sorted(m.device_ids) != list(range(len(m.device_ids))):
                raise VerifyException("sorted device ids must be an iota")


class _SameTypeOp(_SdyOp):
    """An op on one tensor whose result has the tensor's type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        if self.input.type != self.result.type:
            raise VerifyException("requires the same type for all operands and results")


class _ValueShardingOp(_SameTypeOp):
    sharding = prop_def(OpaqueAttr)

    def verify_(self) -> None:
        super().verify_()
        try:
            s = parse_sharding(_opaque_text(self.sharding))
        except SdyAttrError as e:
            raise VerifyException(str(e)) from None
        _verify_sharding(self, s, len(self.result.type.get_shape()), "sharding")


@irdl_op_definition
class ShardingConstraintOp(_ValueShardingOp):
    name = "sdy.sharding_constraint"


@irdl_op_definition
class ReshardOp(_ValueShardingOp):
    name = "sdy.reshard"
    traits = traits_def(Pure())


@irdl_op_definition
class PropagationBarrierOp(_SameTypeOp):
    name = "sdy.propagation_barrier"
    # Shardy's PropagationDirection, an I32 enum held as its integer (`1 : i32` in generic form)
    allowed_direction = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        super().verify_()
        if _direction(self.allowed_direction) == "BOTH":
            raise VerifyException("cannot specify `BOTH` as the direction.")


def _direction(a: Attribute) -> str:
    v = a.value.data if isinstance(a, IntegerAttr) else -1
    if not 0 <= v < len(PROPAGATION_DIRECTIONS):
        raise VerifyException(f"{a} is not a propagation direction (0 to 3)")
    return PROPAGATION_DIRECTIONS[v]


@irdl_op_definition
class ShardingGroupOp(_SdyOp):
    name = "sdy.sharding_group"
    input = operand_def(TensorType)
    group_id = prop_def(IntegerAttr)


@irdl_op_definition
class ReturnOp(_SdyOp):
    name = "sdy.return"
    results_ = var_operand_def()
    traits = traits_def(Pure(), IsTerminator())


@irdl_op_definition
class ManualComputationOp(_SdyOp):
    name = "sdy.manual_computation"
    tensors = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    in_shardings = prop_def(OpaqueAttr)
    out_shardings = prop_def(OpaqueAttr)
    manual_axes = prop_def(OpaqueAttr)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), IsolatedFromAbove())

    def shardings(self) -> tuple[tuple[Sharding, ...], tuple[Sharding, ...], tuple[str, ...]]:
        return (
            parse_sharding_per_value(_opaque_text(self.in_shardings)),
            parse_sharding_per_value(_opaque_text(self.out_shardings)),
            parse_manual_axes(_opaque_text(self.manual_axes)),
        )

    def verify_(self) -> None:
        try:
            ins, outs, manual = self.shardings()
        except SdyAttrError as e:
            raise VerifyException(str(e)) from None
        block = self.body.blocks.first
        if block is None:
            raise VerifyException("expects a non-empty region")
        term = block.last_op
        if not isinstance(term, ReturnOp):
            raise VerifyException("the body must end with an sdy.return")
        self._verify_side(
            "operand", ins, [v.type for v in self.tensors], [a.type for a in block.args], manual
        )
        self._verify_side(
            "result",
            outs,
            [r.type for r in self.results],
            [v.type for v in term.operands],
            manual,
        )

    def _verify_side(self, what, shardings, globals_, locals_, manual) -> None:  # type: ignore[no-untyped-def]
        from stablehlo_py.ir.text.printer import type_to_str

        plural = "in" if what == "operand" else "out"
        if len(shardings) != len(globals_):
            raise VerifyException(
                f"number of {plural} shardings must match number of {what}s: "
                f"{len(shardings)} != {len(globals_)}"
            )
        body_what = "block arguments" if what == "operand" else "body return values"
        if len(locals_) != len(globals_):
            raise VerifyException(
                f"number of {body_what} must match number of {what}s: "
                f"{len(locals_)} != {len(globals_)}"
            )
        for i, (s, g, loc) in enumerate(zip(shardings, globals_, locals_)):
            gshape = g.get_shape()
            mesh = _verify_sharding(self, s, len(gshape), f"{what} - {plural} sharding #{i}")
            sizes = mesh.sizes
            for ax in manual:
                if ax not in sizes:
                    raise VerifyException(f'unknown axis name: "{ax}"')
            want = []
            for d, dim in enumerate(s.dims):
                factor = 1
                for ref in dim.axes:
                    if ref.name in manual:
                        factor *= ref.size if ref.size is not None else sizes[ref.name]
                if gshape[d] >= 0 and gshape[d] % factor:
                    raise VerifyException(
                        f"{what} #{i}: dimension {d} of size {gshape[d]} is not divisible by "
                        f"the manual axes sharding it (size {factor})"
                    )
                want.append(gshape[d] // factor if gshape[d] >= 0 else gshape[d])
            got = list(loc.get_shape())
            if got != want or loc.element_type != g.element_type:
                raise VerifyException(
                    f"{what} shape, corresponding sharding, and region {body_what[:-1]} shape "
                    f"must match. Expected shape: {type_to_str(type(g)(g.element_type, want))}, "
                    f"actual shape: {type_to_str(loc)}"
                )


OPS = (
    MeshOp,
    ShardingConstraintOp,
    ReshardOp,
    PropagationBarrierOp,
    ShardingGroupOp,
    ReturnOp,
    ManualComputationOp,
)


# ------------------------------------------------------------------------------------ syntax
def _parse_mesh(p: Parser) -> Operation:
    name = p.parse_symbol_name()
    p.parse_literal("=")
    pos = p.pos
    text = _scan_group(p, "a mesh <[...]>")
    mesh = _checked(p, text, parse_mesh, pos)
    attrs = p.try_attr_dict()
    return MeshOp.create(
        properties={"sym_name": StringAttr(name), "mesh": OpaqueAttr(mesh_text(mesh))},
        attributes=attrs,
    )


def _print_mesh(op: Operation, pr: Printer) -> None:
    from stablehlo_py.ir.text.printer import symbol_text

    assert isinstance(op, MeshOp)
    pr.write(
        f"{pr.op_name(op.name)} {symbol_text(op.sym_name.data)} = {_stripped(op.mesh, 'mesh')}"
    )
    pr.attr_dict(dict(op.attributes))


def _parse_value_sharding(cls: type[_ValueShardingOp]):  # type: ignore[no-untyped-def]
    def parse(p: Parser) -> Operation:
        operand = p.parse_operand()
        pos = p.pos
        text = _scan_group(p, "a sharding <@mesh, [...]>")
        sharding = _checked(p, text, parse_sharding, pos)
        attrs = p.try_attr_dict()
        p.parse_literal(":")
        t = p.parse_type()
        return cls.create(
            operands=[operand],
            result_types=[t],
            properties={"sharding": OpaqueAttr(sharding_text(sharding))},
            attributes=attrs,
        )

    return parse


def _print_one_operand(op: Operation, pr: Printer, middle: str, t: Attribute) -> None:
    """The syntax of sdy's one-operand ops: `name %x <middle> {attrs} : T`."""
    from stablehlo_py.ir.text.printer import type_to_str

    pr.write(pr.op_name(op.name) + " ")
    pr.operand(op.operands[0])
    pr.write(" " + middle)
    pr.attr_dict(dict(op.attributes))
    pr.write(" : " + type_to_str(t))


def _print_value_sharding(op: Operation, pr: Printer) -> None:
    sharding = _stripped(op.properties["sharding"], "sharding")
    _print_one_operand(op, pr, sharding, op.results[0].type)


def _parse_barrier(p: Parser) -> Operation:
    operand = p.parse_operand()
    p.parse_literal("allowed_direction")
    p.parse_literal("=")
    pos = p.pos
    word = p.parse_keyword()
    if word not in PROPAGATION_DIRECTIONS:
        p.error(f"expected one of {', '.join(PROPAGATION_DIRECTIONS)}, found '{word}'", pos)
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    t = p.parse_type()
    return PropagationBarrierOp.create(
        operands=[operand],
        result_types=[t],
        properties={
            "allowed_direction": IntegerAttr(PROPAGATION_DIRECTIONS.index(word), IntegerType(32))
        },
        attributes=attrs,
    )


def _print_barrier(op: Operation, pr: Printer) -> None:
    direction = _direction(op.properties["allowed_direction"])
    _print_one_operand(op, pr, f"allowed_direction={direction}", op.operands[0].type)


def _parse_group(p: Parser) -> Operation:
    operand = p.parse_operand()
    p.parse_literal("group_id")
    p.parse_literal("=")
    gid = p.parse_integer()
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    t = p.parse_type()
    if operand.type != t:
        p.error("the operand's type differs from the written type")
    return ShardingGroupOp.create(
        operands=[operand],
        properties={"group_id": IntegerAttr(gid, IntegerType(64))},
        attributes=attrs,
    )


def _print_group(op: Operation, pr: Printer) -> None:
    assert isinstance(op, ShardingGroupOp)
    _print_one_operand(op, pr, f"group_id={op.group_id.value.data}", op.operands[0].type)


def _parse_return(p: Parser) -> Operation:
    attrs, operands, types, _ = parse_return_operands(p)
    if [v.type for v in operands] != types:
        p.error(
            f"{len(operands)} operands present, but their types are written as {len(types)} other types"
        )
    return ReturnOp.create(operands=operands, attributes=attrs)


def _parse_manual(p: Parser) -> Operation:
    operands = p.parse_delimited("(", p.parse_operand, ")")
    props: dict[str, Attribute] = {}
    for key in ("in_shardings", "out_shardings"):
        p.parse_literal(key)
        p.parse_literal("=")
        pos = p.pos
        text = _scan_group(p, "a list of shardings [<@mesh, [...]>, ...]")
        shardings = _checked(p, text, parse_sharding_per_value, pos)
        props[key] = OpaqueAttr(sharding_per_value_text(shardings))
    p.parse_literal("manual_axes")
    p.parse_literal("=")
    pos = p.pos
    text = _scan_group(p, 'the manual axes {"x", ...}')
    axes = _checked(p, text, parse_manual_axes, pos)
    props["manual_axes"] = OpaqueAttr(manual_axes_text(axes))
    args = parse_entry_args(p)
    region = p.parse_region(entry_args=args, default_dialect="", isolated=True)  # type: ignore[arg-type]
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    ft = p.parse_function_type()
    if [v.type for v in operands] != list(ft.inputs.data):
        p.error("the operands' types differ from the functional type's inputs")
    return ManualComputationOp.create(
        operands=operands,
        result_types=list(ft.outputs.data),
        properties=props,
        attributes=attrs,
        regions=[region],
    )


def _manual_text(a: Attribute) -> str:
    text = _opaque_text(a)
    return text[len("#sdy<manual_axes") : -1] if text.startswith("#sdy<manual_axes") else text


def _per_value_text(a: Attribute) -> str:
    text = _stripped(a, "sharding_per_value")
    return text[1:-1] if text.startswith("<") else text


def _print_manual(op: Operation, pr: Printer) -> None:
    from stablehlo_py.ir.text.printer import function_type_to_str, type_to_str

    assert isinstance(op, ManualComputationOp)
    pr.write(pr.op_name(op.name) + "(")
    pr.operands(op.operands)
    pr.write(
        f") in_shardings={_per_value_text(op.in_shardings)}"
        f" out_shardings={_per_value_text(op.out_shardings)}"
        f" manual_axes={_manual_text(op.manual_axes)} ("
    )
    block = op.body.blocks.first
    assert block is not None
    for i, arg in enumerate(block.args):
        if i:
            pr.write(", ")
        pr.write(f"{pr.value(arg)}: {type_to_str(arg.type)}")
        if pr.debuginfo:
            pr.write(f" loc({pr.arg_location(arg)})")
    pr.write(") ")
    pr.region(op.body, print_entry_args=False, print_terminators=True, default_dialect="")
    pr.attr_dict(dict(op.attributes))
    pr.write(
        " : " + function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
    )


def _attr_parser(mnemonic: str, reader, text_of):  # type: ignore[no-untyped-def]
    """`#sdy.<mnemonic><...>` in an attribute position (e.g. a function argument's `sdy.sharding`),
    kept as its canonical text."""

    def parse(p: Parser) -> Attribute:
        pos = p.pos
        text = _scan_group(p, f"'<' after #sdy.{mnemonic}")
        return OpaqueAttr(text_of(_checked(p, text, reader, pos)))

    return parse


def register(reg: Registry) -> None:
    reg.attr_parsers["sdy.sharding"] = _attr_parser("sharding", parse_sharding, sharding_text)
    reg.attr_parsers["sdy.mesh"] = _attr_parser("mesh", parse_mesh, mesh_text)
    reg.attr_parsers["sdy.sharding_per_value"] = _attr_parser(
        "sharding_per_value", parse_sharding_per_value, sharding_per_value_text
    )


FOREIGN_SYNTAX[MeshOp] = ForeignSyntax(_parse_mesh, _print_mesh)
FOREIGN_SYNTAX[ShardingConstraintOp] = ForeignSyntax(
    _parse_value_sharding(ShardingConstraintOp), _print_value_sharding
)
FOREIGN_SYNTAX[ReshardOp] = ForeignSyntax(_parse_value_sharding(ReshardOp), _print_value_sharding)
FOREIGN_SYNTAX[PropagationBarrierOp] = ForeignSyntax(_parse_barrier, _print_barrier)
FOREIGN_SYNTAX[ShardingGroupOp] = ForeignSyntax(_parse_group, _print_group)
FOREIGN_SYNTAX[ReturnOp] = ForeignSyntax(_parse_return, print_return)  # func.return's syntax
FOREIGN_SYNTAX[ManualComputationOp] = ForeignSyntax(_parse_manual, _print_manual, isolated=True)
