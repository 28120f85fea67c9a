"""Result-type inference rules of the linalg ops (upstream's TypeInference.cpp `infer*Op`): dot,
dot_general, convolution, dynamic_conv, fft, triangular_solve, cholesky, batch_norm_grad,
batch_norm_inference, batch_norm_training, rng.

dot, dot_general, convolution and dynamic_conv infer only a shape upstream (their
``inferReturnTypeComponents`` leave the element type null: a result may be wider than the operands,
i8 x i8 -> i32, or quantized differently); these rules give the lhs's element type, and the ops'
verifiers compare shapes only, as upstream's ``verifyDotOp`` / ``verifyConvolutionOp`` do.
rng_bit_generator has no rule: upstream infers nothing for it (``verify_rng_bit_generator`` is its
verifyRngBitGeneratorOp).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.ir.infer.reduction import (
    dims_compatible,
    element_of,
    int_attr,
    int_list,
    ints,
    padding_pairs,
    qt,
    shapes_compatible,
    window_dimensions,
    window_output_shape,
)
from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.reify import constant_ints
from stablehlo_py.ir.infer.shapes import (
    DYN,
    bounds_of,
    element_type_compatible,
    is_dynamic,
    most_specific_dim,
    ranked,
)
from stablehlo_py.ir.types import FLOAT_NAME, tensor_type

__all__ = [
    "check_dot_general_constraints",
    "conv_shape",
    "dim_sizes_str",
    "dims_distinct",
    "dot_general_shape",
    "precision_config",
]


def dim_sizes_str(dims: Sequence[int]) -> str:
    """upstream's dimSizesToString: `[1, ?, 3]`."""
    return "[" + ", ".join("?" if is_dynamic(d) else str(d) for d in dims) + "]"


def _flag(a: Attribute | None) -> bool:
    return isinstance(a, IntegerAttr) and a.value.data != 0


def _enum(a: Attribute | None) -> str | None:
    return getattr(a, "data", None) if a is not None else None


def precision_config(a: Attribute | None) -> None:
    """upstream's verifyPrecisionConfig."""
    if isinstance(a, ArrayAttr) and len(a.data) > 2:
        raise InferError(
            f"expects precision config to be empty or have <= 2 elements, got {len(a.data)}"
        )


# ----------------------------------------------------------------------------------------- dot
def dot_shape(lt: TensorType, rt: TensorType) -> tuple[list[int], list[int]]:
    """upstream's inferDotOp: the result sizes and bounds."""
    ls, rs = lt.get_shape(), rt.get_shape()
    lb, rb = bounds_of(lt), bounds_of(rt)

    def dim(shape: Sequence[int], bounds: Sequence[int], i: int) -> tuple[int, int]:
        return shape[i], (bounds[i] if bounds else DYN)

    picks: list[tuple[int, int]]
    if len(ls) == 1 and len(rs) == 1 and dims_compatible(ls[0], rs[0]):
        picks = []
    elif len(ls) == 2 and len(rs) == 1 and dims_compatible(ls[1], rs[0]):
        picks = [dim(ls, lb, 0)]
    elif len(ls) == 1 and len(rs) == 2 and dims_compatible(ls[0], rs[0]):
        picks = [dim(rs, rb, 1)]
    elif len(ls) == 2 and len(rs) == 2 and dims_compatible(ls[1], rs[0]):
        picks = [dim(ls, lb, 0), dim(rs, rb, 1)]
    else:
        raise InferError("expected both lhs/rhs ranks to be either 1 or 2")
    return [p[0] for p in picks], [p[1] for p in picks]


@rule("stablehlo.dot")
def infer_dot(inp: InferInput) -> list[Attribute]:
    lt, rt = inp.operand_types[0], inp.operand_types[1]
    precision_config(inp.attr("precision_config"))
    elem = element_of(lt)
    if not isinstance(lt, TensorType) or not isinstance(rt, TensorType):
        return [UnrankedTensorType(elem)]
    sizes, bounds = dot_shape(lt, rt)
    return [ranked(sizes, elem, bounds)]


