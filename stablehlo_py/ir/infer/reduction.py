"""Result-type inference rules of the reduction ops (upstream's TypeInference.cpp `infer*Op`):
reduce, reduce_window, select_and_scatter, sort, map.

Also the window helpers upstream shares with the convolutions (``window_dimensions``,
``window_output_shape``, ``padding_pairs``) and the message formatting of MLIR diagnostics
(``qt`` for a quoted type, ``ints`` for a streamed ArrayRef<int64_t>).

Upstream's operands are ranked tensors (ODS); an unranked operand, which our IR admits, gives an
unranked result of the inferred element type and skips the shape checks that need a rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.traits import IsTerminator

from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import DYN, bounds_of, is_dynamic, ranked
from stablehlo_py.ir.types import FLOAT_NAME, UniformQuantizedType, tensor_type

__all__ = [
    "Window",
    "accumulator_types",
    "bit_width",
    "compatible_shape_and_element",
    "element_of",
    "ints",
    "is_promotable_element",
    "padding_pairs",
    "qt",
    "reduce_shape",
    "reduce_window_window",
    "shapes_compatible",
    "verify_reducer_shape",
    "window_dimensions",
    "window_output_shape",
    "with_element",
]

KDYNAMIC = -9223372036854775808
"""How MLIR streams a dynamic size in an ArrayRef<int64_t> (ShapedType::kDynamic)."""


# --------------------------------------------------------------------------------- formatting
def qt(t: Attribute) -> str:
    """A type as an MLIR diagnostic streams it: `'tensor<2xf32>'`."""
    from stablehlo_py.ir.text.printer import type_to_str

    return f"'{type_to_str(t)}'"


def ints(xs: Sequence[int], dyn: bool = False) -> str:
    """An ArrayRef<int64_t> streamed into a diagnostic (`2, 3`); with ``dyn``, a shape whose
    dynamic sizes print as kDynamic."""
    return ", ".join(str(KDYNAMIC if dyn and is_dynamic(x) else x) for x in xs)


# ------------------------------------------------------------------------------ type helpers
def element_of(t: Attribute) -> Attribute:
    if isinstance(t, (TensorType, UnrankedTensorType)):
        return t.element_type
    return t


def with_element(t: Attribute, element: Attribute) -> Attribute:
    """upstream's getSameShapeTensorType: ``t`` (shape and encoding) with another element type."""
    if isinstance(t, TensorType):
        enc = t.encoding
        enc = None if enc is None or type(enc).__name__ == "NoneAttr" else enc
        return tensor_type(element, tuple(t.get_shape()), enc)
    return UnrankedTensorType(element)


def shapes_compatible(a: Attribute, b: Attribute) -> bool:
    """MLIR's verifyCompatibleShape of two types (unranked is compatible with anything)."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        sa, sb = a.get_shape(), b.get_shape()
        return len(sa) == len(sb) and all(
            x == y or is_dynamic(x) or is_dynamic(y) for x, y in zip(sa, sb)
        )
    return True


def dims_compatible(a: int, b: int) -> bool:
    return a == b or is_dynamic(a) or is_dynamic(b)


def int_list(a: Attribute | None) -> tuple[int, ...] | None:
    """The values of a DenseI64ArrayAttr / DenseBoolArrayAttr / integer elements attribute; None
    when absent."""
    if a is None:
        return None
    if isinstance(a, DenseArrayBase):
        return tuple(int(v) for v in a.get_values())
    if isinstance(a, DenseIntOrFPElementsAttr):
        from stablehlo_py.ir.text.dense import dense_values

        return tuple(int(v) for v in dense_values(a).reshape(-1))
    if isinstance(a, IntegerAttr):
        return (a.value.data,)
    raise InferError(f"expected an array of integers, got {a}")


def int_attr(a: Attribute | None, default: int) -> int:
    if isinstance(a, IntegerAttr):
        return a.value.data
    return default


# ----------------------------------------------------------------------------- reducer bodies
def _terminator_operands(region: Region) -> list[Attribute] | None:
    block = region.blocks.first
    if block is None:
        return None
    last = block.last_op
    if last is None:
        return []
    return [v.type for v in last.operands]


def accumulator_types(
    regions: Sequence[Region], index: int, inputs: Sequence[Attribute]
) -> list[Attribute]:
    """upstream's getAccumulatorTypesOrInputTypes: the body's returned types, or the inputs' when
    the op has no body yet (a builder).  Fewer returned values than inputs, or a non-tensor
    returned value, raise verifyReducerShape's message (upstream reads past the end there)."""
    if index >= len(regions) or not regions[index].blocks:
        return list(inputs)
    rets = _terminator_operands(regions[index]) or []
    for t in rets:
        if not isinstance(t, (TensorType, UnrankedTensorType)):
            raise InferError(
                f"Reduction-region here must produce tensor-typed result(s), but produces {qt(t)} instead"
            )
    if len(rets) < len(inputs):
        if not rets:
            raise InferError("The reduction-region expected to return some value(s)")
        raise InferError(
            f"Reduction-region here must produce {len(inputs)} tensors, but produces {len(rets)} instead"
        )
    return rets


