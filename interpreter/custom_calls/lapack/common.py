"""What every LAPACK target shares: the element type a target name promises, attributes of the typed-FFI
`backend_config` dictionary, memory layouts, batching and the `info` outputs.

JAX's CPU kernels (`jaxlib/cpu/lapack_kernels.cc`) read each buffer's bytes as LAPACK sees them: a
matrix buffer of logical shape `(*batch, rows, cols)` is a run of column-major `rows x cols` matrices, a
vector buffer (`tau`, pivots, eigenvalues, `info`) a run of contiguous rows.  The op's
`operand_layouts`/`result_layouts` (minor-to-major, JAX writes column-major for its largest-rank
buffers and row-major for the others) say how XLA lays the logical tensor out in those bytes.  So a
target reads an operand's bytes in the layout the op gives and hands LAPACK the matrices those bytes
hold (`kernel_view`), and turns what LAPACK wrote back into the logical result the layout describes
(`logical_view`).  With JAX's own layouts both are the identity; a layout that differs changes what
the kernel sees exactly as it would under XLA.

The numerics are scipy's wrappers of the same LAPACK (and BLAS) routines (`stablehlo-py[linalg]`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import TupleType

from stablehlo_py.errors import InterpreterError, NotSupportedError

# LAPACK's type prefixes: the element type each target name promises.
PREFIX_DTYPES: dict[str, np.dtype] = {
    "s": np.dtype(np.float32),
    "d": np.dtype(np.float64),
    "c": np.dtype(np.complex64),
    "z": np.dtype(np.complex128),
}

MATRIX = "matrix"  # a run of column-major matrices over the leading batch dimensions
VECTOR = "vector"  # a run of row-major rows (tau, pivots, eigenvalues, info)


def target_name(prefix: str, routine: str) -> str:
    return f"lapack_{prefix}{routine}_ffi"


def lapack_routine(name: str, dtype: np.dtype) -> Callable[..., Any]:
    """scipy's wrapper of LAPACK routine `name` (without its type prefix) for `dtype`."""
    return _get_funcs("lapack", name, dtype)


def blas_routine(name: str, dtype: np.dtype) -> Callable[..., Any]:
    return _get_funcs("blas", name, dtype)


def _get_funcs(kind: str, name: str, dtype: np.dtype) -> Callable[..., Any]:
    try:
        if kind == "lapack":
            from scipy.linalg.lapack import get_lapack_funcs as get
        else:
            from scipy.linalg.blas import get_blas_funcs as get
    except ImportError as exc:
        raise NotSupportedError(
            "JAX's LAPACK custom calls need scipy (the same LAPACK routines XLA's CPU kernels call); "
            "install it with `pip install stablehlo-py[linalg]`"
        ) from exc
    return get((name,), dtype=dtype)[0]


# ---------------------------------------------------------------------------------------------------
# Attributes


def _python_value(value: Any) -> Any:
    """Python value of a typed-FFI attribute: ints, floats, strings and dictionaries pass through;
    xDSL attributes (when a caller hands them over unconverted) become the same python values."""
    if isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return value
    if isinstance(value, Mapping):
        return {k: _python_value(v) for k, v in value.items()}
    data = getattr(value, "data", None)
    if isinstance(data, Mapping):  # DictionaryAttr
        return {k: _python_value(v) for k, v in data.items()}
    if isinstance(data, str):  # StringAttr
        return data
    inner = getattr(value, "value", None)  # IntegerAttr / FloatAttr
    if inner is not None and hasattr(inner, "data"):
        return inner.data
    return value


def ffi_attributes(ctx: Any) -> dict[str, Any]:
    """The typed-FFI attribute dictionary of the call: `backend_config` when it is a dictionary (api
    version 4), else the `mhlo.backend_config` attribute JAX's printer moves it to."""
    config = _python_value(ctx.backend_config)
    if isinstance(config, Mapping) and config:
        return config
    attrs = getattr(ctx, "attributes", None) or {}
    moved = _python_value(attrs.get("mhlo.backend_config"))
    if isinstance(moved, dict):
        return moved
    return config if isinstance(config, dict) else {}