# --------------------------------------------------------------------------------- dot_general
def dims_distinct(a: Sequence[int], b: Sequence[int], an: str, bn: str) -> None:
    seen: set[int] = set()
    for d in (*a, *b):
        if d in seen:
            raise InferError(f"has duplicated dimension from {an} and {bn}: {d}")
        seen.add(d)


def check_dot_general_constraints(
    ls: Sequence[int],
    rs: Sequence[int],
    lb: Sequence[int],
    rb: Sequence[int],
    lc: Sequence[int],
    rc: Sequence[int],
) -> None:
    """upstream's checkDotGeneralConstraints (but the precision config) on the operand shapes:
    dot_general's and chlo.ragged_dot's dimension numbers."""
    if len(lb) != len(rb):
        raise InferError("lhs and rhs should have the same number of batching dimensions")
    if len(lc) != len(rc):
        raise InferError("lhs and rhs should have the same number of contracting dimensions")
    dims_distinct(lb, lc, "lhs_batching_dimensions", "lhs_contracting_dimensions")
    dims_distinct(rb, rc, "rhs_batching_dimensions", "rhs_contracting_dimensions")
    for rank_, dims, name in (
        (len(ls), lb, "lhs_batching_dimensions"),
        (len(ls), lc, "lhs_contracting_dimensions"),
        (len(rs), rb, "rhs_batching_dimensions"),
        (len(rs), rc, "rhs_contracting_dimensions"),
    ):
        for d in dims:
            if not 0 <= d < rank_:
                raise InferError(f"{name} value: {d} is out of range: [0, {rank_})")
    for a, b in zip(lb, rb):
        if not dims_compatible(ls[a], rs[b]):
            raise InferError("batching dimension sizes must match for lhs/rhs")
    for a, b in zip(lc, rc):
        if not dims_compatible(ls[a], rs[b]):
            raise InferError("contracting dimension sizes must match for lhs/rhs")


def dot_general_shape(
    lt: TensorType,
    rt: TensorType,
    lb: Sequence[int],
    rb: Sequence[int],
    lc: Sequence[int],
    rc: Sequence[int],
) -> tuple[list[int], list[int]]:
    """upstream's checkDotGeneralConstraints (but the precision config) and inferDotGeneralOp."""
    ls, rs = lt.get_shape(), rt.get_shape()
    check_dot_general_constraints(ls, rs, lb, rb, lc, rc)
    lbd, rbd = bounds_of(lt), bounds_of(rt)
    sizes: list[int] = []
    bounds: list[int] = []
    for i, (a, b) in enumerate(zip(lb, rb)):
        s, bd = most_specific_dim(i, ls[a], rs[b], lbd[a] if lbd else DYN, rbd[b] if rbd else DYN)
        sizes.append(s)
        bounds.append(bd)
    for shape, bds, batch, contract in ((ls, lbd, lb, lc), (rs, rbd, rb, rc)):
        for i, s in enumerate(shape):
            if i not in batch and i not in contract:
                sizes.append(s)
                bounds.append(bds[i] if bds else DYN)
    return sizes, bounds


@rule("stablehlo.dot_general")
def infer_dot_general(inp: InferInput) -> list[Attribute]:
    lt, rt = inp.operand_types[0], inp.operand_types[1]
    precision_config(inp.attr("precision_config"))
    elem = element_of(lt)
    dn = inp.attr("dot_dimension_numbers")
    d = getattr(dn, "dims", None)
    lb = tuple(d.lhs_batching_dimensions) if d is not None else ()
    rb = tuple(d.rhs_batching_dimensions) if d is not None else ()
    lc = tuple(d.lhs_contracting_dimensions) if d is not None else ()
    rc = tuple(d.rhs_contracting_dimensions) if d is not None else ()
    if not isinstance(lt, TensorType) or not isinstance(rt, TensorType):
        return [UnrankedTensorType(elem)]
    sizes, bounds = dot_general_shape(lt, rt, lb, rb, lc, rc)
    return [ranked(sizes, elem, bounds)]