def _same_element(a: Attribute, b: Attribute, ignore_fp: bool) -> bool:
    """upstream's tensorsHaveSameElType of two types."""
    ea, eb = element_of(a), element_of(b)
    if ignore_fp and type(ea) in FLOAT_NAME and type(eb) in FLOAT_NAME:
        return True
    return ea == eb


def compatible_shape_and_element(a: Attribute, b: Attribute, ignore_fp: bool = False) -> bool:
    """upstream's compatibleShapeAndElementType."""
    return shapes_compatible(a, b) and _same_element(a, b, ignore_fp)


def num_bits(e: Attribute) -> int | None:
    """spec.md num_bits of an element type (a quantized type counts its storage type, index has
    64); None when unknown."""
    from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS

    if isinstance(e, UniformQuantizedType):
        return e.params.storage_type.width.data  # type: ignore[attr-defined]
    if isinstance(e, IntegerType):
        return e.width.data
    name = FLOAT_NAME.get(type(e))
    if name is not None:
        return FLOAT_SEMANTICS[name].bits
    if isinstance(e, ComplexType):
        inner = num_bits(e.element_type)
        return None if inner is None else 2 * inner
    if isinstance(e, IndexType):
        return 64
    return None


def bit_width(e: Attribute) -> int:
    """upstream's getBitWidth: :func:`num_bits`, 64 for a type without a width."""
    n = num_bits(e)
    return 64 if n is None else n


def _kind(e: Attribute) -> str | None:
    if isinstance(e, IntegerType):
        return "int"
    if type(e) in FLOAT_NAME:
        return "float"
    if isinstance(e, ComplexType):
        return "complex"
    if isinstance(e, UniformQuantizedType):
        return "quant"
    return None


def is_promotable_element(a: Attribute, b: Attribute, ignore_fp: bool = False) -> bool:
    """upstream's isPromotableElementType: the same kind of element (integer, float, complex,
    quantized with the same expressed type) and no wider (floats of any width with
    ``ignore_fp``)."""
    shaped = (TensorType, UnrankedTensorType)
    if not isinstance(a, shaped) or not isinstance(b, shaped):
        return False
    ea, eb = a.element_type, b.element_type
    kind = _kind(ea)
    if kind is None or kind != _kind(eb):
        return False
    if kind == "quant" and ea.params.expressed_type != eb.params.expressed_type:  # type: ignore[attr-defined]
        return False
    if ignore_fp and kind == "float":
        return True
    return bit_width(ea) <= bit_width(eb)


