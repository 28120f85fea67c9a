"""Result-type inference rules of the data movement ops (upstream's TypeInference.cpp `infer*Op`).

broadcast, concatenate, dynamic_slice, dynamic_update_slice, gather, dynamic_gather, scatter,
get_dimension_size, set_dimension_size, get_tuple_element, tuple, pad, reverse, slice, transpose,
select, clamp and complex.  The other ops of the family (broadcast_in_dim, dynamic_broadcast_in_dim,
iota, dynamic_iota, dynamic_pad, reshape, dynamic_reshape, real_dynamic_slice, torch_index_select)
are verified, not inferred, upstream and have no rule.

Unranked operands (which upstream's current ODS constraints no longer admit) give an unranked
result of the inferred element type, compatible with any declared type.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    i32,
)
from xdsl.ir import Attribute, Region, SSAValue

from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import (
    DYN,
    bounds_of,
    infer_most_specific_type,
    is_dynamic,
    most_specific_dim,
    ranked,
)
from stablehlo_py.ir.types import MLIR_DYNAMIC, UniformQuantizedType, tensor_type

__all__ = ["constant_ints", "ints", "verify_scatter"]


# ------------------------------------------------------------------------------------ helpers
def ints(a: Attribute | None) -> tuple[int, ...]:
    """The values of a DenseI64ArrayAttr (or an integer dense elements attribute); () if absent."""
    if a is None or isinstance(a, NoneAttr):
        return ()
    if isinstance(a, DenseArrayBase):
        return tuple(int(v) for v in a.get_values())
    if isinstance(a, DenseIntOrFPElementsAttr):
        from stablehlo_py.ir.text.dense import dense_values

        return tuple(int(v) for v in dense_values(a).reshape(-1).tolist())
    return tuple(int(v) for v in a.get_values())  # type: ignore[attr-defined]


def _int(a: Attribute | None, default: int = 0) -> int:
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    return default


def constant_ints(v: SSAValue | None) -> tuple[int, ...] | None:
    """upstream's matchInts: the values of ``v`` when a `stablehlo.constant` of dense integers
    defines it, else None (unknown)."""
    if v is None:
        return None
    owner = getattr(v, "owner", None)
    if getattr(owner, "name", None) != "stablehlo.constant":
        return None
    value = owner.properties.get("value")  # type: ignore[union-attr]
    if value is None:  # (an empty dense attribute is falsy: no `or` here)
        value = owner.attributes.get("value")  # type: ignore[union-attr]
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return None
    if not isinstance(value.get_element_type(), IntegerType):
        return None
    return ints(value)


def _operand(inp: InferInput, i: int) -> SSAValue | None:
    return None if inp.operands is None or i >= len(inp.operands) else inp.operands[i]


def _elem(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, (TensorType, UnrankedTensorType)) else t  # type: ignore[return-value]


def _shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor, None for an unranked one."""
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return None


def _enc(t: Attribute) -> Attribute | None:
    enc = getattr(t, "encoding", None)
    return None if enc is None or isinstance(enc, NoneAttr) else enc


def _with_bounds(
    proto: Attribute, shape: Sequence[int], elem: Attribute, bounds: Sequence[int]
) -> TensorType:
    """upstream's ``RankedTensorType::get(shape, elem, boundsToEncoding(proto's encoding, bounds))``:
    no bounds keep the prototype's encoding, all-unbounded ones drop it."""
    if not bounds:
        return tensor_type(elem, tuple(shape), _enc(proto))
    return ranked(shape, elem, bounds)


def _same_shape(t: Attribute, elem: Attribute) -> Attribute:
    """upstream's getSameShapeTensorType (ShapedType::clone with a new element type)."""
    if isinstance(t, TensorType):
        return tensor_type(elem, tuple(t.get_shape()), _enc(t))
    return UnrankedTensorType(elem)


def _join(xs: Iterable[int]) -> str:
    return ", ".join(str(x) for x in xs)


def _compatible_dims(a: int, b: int) -> bool:
    return is_dynamic(a) or is_dynamic(b) or a == b


def _compatible_shapes(a: Attribute, b: Attribute) -> bool:
    """MLIR's verifyCompatibleShape on two shaped types."""
    sa, sb = _shape(a), _shape(b)
    if sa is None or sb is None:
        return True
    return len(sa) == len(sb) and all(_compatible_dims(x, y) for x, y in zip(sa, sb))


def _same_el_type(types: Sequence[Attribute], ignore_fp_precision: bool = True) -> bool:
    """upstream's tensorsHaveSameElType."""
    if not types:
        return True
    e1 = _elem(types[0])
    for t in types[1:]:
        e2 = _elem(t)
        if ignore_fp_precision and _is_float(e1) and _is_float(e2):
            continue
        if e1 != e2:
            return False
    return True


def _is_float(e: Attribute) -> bool:
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(e, AnyFloat)


def _check_dims_distinct(lhs: Sequence[int], rhs: Sequence[int], ln: str, rn: str) -> None:
    seen: set[int] = set()
    for d in list(lhs) + list(rhs):
        if d in seen:
            raise InferError(f"has duplicated dimension from {ln} and {rn}: {d}")
        seen.add(d)


_DIMS_LIST_WORDING = {
    "gather": "expects {name} to {rule}, got: [{dims}]",
    "scatter": "Expects {name} to {rule}; got: [{dims}].",
}
"""upstream's two wordings of a dimension-list rule: verifyGather's and verifyScatter's."""


def _check_dims_sorted(dims: Sequence[int], name: str, op: str) -> None:
    if list(dims) != sorted(dims):
        raise InferError(
            _DIMS_LIST_WORDING[op].format(name=name, rule="be sorted", dims=_join(dims))
        )


def _check_dims_unique(dims: Sequence[int], name: str, op: str) -> None:
    if len(set(dims)) != len(dims):
        raise InferError(
            _DIMS_LIST_WORDING[op].format(name=name, rule="not repeat", dims=_join(dims))
        )


def _check_dims_in_bounds(dims: Sequence[int], upper: int, name: str, upper_name: str) -> None:
    for d in dims:
        if d < 0 or d >= upper:
            raise InferError(
                f"Expects each element of {name} to be in range [0, {upper_name}) i.e. [0, {upper}). got: {d}."
            )


def _check_dim_in_bounds(dim: int, upper: int, name: str, upper_name: str) -> None:
    """upstream's checkDimInBounds with upperBoundInclusive (the only way it is called here)."""
    if dim < 0 or dim > upper:
        raise InferError(
            f"Expects {name} to be in range [0, {upper_name}] i.e. [0, {upper}]. got: {dim}."
        )