# --------------------------------------------------------------------------------- convolution
def positive_i64_error(name: str, attr: Attribute | None) -> str | None:
    """ODS's `ConfinedAttr<I64Attr, [IntPositive]>` constraint (feature_group_count,
    batch_group_count): its message when ``attr`` (present) breaks it."""
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(64) and attr.value.data > 0:
        return None
    return (
        f"attribute '{name}' failed to satisfy constraint: 64-bit signless integer attribute "
        "whose value is positive"
    )


def _positive(inp: InferInput, name: str) -> int:
    msg = positive_i64_error(name, inp.attr(name))
    if msg is not None:
        raise InferError(msg, invariant=True)  # ODS attribute constraint
    return int_attr(inp.attr(name), 1)


def conv_shape(
    inp: InferInput, padding_of: Callable[[], list[tuple[int, int]] | None]
) -> list[int]:
    """upstream's inferConvolutionOp / inferDynamicConvOp (with verifyConvolutionAttributes and
    isSpatialDimensionsValid) on ranked lhs and rhs: the result sizes.  ``padding_of`` gives the
    padding pairs once the attributes are checked (upstream's order of checks); None is a
    dynamic_conv padding operand that is not a constant: the spatial sizes are then dynamic
    (upstream infers no shape at all there)."""
    lt, rt = inp.operand_types[0], inp.operand_types[1]
    assert isinstance(lt, TensorType) and isinstance(rt, TensorType)
    ls, rs = lt.get_shape(), rt.get_shape()
    n = len(ls)
    if n < 2:
        raise InferError(
            f"expects convolution arguments to have >= 2 dimensions. Got: {qt(lt)} and {qt(rt)}."
        )
    if n != len(rs):
        raise InferError(
            "expects convolution arguments to have same number of dimensions. Got: "
            f"{qt(lt)} and {qt(rt)}."
        )
    if not (_quantized(lt) or _quantized(rt)) and not element_type_compatible(
        element_of(lt), element_of(rt)
    ):
        raise InferError(
            "expects lhs and rhs to have compatible element type. Got: "
            f"{qt(element_of(lt))} and {qt(element_of(rt))}"
        )
    # ODS checks attributes in name order: batch_group_count first
    bgc = _positive(inp, "batch_group_count")
    fgc = _positive(inp, "feature_group_count")
    d = inp.attr("dimension_numbers").dims  # type: ignore[union-attr]
    in_sp, k_sp, out_sp = (
        tuple(d.input_spatial_dimensions),
        tuple(d.kernel_spatial_dimensions),
        tuple(d.output_spatial_dimensions),
    )
    # isSpatialDimensionsValid
    if len(in_sp) != len(k_sp) or len(in_sp) != len(out_sp):
        raise InferError(
            "expects the same size for input, kernel and output spatial-dimensions, but got "
            f"{len(in_sp)}, {len(k_sp)}, and {len(out_sp)} resp."
        )
    in_dims = (d.input_batch_dimension, d.input_feature_dimension, *in_sp)
    k_dims = (d.kernel_input_feature_dimension, d.kernel_output_feature_dimension, *k_sp)
    out_dims = (d.output_batch_dimension, d.output_feature_dimension, *out_sp)
    if not all(0 <= x < n for x in (*in_dims, *k_dims, *out_dims)):
        raise InferError(
            f"expects input, kernel, and output dimension-numbers to be in-range [0, {n})."
        )
    for what, dims in (("input", in_dims), ("kernel", k_dims), ("output", out_dims)):
        if len(set(dims)) != len(dims):
            raise InferError(
                f"expects {what} dimension-numbers to be unique, got {{{ints(dims)}}}."
            )
    # verifyConvolutionAttributes
    if bgc > 1 and fgc > 1:
        raise InferError(
            "expects batch_group_count and feature_group_count not to be both greater than 1. "
            f"Got {bgc} and {fgc} resp."
        )
    in_f, in_b = ls[d.input_feature_dimension], ls[d.input_batch_dimension]
    k_if, k_of = rs[d.kernel_input_feature_dimension], rs[d.kernel_output_feature_dimension]
    if not is_dynamic(in_b) and in_b % bgc != 0:
        raise InferError(
            f"expects input batch dimension ({in_b}) to be divisible by batch_group_count. "
            f"Got batch_group_count = {bgc}."
        )
    if not is_dynamic(in_f):
        if in_f % fgc != 0:
            raise InferError(
                f"expects input feature dimension ({in_f}) to be a multiple of feature_group_count. "
                f"Got feature_group_count = {fgc}."
            )
        if not is_dynamic(k_if) and in_f // fgc != k_if:
            raise InferError(
                f"expects input feature dimension ({in_f}) / feature_group_count = kernel input "
                f"feature dimension ({k_if}). Got feature_group_count = {fgc}."
            )
    if not is_dynamic(k_of):
        if k_of % bgc != 0:
            raise InferError(
                f"expects output feature dimension size ({k_of}) to be a multiple of "
                f"batch_group_count. Got batch_group_count = {bgc}."
            )
        if k_of % fgc != 0:
            raise InferError(
                f"expects kernel output feature dimension ({k_of}) to be divisible by "
                f"feature_group_count. For feature_group_count = {fgc}."
            )
    precision_config(inp.attr("precision_config"))
    if n != len(in_sp) + 2:
        raise InferError(
            f"expects convolution arguments to have {len(in_sp) + 2} dimensions. Got: {n}"
        )
    out = [DYN] * n
    padding = padding_of()
    if padding is not None:
        window = window_dimensions(
            [rs[k] for k in k_sp],
            int_list(inp.attr("window_strides")) or (),
            padding,
            int_list(inp.attr("lhs_dilation")) or (),
            int_list(inp.attr("rhs_dilation")) or (),
            int_list(inp.attr("window_reversal")) or (),
            dynamic_sizes=True,
        )
        for i, size in enumerate(window_output_shape([ls[k] for k in in_sp], window)):
            out[out_sp[i]] = size
    out[d.output_batch_dimension] = DYN if is_dynamic(in_b) else in_b // bgc
    out[d.output_feature_dimension] = k_of
    return out


