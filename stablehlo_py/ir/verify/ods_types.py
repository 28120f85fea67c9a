"""upstream's ODS tensor type constraints (Base.td `RankedTensorOf<[...]>` definitions) with the
message MLIR's generated verifier prints: `operand #0 must be <summary>, but got '<type>'`.

An element class is (ODS summary, predicate); a tensor constraint is a ranked tensor whose element
type is in one of its classes, and its summary is MLIR's: `ranked tensor of <a> or <b> values`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.verify.constraints import is_complex, is_float, t2s
from stablehlo_py.ir.types import TokenType, UniformQuantizedType

_INT_WIDTHS = (2, 4, 8, 16, 32, 64)


def _signless(e: Attribute) -> bool:
    return (
        isinstance(e, IntegerType)
        and e.signedness.data == Signedness.SIGNLESS
        and e.width.data in _INT_WIDTHS
    )


def _unsigned(e: Attribute) -> bool:
    return (
        isinstance(e, IntegerType)
        and e.signedness.data == Signedness.UNSIGNED
        and e.width.data in _INT_WIDTHS
    )


def _complex32or64(e: Attribute) -> bool:
    return is_complex(e) and isinstance(e.element_type, (Float32Type, Float64Type))  # type: ignore[attr-defined]


def _per_tensor(e: Attribute) -> bool:
    return isinstance(e, UniformQuantizedType) and not e.is_per_axis


def _per_axis(e: Attribute) -> bool:
    return isinstance(e, UniformQuantizedType) and e.is_per_axis


ElementClass = tuple[str, Callable[[Attribute], bool]]

FLOAT: ElementClass = ("4/6/8/16/32/64-bit float", is_float)  # HLO_Float
PRED: ElementClass = (
    "bool",
    lambda e: (
        isinstance(e, IntegerType)
        and e.width.data == 1
        and e.signedness.data == Signedness.SIGNLESS
    ),
)  # HLO_Pred
INT: ElementClass = (
    "2/4/8/16/32/64-bit integer",
    lambda e: _signless(e) or _unsigned(e),
)  # HLO_Int
SINT: ElementClass = ("2/4/8/16/32/64-bit signless integer", _signless)  # HLO_SInt
COMPLEX: ElementClass = (
    "complex type with 32/64-bit float elements",
    _complex32or64,
)  # HLO_Complex
QUANT: ElementClass = ("per-tensor integer quantized", _per_tensor)  # HLO_QuantizedInt
PER_AXIS: ElementClass = ("per-axis integer quantized", _per_axis)  # HLO_PerAxisQuantizedInt
INDEX: ElementClass = ("index", lambda e: isinstance(e, IndexType))  # MLIR's Index


class RankedTensorOf:
    """`RankedTensorOf<[classes]>` (or, with `static`, `StaticShapeTensorOf<[classes]>` and
    RankedTensorOf with HasStaticShapePred): its MLIR summary and its check."""

    def __init__(
        self,
        *classes: ElementClass,
        static: bool = False,
        rank: int | None = None,
        kind: str | None = None,
    ):
        self.classes = classes
        self.static = static
        self.rank = rank
        kind = kind or ("statically shaped tensor" if static else "ranked tensor")
        self.summary = f"{kind} of {' or '.join(c[0] for c in classes)} values"

    def accepts(self, t: Attribute) -> bool:
        if not isinstance(t, TensorType):
            return False
        if self.static and any(d < 0 for d in t.get_shape()):
            return False
        if self.rank is not None and len(t.get_shape()) != self.rank:
            return False
        e = t.get_element_type()
        return any(pred(e) for _, pred in self.classes) and _valid_quantized_dimension(t)


def _valid_quantized_dimension(t: TensorType) -> bool:
    """upstream's IsValidQuantizedDimension (Base.cpp), a predicate of every constraint that admits
    per-axis quantized elements: the quantized dimension is in the rank and, when static, its size
    is the number of scales."""
    e = t.get_element_type()
    if not _per_axis(e):
        return True
    shape = t.get_shape()
    d = e.params.quantized_dimension  # type: ignore[attr-defined]
    return d < len(shape) and (shape[d] < 0 or len(e.params.scales) == shape[d])  # type: ignore[attr-defined]


class TypeConstraint:
    """A named ODS type constraint that is not a tensor of element classes (`HLO_Token`)."""

    def __init__(self, summary: str, accepts: Callable[[Attribute], bool]):
        self.summary = summary
        self.accepts = accepts


class AnyTypeOf:
    """`AnyTypeOf<[constraints]>`: accepts what any of them accepts; MLIR joins their summaries."""

    def __init__(self, *options: RankedTensorOf | TypeConstraint):
        self.options = options
        self.summary = " or ".join(o.summary for o in options)

    def accepts(self, t: Attribute) -> bool:
        return any(o.accepts(t) for o in self.options)


HLO_Tensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT)
HLO_TensorOrPerAxisQuantizedTensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, PER_AXIS)
HLO_NonQuantizedTensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX)
HLO_IntTensor = RankedTensorOf(INT)
HLO_FpTensor = RankedTensorOf(FLOAT)
HLO_PredOrIntTensor = RankedTensorOf(PRED, INT)
HLO_FpOrComplexTensor = RankedTensorOf(FLOAT, COMPLEX)
HLO_FpOrQuantizedIntTensor = RankedTensorOf(FLOAT, QUANT)
HLO_FpComplexOrQuantizedIntTensor = RankedTensorOf(FLOAT, COMPLEX, QUANT)
HLO_IntFpOrComplexOrQuantizedIntTensor = RankedTensorOf(INT, FLOAT, COMPLEX, QUANT)
HLO_QuantizedIntOrPerAxisQuantizedIntTensor = RankedTensorOf(QUANT, PER_AXIS)
HLO_FloatOrQuantizedIntOrPerAxisQuantizedIntTensor = RankedTensorOf(FLOAT, QUANT, PER_AXIS)
SIntFpComplexOrQuantizedIntTensor = RankedTensorOf(
    SINT, FLOAT, COMPLEX, QUANT
)  # abs, sign operands
SIntFpOrQuantizedIntTensor = RankedTensorOf(SINT, FLOAT, QUANT)  # abs result
HLO_IntOrFpTensor = RankedTensorOf(INT, FLOAT)
HLO_StaticShapeIntOrFpTensor = RankedTensorOf(INT, FLOAT, static=True)
HLO_PredIntOrFpTensor = RankedTensorOf(PRED, INT, FLOAT)
HLO_FpOrQuantizedInt1DTensor = RankedTensorOf(FLOAT, QUANT, rank=1, kind="1D tensor")  # batch_norm
HLO_PredIntOrFp0DTensor = RankedTensorOf(PRED, INT, FLOAT, rank=0, kind="0D tensor")  # rng's a, b
HLO_StaticDimensionTensor = RankedTensorOf(
    INDEX, INT, static=True, rank=1, kind="statically shaped 1-dimensional tensor"
)
HLO_Static2DIntTensor = RankedTensorOf(
    INT, static=True, rank=2, kind="statically shaped 2-dimensional integer tensor"
)
HLO_Token = TypeConstraint("token", lambda t: isinstance(t, TokenType))
HLO_Future = TypeConstraint("future", lambda t: getattr(t, "name", None) == "stablehlo.future")
HLO_StaticShapeTensorOrPerAxisQuantizedTensorOrToken = AnyTypeOf(
    RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, static=True),  # HLO_StaticShapeTensor
    RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, PER_AXIS, static=True),
    HLO_Token,
)
UI32: ElementClass = (
    "32-bit unsigned integer",
    lambda e: _unsigned(e) and e.width.data == 32,  # type: ignore[attr-defined]
)  # UI32
UI32RankedTensor = RankedTensorOf(UI32)  # replica_id, partition_id results
Constraint = RankedTensorOf | TypeConstraint | AnyTypeOf


def check_values(
    kind: str,
    types: Sequence[Attribute],
    constraint: Constraint,
    first: int = 0,
    variadic: bool = False,
) -> None:
    """MLIR's ODS check of each operand (`kind` "operand") or result ("result") type, in order;
    `first` is the index of the first of `types` among the op's operands (results), `variadic`
    whether they are one `Variadic<...>` group (MLIR then says "must be variadic of ...")."""
    accepted = ACCEPTED
    for i, t in enumerate(types, first):
        if accepted.get_seq((constraint, t)) is not None:
            continue
        if not constraint.accepts(t):
            summary = f"variadic of {constraint.summary}" if variadic else constraint.summary
            raise VerifyException(f"{kind} #{i} must be {summary}, but got '{t2s(t)}'")
        accepted.put_seq((constraint, t), True)


ACCEPTED = CONTEXT.identity_map("verify.ods_types.accepted", 1 << 12)
"""`check_values`' memo: (constraint, type) -> True for the types a constraint accepted (by
identity: types are immutable, and a constraint's `accepts` reads nothing but the type).  Only
acceptances are kept; a refused type is checked again, for its message."""


# ------------------------------------------------------------------------ attribute constraints
# ODS attribute constraints (`I64Attr`, `DenseI64ArrayAttr`, `StrAttr`, enum and struct attributes):
# MLIR's generated verifier checks them before operands and results and says
# `attribute '<name>' failed to satisfy constraint: <summary>`.  `property_summary` gives the
# summary of an op's property from its xDSL constraint (a few attributes, named per op, have their
# own summary or a ConfinedAttr predicate); `ops.base.op_def` attaches the message to the property.


def attr_constraint_failure(name: str, summary: str) -> str:
    """MLIR's message for an attribute that breaks its ODS constraint."""
    return f"attribute '{name}' failed to satisfy constraint: {summary}"


