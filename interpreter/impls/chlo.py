"""CHLO ops: the elementwise functions of `stablehlo_py/semantics/chlo.py`, the broadcasting
binary ops (numpy broadcasting, or `broadcast_dimensions` for rank broadcasting) over the StableHLO
semantics, and top_k, mulhi, ragged_dot, scan, constant, constant_like."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py import semantics as sem
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.linalg import contract
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.semantics import chlo as chlo_sem
from stablehlo_py.semantics import data_movement as dm
from stablehlo_py.interpreter.values import array_from_attr

from stablehlo_py.errors import InterpreterError

# chlo unary op -> semantics function
UNARY = {name: getattr(chlo_sem, name) for name in chlo_sem.UNARY_OPS}

# chlo binary (same shape) op -> semantics function
BINARY = {
    "next_after": chlo_sem.next_after,
    "polygamma": chlo_sem.polygamma,
    "zeta": chlo_sem.zeta,
}

# chlo.broadcast_<name> -> StableHLO / CHLO semantics function
BROADCAST = {
    "add": sem.add,
    "atan2": sem.atan2,
    "divide": sem.divide,
    "maximum": sem.maximum,
    "minimum": sem.minimum,
    "multiply": sem.multiply,
    "next_after": chlo_sem.next_after,
    "polygamma": chlo_sem.polygamma,
    "power": sem.power,
    "remainder": sem.remainder,
    "shift_left": sem.shift_left,
    "shift_right_arithmetic": sem.shift_right_arithmetic,
    "shift_right_logical": sem.shift_right_logical,
    "subtract": sem.subtract,
    "zeta": chlo_sem.zeta,
    "and": sem.and_,
    "or": sem.or_,
    "xor": sem.xor,
    "complex": sem.complex,
}


def _register_unary(name: str, fn: Any) -> None:
    @impl(f"chlo.{name}")
    def run(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        return [fn(args[0])]


def _register_binary(name: str, fn: Any) -> None:
    @impl(f"chlo.{name}")
    def run(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        return [fn(args[0], args[1])]


def broadcast_operands(op: Any, *values: Any) -> list[np.ndarray]:
    """CHLO's implicit broadcasting: with `broadcast_dimensions`, the lower-rank operand's
    dimensions map to those result dimensions; otherwise numpy (trailing-aligned) broadcasting."""
    arrays = [np.asarray(v) for v in values]
    bdims = A.ints(op, "broadcast_dimensions")
    shape = A.result_shape(op, 0, lambda: _broadcast_shape(arrays, bdims))
    if not shape and any(a.ndim for a in arrays):
        # a 0-d op of a region body evaluated on whole arrays (as a lowered quantized add in a
        # reduce_window body): elementwise over them
        return list(np.broadcast_arrays(*arrays))
    out = []
    for a in arrays:
        if a.shape == shape:
            out.append(a)
        elif bdims is not None and a.ndim < len(shape) and a.ndim == len(bdims):
            out.append(dm.broadcast_in_dim(a, bdims, shape))
        else:
            out.append(np.broadcast_to(a, shape))
    return out


def _broadcast_shape(arrays: list[np.ndarray], bdims: list[int] | None) -> list[int | None]:
    """The result shape CHLO's broadcasting gives `arrays` (for result types with `?`): each result
    dimension is the size of the operands' dimensions mapped to it that are not 1."""
    rank = max(a.ndim for a in arrays)
    sizes: list[set[int]] = [set() for _ in range(rank)]
    for a in arrays:
        if bdims is not None and a.ndim < rank and a.ndim == len(bdims):
            where = list(bdims)
        else:
            where = list(range(rank - a.ndim, rank))
        for d, n in zip(where, a.shape):
            sizes[d].add(int(n))
    out: list[int | None] = []
    for s in sizes:
        big = s - {1}
        if len(big) > 1:
            raise InterpreterError(
                f"operands of shapes {[list(a.shape) for a in arrays]} do not broadcast"
            )
        out.append(big.pop() if big else 1)
    return out