@rule("stablehlo.convolution")
def infer_convolution(inp: InferInput) -> list[Attribute]:
    lt, rt = inp.operand_types[0], inp.operand_types[1]
    elem = element_of(lt)
    if not isinstance(lt, TensorType) or not isinstance(rt, TensorType):
        return [UnrankedTensorType(elem)]
    return [tensor_type(elem, tuple(conv_shape(inp, lambda: padding_pairs(inp.attr("padding")))))]


@rule("stablehlo.dynamic_conv")
def infer_dynamic_conv(inp: InferInput) -> list[Attribute]:
    lt, rt, pt = inp.operand_types[0], inp.operand_types[1], inp.operand_types[2]
    elem = element_of(lt)
    if not isinstance(lt, TensorType) or not isinstance(rt, TensorType):
        return [UnrankedTensorType(elem)]
    n = len(lt.get_shape())

    def padding_of() -> list[tuple[int, int]] | None:
        if not isinstance(pt, TensorType):
            return None
        ps = pt.get_shape()
        if len(ps) != 2:
            raise InferError(f"expects padding to be of rank 2 but got {len(ps)}")
        if ps[0] != n - 2 or ps[1] != 2:
            raise InferError(
                f"expects padding to be of shape [{n - 2}, 2], but got [{ps[0]}, {ps[1]}]"
            )
        flat = constant_ints(inp.operands[2]) if inp.operands is not None else None
        if flat is None:
            return None
        return [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]

    return [tensor_type(elem, tuple(conv_shape(inp, padding_of)))]