def verify_reducer_shape(
    block: Block | None,
    inputs: Sequence[Attribute],
    inits: Sequence[Attribute],
    allowed_dims: Sequence[int],
) -> None:
    """upstream's verifyReducerShape: the body of reduce, reduce_window, scatter,
    select_and_scatter, all_reduce, reduce_scatter and collective_reduce takes 2N parameters
    (accumulators, then elements), returns N tensors of the accumulators' types, promotable from
    the init values' and taking the inputs' element types; an element parameter may have a rank
    up to the allowed dimensions (reduce's result dimensions, reduce_window's window)."""
    n = len(inputs)
    args = [a.type for a in block.args] if block is not None else []
    if len(args) != 2 * n:
        raise InferError(
            f"Reduction-region must take {2 * n} parameters, but takes {len(args)} parameter(s)"
        )
    term = block.last_op if block is not None else None
    if term is None or not term.has_trait(IsTerminator):
        raise InferError("The reduction-region expected to have a terminator")
    rets = [v.type for v in term.operands]
    if not rets:
        raise InferError("The reduction-region expected to return some value(s)")
    if len(rets) != n:
        raise InferError(
            f"Reduction-region here must produce {n} tensors, but produces {len(rets)} instead"
        )
    for t in rets:
        if not isinstance(t, (TensorType, UnrankedTensorType)):
            raise InferError(
                "Reduction-region here must produce tensor-typed result(s), but produces "
                f"{qt(t)} instead"
            )
    for i in range(n):
        acc, arg, elem_arg = rets[i], args[i], args[n + i]
        for k, a, ignore_fp in ((i, arg, False), (n + i, elem_arg, True)):
            if not compatible_shape_and_element(acc, a, ignore_fp):
                raise InferError(
                    f"The type of reduction-region's parameter at index {k} is different than "
                    f"the corresponding result type: {qt(a)} vs {qt(acc)}"
                )
        if not shapes_compatible(inits[i], acc):
            raise InferError(
                f"The shape of reduction-region's result type at index {i} differs from the op's "
                f"corresponding init-value type: {qt(acc)} vs {qt(inits[i])}"
            )
        if not is_promotable_element(inits[i], acc, ignore_fp=True):
            raise InferError(
                f"The element-type of reduction-region's result type at index {i} is expected to "
                "be promotable from the op's corresponding init-value element-type: "
                f"{qt(acc)} vs {qt(inits[i])}"
            )
        if not is_promotable_element(inputs[i], elem_arg, ignore_fp=True):
            raise InferError(
                f"The element-type of reduction-region's argument at index {n + i} is expected "
                f"to be promotable from {qt(element_of(inputs[i]))}, but got "
                f"{qt(element_of(elem_arg))}"
            )
        if not isinstance(elem_arg, TensorType):
            continue
        shape = elem_arg.get_shape()
        if len(shape) > len(allowed_dims):
            raise InferError(
                f"The rank of reduction-region's argument at index {n + i} is expected to be <= "
                f"{len(allowed_dims)}, got {len(shape)}"
            )
        k = 0
        for d in allowed_dims:
            if k >= len(shape):
                break
            if dims_compatible(d, shape[k]):
                k += 1
        if k != len(shape):
            raise InferError(
                f"The shape of reduction-region's argument at index {n + i} is not compatible "
                f"with that of reduce-op's input-parameter at index {i}"
            )


# -------------------------------------------------------------------------------------- window
@dataclass
class Window:
    """upstream's WindowDimension."""

    size: int = 1
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    reversal: bool = False


def padding_pairs(padding: Attribute | None) -> list[tuple[int, int]]:
    """upstream's convertPaddingAttribute."""
    if padding is None:
        return []
    if not isinstance(padding, DenseIntOrFPElementsAttr):
        raise InferError(f"expects padding to be a dense integer elements attribute, got {padding}")
    shape = tuple(padding.type.get_shape())
    if len(shape) != 2 or shape[1] != 2:
        raise InferError(
            f"expects the shape of padding-attribute to be {{N, 2}}, but got {{{ints(shape)}}}."
        )
    flat = int_list(padding) or ()
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]


def window_dimensions(
    sizes: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    reversal: Sequence[int],
    dynamic_sizes: bool = False,
) -> list[Window]:
    """upstream's verifyWindowAttributesAndInferWindowDimensions (empty attributes are defaults).
    `dynamic_sizes`: the sizes are a kernel's dimensions, which may be dynamic (convolution);
    otherwise they are an attribute's values, and -1 is a size like any other."""
    n = len(sizes)

    def check_size(size: int, name: str) -> None:
        if size not in (0, n):
            raise InferError(
                f"expects {name} to have same dimension-size as size of window dimensions ({n}), "
                f"but got: {size}."
            )

    check_size(len(strides), "window-strides")
    check_size(len(lhs_dilation), "base-dilation factors")
    check_size(len(rhs_dilation), "window-dilation factors")
    check_size(len(padding), "padding-entries")
    check_size(len(reversal), "window-reversal")
    out = []
    for i, size in enumerate(sizes):
        w = Window(size=size)
        if not (dynamic_sizes and is_dynamic(size)) and size <= 0:
            raise InferError(
                f"expects window to have positive value for {i}-th window dimension, but got {size}."
            )
        for field, given, what in (
            ("stride", strides, "stride"),
            ("base_dilation", lhs_dilation, "base dilation factor"),
            ("window_dilation", rhs_dilation, "window dilation factor"),
        ):
            if given:
                setattr(w, field, given[i])
            value = getattr(w, field)
            if value <= 0:
                raise InferError(
                    f"expects window to have positive {what} for {i}-th window dimension, "
                    f"but got {value}."
                )
        if padding:
            w.padding_low, w.padding_high = padding[i]
        if reversal:
            w.reversal = bool(reversal[i])
        out.append(w)
    return out


