"""`stablehlo-legalize-quant-to-math`: quantized StableHLO ops become integer and float math on the
storage values (upstream's ``stablehlo/transforms/StablehloLegalizeQuantToMath.cpp``).

Upstream runs a partial dialect conversion; this is the same conversion written out:

- A stablehlo, chlo or func op is illegal when one of its operand or result types (as they were
  before the pass) has a `!quant.uniform` element type; other ops are left alone.
- Ops are visited in order (pre-order, regions after their op).  An illegal op is rewritten by the
  first pattern that matches, as upstream's benefits order them: the specific patterns
  (uniform_quantize, uniform_dequantize, add, dot, dot_general, convolution: ``quant_to_math/``),
  the type change of the ops that only move or select values (`GENERIC_OPS`: storage types in
  place, region arguments included), then the fallback that dequantizes the operands, runs the op
  on floats and quantizes the results (`QDQ_OPS`), each new (de)quantize lowered at once.
- `func.func` signatures and entry-block arguments take the storage types.
- An illegal op no pattern rewrites fails the pass with upstream's "failed to legalize operation
  '<name>' that was explicitly marked illegal" at the op, after any error the pattern emitted.
"""

from __future__ import annotations

from stablehlo_py.passes.drivers._common import (
    LegalizationError,
    carry_arg_location,
    gc_paused,
    op_location,
    visit_nested,
)
from stablehlo_py.passes.patterns.quant_to_math import dot_like
from stablehlo_py.passes.patterns.quant_to_math.emit import (
    Emitter,
    is_per_tensor,
    quant_of,
    storage_type,
)
from stablehlo_py.passes.patterns.quant_to_math.patterns import (
    Emitted,
    Pattern,
    quantized_add,
    quantized_op_to_qdq,
    uniform_dequantize,
    uniform_quantize,
)
from stablehlo_py.passes.stablehlo_legalize_quantized_op_to_qdq import is_quantized
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import StableHLOError

PASS_NAME = "stablehlo-legalize-quant-to-math"
SUMMARY = "Convert from StableHLO quantized ops to StableHLO primitive math ops."

# The patterns of benefit 10 that rewrite an op into new ops.
PATTERNS: dict[str, Pattern] = {
    "stablehlo.uniform_quantize": uniform_quantize,
    "stablehlo.uniform_dequantize": uniform_dequantize,
    "stablehlo.add": quantized_add,
    "stablehlo.dot": dot_like.dot,
    "stablehlo.dot_general": dot_like.dot,
    "stablehlo.convolution": dot_like.convolution,
}

# ConvertGenericOp: ops that only change their types (quantized -> storage).
GENERIC_OPS = frozenset(
    "stablehlo." + n
    for n in [
        "bitcast_convert",
        "broadcast_in_dim",
        "composite",
        "concatenate",
        "constant",
        "dynamic_reshape",
        "dynamic_slice",
        "gather",
        "maximum",
        "minimum",
        "pad",
        "reduce_window",
        "reshape",
        "return",
        "select",
        "slice",
        "transpose",
        "get_dimension_size",
        "dynamic_broadcast_in_dim",
    ]
)

_TARGET_PREFIXES = ("stablehlo.", "chlo.", "func.")


class _Conversion:
    def __init__(self) -> None:
        self.orig: dict[SSAValue, Attribute] = {}

    def orig_type(self, v: SSAValue) -> Attribute:
        return self.orig.get(v, v.type)

    def retype(self, v: SSAValue, t: Attribute) -> SSAValue:
        old = self.orig.get(v, v.type)
        new = Rewriter.replace_value_with_new_type(v, t)
        if isinstance(v, BlockArgument):
            carry_arg_location(new, v)
        self.orig[new] = old
        return new

    def is_illegal(self, op: Operation) -> bool:
        if not op.name.startswith(_TARGET_PREFIXES):
            return False
        return any(is_quantized(self.orig_type(v)) for v in op.operands) or any(
            is_quantized(r.type) for r in op.results
        )

    # -- walking
    def regions(self, op: Operation) -> None:
        visit_nested(op, self.op)

    def op(self, op: Operation) -> None:
        if op.name == "func.func":
            self.func(op)
        elif op.name in ("func.return", "stablehlo.return") or not self.is_illegal(op):
            pass  # legal, or a terminator whose operands already have their new types
        elif op.name in GENERIC_OPS and self.generic_applies(op):
            self.change_types(op)
        else:
            self.rewrite(op)
            return
        self.regions(op)

    # -- func.func signatures
    def func(self, op: Operation) -> None:
        ft = op.properties["function_type"]
        assert isinstance(ft, FunctionType)
        inputs = [storage_type(t) for t in ft.inputs.data]
        outputs = [storage_type(t) for t in ft.outputs.data]
        op.properties["function_type"] = FunctionType.from_lists(inputs, outputs)
        if op.regions and op.regions[0].blocks:
            entry = op.regions[0].blocks.first
            assert entry is not None
            for arg in list(entry.args):
                if is_quantized(arg.type):
                    self.retype(arg, storage_type(arg.type))

    # -- ConvertGenericOp
    def generic_applies(self, op: Operation) -> bool:
        if op.name not in ("stablehlo.maximum", "stablehlo.minimum"):
            return True
        # per-tensor quantization with the same parameters everywhere only
        qs = [quant_of(self.orig_type(v)) for v in op.operands] + [quant_of(op.results[0].type)]
        return all(is_per_tensor(q) for q in qs) and qs[0] == qs[1] == qs[2]

    def change_types(self, op: Operation) -> None:
        for r in list(op.results):
            if is_quantized(r.type):
                self.retype(r, storage_type(r.type))
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    if is_quantized(arg.type):
                        self.retype(arg, storage_type(arg.type))

    # -- rewriting patterns
    def rewrite(self, op: Operation) -> None:
        e = Emitter(op)
        pattern = PATTERNS.get(op.name)
        try:
            values = pattern(e, op, self.orig_type) if pattern is not None else None
            if values is None:
                values = quantized_op_to_qdq(e, op, self.orig_type)
        except Emitted as err:
            raise _failed(op, StableHLOError(str(err), location=op_location(op))) from None
        if values is None:
            raise _failed(op)
        for old, new in zip(op.results, values, strict=True):
            old.replace_all_uses_with(new)
            if new not in self.orig:
                self.orig[new] = old.type
        Rewriter.erase_op(op)


class QuantLegalizationError(LegalizationError):
    """Upstream's "failed to legalize operation" after the errors its pattern emitted on the op
    (`preceding`, also printed before it)."""

    def __init__(self, message: str, *, location: str | None, preceding: list[StableHLOError]):
        self.preceding = preceding
        super().__init__(message, location=location)

    def render(self) -> str:
        return "\n".join([*(p.render() for p in self.preceding), super().render()])


def _failed(op: Operation, emitted: StableHLOError | None = None) -> LegalizationError:
    return QuantLegalizationError(
        f"failed to legalize operation '{op.name}' that was explicitly marked illegal",
        location=op_location(op),
        preceding=[emitted] if emitted is not None else [],
    )


def legalize(root: Operation) -> None:
    """Lower every quantized op under `root` (a module or a function)."""
    conversion = _Conversion()
    if root.name == "func.func":
        conversion.op(root)
    else:
        conversion.regions(root)


def run(op: Operation, options: dict[str, object]) -> Operation:
    with gc_paused():
        legalize(op)
    return op


__all__ = ["GENERIC_OPS", "PATTERNS", "legalize", "run"]
