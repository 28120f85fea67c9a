"""Data-movement ops: thin wrappers over `stablehlo_py/semantics/data_movement.py` (spec.md "Data
movement").

Each impl reads the op's attributes with the spec's names and calls the semantics function; result
shapes come from the op's (static) result types.  The hot ops are compiled: their attributes and
static result shapes are decoded once per op (`registry.compiler`), and where the semantics is one
numpy call (reshape, transpose, slice) the step is that call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import Step, compiler, constant_step, impl
from stablehlo_py.semantics import conversion as conv
from stablehlo_py.semantics import data_movement as dm
from xdsl.dialects.builtin import TensorType

from stablehlo_py.errors import InterpreterError


@compiler("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(op: Any) -> Step:
    """Static shapes: the operand's dimensions ordered and placed once (as
    `dm.broadcast_in_dim` does per call), then one broadcasting copy into a new array."""
    dims = A.ints(op, "broadcast_dimensions", [])
    shape = A.static_shape(op.results[0].type)
    broadcast_in_dim = dm.broadcast_in_dim
    if shape is not None:

        def run(operand: Any) -> Any:
            return broadcast_in_dim(operand, dims, shape)

        in_shape = A.static_shape(op.operands[0].type)
        if in_shape is None or dims is None or len(dims) != len(in_shape):
            return Step(run)
        order = tuple(sorted(range(len(dims)), key=lambda d: dims[d]))
        view = [1] * len(shape)
        for d in order:
            if not 0 <= dims[d] < len(shape):
                return Step(run)
            view[dims[d]] = in_shape[d]
        view_shape = tuple(view)
        if any(v not in (1, n) for v, n in zip(view_shape, shape, strict=True)):
            return Step(run)  # fails as the semantics function does
        moves = order != tuple(range(len(order)))
        ndarray, empty = np.ndarray, np.empty

        def run_static(operand: Any) -> Any:
            if type(operand) is not ndarray or operand.shape != in_shape:
                return broadcast_in_dim(operand, dims, shape)
            moved = operand.transpose(order) if moves else operand
            out = empty(shape, dtype=operand.dtype)
            out[...] = moved.reshape(view_shape)
            return out

        return Step(run_static)

    def run_dynamic(operand: Any) -> Any:
        operand = np.asarray(operand)
        derived = lambda: _broadcast_result_dims(op, operand, dims)
        return broadcast_in_dim(operand, dims, A.result_shape(op, 0, derived))

    return Step(run_dynamic)


def _broadcast_result_dims(
    op: Any, operand: np.ndarray, dims: list[int]
) -> list[int | None] | None:
    """A dynamic result type's sizes that the operand fixes: result dimension `dims[j]` is the
    operand's dimension `j` unless that is 1 (which broadcasts to any size)."""
    t = op.results[0].type
    rank = len(t.get_shape()) if hasattr(t, "get_shape") else None
    if rank is None:
        return None
    out: list[int | None] = [None] * rank
    for j, d in enumerate(dims):
        if 0 <= d < rank and j < operand.ndim and operand.shape[j] != 1:
            out[d] = int(operand.shape[j])
    return out