def char_attr(ctx: Any, name: str, allowed: str, default: str | None = None) -> str:
    """A LAPACK character option (`uplo`, `mode`, `side`, ...), stored by JAX as a `ui8` of its code."""
    attrs = ffi_attributes(ctx)
    if name not in attrs:
        if default is not None:
            return default
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: missing attribute '{name}' in its backend_config "
            f"dictionary (JAX passes one of {', '.join(repr(c) for c in allowed)} as a ui8 character code)"
        )
    value = attrs[name]
    char = value if isinstance(value, str) else chr(int(value)) if 0 <= int(value) < 256 else "?"
    if char not in allowed:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: attribute '{name}' = {value!r} is not one of "
            f"{', '.join(repr(c) for c in allowed)}"
        )
    return char


# ---------------------------------------------------------------------------------------------------
# Layouts


def _default_layout(rank: int) -> tuple[int, ...]:
    return tuple(range(rank - 1, -1, -1))


def _layout(
    layouts: Sequence[Sequence[int]] | None, index: int, rank: int, ctx: Any, what: str
) -> tuple[int, ...]:
    if layouts is None or index >= len(layouts) or layouts[index] is None:
        return _default_layout(rank)
    layout = tuple(int(d) for d in layouts[index])
    if sorted(layout) != list(range(rank)):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: {what} layout {list(layout)} is not a permutation of the "
            f"dimensions of a rank-{rank} tensor"
        )
    return layout


def _kernel_layout(rank: int, role: str) -> tuple[int, ...]:
    """The minor-to-major order in which the kernel reads a logical tensor's bytes."""
    if role == MATRIX:
        return (rank - 2, rank - 1, *range(rank - 3, -1, -1))
    return _default_layout(rank)


def _relayout(x: np.ndarray, src: tuple[int, ...], dst: tuple[int, ...]) -> np.ndarray:
    """The logical tensor whose bytes in layout `dst` are the bytes of `x` laid out in `src`."""
    if src == dst:
        return x
    shape = x.shape
    flat = np.transpose(x, src[::-1]).ravel()
    perm = dst[::-1]
    physical = flat.reshape([shape[p] for p in perm])
    return np.transpose(physical, np.argsort(perm))


def operand(ctx: Any, index: int, role: str, dtype: np.dtype | None = None) -> np.ndarray:
    """Operand `index` as the kernel sees it (matrices as LAPACK reads them), checked against `dtype`."""
    if index >= len(ctx.operands):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: expected at least {index + 1} operands, got {len(ctx.operands)}"
        )
    x = np.asarray(ctx.operands[index])
    if dtype is not None and x.dtype != dtype:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: operand #{index} has element type {x.dtype}, the target "
            f"works on {dtype}"
        )
    if role == MATRIX and x.ndim < 2:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: operand #{index} must be a (batch of) matrices, got shape "
            f"{list(x.shape)}"
        )
    layout = _layout(ctx.operand_layouts, index, x.ndim, ctx, f"operand #{index}")
    return _relayout(x, layout, _kernel_layout(x.ndim, role))


def results(ctx: Any, values: Sequence[tuple[np.ndarray, str]]) -> list[np.ndarray]:
    """The kernel's outputs as the op's results: relaid per `result_layouts`, checked against the result
    types' shapes and element types."""
    if len(values) != len(ctx.result_types):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: JAX's kernel has {len(values)} results, the op declares "
            f"{len(ctx.result_types)}"
        )
    out = []
    for i, ((value, role), rtype) in enumerate(zip(values, ctx.result_types)):
        shape = tuple(_static_shape(rtype))
        dtype = _element_dtype(rtype)
        if tuple(value.shape) != shape:
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: result #{i} has type {rtype}, JAX's kernel produces "
                f"shape {list(value.shape)} for these operands"
            )
        if value.dtype != dtype:
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: result #{i} has element type {dtype}, JAX's kernel "
                f"produces {value.dtype}"
            )
        layout = _layout(ctx.result_layouts, i, value.ndim, ctx, f"result #{i}")
        out.append(np.ascontiguousarray(_relayout(value, _kernel_layout(value.ndim, role), layout)))
    return out