def integer_attr_summary(t: IntegerType) -> str:
    """`BoolAttr`, `I32Attr`/`I64Attr` (signless), `UI32Attr`/`UI64Attr` (unsigned)."""
    w = t.width.data
    if w == 1:
        return "bool attribute"
    sign = "unsigned" if t.signedness.data == Signedness.UNSIGNED else "signless"
    return f"{w}-bit {sign} integer attribute"


def float_attr_summary(t: Attribute) -> str:
    """`F32Attr`, `F64Attr`."""
    return f"{t.bitwidth}-bit float attribute"  # type: ignore[attr-defined]


def dense_array_summary(t: IntegerType) -> str:
    """`DenseI64ArrayAttr`, `DenseBoolArrayAttr` (`i1 dense array attribute`)."""
    return f"i{t.width.data} dense array attribute"


ATTR_SUMMARIES: dict[str, str] = {
    "string": "string attribute",  # StrAttr
    "stablehlo_py.typed_string": "string attribute",
    "dense": "constant vector/tensor attribute",  # ElementsAttr
    "symbol_ref": "flat symbol reference attribute",  # FlatSymbolRefAttr
    "dictionary": "dictionary of named attribute values",  # DictionaryAttr
    "unit": "unit attribute",  # UnitAttr
    "array": "array attribute",  # ArrayAttr
    "stablehlo.channel_handle": "two 64-bit integers 'handle' and 'type'",
    "stablehlo.comparison_direction": "Which comparison operation to perform.",
    "stablehlo.comparison_type": "Which comparison type to use.",
    "stablehlo.precision": "XLA precision for an operand. Has backend specific meaning.",
    "stablehlo.fft_type": "XLA fast fourier transform type.",
    "stablehlo.rng_distribution": "XLA PRNG distribution to be used.",
    "stablehlo.rng_algorithm": "XLA PRNG algorithm to be used.",
    "stablehlo.transpose": "Transpose options",
    "stablehlo.gather": "Attribute that models the dimension information for gather",
    "stablehlo.scatter": "Attribute that models the dimension information for scatter",
    "stablehlo.dot": "Attribute that models the dimension information for dot.",
    "stablehlo.dot_algorithm": (
        "Attribute that models the algorithm constraints to use for computing dot."
    ),
    "stablehlo.conv": "Structure of dimension information for conv op",
    "stablehlo.result_accuracy": "The requested accuracy for transcendental unary ops.",
    "chlo.comparison_direction": "Which comparison operation to perform.",
    "chlo.comparison_type": "Which comparison type to use.",
    "chlo.ragged_dot": "Attribute that models the dimension information for ragged dot.",
}
"""Summaries of the ODS attribute constraints whose xDSL counterpart is one attribute class (by
its xDSL name)."""