@impl("stablehlo.broadcast")
def _broadcast(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Deprecated `broadcast`: `broadcast_sizes` dimensions prepended to the operand's."""
    operand = np.asarray(args[0])
    sizes = A.ints(op, "broadcast_sizes", [])
    shape = tuple(sizes) + operand.shape
    dims = list(range(len(sizes), len(shape)))
    return [dm.broadcast_in_dim(operand, dims, shape)]


@impl("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.dynamic_broadcast_in_dim(args[0], args[1], A.ints(op, "broadcast_dimensions", []))]


@compiler("stablehlo.concatenate")
def _concatenate(op: Any) -> Step:
    dimension = A.int_(op, "dimension")
    concatenate = np.concatenate

    def run(*inputs: Any) -> Any:
        return concatenate(inputs, axis=dimension)

    return Step(run)


@compiler("stablehlo.slice")
def _slice(op: Any) -> Step:
    starts = A.ints(op, "start_indices")
    limits = A.ints(op, "limit_indices")
    strides = A.ints(op, "strides")
    if starts is None or limits is None or strides is None:
        slice_ = dm.slice

        def run_attrs(operand: Any) -> Any:
            return slice_(operand, starts, limits, strides)  # type: ignore[arg-type]

        return Step(run_attrs)
    index = tuple(slice(s, e, st) for s, e, st in zip(starts, limits, strides, strict=True))
    asarray = np.asarray

    def run(operand: Any) -> Any:
        return asarray(operand)[index]

    return Step(run)


@impl("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.real_dynamic_slice(args[0], args[1], args[2], args[3])]


def _clamp_starts(uppers: tuple[int, ...]) -> Any:
    """`dm._clamped_starts` for a static shape: each start index (a 0-d integer tensor) clamped
    into `[0, upper]` with Python ints (unsigned values above int64's range clamp to `upper`,
    as their int64 saturation does).  None: the general function decides (and reports)."""
    negative = any(u < 0 for u in uppers)

    def clamp(start_indices: tuple[Any, ...]) -> list[int] | None:
        if len(start_indices) != len(uppers) or negative:
            return None
        out = []
        for s, upper in zip(start_indices, uppers, strict=True):
            if type(s) is not np.ndarray or s.ndim or s.dtype.kind not in "iu":
                return None
            v = int(s)
            out.append(0 if v < 0 else min(v, upper))
        return out

    return clamp


@compiler("stablehlo.dynamic_slice")
def _dynamic_slice(op: Any) -> Step:
    sizes = A.ints(op, "slice_sizes")
    dynamic_slice = dm.dynamic_slice

    def run(operand: Any, *start_indices: Any) -> Any:
        return dynamic_slice(operand, start_indices, sizes)  # type: ignore[arg-type]

    shape = A.static_shape(op.operands[0].type)
    if shape is None or sizes is None or len(sizes) != len(shape):
        return Step(run)
    clamp = _clamp_starts(tuple(n - k for n, k in zip(shape, sizes, strict=True)))
    ndarray = np.ndarray

    def run_static(operand: Any, *start_indices: Any) -> Any:
        starts = clamp(start_indices)
        if starts is None or type(operand) is not ndarray or operand.shape != shape:
            return dynamic_slice(operand, start_indices, sizes)  # type: ignore[arg-type]
        return operand[tuple(slice(s, s + k) for s, k in zip(starts, sizes, strict=True))]

    return Step(run_static)


def _dynamic_update_slice_step(operand: Any, update: Any, *start_indices: Any) -> Any:
    return dm.dynamic_update_slice(operand, update, start_indices)


@compiler("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(op: Any) -> Step:
    """Static shapes: the clamping bounds decided once (see `_clamp_starts`)."""
    shape, update_shape = A.static_shape(op.operands[0].type), A.static_shape(op.operands[1].type)
    if shape is None or update_shape is None or len(shape) != len(update_shape):
        return Step(_dynamic_update_slice_step)
    uppers = tuple(n - k for n, k in zip(shape, update_shape, strict=True))
    clamp = _clamp_starts(uppers)
    ndarray = np.ndarray
    if len(shape) == 1 and uppers[0] >= 0:  # a vector (a scan's outputs): one index, no loop
        (upper,), (k,) = uppers, update_shape

        def run_1d(operand: Any, update: Any, *starts: Any) -> Any:
            start = starts[0] if len(starts) == 1 else None
            if (
                type(operand) is ndarray
                and type(update) is ndarray
                and type(start) is ndarray
                and start.ndim == 0
                and start.dtype.kind in "iu"
                and operand.shape == shape
                and update.shape == update_shape
            ):
                v = int(start)
                v = 0 if v < 0 else (upper if v > upper else v)
                result = operand.copy()
                result[v : v + k] = update
                return result
            return run(operand, update, *starts)

    def run(operand: Any, update: Any, *start_indices: Any) -> Any:
        starts = clamp(start_indices)
        if (
            starts is None
            or type(operand) is not ndarray
            or type(update) is not ndarray
            or operand.shape != shape
            or update.shape != update_shape
        ):
            return dm.dynamic_update_slice(operand, update, start_indices)
        result = operand.copy()
        region = tuple(slice(s, s + k) for s, k in zip(starts, update_shape, strict=True))
        result[region] = update
        return result

    return Step(run_1d if len(shape) == 1 and uppers[0] >= 0 else run)


def _gather_dims(op: Any) -> dict[str, Any]:
    d = A.struct(op, "dimension_numbers")
    return {
        "offset_dims": A.field(d, "offset_dims", []),
        "collapsed_slice_dims": A.field(d, "collapsed_slice_dims", []),
        "operand_batching_dims": A.field(d, "operand_batching_dims", []),
        "start_indices_batching_dims": A.field(d, "start_indices_batching_dims", []),
        "start_index_map": A.field(d, "start_index_map", []),
        "index_vector_dim": A.field(d, "index_vector_dim", 0),
        "indices_are_sorted": A.bool_(op, "indices_are_sorted"),
    }


@compiler("stablehlo.gather")
def _gather(op: Any) -> Step:
    attrs = {"slice_sizes": A.ints(op, "slice_sizes"), **_gather_dims(op)}
    gather = dm.gather

    def run(operand: Any, start_indices: Any) -> Any:
        return gather(operand, start_indices, **attrs)

    return Step(run)


@impl("stablehlo.dynamic_gather")
def _dynamic_gather(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.dynamic_gather(args[0], args[1], args[2], **_gather_dims(op))]


@compiler("stablehlo.scatter")
def _scatter(op: Any) -> Step:
    """Dimension numbers, the region's argument and result types and the body's kind decoded once;
    the body is the op's compiled region."""
    from stablehlo_py.interpreter.evaluator import region_kind
    from stablehlo_py.semantics.regions import make_body

    region = op.regions[0]
    types = A.region_arg_dtypes(region)
    kind = region_kind(region)
    d = A.struct(op, "scatter_dimension_numbers")
    attrs = {
        "update_window_dims": A.field(d, "update_window_dims", []),
        "inserted_window_dims": A.field(d, "inserted_window_dims", []),
        "scatter_dims_to_operand_dims": A.field(d, "scatter_dims_to_operand_dims", []),
        "index_vector_dim": A.field(d, "index_vector_dim", 0),
        "input_batching_dims": A.field(d, "input_batching_dims", []),
        "scatter_indices_batching_dims": A.field(d, "scatter_indices_batching_dims", []),
        "indices_are_sorted": A.bool_(op, "indices_are_sorted"),
        "unique_indices": A.bool_(op, "unique_indices"),
    }
    result_dtypes = [A.result_dtype(op, i) for i in range(len(op.results))]
    scatter = dm.scatter

    def run(regions: tuple[Any, ...], *args: Any) -> list[Any]:
        n = (len(args) - 1) // 2
        inputs, indices, updates = args[:n], args[n], args[n + 1 :]
        # to_destination_type: inputs and updates take the element types of the region's arguments
        inputs = A.to_types(list(inputs), types[:n])
        updates = A.to_types(list(updates), types[n:])
        computation = regions[0]

        def body(*arrays: Any) -> tuple[Any, ...]:
            return tuple(computation(*arrays))

        results = scatter(
            inputs, indices, updates, update_computation=make_body(body, kind=kind), **attrs
        )
        return [_as(r, dt) for r, dt in zip(results, result_dtypes)]

    return Step(run, regions=True, multi=True)


def _as(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return x if x.dtype == dtype else conv.convert(x, dtype)


@compiler("stablehlo.iota")
def _iota(op: Any) -> Step:
    """A static iota is a constant (read-only, as constants are)."""
    dimension, dtype = A.int_(op, "iota_dimension"), A.result_dtype(op)
    if A.static_shape(op.results[0].type) is not None:
        value = dm.iota(dimension, A.result_shape(op), dtype)
        value.flags.writeable = False
        return constant_step(value)

    def run() -> Any:
        return dm.iota(dimension, A.result_shape(op), dtype)

    return Step(run)


@impl("stablehlo.dynamic_iota")
def _dynamic_iota(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.dynamic_iota(args[0], A.int_(op, "iota_dimension"), A.result_dtype(op))]


@compiler("stablehlo.pad")
def _pad(op: Any) -> Step:
    low, high = A.ints(op, "edge_padding_low"), A.ints(op, "edge_padding_high")
    interior = A.ints(op, "interior_padding")
    pad = dm.pad

    def run(operand: Any, padding_value: Any) -> Any:
        return pad(operand, padding_value, low, high, interior)  # type: ignore[arg-type]

    return Step(run)


@impl("stablehlo.dynamic_pad")
def _dynamic_pad(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.dynamic_pad(*args)]


@compiler("stablehlo.reshape")
def _reshape(op: Any) -> Step:
    shape = A.static_shape(op.results[0].type)
    if shape is not None:
        reshape, ndarray = np.reshape, np.ndarray

        def run(operand: Any) -> Any:
            if type(operand) is ndarray:  # what np.reshape calls, without its wrapper
                return operand.reshape(shape)
            return reshape(operand, shape)

        return Step(run)

    def run_dynamic(operand: Any) -> Any:
        operand = np.asarray(operand)
        derived = lambda: _reshape_result_dims(op, operand)
        return dm.reshape(operand, A.result_shape(op, 0, derived))

    return Step(run_dynamic)


def _reshape_result_dims(op: Any, operand: np.ndarray) -> list[int | None] | None:
    """A dynamic result type's one `?` size, fixed by the operand's element count."""
    t = op.results[0].type
    if not hasattr(t, "get_shape"):
        return None
    shape = [int(d) for d in t.get_shape()]
    unknown = [d for d, n in enumerate(shape) if n < 0]
    if len(unknown) != 1:
        return None
    known = int(np.prod([n for n in shape if n >= 0], dtype=np.int64))
    out: list[int | None] = [n if n >= 0 else None for n in shape]
    if known and operand.size % known == 0:
        out[unknown[0]] = operand.size // known
    return out


@impl("stablehlo.dynamic_reshape")
def _dynamic_reshape(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.dynamic_reshape(args[0], args[1])]


@compiler("stablehlo.reverse")
def _reverse(op: Any) -> Step:
    dimensions = A.ints(op, "dimensions", [])
    reverse = dm.reverse

    def run(operand: Any) -> Any:
        return reverse(operand, dimensions)  # type: ignore[arg-type]

    return Step(run)


@compiler("stablehlo.transpose")
def _transpose(op: Any) -> Step:
    permutation = A.ints(op, "permutation")
    if permutation is None:
        return Step(lambda operand: dm.transpose(operand, None))  # type: ignore[arg-type]
    transpose, ndarray = np.transpose, np.ndarray
    axes = tuple(permutation)

    def run(operand: Any) -> Any:
        if type(operand) is ndarray:  # what np.transpose calls, without its wrapper
            return operand.transpose(axes)
        return transpose(operand, permutation)

    return Step(run)


def _make_tuple(*elements: Any) -> tuple[Any, ...]:
    return elements


@compiler("stablehlo.tuple")
def _tuple(op: Any) -> Step:
    return Step(_make_tuple)


@compiler("stablehlo.get_tuple_element")
def _get_tuple_element(op: Any) -> Step:
    index = A.int_(op, "index")

    def run(t: Any) -> Any:
        if not isinstance(t, tuple):
            raise InterpreterError("get_tuple_element needs a tuple operand")
        return t[index]

    return Step(run)


@impl("stablehlo.get_dimension_size")
def _get_dimension_size(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [dm.get_dimension_size(args[0], A.int_(op, "dimension")).astype(A.result_dtype(op))]


@impl("stablehlo.set_dimension_size")
def _set_dimension_size(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """With a `?` result dimension the result has `size` elements along `dimension` (the
    operand's first ones); with a static one the data is unchanged (see the semantics)."""
    dim = A.int_(op, "dimension")
    out = dm.set_dimension_size(args[0], args[1], dim)
    t = op.results[0].type
    if isinstance(t, TensorType) and t.get_shape()[dim] < 0:
        out = np.take(out, np.arange(int(np.asarray(args[1]))), axis=dim)
    return [out]


@impl("stablehlo.torch_index_select")
def _torch_index_select(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """`torch.index_select` with batch dims: gather along `dim` with indices batched over the
    leading `batch_dims` dimensions (what upstream lowers it to)."""
    operand, index = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64)
    dim = A.int_(op, "dim")
    batch_dims = A.int_(op, "batch_dims", 0)
    if dim < 0:
        dim += operand.ndim
    if batch_dims < 0:
        batch_dims += index.ndim
    # upstream verifies neither attribute (torch_index_select has no verifier): checked here
    if not 0 <= dim < operand.ndim:
        raise InterpreterError(
            f"torch_index_select: dim = {A.int_(op, 'dim')} is out of range for an operand of rank {operand.ndim}"
        )
    if (
        not 0 <= batch_dims <= min(dim, index.ndim)
        or operand.shape[:batch_dims] != index.shape[:batch_dims]
    ):
        raise InterpreterError(
            f"torch_index_select: batch_dims = {A.int_(op, 'batch_dims', 0)} must count leading dimensions "
            f"shared by the operand {list(operand.shape)} and the index {list(index.shape)}, before dim"
        )
    return [_index_select(operand, index, dim, batch_dims)]


def _index_select(operand: np.ndarray, index: np.ndarray, dim: int, batch_dims: int) -> np.ndarray:
    batch_shape = index.shape[:batch_dims]
    idx_rest = index.shape[batch_dims:]
    # operand: batch..., middle (dims batch_dims..dim-1), dim, tail
    middle = operand.shape[batch_dims:dim]
    tail = operand.shape[dim + 1 :]
    grids = []
    nb, ni, nm, nt = len(batch_shape), len(idx_rest), len(middle), len(tail)
    rank = nb + nm + ni + nt
    out_shape = batch_shape + middle + idx_rest + tail
    for d in range(nb):
        shape = [1] * rank
        shape[d] = batch_shape[d]
        grids.append(np.arange(batch_shape[d]).reshape(shape))
    for k in range(nm):
        shape = [1] * rank
        shape[nb + k] = middle[k]
        grids.append(np.arange(middle[k]).reshape(shape))
    ishape = list(batch_shape) + [1] * nm + list(idx_rest) + [1] * nt
    grids.append(index.reshape(ishape))
    for k in range(nt):
        shape = [1] * rank
        shape[nb + nm + ni + k] = tail[k]
        grids.append(np.arange(tail[k]).reshape(shape))
    return operand[tuple(np.broadcast_to(g, out_shape) for g in grids)]


@impl("stablehlo.bitcast_convert")
def _bitcast_convert(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    # storage-level: quantized types bitcast through their storage type
    t = op.results[0].type
    static = isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())
    return [conv.bitcast_convert(args[0], dtype_of_type(t), A.result_shape(op) if static else None)]


@impl("stablehlo.reduce_precision")
def _reduce_precision(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [
        conv.reduce_precision(args[0], A.int_(op, "exponent_bits"), A.int_(op, "mantissa_bits"))
    ]
