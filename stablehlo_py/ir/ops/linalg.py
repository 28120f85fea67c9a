"""Linear-algebra, convolution, FFT, normalization and random-number ops (spec.md: batch_norm_grad,
batch_norm_inference, batch_norm_training, cholesky, convolution, dot_general, fft, rng,
rng_bit_generator, triangular_solve) and upstream's `dot` and `dynamic_conv`.

Syntax is upstream's (StablehloOps.td assembly formats with the custom directives of
StablehloOps.cpp / AssemblyFormat.h):

    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
           precision = [DEFAULT, DEFAULT], algorithm = <...> : (...) -> ...
    %1 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
           window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1],
           rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, ...} : ...
    %2 = stablehlo.fft %a, type =  FFT, length = [16] : (...) -> ...

batch_norm_*, triangular_solve and dynamic_conv have no pretty form and print generically, as
upstream does.  Verifiers check the spec's constraints (ids in comments); dynamic dimensions (`?`)
and unranked tensors are accepted wherever a constraint cannot be decided from the types.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.attrs.conv import ConvDimensionNumbersAttr, conv_dims_text, parse_conv_dims
from stablehlo_py.ir.attrs.dot import DotDimensionNumbers, DotDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot_algorithm import DotAlgorithmAttr, dot_algorithm_error
from stablehlo_py.ir.enums import (
    FftTypeAttr,
    PrecisionAttr,
    RngAlgorithmAttr,
    RngDistributionAttr,
    TransposeAttr,
)
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.format import custom_directive, set_slot
from stablehlo_py.ir.format_parse import _I64_LIST, _KEYWORD_END, _W
from stablehlo_py.ir.infer.linalg import (
    any_quantized,
    positive_i64_error,
    verify_convolution_quantization,
    verify_dot_general_quantization,
    verify_rng_bit_generator,
)
from stablehlo_py.ir.infer.shapes import element_type_compatible
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import (
    ARRAY_ATTR,
    BOOL_ATTR,
    DENSE_BOOL_ARRAY,
    DENSE_I64_ARRAY,
    ELEMENTS_ATTR,
    I1,
    I64,
    I64_ATTR,
    NoAssemblyFormatOp,
    PureOp,
    StableHLOOp,
    attribute_syntax,
    enum_syntax,
    float_attr,
    op_def,
    prop,
)
from stablehlo_py.ir.verify.constraints import (
    baseline_element,
    fail,
    fail_as_rule,
    int_value,
    int_values,
    same_baseline_type,
    shapes_compatible,
    t2s,
)
from stablehlo_py.ir.verify.ods_traits import upstream
from stablehlo_py.ir.types import element_type, shape_of, tensor_type

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

DOT_DIMS = attribute_syntax(DotDimensionNumbersAttr)
CONV_DIMS = attribute_syntax(ConvDimensionNumbersAttr)
DOT_ALGORITHM = attribute_syntax(DotAlgorithmAttr)


# ------------------------------------------------------------------------------------ helpers
def _precision_values(a: Attribute | None) -> list[str]:
    return [x.data for x in a.data] if isinstance(a, ArrayAttr) else []  # type: ignore[attr-defined]


def _verify_precision_config(a: Attribute | None) -> None:
    """ODS `StableHLO_PrecisionConfigAttr`: an array of precisions (its size is checked by the
    inference, as upstream's verifyPrecisionConfig)."""
    if a is None:
        return
    if not isinstance(a, ArrayAttr) or not all(isinstance(x, PrecisionAttr) for x in a.data):
        fail(
            "attribute 'precision_config' failed to satisfy constraint: Precision Config attribute"
        )


def verify_inferred_shape(
    op: Operation, compare: bool = True, report: Callable[[str], NoReturn] = fail_as_rule
) -> None:
    """upstream's verifyDotOp / verifyDotGeneralOp / verifyConvolutionOp, reported bare as their
    hlo:: functions report (and chlo's RaggedDotOp::verify, `report=fail`: with the op's prefix):
    the op's inference rule (stablehlo_py.ir.infer.linalg, .chlo) must succeed and, with
    `compare`, its shape be compatible with the result's (the element type is not inferred
    upstream)."""
    from stablehlo_py.ir.infer import infer_op
    from stablehlo_py.ir.infer.linalg import dim_sizes_str

    inferred = upstream(infer_op, op)[0]
    res = op.results[0].type
    a, b = shape_of(inferred), shape_of(res)
    if compare and a is not None and b is not None and not shapes_compatible(a, b):
        report(
            f"inferred shape '{dim_sizes_str(a)}' is incompatible with return type of operation "
            f"'{t2s(res)}'"
        )


def _check_lhs_rhs_result(op: Any, lhs: ods.Constraint, rhs_and_result: ods.Constraint) -> None:
    """ODS of dot, dot_general and convolution: `$lhs`, `$rhs` and the result's tensor types."""
    ods.check_values("operand", [op.lhs.type], lhs)
    ods.check_values("operand", [op.rhs.type], rhs_and_result, first=1)
    ods.check_values("result", [op.result.type], rhs_and_result)


def _verify_compatible_element_types(op: Operation) -> None:
    """upstream's CompatibleOperandsAndResultElementType trait: every operand's and result's
    element type compatible with the first operand's (quantized ones by storage and expressed
    type)."""
    types = [v.type for v in op.operands] + [r.type for r in op.results]
    if not all(element_type_compatible(t, types[0]) for t in types):
        fail("requires compatible element types for all operands and results")


class _TypedThenInferred(PureOp):
    """fft, triangular_solve and cholesky: ODS (every operand and the result of `TENSOR_TYPE`),
    with `COMPATIBLE_ELEMENTS` the CompatibleOperandsAndResultElementType trait, then
    InferTensorType (the op's infer rule in stablehlo_py.ir.infer.linalg and the result against
    it)."""

    TENSOR_TYPE: ClassVar[ods.Constraint]
    COMPATIBLE_ELEMENTS: ClassVar[bool] = False

    def verify_(self) -> None:
        ods.check_values("operand", [v.type for v in self.operands], self.TENSOR_TYPE)
        ods.check_values("result", [r.type for r in self.results], self.TENSOR_TYPE)
        if self.COMPATIBLE_ELEMENTS:
            _verify_compatible_element_types(self)


_PRINTABLE_KINDS: dict[str, type | tuple[type, ...]] = {
    "window_strides": DenseArrayBase,
    "lhs_dilation": DenseArrayBase,
    "rhs_dilation": DenseArrayBase,
    "window_reversal": DenseArrayBase,
    "padding": DenseIntOrFPElementsAttr,
    "dot_dimension_numbers": DotDimensionNumbersAttr,
    "algorithm": DotAlgorithmAttr,
}


def _printable(op: Operation) -> bool:
    """Can the op's custom directives print its properties?  (Only IR built with properties of the
    wrong kind, which upstream cannot even represent, fails this; it is printed generically.)"""
    for name, kind in _PRINTABLE_KINDS.items():
        a = op.properties.get(name)
        if a is not None and not isinstance(a, kind):
            return False
    pc = op.properties.get("precision_config")
    return pc is None or (
        isinstance(pc, ArrayAttr) and all(isinstance(x, PrecisionAttr) for x in pc.data)
    )


class _PrintableOrGeneric:
    def print_pretty(self, pr: Printer) -> None:
        if not _printable(self):  # type: ignore[arg-type]
            pr.print_generic(self)  # type: ignore[arg-type]
            return
        super().print_pretty(pr)  # type: ignore[misc]


# ------------------------------------------------------------------------- custom directives
def _i64_list_text(xs: Sequence[int]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _parse_i64_list(p: Parser) -> list[int]:
    """`[1, 2]` (DenseI64ArrayAttr::parse in its stripped form)."""
    return p.parse_delimited("[", lambda: _parse_int(p), "]")


def _parse_int(p: Parser) -> int:
    """An integer; as MLIR's parseInteger, `true` and `false` read as 1 and 0 (anything else:
    MLIR's "expected integer value")."""
    if p.try_keyword("true"):
        return 1
    if p.try_keyword("false"):
        return 0
    p.ws()
    if not _INT_START.match(p.text, p.pos):
        p.error("expected integer value")
    return p.parse_integer()


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_DOT_DIMS = CONTEXT.table("ops.dot_dims", 1 << 12)  # the four `[..]` bodies -> (attribute,) or None
_PRECISIONS = CONTEXT.table("ops.precision_config", 1 << 10)  # `DEFAULT, HIGH` -> the attribute


def _kw(word: str) -> str:
    return _W + word + _KEYWORD_END


def _fast_dot_dims(*lists: str | None) -> tuple[DotDimensionNumbersAttr] | None:
    """DotDimensionNumbersDirective.FAST's build: the four `[..]` bodies (batching ones None when
    absent) -> the attribute, interned by its text; None when a value is out of int64's range."""
    got = _DOT_DIMS.get(lists, _DOT_DIMS)
    if got is not _DOT_DIMS:
        return got  # type: ignore[no-any-return]
    dims = [tuple(int(v) for v in re.split(_W + "," + _W, s)) if s else () for s in lists]
    ok = all(_INT64_MIN <= v <= _INT64_MAX for d in dims for v in d)
    out = (DotDimensionNumbersAttr(DotDimensionNumbers(*dims)),) if ok else None
    return _DOT_DIMS.put(lists, out)  # type: ignore[no-any-return]


def _fast_precision(body: str | None) -> ArrayAttr | None:
    """`DEFAULT, HIGH` -> the precision_config attribute (interned); KeyError for an unknown case."""
    a = _PRECISIONS.get(body)
    if a is None and body is not None:
        words = re.split(_W + "," + _W, body) if body else []
        if any(w not in PrecisionAttr.CASES for w in words):
            raise KeyError(body)
        a = _PRECISIONS.put(body, ArrayAttr([PrecisionAttr.get_case(w) for w in words]))
    return a  # type: ignore[no-any-return]


# `, precision = [DEFAULT, HIGH]` or nothing (one group: the list's body, None when absent)
_PRECISION_PATTERN = (
    r"(?:" + _W + "," + _kw("precision") + _W + "=" + _W + r"\[" + _W
    + r"((?:[A-Z_]+(?:" + _W + "," + _W + r"[A-Z_]+)*)?)" + _W + r"\])?"
)  # fmt: skip


def _fast_precision_only(body: str | None) -> tuple[ArrayAttr | None] | None:
    try:
        return (_fast_precision(body),)
    except KeyError:
        return None


def _fast_precision_no_algorithm(body: str | None) -> tuple[ArrayAttr | None, None] | None:
    try:
        return (_fast_precision(body), None)
    except KeyError:
        return None


@custom_directive("DotDimensionNumbers")
class DotDimensionNumbersDirective:
    """`batching_dims = [0] x [0], contracting_dims = [2] x [1]` (batching_dims only when not empty)."""

    # the compiled format's regex for it (stablehlo_py.ir.format_parse): decimal lists only
    FAST = (
        r"(?:" + _kw("batching_dims") + _W + "=" + _W + _I64_LIST + _kw("x") + _W + _I64_LIST
        + _W + ",)?" + _kw("contracting_dims") + _W + "=" + _W + _I64_LIST + _kw("x") + _W
        + _I64_LIST,
        4,
        _fast_dot_dims,
    )  # fmt: skip

    @staticmethod
    def print(pr: Printer, op: Operation, attr: DotDimensionNumbersAttr) -> None:
        d = attr.dims
        if d.lhs_batching_dimensions or d.rhs_batching_dimensions:
            pr.write(
                f"batching_dims = {_i64_list_text(d.lhs_batching_dimensions)} x "
                f"{_i64_list_text(d.rhs_batching_dimensions)}, "
            )
        pr.write(
            f"contracting_dims = {_i64_list_text(d.lhs_contracting_dimensions)} x "
            f"{_i64_list_text(d.rhs_contracting_dimensions)}"
        )

    @staticmethod
    def parse(p: Parser, st: Any, arg: Any) -> None:
        lb: list[int] = []
        rb: list[int] = []
        if p.try_keyword("batching_dims"):
            p.parse_literal("=")
            lb = _parse_i64_list(p)
            p.parse_keyword("x")
            rb = _parse_i64_list(p)
            p.parse_literal(",")
        p.parse_keyword("contracting_dims")
        p.parse_literal("=")
        lc = _parse_i64_list(p)
        p.parse_keyword("x")
        rc = _parse_i64_list(p)
        set_slot(
            st,
            arg,
            DotDimensionNumbersAttr(
                DotDimensionNumbers(tuple(lb), tuple(rb), tuple(lc), tuple(rc))
            ),
        )


def _print_precision(pr: Printer, precision: Attribute | None) -> None:
    if precision is None:
        return
    pr.write(", precision = [" + ", ".join(_precision_values(precision)) + "]")


def _parse_precision(p: Parser) -> ArrayAttr:
    p.parse_keyword("precision")
    p.parse_literal("=")
    return ArrayAttr(p.parse_delimited("[", lambda: PrecisionAttr.parse_stripped(p), "]"))


@custom_directive("PrecisionConfig")
class PrecisionConfigDirective:
    """`, precision = [DEFAULT, DEFAULT]` when precision_config is present."""

    FAST = (_PRECISION_PATTERN, 1, _fast_precision_only)

    @staticmethod
    def print(pr: Printer, op: Operation, precision: Attribute | None) -> None:
        _print_precision(pr, precision)

    @staticmethod
    def parse(p: Parser, st: Any, arg: Any) -> None:
        if not p.try_literal(","):
            return
        set_slot(st, arg, _parse_precision(p))


@custom_directive("PrecisionConfigAndAlgorithm")
class PrecisionConfigAndAlgorithmDirective:
    """`, precision = [...]` and/or `, algorithm = <...>` (each only when present)."""

    FAST = (_PRECISION_PATTERN, 1, _fast_precision_no_algorithm)  # with an algorithm: interpreted

    @staticmethod
    def print(
        pr: Printer, op: Operation, precision: Attribute | None, algorithm: Attribute | None
    ) -> None:
        _print_precision(pr, precision)
        if algorithm is not None:
            pr.write(", algorithm = " + algorithm.mlir_stripped())  # type: ignore[attr-defined]

    @staticmethod
    def parse(p: Parser, st: Any, precision_arg: Any, algorithm_arg: Any) -> None:
        if not p.try_literal(","):
            return
        if not p.try_keyword("algorithm"):
            set_slot(st, precision_arg, _parse_precision(p))
            if not p.try_literal(","):
                return
            p.parse_keyword("algorithm")
        p.parse_literal("=")
        set_slot(st, algorithm_arg, DotAlgorithmAttr.parse_body(p))


@custom_directive("ConvolutionDimensions")
class ConvolutionDimensionsDirective:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`."""

    @staticmethod
    def print(pr: Printer, op: Operation, attr: ConvDimensionNumbersAttr) -> None:
        text = conv_dims_text(attr.dims)
        if text is None:
            raise ValueError(
                f"cannot print the convolution dimension numbers {attr.mlir_text()}: a dimension is out of "
                "range or unmentioned (upstream aborts here too); print the op in generic form"
            )
        pr.write(text)

    @staticmethod
    def parse(p: Parser, st: Any, arg: Any) -> None:
        set_slot(st, arg, ConvDimensionNumbersAttr(parse_conv_dims(p)))


_INT_START = re.compile(r"-?[0-9]")
_WINDOW_KEYS = ("stride", "pad", "lhs_dilate", "rhs_dilate", "reverse")


@custom_directive("WindowAttributes")
class WindowAttributesDirective:
    """`stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]`,
    each only when present (printWindowAttributes); parsed in any order."""

    @staticmethod
    def print(
        pr: Printer, op: Operation, strides: Any, padding: Any, lhs_dil: Any, rhs_dil: Any, rev: Any
    ) -> None:
        parts = []
        if strides is not None:
            parts.append(f"stride = {_i64_list_text(int_values(strides))}")
        if padding is not None:
            flat = int_values(padding)
            pairs = ", ".join(f"[{flat[i]}, {flat[i + 1]}]" for i in range(0, len(flat) - 1, 2))
            parts.append(f"pad = [{pairs}]")
        if lhs_dil is not None:
            parts.append(f"lhs_dilate = {_i64_list_text(int_values(lhs_dil))}")
        if rhs_dil is not None:
            parts.append(f"rhs_dilate = {_i64_list_text(int_values(rhs_dil))}")
        if rev is not None:
            parts.append(
                "reverse = [" + ", ".join("true" if v else "false" for v in int_values(rev)) + "]"
            )
        pr.write(", ".join(parts))

    @staticmethod
    def parse(
        p: Parser,
        st: Any,
        strides_arg: Any,
        padding_arg: Any,
        lhs_arg: Any,
        rhs_arg: Any,
        rev_arg: Any,
    ) -> None:
        seen: set[str] = set()
        while True:
            p.ws()
            pos = p.pos
            key = p.try_bare_id()
            if key is None:
                break
            if key not in _WINDOW_KEYS or key in seen:
                p.error(f"Unexpected keyword {key}", pos)
            seen.add(key)
            p.parse_literal("=")
            if key == "pad":

                def pair() -> list[int]:
                    ppos = p.pos
                    vals = _parse_i64_list(p)
                    if len(vals) != 2:
                        p.error(
                            f"Expected array with 2 elements, got {len(vals)} elements instead",
                            ppos,
                        )
                    return vals

                pairs = p.parse_delimited("[", pair, "]")
                from stablehlo_py.ir.text.dense import make_dense

                arr = np.array([v for pr_ in pairs for v in pr_], dtype=np.int64).reshape(
                    len(pairs), 2
                )
                set_slot(st, padding_arg, make_dense(tensor_type(I64, (len(pairs), 2)), arr))
            else:
                vals = _parse_i64_list(p)
                if key == "reverse":
                    set_slot(
                        st, rev_arg, DenseArrayBase.from_list(I1, [1 if v else 0 for v in vals])
                    )
                else:
                    target = {"stride": strides_arg, "lhs_dilate": lhs_arg, "rhs_dilate": rhs_arg}[
                        key
                    ]
                    set_slot(st, target, DenseArrayBase.from_list(I64, vals))
            if not p.try_literal(","):
                break


# ------------------------------------------------------------------------------------ dot ops
@op_def
class DotOp(_PrintableOrGeneric, StableHLOOp):
    """Matrix/vector product of `lhs` and `rhs` (upstream's `dot`; a special case of dot_general)."""

    name = "stablehlo.dot"
    VERIFY_BY_TYPES: ClassVar[bool] = True  # its verification reads only types and attributes
    lhs = operand_def()
    rhs = operand_def()
    precision_config = prop(ARRAY_ATTR, optional=True)
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs `` custom<PrecisionConfig>($precision_config) attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        # ODS (the precision config's kind, the operand and result types), then upstream's
        # verifyDotOp: inferDotOp's shape (ranks, contracting sizes, precision config size)
        _verify_precision_config(self.precision_config)
        _check_lhs_rhs_result(self, ods.HLO_Tensor, ods.HLO_TensorOrPerAxisQuantizedTensor)
        verify_inferred_shape(self)


@op_def
class DotGeneralOp(_PrintableOrGeneric, StableHLOOp):
    """Dot products between slices of `lhs` and `rhs` (spec.md#dot_general)."""

    name = "stablehlo.dot_general"
    VERIFY_BY_TYPES: ClassVar[bool] = True  # its verification reads only types and attributes
    lhs = operand_def()
    rhs = operand_def()
    dot_dimension_numbers = prop(DOT_DIMS)
    precision_config = prop(ARRAY_ATTR, optional=True)
    algorithm = prop(DOT_ALGORITHM, optional=True)
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs `,` custom<DotDimensionNumbers>($dot_dimension_numbers) "
        "`` custom<PrecisionConfigAndAlgorithm>($precision_config, $algorithm) "
        "attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        # upstream's verifyDotGeneralOp: inferDotGeneralOp (checkDotGeneralConstraints,
        # dot_general_c1 .. c12) and its shape against the result's, then c21 and, when an operand
        # or the result is quantized, verifyDotGeneralOpQuantizationConstraints (c14 .. c20).
        # Nothing else: upstream accepts different lhs and rhs element types.
        _verify_precision_config(self.precision_config)  # ODS: its kind
        _check_lhs_rhs_result(self, ods.HLO_Tensor, ods.HLO_TensorOrPerAxisQuantizedTensor)
        verify_inferred_shape(self)
        alg = self.algorithm
        if alg is not None:
            # dot_general_c21
            if any(v != "DEFAULT" for v in _precision_values(self.precision_config)):
                fail_as_rule("must specify DEFAULT precision config when algorithm is set.")
            # dot_general_c22 .. c24 and upstream's known algorithms: the attribute's own verifier
            # (run when parsed; here for an algorithm built in Python)
            msg = dot_algorithm_error(alg.algorithm)  # type: ignore[attr-defined]
            if msg is not None:
                fail(msg)
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        if any_quantized(lt, rt, res):
            d: DotDimensionNumbers = self.dot_dimension_numbers.dims  # type: ignore[attr-defined]
            upstream(verify_dot_general_quantization, lt, rt, res, d.rhs_contracting_dimensions)


# ---------------------------------------------------------------------------------- convolution
def _verify_conv(op: Any) -> None:
    """upstream's verifyConvolutionOp / verifyDynamicConvOp after the inference (which checks the
    attributes, dimension numbers, group counts and sizes, convolution_c1 .. c27): when an operand
    or the result is quantized, verifyConvolutionOpQuantizationConstraints (c28 .. c34).  Nothing
    else: upstream accepts different lhs and rhs element types."""
    lt, rt, res = op.lhs.type, op.rhs.type, op.result.type
    if any_quantized(lt, rt, res):
        d = op.dimension_numbers.dims
        upstream(
            verify_convolution_quantization,
            lt,
            rt,
            res,
            d.kernel_output_feature_dimension,
            d.output_feature_dimension,
        )


class _ConvBase(StableHLOOp):
    """convolution and dynamic_conv: pure; their window, dimension numbers, group counts and
    precision config."""

    traits = traits_def(Pure())
    window_strides = prop(DENSE_I64_ARRAY, optional=True)
    lhs_dilation = prop(DENSE_I64_ARRAY, optional=True)
    rhs_dilation = prop(DENSE_I64_ARRAY, optional=True)
    window_reversal = prop(DENSE_BOOL_ARRAY, optional=True)
    dimension_numbers = prop(CONV_DIMS)
    feature_group_count = prop(I64_ATTR)
    batch_group_count = prop(I64_ATTR)
    precision_config = prop(ARRAY_ATTR, optional=True)


@op_def
class ConvolutionOp(_ConvBase):
    """Dot products between windows of `lhs` and slices of `rhs` (spec.md#convolution)."""

    name = "stablehlo.convolution"
    ATTRIBUTE_ORDER: ClassVar[tuple[str, ...]] = (
        "window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal",
        "dimension_numbers", "feature_group_count", "batch_group_count", "precision_config",
    )  # upstream's ODS order (IRDL lists _ConvBase's attributes first): the builder's
    lhs = operand_def()
    rhs = operand_def()
    padding = prop(ELEMENTS_ATTR, optional=True)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "`(`operands`)` `dim_numbers` `=` custom<ConvolutionDimensions>($dimension_numbers) `,` "
        "`window` `=` `{` custom<WindowAttributes>($window_strides, $padding, $lhs_dilation, $rhs_dilation, "
        "$window_reversal) `}` attr-dict `:` functional-type(operands, results)"
    )

    @staticmethod
    def attr_dict_error(attrs: dict[str, Attribute]) -> str | None:
        """ODS's constraints of feature_group_count and batch_group_count given in the pretty
        form's attribute dictionary (MLIR reports them at the dictionary)."""
        for name in ("batch_group_count", "feature_group_count"):  # MLIR's order (by name)
            msg = positive_i64_error(name, attrs.get(name))
            if msg is not None:
                return msg
        return None

    def print_pretty(self, pr: Printer) -> None:
        # Dimension numbers the compact `[b, 0, f]x...` form cannot show (upstream aborts printing
        # them) and properties of the wrong kind are printed in generic form, which reads back.
        d = self.properties.get("dimension_numbers")
        if (
            not isinstance(d, ConvDimensionNumbersAttr)
            or conv_dims_text(d.dims) is None
            or not _printable(self)
        ):
            pr.print_generic(self)
            return
        super().print_pretty(pr)

    def verify_(self) -> None:
        # ODS, then upstream's verifyConvolutionOp: inferConvolutionOp and its shape against the
        # result's
        ods.check_i64_elements(self, "padding")
        _verify_precision_config(self.precision_config)
        _check_lhs_rhs_result(self, ods.HLO_Tensor, ods.HLO_TensorOrPerAxisQuantizedTensor)
        verify_inferred_shape(self)
        _verify_conv(self)


@op_def
class DynamicConvOp(NoAssemblyFormatOp, _ConvBase):
    """Convolution with the padding given as an operand (upstream's `dynamic_conv`)."""

    name = "stablehlo.dynamic_conv"
    lhs = operand_def()
    rhs = operand_def()
    padding = operand_def()
    result = result_def()

    def verify_(self) -> None:
        # ODS: HLO_Tensor lhs and rhs, HLO_Static2DIntTensor:$padding (dynamic_conv_i3), the result
        _verify_precision_config(self.precision_config)
        ods.check_values("operand", [self.lhs.type, self.rhs.type], ods.HLO_Tensor)
        ods.check_values("operand", [self.padding.type], ods.HLO_Static2DIntTensor, first=2)
        ods.check_values("result", [self.result.type], ods.HLO_Tensor)
        # upstream's verifyDynamicConvOp: inferDynamicConvOp only (dynamic_conv has no shape
        # interface: its result is not compared with the inferred shape)
        verify_inferred_shape(self, compare=False)
        _verify_conv(self)


# ---------------------------------------------------------------------------------------- fft
@op_def
class FftOp(_TypedThenInferred):
    """Forward or inverse Fourier transform of `operand` (spec.md#fft)."""

    name = "stablehlo.fft"
    operand = operand_def()
    fft_type = prop(enum_syntax(FftTypeAttr))
    fft_length = prop(DENSE_I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `type` `=` $fft_type `,` `length` `=` $fft_length attr-dict `:` functional-type(operands, results)"
    )
    # ODS: HLO_FpOrComplexTensor operand and result; then InferTensorType: upstream's inferFftOp
    # (fft_c1 .. fft_c5, stablehlo_py.ir.infer.linalg) and the result against it
    TENSOR_TYPE: ClassVar[ods.Constraint] = ods.HLO_FpOrComplexTensor


# ----------------------------------------------------------------------- linear algebra solvers
@op_def
class TriangularSolveOp(NoAssemblyFormatOp, _TypedThenInferred):
    """Solves systems of linear equations with triangular coefficient matrices (spec.md#triangular_solve)."""

    name = "stablehlo.triangular_solve"
    a = operand_def()
    b = operand_def()
    left_side = prop(BOOL_ATTR)
    lower = prop(BOOL_ATTR)
    unit_diagonal = prop(BOOL_ATTR)
    transpose_a = prop(enum_syntax(TransposeAttr))
    result = result_def()
    # ODS: HLO_FpOrComplexTensor a, b and result; triangular_solve_c1
    # (CompatibleOperandsAndResultElementType); then InferTensorType: upstream's
    # inferTriangularSolveOp (triangular_solve_c2, _c3, _c4, _i4)
    TENSOR_TYPE: ClassVar[ods.Constraint] = ods.HLO_FpOrComplexTensor
    COMPATIBLE_ELEMENTS: ClassVar[bool] = True


@op_def
class CholeskyOp(_TypedThenInferred):
    """Cholesky decomposition of a batch of matrices (spec.md#cholesky)."""

    name = "stablehlo.cholesky"
    a = operand_def()
    lower = prop(BOOL_ATTR, default=IntegerAttr(0, I1))
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$a (`,` `lower` `=` $lower^)? attr-dict `:` custom<SameOperandsAndResultType>(type($a), type($result))"
    )
    # ODS: HLO_FpComplexOrQuantizedIntTensor operand and result, cholesky_c1
    # (CompatibleOperandsAndResultElementType), then InferTensorType: upstream's
    # inferCholeskyOp (cholesky_c2, cholesky_c3)
    TENSOR_TYPE: ClassVar[ods.Constraint] = ods.HLO_FpComplexOrQuantizedIntTensor
    COMPATIBLE_ELEMENTS: ClassVar[bool] = True


# ------------------------------------------------------------------------------- batch norm
class _BatchNormBase(NoAssemblyFormatOp, PureOp):
    """The batch_norm ops: ODS, the CompatibleOperandsAndResultElementType trait, then the inference."""

    epsilon = prop(float_attr(Float32Type()))
    feature_index = prop(I64_ATTR)
    RANKED_OPERANDS: ClassVar[tuple[int, ...]] = (0,)
    """Operands that ODS types `RankedTensorOf<[HLO_Float, HLO_QuantizedInt]>`; the others (and the
    results but the first) are `1DTensorOf<[...]>`."""
    # InferTensorType (PureOp's INFER_CHECK): upstream's inferBatchNorm*Op (verifyBatchNorm:
    # batch_norm_*_c1, the single- and multi-dimensional operands' shapes, the feature count) and
    # the results against it, after verify_.  Upstream verifies nothing else.

    def verify_(self) -> None:
        # ODS: F32Attr:$epsilon, ConfinedAttr<I64Attr, [IntNonNegative]>:$feature_index, the
        # operand and result types, before the traits
        eps = self.properties.get("epsilon")
        if not (isinstance(eps, FloatAttr) and isinstance(eps.type, Float32Type)):
            fail("attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute")
        if int_value(self.properties.get("feature_index"), 0) < 0:
            fail(
                "attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer "
                "attribute whose value is non-negative"
            )
        for kind, values, ranked in (
            ("operand", self.operands, self.RANKED_OPERANDS),
            ("result", self.results, (0,)),
        ):
            for i, v in enumerate(values):
                c = (
                    ods.HLO_FpOrQuantizedIntTensor
                    if i in ranked
                    else ods.HLO_FpOrQuantizedInt1DTensor
                )
                ods.check_values(kind, [v.type], c, first=i)
        # batch_norm_grad_c2, batch_norm_inference_c2, batch_norm_training_c2 (upstream's
        # CompatibleOperandsAndResultElementType trait, checked before the inference)
        _verify_compatible_element_types(self)


@op_def
class BatchNormGradOp(_BatchNormBase):
    """Gradients of batch_norm_training backpropagated from `grad_output` (spec.md#batch_norm_grad)."""

    name = "stablehlo.batch_norm_grad"
    operand = operand_def()
    scale = operand_def()
    mean = operand_def()
    variance = operand_def()
    grad_output = operand_def()
    grad_operand = result_def()
    grad_scale = result_def()
    grad_offset = result_def()
    RANKED_OPERANDS: ClassVar[tuple[int, ...]] = (0, 4)  # operand, grad_output

    def asm_result_names(self) -> list[str]:
        # getAsmResultNames: `%grad_operand, %grad_scale, %grad_offset = ...`
        return ["grad_operand", "grad_scale", "grad_offset"]


@op_def
class BatchNormInferenceOp(_BatchNormBase):
    """Normalizes `operand` across all dimensions except `feature_index` (spec.md#batch_norm_inference)."""

    name = "stablehlo.batch_norm_inference"
    operand = operand_def()
    scale = operand_def()
    offset = operand_def()
    mean = operand_def()
    variance = operand_def()
    result = result_def()


@op_def
class BatchNormTrainingOp(_BatchNormBase):
    """Batch mean and variance, and the normalized `operand` (spec.md#batch_norm_training)."""

    name = "stablehlo.batch_norm_training"
    operand = operand_def()
    scale = operand_def()
    offset = operand_def()
    output = result_def()
    batch_mean = result_def()
    batch_var = result_def()

    def asm_result_names(self) -> list[str]:
        # getAsmResultNames: `%output, %batch_mean, %batch_var = ...`
        return ["output", "batch_mean", "batch_var"]


# ------------------------------------------------------------------------------------ random
@op_def
class RngOp(StableHLOOp):
    """Random numbers with the `rng_distribution` distribution (spec.md#rng)."""

    name = "stablehlo.rng"
    a = operand_def()
    b = operand_def()
    shape = operand_def()
    rng_distribution = prop(enum_syntax(RngDistributionAttr))
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$a `,` $b `,` $shape `,` `distribution` `=` $rng_distribution attr-dict `:` functional-type(operands, results)"
    )
    INFER_CHECK: ClassVar[str | None] = "after"  # rng_c2, rng_c3: InferTensorType (inferRngOp)

    def verify_(self) -> None:
        at, bt, st = self.a.type, self.b.type, self.shape.type
        # ODS: 0-d a and b (rng_i1, rng_i2), `shape` a statically shaped 1-d tensor (rng_i3), the
        # result's element types
        ods.check_values("operand", [at, bt], ods.HLO_PredIntOrFp0DTensor)
        ods.check_values("operand", [st], ods.HLO_StaticDimensionTensor, first=2)
        ods.check_values("result", [self.result.type], ods.HLO_PredIntOrFpTensor)
        # rng_c1 (AllElementTypesMatch<["a", "b", "result"]>)
        if not element_type(at) == element_type(bt) == element_type(self.result.type):
            fail("failed to verify that all of {a, b, result} have same element type")


@op_def
class RngBitGeneratorOp(StableHLOOp):
    """Uniform random bits and an updated state from `initial_state` (spec.md#rng_bit_generator)."""

    name = "stablehlo.rng_bit_generator"
    initial_state = operand_def()
    rng_algorithm = prop(enum_syntax(RngAlgorithmAttr))
    output_state = result_def()
    output = result_def()
    FORMAT: ClassVar[str | None] = (
        "$initial_state `,` `algorithm` `=` $rng_algorithm attr-dict `:` functional-type(operands, results)"
    )

    def asm_result_names(self) -> list[str]:
        # getAsmResultNames: `%output_state, %output = stablehlo.rng_bit_generator ...`
        return ["output_state", "output"]

    def verify_(self) -> None:
        it, ot = self.initial_state.type, self.output_state.type
        # ODS: HLO_IntOrFpTensor state, HLO_StaticShapeIntOrFpTensor output
        ods.check_values("operand", [it], ods.HLO_IntOrFpTensor)
        ods.check_values("result", [ot], ods.HLO_IntOrFpTensor)
        ods.check_values("result", [self.output.type], ods.HLO_StaticShapeIntOrFpTensor, first=1)
        # rng_bit_generator_c1: upstream's verifyRngBitGeneratorOp
        upstream(verify_rng_bit_generator, it, ot)
        # rng_bit_generator_c2 (the state size per algorithm) is not checked, as upstream's verifier
        # does not: the conformance suite itself uses other sizes (e.g. a tensor<f32> THREE_FRY state).


OPS = (
    DotOp,
    DotGeneralOp,
    ConvolutionOp,
    DynamicConvOp,
    FftOp,
    TriangularSolveOp,
    CholeskyOp,
    BatchNormGradOp,
    BatchNormInferenceOp,
    BatchNormTrainingOp,
    RngOp,
    RngBitGeneratorOp,
)

__all__ = [op.__name__ for op in OPS] + ["baseline_element", "same_baseline_type"]
