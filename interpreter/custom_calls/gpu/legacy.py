"""The pre-FFI forms of JAX's GPU solver targets (jax <= 0.4.38): `api_version = 2`, the routine's
parameters packed in `backend_config` as a C struct (jaxlib's `PackDescriptor`: a raw copy of the
struct, little-endian, 4-byte ints and enums, padded to the struct's alignment), and the kernel's
workspace as extra results.  Read from jax 0.4.30's `jaxlib/gpu_solver.py` (the calls),
`jaxlib/gpu/solver_kernels.h` and `jaxlib/gpu/blas_kernels.h` (the structs).

| target (`cu` / `hip`) | descriptor | operands -> results |
|---|---|---|
| `…solver_getrf` | `{type, batch, m, n, lwork}` | a -> a, ipiv, info, work[lwork] |
| `…blas_getrf_batched` | `{type, batch, n}` | a -> a, ipiv, info, work i8 |
| `…solver_geqrf` | `{type, batch, m, n, lwork}` | a -> a, tau, info, work[lwork] |
| `…blas_geqrf_batched` | `{type, batch, m, n}` | a -> a, tau, work i8, work i8 |
| `…solver_orgqr` | `{type, batch, m, n, k, lwork}` | a, tau -> a, info, work[lwork] |
| `…solver_syevd`, `…solver_syevj` | `{type, uplo, batch, n, lwork}` | a[, batch] -> v, w, info, work |
| `…solver_gesvd` | `{type, batch, m, n, lwork; char jobu, jobvt}` | a -> a, s, u, vt, info, work |
| `cusolver_gesvdj` | `{type, batch, m, n, lwork, jobz, int econ}` | a -> a, s, u, **v**, info, work |
| `…solver_sytrd` | `{type, uplo, batch, n, lda, lwork}` | a -> a, d, e, tau, info, work |

`type` is jaxlib's `SolverType` / `BlasType` (F32, F64, C64, C128 = 0..3).  `uplo` is the vendor's
fill mode: cuBLAS `LOWER = 0` (confirmed by the bytes of JAX's 2023 CUDA eigh artifacts, which
factor a lower-triangular input with `lower = True`), `UPPER = 1` (the next value of the same
enum, `cublasFillMode_t`); hipSOLVER `UPPER = 121`, `LOWER = 122` (confirmed by JAX's 2024 ROCm
artifacts).  syevd's `batch = -1` means a dynamic batch, given as a second operand.  gesvd's
`jobu` = `jobvt` is 'A' (full matrices), 'S' (economic) or 'N' (no vectors); when m < n JAX calls
it on the transposed matrix: `(n, m)` in the descriptor, row-major layouts, and the results read as
(a, s, vt, u, info, work), which is the FFI form's `transposed = true` (`svd.py`).  gesvdj's `jobz`
is `cusolverEigMode_t` (NOVECTOR = 0, VECTOR = 1), `econ` 0 or 1.  A result JAX's old call has but
the FFI kernel lacks (`info` of geqrf / orgqr: LAPACK's is always 0 there; the workspaces, which JAX
discards) is zeros.

Older forms of two other GPU targets live beside this file: `legacy_sparse.py` (gtsv2) and
`legacy_pivots.py` (lu_pivots_to_permutation).  The numbers are always the FFI form's kernel
(`lu.py`, `qr.py`, `eigh.py`, `svd.py`, `tridiagonal.py`), given the descriptor's parameters."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu import legacy_pivots, legacy_sparse, svd
from stablehlo_py.interpreter.custom_calls.gpu.common import on_lapack, operand_dtype
from stablehlo_py.interpreter.custom_calls.gpu.legacy_descriptors import (
    EIG_MODES,
    FILL_MODES,
    GESVD_JOBS,
    SOLVER_TYPES,
    check_fields,
    descriptor,
    kernel_context,
    without_shape_operands,
)
from stablehlo_py.interpreter.custom_calls.lapack.common import flat_result_types, zeros_of_type
from stablehlo_py.interpreter.custom_calls.lapack.eigh import syevd
from stablehlo_py.interpreter.custom_calls.lapack.lu import getrf
from stablehlo_py.interpreter.custom_calls.lapack.qr import geqrf, orgqr
from stablehlo_py.interpreter.custom_calls.lapack.tridiagonal import sytrd

from stablehlo_py.errors import InterpreterError

# --------------------------------------------------------------------------------------------------
# the solver routines


def _matrix_sizes(a: np.ndarray) -> dict[str, int]:
    return {"batch": math.prod(a.shape[:-2]), "m": a.shape[-2], "n": a.shape[-1]}


def _orgqr_sizes(a: np.ndarray, tau: np.ndarray) -> dict[str, int]:
    return {**_matrix_sizes(a), "k": tau.shape[-1]}


def _square_sizes(a: np.ndarray, *_: np.ndarray) -> dict[str, int]:
    return {"batch": math.prod(a.shape[:-2]), "n": a.shape[-1], "lda": a.shape[-1]}


def _gesvd_sizes(a: np.ndarray) -> dict[str, int]:
    sizes = _matrix_sizes(a)
    if sizes["m"] < sizes["n"]:  # (JAX's call on the transposed matrix)
        sizes["m"], sizes["n"] = sizes["n"], sizes["m"]
    return sizes


def _uplo(ctx: Any, d: dict[str, int], vendor: str) -> str:
    uplo = FILL_MODES[vendor].get(d["uplo"])
    if uplo is None:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: fill mode {d['uplo']} is not one of "
            f"{sorted(FILL_MODES[vendor])} ({vendor}'s upper, lower)"
        )
    return uplo


def _enum(ctx: Any, table: dict[int, Any], value: int, what: str) -> Any:
    if value not in table:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: {what} = {value} is not one of JAX's values "
            f"{sorted(table)}"
        )
    return table[value]


def _svd_flags(ctx: Any, full: bool, compute_uv: bool, transposed: bool) -> Any:
    attributes = {k: v for k, v in ctx.attributes.items() if k != "mhlo.backend_config"}
    config = {"full_matrices": full, "compute_uv": compute_uv, "transposed": transposed}
    return replace(ctx, backend_config=config, attributes=attributes)


def _gesvd(ctx: Any, d: dict[str, int], vendor: str) -> list[np.ndarray]:
    if d["jobu"] != d["jobvt"]:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: jobu {d['jobu']} and jobvt {d['jobvt']} differ; JAX "
            "always asks for both or neither"
        )
    full, compute_uv = _enum(ctx, GESVD_JOBS, d["jobu"], "jobu (a character code)")
    m, n = np.shape(ctx.operands[0])[-2:]
    return svd.gesvd(_svd_flags(ctx, full, compute_uv, transposed=m < n))


def _gesvdj(ctx: Any, d: dict[str, int], vendor: str) -> list[np.ndarray]:
    compute_uv = _enum(ctx, EIG_MODES, d["jobz"], "jobz")
    econ = _enum(ctx, {0: False, 1: True}, d["econ"], "econ")
    return svd.gesvdj(_svd_flags(ctx, not econ, compute_uv, transposed=False))


@dataclass(frozen=True)
class Routine:
    """One pre-FFI routine: its descriptor (a `DESCRIPTORS` key), operand count, the names of its
    results as JAX's call declares them, how many of those its FFI kernel computes (the rest are
    zeros: `info`s the FFI form dropped and workspaces), the descriptor fields the operands fix,
    and the kernel (given the call trimmed to the kernel's operands and results)."""

    descriptor: str
    operands: int
    results: tuple[str, ...]
    computed: int
    sizes: Callable[..., dict[str, int]]
    kernel: Callable[[Any, dict[str, int], str], list[np.ndarray]]


ROUTINES = {
    "solver_getrf": Routine("getrf", 1, ("a", "ipiv", "info", "work"), 3, _matrix_sizes,
                            lambda ctx, d, v: on_lapack(ctx, getrf)),
    "blas_getrf_batched": Routine("getrf_batched", 1, ("a", "ipiv", "info", "work"), 3,
                                  _square_sizes, lambda ctx, d, v: on_lapack(ctx, getrf)),
    "solver_geqrf": Routine("geqrf", 1, ("a", "tau", "info", "work"), 2, _matrix_sizes,
                            lambda ctx, d, v: on_lapack(ctx, geqrf)),
    "blas_geqrf_batched": Routine("geqrf_batched", 1, ("a", "tau", "work", "work"), 2,
                                  _matrix_sizes, lambda ctx, d, v: on_lapack(ctx, geqrf)),
    "solver_orgqr": Routine("orgqr", 2, ("a", "info", "work"), 1, _orgqr_sizes,
                            lambda ctx, d, v: on_lapack(ctx, orgqr)),
    "solver_gesvd": Routine("gesvd", 1, ("a", "s", "u", "vt", "info", "work"), 5, _gesvd_sizes,
                            _gesvd),
    "solver_gesvdj": Routine("gesvdj", 1, ("a", "s", "u", "v", "info", "work"), 5, _matrix_sizes,
                             _gesvdj),
    "solver_sytrd": Routine("sytrd", 1, ("a", "d", "e", "tau", "info", "work"), 5, _square_sizes,
                            lambda ctx, d, v: on_lapack(ctx, sytrd, {"uplo": _uplo(ctx, d, v)})),
}
for _name in ("syevd", "syevj"):
    ROUTINES[f"solver_{_name}"] = Routine(
        _name, 1, ("v", "w", "info", "work"), 3, _square_sizes,
        lambda ctx, d, v: on_lapack(ctx, syevd, {"mode": "V", "uplo": _uplo(ctx, d, v)}),
    )
"""The name after the vendor prefix (`cusolver_getrf` -> `solver_getrf`) -> its routine."""


def _operands(ctx: Any, routine: Routine, d: dict[str, int]) -> int:
    """How many operands the call has: the routine's, plus syevd's dynamic batch size."""
    extra = 1 if routine.descriptor.startswith("syev") and d["batch"] == -1 else 0
    want = routine.operands + extra
    if len(ctx.operands) != want:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes {want} operand(s) in JAX's pre-FFI form "
            f"(batch = {d.get('batch')} in its descriptor), got {len(ctx.operands)}"
        )
    if extra:
        d["batch"] = int(np.asarray(ctx.operands[1]))
    return want


