"""The pre-FFI forms of JAX's GPU solver targets (jax <= 0.4.34): `api_version = 2`, the routine's
parameters packed in `backend_config` as a C struct (jaxlib's `PackDescriptor`: a raw copy of the
struct, little-endian, 4-byte ints and enums), and the kernel's workspace as an extra result.

Done so far: `cusolver_syevd`, `cusolver_syevj`, `hipsolver_syevd`, `hipsolver_syevj` (eigh; the
2024 ROCm artifacts of JAX's back-compat data carry them).  `SyevdDescriptor` and `SyevjDescriptor`
are both `{SolverType type, FillMode uplo, int batch, int n, int lwork}` (jax 0.4.30,
`jaxlib/gpu/solver_kernels.h`); `batch = -1` means a dynamic batch, given as a second operand.
Results: the eigenvectors (alias of the operand), the eigenvalues, `info`, the workspace (`lwork`
elements, which JAX discards: zeros here).  The fill mode is the vendor's enum: hipSOLVER
`UPPER = 121`, `LOWER = 122` (confirmed by the bytes of JAX's 2024 ROCm artifacts); cuBLAS
`LOWER = 0`, `UPPER = 1`.  The numbers are LAPACK's `?syevd` / `?heevd`, as for the FFI form
(`eigh.py`)."""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import on_lapack, operand_dtype
from stablehlo_py.interpreter.custom_calls.lapack.eigh import syevd

from stablehlo_py.errors import InterpreterError

SOLVER_TYPES = {0: np.dtype(np.float32), 1: np.dtype(np.float64), 2: np.dtype(np.complex64),
                3: np.dtype(np.complex128)}
"""jaxlib's `SolverType` -> the element type it names."""

FILL_MODES = {"cu": {0: "L", 1: "U"}, "hip": {122: "L", 121: "U"}}
"""Vendor -> its fill-mode enum values -> LAPACK's `uplo`."""

DESCRIPTORS = {
    "syevd": ("<5i", ("type", "uplo", "batch", "n", "lwork")),
    "syevj": ("<5i", ("type", "uplo", "batch", "n", "lwork")),
}
"""Routine -> (its descriptor's struct format, field names)."""


def descriptor(ctx: Any, routine: str) -> dict[str, int]:
    """The fields of the call's packed descriptor, or a clear error."""
    fmt, names = DESCRIPTORS[routine]
    raw = ctx.backend_config
    if not isinstance(raw, str):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} (JAX's pre-FFI form) needs its packed descriptor as "
            f"the backend_config string, got {type(raw).__name__}"
        )
    data = raw.encode("utf-8", "surrogateescape")  # (the string attribute's bytes)
    if len(data) != struct.calcsize(fmt):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: backend_config holds {len(data)} bytes, JAX's "
            f"{routine} descriptor has {struct.calcsize(fmt)} ({', '.join(names)} as 4-byte ints); "
            "the artifact is damaged or not written by JAX"
        )
    return dict(zip(names, struct.unpack(fmt, data)))


def _syev(ctx: Any, vendor: str, routine: str) -> list[np.ndarray]:
    d = descriptor(ctx, routine)
    dtype = operand_dtype(ctx)
    if SOLVER_TYPES.get(d["type"]) != dtype:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: its descriptor names solver type {d['type']}, the "
            f"operand is {dtype}"
        )
    uplo = FILL_MODES[vendor].get(d["uplo"])
    if uplo is None:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: fill mode {d['uplo']} is not one of "
            f"{sorted(FILL_MODES[vendor])} (upper, lower)"
        )
    if len(ctx.result_types) != 4:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} gives (eigenvectors, eigenvalues, info, workspace), the "
            f"op declares {len(ctx.result_types)} results"
        )
    layouts = ctx.result_layouts
    kernel = replace(
        ctx,
        operands=ctx.operands[:1],  # (a dynamic batch's size operand is the operand's batch)
        operand_types=ctx.operand_types[:1],
        operand_layouts=None if ctx.operand_layouts is None else ctx.operand_layouts[:1],
        result_types=ctx.result_types[:3],
        result_layouts=None if layouts is None else layouts[:3],
    )
    v, w, info = on_lapack(kernel, syevd, {"mode": "V", "uplo": uplo})
    work_type = ctx.result_types[3]
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    work = np.zeros(tuple(work_type.get_shape()), dtype_of_type(work_type))
    return [v, w, info, work]


def _bind(vendor: str, routine: str) -> Any:
    return lambda ctx: _syev(ctx, vendor, routine)


FORM = "opaque SyevdDescriptor/SyevjDescriptor, api_version 2, a workspace result (jax <= 0.4.34)"
LEGACY_FAMILIES = tuple(
    ({f"{vendor}solver_{routine}": _bind(vendor, routine)}, frozenset({platform}), (FORM,))
    for vendor, platform in (("cu", "cuda"), ("hip", "rocm"))
    for routine in ("syevd", "syevj")
)
"""(targets, platforms, forms) for `builtins.load`."""

__all__ = ["LEGACY_FAMILIES", "descriptor"]
