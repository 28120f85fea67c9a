"""The packed descriptors of JAX's pre-FFI GPU targets, and what reading one takes: jaxlib's
`PackDescriptor` copies the C struct's bytes (little-endian, 4-byte ints and enums, padded to the
struct's alignment) into the call's `backend_config` string; its enum values; checking the fields
against the operands; the results the old call adds to the FFI kernel's (tuple-typed in JAX's 2023
artifacts).  Used by `legacy.py` (the solvers), `legacy_sparse.py` (gtsv2), `legacy_pivots.py` and
`cholesky_update.py`."""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.jax_targets import split_shape_operands
from stablehlo_py.interpreter.custom_calls.lapack.common import flat_result_types

from stablehlo_py.errors import InterpreterError

SOLVER_TYPES = {0: np.dtype(np.float32), 1: np.dtype(np.float64), 2: np.dtype(np.complex64),
                3: np.dtype(np.complex128)}
"""jaxlib's `SolverType` (and `BlasType`) -> the element type it names."""

FILL_MODES = {"cu": {0: "L", 1: "U"}, "hip": {122: "L", 121: "U"}}
"""Vendor -> its fill-mode enum values -> LAPACK's `uplo`."""

GESVD_JOBS = {ord("A"): (True, True), ord("S"): (False, True), ord("N"): (False, False)}
"""gesvd's `jobu` (= `jobvt`) -> (full_matrices, compute_uv)."""

EIG_MODES = {0: False, 1: True}
"""`cusolverEigMode_t` (gesvdj's `jobz`) -> compute_uv."""

DESCRIPTORS = {
    "getrf": ("<5i", ("type", "batch", "m", "n", "lwork")),
    "getrf_batched": ("<3i", ("type", "batch", "n")),
    "geqrf": ("<5i", ("type", "batch", "m", "n", "lwork")),
    "geqrf_batched": ("<4i", ("type", "batch", "m", "n")),
    "orgqr": ("<6i", ("type", "batch", "m", "n", "k", "lwork")),
    "syevd": ("<5i", ("type", "uplo", "batch", "n", "lwork")),
    "syevj": ("<5i", ("type", "uplo", "batch", "n", "lwork")),
    "gesvd": ("<5i2b2x", ("type", "batch", "m", "n", "lwork", "jobu", "jobvt")),
    "gesvdj": ("<7i", ("type", "batch", "m", "n", "lwork", "jobz", "econ")),
    "sytrd": ("<6i", ("type", "uplo", "batch", "n", "lda", "lwork")),
    # legacy_sparse.py, legacy_pivots.py
    "gtsv2": ("<4i", ("batch", "m", "n", "ldb")),
    "lu_pivots_to_permutation": ("<qii", ("batch_size", "pivot_size", "permutation_size")),
    # cholesky_update.py
    "cholesky_update": ("<i4xq", ("type", "matrix_size")),
}
"""Descriptor -> (its struct format, field names)."""


def config_bytes(ctx: Any, raw: Any, where: str = "backend_config") -> bytes:
    """The bytes of a string attribute holding a packed descriptor."""
    if not isinstance(raw, str):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} (JAX's pre-FFI form) needs its packed descriptor as "
            f"the {where} string, got {type(raw).__name__}"
        )
    return raw.encode("utf-8", "surrogateescape")  # (the string attribute's bytes)


_BACKEND_CONFIG = object()


def descriptor(
    ctx: Any, name: str, raw: Any = _BACKEND_CONFIG, where: str = "backend_config"
) -> dict[str, int]:
    """The fields of the call's packed descriptor (`raw`, found in `where`; by default the
    backend_config), or a clear error."""
    fmt, names = DESCRIPTORS[name]
    data = config_bytes(ctx, ctx.backend_config if raw is _BACKEND_CONFIG else raw, where)
    if len(data) != struct.calcsize(fmt):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: {where} holds {len(data)} bytes, JAX's "
            f"{name} descriptor has {struct.calcsize(fmt)} ({', '.join(names)}, packed as the C "
            f"struct '{fmt}'); the artifact is damaged or not written by JAX"
        )
    return dict(zip(names, struct.unpack(fmt, data)))


def check_fields(ctx: Any, fields: dict[str, int], want: dict[str, int], what: str) -> None:
    """Refuse a descriptor whose sizes are not those of the call's operands (`want`)."""
    wrong = {k: v for k, v in want.items() if k in fields and fields[k] != v}
    if wrong:
        said = ", ".join(f"{k} = {fields[k]}" for k in wrong)
        real = ", ".join(f"{k} = {v}" for k, v in wrong.items())
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: its descriptor says {said}, but {what} give {real}; "
            "the descriptor does not belong to these operands (a hand-edited or damaged artifact)"
        )


def kernel_context(ctx: Any, operands: int, results: int, **changes: Any) -> Any:
    """The call as the FFI form's kernel sees it: the first `operands` operands and `results`
    results (flattened)."""
    types = flat_result_types(ctx)
    ins, outs = ctx.operand_layouts, ctx.result_layouts
    return replace(
        ctx,
        operands=ctx.operands[:operands],
        operand_types=ctx.operand_types[:operands],
        operand_layouts=None if ins is None else ins[:operands],
        result_types=types[:results],
        result_layouts=None if outs is None else outs[:results],
        **changes,
    )


def without_shape_operands(ctx: Any) -> Any:
    """The call without the result-shape operands JAX appended when a result shape was dynamic
    (`indices_of_shape_operands`: syevd with a dynamic batch, gtsv2); they only sized the kernel's
    outputs, which the result types give."""
    indices = ctx.attributes.get("indices_of_shape_operands")
    if indices is None:
        return ctx
    operands, _ = split_shape_operands(ctx.operands, indices)
    drop = {int(i) for i in np.asarray(indices).reshape(-1)}
    keep = [i for i in range(len(ctx.operands)) if i not in drop]
    layouts = ctx.operand_layouts
    if layouts is not None:
        layouts = tuple(layouts[i] for i in keep if i < len(layouts))
    return replace(
        ctx,
        operands=tuple(operands),
        operand_types=tuple(ctx.operand_types[i] for i in keep),
        operand_layouts=layouts,
    )