def _verify_dim_in_bounds(t: Attribute, dim: int) -> None:
    """upstream's verifyDimInBounds."""
    if dim < 0:
        raise InferError(f"requires non-negative dimension attribute; found ({dim})")
    s = _shape(t)
    if s is not None and dim >= len(s):
        raise InferError(f"requires dimension attribute in range [0, {len(s)}); found ({dim})")


# ---------------------------------------------------------------------------------- broadcast
@rule("stablehlo.broadcast")
def infer_broadcast(inp: InferInput) -> list[Attribute]:
    ot = inp.operand_types[0]
    sizes = ints(inp.attr("broadcast_sizes"))
    for s in sizes:
        if s < 0:
            raise InferError(f"Broadcast with negative dimension size {s}")
    shape = _shape(ot)
    if shape is None:
        return [UnrankedTensorType(_elem(ot))]
    return [tensor_type(_elem(ot), tuple(sizes) + shape)]


# -------------------------------------------------------------------------------- concatenate
def _concat_dim_and_bound(ls: int, rs: int, lb: int, rb: int) -> tuple[int, int]:
    """upstream's inferConcatenatedDimAndBound."""
    if not is_dynamic(ls) and not is_dynamic(rs):
        return ls + rs, DYN
    lsb = ls if not is_dynamic(ls) else lb
    rsb = rs if not is_dynamic(rs) else rb
    if not is_dynamic(lsb) and not is_dynamic(rsb):
        return DYN, lsb + rsb
    return DYN, DYN