def run_routine(ctx: Any, vendor: str, name: str) -> list[np.ndarray]:
    routine = ROUTINES[name]
    ctx = without_shape_operands(ctx)
    d = descriptor(ctx, routine.descriptor)
    dtype = operand_dtype(ctx)
    # (`in` first: numpy's dtype == None holds for float64)
    if d["type"] not in SOLVER_TYPES or SOLVER_TYPES[d["type"]] != dtype:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: its descriptor names solver type {d['type']}, the "
            f"operand is {dtype} (JAX's types: "
            f"{', '.join(f'{k} {v}' for k, v in SOLVER_TYPES.items())})"
        )
    _operands(ctx, routine, d)
    arrays = [np.asarray(x) for x in ctx.operands[: routine.operands]]
    if arrays[0].ndim < 2 or any(x.ndim < 1 for x in arrays):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} works on a (batch of) matrices, got operand shapes "
            f"{[list(x.shape) for x in arrays]}"
        )
    check_fields(ctx, d, routine.sizes(*arrays), "the operand shapes")
    types = flat_result_types(ctx)
    if len(types) != len(routine.results):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} gives ({', '.join(routine.results)}), the op declares "
            f"{len(types)} results"
        )
    work = [t for t, r in zip(types, routine.results) if r == "work"]
    if "lwork" in d and [tuple(t.get_shape()) for t in work] != [(d["lwork"],)]:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: its workspace result is {work[0]}, its descriptor "
            f"says lwork = {d['lwork']}; the descriptor does not belong to this call"
        )
    kernel = kernel_context(ctx, routine.operands, routine.computed)
    out = routine.kernel(kernel, d, vendor)
    return [*out, *(zeros_of_type(t) for t in types[routine.computed :])]


