"""`stablehlo-convert-to-signless`: signed and unsigned integer types become signless integers of
the same width, everywhere (upstream's ``stablehlo/transforms/StablehloConvertToSignless.cpp`` with
its ``conversions/TypeConversion.cpp`` RemoveSignTypeConverter).

The type converter (`convert_type`): `si8`/`ui8` -> `i8`, and a shaped type (tensor, memref, ranked
or not) of such elements -> the same shaped type of signless elements (its encoding kept); every
other type stays (quantized elements keep their storage type).  A type is legal when it converts to
itself.

Upstream runs a full dialect conversion; this is the same conversion written out, in place:

- Legal ops: `func.func` whose function type is legal; `arith.constant` and `stablehlo.constant`
  whose result and value types are legal; any other op whose operand and result types are legal.
- An illegal `func.func` takes the converted signature (the FunctionOpInterface pattern) and its
  blocks' arguments the converted types.
- An illegal constant takes the same integer bits as a dense value of the converted type
  (`dense<255> : tensor<ui8>` -> `dense<-1> : tensor<i8>`); a constant whose value is not a dense
  integer value fails ("expected dense integer value" upstream).
- Any other illegal op (ConvertToSignless, which matches every op) keeps its name, attributes and
  location, takes the converted result types, and its regions' block arguments take the converted
  types.  Existing `unrealized_conversion_cast`s are ops like any other: their types are converted,
  which leaves identity casts for `--canonicalize` to fold.
- Ops are visited in pre-order, so an operand has its converted type by the time its user is
  visited; an operand that still has an illegal type (a block argument of a legal op's region) is
  cast to the converted type by an `unrealized_conversion_cast` at the start of its block (the
  converter's target materialization).
- An op that cannot be made legal fails the pass with upstream's full-conversion error "failed to
  legalize operation '<name>'" at the op.  Note: upstream converts the entry block of a converted
  region and leaves other blocks to the branch ops; here every block of a converted region is
  converted (StableHLO's regions have one block).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stablehlo_py.passes.drivers._common import (
    LegalizationError,
    carry_arg_location,
    gc_paused,
    materialize_cast,
    op_location,
    visit_nested,
)
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import storage_dtype

__all__ = ["PASS_NAME", "convert_signless", "convert_type", "is_legal_type", "run"]

PASS_NAME = "stablehlo-convert-to-signless"
SUMMARY = "Pass to transform the IR to be on signless integers."


# ------------------------------------------------------------------------------------ types
def _signless(t: IntegerType) -> IntegerType:
    """convertInteger: the signless integer type of the same width."""
    return IntegerType(t.width.data)


def _is_signful(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS


SHAPED_CLONES: dict[type, Callable[[Attribute, Attribute], Attribute]] = {
    TensorType: lambda t, e: TensorType(e, t.get_shape(), t.encoding),  # type: ignore[attr-defined]
    UnrankedTensorType: lambda t, e: UnrankedTensorType(e),
    MemRefType: lambda t, e: MemRefType(e, t.get_shape(), t.layout, t.memory_space),  # type: ignore[attr-defined]
    UnrankedMemRefType: lambda t, e: UnrankedMemRefType(e, t.memory_space),  # type: ignore[attr-defined]
}
"""convertShapedType: each ShapedType with its element type replaced (`shapedType.clone(elem)`)."""


def convert_type(t: Attribute) -> Attribute:
    """RemoveSignTypeConverter: the signless form of ``t`` (``t`` itself when it has none)."""
    if _is_signful(t):
        return _signless(t)  # type: ignore[arg-type]
    clone = SHAPED_CLONES.get(type(t))
    if clone is not None:
        elem = t.element_type  # type: ignore[attr-defined]
        if _is_signful(elem):
            return clone(t, _signless(elem))
    return t


def is_legal_type(t: Attribute) -> bool:
    return convert_type(t) == t


# ------------------------------------------------------------------------------------ the conversion
def _failed(op: Operation) -> LegalizationError:
    return LegalizationError(f"failed to legalize operation '{op.name}'", location=op_location(op))


CONSTANTS = frozenset({"arith.constant", "stablehlo.constant"})
"""The constants ConvertConstantToSignless converts (their value's type must be legal too)."""


def _constant_value(op: Operation) -> Attribute | None:
    value = op.properties.get("value")
    return value if value is not None else op.attributes.get("value")


def _signless_values(attr: DenseIntOrFPElementsAttr, to: TensorType) -> DenseIntOrFPElementsAttr:
    """The same integer bits (APInts) as a dense value of the signless type ``to``."""
    elem = to.element_type
    assert isinstance(elem, IntegerType)
    width = elem.width.data
    values = np.asarray(dense_values(attr)).astype(np.int64)
    if width < 64:
        half = 1 << (width - 1)
        values = ((values + half) & ((1 << width) - 1)) - half
    return make_dense(to, values.astype(storage_dtype(elem)))


class _Conversion:
    def __init__(self) -> None:
        self.casts: dict[tuple[SSAValue, Attribute], SSAValue] = {}

    # -- legality (the ConversionTarget)
    def is_legal(self, op: Operation) -> bool:
        if op.name == "func.func":
            ft = op.properties.get("function_type")
            assert isinstance(ft, FunctionType)
            return all(is_legal_type(t) for t in (*ft.inputs.data, *ft.outputs.data))
        if op.name in CONSTANTS:
            value = _constant_value(op)
            vt = getattr(value, "type", None)
            return is_legal_type(op.results[0].type) and (vt is None or is_legal_type(vt))
        return all(is_legal_type(v.type) for v in op.operands) and all(
            is_legal_type(r.type) for r in op.results
        )

    # -- walking (pre-order)
    def op(self, op: Operation) -> None:
        if not self.is_legal(op):
            if op.name == "func.func":
                self.func(op)
            elif op.name in CONSTANTS:
                self.constant(op)
            else:
                self.generic(op)
        visit_nested(op, self.op)

    # -- the patterns
    def func(self, op: Operation) -> None:
        ft = op.properties["function_type"]
        assert isinstance(ft, FunctionType)
        op.properties["function_type"] = FunctionType.from_lists(
            [convert_type(t) for t in ft.inputs.data], [convert_type(t) for t in ft.outputs.data]
        )
        self.convert_regions(op)

    def constant(self, op: Operation) -> None:
        value = _constant_value(op)
        to = convert_type(op.results[0].type)
        if (
            not isinstance(value, DenseIntOrFPElementsAttr)
            or not isinstance(value.get_element_type(), IntegerType)
            or not isinstance(to, TensorType)
        ):
            raise _failed(op)  # "expected dense integer value" / "expected convertible shaped type"
        new_value = _signless_values(value, to)
        if "value" in op.properties:
            op.properties["value"] = new_value
        else:
            op.attributes["value"] = new_value
        self.retype_results(op)

    def generic(self, op: Operation) -> None:
        for i, operand in enumerate(op.operands):
            if not is_legal_type(operand.type):
                op.operands[i] = self.materialize(operand)
        self.retype_results(op)
        self.convert_regions(op)
        if not self.is_legal(op):
            raise _failed(op)

    # -- helpers
    def retype_results(self, op: Operation) -> None:
        for r in list(op.results):
            t = convert_type(r.type)
            if t != r.type:
                Rewriter.replace_value_with_new_type(r, t)

    def convert_regions(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    t = convert_type(arg.type)
                    if t != arg.type:
                        new = Rewriter.replace_value_with_new_type(arg, t)
                        carry_arg_location(new, arg)

    def materialize(self, value: SSAValue) -> SSAValue:
        """The target materialization: `unrealized_conversion_cast` of a signful value to its
        signless type, once per value, at the start of its block (a block argument) or right after
        its definition."""
        return materialize_cast(self.casts, value, convert_type(value.type))


def convert_signless(root: Operation) -> None:
    """Convert every op under ``root`` (a module, or any op) to signless integer types."""
    _Conversion().op(root)


def run(op: Operation, options: dict[str, object]) -> Operation:
    with gc_paused():
        convert_signless(op)
    return op