def _dilated_bound(bound: int, dilation: int) -> int:
    return 0 if bound == 0 else (bound - 1) * dilation + 1


def _strided_bound(bound: int, window: int, stride: int) -> int:
    if bound == 0 or window > bound:
        return 0
    return (bound - window) // stride + 1


def window_output_shape(base: Sequence[int], window: Sequence[Window]) -> list[int]:
    """upstream's inferWindowOutputShape (a dynamic size stays dynamic)."""
    out = []
    for size, w in zip(base, window):
        if is_dynamic(size) or is_dynamic(w.size):
            out.append(DYN)
            continue
        padded = w.padding_low + _dilated_bound(size, w.base_dilation) + w.padding_high
        out.append(_strided_bound(padded, _dilated_bound(w.size, w.window_dilation), w.stride))
    return out


# -------------------------------------------------------------------------------------- reduce
def _split_inputs(inp: InferInput) -> tuple[list[Attribute], list[Attribute]]:
    n = len(inp.operand_types) // 2
    return list(inp.operand_types[:n]), list(inp.operand_types[n:])


def reduce_shape(
    inputs: Sequence[Attribute], dims: Sequence[int]
) -> tuple[list[int], list[int]] | None:
    """upstream's verifyReduceOpInputsAndInferShape: the result shape and bounds (None for an
    unranked first input)."""
    if not inputs:
        raise InferError("expects at least 1 input")
    witness = inputs[0]
    for i, t in enumerate(inputs[1:], 1):
        if not shapes_compatible(witness, t):
            raise InferError(
                "expects all inputs to have compatible shapes. Shape at input-index "
                f"{i} is not compatible with shape at input-index 0"
            )
    if not isinstance(witness, TensorType):
        return None
    r = len(witness.get_shape())
    seen: set[int] = set()
    for d in dims:
        if d < 0 or d >= r:
            raise InferError(f"Out-of-bounds dimension {d}, expected to be in range [0, {r})")
        if d in seen:
            raise InferError(f"Duplicate reduction dimension: {d}")
        seen.add(d)
    shape = witness.get_shape()
    bounds = bounds_of(witness)
    new_dims = [shape[i] for i in range(r) if i not in seen]
    new_bounds = [bounds[i] for i in range(r) if i not in seen] if bounds else []
    return new_dims, new_bounds


@rule("stablehlo.reduce")
def infer_reduce(inp: InferInput) -> list[Attribute]:
    inputs, _ = _split_inputs(inp)
    dims = int_list(inp.attr("dimensions")) or ()
    shape = reduce_shape(inputs, dims)
    accs = accumulator_types(inp.regions, 0, inputs)
    out: list[Attribute] = []
    for i in range(len(inputs)):
        elem = element_of(accs[i])
        out.append(UnrankedTensorType(elem) if shape is None else ranked(shape[0], elem, shape[1]))
    return out


# ------------------------------------------------------------------------------- reduce_window
def reduce_window_window(inp: InferInput, inputs: Sequence[Attribute]) -> list[Window]:
    """upstream's verifyReduceWindowOpInputsAndInferWindow."""
    if not inputs:
        raise InferError("requires at least 1 input value")
    for i, t in enumerate(inputs[1:], 1):
        if not shapes_compatible(inputs[0], t):
            raise InferError(
                "expects all inputs to have compatible shapes. Shape at input-index "
                f"{i} is not compatible with shape at input-index 0"
            )
    padding = padding_pairs(inp.attr("padding"))
    sizes = int_list(inp.attr("window_dimensions")) or ()
    for t in inputs:
        if isinstance(t, TensorType) and len(t.get_shape()) != len(sizes):
            raise InferError(
                "expects window-dimensions size == input rank, but got window-dimensions size: "
                f"{len(sizes)} and input: {qt(t)} with rank = {len(t.get_shape())}."
            )
    return window_dimensions(
        sizes,
        int_list(inp.attr("window_strides")) or (),
        padding,
        int_list(inp.attr("base_dilations")) or (),
        int_list(inp.attr("window_dilations")) or (),
        (),
    )