# ----------------------------------------------------------------------------------------- fft
@rule("stablehlo.fft")
def infer_fft(inp: InferInput) -> list[Attribute]:
    ot = inp.operand_types[0]
    kind = _enum(inp.attr("fft_type"))
    rfft, irfft = kind == "RFFT", kind == "IRFFT"
    length = int_list(inp.attr("fft_length")) or ()
    k = len(length)
    if k > 3 or k < 1:
        raise InferError(f"rank must be between 1 and 3, but got {k}.")
    oe = element_of(ot)
    if rfft:
        if not isinstance(oe, (Float32Type, Float64Type)):
            raise InferError(f"RFFT requires f32 or f64 input type, but is given {qt(oe)}.")
        re: Attribute = ComplexType(oe)  # type: ignore[arg-type]
    else:
        if not isinstance(oe, ComplexType):
            raise InferError(
                f"FFT/IFFT/IRFFT take a complex tensor as input, but is given {qt(ot)}."
            )
        re = oe.element_type if irfft else oe
    if not isinstance(ot, TensorType):
        return [UnrankedTensorType(re)]
    shape = ot.get_shape()
    if len(shape) < k:
        raise InferError(
            f"operand rank must not be less than fft rank of {k} for operand of type {qt(ot)}."
        )
    out = list(shape)
    if rfft:
        for od, fd in zip(shape[len(shape) - k :], length):
            if not dims_compatible(od, fd):
                raise InferError(
                    "RFFT requires innermost dimensions to be compatible with fft_length. Got: "
                    f"{ints(shape, dyn=True)} but wanted {ints(length)}."
                )
        if length[-1] != 0:
            out[-1] = length[-1] // 2 + 1
    if irfft:
        for od, fd in zip(shape[len(shape) - k : len(shape) - 1], length):
            if not dims_compatible(od, fd):
                raise InferError(
                    "IRFFT requires non-final dimensions to be compatible with fft_length. Got: "
                    f"{ints(shape, dyn=True)} but wanted {ints(length)}, and "
                    f"{ints([od], dyn=True)} != {fd}."
                )
        last = shape[-1]
        if (not dims_compatible(last, 0) or length[-1] != 0) and not dims_compatible(
            last, length[-1] // 2 + 1
        ):
            raise InferError(
                "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. "
                f"Got: {ints([last], dyn=True)} but fft_length is {ints(length)}."
            )
        out[-1] = length[-1]
    bounds = list(bounds_of(ot))
    if (rfft or irfft) and bounds:
        bounds[-1] = DYN
    return [ranked(out, re, bounds)]


# ------------------------------------------------------------------------------ triangular_solve
@rule("stablehlo.triangular_solve")
def infer_triangular_solve(inp: InferInput) -> list[Attribute]:
    at, bt = inp.operand_types[0], inp.operand_types[1]
    left = _flag(inp.attr("left_side"))
    if isinstance(at, TensorType):
        a = at.get_shape()
        if len(a) < 2:
            raise InferError(f"operand 'a' must have rank >= 2, but got {qt(at)}")
        if not dims_compatible(a[-2], a[-1]):
            raise InferError(
                f"two minor dimensions of operand 'a' must be compatible, but got {qt(at)}"
            )
        if isinstance(bt, TensorType):
            b = bt.get_shape()
            if len(a) != len(b):
                raise InferError(f"operands must have equal rank, but got {qt(at)} and {qt(bt)}")
            if not dims_compatible(a[-1], b[-2] if left else b[-1]):
                raise InferError(
                    "shared dimension of operands 'a' and 'b' must be compatible, but got "
                    f"{qt(at)} and {qt(bt)}"
                )
            if not all(dims_compatible(x, y) for x, y in zip(a[:-2], b[:-2])):
                raise InferError(
                    f"batch dimensions of the operands must be compatible, but got {qt(at)} and {qt(bt)}"
                )
    if _enum(inp.attr("transpose_a")) == "TRANSPOSE_INVALID":
        raise InferError("Invalid transpose option value for triangular solve")
    return [bt]