_LAYOUTS = "Array of layout (1D tensor of index type) attributes"  # StableHLO_ArrayOfLayoutAttr
_PRECISION_CONFIG = "Precision Config attribute"  # StableHLO_PrecisionConfigAttr
OP_ATTR_SUMMARIES: dict[tuple[str, str], str] = {
    **{
        (f"stablehlo.{op}", "precision_config"): _PRECISION_CONFIG
        for op in ("dot", "dot_general", "convolution", "dynamic_conv")
    },
    ("stablehlo.custom_call", "api_version"): "Custom call API version",
    ("stablehlo.custom_call", "called_computations"): "flat symbol ref array attribute",
    ("stablehlo.custom_call", "output_operand_aliases"): (
        "Aliasing attribute for outputs and operands of CustomCall"
    ),
    ("stablehlo.custom_call", "operand_layouts"): _LAYOUTS,
    ("stablehlo.custom_call", "result_layouts"): _LAYOUTS,
    ("stablehlo.custom_call", "result_tilings"): "Array of tiling attributes",
}
"""Properties whose ODS constraint has its own summary (an enum stored as an integer, typed arrays)."""

_NON_NEGATIVE = "whose value is non-negative"  # ConfinedAttr<..., [IntNonNegative]>
_POSITIVE = "whose value is positive"  # ConfinedAttr<..., [IntPositive]>
CONFINED_ATTRS: dict[tuple[str, str], str] = {
    ("stablehlo.iota", "iota_dimension"): _NON_NEGATIVE,
    ("stablehlo.dynamic_iota", "iota_dimension"): _NON_NEGATIVE,
    ("stablehlo.all_gather", "all_gather_dim"): _NON_NEGATIVE,
    ("stablehlo.reduce_scatter", "scatter_dimension"): _NON_NEGATIVE,
    ("stablehlo.all_to_all", "split_dimension"): _NON_NEGATIVE,
    ("stablehlo.all_to_all", "concat_dimension"): _NON_NEGATIVE,
    ("stablehlo.all_to_all", "split_count"): _POSITIVE,
    ("stablehlo.get_tuple_element", "index"): _NON_NEGATIVE,
    ("stablehlo.batch_norm_grad", "feature_index"): _NON_NEGATIVE,
    ("stablehlo.batch_norm_inference", "feature_index"): _NON_NEGATIVE,
    ("stablehlo.batch_norm_training", "feature_index"): _NON_NEGATIVE,
    ("stablehlo.concatenate", "dimension"): _NON_NEGATIVE,
    ("stablehlo.convolution", "feature_group_count"): _POSITIVE,
    ("stablehlo.convolution", "batch_group_count"): _POSITIVE,
    ("stablehlo.get_dimension_size", "dimension"): _NON_NEGATIVE,
    ("stablehlo.set_dimension_size", "dimension"): _NON_NEGATIVE,
    ("stablehlo.reduce_precision", "exponent_bits"): _POSITIVE,
    ("stablehlo.reduce_precision", "mantissa_bits"): _NON_NEGATIVE,
    ("stablehlo.dynamic_conv", "feature_group_count"): _POSITIVE,
    ("stablehlo.dynamic_conv", "batch_group_count"): _POSITIVE,
}
"""`ConfinedAttr` properties (StablehloOps.td): their summary is the base one plus the predicate."""