@rule("stablehlo.concatenate")
def infer_concatenate(inp: InferInput) -> list[Attribute]:
    types = list(inp.operand_types)
    if not types:
        raise InferError("expected 1 or more operands, but found 0", invariant=True)  # ODS
    dimension = _int(inp.attr("dimension"))
    witness = next((t for t in types if isinstance(t, TensorType)), None)
    if witness is None:
        return [UnrankedTensorType(_elem(types[0]))]
    rank = len(witness.get_shape())
    # concatenate_c4
    if rank == 0:
        raise InferError("rank-0 values cannot be concatenated")
    if dimension >= rank:
        raise InferError(f"dimension {dimension} is out-of-bounds for input rank {rank}")
    if dimension < 0:  # upstream's ODS attribute constraint, checked before inference
        raise InferError(
            "attribute 'dimension' failed to satisfy constraint: 64-bit signless integer "
            "attribute whose value is non-negative",
            invariant=True,
        )
    w0 = tuple(witness.get_shape())
    # concatenate_c2
    for i, t in enumerate(types):
        s = _shape(t)
        if s is None:
            continue
        if len(s) != rank:
            raise InferError(f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dimension and not _compatible_dims(w0[d], s[d]):
                raise InferError(
                    f"shapes of operand (0) and ({i}) are not compatible at non-concat index {d}: "
                    f"({_join(map(_dim_text, w0))}) != ({_join(map(_dim_text, s))})"
                )
    if any(not isinstance(t, TensorType) for t in types):
        # an unranked input: the concatenated dimension is unknown
        sizes = list(w0)
        sizes[dimension] = DYN
        for t in types:
            s = _shape(t)
            if s is not None:
                for d in range(rank):
                    if d != dimension and is_dynamic(sizes[d]):
                        sizes[d] = s[d]
        return [tensor_type(_elem(witness), tuple(sizes))]
    sizes = [DYN] * rank
    bounds = [DYN] * rank
    sizes[dimension] = 0
    any_bounds = False
    for t in types:
        s = tuple(t.get_shape())  # type: ignore[union-attr]
        b = bounds_of(t)
        if b:
            any_bounds = True
        for d in range(rank):
            rb = b[d] if b else DYN
            if d == dimension:
                sizes[d], bounds[d] = _concat_dim_and_bound(sizes[d], s[d], bounds[d], rb)
            else:
                sizes[d], bounds[d] = most_specific_dim(d, sizes[d], s[d], bounds[d], rb)
    proto: Attribute = witness
    for t in types:
        if _enc(t) is not None:
            proto = t
            break
    return [_with_bounds(proto, sizes, _elem(witness), bounds if any_bounds else ())]


# ------------------------------------------------------------------------------ dynamic slice
@rule("stablehlo.dynamic_slice")
def infer_dynamic_slice(inp: InferInput) -> list[Attribute]:
    ot, starts = inp.operand_types[0], list(inp.operand_types[1:])
    sizes = ints(inp.attr("slice_sizes"))
    # dynamic_slice_c2
    if len(starts) != len(sizes):
        raise InferError(
            f"has mismatched number of slice sizes ({len(sizes)}) and number of start indices ({len(starts)})"
        )
    s = _shape(ot)
    if s is not None and len(s) != len(starts):
        raise InferError(
            f"has mismatched number of start indices ({len(starts)}) and the rank of operand ({len(s)})"
        )
    # dynamic_slice_c3
    if not _same_el_type(starts):
        raise InferError("start indices must have same element type")
    # dynamic_slice_c4
    for i, z in enumerate(sizes):
        if z < 0:
            raise InferError(f"has negative size index to dynamic slice: {z}")
        if s is not None and not is_dynamic(s[i]) and z > s[i]:
            raise InferError(
                f"has slice size {z} greater than dimension size {s[i]} in dimension {i} of operand"
            )
    # dynamic_slice_c5
    return [tensor_type(_elem(ot), tuple(sizes))]


@rule("stablehlo.dynamic_update_slice")
def infer_dynamic_update_slice(inp: InferInput) -> list[Attribute]:
    ot, ut = inp.operand_types[0], inp.operand_types[1]
    starts = list(inp.operand_types[2:])
    s, u = _shape(ot), _shape(ut)
    # dynamic_update_slice_c3
    if s is not None and u is not None and len(u) != len(s):
        raise InferError(f"update rank does not match operand rank: {len(u)} vs {len(s)}.")
    # dynamic_update_slice_c4
    if s is not None and len(starts) != len(s):
        raise InferError(
            f"expects number of start_indices to match operand rank: {len(starts)} vs {len(s)}."
        )
    # dynamic_update_slice_c5
    if not _same_el_type(starts):
        raise InferError("start indices must have same element type")
    # dynamic_update_slice_c6
    if s is not None and u is not None:
        for i, (od, ud) in enumerate(zip(s, u)):
            if is_dynamic(ud):
                continue
            if not is_dynamic(od) and ud > od:
                raise InferError(
                    f"expects size at dimension {i} of update to be in range [0, {od}]. Got: {ud}."
                )
    # dynamic_update_slice_c1
    if s is None:
        return [UnrankedTensorType(_elem(ot))]
    return [tensor_type(_elem(ot), s, _enc(ot))]


# ------------------------------------------------------------------------------------- gather
def _gather_dims(inp: InferInput, name: str = "dimension_numbers"):  # type: ignore[no-untyped-def]
    dn = inp.attr(name)
    if dn is None:
        raise InferError(f"requires attribute '{name}'")
    return dn.dims  # type: ignore[attr-defined]


def _verify_gather(
    o: tuple[int, ...] | None,
    idx: tuple[int, ...] | None,
    slice_sizes_rank: int,
    slice_sizes_count: int | None,
    g,  # type: ignore[no-untyped-def]
) -> None:
    """upstream's verifyGather (ranks of unranked operands are unknown: their checks are skipped)."""
    offset, collapsed = tuple(g.offset_dims), tuple(g.collapsed_slice_dims)
    obatch, ibatch = tuple(g.operand_batching_dims), tuple(g.start_indices_batching_dims)
    smap, ivd = tuple(g.start_index_map), int(g.index_vector_dim)
    # gather_c1
    implied = len(offset) + len(collapsed) + len(obatch)
    if o is not None and len(o) != implied:
        raise InferError(
            f"offset_dims size ({len(offset)}) plus collapse_slice_dims size ({len(collapsed)}) "
            f"plus operand_batching_dims size ({len(obatch)}) is not equal to operand rank ({len(o)})"
        )
    if idx is not None:
        # gather_c2
        _check_dim_in_bounds(ivd, len(idx), "index_vector_dim", "rank-of('start_indices')")
        # gather_c3
        implied_trailing = ivd == len(idx)
        if implied_trailing or not is_dynamic(idx[ivd]):
            eff = 1 if implied_trailing else idx[ivd]
            if eff != len(smap):
                raise InferError(
                    f"start_index_map size ({len(smap)}) is not equal to size of index dimension "
                    f"({ivd}) of start_indices ({eff})"
                )
    # gather_c4
    _check_dims_sorted(offset, "offset_dims", "gather")
    _check_dims_unique(offset, "offset_dims", "gather")
    # gather_c6
    _check_dims_distinct(collapsed, obatch, "collapsed_slice_dims", "operand_batching_dims")
    # gather_c7
    _check_dims_sorted(collapsed, "collapsed_slice_dims", "gather")
    # gather_c8
    if o is not None:
        _check_dims_in_bounds(collapsed, len(o), "collapsed_slice_dims", "rank-of('operand')")
    # gather_c10
    _check_dims_sorted(obatch, "operand_batching_dims", "gather")
    # gather_c11
    if o is not None:
        _check_dims_in_bounds(obatch, len(o), "operand_batching_dims", "rank-of('operand')")
    # gather_c13
    _check_dims_unique(ibatch, "start_indices_batching_dims", "gather")
    # gather_c14
    if idx is not None:
        _check_dims_in_bounds(
            ibatch, len(idx), "start_indices_batching_dims", "rank-of('start_indices')"
        )
    # gather_c15
    if ivd in ibatch:
        raise InferError(
            f"expects start_indices_batching_dims not to include index_vector_dim {ivd}"
        )
    # gather_c16
    if len(obatch) != len(ibatch):
        raise InferError(
            "operand_batching_dims and start_indices_batching_dims should have the same size"
        )
    # gather_c17
    if o is not None and idx is not None:
        for i, (a, b) in enumerate(zip(obatch, ibatch)):
            if not _compatible_dims(o[a], idx[b]):
                raise InferError(
                    f"operand_batching_dims[{i}] and start_indices_batching_dims[{i}] must have "
                    f"compatible sizes, but got {o[a]} and {idx[b]}"
                )
    # gather_c18
    _check_dims_distinct(smap, obatch, "start_index_map", "operand_batching_dims")
    # gather_c19
    if o is not None:
        _check_dims_in_bounds(smap, len(o), "start_index_map", "rank-of('operand')")
    # gather_i9
    if slice_sizes_rank != 1:
        raise InferError(f"slice_sizes.rank != 1 (got {slice_sizes_rank})")
    # gather_c20
    if o is not None and slice_sizes_count is not None and slice_sizes_count != len(o):
        raise InferError(
            f"slice_sizes size ({slice_sizes_count}) not equal to operand rank ({len(o)})"
        )


def _check_slice_sizes(o: tuple[int, ...] | None, sizes: Sequence[int], g) -> None:  # type: ignore[no-untyped-def]
    """gather_c9, gather_c12, gather_c21."""
    for dims, name in (
        (g.collapsed_slice_dims, "collapsed_slice_dims"),
        (g.operand_batching_dims, "operand_batching_dims"),
    ):
        for d in dims:
            if 0 <= d < len(sizes) and sizes[d] > 1:
                raise InferError(
                    f"Expects that for each dim in {name}, slice_sizes[dim] should be <= 1, but got {sizes[d]}"
                )
    for i, z in enumerate(sizes):
        od = o[i] if o is not None and i < len(o) else DYN
        if z < 0 or (not is_dynamic(od) and z > od):
            raise InferError(
                f"slice size ({z}) is out of bounds for operand dimension ({od}) at index {i}"
            )


def _gather_result(ot: Attribute, it: Attribute, slice_dim, g) -> list[Attribute]:  # type: ignore[no-untyped-def]
    """upstream's inferGatherReturnTypeComponents + inferGatherShape."""
    elem = _elem(ot)
    idx = _shape(it)
    if idx is None:
        return [UnrankedTensorType(elem)]
    offset = tuple(g.offset_dims)
    collapsed, obatch = tuple(g.collapsed_slice_dims), tuple(g.operand_batching_dims)
    ivd = int(g.index_vector_dim)
    idx_rank = len(idx) + (1 if ivd == len(idx) else 0)
    result_rank = len(offset) + idx_rank - 1
    # gather_c5
    _check_dims_in_bounds(offset, result_rank, "offset_dims", "implied-result-rank")
    cb = collapsed + obatch
    max_dim = max(cb) if cb else -1
    prefix = [slice_dim(d) for d in range(max_dim + 1) if d not in cb]

    def adjusted(i: int) -> int:
        if i < len(prefix):
            return prefix[i]
        return slice_dim(i + len(collapsed) + len(obatch))

    batch_dims = [d for d in range(result_rank) if d not in offset]
    shape: list[int] = []
    for i in range(result_rank):
        if i in offset:
            shape.append(adjusted(offset.index(i)))
            continue
        k = batch_dims.index(i)
        if k >= ivd:
            k += 1
        shape.append(idx[k])
    ib = bounds_of(it)
    bounds = [DYN] * result_rank
    if ib:
        j = 0
        for d in range(result_rank):
            if d in offset:
                continue
            if j == ivd:
                j += 1
            bounds[d] = ib[j]
            j += 1
    return [_with_bounds(it, shape, elem, bounds)]


@rule("stablehlo.gather")
def infer_gather(inp: InferInput) -> list[Attribute]:
    ot, it = inp.operand_types[0], inp.operand_types[1]
    g = _gather_dims(inp)
    sizes = ints(inp.attr("slice_sizes"))
    o = _shape(ot)
    _verify_gather(o, _shape(it), 1, len(sizes), g)
    _check_slice_sizes(o, sizes, g)

    def slice_dim(i: int) -> int:
        return sizes[i] if 0 <= i < len(sizes) else DYN

    return _gather_result(ot, it, slice_dim, g)


@rule("stablehlo.dynamic_gather")
def infer_dynamic_gather(inp: InferInput) -> list[Attribute]:
    ot, it, st = inp.operand_types[0], inp.operand_types[1], inp.operand_types[2]
    g = _gather_dims(inp)
    o = _shape(ot)
    ss = _shape(st)
    ss_rank = 1 if ss is None else len(ss)
    count = None if ss is None or any(is_dynamic(x) for x in ss) else _prod(ss)
    _verify_gather(o, _shape(it), ss_rank, count, g)
    values = constant_ints(_operand(inp, 2))
    if values is not None:
        _check_slice_sizes(o, values, g)

    def slice_dim(i: int) -> int:
        return values[i] if values is not None and 0 <= i < len(values) else DYN

    return _gather_result(ot, it, slice_dim, g)


def _prod(xs: Sequence[int]) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


# ------------------------------------------------------------------- broadcast_in_dim, reshape
# (verified, not inferred, upstream: verifyBroadcastInDimOp, verifyReshapeOp)
INT64_MIN = MLIR_DYNAMIC  # how upstream prints a dynamic dimension size in a diagnostic


def _dim_text(d: int) -> int:
    return INT64_MIN if is_dynamic(d) else d


def _quoted(t: Attribute) -> str:
    """A type as MLIR streams it into a diagnostic (quoted)."""
    from stablehlo_py.ir.text.printer import type_to_str

    return f"'{type_to_str(t)}'"


def _quant(t: Attribute, per_axis: bool) -> UniformQuantizedType | None:
    """The element type of `t` if it is a uniform quantized type of the given granularity."""
    e = _elem(t)
    if isinstance(e, UniformQuantizedType) and e.is_per_axis == per_axis:
        return e
    return None


def verify_q_per_tensor_scale_and_zero_point(a: Attribute, b: Attribute) -> None:
    """upstream's verifyQPerTensorScaleAndZeroPointConstraints."""
    if _quant(a, False) and _quant(b, False) and _elem(a) != _elem(b):
        raise InferError(
            f"expect same quantization scale and zero_point but got {_quoted(a)} vs {_quoted(b)}"
        )


def verify_q_per_axis_scale_and_zero_point(a: Attribute, b: Attribute) -> None:
    """upstream's verifyQPerAxisScaleAndZeroPointConstraints."""
    qa, qb = _quant(a, True), _quant(b, True)
    if (
        qa
        and qb
        and (qa.params.scales != qb.params.scales or qa.params.zero_points != qb.params.zero_points)
    ):
        raise InferError(
            f"expect same quantization scales and zero_points but got {_quoted(a)} vs {_quoted(b)}"
        )


def verify_broadcast_in_dim(operand: Attribute, dims: Sequence[int], result: Attribute) -> None:
    """upstream's verifyBroadcastInDimOp, in its order and words."""
    # broadcast_in_dim_c1
    verify_q_per_tensor_scale_and_zero_point(operand, result)
    o, r = _shape(operand), _shape(result)
    # broadcast_in_dim_c2
    if o is not None and len(dims) != len(o):
        raise InferError(
            f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({len(o)})"
        )
    # broadcast_in_dim_c4
    if len(set(dims)) != len(dims):
        raise InferError("broadcast_dimensions should not have duplicates")
    if r is None:
        return
    for i, d in enumerate(dims):
        # broadcast_in_dim_c3
        if d < 0 or d >= len(r):
            raise InferError(
                f"broadcast_dimensions contains invalid value {d} for result with rank {len(r)}"
            )
        # broadcast_in_dim_c5
        if o is not None and not is_dynamic(o[i]) and o[i] != 1 and o[i] != r[d]:
            raise InferError(
                f"size of operand dimension {i} ({o[i]}) is not equal to 1 or size of result "
                f"dimension {d} ({_dim_text(r[d])})"
            )
    # broadcast_in_dim_c6
    _verify_broadcast_quantization(operand, dims, result)


def _verify_broadcast_quantization(
    operand: Attribute, dims: Sequence[int], result: Attribute
) -> None:
    """upstream's verifyBroadcastInDimOpQuantConstraints (when the result is per-axis quantized)."""
    o, r = _shape(operand), _shape(result)
    if r is None:
        return
    qr, qo = _quant(result, True), _quant(operand, True)
    if qr is not None and qo is not None and o is not None:
        od, rd = qo.params.quantized_dimension, qr.params.quantized_dimension
        assert od is not None and rd is not None
        if od < len(dims) and rd != dims[od]:
            raise InferError(
                f"result quantization_dimension {rd} not same as broadcast_dimensions[{od}] = "
                f"{dims[od]}"
            )
        # (here rd == dims[od], which broadcast_in_dim_c3 keeps inside the result's rank)
        if od < len(o) and o[od] == 1:
            # (the ODS type constraints checked first give a static quantized dimension one
            # scale per element: upstream's IsValidQuantizedDimension)
            so, zo = qo.params.scales[0], qo.params.zero_points[0]
            for i in range(max(r[rd], 0)):
                sr, zr = qr.params.scales[i], qr.params.zero_points[i]
                if sr != so:
                    raise InferError(
                        f"mismatch result scale {i} ({_double(sr)}) and operand scale 0 "
                        f"({_double(so)})"
                    )
                if zr != zo:
                    raise InferError(
                        f"mismatch result zero_point {i} ({zr}) and operand zero_point 0 ({zo})"
                    )


def _double(x: float) -> str:
    """A double as llvm::raw_ostream prints it (`%e`)."""
    return f"{x:e}"


def verify_reshape(operand: Attribute, result: Attribute) -> None:
    """upstream's verifyReshapeOp: with static shapes, as many elements on both sides (reshape_c2),
    then the quantization constraints (reshape_c1, reshape_c3)."""
    o, r = _shape(operand), _shape(result)
    if o is None or r is None or any(is_dynamic(d) for d in (*o, *r)):
        return
    if _prod(r) != _prod(o):
        raise InferError(
            f"number of output elements ({_prod(r)}) doesn't match expected number of elements "
            f"({_prod(o)})"
        )
    if isinstance(_elem(operand), UniformQuantizedType) or isinstance(
        _elem(result), UniformQuantizedType
    ):
        verify_reshape_quantization(operand, result)


def verify_reshape_quantization(operand: Attribute, result: Attribute) -> None:
    """upstream's verifyReshapeOpQuantizationConstraints (reshape and dynamic_reshape)."""
    # dynamic_reshape_c1, reshape_c1
    verify_q_per_tensor_scale_and_zero_point(operand, result)
    verify_q_per_axis_scale_and_zero_point(operand, result)
    # dynamic_reshape_c3, reshape_c3
    qo, qr = _quant(operand, True), _quant(result, True)
    o, r = _shape(operand), _shape(result)
    if qo is None or qr is None or o is None or r is None:
        return
    od, rd = qo.params.quantized_dimension, qr.params.quantized_dimension
    assert od is not None and rd is not None
    if od >= len(o) or rd >= len(r):
        return
    if not is_dynamic(o[od]) and not is_dynamic(r[rd]) and o[od] != r[rd]:
        raise InferError(
            "expect same quantization dimension size for operand and result "
            f"{_quoted(operand)} and {_quoted(result)}"
        )
    if not any(is_dynamic(d) for d in (*o, *r)):
        before_o, before_r = _prod(o[:od]), _prod(r[:rd])
        if before_o != before_r:
            raise InferError(
                "product of dimensions before quantization dimension must match between operand "
                f"and result for {before_o} and {before_r}"
            )


# ------------------------------------------------------------------ reverse, transpose (verify)
def verify_reverse(operand: Attribute, dims: Sequence[int]) -> None:
    """upstream's verifyReverseOp (after the inference check)."""
    # reverse_c2
    if len(set(dims)) != len(dims):
        raise InferError(f"dimensions should be unique. Got: {_join(dims)}")
    o = _shape(operand)
    for d in dims:
        # reverse_c3
        if d < 0:
            raise InferError(f"all dimensions should be non-negative. Got dimension: {d}.")
        if o is not None and d >= len(o):
            raise InferError(f"all dimensions should be between [0, {len(o)}). Got dimension: {d}.")


def verify_transpose(operand: Attribute, permutation: Sequence[int], result: Attribute) -> None:
    """upstream's verifyTransposeOp (after the inference check)."""
    # transpose_c1
    verify_q_per_tensor_scale_and_zero_point(operand, result)
    verify_q_per_axis_scale_and_zero_point(operand, result)
    # transpose_c4
    qr, qo = _quant(result, True), _quant(operand, True)
    if qr is not None and qo is not None:
        rd, od = qr.params.quantized_dimension, qo.params.quantized_dimension
        assert rd is not None
        if rd < len(permutation) and od != permutation[rd]:
            raise InferError(
                f"operand quantization_dimension {od} is not same as permutation[{rd}] = "
                f"{permutation[rd]}"
            )


# ------------------------------------------------------ the ops with shape operands (verified)
def _element_types_compatible_unless_quantized(operand: Attribute, result: Attribute) -> None:
    """dynamic_broadcast_in_dim_c1, dynamic_reshape_c1 (quantized types are checked later)."""
    from stablehlo_py.ir.infer.shapes import element_type_compatible

    quantized = isinstance(_elem(operand), UniformQuantizedType) or isinstance(
        _elem(result), UniformQuantizedType
    )
    if not quantized and not element_type_compatible(operand, result):
        raise InferError(
            "expects operand and result to have compatible element type. Got: "
            f"{_quoted(operand)} and {_quoted(result)}"
        )


def verify_shape_operand_compatible(shape: tuple[int, ...] | None, result: Attribute) -> None:
    """upstream's verifyShapeOperandIsCompatibleWithResultType; `shape` is the shape operand's
    constant value (None when it is not a constant)."""
    from stablehlo_py.ir.infer.shapes import is_compatible

    if shape is None or _shape(result) is None:
        return
    # a negative size (even -1) is no shape: upstream's isCompatibleForHloTypeInference refuses it
    if any(d < 0 for d in shape) or not is_compatible(tensor_type(_elem(result), shape), result):
        raise InferError(
            f"output shape [{_join(shape)}] is incompatible with return type of operation "
            f"{_quoted(result)}"
        )


def verify_iota(dim: int, result: Attribute) -> None:
    """upstream's verifyIotaOp."""
    r = _shape(result)
    if r is None:
        return
    if len(r) == 0:
        raise InferError("does not support scalars.")
    # iota_c1
    if dim >= len(r):
        raise InferError("iota dimension cannot go beyond the output rank.")


def verify_dynamic_iota(shape: tuple[int, ...] | None, dim: int, result: Attribute) -> None:
    """upstream's verifyDynamicIotaOp."""
    r = _shape(result)
    # dynamic_iota_c1
    if r is not None and dim >= len(r):
        raise InferError("iota dimension cannot go beyond the output rank.")
    # dynamic_iota_c2
    verify_shape_operand_compatible(shape, result)


def verify_dynamic_broadcast_in_dim(
    operand: Attribute,
    shape: tuple[int, ...] | None,
    dims: Sequence[int],
    expanding: Sequence[int] | None,
    nonexpanding: Sequence[int] | None,
    result: Attribute,
) -> None:
    """upstream's verifyDynamicBroadcastInDimOp; `shape` is the output_dimensions operand's
    constant value (None when it is not a constant)."""
    # dynamic_broadcast_in_dim_c1
    _element_types_compatible_unless_quantized(operand, result)
    o, r = _shape(operand), _shape(result)
    if o is None or r is None:
        return
    # dynamic_broadcast_in_dim_c2
    if len(dims) != len(o):
        raise InferError(
            f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({len(o)})"
        )
    # dynamic_broadcast_in_dim_c3
    if len(r) < len(o):
        raise InferError(f"result rank ({len(r)}) is less than operand rank ({len(o)})")
    # dynamic_broadcast_in_dim_c4
    if len(set(dims)) != len(dims):
        raise InferError("broadcast_dimensions should not have duplicates")
    # dynamic_broadcast_in_dim_c5
    for i, d in enumerate(dims):
        if d < 0 or d >= len(r):
            raise InferError(
                f"broadcast_dimensions contains invalid value {d} for result with rank {len(r)}"
            )
        if o[i] != 1 and not _compatible_dims(o[i], r[d]):
            raise InferError(
                f"size of operand dimension {i} ({_dim_text(o[i])}) is not compatible with size "
                f"of result dimension {d} ({_dim_text(r[d])})"
            )
    # dynamic_broadcast_in_dim_c7
    verify_shape_operand_compatible(shape, result)
    hints = list(expanding or ()) + list(nonexpanding or ())
    # dynamic_broadcast_in_dim_c8
    if len(set(hints)) != len(hints):
        raise InferError("duplicate expansion hint for at least one operand dimension")
    # dynamic_broadcast_in_dim_c9, dynamic_broadcast_in_dim_c10 (upstream walks a hash set)
    for i in hints:
        if i < 0 or i >= len(o):
            raise InferError(
                f"hint for expanding dimension {i} does not refer to a valid operand dimension"
            )
    if shape is not None and not any(is_dynamic(d) for d in o):
        for i, d in enumerate(dims):
            if d < len(shape) and o[i] != 1 and o[i] != shape[d]:
                raise InferError(
                    f"size of operand dimension {i} ({o[i]}) is not equal to 1 or value of shape "
                    f"at index {d} ({shape[d]})"
                )
    # dynamic_broadcast_in_dim_c6
    _verify_broadcast_quantization(operand, dims, result)


def verify_dynamic_reshape(
    operand: Attribute, shape_type: Attribute, shape: tuple[int, ...] | None, result: Attribute
) -> None:
    """upstream's verifyDynamicReshapeOp; `shape` is the output_shape operand's constant value."""
    # dynamic_reshape_c1
    _element_types_compatible_unless_quantized(operand, result)
    o, r = _shape(operand), _shape(result)
    # dynamic_reshape_c2
    if (
        o is not None
        and r is not None
        and not any(is_dynamic(d) for d in (*o, *r))
        and _prod(r) != _prod(o)
    ):
        raise InferError(
            f"number of output elements ({_prod(r)}) doesn't match expected number of "
            f"elements ({_prod(o)})"
        )
    # dynamic_reshape_c4
    verify_shape_operand_compatible(shape, result)
    st = _shape(shape_type)
    if st is not None and r is not None and len(st) == 1 and st[0] != len(r):
        raise InferError(
            "result should have a rank equal to the number of elements in output_shape"
        )
    if (
        shape is not None
        and o is not None
        and not any(is_dynamic(d) for d in o)
        and _prod(o) != _prod(shape)
    ):
        raise InferError(
            "output_shape is incompatible with input type of operation: input has "
            f"{_prod(o)} elements, but output_shape has {_prod(shape)}"
        )
    # dynamic_reshape_c1, dynamic_reshape_c3
    if isinstance(_elem(operand), UniformQuantizedType) or isinstance(
        _elem(result), UniformQuantizedType
    ):
        verify_reshape_quantization(operand, result)


def verify_real_dynamic_slice(
    operand: Attribute, start: Attribute, limit: Attribute, strides: Attribute
) -> None:
    """upstream's verifyRealDynamicSliceOp."""
    o = _shape(operand)
    if o is None:
        return
    for what, t in (("start_indices", start), ("limit_indices", limit), ("strides", strides)):
        s = _shape(t)
        if s is None:
            continue
        n = _prod(s)
        if any(is_dynamic(d) for d in s):
            n = INT64_MIN  # upstream's getNumElements of a dynamic shape
        if len(o) != n:
            raise InferError(
                f"has mismatched number of operand rank ({len(o)}) and {what} size ({n})"
            )


def verify_dynamic_pad(
    operand: Attribute,
    low_type: Attribute,
    low: tuple[int, ...] | None,
    high: tuple[int, ...] | None,
    interior: tuple[int, ...] | None,
    result: Attribute,
) -> None:
    """upstream's verifyDynamicPadOp; `low`, `high`, `interior` are the padding operands' constant
    values (None when not constants)."""
    o, lt = _shape(operand), _shape(low_type)
    if o is None:
        return
    # dynamic_pad_c2
    if lt is not None and len(lt) >= 1 and lt[0] != len(o):
        raise InferError(
            f"padding operands size ({_dim_text(lt[0])}) must match operand rank ({len(o)})"
        )
    # dynamic_pad_c3
    if interior is not None and any(i < 0 for i in interior):
        raise InferError(f"interior_padding must be non-negative, but got {_join(interior)}")
    r = _shape(result)
    if r is None or any(is_dynamic(d) for d in (*o, *r)) or interior is None:
        return
    if low is None or high is None:
        return
    # dynamic_pad_c4
    for i, (a, b, lo, hi, it) in enumerate(zip(o, r, low, high, interior)):
        want = a + lo + max(a - 1, 0) * it + hi
        if b != want:
            raise InferError(f"expected output dimension at index {i} to equal {want}, but got {b}")


# ------------------------------------------------------------------------------------ scatter
@rule("stablehlo.scatter")
def infer_scatter(inp: InferInput) -> list[Attribute]:
    """upstream's inferScatterOp: the inputs' shapes with the update computation's result element
    types (the inputs' when the region is empty)."""
    n = (len(inp.operand_types) - 1) // 2
    inputs = list(inp.operand_types[:n])
    acc: list[Attribute] = inputs
    if inp.regions and inp.regions[0].blocks:
        term = inp.regions[0].blocks[0].last_op
        if term is not None:
            acc = [v.type for v in term.operands]
    if len(acc) < n:
        acc = acc + inputs[len(acc) :]
    return [_same_shape(t, _elem(a)) for t, a in zip(inputs, acc)]


def verify_scatter(
    inputs: Sequence[Attribute],
    indices: Attribute,
    updates: Sequence[Attribute],
    g,  # type: ignore[no-untyped-def]  # ScatterDimensionNumbers
    region: Region,
) -> None:
    """upstream's verifyScatterOp (scatter's verifier, which upstream runs before the inference
    check), in its order and words.  Unranked types (which upstream's ODS no longer admits) skip the
    checks that need a rank."""
    from stablehlo_py.ir.infer.reduction import verify_reducer_shape

    uwd, iwd, ibd = (
        tuple(g.update_window_dims),
        tuple(g.inserted_window_dims),
        tuple(g.input_batching_dims),
    )
    ivd = int(g.index_vector_dim)
    # scatter_c1
    for t in inputs:
        if not _compatible_shapes(inputs[0], t):
            raise InferError("Not all inputs have compatible shapes.")
    # scatter_c3
    for t in updates:
        if not _compatible_shapes(updates[0], t):
            raise InferError("Not all updates have compatible shapes.")
    idx = _shape(indices)
    # scatter_c22
    if idx is not None:
        _check_dim_in_bounds(ivd, len(idx), "index_vector_dim", "rank-of('scatter_indices')")
    # scatter_c6, scatter_c23
    verify_reducer_shape(
        region.blocks.first,
        list(inputs),
        [tensor_type(_elem(u), ()) for u in updates],
        (),
    )
    if idx is None:
        return
    expanded = list(idx) + ([1] if len(idx) == ivd else [])
    # scatter_c4
    expected_rank = len(expanded) - 1 + len(uwd)
    for u in updates:
        us = _shape(u)
        if us is not None and len(us) != expected_rank:
            raise InferError(
                f"expects updates tensor must be of rank {expected_rank} ( == "
                "rank-of('scatter_indices') - 1 + size-of('update_window_dims'), where "
                "'scatter_indices' is expanded by a trailing 1 dimension if 'index_vector_dim' == "
                f"rank-of('scatter_indices')), but got {len(us)}."
            )
    # scatter_c2, scatter_c7...scatter_c21
    for t, u in zip(inputs, updates):
        _validate_scatter_dimension_numbers(_shape(t), expanded, _shape(u), g)
    for t, u in zip(inputs, updates):
        os_, us = _shape(t), _shape(u)
        if os_ is None or us is None:
            continue
        max_slice = [z for d, z in enumerate(os_) if d not in iwd and d not in ibd]
        for k, d in enumerate(uwd):
            if k >= len(max_slice) or is_dynamic(us[d]) or is_dynamic(max_slice[k]):
                continue
            # scatter_c4
            if us[d] > max_slice[k]:
                raise InferError(
                    "expects bounds of the window dimensions of updates to not exceed the bounds "
                    f"of the corresponding dimensions of operand. For dimension {d}, updates bound "
                    f"is {us[d]}, operand bound is {max_slice[k]}."
                )
        seen = 0
        for d in range(len(us)):
            if d in uwd:
                continue
            if seen == ivd:
                seen += 1
            # scatter_c4
            if not _compatible_dims(us[d], expanded[seen]):
                raise InferError(
                    "expects bounds of the scatter dimensions of updates to be same as the bounds "
                    "of the corresponding dimensions of scatter indices. For scatter dimension "
                    f"{d}, updates bound is {us[d]} , scatter_indices bound is {expanded[seen]}."
                )
            seen += 1


def _validate_scatter_dimension_numbers(
    o: tuple[int, ...] | None,
    idx: Sequence[int],
    u: tuple[int, ...] | None,
    g,  # type: ignore[no-untyped-def]
) -> None:
    """upstream's validateScatterDimensionNumbers; `idx` is the expanded scatter_indices shape."""
    uwd, iwd, ibd = (
        tuple(g.update_window_dims),
        tuple(g.inserted_window_dims),
        tuple(g.input_batching_dims),
    )
    sibd, sdod, ivd = (
        tuple(g.scatter_indices_batching_dims),
        tuple(g.scatter_dims_to_operand_dims),
        int(g.index_vector_dim),
    )
    # scatter_c2
    window_size = len(uwd) + len(iwd) + len(ibd)
    if o is not None and len(o) != window_size:
        raise InferError(
            "Expects rank-of operand to match size-of('update_window_dims') + "
            "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. "
            f"{window_size} but got {len(o)}."
        )
    # scatter_c7
    _check_dims_sorted(uwd, "update_window_dims", "scatter")
    _check_dims_unique(uwd, "update_window_dims", "scatter")
    # scatter_c8
    if u is not None:
        _check_dims_in_bounds(uwd, len(u), "update_window_dims", "rank-of('updates')")
    # scatter_c9
    _check_dims_distinct(iwd, ibd, "inserted_window_dims", "input_batching_dims")
    # scatter_c10
    _check_dims_sorted(iwd, "inserted_window_dims", "scatter")
    # scatter_c11
    if o is not None:
        _check_dims_in_bounds(iwd, len(o), "inserted_window_dims", "rank-of('operand')")
    # scatter_c12
    _check_dims_sorted(ibd, "input_batching_dims", "scatter")
    # scatter_c13
    if o is not None:
        _check_dims_in_bounds(ibd, len(o), "input_batching_dims", "rank-of('operand')")
    # scatter_c14
    _check_dims_unique(sibd, "scatter_indices_batching_dims", "scatter")
    # scatter_c15
    _check_dims_in_bounds(
        sibd, len(idx), "scatter_indices_batching_dims", "rank-of('scatter_indices')"
    )
    # scatter_c16
    if ivd in sibd:
        raise InferError(
            f"expects scatter_indices_batching_dims not to include index_vector_dim {ivd}."
        )
    # scatter_c17
    if len(ibd) != len(sibd):
        raise InferError(
            "input_batching_dims and scatter_indices_batching_dims should have the same size."
        )
    # scatter_c18
    if o is not None:
        for i, (a, b) in enumerate(zip(ibd, sibd)):
            if not _compatible_dims(o[a], idx[b]):
                raise InferError(
                    f"input_batching_dims[{i}] and scatter_indices_batching_dims[{i}] must have "
                    f"compatible sizes, but got {o[a]} and {idx[b]}."
                )
    # scatter_c19 (`idx` is expanded: an implied index vector dimension has bound 1)
    bound = idx[ivd]
    if not is_dynamic(bound) and len(sdod) != bound:
        raise InferError(
            f"Scatter op has {len(sdod)} elements in scatter_dims_to_operand_dims and the bound "
            f"of dimension index_vector_dim={ivd} of scatter_indices is {bound}. These two "
            "numbers must be equal."
        )
    # scatter_c20
    _check_dims_distinct(sdod, ibd, "scatter_dims_to_operand_dims", "input_batching_dims")
    # scatter_c21
    if o is not None:
        _check_dims_in_bounds(sdod, len(o), "scatter_dims_to_operand_dims", "rank-of('operand')")


# ----------------------------------------------------------------------- dimension sizes, tuples
@rule("stablehlo.get_dimension_size")
def infer_get_dimension_size(inp: InferInput) -> list[Attribute]:
    _verify_dim_in_bounds(inp.operand_types[0], _int(inp.attr("dimension")))
    return [tensor_type(i32, ())]


@rule("stablehlo.set_dimension_size")
def infer_set_dimension_size(inp: InferInput) -> list[Attribute]:
    ot, st = inp.operand_types[0], inp.operand_types[1]
    dim = _int(inp.attr("dimension"))
    ss = _shape(st)
    if ss is not None and len(ss) != 0:
        raise InferError("size operand should be of rank-0")
    _verify_dim_in_bounds(ot, dim)
    s = _shape(ot)
    if s is None:
        return [UnrankedTensorType(_elem(ot))]
    shape = list(s)
    b = bounds_of(ot)
    bounds = list(b) if b else [DYN] * len(s)
    if not is_dynamic(shape[dim]):
        bounds[dim] = shape[dim]
    shape[dim] = DYN
    values = constant_ints(_operand(inp, 1))
    if values and values[0] == bounds[dim]:
        shape[dim] = values[0]
        bounds[dim] = DYN
    return [ranked(shape, _elem(ot), bounds)]


@rule("stablehlo.get_tuple_element")
def infer_get_tuple_element(inp: InferInput) -> list[Attribute]:
    t = inp.operand_types[0]
    if not isinstance(t, TupleType):
        raise InferError("failed to infer returned types")
    index = _int(inp.attr("index"))
    elems = t.types.data
    if index < 0:  # upstream's ODS attribute constraint, checked before inference
        raise InferError(
            "attribute 'index' failed to satisfy constraint: 32-bit signless integer attribute "
            "whose value is non-negative",
            invariant=True,
        )
    # get_tuple_element_c1
    if index >= len(elems):
        raise InferError(f"index {index} is out of bounds of operand with size {len(elems)}")
    return [elems[index]]


@rule("stablehlo.tuple")
def infer_tuple(inp: InferInput) -> list[Attribute]:
    return [TupleType(ArrayAttr(tuple(inp.operand_types)))]


# ------------------------------------------------------------------------------- pad, slice, ...
@rule("stablehlo.pad")
def infer_pad(inp: InferInput) -> list[Attribute]:
    ot = inp.operand_types[0]
    low = ints(inp.attr("edge_padding_low"))
    high = ints(inp.attr("edge_padding_high"))
    interior = ints(inp.attr("interior_padding"))
    s = _shape(ot)
    if s is None:
        return [UnrankedTensorType(_elem(ot))]
    rank = len(s)
    # pad_c2
    if len(low) != rank:
        raise InferError(f"edge_padding_low length ({len(low)}) must match operand rank ({rank})")
    if len(high) != rank or len(interior) != rank:
        # upstream's ODS AllMatchSameOperatorTrait, checked before inference
        raise InferError(
            "failed to verify that all of {edge_padding_low, edge_padding_high, interior_padding} "
            "have same size",
            invariant=True,
        )
    ib = bounds_of(ot)
    shape = [DYN] * rank
    bounds = [DYN] * len(ib)
    for i in range(rank):
        # pad_c3
        if interior[i] < 0:
            raise InferError(f"Interior padding cannot be negative: {interior[i]}")
        static_dim = not is_dynamic(s[i])
        static_bound = bool(ib) and not is_dynamic(ib[i])
        if static_dim or static_bound:
            v = s[i] if static_dim else ib[i]
            r = v + low[i] + high[i] + max(v - 1, 0) * interior[i]
            # pad_c4
            if r < 0:
                what = "size" if static_dim else "bound"
                raise InferError(f"Padding result in negative {what} for dimension {i}")
            if static_dim:
                shape[i] = r
            else:
                bounds[i] = r
    # pad_c1
    return [_with_bounds(ot, shape, _elem(ot), bounds)]


@rule("stablehlo.reverse")
def infer_reverse(inp: InferInput) -> list[Attribute]:
    return [inp.operand_types[0]]


@rule("stablehlo.slice")
def infer_slice(inp: InferInput) -> list[Attribute]:
    ot = inp.operand_types[0]
    start = ints(inp.attr("start_indices"))
    limit = ints(inp.attr("limit_indices"))
    strides = ints(inp.attr("strides"))
    if not len(start) == len(limit) == len(strides):
        # upstream's ODS AllMatchSameOperatorTrait (slice_c2), checked before inference
        raise InferError(
            "failed to verify that all of {start_indices, limit_indices, strides} have same size",
            invariant=True,
        )
    s = _shape(ot)
    if s is None:
        return [UnrankedTensorType(_elem(ot))]
    rank = len(s)
    # slice_c2
    if len(start) != rank:
        raise InferError(
            f"the number of elements in start_indices ({len(start)}) does not match the rank of the operand ({rank})"
        )
    ib = bounds_of(ot)
    shape = [DYN] * rank
    for i in range(rank):
        # slice_c3
        if start[i] < 0:
            raise InferError(f"negative start index {start[i]} in dimension {i}")
        static_dim = not is_dynamic(s[i])
        static_bound = bool(ib) and not is_dynamic(ib[i])
        if static_dim or static_bound:
            v = s[i] if static_dim else ib[i]
            what = "size" if static_dim else "bound"
            if limit[i] > v:
                raise InferError(
                    f"limit index {limit[i]} is larger than dimension {what} {v} in dimension {i}"
                )
        if start[i] > limit[i]:
            raise InferError(
                f"start index {start[i]} is larger than limit index {limit[i]} in dimension {i}"
            )
        # slice_c4
        if strides[i] <= 0:
            raise InferError(f"stride must be positive but got {strides[i]} in dimension {i}")
        # slice_c5
        shape[i] = -((start[i] - limit[i]) // strides[i])
    # slice_c1: upstream's result bounds are all unbounded (the encoding is dropped)
    return [_with_bounds(ot, shape, _elem(ot), [DYN] * len(ib))]


@rule("stablehlo.transpose")
def infer_transpose(inp: InferInput) -> list[Attribute]:
    ot = inp.operand_types[0]
    perm = ints(inp.attr("permutation"))
    s = _shape(ot)
    if s is None:
        return [UnrankedTensorType(_elem(ot))]
    rank = len(s)
    if len(perm) != rank:
        raise InferError(
            f"TransposeOp operand rank {rank} does not match permutation size {len(perm)}"
        )
    if sorted(perm) != list(range(rank)):
        raise InferError(
            f"attribute permutation must be a permutation of [{_join(range(rank))}] but got {_join(perm)}"
        )
    ib = bounds_of(ot)
    shape = [s[d] for d in perm]
    bounds = [ib[d] for d in perm] if ib else []
    return [_with_bounds(ot, shape, _elem(ot), bounds)]


# --------------------------------------------------------------------- select, clamp, complex
@rule("stablehlo.select")
def infer_select(inp: InferInput) -> list[Attribute]:
    pt, tt, ft = inp.operand_types[0], inp.operand_types[1], inp.operand_types[2]
    # select_c2
    if not (_compatible_shapes(tt, ft) and _same_el_type([tt, ft], ignore_fp_precision=False)):
        raise InferError("requires compatible types for non-predicate operands")
    # select_c1
    ps = _shape(pt)
    if ps != () and not _compatible_shapes(pt, tt):
        raise InferError("requires the same shape for all operands")
    return [infer_most_specific_type([tt, ft])]


@rule("stablehlo.clamp")
def infer_clamp(inp: InferInput) -> list[Attribute]:
    mn, ot, mx = inp.operand_types[0], inp.operand_types[1], inp.operand_types[2]
    os_ = _shape(ot)
    for what, t in (("min", mn), ("max", mx)):
        ts = _shape(t)
        # clamp_c1, clamp_c2
        if not _compatible_shapes(t, ot) and ts != ():
            raise InferError(
                f"{what} shape [{_join(map(_dim_text, ts or ()))}] is not scalar and is not "
                f"compatible to operand shape [{_join(map(_dim_text, os_ or ()))}]"
            )
    # clamp_c4: upstream's ShapedTypeComponents(operand type) drops the encoding
    if os_ is None:
        return [ot]
    return [tensor_type(_elem(ot), os_)]


@rule("stablehlo.complex")
def infer_complex(inp: InferInput) -> list[Attribute]:
    lt = inp.operand_types[0]
    # complex_c2, complex_c3
    return [_same_shape(lt, ComplexType(_elem(lt)))]  # type: ignore[arg-type]