def _register_broadcast(name: str, fn: Any) -> None:
    @impl(f"chlo.broadcast_{name}")
    def run(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        return [fn(*broadcast_operands(op, *args))]


for _name, _fn in UNARY.items():
    _register_unary(_name, _fn)
for _name, _fn in BINARY.items():
    _register_binary(_name, _fn)
for _name, _fn in BROADCAST.items():
    _register_broadcast(_name, _fn)


@impl("chlo._asin_acos_kernel")
def _asin_acos_kernel(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """The complex `w` with `asin(z) = complex(atan2(z.real, w.real), sign(z.imag) * w.imag)`."""
    _, _, q, imag = chlo_sem._asin_acos_kernel(np.asarray(args[0]))
    return [sem.complex(q, imag)]


@impl("chlo.broadcast_compare")
def _broadcast_compare(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    lhs, rhs = broadcast_operands(op, *args)
    return [sem.compare(lhs, rhs, A.enum(op, "comparison_direction"), A.enum(op, "compare_type"))]


@impl("chlo.broadcast_select")
def _broadcast_select(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    shape = A.result_shape(op, 0, lambda: _broadcast_shape([np.asarray(a) for a in args], None))
    pred, on_true, on_false = (np.broadcast_to(np.asarray(a), shape) for a in args)
    return [sem.select(pred, on_true, on_false)]


@impl("chlo.constant")
def _constant(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [array_from_attr(A.attr(op, "value"))]


@impl("chlo.constant_like")
def _constant_like(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """A tensor shaped like the operand, filled with the scalar `value`."""
    value = A.get(op, "value")
    dtype = A.result_dtype(op)
    scalar = np.asarray(value).reshape(-1)[0] if isinstance(value, np.ndarray) else value
    return [np.full(np.shape(args[0]), scalar, dtype=dtype)]


@impl("chlo.top_k")
def _top_k(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """Always stable (equal elements by ascending index): what `is_stable = true` (the default)
    requires, and one of the orders `is_stable = false` allows."""
    values, indices = chlo_sem.top_k(args[0], A.int_(op, "k"))
    return [values, indices.astype(A.result_dtype(op, 1))]


@impl("chlo.mulhi")
def _mulhi(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return [chlo_sem.mulhi(args[0], args[1])]


# ------------------------------------------------------------------------------------ ragged_dot


def ragged_dot(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    *,
    lhs_batching_dimensions: list[int],
    rhs_batching_dimensions: list[int],
    lhs_contracting_dimensions: list[int],
    rhs_contracting_dimensions: list[int],
    lhs_ragged_dimensions: list[int],
    rhs_group_dimensions: list[int],
    result_element_type: Any,
) -> np.ndarray:
    """chlo.ragged_dot: the lhs ragged dimension is split into consecutive groups of
    `group_sizes`; group g multiplies `rhs`'s slice g (ragged non-contracting dimension), or
    contributes result slice g (ragged contracting dimension: the result gets a leading group
    dimension), or is an ordinary batch (ragged batch dimension).  Rows past the last group are
    zeros.  One masked dot_general per group (the loop runs over groups, not elements)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    sizes = np.asarray(group_sizes).astype(np.int64)
    lb, rb = list(lhs_batching_dimensions), list(rhs_batching_dimensions)
    lc, rc = list(lhs_contracting_dimensions), list(rhs_contracting_dimensions)
    (ragged,) = lhs_ragged_dimensions
    g = sizes.shape[-1]
    prefix = chlo_sem.ragged_prefix(ragged, lb, lc)
    ends = np.cumsum(sizes, axis=-1)
    starts = ends - sizes
    pos = dm.broadcast_in_dim(np.arange(lhs.shape[ragged]), [ragged], lhs.shape)

    def mask(k: int) -> np.ndarray:
        s, e = starts[..., k], ends[..., k]
        dims = prefix if sizes.ndim > 1 else []
        s_b = dm.broadcast_in_dim(s, dims, lhs.shape)
        e_b = dm.broadcast_in_dim(e, dims, lhs.shape)
        return (pos >= s_b) & (pos < e_b)

    def dot(l: np.ndarray, r: np.ndarray, rbatch: list[int], rcontract: list[int]) -> np.ndarray:
        return contract(l, r, lb, rbatch, lc, rcontract, result_element_type=result_element_type)

    zero = np.zeros((), lhs.dtype)
    if ragged in lc:
        parts = [dot(np.where(mask(k), lhs, zero), rhs, rb, rc) for k in range(g)]
        return np.stack(parts, axis=0)
    if ragged in lb:
        inside = np.zeros(lhs.shape, dtype=bool)
        for k in range(g):
            inside |= mask(k)
        return dot(np.where(inside, lhs, zero), rhs, rb, rc)
    (gdim,) = rhs_group_dimensions

    def drop(dims: list[int]) -> list[int]:
        return [d - (1 if d > gdim else 0) for d in dims]

    out = None
    for k in range(g):
        part = dot(np.where(mask(k), lhs, zero), np.take(rhs, k, axis=gdim), drop(rb), drop(rc))
        out = part if out is None else sem.add(out, part)
    assert out is not None
    return out


@impl("chlo.ragged_dot")
def _ragged_dot(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    d = A.attr(op, "ragged_dot_dimension_numbers")
    names = (
        "lhs_batching_dimensions",
        "rhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
        "lhs_ragged_dimensions",
        "rhs_group_dimensions",
    )
    kwargs = {n: list(A.field(d, n, [])) for n in names}
    return [ragged_dot(*args, result_element_type=A.result_dtype(op), **kwargs)]


# ------------------------------------------------------------------------------------------ scan


@impl("chlo.scan")
def _scan(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """chlo.scan: `body(input slices..., carries...) -> (output slices..., carries...)` applied
    along `dimension` (from the end with `is_reverse`); the outputs are stacked along `dimension`.
    The loop runs over the scanned dimension, each step on whole slices."""
    n_inputs = len(op.inputs) if hasattr(op, "inputs") else len(args)
    inputs = [np.asarray(a) for a in args[:n_inputs]]
    carries = list(args[n_inputs:])
    n_outputs = len(op.results) - len(carries)
    dim = A.int_(op, "dimension")
    reverse = A.bool_(op, "is_reverse")
    region = op.regions[0]
    if inputs:
        length = inputs[0].shape[dim]
    else:
        length = A.result_shape(op, 0)[dim] if n_outputs else 0
    steps = range(length - 1, -1, -1) if reverse else range(length)
    slices: list[list[np.ndarray]] = [[] for _ in range(n_outputs)]
    for i in steps:
        step_inputs = [np.take(x, i, axis=dim) for x in inputs]
        results = ev.run_region(region, [*step_inputs, *carries], env)
        for k in range(n_outputs):
            slices[k].append(np.asarray(results[k]))
        carries = list(results[n_outputs:])
    outputs = []
    for k in range(n_outputs):
        parts = slices[k][::-1] if reverse else slices[k]
        if parts:
            outputs.append(np.stack(parts, axis=dim))
        else:
            outputs.append(np.zeros(A.result_shape(op, k), A.result_dtype(op, k)))
    return [*outputs, *carries]