def constraint_summary(constraint: object) -> str | None:
    """The ODS summary of an xDSL attribute constraint, when it is one ODS attribute kind: an
    attribute class (`ATTR_SUMMARIES`), an integer/float attribute of one type, a dense array of
    one element type, or any of string attribute classes."""
    from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr
    from xdsl.irdl import AnyOf, BaseAttr, EqAttrConstraint, ParamAttrConstraint

    if isinstance(constraint, type):
        return ATTR_SUMMARIES.get(getattr(constraint, "name", ""))
    if isinstance(constraint, BaseAttr):
        return constraint_summary(constraint.attr)
    if isinstance(constraint, AnyOf):
        found = {constraint_summary(c) for c in constraint.attr_constrs}
        return found.pop() if len(found) == 1 else None
    if isinstance(constraint, ParamAttrConstraint):
        params = constraint.param_constrs
        base = constraint.base_attr
        if base is IntegerAttr and isinstance(params[1], EqAttrConstraint):
            t = params[1].attr
            return integer_attr_summary(t) if isinstance(t, IntegerType) else None
        if base is FloatAttr and isinstance(params[1], EqAttrConstraint):
            return float_attr_summary(params[1].attr)
        if base is DenseArrayBase and isinstance(params[0], EqAttrConstraint):
            t = params[0].attr
            return dense_array_summary(t) if isinstance(t, IntegerType) else None
    return None


def property_summary(op_name: str, prop_name: str, constraint: object) -> str | None:
    """The ODS summary of property `prop_name` of `op_name` constrained by `constraint` (None when
    it is not one ODS attribute kind: the constraint's own message stands)."""
    summary = OP_ATTR_SUMMARIES.get((op_name, prop_name)) or constraint_summary(constraint)
    confined = CONFINED_ATTRS.get((op_name, prop_name))
    if summary is not None and confined is not None:
        summary = f"{summary} {confined}"
    return summary


def is_i64_elements(a: Attribute | None) -> bool:
    """ODS `I64ElementsAttr`: a dense elements attribute of 64-bit signless integers."""
    e = a.get_element_type() if isinstance(a, DenseIntOrFPElementsAttr) else None
    return (
        isinstance(e, IntegerType)
        and e.width.data == 64
        and e.signedness.data == Signedness.SIGNLESS
    )


def check_i64_elements(op: Operation, name: str) -> None:
    """ODS `I64ElementsAttr` property `name` (an optional one may be absent): MLIR's message when
    it is no dense 64-bit signless integer elements attribute."""
    a = op.properties.get(name)
    if a is None:
        return
    if not is_i64_elements(a):
        raise VerifyException(
            attr_constraint_failure(name, "64-bit signless integer elements attribute")
        )