def _bind(vendor: str, name: str) -> Any:
    return lambda ctx: run_routine(ctx, vendor, name)


VENDOR_NAMES = {"cu": ("cuda", "cusolver", "cublas"), "hip": ("rocm", "hipsolver", "hipblas")}
"""Vendor prefix -> (platform, solver library prefix, BLAS library prefix)."""

RANGES = {
    "getrf": "jax <= 0.4.33", "geqrf": "jax <= 0.4.34", "orgqr": "jax <= 0.4.34",
    "syevd": "jax <= 0.4.34", "syevj": "jax <= 0.4.34", "gesvd": "jax <= 0.4.34",
    "gesvdj": "jax <= 0.4.34, CUDA only", "sytrd": "jax <= 0.4.38",
}
"""Routine -> the JAX releases that wrote its pre-FFI form (plan 2.1)."""


def _form(name: str) -> str:
    routine = ROUTINES[name]
    base = routine.descriptor.removesuffix("_batched")
    struct_name = "".join(p.capitalize() for p in routine.descriptor.split("_")) + "Descriptor"
    return (f"opaque {struct_name}, api_version 2, results ({', '.join(routine.results)}) "
            f"({RANGES[base]})")


def _families() -> tuple[tuple[dict[str, Any], frozenset[str], tuple[str, ...]], ...]:
    families = []
    for vendor, (platform, solver, blas) in VENDOR_NAMES.items():
        for name in ROUTINES:
            if name == "solver_gesvdj" and vendor != "cu":
                continue  # (ROCm's old lowering had no Jacobi SVD)
            library, routine = name.split("_", 1)
            target = f"{solver if library == 'solver' else blas}_{routine}"
            families.append(({target: _bind(vendor, name)}, frozenset({platform}), (_form(name),)))
    return tuple(families)


LEGACY_FAMILIES = _families() + legacy_sparse.FAMILIES + legacy_pivots.FAMILIES
"""(targets, platforms, forms) for `builtins.load`."""

__all__ = ["LEGACY_FAMILIES", "descriptor"]