# ------------------------------------------------------------------------------------ cholesky
@rule("stablehlo.cholesky")
def infer_cholesky(inp: InferInput) -> list[Attribute]:
    at = inp.operand_types[0]
    if isinstance(at, TensorType):
        s = at.get_shape()
        if len(s) < 2:
            raise InferError(f"argument 'a' must have rank >= 2, got shape {ints(s, dyn=True)}.")
        if not dims_compatible(s[-2], s[-1]):
            raise InferError(
                f"minor dimensions of 'a' must have equal size, got shape {ints(s, dyn=True)}."
            )
    return [at]


# ---------------------------------------------------------------------------------- batch norm
def _batch_norm(
    inp: InferInput, multi: Sequence[Attribute], single: Sequence[Attribute], inference: bool
) -> list[Attribute]:
    """upstream's verifyBatchNorm and inferBatchNormOp."""
    fi = int_attr(inp.attr("feature_index"), 0)
    if fi < 0:
        raise InferError(
            "attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer "
            "attribute whose value is non-negative",
            invariant=True,  # ODS attribute constraint
        )
    for group, what in ((multi, "multi"), (single, "single")):
        if not all(shapes_compatible(a, b) for a in group for b in group):
            raise InferError(f"expects {what}-dimensional operands to have compatible shapes.")
    mt = multi[0]
    elem = element_of(mt)
    if not isinstance(mt, TensorType):
        unranked = UnrankedTensorType(elem)
        return (
            [unranked]
            if inference
            else [unranked, UnrankedTensorType(elem), UnrankedTensorType(elem)]
        )
    shape = mt.get_shape()
    if fi >= len(shape):
        raise InferError(
            "expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
            f"featureIndex {fi}, and rank {len(shape)}."
        )
    count = shape[fi]
    st = single[0]
    if isinstance(st, TensorType) and len(st.get_shape()) >= 1:
        size = st.get_shape()[0]
        if not dims_compatible(size, count):
            raise InferError(
                "expects the size of single-dimensional operands to be compatible with feature "
                f"count, but the size of single-dimensional operands is "
                f"{'?' if is_dynamic(size) else size} and the feature count is "
                f"{'?' if is_dynamic(count) else count}."
            )
    if inference:
        return [mt]
    bounds = bounds_of(mt)
    single_t = ranked([count], elem, [bounds[fi]] if bounds else ())
    return [mt, single_t, single_t]


@rule("stablehlo.batch_norm_grad")
def infer_batch_norm_grad(inp: InferInput) -> list[Attribute]:
    o, scale, mean, var, grad = inp.operand_types[:5]
    return _batch_norm(inp, [o, grad], [scale, mean, var], inference=False)


@rule("stablehlo.batch_norm_inference")
def infer_batch_norm_inference(inp: InferInput) -> list[Attribute]:
    o, scale, offset, mean, var = inp.operand_types[:5]
    return _batch_norm(inp, [o], [scale, offset, mean, var], inference=True)


@rule("stablehlo.batch_norm_training")
def infer_batch_norm_training(inp: InferInput) -> list[Attribute]:
    o, scale, offset = inp.operand_types[:3]
    return _batch_norm(inp, [o], [scale, offset], inference=False)


# ----------------------------------------------------------------------------------------- rng
@rule("stablehlo.rng")
def infer_rng(inp: InferInput) -> list[Attribute]:
    at, bt, st = inp.operand_types[:3]
    if _enum(inp.attr("rng_distribution")) != "UNIFORM" and (
        type(element_of(at)) not in FLOAT_NAME or type(element_of(bt)) not in FLOAT_NAME
    ):
        raise InferError("mu and sigma must be floats")
    elem = element_of(bt)
    values = constant_ints(inp.operands[2]) if inp.operands is not None else None
    if values is not None:
        return [tensor_type(elem, tuple(values))]
    if not isinstance(st, TensorType) or len(st.get_shape()) != 1 or is_dynamic(st.get_shape()[0]):
        return [UnrankedTensorType(elem)]
    return [tensor_type(elem, (DYN,) * st.get_shape()[0])]