def flat_result_types(ctx: Any) -> tuple[Any, ...]:
    """The call's result types; a single `tuple<...>` result (JAX's 2023 artifacts) stands for its
    elements (the dispatcher packs a target's results back into it)."""
    types = tuple(ctx.result_types)
    if len(types) == 1 and isinstance(types[0], TupleType):
        return tuple(types[0].types.data)
    return types


def zeros_of_type(rtype: Any) -> np.ndarray:
    """Zeros of a (static) result type: what a target returns for a workspace JAX discards."""
    return np.zeros(_static_shape(rtype), _element_dtype(rtype))


def _static_shape(rtype: Any) -> list[int]:
    shape = getattr(rtype, "get_shape", None)
    if shape is None:
        raise InterpreterError(f"custom_call result type {rtype} is not a ranked tensor")
    dims = list(shape())
    if any(d < 0 for d in dims):
        raise InterpreterError(f"custom_call result type {rtype} must have a static shape")
    return dims


def _element_dtype(rtype: Any) -> np.dtype:
    return np.dtype(dtype_of_type(rtype))


# ---------------------------------------------------------------------------------------------------
# Batching


def batch_indices(x: np.ndarray, non_batch: int = 2) -> Iterator[tuple[int, ...]]:
    """Each batch index of `x` (all dimensions but its last `non_batch`); none when those last
    dimensions hold no element (LAPACK is not called on an empty matrix, as in JAX's kernels)."""
    if 0 in x.shape[x.ndim - non_batch :]:
        return iter(())
    return np.ndindex(*x.shape[: x.ndim - non_batch])


def info_array(x: np.ndarray, non_batch: int = 2) -> np.ndarray:
    return np.zeros(x.shape[: x.ndim - non_batch], dtype=np.int32)


def fortran(a: np.ndarray) -> np.ndarray:
    """A Fortran-ordered copy LAPACK may overwrite in place (scipy's `overwrite_a=1` then writes into it)."""
    return np.array(a, order="F", copy=True)


def real_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dtype).dtype)


def complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.result_type(dtype, np.complex64))


def require_square(ctx: Any, a: np.ndarray) -> None:
    if a.shape[-1] != a.shape[-2]:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: needs square matrices, got operand shape {list(a.shape)}"
        )


def square_matrices(ctx: Any, dtype: np.dtype) -> np.ndarray:
    """Operand #0 as a (batch of) square matrices, as the kernel reads them."""
    a = operand(ctx, 0, MATRIX, dtype)
    require_square(ctx, a)
    return a


def uplo_lower(ctx: Any) -> bool:
    """Whether the `uplo` attribute names the lower triangle ('L'; 'U' is the upper)."""
    return char_attr(ctx, "uplo", "LU") == "L"


def bind_targets(
    fn: Callable[..., list[np.ndarray]], real_routine: str, complex_routine: str | None = None
) -> dict[str, Callable[[Any], list[np.ndarray]]]:
    """`lapack_<p><routine>_ffi` -> `fn(ctx, dtype=...)` for the four LAPACK types (complex types may
    name their routine differently: `ungqr`, `heevd`)."""
    table: dict[str, Callable[[Any], list[np.ndarray]]] = {}
    for prefix, dtype in PREFIX_DTYPES.items():
        routine = complex_routine if complex_routine and dtype.kind == "c" else real_routine
        table[target_name(prefix, routine)] = functools.partial(fn, dtype=dtype)
    return table


def _scalar_attr(ctx: Any, name: str, kind: str) -> Any:
    """The attribute `name` when it is a scalar (not a string or dictionary); `kind` names the
    scalar wanted in the error."""
    attrs = ffi_attributes(ctx)
    if name not in attrs or isinstance(attrs[name], (str, Mapping)):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: missing {kind} attribute '{name}' in its backend_config dictionary"
        )
    return attrs[name]


def int_attr(ctx: Any, name: str) -> int:
    """An integer attribute (`low`/`high` of gehrd, JAX's i32 scalars)."""
    return int(_scalar_attr(ctx, name, "integer"))


def bool_attr(ctx: Any, name: str) -> bool:
    """A boolean attribute (`left`/`transpose` of ormqr): `true`/`false`, or an i1 / integer."""
    return bool(_scalar_attr(ctx, name, "boolean"))