@rule("stablehlo.reduce_window")
def infer_reduce_window(inp: InferInput) -> list[Attribute]:
    inputs, _ = _split_inputs(inp)
    window = reduce_window_window(inp, inputs)
    accs = accumulator_types(inp.regions, 0, inputs)
    out: list[Attribute] = []
    for i, t in enumerate(inputs):
        elem = element_of(accs[i])
        if not isinstance(t, TensorType):
            out.append(UnrankedTensorType(elem))
            continue
        shape = window_output_shape(t.get_shape(), window)
        bounds = bounds_of(t)
        out.append(ranked(shape, elem, window_output_shape(bounds, window) if bounds else ()))
    return out


# -------------------------------------------------------------------------- select_and_scatter
@rule("stablehlo.select_and_scatter")
def infer_select_and_scatter(inp: InferInput) -> list[Attribute]:
    operand = inp.operand_types[0]
    accs = accumulator_types(inp.regions, 1, [operand])
    return [with_element(operand, element_of(accs[0]))]


# ---------------------------------------------------------------------------------------- sort
@rule("stablehlo.sort")
def infer_sort(inp: InferInput) -> list[Attribute]:
    return list(inp.operand_types)


def verify_sort(inputs: Sequence[Attribute], dimension: int, comparator: Region) -> None:
    """upstream's verifySortOp (sort_c4, sort_c5)."""
    if inputs and isinstance(inputs[0], TensorType):
        r = len(inputs[0].get_shape())
        # sort_c4
        if not -r <= dimension < r:
            raise InferError(
                f"dimension attribute value must be in range [-{r}, {r}), but found {dimension}"
            )
    block = comparator.blocks.first
    assert block is not None
    # sort_c5
    args = [a.type for a in block.args]
    if len(args) != 2 * len(inputs):
        raise InferError(f"comparator block should have {2 * len(inputs)} arguments")
    for index, t in enumerate(inputs):
        want = tensor_type(element_of(t), ())
        for i in (2 * index, 2 * index + 1):
            if args[i] != want:
                raise InferError(
                    f"comparator block argument #{i} should be of type {qt(want)} but got "
                    f"{qt(args[i])}"
                )
    rets = _terminator_operands(comparator) or []
    if len(rets) != 1:
        raise InferError(f"comparator must return single output but got {len(rets)}")
    ret = rets[0]
    e = element_of(ret)
    if not (
        isinstance(ret, TensorType)
        and not ret.get_shape()
        and isinstance(e, IntegerType)
        and e.width.data == 1
    ):
        raise InferError(f"comparator must return tensor<i1> but got {qt(ret)}")


# ----------------------------------------------------------------------------------------- map
@rule("stablehlo.map")
def infer_map(inp: InferInput) -> list[Attribute]:
    inputs = list(inp.operand_types)
    if not inp.regions or not inp.regions[0].blocks:
        raise InferError("expect non-empty region")
    block = inp.regions[0].blocks.first
    assert block is not None
    args = list(block.args)
    if len(inputs) != len(args):
        raise InferError(
            "expects number of operands to match the arity of map computation, but got: "
            f"{len(inputs)} and {len(args)}"
        )
    for i, arg in enumerate(args):
        at = arg.type
        if isinstance(at, TensorType) and len(at.get_shape()) != 0:
            raise InferError(
                f"computation arguments must be 0-rank tensor, but got: arg #{i} of type {qt(at)}"
            )
        if element_of(at) != element_of(inputs[i]):
            raise InferError(
                "element type of operands and computation arguments must match, but got: "
                f"{qt(element_of(inputs[i]))} and {qt(element_of(at))}"
            )
    outs = _terminator_operands(inp.regions[0]) or []
    if len(outs) != 1:
        raise InferError(f"computation must return single output, but got: {len(outs)}")
    out_t = outs[0]
    if isinstance(out_t, TensorType) and len(out_t.get_shape()) != 0:
        raise InferError(f"computation must return 0-rank tensor, but got: {qt(out_t)}")
    dims = int_list(inp.attr("dimensions")) or ()
    for i, d in enumerate(dims):
        if d != i:
            raise InferError(
                f"requires monotonically increasing dimension numbers, but got: {ints(dims)}"
            )
    result_shape: tuple[int, ...] | None = None
    for t in inputs:
        if not isinstance(t, TensorType):
            result_shape = None
            continue
        if len(dims) != len(t.get_shape()):
            raise InferError(
                "applied to a subset of dimensions currently not supported: operand dimensions = "
                f"{len(t.get_shape())}, requested map dimensions size = {len(dims)}"
            )
        result_shape = tuple(t.get_shape())
    elem = element_of(out_t)
    if result_shape is None:
        return [UnrankedTensorType(elem)]
    return [tensor_type(elem, result_shape)]