def verify_rng_bit_generator(initial_state: Attribute, output_state: Attribute) -> None:
    """upstream's verifyRngBitGeneratorOp (rng_bit_generator_c1: compatible shapes only)."""
    if not shapes_compatible(initial_state, output_state):
        raise InferError(
            "output state shape must be compatible with initial state shape. Got: "
            f"{qt(initial_state)} and {qt(output_state)}"
        )


# ---------------------------------------------------- quantization constraints (verifiers only)
def _quantized(t: Attribute) -> Any:
    from stablehlo_py.ir.types import UniformQuantizedType, element_type

    e = element_type(t)
    return e if isinstance(e, UniformQuantizedType) else None


def any_quantized(*types: Attribute) -> bool:
    """upstream's anyQuantized<quant::QuantizedType>."""
    return any(_quantized(t) is not None for t in types)


def _verify_common_quantization(lt: Attribute, rt: Attribute, res: Attribute) -> None:
    """upstream's verifyConvolutionDotGeneralCommonQuantizationConstraints (convolution_c28,
    c31..c34; dot_general_c14, c17..c20; dynamic_conv_c28, c31..c34)."""
    from stablehlo_py.ir.types import element_type

    lq, rq, oq = _quantized(lt), _quantized(rt), _quantized(res)
    if rq is None or (lq is None) != (oq is None):
        raise InferError(
            "rhs should be quantized for quantized operations and "
            "is_quantized(lhs)=is_quantized(result) should hold"
        )
    if lq is not None:
        # MLIR's storage type is the integer type alone (signedness is a flag of the quantized type)
        if lq.params.storage_type != rq.params.storage_type:
            raise InferError("mismatched lhs and rhs quantization storage types")
        if not (
            lq.params.expressed_type == rq.params.expressed_type
            and lq.params.expressed_type == oq.params.expressed_type
        ):
            raise InferError("mismatched lhs, rhs and result quantization expressed types")
        if not rq.is_per_axis and oq.is_per_axis:
            raise InferError("mismatched rhs and result quantization granularity")
    elif not (
        element_type(lt) == rq.params.expressed_type and element_type(lt) == element_type(res)
    ):
        raise InferError(
            "mismatched rhs quantization expressed type and lhs and result element type"
        )


def verify_dot_general_quantization(
    lt: Attribute, rt: Attribute, res: Attribute, rhs_contracting: Sequence[int]
) -> None:
    """upstream's verifyDotGeneralOpQuantizationConstraints (dot_general_c14 .. c20)."""
    rq = _quantized(rt)
    if rq is not None:
        if not rq.is_per_axis:
            # dot_general_c15
            if rq.params.zero_points[0] != 0:
                raise InferError("Zero point of rhs should be 0")
        else:
            if any(z != 0 for z in rq.params.zero_points):
                raise InferError("Zero points of rhs should be 0")
            # dot_general_c16
            if rq.params.quantized_dimension in rhs_contracting:
                raise InferError(
                    "Quantization dimension of rhs should not be in the contracting dimension of rhs"
                )
    _verify_common_quantization(lt, rt, res)


def verify_convolution_quantization(
    lt: Attribute, rt: Attribute, res: Attribute, kernel_output_feature: int, output_feature: int
) -> None:
    """upstream's verifyConvolutionOpQuantizationConstraints (convolution_c28 .. c34,
    dynamic_conv_c28 .. c34)."""
    rq, oq = _quantized(rt), _quantized(res)
    # convolution_c29
    if rq is not None and rq.is_per_axis and rq.params.quantized_dimension != kernel_output_feature:
        raise InferError(
            "quantization dimension of rhs should be same with kernel_output_feature_dimension"
        )
    # convolution_c30
    if oq is not None and oq.is_per_axis and oq.params.quantized_dimension != output_feature:
        raise InferError(
            "quantization dimension of result should be same with output_feature_dimension"
        )
    _verify_common_quantization(lt, rt, res)
